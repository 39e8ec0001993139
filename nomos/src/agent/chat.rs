//! The conversation as a chat-completions provider sees it: messages, tool calls, tool specs, and
//! what one completion returns. Shared by the provider client, the transcript and the task loop.

use serde::{Deserialize, Serialize};
use serde_json::Value as Json;

pub use nomos_types::tasks::{Role, ToolCall};

/// One message of the history sent to the provider.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ChatMessage {
    pub role: Role,
    /// Text; empty for an assistant message that only calls tools.
    pub content: String,
    /// The calls an assistant message makes (empty otherwise).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tool_calls: Vec<ToolCall>,
    /// For a tool result: the call it answers.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_call_id: Option<String>,
}

impl ChatMessage {
    pub fn system(content: impl Into<String>) -> ChatMessage {
        ChatMessage { role: Role::System, content: content.into(), tool_calls: Vec::new(), tool_call_id: None }
    }

    pub fn user(content: impl Into<String>) -> ChatMessage {
        ChatMessage { role: Role::User, content: content.into(), tool_calls: Vec::new(), tool_call_id: None }
    }

    pub fn assistant(content: impl Into<String>, tool_calls: Vec<ToolCall>) -> ChatMessage {
        ChatMessage { role: Role::Assistant, content: content.into(), tool_calls, tool_call_id: None }
    }

    pub fn tool(call_id: impl Into<String>, content: impl Into<String>) -> ChatMessage {
        ChatMessage {
            role: Role::Tool,
            content: content.into(),
            tool_calls: Vec::new(),
            tool_call_id: Some(call_id.into()),
        }
    }
}

/// A tool as offered to the model: its wire name, what it does, and its JSON Schema.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolSpec {
    pub name: String,
    pub description: String,
    pub parameters: Json,
}

/// One completion request.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ChatRequest {
    pub messages: Vec<ChatMessage>,
    pub tools: Vec<ToolSpec>,
    /// The most tokens the answer may take (the output reserve of the context budget).
    pub max_tokens: Option<u32>,
}

/// Why the model stopped.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FinishReason {
    /// It finished its answer (with or without tool calls: some providers say `stop` even then).
    Stop,
    ToolCalls,
    /// It ran out of tokens: text may be cut short, and a tool call cut off is discarded.
    Length,
    ContentFilter,
    /// Anything else the provider reported.
    Other(String),
}

/// Token counts the provider reported for one completion.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct Usage {
    pub prompt_tokens: u32,
    pub completion_tokens: u32,
}

/// What one completion returned, the same whether it was streamed or not.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ChatResponse {
    pub content: String,
    /// Reasoning text some servers send beside the answer (`reasoning_content`); shown, never
    /// sent back.
    pub reasoning: String,
    /// Complete calls only, in the order the model made them.
    pub tool_calls: Vec<ToolCall>,
    /// Calls that were cut off (`finish_reason = length`): never run.
    pub discarded_calls: usize,
    pub finish: FinishReason,
    pub usage: Option<Usage>,
}

/// A piece of a completion as it streams in, for the operator to watch.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Delta {
    Text(String),
    Reasoning(String),
    /// The model started a tool call (its name is known).
    ToolCall {
        index: usize,
        name: String,
    },
    /// The attempt failed and the completion starts again: everything streamed so far is void
    /// (the operator's view clears its partial text). Sent before every retry.
    Reset,
}
