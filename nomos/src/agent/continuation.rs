//! A task resumes by itself when something it waits on ends after the call that asked for it
//! returned: a queued execution the operator decided (approved and run, denied, expired,
//! cancelled), or a background one (`pct_create`, `apt_upgrade` …) that finished.
//!
//! The gate links such executions to their task (`task_executions`). Here each ended link is
//! claimed exactly once, across processes, by a conditional update; the same transaction adds a
//! note to the task's transcript saying what happened, so the model sees it and the note is never
//! lost nor written twice. The task's next turn then runs where the link was claimed (see
//! [`super::Agent::continue_ready`]); if a turn of the task runs right now, the note is enough —
//! that turn reads the history before each model call. A task that has ended is not resumed (its
//! links are still claimed, so they are not looked at again).

use nomos_types::{Approval, Execution, ExecutionStatus};

use super::chat::Role;
use super::tools::cap_text;
use crate::actuate::db::{approvals, executions};
use crate::{Engine, Result};

/// How much of each output stream the note shows (head and tail).
const OUTPUT_CAP: usize = 1500;

/// Claims every ended link (of `task`, or of all tasks) not continued yet and notes each in its
/// task's transcript. Returns the tasks to resume — each once, in the order their first link
/// ended — leaving out the ones that have ended.
pub(crate) async fn claim_due(engine: &Engine, task: Option<&str>) -> Result<Vec<String>> {
    let links = {
        let mut conn = engine.store().pool().acquire().await?;
        executions::ended_links(&mut conn, task).await?
    };
    let mut resume: Vec<String> = Vec::new();
    for (execution, task) in links {
        if claim_one(engine, &execution, &task).await? && !resume.contains(&task) {
            resume.push(task);
        }
    }
    Ok(resume)
}

/// Claims one link; true when it was ours and its task goes on.
async fn claim_one(engine: &Engine, execution: &str, task: &str) -> Result<bool> {
    let mut tx = engine.store().begin_write().await?;
    let now = tx.now().to_string();
    if !executions::claim_link(&mut tx, execution, &now).await? {
        // Another process (or another scan of this one) has it.
        return Ok(false);
    }
    let row: Option<(String, Option<String>)> =
        sqlx::query_as("SELECT status, driver FROM tasks WHERE id = ?").bind(task).fetch_optional(&mut *tx).await?;
    let status = row
        .as_ref()
        .map(|(s, _)| s.parse::<nomos_types::TaskStatus>())
        .transpose()
        .map_err(|e| crate::Error::Invalid(e.to_string()))?;
    // An MCP session's task is its client's: the note is written, but Nomos does not resume it.
    let driven = row.as_ref().is_some_and(|(_, d)| d.is_some());
    let ended = status.is_none_or(|s| s.is_end());
    if !ended {
        let x = executions::get(&mut tx, execution).await?;
        let approval = match approvals::get(&mut tx, execution).await {
            Ok(a) => Some(a),
            Err(crate::Error::NotFound { .. }) => None,
            Err(e) => return Err(e),
        };
        super::transcript::add_message_in(&mut tx, task, Role::System, &note(&x, approval.as_ref()), None).await?;
    }
    tx.commit().await?;
    tracing::info!(task, execution, ended, driven, "claimed an ended execution for its task");
    Ok(!ended && !driven)
}

/// What the model is told about an execution that ended after its call returned.
pub fn note(x: &Execution, approval: Option<&Approval>) -> String {
    let mut text = format!("Execution {} `{}` on {} ended: {}", x.id, x.command, x.target, x.status);
    if let Some(code) = x.exit_code {
        text.push_str(&format!(", exit code {code}"));
    }
    if let Some(error) = &x.error {
        text.push_str(&format!(" ({error})"));
    }
    text.push_str(".\n");
    match approval.filter(|a| a.decided_by.is_some()) {
        Some(a) => {
            let by = a.decided_by.as_deref().unwrap_or_default();
            let via = a.channel.map(|c| format!(" via {c}")).unwrap_or_default();
            text.push_str(&format!("Approval {} was {} by {by}{via}", a.id, a.status));
            if let Some(m) = &a.grant_message {
                text.push_str(&format!(" with the message {m:?}"));
            }
            text.push_str(".\n");
        }
        None => {
            if let Some(g) = &x.granted_by {
                text.push_str(&format!("It ran in the background, granted by {g}.\n"));
            }
        }
    }
    let hint = format!("read the rest with read_output {}", x.id);
    for (name, stream) in [("stdout", &x.stdout), ("stderr", &x.stderr)] {
        if !stream.trim().is_empty() {
            text.push_str(&format!("{name}:\n{}\n", cap_text(stream.trim_end(), OUTPUT_CAP, &hint)));
        }
    }
    text.push_str(match x.status {
        ExecutionStatus::Completed => "Carry on from here.",
        ExecutionStatus::Denied => {
            "It did not run: do not ask for it again unchanged; adapt the plan or ask the operator."
        }
        ExecutionStatus::Expired => "It did not run: nobody decided in time. Ask again only if it is still needed.",
        ExecutionStatus::Cancelled => "It was cancelled; whether it ran partly shows above. Decide how to go on.",
        _ => "It did not succeed: look at why before anything else.",
    });
    text
}

/// Takes a link as continued without a note: its outcome reaches the task some other way (an
/// operator's message grants and runs it, and the note that message writes says how it ended).
/// True when it was ours to take (not continued yet).
pub(crate) async fn hold(engine: &Engine, execution: &str) -> Result<bool> {
    let mut conn = engine.store().pool().acquire().await?;
    let now = engine.clock().now();
    executions::claim_link(&mut conn, execution, &now).await
}

/// Gives back a link taken with [`hold`]: the task is to continue when the execution ends after
/// all (it went on in the background, or it was not run).
pub(crate) async fn give_back(engine: &Engine, execution: &str) -> Result<()> {
    let mut conn = engine.store().pool().acquire().await?;
    executions::unclaim_link(&mut conn, execution).await
}
