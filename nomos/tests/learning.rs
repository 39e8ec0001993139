//! From signal to fix, end to end against the lab (real sshd, the stand-in `systemctl`, the gate,
//! SQLite; the model is the scripted stand-in): a fault raises a signal; the investigation opens a
//! researched task; the plan is approved once; the fix runs on the host; `verify_signal` sees the
//! signal resolve; the fix is remembered; the same fault again shows "seen before", the briefing
//! carries the note, and the second task needs fewer tool calls. A fix that does not clear the
//! signal is never a success.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod support;

use nomos::actuate::ActuateConfig;
use nomos::agent::chat::ChatResponse;
use nomos::agent::send_message;
use nomos::agent::tools::{Registry, RegistryConfig};
use nomos::agent::turn::{run_turn, GatedTools, TurnConfig, TurnEnd};
use nomos::discovery::{ApplyBy, DiscoverOptions};
use nomos::observe::Observer;
use nomos::types::{Signal, SignalQuery, SignalState, TaskOutcome, TaskStatus, WaitingFor};
use nomos_lab::Fault;
use serde_json::json;
use support::agent::{calls, ScriptedModel};
use support::World;
use tokio_util::sync::CancellationToken;

fn tools(w: &World) -> GatedTools {
    GatedTools { registry: Registry::new(RegistryConfig::default()), actuator: w.act.clone() }
}

fn config() -> TurnConfig {
    TurnConfig { max_iterations: 12, ..TurnConfig::default() }
}

fn tick(w: &World, secs: i64) {
    w.clock.as_ref().unwrap().advance_ms(secs * 1000);
}

async fn failed_units(w: &World) -> Option<Signal> {
    let list = w.engine.list_signals(&SignalQuery::default()).await.unwrap();
    list.signals.into_iter().find(|s| s.kind == "failed-units" && s.entity.as_deref() == Some("host:pve1"))
}

fn one(id: &str, name: &str, args: serde_json::Value) -> ChatResponse {
    calls(&[(id, name, &args.to_string())])
}

fn plan() -> ChatResponse {
    one(
        "p1",
        "propose_plan",
        json!({"steps": [
            {"title": "restart pveproxy", "target": "host:pve1", "command": "systemctl restart pveproxy"},
            {"title": "verify the signal clears within 60 s", "target": "host:pve1"}
        ]}),
    )
}

/// The approved half: the fix, its step, the verify step, the end.
fn fix(n: u32) -> Vec<ChatResponse> {
    vec![
        one(
            &format!("r{n}"),
            "run",
            json!({"target": "host:pve1", "command": "systemctl restart pveproxy", "purpose": "step 1"}),
        ),
        one(&format!("s{n}"), "update_plan_step", json!({"seq": 1, "status": "done"})),
        one(&format!("v{n}"), "verify_signal", json!({"within_secs": 30})),
        one(&format!("t{n}"), "update_plan_step", json!({"seq": 2, "status": "done"})),
        one(
            &format!("c{n}"),
            "complete_task",
            json!({"outcome": "success", "summary": "pveproxy had failed; restarted it and the signal cleared.",
                   "evidence": [format!("r{n}"), format!("v{n}")]}),
        ),
    ]
}

/// A lab of `hosts` hosts, discovered and applied, with an observer (not run yet).
async fn observed_lab(hosts: usize) -> (World, Observer) {
    let w = World::start(hosts, true, ActuateConfig::default()).await;
    let apply = Some(ApplyBy::Operator("operator:test".into()));
    w.act.discover("host:pve1", DiscoverOptions { apply }).await.unwrap();
    (w, Observer::new().unwrap())
}

