//! `nomos ask` killed (SIGKILL) at each point of a tool call's life, then continued by the next
//! `nomos ask --task T`: nothing already done is lost or done twice, the model is told what became
//! of the call, every call it is sent is paired with exactly one result, and the task is never
//! left working. Real binary, real SQLite file, real sshd (the lab); the model is scripted.
//! The pause points exist in debug builds only.
#![cfg(debug_assertions)]
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

#[path = "../../tests/support/mod.rs"]
mod support;

use std::os::unix::process::ExitStatusExt;
use std::path::Path;
use std::time::{Duration, Instant};

use nomos::agent::transcript::{CallState, Transcript, INTERRUPTED_RESULT, SKIPPED_RESULT};
use nomos::tasks::INTERRUPTED_NOTE;
use nomos::testing_hooks::{PAUSE_AT_ENV, PAUSE_FILE_ENV};
use nomos::types::{TaskStatus, WindowKind};
use nomos_scripted_provider::{Script, ScriptedCall, ScriptedProvider, Step};
use serde_json::{json, Value};
use support::agent::assert_paired;
use support::*;

const CALL_ID: &str = "call_mark";

/// `nomos ask --task T MESSAGE` on the world's database against the scripted provider.
fn ask(w: &World, url: &str, task: &str, message: &str) -> std::process::Command {
    let mut cmd = std::process::Command::new(env!("CARGO_BIN_EXE_nomos"));
    cmd.arg("--db")
        .arg(w.tmp.path().join("oikos.db"))
        .args(["ask", "--task", task, message])
        .env("NOMOS_LLM_BASE_URL", url)
        .env("NOMOS_MODEL", "scripted")
        .env("NOMOS_API_KEY", "unused")
        .env_remove(PAUSE_AT_ENV)
        .env_remove(PAUSE_FILE_ENV);
    cmd
}

