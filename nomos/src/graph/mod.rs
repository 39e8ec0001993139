//! The knowledge graph: typed entities, temporal relationships, blast radius and explain.
//!
//! Slugs are `<type>:<name>` (`host:strong`, `lxc:caddy`); the name part is lowercase letters,
//! digits, `.`, `_` and `-`. Entities are addressed by slug or id everywhere.

pub mod blast;
pub mod entities;
pub(crate) mod impact;
pub mod ontology;
pub mod relations;

use nomos_types::{Entity, EntityStatus, Freshness, Health, Json};
use sqlx::sqlite::SqliteRow;
use sqlx::{Row, SqliteConnection};

use crate::clock::format_ms;
use crate::{Error, Result};

const MAX_SLUG_NAME: usize = 200;

/// Turns a display name into the name part of a slug: "Home Assistant" → "home-assistant".
pub fn slugify(name: &str) -> String {
    let mut out = String::with_capacity(name.len());
    for c in name.trim().chars().flat_map(char::to_lowercase) {
        let keep = c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-');
        let c = if keep { c } else { '-' };
        if c == '-' && (out.is_empty() || out.ends_with('-')) {
            continue;
        }
        out.push(c);
    }
    out.truncate(MAX_SLUG_NAME);
    // A slug name starts and ends with a letter or digit ("... and more" → "and-more").
    out.trim_matches(|c: char| !c.is_ascii_alphanumeric()).to_string()
}

/// Checks that `slug` is `<entity_type>:<name>` with a well-formed name.
pub fn check_slug(slug: &str, entity_type: &str) -> Result<()> {
    let Some((prefix, name)) = slug.split_once(':') else {
        return Err(Error::Invalid(format!("slug `{slug}` must look like `{entity_type}:<name>`")));
    };
    if prefix != entity_type {
        return Err(Error::Invalid(format!("slug `{slug}` must start with its type: `{entity_type}:`")));
    }
    let ok = !name.is_empty()
        && name.len() <= MAX_SLUG_NAME
        && name.as_bytes()[0].is_ascii_alphanumeric()
        && name.bytes().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || matches!(b, b'.' | b'_' | b'-'));
    if !ok {
        return Err(Error::Invalid(format!(
            "slug `{slug}`: the name after `:` must be 1–{MAX_SLUG_NAME} lowercase letters, digits, '.', '_' or '-', starting with a letter or digit"
        )));
    }
    Ok(())
}

pub(crate) fn new_id() -> String {
    uuid::Uuid::new_v4().to_string()
}

/// Columns selected for an [`Entity`] from `entities e`.
pub(crate) const ENTITY_COLUMNS: &str =
    "e.id, e.slug, e.type, e.name, e.attributes, e.state, e.created_at, e.updated_at";

/// Columns selected for an [`EntityStatus`] from `LEFT JOIN entity_status s`.
pub(crate) const STATUS_COLUMNS: &str = "ifnull(s.health, 'unknown') AS health, s.last_check_at, \
     ifnull(s.detail, '') AS status_detail, s.stale_after_s";

pub(crate) fn entity_from_row(row: &SqliteRow) -> Result<Entity> {
    let attributes: String = row.try_get("attributes")?;
    let state: String = row.try_get("state")?;
    Ok(Entity {
        id: row.try_get("id")?,
        slug: row.try_get("slug")?,
        entity_type: row.try_get("type")?,
        name: row.try_get("name")?,
        attributes: serde_json::from_str(&attributes)
            .map_err(|e| Error::Invalid(format!("stored attributes are not JSON: {e}")))?,
        state: state.parse().map_err(|e| Error::Invalid(format!("{e}")))?,
        created_at: row.try_get("created_at")?,
        updated_at: row.try_get("updated_at")?,
    })
}

