//! Actuation: the one gated path by which anything runs on a host.
//!
//! [`Actuator::run`] classifies a command, lets it run at once if it only reads, inside an open
//! window of the same task (and target, for destructive ones), or else queues an approval; every
//! step is recorded in the executions table and the audit ledger and announced as an event.
//! Curated actions ([`curated`]) build their commands and call the same function.
//!
//! - `gate`: the gate's logic, one file per concern (request, decide, execute, cancel,
//!   approvals, windows, host keys, queries);
//! - `db`: the gate's SQL, one file per table;
//! - `ssh`: the only code that speaks SSH (its library is used nowhere else), called only by the gate's
//!   execute step;
//! - [`target`]: what a `host:`/`lxc:` target means as an endpoint and a command line.

pub mod curated;
pub(crate) mod db;
mod gate;
mod ssh;
pub mod target;

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use nomos_types::{Approval, Execution, Risk};

use crate::clock::Clock;
use crate::policy::Policy;
use crate::Engine;

pub use curated::{ActionOutcome, ActionRequest};
pub(crate) use gate::withdraw_task_requests;
pub use gate::{ProbeResult, WITHHELD};
pub use ssh::{shell_quote, Cancel, SshConfig, SshError};

/// The action recorded for a plain command (curated actions record their own name).
const PLAIN_RUN: &str = "run";

/// Cancel handles of the executions this actuator (and its clones) runs: a cancel reaches them
/// here, and the sweep never takes them for interrupted. Another actuator on the same database —
/// another process — sees them as running elsewhere and asks through the database.
#[derive(Debug, Clone, Default)]
struct Running(Arc<Mutex<HashMap<String, Cancel>>>);

impl Running {
    fn map(&self) -> std::sync::MutexGuard<'_, HashMap<String, Cancel>> {
        // A panic while holding this lock cannot leave the map inconsistent; keep using it.
        self.0.lock().unwrap_or_else(|e| e.into_inner())
    }
}

/// Limits of the gate and the executor.
#[derive(Debug, Clone)]
pub struct ActuateConfig {
    pub ssh: SshConfig,
    /// Default limit for one command (a call may ask for another).
    pub command_timeout: Duration,
    /// A pending approval nobody decided on expires after this.
    pub approval_ttl: Duration,
    /// How long a task's assent window stays open.
    pub assent_window: Duration,
    /// How long a task's destructive window on one target stays open.
    pub destructive_window: Duration,
}

impl Default for ActuateConfig {
    fn default() -> ActuateConfig {
        ActuateConfig {
            ssh: SshConfig::default(),
            command_timeout: Duration::from_secs(600),
            approval_ttl: Duration::from_secs(3600),
            assent_window: Duration::from_secs(30 * 60),
            destructive_window: Duration::from_secs(15 * 60),
        }
    }
}

/// A request to run a shell command (or a curated action's command) on a target.
#[derive(Debug, Clone, Default)]
pub struct RunRequest {
    /// `host:<slug>` or `lxc:<slug>`.
    pub target: String,
    pub command: String,
    /// One sentence for the operator.
    pub purpose: String,
    /// The requester's own view of the risk; it can only raise the classifier's.
    pub declared_risk: Option<Risk>,
    /// The task asking; without one no window can apply.
    pub task_id: Option<String>,
    /// Who asks (`agent:nomos`, `operator:cli` …).
    pub requested_by: String,
    /// Overrides the default command timeout (at most 24 h).
    pub timeout: Option<Duration>,
    /// Return as soon as it started; the result lands in the store and on the event bus.
    pub background: bool,
    /// Only a read-only command may run: anything else is refused and recorded in the ledger,
    /// never queued for approval (discovery and probes, which nobody is there to approve).
    pub read_only: bool,
    /// A routine read: a successful run keeps only the head of its output in the store (the caller
    /// still gets all of it), so reads repeated every few minutes do not grow the database.
    pub compact: bool,
}

/// What became of a request.
#[derive(Debug, Clone)]
pub enum RunOutcome {
    /// It ran (or, in the background, started); the execution says how it ended.
    Ran(Execution),
    /// It waits for the operator. `existing` when an identical request was already waiting.
    Queued { execution: Execution, approval: Box<Approval>, existing: bool },
}

impl RunOutcome {
    pub fn execution(&self) -> &Execution {
        match self {
            RunOutcome::Ran(e) | RunOutcome::Queued { execution: e, .. } => e,
        }
    }
}

/// An operator's decision on an approval.
#[derive(Debug, Clone)]
pub struct Decision {
    /// Who decided (`operator`, a user name).
    pub actor: String,
    pub channel: nomos_types::Channel,
    /// For chat, the operator's exact words; for a destructive approval, the typed confirmation.
    pub message: Option<String>,
}

impl Decision {
    /// A decision by the operator of this machine (`operator:<login>`), the same in the terminal,
    /// the desktop and chat, so the ledger names one person one way.
    pub fn by_operator(channel: nomos_types::Channel, message: Option<String>) -> Decision {
        let user = std::env::var("USER")
            .or_else(|_| std::env::var("USERNAME"))
            .ok()
            .map(|u| u.trim().to_string())
            .filter(|u| !u.is_empty());
        let actor = user.map_or_else(|| "operator".to_string(), |u| format!("operator:{u}"));
        Decision { actor, channel, message }
    }
}

/// The gate and the executor, shared by the desktop, the CLI and the agent. A process has one,
/// in its [`crate::Runtime`]; clones share its connections and what it runs. Its time is the
/// engine's clock.
#[derive(Clone, Debug)]
pub struct Actuator {
    engine: Engine,
    ssh: Arc<ssh::SshPool>,
    clock: Arc<dyn Clock>,
    policy: Arc<Policy>,
    config: Arc<ActuateConfig>,
    running: Running,
}

impl Actuator {
    pub fn new(engine: Engine, policy: Arc<Policy>, config: ActuateConfig) -> Actuator {
        Actuator {
            ssh: Arc::new(ssh::SshPool::new(config.ssh.clone())),
            clock: engine.clock().clone(),
            engine,
            policy,
            config: Arc::new(config),
            running: Running::default(),
        }
    }

    /// Cancels every execution this actuator runs (the operator pressed Ctrl-C): each is killed
    /// on its host and recorded as cancelled by the code that runs it. Returns how many.
    pub fn cancel_running(&self) -> usize {
        let map = self.running.map();
        for c in map.values() {
            c.cancel();
        }
        map.len()
    }

    /// The executions this actuator (this process) runs now, by id.
    pub fn running_here(&self) -> Vec<String> {
        self.running.map().keys().cloned().collect()
    }

    pub fn policy(&self) -> &Policy {
        &self.policy
    }

    pub fn engine(&self) -> &Engine {
        &self.engine
    }

    pub fn config(&self) -> &ActuateConfig {
        &self.config
    }

    pub fn clock(&self) -> &Arc<dyn Clock> {
        &self.clock
    }
}
