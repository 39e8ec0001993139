//! The operator's decisions on waiting requests — approve, deny, cancel — and the other ways a
//! waiting approval ends: it expires, its task is deleted, or a window takes it over. One place,
//! [`close`], writes every ending.

use nomos_types::events::ApprovalDecided;
use nomos_types::{Approval, ApprovalStatus, Channel, Execution, ExecutionStatus, Risk, Verdict, WindowKind};
use serde_json::{json, Value as Json};

use super::decide::{check_approval_message, kept_message, operator_only, Grant};
use crate::actuate::db::approvals::{self, Decided};
use crate::actuate::db::audit::Audit;
use crate::actuate::db::executions::{self, AskedPlace};
use crate::actuate::db::settings;
use crate::actuate::target::resolve;
use crate::actuate::{Actuator, Decision};
use crate::events::EventDraft;
use crate::store::WriteTx;
use crate::{Error, Result};

impl Actuator {
    /// Approves a pending execution and runs it (in the background for background actions).
    /// A destructive one needs `decision.message` to be a typed confirmation naming its target.
    pub async fn approve(&self, approval_id: &str, decision: &Decision) -> Result<Execution> {
        operator_only(decision, "approve")?;
        let mut tx = self.engine.store().begin_write().await?;
        let approval = approvals::get(&mut tx, approval_id).await?;
        let mut tx = check_pending(tx, &approval).await?;
        let target = match resolve(&mut tx, &approval.target).await {
            Ok(t) => t,
            Err(e) => return Err(Error::Invalid(format!("cannot approve: {e}"))),
        };
        let asked = AskedPlace::of(&mut tx, &approval.execution_id).await?;
        if !asked.is(&target) {
            return Err(Error::Conflict(format!(
                "{} changed since this was asked (then {}, now {}): deny it and ask again",
                approval.target,
                asked.describe(),
                AskedPlace::describe_target(&target),
            )));
        }
        check_approval_message(&approval, &target, decision)?;
        let now = tx.now().to_string();
        let decided = Decided {
            status: ApprovalStatus::Approved,
            by: &decision.actor,
            channel: decision.channel,
            message: kept_message(decision, approval.requires_confirmation),
        };
        approvals::decide(&mut tx, &approval.id, &decided, &now).await?;
        let grant = Grant::Approval(approval.id.clone());
        if !executions::start_waiting(&mut tx, &approval.execution_id, &grant.recorded(), None, &now).await? {
            return Err(Error::Conflict(format!("execution {} is no longer waiting", approval.execution_id)));
        }
        let detail = json!({"approval": approval.id, "message": decision.message, "risk": approval.risk});
        let event = ApprovalDecided {
            approval_id: approval.id.clone(),
            execution_id: approval.execution_id.clone(),
            status: ApprovalStatus::Approved,
            channel: decision.channel,
            task_id: approval.task_id.clone(),
            reason: None,
            granted_by: None,
        };
        Audit::by(&decision.actor, "approval.approved", detail)
            .channel(decision.channel)
            .entity(approval.target.as_str())
            .task(approval.task_id.as_deref())
            .execution(&approval.execution_id)
            .record(&mut tx, EventDraft::new(event).correlation(&approval.execution_id).entity(&approval.target))
            .await?;
        // Approving lets the task go on: its assent window opens, and for a destructive command
        // also its window on this target.
        if let Some(task) = approval.task_id.as_deref() {
            if !settings::paused(&mut tx).await? {
                self.open_window_in(&mut tx, task, WindowKind::Assent, None, Some(&approval.id), decision).await?;
                if approval.risk == Risk::Destructive {
                    let on = Some(approval.target.as_str());
                    self.open_window_in(&mut tx, task, WindowKind::Destructive, on, Some(&approval.id), decision)
                        .await?;
                }
            }
        }
        self.launch(tx, &approval.execution_id, "executor", target, &grant).await
    }

    /// Refuses a pending execution; it never runs.
    pub async fn deny(&self, approval_id: &str, decision: &Decision) -> Result<Approval> {
        operator_only(decision, "deny")?;
        self.close_pending(approval_id, ApprovalStatus::Denied, decision).await
    }

