//! One turn of a task: ask the model, commit its message, run its calls (each written ahead, see
//! [`super::transcript`]), commit their results, and go on until the model answers in plain text,
//! a call makes the task wait, or the task is completed. A turn always leaves the task in a
//! definite state — never `working` once it returns:
//!
//! - plain text with no plan is the answer: the task is done (success, the text as summary);
//!   plain text while a plan exists waits for its approval (until an assent window is open), else
//!   for the operator's next message;
//! - `propose_plan`, `ask_operator`, a queued execution: waiting (plan, answer, approval);
//! - `complete_task`: done (or failed, for outcome failure);
//! - the iteration limit: waiting for the operator, with a summary of where things stand;
//! - a run of tool errors or an A-B-A-B cycle: a question to the operator;
//! - cancel: cancelled; a model that cannot be reached: waiting, saying so.
//!
//! Guards: an identical read-only call (same tool, same canonical arguments) is answered once
//! from the first result and refused after that, until something changes (a call that is not
//! read-only, or an operator message — a new turn).

use std::collections::HashMap;
use std::future::Future;
use std::time::Duration;

use nomos_types::events::{AgentDelta, DeltaKind};
use nomos_types::{TaskOutcome, TaskStatus, WaitingFor};
use tokio_util::sync::CancellationToken;

use super::chat::{ChatRequest, ChatResponse, Delta, ToolCall, ToolSpec};
use super::context::{Budget, Context};
use super::tools::{self, Next, ToolResult};
use super::transcript::{CallState, Transcript};
use crate::events::EventDraft;
use crate::tasks::{StatusChange, LEASE_TTL_MS};
use crate::{Engine, Result};

/// What a task's transcript says when the engine stopped in the middle of its turn.
pub const STOPPED_NOTE: &str =
    "interrupted: the engine stopped while this task was being worked on; send a message to continue";

/// How much of a plain-text answer becomes the task's summary.
const SUMMARY_CHARS: usize = 300;

/// Why a completion failed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ModelError {
    #[error("cancelled")]
    Cancelled,
    /// The request did not fit the model's context window (never retried as it is: the loop
    /// folds the conversation and tries once more).
    #[error("the request is longer than the model's context window: {0}")]
    ContextLength(String),
    #[error("{0}")]
    Failed(String),
}

/// What the loop needs of a language model: one completion, streamed to `on_delta`, stopping
/// promptly when `cancel` fires. The provider client implements it; tests use a scripted one.
pub trait Model: Send + Sync {
    fn complete(
        &self,
        request: &ChatRequest,
        on_delta: &(dyn Fn(Delta) + Send + Sync),
        cancel: &CancellationToken,
    ) -> impl Future<Output = std::result::Result<ChatResponse, ModelError>> + Send;
}

impl Model for super::provider::Provider {
    async fn complete(
        &self,
        request: &ChatRequest,
        on_delta: &(dyn Fn(Delta) + Send + Sync),
        cancel: &CancellationToken,
    ) -> std::result::Result<ChatResponse, ModelError> {
        match super::provider::Provider::complete(self, request, on_delta, cancel).await {
            Ok(r) => Ok(r),
            Err(super::provider::ProviderError::Cancelled) => Err(ModelError::Cancelled),
            Err(super::provider::ProviderError::ContextLength { message }) => Err(ModelError::ContextLength(message)),
            Err(e) => Err(ModelError::Failed(e.to_string())),
        }
    }
}

/// What the loop needs of the tools (every tool goes through it: [`GatedTools`] in the product).
pub trait Tools: Send + Sync {
    fn specs(&self) -> Vec<ToolSpec>;
    /// Whether the call changes nothing (the dedupe guard only answers these from memory).
    fn is_read_only(&self, name: &str, args: &serde_json::Value) -> bool;
    /// The gate these tools act through, if they act at all: the operator's decisions in chat go
    /// through it too.
    fn actuator(&self) -> Option<&crate::actuate::Actuator> {
        None
    }
    fn call(
        &self,
        engine: &Engine,
        task: &str,
        turn: &str,
        call: &ToolCall,
        cancel: &CancellationToken,
    ) -> impl Future<Output = ToolResult> + Send;
}

