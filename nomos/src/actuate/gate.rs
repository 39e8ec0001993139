//! The gate: classify → run now, run inside a window, or queue for the operator; and the
//! operator's side: approve, deny, cancel, expire, windows, pause.
//!
//! Decisions are taken inside one write transaction together with the rows they create, so two
//! requests cannot both slip through one check. Commands run outside any transaction.

use std::time::Duration;

use nomos_types::events::{
    ApprovalDecided, ApprovalRequested, AutonomyChanged, ExecutionCreated, ExecutionFinished, ExecutionStarted,
    HostKeyMismatch, HostKeySeen, HostKeyTrusted, WindowOpened, WindowRevoked,
};
use nomos_types::{
    Approval, ApprovalStatus, AutonomyWindow, Channel, Execution, ExecutionStatus, HostKey, Risk, WindowKind,
};
use serde_json::{json, Value as Json};
use sqlx::SqliteConnection;

use super::records::{
    actor_type, approval_from_row, approval_in, execution_from_row, execution_in, host_key_from_row, output_bytes,
    window_from_row, Audit, APPROVAL_SELECT, EXECUTION_COLUMNS, WINDOW_COLUMNS,
};
use super::ssh::{Cancel, Job, Output, Pinned, SeenKey, SshError};
use super::target::{resolve, Target};
use super::{Actuator, Decision, RunOutcome, RunRequest};
use crate::events::EventDraft;
use crate::graph::new_id;
use crate::policy::{confirmation_names_target, is_assent, is_typed_confirmation};
use crate::store::WriteTx;
use crate::{Error, Result};

/// Settings key: while true no window applies and none is opened.
const AUTONOMY_PAUSED: &str = "autonomy_paused";

/// How often a running execution says it is still in hand …
const HEARTBEAT: Duration = Duration::from_secs(20);
/// … and how long without that before another process takes it for interrupted.
const STALE_AFTER: Duration = Duration::from_secs(120);
/// What is stored instead of the output of a command that touches secret material.
pub const WITHHELD: &str = "[output withheld: the command touches secret material; it is not stored or shown]\n";
/// How often a running execution looks for a cancel asked by another process.
const CANCEL_POLL: Duration = Duration::from_secs(1);
/// The longest command accepted: it travels as one argument (Linux allows 128 KiB), base64-encoded
/// for containers.
const MAX_COMMAND: usize = 64 * 1024;
/// The longest time limit a command may ask for.
const MAX_TIMEOUT: Duration = Duration::from_secs(24 * 3600);

/// Registers a running execution's cancel handle with its actuator for as long as it runs here.
struct RunningGuard {
    running: super::Running,
    id: String,
}

impl RunningGuard {
    fn new(running: &super::Running, id: &str, cancel: Cancel) -> Self {
        running.map().insert(id.to_string(), cancel);
        RunningGuard { running: running.clone(), id: id.to_string() }
    }
}

impl Drop for RunningGuard {
    fn drop(&mut self) {
        self.running.map().remove(&self.id);
    }
}

/// Where a request was asked to run, as recorded with it: an approval or a window applies to
/// that place only.
struct AskedPlace {
    entity_id: Option<String>,
    host: Option<String>,
    pve_id: Option<i64>,
}

impl AskedPlace {
    async fn of(conn: &mut SqliteConnection, execution_id: &str) -> Result<AskedPlace> {
        let (entity_id, host, pve_id) =
            sqlx::query_as("SELECT target_id, target_host, target_pve_id FROM executions WHERE id = ?")
                .bind(execution_id)
                .fetch_one(conn)
                .await?;
        Ok(AskedPlace { entity_id, host, pve_id })
    }

    /// Whether `target`, resolved now, is still that place.
    fn is(&self, target: &Target) -> bool {
        self.entity_id.as_deref() == Some(target.entity.id.as_str())
            && self.host.as_deref() == Some(target.host.slug.as_str())
            && self.pve_id == pve_id_sql(target)
    }
}

/// A target's Proxmox id as stored.
fn pve_id_sql(target: &Target) -> Option<i64> {
    target.pve_id.and_then(|p| i64::try_from(p).ok())
}

/// Fails unless the task exists: a request or window for a task nobody knows is refused, not
/// silently treated as having none.
async fn require_task(conn: &mut SqliteConnection, task: &str) -> Result<()> {
    let exists: Option<i64> =
        sqlx::query_scalar("SELECT 1 FROM tasks WHERE id = ?").bind(task).fetch_optional(conn).await?;
    match exists {
        Some(_) => Ok(()),
        None => Err(Error::Invalid(format!("unknown task `{task}`"))),
    }
}

fn ms(d: Duration) -> i64 {
    i64::try_from(d.as_millis()).unwrap_or(i64::MAX)
}

impl Actuator {
    /// The one path for every command: classify, then run, run inside a window, or queue.
    pub async fn run(&self, req: RunRequest) -> Result<RunOutcome> {
        self.run_as(req, None).await
    }

