//! Reading a cluster through the gate: every command discovery runs is an execution the
//! classifier judges, run only if it is read-only (refused and recorded otherwise, never queued),
//! by the actor `discovery`, with its output kept compact in the store.
//!
//! A cycle is two commands when nothing is new: the cluster's status, resources and storage in
//! one, and every online node's network in the other — never one call per node or per guest on a
//! schedule. Configurations are read only for guests that are new or whose row changed, in the
//! second command (and more of the same, in batches, for a first discovery of a large cluster).

use std::time::{Duration, Instant};

use nomos_types::discovery::{AddedHost, HostCheck, HostSpec, HostTest};
use nomos_types::{DiscoveryDiff, Execution};

use super::pve::{self, Kind};
use super::{ApplyBy, DiscoveryError, Snapshot};
use crate::actuate::{Actuator, RunOutcome, RunRequest};
use crate::graph::{find_entity, require_entity};
use crate::{Error, Result};

/// The actor discovery's commands and writes are recorded under.
pub const ACTOR: &str = "discovery";
/// Marks where one answer ends and the next begins in a command's output.
const MARK: &str = "@@oikos ";
/// Paths per command (a first discovery of a thousand guests is a dozen commands, not a thousand).
const BATCH: usize = 80;
const READ_TIMEOUT: Duration = Duration::from_secs(120);

/// How to discover.
#[derive(Debug, Clone)]
pub struct DiscoverOptions {
    /// Write the diff to the graph (after it was reviewed, or by the background cycle).
    pub apply: Option<ApplyBy>,
}

/// A discovery's outcome: the diff (applied or not).
pub type Discovery = DiscoveryDiff;

/// One command's answers, by path; a path whose answer is empty could not be read.
struct Answers {
    sections: Vec<(String, String)>,
    stderr: String,
}

impl Answers {
    fn get(&self, path: &str) -> Option<&str> {
        self.sections.iter().find(|(p, _)| p == path).map(|(_, t)| t.as_str()).filter(|t| !t.trim().is_empty())
    }

    /// The first line of what the host said on stderr, for a message.
    fn reason(&self) -> String {
        let line = self.stderr.lines().map(str::trim).find(|l| !l.is_empty()).unwrap_or("no answer");
        line.chars().take(300).collect()
    }
}

/// The command that reads `paths` (each answer after a marker line naming it).
pub fn read_command(paths: &[String]) -> String {
    paths
        .iter()
        .map(|p| format!("echo; echo '{MARK}{p}'; pvesh get {p} --output-format json"))
        .collect::<Vec<_>>()
        .join("; ")
}

pub(crate) fn split(stdout: &str) -> Vec<(String, String)> {
    let mut sections: Vec<(String, String)> = Vec::new();
    for line in stdout.split_inclusive('\n') {
        if let Some(path) = line.trim_end().strip_prefix(MARK) {
            sections.push((path.to_string(), String::new()));
        } else if let Some((_, text)) = sections.last_mut() {
            text.push_str(line);
        }
    }
    sections
}

/// A Proxmox node name is a host name: letters, digits and inner `-` or `.`.
pub(crate) fn node_name_ok(name: &str) -> bool {
    !name.is_empty()
        && name.len() <= 63
        && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '.')
        && !name.starts_with(['-', '.'])
}

/// Whether the host's words say it has no `pvesh`.
fn no_pvesh(stderr: &str) -> bool {
    stderr.contains("pvesh: command not found") || stderr.contains("pvesh: not found")
}

fn denied(text: &str) -> bool {
    let t = text.to_lowercase();
    t.contains("permission check failed") || t.contains("permission denied") || t.starts_with("403")
}

impl Actuator {
    /// Runs one read-only command on `host` for discovery and returns its execution.
    async fn read(&self, host: &str, command: String, purpose: &str) -> Result<Execution> {
        let req = RunRequest {
            target: host.to_string(),
            command,
            purpose: purpose.to_string(),
            requested_by: ACTOR.to_string(),
            timeout: Some(READ_TIMEOUT),
            read_only: true,
            compact: true,
            ..RunRequest::default()
        };
        match self.run(req).await? {
            RunOutcome::Ran(x) => Ok(x),
            // `read_only` never queues; if it ever did, nothing ran and nothing may be assumed.
            RunOutcome::Queued { execution, .. } => {
                Err(Error::Invalid(format!("discovery's read {} was queued instead of run", execution.id)))
            }
        }
    }

