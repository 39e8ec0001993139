//! The stream parser, pure: server-sent-event frames out of network chunks ([`SseDecoder`]) and
//! a [`ChatResponse`] out of chat-completion chunks ([`Assembler`]). A non-streamed reply goes
//! through the same assembler as one big delta, so both give the same result.
//!
//! Servers differ; what is handled (each case has a recorded body under `testdata/`):
//! CRLF or CR line endings, frames split anywhere across network chunks, keep-alive comments,
//! `data:` with or without the space, no `[DONE]` (complete only if a finish reason came and the
//! body ended cleanly), duplicate finish chunks, a finish reason on every chunk, usage in a last
//! chunk without choices, `reasoning_content` / `reasoning`, error objects inside the stream, and
//! tool calls: by index, then id — missing `index`, every call on index 0 (a new id or a new name
//! starts a new call), name and arguments on different chunks, the id only on the first chunk,
//! empty arguments meaning `{}`, `stop` instead of `tool_calls`, and a call cut off by
//! `finish_reason = length` (discarded and counted, never run).

use serde_json::Value as Json;

use super::retry::ErrorReport;
use crate::agent::chat::{ChatResponse, Delta, FinishReason, ToolCall, Usage};

/// Splits a byte stream into the `data` of each event. Lines may end in LF, CRLF or CR; a chunk
/// may end anywhere, even inside a UTF-8 character.
#[derive(Debug, Default)]
pub struct SseDecoder {
    line: Vec<u8>,
    data: Option<String>,
    /// The previous chunk ended in CR: an LF at the start of the next one belongs to it.
    after_cr: bool,
}

impl SseDecoder {
    pub fn new() -> SseDecoder {
        SseDecoder::default()
    }

    /// Feed bytes; returns the events they completed.
    pub fn feed(&mut self, bytes: &[u8]) -> Vec<String> {
        let mut events = Vec::new();
        for &b in bytes {
            if self.after_cr {
                self.after_cr = false;
                if b == b'\n' {
                    continue;
                }
            }
            match b {
                b'\n' => self.end_line(&mut events),
                b'\r' => {
                    self.after_cr = true;
                    self.end_line(&mut events);
                }
                _ => self.line.push(b),
            }
        }
        events
    }

    /// The body ended: a last line without its terminator and a last event without its blank
    /// line still count.
    pub fn finish(&mut self) -> Vec<String> {
        let mut events = Vec::new();
        if !self.line.is_empty() {
            self.end_line(&mut events);
        }
        if let Some(data) = self.data.take() {
            events.push(data);
        }
        events
    }

    fn end_line(&mut self, events: &mut Vec<String>) {
        let line = String::from_utf8_lossy(&self.line).into_owned();
        self.line.clear();
        if line.is_empty() {
            if let Some(data) = self.data.take() {
                events.push(data);
            }
            return;
        }
        if line.starts_with(':') {
            return; // a keep-alive comment
        }
        let (field, value) = match line.split_once(':') {
            Some((field, value)) => (field, value.strip_prefix(' ').unwrap_or(value)),
            None => (line.as_str(), ""),
        };
        if field == "data" {
            match &mut self.data {
                Some(data) => {
                    data.push('\n');
                    data.push_str(value);
                }
                None => self.data = Some(value.to_string()),
            }
        }
        // `event:`, `id:`, `retry:` carry nothing a chat completion needs.
    }
}

/// Why a stream did not yield a response.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum StreamFault {
    /// The body ended before the completion did (no `[DONE]` and no finish reason).
    Incomplete,
    /// A frame that is not a chat-completion chunk.
    Malformed(String),
    /// The server sent an error object inside the stream.
    Error(ErrorReport),
}

#[derive(Debug, Default)]
struct PartialCall {
    index: Option<u64>,
    id: Option<String>,
    name: String,
    arguments: String,
}

/// Builds one [`ChatResponse`] from chunks, reporting what the operator may watch as [`Delta`]s.
#[derive(Debug, Default)]
pub struct Assembler {
    content: String,
    reasoning: String,
    calls: Vec<PartialCall>,
    finish: Option<FinishReason>,
    usage: Option<Usage>,
    done: bool,
}

impl Assembler {
    pub fn new() -> Assembler {
        Assembler::default()
    }

