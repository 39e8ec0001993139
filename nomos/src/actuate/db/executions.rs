//! `executions` (and `task_executions`, which links the executions that outlive the tool call
//! that asked for them — queued or in the background — to their task).

use nomos_types::ExecutionStatus::{Failed, PendingApproval, Running};
use nomos_types::{Execution, ExecutionQuery, ExecutionStatus, Risk};
use serde_json::Value as Json;
use sqlx::sqlite::SqliteRow;
use sqlx::{Row, SqliteConnection, SqlitePool};

use super::{flag, json, parse, parse_opt};
use crate::actuate::target::Target;
use crate::{Error, Result};

const COLUMNS: &str = "x.id, x.task_id, x.target_slug, x.action, x.params, x.command, x.purpose,
    x.declared_risk, x.risk, x.reasons, x.status, x.requested_by, x.granted_by, x.exit_code, x.stdout, x.stderr,
    x.output_truncated, x.error, x.created_at, x.started_at, x.finished_at, x.duration_ms";

/// How the error of an execution taken for interrupted begins; its real outcome, should it still
/// arrive, replaces that guess.
pub(crate) const INTERRUPTED: &str = "interrupted:";

/// A new execution row.
pub(crate) struct NewExecution<'a> {
    pub id: &'a str,
    pub task_id: Option<&'a str>,
    /// Where it runs; the place is recorded with it (see [`AskedPlace`]).
    pub target: &'a Target,
    /// `run`, or the curated action's name.
    pub action: &'a str,
    pub params: &'a Json,
    pub command: &'a str,
    pub purpose: &'a str,
    pub declared_risk: Option<Risk>,
    pub risk: Risk,
    pub reasons: &'a [String],
    /// Waiting for approval, or running at once.
    pub status: ExecutionStatus,
    pub requested_by: &'a str,
    pub granted_by: Option<&'a str>,
}

pub(crate) async fn insert(conn: &mut SqliteConnection, x: &NewExecution<'_>, now: &str) -> Result<()> {
    let started = (x.status == Running).then_some(now);
    sqlx::query(
        "INSERT INTO executions (id, task_id, target_slug, target_id, action, params, command, purpose, declared_risk,
                                 risk, reasons, status, requested_by, granted_by, created_at, started_at, heartbeat_at,
                                 target_host, target_pve_id)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
    )
    .bind(x.id)
    .bind(x.task_id)
    .bind(x.target.slug())
    .bind(&x.target.entity.id)
    .bind(x.action)
    .bind(x.params.to_string())
    .bind(x.command)
    .bind(x.purpose)
    .bind(x.declared_risk.map(Risk::as_str))
    .bind(x.risk.as_str())
    .bind(reasons_json(x.reasons))
    .bind(x.status.as_str())
    .bind(x.requested_by)
    .bind(x.granted_by)
    .bind(now)
    .bind(started)
    .bind(started)
    .bind(&x.target.host.slug)
    .bind(pve_id(x.target))
    .execute(conn)
    .await?;
    Ok(())
}

fn reasons_json(reasons: &[String]) -> String {
    serde_json::to_string(reasons).unwrap_or_else(|_| "[]".into())
}

/// A target's Proxmox id as stored.
fn pve_id(target: &Target) -> Option<i64> {
    target.pve_id.and_then(|p| i64::try_from(p).ok())
}

fn text(bytes: Option<Vec<u8>>) -> String {
    bytes.map(|b| String::from_utf8_lossy(&b).into_owned()).unwrap_or_default()
}

fn from_row(row: &SqliteRow) -> Result<Execution> {
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
        reasons: serde_json::from_value(json(row, "reasons")?).unwrap_or_default(),
        status: parse(row, "status")?,
        requested_by: row.try_get("requested_by")?,
        granted_by: row.try_get("granted_by")?,
        exit_code: row.try_get("exit_code")?,
        stdout: text(row.try_get("stdout")?),
        stderr: text(row.try_get("stderr")?),
        output_truncated: flag(row, "output_truncated")?,
        error: row.try_get("error")?,
        created_at: row.try_get("created_at")?,
        started_at: row.try_get("started_at")?,
        finished_at: row.try_get("finished_at")?,
        duration_ms: row.try_get("duration_ms")?,
    })
}

pub(crate) async fn get(conn: &mut SqliteConnection, id: &str) -> Result<Execution> {
    let row = sqlx::query(&format!("SELECT {COLUMNS} FROM executions x WHERE x.id = ?"))
        .bind(id)
        .fetch_optional(conn)
        .await?
        .ok_or_else(|| Error::not_found("execution", id))?;
    from_row(&row)
}

