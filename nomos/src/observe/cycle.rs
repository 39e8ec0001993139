//! One collection cycle: read every cluster (one probe each) and every reachable host (one
//! combined probe each, every minute), store the samples, replay the rules over the recent
//! samples, and raise, update or resolve signals; then mark suppression and maintenance, work out
//! the notifications due, and set entity health.
//!
//! The rules replay stored samples rather than keeping trackers in memory, so a cycle run by
//! another process (`nomos observe run-once`) sees the same dwell and flapping as the app's own.

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use nomos_types::events::SignalNotified;
use nomos_types::{EntityState, Health, ObserveReport};

use super::collect::{self, HOST_PROBE};
use super::rules::{RuleState, Rules, Tracker};
use super::series::{self, Sample};
use super::signals::{self, Firing};
use crate::actuate::{Actuator, RunRequest};
use crate::discovery::{read_command, split_answers};
use crate::{Error, Result};

/// The actor Observe's probes are recorded under.
pub const ACTOR: &str = "observe";
const PROBE_TIMEOUT: Duration = Duration::from_secs(30);
/// Hosts are probed at most this often.
const HOST_EVERY_S: i64 = 60;
/// Certificates, subscriptions and pending updates are read hourly; backups daily.
const HOURLY_S: i64 = 3600;
const DAILY_S: i64 = 86_400;
/// Rollup and pruning run at most this often.
const ROLLUP_EVERY_S: i64 = 300;
/// Samples older than this are not replayed (the longest dwell plus the flapping window).
const REPLAY_S: i64 = 20 * 60;

/// Observe's memory between cycles in one process: counters for rates, when hosts were probed,
/// when the tiers were rolled up. Losing it (a new process) loses nothing the rules need.
#[derive(Debug)]
pub struct Observer {
    rules: Rules,
    state: Mutex<State>,
    /// The background cadences: each host read once a minute, the hourly and daily reads
    /// (certificates, updates, backups) when due. Off for a quick look — a fix being verified
    /// needs every host read now, and none of the slow reads.
    paced: bool,
    /// Whether new signals may be investigated automatically (the settings decide which): only
    /// where Nomos can think (a provider is configured) and someone runs the tasks.
    investigates: std::sync::atomic::AtomicBool,
}

#[derive(Debug, Default)]
struct State {
    counters: HashMap<String, (i64, [u64; 4])>,
    host_probed: HashMap<String, i64>,
    /// When each cluster's hourly and daily reads, and each host's hourly one, last ran.
    hourly: HashMap<String, i64>,
    daily: HashMap<String, i64>,
    rolled_up: i64,
}

struct Entity {
    id: String,
    slug: String,
    name: String,
    entity_type: String,
    state: String,
}

/// Pending updates as the package manager knows them (never `apt update`: only reads).
const UPDATES_PROBE: &str = "apt list --upgradable 2>/dev/null | tail -n +2 | wc -l";

impl Observer {
    /// Whether the read of `key` in `which` is due at `now`; if so it counts as done now.
    fn due(&self, which: impl Fn(&mut State) -> &mut HashMap<String, i64>, key: &str, now: i64, every: i64) -> bool {
        if !self.paced {
            return false;
        }
        let mut st = self.state();
        let map = which(&mut st);
        if map.get(key).is_some_and(|t| now - t < every) {
            return false;
        }
        map.insert(key.to_string(), now);
        true
    }

    pub fn new() -> Result<Observer> {
        let rules = Rules::builtin().map_err(|e| Error::Invalid(e.to_string()))?;
        Ok(Observer {
            rules,
            state: Mutex::new(State::default()),
            paced: true,
            investigates: std::sync::atomic::AtomicBool::new(false),
        })
    }

    /// Lets (or stops) this observer open automatic investigations.
    pub fn set_investigates(&self, on: bool) {
        self.investigates.store(on, std::sync::atomic::Ordering::Relaxed);
    }

    fn investigates(&self) -> bool {
        self.investigates.load(std::sync::atomic::Ordering::Relaxed)
    }

    /// An observer for a quick look: every host read each time it is asked (not once a minute),
    /// without the hourly and daily reads.
    pub fn quick() -> Result<Observer> {
        Ok(Observer { paced: false, ..Observer::new()? })
    }

