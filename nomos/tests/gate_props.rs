//! The gate's invariant under random operation sequences, against the lab's real sshd:
//! every non-read-only command that ran had an approval, or an open window of the same task
//! (and the same target, for destructive ones).
//!
//! A small model of windows and approvals predicts each step; the engine must agree both ways
//! (it runs exactly what the model allows, and queues the rest). Ground truth of what ran is a
//! file each mutating command appends its tag to, checked against the records at the end.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::collections::BTreeSet;
use std::path::Path;
use std::sync::Arc;

use nomos::actuate::{Decision, RunOutcome, RunRequest};
use nomos::clock::ManualClock;
use nomos::types::{Channel, ExecutionStatus, WindowKind};
use nomos::{Engine, PolicySource, Runtime, RuntimeConfig};
use nomos_lab::{Lab, LabConfig};
use proptest::prelude::*;
use proptest::test_runner::{Config, TestRunner};

const TASKS: usize = 2;
const HOSTS: [&str; 2] = ["pve1", "pve2"];
const MINUTE: i64 = 60_000;

#[derive(Debug, Clone, Copy, PartialEq)]
enum Kind {
    ReadOnly,
    Mutation,
    Destructive,
}

#[derive(Debug, Clone)]
enum Op {
    Run {
        task: Option<usize>,
        host: usize,
        kind: Kind,
    },
    /// The same request as a waiting one, asked again.
    Repeat {
        pick: usize,
    },
    Approve {
        pick: usize,
        confirm: bool,
        chat: bool,
    },
    Deny {
        pick: usize,
    },
    Cancel {
        pick: usize,
    },
    Advance {
        minutes: i64,
    },
    Open {
        task: usize,
        destructive_on: Option<usize>,
    },
    Revoke {
        task: Option<usize>,
    },
    Pause(bool),
}

fn op() -> impl Strategy<Value = Op> {
    let kind = prop_oneof![Just(Kind::ReadOnly), Just(Kind::Mutation), Just(Kind::Destructive)];
    prop_oneof![
        5 => (proptest::option::weighted(0.8, 0..TASKS), 0..HOSTS.len(), kind)
            .prop_map(|(task, host, kind)| Op::Run { task, host, kind }),
        3 => (0..8usize).prop_map(|pick| Op::Repeat { pick }),
        3 => (0..8usize, proptest::bool::weighted(0.7), any::<bool>())
            .prop_map(|(pick, confirm, chat)| Op::Approve { pick, confirm, chat }),
        1 => (0..8usize).prop_map(|pick| Op::Deny { pick }),
        1 => (0..8usize).prop_map(|pick| Op::Cancel { pick }),
        1 => prop_oneof![1i64..20, 25i64..70].prop_map(|minutes| Op::Advance { minutes }),
        2 => (0..TASKS, proptest::option::weighted(0.4, 0..HOSTS.len()))
            .prop_map(|(task, destructive_on)| Op::Open { task, destructive_on }),
        1 => proptest::option::of(0..TASKS).prop_map(|task| Op::Revoke { task }),
        1 => any::<bool>().prop_map(Op::Pause),
    ]
}

/// A request waiting for the operator.
#[derive(Clone)]
struct Waiting {
    approval: String,
    execution: String,
    command: String,
    tag: u32,
    task: Option<usize>,
    host: usize,
    kind: Kind,
    created: i64,
}

/// What the model believes.
#[derive(Default)]
struct Model {
    now: i64,
    paused: bool,
    /// (task, destructive target or None for assent, expires at)
    windows: Vec<(usize, Option<usize>, i64)>,
    pending: Vec<Waiting>,
    /// Tags expected in the marks files.
    ran: BTreeSet<u32>,
}

impl Model {
    fn window_allows(&self, task: Option<usize>, host: usize, kind: Kind) -> bool {
        let Some(task) = task else { return false };
        !self.paused
            && self.windows.iter().any(|(t, target, expires)| {
                *t == task
                    && *expires > self.now
                    && match kind {
                        Kind::ReadOnly => true,
                        Kind::Mutation => target.is_none(),
                        Kind::Destructive => *target == Some(host),
                    }
            })
    }

    fn open(&mut self, task: usize, target: Option<usize>) {
        let length = if target.is_some() { 15 } else { 30 };
        self.windows.push((task, target, self.now + length * MINUTE));
    }
}

fn request(tasks: &[String], task: Option<usize>, host: usize, command: &str) -> RunRequest {
    RunRequest {
        target: format!("host:{}", HOSTS[host]),
        command: command.to_string(),
        purpose: "prop".into(),
        task_id: task.map(|t| tasks[t].clone()),
        requested_by: "agent:nomos".into(),
        ..Default::default()
    }
}

fn decision(message: Option<String>) -> Decision {
    Decision { actor: "operator:prop".into(), channel: Channel::Ui, message }
}

