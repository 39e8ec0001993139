//! The chat-completions client: any OpenAI-compatible endpoint, hosted (TLS through rustls) or
//! local (Ollama, llama.cpp, vLLM; no key). One call, [`Provider::complete`], streamed or not
//! with the same result, retried where another attempt can help, and stopped promptly on cancel.

pub mod config;
pub mod retry;
pub mod sse;

use std::sync::Arc;
use std::time::{Duration, Instant, SystemTime};

use serde_json::{json, Value as Json};
use tokio_util::sync::CancellationToken;

pub use config::{ProviderConfig, RetryPolicy, Secret, Timeouts};
use retry::ErrorReport;
use sse::{Assembler, SseDecoder, StreamFault};

use crate::agent::chat::{ChatMessage, ChatRequest, ChatResponse, Delta};

/// Which timer ran out.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TimeoutPhase {
    Connect,
    FirstByte,
    Idle,
    Total,
}

impl std::fmt::Display for TimeoutPhase {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            TimeoutPhase::Connect => "connecting",
            TimeoutPhase::FirstByte => "waiting for the first byte",
            TimeoutPhase::Idle => "waiting for the next chunk",
            TimeoutPhase::Total => "the whole completion",
        })
    }
}

/// Why a completion failed. Messages quote the server (trimmed), never the request or the key.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ProviderError {
    #[error("cannot reach the provider: {message}")]
    Connect { message: String },
    #[error("the provider timed out ({phase})")]
    Timeout { phase: TimeoutPhase },
    #[error("the provider is rate limiting requests{}: {message}", retry_after.map(|d| format!(" (retry after {} s)", d.as_secs())).unwrap_or_default())]
    RateLimited { retry_after: Option<Duration>, message: String },
    #[error("the provider failed (HTTP {status}): {message}")]
    Server { status: u16, message: String },
    #[error("the provider reported an error mid-stream: {message}")]
    StreamError { message: String },
    #[error("the provider refused the API key (HTTP {status}): {message} — set one with `nomos auth set-key` or NOMOS_API_KEY")]
    Auth { status: u16, message: String },
    #[error("the provider account has no quota or credit left: {message}")]
    Quota { message: String },
    #[error("the conversation no longer fits the model's context: {message}")]
    ContextLength { message: String },
    #[error("the provider rejected the request (HTTP {status}): {message}")]
    BadRequest { status: u16, message: String },
    #[error("the stream ended before the completion was complete")]
    Incomplete,
    #[error("cancelled")]
    Cancelled,
    #[error("the provider's reply is not a chat completion: {0}")]
    Malformed(String),
    #[error("provider settings: {0}")]
    Config(String),
}

impl ProviderError {
    /// Whether another attempt may succeed: connection trouble, timeouts within an attempt, rate
    /// limits, 408/409/5xx, errors inside a stream and streams that ended early. Never auth, a bad
    /// request, quota or context length (the loop compacts or stops on those).
    pub fn retryable(&self) -> bool {
        match self {
            ProviderError::Connect { .. }
            | ProviderError::RateLimited { .. }
            | ProviderError::Server { .. }
            | ProviderError::StreamError { .. }
            | ProviderError::Incomplete => true,
            ProviderError::Timeout { phase } => *phase != TimeoutPhase::Total,
            ProviderError::Auth { .. }
            | ProviderError::Quota { .. }
            | ProviderError::ContextLength { .. }
            | ProviderError::BadRequest { .. }
            | ProviderError::Cancelled
            | ProviderError::Malformed(_)
            | ProviderError::Config(_) => false,
        }
    }

    fn retry_after(&self) -> Option<Duration> {
        match self {
            ProviderError::RateLimited { retry_after, .. } => *retry_after,
            _ => None,
        }
    }
}

impl From<StreamFault> for ProviderError {
    fn from(fault: StreamFault) -> ProviderError {
        match fault {
            StreamFault::Incomplete => ProviderError::Incomplete,
            StreamFault::Malformed(m) => ProviderError::Malformed(m),
            StreamFault::Error(report) => report.classify(),
        }
    }
}

/// The client. Cheap to clone; share one per configured provider.
#[derive(Debug, Clone)]
pub struct Provider {
    config: Arc<ProviderConfig>,
    http: reqwest::Client,
}

