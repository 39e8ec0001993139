//! The one [`Runtime`] a process builds: it opens the store on its clock, loads the policy,
//! builds the actuator, and runs the background work — the same way in the command line, the
//! desktop and the tests.
//!
//! ```no_run
//! # async fn demo() -> nomos::Result<()> {
//! use nomos::{Runtime, RuntimeConfig};
//! let rt = Runtime::open(RuntimeConfig::new(nomos::store::resolve_path(None)?)).await?;
//! rt.start_background(); // desktop, `nomos agent serve`: sweeps, other writers' events, continuations
//! let hosts = rt.engine().list_entities(&Default::default()).await?;
//! rt.close().await;
//! # Ok(()) }
//! ```

use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use nomos_types::{EngineEvent, TransientEvent};
use tokio::sync::broadcast;
use tokio::task::JoinHandle;

use crate::actuate::{ActuateConfig, Actuator};
use crate::clock::{Clock, SystemClock};
use crate::policy::{Policy, PolicyError};
use crate::{events, Engine, Result};

/// Where the classifier's policy comes from. Every source includes the built-in rules and the
/// additions shipped in `seeds/policy.yaml`.
#[derive(Debug, Clone, Default)]
pub enum PolicySource {
    /// Plus the operator's additions: `$OIKOS_POLICY`, else `<config dir>/oikos/policy.yaml` when
    /// it exists. A file that is named but missing, or unreadable, or invalid is an error — never
    /// silently replaced by the built-in policy.
    #[default]
    Operator,
    /// Plus the additions in this file.
    File(PathBuf),
    /// Nothing more.
    Builtin,
}

impl PolicySource {
    pub fn load(&self) -> Result<Policy, PolicyError> {
        match self {
            PolicySource::Operator => Policy::load(),
            PolicySource::File(path) => Policy::with_file(path),
            PolicySource::Builtin => Ok(Policy::builtin().clone()),
        }
    }
}

/// What a [`Runtime`] is built from.
#[derive(Debug, Clone)]
pub struct RuntimeConfig {
    /// The database file (see [`crate::store::resolve_path`]).
    pub db: PathBuf,
    /// Where every timestamp comes from.
    pub clock: Arc<dyn Clock>,
    pub actuate: ActuateConfig,
    pub policy: PolicySource,
    /// How often the background work expires overdue approvals and fails executions whose process
    /// died …
    pub sweep_every: Duration,
    /// … and announces the events other processes wrote to the same database.
    pub follow_every: Duration,
    /// How often the background work looks for tasks to continue even when no event woke it (a
    /// safety net; an ended execution or a decided approval wakes it at once).
    pub continue_every: Duration,
}

impl RuntimeConfig {
    /// The database at `db`, the system clock, the operator's policy and the default limits.
    pub fn new(db: impl Into<PathBuf>) -> RuntimeConfig {
        RuntimeConfig {
            db: db.into(),
            clock: Arc::new(SystemClock),
            actuate: ActuateConfig::default(),
            policy: PolicySource::Operator,
            sweep_every: Duration::from_secs(30),
            follow_every: Duration::from_secs(1),
            continue_every: Duration::from_secs(5),
        }
    }
}

/// The engine, the policy, the actuator, the clock and the background work of one process.
/// Cheap to clone; clones share everything.
#[derive(Clone, Debug)]
pub struct Runtime {
    inner: Arc<Inner>,
}

#[derive(Debug)]
struct Inner {
    engine: Engine,
    actuator: Actuator,
    agent: crate::agent::Agent,
    sweep_every: Duration,
    follow_every: Duration,
    continue_every: Duration,
    background: Mutex<Vec<JoinHandle<()>>>,
}

impl Runtime {
    /// Loads the policy, then opens (creating and migrating as needed) the database. Either
    /// failing is an error with a one-line message for the operator.
    pub async fn open(config: RuntimeConfig) -> Result<Runtime> {
        // First: a bad policy file must not leave a new, empty database behind.
        let policy = config.policy.load()?;
        let engine = Engine::open_with_clock(&config.db, config.clock).await?;
        let actuator = Actuator::new(engine.clone(), Arc::new(policy), config.actuate);
        let agent = crate::agent::Agent::new(engine.clone(), actuator.clone());
        // Unreadable stored settings leave the provider to the environment; the settings page
        // shows the error and saving fixes it.
        match engine.provider_settings().await {
            Ok(settings) => agent.use_settings(settings),
            Err(e) => tracing::warn!("the stored provider settings are ignored: {e}"),
        }
        Ok(Runtime {
            inner: Arc::new(Inner {
                engine,
                actuator,
                agent,
                sweep_every: config.sweep_every,
                follow_every: config.follow_every,
                continue_every: config.continue_every,
                background: Mutex::default(),
            }),
        })
    }

