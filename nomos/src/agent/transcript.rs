//! A task's conversation, written ahead so that a process killed at any point loses nothing that
//! was done and does nothing twice:
//!
//! 1. the assistant message and its tool calls (`pending`) are committed before any tool runs;
//! 2. each call is marked `started`, in its own commit, before its side effect;
//! 3. it is marked `completed` with its result after.
//!
//! On load ([`Transcript::recover`]) a call found `started` without a result was cut off mid-way:
//! it becomes `interrupted` with [`INTERRUPTED_RESULT`] and is never run again; a `pending` one never
//! began and becomes `skipped`. The history sent to the provider ([`Transcript::history`]) pairs
//! every call with exactly one result, in the order the model made them.

use nomos_types::events::{MessageAdded, ToolCallFinished, ToolCallStarted};
use sqlx::Row;

use super::chat::{ChatMessage, Role, ToolCall};
use super::tools::ToolResult;
use crate::events::EventDraft;
use crate::store::WriteTx;
use crate::{Engine, Error, Result};

/// The result recorded for a call that started but whose outcome was never recorded.
pub const INTERRUPTED_RESULT: &str = "interrupted — outcome unknown, verify before retrying";

/// The result recorded for a call that was committed but never started.
pub const SKIPPED_RESULT: &str = "not run — the work stopped before this call began; nothing happened";

/// Notes from the engine (not the operator) reach the model as user messages with this prefix:
/// several providers accept a system message only at the start.
pub(crate) const NOTE_PREFIX: &str = "[note from Oikos, not from the operator] ";

pub use nomos_types::tasks::{CallRecord, CallState, MessageRecord};

/// A state or role column read back through its enum.
fn parse<T: std::str::FromStr>(text: &str) -> Result<T>
where
    T::Err: std::fmt::Display,
{
    text.parse::<T>().map_err(|e| Error::Invalid(e.to_string()))
}

/// Appends a message to a task's transcript inside `tx`; returns its id.
pub(crate) async fn add_message_in(
    tx: &mut WriteTx,
    task: &str,
    role: Role,
    content: &str,
    turn_id: Option<&str>,
) -> Result<i64> {
    let now = tx.now().to_string();
    let id: i64 = sqlx::query_scalar(
        "INSERT INTO messages (task_id, role, content, turn_id, created_at, updated_at)
         VALUES (?, ?, ?, ?, ?, ?) RETURNING id",
    )
    .bind(task)
    .bind(role.as_str())
    .bind(content)
    .bind(turn_id)
    .bind(&now)
    .bind(&now)
    .fetch_one(&mut **tx)
    .await?;
    let event = MessageAdded { message_id: id, role, turn_id: turn_id.map(str::to_string) };
    tx.emit(EventDraft::new(event).correlation(task)).await?;
    Ok(id)
}

/// A result's first non-empty line, at most 120 characters.
fn preview(content: &str) -> String {
    let first = content.lines().find(|l| !l.trim().is_empty()).unwrap_or_default().trim();
    let mut p: String = first.chars().take(120).collect();
    if p.len() < first.len() {
        p.push('…');
    }
    p
}

/// The transcript of one task.
#[derive(Clone, Copy)]
pub struct Transcript<'a> {
    engine: &'a Engine,
    task: &'a str,
}

