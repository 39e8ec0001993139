//! What the agent's tests share: replies as the model would give them, a scripted model that
//! replays them in-process, and the checks every request sent to a provider must pass.

use std::collections::VecDeque;
use std::sync::Mutex;

use nomos::agent::chat::{ChatRequest, ChatResponse, Delta, FinishReason, ToolCall};
use nomos::agent::turn::{Model, ModelError};
use serde_json::Value;
use tokio_util::sync::CancellationToken;

/// A reply in plain text.
pub fn text(t: &str) -> ChatResponse {
    ChatResponse {
        content: t.into(),
        reasoning: String::new(),
        tool_calls: vec![],
        discarded_calls: 0,
        finish: FinishReason::Stop,
        usage: None,
    }
}

/// A reply of tool calls: (id, name, arguments as sent).
pub fn calls(list: &[(&str, &str, &str)]) -> ChatResponse {
    ChatResponse {
        tool_calls: list
            .iter()
            .map(|(id, name, args)| ToolCall { id: (*id).into(), name: (*name).into(), arguments: (*args).into() })
            .collect(),
        finish: FinishReason::ToolCalls,
        ..text("")
    }
}

/// A reply of one tool call with a fresh id.
pub fn call(name: &str, args: Value) -> ChatResponse {
    let id = format!("call-{}", uuid::Uuid::new_v4().simple());
    calls(&[(&id, name, &args.to_string())])
}

/// Stand-in for the language model: replays its replies in order and records what it was sent.
/// When they run out it fails ("script exhausted"), or — made with [`ScriptedModel::repeating`] —
/// keeps repeating the last one (a model stuck in a rut).
pub struct ScriptedModel {
    replies: Mutex<VecDeque<ChatResponse>>,
    repeat_last: bool,
    last: Mutex<Option<ChatResponse>>,
    requests: Mutex<Vec<ChatRequest>>,
}

impl ScriptedModel {
    pub fn new(replies: Vec<ChatResponse>) -> ScriptedModel {
        ScriptedModel {
            replies: Mutex::new(replies.into()),
            repeat_last: false,
            last: Mutex::new(None),
            requests: Mutex::new(Vec::new()),
        }
    }

    pub fn repeating(replies: Vec<ChatResponse>) -> ScriptedModel {
        ScriptedModel { repeat_last: true, ..ScriptedModel::new(replies) }
    }

    pub fn requests(&self) -> Vec<ChatRequest> {
        self.requests.lock().unwrap().clone()
    }
}

impl Model for ScriptedModel {
    async fn complete(
        &self,
        request: &ChatRequest,
        on_delta: &(dyn Fn(Delta) + Send + Sync),
        cancel: &CancellationToken,
    ) -> Result<ChatResponse, ModelError> {
        self.requests.lock().unwrap().push(request.clone());
        if cancel.is_cancelled() {
            return Err(ModelError::Cancelled);
        }
        let next = self.replies.lock().unwrap().pop_front();
        let reply = match next {
            Some(r) => {
                *self.last.lock().unwrap() = Some(r.clone());
                r
            }
            None if self.repeat_last => {
                self.last.lock().unwrap().clone().ok_or(ModelError::Failed("script exhausted".into()))?
            }
            None => return Err(ModelError::Failed("script exhausted".into())),
        };
        if !reply.content.is_empty() {
            on_delta(Delta::Text(reply.content.clone()));
        }
        Ok(reply)
    }
}

/// Why a chat-completions request body (as a provider received it) breaks the history's rules, if
/// it does: every call is answered by exactly one tool message, right after its assistant
/// message and in order, and every tool message answers a call of that message.
pub fn pairing_problem(request: &Value) -> Option<String> {
    let messages = request["messages"].as_array()?;
    let mut i = 0;
    while i < messages.len() {
        let (at, m) = (i, &messages[i]);
        i += 1;
        let calls: Vec<&str> = m["tool_calls"]
            .as_array()
            .map(|c| c.iter().map(|c| c["id"].as_str().unwrap_or_default()).collect())
            .unwrap_or_default();
        let mut answered = Vec::new();
        while i < messages.len() && messages[i]["role"] == "tool" {
            answered.push(messages[i]["tool_call_id"].as_str().unwrap_or_default());
            i += 1;
        }
        if answered != calls {
            return Some(format!("message {at} has calls {calls:?} but is answered by {answered:?}"));
        }
    }
    None
}

/// [`pairing_problem`] as an assertion.
pub fn assert_paired(request: &Value) {
    if let Some(problem) = pairing_problem(request) {
        panic!("each call paired with exactly one result, in order: {problem}: {request}");
    }
}
