//! Curated actions: named operations with checked parameters ([`Action`], defined with its
//! JSON Schema in `nomos-types`, where the parameters are validated). Each builds a command and
//! hands it to [`Actuator::run`] — the same classifier, gate, executor and records as any shell
//! command. Their read-only pre-flights (template list, VMID check, gateway ping) go the same way
//! and are recorded as executions of their own.
//!
//! - `restart {unit}`, `systemctl {verb, unit}`
//! - `apt_upgrade {mode: audit|upgrade}`: audit lists upgradable packages (read-only); upgrade is
//!   gated and runs in the background
//! - `pct_exec {command}` on an `lxc:` target: the same as `run`, recorded under its own name
//! - `pct_create {...}` on a `host:` target: resolves the template and a free VMID, checks a static
//!   gateway, then create + start in the background; on success the new `lxc:` entity is
//!   registered with its `hosts` relationship (see [`after_success`])

use std::cmp::Ordering;
use std::time::Duration;

use nomos_types::actions::{AptMode, PctCreate};
use nomos_types::{Action, Direction, EntityState, Execution, Risk};
use serde_json::{json, Value as Json};

use super::ssh::shell_quote;
use super::{Actuator, RunOutcome, RunRequest};
use crate::graph::entities::{upsert_entity_in, IfExists, NewEntity};
use crate::graph::relations::{link_in, OnConflict};
use crate::graph::require_entity;
use crate::store::WriteTx;
use crate::{Error, Ontology, Result};

/// A curated action request.
#[derive(Debug, Clone)]
pub struct ActionRequest {
    /// `host:<slug>` or `lxc:<slug>` (`pct_create` needs the Proxmox host).
    pub target: String,
    /// The action and its parameters (see [`Action::parse`] and [`Action::from_json`]).
    pub action: Action,
    pub purpose: String,
    pub task_id: Option<String>,
    pub requested_by: String,
}

/// What an action did: the gate's outcome, plus what the action decided on the way (a VMID
/// reassigned, the template chosen).
#[derive(Debug, Clone)]
pub struct ActionOutcome {
    pub outcome: RunOutcome,
    pub notes: Vec<String>,
}

/// The command an action runs, the parameters recorded with it, and whether it runs in the
/// background.
struct Planned {
    command: String,
    recorded: Json,
    background: bool,
}

impl Actuator {
    /// Runs a curated action through the gate.
    pub async fn action(&self, req: ActionRequest) -> Result<ActionOutcome> {
        // Checked here too: an action built in code gets the same checks as one parsed from text.
        let action = req.action.checked()?;
        // One spelling of the target from here on (a bare `pve1` becomes `host:pve1`).
        let entity = {
            let mut conn = self.engine.store().pool().acquire().await?;
            super::target::target_entity(&mut conn, &req.target).await?
        };
        let req = ActionRequest { target: entity.slug.clone(), action, ..req };
        let mut notes = Vec::new();
        let planned = match &req.action {
            Action::Restart { unit } => Planned {
                command: format!("systemctl restart {}", quoted_unit(unit)),
                recorded: json!({"unit": unit}),
                background: false,
            },
            Action::Systemctl { verb, unit } => Planned {
                command: format!("systemctl {verb} {}", quoted_unit(unit)),
                recorded: json!({"verb": verb, "unit": unit}),
                background: false,
            },
            Action::AptUpgrade { mode: AptMode::Audit } => Planned {
                command: "apt list --upgradable".into(),
                recorded: json!({"mode": AptMode::Audit}),
                background: false,
            },
            Action::AptUpgrade { mode: AptMode::Upgrade } => Planned {
                command: "DEBIAN_FRONTEND=noninteractive apt-get -y -o Dpkg::Options::=--force-confold upgrade".into(),
                recorded: json!({"mode": AptMode::Upgrade, "timeout_secs": 3600}),
                background: true,
            },
            Action::PctExec { command } => {
                if entity.entity_type != "lxc" {
                    return Err(Error::Invalid(format!(
                        "pct_exec runs inside a container: the target must be `lxc:<slug>`, not `{}`",
                        req.target
                    )));
                }
                Planned { command: command.clone(), recorded: json!({}), background: false }
            }
            Action::PctCreate(p) => {
                if entity.entity_type != "host" {
                    return Err(Error::Invalid(format!(
                        "pct_create runs on the Proxmox host: the target must be `host:<slug>`, not `{}`",
                        req.target
                    )));
                }
                self.plan_pct_create(&req, &entity, p, &mut notes).await?
            }
        };
        let timeout = planned.recorded.get("timeout_secs").and_then(Json::as_u64).map(Duration::from_secs);
        let outcome = self
            .run_as(
                RunRequest {
                    target: req.target.clone(),
                    command: planned.command,
                    purpose: req.purpose.clone(),
                    declared_risk: None,
                    task_id: req.task_id.clone(),
                    requested_by: req.requested_by.clone(),
                    timeout,
                    background: planned.background,
                    read_only: false,
                    compact: false,
                },
                Some((req.action.name().to_string(), planned.recorded)),
            )
            .await?;
        Ok(ActionOutcome { outcome, notes })
    }

