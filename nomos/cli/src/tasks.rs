//! `nomos tasks create|list|show|delete`.

use clap::Subcommand;
use nomos::agent::chat::Role;
use nomos::plan::TaskDetail;
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

/// Goal, outcome, plan with step states, open and answered questions, executions, and the
/// conversation with each tool call and how it ended.
fn show(d: &TaskDetail) -> String {
    let t = &d.task;
    let mut s = format!("{}\ngoal: {}\n", line(t), if t.goal.is_empty() { "(not set)" } else { &t.goal });
    if let Some(o) = t.outcome {
        s += &format!("outcome: {o}\n");
    }
    if !t.summary.is_empty() {
        s += &format!("summary: {}\n", t.summary);
    }
    if !d.plan.is_empty() {
        s += "plan:\n";
        for p in &d.plan {
            let exec = p.execution_id.as_deref().map(|e| format!(" ({e})")).unwrap_or_default();
            s += &format!("  {}. [{}] {}{exec}\n", p.seq, p.status, p.title);
        }
    }
    for q in &d.questions {
        let answer = q.answer.as_deref().map(|a| format!(" → {a}")).unwrap_or_default();
        s += &format!("question [{}]: {}{answer}\n", q.status, q.prompt);
    }
    if !d.executions.is_empty() {
        s += "executions:\n";
        for e in &d.executions {
            let code = e.exit_code.map(|c| format!(" exit {c}")).unwrap_or_default();
            s += &format!("  {}  {:<16} {} on {}{code}\n", e.id, e.status, e.command, e.target);
        }
    }
    if !d.messages.is_empty() {
        s += "conversation:\n";
    }
    for m in &d.messages {
        let who = match m.role {
            Role::User => "operator",
            Role::Assistant => "nomos",
            Role::System => "note",
            Role::Tool => "tool",
        };
        if !m.content.is_empty() {
            s += &format!("  {who}: {}\n", m.content.replace('\n', "\n    "));
        }
        for c in d.tool_calls.iter().filter(|c| c.message_id == m.id) {
            let mark = if c.is_error { " (error)" } else { "" };
            s += &format!("    → {} {} [{}{mark}]\n", c.call.name, c.call.arguments, c.state.as_str());
        }
    }
    s.trim_end().to_string()
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
            let detail = engine.task_detail(&id).await?;
            out.print(&detail, show)
        }
        TasksCommand::Delete { id } => {
            let kept = engine.delete_task(&id).await?;
            out.print(&serde_json::json!({"deleted": id, "knowledge_kept": kept}), |_| {
                format!("task {id} deleted; {kept} note(s) it produced are kept")
            })
        }
    }
}