    pub fn engine(&self) -> &Engine {
        &self.inner.engine
    }

    pub fn actuator(&self) -> &Actuator {
        &self.inner.actuator
    }

    /// Nomos. Its provider is configured on first use; until then a missing one is no error.
    pub fn agent(&self) -> &crate::agent::Agent {
        &self.inner.agent
    }

    pub fn clock(&self) -> &Arc<dyn Clock> {
        self.inner.engine.clock()
    }

    pub fn policy(&self) -> &Policy {
        self.inner.actuator.policy()
    }

    /// Stored events, from now on (this process's, and — with the background work started —
    /// other processes').
    pub fn subscribe(&self) -> broadcast::Receiver<EngineEvent> {
        self.inner.engine.subscribe()
    }

    /// Transient events (never stored), from now on.
    pub fn subscribe_transient(&self) -> broadcast::Receiver<TransientEvent> {
        self.inner.engine.subscribe_transient()
    }

    /// Housekeeping once: expires overdue approvals, fails executions whose process died, and
    /// turns tasks whose worker stopped (an expired lease) into waiting.
    pub async fn sweep(&self) -> Result<Swept> {
        sweep_once(&self.inner.actuator, &self.inner.engine).await
    }

    /// Starts the background work on the current tokio runtime (call it from inside one): a
    /// sweep now and then every `sweep_every`, following other processes' writes every
    /// `follow_every`, and continuing tasks (see [`crate::agent::continuation`]) whenever an
    /// execution ends or an approval is decided — here or, through the follower, in another
    /// process — and every `continue_every` besides. Each continued task's turn runs in a task of
    /// its own; discovery's cycle on the hosts it follows ([`crate::discovery`]); and Observe's
    /// collection cycle ([`crate::observe`]). Starting it again does nothing; [`Runtime::close`] stops it (and the turns it
    /// runs: call [`crate::agent::Agent::stop`] first to let them leave their tasks waiting).
    pub fn start_background(&self) {
        let mut tasks = self.inner.background.lock().unwrap_or_else(|e| e.into_inner());
        if !tasks.is_empty() {
            return;
        }
        let store = self.inner.engine.store().clone();
        tasks.push(tokio::spawn(events::watch_other_writers(store, self.inner.follow_every)));
        let act = self.inner.actuator.clone();
        let engine = self.inner.engine.clone();
        let every = self.inner.sweep_every;
        tasks.push(tokio::spawn(async move {
            let mut tick = tokio::time::interval(every);
            tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
            loop {
                tick.tick().await;
                match sweep_once(&act, &engine).await {
                    Ok(swept) if swept == Swept::default() => {}
                    Ok(swept) => tracing::info!(?swept, "swept approvals, executions and tasks"),
                    Err(e) => tracing::warn!("sweep failed: {e}"),
                }
            }
        }));
        tasks.push(tokio::spawn(continue_tasks(self.clone(), self.inner.continue_every)));
        tasks.push(tokio::spawn(crate::discovery::cycle(self.inner.actuator.clone())));
        let investigator: std::sync::Arc<dyn crate::observe::cycle::Investigator> = std::sync::Arc::new(self.clone());
        tasks.push(tokio::spawn(crate::observe::cycle::run(self.inner.actuator.clone(), Some(investigator))));
    }

    /// Stops what this process runs on hosts (the operator pressed Ctrl-C): each command is killed
    /// on its host and recorded as cancelled. Returns how many.
    pub fn cancel_running(&self) -> usize {
        self.inner.actuator.cancel_running()
    }

    /// Stops the background work and closes the database.
    pub async fn close(&self) {
        let tasks = std::mem::take(&mut *self.inner.background.lock().unwrap_or_else(|e| e.into_inner()));
        for t in tasks {
            t.abort();
        }
        self.inner.engine.store().close().await;
    }
}

impl crate::observe::cycle::Investigator for Runtime {
    fn can_think(&self) -> bool {
        self.agent().provider().is_ok()
    }

    fn start(&self, task: String) {
        let rt = self.clone();
        tokio::spawn(async move {
            match rt.agent().run(&task).await {
                Ok((t, end)) => tracing::info!(task, status = %t.status, "automatic investigation: {end:?}"),
                Err(e) => tracing::warn!(task, "automatic investigation did not run: {e}"),
            }
        });
    }
}