async fn calls_of(w: &World, task: &str) -> i64 {
    sqlx::query_scalar("SELECT count(*) FROM tool_calls WHERE task_id = ?")
        .bind(task)
        .fetch_one(w.engine.store().pool())
        .await
        .unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_failed_service_is_investigated_fixed_verified_remembered_and_recalled() {
    let (w, observer) = observed_lab(1).await;
    let lab = w.lab.dir().to_path_buf();
    w.act.observe_once(&observer).await.unwrap();
    assert!(failed_units(&w).await.is_none());

    // The fault: pveproxy fails on pve1; the next cycle raises the signal.
    nomos_lab::fault(&lab, "pve1", &Fault::StopService { unit: "pveproxy".into(), guest: None }).unwrap();
    tick(&w, 60);
    w.act.observe_once(&observer).await.unwrap();
    let signal = failed_units(&w).await.expect("a failed-units signal");
    assert!(signal.seen_before.is_none());

    // Investigate: a researched task, read-only; asking again returns the same task.
    let executions_before = w.act.executions(None, None, 500).await.unwrap().len();
    let inv = w.act.investigate(&signal.id, false).await.unwrap();
    assert!(inv.created);
    for part in ["## Metrics of host:pve1", "## Blast radius", "## Journal", "pveproxy", "## Changes made on host:pve1"]
    {
        assert!(inv.briefing.contains(part), "briefing lacks {part}:\n{}", inv.briefing);
    }
    assert!(!inv.briefing.contains("Seen before"));
    let again = w.act.investigate(&signal.id, false).await.unwrap();
    assert_eq!((again.task_id.as_str(), again.created), (inv.task_id.as_str(), false));
    assert_eq!(w.engine.signal(&signal.id).await.unwrap().investigation.as_deref(), Some(inv.task_id.as_str()));
    let non_probe: Vec<_> =
        w.act.executions(None, None, 500).await.unwrap().into_iter().filter(|e| e.action != "probe").collect();
    assert!(non_probe.len() <= executions_before, "the research changed nothing: {non_probe:?}");

    // Nomos reads, proposes one plan and waits for it.
    let task = inv.task_id.clone();
    let model = ScriptedModel::new([vec![one("g1", "get_signal", json!({"id": signal.id})), plan()], fix(1)].concat());
    let end = run_turn(&w.engine, &model, &tools(&w), &config(), &task, &CancellationToken::new()).await.unwrap();
    assert_eq!(end, TurnEnd::Waiting(WaitingFor::Plan));
    assert!(model.requests()[0].messages.iter().any(|m| m.content.contains("## Journal")), "the briefing is read");

    // One approval; the fix runs on the host; verify sees the signal resolve; success.
    let (t, _) =
        send_message(&w.engine, &model, &tools(&w), &config(), Some(&task), "yes, go ahead", &CancellationToken::new())
            .await
            .unwrap();
    assert_eq!((t.status, t.outcome), (TaskStatus::Done, Some(TaskOutcome::Success)), "{t:?}");
    let resolved = w.engine.signal(&signal.id).await.unwrap();
    assert_eq!(resolved.state, SignalState::Resolved);
    let first_calls = calls_of(&w, &task).await;

    // Remembered: a note tagged with the fingerprint, about the host, with the command that worked.
    let fixed = w.engine.search_knowledge("pveproxy restart", 5).await.unwrap();
    let note =
        fixed.iter().find(|h| h.summary.tags.contains(&format!("fingerprint:{}", signal.fingerprint))).expect("a note");
    let doc = w.engine.knowledge(&note.summary.slug).await.unwrap();
    assert!(doc.content.contains("`systemctl restart pveproxy`"), "{}", doc.content);
    assert!(doc.about.iter().any(|e| &*e.slug == "host:pve1"));
    let achieved: i64 = sqlx::query_scalar("SELECT count(*) FROM executions WHERE task_id = ? AND achieved = 1")
        .bind(&task)
        .fetch_one(w.engine.store().pool())
        .await
        .unwrap();
    assert_eq!(achieved, 1, "the fix achieved its step");

    // The same fault again: seen before, read first, and a shorter task.
    tick(&w, 300);
    nomos_lab::fault(&lab, "pve1", &Fault::StopService { unit: "pveproxy".into(), guest: None }).unwrap();
    w.act.observe_once(&observer).await.unwrap();
    let back = failed_units(&w).await.expect("the problem is back");
    assert_eq!(back.seen_before.as_ref().map(|s| s.knowledge.as_str()), Some(note.summary.slug.as_str()));
    let second = w.act.investigate(&back.id, false).await.unwrap();
    assert!(second.created && second.task_id != task);
    let seen_at = second.briefing.find("Seen before").expect("the note comes first");
    assert!(seen_at < second.briefing.find("## Metrics").unwrap());
    let model = ScriptedModel::new([vec![plan()], fix(2)].concat());
    let end =
        run_turn(&w.engine, &model, &tools(&w), &config(), &second.task_id, &CancellationToken::new()).await.unwrap();
    assert_eq!(end, TurnEnd::Waiting(WaitingFor::Plan));
    let (t, _) = send_message(
        &w.engine,
        &model,
        &tools(&w),
        &config(),
        Some(&second.task_id),
        "approved",
        &CancellationToken::new(),
    )
    .await
    .unwrap();
    assert_eq!(t.outcome, Some(TaskOutcome::Success));
    assert!(calls_of(&w, &second.task_id).await < first_calls, "the recalled fix made it shorter");

    // The Learning page's numbers.
    let report = w.engine.learning_report().await.unwrap();
    let run = report.capabilities.iter().find(|c| c.action == "run").expect("run");
    // The two restarts; discovery's and Observe's reads are not counted as actions.
    assert!(run.first_success.is_some() && (run.successes, run.total, run.achieved) == (2, 2, 2), "{run:?}");
    let kind = report.incidents.iter().find(|k| k.kind == "failed-units").expect("failed-units");
    assert_eq!((kind.resolved, kind.by_tasks), (1, 1), "{kind:?}");
    assert!(kind.repeats >= 1, "{kind:?}");
    let recall = report.recalls.iter().find(|r| r.task_id == second.task_id).expect("recalled");
    assert_eq!(recall.outcome.as_deref(), Some("success"));
    assert_eq!(report.recalls_helped, 1);
    assert_eq!(report.outcomes.len(), 30);
    // Both fixes are in the chart's last two days (the run may cross midnight), none failed.
    let recent: Vec<_> = report.outcomes.iter().rev().take(2).collect();
    assert_eq!(recent.iter().map(|d| d.succeeded).sum::<i64>(), 2, "{recent:?}");
    assert!(report.outcomes.iter().all(|d| d.failed == 0), "{:?}", report.outcomes);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_fix_that_does_not_clear_the_signal_is_not_a_success() {
    let (w, observer) = observed_lab(1).await;
    let lab = w.lab.dir().to_path_buf();
    w.act.observe_once(&observer).await.unwrap();
    nomos_lab::fault(&lab, "pve1", &Fault::StopService { unit: "pveproxy".into(), guest: None }).unwrap();
    tick(&w, 60);
    w.act.observe_once(&observer).await.unwrap();
    let signal = failed_units(&w).await.unwrap();
    let inv = w.act.investigate(&signal.id, false).await.unwrap();

    // The wrong fix: another unit restarted; verify waits, the signal stays; success is refused.
    let model = ScriptedModel::new(vec![
        one(
            "p1",
            "propose_plan",
            json!({"steps": [{"title": "restart cron", "target": "host:pve1", "command": "systemctl restart cron"}]}),
        ),
        one("r1", "run", json!({"target": "host:pve1", "command": "systemctl restart cron", "purpose": "step 1"})),
        one("s1", "update_plan_step", json!({"seq": 1, "status": "done"})),
        one("v1", "verify_signal", json!({"within_secs": 10})),
        one("c1", "complete_task", json!({"outcome": "success", "summary": "restarted", "evidence": ["r1"]})),
        one("c2", "complete_task", json!({"outcome": "failure", "summary": "cron restarted; pveproxy still failed."})),
    ]);
    let end =
        run_turn(&w.engine, &model, &tools(&w), &config(), &inv.task_id, &CancellationToken::new()).await.unwrap();
    assert_eq!(end, TurnEnd::Waiting(WaitingFor::Plan));
    let (t, _) =
        send_message(&w.engine, &model, &tools(&w), &config(), Some(&inv.task_id), "go", &CancellationToken::new())
            .await
            .unwrap();
    assert_eq!(t.outcome, Some(TaskOutcome::Failure), "{t:?}");
    let calls = nomos::agent::transcript::Transcript::new(&w.engine, &inv.task_id).calls().await.unwrap();
    let verify = calls.iter().find(|c| c.call.id == "v1").unwrap();
    assert!(verify.is_error, "verify reports it is still open");
    let refused = calls.iter().find(|c| c.call.id == "c1").unwrap();
    assert!(refused.is_error);
    assert_eq!(w.engine.signal(&signal.id).await.unwrap().state, SignalState::Open);
    assert!(w.engine.search_knowledge("pveproxy", 5).await.unwrap().iter().all(|h| !h
        .summary
        .tags
        .iter()
        .any(|t| t.starts_with("fingerprint:"))));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn automatic_investigation_is_opt_in_capped_cooled_down_and_says_so() {
    let (w, observer) = observed_lab(3).await;
    let lab = w.lab.dir().to_path_buf();
    let pool = w.engine.store().pool().clone();
    observer.set_investigates(true);
    w.act.observe_once(&observer).await.unwrap();

    // Off by default: a warning raised opens nothing.
    nomos_lab::fault(&lab, "pve1", &Fault::StopService { unit: "pveproxy".into(), guest: None }).unwrap();
    tick(&w, 60);
    let r = w.act.observe_once(&observer).await.unwrap();
    assert!(!r.raised.is_empty() && r.investigations.is_empty(), "{r:?}");

    // The operator investigates pve1's signal by hand, then resolves it by hand; it fires again.
    let pve1 = failed_units(&w).await.unwrap();
    let by_hand = w.act.investigate(&pve1.id, false).await.unwrap();
    w.engine.resolve_signal(&pve1.id, "operator:test").await.unwrap();

    // Warnings turned on (and notified): a new problem opens one task, and its notification says
    // Nomos is on it and links the task. pve1's signal, back with its task still going, keeps
    // that task: no second one, no turn started on it.
    let mut settings = w.engine.observe_settings().await.unwrap();
    settings.investigate_warnings = true;
    settings.notify_warnings = true;
    w.engine.save_observe_settings(&settings).await.unwrap();
    nomos_lab::fault(&lab, "pve2", &Fault::StopService { unit: "corosync".into(), guest: None }).unwrap();
    tick(&w, 60);
    let r = w.act.observe_once(&observer).await.unwrap();
    assert!(r.raised.contains(&pve1.id), "{r:?}");
    assert_eq!(r.investigations.len(), 1, "{r:?}");
    assert_ne!(r.investigations[0], by_hand.task_id);
    assert_eq!(w.engine.signal(&pve1.id).await.unwrap().investigation.as_deref(), Some(by_hand.task_id.as_str()));
    let payloads: Vec<String> =
        sqlx::query_scalar("SELECT payload FROM events WHERE type = 'signal.notified'").fetch_all(&pool).await.unwrap();
    let linked: Vec<serde_json::Value> = payloads
        .iter()
        .map(|p| serde_json::from_str::<serde_json::Value>(p).unwrap())
        .filter(|p| p["task"].as_str() == Some(r.investigations[0].as_str()))
        .collect();
    assert_eq!(linked.len(), 1, "{payloads:?}");
    assert!(linked[0]["body"].as_str().unwrap().contains("Nomos is investigating"), "{linked:?}");

    // More at once: at most 3 automatic investigations run.
    nomos_lab::fault(&lab, "pve3", &Fault::StopService { unit: "corosync".into(), guest: None }).unwrap();
    for host in ["pve1", "pve2", "pve3"] {
        nomos_lab::fault(&lab, host, &Fault::FillDisk { percent: 90, guest: None }).unwrap();
    }
    tick(&w, 60);
    let r = w.act.observe_once(&observer).await.unwrap();
    assert!(r.raised.len() >= 3, "{r:?}");
    assert_eq!(r.investigations.len(), 2, "{r:?}");
    let running: i64 =
        sqlx::query_scalar("SELECT count(*) FROM investigations WHERE auto = 1").fetch_one(&pool).await.unwrap();
    assert_eq!(running, 3);

    // Nothing beyond read-only ran: no approval was given.
    let changed: i64 =
        sqlx::query_scalar("SELECT count(*) FROM executions WHERE risk <> 'read_only'").fetch_one(&pool).await.unwrap();
    assert_eq!(changed, 0);

    // The tasks end and their problems clear; they come back within the hour: not again (the
    // one investigated by hand included).
    let investigated: Vec<(String, String)> =
        sqlx::query_as("SELECT task_id, fingerprint FROM investigations").fetch_all(&pool).await.unwrap();
    for (task, _) in &investigated {
        let end = nomos::tasks::StatusChange::Ended {
            status: TaskStatus::Failed,
            outcome: Some(TaskOutcome::Failure),
            summary: "ended by the test".into(),
        };
        w.engine.set_task_status(task, &end, "test").await.unwrap();
    }
    for s in w.engine.list_signals(&SignalQuery::default()).await.unwrap().signals {
        if investigated.iter().any(|(_, fp)| *fp == s.fingerprint) {
            w.engine.resolve_signal(&s.id, "operator:test").await.unwrap();
        }
    }
    tick(&w, 600);
    let r = w.act.observe_once(&observer).await.unwrap();
    assert!(!r.raised.is_empty(), "the problems came back: {r:?}");
    assert!(r.investigations.is_empty(), "not again within the hour: {r:?}");
}
