//! The task goes on after the operator decides: `nomos approvals approve` continues it in the
//! foreground, and `nomos agent serve` continues a task approved from another shell. Real binary,
//! real SQLite file, real sshd (the lab); the model is the scripted provider.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

#[path = "../../tests/support/mod.rs"]
mod support;

use std::io::Read;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use nomos::types::TaskStatus;
use nomos_scripted_provider::{Script, ScriptedCall, ScriptedProvider, Step};
use serde_json::json;
use support::*;

/// `nomos ARGS` on the world's database, against `url` (or without a provider).
fn nomos(w: &World, url: Option<&str>, args: &[&str]) -> Command {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_nomos"));
    cmd.arg("--db").arg(w.tmp.path().join("oikos.db")).args(args).env_remove("NOMOS_LLM_BASE_URL");
    if let Some(url) = url {
        cmd.env("NOMOS_LLM_BASE_URL", url).env("NOMOS_MODEL", "scripted").env("NOMOS_API_KEY", "unused");
    }
    cmd
}

/// A scripted model that asks to leave a mark on pve1 (a change: it waits for approval), then
/// says it is done.
async fn marking(w: &World) -> ScriptedProvider {
    let command = format!("echo x >> {}", q(&w.marks("m")));
    let run = json!({"target": "host:pve1", "command": command, "purpose": "leave a mark"});
    ScriptedProvider::start(Script::new(vec![
        Step::tool_calls(vec![ScriptedCall::new("run", run)]),
        Step::text("The mark is on pve1."),
    ]))
    .await
    .unwrap()
}

