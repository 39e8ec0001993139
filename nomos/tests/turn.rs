//! The task loop against a scripted model — a stand-in for the language model that replays
//! prepared replies and records what it was sent — on a real SQLite file.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod support;

use std::sync::atomic::{AtomicUsize, Ordering};

use nomos::agent::chat::{Role, ToolCall, ToolSpec};
use nomos::agent::send_message;
use nomos::agent::tools::ToolResult;
use nomos::agent::transcript::{CallState, Transcript};
use nomos::agent::turn::{TaskToolsOnly, Tools, TurnConfig, TurnEnd};
use nomos::types::{TaskOutcome, TaskStatus, WaitingFor};
use nomos::Engine;
use support::agent::{calls, text, ScriptedModel};
use tokio_util::sync::CancellationToken;

/// Stand-in for the tools registry: the task tools, one read-only tool (`look`) that counts how
/// often it really ran, and one that always fails (`break`).
#[derive(Default)]
struct CountingTools {
    looks: AtomicUsize,
}

impl Tools for CountingTools {
    fn specs(&self) -> Vec<ToolSpec> {
        TaskToolsOnly.specs()
    }

    fn is_read_only(&self, name: &str, _: &serde_json::Value) -> bool {
        name == "look"
    }

    async fn call(
        &self,
        engine: &Engine,
        task: &str,
        turn: &str,
        call: &ToolCall,
        cancel: &CancellationToken,
    ) -> ToolResult {
        match call.name.as_str() {
            "look" => {
                self.looks.fetch_add(1, Ordering::SeqCst);
                ToolResult::ok("pve1 is up")
            }
            "break" => ToolResult::error("exit code 1: no such file"),
            _ => TaskToolsOnly.call(engine, task, turn, call, cancel).await,
        }
    }
}

async fn engine() -> (tempfile::TempDir, Engine) {
    let dir = tempfile::tempdir().unwrap();
    let engine = Engine::open(&dir.path().join("oikos.db")).await.unwrap();
    (dir, engine)
}

fn config() -> TurnConfig {
    TurnConfig { max_iterations: 8, ..TurnConfig::default() }
}

#[tokio::test]
async fn a_plain_answer_completes_the_task_with_the_answer_as_summary() {
    let (_dir, eng) = engine().await;
    let model = ScriptedModel::repeating(vec![text("pve1 runs 4 containers.")]);
    let mut rx = eng.subscribe_transient();
    let (task, end) = send_message(
        &eng,
        &model,
        &TaskToolsOnly,
        &config(),
        None,
        "how many containers on pve1?",
        &CancellationToken::new(),
    )
    .await
    .unwrap();
    assert_eq!(end, TurnEnd::Ended(TaskStatus::Done));
    assert_eq!((task.status, task.outcome), (TaskStatus::Done, Some(TaskOutcome::Success)));
    assert_eq!(task.summary, "pve1 runs 4 containers.");
    assert_eq!(task.title, "how many containers on pve1?");
    let sent = &model.requests()[0];
    assert_eq!(sent.messages[0].role, Role::System);
    assert!(sent.messages[0].content.contains("Nomos"));
    assert_eq!(sent.messages[1].content, "how many containers on pve1?");
    assert!(sent.tools.iter().any(|t| t.name == "complete_task"));
    assert_eq!(rx.try_recv().unwrap().kind(), "agent.delta");
}

