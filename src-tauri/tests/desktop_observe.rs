//! End to end, Observe in the real webview, against the lab: a discovered lab with two service
//! checks and a few collection cycles (run from this process on the app's database); a unit stopped
//! in a container and one on a node become two critical signals. The Overview shows them with the
//! fleet's health and a sparkline per host; on the Signals page one is acked with a reason, the
//! other muted for an hour and then resolved, each checked in the engine afterwards; the faulty
//! container's page shows its health, its signal, its failing check (run again from there) and its
//! metric charts for the hour and the day. Screenshots of the Overview, the Signals page before and
//! after the actions and the entity page.
//!
//! See `support` for what it needs.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod support;

use std::path::PathBuf;
use std::time::{Duration, Instant};

use nomos::actuate::Decision;
use nomos::discovery::{ApplyBy, DiscoverOptions};
use nomos::observe::Observer;
use nomos::types::{Channel, CheckKind, CheckSpec, MetricRange, ObserveSettings, Signal, SignalQuery, SignalState};
use nomos::{Runtime, RuntimeConfig};
use nomos_lab::{Fault, Lab, LabConfig};
use serde_json::json;
use support::{artifacts_dir, Desktop, Driver, STARTUP, STEP};

/// A check runs at most every 30 s: the stopped units show at their next run.
const SIGNALLED: Duration = Duration::from_secs(120);
const ACK_REASON: &str = "cron restarts with the next image";

fn click(d: &Driver, css: &str) {
    let found = d.wait_until(css, STEP, |_| true);
    d.click(&found[0].0);
}

/// Brings the element `css` finds into view (for a screenshot).
fn scroll_to(d: &Driver, css: &str) {
    d.execute(&format!("document.querySelector({}).scrollIntoView({{block: 'start'}}); return null", json!(css)));
}

/// The `attr` of the first element `css` finds.
fn attr(d: &Driver, css: &str, attr: &str) -> Option<String> {
    let script = format!("return document.querySelector({})?.getAttribute({}) ?? null", json!(css), json!(attr));
    d.execute(&script).as_str().map(str::to_string)
}

/// The signal's row on the page shown.
fn row(id: &str) -> String {
    format!("[data-testid=signal][data-signal-id='{id}']")
}

fn service_check(entity: &str, unit: &str) -> CheckSpec {
    CheckSpec {
        entity: entity.into(),
        name: unit.into(),
        kind: CheckKind::Service { unit: unit.into() },
        interval_s: Some(30),
    }
}