    /// [`Actuator::run`] for a curated action: `action` is its name and the parameters recorded
    /// with the execution (and acted on by [`super::curated::after_success`]). Crate-private: only
    /// the curated module may claim to be an action.
    pub(crate) async fn run_as(&self, req: RunRequest, action: Option<(String, Json)>) -> Result<RunOutcome> {
        if let Some(t) = req.timeout {
            if t.is_zero() || t > MAX_TIMEOUT {
                return Err(Error::Invalid(format!(
                    "timeout must be between 1 s and {} h, got {} s",
                    MAX_TIMEOUT.as_secs() / 3600,
                    t.as_secs()
                )));
            }
        }
        if req.command.contains('\0') {
            return Err(Error::Invalid("the command contains a NUL byte, which no shell can run".into()));
        }
        if req.command.len() > MAX_COMMAND {
            return Err(Error::Invalid(format!(
                "the command is {} bytes; the limit is {} KiB (copy a script to the host and run it instead)",
                req.command.len(),
                MAX_COMMAND / 1024
            )));
        }
        let target = {
            let mut conn = self.engine.store().pool().acquire().await?;
            resolve(&mut conn, &req.target).await?
        };
        let verdict = self.policy.classify(&req.command, req.declared_risk);
        let (action, mut params) = action.unwrap_or_else(|| ("run".into(), json!({})));
        if let Some(map) = params.as_object_mut() {
            // A queued request keeps its own time limit and mode for when it is approved.
            if let Some(t) = req.timeout {
                map.entry("timeout_secs").or_insert(json!(t.as_secs()));
            }
            if req.background {
                map.insert("background".into(), json!(true));
            }
        }
        // Read before the write transaction: the operator sees what else the change reaches.
        let blast = if verdict.risk == Risk::ReadOnly { json!({}) } else { self.blast_summary(target.slug()).await };
        let now = self.clock.now();
        let mut tx = self.engine.store().begin_write().await?;
        if let Some(task) = &req.task_id {
            require_task(&mut tx, task).await?;
        }
        let grant = match verdict.risk {
            Risk::ReadOnly => Some("read_only".to_string()),
            risk => open_window_for(&mut tx, req.task_id.as_deref(), risk, target.slug(), &now).await?,
        };
        let reasons = json!(verdict.reasons).to_string();
        let declared = req.declared_risk.map(|r| r.as_str());

        // A task asking again for a change that is running right now (approved a moment ago) gets
        // that run, not a second copy of it.
        if let (Some(task), true) = (&req.task_id, verdict.risk != Risk::ReadOnly) {
            let running: Option<String> = sqlx::query_scalar(
                "SELECT id FROM executions WHERE task_id = ? AND target_slug = ? AND command = ? AND action = ?
                   AND status = 'running' ORDER BY started_at DESC LIMIT 1",
            )
            .bind(task)
            .bind(target.slug())
            .bind(&req.command)
            .bind(&action)
            .fetch_optional(&mut *tx)
            .await?;
            if let Some(id) = running {
                drop(tx);
                tracing::info!(execution = %id, "the same change is already running for this task; joining it");
                let execution = if req.background { self.execution(&id).await? } else { self.wait_final(&id).await? };
                return Ok(RunOutcome::Ran(execution));
            }
        }
        // The same request while one waits is that one, never a second execution.
        let pending: Option<String> = sqlx::query_scalar(
            "SELECT id FROM executions WHERE ifnull(task_id, '') = ifnull(?, '') AND target_slug = ? AND command = ?
               AND action = ? AND status = 'pending_approval'",
        )
        .bind(&req.task_id)
        .bind(target.slug())
        .bind(&req.command)
        .bind(&action)
        .fetch_optional(&mut *tx)
        .await?;
        let mut adopted = None;
        if let Some(pending_id) = pending {
            let waiting = approval_in(&mut tx, &pending_id).await?;
            if waiting.expires_at <= now {
                expire_one(&mut tx, &waiting, &now).await?;
            } else if verdict.risk > waiting.risk {
                // Asked again as riskier (a higher declaration): the waiting one is raised, so a
                // weaker approval cannot pass what is now judged riskier.
                sqlx::query("UPDATE executions SET risk = ?, reasons = ?, declared_risk = ? WHERE id = ?")
                    .bind(verdict.risk.as_str())
                    .bind(&reasons)
                    .bind(declared)
                    .bind(&pending_id)
                    .execute(&mut *tx)
                    .await?;
                sqlx::query("UPDATE approvals SET requires_confirmation = ? WHERE id = ?")
                    .bind(i64::from(verdict.risk == Risk::Destructive))
                    .bind(&waiting.id)
                    .execute(&mut *tx)
                    .await?;
                Audit {
                    at: &now,
                    actor_type: actor_type(&req.requested_by),
                    actor: &req.requested_by,
                    channel: None,
                    action: "approval.raised",
                    entity: Some(target.slug()),
                    task: req.task_id.as_deref(),
                    execution: Some(&pending_id),
                    detail: json!({"approval": waiting.id, "from": waiting.risk, "to": verdict.risk,
                                   "reasons": verdict.reasons}),
                }
                .write(&mut tx)
                .await?;
                let raised = ApprovalRequested {
                    approval_id: waiting.id.clone(),
                    execution_id: pending_id.clone(),
                    risk: verdict.risk,
                    task_id: req.task_id.clone(),
                    command: waiting.command.clone(),
                    purpose: waiting.purpose.clone(),
                    blast_radius: waiting.blast_radius.clone(),
                    raised_from: Some(waiting.risk),
                };
                tx.emit(EventDraft::new(raised).correlation(&pending_id).entity(target.slug())).await?;
            }
            if waiting.expires_at > now {
                // A waiting request judged riskier than this one keeps waiting for its own decision,
                // and so does one asked for a place that has changed since.
                let same_place = AskedPlace::of(&mut tx, &pending_id).await?.is(&target);
                let covered = grant.as_ref().filter(|_| waiting.risk <= verdict.risk && same_place);
                match covered {
                    None => {
                        let execution = execution_in(&mut tx, &pending_id).await?;
                        let approval = approval_in(&mut tx, &waiting.id).await?;
                        tx.commit().await?;
                        return Ok(RunOutcome::Queued { execution, approval: Box::new(approval), existing: true });
                    }
                    Some(g) => {
                        // A window now covers it: the waiting request runs once, under the window,
                        // and its approval is closed — approving it later cannot run it again.
                        supersede(&mut tx, &waiting, g, &verdict, &reasons, &now).await?;
                        adopted = Some(pending_id);
                    }
                }
            }
        }

        let Some(grant) = grant else {
            let id = new_id();
            let approval_id = new_id();
            insert_execution(
                &mut tx,
                &id,
                &req,
                &target,
                &action,
                &params,
                declared,
                &verdict.risk,
                &reasons,
                ExecutionStatus::PendingApproval,
                None,
                &now,
            )
            .await?;
            let expires = self.clock.after_ms(ms(self.config.approval_ttl));
            sqlx::query(
                "INSERT INTO approvals (id, execution_id, task_id, requires_confirmation, blast_radius, expires_at, created_at)
                 VALUES (?, ?, ?, ?, ?, ?, ?)",
            )
            .bind(&approval_id)
            .bind(&id)
            .bind(&req.task_id)
            .bind(i64::from(verdict.risk == Risk::Destructive))
            .bind(blast.to_string())
            .bind(&expires)
            .bind(&now)
            .execute(&mut *tx)
            .await?;
            Audit {
                at: &now,
                actor_type: actor_type(&req.requested_by),
                actor: &req.requested_by,
                channel: None,
                action: "approval.requested",
                entity: Some(target.slug()),
                task: req.task_id.as_deref(),
                execution: Some(&id),
                detail: json!({"command": req.command, "risk": verdict.risk, "reasons": verdict.reasons,
                               "purpose": req.purpose, "approval": approval_id, "expires_at": expires}),
            }
            .write(&mut tx)
            .await?;
            let requested = ApprovalRequested {
                approval_id: approval_id.clone(),
                execution_id: id.clone(),
                risk: verdict.risk,
                task_id: req.task_id.clone(),
                command: req.command.clone(),
                purpose: req.purpose.clone(),
                blast_radius: blast,
                raised_from: None,
            };
            tx.emit(EventDraft::new(requested).correlation(&id).entity(target.slug())).await?;
            let execution = execution_in(&mut tx, &id).await?;
            let approval = approval_in(&mut tx, &approval_id).await?;
            tx.commit().await?;
            tracing::info!(execution = %id, target = %target.slug(), risk = %verdict.risk, "queued for approval");
            return Ok(RunOutcome::Queued { execution, approval: Box::new(approval), existing: false });
        };

        let id = match adopted {
            Some(id) => id,
            None => {
                let id = new_id();
                insert_execution(
                    &mut tx,
                    &id,
                    &req,
                    &target,
                    &action,
                    &params,
                    declared,
                    &verdict.risk,
                    &reasons,
                    ExecutionStatus::Running,
                    Some(&grant),
                    &now,
                )
                .await?;
                id
            }
        };
        start_records(
            &mut tx,
            &id,
            &req.requested_by,
            &target,
            req.task_id.as_deref(),
            &req.command,
            &verdict.risk,
            Some(&grant),
            &now,
        )
        .await?;
        // The execution's own settings (an adopted one keeps those it was asked with).
        let stored = execution_in(&mut tx, &id).await?;
        let background = stored.params.get("background").and_then(Json::as_bool).unwrap_or(false);
        if background {
            link_task(&mut tx, &id, req.task_id.as_deref()).await?;
        }
        tx.commit().await?;
        let timeout = self.timeout_of(&stored);
        if background {
            self.spawn_execute(id.clone(), target, timeout);
            return Ok(RunOutcome::Ran(self.execution(&id).await?));
        }
        Ok(RunOutcome::Ran(self.execute(&id, &target, timeout).await?))
    }

    /// The time limit an execution was asked with, else the default.
    fn timeout_of(&self, execution: &Execution) -> Duration {
        execution
            .params
            .get("timeout_secs")
            .and_then(Json::as_u64)
            .map_or(self.config.command_timeout, Duration::from_secs)
            .min(MAX_TIMEOUT)
    }

    /// Waits until an execution (run by this or another process) has ended.
    pub async fn wait_final(&self, id: &str) -> Result<Execution> {
        loop {
            let x = self.execution(id).await?;
            if x.status.is_final() {
                return Ok(x);
            }
            tokio::time::sleep(Duration::from_millis(200)).await;
        }
    }

    /// Runs a `running` execution in its own task and waits for it: the command is recorded to
    /// its end even if the caller stops waiting.
    async fn execute(&self, id: &str, target: &Target, timeout: Duration) -> Result<Execution> {
        let me = self.clone();
        let (id, target) = (id.to_string(), target.clone());
        match tokio::spawn(async move { me.execute_here(&id, &target, timeout).await }).await {
            Ok(r) => r,
            Err(e) => Err(Error::Invalid(format!("the execution's task failed: {e}"))),
        }
    }

    /// Runs a `running` execution in the background; its end lands in the store and on the bus.
    fn spawn_execute(&self, id: String, target: Target, timeout: Duration) {
        let me = self.clone();
        tokio::spawn(async move {
            if let Err(e) = me.execute_here(&id, &target, timeout).await {
                tracing::error!(execution = %id, error = %e, "background execution could not be recorded");
            }
        });
    }

