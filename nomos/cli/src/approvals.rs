//! `nomos approvals list|approve|deny`.

use clap::Subcommand;
use nomos::actuate::RunOutcome;
use nomos::Runtime;

use crate::exit::{Exit, Outcome};
use crate::out::Out;
use crate::report::{blast_line, follow, operator, report, until_interrupted};

#[derive(Subcommand, Debug)]
pub enum ApprovalsCommand {
    /// Approvals waiting for a decision
    List,
    /// Approve and run (ID of the approval or its execution)
    Approve {
        id: String,
        /// Typed confirmation for a destructive command: `confirm [VERB] TARGET`, as the request shows it
        #[arg(long)]
        confirm: Option<String>,
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
        ApprovalsCommand::Approve { id, confirm } => {
            let x = until_interrupted(rt, act.approve(&id, &operator(confirm))).await?;
            let x = if x.status.is_final() { x } else { follow(rt, &x.id).await? };
            report(act, &RunOutcome::Ran(x), &[], out).await
        }
        ApprovalsCommand::Deny { id, reason } => {
            let a = act.deny(&id, &operator(reason)).await?;
            out.print(&a, |a| format!("approval {} denied; execution {} will not run", a.id, a.execution_id))?;
            Ok(Exit::Ok)
        }
    }
}