/// Whether `event` may make a task due to continue.
fn may_continue(event: &EngineEvent) -> bool {
    matches!(event.kind(), "execution.finished" | "approval.decided")
}

/// The continuation loop of [`Runtime::start_background`]: wakes on the events that end a linked
/// execution and on a timer, claims what is due, and runs each task's turn in a task of its own
/// (aborted with this loop).
async fn continue_tasks(rt: Runtime, every: Duration) {
    let mut events = rt.subscribe();
    let mut tick = tokio::time::interval(every);
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    let mut turns = tokio::task::JoinSet::new();
    loop {
        tokio::select! {
            _ = tick.tick() => {}
            e = events.recv() => match e {
                Ok(e) if may_continue(&e) => {}
                Ok(_) => continue,
                Err(broadcast::error::RecvError::Lagged(_)) => {}
                Err(broadcast::error::RecvError::Closed) => return,
            },
            Some(_) = turns.join_next() => continue,
        }
        let due = match rt.agent().claim_continuations(None).await {
            Ok(due) => due,
            Err(e) => {
                tracing::warn!("looking for tasks to continue failed: {e}");
                continue;
            }
        };
        for task in due {
            let rt = rt.clone();
            turns.spawn(async move {
                match rt.agent().resume(&task).await {
                    Ok(Some(c)) => tracing::info!(task, end = ?c.end, "continued"),
                    Ok(None) => {}
                    Err(e) => tracing::warn!(task, "continuing failed: {e}"),
                }
            });
        }
    }
}

/// What one sweep changed.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Swept {
    pub approvals_expired: usize,
    pub executions_interrupted: usize,
    pub tasks_interrupted: usize,
}

async fn sweep_once(actuator: &Actuator, engine: &Engine) -> Result<Swept> {
    let (approvals_expired, executions_interrupted) = actuator.sweep().await?;
    let tasks_interrupted = engine.sweep_task_leases().await?;
    Ok(Swept { approvals_expired, executions_interrupted, tasks_interrupted })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::clock::ManualClock;
    use crate::graph::entities::NewEntity;

    fn config(dir: &std::path::Path) -> RuntimeConfig {
        RuntimeConfig { policy: PolicySource::Builtin, ..RuntimeConfig::new(dir.join("oikos.db")) }
    }

    #[tokio::test]
    async fn a_bad_policy_file_is_an_error_and_leaves_no_database() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("policy.yaml");
        std::fs::write(&file, "read_only: [{program: /x}]").unwrap();
        let cfg = RuntimeConfig { policy: PolicySource::File(file.clone()), ..config(dir.path()) };
        let err = Runtime::open(cfg.clone()).await.unwrap_err();
        assert_eq!(err.code(), "policy");
        assert!(err.to_string().contains("bare program name"), "{err}");
        assert!(err.to_string().contains(&file.display().to_string()), "{err}");
        assert!(!cfg.db.exists());

        let missing = RuntimeConfig { policy: PolicySource::File(dir.path().join("nope.yaml")), ..config(dir.path()) };
        let err = Runtime::open(missing).await.unwrap_err();
        assert!(err.to_string().contains("nope.yaml"), "{err}");
    }

    #[tokio::test]
    async fn the_runtime_runs_on_its_clock_and_its_background_follows_other_writers() {
        let dir = tempfile::tempdir().unwrap();
        let clock = ManualClock::at(0);
        let cfg = RuntimeConfig {
            clock: clock.clone(),
            follow_every: Duration::from_millis(20),
            sweep_every: Duration::from_millis(20),
            ..config(dir.path())
        };
        let rt = Runtime::open(cfg.clone()).await.unwrap();
        assert_eq!(rt.clock().now(), "1970-01-01T00:00:00.000Z");
        assert_eq!(rt.sweep().await.unwrap(), Swept::default());
        let mut rx = rt.subscribe();
        rt.start_background();
        rt.start_background();
        assert_eq!(rt.inner.background.lock().unwrap().len(), 5, "started once");

        // Another process (here: another runtime on the same file) writes.
        let other = Runtime::open(cfg).await.unwrap();
        other.engine().create_entity(NewEntity::new("host", "pve9")).await.unwrap();
        let ev = tokio::time::timeout(Duration::from_secs(5), rx.recv()).await.unwrap().unwrap();
        assert_eq!(ev.kind(), "entity.created");
        assert_eq!(ev.entity_slug.as_deref(), Some("host:pve9"));
        assert_eq!(ev.created_at, "1970-01-01T00:00:00.000Z");
        rt.close().await;
        assert!(rt.inner.background.lock().unwrap().is_empty());
        assert_eq!(rt.cancel_running(), 0);
    }
}
