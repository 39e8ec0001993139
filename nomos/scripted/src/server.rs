//! The HTTP side: one task per connection, one request per connection (`Connection: close`).

use std::collections::VecDeque;
use std::io;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use serde_json::{json, Value as Json};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio::task::JoinHandle;

use crate::script::{Reply, Script, Step};

/// The most of a request it reads (a long history is still far below this).
const MAX_REQUEST: usize = 64 * 1024 * 1024;

#[derive(Debug, Default)]
struct State {
    model: String,
    queue: VecDeque<Step>,
    requests: Vec<Json>,
    record: Option<PathBuf>,
}

/// A running server. Dropping it stops it.
#[derive(Debug)]
pub struct ScriptedProvider {
    addr: SocketAddr,
    state: Arc<Mutex<State>>,
    task: JoinHandle<()>,
}

impl Drop for ScriptedProvider {
    fn drop(&mut self) {
        self.task.abort();
    }
}

fn lock(state: &Mutex<State>) -> MutexGuard<'_, State> {
    // A panicking connection task cannot leave the queue half-changed; keep serving.
    state.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

impl ScriptedProvider {
    /// Listen on 127.0.0.1 at a free port.
    pub async fn start(script: Script) -> io::Result<ScriptedProvider> {
        ScriptedProvider::start_on(script, 0, None).await
    }

    /// Listen on 127.0.0.1:`port` (0: a free one); `record`: also append each request body to
    /// this file as a JSON line.
    pub async fn start_on(script: Script, port: u16, record: Option<PathBuf>) -> io::Result<ScriptedProvider> {
        let listener = TcpListener::bind(("127.0.0.1", port)).await?;
        let addr = listener.local_addr()?;
        let state = Arc::new(Mutex::new(State {
            model: script.model,
            queue: script.replies.into(),
            requests: Vec::new(),
            record,
        }));
        let shared = state.clone();
        let task = tokio::spawn(async move {
            loop {
                let Ok((stream, _)) = listener.accept().await else { continue };
                let state = shared.clone();
                tokio::spawn(async move {
                    // A client that hangs up early is normal in these tests.
                    let _ = serve(stream, state).await;
                });
            }
        });
        Ok(ScriptedProvider { addr, state, task })
    }

    /// The API root to configure a client with: `http://127.0.0.1:PORT/v1`.
    pub fn base_url(&self) -> String {
        format!("http://{}/v1", self.addr)
    }

    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// Queue another reply.
    pub fn push(&self, step: Step) {
        lock(&self.state).queue.push_back(step);
    }

    /// Every chat-completion request body received so far, in order.
    pub fn requests(&self) -> Vec<Json> {
        lock(&self.state).requests.clone()
    }

    /// Replies not served yet.
    pub fn remaining(&self) -> usize {
        lock(&self.state).queue.len()
    }
}

struct Request {
    method: String,
    path: String,
    body: Vec<u8>,
}

async fn read_request(stream: &mut TcpStream) -> io::Result<Option<Request>> {
    let mut buf = Vec::new();
    let mut chunk = [0u8; 8192];
    let head_end = loop {
        if let Some(at) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
            break at;
        }
        let n = stream.read(&mut chunk).await?;
        if n == 0 {
            return Ok(None);
        }
        buf.extend_from_slice(&chunk[..n]);
        if buf.len() > MAX_REQUEST {
            return Err(io::Error::other("request too large"));
        }
    };
    let head = String::from_utf8_lossy(&buf[..head_end]).into_owned();
    let mut lines = head.split("\r\n");
    let mut first = lines.next().unwrap_or_default().split_whitespace();
    let method = first.next().unwrap_or_default().to_string();
    let path = first.next().unwrap_or_default().to_string();
    let length = lines
        .filter_map(|l| l.split_once(':'))
        .find(|(k, _)| k.trim().eq_ignore_ascii_case("content-length"))
        .and_then(|(_, v)| v.trim().parse::<usize>().ok())
        .unwrap_or(0)
        .min(MAX_REQUEST);
    let mut body = buf[head_end + 4..].to_vec();
    while body.len() < length {
        let n = stream.read(&mut chunk).await?;
        if n == 0 {
            break;
        }
        body.extend_from_slice(&chunk[..n]);
    }
    Ok(Some(Request { method, path, body }))
}

