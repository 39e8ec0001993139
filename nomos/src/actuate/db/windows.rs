//! `autonomy_windows`.

use nomos_types::{AutonomyWindow, Channel, WindowKind};
use sqlx::sqlite::SqliteRow;
use sqlx::{Row, SqliteConnection, SqlitePool};

use super::parse;
use crate::Result;

const COLUMNS: &str =
    "id, kind, task_id, target_slug, approval_id, opened_by, channel, opened_at, expires_at, revoked_at";

/// A window about to open.
pub(crate) struct NewWindow<'a> {
    pub id: &'a str,
    pub kind: WindowKind,
    pub task_id: &'a str,
    /// The one target of a destructive window.
    pub target: Option<&'a str>,
    /// The approval that opened it, if one did.
    pub approval_id: Option<&'a str>,
    pub opened_by: &'a str,
    pub channel: Channel,
    pub expires_at: &'a str,
}

pub(crate) async fn insert(conn: &mut SqliteConnection, w: &NewWindow<'_>, now: &str) -> Result<()> {
    sqlx::query(
        "INSERT INTO autonomy_windows (id, kind, task_id, target_slug, approval_id, opened_by, channel, opened_at, expires_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
    )
    .bind(w.id)
    .bind(w.kind.as_str())
    .bind(w.task_id)
    .bind(w.target)
    .bind(w.approval_id)
    .bind(w.opened_by)
    .bind(w.channel.as_str())
    .bind(now)
    .bind(w.expires_at)
    .execute(conn)
    .await?;
    Ok(())
}

fn from_row(row: &SqliteRow) -> Result<AutonomyWindow> {
    Ok(AutonomyWindow {
        id: row.try_get("id")?,
        kind: parse(row, "kind")?,
        task_id: row.try_get("task_id")?,
        target: row.try_get("target_slug")?,
        approval_id: row.try_get("approval_id")?,
        opened_by: row.try_get("opened_by")?,
        channel: parse(row, "channel")?,
        opened_at: row.try_get("opened_at")?,
        expires_at: row.try_get("expires_at")?,
        revoked_at: row.try_get("revoked_at")?,
    })
}

pub(crate) async fn get(conn: &mut SqliteConnection, id: &str) -> Result<AutonomyWindow> {
    let row =
        sqlx::query(&format!("SELECT {COLUMNS} FROM autonomy_windows WHERE id = ?")).bind(id).fetch_one(conn).await?;
    from_row(&row)
}

/// Windows open at `now`.
pub(crate) async fn open_at(pool: &SqlitePool, now: &str) -> Result<Vec<AutonomyWindow>> {
    let rows = sqlx::query(&format!(
        "SELECT {COLUMNS} FROM autonomy_windows WHERE revoked_at IS NULL AND expires_at > ? ORDER BY opened_at"
    ))
    .bind(now)
    .fetch_all(pool)
    .await?;
    rows.iter().map(from_row).collect()
}

/// The open window of `kind` for `task` (on `target`, when given) that lasts longest, if any.
pub(crate) async fn covering(
    conn: &mut SqliteConnection,
    task_id: &str,
    kind: WindowKind,
    target: Option<&str>,
    now: &str,
) -> Result<Option<String>> {
    Ok(sqlx::query_scalar(
        "SELECT id FROM autonomy_windows WHERE task_id = ?1 AND kind = ?2 AND (?3 IS NULL OR target_slug = ?3)
           AND revoked_at IS NULL AND opened_at <= ?4 AND expires_at > ?4 ORDER BY expires_at DESC LIMIT 1",
    )
    .bind(task_id)
    .bind(kind.as_str())
    .bind(target)
    .bind(now)
    .fetch_optional(conn)
    .await?)
}

/// Ids of the windows open at `now`: all, or one task's.
pub(crate) async fn open_ids(conn: &mut SqliteConnection, task_id: Option<&str>, now: &str) -> Result<Vec<String>> {
    Ok(sqlx::query_scalar(
        "SELECT id FROM autonomy_windows WHERE revoked_at IS NULL AND expires_at > ?1 AND (?2 IS NULL OR task_id = ?2)",
    )
    .bind(now)
    .bind(task_id)
    .fetch_all(conn)
    .await?)
}

pub(crate) async fn revoke(conn: &mut SqliteConnection, id: &str, now: &str) -> Result<()> {
    sqlx::query("UPDATE autonomy_windows SET revoked_at = ? WHERE id = ?").bind(now).bind(id).execute(conn).await?;
    Ok(())
}
