//! Targets: what `host:<slug>` and `lxc:<slug>` mean as an SSH endpoint and a command line.
//!
//! A host is reached directly. An LXC is reached through its Proxmox host with `pct exec`; the
//! script travels base64-encoded so no quoting of the operator's command can break out of it, and
//! is decoded into a shell's `-c` argument inside the container (not piped into the shell's standard
//! input, where a command reading its input would swallow the rest of the script).

use std::path::PathBuf;

use nomos_types::{Entity, EntityState};
use sqlx::SqliteConnection;

use std::time::Duration;

use super::ssh::{shell_quote, Endpoint, Job};
use crate::graph::find_entity;
use crate::policy::ConfirmTarget;
use crate::{Error, Result};

/// A resolved target: whom to connect to, and how to run a script there.
#[derive(Debug, Clone)]
pub struct Target {
    /// The target entity (`host:pve1`, `lxc:caddy`).
    pub entity: Entity,
    /// The host entity the connection goes to (the target itself for a host).
    pub host: Entity,
    pub endpoint: Endpoint,
    /// For an LXC, its Proxmox id.
    pub pve_id: Option<u64>,
}

impl Target {
    pub fn slug(&self) -> &str {
        &self.entity.slug
    }

    /// The job the host runs for `script`: under `timeout` with `deadline`, and with a marker
    /// as the script's `$0`, so whatever outlives the deadline or a cancel can be found and killed
    /// — on the host, or inside the container, where the host's `timeout` does not reach.
    pub(crate) fn job(&self, script: &str, deadline: Duration, grace: Duration) -> Job {
        let marker = format!("oikos-exec-{}", uuid::Uuid::new_v4().simple());
        let secs = deadline.as_secs().max(1);
        let grace = grace.as_secs().max(1);
        // `[o]ikos-…` matches the marker but not the kill line's own arguments. The process tree
        // is frozen from the top before anything is killed, so no parent starts the next command.
        let pattern = format!("[{}]{}", &marker[..1], &marker[1..]);
        let kill_here = format!(
            "kt() {{ kill -STOP \"$1\" 2>/dev/null; for c in $(pgrep -P \"$1\"); do kt \"$c\"; done; \
             kill -KILL \"$1\" 2>/dev/null; }}; for p in $(pgrep -f '{pattern}'); do kt \"$p\"; done; true"
        );
        match self.pve_id {
            None => Job {
                line: format!(
                    "exec timeout --kill-after={grace}s {secs}s bash --norc -c {} {marker}",
                    shell_quote(script)
                ),
                kill: kill_here,
            },
            Some(id) => {
                // Inside the container: decode (failing loudly, never running an empty script),
                // keep the container's own deadline when it has GNU `timeout` (the host's only
                // reaches `pct`), and use bash when there is one (Alpine has only sh).
                let inner = format!(
                    "s=$(printf %s {} | base64 -d) && [ -n \"$s\" ] || {{ echo 'oikos: the container cannot decode the \
                     command (base64 missing?)' >&2; exit 127; }}; sh=sh; command -v bash >/dev/null 2>&1 && sh=bash; \
                     if timeout --version >/dev/null 2>&1; then exec timeout --kill-after={grace}s {secs}s \"$sh\" -c \
                     \"$s\" {marker}; else exec \"$sh\" -c \"$s\" {marker}; fi",
                    shell_quote(&base64(script.as_bytes()))
                );
                Job {
                    line: format!(
                        "exec timeout --kill-after={grace}s {secs}s pct exec {id} -- sh -c {}",
                        shell_quote(&inner)
                    ),
                    // The host sees the container's processes: kill them from there first; the
                    // same inside the container only as a second try, and bounded.
                    kill: format!(
                        "{kill_here}; timeout 10 pct exec {id} -- sh -c {} 2>/dev/null; true",
                        shell_quote(&kill_here)
                    ),
                }
            }
        }
    }
}

/// What the operator's words must match to approve an action on `entity`: its slug, its name and,
/// for a guest, its Proxmox id; and the verbs of `command`, when known. The gate's approvals and
/// the chat judge both read a target this way.
pub(crate) fn confirm_target(entity: &Entity, command: Option<&str>) -> ConfirmTarget {
    let pve_id =
        if entity.entity_type == "lxc" { entity.attributes.get("pve_id").and_then(|v| v.as_u64()) } else { None };
    let target = ConfirmTarget::new(entity.slug.as_str()).with_name(entity.name.as_str()).with_pve_id(pve_id);
    match command {
        Some(c) => target.for_command(c),
        None => target,
    }
}

/// The entity `key` names: a slug or id, or a bare name taken as `host:<name>`, then `lxc:<name>`.
pub(crate) async fn target_entity(conn: &mut SqliteConnection, key: &str) -> Result<Entity> {
    let key = key.trim();
    if let Some(e) = find_entity(conn, key).await? {
        return Ok(e);
    }
    if !key.contains(':') {
        let host = find_entity(conn, &format!("host:{key}")).await?;
        let lxc = find_entity(conn, &format!("lxc:{key}")).await?;
        match (host, lxc) {
            (Some(_), Some(_)) => {
                return Err(Error::Invalid(format!("`{key}` is both host:{key} and lxc:{key}: say which")));
            }
            (Some(e), None) | (None, Some(e)) => return Ok(e),
            (None, None) => {}
        }
    }
    Err(Error::Invalid(format!("unknown target `{key}`: not in the graph")))
}

