//! Bounded context: what one request to the model may hold, and how the conversation is folded to
//! stay inside it.
//!
//! - The budget is the model's context window minus an output reserve minus the tool schemas.
//! - A request is counted by an estimate ([`estimate_text`]), scaled by what the provider reported
//!   for the previous request (its prompt tokens against our estimate of it).
//! - Every request is the system prompt with the task's state (goal, plan with step states, open
//!   questions, approvals waiting, the latest operator message — rebuilt from the database each
//!   time, so they survive any folding), then the newest summary, then the messages after it.
//! - When a request would pass [`COMPACT_AT_PERCENT`] of the budget, the older messages are folded
//!   into a new summary (by the model; by a deterministic digest when it fails), keeping findings
//!   and execution ids. Summaries are stored (`context_summaries`), so a restart goes on from them.
//! - Cuts fall only between messages: an assistant message and the results of its calls are one
//!   unit, so every call stays paired with its result.
//! - Whatever still does not fit (one huge message) is truncated, never sent whole.

use std::collections::HashMap;

use tokio_util::sync::CancellationToken;

use super::chat::{ChatMessage, ChatRequest, Role, ToolSpec, Usage};
use super::transcript::{pair, CallRecord, CallState, MessageRecord, Transcript, NOTE_PREFIX};
use super::turn::Model;
use crate::plan::QuestionStatus;
use crate::{Engine, Result};

/// Folding starts when a request would take more than this share of the input budget.
pub const COMPACT_AT_PERCENT: usize = 70;
/// A fold brings the request down to about this share: the newest messages fill what the system
/// prompt, the state and the summary leave. Close to [`COMPACT_AT_PERCENT`], so that a request is
/// about the same size however long the task runs; folds are cheap (a digest, see [`Summary`]).
/// Open signals shown in every request's task state.
const OPEN_SIGNALS_SHOWN: u32 = 5;
const FOLD_TO_PERCENT: usize = 63;
/// After a provider said the request was too long: much less.
const FOLD_TO_AFTER_OVERFLOW_PERCENT: usize = 30;
/// The summary's narrative, its record of executions, and the task's state block: their shares.
const NARRATIVE_PERCENT: usize = 12;
const RECORD_PERCENT: usize = 8;
const STATE_PERCENT: usize = 15;
/// Bytes per token of the estimate: low on purpose (JSON, ids and command output tokenise
/// densely), so the estimate errs towards too many tokens.
const BYTES_PER_TOKEN: usize = 3;
/// What a message costs besides its text (role, separators).
const MESSAGE_OVERHEAD: usize = 4;
/// A message is never truncated below this (bytes).
const MIN_KEEP_BYTES: usize = 200;

const SUMMARY_PROMPT: &str = "You keep the notes of a long task for the agent that works on it. Fold the earlier \
summary and the conversation below into one new summary, in plain text, for the agent's own later use. Keep every \
finding (facts learned about hosts, services, configuration, errors), every decision and the operator's wishes, what \
was done with its result, and every execution id and call id that was or may be cited as evidence. Leave out \
pleasantries and repeated output. Be brief.";

/// A summary message opens with this, so the model knows what it reads.
const SUMMARY_HEADING: &str = "Summary of the conversation before the messages that follow (older turns are folded \
into it to stay within the model's context):";

/// Estimated tokens of a text.
pub fn estimate_text(text: &str) -> usize {
    text.len().div_ceil(BYTES_PER_TOKEN)
}

/// Estimated tokens of one message: its text, its calls, and the overhead.
pub fn estimate_message(m: &ChatMessage) -> usize {
    let calls: usize = m
        .tool_calls
        .iter()
        .map(|c| estimate_text(&c.id) + estimate_text(&c.name) + estimate_text(&c.arguments) + 8)
        .sum();
    MESSAGE_OVERHEAD + estimate_text(&m.content) + calls + m.tool_call_id.as_deref().map_or(0, estimate_text)
}

pub fn estimate_messages(messages: &[ChatMessage]) -> usize {
    messages.iter().map(estimate_message).sum()
}

