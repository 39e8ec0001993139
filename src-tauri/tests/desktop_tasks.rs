//! End to end, tasks: the app in its real webview against a lab host (a real sshd) and the
//! scripted provider. A task is created from the board; its plan appears in the context panel;
//! "yes" in the chat approves it; the change then runs without another question (the execution is
//! in the database, the mark on the host, the step done in the panel); the task ends done on the
//! board. Screenshots of the task view and the board go to `artifacts_dir()`. Without a provider,
//! starting a task says so and points to Settings.
//!
//! See `support` for what it needs.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod support;

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use nomos::actuate::Decision;
use nomos::types::tasks::QuestionStatus;
use nomos::types::{Channel, Risk, TaskStatus};
use nomos::{Runtime, RuntimeConfig};
use nomos_lab::{Lab, LabConfig};
use nomos_scripted_provider::{Reply, Script, ScriptedCall, ScriptedProvider, Step};
use serde_json::json;
use support::{artifacts_dir, gone, is_disabled, pgrep, Desktop, Driver, TaskLab, STARTUP, STEP};

/// One app at a time: two webviews at once only slow each other down on a small machine.
static ONE_APP: std::sync::Mutex<()> = std::sync::Mutex::new(());

#[test]
fn a_task_from_the_board_is_planned_approved_in_chat_run_and_done() {
    let _one = ONE_APP.lock().unwrap_or_else(|e| e.into_inner());
    let tmp = tempfile::tempdir().unwrap();
    let mut lab_config = LabConfig::new(tmp.path().join("lab"));
    lab_config.hosts = 1;
    let lab = Lab::start(lab_config).unwrap();
    let host = lab.hosts()[0].name.clone();
    let target = format!("host:{host}");
    let marks = tmp.path().join("motd-marks");

    // The model: a plan first (the task waits for it), then after the approval the change, the
    // step marked done, and the end with a few words (streamed) and its evidence.
    let rt = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().unwrap();
    let plan = json!({"steps": [{"title": "write the motd", "detail": "append to the motd", "target": target}]});
    let change =
        json!({"target": target, "command": format!("echo hello >> {}", marks.display()), "purpose": "write the motd"});
    let server = rt
        .block_on(ScriptedProvider::start(Script::new(vec![
            Step::tool_calls(vec![ScriptedCall::new("propose_plan", plan)]),
            Step::tool_calls(vec![ScriptedCall::new("run", change).with_id("call-motd")]),
            Step::tool_calls(vec![ScriptedCall::new("update_plan_step", json!({"seq": 1, "status": "done"}))]),
            Step {
                reply: Reply::ToolCalls {
                    content: "The motd on **pve** now says `hello`.".into(),
                    calls: vec![ScriptedCall::new(
                        "complete_task",
                        json!({"outcome": "success", "summary": "The motd says hello.", "evidence": ["call-motd"]}),
                    )],
                },
                delay_ms: 0,
                // Slow enough to be seen while it is written.
                chunk_delay_ms: 300,
            },
        ])))
        .unwrap();
    let url = server.base_url();

    let app = PathBuf::from(env!("CARGO_BIN_EXE_oikos"));
    let env = [("NOMOS_LLM_BASE_URL", url.as_str()), ("NOMOS_MODEL", "scripted"), ("NOMOS_API_KEY", "unused")];
    let Some(desktop) = Desktop::start(&app, &env) else { return };
    let d = &desktop.d;

    // The lab's inventory and its pinned key, written by another process (this test).
    let ours = rt.block_on(Runtime::open(RuntimeConfig::new(&desktop.db))).unwrap();
    rt.block_on(ours.engine().import_inventory_file(&lab.inventory_path())).unwrap();
    let operator = Decision { actor: "operator:test".into(), channel: Channel::Ui, message: None };
    rt.block_on(ours.actuator().present_key(&target)).unwrap();
    rt.block_on(ours.actuator().trust_host(&target, None, &operator)).unwrap();

    // The board is the home page; it starts empty.
    d.wait_until("[data-testid=no-tasks]", STARTUP, |t| t[0].contains("No tasks yet"));
    assert_eq!(d.path(), "/tasks");
    let input = d.wait_until("[data-testid=new-task-input]", STEP, |_| true);
    d.type_into(&input[0].0, "Write hello into the motd on pve1");
    let start = d.wait_until("[data-testid=new-task-submit]", STEP, |t| t[0] == "New task");
    d.click(&start[0].0);

    // The task opens; its plan appears in the context panel and waits for the operator.
    d.wait_until("[data-testid=task-title]", STEP, |t| t[0].contains("motd"));
    let path = d.path();
    let task = path.strip_prefix("/tasks/").expect("the task's page").to_string();
    d.wait_until("[data-testid=plan-step]", STEP, |t| {
        t.len() == 1 && t[0].starts_with("pending") && t[0].contains("write the motd")
    });
    d.wait_until("[data-testid=task-view-status]", STEP, |t| t[0] == "waiting: plan");
    d.wait_until("[data-testid=approve-plan]", STEP, |_| true);
    d.wait_until("[data-testid=msg-user]", STEP, |t| t[0] == "Write hello into the motd on pve1");

    // "yes" in the chat approves the plan: the change runs without another question.
    let reply = d.wait_until("[data-testid=reply-input]", STEP, |_| true);
    d.type_into(&reply[0].0, "yes");
    // The answer streams in before it is stored: a few seconds on screen, which polling from here
    // could miss on a loaded machine, so the page itself notes it.
    d.execute(
        "window.__streamedMotd = false;
         new MutationObserver(() => {
           for (const el of document.querySelectorAll('[data-testid=msg-streaming]')) {
             if (el.textContent.trim().startsWith('The motd')) window.__streamedMotd = true;
           }
         }).observe(document.body, { subtree: true, childList: true, characterData: true });",
    );
    let send = d.wait_until("[data-testid=reply-send]", STEP, |_| true);
    d.click(&send[0].0);
    d.wait_until("[data-testid=plan-step]", STEP, |t| t[0].starts_with("done"));
    d.wait_until("[data-testid=plan-progress]", STEP, |t| t[0] == "1/1");
    d.wait_until("[data-testid=task-view-status]", STEP, |t| t[0] == "done: success");
    d.wait_until("[data-testid=ctx-summary]", STEP, |t| t[0] == "The motd says hello.");
    // The answer, streamed then stored, rendered as markdown.
    let answer = d.wait_until("[data-testid=msg-nomos] strong", STEP, |t| t.iter().any(|s| s == "pve"));
    assert!(!answer.is_empty());
    assert!(d.find_all("[data-testid=msg-streaming]").is_empty(), "the stored message replaced the stream");
    assert_eq!(d.execute("return window.__streamedMotd"), json!(true), "the answer was shown while it streamed");
    let calls = d.wait_until("[data-testid=tool-call]", STEP, |t| t.iter().any(|c| c.contains("run (pve1)")));
    assert!(calls.iter().any(|(_, c)| c.contains("completed")), "{calls:?}");
    // The entity it touched is in the panel's graph.
    d.wait_until("[data-testid=ctx-entity]", STEP, |t| t.iter().any(|s| s.contains(&target)));

    let detail = rt.block_on(ours.engine().task_detail(&task)).unwrap();
    assert_eq!(detail.task.status, TaskStatus::Done);
    assert_eq!(detail.executions.len(), 1, "{:?}", detail.executions);
    let x = &detail.executions[0];
    assert_eq!((x.status.as_str(), x.exit_code, x.target.as_str()), ("completed", Some(0), target.as_str()));
    assert!(detail.questions.is_empty(), "no question was asked: {:?}", detail.questions);
    assert!(rt.block_on(ours.actuator().pending_approvals()).unwrap().is_empty(), "nothing waited for approval");
    assert_eq!(std::fs::read_to_string(&marks).unwrap(), "hello\n", "the change ran once on the host");
    assert_eq!(server.remaining(), 0, "the model was asked exactly as scripted");

    let shot = artifacts_dir().join("oikos-task-view.png");
    d.screenshot(&shot);
    eprintln!("screenshot: {}", shot.display());

    // The board shows it done, counted in its column.
    let nav = d.wait_until("[data-testid=nav-tasks]", STEP, |_| true);
    d.click(&nav[0].0);
    d.wait_until("[data-testid=task-status]", STEP, |t| t.len() == 1 && t[0] == "done: success");
    d.wait_until("[data-testid=count-done]", STEP, |t| t[0] == "1");
    d.wait_until("[data-testid=count-needs_you]", STEP, |t| t[0] == "0");
    d.wait_until("[data-testid=task-summary]", STEP, |t| t[0] == "The motd says hello.");
    let shot = artifacts_dir().join("oikos-task-board.png");
    d.screenshot(&shot);
    eprintln!("screenshot: {}", shot.display());

    // Delete asks for a second click. Armed, it stays armed while the board is redrawn (another
    // process adds a task), and a press anywhere else disarms it.
    let delete = d.wait_until("[data-testid=task-delete]", STEP, |_| true);
    d.click(&delete[0].0);
    d.wait_until("[data-testid=task-delete]", STEP, |t| t[0] == "Click again to delete");
    let other = rt.block_on(ours.engine().create_task("another task", "")).unwrap();
    d.wait_until("[data-testid=task-row]", STEP, |t| t.len() == 2);
    let ours_delete = format!("[data-task-id='{task}'] [data-testid=task-delete]");
    d.wait_until(&ours_delete, STEP, |t| t[0] == "Click again to delete");
    let summary = d.wait_until("[data-testid=task-summary]", STEP, |_| true);
    d.click(&summary[0].0);
    d.wait_until("[data-testid=task-delete]", STEP, |t| t.iter().all(|s| s == "Delete"));
    let delete = d.wait_until(&ours_delete, STEP, |_| true);
    d.click(&delete[0].0);
    d.wait_until(&ours_delete, STEP, |t| t[0] == "Click again to delete");
    d.click(&delete[0].0);
    d.wait_until("[data-testid=task-row]", STEP, |t| t.len() == 1);
    assert!(rt.block_on(ours.engine().task(&task)).is_err(), "the task is gone");
    assert!(rt.block_on(ours.engine().task(&other.id)).is_ok(), "only that task");
    rt.block_on(ours.close());
}

