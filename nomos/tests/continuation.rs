//! A task resumes by itself when an execution it waits on ends: approved (exactly once, even with
//! two runtimes racing on one database), denied, or a background action finishing. And one task's
//! long command never holds up another task. Real SQLite file, real sshd (the lab), the real
//! provider client against the scripted provider (the stand-in for the language model).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod support;

use std::time::{Duration, Instant};

use nomos::actuate::ActuateConfig;
use nomos::agent::provider::{Provider, ProviderConfig};
use nomos::agent::transcript::Transcript;
use nomos::agent::turn::TurnEnd;
use nomos::types::{Channel, ExecutionStatus, TaskStatus, WaitingFor};
use nomos::Runtime;
use nomos_scripted_provider::{Script, ScriptedCall, ScriptedProvider, Step};
use serde_json::{json, Value};
use support::*;

fn provider(server: &ScriptedProvider) -> Provider {
    Provider::new(ProviderConfig::new(server.base_url(), "scripted")).unwrap()
}

/// A runtime on the world's database whose agent talks to `server`.
async fn with_provider(rt: &Runtime, server: &ScriptedProvider) {
    assert!(rt.agent().use_provider(provider(server)));
}

/// The `run` call that leaves a mark on pve1: a change, so it waits for the operator.
fn mark_call(w: &World) -> ScriptedCall {
    let command = format!("echo x >> {}", q(&w.marks("m")));
    ScriptedCall::new("run", json!({"target": "host:pve1", "command": command, "purpose": "leave a mark"}))
        .with_id("call_mark")
}

/// A task whose turn queued the mark for approval: (task, approval id, execution id).
async fn waiting_on_the_mark(w: &World) -> (String, String, String) {
    let (task, end) = w.rt.agent().send(None, "leave a mark on pve1").await.unwrap();
    assert_eq!(end, TurnEnd::Waiting(WaitingFor::Approval), "{task:?}");
    let pending = w.act.pending_approvals().await.unwrap();
    assert_eq!(pending.len(), 1);
    assert_eq!(pending[0].task_id.as_deref(), Some(task.id.as_str()));
    (task.id, pending[0].id.clone(), pending[0].execution_id.clone())
}

