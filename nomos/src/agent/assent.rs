//! One plan approval: the operator's message to a task that waits for its plan or for an
//! approval, read as a decision before the turn goes on.
//!
//! - The message is judged once ([`crate::policy::judge_reply`]) against the real proposal: the
//!   plan's steps not begun and the approvals waiting, each with its target and command. Assent
//!   (a go-ahead for all of it) opens the task's assent window through the gate, with the message
//!   as the decision's text, so Nomos carries the plan out without asking again. It also grants
//!   and runs the non-destructive approvals of the task's latest request (the newest turn that
//!   queued any) — only those: a stale yes approves nothing older.
//! - A destructive approval is granted only by its typed confirmation (`confirm <target>`, with
//!   the verb of its most destructive action if any), never by assent.
//! - Anything else is simply the operator's next message.
//!
//! The UI's button takes the same path with channel `ui` and no text ([`approve_plan`]).

use std::collections::HashSet;

use nomos_types::{Approval, Channel, Execution, WaitingFor, WindowKind};

use super::chat::Role;
use super::transcript::Transcript;
use crate::actuate::{Actuator, Decision};
use crate::plan::StepStatus;
use crate::policy::{judge_reply, ConfirmTarget, Proposal, Step};
use crate::{Engine, Result};

/// What an operator's message decided.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Granted {
    /// The assent window opened for the task, if one did.
    pub window: Option<String>,
    /// Executions approved by the message (and run), with their state after running.
    pub executions: Vec<Execution>,
    /// Why something the message meant to grant was not (autonomy paused, an approval changed).
    pub refused: Vec<String>,
}

impl Granted {
    /// Whether the message decided anything at all.
    pub fn any(&self) -> bool {
        self.window.is_some() || !self.executions.is_empty() || !self.refused.is_empty()
    }
}

/// How a reply may name `slug` (see [`crate::actuate::target::confirm_target`]); just the slug
/// when the graph does not know it.
async fn confirm_target(engine: &Engine, slug: &str) -> Result<ConfirmTarget> {
    let mut conn = engine.store().pool().acquire().await?;
    Ok(match crate::actuate::target::target_entity(&mut conn, slug).await {
        Ok(e) => crate::actuate::target::confirm_target(&e, None),
        Err(_) => ConfirmTarget::new(slug),
    })
}

/// A step of the proposal on `slug` (when known) running `command` (when known).
async fn step(engine: &Engine, slug: Option<&str>, command: Option<&str>) -> Result<Step> {
    let target = match slug {
        Some(s) => Some(confirm_target(engine, s).await?),
        None => None,
    };
    Ok(Step::new(target, command))
}

/// Whether the task's plan still waits for the operator: it has steps not begun, and no assent
/// window of the task is open (none was opened yet, or it ran out). A turn that ends in text then
/// waits for the plan, so the operator's yes to it is still read as assent.
pub(crate) async fn plan_waits(engine: &Engine, task: &str) -> Result<bool> {
    if !engine.plan(task).await?.iter().any(|s| s.status == StepStatus::Pending) {
        return Ok(false);
    }
    let mut conn = engine.store().pool().acquire().await?;
    let now = engine.clock().now();
    Ok(crate::actuate::db::windows::covering(&mut conn, task, WindowKind::Assent, None, &now).await?.is_none())
}

/// The task's requests still waiting for the operator's decision: pending and not past their
/// expiry (one the sweep has not expired yet is already past deciding).
pub(crate) async fn waiting_approvals(engine: &Engine, task: &str) -> Result<Vec<Approval>> {
    let now = engine.clock().now();
    let mut conn = engine.store().pool().acquire().await?;
    let pending = crate::actuate::db::approvals::pending(&mut conn, Some(task), None).await?;
    Ok(pending.into_iter().filter(|a| a.expires_at.as_str() > now.as_str()).collect())
}

/// The approvals still waiting from the task's latest request for approval: the newest turn
/// that queued anything (a turn that only talked, e.g. explaining why, does not move that point).
/// The only ones a message may grant: a stale yes approves nothing older, and what that turn
/// queued and was decided meanwhile is not replaced by something older either.
async fn last_turn_approvals(engine: &Engine, actuator: &Actuator, task: &str) -> Result<Vec<Approval>> {
    let transcript = Transcript::new(engine, task);
    let calls = transcript.calls().await?;
    let mut turns: Vec<String> = Vec::new();
    for m in transcript.messages().await?.into_iter().rev().filter(|m| m.role == Role::Assistant) {
        if let Some(turn) = m.turn_id {
            if !turns.contains(&turn) {
                turns.push(turn);
            }
        }
    }
    let mut conn = engine.store().pool().acquire().await?;
    for turn in turns {
        let executions: HashSet<String> = calls
            .iter()
            .filter(|c| c.turn_id.as_deref() == Some(turn.as_str()))
            .filter_map(|c| c.execution_id.clone())
            .collect();
        let mut queued = false;
        for x in &executions {
            match crate::actuate::db::approvals::get(&mut conn, x).await {
                Ok(_) => queued = true,
                Err(crate::Error::NotFound { .. }) => {}
                Err(e) => return Err(e),
            }
        }
        if queued {
            drop(conn);
            return Ok(actuator
                .pending_approvals()
                .await?
                .into_iter()
                .filter(|a| a.task_id.as_deref() == Some(task) && executions.contains(&a.execution_id))
                .collect());
        }
    }
    Ok(Vec::new())
}