/// Resolves `key` (a slug, or a bare name taken as `host:`/`lxc:`) to a target, refusing unknown,
/// destroyed and unreachable ones before anything runs.
pub(crate) async fn resolve(conn: &mut SqliteConnection, key: &str) -> Result<Target> {
    let entity = target_entity(conn, key).await?;
    refuse_gone(&entity)?;
    match entity.entity_type.as_str() {
        "host" => {
            let endpoint = endpoint_of(&entity)?;
            Ok(Target { host: entity.clone(), entity, endpoint, pve_id: None })
        }
        "lxc" => {
            let pve_id = entity.attributes.get("pve_id").and_then(|v| v.as_u64()).ok_or_else(|| {
                Error::Invalid(format!("target `{}` has no `pve_id`: cannot reach it with pct exec", entity.slug))
            })?;
            let host_id: Option<String> = sqlx::query_scalar(
                "SELECT source_id FROM relationships WHERE type = 'hosts' AND target_id = ? AND valid_to IS NULL",
            )
            .bind(&entity.id)
            .fetch_optional(&mut *conn)
            .await?;
            let Some(host_id) = host_id else {
                return Err(Error::Invalid(format!(
                    "target `{}` has no host: no current `hosts` relationship",
                    entity.slug
                )));
            };
            let host = match find_entity(conn, &host_id).await? {
                Some(h) => h,
                None => return Err(Error::Invalid(format!("the host of `{}` is gone", entity.slug))),
            };
            refuse_gone(&host)?;
            let endpoint = endpoint_of(&host)?;
            Ok(Target { entity, host, endpoint, pve_id: Some(pve_id) })
        }
        other => {
            Err(Error::Invalid(format!("`{}` is a {other}: commands run on `host:` or `lxc:` targets", entity.slug)))
        }
    }
}

fn refuse_gone(e: &Entity) -> Result<()> {
    if matches!(e.state, EntityState::Destroyed | EntityState::Gone) {
        return Err(Error::Invalid(format!("target `{}` is {}", e.slug, e.state)));
    }
    Ok(())
}

fn endpoint_of(host: &Entity) -> Result<Endpoint> {
    let attr = |k: &str| host.attributes.get(k);
    let address = attr("address")
        .and_then(|v| v.as_str())
        .filter(|s| !s.trim().is_empty())
        .ok_or_else(|| Error::Invalid(format!("host `{}` has no `address`: cannot connect to it", host.slug)))?;
    let port = attr("ssh_port")
        .and_then(|v| v.as_u64())
        .map_or(Ok(22), u16::try_from)
        .map_err(|_| Error::Invalid(format!("host `{}` has an ssh_port out of range", host.slug)))?;
    let user = attr("ssh_user").and_then(|v| v.as_str()).filter(|s| !s.is_empty()).unwrap_or("root");
    let key_file = attr("ssh_key").and_then(|v| v.as_str()).filter(|s| !s.is_empty()).map(expand_home);
    Ok(Endpoint {
        slug: host.slug.clone(),
        address: address.trim().to_string(),
        port,
        user: user.to_string(),
        key_file,
    })
}

fn expand_home(path: &str) -> PathBuf {
    match (path.strip_prefix("~/"), dirs::home_dir()) {
        (Some(rest), Some(home)) => home.join(rest),
        _ => PathBuf::from(path),
    }
}

/// Standard base64 (RFC 4648, padded).
pub(crate) fn base64(bytes: &[u8]) -> String {
    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let b = [chunk[0], chunk.get(1).copied().unwrap_or(0), chunk.get(2).copied().unwrap_or(0)];
        let n = (u32::from(b[0]) << 16) | (u32::from(b[1]) << 8) | u32::from(b[2]);
        for (i, shift) in [18, 12, 6, 0].into_iter().enumerate() {
            if i <= chunk.len() {
                out.push(char::from(ALPHABET[(n >> shift) as usize & 63]));
            } else {
                out.push('=');
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base64_matches_the_standard() {
        assert_eq!(base64(b""), "");
        assert_eq!(base64(b"f"), "Zg==");
        assert_eq!(base64(b"fo"), "Zm8=");
        assert_eq!(base64(b"foo"), "Zm9v");
        assert_eq!(base64(b"echo 'hi' \"$x\"\n"), "ZWNobyAnaGknICIkeCIK");
    }

    fn target(pve_id: Option<u64>) -> Target {
        let e = Entity {
            id: "1".into(),
            slug: "host:pve1".into(),
            entity_type: "host".into(),
            name: "pve1".into(),
            attributes: serde_json::json!({}),
            state: EntityState::Active,
            created_at: String::new(),
            updated_at: String::new(),
        };
        let endpoint = Endpoint {
            slug: e.slug.clone(),
            address: "127.0.0.1".into(),
            port: 22,
            user: "root".into(),
            key_file: None,
        };
        Target { entity: e.clone(), host: e, endpoint, pve_id }
    }

    #[test]
    fn jobs_carry_the_deadline_and_a_marker_their_kill_line_finds() {
        let job = target(None).job("echo 'hi'", Duration::from_secs(2), Duration::from_secs(5));
        let marker = job.line.rsplit(' ').next().unwrap().to_string();
        assert!(marker.starts_with("oikos-exec-"), "{}", job.line);
        assert!(job.line.starts_with(r"exec timeout --kill-after=5s 2s bash --norc -c 'echo '\''hi'\''' oikos-exec-"));
        assert!(job.kill.contains(&format!("[o]{}", &marker[1..])) && !job.kill.contains(&marker));

        let job = target(Some(101)).job("echo hi", Duration::from_secs(600), Duration::from_secs(5));
        assert!(job.line.starts_with("exec timeout --kill-after=5s 600s pct exec 101 -- sh -c "), "{}", job.line);
        assert!(job.line.contains(&base64(b"echo hi")));
        assert!(job.kill.contains("; timeout 10 pct exec 101 -- sh -c "), "{}", job.kill);
    }
}