/// Executions matching the query, newest first (at most 500 at once; 50 by default).
pub(crate) async fn list(pool: &SqlitePool, query: &ExecutionQuery) -> Result<Vec<Execution>> {
    let rows = sqlx::query(&format!(
        "SELECT {COLUMNS} FROM executions x
          WHERE (?1 IS NULL OR x.task_id = ?1) AND (?2 IS NULL OR x.status = ?2)
            AND (?3 IS NULL OR x.target_slug = ?3)
          ORDER BY x.created_at DESC, x.id LIMIT ?4"
    ))
    .bind(query.task_id.as_deref())
    .bind(query.status.map(ExecutionStatus::as_str))
    .bind(query.target.as_deref())
    .bind(i64::from(query.limit.unwrap_or(50).min(500)))
    .fetch_all(pool)
    .await?;
    rows.iter().map(from_row).collect()
}

/// The exact output bytes of an execution (the wire type carries them as text).
pub(crate) async fn output(conn: &mut SqliteConnection, id: &str) -> Result<(Vec<u8>, Vec<u8>)> {
    let row = sqlx::query("SELECT stdout, stderr FROM executions WHERE id = ?")
        .bind(id)
        .fetch_optional(conn)
        .await?
        .ok_or_else(|| Error::not_found("execution", id))?;
    let out: Option<Vec<u8>> = row.try_get("stdout")?;
    let err: Option<Vec<u8>> = row.try_get("stderr")?;
    Ok((out.unwrap_or_default(), err.unwrap_or_default()))
}

pub(crate) async fn command(pool: &SqlitePool, id: &str) -> Result<String> {
    Ok(sqlx::query_scalar("SELECT command FROM executions WHERE id = ?").bind(id).fetch_one(pool).await?)
}

/// Where a request was asked to run, as recorded with it: an approval or a window applies to
/// that place only.
pub(crate) struct AskedPlace {
    pub entity_id: Option<String>,
    pub host: Option<String>,
    pub pve_id: Option<i64>,
}

impl AskedPlace {
    pub(crate) async fn of(conn: &mut SqliteConnection, execution_id: &str) -> Result<AskedPlace> {
        let (entity_id, host, pve_id) =
            sqlx::query_as("SELECT target_id, target_host, target_pve_id FROM executions WHERE id = ?")
                .bind(execution_id)
                .fetch_one(conn)
                .await?;
        Ok(AskedPlace { entity_id, host, pve_id })
    }

    /// Whether `target`, resolved now, is still that place.
    pub(crate) fn is(&self, target: &Target) -> bool {
        self.entity_id.as_deref() == Some(target.entity.id.as_str())
            && self.host.as_deref() == Some(target.host.slug.as_str())
            && self.pve_id == pve_id(target)
    }

    /// "host as pve id", for a message.
    pub(crate) fn describe(&self) -> String {
        format!("on {} as {}", self.host.as_deref().unwrap_or("?"), self.pve_id.map_or("-".into(), |p| p.to_string()))
    }

    /// The same for a target resolved now.
    pub(crate) fn describe_target(target: &Target) -> String {
        format!("on {} as {}", target.host.slug, pve_id(target).map_or("-".into(), |p| p.to_string()))
    }
}

/// The same request (task, target, command, action) in `status`: the newest running one, or the
/// one waiting (there is at most one).
pub(crate) async fn same_request(
    conn: &mut SqliteConnection,
    status: ExecutionStatus,
    task_id: Option<&str>,
    target: &str,
    command: &str,
    action: &str,
) -> Result<Option<String>> {
    Ok(sqlx::query_scalar(
        "SELECT id FROM executions WHERE ifnull(task_id, '') = ifnull(?, '') AND target_slug = ? AND command = ?
           AND action = ? AND status = ? ORDER BY started_at DESC LIMIT 1",
    )
    .bind(task_id)
    .bind(target)
    .bind(command)
    .bind(action)
    .bind(status.as_str())
    .fetch_optional(conn)
    .await?)
}

/// A waiting request asked again as riskier takes the new judgement.
pub(crate) async fn raise(
    conn: &mut SqliteConnection,
    id: &str,
    risk: Risk,
    reasons: &[String],
    declared: Option<Risk>,
) -> Result<()> {
    sqlx::query("UPDATE executions SET risk = ?, reasons = ?, declared_risk = ? WHERE id = ?")
        .bind(risk.as_str())
        .bind(reasons_json(reasons))
        .bind(declared.map(Risk::as_str))
        .bind(id)
        .execute(conn)
        .await?;
    Ok(())
}