#[test]
fn without_a_provider_a_new_task_points_to_settings() {
    let _one = ONE_APP.lock().unwrap_or_else(|e| e.into_inner());
    let app = PathBuf::from(env!("CARGO_BIN_EXE_oikos"));
    // An empty base URL is no provider, whatever the environment running the tests holds.
    let Some(desktop) = Desktop::start(&app, &[("NOMOS_LLM_BASE_URL", ""), ("NOMOS_API_KEY", "")]) else { return };
    let d = &desktop.d;
    // A first run: the goal is the walkthrough's third step, opened directly.
    let goal = d.wait_until("[data-testid=first-run-step][data-step=goal] [data-testid=step-title]", STARTUP, |_| true);
    d.click(&goal[0].0);
    let input = d.wait_until("[data-testid=new-task-input]", STEP, |_| true);
    d.type_into(&input[0].0, "check the backups");
    let start = d.wait_until("[data-testid=new-task-submit]", STEP, |t| t[0] == "New task");
    d.click(&start[0].0);
    let error = d.wait_until("[data-testid=command-error]", STEP, |t| t[0].contains("no model provider"));
    assert!(error[0].1.contains("Configure a provider in Settings"), "{}", error[0].1);
    assert!(!d.find_all("[data-testid=command-error][data-code=no_provider] [data-testid=to-settings]").is_empty());
    assert_eq!(d.path(), "/tasks", "nothing was started");
    assert!(d.find_all("[data-testid=task-row]").is_empty(), "no task was recorded");
}