    fn state(&self) -> std::sync::MutexGuard<'_, State> {
        // Nothing here is left inconsistent by a panic elsewhere; keep using it.
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }
}

fn message(rule: &str, e: &Entity, value: Option<f64>, flapping: bool) -> String {
    let v = value.unwrap_or(0.0);
    let text = match rule {
        "down" if e.entity_type == "host" => format!("node {} is offline", e.name),
        "down" => format!("{} is down", e.name),
        "unreachable" => format!("{} does not answer over SSH", e.name),
        "cpu" => format!("CPU at {v:.0} % on {}", e.name),
        "memory" => format!("memory at {v:.0} % on {}", e.name),
        "disk" => format!("disk {v:.0} % full on {}", e.name),
        "storage" => format!("storage {} is {v:.0} % full", e.name),
        "certificate" => format!("certificate of {} expires in {v:.0} days", e.name),
        "backup" => format!("no backup of {} for {v:.0} h", e.name),
        "failed-units" => format!("{v:.0} failed systemd unit(s) on {}", e.name),
        "quorum" => format!("cluster {} lost quorum", e.name),
        other => format!("{other} on {}", e.name),
    };
    if flapping {
        format!("{text} (flapping)")
    } else {
        text
    }
}

impl Actuator {
    /// One collection cycle now.
    pub async fn observe_once(&self, observer: &Observer) -> Result<ObserveReport> {
        let started = Instant::now();
        let mut report = ObserveReport::default();
        let settings = self.engine().observe_settings().await.unwrap_or_default();
        let now_ms = self.clock().now_ms();
        let now = now_ms / 1000;
        let entities = self.observed_entities().await?;
        let by_key: HashMap<(String, String), usize> = entities
            .iter()
            .enumerate()
            .filter_map(|(i, (e, cluster, key))| {
                Some(((cluster.clone()?, key.clone()?), i)).filter(|_| e.state != "gone")
            })
            .collect();
        let mut samples: Vec<Sample> = Vec::new();
        let mut observed: Vec<usize> = Vec::new();
        // Guests Proxmox is working on (a backup, a migration): their checks wait.
        let mut locked: std::collections::HashSet<String> = std::collections::HashSet::new();
        let sample = |samples: &mut Vec<Sample>, e: &Entity, metric: &'static str, unit: &'static str, value: f64| {
            samples.push(Sample { entity_id: e.id.clone(), metric, unit, value });
        };

        // Clusters: one probe each, through a host discovery follows.
        let mut seen_clusters: Vec<String> = Vec::new();
        for (host, cluster) in self.engine().followed_hosts().await? {
            let Some(cluster) = cluster else { continue };
            if seen_clusters.contains(&cluster) {
                continue;
            }
            let paths = ["/cluster/status".to_string(), "/cluster/resources".to_string()];
            let req = self.probe_request(&host, read_command(&paths), "observe: the cluster's state and usage");
            let result = match self.probe(&format!("observe:cluster:{cluster}"), req).await {
                Ok(r) => r,
                Err(e) => {
                    report.warnings.push(format!("{cluster}: {e}"));
                    continue;
                }
            };
            report.commands += 1;
            if !result.ok() {
                report.warnings.push(format!(
                    "{cluster} via {host}: {}",
                    result.error.clone().unwrap_or_else(|| "no answer".into())
                ));
                continue;
            }
            let sections = split_answers(&result.stdout);
            let get = |p: &str| sections.iter().find(|(k, _)| k == p).map(|(_, t)| t.as_str());
            let Some(resources) = get("/cluster/resources") else {
                report.warnings.push(format!("{cluster}: /cluster/resources gave no answer"));
                continue;
            };
            let reading = match collect::cluster(get("/cluster/status"), resources) {
                Ok(r) => r,
                Err(e) => {
                    report.warnings.push(format!("{cluster}: {e}"));
                    continue;
                }
            };
            seen_clusters.push(cluster.clone());
            report.clusters += 1;
            for r in &reading.readings {
                if let Some(&i) = by_key.get(&(cluster.clone(), r.pve_key.clone())) {
                    sample(&mut samples, &entities[i].0, r.metric, r.unit, r.value);
                    observed.push(i);
                }
            }
            // The slow reads, through the same host, when their time has come.
            let online: Vec<String> = reading
                .readings
                .iter()
                .filter(|r| r.metric == "up" && r.value > 0.0)
                .filter_map(|r| r.pve_key.strip_prefix("node/").map(str::to_string))
                .filter(|n| crate::discovery::node_name_ok(n))
                .collect();
            let mut slow = Vec::new();
            if observer.due(|s| &mut s.hourly, &cluster, now, HOURLY_S) {
                match self.read_hourly(&host, &cluster, &online, now).await {
                    Ok(r) => slow.extend(r),
                    Err(e) => report.warnings.push(format!("{cluster}: hourly reads: {e}")),
                }
                report.commands += 1;
            }
            if observer.due(|s| &mut s.daily, &cluster, now, DAILY_S) {
                match self.read_backups(&host, &cluster, now).await {
                    Ok(r) => slow.extend(r),
                    Err(e) => report.warnings.push(format!("{cluster}: backup reads: {e}")),
                }
                report.commands += 1;
            }
            for r in &slow {
                if let Some(&i) = by_key.get(&(cluster.clone(), r.pve_key.clone())) {
                    sample(&mut samples, &entities[i].0, r.metric, r.unit, r.value);
                }
            }
            for g in &reading.guests {
                let Some(&i) = by_key.get(&(cluster.clone(), format!("guest/{}", g.vmid))) else { continue };
                let e = &entities[i].0;
                observed.push(i);
                if g.lock.is_some() {
                    locked.insert(e.slug.clone());
                }
                // Up or down only when that means something: not while Proxmox works on the guest
                // (a backup stops it), not when its node's state is unknown, not for a guest that
                // was stopped on purpose (by an action, or before Oikos watched it).
                if g.template || g.unknown || g.lock.is_some() || e.state == "stopped" {
                    continue;
                }
                let was_up = self.was_up(&e.id).await.unwrap_or(false);
                if g.running || was_up {
                    sample(&mut samples, e, "up", "", f64::from(u8::from(g.running)));
                }
                let previous = observer.state().counters.insert(e.id.clone(), (now, g.counters));
                if let Some((at, before)) = previous {
                    let dt = (now - at) as f64;
                    if dt > 0.0 && g.running {
                        for (k, (metric, unit)) in
                            [("net_in", "B/s"), ("net_out", "B/s"), ("disk_read", "B/s"), ("disk_write", "B/s")]
                                .iter()
                                .enumerate()
                        {
                            if let Some(d) = g.counters[k].checked_sub(before[k]) {
                                sample(&mut samples, e, metric, unit, d as f64 / dt);
                            }
                        }
                    }
                }
            }
        }

        // Hosts with an SSH endpoint: the combined probe, at most every minute.
        for (i, (e, _, _)) in entities.iter().enumerate() {
            if e.entity_type != "host" || e.state == "gone" || !self.has_endpoint(&e.slug).await {
                continue;
            }
            {
                let mut st = observer.state();
                if observer.paced && st.host_probed.get(&e.id).is_some_and(|t| now - t < HOST_EVERY_S) {
                    continue;
                }
                st.host_probed.insert(e.id.clone(), now);
            }
            let req = self.probe_request(&e.slug, HOST_PROBE.to_string(), "observe: load, memory, failed units, clock");
            let result = match self.probe(&format!("observe:host:{}", e.slug), req).await {
                Ok(r) => r,
                Err(err) => {
                    report.warnings.push(format!("{}: {err}", e.slug));
                    continue;
                }
            };
            report.commands += 1;
            report.hosts += 1;
            observed.push(i);
            if result.unreachable() {
                sample(&mut samples, e, "reachable", "", 0.0);
                report.warnings.push(format!(
                    "{}: {}",
                    e.slug,
                    result.error.clone().unwrap_or_else(|| "no answer".into())
                ));
                continue;
            }
            sample(&mut samples, e, "reachable", "", 1.0);
            let h = collect::host(&result.stdout, now);
            if let Some(v) = h.load1 {
                sample(&mut samples, e, "load1", "", v);
            }
            // A Proxmox node's memory and root fs come from the cluster's answer; a plain host's from here.
            let has = |samples: &[Sample], m: &str| samples.iter().any(|s| s.entity_id == e.id && s.metric == m);
            if let Some(v) = h.memory_percent.filter(|_| !has(&samples, "memory_percent")) {
                sample(&mut samples, e, "memory_percent", "%", v);
            }
            if let Some(v) = h.root_percent.filter(|_| !has(&samples, "disk_percent")) {
                sample(&mut samples, e, "disk_percent", "%", v);
            }
            sample(&mut samples, e, "failed_units", "", h.failed_units.len() as f64);
            if observer.due(|s| &mut s.hourly, &e.slug, now, HOURLY_S) {
                let req = self.probe_request(&e.slug, UPDATES_PROBE.to_string(), "observe: pending updates");
                match self.probe(&format!("observe:updates:{}", e.slug), req).await {
                    Ok(r) if r.ok() => {
                        if let Ok(n) = r.stdout.trim().parse::<f64>() {
                            sample(&mut samples, e, "updates_pending", "", n);
                        }
                    }
                    Ok(r) => {
                        report.warnings.push(format!("{}: pending updates: {}", e.slug, r.error.unwrap_or_default()))
                    }
                    Err(err) => report.warnings.push(format!("{}: pending updates: {err}", e.slug)),
                }
                report.commands += 1;
            }
            if let Some(v) = h.clock_offset {
                sample(&mut samples, e, "clock_offset", "s", v);
            }
        }
        report.samples = u32::try_from(samples.len()).unwrap_or(u32::MAX);

        // Checks whose time has come: each a read-only probe; failing is a signal on its entity.
        let mut check_firing = Vec::new();
        let mut check_clear = Vec::new();
        for check in self.engine().due_checks(now).await? {
            if locked.contains(&check.entity) {
                continue;
            }
            let fp = signals::fingerprint(&format!("check:{}", check.name), &check.entity);
            match self.run_check_inner(&check.id).await {
                Ok(outcome) => {
                    report.checks += 1;
                    report.commands += 1;
                    let Some(i) = entities.iter().position(|(e, _, _)| e.slug == check.entity) else { continue };
                    observed.push(i);
                    if outcome.run.ok {
                        check_clear.push(fp);
                    } else {
                        check_firing.push(Firing {
                            entity_id: entities[i].0.id.clone(),
                            slug: check.entity.clone(),
                            kind: format!("check:{}", check.name),
                            severity: outcome.severity,
                            flapping: false,
                            value: None,
                            message: outcome.run.detail.clone(),
                        });
                    }
                }
                Err(e) => report.warnings.push(format!("check {} of {}: {e}", check.name, check.entity)),
            }
        }

        // Store, replay the rules, and change signals: one transaction.
        let mut tx = self.engine().store().begin_write().await?;
        series::record(&mut tx, now, &samples).await?;
        let recent = series::recent(&mut tx, now - REPLAY_S).await?;
        let open: std::collections::HashSet<String> =
            sqlx::query_scalar("SELECT fingerprint FROM signals WHERE state <> 'resolved'")
                .fetch_all(&mut *tx)
                .await?
                .into_iter()
                .collect();
        let stale_after = i64::from(settings.interval_s.max(10)).max(HOST_EVERY_S) * 3;
        let mut firing = Vec::new();
        let mut clear = Vec::new();
        observed.sort_unstable();
        observed.dedup();
        for &i in &observed {
            let e = &entities[i].0;
            for rule in &observer.rules.rules {
                if !rule.applies_to.contains(&e.entity_type) {
                    continue;
                }
                let Some(points) = recent.get(&(e.id.clone(), rule.metric.clone())) else { continue };
                let mut t = Tracker::default();
                let mut state = RuleState::Unknown;
                let base = points.first().map_or(0, |p| p.0);
                for (at, v) in points {
                    state = t.observe(rule, u64::try_from(at - base).unwrap_or(0), Some(*v));
                }
                let last = points.last().copied();
                if last.is_some_and(|(at, _)| now - at > stale_after) {
                    state = t.observe(rule, u64::try_from(now - base).unwrap_or(0), None);
                }
                let fp = signals::fingerprint(&rule.name, &e.slug);
                let value = last.map(|(_, v)| v);
                let verdict = match state {
                    RuleState::Firing(s) => Some((s, false)),
                    // Flapping is the rule's worst level, as one signal.
                    RuleState::Flapping => rule.levels.iter().map(|l| l.severity).max().map(|s| (s, true)),
                    _ => None,
                };
                if let Some((severity, flapping)) = verdict {
                    firing.push(Firing {
                        entity_id: e.id.clone(),
                        slug: e.slug.clone(),
                        kind: rule.name.clone(),
                        severity,
                        flapping,
                        value,
                        message: message(&rule.name, e, value, flapping),
                    });
                } else if matches!(state, RuleState::Ok | RuleState::Pending) && open.contains(&fp) {
                    // The replay window may not reach back to when it fired: an open signal ends
                    // only once the value is past every level's clear threshold.
                    let cleared = value.is_some_and(|v| {
                        rule.levels.iter().all(|l| if l.above.is_some() { v <= l.clear } else { v >= l.clear })
                    });
                    if cleared {
                        clear.push(fp);
                    }
                }
            }
        }
        firing.extend(check_firing);
        clear.extend(check_clear);
        let changes = signals::apply(&mut tx, &firing, &clear).await?;
        signals::mark(&mut tx).await?;
        let rolled = {
            let st = observer.state();
            now - st.rolled_up >= ROLLUP_EVERY_S
        };
        if rolled {
            series::rollup(&mut tx, now).await?;
        }
        tx.commit().await?;
        if rolled {
            observer.state().rolled_up = now;
        }
        // Opted-in automatic investigations open before the notifications, so these say Nomos is on it.
        if observer.investigates() && !changes.raised.is_empty() {
            match self.auto_investigate(&changes.raised).await {
                Ok(opened) => report.investigations = opened.into_iter().map(|i| i.task_id).collect(),
                Err(e) => report.warnings.push(format!("automatic investigation: {e}")),
            }
        }
        let mut tx = self.engine().store().begin_write().await?;
        let notices: Vec<SignalNotified> = signals::notices(self.engine(), &mut tx, settings.notify_warnings).await?;
        tx.commit().await?;
        if !notices.is_empty() {
            tracing::info!(count = notices.len(), "signal notifications due");
        }
        self.set_health(&entities, &observed).await;
        report.raised = changes.raised;
        report.updated = changes.updated;
        report.resolved = changes.resolved;
        report.duration_ms = u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX);
        Ok(report)
    }

    /// Hourly: each online node's certificate and subscription, in one command.
    async fn read_hourly(
        &self,
        host: &str,
        cluster: &str,
        nodes: &[String],
        now: i64,
    ) -> Result<Vec<collect::Reading>> {
        if nodes.is_empty() {
            return Ok(Vec::new());
        }
        let paths: Vec<String> = nodes
            .iter()
            .flat_map(|n| [format!("/nodes/{n}/certificates/info"), format!("/nodes/{n}/subscription")])
            .collect();
        let req = self.probe_request(host, read_command(&paths), "observe: certificates and subscriptions");
        let r = self.probe(&format!("observe:hourly:{cluster}"), req).await?;
        let sections = split_answers(&r.stdout);
        let get = |p: &str| sections.iter().find(|(k, _)| k == p).map(|(_, t)| t.as_str());
        let mut out = Vec::new();
        for n in nodes {
            let key = format!("node/{n}");
            if let Some(days) =
                get(&format!("/nodes/{n}/certificates/info")).and_then(|t| collect::slow::certificate_days(t, now))
            {
                out.push(collect::Reading { pve_key: key.clone(), metric: "cert_days_left", unit: "d", value: days });
            }
            if let Some(active) = get(&format!("/nodes/{n}/subscription")).and_then(collect::slow::subscription_active)
            {
                out.push(collect::Reading {
                    pve_key: key,
                    metric: "subscription_active",
                    unit: "",
                    value: f64::from(u8::from(active)),
                });
            }
        }
        Ok(out)
    }

    /// Daily: the newest backup of every guest, from the storages that hold backups.
    async fn read_backups(&self, host: &str, cluster: &str, now: i64) -> Result<Vec<collect::Reading>> {
        let stores: Vec<(String, Option<String>)> = sqlx::query_as(
            "SELECT json_extract(attributes, '$.pve_key'), json_extract(attributes, '$.node') FROM entities
              WHERE type = 'storage' AND state NOT IN ('gone', 'destroyed') AND json_extract(attributes, '$.cluster') = ?
                AND ifnull(json_extract(attributes, '$.content'), '') LIKE '%backup%'",
        )
        .bind(cluster)
        .fetch_all(self.engine().store().pool())
        .await?;
        let ok = |s: &str| !s.is_empty() && s.chars().all(|c| c.is_ascii_alphanumeric() || "-_.".contains(c));
        let mut paths = Vec::new();
        for (key, node) in stores {
            // storage/<node>/<id> for a local one, storage/<id> for a shared one (read through `host`'s node).
            let parts: Vec<&str> = key.strip_prefix("storage/").unwrap_or_default().split('/').collect();
            let (node, id) = match parts.as_slice() {
                [n, id] => ((*n).to_string(), (*id).to_string()),
                [id] => (node.unwrap_or_else(|| host.trim_start_matches("host:").to_string()), (*id).to_string()),
                _ => continue,
            };
            if ok(&node) && ok(&id) && crate::discovery::node_name_ok(&node) {
                paths.push(format!("/nodes/{node}/storage/{id}/content --content backup"));
            }
        }
        if paths.is_empty() {
            return Ok(Vec::new());
        }
        let req = self.probe_request(host, read_command(&paths), "observe: the newest backup of each guest");
        let r = self.probe(&format!("observe:backups:{cluster}"), req).await?;
        let contents: Vec<Vec<(u64, i64)>> =
            split_answers(&r.stdout).iter().map(|(_, t)| collect::slow::backups(t)).collect();
        Ok(collect::slow::backup_ages(&contents, now))
    }

    fn probe_request(&self, host: &str, command: String, purpose: &str) -> RunRequest {
        RunRequest {
            target: host.to_string(),
            command,
            purpose: purpose.to_string(),
            requested_by: ACTOR.to_string(),
            timeout: Some(PROBE_TIMEOUT),
            ..RunRequest::default()
        }
    }

    /// Entities Observe can read, with their cluster and Proxmox key.
    async fn observed_entities(&self) -> Result<Vec<(Entity, Option<String>, Option<String>)>> {
        type Row = (String, String, String, String, String, Option<String>, Option<String>);
        let rows: Vec<Row> = sqlx::query_as(
            "SELECT id, slug, name, type, state, json_extract(attributes, '$.cluster'), json_extract(attributes, '$.pve_key')
               FROM entities WHERE state NOT IN ('destroyed')
                AND (type IN ('host', 'lxc', 'vm', 'storage', 'cluster') OR id IN (SELECT entity_id FROM checks))",
        )
        .fetch_all(self.engine().store().pool())
        .await?;
        Ok(rows
            .into_iter()
            .map(|(id, slug, name, entity_type, state, cluster, key)| {
                (Entity { id, slug, name, entity_type, state }, cluster, key)
            })
            .collect())
    }

    async fn has_endpoint(&self, slug: &str) -> bool {
        let address: Option<Option<String>> = sqlx::query_scalar(
            "SELECT json_extract(attributes, '$.address') FROM entities WHERE slug = ? AND type = 'host'",
        )
        .bind(slug)
        .fetch_optional(self.engine().store().pool())
        .await
        .ok()
        .flatten();
        address.flatten().is_some()
    }

    /// Whether the guest was seen running within the last two days.
    async fn was_up(&self, entity_id: &str) -> Result<bool> {
        let v: Option<i64> = sqlx::query_scalar(
            "SELECT max(v) FROM (
               SELECT r.v FROM samples_raw r JOIN series s ON s.id = r.series_id WHERE s.entity_id = ?1 AND s.name = 'up'
               UNION ALL
               SELECT m.max FROM samples_1m m JOIN series s ON s.id = m.series_id WHERE s.entity_id = ?1 AND s.name = 'up')",
        )
        .bind(entity_id)
        .fetch_one(self.engine().store().pool())
        .await?;
        Ok(v.unwrap_or(0) > 0)
    }

    /// Health of what was observed: down with an open root signal, degraded with any other, ok
    /// without. Only changes are written (and announced).
    async fn set_health(&self, entities: &[(Entity, Option<String>, Option<String>)], observed: &[usize]) {
        let open = match self.engine().open_signal_kinds().await {
            Ok(o) => o,
            Err(e) => {
                tracing::warn!("health not updated: {e}");
                return;
            }
        };
        for &i in observed {
            let e = &entities[i].0;
            let kinds = open.get(&e.id);
            let (health, detail) = match kinds {
                Some(k) if k.iter().any(|(kind, _)| signals::ROOT_KINDS.contains(&kind.as_str())) => {
                    (Health::Down, k.iter().map(|(kind, _)| kind.as_str()).collect::<Vec<_>>().join(", "))
                }
                Some(k) if !k.is_empty() => {
                    (Health::Degraded, k.iter().map(|(kind, _)| kind.as_str()).collect::<Vec<_>>().join(", "))
                }
                _ => (Health::Healthy, String::new()),
            };
            if e.state == EntityState::Gone.as_str() {
                continue;
            }
            if let Err(err) = self.engine().record_health(&e.slug, health, &detail).await {
                tracing::warn!(entity = %e.slug, "health not recorded: {err}");
            }
        }
    }
}

