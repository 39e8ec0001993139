//! Which failures are worth another attempt, and how long to wait first: error bodies classified
//! into [`ProviderError`] variants, exponential backoff with full jitter, `Retry-After`.

use std::time::{Duration, SystemTime};

use serde_json::Value as Json;

use super::config::RetryPolicy;
use super::ProviderError;

/// The most of a server's message an error quotes.
const MESSAGE_LIMIT: usize = 300;

/// An error as a server described it: HTTP status (none for an error inside a stream), the
/// `error.code` / `error.type` fields, and its message.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ErrorReport {
    pub status: Option<u16>,
    pub code: Option<String>,
    pub kind: Option<String>,
    pub message: String,
    pub retry_after: Option<Duration>,
}

impl ErrorReport {
    /// Read an error body: OpenAI's `{"error": {"message", "type", "code"}}`, the
    /// `{"error": "text"}` of some local servers, `{"message": ..}`, or plain text.
    pub fn from_body(status: Option<u16>, body: &str, retry_after: Option<Duration>) -> ErrorReport {
        let mut report = ErrorReport { status, retry_after, ..ErrorReport::default() };
        match serde_json::from_str::<Json>(body) {
            Ok(json) => report.fill_from_json(&json),
            Err(_) => report.message = body.trim().to_string(),
        }
        if report.message.is_empty() {
            report.message = body.trim().to_string();
        }
        report
    }

    /// Fill from a JSON error value (the body or a stream frame's `error`).
    pub fn fill_from_json(&mut self, json: &Json) {
        let error = json.get("error").unwrap_or(json);
        let text = |v: Option<&Json>| match v {
            Some(Json::String(s)) => Some(s.clone()),
            Some(Json::Number(n)) => Some(n.to_string()),
            _ => None,
        };
        if let Json::String(s) = error {
            self.message = s.clone();
            return;
        }
        self.message = text(error.get("message")).or_else(|| text(json.get("message"))).unwrap_or_default();
        self.code = text(error.get("code"));
        self.kind = text(error.get("type"));
        // Some servers report the status inside the body (OpenRouter, proxies).
        if self.status.is_none() {
            self.status = error.get("code").and_then(Json::as_u64).and_then(|c| u16::try_from(c).ok());
        }
    }

    /// The server's message, trimmed to a readable length (never the request).
    pub fn quoted(&self) -> String {
        let msg = self.message.split_whitespace().collect::<Vec<_>>().join(" ");
        if msg.chars().count() <= MESSAGE_LIMIT {
            return msg;
        }
        let cut: String = msg.chars().take(MESSAGE_LIMIT).collect();
        format!("{cut}…")
    }

    /// The error class; no catch-all: every status lands in a variant that says whether it is
    /// retried.
    pub fn classify(&self) -> ProviderError {
        let message = self.quoted();
        let hay = format!(
            "{} {} {}",
            self.code.as_deref().unwrap_or(""),
            self.kind.as_deref().unwrap_or(""),
            message.to_ascii_lowercase()
        );
        if is_context_length(&hay) {
            return ProviderError::ContextLength { message };
        }
        if hay.contains("insufficient_quota")
            || hay.contains("quota exceeded")
            || hay.contains("exceeded your current quota")
            || hay.contains("billing")
            || hay.contains("insufficient credits")
            || self.status == Some(402)
        {
            return ProviderError::Quota { message };
        }
        match self.status {
            Some(401 | 403) => ProviderError::Auth { status: self.status.unwrap_or(401), message },
            Some(429) => ProviderError::RateLimited { retry_after: self.retry_after, message },
            Some(status @ (408 | 409)) => ProviderError::Server { status, message },
            Some(status) if status >= 500 => ProviderError::Server { status, message },
            Some(status) => ProviderError::BadRequest { status, message },
            // An error frame inside a stream: judged by its code and type.
            None if hay.contains("invalid_api_key") || hay.contains("authentication") => {
                ProviderError::Auth { status: 401, message }
            }
            None if hay.contains("rate_limit") || hay.contains("rate limit") => {
                ProviderError::RateLimited { retry_after: None, message }
            }
            None if hay.contains("invalid_request") => ProviderError::BadRequest { status: 400, message },
            None => ProviderError::StreamError { message },
        }
    }
}