impl Provider {
    pub fn new(config: ProviderConfig) -> Result<Provider, ProviderError> {
        let http = reqwest::Client::builder()
            .connect_timeout(config.timeouts.connect)
            .user_agent(concat!("nomos/", env!("CARGO_PKG_VERSION")))
            .build()
            .map_err(|e| ProviderError::Config(format!("cannot build the HTTP client: {e}")))?;
        Ok(Provider { config: Arc::new(config), http })
    }

    pub fn config(&self) -> &ProviderConfig {
        &self.config
    }

    /// One completion, streamed or not (the same result). Retryable failures are tried again
    /// after a backoff (or the server's `Retry-After`); before each retry `on_delta` receives
    /// [`Delta::Reset`]: everything it was sent so far is void. Returns within a fraction of a
    /// second of `cancel` firing, with [`ProviderError::Cancelled`].
    pub async fn complete(
        &self,
        req: &ChatRequest,
        on_delta: &(dyn Fn(Delta) + Send + Sync),
        cancel: &CancellationToken,
    ) -> Result<ChatResponse, ProviderError> {
        let body = self.request_body(req);
        let mut attempt = 1;
        loop {
            let outcome = tokio::select! {
                biased;
                _ = cancel.cancelled() => return Err(ProviderError::Cancelled),
                outcome = self.attempt(&body, on_delta) => outcome,
            };
            let err = match outcome {
                Ok(response) => return Ok(response),
                Err(err) => err,
            };
            if !err.retryable() || attempt >= self.config.retry.max_attempts {
                return Err(err);
            }
            let Some(wait) = retry::backoff(&self.config.retry, attempt, err.retry_after()) else {
                return Err(err);
            };
            tracing::warn!(attempt, wait_ms = wait.as_millis() as u64, error = %err, "provider attempt failed; retrying");
            on_delta(Delta::Reset);
            tokio::select! {
                biased;
                _ = cancel.cancelled() => return Err(ProviderError::Cancelled),
                _ = tokio::time::sleep(wait) => {}
            }
            attempt += 1;
        }
    }

    /// "Test connection": a one-word completion, so the URL, the model and the key are all
    /// exercised. Returns the model's answer, shortened.
    pub async fn check(&self) -> Result<String, ProviderError> {
        let req = crate::agent::chat::ChatRequest {
            messages: vec![crate::agent::chat::ChatMessage::user("Reply with the single word: ok")],
            tools: Vec::new(),
            max_tokens: Some(16),
        };
        let answer = self.complete(&req, &|_| {}, &CancellationToken::new()).await?;
        Ok(answer.content.trim().chars().take(80).collect())
    }

    /// The JSON body of a request (OpenAI's shape, which the local servers accept).
    pub fn request_body(&self, req: &ChatRequest) -> Json {
        let messages: Vec<Json> = req.messages.iter().map(wire_message).collect();
        let mut body = json!({ "model": self.config.model, "messages": messages, "stream": self.config.stream });
        if self.config.stream {
            body["stream_options"] = json!({ "include_usage": true });
        }
        if !req.tools.is_empty() {
            body["tools"] = req
                .tools
                .iter()
                .map(|t| {
                    json!({ "type": "function", "function": {
                        "name": t.name, "description": t.description, "parameters": t.parameters } })
                })
                .collect();
        }
        if let Some(max) = req.max_tokens {
            body["max_tokens"] = json!(max);
        }
        body
    }

    fn endpoint(&self) -> String {
        format!("{}/chat/completions", self.config.base_url.trim_end_matches('/'))
    }

    /// One attempt under the total timer.
    async fn attempt(
        &self,
        body: &Json,
        on_delta: &(dyn Fn(Delta) + Send + Sync),
    ) -> Result<ChatResponse, ProviderError> {
        match tokio::time::timeout(self.config.timeouts.total, self.attempt_inner(body, on_delta)).await {
            Ok(outcome) => outcome,
            Err(_) => Err(ProviderError::Timeout { phase: TimeoutPhase::Total }),
        }
    }

