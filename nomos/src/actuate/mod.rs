//! Actuation: the one gated path by which anything runs on a host.
//!
//! [`Actuator::run`] classifies a command, lets it run at once if it only reads, inside an open
//! window of the same task (and target, for destructive ones), or else queues an approval; every
//! step is recorded in the executions table and the audit ledger and announced as an event.
//! Curated actions ([`curated`]) build their commands and call the same function. [`ssh`] is the
//! only code that opens an SSH channel.

pub mod curated;
mod gate;
mod records;
mod ssh;
pub mod target;

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use nomos_types::{Approval, Execution, Risk};

use crate::clock::{Clock, SystemClock};
use crate::policy::Policy;
use crate::Engine;

pub use curated::{ActionOutcome, ActionRequest};
pub(crate) use gate::withdraw_task_requests;
pub use gate::WITHHELD;
pub use ssh::{shell_quote, Cancel, SshConfig, SshError};

/// Cancels every execution running in this process (the operator pressed Ctrl-C): each is killed
/// on its host and recorded as cancelled by the code that runs it.
pub fn cancel_running_here() -> usize {
    let map = running().lock().unwrap_or_else(|e| e.into_inner());
    for c in map.values() {
        c.cancel();
    }
    map.len()
}

/// Cancel handles of the executions running in this process, whichever [`Actuator`] started them:
/// a cancel from any instance reaches them, and no instance takes them for interrupted.
fn running() -> &'static Mutex<HashMap<String, Cancel>> {
    static RUNNING: std::sync::OnceLock<Mutex<HashMap<String, Cancel>>> = std::sync::OnceLock::new();
    RUNNING.get_or_init(|| Mutex::new(HashMap::new()))
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

/// The gate and the executor, shared by the desktop, the CLI and the agent.
#[derive(Clone, Debug)]
pub struct Actuator {
    engine: Engine,
    ssh: Arc<ssh::SshPool>,
    clock: Arc<dyn Clock>,
    policy: Arc<Policy>,
    config: Arc<ActuateConfig>,
}

impl Actuator {
    pub fn new(engine: Engine, policy: Policy, config: ActuateConfig) -> Actuator {
        Actuator::with_clock(engine, policy, config, Arc::new(SystemClock))
    }

    pub fn with_clock(engine: Engine, policy: Policy, config: ActuateConfig, clock: Arc<dyn Clock>) -> Actuator {
        Actuator {
            engine,
            ssh: Arc::new(ssh::SshPool::new(config.ssh.clone())),
            clock,
            policy: Arc::new(policy),
            config: Arc::new(config),
        }
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