/// The wordings servers use when a prompt does not fit the model's context.
fn is_context_length(hay: &str) -> bool {
    const WORDINGS: &[&str] = &[
        "context_length_exceeded",
        "context length",
        "context_length",
        "maximum context",
        "context window",
        "too many tokens",
        "prompt is too long",
        "input is too long",
        "exceeds the available context",
        "exceed_context_size",
        "tokens exceeds",
        "reduce the length",
    ];
    WORDINGS.iter().any(|w| hay.contains(w))
}

/// `Retry-After` as seconds or an HTTP date (a date in the past means "now").
pub fn parse_retry_after(value: &str, now: SystemTime) -> Option<Duration> {
    let value = value.trim();
    if let Ok(secs) = value.parse::<f64>() {
        return (secs.is_finite() && secs >= 0.0).then(|| Duration::from_secs_f64(secs.min(86_400.0)));
    }
    let when = httpdate::parse_http_date(value).ok()?;
    Some(when.duration_since(now).unwrap_or(Duration::ZERO))
}

/// How long to wait before attempt `attempt + 1` (`attempt` counts from 1): the server's
/// `Retry-After` when it gave one, else a random wait up to `min(cap, base · 2^(attempt-1))`.
/// None: give up (a `Retry-After` beyond the policy's limit).
pub fn backoff(policy: &RetryPolicy, attempt: u32, retry_after: Option<Duration>) -> Option<Duration> {
    if let Some(wait) = retry_after {
        return (wait <= policy.max_retry_after).then_some(wait);
    }
    let exp = policy.base.saturating_mul(2u32.saturating_pow(attempt.saturating_sub(1).min(20)));
    let ceiling = exp.min(policy.cap);
    let millis = u64::try_from(ceiling.as_millis()).unwrap_or(u64::MAX);
    Some(Duration::from_millis(fastrand::u64(0..=millis)))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn classify(status: Option<u16>, body: &str) -> ProviderError {
        ErrorReport::from_body(status, body, None).classify()
    }

    #[test]
    fn statuses_and_bodies_land_in_their_classes() {
        let openai_ctx = r#"{"error":{"message":"This model's maximum context length is 8192 tokens. However, your messages resulted in 9000 tokens.","type":"invalid_request_error","param":"messages","code":"context_length_exceeded"}}"#;
        assert!(matches!(classify(Some(400), openai_ctx), ProviderError::ContextLength { .. }));
        let llama_ctx = r#"{"error":{"code":400,"message":"the request exceeds the available context size, try increasing it","type":"exceed_context_size_error"}}"#;
        assert!(matches!(classify(Some(400), llama_ctx), ProviderError::ContextLength { .. }));
        let vllm_ctx = r#"{"object":"error","message":"This model's maximum context length is 4096 tokens. However, you requested 5000 tokens","type":"BadRequestError","code":400}"#;
        assert!(matches!(classify(Some(400), vllm_ctx), ProviderError::ContextLength { .. }));
        let quota = r#"{"error":{"message":"You exceeded your current quota, please check your plan and billing details.","type":"insufficient_quota","code":"insufficient_quota"}}"#;
        assert!(matches!(classify(Some(429), quota), ProviderError::Quota { .. }));
        let auth = r#"{"error":{"message":"Incorrect API key provided: sk-abc***","type":"invalid_request_error","code":"invalid_api_key"}}"#;
        assert!(matches!(classify(Some(401), auth), ProviderError::Auth { status: 401, .. }));
        assert!(matches!(classify(Some(403), "forbidden"), ProviderError::Auth { status: 403, .. }));
        assert!(matches!(
            classify(Some(429), r#"{"error":{"message":"slow down"}}"#),
            ProviderError::RateLimited { .. }
        ));
        assert!(matches!(classify(Some(503), "<html>busy</html>"), ProviderError::Server { status: 503, .. }));
        assert!(matches!(classify(Some(408), ""), ProviderError::Server { status: 408, .. }));
        assert!(matches!(classify(Some(409), ""), ProviderError::Server { status: 409, .. }));
        assert!(matches!(
            classify(Some(400), r#"{"error":"bad tools"}"#),
            ProviderError::BadRequest { status: 400, .. }
        ));
        assert!(matches!(
            classify(Some(404), r#"{"error":"model 'x' not found"}"#),
            ProviderError::BadRequest { status: 404, .. }
        ));
        assert!(matches!(
            classify(None, r#"{"error":{"message":"upstream overloaded"}}"#),
            ProviderError::StreamError { .. }
        ));
        assert!(matches!(
            classify(None, r#"{"error":{"message":"Rate limit reached","type":"rate_limit_error"}}"#),
            ProviderError::RateLimited { .. }
        ));
    }

    #[test]
    fn retryable_only_where_another_attempt_can_help() {
        for retry in [Some(429), Some(500), Some(502), Some(503), Some(408), Some(409)] {
            assert!(classify(retry, "x").retryable(), "{retry:?}");
        }
        for no in [Some(400), Some(401), Some(403), Some(404), Some(422)] {
            assert!(!classify(no, "x").retryable(), "{no:?}");
        }
        assert!(!classify(Some(429), r#"{"error":{"code":"insufficient_quota","message":"q"}}"#).retryable());
        assert!(!classify(Some(400), r#"{"error":{"code":"context_length_exceeded","message":"c"}}"#).retryable());
    }

    #[test]
    fn messages_are_trimmed_and_whitespace_folded() {
        let long = format!(r#"{{"error":{{"message":"{}"}}}}"#, "word ".repeat(200));
        let err = classify(Some(500), &long);
        let text = err.to_string();
        assert!(text.chars().count() < 400, "{text}");
        assert!(text.ends_with('…'), "{text}");
    }

    #[test]
    fn retry_after_in_seconds_and_as_a_date() {
        let now = SystemTime::UNIX_EPOCH + Duration::from_secs(1_700_000_000);
        assert_eq!(parse_retry_after("3", now), Some(Duration::from_secs(3)));
        assert_eq!(parse_retry_after(" 0.5 ", now), Some(Duration::from_millis(500)));
        let later = httpdate::fmt_http_date(now + Duration::from_secs(7));
        assert_eq!(parse_retry_after(&later, now), Some(Duration::from_secs(7)));
        let earlier = httpdate::fmt_http_date(now - Duration::from_secs(7));
        assert_eq!(parse_retry_after(&earlier, now), Some(Duration::ZERO));
        assert_eq!(parse_retry_after("soon", now), None);
        assert_eq!(parse_retry_after("-1", now), None);
    }

    #[test]
    fn backoff_is_jittered_under_a_doubling_capped_ceiling() {
        let policy = RetryPolicy {
            max_attempts: 10,
            base: Duration::from_millis(100),
            cap: Duration::from_millis(1000),
            max_retry_after: Duration::from_secs(60),
        };
        for _ in 0..200 {
            assert!(backoff(&policy, 1, None).unwrap() <= Duration::from_millis(100));
            assert!(backoff(&policy, 3, None).unwrap() <= Duration::from_millis(400));
            assert!(backoff(&policy, 9, None).unwrap() <= Duration::from_millis(1000));
        }
        // Full jitter: the waits spread over the range instead of sitting at its top.
        let waits: Vec<_> = (0..200).map(|_| backoff(&policy, 9, None).unwrap()).collect();
        assert!(waits.iter().any(|w| *w < Duration::from_millis(500)));
        assert!(waits.iter().any(|w| *w > Duration::from_millis(500)));
        assert_eq!(backoff(&policy, 2, Some(Duration::from_secs(3))), Some(Duration::from_secs(3)));
        assert_eq!(backoff(&policy, 2, Some(Duration::from_secs(600))), None);
    }
}
