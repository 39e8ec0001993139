//! `nomos ask [--task T] MESSAGE`: one message to Nomos, run in the foreground to the end of its
//! turn, printing the answer as it streams, each tool call and a one-line result. The same
//! printing and exit statuses serve every turn run in the foreground ([`in_foreground`]).

use std::io::Write;

use clap::Args;
use nomos::agent::turn::TurnEnd;
use nomos::types::tasks::CallState;
use nomos::types::{EngineEvent, Event, Task, TaskStatus, TransientEvent};
use nomos::Runtime;
use serde_json::json;

use crate::exit::{Exit, Failure, Outcome};
use crate::out::{line, Out};

#[derive(Args, Debug)]
#[command(after_help = "Exit status: 0 the task is done, 3 it waits for you (an answer, the plan's approval, \
an approval, or your next message), 1 it failed or was cancelled.

With --json, one JSON object per line, as the turn goes:
  {\"kind\": KIND, \"task\": TASK_ID, \"payload\": {...}}
where KIND is an event of the task (message.added, tool_call.started {call_id, name, turn_id},
tool_call.finished {call_id, name, state, is_error, execution_id, preview}, plan.updated {steps},
question.asked {question_id, prompt}, task.updated {status, waiting_for, outcome, summary},
agent.delta {turn_id, kind: text|reasoning|reset, text}, ...); the last line is
  {\"kind\": \"ask.finished\", \"task\": TASK_ID, \"payload\": TASK}
with the task as `nomos --json tasks show` prints its first fields.

The provider comes from NOMOS_LLM_BASE_URL, NOMOS_MODEL and the key (nomos auth set-key, or NOMOS_API_KEY).")]
pub struct AskArgs {
    /// Send the message to this task (its next message; answers its open question) instead of
    /// starting a new one
    #[arg(long)]
    task: Option<String>,
    /// The message (words are joined with spaces)
    #[arg(required = true)]
    message: Vec<String>,
}

/// What the printer follows: stored events and streamed text of one task.
enum Seen {
    Stored(EngineEvent),
    Streamed(TransientEvent),
}

fn print_event(task: &str, seen: &Seen, out: Out) {
    let (event, correlation) = match seen {
        Seen::Stored(e) => (&e.event, e.correlation_id.as_deref()),
        Seen::Streamed(e) => (&e.event, e.correlation_id.as_deref()),
    };
    if correlation != Some(task) {
        return;
    }
    if out.json {
        let value = serde_json::to_value(event).unwrap_or_default();
        let payload = value.get("payload").cloned().unwrap_or_default();
        line(&json!({"kind": event.kind(), "task": task, "payload": payload}).to_string());
        return;
    }
    let mut stdout = std::io::stdout().lock();
    let _ = match event {
        Event::AgentDelta(d) => match d.kind {
            nomos::types::events::DeltaKind::Text => write!(stdout, "{}", d.text),
            nomos::types::events::DeltaKind::Reasoning => Ok(()),
            nomos::types::events::DeltaKind::Reset => writeln!(stdout, "\n[the reply restarts]"),
        },
        Event::ToolCallStarted(c) => writeln!(stdout, "\n→ {}", c.name),
        Event::ToolCallFinished(c) => {
            let mark = match (c.state, c.is_error) {
                (CallState::Completed, false) => "ok",
                (CallState::Completed, true) => "error",
                (other, _) => other.as_str(),
            };
            writeln!(stdout, "  {mark}: {}", c.preview)
        }
        Event::QuestionAsked(q) => writeln!(stdout, "\n? {}", q.prompt),
        _ => Ok(()),
    };
    let _ = stdout.flush();
}

/// One line: where the task stands.
pub fn verdict(task: &Task) -> String {
    match (task.status, task.waiting_for) {
        (TaskStatus::Waiting, Some(w)) => format!("task {}: waiting for {w}", task.id),
        _ => {
            let outcome = task.outcome.map(|o| format!(" ({o})")).unwrap_or_default();
            format!("task {}: {}{outcome}", task.id, task.status)
        }
    }
}

pub async fn ask(rt: &Runtime, args: AskArgs, out: Out) -> Outcome {
    let agent = rt.agent();
    if args.task.is_some() {
        // A message to a waiting task may be read as the operator's go-ahead.
        crate::report::deciding(rt.engine(), None).await?;
    }
    let events = Events::subscribe(rt);
    let id = agent.add_message(args.task.as_deref(), &args.message.join(" ")).await?;
    let exit = in_foreground(rt, &id, events, async { agent.run(&id).await.map(Some) }, out).await?;
    Ok(exit.unwrap_or(Exit::Failed))
}

/// The events a foreground turn prints, subscribed to before anything of the turn happens.
pub struct Events {
    stored: tokio::sync::broadcast::Receiver<EngineEvent>,
    streamed: tokio::sync::broadcast::Receiver<TransientEvent>,
}

impl Events {
    pub fn subscribe(rt: &Runtime) -> Events {
        Events { stored: rt.subscribe(), streamed: rt.subscribe_transient() }
    }
}

/// Runs `turn` (a turn of `task`, or nothing: `None`) in the foreground: prints the task's events
/// as they come, stops the turn on Ctrl-C (the task ends cancelled), then prints where the task
/// stands. Returns the exit status — 0 done, 3 waiting, 1 failed or cancelled — or `None` when no
/// turn ran (nothing was printed).
pub async fn in_foreground(
    rt: &Runtime,
    task: &str,
    events: Events,
    turn: impl std::future::Future<Output = nomos::Result<Option<(Task, TurnEnd)>>>,
    out: Out,
) -> Result<Option<Exit>, Failure> {
    let Events { mut stored, mut streamed } = events;
    let printer = {
        let id = task.to_string();
        tokio::spawn(async move {
            loop {
                let seen = tokio::select! {
                    e = stored.recv() => match e {
                        Ok(e) => Seen::Stored(e),
                        Err(tokio::sync::broadcast::error::RecvError::Lagged(_)) => continue,
                        Err(_) => return,
                    },
                    e = streamed.recv() => match e {
                        Ok(e) => Seen::Streamed(e),
                        Err(tokio::sync::broadcast::error::RecvError::Lagged(_)) => continue,
                        Err(_) => return,
                    },
                };
                print_event(&id, &seen, out);
            }
        })
    };
    tokio::pin!(turn);
    let result = tokio::select! {
        r = &mut turn => r,
        _ = tokio::signal::ctrl_c() => {
            rt.agent().cancel(task);
            turn.await
        }
    };
    // Let the printer catch up with the last events before it stops.
    tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    printer.abort();
    let Some((task, end)) = result? else { return Ok(None) };
    if out.json {
        let payload = serde_json::to_value(&task)?;
        line(&json!({"kind": "ask.finished", "task": task.id, "payload": payload}).to_string());
    } else {
        line("");
        line(&verdict(&task));
    }
    Ok(Some(match (end, task.status) {
        (_, TaskStatus::Done) => Exit::Ok,
        (_, TaskStatus::Waiting) => Exit::Waiting,
        (TurnEnd::LostClaim, TaskStatus::Working) => Exit::Waiting,
        _ => Exit::Failed,
    }))
}
