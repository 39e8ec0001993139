//! One plan approval: the operator's message to a task that waits for its plan or an approval,
//! read as a decision through the real gate, with a scripted model, real SQLite and the lab.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use nomos::agent::chat::ChatResponse;
use nomos::agent::tools::{Registry, RegistryConfig};
use nomos::agent::turn::{run_turn, GatedTools, TurnConfig, TurnEnd};
use nomos::agent::{receive_operator_message, send_message};
use nomos::types::{ApprovalStatus, Channel, ExecutionStatus, WaitingFor};
use serde_json::json;
use tokio_util::sync::CancellationToken;

mod support;

use support::agent::{call, text, ScriptedModel};
use support::*;

fn plan() -> ChatResponse {
    call("propose_plan", json!({"steps": [{"title": "append to the marks file", "target": "host:pve1"}]}))
}

fn run(command: &str) -> ChatResponse {
    call("run", json!({"target": "host:pve1", "command": command, "purpose": "the plan's step"}))
}

fn tools(w: &World) -> GatedTools {
    GatedTools { registry: Registry::new(RegistryConfig::default()), actuator: w.act.clone() }
}

fn config() -> TurnConfig {
    TurnConfig { max_iterations: 8, ..TurnConfig::default() }
}

async fn say(w: &World, model: &ScriptedModel, task: Option<&str>, message: &str) -> (String, TurnEnd) {
    let (t, end) =
        send_message(&w.engine, model, &tools(w), &config(), task, message, &CancellationToken::new()).await.unwrap();
    (t.id, end)
}