/// Who works the tasks automatic investigation opens: the runtime's agent.
pub trait Investigator: Send + Sync {
    /// Nomos can think (a provider is configured): only then are tasks opened for it.
    fn can_think(&self) -> bool;
    /// Runs the task's first turn (in the background).
    fn start(&self, task: String);
}

/// Observe's background loop: a cycle every interval (a setting; off at 0), jittered so that
/// several apps do not poll in step, and a tick missed while a cycle ran is skipped, not caught up.
/// A failing cycle is logged once when it starts failing and once when it recovers.
pub(crate) async fn run(act: Actuator, investigator: Option<std::sync::Arc<dyn Investigator>>) {
    const LOOK: Duration = Duration::from_secs(5);
    let observer = match Observer::new() {
        Ok(o) => o,
        Err(e) => {
            tracing::error!("observe is off: the signal rules do not load: {e}");
            return;
        }
    };
    let mut next = Instant::now() + LOOK;
    let mut failing = false;
    loop {
        tokio::time::sleep_until(next.into()).await;
        let interval = match act.engine().observe_settings().await {
            Ok(s) if s.interval_s > 0 => {
                // Asked only when opted in, and off the async threads: the first look for a
                // provider may ask the OS keychain, which blocks.
                let wanted = s.investigate_critical || s.investigate_warnings;
                let asked = investigator.clone().filter(|_| wanted);
                let thinks = tokio::task::spawn_blocking(move || asked.is_some_and(|i| i.can_think()));
                observer.set_investigates(thinks.await.unwrap_or(false));
                Duration::from_secs(u64::from(s.interval_s.max(10)))
            }
            Ok(_) => {
                next = Instant::now() + LOOK;
                continue;
            }
            Err(e) => {
                tracing::warn!("observe settings unreadable: {e}");
                next = Instant::now() + LOOK;
                continue;
            }
        };
        match act.observe_once(&observer).await {
            Ok(r) => {
                if let Some(i) = &investigator {
                    for task in &r.investigations {
                        i.start(task.clone());
                    }
                }
                if failing {
                    tracing::info!("observe collects again");
                    failing = false;
                }
                if !r.raised.is_empty() || !r.resolved.is_empty() {
                    tracing::info!(raised = r.raised.len(), resolved = r.resolved.len(), "observe: signals changed");
                }
            }
            Err(e) if !failing => {
                tracing::warn!("observe cycle failed: {e}");
                failing = true;
            }
            Err(_) => {}
        }
        // Up to a tenth of the interval either way, from the clock's low bits (no RNG needed).
        let spread = interval.as_millis() as u64 / 10;
        let jitter = if spread == 0 {
            0
        } else {
            u64::from(
                std::time::SystemTime::now()
                    .duration_since(std::time::UNIX_EPOCH)
                    .map(|d| d.subsec_nanos())
                    .unwrap_or(0),
            ) % (2 * spread)
        };
        next = Instant::now() + interval + Duration::from_millis(jitter) - Duration::from_millis(spread);
    }
}
