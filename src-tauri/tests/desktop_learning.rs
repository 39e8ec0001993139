//! End to end, from signal to fix in the real webview, against a lab host and the scripted
//! provider: pveproxy fails on pve1; Observe (run from this process on the app's database) raises
//! failed-units; *Investigate* on the Signals page opens the researched task and Nomos proposes its
//! plan; the plan's button approves it; the restart runs on the host, `verify_signal` sees the
//! signal resolve and the task ends done; the fix is written down. The same fault again: the
//! signal shows "seen before", the second task takes fewer tool calls. The Learning page shows that
//! run: outcomes, the `run` capability, the failed-units incidents and the recall. Screenshots of
//! the Signals page with "seen before", the first task and the Learning page.
//!
//! See `support` for what it needs.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod support;

use std::time::{Duration, Instant};

use nomos::discovery::{ApplyBy, DiscoverOptions};
use nomos::observe::Observer;
use nomos::types::{ObserveSettings, Signal, SignalQuery, SignalState, TaskOutcome, TaskStatus};
use nomos_lab::Fault;
use nomos_scripted_provider::{Script, ScriptedCall, Step};
use serde_json::json;
use support::{artifacts_dir, Driver, TaskLab, STARTUP, STEP};

/// How long a task may take to end after its approval (a restart, then verify's observe pass).
const ENDS: Duration = Duration::from_secs(90);

fn click(d: &Driver, css: &str) {
    let found = d.wait_until(css, STEP, |_| true);
    d.click(&found[0].0);
}

/// The approved half of a fix: the restart, its step, verify, the end with evidence.
fn fix(n: u32) -> Vec<Step> {
    let (x, v) = (format!("x{n}"), format!("v{n}"));
    vec![
        Step::tool_calls(vec![ScriptedCall::new(
            "run",
            json!({"target": "host:pve1", "command": "systemctl restart pveproxy", "purpose": "step 1"}),
        )
        .with_id(&x)]),
        Step::tool_calls(vec![
            ScriptedCall::new("update_plan_step", json!({"seq": 1, "status": "done"})),
            ScriptedCall::new("verify_signal", json!({"within_secs": 60})).with_id(&v),
        ]),
        Step::tool_calls(vec![
            ScriptedCall::new("update_plan_step", json!({"seq": 2, "status": "done"})),
            ScriptedCall::new(
                "complete_task",
                json!({"outcome": "success", "summary": "pveproxy had failed; restarting it cleared the signal.",
                       "evidence": [x, v]}),
            ),
        ]),
    ]
}

fn plan() -> Step {
    Step::tool_calls(vec![ScriptedCall::new(
        "propose_plan",
        json!({"steps": [
            {"title": "restart pveproxy", "target": "host:pve1", "command": "systemctl restart pveproxy"},
            {"title": "verify the signal clears within 60 s", "target": "host:pve1"}
        ]}),
    )])
}