    /// Executes and records. The only caller of the SSH executor. Whatever fails before the
    /// command starts still ends the execution (failed, with the reason), never leaves it running.
    async fn execute_here(&self, id: &str, target: &Target, timeout: Duration) -> Result<Execution> {
        let cancel = Cancel::new();
        let _running = RunningGuard::new(&self.running, id, cancel.clone());
        let mut withhold = false;
        let result = match self.prepare(id, target, timeout, &cancel).await {
            Ok((job, pinned, secret)) => {
                withhold = secret;
                let exec = self.ssh.exec(&target.endpoint, pinned, &job, timeout, &cancel);
                tokio::pin!(exec);
                let mut beat = tokio::time::interval(HEARTBEAT);
                let mut watch = tokio::time::interval(CANCEL_POLL);
                beat.tick().await;
                loop {
                    tokio::select! {
                        r = &mut exec => break r,
                        _ = beat.tick() => self.heartbeat(id).await,
                        _ = watch.tick() => if self.cancel_requested(id).await { cancel.cancel() },
                    }
                }
            }
            Err(e) => Err(SshError::Protocol { host: target.host.slug.clone(), message: format!("not started: {e}") }),
        };
        if let Err(SshError::UntrustedHostKey { seen, .. } | SshError::HostKeyChanged { seen, .. }) = &result {
            if let Err(e) = self.record_seen_key(&target.host.slug, seen, result.as_ref().err()).await {
                tracing::error!(host = %target.host.slug, error = %e, "could not record the host key seen");
            }
        }
        self.finish(id, target, result, timeout, withhold).await
    }

    /// The job to run, the pinned key, and whether the output must be withheld (the command
    /// touches secret material).
    async fn prepare(
        &self,
        id: &str,
        target: &Target,
        timeout: Duration,
        cancel: &Cancel,
    ) -> Result<(Job, Option<Pinned>, bool)> {
        let command: String = sqlx::query_scalar("SELECT command FROM executions WHERE id = ?")
            .bind(id)
            .fetch_one(self.engine.store().pool())
            .await?;
        let secret = self.policy.classify(&command, None).secret;
        if self.cancel_requested(id).await {
            cancel.cancel();
        }
        let job = target.job(&command, timeout, self.config.ssh.kill_grace);
        sqlx::query("UPDATE executions SET kill_line = ? WHERE id = ?")
            .bind(&job.kill)
            .bind(id)
            .execute(self.engine.store().pool())
            .await?;
        Ok((job, self.pinned(&target.host.slug).await?, secret))
    }

    /// Whether another process asked to stop this execution.
    async fn cancel_requested(&self, id: &str) -> bool {
        let asked: Result<Option<String>, _> =
            sqlx::query_scalar("SELECT cancel_requested_at FROM executions WHERE id = ?")
                .bind(id)
                .fetch_one(self.engine.store().pool())
                .await;
        matches!(asked, Ok(Some(_)))
    }

    /// Tells other processes this execution is still in hand (see [`Actuator::recover_interrupted`]).
    async fn heartbeat(&self, id: &str) {
        let r = sqlx::query("UPDATE executions SET heartbeat_at = ? WHERE id = ? AND status = 'running'")
            .bind(self.clock.now())
            .bind(id)
            .execute(self.engine.store().pool())
            .await;
        if let Err(e) = r {
            tracing::warn!(execution = %id, error = %e, "could not record the heartbeat");
        }
    }

    /// Marks as failed the executions left `running` by a process that stopped (killed, crashed,
    /// machine off): no heartbeat for [`STALE_AFTER`]. Whether the command finished on the host is
    /// unknown, and the error says so; nothing is run again by itself. Returns how many.
    pub async fn recover_interrupted(&self) -> Result<usize> {
        let now_ms = self.clock.now_ms();
        let cutoff = crate::clock::format_ms(now_ms - ms(STALE_AFTER));
        let now = self.clock.now();
        let mut tx = self.engine.store().begin_write().await?;
        type Stale = (String, String, Option<String>, Option<String>, String);
        let stale: Vec<Stale> = sqlx::query_as(
            "SELECT id, target_slug, task_id, heartbeat_at, action FROM executions
              WHERE status = 'running' AND ifnull(heartbeat_at, started_at) < ?",
        )
        .bind(&cutoff)
        .fetch_all(&mut *tx)
        .await?;
        // This process's own commands are alive whatever their heartbeat says (a laptop that slept).
        let own: std::collections::HashSet<String> = self.running.map().keys().cloned().collect();
        let stale: Vec<_> = stale.into_iter().filter(|(id, ..)| !own.contains(id)).collect();
        for (id, target, task, last, action) in &stale {
            let error = format!(
                "interrupted: the process running it stopped (last sign of life {}); whether the command \
                 finished on the host is unknown — check before running it again",
                last.as_deref().unwrap_or("unknown")
            );
            sqlx::query("UPDATE executions SET status = 'failed', error = ?, finished_at = ? WHERE id = ? AND status = 'running'")
                .bind(&error)
                .bind(&now)
                .bind(id)
                .execute(&mut *tx)
                .await?;
            Audit {
                at: &now,
                actor_type: "system",
                actor: "executor",
                channel: None,
                action: "execution.interrupted",
                entity: Some(target),
                task: task.as_deref(),
                execution: Some(id),
                detail: json!({"last_heartbeat": last}),
            }
            .write(&mut tx)
            .await?;
            let finished = ExecutionFinished {
                execution_id: id.clone(),
                status: ExecutionStatus::Failed,
                exit_code: None,
                error: Some(error),
                task_id: task.clone(),
                action: action.clone(),
            };
            tx.emit(EventDraft::new(finished).correlation(id).entity(target)).await?;
        }
        tx.commit().await?;
        if !stale.is_empty() {
            tracing::warn!(count = stale.len(), "marked interrupted executions as failed");
        }
        Ok(stale.len())
    }

    /// Housekeeping any process may run at start and then now and then: expires overdue approvals
    /// and fails executions whose process died. Returns (expired, interrupted).
    pub async fn sweep(&self) -> Result<(usize, usize)> {
        Ok((self.expire_due().await?, self.recover_interrupted().await?))
    }

    async fn finish(
        &self,
        id: &str,
        target: &Target,
        result: std::result::Result<Output, SshError>,
        timeout: Duration,
        withhold: bool,
    ) -> Result<Execution> {
        let now = self.clock.now();
        let (status, exit, mut stdout, mut stderr, truncated, error, duration) = match result {
            Ok(out) => {
                let killed = match &out.kill_failed {
                    None => "the command was killed".to_string(),
                    Some(why) => format!("killing what was left failed ({why}); processes may still run on the host"),
                };
                let error = if out.cancelled && !out.started {
                    Some("cancelled before it started; nothing ran".to_string())
                } else if out.cancelled {
                    Some(format!("cancelled by the operator; {killed}"))
                } else if out.timed_out {
                    Some(format!("timed out after {} s; {killed}", timeout.as_secs()))
                } else if let Some(sig) = &out.signal {
                    Some(format!("killed by signal {sig}"))
                } else {
                    match out.exit_code {
                        Some(0) => None,
                        Some(code) => Some(format!("exit status {code}")),
                        None => Some(
                            "the connection was lost before the command reported its exit status; whether it \
                             finished on the host is unknown"
                                .to_string(),
                        ),
                    }
                };
                let status = if out.cancelled {
                    ExecutionStatus::Cancelled
                } else if out.success() {
                    ExecutionStatus::Completed
                } else {
                    ExecutionStatus::Failed
                };
                let ms = i64::try_from(out.duration.as_millis()).unwrap_or(i64::MAX);
                (status, out.exit_code.map(i64::from), out.stdout, out.stderr, out.truncated, error, Some(ms))
            }
            Err(e) => (ExecutionStatus::Failed, None, Vec::new(), Vec::new(), false, Some(e.to_string()), None),
        };
        if withhold && !(stdout.is_empty() && stderr.is_empty()) {
            // Secrets never reach the database (nor the agent, which reads executions from it).
            stdout = WITHHELD.as_bytes().to_vec();
            stderr.clear();
        }
        let mut tx = self.engine.store().begin_write().await?;
        // Another process may have taken it for interrupted meanwhile (this one was asleep): the
        // real outcome replaces that guess.
        let updated = sqlx::query(
            "UPDATE executions SET status = ?, exit_code = ?, stdout = ?, stderr = ?, output_truncated = ?, error = ?,
                    finished_at = ?, duration_ms = ?
              WHERE id = ? AND (status = 'running' OR (status = 'failed' AND error LIKE 'interrupted:%'))",
        )
        .bind(status.as_str())
        .bind(exit)
        .bind(&stdout)
        .bind(&stderr)
        .bind(i64::from(truncated))
        .bind(&error)
        .bind(&now)
        .bind(duration)
        .bind(id)
        .execute(&mut *tx)
        .await?;
        let execution = execution_in(&mut tx, id).await?;
        if updated.rows_affected() != 1 {
            tracing::warn!(execution = %id, status = %execution.status, "finished, but the record had moved on; left as it is");
            return Ok(execution);
        }
        Audit {
            at: &now,
            actor_type: "system",
            actor: "executor",
            channel: None,
            action: "execution.finished",
            entity: Some(target.slug()),
            task: execution.task_id.as_deref(),
            execution: Some(id),
            detail: json!({"status": status, "exit_code": exit, "error": error, "duration_ms": duration,
                           "output_truncated": truncated}),
        }
        .write(&mut tx)
        .await?;
        let finished = ExecutionFinished {
            execution_id: id.to_string(),
            status,
            exit_code: exit,
            error,
            task_id: execution.task_id.clone(),
            action: execution.action.clone(),
        };
        tx.emit(EventDraft::new(finished).correlation(id).entity(target.slug())).await?;
        tx.commit().await?;
        tracing::info!(execution = %id, target = %target.slug(), status = %status, "execution finished");
        if execution.status == ExecutionStatus::Completed && execution.action != "run" {
            if let Err(e) = super::curated::after_success(self, &execution).await {
                tracing::warn!(execution = %id, error = %e, "follow-up of a curated action failed");
            }
        }
        Ok(execution)
    }