/// Estimated tokens of the tool schemas as sent.
pub fn estimate_tools(tools: &[ToolSpec]) -> usize {
    tools.iter().map(|t| estimate_text(&serde_json::to_string(t).unwrap_or_default()) + 8).sum()
}

/// What one request may hold.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Budget {
    /// The model's context window.
    pub context_tokens: usize,
    /// Kept free for the answer.
    pub output_reserve: usize,
    /// The tool schemas sent with every request.
    pub tools_tokens: usize,
}

impl Budget {
    /// The reserve is the configured answer limit, else an eighth of the window (between 256 and
    /// 4096 tokens).
    pub fn new(context_tokens: u32, max_output_tokens: Option<u32>, tools: &[ToolSpec]) -> Budget {
        let context_tokens = usize::try_from(context_tokens).unwrap_or(usize::MAX);
        let output_reserve = max_output_tokens
            .and_then(|t| usize::try_from(t).ok())
            .unwrap_or_else(|| (context_tokens / 8).clamp(256, 4096));
        Budget { context_tokens, output_reserve, tools_tokens: estimate_tools(tools) }
    }

    /// Tokens the messages of a request may take. Never below a quarter of the window: tool
    /// schemas larger than that are a configuration the provider will refuse anyway.
    pub fn input_tokens(&self) -> usize {
        self.context_tokens.saturating_sub(self.output_reserve + self.tools_tokens).max(self.context_tokens / 4)
    }

    fn share(&self, percent: usize) -> usize {
        self.input_tokens() * percent / 100
    }
}

/// Scales the estimate by what the provider counted last time.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Calibration {
    /// Provider tokens per estimated token, in thousandths.
    permille: usize,
}

impl Default for Calibration {
    fn default() -> Calibration {
        Calibration { permille: 1000 }
    }
}

impl Calibration {
    /// Learns from one request: `estimated` messages tokens sent (without tools), `usage` reported.
    pub fn observe(&mut self, estimated: usize, tools_tokens: usize, usage: Option<Usage>) {
        let Some(usage) = usage.filter(|u| u.prompt_tokens > 0) else { return };
        let reported = usize::try_from(usage.prompt_tokens).unwrap_or(usize::MAX);
        let ours = (estimated + tools_tokens).max(1);
        self.permille = (reported.saturating_mul(1000) / ours).clamp(500, 4000);
    }

    /// After the provider refused a request as too long: count more pessimistically.
    pub fn distrust(&mut self) {
        self.permille = (self.permille * 3 / 2).clamp(1500, 6000);
    }

    pub fn count(&self, estimated: usize) -> usize {
        estimated.saturating_mul(self.permille).div_ceil(1000)
    }
}

/// Where the older part of a task's conversation went. A fold adds the folded messages' digest
/// (one line each, with call ids, execution ids and the first line of each result) to `recent`;
/// when narrative and digest outgrow their share, the model rewrites the narrative from the full
/// text of everything since its last one, and `recent` starts empty again.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Summary {
    /// Covers every message up to and including this one.
    pub upto_message_id: i64,
    /// The model's summary of the messages up to `model_upto_message_id`.
    pub narrative: String,
    pub model_upto_message_id: i64,
    /// The digest of the messages after `model_upto_message_id`, up to `upto_message_id`.
    pub recent: String,
    /// One line per summarised call that ran something, with its execution id.
    pub record: String,
    /// How this fold was made: `model` (the narrative was rewritten) or `digest`.
    pub method: String,
}

impl Summary {
    /// The summary as the model reads it.
    pub fn message(&self) -> ChatMessage {
        let mut text = format!("{NOTE_PREFIX}{SUMMARY_HEADING}\n{}", self.narrative.trim());
        if !self.recent.trim().is_empty() {
            text.push_str("\n\nAfter that, in short:\n");
            text.push_str(self.recent.trim());
        }
        if !self.record.trim().is_empty() {
            text.push_str("\n\nExecutions in the summarised part (tool, call id → execution id, result):\n");
            text.push_str(self.record.trim());
        }
        ChatMessage::user(text)
    }
}