#[test]
fn a_signal_is_investigated_fixed_verified_remembered_and_the_learning_page_shows_it() {
    let script = |_: &std::path::Path, _: &[String]| {
        let first = vec![
            Step::tool_calls(vec![ScriptedCall::new(
                "run",
                json!({"target": "host:pve1", "command": "systemctl status pveproxy", "purpose": "why it failed"}),
            )]),
            Step::tool_calls(vec![ScriptedCall::new("search_knowledge", json!({"query": "pveproxy failed"}))]),
            plan(),
        ];
        Script::new([first, fix(1), vec![plan()], fix(2)].concat())
    };
    let Some(lab) = TaskLab::start(1, script) else { return };
    let (d, rt) = (&lab.desktop.d, &lab.rt);
    let (engine, act) = (lab.ours.engine(), lab.ours.actuator());
    let shots = artifacts_dir();
    d.wait_until("[data-testid=nav-signals]", STARTUP, |_| true);

    // Every collection is this test's; the lab discovered.
    rt.block_on(engine.save_observe_settings(&ObserveSettings { interval_s: 0, ..ObserveSettings::default() }))
        .unwrap();
    let apply = Some(ApplyBy::Operator("operator:test".into()));
    rt.block_on(act.discover("host:pve1", DiscoverOptions { apply })).unwrap();
    let observer = Observer::quick().unwrap();
    rt.block_on(act.observe_once(&observer)).unwrap();

    let failed_units = || -> Option<Signal> {
        let list = rt.block_on(engine.list_signals(&SignalQuery::default())).unwrap();
        list.signals.into_iter().find(|s| s.kind == "failed-units")
    };
    let incident = |n: u32| -> (Signal, String) {
        nomos_lab::fault(lab.lab.dir(), "pve1", &Fault::StopService { unit: "pveproxy".into(), guest: None }).unwrap();
        std::thread::sleep(Duration::from_millis(1100));
        rt.block_on(act.observe_once(&observer)).unwrap();
        let signal = failed_units().expect("the failed unit raised a signal");
        // Investigate from the Signals page: the app opens the task and goes there.
        click(d, "[data-testid=nav-signals]");
        let row = format!("[data-testid=signal][data-signal-id='{}']", signal.id);
        d.wait_until(&format!("{row} [data-testid=signal-investigate]"), STEP, |_| true);
        if n == 2 {
            let seen = d.wait_until(&format!("{row} [data-testid=signal-seen-before]"), STEP, |_| true);
            assert!(seen[0].1.contains("Fix: failed-units on host:pve1"), "{seen:?}");
            d.screenshot(&shots.join("oikos-signal-seen-before.png"));
        }
        click(d, &format!("{row} [data-testid=signal-investigate]"));
        d.wait_until("[data-testid=task-title]", STEP, |t| t[0].contains("Investigate"));
        let task = d.path().strip_prefix("/tasks/").expect("the task's page").to_string();
        // Nomos researched and proposed its plan; the button approves it.
        d.wait_until("[data-testid=approve-plan]", STARTUP, |_| true);
        click(d, "[data-testid=approve-plan]");
        let deadline = Instant::now() + ENDS;
        loop {
            let t = rt.block_on(engine.task(&task)).unwrap();
            if t.status == TaskStatus::Done {
                assert_eq!(t.outcome, Some(TaskOutcome::Success), "{t:?}");
                break;
            }
            assert!(!t.status.is_end(), "the task ended {t:?}");
            assert!(Instant::now() < deadline, "the task did not end: {t:?}");
            std::thread::sleep(Duration::from_millis(300));
        }
        (signal, task)
    };

    let (first_signal, first) = incident(1);
    assert_eq!(rt.block_on(engine.signal(&first_signal.id)).unwrap().state, SignalState::Resolved);
    // The task's page shows how it ended: done, both steps done.
    d.wait_until("[data-testid=task-view-status]", STEP, |t| t[0].contains("done"));
    d.wait_until("[data-testid=plan-step][data-status=done]", STEP, |t| t.len() == 2);
    d.screenshot(&shots.join("oikos-investigation-task.png"));
    let notes = rt.block_on(engine.search_knowledge("pveproxy restart", 5)).unwrap();
    assert!(
        notes.iter().any(|n| n.summary.tags.iter().any(|t| t == "fingerprint:failed-units:host:pve1")),
        "the fix was written down: {notes:?}"
    );

    let (_, second) = incident(2);
    let calls = |task: &str| -> i64 {
        rt.block_on(
            sqlx::query_scalar("SELECT count(*) FROM tool_calls WHERE task_id = ?")
                .bind(task)
                .fetch_one(engine.store().pool()),
        )
        .unwrap()
    };
    assert!(calls(&second) < calls(&first), "recalled: {} < {}", calls(&second), calls(&first));

    // The Learning page, from this run.
    click(d, "[data-testid=nav-learning]");
    d.wait_until("[data-testid=learning-outcomes]", STEP, |_| true);
    let caps = d.wait_until("[data-testid=learning-capability]", STEP, |t| t.iter().any(|r| r.starts_with("run")));
    assert!(caps.iter().any(|(_, t)| t.starts_with("run") && t.contains("achieved its step 2/2")), "{caps:?}");
    let incidents = d.wait_until("[data-testid=learning-incident]", STEP, |_| true);
    assert!(incidents.iter().any(|(_, t)| t.starts_with("failed-units")), "{incidents:?}");
    let recalls = d.wait_until("[data-testid=learning-recall]", STEP, |_| true);
    assert!(recalls[0].1.contains("Fix: failed-units on host:pve1") && recalls[0].1.contains("success"), "{recalls:?}");
    d.screenshot(&shots.join("oikos-learning.png"));

    // Settings → Observe: automatic investigation is off until switched on, per severity.
    click(d, "[data-testid=nav-settings]");
    let before = rt.block_on(engine.observe_settings()).unwrap();
    assert!(!before.investigate_critical && !before.investigate_warnings);
    click(d, "[data-testid=observe-investigate-critical]");
    let deadline = Instant::now() + STEP;
    let after = loop {
        let now = rt.block_on(engine.observe_settings()).unwrap();
        if now.investigate_critical {
            break now;
        }
        assert!(Instant::now() < deadline, "the switch did not save: {now:?}");
        std::thread::sleep(Duration::from_millis(100));
    };
    assert_eq!(after, ObserveSettings { investigate_critical: true, ..before });
    lab.close();
}
