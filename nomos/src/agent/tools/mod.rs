//! The tools Nomos may call. Each tool is an argument struct (serde + JSON Schema) and a handler;
//! the registry offers their specs to the model, checks every call's arguments against the schema
//! before anything runs (arguments that do not parse are a tool error, never defaults), and caps
//! what the model sees of a result.
//!
//! Text that arrives in a result (command output, web pages, knowledge) is data: whatever it says,
//! the gate decides what runs.

use serde::{Deserialize, Serialize};

pub mod task;

/// What a tool call leads to for the task.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Next {
    /// The loop goes on.
    Continue,
    /// The turn ends: the task waits for the operator.
    Wait(WaitingFor),
    /// The task reached its end (`complete_task`).
    Finish,
}

/// What a task waiting for the operator waits for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum WaitingFor {
    /// An answer to a question (`ask_operator`).
    Answer,
    /// Approval of the proposed plan.
    Plan,
    /// A decision on a queued execution.
    Approval,
}

/// The result of one tool call as recorded and as the model sees it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolResult {
    /// What the model sees (capped: head and tail kept, with a line saying how much was left out).
    pub content: String,
    /// The call failed (bad arguments, unknown tool, refused, the command failed): the model is
    /// told so and the loop counts it.
    pub is_error: bool,
    /// The execution the call created or joined, if any (evidence for `complete_task`).
    pub execution_id: Option<String>,
    pub next: Next,
}

impl ToolResult {
    pub fn ok(content: impl Into<String>) -> ToolResult {
        ToolResult { content: content.into(), is_error: false, execution_id: None, next: Next::Continue }
    }

    pub fn error(content: impl Into<String>) -> ToolResult {
        ToolResult { content: content.into(), is_error: true, execution_id: None, next: Next::Continue }
    }
}
