//! The command line against the lab as "another process": a CLI killed mid-command, stopped from
//! here, interrupted with Ctrl-C, and its exit statuses for ran, failed and queued. Real sshd
//! processes and SQLite files.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

#[path = "../../tests/support/mod.rs"]
mod support;

use std::time::Instant;

use nomos::actuate::ActuateConfig;
use nomos::types::ExecutionStatus;
use support::*;

/// `nomos run pve1 -- COMMAND` in another process, on the world's database.
fn cli_run(w: &World, command: &str) -> std::process::Child {
    std::process::Command::new(env!("CARGO_BIN_EXE_nomos"))
        .arg("--db")
        .arg(w.tmp.path().join("oikos.db"))
        .args(["run", "pve1", "--", command])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_killed_process_leaves_no_execution_running_forever() {
    let w = World::start(1, true, ActuateConfig::default()).await;
    let clock = w.clock.clone().unwrap();
    // Another process (the CLI) runs a long command on the same database, and is killed.
    let hung = unique_sleep(3600);
    let mut child = cli_run(&w, &hung);
    let id = first_running(&w.act, None).await;
    child.kill().unwrap();
    child.wait().unwrap();
    // Its heartbeat is fresh: nobody else may call it dead yet.
    assert_eq!(w.act.recover_interrupted().await.unwrap(), 0);
    clock.advance_ms(3 * 60 * 1000);
    assert_eq!(w.act.recover_interrupted().await.unwrap(), 1);
    let x = w.act.execution(&id).await.unwrap();
    assert_eq!(x.status, ExecutionStatus::Failed);
    assert!(x.error.as_deref().unwrap().starts_with("interrupted:"), "{:?}", x.error);
    assert_eq!(w.act.recover_interrupted().await.unwrap(), 0, "recovered once");
    // The killed CLI's command runs on until its remote deadline; this test's own, so end it.
    let _ = std::process::Command::new("pkill").args(["-f", &hung]).status();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_command_another_process_runs_can_be_stopped_from_here() {
    let w = World::default(1).await;
    // Another process (the CLI) runs a long command on the same database.
    let hung = unique_sleep(3600);
    let mut child = cli_run(&w, &hung);
    let id = first_running(&w.act, None).await;
    let asked = Instant::now();
    w.act.cancel(&id, &operator()).await.unwrap();
    let status = tokio::task::spawn_blocking(move || child.wait().unwrap()).await.unwrap();
    eprintln!("the other process stopped its command {:?} after the cancel", asked.elapsed());
    assert!(!status.success(), "a cancelled run is not a success");
    let x = w.act.execution(&id).await.unwrap();
    assert_eq!(x.status, ExecutionStatus::Cancelled);
    assert!(no_process(&hung));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_command_whose_process_was_killed_is_stopped_from_here() {
    let w = World::default(1).await;
    let hung = unique_sleep(3600);
    let mut child = cli_run(&w, &hung);
    let id = first_running(&w.act, None).await;
    // "Running" is recorded before the command reaches the host: wait until it runs there, so
    // what is killed is a started command (a loaded machine can be slow to get there).
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
    while no_process_now(&hung) {
        assert!(std::time::Instant::now() < deadline, "the command never started on the host");
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
    // The CLI dies without a word (kill -9): nobody polls for a cancel request any more.
    child.kill().unwrap();
    child.wait().unwrap();
    let x = w.act.cancel(&id, &operator()).await.unwrap();
    assert_eq!(x.status, ExecutionStatus::Cancelled);
    assert!(x.error.as_deref().unwrap().contains("killed from here"), "{:?}", x.error);
    assert!(no_process(&hung), "the orphaned command still runs");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn ctrl_c_on_the_command_line_stops_the_command_on_the_host() {
    let w = World::default(1).await;
    let hung = unique_sleep(3600);
    let mut child = cli_run(&w, &hung);
    let id = first_running(&w.act, None).await;
    let interrupted = std::process::Command::new("kill").args(["-INT", &child.id().to_string()]).status().unwrap();
    assert!(interrupted.success());
    let status = tokio::task::spawn_blocking(move || child.wait().unwrap()).await.unwrap();
    assert!(!status.success());
    let x = w.act.execution(&id).await.unwrap();
    assert_eq!(x.status, ExecutionStatus::Cancelled, "{:?}", x.error);
    assert!(no_process(&hung), "the command outlived the Ctrl-C");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn the_command_line_tells_ran_failed_and_queued_apart() {
    let w = World::default(1).await;
    let nomos = |args: &[&str]| {
        std::process::Command::new(env!("CARGO_BIN_EXE_nomos"))
            .arg("--db")
            .arg(w.tmp.path().join("oikos.db"))
            .args(args)
            .output()
            .unwrap()
    };
    let created = nomos(&["tasks", "create", "--title", "cli"]);
    assert!(created.status.success());
    let task = String::from_utf8(created.stdout).unwrap().trim().to_string();
    assert!(nomos(&["tasks", "list"]).stdout.windows(task.len()).any(|w| w == task.as_bytes()));

    let ok = nomos(&["run", "pve1", "--", "echo fine"]);
    assert_eq!(ok.status.code(), Some(0));
    assert_eq!(ok.stdout, b"fine\n");
    assert_eq!(nomos(&["run", "pve1", "--", "exit 4"]).status.code(), Some(1));
    let mark = q(&w.marks("cli"));
    let queued = nomos(&["run", "pve1", "--task", &task, "--", &format!("echo q >> {mark}")]);
    assert_eq!(queued.status.code(), Some(3), "{}", String::from_utf8_lossy(&queued.stderr));
    let text = String::from_utf8(queued.stdout).unwrap();
    let approval = text.lines().find_map(|l| l.strip_prefix("approve with: nomos approvals approve ")).unwrap();
    assert_eq!(nomos(&["approvals", "approve", approval.trim()]).status.code(), Some(0));
    assert_eq!(w.read_marks("cli"), ["q"]);
    // The task's window now lets its next change run from the command line too.
    let next = nomos(&["run", "pve1", "--task", &task, "--", &format!("echo r >> {mark}")]);
    assert_eq!(next.status.code(), Some(0));
    assert_eq!(w.read_marks("cli"), ["q", "r"]);
    // The task shows what it waits for and the executions it asked for.
    let shown = String::from_utf8(nomos(&["tasks", "show", &task]).stdout).unwrap();
    assert!(shown.contains("waiting:message") && shown.contains("executions:"), "{shown}");
    assert_eq!(shown.matches(" completed ").count(), 2, "{shown}");
    let json: serde_json::Value = serde_json::from_slice(&nomos(&["--json", "tasks", "show", &task]).stdout).unwrap();
    assert_eq!((json["status"].as_str(), json["waiting_for"].as_str()), (Some("waiting"), Some("message")));
    assert_eq!(json["executions"].as_array().unwrap().len(), 2);

    // A destructive request shows the exact words that confirm it, and the gate accepts them.
    let victim = w.tmp.path().join("victim");
    std::fs::create_dir_all(&victim).unwrap();
    let destroy = nomos(&["run", "pve1", "--", &format!("rm -rf {}", q(&victim))]);
    assert_eq!(destroy.status.code(), Some(3));
    let text = String::from_utf8(destroy.stdout).unwrap();
    let hint = text.lines().find_map(|l| l.strip_prefix("approve with: nomos approvals approve ")).unwrap();
    let (id, phrase) = hint.split_once(" --confirm ").unwrap();
    assert_eq!(phrase, "\"confirm host:pve1\"");
    let listed = String::from_utf8(nomos(&["approvals", "list"]).stdout).unwrap();
    assert!(listed.contains("needs a typed confirmation: --confirm \"confirm host:pve1\""), "{listed}");
    let wrong = nomos(&["approvals", "approve", id, "--confirm", "yes, confirm host:pve1"]);
    assert_eq!(wrong.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&wrong.stderr).contains("`confirm host:pve1`"));
    assert!(victim.exists());
    assert_eq!(nomos(&["approvals", "approve", id, "--confirm", phrase.trim_matches('"')]).status.code(), Some(0));
    assert!(!victim.exists());
}