    /// Ends a pending approval (and its execution) by the operator's or the requester's decision.
    pub(super) async fn close_pending(
        &self,
        approval_id: &str,
        status: ApprovalStatus,
        decision: &Decision,
    ) -> Result<Approval> {
        let mut tx = self.engine.store().begin_write().await?;
        let approval = approvals::get(&mut tx, approval_id).await?;
        let mut tx = check_pending(tx, &approval).await?;
        let closing = Closing {
            status,
            actor: &decision.actor,
            channel: decision.channel,
            message: kept_message(decision, false),
            action: if status == ApprovalStatus::Denied { "approval.denied" } else { "approval.cancelled" },
            detail: json!({"approval": approval.id, "message": decision.message}),
            reason: None,
            granted_by: None,
            ends_execution: Some(None),
        };
        close(&mut tx, &approval, closing).await?;
        let approval = approvals::get(&mut tx, &approval.id).await?;
        tx.commit().await?;
        Ok(approval)
    }

    /// Marks every pending approval past its expiry as expired. Returns how many.
    pub async fn expire_due(&self) -> Result<usize> {
        let mut tx = self.engine.store().begin_write().await?;
        let now = tx.now().to_string();
        let due = approvals::pending(&mut tx, None, Some(&now)).await?;
        for a in &due {
            expire_one(&mut tx, a).await?;
        }
        tx.commit().await?;
        Ok(due.len())
    }
}

/// Fails unless `approval` is still pending and not past its expiry. An overdue one is marked
/// expired on the spot (the sweep may not have run yet) and that is committed before failing.
async fn check_pending(mut tx: WriteTx, approval: &Approval) -> Result<WriteTx> {
    if approval.status != ApprovalStatus::Pending {
        return Err(Error::Conflict(format!("approval {} is already {}", approval.id, approval.status)));
    }
    if approval.expires_at.as_str() <= tx.now() {
        expire_one(&mut tx, approval).await?;
        tx.commit().await?;
        return Err(Error::Conflict(format!(
            "approval {} expired at {}; nothing ran — ask again",
            approval.id, approval.expires_at
        )));
    }
    Ok(tx)
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
async fn close(tx: &mut WriteTx, approval: &Approval, c: Closing<'_>) -> Result<()> {
    let now = tx.now().to_string();
    let decided = Decided { status: c.status, by: c.actor, channel: c.channel, message: c.message };
    approvals::decide(tx, &approval.id, &decided, &now).await?;
    if let Some(error) = c.ends_execution {
        executions::end_from(
            tx,
            &approval.execution_id,
            ExecutionStatus::PendingApproval,
            ExecutionStatus::from(c.status),
            error,
            &now,
        )
        .await?;
    }
    let event = ApprovalDecided {
        approval_id: approval.id.clone(),
        execution_id: approval.execution_id.clone(),
        status: c.status,
        channel: c.channel,
        task_id: approval.task_id.clone(),
        reason: c.reason.map(str::to_string),
        granted_by: c.granted_by.map(str::to_string),
    };
    Audit::by(c.actor, c.action, c.detail)
        .channel(c.channel)
        .entity(approval.target.as_str())
        .task(approval.task_id.as_deref())
        .execution(&approval.execution_id)
        .record(tx, EventDraft::new(event).correlation(&approval.execution_id).entity(&approval.target))
        .await
}

/// Closes a waiting approval because a window now covers the same request, and starts its
/// execution under that window with the request's judgement of this time.
pub(super) async fn supersede(tx: &mut WriteTx, approval: &Approval, grant: &Grant, verdict: &Verdict) -> Result<()> {
    let granted_by = grant.recorded();
    let closing = Closing {
        status: ApprovalStatus::Cancelled,
        actor: "system:gate",
        channel: Channel::System,
        message: None,
        action: "approval.superseded",
        detail: json!({"approval": approval.id, "granted_by": granted_by}),
        reason: Some("superseded"),
        granted_by: Some(&granted_by),
        ends_execution: None,
    };
    close(tx, approval, closing).await?;
    let now = tx.now().to_string();
    let rejudged = Some((verdict.risk, verdict.reasons.as_slice()));
    executions::start_waiting(tx, &approval.execution_id, &granted_by, rejudged, &now).await?;
    Ok(())
}

/// Withdraws the requests a task is waiting on, as part of deleting it (inside the caller's
/// transaction): nobody may approve what a deleted task asked for.
pub(crate) async fn withdraw_task_requests(tx: &mut WriteTx, task_id: &str) -> Result<usize> {
    let waiting = approvals::pending(tx, Some(task_id), None).await?;
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
        close(tx, a, closing).await?;
    }
    Ok(waiting.len())
}

pub(super) async fn expire_one(tx: &mut WriteTx, approval: &Approval) -> Result<()> {
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
    close(tx, approval, closing).await
}
