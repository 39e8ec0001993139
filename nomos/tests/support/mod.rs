//! What the gate's tests share: a world of lab hosts, a database and an actuator, and helpers to
//! ask, approve and look for processes; and what the agent's tests share ([`agent`]). Included by
//! the engine's tests and the command line's.
#![allow(dead_code, clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use nomos::actuate::{ActionOutcome, ActionRequest, ActuateConfig, Actuator, Decision, RunOutcome, RunRequest};
use nomos::clock::ManualClock;
use nomos::types::{Action, Channel, ExecutionStatus, Json};
use nomos::{Engine, PolicySource, Runtime, RuntimeConfig};
use nomos_lab::{Lab, LabConfig};
use tempfile::TempDir;

pub mod agent;
pub mod looks;

pub struct World {
    pub lab: Lab,
    /// The test's process: its runtime, and that runtime's engine and actuator.
    pub rt: Runtime,
    pub engine: Engine,
    pub act: Actuator,
    pub clock: Option<Arc<ManualClock>>,
    pub tmp: TempDir,
}

/// A runtime on `db` as a process would open it (the built-in policy; `clock`, else the system's).
pub async fn runtime(db: &Path, config: ActuateConfig, clock: Option<Arc<ManualClock>>) -> Runtime {
    let mut rc = RuntimeConfig { actuate: config, policy: PolicySource::Builtin, ..RuntimeConfig::new(db) };
    if let Some(clock) = clock {
        rc.clock = clock;
    }
    Runtime::open(rc).await.unwrap()
}

impl World {
    pub async fn start(hosts: usize, manual_clock: bool, config: ActuateConfig) -> World {
        let tmp = tempfile::tempdir().unwrap();
        let mut lab_config = LabConfig::new(tmp.path().join("lab"));
        lab_config.hosts = hosts;
        let lab = Lab::start(lab_config).unwrap();
        let clock = manual_clock.then(ManualClock::new);
        let rt = runtime(&tmp.path().join("oikos.db"), config, clock.clone()).await;
        rt.engine().import_inventory_file(&lab.inventory_path()).await.unwrap();
        let (engine, act) = (rt.engine().clone(), rt.actuator().clone());
        let w = World { lab, rt, engine, act, clock, tmp };
        for h in w.lab.hosts() {
            w.act.present_key(&format!("host:{}", h.name)).await.unwrap();
            w.act.trust_host(&format!("host:{}", h.name), None, &operator()).await.unwrap();
        }
        w
    }

    pub async fn default(hosts: usize) -> World {
        World::start(hosts, false, ActuateConfig::default()).await
    }

    /// The process started again on the same database: a new runtime (no connections yet).
    pub async fn restart(&mut self) {
        self.rt = runtime(&self.tmp.path().join("oikos.db"), self.act.config().clone(), self.clock.clone()).await;
        (self.engine, self.act) = (self.rt.engine().clone(), self.rt.actuator().clone());
    }

    pub async fn task(&self, title: &str) -> String {
        self.engine.create_task(title, "test goal").await.unwrap().id
    }

    /// A file the commands under test append to: the ground truth of what really ran.
    pub fn marks(&self, name: &str) -> PathBuf {
        self.tmp.path().join(format!("marks-{name}"))
    }

    pub fn read_marks(&self, name: &str) -> Vec<String> {
        std::fs::read_to_string(self.marks(name)).unwrap_or_default().lines().map(str::to_string).collect()
    }

    pub async fn run(&self, target: &str, command: &str, task: Option<&str>) -> RunOutcome {
        self.act.run(request(target, command, task)).await.unwrap()
    }
}

pub fn request(target: &str, command: &str, task: Option<&str>) -> RunRequest {
    RunRequest {
        target: target.into(),
        command: command.into(),
        purpose: "test".into(),
        task_id: task.map(str::to_string),
        requested_by: "agent:nomos".into(),
        ..Default::default()
    }
}

/// A curated action as the agent asks for it: its name and JSON parameters, checked on the way in.
pub async fn curated(
    act: &Actuator,
    target: &str,
    name: &str,
    params: Json,
    task: Option<&str>,
    purpose: &str,
) -> nomos::Result<ActionOutcome> {
    let action = Action::parse(name, params.as_object().unwrap())?;
    act.action(ActionRequest {
        target: target.into(),
        action,
        purpose: purpose.into(),
        task_id: task.map(str::to_string),
        requested_by: "agent:nomos".into(),
    })
    .await
}

pub fn operator() -> Decision {
    Decision { actor: "operator:test".into(), channel: Channel::Ui, message: None }
}

pub fn confirm(text: &str) -> Decision {
    Decision { message: Some(text.into()), ..operator() }
}

pub fn queued(o: RunOutcome) -> (String, String) {
    match o {
        RunOutcome::Queued { execution, approval, .. } => {
            assert_eq!(execution.status, ExecutionStatus::PendingApproval);
            (execution.id, approval.id)
        }
        RunOutcome::Ran(x) => {
            panic!("expected it to wait for approval, but it ran: {} ({:?})", x.command, x.granted_by)
        }
    }
}

pub fn ran(o: RunOutcome) -> nomos::types::Execution {
    match o {
        RunOutcome::Ran(x) => x,
        RunOutcome::Queued { execution, .. } => panic!("expected it to run, but it was queued: {}", execution.command),
    }
}

/// `sleep N.<random>`: a command line no other test (or anything else on the machine) shares, so
/// looking for it, or killing it, touches only this test's process.
pub fn unique_sleep(secs: u32) -> String {
    format!("sleep {secs}.{:05}", uuid::Uuid::new_v4().as_u128() % 100_000)
}

/// Whether no process with `pattern` in its command line is left (after a grace of up to 10 s,
/// for a loaded machine; a process that is gone answers at once).
pub fn no_process(pattern: &str) -> bool {
    for _ in 0..100 {
        let out = std::process::Command::new("pgrep").args(["-f", pattern]).output().unwrap();
        if out.stdout.is_empty() {
            return true;
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    false
}

/// The id of the first execution (of `task`) seen running, waiting up to 20 s for one.
pub async fn first_running(act: &Actuator, task: Option<&str>) -> String {
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        if let Some(x) = act.executions(task, Some(ExecutionStatus::Running), 1).await.unwrap().first() {
            return x.id.clone();
        }
        assert!(Instant::now() < deadline, "nothing started running");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

pub fn q(p: &Path) -> String {
    format!("'{}'", p.display())
}

pub async fn wait_final(act: &Actuator, id: &str) -> nomos::types::Execution {
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let x = act.execution(id).await.unwrap();
        if x.status.is_final() {
            return x;
        }
        assert!(Instant::now() < deadline, "execution {id} did not finish");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

pub fn no_process_now(pattern: &str) -> bool {
    std::process::Command::new("pgrep").args(["-f", pattern]).output().unwrap().stdout.is_empty()
}