/// Reads the operator's `message` to `task` (already in its transcript) as a decision: see the
/// module documentation. Does nothing unless the task waits for its plan or for an approval.
/// What it granted is noted in the transcript for the model.
pub async fn on_operator_message(engine: &Engine, actuator: &Actuator, task: &str, message: &str) -> Result<Granted> {
    let t = engine.task(task).await?;
    if !matches!(t.waiting_for, Some(WaitingFor::Plan | WaitingFor::Approval)) {
        return Ok(Granted::default());
    }
    let approvals = last_turn_approvals(engine, actuator, task).await?;
    // What the message answers: the plan's steps not begun, then the approvals waiting.
    let mut steps = Vec::new();
    for s in engine.plan(task).await?.iter().filter(|s| s.status == StepStatus::Pending) {
        steps.push(step(engine, s.target.as_deref(), s.command.as_deref()).await?);
    }
    let first_approval = steps.len();
    for a in &approvals {
        steps.push(step(engine, Some(&a.target), Some(&a.command)).await?);
    }
    let judged = judge_reply(message, &Proposal::new(steps));
    let assent = judged.assent;
    let decision = Decision::by_operator(Channel::Chat, Some(message.to_string()));
    let mut granted = Granted::default();
    if assent {
        open_assent_window(actuator, task, &decision, &mut granted).await;
    }
    for (i, a) in approvals.iter().enumerate() {
        let grants = if a.requires_confirmation {
            judged.typed_confirmation && judged.covers.contains(&(first_approval + i))
        } else {
            assent
        };
        if grants {
            approve(actuator, a, &decision, &mut granted).await;
        } else if assent {
            let phrase = a.confirmation.as_deref().unwrap_or("confirm <target>");
            granted.refused.push(format!(
                "`{}` on {} is destructive: a yes does not approve it; it waits for the typed confirmation `{phrase}`",
                a.command, a.target
            ));
        }
    }
    note(engine, task, &granted, Some(message)).await?;
    Ok(granted)
}

/// The UI's "approve plan" button: the same as assent in chat, on channel `ui`. A destructive
/// approval waiting is left for its typed confirmation.
pub async fn approve_plan(engine: &Engine, actuator: &Actuator, task: &str) -> Result<Granted> {
    let t = engine.task(task).await?;
    if t.status.is_end() {
        return Err(crate::Error::Conflict(format!("task {task} is {}: there is no plan to approve", t.status)));
    }
    let decision = Decision::by_operator(Channel::Ui, None);
    let mut granted = Granted::default();
    open_assent_window(actuator, task, &decision, &mut granted).await;
    for a in last_turn_approvals(engine, actuator, task).await? {
        if !a.requires_confirmation {
            approve(actuator, &a, &decision, &mut granted).await;
        }
    }
    note(engine, task, &granted, None).await?;
    Ok(granted)
}

/// Opens the task's assent window; a refusal (autonomy paused) is reported, not an error: the
/// message itself is still the operator's.
async fn open_assent_window(actuator: &Actuator, task: &str, decision: &Decision, granted: &mut Granted) {
    match actuator.open_window(task, WindowKind::Assent, None, decision).await {
        Ok(w) => granted.window = Some(w.id),
        Err(e) => granted.refused.push(format!("the assent window did not open: {e}")),
    }
}

async fn approve(actuator: &Actuator, approval: &Approval, decision: &Decision, granted: &mut Granted) {
    // What runs now is reported in the note below and read by the turn that follows: no
    // continuation may take it meanwhile. One that goes on in the background (or does not run)
    // is given back, to continue the task when it ends.
    let (engine, id) = (actuator.engine(), approval.execution_id.as_str());
    let held = match super::continuation::hold(engine, id).await {
        Ok(held) => held,
        Err(e) => {
            tracing::warn!(execution = %id, error = %e, "could not hold the execution's link");
            false
        }
    };
    let result = actuator.approve(&approval.id, decision).await;
    if held && !matches!(&result, Ok(x) if x.status.is_final()) {
        if let Err(e) = super::continuation::give_back(engine, id).await {
            tracing::warn!(execution = %id, error = %e, "could not give the execution's link back");
        }
    }
    match result {
        Ok(x) => granted.executions.push(x),
        Err(e) => granted.refused.push(format!("`{}` on {} was not approved: {e}", approval.command, approval.target)),
    }
}

/// Tells the model what the operator's decision did, so it carries on from there.
async fn note(engine: &Engine, task: &str, granted: &Granted, message: Option<&str>) -> Result<()> {
    if !granted.any() {
        return Ok(());
    }
    let mut text = match message {
        Some(m) => format!("The operator's message {m:?} was taken as a decision.\n"),
        None => "The operator approved the plan with the button.\n".to_string(),
    };
    if granted.window.is_some() {
        text.push_str(
            "The plan is approved: its changes run without asking again while the window lasts (a destructive \
             command still needs the typed confirmation naming its target). Carry the plan out.\n",
        );
    }
    for x in &granted.executions {
        let exit = x.exit_code.map(|c| format!(", exit {c}")).unwrap_or_default();
        text.push_str(&format!(
            "Approved and run: execution {} `{}` on {} — {}{exit}. Read it with get_execution_status.\n",
            x.id, x.command, x.target, x.status
        ));
    }
    for r in &granted.refused {
        text.push_str(&format!("{r}\n"));
    }
    Transcript::new(engine, task).add(Role::System, text.trim_end(), None).await?;
    Ok(())
}