    /// Checks a `pct_create` request against the host and returns the command plus the parameters
    /// to record (everything [`after_success`] needs to register the container).
    async fn plan_pct_create(
        &self,
        req: &ActionRequest,
        host: &nomos_types::Entity,
        p: &PctCreate,
        notes: &mut Vec<String>,
    ) -> Result<Planned> {
        let storage = match &p.storage {
            Some(s) => s.clone(),
            None => {
                let s = self.default_storage(&host.slug).await;
                notes.push(format!("no storage given: using `{s}`"));
                s
            }
        };
        let slug = format!("lxc:{}", crate::graph::slugify(&p.hostname));
        if let Ok(existing) = self.engine.entity(&slug).await {
            if existing.state != EntityState::Destroyed {
                return Err(Error::Conflict(format!(
                    "`{slug}` already exists (state {}); pick another hostname",
                    existing.state.as_str()
                )));
            }
        }
        let net = match (p.is_static(), &p.gw) {
            (false, _) => format!("name=eth0,bridge={},ip=dhcp", p.bridge),
            // The advice needs the host's neighbours, so this check is made here.
            (true, None) => {
                return Err(Error::Invalid(format!(
                    "pct_create: a static ip needs its gateway (gw). {}",
                    self.neighbour_hint(req, &host.slug).await
                )));
            }
            (true, Some(gw)) => {
                self.gateway_preflight(req, &host.slug, gw).await?;
                format!("name=eth0,bridge={},ip={},gw={gw}", p.bridge, p.ip)
            }
        };
        let template = self.resolve_template(req, p.template.as_deref(), notes).await?;
        let vmid = self.free_vmid(req, p.vmid, notes).await?;
        let mut command = format!(
            "pct create {vmid} {template} --hostname {} --cores {} --memory {} --swap {} \
             --rootfs {storage}:{} --net0 {net} --unprivileged {}",
            p.hostname,
            p.cores,
            p.memory,
            p.swap,
            p.disk_gb,
            u8::from(p.unprivileged)
        );
        if p.nesting {
            command.push_str(" --features nesting=1");
        }
        if p.start {
            command.push_str(&format!(" && pct start {vmid}"));
        }
        let recorded = json!({
            "vmid": vmid, "hostname": p.hostname, "slug": slug, "host": host.slug, "template": template,
            "cores": p.cores, "memory": p.memory, "swap": p.swap, "disk_gb": p.disk_gb, "storage": storage,
            "ip": p.ip, "gw": p.gw, "bridge": p.bridge, "unprivileged": p.unprivileged, "nesting": p.nesting,
            "start": p.start, "timeout_secs": 900,
        });
        Ok(Planned { command, recorded, background: true })
    }

    /// What `host` currently relates to by `rel` (outgoing) that is of `entity_type` and not
    /// destroyed. Best effort: advice and defaults, never a gate decision, are built from it.
    async fn host_children(&self, host: &str, rel: &str, entity_type: &str) -> Vec<nomos_types::Entity> {
        let Ok(relations) = self.engine.relations(host, false).await else { return Vec::new() };
        let mut out = Vec::new();
        for r in relations.iter().filter(|r| r.rel_type == rel && r.direction == Direction::Outgoing) {
            if *r.other.entity_type != *entity_type {
                continue;
            }
            if let Ok(e) = self.engine.entity(&r.other.slug).await {
                if e.state != EntityState::Destroyed {
                    out.push(e);
                }
            }
        }
        out
    }