/// Starts a waiting execution under `granted_by` (an approval, or a window that now covers it,
/// with the judgement it was asked with this time). Returns whether it was still waiting.
pub(crate) async fn start_waiting(
    conn: &mut SqliteConnection,
    id: &str,
    granted_by: &str,
    rejudged: Option<(Risk, &[String])>,
    now: &str,
) -> Result<bool> {
    let updated = sqlx::query(
        "UPDATE executions SET status = ?1, granted_by = ?2, started_at = ?3, heartbeat_at = ?3,
                risk = ifnull(?4, risk), reasons = ifnull(?5, reasons)
          WHERE id = ?6 AND status = ?7",
    )
    .bind(Running.as_str())
    .bind(granted_by)
    .bind(now)
    .bind(rejudged.map(|(risk, _)| risk.as_str()))
    .bind(rejudged.map(|(_, reasons)| reasons_json(reasons)))
    .bind(id)
    .bind(PendingApproval.as_str())
    .execute(conn)
    .await?;
    Ok(updated.rows_affected() == 1)
}

/// Ends an execution that is still `from` without a command's outcome: a waiting one with its
/// approval (denied, expired, cancelled), a running one that was interrupted or cancelled from
/// another process. Returns whether it was still `from`.
pub(crate) async fn end_from(
    conn: &mut SqliteConnection,
    id: &str,
    from: ExecutionStatus,
    status: ExecutionStatus,
    error: Option<&str>,
    now: &str,
) -> Result<bool> {
    let updated =
        sqlx::query("UPDATE executions SET status = ?, error = ?, finished_at = ? WHERE id = ? AND status = ?")
            .bind(status.as_str())
            .bind(error)
            .bind(now)
            .bind(id)
            .bind(from.as_str())
            .execute(conn)
            .await?;
    Ok(updated.rows_affected() == 1)
}

/// A running execution whose process stopped giving signs of life.
pub(crate) struct Stale {
    pub id: String,
    pub target: String,
    pub task_id: Option<String>,
    pub heartbeat_at: Option<String>,
    pub action: String,
}

/// Running executions without a heartbeat (or a start) since `cutoff`.
pub(crate) async fn stale(conn: &mut SqliteConnection, cutoff: &str) -> Result<Vec<Stale>> {
    let rows = sqlx::query(
        "SELECT id, target_slug, task_id, heartbeat_at, action FROM executions
          WHERE status = ? AND ifnull(heartbeat_at, started_at) < ?",
    )
    .bind(Running.as_str())
    .bind(cutoff)
    .fetch_all(conn)
    .await?;
    rows.iter()
        .map(|r| {
            Ok(Stale {
                id: r.try_get("id")?,
                target: r.try_get("target_slug")?,
                task_id: r.try_get("task_id")?,
                heartbeat_at: r.try_get("heartbeat_at")?,
                action: r.try_get("action")?,
            })
        })
        .collect()
}

/// How a command ended, as recorded.
pub(crate) struct Finished {
    pub status: ExecutionStatus,
    pub exit_code: Option<i64>,
    pub stdout: Vec<u8>,
    pub stderr: Vec<u8>,
    pub truncated: bool,
    pub error: Option<String>,
    pub duration_ms: Option<i64>,
}

/// Records a command's end. Another process may have taken it for interrupted meanwhile (this
/// one was asleep): the real outcome replaces that guess. Returns whether it was recorded.
pub(crate) async fn finish(conn: &mut SqliteConnection, id: &str, f: &Finished, now: &str) -> Result<bool> {
    let updated = sqlx::query(
        "UPDATE executions SET status = ?, exit_code = ?, stdout = ?, stderr = ?, output_truncated = ?, error = ?,
                finished_at = ?, duration_ms = ?
          WHERE id = ? AND (status = ? OR (status = ? AND error LIKE ? || '%'))",
    )
    .bind(f.status.as_str())
    .bind(f.exit_code)
    .bind(&f.stdout)
    .bind(&f.stderr)
    .bind(i64::from(f.truncated))
    .bind(&f.error)
    .bind(now)
    .bind(f.duration_ms)
    .bind(id)
    .bind(Running.as_str())
    .bind(Failed.as_str())
    .bind(INTERRUPTED)
    .execute(conn)
    .await?;
    Ok(updated.rows_affected() == 1)
}

