//! Hosts as the operator adds them: an SSH endpoint (address, port, user, key file or the
//! ssh-agent) on a `host` entity. The key file's path is stored, never the key. Trusting the key a
//! host presents is the gate's (`Actuator::present_key`, `Actuator::trust_host`).

use std::path::Path;

use nomos_types::discovery::{HostRemoved, HostSpec};
use nomos_types::{Entity, EntityState, Json};
use serde_json::{json, Map};

use crate::graph::entities::{upsert_entity_in, IfExists, NewEntity};
use crate::graph::{check_slug, find_entity, slugify};
use crate::{Engine, Error, Result};

/// `host:<name>` from what the operator typed.
pub fn host_slug(input: &str) -> Result<String> {
    let input = input.trim();
    let slug = match input.strip_prefix("host:") {
        Some(_) => input.to_string(),
        None if input.contains(':') => {
            return Err(Error::Invalid(format!("`{input}` is not a host: a host's slug is host:<name>")))
        }
        None => format!("host:{}", slugify(input)),
    };
    check_slug(&slug, "host")?;
    Ok(slug)
}

fn one_word(what: &str, value: &str) -> Result<String> {
    let v = value.trim();
    if v.is_empty() || v.chars().any(|c| c.is_whitespace() || c.is_control()) {
        return Err(Error::Invalid(format!("{what} `{value}` must be one word, without spaces")));
    }
    Ok(v.to_string())
}

/// The connection attributes `spec` sets, checked.
fn endpoint_patch(spec: &HostSpec) -> Result<Map<String, Json>> {
    let mut patch = Map::new();
    if let Some(a) = &spec.address {
        let a = one_word("address", a)?;
        if a.starts_with('-') {
            return Err(Error::Invalid(format!("address `{a}` cannot start with '-'")));
        }
        patch.insert("address".into(), json!(a));
    }
    if let Some(p) = spec.port {
        if p == 0 {
            return Err(Error::Invalid("port must be between 1 and 65535".into()));
        }
        patch.insert("ssh_port".into(), json!(p));
    }
    if let Some(u) = &spec.user {
        let u = one_word("user", u)?;
        if u.contains('@') {
            return Err(Error::Invalid(format!("user `{u}` must be a login name, without '@host'")));
        }
        patch.insert("ssh_user".into(), json!(u));
    }
    if let Some(k) = &spec.key {
        if k.trim().is_empty() {
            patch.insert("ssh_key".into(), Json::Null);
        } else {
            let expanded = match (k.trim().strip_prefix("~/"), dirs::home_dir()) {
                (Some(rest), Some(home)) => home.join(rest),
                _ => Path::new(k.trim()).to_path_buf(),
            };
            if !expanded.is_file() {
                return Err(Error::Invalid(format!("key file `{}` not found (or not a file)", expanded.display())));
            }
            patch.insert("ssh_key".into(), json!(k.trim()));
        }
    }
    Ok(patch)
}

impl Engine {
    /// Adds a host the operator will reach over SSH (and discover, if it runs Proxmox). An
    /// existing slug is a conflict: change it with [`Engine::edit_host`].
    pub async fn add_host(&self, spec: &HostSpec) -> Result<Entity> {
        let slug = host_slug(&spec.slug)?;
        if spec.address.as_deref().is_none_or(|a| a.trim().is_empty()) {
            return Err(Error::Invalid(format!("{slug} needs an address (a name or an IP)")));
        }
        let mut attrs = endpoint_patch(spec)?;
        attrs.entry("ssh_port").or_insert(json!(22));
        attrs.entry("ssh_user").or_insert(json!("root"));
        attrs.retain(|_, v| !v.is_null());
        // Where discovery starts when no host is named.
        attrs.insert("discover".into(), json!(true));
        let mut tx = self.store().begin_write().await?;
        if let Some(existing) = find_entity(&mut tx, &slug).await? {
            if existing.state != EntityState::Gone {
                return Err(Error::Conflict(format!(
                    "{slug} exists already; change it with `nomos hosts edit {slug}`"
                )));
            }
        }
        let name = slug.trim_start_matches("host:").to_string();
        let new = NewEntity::new("host", &name).slug(&slug).attributes(Json::Object(attrs)).state(EntityState::Active);
        let (entity, _) = upsert_entity_in(&mut tx, self.ontology(), &new, IfExists::Merge).await?;
        tx.commit().await?;
        tracing::info!(host = %slug, "host added");
        Ok(entity)
    }