/// The task's approvals still waiting.
async fn pending(w: &World, task: &str) -> Vec<nomos::types::Approval> {
    w.act.pending_approvals().await.unwrap().into_iter().filter(|a| a.task_id.as_deref() == Some(task)).collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn assent_to_the_plan_opens_the_window_and_the_plan_runs_without_asking_again() {
    let w = World::default(2).await;
    let marks = q(&w.marks("a"));
    let model = ScriptedModel::new(vec![
        plan(),
        plan(),
        run(&format!("echo one >> {marks}")),
        text("Appended one line to the marks file."),
    ]);
    let (task, end) = say(&w, &model, None, "append a line to the marks file on pve1").await;
    assert_eq!(end, TurnEnd::Waiting(WaitingFor::Plan));
    let (other, _) = say(&w, &model, None, "the same on another task").await;

    let (same, end) = say(&w, &model, Some(&task), "looks good, go ahead").await;
    assert_eq!(same, task);
    assert_eq!(end, TurnEnd::Waiting(WaitingFor::Message), "the model reported in text");
    assert_eq!(w.read_marks("a"), ["one"], "the plan's change ran within the same turn");
    assert!(pending(&w, &task).await.is_empty(), "nothing was asked again");

    let windows = w.act.open_windows().await.unwrap();
    assert_eq!(windows.len(), 1, "{windows:?}");
    assert_eq!((windows[0].task_id.as_str(), windows[0].channel), (task.as_str(), Channel::Chat));

    let x = w.act.executions(Some(&task), None, 10).await.unwrap();
    assert_eq!(x.len(), 1);
    assert_eq!(x[0].status, ExecutionStatus::Completed);
    assert_eq!(x[0].granted_by.as_deref(), Some(format!("window:{}", windows[0].id).as_str()));
    assert_eq!(w.act.grant_message(&x[0]).await.unwrap().as_deref(), Some("looks good, go ahead"));

    // The window is the task's own: the other task's change still waits for the operator.
    queued(w.run("host:pve1", &format!("echo other >> {marks}"), Some(&other)).await);
    assert_eq!(w.read_marks("a"), ["one"]);
}

/// A plan of two steps, each with its target and command: a reply is judged against both.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_reply_approves_the_plan_only_when_it_answers_all_of_it() {
    let w = World::default(1).await;
    let steps = json!({"steps": [
        {"title": "restart the proxy", "target": "host:pve1", "command": "systemctl restart caddy"},
        {"title": "stop and remove the app guest", "target": "lxc:app", "command": "pct stop 130 && pct destroy 130"},
    ]});
    let model = ScriptedModel::new(vec![call("propose_plan", steps)]);
    let (task, end) = say(&w, &model, None, "restart caddy on pve1 and remove the app guest").await;
    assert_eq!(end, TurnEnd::Waiting(WaitingFor::Plan));
    let plan = w.engine.plan(&task).await.unwrap();
    assert_eq!(plan[1].command.as_deref(), Some("pct stop 130 && pct destroy 130"), "the step keeps its command");
    // One target of two, another action, a lesser action of a compound step, a cut-off reply.
    for message in
        ["yes, for pve1", "ok, rebuild it", "yes, restart and stop them", "go ahead and then", "yes \u{202E}"]
    {
        receive_operator_message(&w.engine, Some(&w.act), Some(&task), message).await.unwrap();
        assert!(w.act.open_windows().await.unwrap().is_empty(), "{message:?} opened a window");
    }
    receive_operator_message(&w.engine, Some(&w.act), Some(&task), "yes, restart and destroy them").await.unwrap();
    assert_eq!(w.act.open_windows().await.unwrap().len(), 1, "a go-ahead naming each step's action opens it");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_question_or_a_condition_opens_nothing() {
    let w = World::default(1).await;
    let model = ScriptedModel::new(vec![plan()]);
    let (task, _) = say(&w, &model, None, "append a line to the marks file on pve1").await;
    for message in ["ok?", "yes once the backup is done", "yes, but wait for the backup", "what does step 1 do"] {
        receive_operator_message(&w.engine, Some(&w.act), Some(&task), message).await.unwrap();
        assert!(w.act.open_windows().await.unwrap().is_empty(), "{message:?} opened a window");
        assert_eq!(w.engine.task(&task).await.unwrap().waiting_for, Some(WaitingFor::Plan));
    }
    queued(w.run("host:pve1", &format!("echo x >> {}", q(&w.marks("a"))), Some(&task)).await);
    assert!(w.read_marks("a").is_empty());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_yes_grants_what_the_last_turn_queued_and_nothing_older() {
    let w = World::default(1).await;
    let marks = q(&w.marks("a"));
    let model = ScriptedModel::new(vec![run(&format!("echo old >> {marks}")), run(&format!("echo new >> {marks}"))]);
    let (task, end) = say(&w, &model, None, "append old to the marks file on pve1").await;
    assert_eq!(end, TurnEnd::Waiting(WaitingFor::Approval));
    let (_, end) = say(&w, &model, Some(&task), "append new instead").await;
    assert_eq!(end, TurnEnd::Waiting(WaitingFor::Approval));
    assert_eq!(pending(&w, &task).await.len(), 2);
    // The second turn's request named the approval still waiting from the first, in its state.
    let second = model.requests()[1].messages[0].content.clone();
    assert!(second.contains("Waiting for the operator's approval: `echo old >> "), "{second}");

    receive_operator_message(&w.engine, Some(&w.act), Some(&task), "yes").await.unwrap();
    assert_eq!(w.read_marks("a"), ["new"], "the last turn's request ran, the older one did not");
    let left = pending(&w, &task).await;
    assert_eq!(left.len(), 1);
    assert!(left[0].command.contains("echo old"), "{left:?}");

    let new = w.act.executions(Some(&task), Some(ExecutionStatus::Completed), 10).await.unwrap();
    assert_eq!(new.len(), 1);
    assert!(new[0].command.contains("echo new"));
    assert_eq!(w.act.grant_message(&new[0]).await.unwrap().as_deref(), Some("yes"));
    let approval = w.act.approval(new[0].granted_by.as_deref().unwrap()).await.unwrap();
    assert_eq!((approval.status, approval.channel), (ApprovalStatus::Approved, Some(Channel::Chat)));
    // The ledger names the operator the same way whether they decided in chat or in the terminal.
    let by = nomos::actuate::Decision::by_operator(Channel::Cli, None).actor;
    assert!(by.starts_with("operator"), "{by}");
    assert_eq!(approval.decided_by.as_deref(), Some(by.as_str()));
    // The model learns what the yes did.
    let notes = nomos::agent::transcript::Transcript::new(&w.engine, &task).messages().await.unwrap();
    assert!(notes.last().unwrap().content.contains(&format!("Approved and run: execution {}", new[0].id)));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_destructive_request_is_granted_by_its_typed_confirmation_never_by_yes() {
    let w = World::default(1).await;
    let victim = w.tmp.path().join("victim");
    std::fs::create_dir_all(victim.join("sub")).unwrap();
    let destroy = format!("rm -rf {}", q(&victim));
    let model = ScriptedModel::new(vec![run(&destroy)]);
    let (task, end) = say(&w, &model, None, "clean up the victim directory on pve1").await;
    assert_eq!(end, TurnEnd::Waiting(WaitingFor::Approval));
    let waiting = pending(&w, &task).await;
    assert_eq!(waiting.len(), 1);
    assert!(waiting[0].requires_confirmation);
    assert_eq!(waiting[0].confirmation.as_deref(), Some("confirm host:pve1"));

    for message in ["yes", "yes, go ahead", "looks good", "confirm pve2"] {
        receive_operator_message(&w.engine, Some(&w.act), Some(&task), message).await.unwrap();
        assert!(victim.exists(), "{message:?} destroyed it");
        assert_eq!(pending(&w, &task).await.len(), 1, "{message:?}");
        if message == "yes" {
            // The model is told what the yes did not do, and the words that would.
            let messages = nomos::agent::transcript::Transcript::new(&w.engine, &task).messages().await.unwrap();
            let note = &messages.last().unwrap().content;
            assert!(note.contains("a yes does not approve it") && note.contains("`confirm host:pve1`"), "{note}");
        }
    }
    receive_operator_message(&w.engine, Some(&w.act), Some(&task), "confirm pve1").await.unwrap();
    assert!(!victim.exists());
    assert!(pending(&w, &task).await.is_empty());
    let x = w.act.executions(Some(&task), None, 10).await.unwrap();
    assert_eq!(x[0].status, ExecutionStatus::Completed);
    assert_eq!(w.act.grant_message(&x[0]).await.unwrap().as_deref(), Some("confirm pve1"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn talking_about_a_waiting_request_keeps_it_waiting_and_its_confirmation_still_grants_it() {
    let w = World::default(1).await;
    let victim = w.tmp.path().join("victim");
    std::fs::create_dir_all(&victim).unwrap();
    let destroy = format!("rm -rf {}", q(&victim));
    let model = ScriptedModel::new(vec![
        run(&destroy),
        text("It removes the leftover build directory; nothing else uses it."),
        text("Removed."),
    ]);
    let (task, end) = say(&w, &model, None, "clean up the victim directory on pve1").await;
    assert_eq!(end, TurnEnd::Waiting(WaitingFor::Approval));

    // The operator asks; the model answers in plain words. The request still waits: the task is
    // not done (it has no plan) and it keeps waiting for the decision.
    let (_, end) = say(&w, &model, Some(&task), "why is that needed?").await;
    assert_eq!(end, TurnEnd::Waiting(WaitingFor::Approval));
    let t = w.engine.task(&task).await.unwrap();
    assert_eq!(t.waiting_for, Some(WaitingFor::Approval), "{t:?}");
    assert!(victim.exists());

    // The typed confirmation after the talk grants the request of the turn that made it.
    let (_, end) = say(&w, &model, Some(&task), "confirm pve1").await;
    assert!(!victim.exists(), "the confirmed request ran");
    assert!(pending(&w, &task).await.is_empty());
    assert_eq!(end, TurnEnd::Ended(nomos::types::TaskStatus::Done));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn the_button_approves_like_a_yes_from_the_ui_and_leaves_destructive_requests_to_their_confirmation() {
    let w = World::default(1).await;
    let marks = q(&w.marks("a"));
    let victim = w.tmp.path().join("victim");
    std::fs::create_dir_all(&victim).unwrap();
    let model = ScriptedModel::new(vec![run(&format!("echo one >> {marks}")), run(&format!("rm -rf {}", q(&victim)))]);
    let (task, end) = say(&w, &model, None, "append one, then remove the victim directory").await;
    assert_eq!(end, TurnEnd::Waiting(WaitingFor::Approval));

    let granted = nomos::agent::assent::approve_plan(&w.engine, &w.act, &task).await.unwrap();
    assert_eq!(granted.executions.len(), 1, "{granted:?}");
    assert_eq!(w.read_marks("a"), ["one"]);
    assert!(pending(&w, &task).await.is_empty());
    let windows = w.act.open_windows().await.unwrap();
    assert!(windows.iter().all(|x| x.task_id == task && x.channel == Channel::Ui), "{windows:?}");
    assert!(windows.iter().any(|x| Some(&x.id) == granted.window.as_ref()));
    // A button says no words: the grant is the operator's, with none to keep.
    let x = w.act.execution(&granted.executions[0].id).await.unwrap();
    assert_eq!(w.act.grant_message(&x).await.unwrap(), None);

    // The turn goes on; its destructive step asks again, and the button does not confirm it.
    let end = run_turn(&w.engine, &model, &tools(&w), &config(), &task, &CancellationToken::new()).await.unwrap();
    assert_eq!(end, TurnEnd::Waiting(WaitingFor::Approval));
    let granted = nomos::agent::assent::approve_plan(&w.engine, &w.act, &task).await.unwrap();
    assert!(granted.executions.is_empty(), "{granted:?}");
    assert!(victim.exists(), "the button never confirms a destructive command");
    let left = pending(&w, &task).await;
    assert!(left.len() == 1 && left[0].requires_confirmation, "{left:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn while_autonomy_is_paused_a_yes_opens_no_window_and_the_model_is_told_why() {
    let w = World::default(1).await;
    let model = ScriptedModel::new(vec![plan()]);
    let (task, _) = say(&w, &model, None, "append a line to the marks file on pve1").await;
    w.act.set_paused(true, &operator()).await.unwrap();
    receive_operator_message(&w.engine, Some(&w.act), Some(&task), "yes, go ahead").await.unwrap();
    assert!(w.act.open_windows().await.unwrap().is_empty());
    let messages = nomos::agent::transcript::Transcript::new(&w.engine, &task).messages().await.unwrap();
    let note = &messages.last().unwrap().content;
    assert!(note.contains("the assent window did not open") && note.contains("autonomy is paused"), "{note}");
    queued(w.run("host:pve1", &format!("echo x >> {}", q(&w.marks("a"))), Some(&task)).await);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_question_about_the_plan_keeps_it_waiting_so_the_yes_after_the_answer_still_approves_it() {
    let w = World::default(1).await;
    let marks = q(&w.marks("a"));
    let model = ScriptedModel::new(vec![
        plan(),
        text("Step 1 appends one line to the marks file on pve1."),
        run(&format!("echo one >> {marks}")),
        text("Done: one line appended."),
    ]);
    let (task, _) = say(&w, &model, None, "append a line to the marks file on pve1").await;
    let (_, end) = say(&w, &model, Some(&task), "what does step 1 do?").await;
    assert_eq!(end, TurnEnd::Waiting(WaitingFor::Plan), "an answer in text leaves the plan waiting");
    assert!(w.act.open_windows().await.unwrap().is_empty());

    let (_, end) = say(&w, &model, Some(&task), "ok, go ahead").await;
    assert_eq!(end, TurnEnd::Waiting(WaitingFor::Message), "once approved, text waits for the next message");
    assert_eq!(w.read_marks("a"), ["one"]);
    assert!(pending(&w, &task).await.is_empty());
}