    /// Reads `paths` on `host`, in batches. Fails only when the host could not be reached at all.
    async fn answers(&self, host: &str, paths: &[String], purpose: &str, commands: &mut u32) -> Result<Answers> {
        let mut all = Answers { sections: Vec::new(), stderr: String::new() };
        for chunk in paths.chunks(BATCH) {
            let x = self.read(host, read_command(chunk), purpose).await?;
            *commands += 1;
            if let Some(err) = x.error.as_ref().filter(|_| x.exit_code.is_none()) {
                // Not connected, not authenticated, key not trusted, timed out: nothing was read.
                return Err(DiscoveryError::Unreachable(format!("{host}: {err}")).into());
            }
            if x.output_truncated {
                return Err(DiscoveryError::Malformed {
                    path: chunk.first().cloned().unwrap_or_default(),
                    message: "the answer was longer than the executor keeps; nothing applied".into(),
                }
                .into());
            }
            all.sections.extend(split(&x.stdout));
            all.stderr.push_str(&x.stderr);
        }
        Ok(all)
    }

    /// Discovers the cluster `host` belongs to: reads it through the gate, compares it with the
    /// graph, and with `apply` writes the difference in one transaction.
    pub async fn discover(&self, host: &str, options: DiscoverOptions) -> Result<Discovery> {
        let started = Instant::now();
        let entity = self.host_entity(host).await?;
        if entity.entity_type != "host" {
            return Err(Error::Invalid(format!(
                "`{}` is a {}: discovery runs on a host",
                entity.slug, entity.entity_type
            )));
        }
        let host = entity.slug.as_str();
        let mut commands = 0;
        let base: Vec<String> = ["/cluster/status", "/cluster/resources", "/storage"].map(String::from).to_vec();
        let first = self.answers(host, &base, "discovery: read the cluster", &mut commands).await?;
        if no_pvesh(&first.stderr) {
            return Err(DiscoveryError::NoPvesh { host: host.to_string() }.into());
        }
        let mut texts = Vec::new();
        for path in &base {
            match first.get(path) {
                Some(t) => texts.push(t),
                None if denied(&first.stderr) => {
                    return Err(DiscoveryError::Denied {
                        host: host.into(),
                        path: path.clone(),
                        message: first.reason(),
                    }
                    .into())
                }
                None => {
                    return Err(DiscoveryError::Failed {
                        host: host.into(),
                        path: path.clone(),
                        message: first.reason(),
                    }
                    .into())
                }
            }
        }
        let mut snap = Snapshot {
            status: pve::cluster_status(texts[0])?,
            resources: pve::resources(texts[1])?,
            storage: pve::storage_config(texts[2])?,
            ..Snapshot::default()
        };
        // Node names go into the next command's paths: only what Proxmox allows as a node name
        // (a host name) is used; anything else is reported and left as the graph has it.
        let (nodes, odd): (Vec<String>, Vec<String>) = snap.node_names().into_iter().partition(|n| node_name_ok(n));
        for n in odd {
            snap.warnings.push(format!("a node named {n:?} is not a valid host name; not read"));
        }
        if nodes.is_empty() {
            return Err(DiscoveryError::Empty.into());
        }
        // Which guests need their configuration read: asked of the graph before reading them.
        let needs = self.engine().discovery_plan(&snap, host).await?.needs_config;
        let mut paths = Vec::new();
        for node in &nodes {
            snap.networks.insert(node.clone(), None);
            if snap.online(node) {
                paths.push(format!("/nodes/{node}/network"));
            } else {
                snap.warnings.push(format!("node {node} is offline: its guests are kept, their status unknown"));
            }
        }
        let mut wanted: Vec<(String, Kind, u64, String)> = Vec::new();
        for (node, kind, vmid) in needs {
            if snap.online(&node) && nodes.contains(&node) {
                let path = format!("/nodes/{node}/{}/{vmid}/config", kind.as_str());
                paths.push(path.clone());
                wanted.push((node, kind, vmid, path));
            }
        }
        let second =
            self.answers(host, &paths, "discovery: read networks and guest configurations", &mut commands).await?;
        for node in &nodes {
            let path = format!("/nodes/{node}/network");
            if !paths.contains(&path) {
                continue;
            }
            match second.get(&path).map(|t| pve::network(t, node)) {
                Some(Ok(ifaces)) => {
                    snap.networks.insert(node.clone(), Some(ifaces));
                }
                Some(Err(e)) => snap.warnings.push(format!("{e}; {node}'s bridges kept as they were")),
                None => snap.warnings.push(format!(
                    "could not read {node}'s network ({}); its bridges kept as they were",
                    second.reason()
                )),
            }
        }
        for (node, kind, vmid, path) in wanted {
            match second.get(&path).map(|t| pve::guest_config(t, &path, kind)) {
                Some(Ok(cfg)) => {
                    snap.configs.insert(vmid, cfg);
                }
                Some(Err(e)) => snap.warnings.push(e.to_string()),
                None => snap.warnings.push(format!(
                    "could not read the configuration of guest {vmid} on {node}; its addresses and disks kept as they were"
                )),
            }
        }
        let (plan, applied) = match &options.apply {
            Some(by) => (self.engine().discovery_apply(&snap, host, by).await?, true),
            None => (self.engine().discovery_plan(&snap, host).await?, false),
        };
        let ms = u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX);
        Ok(plan.diff(host, applied, commands, ms))
    }

    /// The entity `key` names: a slug or id, or a host's bare name (`pve1`).
    async fn host_entity(&self, key: &str) -> Result<nomos_types::Entity> {
        let mut conn = self.engine().store().pool().acquire().await?;
        if let Some(e) = find_entity(&mut conn, key.trim()).await? {
            return Ok(e);
        }
        match crate::hosts::host_slug(key) {
            Ok(slug) => require_entity(&mut conn, &slug).await,
            Err(_) => Err(Error::NotFound { what: "host", key: key.to_string() }),
        }
    }

    /// Adds a host and looks at the key it presents (nothing is trusted): what *Add host* and
    /// `nomos hosts add` show before the operator trusts it.
    pub async fn add_host(&self, spec: &HostSpec) -> Result<AddedHost> {
        let host = self.engine().add_host(spec).await?;
        let a = &host.attributes;
        let endpoint = format!(
            "{}@{}:{}",
            a.get("ssh_user").and_then(|v| v.as_str()).unwrap_or("root"),
            a.get("address").and_then(|v| v.as_str()).unwrap_or("?"),
            a.get("ssh_port").and_then(|v| v.as_u64()).unwrap_or(22)
        );
        let (fingerprint, unreachable) = match self.present_key(&host.slug).await {
            Ok(fp) => (Some(fp), None),
            Err(e) => (None, Some(e.to_string())),
        };
        let next = match &fingerprint {
            Some(fp) => format!(
                "compare {fp} with `ssh-keygen -lf /etc/ssh/ssh_host_ed25519_key.pub` on the host, then trust it \
                 (nomos hosts trust {} --fingerprint {fp})",
                host.slug
            ),
            None => format!("check the address and port, then test it again (nomos hosts test {})", host.slug),
        };
        Ok(AddedHost { host: host.slug.clone(), endpoint, fingerprint, trusted: false, unreachable, next })
    }

    /// Tests what discovery needs on `host`, one line each, with how to fix what is missing.
    /// A host without `pvesh` is a plain Linux host: fine as a host, nothing to discover.
    pub async fn test_host(&self, host: &str) -> Result<HostTest> {
        let entity = self.host_entity(host).await?;
        let slug = entity.slug.clone();
        let mut test = HostTest {
            host: slug.clone(),
            ok: false,
            proxmox: false,
            fingerprint: None,
            trusted: false,
            checks: vec![],
        };
        let check = |name: &str, ok: bool, detail: String, fix: Option<String>| HostCheck {
            check: name.to_string(),
            ok,
            detail,
            fix,
        };
        let pinned = self.host_keys().await?.into_iter().find(|k| k.host == slug);
        test.fingerprint = pinned.as_ref().map(|k| k.fingerprint.clone());
        test.trusted = pinned.as_ref().is_some_and(|k| k.trusted);
        if !test.trusted {
            let seen = self.present_key(&slug).await;
            match seen {
                Ok(fp) => {
                    test.checks.push(check(
                        "host_key",
                        false,
                        format!("{slug} presents {fp}; it is not trusted yet"),
                        Some(format!(
                            "compare it with `ssh-keygen -lf /etc/ssh/ssh_host_ed25519_key.pub` on the host, then trust it (nomos hosts trust {slug} --fingerprint {fp})"
                        )),
                    ));
                    test.fingerprint = Some(fp);
                }
                Err(e) => test.checks.push(check(
                    "ssh",
                    false,
                    e.to_string(),
                    Some("check the address and port, and that sshd runs on the host".into()),
                )),
            }
            return Ok(test);
        }
        test.checks.push(check(
            "host_key",
            true,
            format!("trusted {}", test.fingerprint.clone().unwrap_or_default()),
            None,
        ));
        let probe = "command -v pvesh || echo 'oikos: no pvesh'; echo; echo '@@oikos /version'; pvesh get /version --output-format json; \
                     echo; echo '@@oikos /cluster/status'; pvesh get /cluster/status --output-format json; \
                     echo; echo '@@oikos /cluster/resources'; pvesh get /cluster/resources --type vm --output-format json";
        let x = match self.read(&slug, probe.to_string(), "discovery: test what discovery needs").await {
            Ok(x) => x,
            Err(e) => {
                test.checks.push(check("ssh", false, e.to_string(), None));
                return Ok(test);
            }
        };
        if let Some(err) = x.error.as_ref().filter(|_| x.exit_code.is_none()) {
            test.checks.push(check(
                "ssh",
                false,
                err.clone(),
                Some(
                    "check the user and key (or the ssh-agent), and that the key is in the host's authorized_keys"
                        .into(),
                ),
            ));
            return Ok(test);
        }
        let user = entity.attributes.get("ssh_user").and_then(|v| v.as_str()).unwrap_or("root").to_string();
        test.checks.push(check("ssh", true, format!("logged in as {user}"), None));
        let answers = Answers { sections: split(&x.stdout), stderr: x.stderr.clone() };
        let has_pvesh = x.stdout.lines().next().is_some_and(|l| l.contains("pvesh") && !l.contains("no pvesh"));
        if !has_pvesh {
            test.checks.push(check(
                "pvesh",
                false,
                "no pvesh: a plain Linux host (commands run; there is no cluster to discover)".into(),
                None,
            ));
            test.ok = true;
            return Ok(test);
        }
        test.proxmox = true;
        test.checks.push(check("pvesh", true, "pvesh present".into(), None));
        let audit_fix = format!(
            "give {user} the PVEAuditor role on / (pveum acl modify / --users {user}@pam --roles PVEAuditor), or run discovery as root"
        );
        let version = answers.get("/version").and_then(|t| pve::object(t, "/version").ok());
        match version.as_ref().and_then(|v| pve::Row(v).str("version")) {
            Some(v) => test.checks.push(check("version", true, format!("Proxmox VE {v}"), None)),
            None => test.checks.push(check("version", false, answers.reason(), Some(audit_fix.clone()))),
        }
        match answers.get("/cluster/status").map(pve::cluster_status) {
            Some(Ok(s)) => {
                let detail = match (&s.name, s.quorate) {
                    (Some(n), Some(q)) => {
                        format!("cluster {n}, {} nodes, {}", s.nodes.len(), if q { "quorate" } else { "NOT quorate" })
                    }
                    _ => format!("stand-alone node {}", s.nodes.first().map(|n| n.name.as_str()).unwrap_or("?")),
                };
                test.checks.push(check("cluster", true, detail, None));
            }
            Some(Err(e)) => test.checks.push(check("cluster", false, e.to_string(), Some(audit_fix.clone()))),
            None => test.checks.push(check("cluster", false, answers.reason(), Some(audit_fix.clone()))),
        }
        match answers.get("/cluster/resources").map(pve::resources) {
            Some(Ok(r)) => {
                // One guest's configuration, read the way discovery reads them.
                let detail = match r.guests.first() {
                    None => Ok("no guests yet".to_string()),
                    Some(g) => {
                        let path = format!("/nodes/{}/{}/{}/config", g.node, g.kind.as_str(), g.vmid);
                        match self
                            .read(
                                &slug,
                                read_command(std::slice::from_ref(&path)),
                                "discovery: test reading a guest's configuration",
                            )
                            .await
                        {
                            Ok(x) => {
                                let a = Answers { sections: split(&x.stdout), stderr: x.stderr };
                                match a.get(&path).map(|t| pve::guest_config(t, &path, g.kind)) {
                                    Some(Ok(_)) => Ok(format!("{} guests; configurations readable", r.guests.len())),
                                    Some(Err(e)) => Err(e.to_string()),
                                    None => Err(format!("cannot read {path}: {}", a.reason())),
                                }
                            }
                            Err(e) => Err(e.to_string()),
                        }
                    }
                };
                match detail {
                    Ok(d) => test.checks.push(check("guests", true, d, None)),
                    Err(d) => test.checks.push(check("guests", false, d, Some(audit_fix.clone()))),
                }
            }
            Some(Err(e)) => test.checks.push(check("guests", false, e.to_string(), Some(audit_fix))),
            None => test.checks.push(check("guests", false, answers.reason(), Some(audit_fix))),
        }
        test.ok = test.checks.iter().all(|c| c.ok);
        Ok(test)
    }
}

