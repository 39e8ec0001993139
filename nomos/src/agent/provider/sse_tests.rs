//! The parser against the corpus of recorded bodies in `testdata/`: each `NAME.sse` next to
//! `NAME.json` holding either `{"response": ChatResponse}` (minted ids read `minted-1`, …) or
//! `{"error": "incomplete" | "malformed" | "server" | "context_length" | …}`. Every body is
//! parsed whole, byte by byte, and in odd-sized pieces: the result must not depend on where the
//! network split it.

use std::path::PathBuf;

use serde_json::Value as Json;

use super::*;
use crate::agent::provider::ProviderError;

fn corpus() -> Vec<(String, Vec<u8>, Json)> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("src/agent/provider/testdata");
    let mut cases = Vec::new();
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().and_then(|e| e.to_str()) != Some("sse") {
            continue;
        }
        let name = path.file_stem().unwrap().to_string_lossy().into_owned();
        let body = std::fs::read(&path).unwrap();
        let expected: Json =
            serde_json::from_str(&std::fs::read_to_string(path.with_extension("json")).unwrap()).unwrap();
        cases.push((name, body, expected));
    }
    cases.sort_by(|a, b| a.0.cmp(&b.0));
    cases
}

fn error_kind(err: &ProviderError) -> &'static str {
    match err {
        ProviderError::Incomplete => "incomplete",
        ProviderError::Malformed(_) => "malformed",
        ProviderError::Server { .. } => "server",
        ProviderError::StreamError { .. } => "stream_error",
        ProviderError::ContextLength { .. } => "context_length",
        ProviderError::RateLimited { .. } => "rate_limited",
        ProviderError::Quota { .. } => "quota",
        ProviderError::Auth { .. } => "auth",
        ProviderError::BadRequest { .. } => "bad_request",
        other => panic!("unexpected error class from a stream: {other:?}"),
    }
}

/// Parse in pieces of `size` bytes (0 = whole); the text deltas must add up to the content.
fn parse_in_pieces(body: &[u8], size: usize) -> (Result<ChatResponse, StreamFault>, String) {
    let mut decoder = SseDecoder::new();
    let mut assembler = Assembler::new();
    let mut text = String::new();
    let mut out = |d: Delta| {
        if let Delta::Text(t) = d {
            text.push_str(&t);
        }
    };
    let pieces: Vec<&[u8]> = if size == 0 { vec![body] } else { body.chunks(size).collect() };
    let mut minted = 0;
    let mut mint = || {
        minted += 1;
        format!("minted-{minted}")
    };
    let result = (|| {
        for piece in pieces {
            for event in decoder.feed(piece) {
                assembler.push_event(&event, &mut out)?;
            }
        }
        for event in decoder.finish() {
            assembler.push_event(&event, &mut out)?;
        }
        assembler.finish(true, &mut mint)
    })();
    (result, text)
}

#[test]
fn the_corpus_parses_to_its_recorded_results() {
    let cases = corpus();
    assert!(cases.len() >= 20, "the corpus has {} bodies", cases.len());
    for (name, body, expected) in &cases {
        for size in [0, 1, 2, 3, 7, 64] {
            let (result, text) = parse_in_pieces(body, size);
            match (&result, expected.get("response"), expected.get("error").and_then(Json::as_str)) {
                (Ok(response), Some(want), None) => {
                    let got = serde_json::to_value(response).unwrap();
                    assert_eq!(&got, want, "{name} (pieces of {size})");
                    assert_eq!(text, response.content, "{name}: the text deltas add up to the content");
                }
                (Err(fault), None, Some(want)) => {
                    let got = ProviderError::from(fault.clone());
                    assert_eq!(error_kind(&got), want, "{name} (pieces of {size}): {got}");
                }
                _ => panic!("{name} (pieces of {size}): got {result:?}, expected {expected}"),
            }
        }
    }
}

