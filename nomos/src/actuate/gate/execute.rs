//! Running a granted execution and recording its end. This is the only caller of the SSH
//! executor. Also the heartbeat of running executions, and the sweep that fails those whose
//! process died.

use std::time::Duration;

use nomos_types::events::{ExecutionFinished, ExecutionStarted};
use nomos_types::{Execution, ExecutionStatus};
use serde_json::{json, Value as Json};

use super::decide::Grant;
use super::ms;
use super::stream::{OutputStream, FLUSH_EVERY};
use crate::actuate::db::audit::Audit;
use crate::actuate::db::executions::{self, Finished, INTERRUPTED};
use crate::actuate::db::host_keys;
use crate::actuate::ssh::{Cancel, Job, Output, Pinned, SshError};
use crate::actuate::target::Target;
use crate::actuate::{curated, Actuator, Running, PLAIN_RUN};
use crate::events::EventDraft;
use crate::store::WriteTx;
use crate::{Error, Result};

/// How often a running execution says it is still in hand …
const HEARTBEAT: Duration = Duration::from_secs(20);
/// … and how long without that before another process takes it for interrupted.
const STALE_AFTER: Duration = Duration::from_secs(120);
/// What is stored instead of the output of a command that touches secret material.
pub const WITHHELD: &str = "[output withheld: the command touches secret material; it is not stored or shown]\n";
/// How often a running execution looks for a cancel asked by another process.
pub(super) const CANCEL_POLL: Duration = Duration::from_secs(1);
/// The longest time limit a command may ask for.
pub(super) const MAX_TIMEOUT: Duration = Duration::from_secs(24 * 3600);

/// How much of a routine read's output the store keeps.
pub(super) const COMPACT_KEEP: usize = 2048;

/// What of an execution's output the store keeps.
#[derive(Debug, Clone, Copy)]
struct Keep {
    /// Nothing: the command touches secret material.
    withhold: bool,
    /// The head only, when it succeeded (a routine read).
    compact: bool,
}

/// The largest index ≤ `at` that does not split a UTF-8 sequence.
pub(super) fn utf8_floor(bytes: &[u8], at: usize) -> usize {
    let mut i = at.min(bytes.len());
    // Continuation bytes are 0b10xxxxxx; at most three precede a boundary.
    while i > 0 && i < bytes.len() && (bytes[i] & 0xC0) == 0x80 {
        i -= 1;
    }
    i
}

/// Registers a running execution's cancel handle with its actuator for as long as it runs here.
struct RunningGuard {
    running: Running,
    id: String,
}

impl RunningGuard {
    fn new(running: &Running, id: &str, cancel: Cancel) -> Self {
        running.map().insert(id.to_string(), cancel);
        RunningGuard { running: running.clone(), id: id.to_string() }
    }
}

impl Drop for RunningGuard {
    fn drop(&mut self) {
        self.running.map().remove(&self.id);
    }
}

/// The time limit an execution was asked with, else `default` (never above the maximum).
fn timeout_of(execution: &Execution, default: Duration) -> Duration {
    execution.params.get("timeout_secs").and_then(Json::as_u64).map_or(default, Duration::from_secs).min(MAX_TIMEOUT)
}