/// The inline card of `approval` in the task view.
fn inline_card(approval: &str) -> String {
    format!("[data-testid=task-view] [data-testid=approval-cards] [data-testid=approval-card][data-approval-id='{approval}']")
}

/// The hosts in the task panel's graph that are highlighted as touched (`data-hot`), once they are
/// exactly `hot` (sorted).
fn wait_hot(d: &Driver, hot: &[&str]) {
    let script = "return Array.from(document.querySelectorAll('[data-testid=ctx-entity][data-hot=true]')).map(e => e.dataset.slug)";
    let deadline = Instant::now() + STEP;
    loop {
        let mut shown: Vec<String> = serde_json::from_value(d.execute(script)).unwrap();
        shown.sort();
        if shown == hot {
            return;
        }
        assert!(Instant::now() < deadline, "highlighted {shown:?}, expected {hot:?}");
        std::thread::sleep(Duration::from_millis(150));
    }
}

/// The one approval of `task` waiting, once it is there.
fn waiting_approval(lab: &TaskLab, task: &str) -> nomos::types::Approval {
    let deadline = Instant::now() + STEP;
    loop {
        let pending = lab.rt.block_on(lab.ours.actuator().pending_approvals()).unwrap();
        let mine: Vec<_> = pending.into_iter().filter(|a| a.task_id.as_deref() == Some(task)).collect();
        if let [one] = mine.as_slice() {
            return one.clone();
        }
        assert!(Instant::now() < deadline, "task {task} has no one approval waiting: {mine:?}");
        std::thread::sleep(Duration::from_millis(150));
    }
}

