//! `nomos executions list|show|cancel`.

use clap::Subcommand;
use nomos::actuate::Actuator;
use nomos::types::ExecutionStatus;

use crate::exit::Outcome;
use crate::out::{parse_enum, Out};
use crate::report::operator;

#[derive(Subcommand, Debug)]
pub enum ExecutionsCommand {
    /// Recent executions, newest first
    List {
        #[arg(long)]
        task: Option<String>,
        #[arg(long, value_parser = parse_enum::<ExecutionStatus>)]
        status: Option<ExecutionStatus>,
        #[arg(long, default_value_t = 30)]
        limit: u32,
    },
    /// One execution with its output
    Show { id: String },
    /// Withdraw a waiting request, or stop a running command (also one another process runs)
    Cancel { id: String },
}

pub async fn executions(act: &Actuator, command: ExecutionsCommand, out: Out) -> Outcome {
    match command {
        ExecutionsCommand::List { task, status, limit } => {
            let list = act.executions(task.as_deref(), status, limit).await?;
            out.print(&list, |list| {
                if list.is_empty() {
                    return "no executions".into();
                }
                list.iter()
                    .map(|x| {
                        let exit = x.exit_code.map(|c| format!(" exit {c}")).unwrap_or_default();
                        format!(
                            "{}  {:<16} {:<16} {:<20} {}{exit}\n  $ {}\n",
                            x.id, x.status, x.risk, x.target, x.created_at, x.command
                        )
                    })
                    .collect()
            })
        }
        ExecutionsCommand::Cancel { id } => {
            let x = act.cancel(&id, &operator(None)).await?;
            out.print(&x, |x| match x.status {
                ExecutionStatus::Running => format!("execution {} asked to stop; it ends within seconds", x.id),
                other => format!("execution {} {other}", x.id),
            })
        }
        ExecutionsCommand::Show { id } => {
            let x = act.execution(&id).await?;
            out.print(&x, |x| {
                let mut s = format!(
                    "execution {}\n  target   {}\n  action   {} {}\n  command  {}\n  purpose  {}\n  risk     {} ({})\n  status   {}\n",
                    x.id,
                    x.target,
                    x.action,
                    x.params,
                    x.command,
                    x.purpose,
                    x.risk,
                    x.reasons.join("; "),
                    x.status
                );
                for (k, v) in [
                    ("task", x.task_id.clone()),
                    ("granted", x.granted_by.clone()),
                    ("exit", x.exit_code.map(|c| c.to_string())),
                    ("error", x.error.clone()),
                    ("created", Some(x.created_at.clone())),
                    ("finished", x.finished_at.clone()),
                    ("took", x.duration_ms.map(|d| format!("{d} ms"))),
                ] {
                    if let Some(v) = v {
                        s.push_str(&format!("  {k:<8} {v}\n"));
                    }
                }
                if !x.stdout.is_empty() {
                    s.push_str(&format!("--- stdout\n{}\n", x.stdout.trim_end()));
                }
                if !x.stderr.is_empty() {
                    s.push_str(&format!("--- stderr\n{}\n", x.stderr.trim_end()));
                }
                if x.output_truncated {
                    s.push_str("(output was cut at the storage cap)\n");
                }
                s
            })
        }
    }
}
