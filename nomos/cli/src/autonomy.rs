//! `nomos autonomy status|pause|resume|open|revoke`: the windows that let a task act without
//! asking again.

use clap::Subcommand;
use nomos::actuate::Actuator;
use nomos::types::WindowKind;
use serde_json::json;

use crate::exit::Outcome;
use crate::out::Out;
use crate::report::{deciding, operator};

#[derive(Subcommand, Debug)]
pub enum AutonomyCommand {
    /// Windows open now and whether autonomy is paused
    Status,
    /// Revoke every open window; none opens until resumed
    Pause,
    Resume,
    /// Open a task's assent window (or, with --target, its destructive window on that target)
    Open {
        task: String,
        #[arg(long)]
        target: Option<String>,
    },
    /// Revoke the open windows (of one task with --task)
    Revoke {
        #[arg(long)]
        task: Option<String>,
    },
}

pub async fn autonomy(act: &Actuator, command: AutonomyCommand, out: Out) -> Outcome {
    let me = operator(None);
    match command {
        AutonomyCommand::Status => {
            let paused = act.is_paused().await?;
            let windows = act.open_windows().await?;
            out.print(&json!({"paused": paused, "windows": windows}), |_| {
                let mut s = format!("autonomy {}\n", if paused { "PAUSED" } else { "on" });
                for w in &windows {
                    s.push_str(&format!(
                        "{} window of task {}{} until {}\n",
                        w.kind,
                        w.task_id,
                        w.target.as_deref().map(|t| format!(" on {t}")).unwrap_or_default(),
                        w.expires_at
                    ));
                }
                s
            })
        }
        AutonomyCommand::Pause => {
            act.set_paused(true, &me).await?;
            out.print(&json!({"paused": true}), |_| "autonomy paused: every window revoked".into())
        }
        AutonomyCommand::Resume => {
            act.set_paused(false, &deciding(act.engine(), None).await?).await?;
            out.print(&json!({"paused": false}), |_| "autonomy resumed".into())
        }
        AutonomyCommand::Open { task, target } => {
            let kind = if target.is_some() { WindowKind::Destructive } else { WindowKind::Assent };
            let w = act.open_window(&task, kind, target.as_deref(), &deciding(act.engine(), None).await?).await?;
            out.print(&w, |w| format!("{} window {} open until {}", w.kind, w.id, w.expires_at))
        }
        AutonomyCommand::Revoke { task } => {
            let n = act.revoke_windows(task.as_deref(), &me).await?;
            out.print(&json!({"revoked": n}), |_| format!("{n} window(s) revoked"))
        }
    }
}