#[test]
fn a_destructive_step_waits_for_its_inline_card_in_the_task_view() {
    let _one = ONE_APP.lock().unwrap_or_else(|e| e.into_inner());
    // Two hosts: approving a destructive command opens the task's destructive window on that
    // target only, so the second removal, on the other host, asks again.
    let Some(lab) = TaskLab::start(2, |dir, hosts| {
        let (a, b) = (dir.join("scratch-a"), dir.join("scratch-b"));
        let plan = json!({"steps": [
            {"title": "remove scratch-a", "target": hosts[0]},
            {"title": "remove scratch-b", "target": hosts[1]},
        ]});
        let rm = |target: &str, path: &Path, purpose: &str| json!({"target": target, "command": format!("rm -rf '{}'", path.display()), "purpose": purpose});
        let check = json!({"target": hosts[0], "command":
            format!("test ! -e '{}' && test ! -e '{}'", a.display(), b.display()), "purpose": "check both are gone"});
        Script::new(vec![
            Step::tool_calls(vec![ScriptedCall::new("propose_plan", plan)]),
            Step::tool_calls(vec![ScriptedCall::new("run", rm(&hosts[0], &a, "remove scratch-a")).with_id("rm-a")]),
            Step::tool_calls(vec![
                ScriptedCall::new("update_plan_step", json!({"seq": 1, "status": "done"})),
                ScriptedCall::new("run", rm(&hosts[1], &b, "remove scratch-b")).with_id("rm-b"),
            ]),
            Step::tool_calls(vec![
                ScriptedCall::new("update_plan_step", json!({"seq": 2, "status": "done"})),
                ScriptedCall::new("run", check).with_id("check"),
            ]),
            Step::tool_calls(vec![ScriptedCall::new(
                "complete_task",
                json!({"outcome": "success", "summary": "Both scratch dirs are gone.", "evidence": ["check"]}),
            )]),
        ])
    }) else {
        return;
    };
    let d = &lab.desktop.d;
    let (a, b) = (lab.tmp.path().join("scratch-a"), lab.tmp.path().join("scratch-b"));
    for dir in [&a, &b] {
        std::fs::create_dir_all(dir.join("sub")).unwrap();
        std::fs::write(dir.join("sub/file"), "x").unwrap();
    }
    let task = lab.new_task("Remove the scratch dirs on pve1 and pve2");
    d.wait_until("[data-testid=task-view-status]", STEP, |t| t[0] == "waiting: plan");
    // The plan named both hosts.
    wait_hot(d, &["host:pve1", "host:pve2"]);
    let approve_plan = d.wait_until("[data-testid=approve-plan]", STEP, |_| true);
    d.click(&approve_plan[0].0);

    // The removal waits for its card, inline in the task view.
    d.wait_until("[data-testid=task-view-status]", STEP, |t| t[0] == "waiting: approval");
    let first = waiting_approval(&lab, &task);
    assert_eq!(first.risk, Risk::Destructive, "{first:?}");
    let phrase = first.confirmation.clone().expect("a destructive approval names its confirmation");
    let card = inline_card(&first.id);
    // The panel's graph highlights what the latest call touched: the host the removal asked for.
    wait_hot(d, &["host:pve1"]);
    d.wait_until("[data-testid=ctx-entity]", STEP, |t| t.len() == 2);
    d.wait_until("[data-testid=ctx-task-node] text", STEP, |t| t[0] == "Remove the scratch dirs…");
    let shown = d.wait_until(&format!("{card} [data-testid=approval-command]"), STEP, |_| true);
    assert_eq!(shown[0].1, format!("rm -rf '{}'", a.display()));
    assert!(a.exists(), "nothing ran before the approval");
    let approve = format!("{card} [data-testid=approval-approve]");
    assert!(is_disabled(d, &approve), "Approve is disabled before anything is typed");
    let field = d.wait_until(&format!("{card} [data-testid=approval-confirm]"), STEP, |_| true);
    // Naming the other host is wrong.
    let wrong = phrase.replace("pve1", "pve2");
    assert_ne!(wrong, phrase);
    d.type_into(&field[0].0, &wrong);
    std::thread::sleep(Duration::from_millis(800));
    assert!(is_disabled(d, &approve), "a wrong confirmation `{wrong}` does not enable Approve");
    // What is typed outlives the task view's re-reads: another task, started meanwhile, re-reads it.
    lab.rt.block_on(lab.ours.engine().create_task("meanwhile", "")).unwrap();
    d.wait_until(".live", STEP, |t| t[0].contains("task.created"));
    std::thread::sleep(Duration::from_millis(800));
    let typed = d.execute(&format!("return document.querySelector(\"{card} [data-testid=approval-confirm]\").value"));
    assert_eq!(typed.as_str(), Some(wrong.as_str()), "the card lost what was typed");
    let field = d.wait_until(&format!("{card} [data-testid=approval-confirm]"), STEP, |_| true);
    let shot = artifacts_dir().join("oikos-task-inline-approval.png");
    d.screenshot(&shot);
    eprintln!("screenshot: {}", shot.display());
    d.type_into(&field[0].0, &"\u{E003}".repeat(wrong.len()));
    d.type_into(&field[0].0, &phrase);
    let deadline = Instant::now() + STEP;
    while is_disabled(d, &approve) {
        assert!(Instant::now() < deadline, "the right confirmation `{phrase}` did not enable Approve");
        std::thread::sleep(Duration::from_millis(150));
    }
    d.click(&d.wait_until(&approve, STEP, |_| true)[0].0);
    gone(d, &card, STEP);
    let deadline = Instant::now() + STEP;
    while a.exists() {
        assert!(Instant::now() < deadline, "the approved removal did not run on pve1");
        std::thread::sleep(Duration::from_millis(150));
    }

    // The task goes on by itself to the second removal, whose card is decided outside the app:
    // with the command line on the app's database. The card clears itself.
    let second = {
        let deadline = Instant::now() + STEP;
        loop {
            let next = waiting_approval(&lab, &task);
            if next.id != first.id {
                break next;
            }
            assert!(Instant::now() < deadline, "no second approval");
            std::thread::sleep(Duration::from_millis(150));
        }
    };
    let card = inline_card(&second.id);
    d.wait_until(&format!("{card} [data-testid=approval-command]"), STEP, |t| t[0].contains("scratch-b"));
    d.wait_until("[data-testid=plan-step]", STEP, |t| t[0].starts_with("done"));
    wait_hot(d, &["host:pve2"]);
    let cli = PathBuf::from(env!("CARGO_BIN_EXE_oikos")).with_file_name("nomos");
    assert!(cli.is_file(), "{} is missing: build the CLI first (`cargo build -p nomos-cli`)", cli.display());
    let approved = std::process::Command::new(&cli)
        .arg("--db")
        .arg(&lab.desktop.db)
        .args(["approvals", "approve", &second.id, "--no-continue", "--confirm"])
        .arg(second.confirmation.as_deref().unwrap())
        .env("HOME", lab.desktop.home.path())
        .env("USER", "e2e-cli")
        .output()
        .unwrap();
    assert!(approved.status.success(), "{}", String::from_utf8_lossy(&approved.stderr));
    assert!(!b.exists(), "the removal approved from the command line ran on pve2");
    gone(d, &card, STEP);

    // The app continues the task: the check runs and the task is done.
    d.wait_until("[data-testid=task-view-status]", STEP, |t| t[0] == "done: success");
    d.wait_until("[data-testid=plan-progress]", STEP, |t| t[0] == "2/2");
    d.wait_until("[data-testid=ctx-summary]", STEP, |t| t[0] == "Both scratch dirs are gone.");
    assert!(d.find_all("[data-testid=approval-card]").is_empty(), "no card is left");
    let detail = lab.rt.block_on(lab.ours.engine().task_detail(&task)).unwrap();
    assert_eq!(detail.task.status, TaskStatus::Done);
    let ran: Vec<_> = detail.executions.iter().map(|x| (x.command.as_str(), x.status.as_str(), x.exit_code)).collect();
    assert_eq!(ran.len(), 3, "{ran:?}");
    assert!(ran.iter().all(|(_, s, c)| *s == "completed" && *c == Some(0)), "{ran:?}");
    assert_eq!(ran.iter().filter(|(c, _, _)| c.starts_with("rm -rf")).count(), 2, "{ran:?}");
    assert_eq!(lab.server.remaining(), 0, "the model was asked exactly as scripted");
    lab.close();
}