/// Only the task tools (a conversation that may plan and ask but touches nothing).
#[derive(Debug, Default, Clone, Copy)]
pub struct TaskToolsOnly;

impl Tools for TaskToolsOnly {
    fn specs(&self) -> Vec<ToolSpec> {
        tools::task::specs()
    }

    fn is_read_only(&self, _: &str, _: &serde_json::Value) -> bool {
        false
    }

    async fn call(&self, engine: &Engine, task: &str, _: &str, call: &ToolCall, _: &CancellationToken) -> ToolResult {
        match tools::task::call(engine, task, call).await {
            Some(result) => result,
            None => ToolResult::error(format!(
                "unknown tool `{}`; the tools are: {}. Nothing was run.",
                call.name,
                tools::task::NAMES.join(", ")
            )),
        }
    }
}

/// Every tool, through the registry and the gate.
pub struct GatedTools {
    pub registry: tools::Registry,
    pub actuator: crate::actuate::Actuator,
}

impl Tools for GatedTools {
    fn specs(&self) -> Vec<ToolSpec> {
        self.registry.specs()
    }

    fn is_read_only(&self, name: &str, args: &serde_json::Value) -> bool {
        // A command the gate rates read-only, run again unchanged with nothing done in between, is
        // the loop the guard stops (a model polling `pct list`); a change clears the guard's memory.
        if name == "run" && self.registry.fits(name, args) {
            let command = args.get("command").and_then(serde_json::Value::as_str).unwrap_or_default();
            let declared =
                args.get("declared_risk").and_then(|r| serde_json::from_value::<nomos_types::Risk>(r.clone()).ok());
            return self.actuator.policy().classify(command, declared).risk == nomos_types::Risk::ReadOnly;
        }
        self.registry.is_read_only(name, args)
    }

    fn actuator(&self) -> Option<&crate::actuate::Actuator> {
        Some(&self.actuator)
    }

    async fn call(
        &self,
        engine: &Engine,
        task: &str,
        turn: &str,
        call: &ToolCall,
        cancel: &CancellationToken,
    ) -> ToolResult {
        let ctx = tools::ToolContext {
            engine,
            actuator: &self.actuator,
            task_id: task,
            actor: tools::AGENT,
            turn_id: turn,
            call_id: &call.id,
            cancel,
        };
        self.registry.call(&ctx, call).await
    }
}

/// The loop's limits.
#[derive(Debug, Clone)]
pub struct TurnConfig {
    /// The system prompt (SOUL.md).
    pub system_prompt: String,
    /// Model calls in one turn before it stops and asks the operator.
    pub max_iterations: usize,
    /// Tool errors in a row before it stops and asks the operator.
    pub max_error_run: usize,
    pub lease_ttl_ms: i64,
    /// The most tokens one answer may take; also the output reserve of the context budget (an
    /// eighth of the window when unset).
    pub max_output_tokens: Option<u32>,
    /// The model's context window (the provider's `context_tokens`); see [`super::context`].
    pub context_tokens: u32,
    /// Fired when the engine stops (not the operator cancelling a task): turns whose `cancel`
    /// descends from it stop, and their tasks wait for the operator instead of ending cancelled.
    pub stop: CancellationToken,
}

impl Default for TurnConfig {
    fn default() -> TurnConfig {
        TurnConfig {
            system_prompt: super::SOUL.to_string(),
            max_iterations: 40,
            max_error_run: 4,
            lease_ttl_ms: LEASE_TTL_MS,
            max_output_tokens: None,
            context_tokens: super::provider::config::DEFAULT_CONTEXT_TOKENS,
            stop: CancellationToken::new(),
        }
    }
}

/// How a turn ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TurnEnd {
    Waiting(WaitingFor),
    Ended(TaskStatus),
    /// Someone else holds the task now (it was cancelled or swept meanwhile).
    LostClaim,
}

/// The same call made again: a read-only call's tool and canonical arguments. A `purpose` is
/// words for the operator and does not make a call another one.
fn signature(call: &ToolCall) -> String {
    let args = serde_json::from_str::<serde_json::Value>(&call.arguments)
        .map(|mut v| {
            if let Some(map) = v.as_object_mut() {
                map.remove("purpose");
            }
            v.to_string()
        })
        .unwrap_or_else(|_| call.arguments.trim().to_string());
    format!("{}({args})", call.name)
}