/// The newest summary of a task, if its conversation was ever folded.
pub async fn latest_summary(engine: &Engine, task: &str) -> Result<Option<Summary>> {
    let row: Option<(i64, String, i64, String, String, String)> = sqlx::query_as(
        "SELECT upto_message_id, narrative, model_upto_message_id, recent, record, method FROM context_summaries
          WHERE task_id = ? ORDER BY id DESC LIMIT 1",
    )
    .bind(task)
    .fetch_optional(engine.store().pool())
    .await?;
    Ok(row.map(|(upto_message_id, narrative, model_upto_message_id, recent, record, method)| Summary {
        upto_message_id,
        narrative,
        model_upto_message_id,
        recent,
        record,
        method,
    }))
}

async fn store_summary(engine: &Engine, task: &str, s: &Summary) -> Result<()> {
    let mut tx = engine.store().begin_write().await?;
    let now = tx.now().to_string();
    // A digest fold only extends the one before it: keep the newest of those, and every rewrite.
    sqlx::query("DELETE FROM context_summaries WHERE task_id = ? AND method = 'digest'")
        .bind(task)
        .execute(&mut *tx)
        .await?;
    sqlx::query(
        "INSERT INTO context_summaries
                (task_id, upto_message_id, narrative, model_upto_message_id, recent, record, method, created_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
    )
    .bind(task)
    .bind(s.upto_message_id)
    .bind(&s.narrative)
    .bind(s.model_upto_message_id)
    .bind(&s.recent)
    .bind(&s.record)
    .bind(&s.method)
    .bind(&now)
    .execute(&mut *tx)
    .await?;
    tx.commit().await?;
    Ok(())
}

/// One message of the transcript with the results of its calls: the smallest piece a cut keeps
/// or folds.
#[derive(Debug, Clone)]
pub struct Unit {
    pub message: MessageRecord,
    pub calls: Vec<CallRecord>,
    /// As the provider is sent it (an assistant message followed by one result per call).
    pub chat: Vec<ChatMessage>,
    pub tokens: usize,
}

/// Groups messages with their calls (both oldest first).
pub fn units_of(messages: Vec<MessageRecord>, calls: Vec<CallRecord>) -> Vec<Unit> {
    let mut by_message: HashMap<i64, Vec<CallRecord>> = HashMap::new();
    for c in calls {
        by_message.entry(c.message_id).or_default().push(c);
    }
    messages
        .into_iter()
        .map(|message| {
            let calls = by_message.remove(&message.id).unwrap_or_default();
            let chat = pair(std::slice::from_ref(&message), &calls);
            let tokens = estimate_messages(&chat);
            Unit { message, calls, chat, tokens }
        })
        .collect()
}

/// How many of the units (oldest first, by weight) to fold so that the rest weighs at most
/// `keep`; the newest unit is always kept, however heavy.
pub fn cut_point(weights: &[usize], keep: usize) -> usize {
    let mut kept = 0;
    let mut i = weights.len();
    while i > 0 {
        let w = weights[i - 1];
        if i < weights.len() && kept + w > keep {
            break;
        }
        kept += w;
        i -= 1;
    }
    i
}

/// `text` cut to at most about `max_bytes`: its head and tail kept, with a line saying how much
/// was left out.
pub fn truncate_middle(text: &str, max_bytes: usize) -> String {
    if text.len() <= max_bytes {
        return text.to_string();
    }
    let floor = |mut i: usize| {
        while !text.is_char_boundary(i) {
            i -= 1;
        }
        i
    };
    let ceil = |mut i: usize| {
        while !text.is_char_boundary(i) {
            i += 1;
        }
        i
    };
    let head = floor(max_bytes * 2 / 3);
    let tail = ceil(text.len() - max_bytes / 3);
    let gone = tail - head;
    format!("{}\n[… {gone} bytes left out to fit the model's context …]\n{}", &text[..head], &text[tail..])
}

/// Keeps the newest lines of `text` within `max_bytes`, saying that older ones were left out.
fn keep_newest_lines(text: &str, max_bytes: usize, marker: &str) -> String {
    if text.len() <= max_bytes {
        return text.to_string();
    }
    let mut kept: Vec<&str> = Vec::new();
    let mut size = marker.len() + 1;
    for line in text.lines().rev() {
        if line == marker {
            continue;
        }
        if size + line.len() + 1 > max_bytes {
            break;
        }
        size += line.len() + 1;
        kept.push(line);
    }
    kept.push(marker);
    kept.reverse();
    kept.join("\n")
}

fn first_line(text: &str, max_chars: usize) -> String {
    let line = text.lines().find(|l| !l.trim().is_empty()).unwrap_or_default().trim();
    let mut out: String = line.chars().take(max_chars).collect();
    if out.len() < line.len() {
        out.push('…');
    }
    out
}

/// The deterministic digest of some units: who said what, each call with its arguments, its
/// execution id and the first line of its result. Used when the model cannot summarise, and as
/// the model's input when the full text would not fit.
pub fn digest(units: &[Unit]) -> String {
    let mut lines = Vec::new();
    for u in units {
        match u.message.role {
            Role::User => lines.push(format!("operator: {}", first_line(&u.message.content, 300))),
            Role::System => lines.push(format!("note: {}", first_line(&u.message.content, 200))),
            Role::Assistant => {
                if !u.message.content.trim().is_empty() {
                    lines.push(format!("nomos: {}", first_line(&u.message.content, 200)));
                }
                for c in &u.calls {
                    let exec = c.execution_id.as_deref().map(|e| format!(" [execution {e}]")).unwrap_or_default();
                    let how = match (c.state, c.is_error) {
                        (CallState::Completed, false) => "ok",
                        (CallState::Completed, true) => "error",
                        (state, _) => state.as_str(),
                    };
                    lines.push(format!(
                        "- {} {}({}) → {how}{exec}: {}",
                        c.call.id,
                        c.call.name,
                        first_line(&c.call.arguments, 120),
                        first_line(c.result.as_deref().unwrap_or_default(), 120)
                    ));
                }
            }
            Role::Tool => {}
        }
    }
    lines.join("\n")
}

/// The record lines of the calls in `units` that ran something.
fn record_lines(units: &[Unit]) -> Vec<String> {
    units
        .iter()
        .flat_map(|u| &u.calls)
        .filter_map(|c| {
            let exec = c.execution_id.as_deref()?;
            let how = if c.is_error || c.state != CallState::Completed { "error or unknown" } else { "ok" };
            Some(format!("{} {} → {exec}: {how}", c.call.name, c.call.id))
        })
        .collect()
}

const RECORD_MARKER: &str = "(older executions left out here; `nomos tasks show` lists every one)";
const NARRATIVE_MARKER: &str = "(older notes left out)";

/// The whole of some units as the summariser reads them, each message capped.
fn render(units: &[Unit], per_message_bytes: usize) -> String {
    let mut out = String::new();
    for m in units.iter().flat_map(|u| &u.chat) {
        let who = match m.role {
            Role::User => "user",
            Role::Assistant => "assistant",
            Role::Tool => "tool result",
            Role::System => "system",
        };
        let id = m.tool_call_id.as_deref().map(|i| format!(" ({i})")).unwrap_or_default();
        out.push_str(&format!("[{who}{id}] {}\n", truncate_middle(&m.content, per_message_bytes)));
        for c in &m.tool_calls {
            out.push_str(&format!("  call {} {}({})\n", c.id, c.name, truncate_middle(&c.arguments, 300)));
        }
    }
    out
}

fn saturate(n: usize) -> u32 {
    u32::try_from(n).unwrap_or(u32::MAX)
}

/// The request that asks the model for a summary: always within `input_tokens`.
pub fn summary_request(previous: Option<&Summary>, units: &[Unit], input_tokens: usize, answer: u32) -> ChatRequest {
    let system = ChatMessage::system(SUMMARY_PROMPT);
    let earlier = previous.map(|s| s.narrative.as_str()).unwrap_or("(none)");
    let room = input_tokens.saturating_sub(estimate_message(&system) + estimate_text(earlier) + 64);
    let room_bytes = room * BYTES_PER_TOKEN;
    // The full text if it fits, else each message shorter, else the digest's newest lines.
    let body = [1500, 400]
        .iter()
        .map(|cap| render(units, *cap))
        .find(|r| r.len() <= room_bytes)
        .unwrap_or_else(|| keep_newest_lines(&digest(units), room_bytes, NARRATIVE_MARKER));
    let mut user = format!("Earlier summary:\n{earlier}\n\nConversation to fold in:\n{body}");
    if estimate_text(&user) + estimate_message(&system) + MESSAGE_OVERHEAD > input_tokens {
        user = truncate_middle(&user, input_tokens.saturating_sub(estimate_message(&system) + 16) * BYTES_PER_TOKEN);
    }
    ChatRequest { messages: vec![system, ChatMessage::user(user)], tools: Vec::new(), max_tokens: Some(answer) }
}

/// Fits `messages` into `limit` tokens (as `calibration` counts them) by truncating the largest
/// texts; the system message goes last. Returns whether anything was cut.
pub fn fit(messages: &mut [ChatMessage], limit: usize, calibration: &Calibration) -> bool {
    let mut cut = false;
    for _ in 0..64 {
        let total = calibration.count(estimate_messages(messages));
        if total <= limit {
            break;
        }
        let largest = |skip_system: bool| {
            messages
                .iter()
                .enumerate()
                .filter(|(i, m)| !(skip_system && *i == 0) && m.content.len() > MIN_KEEP_BYTES)
                .max_by_key(|(_, m)| m.content.len())
                .map(|(i, _)| i)
        };
        let Some(i) = largest(true).or_else(|| largest(false)) else { break };
        // Tokens over, back to bytes of estimate (undoing the calibration), and a little slack
        // for the marker line.
        let over = (total - limit).saturating_mul(1000).div_ceil(calibration.permille.max(1));
        let len = messages[i].content.len();
        let target = len.saturating_sub(over * BYTES_PER_TOKEN + 80).max(MIN_KEEP_BYTES);
        messages[i].content = truncate_middle(&messages[i].content, target);
        cut = true;
    }
    cut
}

/// The context of one task's turn: builds each request, folds the conversation when needed.
pub struct Context<'a> {
    engine: &'a Engine,
    task: &'a str,
    system_prompt: &'a str,
    budget: Budget,
    calibration: Calibration,
    summary: Option<Option<Summary>>,
    /// Fold on the next request whatever the count says (the provider refused the last one).
    overflowed: bool,
}