#[test]
fn stop_ends_the_turn_and_kills_its_command_on_the_host() {
    let _one = ONE_APP.lock().unwrap_or_else(|e| e.into_inner());
    let marker = format!("stop-e2e-{}", std::process::id());
    // A sleep of its own length, so that only it matches on this machine.
    let sleep = format!("sleep 30.{}", std::process::id());
    let long = format!("echo {marker}-start; {sleep}; echo {marker}-end");
    let command = long.clone();
    let Some(lab) = TaskLab::start(1, move |_, hosts| {
        let wait = json!({"target": hosts[0], "command": command, "purpose": "wait a while"});
        Script::new(vec![Step::tool_calls(vec![ScriptedCall::new("run", wait).with_id("wait")])])
    }) else {
        return;
    };
    let d = &lab.desktop.d;
    let task = lab.new_task("Wait half a minute on pve1");

    // Read-only: it runs without asking, and the turn waits for it.
    d.wait_until("[data-testid=tool-call]", STEP, |t| {
        t.iter().any(|c| c.contains("run (pve1)") && c.contains("running"))
    });
    let deadline = Instant::now() + STEP;
    while !pgrep(&format!("{marker}-start")) {
        assert!(Instant::now() < deadline, "the command does not run on the host");
        std::thread::sleep(Duration::from_millis(150));
    }
    let stop = d.wait_until("[data-testid=task-stop]", STEP, |t| t[0] == "Stop");
    d.click(&stop[0].0);

    // The task ends cancelled, as the engine defines a stopped turn; Stop is gone with the turn.
    d.wait_until("[data-testid=task-view-status]", STEP, |t| t[0] == "cancelled");
    gone(d, "[data-testid=task-stop]", STEP);
    d.wait_until("[data-testid=ctx-summary]", STEP, |t| t[0] == "cancelled by the operator");
    // The host it worked on is in the panel's graph around the task, labelled with its title.
    d.wait_until("[data-testid=ctx-entity]", STEP, |t| t.len() == 1 && t[0].contains("host:pve1"));
    d.wait_until("[data-testid=ctx-task-node] title", STEP, |t| t[0] == "Wait half a minute on pve1");
    d.wait_until("[data-testid=ctx-task-node] text", STEP, |t| t[0] == "Wait half a minute on p…");
    let detail = lab.rt.block_on(lab.ours.engine().task_detail(&task)).unwrap();
    assert_eq!(detail.task.status, TaskStatus::Cancelled, "{:?}", detail.task);
    let x = &detail.executions[..];
    assert_eq!(x.len(), 1, "{x:?}");
    assert_eq!((x[0].command.as_str(), x[0].status.as_str()), (long.as_str(), "cancelled"));
    // Nothing of it keeps running on the host.
    let deadline = Instant::now() + Duration::from_secs(10);
    while pgrep(&format!("{marker}-start")) {
        assert!(Instant::now() < deadline, "the stopped command still runs on the host");
        std::thread::sleep(Duration::from_millis(200));
    }
    assert!(!pgrep(&sleep), "its `{sleep}` still runs on the host");
    let shot = artifacts_dir().join("oikos-task-stopped.png");
    d.screenshot(&shot);
    eprintln!("screenshot: {}", shot.display());
    assert_eq!(lab.server.remaining(), 0, "the model was asked once");

    // The board counts it.
    let nav = d.wait_until("[data-testid=nav-tasks]", STEP, |_| true);
    d.click(&nav[0].0);
    d.wait_until("[data-testid=task-status]", STEP, |t| t.len() == 1 && t[0].starts_with("cancelled"));
    lab.close();
}