/// The guards' memory within a turn.
#[derive(Debug, Default)]
struct Guards {
    /// Read-only signature → (first call id, its result, times answered from memory).
    seen: HashMap<String, (String, String, u32)>,
    error_run: usize,
    recent: Vec<String>,
}

impl Guards {
    /// The answer for a repeated read-only call, if it is one: from memory once, then refused.
    fn repeat(&mut self, sig: &str) -> Option<ToolResult> {
        let (first, result, times) = self.seen.get_mut(sig)?;
        *times += 1;
        Some(if *times == 1 {
            ToolResult::ok(format!(
                "(the same call as {first}; this task has changed nothing since, so its result then is given:)\n{result}"
            ))
        } else {
            ToolResult::error(format!(
                "refused: this exact call was already answered ({first}) and this task has changed nothing since; \
                 use that result, or do something different (a background action resumes the task by itself \
                 when it ends)"
            ))
        })
    }

    fn record(&mut self, call: &ToolCall, sig: String, read_only: bool, result: &ToolResult) {
        if read_only {
            if !result.is_error {
                self.seen.entry(sig.clone()).or_insert_with(|| (call.id.clone(), result.content.clone(), 0));
            }
        } else {
            // Something may have changed: earlier reads are stale.
            self.seen.clear();
        }
        self.error_run = if result.is_error { self.error_run + 1 } else { 0 };
        self.recent.push(sig);
    }

    /// A-B-A-B: the last four calls alternate between two different ones.
    fn cycling(&self) -> bool {
        let n = self.recent.len();
        n >= 4 && {
            let r = &self.recent[n - 4..];
            r[0] == r[2] && r[1] == r[3] && r[0] != r[1]
        }
    }
}

/// Runs one turn of `task` to its end. The caller added the operator's message (if any) first.
pub async fn run_turn<M: Model, T: Tools>(
    engine: &Engine,
    model: &M,
    tools: &T,
    config: &TurnConfig,
    task: &str,
    cancel: &CancellationToken,
) -> Result<TurnEnd> {
    let turn_id = crate::graph::new_id();
    // The lease names this process too, so that the next claim after a crash need not wait for it.
    let owner = crate::process::lease_owner(&turn_id);
    engine.claim_task(task, &owner, config.lease_ttl_ms).await?;
    let transcript = Transcript::new(engine, task);
    transcript.recover().await?;

    // The lease lives while the turn does; losing it (a cancel, a sweep) stops the turn.
    let turn_cancel = cancel.child_token();
    let renewer = {
        let engine = engine.clone();
        let (task, owner, ttl, stop) = (task.to_string(), owner.clone(), config.lease_ttl_ms, turn_cancel.clone());
        tokio::spawn(async move {
            let every = Duration::from_millis(u64::try_from(ttl / 3).unwrap_or(1).max(1));
            loop {
                tokio::select! {
                    _ = stop.cancelled() => return,
                    _ = tokio::time::sleep(every) => {}
                }
                match engine.renew_task_lease(&task, &owner, ttl).await {
                    Ok(true) => {}
                    Ok(false) => return stop.cancel(),
                    Err(e) => tracing::warn!("cannot renew the lease of task {task}: {e}"),
                }
            }
        })
    };
    let outcome = drive(engine, model, tools, config, task, &turn_id, &turn_cancel).await;
    renewer.abort();
    let (next, why) = match outcome {
        Ok(step) => step,
        Err(e) => {
            // The turn itself broke (the database, most likely): never leave the task working.
            let why = format!("the turn stopped on an error: {e}");
            let _ = transcript.add(crate::agent::chat::Role::System, &why, Some(&turn_id)).await;
            (StatusChange::Waiting(WaitingFor::Message), why)
        }
    };
    let (next, why) = if cancel.is_cancelled() && config.stop.is_cancelled() {
        let why = STOPPED_NOTE.to_string();
        let _ = transcript.add(crate::agent::chat::Role::System, &why, Some(&turn_id)).await;
        (StatusChange::Waiting(WaitingFor::Message), why)
    } else if cancel.is_cancelled() {
        let summary = "cancelled by the operator".to_string();
        (StatusChange::Ended { status: TaskStatus::Cancelled, outcome: None, summary }, why)
    } else {
        (next, why)
    };
    let end = match &next {
        StatusChange::Waiting(w) => TurnEnd::Waiting(*w),
        StatusChange::Ended { status, .. } => TurnEnd::Ended(*status),
        StatusChange::Working { .. } => TurnEnd::Waiting(WaitingFor::Message),
    };
    if engine.release_task(task, &owner, &next, &why).await? {
        Ok(end)
    } else {
        Ok(TurnEnd::LostClaim)
    }
}

