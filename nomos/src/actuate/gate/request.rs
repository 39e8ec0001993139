//! A request comes in: checked, classified, then run now, joined to the same change running or
//! waiting, let through by a window, or queued for the operator.

use nomos_types::events::{ApprovalRequested, ExecutionCreated};
use nomos_types::{Approval, ExecutionStatus, Risk, Verdict};
use serde_json::{json, Value as Json};

use super::decide::{covers, grant_for, Grant};
use super::execute::MAX_TIMEOUT;
use super::ms;
use crate::actuate::db::approvals::{self, NewApproval};
use crate::actuate::db::audit::Audit;
use crate::actuate::db::executions::{self, AskedPlace, NewExecution};
use crate::actuate::target::{resolve, Target};
use crate::actuate::{Actuator, RunOutcome, RunRequest, PLAIN_RUN};
use crate::events::EventDraft;
use crate::graph::new_id;
use crate::store::WriteTx;
use crate::{Error, Result};

/// The longest command accepted: it travels as one argument (Linux allows 128 KiB), base64-encoded
/// for containers.
const MAX_COMMAND: usize = 64 * 1024;

impl Actuator {
    /// The one path for every command: classify, then run, run inside a window, or queue.
    pub async fn run(&self, req: RunRequest) -> Result<RunOutcome> {
        self.run_as(req, None).await
    }

    /// [`Actuator::run`] for a curated action: `action` is its name and the parameters recorded
    /// with the execution (and acted on when it succeeds, see [`crate::actuate::curated`]).
    /// Crate-private: only the curated module may claim to be an action.
    pub(crate) async fn run_as(&self, req: RunRequest, action: Option<(String, Json)>) -> Result<RunOutcome> {
        check(&req)?;
        let target = {
            let mut conn = self.engine.store().pool().acquire().await?;
            resolve(&mut conn, &req.target).await?
        };
        // A command the classifier fails on is neither run nor queued: nothing can vouch for it.
        let verdict = self.policy.judge(&req.command, req.declared_risk).inspect_err(|failure| {
            tracing::error!(target = %req.target, "refused a command: {failure}");
        })?;
        if req.read_only && verdict.risk != Risk::ReadOnly {
            return Err(self.refuse_not_read_only(&req, &target, &verdict).await);
        }
        let (action, mut params) = action.unwrap_or_else(|| (PLAIN_RUN.into(), json!({})));
        if let Some(map) = params.as_object_mut() {
            // A queued request keeps its own time limit and mode for when it is approved.
            if let Some(t) = req.timeout {
                map.entry("timeout_secs").or_insert(json!(t.as_secs()));
            }
            if req.background {
                map.insert("background".into(), json!(true));
            }
            if req.compact {
                map.insert("compact".into(), json!(true));
            }
        }
        // Read before the write transaction: the operator sees what else the change reaches.
        let blast = if verdict.risk == Risk::ReadOnly { json!({}) } else { self.blast_summary(target.slug()).await };
        let mut tx = self.engine.store().begin_write().await?;
        let now = tx.now().to_string();
        if let Some(task) = &req.task_id {
            crate::tasks::require_task(&mut tx, task).await?;
        }
        let grant = grant_for(&mut tx, req.task_id.as_deref(), verdict.risk, target.slug(), &now).await?;
        let asked = Asked { req: &req, target: &target, verdict: &verdict, action: &action, params: &params };

        // A task asking again for a change that is running right now (approved a moment ago) gets
        // that run, not a second copy of it.
        if let (Some(task), true) = (&req.task_id, verdict.risk != Risk::ReadOnly) {
            let running = executions::same_request(
                &mut tx,
                ExecutionStatus::Running,
                Some(task),
                target.slug(),
                &req.command,
                &action,
            )
            .await?;
            if let Some(id) = running {
                drop(tx);
                tracing::info!(execution = %id, "the same change is already running for this task; joining it");
                let execution = if req.background { self.execution(&id).await? } else { self.wait_final(&id).await? };
                return Ok(RunOutcome::Ran(execution));
            }
        }
        // The same request while one waits is that one, never a second execution.
        let pending = executions::same_request(
            &mut tx,
            ExecutionStatus::PendingApproval,
            req.task_id.as_deref(),
            target.slug(),
            &req.command,
            &action,
        )
        .await?;
        let mut adopted = None;
        if let Some(pending_id) = pending {
            let waiting = approvals::get(&mut tx, &pending_id).await?;
            if waiting.expires_at <= now {
                super::approvals::expire_one(&mut tx, &waiting).await?;
            } else {
                if verdict.risk > waiting.risk {
                    raise(&mut tx, &asked, &waiting).await?;
                }
                // A waiting request judged riskier than this one keeps waiting for its own decision,
                // and so does one asked for a place that has changed since.
                let same_place = AskedPlace::of(&mut tx, &pending_id).await?.is(&target);
                match grant.as_ref().filter(|_| covers(&waiting, verdict.risk, same_place)) {
                    None => {
                        let execution = executions::get(&mut tx, &pending_id).await?;
                        let approval = approvals::get(&mut tx, &waiting.id).await?;
                        tx.commit().await?;
                        return Ok(RunOutcome::Queued { execution, approval: Box::new(approval), existing: true });
                    }
                    Some(g) => {
                        // A window now covers it: the waiting request runs once, under the window,
                        // and its approval is closed — approving it later cannot run it again.
                        super::approvals::supersede(&mut tx, &waiting, g, &verdict).await?;
                        if !req.background {
                            // Its end goes back to this call: nothing is left to continue the task for.
                            executions::claim_link(&mut tx, &pending_id, &now).await?;
                        }
                        adopted = Some(pending_id);
                    }
                }
            }
        }

        let Some(grant) = grant else {
            let (execution, approval) = self.queue(&mut tx, &asked, blast).await?;
            tx.commit().await?;
            tracing::info!(execution = %execution.id, target = %target.slug(), risk = %verdict.risk, "queued for approval");
            return Ok(RunOutcome::Queued { execution, approval: Box::new(approval), existing: false });
        };
        let id = match adopted {
            Some(id) => id,
            None => {
                let id = new_id();
                insert(&mut tx, &id, &asked, ExecutionStatus::Running, Some(&grant)).await?;
                id
            }
        };
        let execution = self.launch(tx, &id, &req.requested_by, target, &grant).await?;
        Ok(RunOutcome::Ran(execution))
    }