    /// `[DONE]` arrived.
    pub fn is_done(&self) -> bool {
        self.done
    }

    /// One event's data: a chunk, `[DONE]`, or an error object.
    pub fn push_event(&mut self, data: &str, out: &mut dyn FnMut(Delta)) -> Result<(), StreamFault> {
        let data = data.trim();
        if data.is_empty() {
            return Ok(());
        }
        if data == "[DONE]" {
            self.done = true;
            return Ok(());
        }
        let chunk: Json = serde_json::from_str(data)
            .map_err(|e| StreamFault::Malformed(format!("a stream frame is not JSON ({e}): {}", snippet(data))))?;
        self.push_chunk(&chunk, false, out)
    }

    /// A parsed chunk; `whole` for a non-streamed reply (`message` instead of `delta`).
    fn push_chunk(&mut self, chunk: &Json, whole: bool, out: &mut dyn FnMut(Delta)) -> Result<(), StreamFault> {
        if chunk.get("error").is_some_and(|e| !e.is_null()) {
            let mut report = ErrorReport::default();
            report.fill_from_json(chunk);
            return Err(StreamFault::Error(report));
        }
        if let Some(usage) = chunk.get("usage").filter(|u| !u.is_null()) {
            let count = |k: &str| usage.get(k).and_then(Json::as_u64).and_then(|n| u32::try_from(n).ok()).unwrap_or(0);
            self.usage =
                Some(Usage { prompt_tokens: count("prompt_tokens"), completion_tokens: count("completion_tokens") });
        }
        let Some(choices) = chunk.get("choices") else {
            if chunk.get("usage").is_some() || chunk.get("object").is_some() {
                return Ok(()); // a usage-only or bookkeeping frame
            }
            return Err(StreamFault::Malformed(format!("a frame without choices: {}", snippet(&chunk.to_string()))));
        };
        let Some(choices) = choices.as_array() else {
            return Err(StreamFault::Malformed("`choices` is not a list".into()));
        };
        // Only the first choice is asked for; others (n > 1) are ignored.
        let Some(choice) = choices.iter().find(|c| c.get("index").and_then(Json::as_u64).unwrap_or(0) == 0) else {
            return Ok(());
        };
        let delta = choice.get(if whole { "message" } else { "delta" }).unwrap_or(&Json::Null);
        if let Some(text) = delta.get("reasoning_content").or_else(|| delta.get("reasoning")).and_then(Json::as_str) {
            if !text.is_empty() {
                self.reasoning.push_str(text);
                out(Delta::Reasoning(text.to_string()));
            }
        }
        if let Some(text) = delta.get("content").and_then(Json::as_str) {
            if !text.is_empty() {
                self.content.push_str(text);
                out(Delta::Text(text.to_string()));
            }
        }
        if let Some(calls) = delta.get("tool_calls").and_then(Json::as_array) {
            for (position, call) in calls.iter().enumerate() {
                // In a whole message each entry is its own call.
                let index = call.get("index").and_then(Json::as_u64).or(whole.then_some(position as u64));
                self.push_call(index, call, out);
            }
        }
        if let Some(reason) = choice.get("finish_reason").and_then(Json::as_str).filter(|r| !r.is_empty()) {
            self.finish = Some(match reason {
                "stop" | "eos" | "end_turn" | "stop_sequence" => FinishReason::Stop,
                "tool_calls" | "function_call" | "tool_use" => FinishReason::ToolCalls,
                "length" | "max_tokens" => FinishReason::Length,
                "content_filter" => FinishReason::ContentFilter,
                other => FinishReason::Other(other.to_string()),
            });
        }
        Ok(())
    }