/// Waits up to 60 s for the paused process to write its pause file.
async fn wait_for_pause(file: &Path, child: &mut std::process::Child) {
    let deadline = Instant::now() + Duration::from_secs(60);
    while !file.exists() {
        assert!(child.try_wait().unwrap().is_none(), "the process ended before it paused");
        assert!(Instant::now() < deadline, "the process never paused");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// The tool message that answers `call` in the provider's last request.
fn result_sent(server: &ScriptedProvider, call: &str) -> String {
    let requests = server.requests();
    let last = requests.last().unwrap();
    let answers: Vec<&Value> =
        last["messages"].as_array().unwrap().iter().filter(|m| m["tool_call_id"] == call).collect();
    assert_eq!(answers.len(), 1, "{last}");
    answers[0]["content"].as_str().unwrap().to_string()
}

/// Runs `nomos ask` until it pauses at `point`, kills it with SIGKILL, continues the task with a
/// second `nomos ask`, and returns what a test checks: the world, the task, the provider, the
/// marks, and how long the continuing process took.
async fn kill_at(point: &str) -> (World, String, ScriptedProvider, Vec<String>, Duration) {
    let w = World::default(1).await;
    let task = w.task("leave a mark").await;
    // The task's window is open: the command (a change) runs without asking.
    w.act.open_window(&task, WindowKind::Assent, None, &operator()).await.unwrap();
    let command = format!("echo x >> {}", q(&w.marks(point)));
    let run = json!({"target": "host:pve1", "command": command, "purpose": "leave a mark"});
    let server = ScriptedProvider::start(Script::new(vec![
        Step::tool_calls(vec![ScriptedCall::new("run", run).with_id(CALL_ID)]),
        Step::text("Done: the mark is there or I will check it."),
    ]))
    .await
    .unwrap();
    let url = server.base_url();

    let pause_file = w.tmp.path().join(format!("paused-{point}"));
    let mut child = ask(&w, &url, &task, "leave a mark on pve1")
        .env(PAUSE_AT_ENV, point)
        .env(PAUSE_FILE_ENV, &pause_file)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    wait_for_pause(&pause_file, &mut child).await;
    // While it lives, its lease holds: another process is refused and runs nothing.
    let refused = ask(&w, &url, &task, "are you there?").output().unwrap();
    assert_ne!(refused.status.code(), Some(0));
    let stderr = String::from_utf8_lossy(&refused.stderr);
    let by = format!("already being worked on (by process {} on this machine)", child.id());
    assert!(stderr.contains(&by), "{stderr}");
    child.kill().unwrap();
    let status = child.wait().unwrap();
    assert_eq!(status.signal(), Some(9), "killed with SIGKILL");
    // The killed process held the task: it is still `working`, under a lease far from expiry.
    assert_eq!(w.engine.task(&task).await.unwrap().status, TaskStatus::Working);
    let marks_at_kill = w.read_marks(point);

    let started = Instant::now();
    let next = ask(&w, &url, &task, "continue").output().unwrap();
    let took = started.elapsed();
    let stderr = String::from_utf8_lossy(&next.stderr);
    assert_eq!(next.status.code(), Some(0), "{stderr}\n{}", String::from_utf8_lossy(&next.stdout));
    assert!(!stderr.contains("already being worked on"), "{stderr}");
    eprintln!("{point}: the next `nomos ask` took the task over and finished in {took:?}");
    // Nothing ran again after the restart.
    assert_eq!(w.read_marks(point), marks_at_kill, "the restart re-ran nothing");

    // The task ended; the provider was asked once by each process; every call paired.
    let t = w.engine.task(&task).await.unwrap();
    assert_eq!(t.status, TaskStatus::Done, "{t:?}");
    let requests = server.requests();
    assert_eq!(requests.len(), 2);
    for r in &requests {
        assert_paired(r);
    }
    // The model is told the work was interrupted, before the operator's next message.
    let last = requests.last().unwrap();
    let contents: Vec<&str> =
        last["messages"].as_array().unwrap().iter().map(|m| m["content"].as_str().unwrap_or_default()).collect();
    let note = contents.iter().position(|c| c.contains(INTERRUPTED_NOTE)).expect("the model is told the work stopped");
    assert!(note < contents.iter().position(|c| *c == "continue").unwrap(), "{last}");
    (w, task, server, marks_at_kill, took)
}

/// The single call as the transcript recorded it.
async fn the_call(w: &World, task: &str) -> (CallState, String, Option<String>) {
    let calls = Transcript::new(&w.engine, task).calls().await.unwrap();
    assert_eq!(calls.len(), 1, "{calls:?}");
    let c = &calls[0];
    assert_eq!(c.call.id, CALL_ID);
    (c.state, c.result.clone().unwrap_or_default(), c.execution_id.clone())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn killed_after_the_commit_the_call_never_ran_and_the_model_is_told_so() {
    let (w, task, server, marks, _) = kill_at("after_commit").await;
    assert!(marks.is_empty(), "the call never ran: {marks:?}");
    let (state, result, execution) = the_call(&w, &task).await;
    assert_eq!((state, result.as_str(), execution), (CallState::Skipped, SKIPPED_RESULT, None));
    assert!(result_sent(&server, CALL_ID).contains(SKIPPED_RESULT));
    assert!(w.act.executions(Some(&task), None, 10).await.unwrap().is_empty(), "no execution was made");
    assert!(w.read_marks("after_commit").is_empty());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn killed_after_the_start_the_outcome_is_unknown_and_the_call_is_not_run_again() {
    let (w, task, server, marks, _) = kill_at("after_start").await;
    // Killed after the mark, before the side effect: it did not run, but nobody can know that.
    assert!(marks.is_empty(), "{marks:?}");
    let (state, result, _) = the_call(&w, &task).await;
    assert_eq!((state, result.as_str()), (CallState::Interrupted, INTERRUPTED_RESULT));
    assert!(result_sent(&server, CALL_ID).contains(INTERRUPTED_RESULT));
    assert!(w.act.executions(Some(&task), None, 10).await.unwrap().is_empty(), "never re-run");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn killed_before_the_result_the_side_effect_happened_once_and_the_result_is_lost() {
    let (w, task, server, marks, _) = kill_at("before_result").await;
    assert_eq!(marks, ["x"], "the command ran exactly once");
    assert_eq!(w.read_marks("before_result"), ["x"]);
    let executions = w.act.executions(Some(&task), None, 10).await.unwrap();
    assert_eq!(executions.len(), 1, "one execution, never re-run: {executions:?}");
    assert!(executions[0].status.is_final(), "{:?}", executions[0].status);
    // The interrupted call is linked to the execution it started, and the model is told which to check.
    let (state, result, execution) = the_call(&w, &task).await;
    assert_eq!(state, CallState::Interrupted);
    assert!(result.starts_with(INTERRUPTED_RESULT), "{result}");
    assert!(result.contains(&format!("started execution {}", executions[0].id)), "{result}");
    assert_eq!(execution.as_deref(), Some(executions[0].id.as_str()));
    let sent = result_sent(&server, CALL_ID);
    assert!(sent.contains(INTERRUPTED_RESULT) && sent.contains(&executions[0].id), "{sent}");
}