fn publish_delta(engine: &Engine, task: &str, turn: &str, delta: &Delta) {
    let (kind, text) = match delta {
        Delta::Text(t) => (DeltaKind::Text, t.clone()),
        Delta::Reasoning(t) => (DeltaKind::Reasoning, t.clone()),
        Delta::Reset => (DeltaKind::Reset, String::new()),
        Delta::ToolCall { .. } => return,
    };
    let event = AgentDelta { turn_id: turn.to_string(), kind, text };
    engine.publish_transient(EventDraft::new(event).correlation(task));
}

/// Where things stand, for a turn that stops without finishing.
async fn standing(engine: &Engine, task: &str, why: &str) -> Result<String> {
    let mut text = format!("{why}\n");
    let plan = engine.plan(task).await?;
    if plan.is_empty() {
        text.push_str("No plan was proposed yet.\n");
    }
    for s in plan {
        text.push_str(&format!("{}. [{}] {}\n", s.seq, s.status, s.title));
    }
    let calls = Transcript::new(engine, task).calls().await?;
    let last: Vec<String> = calls
        .iter()
        .rev()
        .take(5)
        .rev()
        .map(|c| format!("{} {}{}", c.call.name, c.state.as_str(), if c.is_error { " (error)" } else { "" }))
        .collect();
    if !last.is_empty() {
        text.push_str(&format!("Last calls: {}.\n", last.join(", ")));
    }
    text.push_str("Send a message to continue or to change course.");
    Ok(text)
}