    /// Approves a pending execution and runs it (in the background for background actions).
    /// A destructive one needs `decision.message` to be a typed confirmation naming its target.
    pub async fn approve(&self, approval_id: &str, decision: &Decision) -> Result<Execution> {
        operator_only(decision, "approve")?;
        let now = self.clock.now();
        let mut tx = self.engine.store().begin_write().await?;
        let approval = approval_in(&mut tx, approval_id).await?;
        let mut tx = Self::check_pending(tx, &approval, &now).await?;
        let target = match resolve(&mut tx, &approval.target).await {
            Ok(t) => t,
            Err(e) => return Err(Error::Invalid(format!("cannot approve: {e}"))),
        };
        let asked = AskedPlace::of(&mut tx, &approval.execution_id).await?;
        if !asked.is(&target) {
            return Err(Error::Conflict(format!(
                "{} changed since this was asked (then on {} as {}, now on {} as {}): deny it and ask again",
                approval.target,
                asked.host.as_deref().unwrap_or("?"),
                asked.pve_id.map_or("-".into(), |p| p.to_string()),
                target.host.slug,
                pve_id_sql(&target).map_or("-".into(), |p| p.to_string()),
            )));
        }
        let message = decision.message.as_deref().unwrap_or("");
        if approval.requires_confirmation {
            let pve_id = target.pve_id;
            if !confirmation_names_target(message, &target.entity.slug, &target.entity.name, pve_id) {
                return Err(Error::Invalid(format!(
                    "a destructive command needs a typed confirmation naming its target, e.g. `confirm {}`",
                    target.entity.slug
                )));
            }
        } else if decision.channel == Channel::Chat && !(is_assent(message) || is_typed_confirmation(message)) {
            return Err(Error::Invalid("that message does not approve anything".into()));
        }
        sqlx::query(
            "UPDATE approvals SET status = 'approved', decided_at = ?, decided_by = ?, channel = ?, grant_message = ?
              WHERE id = ? AND status = 'pending'",
        )
        .bind(&now)
        .bind(&decision.actor)
        .bind(decision.channel.as_str())
        .bind(
            decision.message.as_deref().filter(|_| decision.channel == Channel::Chat || approval.requires_confirmation),
        )
        .bind(&approval.id)
        .execute(&mut *tx)
        .await?;
        let updated = sqlx::query(
            "UPDATE executions SET status = 'running', granted_by = ?1, started_at = ?2, heartbeat_at = ?2
              WHERE id = ?3 AND status = 'pending_approval'",
        )
        .bind(&approval.id)
        .bind(&now)
        .bind(&approval.execution_id)
        .execute(&mut *tx)
        .await?;
        if updated.rows_affected() != 1 {
            return Err(Error::Conflict(format!("execution {} is no longer waiting", approval.execution_id)));
        }
        Audit {
            at: &now,
            actor_type: actor_type(&decision.actor),
            actor: &decision.actor,
            channel: Some(decision.channel.as_str()),
            action: "approval.approved",
            entity: Some(&approval.target),
            task: approval.task_id.as_deref(),
            execution: Some(&approval.execution_id),
            detail: json!({"approval": approval.id, "message": decision.message, "risk": approval.risk}),
        }
        .write(&mut tx)
        .await?;
        let decided = ApprovalDecided {
            approval_id: approval.id.clone(),
            execution_id: approval.execution_id.clone(),
            status: ApprovalStatus::Approved,
            channel: decision.channel,
            task_id: approval.task_id.clone(),
            reason: None,
            granted_by: None,
        };
        tx.emit(EventDraft::new(decided).correlation(&approval.execution_id).entity(&approval.target)).await?;
        // Approving lets the task go on: its assent window opens, and for a destructive command
        // also its window on this target.
        if let Some(task) = approval.task_id.as_deref() {
            if !paused(&mut tx).await? {
                self.open_window_in(&mut tx, task, WindowKind::Assent, None, Some(&approval.id), decision, &now)
                    .await?;
                if approval.risk == Risk::Destructive {
                    self.open_window_in(
                        &mut tx,
                        task,
                        WindowKind::Destructive,
                        Some(&approval.target),
                        Some(&approval.id),
                        decision,
                        &now,
                    )
                    .await?;
                }
            }
        }
        let execution = execution_in(&mut tx, &approval.execution_id).await?;
        start_records(
            &mut tx,
            &execution.id,
            "executor",
            &target,
            execution.task_id.as_deref(),
            &execution.command,
            &execution.risk,
            Some(&approval.id),
            &now,
        )
        .await?;
        let background = execution.params.get("background").and_then(Json::as_bool).unwrap_or(false);
        if background {
            link_task(&mut tx, &execution.id, execution.task_id.as_deref()).await?;
        }
        tx.commit().await?;
        let timeout = self.timeout_of(&execution);
        if background {
            self.spawn_execute(execution.id.clone(), target, timeout);
            return self.execution(&execution.id).await;
        }
        self.execute(&execution.id, &target, timeout).await
    }

    /// Refuses a pending execution; it never runs.
    pub async fn deny(&self, approval_id: &str, decision: &Decision) -> Result<Approval> {
        operator_only(decision, "deny")?;
        self.close_pending(approval_id, ApprovalStatus::Denied, decision).await
    }

    /// Withdraws a pending request, or stops a running command (killing it on the host).
    pub async fn cancel(&self, id: &str, decision: &Decision) -> Result<Execution> {
        let mut execution = self.execution(id).await?;
        if execution.status == ExecutionStatus::PendingApproval {
            match self.close_pending(&execution.id, ApprovalStatus::Cancelled, decision).await {
                Ok(_) => return self.execution(&execution.id).await,
                // A window took it up meanwhile: it runs now, so stop it running.
                Err(e) => {
                    execution = self.execution(&execution.id).await?;
                    if execution.status != ExecutionStatus::Running {
                        return Err(e);
                    }
                }
            }
        }
        if execution.status != ExecutionStatus::Running {
            return Err(Error::Conflict(format!("execution {} is already {}", execution.id, execution.status)));
        }
        let handle = self.running.map().get(&execution.id).cloned();
        let now = self.clock.now();
        let mut tx = self.engine.store().begin_write().await?;
        let runner = match handle {
            Some(c) => {
                c.cancel();
                "this process"
            }
            // Another process runs it: it polls for this and kills the command.
            None => {
                let updated =
                    sqlx::query("UPDATE executions SET cancel_requested_at = ? WHERE id = ? AND status = 'running'")
                        .bind(&now)
                        .bind(&execution.id)
                        .execute(&mut *tx)
                        .await?;
                if updated.rows_affected() == 0 {
                    return self.execution(&execution.id).await;
                }
                "another process"
            }
        };
        Audit {
            at: &now,
            actor_type: actor_type(&decision.actor),
            actor: &decision.actor,
            channel: Some(decision.channel.as_str()),
            action: "execution.cancel_requested",
            entity: Some(&execution.target),
            task: execution.task_id.as_deref(),
            execution: Some(&execution.id),
            detail: json!({"runner": runner}),
        }
        .write(&mut tx)
        .await?;
        tx.commit().await?;
        if runner == "another process" {
            return self.stop_foreign(&execution).await;
        }
        self.execution(&execution.id).await
    }