#[test]
fn an_option_of_the_operator_question_is_the_reply_the_task_goes_on_with() {
    let _one = ONE_APP.lock().unwrap_or_else(|e| e.into_inner());
    let Some(lab) = TaskLab::start(1, |_, _| {
        let ask = json!({"prompt": "Keep the old backups or prune them?", "options": ["keep", "prune to 7"]});
        Script::new(vec![
            Step::tool_calls(vec![ScriptedCall::new("ask_operator", ask)]),
            Step::text("Pruning to 7 it is: nothing else to do here."),
        ])
    }) else {
        return;
    };
    let d = &lab.desktop.d;
    let task = lab.new_task("Tidy the backups on pve1");

    // The question, with its options and a field for an answer in other words.
    d.wait_until("[data-testid=task-view-status]", STEP, |t| t[0] == "waiting: answer");
    d.wait_until("[data-testid=ctx-question] p", STEP, |t| t[0] == "Keep the old backups or prune them?");
    assert!(!d.find_all("[data-testid=question-answer]").is_empty(), "free text can answer too");
    let options = d.wait_until("[data-testid=question-option]", STEP, |t| t.len() == 2);
    let texts: Vec<&str> = options.iter().map(|(_, t)| t.as_str()).collect();
    assert_eq!(texts, ["keep", "prune to 7"]);
    let shot = artifacts_dir().join("oikos-task-question.png");
    d.screenshot(&shot);
    eprintln!("screenshot: {}", shot.display());
    d.click(&options[1].0);

    // The option is the operator's reply: in the conversation, and in what the model reads next.
    d.wait_until("[data-testid=msg-user]", STEP, |t| t.len() == 2 && t[1] == "prune to 7");
    d.wait_until("[data-testid=task-view-status]", STEP, |t| t[0] == "done: success");
    gone(d, "[data-testid=ctx-question]", STEP);
    d.wait_until("[data-testid=msg-nomos]", STEP, |t| t.iter().any(|m| m.starts_with("Pruning to 7")));
    let requests = lab.server.requests();
    assert_eq!(requests.len(), 2, "{requests:?}");
    let last_user = requests[1]["messages"]
        .as_array()
        .unwrap()
        .iter()
        .rev()
        .find(|m| m["role"] == "user")
        .map(|m| m["content"].clone())
        .unwrap();
    assert!(last_user.as_str().is_some_and(|c| c.contains("prune to 7")), "the model read: {last_user}");
    let detail = lab.rt.block_on(lab.ours.engine().task_detail(&task)).unwrap();
    assert_eq!(detail.task.status, TaskStatus::Done, "{:?}", detail.task);
    assert!(detail.questions.iter().all(|q| q.status != QuestionStatus::Open), "{:?}", detail.questions);
    lab.close();
}

