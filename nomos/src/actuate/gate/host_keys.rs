//! SSH host keys: what each host presented, and the operator trusting one.

use nomos_types::events::{HostKeyMismatch, HostKeySeen, HostKeyTrusted};
use nomos_types::{EntityQuery, HostEntry, HostKey};
use serde_json::json;

use super::decide::operator_only;
use crate::actuate::db::audit::Audit;
use crate::actuate::db::host_keys;
use crate::actuate::ssh::SeenKey;
use crate::actuate::target::resolve;
use crate::actuate::{Actuator, Decision};
use crate::events::EventDraft;
use crate::{Error, Result};

impl Actuator {
    pub async fn host_keys(&self) -> Result<Vec<HostKey>> {
        host_keys::list(self.engine.store().pool()).await
    }

    /// Every host with how it is reached (`user@address:port`) and its pinned key, by slug.
    pub async fn host_entries(&self) -> Result<Vec<HostEntry>> {
        let q = EntityQuery { entity_type: Some("host".into()), limit: Some(1000), ..Default::default() };
        let hosts = self.engine.list_entities(&q).await?;
        let keys = self.host_keys().await?;
        Ok(hosts
            .items
            .into_iter()
            .map(|h| {
                let a = &h.entity.attributes;
                let endpoint = format!(
                    "{}@{}:{}",
                    a.get("ssh_user").and_then(|v| v.as_str()).unwrap_or("root"),
                    a.get("address").and_then(|v| v.as_str()).unwrap_or("?"),
                    a.get("ssh_port").and_then(|v| v.as_u64()).unwrap_or(22)
                );
                let key = keys.iter().find(|k| k.host == h.entity.slug).cloned();
                HostEntry { host: h.entity.slug, endpoint, key }
            })
            .collect())
    }

    /// Connects to `host` only to see the key it presents (nothing runs), records it as seen
    /// unless it is the trusted one, and returns its fingerprint: what *Add host* shows before
    /// anything is trusted.
    pub async fn present_key(&self, host: &str) -> Result<String> {
        let pool = self.engine.store().pool();
        let target = resolve(&mut *pool.acquire().await?, host).await?;
        if target.pve_id.is_some() {
            return Err(Error::Invalid(format!("`{host}` is reached through {}", target.host.slug)));
        }
        let slug = target.host.slug.clone();
        let seen = self.ssh.fetch_host_key(&target.endpoint).await.map_err(|e| Error::Invalid(e.to_string()))?;
        let pinned = host_keys::pinned(pool, &slug).await?;
        let same = host_keys::is_pinned(pinned.as_ref(), &seen);
        let trusted = pinned.as_ref().is_some_and(|p| p.trusted);
        if !(trusted && same) {
            self.record_seen_key(&slug, &seen, trusted).await?;
        }
        Ok(seen.fingerprint)
    }