#[test]
fn signals_shown_acked_muted_resolved_and_the_faulty_entity_observed() {
    let app = PathBuf::from(env!("CARGO_BIN_EXE_oikos"));
    let tmp = tempfile::tempdir().unwrap();
    let lab = Lab::start(LabConfig { hosts: 2, ..LabConfig::new(tmp.path().join("lab")) }).unwrap();
    let Some(desktop) = Desktop::start(&app, &[]) else { return };
    let d = &desktop.d;
    let shots = artifacts_dir();
    d.wait_until("[data-testid=nav-overview]", STARTUP, |_| true);

    // The engine in this process, on the app's database: the lab imported, its keys trusted, the
    // cluster discovered and applied, two service checks. The app's own collection is switched
    // off so that every cycle is this test's (and a resolved signal stays resolved).
    let rt = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().unwrap();
    let ours = rt.block_on(Runtime::open(RuntimeConfig::new(&desktop.db))).unwrap();
    let (engine, act) = (ours.engine(), ours.actuator());
    rt.block_on(engine.save_observe_settings(&ObserveSettings { interval_s: 0, ..ObserveSettings::default() }))
        .unwrap();
    rt.block_on(engine.import_inventory_file(&lab.inventory_path())).unwrap();
    let operator = Decision { actor: "operator:test".into(), channel: Channel::Ui, message: None };
    for host in lab.hosts() {
        let target = format!("host:{}", host.name);
        rt.block_on(act.present_key(&target)).unwrap();
        rt.block_on(act.trust_host(&target, None, &operator)).unwrap();
    }
    let apply = Some(ApplyBy::Operator("operator:test".into()));
    rt.block_on(act.discover("host:pve1", DiscoverOptions { apply })).unwrap();
    let cron = rt.block_on(engine.add_check(&service_check("lxc:caddy", "cron"))).unwrap();
    rt.block_on(engine.add_check(&service_check("host:pve2", "pvedaemon"))).unwrap();

    // A few cycles, so that metrics exist and the checks ran once (green).
    let observer = Observer::new().unwrap();
    for _ in 0..3 {
        let report = rt.block_on(act.observe_once(&observer)).unwrap();
        assert!(report.raised.is_empty(), "a healthy lab: {report:?}");
        // Samples are kept per second: the next cycle is a new point.
        std::thread::sleep(Duration::from_millis(1100));
    }
    let open = || rt.block_on(engine.list_signals(&SignalQuery::default())).unwrap().signals;
    assert!(open().is_empty(), "{:?}", open());

    // The faults: cron fails in caddy (guest 101 on pve1), pvedaemon on pve2. Cycles until both
    // checks ran again and raised their signals.
    nomos_lab::fault(lab.dir(), "pve1", &Fault::StopService { unit: "cron".into(), guest: Some(101) }).unwrap();
    nomos_lab::fault(lab.dir(), "pve2", &Fault::StopService { unit: "pvedaemon".into(), guest: None }).unwrap();
    let deadline = Instant::now() + SIGNALLED;
    let raised = loop {
        rt.block_on(act.observe_once(&observer)).unwrap();
        let now = open();
        if now.len() == 2 {
            break now;
        }
        assert!(Instant::now() < deadline, "the stopped units raised no signals: {now:?}");
        std::thread::sleep(Duration::from_secs(2));
    };
    let by_kind = |kind: &str| -> Signal { raised.iter().find(|s| s.kind == kind).cloned().expect(kind) };
    let (cron_signal, daemon_signal) = (by_kind("check:cron"), by_kind("check:pvedaemon"));
    assert_eq!(cron_signal.entity.as_deref(), Some("lxc:caddy"));
    assert_eq!(daemon_signal.entity.as_deref(), Some("host:pve2"));
    assert!(cron_signal.message.contains("cron is failed"), "{cron_signal:?}");

    // Overview: the open critical signals, the fleet's health, a sparkline per host.
    click(d, "[data-testid=nav-overview]");
    d.wait_until("[data-testid=overview-page] [data-testid=signal]", STEP, |t| t.len() == 2);
    d.wait_until("[data-testid=overview-critical] strong", STEP, |t| t[0] == "2");
    let fleet = d.wait_until("[data-testid=fleet-row]", STEP, |_| true);
    assert!(fleet.iter().any(|(_, t)| t.starts_with("host")), "{fleet:?}");
    assert!(fleet.iter().any(|(_, t)| t.starts_with("lxc")), "{fleet:?}");
    let sparks = d.wait_until("[data-testid=host-sparkline]", STEP, |t| t.len() == 2);
    assert!(sparks.iter().any(|(_, t)| t.contains("pve1")) && sparks.iter().any(|(_, t)| t.contains("pve2")));
    let drawn = d.execute(
        "return Array.from(document.querySelectorAll('[data-testid=host-sparkline] .spark-cpu')) \
         .map(p => p.getAttribute('points') || '')",
    );
    assert!(drawn.as_array().unwrap().iter().all(|p| !p.as_str().unwrap().is_empty()), "{drawn}");
    d.wait_until("[data-testid=overview-cycle]", STEP, |t| t[0].starts_with("Last collection"));
    d.screenshot(&shots.join("oikos-overview.png"));

    // Signals: both listed, open, with Ack, Mute and Resolve.
    click(d, "[data-testid=nav-signals]");
    let (cron_row, daemon_row) = (row(&cron_signal.id), row(&daemon_signal.id));
    d.wait_until("[data-testid=signals-page] [data-testid=signal]", STEP, |t| t.len() == 2);
    d.wait_until(&format!("{cron_row} [data-testid=signal-message]"), STEP, |t| t[0].contains("cron is failed"));
    assert_eq!(attr(d, &cron_row, "data-state").as_deref(), Some("open"));
    assert_eq!(attr(d, &daemon_row, "data-state").as_deref(), Some("open"));
    d.wait_until("[data-testid=signal-counts]", STEP, |t| t[0] == "2 critical");
    d.screenshot(&shots.join("oikos-signals.png"));

    // Ack with a reason: the row says acked and why; so does the engine.
    click(d, &format!("{cron_row} [data-testid=signal-ack]"));
    let reason = d.wait_until(&format!("{cron_row} [data-testid=signal-ack-reason]"), STEP, |_| true);
    d.type_into(&reason[0].0, ACK_REASON);
    click(d, &format!("{cron_row} [data-testid=signal-ack-confirm]"));
    let acked_row = format!("[data-testid=signal][data-signal-id='{}'][data-state=acked]", cron_signal.id);
    d.wait_until(&format!("{acked_row} [data-testid=signal-state]"), STEP, |t| t[0] == "acked");
    d.wait_until(&format!("{acked_row} .signal-note"), STEP, |t| t[0].ends_with(&format!(": {ACK_REASON}")));
    let acked = rt.block_on(engine.signal(&cron_signal.id)).unwrap();
    assert_eq!(acked.state, SignalState::Acked);
    assert_eq!(acked.ack_reason.as_deref(), Some(ACK_REASON));

    // Mute the other for an hour (the first span offered): muted, about an hour left.
    click(d, &format!("{daemon_row} [data-testid=signal-mute]"));
    let span = d.wait_until(&format!("{daemon_row} [data-testid=signal-mute-span]"), STEP, |_| true);
    assert_eq!(d.call("GET", &format!("/element/{}/property/value", span[0].0), None), json!("3600"));
    click(d, &format!("{daemon_row} [data-testid=signal-mute-confirm]"));
    let muted_row = format!("[data-testid=signal][data-signal-id='{}'][data-state=muted]", daemon_signal.id);
    d.wait_until(&format!("{muted_row} [data-testid=signal-muted]"), STEP, |t| t[0].starts_with("Muted, "));
    let muted = rt.block_on(engine.signal(&daemon_signal.id)).unwrap();
    assert_eq!(muted.state, SignalState::Muted);
    assert!(muted.muted_until.is_some(), "{muted:?}");
    d.wait_until("[data-testid=signal-counts]", STEP, |t| t[0] == "1 acked · 1 muted");
    d.screenshot(&shots.join("oikos-signals-acked-muted.png"));

    // Resolve the muted one: it leaves the list of what is not resolved; resolved in the engine.
    click(d, &format!("{daemon_row} [data-testid=signal-resolve]"));
    support::gone(d, &daemon_row, STEP);
    d.wait_until("[data-testid=signals-page] [data-testid=signal]", STEP, |t| t.len() == 1);
    let resolved = rt.block_on(engine.signal(&daemon_signal.id)).unwrap();
    assert_eq!(resolved.state, SignalState::Resolved);
    assert_eq!(rt.block_on(engine.signal(&cron_signal.id)).unwrap().state, SignalState::Acked);
    d.screenshot(&shots.join("oikos-signals-resolved.png"));

    // The faulty container's page: its health, its acked signal, the failing check, the charts.
    click(d, &format!("{cron_row} [data-testid=signal-entity]"));
    d.wait_until("[data-testid=entity-health]", STEP, |_| true);
    assert_eq!(d.path(), "/entities/lxc:caddy");
    let health = rt.block_on(engine.explain("lxc:caddy")).unwrap().status.health;
    d.wait_until("[data-testid=entity-health] .pill", STEP, |t| t[0] == health.as_str());
    d.wait_until(&format!("{acked_row} [data-testid=signal-message]"), STEP, |t| t[0].contains("cron is failed"));
    let check = "[data-testid=check][data-status=failing]";
    d.wait_until(&format!("{check} .check-detail"), STEP, |t| t[0].contains("cron is failed"));
    let before = rt.block_on(engine.entity_checks("lxc:caddy")).unwrap();
    let ran_before = before.iter().find(|c| c.id == cron.id).and_then(|c| c.last_run_at.clone());
    click(d, &format!("{check} [data-testid=check-run]"));
    d.wait_until("[data-testid=check-result]", STEP, |t| {
        t[0].starts_with("failing: ") && t[0].contains("cron is failed")
    });
    let after = rt.block_on(engine.entity_checks("lxc:caddy")).unwrap();
    let ran_after = after.iter().find(|c| c.id == cron.id).and_then(|c| c.last_run_at.clone());
    assert_ne!(ran_after, ran_before, "Run now ran the check in the engine");
    let charts = d.wait_until("[data-testid=metric-chart]", STEP, |_| true);
    let metrics: Vec<String> = d
        .execute(
            "return Array.from(document.querySelectorAll('[data-testid=metric-chart]')).map(e => e.dataset.metric)",
        )
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|m| m.as_str().map(str::to_string))
        .collect();
    assert!(metrics.iter().any(|m| m.contains("cpu")), "{metrics:?} ({} charts)", charts.len());
    // From the "Health" heading down: health, signal, charts and the check in one picture.
    d.execute(
        "document.querySelector('[data-testid=entity-health]').previousElementSibling.scrollIntoView(); return null",
    );
    d.screenshot(&shots.join("oikos-entity-observe.png"));

    // The day's range: a chart per metric, or that there is nothing yet.
    let tabs = d.wait_until("[data-testid=metric-range]", STEP, |t| t.len() == 3);
    assert_eq!(tabs[1].1, "24 h");
    d.click(&tabs[1].0);
    d.wait_until("[data-testid=metric-range][aria-selected=true]", STEP, |t| t[0] == "24 h");
    // The day is drawn from minute rollups, which the app's background work writes once a minute
    // has ended: a chart per metric with points, "no data yet" on the others, as the engine says.
    let deadline = Instant::now() + STEP;
    loop {
        let day = rt.block_on(engine.query_metrics("lxc:caddy", None, MetricRange::Day)).unwrap();
        let expected: Vec<(String, bool)> = day.iter().map(|s| (s.metric.clone(), s.points.is_empty())).collect();
        let shown: Vec<(String, bool)> = d
            .execute(
                "return Array.from(document.querySelectorAll('[data-testid=metric-chart]')) \
                 .map(e => [e.dataset.metric, !!e.querySelector('[data-testid=chart-empty]')])",
            )
            .as_array()
            .unwrap()
            .iter()
            .map(|p| (p[0].as_str().unwrap().to_string(), p[1].as_bool().unwrap()))
            .collect();
        if !expected.is_empty() && shown == expected {
            break;
        }
        assert!(Instant::now() < deadline, "the day's charts: {shown:?}, the engine's: {expected:?}");
        std::thread::sleep(Duration::from_millis(200));
    }
    scroll_to(d, "[data-testid=metric-range]");
    d.screenshot(&shots.join("oikos-entity-observe-24h.png"));

    // Paused from its page: the check stops and its (acked) signal is resolved; resumed, it runs
    // on its interval again.
    click(d, &format!("{check} [data-testid=check-toggle]"));
    d.wait_until("[data-testid=check-paused]", STEP, |_| true);
    let paused = rt.block_on(engine.check(&cron.id)).unwrap();
    assert!(!paused.enabled);
    assert_eq!(rt.block_on(engine.signal(&cron_signal.id)).unwrap().state, SignalState::Resolved);
    let toggle = d.wait_until("[data-testid=check-toggle]", STEP, |t| t.iter().any(|b| b == "Resume"));
    let resume = toggle.iter().find(|(_, t)| t == "Resume").unwrap();
    d.click(&resume.0);
    let deadline = Instant::now() + STEP;
    while !rt.block_on(engine.check(&cron.id)).unwrap().enabled {
        assert!(Instant::now() < deadline, "Resume did not enable the check");
        std::thread::sleep(Duration::from_millis(100));
    }

    rt.block_on(ours.close());
    eprintln!("screenshots: {}", shots.display());
    drop(desktop);
    drop(lab);
}