impl<'a> Context<'a> {
    pub fn new(engine: &'a Engine, task: &'a str, system_prompt: &'a str, budget: Budget) -> Context<'a> {
        Context {
            engine,
            task,
            system_prompt,
            budget,
            calibration: Calibration::default(),
            summary: None,
            overflowed: false,
        }
    }

    pub fn budget(&self) -> &Budget {
        &self.budget
    }

    /// Tokens `messages` count for, as the budget is checked.
    pub fn count(&self, messages: &[ChatMessage]) -> usize {
        self.calibration.count(estimate_messages(messages))
    }

    /// Learns from what the provider counted for the request just sent.
    pub fn observe(&mut self, sent: &[ChatMessage], usage: Option<Usage>) {
        self.calibration.observe(estimate_messages(sent), self.budget.tools_tokens, usage);
    }

    /// The provider said the last request was too long: count more pessimistically and fold
    /// harder before the next one.
    pub fn overflowed(&mut self) {
        self.calibration.distrust();
        self.overflowed = true;
    }

    /// The messages of the next request: system prompt with the task's state, the summary, the
    /// messages after it, and `note` (the engine's, last). Folds older messages first when the
    /// request would pass [`COMPACT_AT_PERCENT`] of the budget; always within the budget.
    pub async fn messages<M: Model>(
        &mut self,
        model: &M,
        note: Option<&str>,
        cancel: &CancellationToken,
    ) -> Result<Vec<ChatMessage>> {
        if self.summary.is_none() {
            self.summary = Some(latest_summary(self.engine, self.task).await?);
        }
        let limit = self.budget.input_tokens();
        let mut folded = false;
        loop {
            let summary = self.summary.clone().flatten();
            let after = summary.as_ref().map_or(0, |s| s.upto_message_id);
            let transcript = Transcript::new(self.engine, self.task);
            let tail = units_of(transcript.messages_after(after).await?, transcript.calls_after(after).await?);
            let operator_in_tail = tail.iter().any(|u| u.message.role == Role::User);
            let state = self.state_block(!operator_in_tail).await?;
            let mut messages = vec![ChatMessage::system(format!("{}{state}", self.system_prompt))];
            messages.extend(summary.as_ref().map(Summary::message));
            messages.extend(tail.iter().flat_map(|u| u.chat.iter().cloned()));
            messages.extend(note.map(|n| ChatMessage::user(format!("{NOTE_PREFIX}{n}"))));
            let due = self.overflowed || self.count(&messages) > self.budget.share(COMPACT_AT_PERCENT);
            if due && !folded && tail.len() > 1 {
                let to = if self.overflowed { FOLD_TO_AFTER_OVERFLOW_PERCENT } else { FOLD_TO_PERCENT };
                // In estimated tokens: what the newest messages may fill beside everything else.
                let target = self.budget.share(to).saturating_mul(1000) / self.calibration.permille.max(1);
                let weights: Vec<usize> = tail.iter().map(|u| u.tokens).collect();
                let others = estimate_messages(&messages).saturating_sub(weights.iter().sum());
                let cut = cut_point(&weights, target.saturating_sub(others));
                if cut > 0 {
                    let next = self.fold(model, summary.as_ref(), &tail[..cut], cancel).await?;
                    self.summary = Some(Some(next));
                    self.overflowed = false;
                    folded = true;
                    continue;
                }
            }
            self.overflowed = false;
            if fit(&mut messages, limit, &self.calibration) {
                tracing::debug!(task = self.task, "a message was truncated to fit the model's context");
            }
            return Ok(messages);
        }
    }

    /// Folds `units` (the oldest of the tail) into a new summary after `previous`, and stores it.
    async fn fold<M: Model>(
        &self,
        model: &M,
        previous: Option<&Summary>,
        units: &[Unit],
        cancel: &CancellationToken,
    ) -> Result<Summary> {
        let upto_message_id = units.last().map_or(0, |u| u.message.id);
        let narrative_bytes = self.budget.share(NARRATIVE_PERCENT) * BYTES_PER_TOKEN;
        let record_bytes = self.budget.share(RECORD_PERCENT) * BYTES_PER_TOKEN;
        let mut record: Vec<String> =
            previous.map(|p| p.record.lines().map(str::to_string).collect()).unwrap_or_default();
        record.extend(record_lines(units));
        let record = keep_newest_lines(&record.join("\n"), record_bytes, RECORD_MARKER);
        let narrative = previous.map(|p| p.narrative.clone()).unwrap_or_default();
        let model_upto = previous.map_or(0, |p| p.model_upto_message_id);
        let recent = format!("{}\n{}", previous.map(|p| p.recent.as_str()).unwrap_or_default(), digest(units));
        let recent = recent.trim().to_string();
        let mut summary = Summary {
            upto_message_id,
            narrative,
            model_upto_message_id: model_upto,
            recent,
            record,
            method: "digest".into(),
        };
        if summary.narrative.len() + summary.recent.len() > narrative_bytes {
            // Rewrite the narrative from the full text of everything since the last rewrite, to
            // half the share, so that digests have room again.
            let transcript = Transcript::new(self.engine, self.task);
            let messages: Vec<MessageRecord> =
                transcript.messages_after(model_upto).await?.into_iter().filter(|m| m.id <= upto_message_id).collect();
            let calls: Vec<CallRecord> = transcript
                .calls_after(model_upto)
                .await?
                .into_iter()
                .filter(|c| c.message_id <= upto_message_id)
                .collect();
            let since = units_of(messages, calls);
            let answer = self.budget.share(NARRATIVE_PERCENT) / 2;
            let request = summary_request(previous, &since, self.budget.input_tokens(), saturate(answer));
            let ignore = |_| {};
            match model.complete(&request, &ignore, cancel).await {
                Ok(r) if !r.content.trim().is_empty() => {
                    summary.narrative = truncate_middle(r.content.trim(), narrative_bytes / 2);
                    summary.model_upto_message_id = upto_message_id;
                    summary.recent = String::new();
                    summary.method = "model".into();
                }
                other => {
                    let why = other.err().map_or_else(|| "an empty answer".to_string(), |e| e.to_string());
                    tracing::info!(task = self.task, "the model could not summarise ({why}); keeping the digest");
                    let room = narrative_bytes.saturating_sub(summary.narrative.len()).max(narrative_bytes / 2);
                    summary.narrative = truncate_middle(&summary.narrative, narrative_bytes / 2);
                    summary.recent = keep_newest_lines(&summary.recent, room, NARRATIVE_MARKER);
                }
            }
        }
        store_summary(self.engine, self.task, &summary).await?;
        Ok(summary)
    }

    /// The task's state as the model must always see it, from the database (with the homelab's
    /// worst open signals, at most [`OPEN_SIGNALS_SHOWN`]).
    async fn state_block(&self, with_operator_message: bool) -> Result<String> {
        let task = self.engine.task(self.task).await?;
        let mut s = String::from("\n\n# State of this task (kept current by Oikos)\n");
        let goal = if task.goal.trim().is_empty() { &task.title } else { &task.goal };
        s.push_str(&format!("Goal: {}\n", goal.trim()));
        let plan = self.engine.plan(self.task).await?;
        if plan.is_empty() {
            s.push_str("Plan: none proposed yet.\n");
        } else {
            s.push_str("Plan:\n");
            for p in &plan {
                let target = p.target.as_deref().map(|t| format!(" on {t}")).unwrap_or_default();
                let exec = p.execution_id.as_deref().map(|e| format!(" (execution {e})")).unwrap_or_default();
                s.push_str(&format!("{}. [{}] {}{target}{exec}\n", p.seq, p.status, p.title));
            }
        }
        for q in self.engine.questions(self.task).await?.iter().filter(|q| q.status == QuestionStatus::Open) {
            let options =
                if q.options.is_empty() { String::new() } else { format!(" (options: {})", q.options.join(", ")) };
            s.push_str(&format!("Open question to the operator: {}{options}\n", q.prompt));
        }
        for a in super::assent::waiting_approvals(self.engine, self.task).await? {
            let confirm = a.confirmation.as_deref().map(|c| format!("; confirmed by typing `{c}`")).unwrap_or_default();
            s.push_str(&format!(
                "Waiting for the operator's approval: `{}` on {} (execution {}, {}){confirm}\n",
                a.command,
                a.target,
                a.execution_id,
                a.risk.as_str()
            ));
        }
        // What is wrong in the homelab now, bounded: the worst few open signals.
        let open = self
            .engine
            .list_signals(&nomos_types::SignalQuery { limit: Some(OPEN_SIGNALS_SHOWN), ..Default::default() })
            .await?;
        if !open.signals.is_empty() {
            let c = open.counts;
            s.push_str(&format!(
                "Open signals ({} critical, {} warning; list_signals for all):\n",
                c.critical, c.warning
            ));
            for sig in &open.signals {
                let entity = sig.entity.as_deref().map(|e| format!("{e}: ")).unwrap_or_default();
                s.push_str(&format!("- {} {} {entity}{} (signal {})\n", sig.severity, sig.state, sig.message, sig.id));
            }
        }
        if with_operator_message {
            let last: Option<String> = sqlx::query_scalar(
                "SELECT content FROM messages WHERE task_id = ? AND role = ? ORDER BY id DESC LIMIT 1",
            )
            .bind(self.task)
            .bind(Role::User.as_str())
            .fetch_optional(self.engine.store().pool())
            .await?;
            if let Some(last) = last {
                s.push_str(&format!("The operator's latest message: {}\n", last.trim()));
            }
        }
        Ok(truncate_middle(&s, self.budget.share(STATE_PERCENT) * BYTES_PER_TOKEN))
    }
}

#[cfg(test)]
#[path = "context_tests.rs"]
mod tests;