/// An entity's status as of `now_ms` on the engine's clock: a reading older than its
/// `stale_after_s` is stale.
pub(crate) fn status_from_row(row: &SqliteRow, now_ms: i64) -> Result<EntityStatus> {
    let health: String = row.try_get("health")?;
    let last_check_at: Option<String> = row.try_get("last_check_at")?;
    let stale_after_s: Option<i64> = row.try_get("stale_after_s")?;
    let freshness = match (&last_check_at, stale_after_s) {
        (None, _) => Freshness::Never,
        (Some(at), Some(secs)) if *at < format_ms(now_ms.saturating_sub(secs.saturating_mul(1000))) => Freshness::Stale,
        (Some(_), _) => Freshness::Fresh,
    };
    Ok(EntityStatus {
        health: health.parse::<Health>().map_err(|e| Error::Invalid(e.to_string()))?,
        freshness,
        last_check_at,
        detail: row.try_get("status_detail")?,
    })
}

/// Finds an entity by slug or id inside a transaction or on a pooled connection.
pub(crate) async fn find_entity(conn: &mut SqliteConnection, key: &str) -> Result<Option<Entity>> {
    let sql = format!("SELECT {ENTITY_COLUMNS} FROM entities e WHERE e.slug = ?1 OR e.id = ?1");
    let row = sqlx::query(&sql).bind(key).fetch_optional(conn).await?;
    row.as_ref().map(entity_from_row).transpose()
}

pub(crate) async fn require_entity(conn: &mut SqliteConnection, key: &str) -> Result<Entity> {
    find_entity(conn, key).await?.ok_or_else(|| Error::not_found("entity", key))
}

/// Shallow JSON merge: keys of `patch` replace those of `base`; a `null` value removes the key.
pub fn merge_object(base: &Json, patch: &Json) -> Result<Json> {
    let Json::Object(patch) = patch else {
        return Err(Error::Invalid("attributes must be a JSON object".into()));
    };
    let mut merged = match base {
        Json::Object(m) => m.clone(),
        _ => Default::default(),
    };
    for (k, v) in patch {
        if v.is_null() {
            merged.remove(k);
        } else {
            merged.insert(k.clone(), v.clone());
        }
    }
    Ok(Json::Object(merged))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn slugify_makes_slug_names() {
        assert_eq!(slugify("Home Assistant"), "home-assistant");
        assert_eq!(slugify("  caddy  "), "caddy");
        assert_eq!(slugify("git.home.arpa"), "git.home.arpa");
        assert_eq!(slugify("Docker on Debian 13 (trixie)!"), "docker-on-debian-13-trixie");
        assert_eq!(slugify("***"), "");
        assert_eq!(slugify("... and more"), "and-more");
        assert_eq!(slugify("_internal_"), "internal");
        assert_eq!(slugify("Küche"), "k-che");
        let long = slugify(&format!("{}-x", "a".repeat(MAX_SLUG_NAME - 1)));
        assert!(check_slug(&format!("host:{long}"), "host").is_ok(), "{long}");
        for name in ["... and more", "_x", "a--b", "-.-v1.2-.-"] {
            assert!(check_slug(&format!("host:{}", slugify(name)), "host").is_ok(), "{name}");
        }
    }

    #[test]
    fn slugs_must_carry_their_type() {
        assert!(check_slug("host:strong", "host").is_ok());
        assert!(check_slug("dns-record:git.home.arpa", "dns-record").is_ok());
        assert!(check_slug("lxc:strong", "host").unwrap_err().to_string().contains("must start with its type"));
        assert!(check_slug("strong", "host").is_err());
        assert!(check_slug("host:Strong", "host").is_err());
        assert!(check_slug("host:", "host").is_err());
        assert!(check_slug("host:-x", "host").is_err());
    }

    #[test]
    fn merge_is_shallow_and_null_removes() {
        let base = json!({"a": 1, "b": {"x": 1}, "c": 3});
        let merged = merge_object(&base, &json!({"b": {"y": 2}, "c": null, "d": 4})).unwrap();
        assert_eq!(merged, json!({"a": 1, "b": {"y": 2}, "d": 4}));
        assert!(merge_object(&base, &json!([1])).is_err());
    }
}
