//! `nomos approvals list|approve|deny`.

use clap::Subcommand;
use nomos::actuate::RunOutcome;
use nomos::Runtime;

use crate::ask;
use crate::exit::{Exit, Outcome};
use crate::out::Out;
use crate::report::{blast_line, deciding, follow, report, until_interrupted};

#[derive(Subcommand, Debug)]
pub enum ApprovalsCommand {
    /// Approvals waiting for a decision
    List,
    /// Approve and run (ID of the approval or its execution); then continue its task, if it has one
    #[command(after_help = "When the execution belongs to a task, Nomos continues that task in the foreground once \
the execution has ended, printing as `nomos ask` does (with --json: ask's JSON lines after the execution's \
JSON), and the exit status is ask's: 0 the task is done, 3 it waits for you, 1 it failed or was cancelled. \
Without a provider configured (NOMOS_LLM_BASE_URL …), or with --no-continue, the task is left for the engine \
that runs continuations (the desktop app, or `nomos agent serve`), and the exit status is the execution's: \
0 it succeeded, 1 it failed.")]
    Approve {
        id: String,
        /// Typed confirmation for a destructive command: `confirm [VERB] TARGET`, as the request shows it
        #[arg(long)]
        confirm: Option<String>,
        /// Do not continue the execution's task here
        #[arg(long)]
        no_continue: bool,
    },
    /// Refuse; it never runs
    Deny {
        id: String,
        #[arg(long)]
        reason: Option<String>,
    },
}

pub async fn approvals(rt: &Runtime, command: ApprovalsCommand, out: Out) -> Outcome {
    let act = rt.actuator();
    match command {
        ApprovalsCommand::List => {
            let list = act.pending_approvals().await?;
            out.print(&list, |list| {
                if list.is_empty() {
                    return "nothing waits for approval".into();
                }
                list.iter()
                    .map(|a| {
                        format!(
                            "{}  {}  {}  expires {}\n  $ {}\n  {}{}\n",
                            a.id,
                            a.risk,
                            a.target,
                            a.expires_at,
                            a.command,
                            blast_line(a),
                            if a.requires_confirmation {
                                format!(
                                    "\n  needs a typed confirmation: --confirm \"{}\"",
                                    a.confirmation.as_deref().unwrap_or_default()
                                )
                            } else {
                                String::new()
                            }
                        )
                    })
                    .collect()
            })
        }
        ApprovalsCommand::Approve { id, confirm, no_continue } => {
            let me = deciding(rt.engine(), confirm).await?;
            let x = until_interrupted(rt, act.approve(&id, &me)).await?;
            let x = if x.status.is_final() { x } else { follow(rt, &x.id).await? };
            let task = x.task_id.clone();
            let exit = report(act, &RunOutcome::Ran(x), &[], out).await?;
            match task {
                Some(task) if !no_continue => continue_task(rt, &task, exit, out).await,
                _ => Ok(exit),
            }
        }
        ApprovalsCommand::Deny { id, reason } => {
            let a = act.deny(&id, &deciding(rt.engine(), reason).await?).await?;
            out.print(&a, |a| format!("approval {} denied; execution {} will not run", a.id, a.execution_id))?;
            Ok(Exit::Ok)
        }
    }
}

/// Continues `task` in the foreground after one of its executions was approved and has ended;
/// `exit` is the execution's status, kept when the task does not continue here.
async fn continue_task(rt: &Runtime, task: &str, exit: Exit, out: Out) -> Outcome {
    let agent = rt.agent();
    // An MCP session's task is its client's: the client reads the outcome, Nomos takes no turn.
    if let Some(driver) = rt.engine().task(task).await?.driver {
        let who = nomos::types::mcp::asker(&driver).unwrap_or(driver);
        eprintln!("note: task {task} is {who}'s session; {who} reads the outcome");
        return Ok(exit);
    }
    let events = ask::Events::subscribe(rt);
    if let Err(e) = agent.provider() {
        eprintln!("note: task {task} is not continued here ({e}); the desktop app or `nomos agent serve` continues it");
        return Ok(exit);
    }
    let turn = async { Ok(agent.continue_task(task).await?.map(|c| (c.task, c.end))) };
    match ask::in_foreground(rt, task, events, turn, out).await? {
        Some(exit) => Ok(exit),
        None => {
            eprintln!(
                "note: task {task} is not continued here: another process took it over, a turn of it is running \
                 (and reads the outcome), or it has ended"
            );
            Ok(exit)
        }
    }
}