    /// The storage for a new container's root disk: one the host provides that holds container
    /// volumes (`content` with `rootdir`, or unknown), by Proxmox's usual names first; else
    /// Proxmox's default, `local-lvm`.
    async fn default_storage(&self, host: &str) -> String {
        let candidates: Vec<String> = self
            .host_children(host, "provides", "storage")
            .await
            .into_iter()
            .filter(|e| {
                let content = e.attributes.get("content").and_then(Json::as_str);
                content.is_none_or(|c| c.split(',').any(|k| k.trim() == "rootdir"))
            })
            .map(|e| e.name)
            .collect();
        for preferred in ["local-lvm", "local-zfs"] {
            if candidates.iter().any(|c| c == preferred) {
                return preferred.to_string();
            }
        }
        candidates.into_iter().next().unwrap_or_else(|| "local-lvm".into())
    }

    /// Runs a read-only pre-flight through the gate and returns its stdout, or the failure.
    async fn preflight(&self, req: &ActionRequest, command: String, purpose: &str) -> Result<Result<String, String>> {
        let outcome = self
            .run(RunRequest {
                target: req.target.clone(),
                command,
                purpose: format!("{}: {purpose}", req.action.name()),
                declared_risk: Some(Risk::ReadOnly),
                task_id: req.task_id.clone(),
                requested_by: req.requested_by.clone(),
                timeout: Some(Duration::from_secs(30)),
                background: false,
                read_only: false,
                compact: false,
            })
            .await?;
        let RunOutcome::Ran(execution) = outcome else {
            // A pre-flight is read-only by construction; anything else is a bug worth stopping on.
            return Err(Error::Invalid(format!("{}: pre-flight `{purpose}` was not read-only", req.action.name())));
        };
        let (stdout, stderr) = self.execution_output(&execution.id).await?;
        if execution.status == nomos_types::ExecutionStatus::Completed {
            Ok(Ok(String::from_utf8_lossy(&stdout).into_owned()))
        } else {
            let why = execution.error.unwrap_or_default();
            let err = String::from_utf8_lossy(&stderr).trim().to_string();
            Ok(Err(if err.is_empty() { why } else { format!("{why}: {err}") }))
        }
    }

    async fn gateway_preflight(&self, req: &ActionRequest, host: &str, gw: &str) -> Result<()> {
        match self.preflight(req, format!("ping -c 1 -W 2 {gw}"), "is the gateway reachable").await? {
            Ok(_) => Ok(()),
            Err(why) => Err(Error::Invalid(format!(
                "gateway {gw} is unreachable from {host} ({why}). Don't guess another address: {}",
                self.neighbour_hint(req, host).await
            ))),
        }
    }

    /// Guidance for a static address: what same-host containers use (their `pct config`, read
    /// on the host, else what the graph knows), or DHCP.
    async fn neighbour_hint(&self, req: &ActionRequest, host: &str) -> String {
        let mut seen = Vec::new();
        let neighbours = self.host_children(host, "hosts", "lxc").await;
        for e in neighbours.iter().take(3) {
            let a = &e.attributes;
            let mut gw = a.get("gw").or_else(|| a.get("gateway")).and_then(Json::as_str).map(str::to_string);
            let mut bridge = a.get("bridge").and_then(Json::as_str).map(str::to_string);
            if let Some(id) = a.get("pve_id").and_then(Json::as_u64) {
                if let Ok(Ok(config)) =
                    self.preflight(req, format!("pct config {id}"), "how a neighbour is networked").await
                {
                    if let Some(net) = config.lines().find_map(|l| l.strip_prefix("net0:")) {
                        for kv in net.trim().split(',') {
                            match kv.split_once('=') {
                                Some(("gw", v)) => gw = Some(v.to_string()),
                                Some(("bridge", v)) => bridge = Some(v.to_string()),
                                _ => {}
                            }
                        }
                    }
                }
            }
            if let Some(gw) = gw {
                seen.push(format!("{} (gw {gw}, bridge {})", e.slug, bridge.as_deref().unwrap_or("vmbr0")));
            }
        }
        if seen.is_empty() {
            "copy the gateway and bridge of a container on the same host, or use DHCP (ip=dhcp)".into()
        } else {
            format!(
                "copy the gateway and bridge of a container on the same host — {} — or use DHCP (ip=dhcp)",
                seen.join(", ")
            )
        }
    }