#[tokio::test]
async fn a_plan_waits_for_approval_and_a_second_proposal_appends() {
    let (_dir, eng) = engine().await;
    let plan = r#"{"steps":[{"title":"stop web","target":"lxc:web"},{"title":"resize disk"}]}"#;
    let model = ScriptedModel::repeating(vec![calls(&[("p1", "propose_plan", plan)])]);
    let (task, end) =
        send_message(&eng, &model, &TaskToolsOnly, &config(), None, "grow web's disk", &CancellationToken::new())
            .await
            .unwrap();
    assert_eq!(end, TurnEnd::Waiting(WaitingFor::Plan));
    assert_eq!((task.status, task.waiting_for), (TaskStatus::Waiting, Some(WaitingFor::Plan)));

    let model =
        ScriptedModel::repeating(vec![calls(&[("p2", "propose_plan", r#"{"steps":[{"title":"start web"}]}"#)])]);
    send_message(
        &eng,
        &model,
        &TaskToolsOnly,
        &config(),
        Some(&task.id),
        "also start it again",
        &CancellationToken::new(),
    )
    .await
    .unwrap();
    let steps: Vec<(i64, String)> = eng.plan(&task.id).await.unwrap().into_iter().map(|s| (s.seq, s.title)).collect();
    assert_eq!(steps, [(1, "stop web".into()), (2, "resize disk".into()), (3, "start web".into())]);
}

#[tokio::test]
async fn completion_needs_evidence_that_holds() {
    let (_dir, eng) = engine().await;
    let tools = CountingTools::default();
    let model = ScriptedModel::repeating(vec![
        calls(&[("c1", "look", "{}"), ("c2", "break", "{}")]),
        // No evidence: refused.
        calls(&[("d1", "complete_task", r#"{"outcome":"success","summary":"all good"}"#)]),
        // A failed call as evidence: refused.
        calls(&[("d2", "complete_task", r#"{"outcome":"success","summary":"all good","evidence":["c2"]}"#)]),
        // A call that succeeded: accepted.
        calls(&[("d3", "complete_task", r#"{"outcome":"success","summary":"pve1 is up","evidence":["c1"]}"#)]),
    ]);
    let (task, _) =
        send_message(&eng, &model, &tools, &config(), None, "is pve1 up?", &CancellationToken::new()).await.unwrap();
    assert_eq!((task.status, task.outcome), (TaskStatus::Done, Some(TaskOutcome::Success)));
    assert_eq!(task.summary, "pve1 is up");
    let recorded = Transcript::new(&eng, &task.id).calls().await.unwrap();
    let d1 = recorded.iter().find(|c| c.call.id == "d1").unwrap();
    assert!(d1.is_error && d1.result.as_deref().unwrap().contains("must cite evidence"));
    let d2 = recorded.iter().find(|c| c.call.id == "d2").unwrap();
    assert!(d2.is_error && d2.result.as_deref().unwrap().contains("c2 (break) failed"));
}

#[tokio::test]
async fn the_same_read_is_answered_once_from_memory_then_refused() {
    let (_dir, eng) = engine().await;
    let tools = CountingTools::default();
    let model = ScriptedModel::repeating(vec![
        calls(&[("a", "look", r#"{"slug":"host:pve1"}"#)]),
        calls(&[("b", "look", r#"{ "slug": "host:pve1" }"#)]),
        calls(&[("c", "look", r#"{"slug":"host:pve1"}"#)]),
        text("pve1 is up."),
    ]);
    let (task, _) =
        send_message(&eng, &model, &tools, &config(), None, "is pve1 up?", &CancellationToken::new()).await.unwrap();
    assert_eq!(tools.looks.load(Ordering::SeqCst), 1, "the tool really ran once");
    let recorded = Transcript::new(&eng, &task.id).calls().await.unwrap();
    assert!(!recorded[1].is_error && recorded[1].result.as_deref().unwrap().contains("pve1 is up"));
    assert!(recorded[2].is_error && recorded[2].result.as_deref().unwrap().starts_with("refused"));
    assert_eq!(task.status, TaskStatus::Done);
}

#[tokio::test]
async fn a_run_of_errors_stops_with_a_question_and_the_limit_with_a_summary() {
    let (_dir, eng) = engine().await;
    let tools = CountingTools::default();
    let model = ScriptedModel::repeating(vec![calls(&[("x", "break", "{}")])]);
    let (task, end) =
        send_message(&eng, &model, &tools, &config(), None, "fix it", &CancellationToken::new()).await.unwrap();
    assert_eq!(end, TurnEnd::Waiting(WaitingFor::Answer));
    assert_eq!(task.waiting_for, Some(WaitingFor::Answer));
    let questions = eng.questions(&task.id).await.unwrap();
    assert!(questions[0].prompt.contains("4 tool calls in a row failed"));
    assert_eq!(model.requests().len(), 4);

    // Reads that keep changing never trip the guards: the iteration limit ends it, waiting.
    let (_dir, eng) = engine().await;
    let replies =
        (0..20).map(|i| calls(&[(&format!("l{i}") as &str, "look", &format!(r#"{{"n":{i}}}"#) as &str)])).collect();
    let model = ScriptedModel::repeating(replies);
    let (task, end) =
        send_message(&eng, &model, &tools, &config(), None, "look around", &CancellationToken::new()).await.unwrap();
    assert_eq!(end, TurnEnd::Waiting(WaitingFor::Message));
    assert_eq!(task.status, TaskStatus::Waiting);
    let notes = Transcript::new(&eng, &task.id).messages().await.unwrap();
    let last = &notes.last().unwrap().content;
    assert!(last.contains("Stopped after 8 steps") && last.contains("Last calls: look completed"), "{last}");
}

#[tokio::test]
async fn malformed_output_is_a_tool_error_or_a_retry_never_a_crash() {
    let (_dir, eng) = engine().await;
    let model = ScriptedModel::repeating(vec![
        text(""),
        calls(&[("m1", "propose_plan", r#"{"steps": [oops"#), ("m2", "no_such_tool", "{}")]),
        text("I could not plan that."),
    ]);
    let (task, _) = send_message(&eng, &model, &TaskToolsOnly, &config(), None, "plan it", &CancellationToken::new())
        .await
        .unwrap();
    assert_eq!(task.status, TaskStatus::Done);
    let recorded = Transcript::new(&eng, &task.id).calls().await.unwrap();
    assert!(recorded.iter().all(|c| c.is_error && c.state == CallState::Completed));
    assert!(recorded[0].result.as_deref().unwrap().contains("do not fit its schema"));
    assert!(recorded[1].result.as_deref().unwrap().contains("unknown tool"));
    // The empty reply was retried with a note, not committed.
    assert!(model.requests()[1].messages.last().unwrap().content.contains("empty"));

    let (_dir, eng) = engine().await;
    let model = ScriptedModel::repeating(vec![text("")]);
    let (task, _) =
        send_message(&eng, &model, &TaskToolsOnly, &config(), None, "hello?", &CancellationToken::new()).await.unwrap();
    assert_eq!((task.status, task.waiting_for), (TaskStatus::Waiting, Some(WaitingFor::Message)));
}

#[tokio::test]
async fn calls_after_a_wait_in_the_same_message_are_skipped_and_cancel_cancels() {
    let (_dir, eng) = engine().await;
    let tools = CountingTools::default();
    let model = ScriptedModel::repeating(vec![calls(&[
        ("q", "ask_operator", r#"{"prompt":"which host?","options":["pve1","pve2"]}"#),
        ("l", "look", "{}"),
    ])]);
    let (task, end) =
        send_message(&eng, &model, &tools, &config(), None, "restart it", &CancellationToken::new()).await.unwrap();
    assert_eq!(end, TurnEnd::Waiting(WaitingFor::Answer));
    assert_eq!(tools.looks.load(Ordering::SeqCst), 0);
    let recorded = Transcript::new(&eng, &task.id).calls().await.unwrap();
    assert_eq!(recorded[1].state, CallState::Skipped);
    // The answer closes the question.
    let model = ScriptedModel::repeating(vec![text("pve2 it is.")]);
    send_message(&eng, &model, &tools, &config(), Some(&task.id), "pve2", &CancellationToken::new()).await.unwrap();
    let q = eng.questions(&task.id).await.unwrap();
    assert_eq!((q[0].status.as_str(), q[0].answer.as_deref()), ("answered", Some("pve2")));

    let cancel = CancellationToken::new();
    cancel.cancel();
    let model = ScriptedModel::repeating(vec![text("never")]);
    let (task, end) = send_message(&eng, &model, &tools, &config(), None, "anything", &cancel).await.unwrap();
    assert_eq!(end, TurnEnd::Ended(TaskStatus::Cancelled));
    assert_eq!(task.status, TaskStatus::Cancelled);
}
