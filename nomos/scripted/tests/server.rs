//! The scripted server over real HTTP: a script file, `/v1/models`, streamed and plain replies,
//! errors with Retry-After, a cut-off stream, recorded requests, and the binary.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};

use nomos_scripted_provider::{Reply, Script, ScriptedCall, ScriptedProvider, Step};
use serde_json::{json, Value as Json};

const SCRIPT: &str = r#"
model: test-model
replies:
  - kind: text
    content: Hello there
    reasoning: Greet first.
  - kind: tool_calls
    calls:
      - name: get_entity
        arguments: { id: pve1 }
  - kind: http
    status: 429
    retry_after: "2"
  - kind: raw_sse
    body: "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"raw\"},\"finish_reason\":\"stop\"}]}\n\ndata: [DONE]\n\n"
    chunk_delay_ms: 5
  - kind: cut_off
    content: half a sentence
"#;

fn script_file() -> (tempfile::TempDir, std::path::PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("script.yaml");
    std::fs::write(&path, SCRIPT).unwrap();
    (dir, path)
}

fn chat(stream: bool) -> Json {
    json!({ "model": "test-model", "stream": stream, "messages": [{ "role": "user", "content": "hi" }] })
}

#[tokio::test]
async fn a_script_file_is_served_in_order_and_requests_are_recorded() {
    let (_dir, path) = script_file();
    let script = Script::from_file(&path).unwrap();
    assert_eq!(script.replies.len(), 5);
    assert_eq!(
        script.replies[1].reply,
        Reply::ToolCalls {
            content: String::new(),
            calls: vec![ScriptedCall::new("get_entity", json!({ "id": "pve1" }))]
        }
    );
    let server = ScriptedProvider::start(script).await.unwrap();
    let http = reqwest::Client::new();
    let url = format!("{}/chat/completions", server.base_url());

    let models: Json = http.get(format!("{}/models", server.base_url())).send().await.unwrap().json().await.unwrap();
    assert_eq!(models["data"][0]["id"], "test-model");

    let reply: Json = http.post(&url).json(&chat(false)).send().await.unwrap().json().await.unwrap();
    assert_eq!(reply["choices"][0]["message"]["content"], "Hello there");
    assert_eq!(reply["choices"][0]["message"]["reasoning_content"], "Greet first.");

    let response = http.post(&url).json(&chat(true)).send().await.unwrap();
    assert_eq!(response.headers()["content-type"], "text/event-stream");
    let body = response.text().await.unwrap();
    assert!(body.contains(r#""name":"get_entity""#), "{body}");
    assert!(body.contains(r#""finish_reason":"tool_calls""#), "{body}");
    assert!(body.trim_end().ends_with("data: [DONE]"), "{body}");

    let response = http.post(&url).json(&chat(true)).send().await.unwrap();
    assert_eq!(response.status(), 429);
    assert_eq!(response.headers()["retry-after"], "2");

    let body = http.post(&url).json(&chat(true)).send().await.unwrap().text().await.unwrap();
    assert!(body.contains(r#""content":"raw""#), "{body}");

    let response = http.post(&url).json(&chat(true)).send().await.unwrap();
    assert_eq!(response.status(), 200);
    assert!(response.text().await.is_err(), "a cut-off stream is a broken body, not a clean end");

    let exhausted = http.post(&url).json(&chat(false)).send().await.unwrap();
    assert_eq!(exhausted.status(), 400);
    assert!(exhausted.text().await.unwrap().contains("no reply left"));

    let requests = server.requests();
    assert_eq!(requests.len(), 6);
    assert!(requests.iter().all(|r| r["messages"][0]["content"] == "hi"));
    assert_eq!(server.remaining(), 0);
}

#[tokio::test]
async fn replies_pushed_from_a_test_and_errors_with_bodies() {
    let server = ScriptedProvider::start(Script::default()).await.unwrap();
    server.push(Step::http(503, r#"{"error":{"message":"overloaded"}}"#).retry_after("1"));
    server.push(Step::text("later").delay_ms(50));
    assert_eq!(server.remaining(), 2);
    let http = reqwest::Client::new();
    let url = format!("{}/chat/completions", server.base_url());
    let response = http.post(&url).json(&chat(false)).send().await.unwrap();
    assert_eq!(response.status(), 503);
    assert_eq!(response.text().await.unwrap(), r#"{"error":{"message":"overloaded"}}"#);
    let started = std::time::Instant::now();
    let reply: Json = http.post(&url).json(&chat(false)).send().await.unwrap().json().await.unwrap();
    assert!(started.elapsed() >= std::time::Duration::from_millis(50));
    assert_eq!(reply["choices"][0]["message"]["content"], "later");
}

#[test]
fn a_bad_script_says_where_it_is_wrong() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("bad.yaml");
    std::fs::write(&path, "replies:\n  - kind: txt\n    content: x\n").unwrap();
    let err = Script::from_file(&path).unwrap_err().to_string();
    assert!(err.contains("bad.yaml") && err.contains("txt"), "{err}");
}

#[test]
fn the_binary_serves_a_script_and_records_requests() {
    let (dir, path) = script_file();
    let record = dir.path().join("requests.jsonl");
    let mut child = Command::new(env!("CARGO_BIN_EXE_nomos-scripted-provider"))
        .arg("--script")
        .arg(&path)
        .arg("--record")
        .arg(&record)
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut line = String::new();
    BufReader::new(child.stdout.take().unwrap()).read_line(&mut line).unwrap();
    let base = line.trim().to_string();
    assert!(base.starts_with("http://127.0.0.1:") && base.ends_with("/v1"), "{base}");
    let reply: Json = reqwest::blocking::Client::new()
        .post(format!("{base}/chat/completions"))
        .json(&chat(false))
        .send()
        .unwrap()
        .json()
        .unwrap();
    child.kill().unwrap();
    child.wait().unwrap();
    assert_eq!(reply["choices"][0]["message"]["content"], "Hello there");
    let recorded = std::fs::read_to_string(&record).unwrap();
    let first: Json = serde_json::from_str(recorded.lines().next().unwrap()).unwrap();
    assert_eq!(first["messages"][0]["content"], "hi");
}