    /// Changes how a host is reached.
    pub async fn edit_host(&self, spec: &HostSpec) -> Result<Entity> {
        let slug = host_slug(&spec.slug)?;
        let patch = endpoint_patch(spec)?;
        if patch.is_empty() {
            return Err(Error::Invalid("nothing to change: give --address, --port, --user or --key".into()));
        }
        let mut tx = self.store().begin_write().await?;
        let existing = find_entity(&mut tx, &slug).await?.ok_or_else(|| Error::not_found("host", &slug))?;
        if existing.entity_type != "host" {
            return Err(Error::Invalid(format!("`{slug}` is not a host")));
        }
        let new = NewEntity::new("host", &existing.name).slug(&slug).attributes(Json::Object(patch));
        let (entity, _) = upsert_entity_in(&mut tx, self.ontology(), &new, IfExists::Merge).await?;
        tx.commit().await?;
        Ok(entity)
    }

    /// Removes a host: deleted when nothing ever ran on it and nothing points at it; otherwise
    /// kept for its history as `gone`, no longer reached or discovered. Its pinned key goes.
    pub async fn remove_host(&self, input: &str) -> Result<HostRemoved> {
        let slug = host_slug(input)?;
        let mut tx = self.store().begin_write().await?;
        let existing = find_entity(&mut tx, &slug).await?.ok_or_else(|| Error::not_found("host", &slug))?;
        if existing.entity_type != "host" {
            return Err(Error::Invalid(format!("`{slug}` is not a host")));
        }
        let ran: i64 = sqlx::query_scalar(
            "SELECT count(*) FROM executions WHERE target_slug = ?1 OR target_host = ?1 OR target_id = ?2",
        )
        .bind(&slug)
        .bind(&existing.id)
        .fetch_one(&mut *tx)
        .await?;
        let linked: i64 =
            sqlx::query_scalar("SELECT count(*) FROM relationships WHERE source_id = ?1 OR target_id = ?1")
                .bind(&existing.id)
                .fetch_one(&mut *tx)
                .await?;
        crate::actuate::db::host_keys::forget(&mut tx, &slug).await?;
        let outcome = if ran == 0 && linked == 0 {
            sqlx::query("DELETE FROM entities WHERE id = ?").bind(&existing.id).execute(&mut *tx).await?;
            tx.emit(crate::events::EventDraft::new(nomos_types::events::EntityDeleted {}).entity(&slug)).await?;
            "deleted"
        } else {
            let new = NewEntity::new("host", &existing.name)
                .slug(&slug)
                .attributes(json!({"discover": null}))
                .state(EntityState::Gone);
            upsert_entity_in(&mut tx, self.ontology(), &new, IfExists::Merge).await?;
            "gone"
        };
        tx.commit().await?;
        Ok(HostRemoved { host: slug, outcome: outcome.into() })
    }

    /// The hosts the background cycle follows, with the cluster each belongs to: those whose first
    /// discovery an operator applied.
    pub async fn followed_hosts(&self) -> Result<Vec<(String, Option<String>)>> {
        let rows: Vec<(String, Option<String>)> = sqlx::query_as(
            "SELECT slug, json_extract(attributes, '$.cluster') FROM entities
              WHERE type = 'host' AND state NOT IN ('gone', 'destroyed')
                AND json_extract(attributes, '$.discovered_at') IS NOT NULL ORDER BY slug",
        )
        .fetch_all(self.store().pool())
        .await?;
        Ok(rows)
    }