    async fn attempt_inner(
        &self,
        body: &Json,
        on_delta: &(dyn Fn(Delta) + Send + Sync),
    ) -> Result<ChatResponse, ProviderError> {
        let timeouts = self.config.timeouts;
        let mut request = self.http.post(self.endpoint()).json(body);
        if let Some(key) = &self.config.api_key {
            request = request.bearer_auth(key.expose());
        }
        let started = Instant::now();
        // A non-streamed reply's headers come only when the whole answer is ready: for it the
        // total timer is the one that applies.
        let headers_limit = if self.config.stream { timeouts.first_byte } else { timeouts.total };
        let mut response = match tokio::time::timeout(headers_limit, request.send()).await {
            Err(_) => return Err(ProviderError::Timeout { phase: TimeoutPhase::FirstByte }),
            Ok(Err(e)) => return Err(transport_error(&e, TimeoutPhase::Connect)),
            Ok(Ok(response)) => response,
        };
        let status = response.status();
        if !status.is_success() {
            let retry_after = response
                .headers()
                .get(reqwest::header::RETRY_AFTER)
                .and_then(|v| v.to_str().ok())
                .and_then(|v| retry::parse_retry_after(v, SystemTime::now()));
            let text = response.text().await.unwrap_or_default();
            return Err(ErrorReport::from_body(Some(status.as_u16()), &text, retry_after).classify());
        }
        let is_sse = response
            .headers()
            .get(reqwest::header::CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .is_some_and(|v| v.contains("text/event-stream"));
        let mut mint = || format!("call_{}", uuid::Uuid::new_v4().simple());
        let mut emit = |d: Delta| on_delta(d);
        if !is_sse {
            // A non-streamed reply (also what a server that ignores `stream` sends).
            let text = response.text().await.map_err(|e| transport_error(&e, TimeoutPhase::FirstByte))?;
            let json: Json = serde_json::from_str(&text)
                .map_err(|e| ProviderError::Malformed(format!("the reply is not JSON ({e})")))?;
            if json.get("error").is_some_and(|e| !e.is_null()) {
                return Err(ErrorReport::from_body(None, &text, None).classify());
            }
            return Ok(sse::parse_completion(&json, &mut emit, &mut mint)?);
        }
        let mut decoder = SseDecoder::new();
        let mut assembler = Assembler::new();
        let mut first = true;
        loop {
            let (limit, phase) = if first {
                (timeouts.first_byte.saturating_sub(started.elapsed()), TimeoutPhase::FirstByte)
            } else {
                (timeouts.idle, TimeoutPhase::Idle)
            };
            let chunk = match tokio::time::timeout(limit, response.chunk()).await {
                Err(_) => return Err(ProviderError::Timeout { phase }),
                Ok(Err(e)) => {
                    tracing::debug!(error = %e, "the stream broke off");
                    return Err(ProviderError::Incomplete);
                }
                Ok(Ok(chunk)) => chunk,
            };
            first = false;
            let Some(bytes) = chunk else { break };
            for event in decoder.feed(&bytes) {
                assembler.push_event(&event, &mut emit)?;
            }
            if assembler.is_done() {
                break;
            }
        }
        for event in decoder.finish() {
            assembler.push_event(&event, &mut emit)?;
        }
        Ok(assembler.finish(true, &mut mint)?)
    }
}

fn wire_message(message: &ChatMessage) -> Json {
    let mut wire = json!({ "role": message.role.as_str(), "content": message.content });
    if !message.tool_calls.is_empty() {
        if message.content.is_empty() {
            wire["content"] = Json::Null;
        }
        wire["tool_calls"] = message
            .tool_calls
            .iter()
            .map(
                |c| json!({ "id": c.id, "type": "function", "function": { "name": c.name, "arguments": c.arguments } }),
            )
            .collect();
    }
    if let Some(id) = &message.tool_call_id {
        wire["tool_call_id"] = json!(id);
    }
    wire
}

/// A reqwest failure before or while reading: never quotes the request (its URL is fine, it
/// holds no key).
fn transport_error(e: &reqwest::Error, phase: TimeoutPhase) -> ProviderError {
    if e.is_timeout() {
        return ProviderError::Timeout { phase };
    }
    let mut message = e.to_string();
    let mut source = std::error::Error::source(e);
    while let Some(inner) = source {
        message = format!("{message}: {inner}");
        source = inner.source();
    }
    ProviderError::Connect { message }
}

#[cfg(test)]
mod tests;