    /// After asking another process to stop an execution: give it a moment, and if it does not
    /// answer (it was killed, or hangs), kill the command from here and close the record.
    async fn stop_foreign(&self, execution: &Execution) -> Result<Execution> {
        for _ in 0..30 {
            tokio::time::sleep(CANCEL_POLL / 10).await;
            let now = self.execution(&execution.id).await?;
            if now.status != ExecutionStatus::Running {
                return Ok(now);
            }
        }
        // A runner that answered meanwhile has closed the record itself.
        let row: Option<Option<String>> =
            sqlx::query_scalar("SELECT kill_line FROM executions WHERE id = ? AND status = 'running'")
                .bind(&execution.id)
                .fetch_optional(self.engine.store().pool())
                .await?;
        let Some(kill_line) = row else { return self.execution(&execution.id).await };
        let kill_line = kill_line.unwrap_or_default();
        let outcome = match (kill_line.is_empty(), self.resolve_for_kill(&execution.target).await) {
            (true, _) => Err("no kill line recorded (it had not started)".to_string()),
            (false, Ok((endpoint, pinned))) => self.ssh.kill(&endpoint, pinned.as_ref(), &kill_line).await,
            (false, Err(e)) => Err(e.to_string()),
        };
        let error = match &outcome {
            Ok(()) => {
                "cancelled by the operator; its process did not answer, so the command was killed from here".to_string()
            }
            Err(why) => format!(
                "cancelled by the operator; its process did not answer and killing the command failed ({why}); \
                 it may still run on the host"
            ),
        };
        let now = self.clock.now();
        let mut tx = self.engine.store().begin_write().await?;
        let closed = sqlx::query(
            "UPDATE executions SET status = 'cancelled', error = ?, finished_at = ? WHERE id = ? AND status = 'running'",
        )
        .bind(&error)
        .bind(&now)
        .bind(&execution.id)
        .execute(&mut *tx)
        .await?;
        if closed.rows_affected() == 1 {
            Audit {
                at: &now,
                actor_type: "system",
                actor: "executor",
                channel: None,
                action: "execution.finished",
                entity: Some(&execution.target),
                task: execution.task_id.as_deref(),
                execution: Some(&execution.id),
                detail: json!({"status": "cancelled", "error": error, "killed_from": "another process"}),
            }
            .write(&mut tx)
            .await?;
            let finished = ExecutionFinished {
                execution_id: execution.id.clone(),
                status: ExecutionStatus::Cancelled,
                exit_code: None,
                error: Some(error.clone()),
                task_id: execution.task_id.clone(),
                action: execution.action.clone(),
            };
            tx.emit(EventDraft::new(finished).correlation(&execution.id).entity(&execution.target)).await?;
        }
        tx.commit().await?;
        self.execution(&execution.id).await
    }

    /// Where to send a kill line for a target (its host's endpoint and pinned key).
    async fn resolve_for_kill(&self, target: &str) -> Result<(super::ssh::Endpoint, Option<Pinned>)> {
        let t = {
            let mut conn = self.engine.store().pool().acquire().await?;
            resolve(&mut conn, target).await?
        };
        let pinned = self.pinned(&t.host.slug).await?;
        Ok((t.endpoint, pinned))
    }

    async fn close_pending(&self, approval_id: &str, status: ApprovalStatus, decision: &Decision) -> Result<Approval> {
        let now = self.clock.now();
        let mut tx = self.engine.store().begin_write().await?;
        let approval = approval_in(&mut tx, approval_id).await?;
        let mut tx = Self::check_pending(tx, &approval, &now).await?;
        let closing = Closing {
            status,
            actor: &decision.actor,
            channel: decision.channel,
            message: decision.message.as_deref().filter(|_| decision.channel == Channel::Chat),
            action: if status == ApprovalStatus::Denied { "approval.denied" } else { "approval.cancelled" },
            detail: json!({"approval": approval.id, "message": decision.message}),
            reason: None,
            granted_by: None,
            ends_execution: Some(None),
        };
        close_approval(&mut tx, &approval, closing, &now).await?;
        let approval = approval_in(&mut tx, &approval.id).await?;
        tx.commit().await?;
        Ok(approval)
    }

    /// Fails unless `approval` is still pending and not past its expiry. An overdue one is marked
    /// expired on the spot (the sweep may not have run yet) and that is committed before failing.
    async fn check_pending(tx: WriteTx, approval: &Approval, now: &str) -> Result<WriteTx> {
        if approval.status != nomos_types::ApprovalStatus::Pending {
            return Err(Error::Conflict(format!("approval {} is already {}", approval.id, approval.status)));
        }
        if approval.expires_at.as_str() <= now {
            let mut tx = tx;
            expire_one(&mut tx, approval, now).await?;
            tx.commit().await?;
            return Err(Error::Conflict(format!(
                "approval {} expired at {}; nothing ran — ask again",
                approval.id, approval.expires_at
            )));
        }
        Ok(tx)
    }

    /// Marks every pending approval past its expiry as expired. Returns how many.
    pub async fn expire_due(&self) -> Result<usize> {
        let now = self.clock.now();
        let mut tx = self.engine.store().begin_write().await?;
        let rows = sqlx::query(&format!("{APPROVAL_SELECT} WHERE a.status = 'pending' AND a.expires_at <= ?"))
            .bind(&now)
            .fetch_all(&mut *tx)
            .await?;
        let due: Vec<Approval> = rows.iter().map(approval_from_row).collect::<Result<_>>()?;
        for a in &due {
            expire_one(&mut tx, a, &now).await?;
        }
        tx.commit().await?;
        Ok(due.len())
    }

    /// Opens a window explicitly (the operator approved a plan in chat, or from the UI). Refused
    /// while autonomy is paused.
    pub async fn open_window(
        &self,
        task_id: &str,
        kind: WindowKind,
        target: Option<&str>,
        decision: &Decision,
    ) -> Result<AutonomyWindow> {
        operator_only(decision, "open a window")?;
        if (kind == WindowKind::Destructive) != target.is_some() {
            return Err(Error::Invalid("a destructive window names one target; an assent window none".into()));
        }
        let now = self.clock.now();
        let mut tx = self.engine.store().begin_write().await?;
        if paused(&mut tx).await? {
            return Err(Error::Conflict("autonomy is paused: resume it before opening windows".into()));
        }
        require_task(&mut tx, task_id).await?;
        // The window is for the target as the gate will see it (`pve1` is `host:pve1`).
        let target = match target {
            Some(t) => Some(resolve(&mut tx, t).await?.entity.slug),
            None => None,
        };
        let id = self.open_window_in(&mut tx, task_id, kind, target.as_deref(), None, decision, &now).await?;
        let row = sqlx::query(&format!("SELECT {WINDOW_COLUMNS} FROM autonomy_windows WHERE id = ?"))
            .bind(&id)
            .fetch_one(&mut *tx)
            .await?;
        let window = window_from_row(&row)?;
        tx.commit().await?;
        Ok(window)
    }