/// Discovery's background cycle: every interval (a setting; off at 0), each host whose first
/// discovery an operator applied is discovered again and what changed is applied by itself — one
/// cluster once, whichever of its hosts answers first. A failure is logged and recorded in the
/// ledger once, when it starts and when it ends, not at every cycle.
pub(crate) async fn cycle(act: Actuator) {
    // How often the setting is looked at; the cycle itself runs at the set interval.
    const LOOK: Duration = Duration::from_secs(15);
    let mut last_run: Option<Instant> = None;
    let mut failing: std::collections::HashMap<String, String> = std::collections::HashMap::new();
    loop {
        tokio::time::sleep(LOOK).await;
        let interval = match act.engine().discovery_settings().await {
            Ok(s) if s.interval_secs > 0 => Duration::from_secs(s.interval_secs),
            Ok(_) => continue,
            Err(e) => {
                tracing::warn!("discovery settings unreadable: {e}");
                continue;
            }
        };
        if last_run.is_some_and(|t| t.elapsed() < interval) {
            continue;
        }
        last_run = Some(Instant::now());
        let hosts = match act.engine().followed_hosts().await {
            Ok(h) => h,
            Err(e) => {
                tracing::warn!("discovery: cannot list hosts: {e}");
                continue;
            }
        };
        let mut clusters: Vec<String> = Vec::new();
        for (host, cluster) in hosts {
            if cluster.as_ref().is_some_and(|c| clusters.contains(c)) {
                continue;
            }
            match act.discover(&host, DiscoverOptions { apply: Some(ApplyBy::Cycle) }).await {
                Ok(d) => {
                    clusters.push(d.cluster.clone());
                    if failing.remove(&host).is_some() {
                        act.note_discovery(&host, "discovery.recovered", "discovery reads the cluster again").await;
                    }
                    if !d.changes.is_empty() {
                        tracing::info!(host = %host, changes = d.changes.len(), "discovery applied changes");
                    }
                }
                Err(e) => {
                    let message = e.to_string();
                    if failing.get(&host) != Some(&message) {
                        tracing::warn!(host = %host, "discovery failed: {message}");
                        act.note_discovery(&host, "discovery.failed", &message).await;
                        failing.insert(host, message);
                    }
                }
            }
        }
    }
}