/// The notes in a request that tell the model how `execution` ended.
fn told(request: &Value, execution: &str) -> Vec<String> {
    request["messages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["content"].as_str().unwrap_or_default().to_string())
        .filter(|c| c.contains(&format!("Execution {execution} ")) && c.contains(" ended: "))
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn an_approved_execution_resumes_its_task_exactly_once_with_two_runtimes_racing() {
    let w = World::default(1).await;
    let server = ScriptedProvider::start(Script::new(vec![
        Step::tool_calls(vec![mark_call(&w)]),
        Step::text("The mark is there."),
    ]))
    .await
    .unwrap();
    with_provider(&w.rt, &server).await;
    let (task, approval, execution) = waiting_on_the_mark(&w).await;
    // Nothing is due while the operator has not decided.
    assert!(w.rt.agent().continue_ready().await.unwrap().is_empty());

    let x = w.act.approve(&approval, &operator()).await.unwrap();
    assert_eq!(x.status, ExecutionStatus::Completed, "{x:?}");
    // A second process on the same database: both look for due work at the same moment, twice each.
    let other = runtime(&w.tmp.path().join("oikos.db"), ActuateConfig::default(), None).await;
    with_provider(&other, &server).await;
    let (a, b, c, d) = tokio::join!(
        w.rt.agent().continue_ready(),
        other.agent().continue_ready(),
        other.agent().continue_ready(),
        w.rt.agent().continue_ready(),
    );
    let all: Vec<(String, TurnEnd)> = [a, b, c, d].into_iter().flat_map(|r| r.unwrap()).collect();
    assert_eq!(all, [(task.clone(), TurnEnd::Ended(TaskStatus::Done))], "one continuation in all");
    assert!(w.rt.agent().continue_ready().await.unwrap().is_empty());
    assert!(other.agent().continue_ready().await.unwrap().is_empty());

    // The command ran once; the model was asked once more, and told what happened.
    assert_eq!(w.read_marks("m"), ["x"]);
    let requests = server.requests();
    assert_eq!(requests.len(), 2);
    let told = told(&requests[1], &execution);
    assert_eq!(told.len(), 1, "{told:?}");
    assert!(told[0].contains("ended: completed, exit code 0"), "{}", told[0]);
    assert!(told[0].contains("approved by operator:test via ui"), "{}", told[0]);
    let notes = Transcript::new(&w.engine, &task).messages().await.unwrap();
    assert_eq!(notes.iter().filter(|m| m.content.contains(" ended: ")).count(), 1, "noted once");
    let t = w.engine.task(&task).await.unwrap();
    assert_eq!((t.status, t.summary.as_str()), (TaskStatus::Done, "The mark is there."));
    other.close().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_denied_approval_resumes_the_task_with_the_denial_in_its_transcript() {
    let w = World::default(1).await;
    let server = ScriptedProvider::start(Script::new(vec![
        Step::tool_calls(vec![mark_call(&w)]),
        Step::text("Understood: I leave pve1 as it is."),
    ]))
    .await
    .unwrap();
    with_provider(&w.rt, &server).await;
    let (task, approval, execution) = waiting_on_the_mark(&w).await;
    let no = nomos::actuate::Decision {
        actor: "operator:test".into(),
        channel: Channel::Cli,
        message: Some("not on a Friday".into()),
    };
    w.act.deny(&approval, &no).await.unwrap();

    let resumed = w.rt.agent().continue_ready().await.unwrap();
    assert_eq!(resumed, [(task.clone(), TurnEnd::Ended(TaskStatus::Done))]);
    assert!(w.read_marks("m").is_empty(), "a denied command never runs");
    let last = server.requests().pop().unwrap();
    let told = told(&last, &execution);
    assert_eq!(told.len(), 1, "{last}");
    assert!(told[0].contains("ended: denied") && told[0].contains("denied by operator:test via cli"), "{}", told[0]);
    assert!(told[0].contains("do not ask for it again unchanged"), "{}", told[0]);
    let shown = Transcript::new(&w.engine, &task).messages().await.unwrap();
    assert!(shown.iter().any(|m| m.content.contains("denied by operator:test")), "{shown:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_background_pct_create_that_finishes_resumes_its_task_through_the_background_work() {
    let w = World::default(1).await;
    let server = ScriptedProvider::start(Script::new(vec![Step::text("web is created on pve1.")])).await.unwrap();
    with_provider(&w.rt, &server).await;
    let mut continued = w.rt.agent().follow_continued();
    w.rt.start_background();
    let task = w.task("a web container").await;
    let params = json!({"vmid": 150, "hostname": "web", "template": "debian-12", "storage": "local"});
    let asked = curated(&w.act, "host:pve1", "pct_create", params, Some(&task), "a web container").await.unwrap();
    let (execution, approval) = queued(asked.outcome);
    let started = w.act.approve(&approval, &operator()).await.unwrap();
    assert!(matches!(started.status, ExecutionStatus::Running | ExecutionStatus::Completed), "{started:?}");

    let c = tokio::time::timeout(Duration::from_secs(60), continued.recv()).await.expect("continued").unwrap();
    assert_eq!((c.task.id.as_str(), c.end.clone()), (task.as_str(), TurnEnd::Ended(TaskStatus::Done)));
    assert_eq!(w.act.execution(&execution).await.unwrap().status, ExecutionStatus::Completed);
    let requests = server.requests();
    assert_eq!(requests.len(), 1);
    let told = told(&requests[0], &execution);
    assert_eq!(told.len(), 1, "{requests:?}");
    assert!(told[0].contains("`pct create ") && told[0].contains("ended: completed"), "{}", told[0]);
    // Only once: the safety-net scan finds nothing more.
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert!(continued.try_recv().is_err());
    assert_eq!(server.requests().len(), 1);
    w.rt.close().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn one_tasks_long_command_does_not_hold_up_another_tasks_lookups() {
    let w = World::default(1).await;
    let sleep = unique_sleep(10);
    assert_eq!(w.rt.policy().classify(&sleep, None).risk, nomos::types::Risk::ReadOnly);
    let run = json!({"target": "host:pve1", "command": sleep, "purpose": "wait"});
    // The provider answers in the order it is asked: A asks first (then sleeps), B meanwhile, and
    // A last, once its command is over.
    let server = ScriptedProvider::start(Script::new(vec![
        Step::tool_calls(vec![ScriptedCall::new("run", run)]),
        Step::tool_calls(vec![ScriptedCall::new("get_entity", json!({"slug": "host:pve1"}))]),
        Step::tool_calls(vec![ScriptedCall::new("get_relations", json!({"slug": "host:pve1"}))]),
        Step::text("pve1 hosts nothing yet."),
        Step::text("Slept."),
    ]))
    .await
    .unwrap();
    with_provider(&w.rt, &server).await;

    let rt = w.rt.clone();
    let a = tokio::spawn(async move { rt.agent().send(None, "wait ten seconds on pve1").await });
    let a_task = loop {
        if let Some(t) = w.engine.tasks(10).await.unwrap().first() {
            break t.id.clone();
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    };
    let a_execution = first_running(&w.act, Some(&a_task)).await;

    let started = Instant::now();
    let (b, end) = w.rt.agent().send(None, "what does pve1 host?").await.unwrap();
    let took = started.elapsed();
    assert_eq!((b.status, end), (TaskStatus::Done, TurnEnd::Ended(TaskStatus::Done)));
    // B went through its lookups and finished while A's command was still running.
    assert_eq!(w.act.execution(&a_execution).await.unwrap().status, ExecutionStatus::Running);
    assert!(!a.is_finished());
    eprintln!("task B finished in {took:?} while task A's command ran");

    let (a_done, _) = a.await.unwrap().unwrap();
    assert_eq!(a_done.status, TaskStatus::Done);
    assert_eq!(w.act.execution(&a_execution).await.unwrap().status, ExecutionStatus::Completed);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn several_executions_of_one_task_that_end_together_are_handled_by_one_turn() {
    let w = World::default(1).await;
    let server = ScriptedProvider::start(Script::new(vec![Step::text("Both marks are there.")])).await.unwrap();
    with_provider(&w.rt, &server).await;
    let task = w.task("two marks").await;
    let mut executions = Vec::new();
    for name in ["one", "two"] {
        let (x, approval) = queued(w.run("host:pve1", &format!("echo x >> {}", q(&w.marks(name))), Some(&task)).await);
        executions.push((x, approval));
    }
    for (_, approval) in &executions {
        assert_eq!(w.act.approve(approval, &operator()).await.unwrap().status, ExecutionStatus::Completed);
    }
    let resumed = w.rt.agent().continue_ready().await.unwrap();
    assert_eq!(resumed, [(task.clone(), TurnEnd::Ended(TaskStatus::Done))], "one turn for both");
    let requests = server.requests();
    assert_eq!(requests.len(), 1);
    for (x, _) in &executions {
        assert_eq!(told(&requests[0], x).len(), 1, "{x} noted once in the one request");
    }
    assert_eq!((w.read_marks("one"), w.read_marks("two")), (vec!["x".to_string()], vec!["x".to_string()]));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn nomos_never_takes_a_turn_in_an_mcp_session() {
    let w = World::default(1).await;
    // A provider that would answer, so a turn (were one taken) would be seen in its requests.
    let server = ScriptedProvider::start(Script::new(vec![Step::text("I should not be here.")])).await.unwrap();
    with_provider(&w.rt, &server).await;
    let hands = nomos::mcp::Hands::open(w.engine.clone(), w.act.clone(), "claude-code", None, "2.1").await.unwrap();
    let task = hands.session().task_id.clone().unwrap();
    assert_eq!(w.engine.task(&task).await.unwrap().driver.as_deref(), Some("mcp:claude-code"));

    let command = format!("echo x >> {}", q(&w.marks("m")));
    let cancel = tokio_util::sync::CancellationToken::new();
    let asked =
        hands.call("run", json!({"target": "host:pve1", "command": command, "purpose": "mark"}), "c1", &cancel).await;
    let asked = asked.structured.unwrap();
    assert_eq!(asked["status"], "pending_approval", "{asked}");
    assert_eq!(asked["requested_by"], "mcp:claude-code");

    // An MCP client is not an operator: the gate itself refuses its decision.
    let by_client = nomos::actuate::Decision { actor: "mcp:claude-code".into(), channel: Channel::Ui, message: None };
    let approval = asked["approval"]["approval_id"].as_str().unwrap();
    let refused = w.act.approve(approval, &by_client).await.unwrap_err();
    assert!(refused.to_string().contains("only an operator can approve"), "{refused}");

    let x = w.act.approve(approval, &operator()).await.unwrap();
    assert_eq!(x.status, ExecutionStatus::Completed);
    // The ended request is noted in the session's task, but Nomos resumes nothing there …
    assert!(w.rt.agent().continue_ready().await.unwrap().is_empty());
    // … and refuses to take a turn in it when asked.
    let e = w.rt.agent().send(Some(&task), "carry on").await.unwrap_err();
    assert!(e.to_string().contains("nobody reads messages there"), "{e}");
    let e = w.rt.agent().run(&task).await.unwrap_err();
    assert!(e.to_string().contains("Nomos does not act in it"), "{e}");
    assert!(server.requests().is_empty(), "no model request was made for the session's task");
    assert_eq!(w.read_marks("m"), ["x"]);

    // The operator ends the session's task: nothing more runs in it, not even under its window.
    let end =
        nomos::tasks::StatusChange::Ended { status: TaskStatus::Cancelled, outcome: None, summary: "enough".into() };
    w.engine.set_task_status(&task, &end, "the operator ended it").await.unwrap();
    let again = format!("echo y >> {}", q(&w.marks("m")));
    let refused =
        hands.call("run", json!({"target": "host:pve1", "command": again, "purpose": "more"}), "c2", &cancel).await;
    assert!(refused.is_error && refused.text.contains("ended this session's task"), "{refused:?}");
    assert_eq!(w.read_marks("m"), ["x"]);
}