    #[allow(clippy::too_many_arguments)]
    async fn open_window_in(
        &self,
        tx: &mut WriteTx,
        task_id: &str,
        kind: WindowKind,
        target: Option<&str>,
        approval: Option<&str>,
        decision: &Decision,
        now: &str,
    ) -> Result<String> {
        let length = match kind {
            WindowKind::Assent => self.config.assent_window,
            WindowKind::Destructive => self.config.destructive_window,
        };
        let id = new_id();
        let expires = self.clock.after_ms(ms(length));
        sqlx::query(
            "INSERT INTO autonomy_windows (id, kind, task_id, target_slug, approval_id, opened_by, channel, opened_at, expires_at)
             VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
        )
        .bind(&id)
        .bind(kind.as_str())
        .bind(task_id)
        .bind(target)
        .bind(approval)
        .bind(&decision.actor)
        .bind(decision.channel.as_str())
        .bind(now)
        .bind(&expires)
        .execute(&mut **tx)
        .await?;
        Audit {
            at: now,
            actor_type: actor_type(&decision.actor),
            actor: &decision.actor,
            channel: Some(decision.channel.as_str()),
            action: "window.opened",
            entity: target,
            task: Some(task_id),
            execution: None,
            detail: json!({"window": id, "kind": kind, "expires_at": expires, "approval": approval}),
        }
        .write(tx)
        .await?;
        let opened = WindowOpened {
            window_id: id.clone(),
            kind,
            task_id: task_id.to_string(),
            target: target.map(str::to_string),
            expires_at: expires,
        };
        tx.emit(EventDraft::new(opened).correlation(task_id)).await?;
        Ok(id)
    }

    /// Closes open windows: all of them, or one task's. Returns how many.
    pub async fn revoke_windows(&self, task_id: Option<&str>, decision: &Decision) -> Result<usize> {
        let now = self.clock.now();
        let mut tx = self.engine.store().begin_write().await?;
        let n = revoke_in(&mut tx, task_id, decision, &now).await?;
        tx.commit().await?;
        Ok(n)
    }

    /// "Pause autonomy": revokes every open window and opens none until resumed.
    pub async fn set_paused(&self, paused_now: bool, decision: &Decision) -> Result<()> {
        if !paused_now {
            operator_only(decision, "resume autonomy")?;
        }
        let now = self.clock.now();
        let mut tx = self.engine.store().begin_write().await?;
        sqlx::query(
            "INSERT INTO settings (key, value, updated_at) VALUES (?, ?, ?)
             ON CONFLICT (key) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at",
        )
        .bind(AUTONOMY_PAUSED)
        .bind(json!(paused_now).to_string())
        .bind(&now)
        .execute(&mut *tx)
        .await?;
        if paused_now {
            revoke_in(&mut tx, None, decision, &now).await?;
        }
        Audit {
            at: &now,
            actor_type: actor_type(&decision.actor),
            actor: &decision.actor,
            channel: Some(decision.channel.as_str()),
            action: if paused_now { "autonomy.paused" } else { "autonomy.resumed" },
            entity: None,
            task: None,
            execution: None,
            detail: json!({}),
        }
        .write(&mut tx)
        .await?;
        tx.emit(EventDraft::new(AutonomyChanged { paused: paused_now })).await?;
        tx.commit().await?;
        Ok(())
    }

    pub async fn is_paused(&self) -> Result<bool> {
        let mut conn = self.engine.store().pool().acquire().await?;
        paused(&mut conn).await
    }

    pub async fn execution(&self, id: &str) -> Result<Execution> {
        let mut conn = self.engine.store().pool().acquire().await?;
        execution_in(&mut conn, id).await
    }

    /// The exact bytes an execution printed.
    pub async fn execution_output(&self, id: &str) -> Result<(Vec<u8>, Vec<u8>)> {
        let mut conn = self.engine.store().pool().acquire().await?;
        output_bytes(&mut conn, id).await
    }

    /// Executions, newest first; optionally only one task's or one status.
    pub async fn executions(
        &self,
        task_id: Option<&str>,
        status: Option<ExecutionStatus>,
        limit: u32,
    ) -> Result<Vec<Execution>> {
        let rows = sqlx::query(&format!(
            "SELECT {EXECUTION_COLUMNS} FROM executions x
              WHERE (?1 IS NULL OR x.task_id = ?1) AND (?2 IS NULL OR x.status = ?2)
              ORDER BY x.created_at DESC, x.id LIMIT ?3"
        ))
        .bind(task_id)
        .bind(status.map(|s| s.as_str()))
        .bind(i64::from(limit))
        .fetch_all(self.engine.store().pool())
        .await?;
        rows.iter().map(execution_from_row).collect()
    }

    /// Approvals waiting for the operator (expired ones are swept first).
    pub async fn pending_approvals(&self) -> Result<Vec<Approval>> {
        self.expire_due().await?;
        let rows = sqlx::query(&format!("{APPROVAL_SELECT} WHERE a.status = 'pending' ORDER BY a.created_at"))
            .fetch_all(self.engine.store().pool())
            .await?;
        rows.iter().map(approval_from_row).collect()
    }

    pub async fn approval(&self, id: &str) -> Result<Approval> {
        let mut conn = self.engine.store().pool().acquire().await?;
        approval_in(&mut conn, id).await
    }

    /// Windows open now.
    pub async fn open_windows(&self) -> Result<Vec<AutonomyWindow>> {
        let now = self.clock.now();
        let rows = sqlx::query(&format!(
            "SELECT {WINDOW_COLUMNS} FROM autonomy_windows WHERE revoked_at IS NULL AND expires_at > ? ORDER BY opened_at"
        ))
        .bind(&now)
        .fetch_all(self.engine.store().pool())
        .await?;
        rows.iter().map(window_from_row).collect()
    }

    // ─── Host keys ───────────────────────────────────────────────────────────────────────────

    pub async fn host_keys(&self) -> Result<Vec<HostKey>> {
        let rows =
            sqlx::query("SELECT * FROM host_keys ORDER BY host_slug").fetch_all(self.engine.store().pool()).await?;
        rows.iter().map(host_key_from_row).collect()
    }

    async fn pinned(&self, host: &str) -> Result<Option<Pinned>> {
        let row: Option<(String, i64)> =
            sqlx::query_as("SELECT public_key, trusted FROM host_keys WHERE host_slug = ?")
                .bind(host)
                .fetch_optional(self.engine.store().pool())
                .await?;
        Ok(row.map(|(public_key, trusted)| Pinned { public_key, trusted: trusted != 0 }))
    }

