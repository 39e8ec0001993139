//! A stand-in for the model, for development and tests only: an OpenAI-compatible
//! chat-completions server on 127.0.0.1 that answers from a script — a queue of scripted replies
//! (text, tool calls, raw SSE bodies, HTTP errors, a stream cut off mid-way, delays) — and records
//! every request body it received. Driven from Rust ([`ScriptedProvider`]) or from a YAML/JSON
//! file ([`Script::from_file`], the `nomos-scripted-provider` binary). It needs no key and
//! ignores any it is sent.
//!
//! The HTTP is written by hand on purpose: a test needs byte-level control (a chunked body left
//! unterminated, a stall between frames) that a framework would smooth over.

mod script;
mod server;

pub use script::{Reply, Script, ScriptError, ScriptedCall, Step};
pub use server::ScriptedProvider;