impl<'a> Transcript<'a> {
    pub fn new(engine: &'a Engine, task: &'a str) -> Transcript<'a> {
        Transcript { engine, task }
    }

    /// Appends a message (the operator's, or a note) in its own commit.
    pub async fn add(&self, role: Role, content: &str, turn_id: Option<&str>) -> Result<i64> {
        let mut tx = self.engine.store().begin_write().await?;
        let id = add_message_in(&mut tx, self.task, role, content, turn_id).await?;
        tx.commit().await?;
        Ok(id)
    }

    /// Step 1: commits the assistant message with its calls (pending), before any of them runs.
    /// Returns the message id and the calls as recorded: an id the task already used (or an empty
    /// one) is replaced, so every call's id is unique in the task's history.
    pub async fn commit_assistant(
        &self,
        turn_id: &str,
        content: &str,
        calls: &[ToolCall],
    ) -> Result<(i64, Vec<ToolCall>)> {
        let mut tx = self.engine.store().begin_write().await?;
        let message = add_message_in(&mut tx, self.task, Role::Assistant, content, Some(turn_id)).await?;
        let now = tx.now().to_string();
        let mut recorded = Vec::with_capacity(calls.len());
        for (seq, call) in calls.iter().enumerate() {
            let taken: Option<i64> = sqlx::query_scalar("SELECT 1 FROM tool_calls WHERE task_id = ? AND call_id = ?")
                .bind(self.task)
                .bind(&call.id)
                .fetch_optional(&mut *tx)
                .await?;
            let clash = recorded.iter().any(|c: &ToolCall| c.id == call.id);
            let id = if call.id.trim().is_empty() || taken.is_some() || clash {
                format!("call_{message}_{seq}")
            } else {
                call.id.clone()
            };
            sqlx::query(
                "INSERT INTO tool_calls (task_id, message_id, seq, call_id, name, arguments, created_at)
                 VALUES (?, ?, ?, ?, ?, ?, ?)",
            )
            .bind(self.task)
            .bind(message)
            .bind(seq as i64)
            .bind(&id)
            .bind(&call.name)
            .bind(&call.arguments)
            .bind(&now)
            .execute(&mut *tx)
            .await?;
            recorded.push(ToolCall { id, name: call.name.clone(), arguments: call.arguments.clone() });
        }
        tx.commit().await?;
        Ok((message, recorded))
    }

    /// Step 2: marks a pending call started, in its own commit, before its side effect. Fails if
    /// the call is not pending (it already started once: it must not run again).
    pub async fn mark_started(&self, call_id: &str, turn_id: Option<&str>) -> Result<()> {
        let mut tx = self.engine.store().begin_write().await?;
        let now = tx.now().to_string();
        let name: Option<String> = sqlx::query_scalar(
            "UPDATE tool_calls SET state = ?, started_at = ?
              WHERE task_id = ? AND call_id = ? AND state = ? RETURNING name",
        )
        .bind(CallState::Started.as_str())
        .bind(&now)
        .bind(self.task)
        .bind(call_id)
        .bind(CallState::Pending.as_str())
        .fetch_optional(&mut *tx)
        .await?;
        let Some(name) = name else {
            return Err(Error::Conflict(format!("tool call {call_id} is not waiting to start; it is never run twice")));
        };
        let event = ToolCallStarted { call_id: call_id.into(), name, turn_id: turn_id.map(str::to_string) };
        tx.emit(EventDraft::new(event).correlation(self.task)).await?;
        tx.commit().await?;
        Ok(())
    }

    /// Step 3: records a started call's result.
    pub async fn mark_completed(&self, call_id: &str, result: &ToolResult) -> Result<()> {
        self.finish(
            call_id,
            CallState::Completed,
            &result.content,
            result.is_error,
            result.execution_id.as_deref(),
            &[CallState::Started],
        )
        .await
    }

    /// Records a result for a call that never starts (a guard answered it, or the turn was
    /// cancelled before it began): pending → completed (or skipped).
    pub async fn answer_without_running(
        &self,
        call_id: &str,
        state: CallState,
        content: &str,
        is_error: bool,
    ) -> Result<()> {
        self.finish(call_id, state, content, is_error, None, &[CallState::Pending]).await
    }

    async fn finish(
        &self,
        call_id: &str,
        state: CallState,
        content: &str,
        is_error: bool,
        execution_id: Option<&str>,
        from: &[CallState],
    ) -> Result<()> {
        let mut tx = self.engine.store().begin_write().await?;
        let now = tx.now().to_string();
        let row: Option<(String, String)> =
            sqlx::query_as("SELECT state, name FROM tool_calls WHERE task_id = ? AND call_id = ?")
                .bind(self.task)
                .bind(call_id)
                .fetch_optional(&mut *tx)
                .await?;
        let Some((current, name)) = row else {
            return Err(Error::not_found("tool call", call_id));
        };
        if !from.contains(&parse(&current)?) {
            return Err(Error::Conflict(format!("tool call {call_id} is {current}; its result is already recorded")));
        }
        sqlx::query(
            "UPDATE tool_calls SET state = ?, result = ?, is_error = ?, execution_id = ?, finished_at = ?
              WHERE task_id = ? AND call_id = ?",
        )
        .bind(state.as_str())
        .bind(content)
        .bind(is_error)
        .bind(execution_id)
        .bind(&now)
        .bind(self.task)
        .bind(call_id)
        .execute(&mut *tx)
        .await?;
        let event = ToolCallFinished {
            call_id: call_id.into(),
            name,
            state,
            is_error,
            execution_id: execution_id.map(str::to_string),
            preview: preview(content),
        };
        tx.emit(EventDraft::new(event).correlation(self.task)).await?;
        tx.commit().await?;
        Ok(())
    }

    /// The restart rule: calls left `started` become `interrupted` (outcome unknown), calls left
    /// `pending` become `skipped`. Call only while no turn of this task runs (its claim held).
    /// Returns how many calls were closed.
    pub async fn recover(&self) -> Result<usize> {
        let open: Vec<(String, String, Option<String>)> = sqlx::query_as(
            "SELECT call_id, state, started_at FROM tool_calls
              WHERE task_id = ? AND state IN (?, ?) ORDER BY id",
        )
        .bind(self.task)
        .bind(CallState::Pending.as_str())
        .bind(CallState::Started.as_str())
        .fetch_all(self.engine.store().pool())
        .await?;
        for (call_id, state, started_at) in &open {
            if parse::<CallState>(state)? == CallState::Started {
                let (text, execution) = match self.started_by(started_at.as_deref()).await? {
                    Some((id, status)) => (
                        format!(
                            "{INTERRUPTED_RESULT}. It had started execution {id} (now {status}): check it with \
                             get_execution_status before doing anything again."
                        ),
                        Some(id),
                    ),
                    None => (INTERRUPTED_RESULT.to_string(), None),
                };
                self.finish(call_id, CallState::Interrupted, &text, true, execution.as_deref(), &[CallState::Started])
                    .await?;
            } else {
                self.finish(call_id, CallState::Skipped, SKIPPED_RESULT, true, None, &[CallState::Pending]).await?;
            }
        }
        Ok(open.len())
    }

    /// The execution an interrupted call had started, if any: the task's execution requested at or
    /// after the call started and claimed by no other call. A turn runs its calls one at a time and
    /// the process stopped during this one, so nothing else of the task asked for it.
    async fn started_by(&self, started_at: Option<&str>) -> Result<Option<(String, String)>> {
        let Some(started_at) = started_at else { return Ok(None) };
        Ok(sqlx::query_as(
            "SELECT x.id, x.status FROM executions x
              WHERE x.task_id = ? AND x.created_at >= ?
                AND NOT EXISTS (SELECT 1 FROM tool_calls c WHERE c.execution_id = x.id)
              ORDER BY x.created_at LIMIT 1",
        )
        .bind(self.task)
        .bind(started_at)
        .fetch_optional(self.engine.store().pool())
        .await?)
    }

    /// Every recorded call, oldest first.
    pub async fn calls(&self) -> Result<Vec<CallRecord>> {
        self.calls_after(0).await
    }

    /// The calls of the messages after message `after` (see [`Transcript::messages_after`]).
    pub async fn calls_after(&self, after: i64) -> Result<Vec<CallRecord>> {
        let rows = sqlx::query(
            "SELECT c.message_id, m.turn_id, c.seq, c.call_id, c.name, c.arguments, c.state, c.result, c.is_error,
                    c.execution_id
               FROM tool_calls c JOIN messages m ON m.id = c.message_id
              WHERE c.task_id = ? AND c.message_id > ? ORDER BY c.message_id, c.seq",
        )
        .bind(self.task)
        .bind(after)
        .fetch_all(self.engine.store().pool())
        .await?;
        rows.iter()
            .map(|r| {
                let state: String = r.try_get("state")?;
                Ok(CallRecord {
                    message_id: r.try_get("message_id")?,
                    turn_id: r.try_get("turn_id")?,
                    seq: r.try_get("seq")?,
                    call: ToolCall {
                        id: r.try_get("call_id")?,
                        name: r.try_get("name")?,
                        arguments: r.try_get("arguments")?,
                    },
                    state: parse(&state)?,
                    result: r.try_get("result")?,
                    is_error: r.try_get("is_error")?,
                    execution_id: r.try_get("execution_id")?,
                })
            })
            .collect()
    }

    /// The transcript's messages, oldest first (tool results are in [`Transcript::calls`]).
    pub async fn messages(&self) -> Result<Vec<MessageRecord>> {
        self.messages_after(0).await
    }

    /// The messages after message `after`, oldest first: the part of the conversation a summary
    /// covering everything up to `after` leaves to be sent as it is.
    pub async fn messages_after(&self, after: i64) -> Result<Vec<MessageRecord>> {
        let rows = sqlx::query(
            "SELECT id, role, content, turn_id, created_at FROM messages
              WHERE task_id = ? AND role <> ? AND id > ? ORDER BY id",
        )
        .bind(self.task)
        .bind(Role::Tool.as_str())
        .bind(after)
        .fetch_all(self.engine.store().pool())
        .await?;
        rows.iter()
            .map(|r| {
                let role: String = r.try_get("role")?;
                Ok(MessageRecord {
                    id: r.try_get("id")?,
                    role: parse(&role)?,
                    content: r.try_get("content")?,
                    turn_id: r.try_get("turn_id")?,
                    created_at: r.try_get("created_at")?,
                })
            })
            .collect()
    }

    /// The conversation as the provider is sent it (without the system prompt): every call paired
    /// with exactly one result right after its message, in the model's order. A call still open
    /// (a turn running elsewhere, or not yet recovered) is shown as interrupted, never left
    /// unanswered.
    pub async fn history(&self) -> Result<Vec<ChatMessage>> {
        let messages = self.messages().await?;
        let calls = self.calls().await?;
        Ok(pair(&messages, &calls))
    }
}

