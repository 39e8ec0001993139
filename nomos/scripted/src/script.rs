//! What the server will answer, in order.

use std::path::Path;

use serde::{Deserialize, Serialize};
use serde_json::Value as Json;

/// A script: the model name `/v1/models` reports, and the replies, one per request.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Script {
    #[serde(default = "default_model")]
    pub model: String,
    #[serde(default)]
    pub replies: Vec<Step>,
}

fn default_model() -> String {
    "scripted".into()
}

#[derive(Debug, thiserror::Error)]
pub enum ScriptError {
    #[error("cannot read the script {path}: {source}")]
    Read { path: String, source: std::io::Error },
    #[error("the script {path} is not valid: {message}")]
    Parse { path: String, message: String },
}

impl Script {
    pub fn new(replies: Vec<Step>) -> Script {
        Script { model: default_model(), replies }
    }

    /// A YAML or JSON file (JSON is YAML).
    pub fn from_file(path: &Path) -> Result<Script, ScriptError> {
        let text = std::fs::read_to_string(path)
            .map_err(|source| ScriptError::Read { path: path.display().to_string(), source })?;
        serde_yaml_ng::from_str(&text)
            .map_err(|e| ScriptError::Parse { path: path.display().to_string(), message: e.to_string() })
    }
}

/// One reply and its timing.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Step {
    #[serde(flatten)]
    pub reply: Reply,
    /// Wait this long before answering at all (a slow first byte).
    #[serde(default)]
    pub delay_ms: u64,
    /// Wait this long between stream frames (a slow or stalled stream).
    #[serde(default)]
    pub chunk_delay_ms: u64,
}

/// What the model "says".
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum Reply {
    /// An answer in text (streamed in word-sized pieces when the request asks for a stream).
    Text {
        content: String,
        #[serde(default)]
        reasoning: String,
        /// The finish reason sent (default `stop`).
        #[serde(default)]
        finish: Option<String>,
    },
    /// Tool calls, optionally after some text.
    ToolCalls {
        #[serde(default)]
        content: String,
        calls: Vec<ScriptedCall>,
    },
    /// An exact SSE body, for the quirks of particular servers; sent frame by frame.
    RawSse { body: String },
    /// An HTTP error with this status and body (a JSON error object by default).
    Http {
        status: u16,
        #[serde(default)]
        body: Option<String>,
        /// The `Retry-After` header, as sent (seconds or an HTTP date).
        #[serde(default)]
        retry_after: Option<String>,
    },
    /// A stream that starts with this text and then breaks off: the connection closes mid-body.
    CutOff { content: String },
}

/// A tool call; `arguments` may be written as JSON (sent as its text) or as the text itself.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ScriptedCall {
    #[serde(default)]
    pub id: Option<String>,
    pub name: String,
    #[serde(default)]
    pub arguments: Json,
}

impl ScriptedCall {
    pub fn new(name: impl Into<String>, arguments: Json) -> ScriptedCall {
        ScriptedCall { id: None, name: name.into(), arguments }
    }

    pub fn with_id(mut self, id: impl Into<String>) -> ScriptedCall {
        self.id = Some(id.into());
        self
    }

    /// The arguments as the text a server sends.
    pub fn arguments_text(&self) -> String {
        match &self.arguments {
            Json::Null => "{}".into(),
            Json::String(s) => s.clone(),
            other => other.to_string(),
        }
    }
}

impl Step {
    fn of(reply: Reply) -> Step {
        Step { reply, delay_ms: 0, chunk_delay_ms: 0 }
    }

    pub fn text(content: impl Into<String>) -> Step {
        Step::of(Reply::Text { content: content.into(), reasoning: String::new(), finish: None })
    }

    pub fn tool_calls(calls: Vec<ScriptedCall>) -> Step {
        Step::of(Reply::ToolCalls { content: String::new(), calls })
    }

    pub fn raw_sse(body: impl Into<String>) -> Step {
        Step::of(Reply::RawSse { body: body.into() })
    }

    pub fn http(status: u16, body: impl Into<String>) -> Step {
        let body = body.into();
        Step::of(Reply::Http { status, body: (!body.is_empty()).then_some(body), retry_after: None })
    }

    pub fn cut_off(content: impl Into<String>) -> Step {
        Step::of(Reply::CutOff { content: content.into() })
    }

    /// For an [`Reply::Http`] step: the `Retry-After` header.
    pub fn retry_after(mut self, value: impl Into<String>) -> Step {
        if let Reply::Http { retry_after, .. } = &mut self.reply {
            *retry_after = Some(value.into());
        }
        self
    }

    pub fn delay_ms(mut self, ms: u64) -> Step {
        self.delay_ms = ms;
        self
    }

    pub fn chunk_delay_ms(mut self, ms: u64) -> Step {
        self.chunk_delay_ms = ms;
        self
    }
}