/// The loop proper; returns the task's next status and why.
async fn drive<M: Model, T: Tools>(
    engine: &Engine,
    model: &M,
    tools: &T,
    config: &TurnConfig,
    task: &str,
    turn_id: &str,
    cancel: &CancellationToken,
) -> Result<(StatusChange, String)> {
    let transcript = Transcript::new(engine, task);
    let specs = tools.specs();
    let budget = Budget::new(config.context_tokens, config.max_output_tokens, &specs);
    let mut context = Context::new(engine, task, &config.system_prompt, budget);
    let mut guards = Guards::default();
    let mut empty_replies = 0;
    let mut overflowed = false;
    let on_delta = |d: Delta| publish_delta(engine, task, turn_id, &d);
    for _ in 0..config.max_iterations {
        let note = (empty_replies > 0).then_some("Your last reply was empty. Answer in text, or call a tool.");
        let messages = context.messages(model, note, cancel).await?;
        let request = ChatRequest { messages, tools: specs.clone(), max_tokens: config.max_output_tokens };
        let response = match model.complete(&request, &on_delta, cancel).await {
            Ok(r) => r,
            Err(ModelError::Cancelled) => return Ok(cancelled()),
            Err(ModelError::ContextLength(e)) if !overflowed => {
                // Our count was too low for this model: fold harder and try once more.
                tracing::info!(task, "the provider refused the request as too long ({e}); folding and retrying");
                overflowed = true;
                context.overflowed();
                continue;
            }
            Err(ModelError::ContextLength(e)) => {
                let why = standing(
                    engine,
                    task,
                    &format!(
                        "The conversation does not fit the model's context window even after summarising it \
                         ({e}). Set NOMOS_CONTEXT_TOKENS to the model's real window, or choose a model with a \
                         larger one."
                    ),
                )
                .await?;
                transcript.add(crate::agent::chat::Role::System, &why, Some(turn_id)).await?;
                return Ok((StatusChange::Waiting(WaitingFor::Message), why));
            }
            Err(ModelError::Failed(e)) => {
                let why = standing(engine, task, &format!("The model could not be reached: {e}.")).await?;
                transcript.add(crate::agent::chat::Role::System, &why, Some(turn_id)).await?;
                return Ok((StatusChange::Waiting(WaitingFor::Message), why));
            }
        };
        context.observe(&request.messages, response.usage);
        if cancel.is_cancelled() {
            return Ok(cancelled());
        }
        if response.content.trim().is_empty() && response.tool_calls.is_empty() {
            empty_replies += 1;
            if empty_replies > 1 {
                let why = standing(engine, task, "The model gave empty replies twice.").await?;
                transcript.add(crate::agent::chat::Role::System, &why, Some(turn_id)).await?;
                return Ok((StatusChange::Waiting(WaitingFor::Message), why));
            }
            continue;
        }
        empty_replies = 0;
        let (_, calls) = transcript.commit_assistant(turn_id, &response.content, &response.tool_calls).await?;
        #[cfg(debug_assertions)]
        crate::testing_hooks::pause_at("after_commit");
        if calls.is_empty() {
            return plain_text_end(engine, task, &response.content).await;
        }
        let mut end: Option<(StatusChange, String)> = None;
        for call in &calls {
            if let Some((_, why)) = &end {
                let note = format!("not run: the turn ended before it ({why})");
                transcript.answer_without_running(&call.id, CallState::Skipped, &note, true).await?;
                continue;
            }
            if cancel.is_cancelled() {
                transcript.answer_without_running(&call.id, CallState::Skipped, "not run: cancelled", true).await?;
                continue;
            }
            let sig = signature(call);
            let args = serde_json::from_str::<serde_json::Value>(&call.arguments).unwrap_or(serde_json::Value::Null);
            let read_only = tools.is_read_only(&call.name, &args);
            if read_only {
                if let Some(answer) = guards.repeat(&sig) {
                    transcript
                        .answer_without_running(&call.id, CallState::Completed, &answer.content, answer.is_error)
                        .await?;
                    guards.error_run = if answer.is_error { guards.error_run + 1 } else { 0 };
                    guards.recent.push(sig);
                    continue;
                }
            }
            transcript.mark_started(&call.id, Some(turn_id)).await?;
            #[cfg(debug_assertions)]
            crate::testing_hooks::pause_at("after_start");
            let result = tools.call(engine, task, turn_id, call, cancel).await;
            #[cfg(debug_assertions)]
            crate::testing_hooks::pause_at("before_result");
            transcript.mark_completed(&call.id, &result).await?;
            guards.record(call, sig, read_only, &result);
            match &result.next {
                Next::Continue => {}
                Next::Wait(w) => end = Some((StatusChange::Waiting(*w), result.content.clone())),
                Next::Finish => {
                    let (outcome, summary) =
                        tools::task::completion_of(call).unwrap_or((TaskOutcome::Partial, result.content.clone()));
                    let status = if outcome == TaskOutcome::Failure { TaskStatus::Failed } else { TaskStatus::Done };
                    end = Some((
                        StatusChange::Ended { status, outcome: Some(outcome), summary: summary.clone() },
                        summary,
                    ));
                }
            }
        }
        if cancel.is_cancelled() {
            return Ok(cancelled());
        }
        if let Some(end) = end {
            return Ok(end);
        }
        let stuck = if guards.error_run >= config.max_error_run {
            Some(format!("{} tool calls in a row failed.", guards.error_run))
        } else if guards.cycling() {
            Some("The last calls went back and forth between the same two without progress.".to_string())
        } else {
            None
        };
        if let Some(stuck) = stuck {
            let prompt = standing(engine, task, &format!("{stuck} How should I proceed?")).await?;
            engine.ask_question(task, &prompt, &[]).await?;
            transcript.add(crate::agent::chat::Role::System, &prompt, Some(turn_id)).await?;
            return Ok((StatusChange::Waiting(WaitingFor::Answer), stuck));
        }
    }
    let why = standing(
        engine,
        task,
        &format!(
            "Stopped after {} steps without finishing; nothing more runs until you answer.",
            config.max_iterations
        ),
    )
    .await?;
    transcript.add(crate::agent::chat::Role::System, &why, Some(turn_id)).await?;
    Ok((StatusChange::Waiting(WaitingFor::Message), why))
}