    /// Pins the key `host` presents as trusted. With `expected` (a fingerprint the operator checked
    /// out of band) the host must present exactly that key. Without it, only a first sighting is
    /// trusted: the key the host presents now, which must equal one it showed before (in the
    /// "not trusted" error) if it showed one. A host whose trusted key changed needs `expected`.
    pub async fn trust_host(&self, host: &str, expected: Option<&str>, decision: &Decision) -> Result<HostKey> {
        operator_only(decision, "trust a host key")?;
        let target = {
            let mut conn = self.engine.store().pool().acquire().await?;
            resolve(&mut conn, host).await?
        };
        if target.pve_id.is_some() {
            return Err(Error::Invalid(format!("`{host}` is reached through {}: trust that host", target.host.slug)));
        }
        let slug = target.host.slug.clone();
        let seen = self.ssh.fetch_host_key(&target.endpoint).await.map_err(|e| Error::Invalid(e.to_string()))?;
        let pinned = self.pinned(&slug).await?;
        let same_as_pinned = pinned
            .as_ref()
            .is_some_and(|p| p.public_key.split_whitespace().take(2).eq(seen.public_key.split_whitespace().take(2)));
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
                return self
                    .host_keys()
                    .await?
                    .into_iter()
                    .find(|k| k.host == slug)
                    .ok_or_else(|| Error::not_found("host key", &slug));
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
            (None, _) => {}
        }
        let changed = pinned.as_ref().is_some_and(|p| p.trusted && !same_as_pinned);
        let now = self.clock.now();
        let mut tx = self.engine.store().begin_write().await?;
        sqlx::query(
            "INSERT INTO host_keys (host_slug, algorithm, fingerprint, public_key, trusted, first_seen_at, trusted_at, trusted_by)
             VALUES (?1, ?2, ?3, ?4, 1, ?5, ?5, ?6)
             ON CONFLICT (host_slug) DO UPDATE SET algorithm = excluded.algorithm, fingerprint = excluded.fingerprint,
                public_key = excluded.public_key, trusted = 1, trusted_at = excluded.trusted_at,
                trusted_by = excluded.trusted_by",
        )
        .bind(&slug)
        .bind(&seen.algorithm)
        .bind(&seen.fingerprint)
        .bind(&seen.public_key)
        .bind(&now)
        .bind(&decision.actor)
        .execute(&mut *tx)
        .await?;
        Audit {
            at: &now,
            actor_type: actor_type(&decision.actor),
            actor: &decision.actor,
            channel: Some(decision.channel.as_str()),
            action: "host_key.trusted",
            entity: Some(&target.host.slug),
            task: None,
            execution: None,
            detail: json!({"fingerprint": seen.fingerprint, "algorithm": seen.algorithm, "replaced": changed,
                           "checked_fingerprint": expected.is_some()}),
        }
        .write(&mut tx)
        .await?;
        tx.emit(EventDraft::new(HostKeyTrusted { fingerprint: seen.fingerprint.clone() }).entity(&target.host.slug))
            .await?;
        let row = sqlx::query("SELECT * FROM host_keys WHERE host_slug = ?")
            .bind(&target.host.slug)
            .fetch_one(&mut *tx)
            .await?;
        let key = host_key_from_row(&row)?;
        tx.commit().await?;
        if changed {
            // Connections made under the old key must not carry on.
            self.ssh.forget(&slug).await;
        }
        Ok(key)
    }

    /// Records a key a host presented that is not the trusted one: a first sighting is kept
    /// (untrusted) for the operator to trust; a change is audited loudly and never replaces the
    /// pinned key by itself.
    async fn record_seen_key(&self, host: &str, seen: &SeenKey, error: Option<&SshError>) -> Result<()> {
        let now = self.clock.now();
        let changed = matches!(error, Some(SshError::HostKeyChanged { .. }));
        let mut tx = self.engine.store().begin_write().await?;
        sqlx::query(
            "INSERT INTO host_keys (host_slug, algorithm, fingerprint, public_key, trusted, first_seen_at)
             VALUES (?, ?, ?, ?, 0, ?) ON CONFLICT (host_slug) DO NOTHING",
        )
        .bind(host)
        .bind(&seen.algorithm)
        .bind(&seen.fingerprint)
        .bind(&seen.public_key)
        .bind(&now)
        .execute(&mut *tx)
        .await?;
        if !changed {
            // An untrusted pin may be refreshed with what the host shows now.
            sqlx::query(
                "UPDATE host_keys SET algorithm = ?, fingerprint = ?, public_key = ? WHERE host_slug = ? AND trusted = 0",
            )
            .bind(&seen.algorithm)
            .bind(&seen.fingerprint)
            .bind(&seen.public_key)
            .bind(host)
            .execute(&mut *tx)
            .await?;
        }
        let action = if changed { "host_key.mismatch" } else { "host_key.seen" };
        Audit {
            at: &now,
            actor_type: "system",
            actor: "executor",
            channel: None,
            action,
            entity: Some(host),
            task: None,
            execution: None,
            detail: json!({"fingerprint": seen.fingerprint, "algorithm": seen.algorithm}),
        }
        .write(&mut tx)
        .await?;
        let fingerprint = seen.fingerprint.clone();
        let event = if changed {
            EventDraft::new(HostKeyMismatch { fingerprint })
        } else {
            EventDraft::new(HostKeySeen { fingerprint })
        };
        tx.emit(event.entity(host)).await?;
        tx.commit().await?;
        if changed {
            tracing::error!(host, fingerprint = %seen.fingerprint, "host key changed; connection refused");
        }
        Ok(())
    }

    /// "affects N: a, b, c" for an approval card.
    async fn blast_summary(&self, slug: &str) -> serde_json::Value {
        match self.engine.blast_radius(slug, None).await {
            Ok(b) => {
                let slugs: Vec<&str> = b.hits.iter().map(|h| h.entity.slug.as_str()).collect();
                let shown: Vec<&str> = slugs.iter().take(8).copied().collect();
                let more = slugs.len().saturating_sub(shown.len());
                let summary = if slugs.is_empty() {
                    "affects nothing else known".to_string()
                } else if more > 0 {
                    format!("affects {}: {} and {more} more", slugs.len(), shown.join(", "))
                } else {
                    format!("affects {}: {}", slugs.len(), shown.join(", "))
                };
                json!({"count": slugs.len(), "summary": summary, "entities": slugs})
            }
            Err(e) => json!({"count": null, "summary": format!("blast radius unknown: {e}")}),
        }
    }
}

/// The window that lets a `risk` command of `task` on `target` run now, if one is open.
async fn open_window_for(
    conn: &mut SqliteConnection,
    task: Option<&str>,
    risk: Risk,
    target: &str,
    now: &str,
) -> Result<Option<String>> {
    // No task, no window: fail closed.
    let Some(task) = task else { return Ok(None) };
    if paused(conn).await? {
        return Ok(None);
    }
    let id: Option<String> = match risk {
        Risk::ReadOnly => return Ok(Some("read_only".into())),
        Risk::ReversibleLow | Risk::ConfigMutation => {
            sqlx::query_scalar(
                "SELECT id FROM autonomy_windows WHERE task_id = ? AND kind = 'assent' AND revoked_at IS NULL
                   AND opened_at <= ? AND expires_at > ? ORDER BY expires_at DESC LIMIT 1",
            )
            .bind(task)
            .bind(now)
            .bind(now)
            .fetch_optional(&mut *conn)
            .await?
        }
        Risk::Destructive => {
            sqlx::query_scalar(
                "SELECT id FROM autonomy_windows WHERE task_id = ? AND kind = 'destructive' AND target_slug = ?
                   AND revoked_at IS NULL AND opened_at <= ? AND expires_at > ? ORDER BY expires_at DESC LIMIT 1",
            )
            .bind(task)
            .bind(target)
            .bind(now)
            .bind(now)
            .fetch_optional(&mut *conn)
            .await?
        }
    };
    Ok(id.map(|w| format!("window:{w}")))
}

/// Approving, denying, opening windows, resuming autonomy and trusting host keys are the
/// operator's (`operator` or `operator:<who>`): the agent may withdraw its own requests (cancel)
/// and anyone may pause, but nothing grants itself permission.
fn operator_only(decision: &Decision, what: &str) -> Result<()> {
    let operator = decision.actor == "operator" || decision.actor.starts_with("operator:");
    if !operator || decision.channel == Channel::System {
        return Err(Error::Invalid(format!("only an operator can {what}; `{}` cannot", decision.actor)));
    }
    Ok(())
}

async fn paused(conn: &mut SqliteConnection) -> Result<bool> {
    let v: Option<String> = sqlx::query_scalar("SELECT value FROM settings WHERE key = ?")
        .bind(AUTONOMY_PAUSED)
        .fetch_optional(conn)
        .await?;
    Ok(v.as_deref() == Some("true"))
}

async fn revoke_in(tx: &mut WriteTx, task_id: Option<&str>, decision: &Decision, now: &str) -> Result<usize> {
    let ids: Vec<String> = sqlx::query_scalar(
        "SELECT id FROM autonomy_windows WHERE revoked_at IS NULL AND expires_at > ?1 AND (?2 IS NULL OR task_id = ?2)",
    )
    .bind(now)
    .bind(task_id)
    .fetch_all(&mut **tx)
    .await?;
    for id in &ids {
        sqlx::query("UPDATE autonomy_windows SET revoked_at = ? WHERE id = ?")
            .bind(now)
            .bind(id)
            .execute(&mut **tx)
            .await?;
        Audit {
            at: now,
            actor_type: actor_type(&decision.actor),
            actor: &decision.actor,
            channel: Some(decision.channel.as_str()),
            action: "window.revoked",
            entity: None,
            task: task_id,
            execution: None,
            detail: json!({"window": id}),
        }
        .write(tx)
        .await?;
        tx.emit(EventDraft::new(WindowRevoked { window_id: id.clone() })).await?;
    }
    Ok(ids.len())
}