    /// A caller that may only read asked for more: recorded in the ledger, nothing run or queued.
    pub(super) async fn refuse_not_read_only(&self, req: &RunRequest, target: &Target, verdict: &Verdict) -> Error {
        let message = format!(
            "refused `{}` on {}: it is judged {} ({}), and {} runs only read-only commands",
            req.command,
            target.slug(),
            verdict.risk,
            verdict.reasons.join("; "),
            req.requested_by
        );
        tracing::warn!(target = %target.slug(), risk = %verdict.risk, requested_by = %req.requested_by, "refused a command that is not read-only");
        let detail = json!({"command": req.command, "risk": verdict.risk, "reasons": verdict.reasons,
                            "purpose": req.purpose, "refused": "not read-only"});
        let recorded = Audit::by(&req.requested_by, "execution.refused", detail)
            .entity(target.slug())
            .record_alone(&self.engine)
            .await;
        if let Err(e) = recorded {
            tracing::error!(error = %e, "could not record a refused command in the ledger");
        }
        Error::Invalid(message)
    }

    /// Queues a request for the operator: its execution waits on a new approval.
    async fn queue(
        &self,
        tx: &mut WriteTx,
        asked: &Asked<'_>,
        blast: Json,
    ) -> Result<(nomos_types::Execution, Approval)> {
        let (req, verdict) = (asked.req, asked.verdict);
        let id = new_id();
        let approval_id = new_id();
        insert(tx, &id, asked, ExecutionStatus::PendingApproval, None).await?;
        if let Some(task) = req.task_id.as_deref() {
            // The operator decides after the asking call returned: the task resumes on the decision.
            let now = tx.now().to_string();
            executions::link_task(tx, &id, task, &now).await?;
        }
        let expires = self.clock.after_ms(ms(self.config.approval_ttl));
        let now = tx.now().to_string();
        let new = NewApproval {
            id: &approval_id,
            execution_id: &id,
            task_id: req.task_id.as_deref(),
            requires_confirmation: verdict.risk == Risk::Destructive,
            blast_radius: &blast,
            expires_at: &expires,
        };
        approvals::insert(tx, &new, &now).await?;
        let detail = json!({"command": req.command, "risk": verdict.risk, "reasons": verdict.reasons,
                            "purpose": req.purpose, "approval": approval_id, "expires_at": expires});
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
        Audit::by(&req.requested_by, "approval.requested", detail)
            .entity(asked.target.slug())
            .task(req.task_id.as_deref())
            .execution(&id)
            .record(tx, EventDraft::new(requested).correlation(&id).entity(asked.target.slug()))
            .await?;
        Ok((executions::get(tx, &id).await?, approvals::get(tx, &approval_id).await?))
    }
}

