//! `host_keys`: the SSH host key pinned for each host.

use nomos_types::HostKey;
use sqlx::sqlite::SqliteRow;
use sqlx::{Row, SqliteConnection, SqlitePool};

use super::flag;
use crate::actuate::ssh::{same_key, Pinned, SeenKey};
use crate::{Error, Result};

fn from_row(row: &SqliteRow) -> Result<HostKey> {
    Ok(HostKey {
        host: row.try_get("host_slug")?,
        algorithm: row.try_get("algorithm")?,
        fingerprint: row.try_get("fingerprint")?,
        trusted: flag(row, "trusted")?,
        first_seen_at: row.try_get("first_seen_at")?,
        trusted_at: row.try_get("trusted_at")?,
        trusted_by: row.try_get("trusted_by")?,
    })
}

pub(crate) async fn list(pool: &SqlitePool) -> Result<Vec<HostKey>> {
    let rows = sqlx::query("SELECT * FROM host_keys ORDER BY host_slug").fetch_all(pool).await?;
    rows.iter().map(from_row).collect()
}

pub(crate) async fn get(conn: &mut SqliteConnection, host: &str) -> Result<HostKey> {
    let row = sqlx::query("SELECT * FROM host_keys WHERE host_slug = ?")
        .bind(host)
        .fetch_optional(conn)
        .await?
        .ok_or_else(|| Error::not_found("host key", host))?;
    from_row(&row)
}

/// The key pinned for `host`, trusted or only seen.
pub(crate) async fn pinned(pool: &SqlitePool, host: &str) -> Result<Option<Pinned>> {
    let row: Option<(String, i64)> = sqlx::query_as("SELECT public_key, trusted FROM host_keys WHERE host_slug = ?")
        .bind(host)
        .fetch_optional(pool)
        .await?;
    Ok(row.map(|(public_key, trusted)| Pinned { public_key, trusted: trusted != 0 }))
}

/// Whether `seen` is the key pinned (algorithm and key; the comment may differ).
pub(crate) fn is_pinned(pinned: Option<&Pinned>, seen: &SeenKey) -> bool {
    pinned.is_some_and(|p| same_key(&p.public_key, &seen.public_key))
}

/// Forgets the key of `host`, trusted or only seen (the host is removed).
pub(crate) async fn forget(conn: &mut SqliteConnection, host: &str) -> Result<()> {
    sqlx::query("DELETE FROM host_keys WHERE host_slug = ?").bind(host).execute(conn).await?;
    Ok(())
}

/// Pins `seen` as the trusted key of `host`, replacing whatever was pinned.
pub(crate) async fn trust(conn: &mut SqliteConnection, host: &str, seen: &SeenKey, by: &str, now: &str) -> Result<()> {
    sqlx::query(
        "INSERT INTO host_keys (host_slug, algorithm, fingerprint, public_key, trusted, first_seen_at, trusted_at, trusted_by)
         VALUES (?1, ?2, ?3, ?4, 1, ?5, ?5, ?6)
         ON CONFLICT (host_slug) DO UPDATE SET algorithm = excluded.algorithm, fingerprint = excluded.fingerprint,
            public_key = excluded.public_key, trusted = 1, trusted_at = excluded.trusted_at,
            trusted_by = excluded.trusted_by",
    )
    .bind(host)
    .bind(&seen.algorithm)
    .bind(&seen.fingerprint)
    .bind(&seen.public_key)
    .bind(now)
    .bind(by)
    .execute(conn)
    .await?;
    Ok(())
}

/// Keeps a key `host` presented: pinned untrusted if nothing is pinned yet; with `refresh`, an
/// untrusted pin takes the key shown now. A trusted pin is never touched.
pub(crate) async fn record_seen(
    conn: &mut SqliteConnection,
    host: &str,
    seen: &SeenKey,
    refresh: bool,
    now: &str,
) -> Result<()> {
    sqlx::query(
        "INSERT INTO host_keys (host_slug, algorithm, fingerprint, public_key, trusted, first_seen_at)
         VALUES (?, ?, ?, ?, 0, ?) ON CONFLICT (host_slug) DO NOTHING",
    )
    .bind(host)
    .bind(&seen.algorithm)
    .bind(&seen.fingerprint)
    .bind(&seen.public_key)
    .bind(now)
    .execute(&mut *conn)
    .await?;
    if refresh {
        sqlx::query(
            "UPDATE host_keys SET algorithm = ?, fingerprint = ?, public_key = ? WHERE host_slug = ? AND trusted = 0",
        )
        .bind(&seen.algorithm)
        .bind(&seen.fingerprint)
        .bind(&seen.public_key)
        .bind(host)
        .execute(conn)
        .await?;
    }
    Ok(())
}
