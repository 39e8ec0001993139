//! The client against the scripted stand-in server over real HTTP on loopback.

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use nomos_scripted_provider::{Script, ScriptedCall, ScriptedProvider, Step};
use serde_json::json;
use tokio_util::sync::CancellationToken;

use super::*;
use crate::agent::chat::{ChatMessage, ChatRequest, FinishReason, ToolCall, ToolSpec};

fn config(server: &ScriptedProvider) -> ProviderConfig {
    let mut config = ProviderConfig::new(server.base_url(), "scripted");
    config.api_key = Some(Secret::new("sk-test-never-in-a-body"));
    config.retry = RetryPolicy {
        max_attempts: 4,
        base: Duration::from_millis(20),
        cap: Duration::from_millis(100),
        max_retry_after: Duration::from_secs(5),
    };
    config.timeouts = Timeouts {
        connect: Duration::from_secs(2),
        first_byte: Duration::from_secs(5),
        idle: Duration::from_secs(5),
        total: Duration::from_secs(20),
    };
    config
}

fn request() -> ChatRequest {
    ChatRequest {
        messages: vec![
            ChatMessage::system("You are Nomos."),
            ChatMessage::user("What runs on pve1?"),
            ChatMessage::assistant(
                "",
                vec![ToolCall { id: "call_1".into(), name: "get_entity".into(), arguments: r#"{"id":"pve1"}"#.into() }],
            ),
            ChatMessage::tool("call_1", r#"{"kind":"node"}"#),
        ],
        tools: vec![ToolSpec {
            name: "get_entity".into(),
            description: "One entity of the graph.".into(),
            parameters: json!({ "type": "object", "properties": { "id": { "type": "string" } }, "required": ["id"] }),
        }],
        max_tokens: Some(512),
    }
}

/// Collects the deltas a completion streams.
#[derive(Default, Clone)]
struct Seen(Arc<Mutex<Vec<Delta>>>);

impl Seen {
    fn sink(&self) -> impl Fn(Delta) + Send + Sync {
        let seen = self.0.clone();
        move |d| seen.lock().unwrap().push(d)
    }

    fn all(&self) -> Vec<Delta> {
        self.0.lock().unwrap().clone()
    }
}

async fn complete(provider: &Provider, seen: &Seen) -> Result<ChatResponse, ProviderError> {
    provider.complete(&request(), &seen.sink(), &CancellationToken::new()).await
}

#[tokio::test]
async fn streamed_and_non_streamed_replies_give_the_same_response() {
    let text = Step::text("pve1 runs three containers.");
    let calls = Step::tool_calls(vec![
        ScriptedCall::new("get_relations", json!({ "id": "pve1" })).with_id("call_a"),
        ScriptedCall::new("list_entities", json!(null)).with_id("call_b"),
    ]);
    let server = ScriptedProvider::start(Script::new(vec![text.clone(), text, calls.clone(), calls])).await.unwrap();
    let streamed = Provider::new(config(&server)).unwrap();
    let mut whole_config = config(&server);
    whole_config.stream = false;
    let whole = Provider::new(whole_config).unwrap();
    let seen = Seen::default();

    for _ in 0..2 {
        let a = complete(&streamed, &seen).await.unwrap();
        let b = complete(&whole, &seen).await.unwrap();
        assert_eq!(a, b);
    }
    let requests = server.requests();
    assert_eq!(requests.len(), 4);
    let last = complete(&whole, &seen).await;
    assert!(matches!(last, Err(ProviderError::BadRequest { .. })), "the script is used up: {last:?}");

    let streamed_reply = {
        let server = ScriptedProvider::start(Script::new(vec![Step::tool_calls(vec![ScriptedCall::new(
            "list_entities",
            json!(null),
        )
        .with_id("call_b")])]))
        .await
        .unwrap();
        Provider::new(config(&server)).unwrap().complete(&request(), &|_| {}, &CancellationToken::new()).await.unwrap()
    };
    assert_eq!(
        streamed_reply.tool_calls,
        [ToolCall { id: "call_b".into(), name: "list_entities".into(), arguments: "{}".into() }]
    );
    assert_eq!(streamed_reply.finish, FinishReason::ToolCalls);
    assert!(streamed_reply.usage.is_some_and(|u| u.prompt_tokens > 0));
    let texts: String =
        seen.all().into_iter().filter_map(|d| if let Delta::Text(t) = d { Some(t) } else { None }).collect();
    assert_eq!(texts, "pve1 runs three containers.".repeat(2), "the non-streamed reply streams its text too, once");
}

#[tokio::test]
async fn the_request_is_openai_shaped_and_carries_no_key() {
    let server = ScriptedProvider::start(Script::new(vec![Step::text("ok")])).await.unwrap();
    let provider = Provider::new(config(&server)).unwrap();
    complete(&provider, &Seen::default()).await.unwrap();
    let body = &server.requests()[0];
    assert_eq!(body["model"], "scripted");
    assert_eq!(body["stream"], true);
    assert_eq!(body["stream_options"]["include_usage"], true);
    assert_eq!(body["max_tokens"], 512);
    assert_eq!(body["tools"][0]["type"], "function");
    assert_eq!(body["tools"][0]["function"]["name"], "get_entity");
    let messages = body["messages"].as_array().unwrap();
    assert_eq!(
        messages.iter().map(|m| m["role"].as_str().unwrap()).collect::<Vec<_>>(),
        ["system", "user", "assistant", "tool"]
    );
    assert_eq!(messages[2]["content"], serde_json::Value::Null);
    assert_eq!(messages[2]["tool_calls"][0]["id"], "call_1");
    assert_eq!(messages[2]["tool_calls"][0]["function"]["arguments"], r#"{"id":"pve1"}"#);
    assert_eq!(messages[3]["tool_call_id"], "call_1");
    assert!(!body.to_string().contains("sk-test"), "the key travels only in the header");
}

#[tokio::test]
async fn rate_limited_with_retry_after_then_success() {
    let server = ScriptedProvider::start(Script::new(vec![
        Step::http(
            429,
            r#"{"error":{"message":"Rate limit reached for requests","type":"requests","code":"rate_limit_exceeded"}}"#,
        )
        .retry_after("1"),
        Step::text("after the wait"),
    ]))
    .await
    .unwrap();
    let provider = Provider::new(config(&server)).unwrap();
    let seen = Seen::default();
    let started = Instant::now();
    let reply = complete(&provider, &seen).await.unwrap();
    let waited = started.elapsed();
    println!("waited {waited:?} for Retry-After: 1");
    assert_eq!(reply.content, "after the wait");
    assert!(waited >= Duration::from_millis(950), "Retry-After honoured: {waited:?}");
    assert_eq!(server.requests().len(), 2);
    assert_eq!(seen.all().first(), Some(&Delta::Reset));
}

#[tokio::test]
async fn server_errors_twice_then_success() {
    let server = ScriptedProvider::start(Script::new(vec![
        Step::http(500, ""),
        Step::http(503, "<html>upstream unavailable</html>"),
        Step::text("third time"),
    ]))
    .await
    .unwrap();
    let provider = Provider::new(config(&server)).unwrap();
    let seen = Seen::default();
    assert_eq!(complete(&provider, &seen).await.unwrap().content, "third time");
    assert_eq!(server.requests().len(), 3);
    assert_eq!(seen.all().iter().filter(|d| **d == Delta::Reset).count(), 2);
}

#[tokio::test]
async fn retries_stop_at_the_policy_limit() {
    let server = ScriptedProvider::start(Script::new((0..6).map(|_| Step::http(502, "")).collect())).await.unwrap();
    let provider = Provider::new(config(&server)).unwrap();
    let err = complete(&provider, &Seen::default()).await.unwrap_err();
    assert!(matches!(err, ProviderError::Server { status: 502, .. }), "{err}");
    assert_eq!(server.requests().len(), 4);
}

#[tokio::test]
async fn auth_quota_context_and_bad_requests_are_not_retried() {
    type Expect = fn(&ProviderError) -> bool;
    let cases: Vec<(Step, Expect)> = vec![
        (Step::http(401, r#"{"error":{"message":"Incorrect API key provided","code":"invalid_api_key"}}"#), |e| {
            matches!(e, ProviderError::Auth { status: 401, .. })
        }),
        (
            Step::http(
                429,
                r#"{"error":{"message":"You exceeded your current quota","type":"insufficient_quota","code":"insufficient_quota"}}"#,
            ),
            |e| matches!(e, ProviderError::Quota { .. }),
        ),
        (
            Step::http(
                400,
                r#"{"error":{"message":"This model's maximum context length is 8192 tokens.","code":"context_length_exceeded"}}"#,
            ),
            |e| matches!(e, ProviderError::ContextLength { .. }),
        ),
        (Step::http(400, r#"{"error":"invalid tool schema"}"#), |e| {
            matches!(e, ProviderError::BadRequest { status: 400, .. })
        }),
    ];
    for (step, is_expected) in cases {
        let server = ScriptedProvider::start(Script::new(vec![step, Step::text("must not be reached")])).await.unwrap();
        let provider = Provider::new(config(&server)).unwrap();
        let err = complete(&provider, &Seen::default()).await.unwrap_err();
        assert!(is_expected(&err), "{err:?}");
        assert!(!err.retryable());
        assert_eq!(server.requests().len(), 1, "not retried: {err}");
        assert!(!err.to_string().contains("sk-test"), "{err}");
    }
}

#[tokio::test]
async fn a_stream_cut_off_is_retried_and_its_partial_text_discarded() {
    let server = ScriptedProvider::start(Script::new(vec![
        Step::cut_off("I will restart the conta"),
        Step::text("Restarting ct101 needs your approval."),
    ]))
    .await
    .unwrap();
    let provider = Provider::new(config(&server)).unwrap();
    let seen = Seen::default();
    let reply = complete(&provider, &seen).await.unwrap();
    assert_eq!(reply.content, "Restarting ct101 needs your approval.");
    let deltas = seen.all();
    let reset = deltas.iter().position(|d| *d == Delta::Reset).expect("a reset before the retry");
    let before: String =
        deltas[..reset].iter().filter_map(|d| if let Delta::Text(t) = d { Some(t.as_str()) } else { None }).collect();
    let after: String =
        deltas[reset..].iter().filter_map(|d| if let Delta::Text(t) = d { Some(t.as_str()) } else { None }).collect();
    assert_eq!(before, "I will restart the conta");
    assert_eq!(after, reply.content);
    assert_eq!(server.requests().len(), 2);
}

#[tokio::test]
async fn an_error_inside_the_stream_is_classified() {
    let context =
        "data: {\"error\":{\"message\":\"prompt is too long: 210000 tokens\",\"type\":\"invalid_request_error\"}}\n\n";
    let server =
        ScriptedProvider::start(Script::new(vec![Step::raw_sse(context), Step::text("unreached")])).await.unwrap();
    let err = complete(&Provider::new(config(&server)).unwrap(), &Seen::default()).await.unwrap_err();
    assert!(matches!(err, ProviderError::ContextLength { .. }), "{err:?}");
    assert_eq!(server.requests().len(), 1);
}

#[tokio::test]
async fn idle_timeout_between_chunks() {
    let server = ScriptedProvider::start(Script::new(vec![Step::text("slow words that stall").chunk_delay_ms(10_000)]))
        .await
        .unwrap();
    let mut config = config(&server);
    config.timeouts.idle = Duration::from_millis(300);
    config.retry.max_attempts = 1;
    let started = Instant::now();
    let err = complete(&Provider::new(config).unwrap(), &Seen::default()).await.unwrap_err();
    println!("idle timeout after {:?}", started.elapsed());
    assert_eq!(err, ProviderError::Timeout { phase: TimeoutPhase::Idle });
    assert!(err.retryable());
    // Well before the next chunk (10 s) would have come, with room for a loaded machine.
    assert!(started.elapsed() < Duration::from_secs(8));
}

#[tokio::test]
async fn first_byte_timeout() {
    let server = ScriptedProvider::start(Script::new(vec![Step::text("late").delay_ms(10_000)])).await.unwrap();
    let mut config = config(&server);
    config.timeouts.first_byte = Duration::from_millis(300);
    config.retry.max_attempts = 1;
    let started = Instant::now();
    let err = complete(&Provider::new(config).unwrap(), &Seen::default()).await.unwrap_err();
    println!("first-byte timeout after {:?}", started.elapsed());
    assert_eq!(err, ProviderError::Timeout { phase: TimeoutPhase::FirstByte });
    assert!(started.elapsed() < Duration::from_secs(8));
}

#[tokio::test]
async fn the_total_timer_is_not_retried() {
    let server =
        ScriptedProvider::start(Script::new(vec![Step::text("a b c d e f g h").chunk_delay_ms(150), Step::text("x")]))
            .await
            .unwrap();
    let mut config = config(&server);
    config.timeouts.total = Duration::from_millis(400);
    let err = complete(&Provider::new(config).unwrap(), &Seen::default()).await.unwrap_err();
    assert_eq!(err, ProviderError::Timeout { phase: TimeoutPhase::Total });
    assert_eq!(server.requests().len(), 1);
}

#[tokio::test]
async fn cancel_mid_stream_returns_promptly() {
    let server =
        ScriptedProvider::start(Script::new(vec![Step::text("word ".repeat(200)).chunk_delay_ms(300)])).await.unwrap();
    let provider = Provider::new(config(&server)).unwrap();
    let cancel = CancellationToken::new();
    let seen = Seen::default();
    let (trigger, watcher) = (cancel.clone(), seen.clone());
    let fired = Arc::new(Mutex::new(None::<Instant>));
    let fired_at = fired.clone();
    tokio::spawn(async move {
        // Cancel once the stream is flowing.
        while watcher.all().len() < 3 {
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        *fired_at.lock().unwrap() = Some(Instant::now());
        trigger.cancel();
    });
    let result = provider.complete(&request(), &seen.sink(), &cancel).await;
    let took = fired.lock().unwrap().map(|at| at.elapsed()).unwrap();
    println!("cancel took effect after {took:?}");
    assert_eq!(result, Err(ProviderError::Cancelled));
    // The whole stream takes a minute; 20 chunks would take 6 s.
    assert!(took < Duration::from_secs(5), "{took:?}");
    assert!(seen.all().len() < 20, "the stream stopped early");
}

#[tokio::test]
async fn cancel_during_a_backoff_wait() {
    let server = ScriptedProvider::start(Script::new(vec![Step::http(429, "").retry_after("5"), Step::text("x")]))
        .await
        .unwrap();
    let provider = Provider::new(config(&server)).unwrap();
    let cancel = CancellationToken::new();
    let trigger = cancel.clone();
    tokio::spawn(async move {
        tokio::time::sleep(Duration::from_millis(300)).await;
        trigger.cancel();
    });
    let started = Instant::now();
    assert_eq!(provider.complete(&request(), &|_| {}, &cancel).await, Err(ProviderError::Cancelled));
    // Before the server's 5 s were waited out (the longest these tests' policy waits).
    assert!(started.elapsed() < Duration::from_secs(4));
}

#[tokio::test]
async fn connection_refused_is_a_retried_connect_error() {
    // A port nothing listens on: bind one, note it, let it go.
    let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let mut config = ProviderConfig::new(format!("http://127.0.0.1:{port}/v1"), "m");
    config.retry = RetryPolicy {
        max_attempts: 2,
        base: Duration::from_millis(10),
        cap: Duration::from_millis(10),
        max_retry_after: Duration::ZERO,
    };
    let err =
        Provider::new(config).unwrap().complete(&request(), &|_| {}, &CancellationToken::new()).await.unwrap_err();
    assert!(matches!(err, ProviderError::Connect { .. }), "{err:?}");
    assert!(err.retryable());
}

#[tokio::test]
async fn test_connection_returns_the_answer_or_why_not() {
    let server =
        ScriptedProvider::start(Script::new(vec![Step::text("ok"), Step::http(401, r#"{"error":"bad key"}"#)]))
            .await
            .unwrap();
    let provider = Provider::new(config(&server)).unwrap();
    assert_eq!(provider.check().await.unwrap(), "ok");
    let err = provider.check().await.unwrap_err();
    assert!(matches!(err, ProviderError::Auth { status: 401, .. }), "{err:?}");
}