impl Actuator {
    /// Starts a `running` execution granted in `tx`: records the start, commits, and runs it —
    /// to its end, or in the background when it was asked so (its end lands in the store and on
    /// the bus; a task's background execution is linked to the task).
    pub(super) async fn launch(
        &self,
        mut tx: WriteTx,
        id: &str,
        actor: &str,
        target: Target,
        grant: &Grant,
    ) -> Result<Execution> {
        // The execution's own settings (an adopted one keeps those it was asked with).
        let execution = executions::get(&mut tx, id).await?;
        let detail = json!({"command": execution.command, "risk": execution.risk, "granted_by": grant.recorded()});
        let started = ExecutionStarted {
            execution_id: id.to_string(),
            task_id: execution.task_id.clone(),
            granted_by: Some(grant.recorded()),
        };
        Audit::by(actor, "execution.started", detail)
            .entity(target.slug())
            .task(execution.task_id.as_deref())
            .execution(id)
            .record(&mut tx, EventDraft::new(started).correlation(id).entity(target.slug()))
            .await?;
        let background = execution.params.get("background").and_then(Json::as_bool).unwrap_or(false);
        let compact = execution.params.get("compact").and_then(Json::as_bool).unwrap_or(false);
        if let (true, Some(task)) = (background, execution.task_id.as_deref()) {
            let now = tx.now().to_string();
            executions::link_task(&mut tx, id, task, &now).await?;
        }
        tx.commit().await?;
        let timeout = timeout_of(&execution, self.config.command_timeout);
        let me = self.clone();
        let id = id.to_string();
        if background {
            let run = id.clone();
            tokio::spawn(async move {
                if let Err(e) = me.execute_here(&run, &target, timeout, compact).await {
                    tracing::error!(execution = %run, error = %e, "background execution could not be recorded");
                }
            });
            return self.execution(&id).await;
        }
        // In its own task: the command is recorded to its end even if the caller stops waiting.
        match tokio::spawn(async move { me.execute_here(&id, &target, timeout, compact).await }).await {
            Ok(r) => r,
            Err(e) => Err(Error::Invalid(format!("the execution's task failed: {e}"))),
        }
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

    /// Executes and records. Whatever fails before the command starts still ends the execution
    /// (failed, with the reason), never leaves it running.
    async fn execute_here(&self, id: &str, target: &Target, timeout: Duration, compact: bool) -> Result<Execution> {
        let cancel = Cancel::new();
        let _running = RunningGuard::new(&self.running, id, cancel.clone());
        let mut withhold = false;
        let result = match self.prepare(id, target, timeout, &cancel).await {
            Ok((job, pinned, secret)) => {
                withhold = secret;
                // Output shows live as it arrives, except what is withheld (never copied out).
                let (tap, mut pieces) = tokio::sync::mpsc::unbounded_channel();
                let mut live = OutputStream::new(self.engine.clone(), id);
                let exec = self.ssh.exec(&target.endpoint, pinned, &job, timeout, &cancel, (!secret).then_some(&tap));
                tokio::pin!(exec);
                let mut beat = tokio::time::interval(HEARTBEAT);
                let mut watch = tokio::time::interval(CANCEL_POLL);
                let mut flush = tokio::time::interval(FLUSH_EVERY);
                beat.tick().await;
                loop {
                    tokio::select! {
                        r = &mut exec => {
                            while let Ok((kind, bytes)) = pieces.try_recv() {
                                live.push(kind, &bytes);
                            }
                            live.flush(true);
                            break r;
                        }
                        Some((kind, bytes)) = pieces.recv() => live.push(kind, &bytes),
                        _ = flush.tick() => live.flush(false),
                        _ = beat.tick() => self.heartbeat(id).await,
                        _ = watch.tick() => if self.cancel_requested(id).await { cancel.cancel() },
                    }
                }
            }
            Err(e) => Err(SshError::Protocol { host: target.host.slug.clone(), message: format!("not started: {e}") }),
        };
        self.note_key(target, &result).await;
        self.finish(id, target, result, timeout, Keep { withhold, compact }).await
    }

    /// A key the host presented that is not the pinned one is recorded (shown to the operator).
    async fn note_key(&self, target: &Target, result: &std::result::Result<Output, SshError>) {
        if let Err(SshError::UntrustedHostKey { seen, .. } | SshError::HostKeyChanged { seen, .. }) = result {
            let changed = matches!(result, Err(SshError::HostKeyChanged { .. }));
            if let Err(e) = self.record_seen_key(&target.host.slug, seen, changed).await {
                tracing::error!(host = %target.host.slug, error = %e, "could not record the host key seen");
            }
        }
    }

    /// Runs a probe's command — judged read-only by the gate already — to its end, without an
    /// execution row: the probe keeps its own last result (see `probe`). Host keys are checked and
    /// seen keys recorded as for any command.
    pub(super) async fn execute_probe(&self, target: &Target, command: &str, timeout: Duration) -> Result<Finished> {
        let pinned = host_keys::pinned(self.engine.store().pool(), &target.host.slug).await?;
        let job = target.job(command, timeout, self.config.ssh.kill_grace);
        let result = self.ssh.exec(&target.endpoint, pinned, &job, timeout, &Cancel::new(), None).await;
        self.note_key(target, &result).await;
        Ok(finished(result, timeout))
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
        let pool = self.engine.store().pool();
        let command = executions::command(pool, id).await?;
        let secret = self.policy.classify(&command, None).secret;
        if self.cancel_requested(id).await {
            cancel.cancel();
        }
        let job = target.job(&command, timeout, self.config.ssh.kill_grace);
        executions::set_kill_line(pool, id, &job.kill).await?;
        Ok((job, host_keys::pinned(pool, &target.host.slug).await?, secret))
    }

    /// Whether another process asked to stop this execution.
    pub(super) async fn cancel_requested(&self, id: &str) -> bool {
        matches!(executions::cancel_requested(self.engine.store().pool(), id).await, Ok(true))
    }

    /// Tells other processes this execution is still in hand (see [`Actuator::recover_interrupted`]).
    async fn heartbeat(&self, id: &str) {
        if let Err(e) = executions::heartbeat(self.engine.store().pool(), id, &self.clock.now()).await {
            tracing::warn!(execution = %id, error = %e, "could not record the heartbeat");
        }
    }

    /// Marks as failed the executions left `running` by a process that stopped (killed, crashed,
    /// machine off): no heartbeat for [`STALE_AFTER`]. Whether the command finished on the host is
    /// unknown, and the error says so; nothing is run again by itself. Returns how many.
    pub async fn recover_interrupted(&self) -> Result<usize> {
        let cutoff = crate::clock::format_ms(self.clock.now_ms() - ms(STALE_AFTER));
        let mut tx = self.engine.store().begin_write().await?;
        let now = tx.now().to_string();
        let stale = executions::stale(&mut tx, &cutoff).await?;
        // This process's own commands are alive whatever their heartbeat says (a laptop that slept).
        let stale: Vec<_> = {
            let own = self.running.map();
            stale.into_iter().filter(|s| !own.contains_key(&s.id)).collect()
        };
        for s in &stale {
            let error = format!(
                "{INTERRUPTED} the process running it stopped (last sign of life {}); whether the command \
                 finished on the host is unknown — check before running it again",
                s.heartbeat_at.as_deref().unwrap_or("unknown")
            );
            executions::end_from(&mut tx, &s.id, ExecutionStatus::Running, ExecutionStatus::Failed, Some(&error), &now)
                .await?;
            let finished = ExecutionFinished {
                execution_id: s.id.clone(),
                status: ExecutionStatus::Failed,
                exit_code: None,
                error: Some(error),
                task_id: s.task_id.clone(),
                action: s.action.clone(),
            };
            Audit::executor("execution.interrupted", json!({"last_heartbeat": s.heartbeat_at}))
                .entity(s.target.as_str())
                .task(s.task_id.as_deref())
                .execution(&s.id)
                .record(&mut tx, EventDraft::new(finished).correlation(&s.id).entity(&s.target))
                .await?;
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

    /// Records how a command ended, and for a curated action that succeeded, its follow-up in the
    /// same transaction (a new container is in the graph when its creation shows as completed).
    async fn finish(
        &self,
        id: &str,
        target: &Target,
        result: std::result::Result<Output, SshError>,
        timeout: Duration,
        keep: Keep,
    ) -> Result<Execution> {
        let mut f = finished(result, timeout);
        let mut full_stdout = None;
        if keep.withhold && !(f.stdout.is_empty() && f.stderr.is_empty()) {
            // Secrets never reach the database (nor the agent, which reads executions from it).
            f.stdout = WITHHELD.as_bytes().to_vec();
            f.stderr.clear();
        } else if keep.compact && f.status == ExecutionStatus::Completed && f.stdout.len() > COMPACT_KEEP {
            let cut = utf8_floor(&f.stdout, COMPACT_KEEP);
            let dropped = f.stdout.len() - cut;
            let mut head = f.stdout[..cut].to_vec();
            head.extend_from_slice(format!("\n[… {dropped} more bytes not kept: a routine read]\n").as_bytes());
            full_stdout = Some(std::mem::replace(&mut f.stdout, head));
        }
        let mut tx = self.engine.store().begin_write().await?;
        let now = tx.now().to_string();
        let recorded = executions::finish(&mut tx, id, &f, &now).await?;
        let mut execution = executions::get(&mut tx, id).await?;
        if let Some(full) = full_stdout {
            // The caller reads all of it; the store keeps the head.
            execution.stdout = String::from_utf8_lossy(&full).into_owned();
        }
        if !recorded {
            tracing::warn!(execution = %id, status = %execution.status, "finished, but the record had moved on; left as it is");
            return Ok(execution);
        }
        let detail = json!({"status": f.status, "exit_code": f.exit_code, "error": f.error,
                            "duration_ms": f.duration_ms, "output_truncated": f.truncated});
        let event = ExecutionFinished {
            execution_id: id.to_string(),
            status: f.status,
            exit_code: f.exit_code,
            error: f.error,
            task_id: execution.task_id.clone(),
            action: execution.action.clone(),
        };
        Audit::executor("execution.finished", detail)
            .entity(target.slug())
            .task(execution.task_id.as_deref())
            .execution(id)
            .record(&mut tx, EventDraft::new(event).correlation(id).entity(target.slug()))
            .await?;
        if execution.status == ExecutionStatus::Completed && execution.action != PLAIN_RUN {
            // A follow-up that fails leaves the execution completed, and says why.
            let mark = tx.savepoint().await?;
            match curated::after_success(&mut tx, self.engine.ontology(), &execution).await {
                Ok(()) => tx.release(mark).await?,
                Err(e) => {
                    tx.rollback_to(mark).await?;
                    tracing::warn!(execution = %id, error = %e, "follow-up of a curated action failed");
                }
            }
        }
        tx.commit().await?;
        tracing::info!(execution = %id, target = %target.slug(), status = %f.status, "execution finished");
        Ok(execution)
    }
}

/// The record of a command's end: its status, output and an error that says what happened.
fn finished(result: std::result::Result<Output, SshError>, timeout: Duration) -> Finished {
    let out = match result {
        Ok(out) => out,
        Err(e) => {
            return Finished {
                status: ExecutionStatus::Failed,
                exit_code: None,
                stdout: Vec::new(),
                stderr: Vec::new(),
                truncated: false,
                error: Some(e.to_string()),
                duration_ms: None,
            }
        }
    };
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
                "the connection was lost before the command reported its exit status; whether it finished on the \
                 host is unknown"
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
    Finished {
        status,
        exit_code: out.exit_code.map(i64::from),
        truncated: out.truncated,
        error,
        duration_ms: Some(i64::try_from(out.duration.as_millis()).unwrap_or(i64::MAX)),
        stdout: out.stdout,
        stderr: out.stderr,
    }
}
