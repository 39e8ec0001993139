//! Rows of the gate's tables as wire types, and the audit ledger's one writer.

use nomos_types::{Approval, AutonomyWindow, Execution, HostKey};
use serde_json::Value as Json;
use sqlx::sqlite::SqliteRow;
use sqlx::{Row, SqliteConnection};

use crate::{Error, Result};

pub(super) const EXECUTION_COLUMNS: &str = "x.id, x.task_id, x.target_slug, x.action, x.params, x.command, x.purpose,
    x.declared_risk, x.risk, x.reasons, x.status, x.requested_by, x.granted_by, x.exit_code, x.stdout, x.stderr,
    x.output_truncated, x.error, x.created_at, x.started_at, x.finished_at, x.duration_ms";

fn parse<T: std::str::FromStr>(row: &SqliteRow, col: &str) -> Result<T>
where
    T::Err: std::fmt::Display,
{
    let s: String = row.try_get(col)?;
    s.parse::<T>().map_err(|e| Error::Invalid(format!("{col}: {e}")))
}

fn parse_opt<T: std::str::FromStr>(row: &SqliteRow, col: &str) -> Result<Option<T>>
where
    T::Err: std::fmt::Display,
{
    let s: Option<String> = row.try_get(col)?;
    s.map(|s| s.parse::<T>().map_err(|e| Error::Invalid(format!("{col}: {e}")))).transpose()
}

fn json(row: &SqliteRow, col: &str) -> Result<Json> {
    let s: String = row.try_get(col)?;
    serde_json::from_str(&s).map_err(|e| Error::Invalid(format!("{col}: {e}")))
}

fn text(bytes: Option<Vec<u8>>) -> String {
    bytes.map(|b| String::from_utf8_lossy(&b).into_owned()).unwrap_or_default()
}

pub(super) fn execution_from_row(row: &SqliteRow) -> Result<Execution> {
    let reasons: Vec<String> = serde_json::from_value(json(row, "reasons")?).unwrap_or_default();
    let truncated: i64 = row.try_get("output_truncated")?;
    Ok(Execution {
        id: row.try_get("id")?,
        task_id: row.try_get("task_id")?,
        target: row.try_get("target_slug")?,
        action: row.try_get("action")?,
        params: json(row, "params")?,
        command: row.try_get("command")?,
        purpose: row.try_get("purpose")?,
        declared_risk: parse_opt(row, "declared_risk")?,
        risk: parse(row, "risk")?,
        reasons,
        status: parse(row, "status")?,
        requested_by: row.try_get("requested_by")?,
        granted_by: row.try_get("granted_by")?,
        exit_code: row.try_get("exit_code")?,
        stdout: text(row.try_get("stdout")?),
        stderr: text(row.try_get("stderr")?),
        output_truncated: truncated != 0,
        error: row.try_get("error")?,
        created_at: row.try_get("created_at")?,
        started_at: row.try_get("started_at")?,
        finished_at: row.try_get("finished_at")?,
        duration_ms: row.try_get("duration_ms")?,
    })
}

pub(super) async fn execution_in(conn: &mut SqliteConnection, id: &str) -> Result<Execution> {
    let row = sqlx::query(&format!("SELECT {EXECUTION_COLUMNS} FROM executions x WHERE x.id = ?"))
        .bind(id)
        .fetch_optional(conn)
        .await?
        .ok_or_else(|| Error::not_found("execution", id))?;
    execution_from_row(&row)
}

/// The exact output bytes of an execution (the wire type carries them as text).
pub(super) async fn output_bytes(conn: &mut SqliteConnection, id: &str) -> Result<(Vec<u8>, Vec<u8>)> {
    let row = sqlx::query("SELECT stdout, stderr FROM executions WHERE id = ?")
        .bind(id)
        .fetch_optional(conn)
        .await?
        .ok_or_else(|| Error::not_found("execution", id))?;
    let out: Option<Vec<u8>> = row.try_get("stdout")?;
    let err: Option<Vec<u8>> = row.try_get("stderr")?;
    Ok((out.unwrap_or_default(), err.unwrap_or_default()))
}

pub(super) const APPROVAL_SELECT: &str = "SELECT a.id, a.execution_id, a.task_id, a.status, a.requires_confirmation,
    a.blast_radius, a.expires_at, a.decided_at, a.decided_by, a.channel, a.grant_message, a.created_at,
    x.target_slug, x.command, x.purpose, x.risk, x.reasons
  FROM approvals a JOIN executions x ON x.id = a.execution_id";

pub(super) fn approval_from_row(row: &SqliteRow) -> Result<Approval> {
    let confirm: i64 = row.try_get("requires_confirmation")?;
    Ok(Approval {
        id: row.try_get("id")?,
        execution_id: row.try_get("execution_id")?,
        task_id: row.try_get("task_id")?,
        status: parse(row, "status")?,
        requires_confirmation: confirm != 0,
        target: row.try_get("target_slug")?,
        command: row.try_get("command")?,
        purpose: row.try_get("purpose")?,
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

pub(super) async fn approval_in(conn: &mut SqliteConnection, id: &str) -> Result<Approval> {
    let row = sqlx::query(&format!("{APPROVAL_SELECT} WHERE a.id = ?1 OR a.execution_id = ?1"))
        .bind(id)
        .fetch_optional(conn)
        .await?
        .ok_or_else(|| Error::not_found("approval", id))?;
    approval_from_row(&row)
}

pub(super) const WINDOW_COLUMNS: &str =
    "id, kind, task_id, target_slug, approval_id, opened_by, channel, opened_at, expires_at, revoked_at";

pub(super) fn window_from_row(row: &SqliteRow) -> Result<AutonomyWindow> {
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

pub(super) fn host_key_from_row(row: &SqliteRow) -> Result<HostKey> {
    let trusted: i64 = row.try_get("trusted")?;
    Ok(HostKey {
        host: row.try_get("host_slug")?,
        algorithm: row.try_get("algorithm")?,
        fingerprint: row.try_get("fingerprint")?,
        trusted: trusted != 0,
        first_seen_at: row.try_get("first_seen_at")?,
        trusted_at: row.try_get("trusted_at")?,
        trusted_by: row.try_get("trusted_by")?,
    })
}

/// One line of the audit ledger.
pub(super) struct Audit<'a> {
    pub at: &'a str,
    pub actor_type: &'a str,
    pub actor: &'a str,
    pub channel: Option<&'a str>,
    pub action: &'a str,
    pub entity: Option<&'a str>,
    pub task: Option<&'a str>,
    pub execution: Option<&'a str>,
    pub detail: Json,
}

impl Audit<'_> {
    pub(super) async fn write(self, conn: &mut SqliteConnection) -> Result<()> {
        sqlx::query(
            "INSERT INTO audit_log (at, actor_type, actor, channel, action, entity_slug, task_id, execution_id, detail)
             VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
        )
        .bind(self.at)
        .bind(self.actor_type)
        .bind(self.actor)
        .bind(self.channel)
        .bind(self.action)
        .bind(self.entity)
        .bind(self.task)
        .bind(self.execution)
        .bind(self.detail.to_string())
        .execute(conn)
        .await?;
        Ok(())
    }
}

/// `operator`, `agent` or `system`, from who asked (`agent:nomos`, `operator:cli`, `system:…`).
pub(super) fn actor_type(who: &str) -> &'static str {
    match who.split(':').next().unwrap_or("") {
        "agent" => "agent",
        "system" => "system",
        _ => "operator",
    }
}
