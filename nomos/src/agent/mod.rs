//! Nomos, the agent: it takes an operator's goal, researches the graph and the knowledge base,
//! proposes one plan, and carries it out through the gate once the operator approves.
//!
//! - [`chat`]: the conversation as a provider sees it (shared types);
//! - [`tools`]: what Nomos may call, checked against each tool's schema;
//! - [`transcript`]: the conversation, written ahead of every side effect;
//! - [`turn`]: one turn of a task, its guards, and the state it always ends in.

pub mod chat;
pub mod tools;
pub mod transcript;
pub mod turn;

/// The system prompt: who Nomos is and how it works.
pub const SOUL: &str = include_str!("../../SOUL.md");

impl From<tools::WaitingFor> for nomos_types::WaitingFor {
    fn from(w: tools::WaitingFor) -> nomos_types::WaitingFor {
        match w {
            tools::WaitingFor::Answer => nomos_types::WaitingFor::Answer,
            tools::WaitingFor::Plan => nomos_types::WaitingFor::Plan,
            tools::WaitingFor::Approval => nomos_types::WaitingFor::Approval,
        }
    }
}

/// Runs one operator message to the end of its turn: a new task when `task` is `None` (titled by
/// the message), else the next message to that task (answering its open questions). Returns the
/// task as the turn left it, never `working`.
pub async fn send_message<M: turn::Model, T: turn::Tools>(
    engine: &crate::Engine,
    model: &M,
    tools: &T,
    config: &turn::TurnConfig,
    task: Option<&str>,
    message: &str,
    cancel: &tokio_util::sync::CancellationToken,
) -> crate::Result<(nomos_types::Task, turn::TurnEnd)> {
    let message = message.trim();
    if message.is_empty() {
        return Err(crate::Error::Invalid("the message is empty".into()));
    }
    let id = match task {
        Some(id) => {
            let t = engine.task(id).await?;
            if t.waiting_for == Some(nomos_types::WaitingFor::Answer) {
                engine.answer_questions(id, message).await?;
            }
            t.id
        }
        None => {
            let title: String = message.lines().next().unwrap_or_default().chars().take(80).collect();
            engine.create_task(&title, "").await?.id
        }
    };
    transcript::Transcript::new(engine, &id).add(chat::Role::User, message, None).await?;
    let end = turn::run_turn(engine, model, tools, config, &id, cancel).await?;
    Ok((engine.task(&id).await?, end))
}