async fn serve(mut stream: TcpStream, state: Arc<Mutex<State>>) -> io::Result<()> {
    let Some(request) = read_request(&mut stream).await? else { return Ok(()) };
    let path = request.path.split('?').next().unwrap_or_default().trim_end_matches('/');
    match (request.method.as_str(), path) {
        ("GET", "/v1/models" | "/models") => {
            let model = lock(&state).model.clone();
            let body = json!({ "object": "list", "data": [
                { "id": model, "object": "model", "owned_by": "nomos-scripted-provider" }] });
            send_json(&mut stream, 200, &body.to_string(), None).await
        }
        ("POST", "/v1/chat/completions" | "/chat/completions") => {
            let body: Json = match serde_json::from_slice(&request.body) {
                Ok(body) => body,
                Err(e) => {
                    let msg = json!({ "error": { "message": format!("the request body is not JSON: {e}"),
                        "type": "invalid_request_error" } });
                    return send_json(&mut stream, 400, &msg.to_string(), None).await;
                }
            };
            let (step, model) = {
                let mut s = lock(&state);
                s.requests.push(body.clone());
                if let Some(path) = &s.record {
                    record(path, &body);
                }
                (s.queue.pop_front(), s.model.clone())
            };
            let Some(step) = step else {
                let msg = json!({ "error": { "message": "the script has no reply left for this request",
                    "type": "script_exhausted" } });
                return send_json(&mut stream, 400, &msg.to_string(), None).await;
            };
            let streamed = body.get("stream").and_then(Json::as_bool).unwrap_or(false);
            // A rough count (4 bytes a token) of the messages alone, the same streamed or not.
            let prompt_tokens = body.get("messages").map(|m| m.to_string().len() / 4).unwrap_or(0);
            answer(&mut stream, step, streamed, &model, prompt_tokens).await
        }
        _ => {
            let msg = json!({ "error": { "message": format!("no route {} {}", request.method, request.path) } });
            send_json(&mut stream, 404, &msg.to_string(), None).await
        }
    }
}

fn record(path: &PathBuf, body: &Json) {
    use std::io::Write;
    if let Ok(mut file) = std::fs::OpenOptions::new().create(true).append(true).open(path) {
        let _ = writeln!(file, "{body}");
    }
}

async fn send_json(stream: &mut TcpStream, status: u16, body: &str, retry_after: Option<&str>) -> io::Result<()> {
    let mut head = format!(
        "HTTP/1.1 {status} {}\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n",
        reason(status),
        body.len()
    );
    if let Some(value) = retry_after {
        head.push_str(&format!("retry-after: {value}\r\n"));
    }
    head.push_str("\r\n");
    stream.write_all(head.as_bytes()).await?;
    stream.write_all(body.as_bytes()).await?;
    stream.shutdown().await
}

fn reason(status: u16) -> &'static str {
    match status {
        200 => "OK",
        400 => "Bad Request",
        401 => "Unauthorized",
        403 => "Forbidden",
        404 => "Not Found",
        408 => "Request Timeout",
        409 => "Conflict",
        429 => "Too Many Requests",
        500 => "Internal Server Error",
        502 => "Bad Gateway",
        503 => "Service Unavailable",
        _ => "Status",
    }
}

/// A chunked SSE response, written frame by frame.
struct SseWriter<'a> {
    stream: &'a mut TcpStream,
    delay: Duration,
}

impl SseWriter<'_> {
    async fn start(stream: &mut TcpStream, delay: Duration) -> io::Result<SseWriter<'_>> {
        stream
            .write_all(
                b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ncache-control: no-cache\r\n\
                  transfer-encoding: chunked\r\nconnection: close\r\n\r\n",
            )
            .await?;
        Ok(SseWriter { stream, delay })
    }

    async fn raw(&mut self, bytes: &str) -> io::Result<()> {
        if bytes.is_empty() {
            return Ok(());
        }
        self.stream.write_all(format!("{:x}\r\n{bytes}\r\n", bytes.len()).as_bytes()).await?;
        self.stream.flush().await?;
        if !self.delay.is_zero() {
            tokio::time::sleep(self.delay).await;
        }
        Ok(())
    }

    async fn frame(&mut self, data: &Json) -> io::Result<()> {
        self.raw(&format!("data: {data}\n\n")).await
    }

    async fn end(self) -> io::Result<()> {
        self.stream.write_all(b"0\r\n\r\n").await?;
        self.stream.shutdown().await
    }
}

fn words(text: &str) -> Vec<String> {
    let mut pieces = Vec::new();
    let mut current = String::new();
    for c in text.chars() {
        if c == ' ' && !current.is_empty() {
            pieces.push(std::mem::take(&mut current));
        }
        current.push(c);
    }
    if !current.is_empty() {
        pieces.push(current);
    }
    pieces
}