    /// The hosts discovery starts from when none is named: those added to be discovered, else
    /// the only host there is.
    pub async fn discovery_roots(&self) -> Result<Vec<String>> {
        let rows: Vec<(String, String)> = sqlx::query_as(
            "SELECT slug, attributes FROM entities WHERE type = 'host' AND state NOT IN ('gone', 'destroyed') ORDER BY slug",
        )
        .fetch_all(self.store().pool())
        .await?;
        let roots: Vec<String> = rows
            .iter()
            .filter(|(_, a)| {
                serde_json::from_str::<Json>(a).ok().and_then(|a| a.get("discover").cloned()) == Some(json!(true))
            })
            .map(|(s, _)| s.clone())
            .collect();
        if !roots.is_empty() {
            return Ok(roots);
        }
        match rows.as_slice() {
            [(only, _)] => Ok(vec![only.clone()]),
            [] => Err(Error::Invalid("no hosts: add one first (nomos hosts add SLUG --address A)".into())),
            _ => Err(Error::Invalid(
                "several hosts and none added for discovery: name the host (nomos discover HOST)".into(),
            )),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::engine;

    #[tokio::test]
    async fn hosts_are_added_edited_and_removed() {
        let (dir, eng) = engine().await;
        let key = dir.path().join("id_ed25519");
        std::fs::write(&key, "not a real key").unwrap();
        let spec = HostSpec {
            slug: "PVE 1".into(),
            address: Some("10.0.0.2".into()),
            key: Some(key.display().to_string()),
            ..HostSpec::default()
        };
        let h = eng.add_host(&spec).await.unwrap();
        assert_eq!(h.slug, "host:pve-1");
        assert_eq!(h.attributes["ssh_port"], 22);
        assert_eq!(h.attributes["ssh_user"], "root");
        assert_eq!(h.attributes["discover"], true);
        assert!(eng.add_host(&spec).await.unwrap_err().to_string().contains("exists already"));
        assert_eq!(eng.discovery_roots().await.unwrap(), vec!["host:pve-1"]);

        let edit =
            HostSpec { slug: "host:pve-1".into(), port: Some(2222), key: Some(String::new()), ..HostSpec::default() };
        let h = eng.edit_host(&edit).await.unwrap();
        assert_eq!(h.attributes["ssh_port"], 2222);
        assert!(h.attributes.get("ssh_key").is_none(), "back to the agent");
        assert_eq!(h.attributes["address"], "10.0.0.2");

        for (spec, msg) in [
            (HostSpec { slug: "x".into(), address: Some("a b".into()), ..HostSpec::default() }, "one word"),
            (HostSpec { slug: "x".into(), ..HostSpec::default() }, "needs an address"),
            (HostSpec { slug: "lxc:x".into(), address: Some("a".into()), ..HostSpec::default() }, "not a host"),
            (
                HostSpec {
                    slug: "x".into(),
                    address: Some("a".into()),
                    user: Some("root@a".into()),
                    ..HostSpec::default()
                },
                "login name",
            ),
            (
                HostSpec {
                    slug: "x".into(),
                    address: Some("a".into()),
                    key: Some("/nowhere/key".into()),
                    ..HostSpec::default()
                },
                "not found",
            ),
            (
                HostSpec { slug: "x".into(), address: Some("-oProxyCommand=x".into()), ..HostSpec::default() },
                "cannot start",
            ),
        ] {
            let e = eng.add_host(&spec).await.unwrap_err().to_string();
            assert!(e.contains(msg), "{spec:?}: {e}");
        }
        let removed = eng.remove_host("pve-1").await.unwrap();
        assert_eq!(removed.outcome, "deleted");
        assert!(eng.entity("host:pve-1").await.is_err());
    }
}