#[test]
fn parse_body_agrees_with_the_incremental_path() {
    for (name, body, _) in corpus() {
        let mut n = 0;
        let whole = parse_body(&body, &mut |_| {}, &mut || {
            n += 1;
            format!("minted-{n}")
        });
        assert_eq!(whole, parse_in_pieces(&body, 5).0, "{name}");
    }
}

#[test]
fn a_cut_connection_is_incomplete_even_after_a_finish_reason() {
    let mut assembler = Assembler::new();
    assembler
        .push_event(r#"{"choices":[{"index":0,"delta":{"content":"x"},"finish_reason":"stop"}]}"#, &mut |_| {})
        .unwrap();
    assert_eq!(assembler.finish(false, &mut || "id".into()), Err(StreamFault::Incomplete));
}

#[test]
fn a_non_streamed_reply_gives_the_same_response_as_its_stream() {
    let body: Json = serde_json::from_str(
        r#"{"id":"chatcmpl-1","object":"chat.completion","model":"gpt-4o-mini","choices":[{"index":0,
        "message":{"role":"assistant","content":"Let me look.","tool_calls":[
          {"id":"call_T","type":"function","function":{"name":"get_entity","arguments":"{\"id\":\"ct101\"}"}}]},
        "finish_reason":"tool_calls"}],"usage":{"prompt_tokens":10,"completion_tokens":5,"total_tokens":15}}"#,
    )
    .unwrap();
    let mut text = String::new();
    let whole = parse_completion(
        &body,
        &mut |d| {
            if let Delta::Text(t) = d {
                text.push_str(&t)
            }
        },
        &mut || "minted".into(),
    )
    .unwrap();
    let stream = std::fs::read(
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("src/agent/provider/testdata/text_then_tool_call.sse"),
    )
    .unwrap();
    let streamed = parse_body(&stream, &mut |_| {}, &mut || "minted".into()).unwrap();
    assert_eq!(ChatResponse { usage: None, ..whole.clone() }, streamed);
    assert_eq!(whole.usage, Some(Usage { prompt_tokens: 10, completion_tokens: 5 }));
    assert_eq!(text, "Let me look.");

    // Several calls without ids or indexes in one message stay separate calls.
    let body: Json = serde_json::from_str(
        r#"{"choices":[{"index":0,"message":{"role":"assistant","content":"","tool_calls":[
          {"function":{"name":"get_entity","arguments":"{\"id\":\"a\"}"}},
          {"function":{"name":"get_entity","arguments":"{\"id\":\"b\"}"}}]},"finish_reason":"stop"}]}"#,
    )
    .unwrap();
    let mut n = 0;
    let reply = parse_completion(&body, &mut |_| {}, &mut || {
        n += 1;
        format!("m{n}")
    })
    .unwrap();
    let ids: Vec<_> = reply.tool_calls.iter().map(|c| (c.id.as_str(), c.arguments.as_str())).collect();
    assert_eq!(ids, [("m1", r#"{"id":"a"}"#), ("m2", r#"{"id":"b"}"#)]);
    assert_eq!(reply.finish, FinishReason::ToolCalls);
}

#[test]
fn tool_call_deltas_name_each_call_once() {
    let body = std::fs::read(
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("src/agent/provider/testdata/openai_parallel_tools.sse"),
    )
    .unwrap();
    let mut deltas = Vec::new();
    parse_body(&body, &mut |d| deltas.push(d), &mut || "x".into()).unwrap();
    assert_eq!(
        deltas,
        [
            Delta::ToolCall { index: 0, name: "get_entity".into() },
            Delta::ToolCall { index: 1, name: "get_relations".into() }
        ]
    );
}

#[test]
fn multi_line_data_and_a_split_utf8_character() {
    let mut decoder = SseDecoder::new();
    let body = "data: {\"a\":\ndata: \"é\"}\n\n".as_bytes();
    let split = body.iter().position(|&b| b == 0xC3).unwrap() + 1;
    let mut events = decoder.feed(&body[..split]);
    events.extend(decoder.feed(&body[split..]));
    assert_eq!(events, ["{\"a\":\n\"é\"}"]);
}
