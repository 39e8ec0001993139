//! Stopping an execution: a waiting one is withdrawn; a running one is killed on its host — by
//! this process when it runs it, else by asking the process that does (and, should that one not
//! answer, killing the command from here).

use nomos_types::events::ExecutionFinished;
use nomos_types::{ApprovalStatus, Execution, ExecutionStatus};
use serde_json::json;

use super::execute::CANCEL_POLL;
use crate::actuate::db::audit::Audit;
use crate::actuate::db::{executions, host_keys};
use crate::actuate::ssh::{Endpoint, Pinned};
use crate::actuate::target::resolve;
use crate::actuate::{Actuator, Decision};
use crate::events::EventDraft;
use crate::{Error, Result};

impl Actuator {
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
        let mut tx = self.engine.store().begin_write().await?;
        let runner = match handle {
            Some(c) => {
                c.cancel();
                "this process"
            }
            // Another process runs it: it polls for this and kills the command.
            None => {
                let now = tx.now().to_string();
                if !executions::request_cancel(&mut tx, &execution.id, &now).await? {
                    return self.execution(&execution.id).await;
                }
                "another process"
            }
        };
        Audit::by(&decision.actor, "execution.cancel_requested", json!({"runner": runner}))
            .channel(decision.channel)
            .entity(execution.target.as_str())
            .task(execution.task_id.as_deref())
            .execution(&execution.id)
            .record(&mut tx, None)
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
        let pool = self.engine.store().pool();
        let Some(kill_line) = executions::kill_line_if_running(pool, &execution.id).await? else {
            return self.execution(&execution.id).await;
        };
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
        let mut tx = self.engine.store().begin_write().await?;
        let now = tx.now().to_string();
        if executions::end_from(
            &mut tx,
            &execution.id,
            ExecutionStatus::Running,
            ExecutionStatus::Cancelled,
            Some(&error),
            &now,
        )
        .await?
        {
            let detail =
                json!({"status": ExecutionStatus::Cancelled, "error": error, "killed_from": "another process"});
            let finished = ExecutionFinished {
                execution_id: execution.id.clone(),
                status: ExecutionStatus::Cancelled,
                exit_code: None,
                error: Some(error.clone()),
                task_id: execution.task_id.clone(),
                action: execution.action.clone(),
            };
            Audit::executor("execution.finished", detail)
                .entity(execution.target.as_str())
                .task(execution.task_id.as_deref())
                .execution(&execution.id)
                .record(&mut tx, EventDraft::new(finished).correlation(&execution.id).entity(&execution.target))
                .await?;
        }
        tx.commit().await?;
        self.execution(&execution.id).await
    }

    /// Where to send a kill line for a target (its host's endpoint and pinned key).
    async fn resolve_for_kill(&self, target: &str) -> Result<(Endpoint, Option<Pinned>)> {
        let pool = self.engine.store().pool();
        let t = resolve(&mut *pool.acquire().await?, target).await?;
        let pinned = host_keys::pinned(pool, &t.host.slug).await?;
        Ok((t.endpoint, pinned))
    }
}