fn cancelled() -> (StatusChange, String) {
    let why = "cancelled by the operator".to_string();
    (StatusChange::Ended { status: TaskStatus::Cancelled, outcome: None, summary: why.clone() }, why)
}

/// A reply in plain text: while one of its requests waits for approval the task waits for that;
/// with no plan it is the answer and the task is done; with a plan the model is talking to the
/// operator and the task waits — for the plan's approval while that is still to come, else for
/// the next message.
async fn plain_text_end(engine: &Engine, task: &str, text: &str) -> Result<(StatusChange, String)> {
    // A request still waiting for the operator outlives the talk about it: the task waits for that
    // decision (and the confirmation typed later still grants it), it is not done.
    if !super::assent::waiting_approvals(engine, task).await?.is_empty() {
        return Ok((StatusChange::Waiting(WaitingFor::Approval), "a request waits for the operator's decision".into()));
    }
    if engine.plan(task).await?.is_empty() {
        // The answer itself is in the transcript; the summary is its opening.
        let mut summary: String = text.trim().chars().take(SUMMARY_CHARS).collect();
        if summary.len() < text.trim().len() {
            summary.push('…');
        }
        let change = StatusChange::Ended {
            status: TaskStatus::Done,
            outcome: Some(TaskOutcome::Success),
            summary: summary.clone(),
        };
        Ok((change, summary))
    } else if super::assent::plan_waits(engine, task).await? {
        Ok((StatusChange::Waiting(WaitingFor::Plan), "the plan waits for the operator's approval".into()))
    } else {
        Ok((StatusChange::Waiting(WaitingFor::Message), "the agent replied".into()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn call(id: &str, name: &str, args: &str) -> ToolCall {
        ToolCall { id: id.into(), name: name.into(), arguments: args.into() }
    }

    #[test]
    fn canonical_arguments_make_the_same_call_the_same() {
        assert_eq!(
            signature(&call("a", "get_entity", r#"{"slug":"x","depth":1}"#)),
            signature(&call("b", "get_entity", r#"{ "depth": 1, "slug": "x" }"#))
        );
        assert_ne!(
            signature(&call("a", "get_entity", r#"{"slug":"x"}"#)),
            signature(&call("b", "get_entity", r#"{"slug":"y"}"#))
        );
        assert_eq!(
            signature(&call("a", "run", r#"{"target":"host:a","command":"pct list","purpose":"see"}"#)),
            signature(&call("b", "run", r#"{"target":"host:a","command":"pct list","purpose":"look again"}"#))
        );
    }

    #[test]
    fn a_repeated_read_is_answered_once_from_memory_then_refused_until_a_write() {
        let mut g = Guards::default();
        let a = call("a", "get_entity", r#"{"slug":"x"}"#);
        let sig = signature(&a);
        assert!(g.repeat(&sig).is_none());
        g.record(&a, sig.clone(), true, &ToolResult::ok("pve1: up"));
        let again = g.repeat(&sig).unwrap();
        assert!(!again.is_error && again.content.contains("pve1: up") && again.content.contains("a"));
        assert!(g.repeat(&sig).unwrap().is_error);
        g.record(&call("w", "run", r#"{"command":"systemctl restart x"}"#), "run".into(), false, &ToolResult::ok(""));
        assert!(g.repeat(&sig).is_none(), "a write makes earlier reads stale");
    }

    #[test]
    fn errors_in_a_row_and_back_and_forth_are_noticed() {
        let mut g = Guards::default();
        for i in 0..3 {
            g.record(&call(&i.to_string(), "run", "{}"), format!("s{i}"), false, &ToolResult::error("no"));
        }
        assert_eq!(g.error_run, 3);
        g.record(&call("ok", "run", "{}"), "s9".into(), false, &ToolResult::ok("fine"));
        assert_eq!(g.error_run, 0);
        assert!(!g.cycling());
        for sig in ["A", "B", "A"] {
            g.record(&call("x", "run", "{}"), sig.into(), false, &ToolResult::ok(""));
        }
        assert!(!g.cycling());
        g.record(&call("x", "run", "{}"), "B".into(), false, &ToolResult::ok(""));
        assert!(g.cycling());
    }
}