    /// Pins the key `host` presents as trusted. With `expected` (a fingerprint the operator checked
    /// out of band) the host must present exactly that key. Without it, only a first sighting is
    /// trusted: the key the host presents now, which must equal one it showed before (in the
    /// "not trusted" error, by `present_key` or *Add host*); a key never shown is refused, and
    /// shown. A host whose trusted key changed needs `expected`.
    pub async fn trust_host(&self, host: &str, expected: Option<&str>, decision: &Decision) -> Result<HostKey> {
        operator_only(decision, "trust a host key")?;
        let pool = self.engine.store().pool();
        let target = resolve(&mut *pool.acquire().await?, host).await?;
        if target.pve_id.is_some() {
            return Err(Error::Invalid(format!("`{host}` is reached through {}: trust that host", target.host.slug)));
        }
        let slug = target.host.slug.clone();
        let seen = self.ssh.fetch_host_key(&target.endpoint).await.map_err(|e| Error::Invalid(e.to_string()))?;
        let pinned = host_keys::pinned(pool, &slug).await?;
        let same_as_pinned = host_keys::is_pinned(pinned.as_ref(), &seen);
        match (expected, &pinned) {
            (Some(fp), _) => {
                let fp = fp.trim();
                let fp = fp.strip_prefix("SHA256:").unwrap_or(fp);
                if seen.fingerprint.strip_prefix("SHA256:").unwrap_or(&seen.fingerprint) != fp {
                    return Err(Error::Conflict(format!(
                        "{slug} presents {}, not the fingerprint given (SHA256:{fp}); nothing trusted",
                        seen.fingerprint
                    )));
                }
            }
            (None, Some(p)) if p.trusted && same_as_pinned => {
                return host_keys::get(&mut *pool.acquire().await?, &slug).await;
            }
            (None, Some(p)) if p.trusted => {
                return Err(Error::Conflict(format!(
                    "{slug} presents a different key ({}) than the one trusted; find out why, then trust it with \
                     its fingerprint checked on the host (`ssh-keygen -lf /etc/ssh/ssh_host_ed25519_key.pub`)",
                    seen.fingerprint
                )));
            }
            (None, Some(_)) if !same_as_pinned => {
                return Err(Error::Conflict(format!(
                    "{slug} now presents {}, not the key it showed before; trust it with its fingerprint checked on the host",
                    seen.fingerprint
                )));
            }
            (None, Some(_)) => {}
            // Never shown to anyone: nothing is trusted blind. It is recorded as seen, and shown.
            (None, None) => {
                self.record_seen_key(&slug, &seen, false).await?;
                return Err(Error::Conflict(format!(
                    "{slug} presents {fp}, which was never shown before; compare it with \
                     `ssh-keygen -lf /etc/ssh/ssh_host_ed25519_key.pub` on the host, then trust it: \
                     nomos hosts trust {slug} --fingerprint {fp}",
                    fp = seen.fingerprint
                )));
            }
        }
        let changed = pinned.as_ref().is_some_and(|p| p.trusted && !same_as_pinned);
        let mut tx = self.engine.store().begin_write().await?;
        let now = tx.now().to_string();
        host_keys::trust(&mut tx, &slug, &seen, &decision.actor, &now).await?;
        let detail = json!({"fingerprint": seen.fingerprint, "algorithm": seen.algorithm, "replaced": changed,
                            "checked_fingerprint": expected.is_some()});
        Audit::by(&decision.actor, "host_key.trusted", detail)
            .channel(decision.channel)
            .entity(slug.as_str())
            .record(&mut tx, EventDraft::new(HostKeyTrusted { fingerprint: seen.fingerprint.clone() }).entity(&slug))
            .await?;
        let key = host_keys::get(&mut tx, &slug).await?;
        tx.commit().await?;
        if changed {
            // Connections made under the old key must not carry on.
            self.ssh.forget(&slug).await;
        }
        Ok(key)
    }

    /// Removes a host (see [`crate::Engine::remove_host`]) and closes the connections still open
    /// to it: nothing of a removed host stays in use.
    pub async fn remove_host(&self, input: &str) -> Result<nomos_types::HostRemoved> {
        let removed = self.engine.remove_host(input).await?;
        self.ssh.forget(&removed.host).await;
        Ok(removed)
    }

    /// Records a key a host presented that is not the trusted one: a first sighting is kept
    /// (untrusted) for the operator to trust; a change (`changed`) is audited loudly and never
    /// replaces the pinned key by itself.
    pub(super) async fn record_seen_key(&self, host: &str, seen: &SeenKey, changed: bool) -> Result<()> {
        let mut tx = self.engine.store().begin_write().await?;
        let now = tx.now().to_string();
        // An untrusted pin may be refreshed with what the host shows now.
        host_keys::record_seen(&mut tx, host, seen, !changed, &now).await?;
        let fingerprint = seen.fingerprint.clone();
        let (action, event) = if changed {
            ("host_key.mismatch", EventDraft::new(HostKeyMismatch { fingerprint }))
        } else {
            ("host_key.seen", EventDraft::new(HostKeySeen { fingerprint }))
        };
        Audit::executor(action, json!({"fingerprint": seen.fingerprint, "algorithm": seen.algorithm}))
            .entity(host)
            .record(&mut tx, event.entity(host))
            .await?;
        tx.commit().await?;
        if changed {
            tracing::error!(host, fingerprint = %seen.fingerprint, "host key changed; connection refused");
        }
        Ok(())
    }
}