#[test]
fn the_keyboard_moves_through_the_board_and_slash_searches_knowledge() {
    let _one = ONE_APP.lock().unwrap_or_else(|e| e.into_inner());
    let app = PathBuf::from(env!("CARGO_BIN_EXE_oikos"));
    let Some(desktop) = Desktop::start(&app, &[]) else { return };
    let d = &desktop.d;
    // A fresh database: the first run's walkthrough until there are tasks.
    d.wait_until("[data-testid=first-run]", STARTUP, |_| true);
    // Three tasks, written by another process; the board shows them live.
    let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    let engine = rt.block_on(nomos::Engine::open(&desktop.db)).unwrap();
    for title in ["check the backups", "update pve1", "rotate the logs"] {
        rt.block_on(engine.create_task(title, "")).unwrap();
    }
    d.wait_until("[data-testid=task-row]", STEP, |t| t.len() == 3);
    let order =
        d.execute("return Array.from(document.querySelectorAll('[data-testid=task-row]')).map(r => r.dataset.taskId)");
    let order: Vec<String> = serde_json::from_value(order).unwrap();
    let selected = "[data-testid=task-row].selected";
    assert!(d.find_all(selected).is_empty(), "nothing is selected at first");

    // Typing in the new task's field is text, not movement.
    let input = d.wait_until("[data-testid=new-task-input]", STEP, |_| true);
    d.type_into(&input[0].0, "jj");
    std::thread::sleep(Duration::from_millis(300));
    assert!(d.find_all(selected).is_empty(), "j typed into a field moved the selection");
    d.execute("document.activeElement.blur()");

    // j, j, down, k: the second row; Enter opens it.
    d.press("jj\u{E015}k");
    let row = d.wait_until(selected, STEP, |t| t.len() == 1);
    let id = d.execute(&format!("return document.querySelector(\"{selected}\").dataset.taskId"));
    assert_eq!(id.as_str(), Some(order[1].as_str()), "rows {order:?}; selected {row:?}");
    d.press("\u{E007}");
    d.wait_until("[data-testid=task-view]", STEP, |_| true);
    assert_eq!(d.path(), format!("/tasks/{}", order[1]));

    // `/` on Knowledge goes to its search.
    let nav = d.wait_until("[data-testid=nav-knowledge]", STEP, |_| true);
    d.click(&nav[0].0);
    d.wait_until("[data-testid=knowledge-search]", STEP, |_| true);
    let focused = "return document.activeElement && document.activeElement.dataset.testid";
    assert_ne!(d.execute(focused).as_str(), Some("knowledge-search"));
    d.press("/");
    let deadline = Instant::now() + STEP;
    while d.execute(focused).as_str() != Some("knowledge-search") {
        assert!(Instant::now() < deadline, "`/` did not focus the search");
        std::thread::sleep(Duration::from_millis(150));
    }
    let value = d.execute("return document.activeElement.value");
    assert_eq!(value.as_str(), Some(""), "the `/` itself is not typed into the search");
    rt.block_on(engine.store().close());
}