/// Tells other processes the execution is still in hand.
pub(crate) async fn heartbeat(pool: &SqlitePool, id: &str, now: &str) -> Result<()> {
    sqlx::query("UPDATE executions SET heartbeat_at = ? WHERE id = ? AND status = ?")
        .bind(now)
        .bind(id)
        .bind(Running.as_str())
        .execute(pool)
        .await?;
    Ok(())
}

/// Asks whichever process runs the execution to stop it. Returns whether it was still running.
pub(crate) async fn request_cancel(conn: &mut SqliteConnection, id: &str, now: &str) -> Result<bool> {
    let updated = sqlx::query("UPDATE executions SET cancel_requested_at = ? WHERE id = ? AND status = ?")
        .bind(now)
        .bind(id)
        .bind(Running.as_str())
        .execute(conn)
        .await?;
    Ok(updated.rows_affected() == 1)
}

/// Whether another process asked to stop the execution.
pub(crate) async fn cancel_requested(pool: &SqlitePool, id: &str) -> Result<bool> {
    let asked: Option<String> =
        sqlx::query_scalar("SELECT cancel_requested_at FROM executions WHERE id = ?").bind(id).fetch_one(pool).await?;
    Ok(asked.is_some())
}

/// Records the line that kills what the execution left behind on its host.
pub(crate) async fn set_kill_line(pool: &SqlitePool, id: &str, kill: &str) -> Result<()> {
    sqlx::query("UPDATE executions SET kill_line = ? WHERE id = ?").bind(kill).bind(id).execute(pool).await?;
    Ok(())
}

/// The kill line of an execution that is still running (empty if it has none yet); `None` when
/// it is no longer running.
pub(crate) async fn kill_line_if_running(pool: &SqlitePool, id: &str) -> Result<Option<String>> {
    let row: Option<Option<String>> =
        sqlx::query_scalar("SELECT kill_line FROM executions WHERE id = ? AND status = ?")
            .bind(id)
            .bind(Running.as_str())
            .fetch_optional(pool)
            .await?;
    Ok(row.map(Option::unwrap_or_default))
}

/// Links an execution that outlives its tool call (queued for the operator, or run in the
/// background) to its task, so the task can resume when it ends.
pub(crate) async fn link_task(conn: &mut SqliteConnection, id: &str, task_id: &str, now: &str) -> Result<()> {
    sqlx::query("INSERT OR IGNORE INTO task_executions (execution_id, task_id, created_at) VALUES (?, ?, ?)")
        .bind(id)
        .bind(task_id)
        .bind(now)
        .execute(conn)
        .await?;
    Ok(())
}

/// The links whose execution has ended and whose task was not continued for it yet (of one task,
/// or all), oldest first: (execution, task).
pub(crate) async fn ended_links(conn: &mut SqliteConnection, task_id: Option<&str>) -> Result<Vec<(String, String)>> {
    let ended: Vec<&str> = ExecutionStatus::ALL.iter().filter(|s| s.is_final()).map(|s| s.as_str()).collect();
    Ok(sqlx::query_as(
        "SELECT l.execution_id, l.task_id FROM task_executions l JOIN executions x ON x.id = l.execution_id
          WHERE l.continued_at IS NULL AND x.status IN (SELECT value FROM json_each(?2))
            AND (?1 IS NULL OR l.task_id = ?1)
          ORDER BY l.created_at, l.execution_id",
    )
    .bind(task_id)
    .bind(Json::from(ended).to_string())
    .fetch_all(conn)
    .await?)
}

/// Claims a link for continuing its task: true for exactly one caller, across processes.
pub(crate) async fn claim_link(conn: &mut SqliteConnection, id: &str, now: &str) -> Result<bool> {
    let updated =
        sqlx::query("UPDATE task_executions SET continued_at = ? WHERE execution_id = ? AND continued_at IS NULL")
            .bind(now)
            .bind(id)
            .execute(conn)
            .await?;
    Ok(updated.rows_affected() == 1)
}

/// Gives a claimed link back: its task is to continue when the execution ends after all.
pub(crate) async fn unclaim_link(conn: &mut SqliteConnection, id: &str) -> Result<()> {
    sqlx::query("UPDATE task_executions SET continued_at = NULL WHERE execution_id = ?").bind(id).execute(conn).await?;
    Ok(())
}