    fn push_call(&mut self, index: Option<u64>, call: &Json, out: &mut dyn FnMut(Delta)) {
        let id = call.get("id").and_then(Json::as_str).filter(|s| !s.is_empty());
        let function = call.get("function").unwrap_or(&Json::Null);
        let name = function.get("name").and_then(Json::as_str).filter(|s| !s.is_empty());
        let arguments = match function.get("arguments") {
            Some(Json::String(s)) => s.clone(),
            // Some servers send the arguments as an object instead of its text.
            Some(v @ Json::Object(_)) => v.to_string(),
            _ => String::new(),
        };
        // The call this piece continues: the one with its id; else the latest one at its index
        // (or the latest at all when no index), unless a new id or a second name says it is a
        // new call.
        let existing = match id {
            Some(id) if self.calls.iter().any(|c| c.id.as_deref() == Some(id)) => {
                self.calls.iter().rposition(|c| c.id.as_deref() == Some(id))
            }
            _ => {
                let latest = match index {
                    Some(i) => self.calls.iter().rposition(|c| c.index == Some(i)),
                    None => self.calls.len().checked_sub(1),
                };
                latest.filter(|&at| {
                    let c = &self.calls[at];
                    let new_id = id.is_some() && c.id.is_some();
                    let new_name = name.is_some() && !c.name.is_empty();
                    !new_id && !new_name
                })
            }
        };
        let at = match existing {
            Some(at) => at,
            None => {
                self.calls.push(PartialCall { index, ..PartialCall::default() });
                self.calls.len() - 1
            }
        };
        let slot = &mut self.calls[at];
        if slot.id.is_none() {
            slot.id = id.map(str::to_string);
        }
        if let Some(name) = name {
            if slot.name.is_empty() {
                slot.name = name.to_string();
                out(Delta::ToolCall { index: at, name: name.to_string() });
            }
        }
        slot.arguments.push_str(&arguments);
    }

    /// The response, once the body has ended. `ended_cleanly`: the transport delivered the whole
    /// body (a connection cut mid-body is [`StreamFault::Incomplete`] whatever the frames said).
    /// `mint` names calls the server gave no id.
    pub fn finish(self, ended_cleanly: bool, mint: &mut dyn FnMut() -> String) -> Result<ChatResponse, StreamFault> {
        if !ended_cleanly || (!self.done && self.finish.is_none()) {
            return Err(StreamFault::Incomplete);
        }
        let mut finish = self.finish.unwrap_or(FinishReason::Stop);
        let mut calls = self.calls;
        let mut discarded_calls = 0;
        // Only the last call can have been cut off by the token limit; one whose arguments do not
        // parse is dropped so it never runs.
        if finish == FinishReason::Length {
            if let Some(last) = calls.last() {
                let args = last.arguments.trim();
                if last.name.is_empty() || (!args.is_empty() && serde_json::from_str::<Json>(args).is_err()) {
                    calls.pop();
                    discarded_calls = 1;
                }
            }
        }
        let tool_calls: Vec<ToolCall> = calls
            .into_iter()
            .filter(|c| !c.name.is_empty())
            .map(|c| ToolCall {
                id: c.id.unwrap_or_else(&mut *mint),
                name: c.name,
                arguments: if c.arguments.trim().is_empty() { "{}".to_string() } else { c.arguments },
            })
            .collect();
        // Some servers say `stop` after tool calls: the calls are what the loop acts on.
        if finish == FinishReason::Stop && !tool_calls.is_empty() {
            finish = FinishReason::ToolCalls;
        }
        Ok(ChatResponse {
            content: self.content,
            reasoning: self.reasoning,
            tool_calls,
            discarded_calls,
            finish,
            usage: self.usage,
        })
    }
}

/// A non-streamed reply (`choices[0].message`) read through the same assembler as a stream.
pub fn parse_completion(
    body: &Json,
    out: &mut dyn FnMut(Delta),
    mint: &mut dyn FnMut() -> String,
) -> Result<ChatResponse, StreamFault> {
    let mut assembler = Assembler::new();
    assembler.push_chunk(body, true, out)?;
    if assembler.finish.is_none() {
        assembler.finish = Some(FinishReason::Stop);
    }
    assembler.finish(true, mint)
}

/// A whole recorded stream body (the corpus tests, and the scripted server's own checks).
pub fn parse_body(
    body: &[u8],
    out: &mut dyn FnMut(Delta),
    mint: &mut dyn FnMut() -> String,
) -> Result<ChatResponse, StreamFault> {
    let mut decoder = SseDecoder::new();
    let mut assembler = Assembler::new();
    for event in decoder.feed(body).into_iter().chain(decoder.finish()) {
        assembler.push_event(&event, out)?;
    }
    assembler.finish(true, mint)
}

fn snippet(text: &str) -> String {
    let cut: String = text.chars().take(120).collect();
    if cut.len() < text.len() {
        format!("{cut}…")
    } else {
        cut
    }
}

#[cfg(test)]
#[path = "sse_tests.rs"]
mod tests;
