//! Probes: the routine reads Observe repeats every few seconds, through the same gate.
//!
//! A probe is judged by the classifier like any command and runs only when it is read-only (else
//! refused and recorded in the ledger, never queued); it runs through the same SSH executor. What
//! differs is the record: polling must not grow the ledger, so a probe keeps its last result in
//! `probe_results`, and writes an execution (with its ledger line) only when its outcome changes —
//! it starts failing, fails differently, or recovers.

use std::time::Duration;

use nomos_types::events::{ExecutionCreated, ExecutionFinished};
use nomos_types::ExecutionStatus;
use serde_json::json;

use super::execute::{utf8_floor, COMPACT_KEEP};
use crate::actuate::db::audit::Audit;
use crate::actuate::db::executions::{self, Finished, NewExecution};
use crate::actuate::target::resolve;
use crate::actuate::{Actuator, RunRequest};
use crate::events::EventDraft;
use crate::graph::new_id;
use crate::Result;

/// A probe's result: all of its output for the caller, however little the store keeps.
#[derive(Debug, Clone)]
pub struct ProbeResult {
    pub status: ExecutionStatus,
    pub exit_code: Option<i64>,
    pub stdout: String,
    pub stderr: String,
    /// Why it failed (not connected, timed out, exit status …).
    pub error: Option<String>,
    /// Its outcome differs from the previous run's: an execution recorded it.
    pub changed: bool,
    pub execution_id: Option<String>,
}

impl ProbeResult {
    pub fn ok(&self) -> bool {
        self.status == ExecutionStatus::Completed
    }

    /// The host could not be reached at all (no exit status).
    pub fn unreachable(&self) -> bool {
        self.exit_code.is_none() && self.status != ExecutionStatus::Completed
    }
}

/// The outcome compared between runs: the status, exit code and the kind of error.
fn outcome(status: &str, exit_code: Option<i64>, error: Option<&str>) -> String {
    let error = error.map(|e| e.split(':').next().unwrap_or(e).trim());
    format!("{status}|{}|{}", exit_code.map_or("-".into(), |c| c.to_string()), error.unwrap_or_default())
}

impl Actuator {
    /// Runs a routine read-only probe (`key` names it: one row of last results per key).
    pub async fn probe(&self, key: &str, req: RunRequest) -> Result<ProbeResult> {
        let req = RunRequest { read_only: true, compact: true, ..req };
        super::request::check(&req)?;
        let target = {
            let mut conn = self.engine.store().pool().acquire().await?;
            resolve(&mut conn, &req.target).await?
        };
        let verdict = self.policy.judge(&req.command, req.declared_risk)?;
        if verdict.risk != nomos_types::Risk::ReadOnly {
            return Err(self.refuse_not_read_only(&req, &target, &verdict).await);
        }
        let timeout = req.timeout.unwrap_or(Duration::from_secs(30));
        let secret = self.policy.classify(&req.command, None).secret;
        let f = self.execute_probe(&target, &req.command, timeout).await?;
        let full_stdout = String::from_utf8_lossy(&f.stdout).into_owned();
        let full_stderr = String::from_utf8_lossy(&f.stderr).into_owned();
        let kept = if secret {
            super::execute::WITHHELD.to_string()
        } else {
            let cut = utf8_floor(&f.stdout, COMPACT_KEEP);
            String::from_utf8_lossy(&f.stdout[..cut]).into_owned()
        };
        let now_outcome = outcome(f.status.as_str(), f.exit_code, f.error.as_deref());

        let mut tx = self.engine.store().begin_write().await?;
        let now = tx.now().to_string();
        let previous: Option<(String, Option<i64>, Option<String>)> =
            sqlx::query_as("SELECT status, exit_code, error FROM probe_results WHERE key = ?")
                .bind(key)
                .fetch_optional(&mut *tx)
                .await?;
        let previous_outcome = previous.as_ref().map(|(status, code, error)| outcome(status, *code, error.as_deref()));
        // A first success is the starting state, not a change; a first failure is worth a record.
        let changed = match &previous_outcome {
            Some(p) => *p != now_outcome,
            None => f.status != ExecutionStatus::Completed,
        };
        let mut execution_id = None;
        if changed {
            let id = new_id();
            let params = json!({"probe": key, "compact": true});
            let new = NewExecution {
                id: &id,
                task_id: None,
                target: &target,
                action: "probe",
                params: &params,
                command: &req.command,
                purpose: &req.purpose,
                declared_risk: None,
                risk: verdict.risk,
                reasons: &verdict.reasons,
                status: ExecutionStatus::Running,
                requested_by: &req.requested_by,
                granted_by: Some("read_only"),
            };
            executions::insert(&mut tx, &new, &now).await?;
            let stored = Finished {
                status: f.status,
                exit_code: f.exit_code,
                stdout: kept.clone().into_bytes(),
                stderr: if secret { Vec::new() } else { f.stderr.iter().copied().take(COMPACT_KEEP).collect() },
                truncated: f.truncated,
                error: f.error.clone(),
                duration_ms: f.duration_ms,
            };
            executions::finish(&mut tx, &id, &stored, &now).await?;
            let created = ExecutionCreated {
                execution_id: id.clone(),
                status: ExecutionStatus::Running,
                risk: verdict.risk,
                task_id: None,
                action: "probe".into(),
                purpose: req.purpose.clone(),
            };
            tx.emit(EventDraft::new(created).correlation(&id).entity(target.slug())).await?;
            let detail = json!({"probe": key, "status": f.status, "exit_code": f.exit_code, "error": f.error,
                                "previous": previous_outcome});
            let event = ExecutionFinished {
                execution_id: id.clone(),
                status: f.status,
                exit_code: f.exit_code,
                error: f.error.clone(),
                task_id: None,
                action: "probe".into(),
            };
            Audit::executor("probe.changed", detail)
                .entity(target.slug())
                .execution(&id)
                .record(&mut tx, EventDraft::new(event).correlation(&id).entity(target.slug()))
                .await?;
            execution_id = Some(id);
        }
        let failed = i64::from(f.status != ExecutionStatus::Completed);
        sqlx::query(
            "INSERT INTO probe_results (key, target, command, status, exit_code, error, output, runs, failures,
                                        last_run_at, changed_at, execution_id)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, 1, ?8, ?9, ?9, ?10)
             ON CONFLICT (key) DO UPDATE SET target = ?2, command = ?3, status = ?4, exit_code = ?5, error = ?6,
                 output = ?7, runs = probe_results.runs + 1, failures = probe_results.failures + ?8,
                 last_run_at = ?9,
                 changed_at = CASE WHEN ?11 THEN ?9 ELSE probe_results.changed_at END,
                 execution_id = ifnull(?10, probe_results.execution_id)",
        )
        .bind(key)
        .bind(target.slug())
        .bind(&req.command)
        .bind(f.status.as_str())
        .bind(f.exit_code)
        .bind(&f.error)
        .bind(&kept)
        .bind(failed)
        .bind(&now)
        .bind(&execution_id)
        .bind(changed)
        .execute(&mut *tx)
        .await?;
        tx.commit().await?;
        Ok(ProbeResult {
            status: f.status,
            exit_code: f.exit_code,
            stdout: if secret { kept } else { full_stdout },
            stderr: if secret { String::new() } else { full_stderr },
            error: f.error,
            changed,
            execution_id,
        })
    }
}
