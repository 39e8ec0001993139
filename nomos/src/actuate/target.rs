//! Targets: what `host:<slug>` and `lxc:<slug>` mean as an SSH endpoint and a command line.
//!
//! A host is reached directly. An LXC is reached through its Proxmox host with `pct exec`; the
//! script travels base64-encoded so no quoting of the operator's command can break out of it, and
//! is decoded into `bash -c`'s argument (not piped into `bash`'s standard input, where a command
//! reading its input would swallow the rest of the script).

use std::path::PathBuf;

use nomos_types::{Entity, EntityState};
use sqlx::SqliteConnection;

use super::ssh::{shell_quote, Endpoint};
use crate::graph::find_entity;
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

    /// The command line the host runs for `script`.
    pub fn command_line(&self, script: &str) -> String {
        match self.pve_id {
            None => script.to_string(),
            Some(id) => {
                let encoded = base64(script.as_bytes());
                format!("pct exec {id} -- bash -c \"$(printf %s {} | base64 -d)\"", shell_quote(&encoded))
            }
        }
    }
}

/// The entity `key` names: a slug or id, or a bare name taken as `host:<name>`, then `lxc:<name>`.
pub(crate) async fn target_entity(conn: &mut SqliteConnection, key: &str) -> Result<Entity> {
    let key = key.trim();
    if let Some(e) = find_entity(conn, key).await? {
        return Ok(e);
    }
    if !key.contains(':') {
        for prefix in ["host", "lxc"] {
            if let Some(e) = find_entity(conn, &format!("{prefix}:{key}")).await? {
                return Ok(e);
            }
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
    if e.state == EntityState::Destroyed {
        return Err(Error::Invalid(format!("target `{}` is destroyed", e.slug)));
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
}