/// `nomos ask` for the mark: it waits for approval (exit 3). Returns the task and its approval.
async fn ask_for_the_mark(w: &World, url: &str) -> (String, String) {
    let asked = nomos(w, Some(url), &["--json", "ask", "leave a mark on pve1"]).output().unwrap();
    assert_eq!(asked.status.code(), Some(3), "{}", String::from_utf8_lossy(&asked.stderr));
    let pending = w.act.pending_approvals().await.unwrap();
    assert_eq!(pending.len(), 1);
    (pending[0].task_id.clone().unwrap(), pending[0].id.clone())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn approving_continues_the_task_in_the_foreground() {
    let w = World::default(1).await;
    let server = marking(&w).await;
    let url = server.base_url();
    let (task, approval) = ask_for_the_mark(&w, &url).await;

    let approved = nomos(&w, Some(&url), &["approvals", "approve", &approval]).output().unwrap();
    let (stdout, stderr) = (String::from_utf8_lossy(&approved.stdout), String::from_utf8_lossy(&approved.stderr));
    assert_eq!(approved.status.code(), Some(0), "{stdout}\n{stderr}");
    // The execution's report, then the task's turn as `nomos ask` prints it.
    assert!(stderr.contains("completed"), "{stderr}");
    assert!(stdout.contains("The mark is on pve1."), "{stdout}");
    assert!(stdout.trim_end().ends_with(&format!("task {task}: done (success)")), "{stdout}");
    assert_eq!(w.read_marks("m"), ["x"]);
    assert_eq!(w.engine.task(&task).await.unwrap().status, TaskStatus::Done);
    assert_eq!(server.requests().len(), 2);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn approving_without_continuing_leaves_the_task_and_keeps_the_executions_exit_status() {
    let w = World::default(1).await;
    let server = marking(&w).await;
    let url = server.base_url();
    let (task, approval) = ask_for_the_mark(&w, &url).await;

    let approved =
        nomos(&w, Some(&url), &["--json", "approvals", "approve", "--no-continue", &approval]).output().unwrap();
    assert_eq!(approved.status.code(), Some(0), "{}", String::from_utf8_lossy(&approved.stderr));
    // The JSON is the execution's report alone, as before.
    let report: serde_json::Value = serde_json::from_slice(&approved.stdout).unwrap();
    assert_eq!((report["outcome"].as_str(), report["execution"]["status"].as_str()), (Some("ran"), Some("completed")));
    assert_eq!(server.requests().len(), 1, "the model was not asked again");
    let t = w.engine.task(&task).await.unwrap();
    assert_eq!(t.status, TaskStatus::Waiting, "{t:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn serve_continues_a_task_approved_from_another_shell_and_stops_on_sigint() {
    let w = World::default(1).await;
    let server = marking(&w).await;
    let url = server.base_url();
    let mut serve =
        nomos(&w, Some(&url), &["agent", "serve"]).stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().unwrap();
    let (task, approval) = ask_for_the_mark(&w, &url).await;

    // Approved from another shell that does not continue it itself.
    let approved = nomos(&w, None, &["approvals", "approve", &approval]).output().unwrap();
    assert_eq!(approved.status.code(), Some(0), "{}", String::from_utf8_lossy(&approved.stderr));
    assert!(String::from_utf8_lossy(&approved.stderr).contains("is not continued here"));

    let deadline = Instant::now() + Duration::from_secs(60);
    while w.engine.task(&task).await.unwrap().status != TaskStatus::Done {
        assert!(serve.try_wait().unwrap().is_none(), "serve stopped");
        assert!(Instant::now() < deadline, "serve never continued the task");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert_eq!(w.read_marks("m"), ["x"]);
    assert_eq!(server.requests().len(), 2);

    let int = Command::new("kill").args(["-INT", &serve.id().to_string()]).status().unwrap();
    assert!(int.success());
    let status = serve.wait().unwrap();
    let mut stdout = String::new();
    serve.stdout.take().unwrap().read_to_string(&mut stdout).unwrap();
    let mut stderr = String::new();
    serve.stderr.take().unwrap().read_to_string(&mut stderr).unwrap();
    assert_eq!(status.code(), Some(0), "{stdout}\n{stderr}");
    assert_eq!(stdout.trim(), format!("task {task}: done (success)"), "one line per continued task");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn stopping_serve_mid_turn_kills_the_command_and_leaves_the_task_waiting() {
    let w = World::default(1).await;
    let mark = format!("echo x >> {}", q(&w.marks("m")));
    let sleep = unique_sleep(30);
    let server = ScriptedProvider::start(Script::new(vec![
        Step::tool_calls(vec![ScriptedCall::new(
            "run",
            json!({"target": "host:pve1", "command": mark, "purpose": "leave a mark"}),
        )]),
        Step::tool_calls(vec![ScriptedCall::new(
            "run",
            json!({"target": "host:pve1", "command": sleep, "purpose": "wait for it"}),
        )]),
        Step::text("Waited."),
    ]))
    .await
    .unwrap();
    let url = server.base_url();
    let mut serve =
        nomos(&w, Some(&url), &["agent", "serve"]).stdout(Stdio::piped()).stderr(Stdio::null()).spawn().unwrap();
    let (task, approval) = ask_for_the_mark(&w, &url).await;
    let approved = nomos(&w, None, &["approvals", "approve", &approval]).output().unwrap();
    assert_eq!(approved.status.code(), Some(0), "{}", String::from_utf8_lossy(&approved.stderr));

    // The continued turn runs the long command; serve is stopped meanwhile.
    let deadline = Instant::now() + Duration::from_secs(60);
    let sleeping = loop {
        let running = w.act.executions(Some(&task), Some(nomos::types::ExecutionStatus::Running), 5).await.unwrap();
        if let Some(x) = running.into_iter().find(|x| x.command == sleep) {
            break x.id;
        }
        assert!(Instant::now() < deadline, "the continued turn never ran its command");
        tokio::time::sleep(Duration::from_millis(50)).await;
    };
    assert!(Command::new("kill").args(["-INT", &serve.id().to_string()]).status().unwrap().success());
    let status = serve.wait().unwrap();
    assert_eq!(status.code(), Some(0));
    let mut stdout = String::new();
    serve.stdout.take().unwrap().read_to_string(&mut stdout).unwrap();

    // The command was killed on the host and recorded so; the task waits, it is not cancelled.
    assert_eq!(w.act.execution(&sleeping).await.unwrap().status, nomos::types::ExecutionStatus::Cancelled);
    assert!(no_process(&sleep), "the command still runs on the host");
    let t = w.engine.task(&task).await.unwrap();
    assert_eq!((t.status, t.waiting_for), (TaskStatus::Waiting, Some(nomos::types::WaitingFor::Message)), "{t:?}");
    let notes = nomos::agent::transcript::Transcript::new(&w.engine, &task).messages().await.unwrap();
    assert!(notes.iter().any(|m| m.content == nomos::agent::turn::STOPPED_NOTE), "{notes:?}");
    assert_eq!(stdout.trim(), format!("task {task}: waiting for message"));
}