async fn answer(
    stream: &mut TcpStream,
    step: Step,
    streamed: bool,
    model: &str,
    prompt_tokens: usize,
) -> io::Result<()> {
    if step.delay_ms > 0 {
        tokio::time::sleep(Duration::from_millis(step.delay_ms)).await;
    }
    let delay = Duration::from_millis(step.chunk_delay_ms);
    let chunk = |delta: Json, finish: Option<&str>| {
        json!({ "id": "chatcmpl-scripted", "object": "chat.completion.chunk", "created": 0, "model": model,
                "choices": [{ "index": 0, "delta": delta, "finish_reason": finish }] })
    };
    match step.reply {
        Reply::Http { status, body, retry_after } => {
            let body = body.unwrap_or_else(|| {
                json!({ "error": { "message": format!("scripted HTTP {status}"), "type": "scripted_error" } })
                    .to_string()
            });
            send_json(stream, status, &body, retry_after.as_deref()).await
        }
        Reply::RawSse { body } => {
            let mut out = SseWriter::start(stream, delay).await?;
            // Frame by frame, each blank line ending one.
            let mut rest = body.as_str();
            while let Some(at) = rest.find("\n\n") {
                out.raw(&rest[..at + 2]).await?;
                rest = &rest[at + 2..];
            }
            out.raw(rest).await?;
            out.end().await
        }
        Reply::CutOff { content } => {
            let mut out = SseWriter::start(stream, delay).await?;
            out.frame(&chunk(json!({ "role": "assistant", "content": "" }), None)).await?;
            for piece in words(&content) {
                out.frame(&chunk(json!({ "content": piece }), None)).await?;
            }
            // No terminating chunk: the client sees the body break off.
            stream.shutdown().await
        }
        Reply::Text { content, reasoning, finish } => {
            let finish = finish.unwrap_or_else(|| "stop".into());
            let usage = json!({ "prompt_tokens": prompt_tokens, "completion_tokens": content.len() / 4 + 1,
                                "total_tokens": prompt_tokens + content.len() / 4 + 1 });
            if !streamed {
                let mut message = json!({ "role": "assistant", "content": content });
                if !reasoning.is_empty() {
                    message["reasoning_content"] = json!(reasoning);
                }
                return send_completion(stream, model, message, &finish, usage).await;
            }
            let mut out = SseWriter::start(stream, delay).await?;
            out.frame(&chunk(json!({ "role": "assistant", "content": "" }), None)).await?;
            for piece in words(&reasoning) {
                out.frame(&chunk(json!({ "reasoning_content": piece }), None)).await?;
            }
            for piece in words(&content) {
                out.frame(&chunk(json!({ "content": piece }), None)).await?;
            }
            out.frame(&chunk(json!({}), Some(&finish))).await?;
            out.frame(&usage_chunk(model, usage)).await?;
            out.raw("data: [DONE]\n\n").await?;
            out.end().await
        }
        Reply::ToolCalls { content, calls } => {
            let ids: Vec<String> = calls
                .iter()
                .enumerate()
                .map(|(i, c)| c.id.clone().unwrap_or_else(|| format!("call_scripted_{i}")))
                .collect();
            let usage = json!({ "prompt_tokens": prompt_tokens, "completion_tokens": 20,
                                "total_tokens": prompt_tokens + 20 });
            if !streamed {
                let wire: Vec<Json> = calls
                    .iter()
                    .zip(&ids)
                    .map(|(c, id)| {
                        json!({ "id": id, "type": "function",
                        "function": { "name": c.name, "arguments": c.arguments_text() } })
                    })
                    .collect();
                let content = if content.is_empty() { Json::Null } else { json!(content) };
                let message = json!({ "role": "assistant", "content": content, "tool_calls": wire });
                return send_completion(stream, model, message, "tool_calls", usage).await;
            }
            let mut out = SseWriter::start(stream, delay).await?;
            out.frame(&chunk(json!({ "role": "assistant", "content": null }), None)).await?;
            for piece in words(&content) {
                out.frame(&chunk(json!({ "content": piece }), None)).await?;
            }
            for (index, (call, id)) in calls.iter().zip(&ids).enumerate() {
                let first = json!({ "tool_calls": [{ "index": index, "id": id, "type": "function",
                    "function": { "name": call.name, "arguments": "" } }] });
                out.frame(&chunk(first, None)).await?;
                // The arguments in two pieces, as real servers split them.
                let args = call.arguments_text();
                let cut = args.char_indices().nth(args.chars().count() / 2).map(|(i, _)| i).unwrap_or(0);
                for piece in [&args[..cut], &args[cut..]] {
                    if !piece.is_empty() {
                        let delta = json!({ "tool_calls": [{ "index": index, "function": { "arguments": piece } }] });
                        out.frame(&chunk(delta, None)).await?;
                    }
                }
            }
            out.frame(&chunk(json!({}), Some("tool_calls"))).await?;
            out.frame(&usage_chunk(model, usage)).await?;
            out.raw("data: [DONE]\n\n").await?;
            out.end().await
        }
    }
}

fn usage_chunk(model: &str, usage: Json) -> Json {
    json!({ "id": "chatcmpl-scripted", "object": "chat.completion.chunk", "created": 0, "model": model,
            "choices": [], "usage": usage })
}

async fn send_completion(
    stream: &mut TcpStream,
    model: &str,
    message: Json,
    finish: &str,
    usage: Json,
) -> io::Result<()> {
    let body = json!({ "id": "chatcmpl-scripted", "object": "chat.completion", "created": 0, "model": model,
        "choices": [{ "index": 0, "message": message, "finish_reason": finish }], "usage": usage });
    send_json(stream, 200, &body.to_string(), None).await
}