/// Interleaves messages with their calls' results (pure: the pairing rule).
pub fn pair(messages: &[MessageRecord], calls: &[CallRecord]) -> Vec<ChatMessage> {
    let mut out = Vec::with_capacity(messages.len() + calls.len());
    for m in messages {
        match m.role {
            Role::Assistant => {
                let mine: Vec<&CallRecord> = calls.iter().filter(|c| c.message_id == m.id).collect();
                if m.content.is_empty() && mine.is_empty() {
                    continue;
                }
                out.push(ChatMessage::assistant(&m.content, mine.iter().map(|c| c.call.clone()).collect()));
                for c in mine {
                    let content = match (c.state, &c.result) {
                        (CallState::Pending | CallState::Started, _) | (_, None) => INTERRUPTED_RESULT.to_string(),
                        (_, Some(r)) if c.is_error => format!("error: {r}"),
                        (_, Some(r)) => r.clone(),
                    };
                    out.push(ChatMessage::tool(&c.call.id, content));
                }
            }
            Role::System => out.push(ChatMessage::user(format!("{NOTE_PREFIX}{}", m.content))),
            Role::User => out.push(ChatMessage::user(&m.content)),
            // Results live with their calls; rows of this role are not written any more.
            Role::Tool => {}
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::engine;

    fn call(id: &str, name: &str) -> ToolCall {
        ToolCall { id: id.into(), name: name.into(), arguments: "{}".into() }
    }

    #[tokio::test]
    async fn a_restart_closes_open_calls_once_and_history_pairs_every_call() {
        let (dir, eng) = engine().await;
        let task = eng.create_task("t", "g").await.unwrap().id;
        let t = Transcript::new(&eng, &task);
        t.add(Role::User, "check the disks", None).await.unwrap();
        let (_, calls) = t
            .commit_assistant("turn-1", "", &[call("a", "get_entity"), call("b", "run"), call("c", "run")])
            .await
            .unwrap();
        assert_eq!(calls.iter().map(|c| c.id.as_str()).collect::<Vec<_>>(), ["a", "b", "c"]);
        t.mark_started("a", Some("turn-1")).await.unwrap();
        t.mark_completed("a", &ToolResult::ok("pve1 is up")).await.unwrap();
        t.mark_started("b", Some("turn-1")).await.unwrap();
        // A completed call cannot be started again; a started one neither.
        assert!(t.mark_started("a", None).await.is_err());
        assert!(t.mark_started("b", None).await.is_err());
        drop(eng);

        // The process died here: b started without a result, c never started.
        let eng = Engine::open(&dir.path().join("oikos.db")).await.unwrap();
        let t = Transcript::new(&eng, &task);
        assert_eq!(t.recover().await.unwrap(), 2);
        assert_eq!(t.recover().await.unwrap(), 0);
        let states: Vec<CallState> = t.calls().await.unwrap().iter().map(|c| c.state).collect();
        assert_eq!(states, [CallState::Completed, CallState::Interrupted, CallState::Skipped]);
        assert!(t.mark_started("b", None).await.is_err());
        assert!(t.mark_started("c", None).await.is_err());

        let h = t.history().await.unwrap();
        let roles: Vec<Role> = h.iter().map(|m| m.role).collect();
        assert_eq!(roles, [Role::User, Role::Assistant, Role::Tool, Role::Tool, Role::Tool]);
        assert_eq!(h[2].tool_call_id.as_deref(), Some("a"));
        assert_eq!(h[2].content, "pve1 is up");
        assert_eq!(h[3].tool_call_id.as_deref(), Some("b"));
        assert!(h[3].content.contains(INTERRUPTED_RESULT));
        assert_eq!(h[4].tool_call_id.as_deref(), Some("c"));
        assert!(h[4].content.contains(SKIPPED_RESULT));
    }

    #[tokio::test]
    async fn reused_call_ids_are_made_unique_within_the_task() {
        let (_dir, eng) = engine().await;
        let task = eng.create_task("t", "g").await.unwrap().id;
        let t = Transcript::new(&eng, &task);
        let (_, first) = t.commit_assistant("t1", "", &[call("call_0", "get_entity")]).await.unwrap();
        let (m2, second) = t
            .commit_assistant(
                "t2",
                "",
                &[call("call_0", "get_entity"), call("", "run"), call("x", "run"), call("x", "run")],
            )
            .await
            .unwrap();
        assert_eq!(first[0].id, "call_0");
        let ids: Vec<&str> = second.iter().map(|c| c.id.as_str()).collect();
        assert_eq!(ids, [format!("call_{m2}_0").as_str(), &format!("call_{m2}_1"), "x", &format!("call_{m2}_3")]);
    }

    #[tokio::test]
    async fn open_calls_read_as_interrupted_even_before_recovery() {
        let (_dir, eng) = engine().await;
        let task = eng.create_task("t", "g").await.unwrap().id;
        let t = Transcript::new(&eng, &task);
        t.commit_assistant("t1", "let me look", &[call("a", "get_entity")]).await.unwrap();
        t.add(Role::System, "interrupted", None).await.unwrap();
        let h = t.history().await.unwrap();
        assert_eq!(h.len(), 3);
        assert_eq!(h[0].content, "let me look");
        assert_eq!(h[1].content, INTERRUPTED_RESULT);
        assert!(h[2].content.starts_with(NOTE_PREFIX) && h[2].role == Role::User);
    }
}