/// Closes a waiting approval because a window now covers the same request, and starts its
/// execution under that window.
async fn supersede(
    tx: &mut WriteTx,
    approval: &Approval,
    grant: &str,
    verdict: &nomos_types::Verdict,
    reasons: &str,
    now: &str,
) -> Result<()> {
    let closing = Closing {
        status: ApprovalStatus::Cancelled,
        actor: "system:gate",
        channel: Channel::System,
        message: None,
        action: "approval.superseded",
        detail: json!({"approval": approval.id, "granted_by": grant}),
        reason: Some("superseded"),
        granted_by: Some(grant),
        ends_execution: None,
    };
    close_approval(tx, approval, closing, now).await?;
    sqlx::query(
        "UPDATE executions SET status = 'running', granted_by = ?1, started_at = ?2, heartbeat_at = ?2, risk = ?3,
                reasons = ?4
          WHERE id = ?5 AND status = 'pending_approval'",
    )
    .bind(grant)
    .bind(now)
    .bind(verdict.risk.as_str())
    .bind(reasons)
    .bind(&approval.execution_id)
    .execute(&mut **tx)
    .await?;
    Ok(())
}

/// How a waiting approval ends: who ended it, how, and what happens to its execution.
struct Closing<'a> {
    /// The approval's new status (expired, denied, cancelled).
    status: ApprovalStatus,
    actor: &'a str,
    channel: Channel,
    /// The operator's words, kept for chat decisions.
    message: Option<&'a str>,
    /// The audit action and its detail.
    action: &'a str,
    detail: Json,
    /// Why the system closed it, for the event.
    reason: Option<&'a str>,
    /// The window that runs it instead, for the event.
    granted_by: Option<&'a str>,
    /// The execution ends with the approval (`Some(error)` for its error column); `None` when it
    /// goes on to run (superseded by a window).
    ends_execution: Option<Option<&'a str>>,
}

/// Closes a waiting approval, and with it (usually) its execution: one place for the update, the
/// audit record and the event, whichever way the approval ends.
async fn close_approval(tx: &mut WriteTx, approval: &Approval, c: Closing<'_>, now: &str) -> Result<()> {
    sqlx::query(
        "UPDATE approvals SET status = ?, decided_at = ?, decided_by = ?, channel = ?, grant_message = ?
          WHERE id = ? AND status = 'pending'",
    )
    .bind(c.status.as_str())
    .bind(now)
    .bind(c.actor)
    .bind(c.channel.as_str())
    .bind(c.message)
    .bind(&approval.id)
    .execute(&mut **tx)
    .await?;
    if let Some(error) = c.ends_execution {
        sqlx::query(
            "UPDATE executions SET status = ?, finished_at = ?, error = ? WHERE id = ? AND status = 'pending_approval'",
        )
        .bind(ExecutionStatus::from(c.status).as_str())
        .bind(now)
        .bind(error)
        .bind(&approval.execution_id)
        .execute(&mut **tx)
        .await?;
    }
    Audit {
        at: now,
        actor_type: actor_type(c.actor),
        actor: c.actor,
        channel: Some(c.channel.as_str()),
        action: c.action,
        entity: Some(&approval.target),
        task: approval.task_id.as_deref(),
        execution: Some(&approval.execution_id),
        detail: c.detail,
    }
    .write(tx)
    .await?;
    let decided = ApprovalDecided {
        approval_id: approval.id.clone(),
        execution_id: approval.execution_id.clone(),
        status: c.status,
        channel: c.channel,
        task_id: approval.task_id.clone(),
        reason: c.reason.map(str::to_string),
        granted_by: c.granted_by.map(str::to_string),
    };
    tx.emit(EventDraft::new(decided).correlation(&approval.execution_id).entity(&approval.target)).await?;
    Ok(())
}

/// Withdraws the requests a task is waiting on, as part of deleting it (inside the caller's
/// transaction): nobody may approve what a deleted task asked for.
pub(crate) async fn withdraw_task_requests(tx: &mut WriteTx, task_id: &str) -> Result<usize> {
    let now = tx.now().to_string();
    let rows = sqlx::query(&format!("{APPROVAL_SELECT} WHERE a.task_id = ? AND a.status = 'pending'"))
        .bind(task_id)
        .fetch_all(&mut **tx)
        .await?;
    let waiting: Vec<Approval> = rows.iter().map(approval_from_row).collect::<Result<_>>()?;
    for a in &waiting {
        let closing = Closing {
            status: ApprovalStatus::Cancelled,
            actor: "system:task-deleted",
            channel: Channel::System,
            message: None,
            action: "approval.cancelled",
            detail: json!({"approval": a.id, "reason": "task deleted"}),
            reason: Some("task deleted"),
            granted_by: None,
            ends_execution: Some(Some("withdrawn: its task was deleted")),
        };
        close_approval(tx, a, closing, &now).await?;
    }
    Ok(waiting.len())
}

async fn expire_one(tx: &mut WriteTx, approval: &Approval, now: &str) -> Result<()> {
    let closing = Closing {
        status: ApprovalStatus::Expired,
        actor: "system:gate",
        channel: Channel::System,
        message: None,
        action: "approval.expired",
        detail: json!({"approval": approval.id, "expires_at": approval.expires_at}),
        reason: None,
        granted_by: None,
        ends_execution: Some(None),
    };
    close_approval(tx, approval, closing, now).await
}

#[allow(clippy::too_many_arguments)]
async fn insert_execution(
    tx: &mut WriteTx,
    id: &str,
    req: &RunRequest,
    target: &Target,
    action: &str,
    params: &serde_json::Value,
    declared: Option<&str>,
    risk: &Risk,
    reasons: &str,
    status: ExecutionStatus,
    granted_by: Option<&str>,
    now: &str,
) -> Result<()> {
    let started = (status == ExecutionStatus::Running).then_some(now);
    sqlx::query(
        "INSERT INTO executions (id, task_id, target_slug, target_id, action, params, command, purpose, declared_risk,
                                 risk, reasons, status, requested_by, granted_by, created_at, started_at, heartbeat_at,
                                 target_host, target_pve_id)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
    )
    .bind(id)
    .bind(&req.task_id)
    .bind(target.slug())
    .bind(&target.entity.id)
    .bind(action)
    .bind(params.to_string())
    .bind(&req.command)
    .bind(&req.purpose)
    .bind(declared)
    .bind(risk.as_str())
    .bind(reasons)
    .bind(status.as_str())
    .bind(&req.requested_by)
    .bind(granted_by)
    .bind(now)
    .bind(started)
    .bind(started)
    .bind(&target.host.slug)
    .bind(pve_id_sql(target))
    .execute(&mut **tx)
    .await?;
    let created = ExecutionCreated {
        execution_id: id.to_string(),
        status,
        risk: *risk,
        task_id: req.task_id.clone(),
        action: action.to_string(),
        purpose: req.purpose.clone(),
    };
    tx.emit(EventDraft::new(created).correlation(id).entity(target.slug())).await?;
    Ok(())
}

#[allow(clippy::too_many_arguments)]
async fn start_records(
    tx: &mut WriteTx,
    id: &str,
    actor: &str,
    target: &Target,
    task: Option<&str>,
    command: &str,
    risk: &Risk,
    grant: Option<&str>,
    now: &str,
) -> Result<()> {
    Audit {
        at: now,
        actor_type: actor_type(actor),
        actor,
        channel: None,
        action: "execution.started",
        entity: Some(target.slug()),
        task,
        execution: Some(id),
        detail: json!({"command": command, "risk": risk, "granted_by": grant}),
    }
    .write(tx)
    .await?;
    let started = ExecutionStarted {
        execution_id: id.to_string(),
        task_id: task.map(str::to_string),
        granted_by: grant.map(str::to_string),
    };
    tx.emit(EventDraft::new(started).correlation(id).entity(target.slug())).await?;
    Ok(())
}

/// Links a background execution to its task, so the task can resume when it ends.
async fn link_task(tx: &mut WriteTx, id: &str, task: Option<&str>) -> Result<()> {
    if let Some(task) = task {
        let now = tx.now().to_string();
        sqlx::query("INSERT OR IGNORE INTO task_executions (execution_id, task_id, created_at) VALUES (?, ?, ?)")
            .bind(id)
            .bind(task)
            .bind(now)
            .execute(&mut **tx)
            .await?;
    }
    Ok(())
}