#[test]
fn every_page_follows_the_dark_system_theme() {
    let _one = ONE_APP.lock().unwrap_or_else(|e| e.into_inner());
    let app = PathBuf::from(env!("CARGO_BIN_EXE_oikos"));
    // The system's dark theme, as GTK (and so WebKitGTK's `prefers-color-scheme`) reads it.
    let Some(desktop) = Desktop::start(&app, &[("GTK_THEME", "Adwaita:dark")]) else { return };
    let d = &desktop.d;
    d.wait_until("[data-testid=task-board]", STARTUP, |_| true);
    let dark = d.execute("return matchMedia('(prefers-color-scheme: dark)').matches");
    assert_eq!(dark.as_bool(), Some(true), "the webview does not see the dark theme");
    let colour = |css: &str, prop: &str| -> String {
        let script = format!("return getComputedStyle(document.querySelector(\"{css}\")).getPropertyValue('{prop}')");
        d.execute(&script).as_str().unwrap_or_default().to_string()
    };
    for page in ["tasks", "approvals", "operations", "graph", "entities", "knowledge", "settings"] {
        let nav = d.wait_until(&format!("[data-testid=nav-{page}]"), STEP, |_| true);
        d.click(&nav[0].0);
        d.wait_until("main.content > *", STEP, |_| true);
        std::thread::sleep(Duration::from_millis(500));
        // The dark palette's background and ink, not the light ones.
        assert_eq!(colour(":root", "background-color"), "rgb(21, 26, 25)", "{page}");
        assert_eq!(colour(".topbar", "background-color"), "rgb(29, 36, 35)", "{page}");
        assert_eq!(colour(".topbar", "color"), "rgb(228, 232, 230)", "{page}");
        let shot = artifacts_dir().join(format!("oikos-dark-{page}.png"));
        d.screenshot(&shot);
        eprintln!("screenshot: {}", shot.display());
    }
}