    /// The template volume: exact name, then prefix (newest match), then — only when none was
    /// asked for — the newest Debian. A requested template that matches nothing is an error that
    /// lists what the host has, never a silent substitute.
    async fn resolve_template(
        &self,
        req: &ActionRequest,
        wanted: Option<&str>,
        notes: &mut Vec<String>,
    ) -> Result<String> {
        let listing = match self.preflight(req, "pveam list local".into(), "which templates are cached").await? {
            Ok(out) => out,
            Err(why) => return Err(Error::Invalid(format!("pct_create: cannot list the host's templates: {why}"))),
        };
        let volumes: Vec<&str> =
            listing.lines().filter_map(|l| l.split_whitespace().next()).filter(|v| v.contains(":vztmpl/")).collect();
        let file = |v: &str| v.rsplit('/').next().unwrap_or(v).to_string();
        let chosen = match wanted {
            Some(w) => {
                let w_file = file(w);
                if let Some(v) = volumes.iter().find(|v| **v == w || file(v) == w_file) {
                    v.to_string()
                } else if let Some(v) = newest(volumes.iter().copied().filter(|v| file(v).starts_with(&w_file))) {
                    notes.push(format!("template `{w}` resolved to {v}"));
                    v.to_string()
                } else {
                    return Err(Error::Invalid(format!(
                        "pct_create: no cached template matches `{w}`; the host has: {}",
                        if volumes.is_empty() { "none (download one with pveam)".into() } else { volumes.join(", ") }
                    )));
                }
            }
            None => match newest(volumes.iter().copied().filter(|v| file(v).starts_with("debian-"))) {
                Some(v) => {
                    notes.push(format!("no template given: using the newest Debian, {v}"));
                    v.to_string()
                }
                None => return Err(Error::Invalid(
                    "pct_create: no template given and no Debian template cached; name one or download one with pveam"
                        .into(),
                )),
            },
        };
        // The name came from the host's output and goes into a command line.
        if !chosen.chars().all(|c| c.is_ascii_alphanumeric() || ":/._-+".contains(c)) {
            return Err(Error::Invalid(format!("pct_create: refusing the odd template name `{chosen}`")));
        }
        Ok(chosen)
    }

    /// A VMID nobody uses: the requested one if free, else the cluster's next id. Ids known to the
    /// graph count as taken too (a node that is down does not list its guests).
    async fn free_vmid(&self, req: &ActionRequest, wanted: Option<u64>, notes: &mut Vec<String>) -> Result<u64> {
        let resources = self
            .preflight(
                req,
                "pvesh get /cluster/resources --type vm --output-format json".into(),
                "which VMIDs are taken",
            )
            .await?
            .map_err(|why| Error::Invalid(format!("pct_create: cannot read the cluster's guests: {why}")))?;
        let parsed: Json = serde_json::from_str(resources.trim())
            .map_err(|e| Error::Invalid(format!("pct_create: unreadable cluster resources ({e})")))?;
        let mut taken: Vec<(u64, String)> = parsed
            .as_array()
            .map(|a| {
                a.iter()
                    .filter_map(|r| {
                        let id = r.get("vmid").and_then(|v| v.as_u64().or_else(|| v.as_str()?.parse().ok()))?;
                        let name = r.get("name").and_then(Json::as_str).unwrap_or("?");
                        let node = r.get("node").and_then(Json::as_str).unwrap_or("?");
                        Some((id, format!("{name} on {node}")))
                    })
                    .collect()
            })
            .unwrap_or_default();
        taken.extend(self.engine.guest_ids().await?);
        let holder = |id: u64| taken.iter().find(|(t, _)| *t == id).map(|(_, who)| who.clone());
        if let Some(id) = wanted {
            match holder(id) {
                None => return Ok(id),
                Some(who) => notes.push(format!("VMID {id} is taken ({who})")),
            }
        }
        let next = self
            .preflight(req, "pvesh get /cluster/nextid".into(), "the next free VMID")
            .await?
            .map_err(|why| Error::Invalid(format!("pct_create: cannot ask the cluster for a free VMID: {why}")))?;
        let mut id: u64 =
            next.trim().trim_matches('"').parse().map_err(|_| {
                Error::Invalid(format!("pct_create: unexpected answer for the next VMID: {}", next.trim()))
            })?;
        while holder(id).is_some() {
            id += 1;
        }
        if wanted.is_some() {
            if let Some(last) = notes.last_mut() {
                last.push_str(&format!("; using {id}"));
            }
        }
        Ok(id)
    }
}

