//! `approvals` (read together with the command, target and risk of their execution).

use nomos_types::{Approval, ApprovalStatus, Channel};
use serde_json::Value as Json;
use sqlx::sqlite::SqliteRow;
use sqlx::{Row, SqliteConnection, SqlitePool};

use super::{flag, json, parse, parse_opt};
use crate::{Error, Result};

const SELECT: &str = "SELECT a.id, a.execution_id, a.task_id, a.status, a.requires_confirmation,
    a.blast_radius, a.expires_at, a.decided_at, a.decided_by, a.channel, a.grant_message, a.created_at,
    x.target_slug, x.command, x.purpose, x.risk, x.reasons, x.requested_by
  FROM approvals a JOIN executions x ON x.id = a.execution_id";

/// A new request for the operator's decision.
pub(crate) struct NewApproval<'a> {
    pub id: &'a str,
    pub execution_id: &'a str,
    pub task_id: Option<&'a str>,
    /// Destructive: approving needs a typed confirmation naming the target.
    pub requires_confirmation: bool,
    pub blast_radius: &'a Json,
    pub expires_at: &'a str,
}

pub(crate) async fn insert(conn: &mut SqliteConnection, a: &NewApproval<'_>, now: &str) -> Result<()> {
    sqlx::query(
        "INSERT INTO approvals (id, execution_id, task_id, requires_confirmation, blast_radius, expires_at, created_at)
         VALUES (?, ?, ?, ?, ?, ?, ?)",
    )
    .bind(a.id)
    .bind(a.execution_id)
    .bind(a.task_id)
    .bind(i64::from(a.requires_confirmation))
    .bind(a.blast_radius.to_string())
    .bind(a.expires_at)
    .bind(now)
    .execute(conn)
    .await?;
    Ok(())
}

fn from_row(row: &SqliteRow) -> Result<Approval> {
    let requires_confirmation = flag(row, "requires_confirmation")?;
    let target: String = row.try_get("target_slug")?;
    let confirmation = requires_confirmation
        .then(|| crate::policy::confirmation_phrase(&crate::policy::ConfirmTarget::new(target.as_str())));
    Ok(Approval {
        id: row.try_get("id")?,
        execution_id: row.try_get("execution_id")?,
        task_id: row.try_get("task_id")?,
        status: parse(row, "status")?,
        requires_confirmation,
        confirmation,
        target,
        command: row.try_get("command")?,
        purpose: row.try_get("purpose")?,
        requested_by: row.try_get("requested_by")?,
        risk: parse(row, "risk")?,
        reasons: serde_json::from_value(json(row, "reasons")?).unwrap_or_default(),
        blast_radius: json(row, "blast_radius")?,
        expires_at: row.try_get("expires_at")?,
        decided_at: row.try_get("decided_at")?,
        decided_by: row.try_get("decided_by")?,
        channel: parse_opt(row, "channel")?,
        grant_message: row.try_get("grant_message")?,
        created_at: row.try_get("created_at")?,
    })
}

/// An approval by its id or its execution's id.
pub(crate) async fn get(conn: &mut SqliteConnection, id: &str) -> Result<Approval> {
    let row = sqlx::query(&format!("{SELECT} WHERE a.id = ?1 OR a.execution_id = ?1"))
        .bind(id)
        .fetch_optional(conn)
        .await?
        .ok_or_else(|| Error::not_found("approval", id))?;
    from_row(&row)
}

/// Pending approvals, oldest first: all, one task's, or those due (expiring at or before `due`).
pub(crate) async fn pending(
    conn: &mut SqliteConnection,
    task_id: Option<&str>,
    due: Option<&str>,
) -> Result<Vec<Approval>> {
    let rows = sqlx::query(&format!(
        "{SELECT} WHERE a.status = ?1 AND (?2 IS NULL OR a.task_id = ?2) AND (?3 IS NULL OR a.expires_at <= ?3)
          ORDER BY a.created_at"
    ))
    .bind(ApprovalStatus::Pending.as_str())
    .bind(task_id)
    .bind(due)
    .fetch_all(conn)
    .await?;
    rows.iter().map(from_row).collect()
}

/// Pending approvals on a pooled connection.
pub(crate) async fn all_pending(pool: &SqlitePool) -> Result<Vec<Approval>> {
    let mut conn = pool.acquire().await?;
    pending(&mut conn, None, None).await
}

/// A waiting approval raised to a riskier judgement may now need a typed confirmation.
pub(crate) async fn set_requires_confirmation(conn: &mut SqliteConnection, id: &str, requires: bool) -> Result<()> {
    sqlx::query("UPDATE approvals SET requires_confirmation = ? WHERE id = ?")
        .bind(i64::from(requires))
        .bind(id)
        .execute(conn)
        .await?;
    Ok(())
}

/// How a pending approval was decided.
pub(crate) struct Decided<'a> {
    pub status: ApprovalStatus,
    pub by: &'a str,
    pub channel: Channel,
    /// The operator's words, where they are kept.
    pub message: Option<&'a str>,
}

/// Records the decision on a pending approval (a decided one is left as it is).
pub(crate) async fn decide(conn: &mut SqliteConnection, id: &str, d: &Decided<'_>, now: &str) -> Result<()> {
    sqlx::query(
        "UPDATE approvals SET status = ?, decided_at = ?, decided_by = ?, channel = ?, grant_message = ?
          WHERE id = ? AND status = ?",
    )
    .bind(d.status.as_str())
    .bind(now)
    .bind(d.by)
    .bind(d.channel.as_str())
    .bind(d.message)
    .bind(id)
    .bind(ApprovalStatus::Pending.as_str())
    .execute(conn)
    .await?;
    Ok(())
}