/// Refuses what no host should be sent: bad time limits, NUL bytes, oversized commands.
pub(super) fn check(req: &RunRequest) -> Result<()> {
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
    Ok(())
}

/// A request as the gate judged it.
struct Asked<'a> {
    req: &'a RunRequest,
    target: &'a Target,
    verdict: &'a Verdict,
    action: &'a str,
    params: &'a Json,
}

/// Records a new execution of the request and announces it.
async fn insert(
    tx: &mut WriteTx,
    id: &str,
    asked: &Asked<'_>,
    status: ExecutionStatus,
    grant: Option<&Grant>,
) -> Result<()> {
    let (req, verdict) = (asked.req, asked.verdict);
    let granted_by = grant.map(Grant::recorded);
    let new = NewExecution {
        id,
        task_id: req.task_id.as_deref(),
        target: asked.target,
        action: asked.action,
        params: asked.params,
        command: &req.command,
        purpose: &req.purpose,
        declared_risk: req.declared_risk,
        risk: verdict.risk,
        reasons: &verdict.reasons,
        status,
        requested_by: &req.requested_by,
        granted_by: granted_by.as_deref(),
    };
    let now = tx.now().to_string();
    executions::insert(tx, &new, &now).await?;
    let created = ExecutionCreated {
        execution_id: id.to_string(),
        status,
        risk: verdict.risk,
        task_id: req.task_id.clone(),
        action: asked.action.to_string(),
        purpose: req.purpose.clone(),
    };
    tx.emit(EventDraft::new(created).correlation(id).entity(asked.target.slug())).await?;
    Ok(())
}

/// Asked again as riskier (a higher declaration): the waiting request is raised, so a weaker
/// approval cannot pass what is now judged riskier.
async fn raise(tx: &mut WriteTx, asked: &Asked<'_>, waiting: &Approval) -> Result<()> {
    let (req, verdict) = (asked.req, asked.verdict);
    let id = &waiting.execution_id;
    executions::raise(tx, id, verdict.risk, &verdict.reasons, req.declared_risk).await?;
    approvals::set_requires_confirmation(tx, &waiting.id, verdict.risk == Risk::Destructive).await?;
    let detail = json!({"approval": waiting.id, "from": waiting.risk, "to": verdict.risk, "reasons": verdict.reasons});
    let raised = ApprovalRequested {
        approval_id: waiting.id.clone(),
        execution_id: id.clone(),
        risk: verdict.risk,
        task_id: req.task_id.clone(),
        command: waiting.command.clone(),
        purpose: waiting.purpose.clone(),
        blast_radius: waiting.blast_radius.clone(),
        raised_from: Some(waiting.risk),
    };
    Audit::by(&req.requested_by, "approval.raised", detail)
        .entity(asked.target.slug())
        .task(req.task_id.as_deref())
        .execution(id)
        .record(tx, EventDraft::new(raised).correlation(id).entity(asked.target.slug()))
        .await
}
