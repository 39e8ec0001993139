//! `nomos tasks create|list|show|delete`.

use clap::Subcommand;
use nomos::types::Task;
use nomos::Engine;

use crate::exit::Outcome;
use crate::out::Out;

#[derive(Subcommand, Debug)]
pub enum TasksCommand {
    /// Start a task; prints its id (for `run --task`, `autonomy open`)
    Create {
        #[arg(long)]
        title: String,
        #[arg(long, default_value = "")]
        goal: String,
    },
    /// Tasks, most recently active first
    List {
        #[arg(long, default_value_t = 30)]
        limit: u32,
    },
    /// One task
    Show { id: String },
    /// Delete a task (its knowledge stays; its waiting requests are withdrawn)
    Delete { id: String },
}

/// `waiting` says for what (`waiting:plan`); an end says how it went (`done:success`).
fn status(t: &Task) -> String {
    match (t.waiting_for, t.outcome) {
        (Some(w), _) => format!("{}:{}", t.status, w),
        (None, Some(o)) => format!("{}:{}", t.status, o),
        (None, None) => t.status.to_string(),
    }
}

fn line(t: &Task) -> String {
    format!("{}  {:<17} {}", t.id, status(t), t.title)
}

pub async fn tasks(engine: &Engine, command: TasksCommand, out: Out) -> Outcome {
    match command {
        TasksCommand::Create { title, goal } => {
            let t = engine.create_task(&title, &goal).await?;
            out.print(&t, |t| t.id.clone())
        }
        TasksCommand::List { limit } => {
            let list = engine.tasks(limit).await?;
            out.print(&list, |list| {
                if list.is_empty() {
                    "no tasks".into()
                } else {
                    list.iter().map(|t| line(t) + "\n").collect()
                }
            })
        }
        TasksCommand::Show { id } => {
            let t = engine.task(&id).await?;
            out.print(&t, |t| format!("{}\ngoal: {}\nsummary: {}", line(t), t.goal, t.summary))
        }
        TasksCommand::Delete { id } => {
            let kept = engine.delete_task(&id).await?;
            out.print(&serde_json::json!({"deleted": id, "knowledge_kept": kept}), |_| {
                format!("task {id} deleted; {kept} note(s) it produced are kept")
            })
        }
    }
}