async fn check(lab: &Lab, dir: &Path, case: usize, ops: &[Op]) -> Result<(), TestCaseError> {
    let db = dir.join(format!("case-{case}.db"));
    let clock = ManualClock::new();
    let config = RuntimeConfig { clock: clock.clone(), policy: PolicySource::Builtin, ..RuntimeConfig::new(&db) };
    let rt = Runtime::open(config).await.unwrap();
    let (engine, act) = (rt.engine().clone(), rt.actuator().clone());
    engine.import_inventory_file(&lab.inventory_path()).await.unwrap();
    for h in HOSTS {
        act.present_key(&format!("host:{h}")).await.unwrap();
        act.trust_host(&format!("host:{h}"), None, &decision(None)).await.unwrap();
    }
    let mut tasks = Vec::new();
    for i in 0..TASKS {
        tasks.push(engine.create_task(&format!("task {i}"), "prop").await.unwrap().id);
    }
    let marks = dir.join(format!("case-{case}.marks"));
    let scratch = dir.join(format!("case-{case}.scratch"));
    let mut m = Model::default();
    let mut tag = 0u32;

    for op in ops {
        match op.clone() {
            Op::Run { task, host, kind } => {
                tag += 1;
                let command = match kind {
                    Kind::ReadOnly => format!("echo t{tag}"),
                    Kind::Mutation => format!("echo t{tag} >> '{}'", marks.display()),
                    Kind::Destructive => {
                        format!("rm -rf '{}/d{tag}'; echo t{tag} >> '{}'", scratch.display(), marks.display())
                    }
                };
                let expect_run = kind == Kind::ReadOnly || m.window_allows(task, host, kind);
                match act.run(request(&tasks, task, host, &command)).await.unwrap() {
                    RunOutcome::Ran(x) => {
                        prop_assert!(expect_run, "{op:?} ran ({:?}) but the model has no grant for it", x.granted_by);
                        prop_assert_eq!(x.status, ExecutionStatus::Completed, "{:?}", x.error);
                        if kind != Kind::ReadOnly {
                            m.ran.insert(tag);
                        }
                    }
                    RunOutcome::Queued { approval, execution, .. } => {
                        prop_assert!(!expect_run, "{op:?} was queued though the model has a window");
                        m.pending.push(Waiting {
                            approval: approval.id.clone(),
                            execution: execution.id.clone(),
                            command,
                            tag,
                            task,
                            host,
                            kind,
                            created: m.now,
                        });
                    }
                }
            }
            Op::Repeat { pick } => {
                if m.pending.is_empty() {
                    continue;
                }
                let w = m.pending.remove(pick % m.pending.len());
                let expired = m.now >= w.created + 60 * MINUTE;
                let allowed = m.window_allows(w.task, w.host, w.kind);
                match act.run(request(&tasks, w.task, w.host, &w.command)).await.unwrap() {
                    RunOutcome::Ran(x) => {
                        prop_assert!(allowed, "a repeated request ran without a window");
                        prop_assert_eq!(x.status, ExecutionStatus::Completed, "{:?}", x.error);
                        if !expired {
                            prop_assert_eq!(&x.id, &w.execution, "the waiting execution should have run");
                        }
                        m.ran.insert(w.tag);
                    }
                    RunOutcome::Queued { approval, execution, existing } => {
                        prop_assert!(!allowed, "a repeated request waits though a window covers it");
                        prop_assert_eq!(existing, !expired);
                        m.pending.push(Waiting {
                            approval: approval.id.clone(),
                            execution: execution.id.clone(),
                            created: if expired { m.now } else { w.created },
                            ..w
                        });
                    }
                }
            }
            Op::Approve { pick, confirm, chat } => {
                if m.pending.is_empty() {
                    continue;
                }
                let w = m.pending.remove(pick % m.pending.len());
                let message = if confirm {
                    Some(format!("confirm {}", HOSTS[w.host]))
                } else if chat {
                    Some("yes".to_string())
                } else {
                    None
                };
                let d = Decision {
                    actor: "operator:prop".into(),
                    channel: if chat { Channel::Chat } else { Channel::Ui },
                    message,
                };
                let expired = m.now >= w.created + 60 * MINUTE;
                let result = act.approve(&w.approval, &d).await;
                if expired {
                    prop_assert!(result.is_err(), "approving an expired request succeeded");
                } else if w.kind == Kind::Destructive && !confirm {
                    prop_assert!(result.is_err(), "destructive approved without a confirmation");
                    m.pending.push(w);
                } else {
                    let x = result.unwrap();
                    prop_assert_eq!(x.status, ExecutionStatus::Completed, "{:?}", x.error);
                    m.ran.insert(w.tag);
                    if let (Some(task), false) = (w.task, m.paused) {
                        m.open(task, None);
                        if w.kind == Kind::Destructive {
                            m.open(task, Some(w.host));
                        }
                    }
                }
            }
            Op::Deny { pick } | Op::Cancel { pick } => {
                if m.pending.is_empty() {
                    continue;
                }
                let id = m.pending.remove(pick % m.pending.len()).approval;
                let result = if matches!(op, Op::Deny { .. }) {
                    act.deny(&id, &decision(None)).await.map(|_| ())
                } else {
                    let a = act.approval(&id).await.unwrap();
                    act.cancel(&a.execution_id, &decision(None)).await.map(|_| ())
                };
                // Either it is closed now, or it had expired already: it never runs.
                let a = act.approval(&id).await.unwrap();
                // Closed now, or it had expired already: either way it never runs.
                let expected = if result.is_ok() {
                    if matches!(op, Op::Deny { .. }) {
                        "denied"
                    } else {
                        "cancelled"
                    }
                } else {
                    "expired"
                };
                prop_assert_eq!(a.status.as_str(), expected, "{:?}", result);
            }
            Op::Advance { minutes } => {
                clock.advance_ms(minutes * MINUTE);
                m.now += minutes * MINUTE;
            }
            Op::Open { task, destructive_on } => {
                let (kind, target) = match destructive_on {
                    Some(h) => (WindowKind::Destructive, Some(format!("host:{}", HOSTS[h]))),
                    None => (WindowKind::Assent, None),
                };
                let result = act.open_window(&tasks[task], kind, target.as_deref(), &decision(None)).await;
                if m.paused {
                    prop_assert!(result.is_err(), "a window opened while paused");
                } else {
                    result.unwrap();
                    m.open(task, destructive_on);
                }
            }
            Op::Revoke { task } => {
                act.revoke_windows(task.map(|t| tasks[t].as_str()), &decision(None)).await.unwrap();
                m.windows.retain(|(t, ..)| task.is_some_and(|x| x != *t));
            }
            Op::Pause(p) => {
                act.set_paused(p, &decision(None)).await.unwrap();
                m.paused = p;
                if p {
                    m.windows.clear();
                }
            }
        }
    }

    // What really ran is exactly what the model allowed …
    let written: BTreeSet<u32> = std::fs::read_to_string(&marks)
        .unwrap_or_default()
        .lines()
        .map(|l| l.trim_start_matches('t').parse().unwrap())
        .collect();
    prop_assert_eq!(&written, &m.ran);
    // … and each of those records its grant: an approval of it, or a window of its task (and
    // target) that was open when it started.
    let executions = act.executions(None, None, 10_000).await.unwrap();
    for x in executions.iter().filter(|x| x.risk != nomos::types::Risk::ReadOnly) {
        let ran = x.started_at.is_some();
        let grant = x.granted_by.clone().unwrap_or_default();
        if !ran {
            prop_assert!(grant.is_empty(), "{} has a grant but never started", x.id);
            continue;
        }
        if let Some(w) = grant.strip_prefix("window:") {
            let win = act_window(&engine, w).await;
            prop_assert_eq!(Some(&win.0), x.task_id.as_ref(), "window of another task");
            if x.risk == nomos::types::Risk::Destructive {
                prop_assert_eq!(win.1.as_str(), "destructive");
                prop_assert_eq!(win.2.as_deref(), Some(x.target.as_str()), "destructive window of another target");
            } else {
                prop_assert_eq!(win.1.as_str(), "assent");
            }
            let started = x.started_at.clone().unwrap();
            prop_assert!(win.3 <= started && started < win.4, "window not open at the start");
        } else {
            let a = act.approval(&grant).await.unwrap();
            prop_assert_eq!(&a.execution_id, &x.id);
            prop_assert_eq!(a.status.as_str(), "approved");
        }
    }
    rt.close().await;
    Ok(())
}

/// (task, kind, target, opened_at, expires_at) of a window.
async fn act_window(engine: &Engine, id: &str) -> (String, String, Option<String>, String, String) {
    sqlx::query_as("SELECT task_id, kind, target_slug, opened_at, expires_at FROM autonomy_windows WHERE id = ?")
        .bind(id)
        .fetch_one(engine.store().pool())
        .await
        .unwrap()
}

#[test]
fn every_change_that_ran_had_a_grant_of_its_own_task() {
    let tmp = tempfile::tempdir().unwrap();
    let mut config = LabConfig::new(tmp.path().join("lab"));
    config.hosts = HOSTS.len();
    let lab = Lab::start(config).unwrap();
    let rt = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().unwrap();
    let cases: u32 = std::env::var("GATE_PROP_CASES").ok().and_then(|v| v.parse().ok()).unwrap_or(96);
    let mut runner = TestRunner::new(Config { cases, failure_persistence: None, ..Config::default() });
    let case = Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let result = runner.run(&proptest::collection::vec(op(), 1..30), |ops| {
        let n = case.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        rt.block_on(check(&lab, tmp.path(), n, &ops))
    });
    if let Err(e) = result {
        panic!("{e}");
    }
}
