//! The rules the gate decides by: what lets a command run, who may decide, and what an operator's
//! decision has to say.

use nomos_types::{Approval, Channel, Entity, Risk, WindowKind};
use sqlx::SqliteConnection;

use crate::actuate::db::{settings, windows};
use crate::actuate::target::{confirm_target, Target};
use crate::actuate::Decision;
use crate::policy::{confirmation_phrase, judge_reply, typed_confirmation, Proposal, Step};
use crate::{Error, Result};

/// What lets an execution run, as recorded in its `granted_by`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Grant {
    /// It only reads: nothing needed.
    ReadOnly,
    /// An open window of its task (and target, for destructive ones).
    Window(String),
    /// The operator approved it.
    Approval(String),
}

impl Grant {
    /// `read_only`, `window:<id>` or the approval's id.
    pub(super) fn recorded(&self) -> String {
        match self {
            Grant::ReadOnly => "read_only".into(),
            Grant::Window(id) => format!("window:{id}"),
            Grant::Approval(id) => id.clone(),
        }
    }
}

/// What lets a command of `risk`, asked by `task` for `target`, run now: nothing for a read-only
/// one; else an open window of the same task — for a destructive command, its window on that
/// target. No task, no window (fail closed); none while autonomy is paused.
pub(super) async fn grant_for(
    conn: &mut SqliteConnection,
    task: Option<&str>,
    risk: Risk,
    target: &str,
    now: &str,
) -> Result<Option<Grant>> {
    if risk == Risk::ReadOnly {
        return Ok(Some(Grant::ReadOnly));
    }
    let Some(task) = task else { return Ok(None) };
    if settings::paused(conn).await? {
        return Ok(None);
    }
    let window = match risk {
        Risk::ReadOnly | Risk::ReversibleLow | Risk::ConfigMutation => {
            windows::covering(conn, task, WindowKind::Assent, None, now).await?
        }
        Risk::Destructive => windows::covering(conn, task, WindowKind::Destructive, Some(target), now).await?,
    };
    Ok(window.map(Grant::Window))
}

/// Whether a waiting request may run under the grant a new, identical request has: only when the
/// new one is judged at least as risky (a weaker grant never passes what was judged riskier) and
/// the target is still the place it was asked for.
pub(super) fn covers(waiting: &Approval, risk: Risk, same_place: bool) -> bool {
    waiting.risk <= risk && same_place
}

/// Approving, denying, opening windows, resuming autonomy and trusting host keys are the
/// operator's (`operator` or `operator:<who>`): the agent may withdraw its own requests (cancel)
/// and anyone may pause, but nothing grants itself permission.
pub(super) fn operator_only(decision: &Decision, what: &str) -> Result<()> {
    let operator = decision.actor == "operator" || decision.actor.starts_with("operator:");
    if !operator || decision.channel == Channel::System {
        return Err(Error::Invalid(format!("only an operator can {what}; `{}` cannot", decision.actor)));
    }
    Ok(())
}

/// What approving says: a destructive command needs a typed confirmation naming its target; in
/// chat, anything else needs words that assent.
pub(super) fn check_approval_message(approval: &Approval, target: &Target, decision: &Decision) -> Result<()> {
    let message = decision.message.as_deref().unwrap_or("");
    let confirm = confirm_target(&target.entity, Some(&approval.command));
    if approval.requires_confirmation {
        if !confirms(approval, &target.entity, message) {
            return Err(Error::Invalid(format!(
                "a destructive command needs a typed confirmation naming its target: `{}`",
                confirmation_phrase(&confirm)
            )));
        }
    } else if decision.channel == Channel::Chat && {
        let judged = judge_reply(message, &Proposal::new(vec![Step::new(Some(confirm), Some(&approval.command))]));
        !(judged.assent || judged.typed_confirmation)
    } {
        return Err(Error::Invalid("that message does not approve anything".into()));
    }
    Ok(())
}

/// Whether `text` is the typed confirmation that approves a destructive request on `entity`.
pub(super) fn confirms(approval: &Approval, entity: &Entity, text: &str) -> bool {
    typed_confirmation(text, &confirm_target(entity, Some(&approval.command)))
}

/// The operator's words kept with a decision: chat messages and typed confirmations.
pub(super) fn kept_message(decision: &Decision, requires_confirmation: bool) -> Option<&str> {
    decision.message.as_deref().filter(|_| decision.channel == Channel::Chat || requires_confirmation)
}