impl Actuator {
    /// A line in the ledger about discovery on `host` (its failures start and end).
    async fn note_discovery(&self, host: &str, action: &str, message: &str) {
        let recorded = crate::actuate::db::audit::Audit::by(ACTOR, action, serde_json::json!({"message": message}))
            .entity(host)
            .record_alone(self.engine())
            .await;
        if let Err(e) = recorded {
            tracing::error!(error = %e, "could not record discovery's {action}");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn answers_split_at_their_markers() {
        let out = "\n@@oikos /a\n[1,2]\n\n@@oikos /b\n\n@@oikos /c\n{\"x\":\n1}";
        let a = Answers { sections: split(out), stderr: "\n  boom: no such node\nmore".into() };
        assert_eq!(a.get("/a").map(str::trim), Some("[1,2]"));
        assert_eq!(a.get("/b"), None, "an empty answer is no answer");
        assert_eq!(a.get("/c").map(str::trim), Some("{\"x\":\n1}"));
        assert_eq!(a.get("/d"), None);
        assert_eq!(a.reason(), "boom: no such node");
        assert!(no_pvesh("bash: line 1: pvesh: command not found\n") && no_pvesh("sh: 1: pvesh: not found"));
        assert!(!no_pvesh("pvesh: 400 Parameter verification failed."));
        assert!(denied("Permission check failed (/, Sys.Audit)") && denied("403 Permission check failed"));
        assert!(!denied("No 'get' handler defined for '/nope'"));
        assert!(node_name_ok("pve-1.lan") && !node_name_ok("pve1; reboot") && !node_name_ok("-x") && !node_name_ok(""));
        let cmd = read_command(&["/nodes/pve1/network".into(), "/storage".into()]);
        assert_eq!(
            cmd,
            "echo; echo '@@oikos /nodes/pve1/network'; pvesh get /nodes/pve1/network --output-format json; \
             echo; echo '@@oikos /storage'; pvesh get /storage --output-format json"
        );
    }
}