/// Follow-up of a curated action that completed, inside the transaction that records its end.
/// `pct_create` registers the container it made.
pub(super) async fn after_success(tx: &mut WriteTx, ontology: &Ontology, execution: &Execution) -> Result<()> {
    if execution.action != "pct_create" {
        return Ok(());
    }
    let p = &execution.params;
    let text = |k: &str| p.get(k).and_then(Json::as_str).map(str::to_string);
    let (Some(slug), Some(hostname), Some(host)) = (text("slug"), text("hostname"), text("host")) else {
        return Err(Error::Invalid(format!("pct_create {}: parameters incomplete, nothing registered", execution.id)));
    };
    let mut attrs = json!({
        "pve_id": p.get("vmid"), "host": host, "hostname": hostname, "template": p.get("template"),
        "cores": p.get("cores"), "memory": p.get("memory"), "disk_gb": p.get("disk_gb"), "storage": p.get("storage"),
        "bridge": p.get("bridge"), "created_by_execution": execution.id,
    });
    if let (Some(ip), Json::Object(m)) = (text("ip"), &mut attrs) {
        if ip != "dhcp" {
            m.insert("ip".into(), json!(ip.split('/').next().unwrap_or(&ip)));
            m.insert("cidr".into(), json!(ip));
            m.insert("gw".into(), p.get("gw").cloned().unwrap_or(Json::Null));
        } else {
            m.insert("ip".into(), json!("dhcp"));
        }
    }
    let host_entity = require_entity(tx, &host).await?;
    // Only a new entity, or one whose container was destroyed, takes this container's identity:
    // something that appeared under the name while the request waited is not overwritten.
    if let Some(existing) = crate::graph::find_entity(tx, &slug).await? {
        if existing.state != EntityState::Destroyed {
            return Err(Error::Conflict(format!(
                "container {} was created, but `{slug}` appeared in the graph meanwhile; not registered — check and link it by hand",
                p.get("vmid").unwrap_or(&Json::Null)
            )));
        }
    }
    let new = NewEntity::new("lxc", &hostname).slug(&slug).attributes(attrs).state(EntityState::Provisioning);
    let (lxc, _) = upsert_entity_in(tx, ontology, &new, IfExists::Merge).await?;
    link_in(tx, ontology, "hosts", &host_entity, &lxc, &json!({}), OnConflict::Replace).await?;
    tracing::info!(slug = %lxc.slug, execution = %execution.id, "registered the new container");
    Ok(())
}

/// A unit name as one shell word: quoted only when it carries systemd's `\x2d` escapes.
fn quoted_unit(unit: &str) -> String {
    if unit.contains('\\') {
        shell_quote(unit)
    } else {
        unit.to_string()
    }
}

/// The newest of some template volumes: compared by their version numbers, not as plain text
/// (debian-13 after debian-12, 12.10 after 12.9).
fn newest<'a>(volumes: impl Iterator<Item = &'a str>) -> Option<&'a str> {
    volumes.max_by(|a, b| natural_cmp(a, b))
}

fn natural_cmp(a: &str, b: &str) -> Ordering {
    let (mut a, mut b) = (a.as_bytes(), b.as_bytes());
    loop {
        match (a.first(), b.first()) {
            (None, None) => return Ordering::Equal,
            (None, _) => return Ordering::Less,
            (_, None) => return Ordering::Greater,
            (Some(x), Some(y)) if x.is_ascii_digit() && y.is_ascii_digit() => {
                let na = a.iter().take_while(|c| c.is_ascii_digit()).count();
                let nb = b.iter().take_while(|c| c.is_ascii_digit()).count();
                let (da, db) = (trim_zeros(&a[..na]), trim_zeros(&b[..nb]));
                let ord = da.len().cmp(&db.len()).then_with(|| da.cmp(db));
                if ord != Ordering::Equal {
                    return ord;
                }
                a = &a[na..];
                b = &b[nb..];
            }
            (Some(x), Some(y)) => {
                if x != y {
                    return x.cmp(y);
                }
                a = &a[1..];
                b = &b[1..];
            }
        }
    }
}

fn trim_zeros(d: &[u8]) -> &[u8] {
    let n = d.iter().take_while(|c| **c == b'0').count();
    &d[n.min(d.len().saturating_sub(1))..]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn newest_template_compares_versions() {
        let v = [
            "local:vztmpl/debian-12-standard_12.7-1_amd64.tar.zst",
            "local:vztmpl/debian-13-standard_13.1-1_amd64.tar.zst",
            "local:vztmpl/debian-9-standard_9.7-1_amd64.tar.gz",
        ];
        assert_eq!(newest(v.iter().copied()), Some(v[1]));
        assert_eq!(natural_cmp("a12.10", "a12.9"), Ordering::Greater);
        assert_eq!(natural_cmp("a007", "a7"), Ordering::Equal);
        assert_eq!(natural_cmp("a0", "a"), Ordering::Greater);
    }
}
