//! Observe end to end against the lab: real sshd, the stand-in `pvesh`, the gate, SQLite, on a
//! manual clock (sample times and dwell come from it; the commands really run). A node goes
//! offline and comes back; signals open, notify once, are suppressed, acknowledged and re-open
//! acknowledged; polling leaves the ledger alone.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod support;

use nomos::actuate::{ActuateConfig, RunRequest};
use nomos::discovery::{ApplyBy, DiscoverOptions};
use nomos::observe::Observer;
use nomos::types::{CheckKind, CheckSpec, MetricRange, SignalQuery, SignalState, WindowKind};
use nomos_lab::{Fault, Lab};
use support::World;

async fn count(w: &World, sql: &str) -> i64 {
    sqlx::query_scalar(sql).fetch_one(w.engine.store().pool()).await.unwrap()
}

fn tick(w: &World, secs: i64) {
    w.clock.as_ref().unwrap().advance_ms(secs * 1000);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_node_offline_is_one_signal_one_notification_and_an_ack_survives_its_return() {
    let w = World::start(3, true, ActuateConfig::default()).await;
    let lab = w.lab.dir().to_path_buf();
    let apply = Some(ApplyBy::Operator("operator:test".into()));
    w.act.discover("host:pve1", DiscoverOptions { apply }).await.unwrap();
    let observer = Observer::new().unwrap();

    // A healthy lab: samples for nodes, guests and storage; no signal; health known.
    let first = w.act.observe_once(&observer).await.unwrap();
    assert_eq!(first.clusters, 1, "{first:?}");
    assert_eq!(first.hosts, 3, "{first:?}");
    assert!(first.samples > 20, "{first:?}");
    assert!(first.raised.is_empty(), "{first:?}");
    let cpu = w.engine.query_metrics("lxc:caddy", Some("cpu_percent"), MetricRange::Hour).await.unwrap();
    assert_eq!(cpu[0].points.len(), 1);
    assert!(cpu[0].last.is_some_and(|v| (0.0..=100.0).contains(&v)));
    let caddy = w.engine.explain("lxc:caddy").await.unwrap();
    assert_eq!(caddy.status.health, nomos::types::Health::Healthy);

    // Polling writes no executions and no ledger lines while nothing changes: only the last
    // result per probe.
    let executions = count(&w, "SELECT count(*) FROM executions").await;
    let ledger = count(&w, "SELECT count(*) FROM audit_log").await;
    for _ in 0..3 {
        tick(&w, 30);
        w.act.observe_once(&observer).await.unwrap();
    }
    assert_eq!(count(&w, "SELECT count(*) FROM executions").await, executions);
    assert_eq!(count(&w, "SELECT count(*) FROM audit_log").await, ledger);
    // The cluster is read every cycle, each host every minute.
    assert_eq!(count(&w, "SELECT runs FROM probe_results WHERE key = 'observe:cluster:oikos-lab'").await, 4);
    assert_eq!(count(&w, "SELECT min(runs) FROM probe_results WHERE key LIKE 'observe:host:%'").await, 2);

    // pve3 goes offline: after the dwell, one root signal and exactly one notification; the
    // unreachable host signal of the same node is suppressed by it.
    Lab::set_node_online(&lab, "pve3", false).unwrap();
    let raised = w.act.observe_once(&observer).await.unwrap();
    assert!(raised.raised.is_empty(), "not before the dwell: {raised:?}");
    tick(&w, 70);
    w.act.observe_once(&observer).await.unwrap();
    tick(&w, 30);
    w.act.observe_once(&observer).await.unwrap();
    let open = w.engine.list_signals(&SignalQuery::default()).await.unwrap();
    let down = open.signals.iter().find(|s| s.kind == "down").expect("a down signal");
    assert_eq!(down.entity.as_deref(), Some("host:pve3"));
    assert_eq!(down.state, SignalState::Open);
    for other in open.signals.iter().filter(|s| s.id != down.id) {
        assert_eq!(other.suppressed_by.as_deref(), Some("host:pve3"), "{other:?}");
    }
    assert_eq!(count(&w, "SELECT count(*) FROM events WHERE type = 'signal.notified'").await, 1);
    // The failure was recorded once, as a change of the probe's outcome.
    assert_eq!(count(&w, "SELECT count(*) FROM executions WHERE action = 'probe'").await, 1);

    // Acknowledged with a reason; the node comes back; the signal resolves with its duration.
    let acked = w.engine.ack_signal(&down.id, "replacing the PSU", "operator:test").await.unwrap();
    assert_eq!(acked.state, SignalState::Acked);
    assert!(w.engine.ack_signal(&down.id, "  ", "operator:test").await.is_err(), "a reason is required");
    Lab::set_node_online(&lab, "pve3", true).unwrap();
    tick(&w, 30);
    let back = w.act.observe_once(&observer).await.unwrap();
    assert!(back.resolved.contains(&down.id), "{back:?}");
    let resolved = w.engine.signal(&down.id).await.unwrap();
    assert_eq!(resolved.state, SignalState::Resolved);
    assert!(resolved.down_secs.is_some_and(|d| d >= 60), "{resolved:?}");

    // Down again five minutes later: the same signal re-opens acknowledged, no new notification.
    tick(&w, 300);
    Lab::set_node_online(&lab, "pve3", false).unwrap();
    w.act.observe_once(&observer).await.unwrap();
    tick(&w, 70);
    w.act.observe_once(&observer).await.unwrap();
    let again = w.engine.signal(&down.id).await.unwrap();
    assert_eq!(again.state, SignalState::Acked, "{again:?}");
    assert_eq!(again.occurrences, 2);
    assert_eq!(again.ack_reason.as_deref(), Some("replacing the PSU"));
    assert_eq!(count(&w, "SELECT count(*) FROM events WHERE type = 'signal.notified'").await, 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_probe_that_is_not_read_only_is_refused_and_recorded_never_run() {
    let w = World::start(1, false, ActuateConfig::default()).await;
    let req = RunRequest {
        target: "host:pve1".into(),
        command: "systemctl restart pveproxy".into(),
        purpose: "observe: a probe that changes something".into(),
        requested_by: "observe".into(),
        ..RunRequest::default()
    };
    let err = w.act.probe("observe:bad", req).await.unwrap_err().to_string();
    assert!(err.contains("refused") && err.contains("read-only"), "{err}");
    assert_eq!(count(&w, "SELECT count(*) FROM executions").await, 0);
    assert_eq!(count(&w, "SELECT count(*) FROM approvals").await, 0);
    assert_eq!(count(&w, "SELECT count(*) FROM probe_results").await, 0);
    assert_eq!(count(&w, "SELECT count(*) FROM audit_log WHERE action = 'execution.refused'").await, 1);
}

/// Runs `n` cycles, the clock `secs` apart; returns what they raised.
async fn cycles(w: &World, observer: &Observer, n: usize, secs: i64) -> Vec<String> {
    let mut raised = Vec::new();
    for _ in 0..n {
        tick(w, secs);
        raised.extend(w.act.observe_once(observer).await.unwrap().raised);
    }
    raised
}

async fn notified(w: &World) -> i64 {
    count(w, "SELECT count(*) FROM events WHERE type = 'signal.notified'").await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn faults_in_the_lab_become_signals_and_only_the_ones_worth_it_notify() {
    let w = World::start(2, true, ActuateConfig::default()).await;
    let lab = w.lab.dir().to_path_buf();
    let apply = Some(ApplyBy::Operator("operator:test".into()));
    w.act.discover("host:pve1", DiscoverOptions { apply }).await.unwrap();
    let observer = Observer::new().unwrap();
    // A service check inside a container and one on a node.
    let spec = |entity: &str, name: &str, unit: &str| CheckSpec {
        entity: entity.into(),
        name: name.into(),
        kind: CheckKind::Service { unit: unit.into() },
        interval_s: Some(30),
    };
    let cron = w.engine.add_check(&spec("lxc:caddy", "cron", "cron")).await.unwrap();
    w.engine.add_check(&spec("host:pve2", "pvedaemon", "pvedaemon")).await.unwrap();
    let ran = w.act.run_check(&cron.id).await.unwrap();
    assert!(ran.ok, "{ran:?}");
    cycles(&w, &observer, 2, 30).await;
    assert!(w.engine.list_signals(&SignalQuery::default()).await.unwrap().signals.is_empty());

    // A service stopped in a guest: its signal within two cycles, one notification.
    nomos_lab::fault(&lab, "pve1", &Fault::StopService { unit: "cron".into(), guest: Some(101) }).unwrap();
    let raised = cycles(&w, &observer, 2, 30).await;
    assert_eq!(raised.len(), 1, "{raised:?}");
    let s = w.engine.signal(&raised[0]).await.unwrap();
    assert_eq!((s.kind.as_str(), s.entity.as_deref()), ("check:cron", Some("lxc:caddy")));
    assert!(s.message.contains("cron is failed"), "{s:?}");
    assert_eq!(notified(&w).await, 1);
    nomos_lab::fault(&lab, "pve1", &Fault::Clear).unwrap();
    cycles(&w, &observer, 2, 30).await;
    assert_eq!(w.engine.signal(&s.id).await.unwrap().state, SignalState::Resolved);

    // A unit flapping for ten minutes: at most one notification.
    tick(&w, 3600);
    let before = notified(&w).await;
    nomos_lab::fault(&lab, "pve2", &Fault::Flap { unit: "pvedaemon".into(), period_secs: 90, guest: None }).unwrap();
    for _ in 0..20 {
        // The stand-in flaps by the real clock; the signals follow the engine's.
        std::thread::sleep(std::time::Duration::from_millis(4500));
        cycles(&w, &observer, 1, 30).await;
    }
    assert!(notified(&w).await - before <= 1, "{}", notified(&w).await - before);
    nomos_lab::fault(&lab, "pve2", &Fault::Clear).unwrap();
    cycles(&w, &observer, 2, 30).await;

    // A guest stopped by a backup (`lock: backup`): no signal, no notification.
    tick(&w, 3600);
    let before = notified(&w).await;
    nomos_lab::fault(&lab, "pve1", &Fault::StopGuest { vmid: 101, backup: true }).unwrap();
    let raised = cycles(&w, &observer, 4, 30).await;
    assert!(raised.is_empty(), "{raised:?}");
    assert_eq!(notified(&w).await, before);
    nomos_lab::fault(&lab, "pve1", &Fault::Clear).unwrap();
    cycles(&w, &observer, 2, 30).await;

    // An approved plan stopping a service: its signal is shown as maintenance, never notified.
    tick(&w, 3600);
    let before = notified(&w).await;
    w.engine.add_check(&spec("host:pve2", "cron", "cron")).await.unwrap();
    let task = w.task("Move the cron jobs").await;
    // The plan approved, its destructive step on pve2 confirmed.
    w.act.open_window(&task, WindowKind::Assent, None, &support::operator()).await.unwrap();
    w.act.open_window(&task, WindowKind::Destructive, Some("host:pve2"), &support::operator()).await.unwrap();
    let stop = RunRequest {
        target: "host:pve2".into(),
        command: "systemctl stop cron".into(),
        purpose: "stop it for the upgrade".into(),
        task_id: Some(task.clone()),
        requested_by: "agent:nomos".into(),
        ..RunRequest::default()
    };
    let x = w.act.run(stop).await.unwrap();
    assert_eq!(x.execution().status, nomos::types::ExecutionStatus::Completed, "{:?}", x.execution());
    let raised = cycles(&w, &observer, 2, 30).await;
    assert!(!raised.is_empty());
    let s = w.engine.signal(&raised[0]).await.unwrap();
    assert_eq!(s.maintenance.as_deref(), Some(task.as_str()), "{s:?}");
    assert_eq!(notified(&w).await, before);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn certificates_updates_and_backups_are_read_on_their_slower_clocks() {
    let w = World::start(2, true, ActuateConfig::default()).await;
    let lab = w.lab.dir().to_path_buf();
    let apply = Some(ApplyBy::Operator("operator:test".into()));
    w.act.discover("host:pve1", DiscoverOptions { apply }).await.unwrap();
    let observer = Observer::new().unwrap();
    let first = w.act.observe_once(&observer).await.unwrap();
    assert!(first.warnings.is_empty(), "{:?}", first.warnings);
    let last = |slug: &'static str, metric: &'static str| {
        let engine = w.engine.clone();
        async move { engine.query_metrics(slug, Some(metric), MetricRange::Hour).await.unwrap()[0].last.unwrap() }
    };
    assert!(last("host:pve1", "cert_days_left").await > 300.0);
    assert!(last("lxc:caddy", "backup_age_hours").await < 48.0);
    assert!(last("host:pve2", "updates_pending").await >= 0.0);
    // Not read again within the hour (nor the backups within the day).
    let quiet = w.act.observe_once(&observer).await.unwrap();
    assert!(quiet.commands < first.commands, "{} vs {}", quiet.commands, first.commands);

    // A certificate about to expire and a guest without a backup: signals at their next read.
    nomos_lab::fault(&lab, "pve2", &Fault::CertExpire { days: 2 }).unwrap();
    nomos_lab::fault(&lab, "pve1", &Fault::NoBackup { vmid: 101 }).unwrap();
    tick(&w, 86_400);
    let r = w.act.observe_once(&observer).await.unwrap();
    let kinds: Vec<(String, Option<String>, String)> = {
        let mut v = Vec::new();
        for id in &r.raised {
            let s = w.engine.signal(id).await.unwrap();
            v.push((s.kind, s.entity, s.severity.to_string()));
        }
        v
    };
    assert!(kinds.contains(&("certificate".into(), Some("host:pve2".into()), "critical".into())), "{kinds:?}");
    assert!(kinds.contains(&("backup".into(), Some("lxc:caddy".into()), "warning".into())), "{kinds:?}");
}
