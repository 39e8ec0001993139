//! What the desktop reads about the gate: waiting approvals, executions, the audit ledger and
//! autonomy. Each answer that shows time left carries the engine's `now`, so a view counts down
//! from the engine's clock rather than the webview's.

use serde::{Deserialize, Serialize};

use crate::{Approval, AutonomyWindow, Channel, ExecutionStatus, Json, Risk};

/// Approvals waiting for the operator, oldest first, as of `now`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PendingApprovals {
    pub approvals: Vec<Approval>,
    /// The engine's time when this was read (`YYYY-MM-DDTHH:MM:SS.mmmZ`).
    pub now: String,
}

/// Which executions to list. Every filter is optional; `limit` defaults to 50 (at most 500).
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct ExecutionQuery {
    #[serde(default)]
    pub task_id: Option<String>,
    /// The target's slug (`lxc:caddy`).
    #[serde(default)]
    pub target: Option<String>,
    #[serde(default)]
    pub status: Option<ExecutionStatus>,
    #[serde(default)]
    pub limit: Option<u32>,
}

/// Which ledger lines to read. `actor` is a whole actor (`operator:ann`, `agent:nomos`) or a kind
/// of actor (`operator`, `agent`, `system`).
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct AuditQuery {
    #[serde(default)]
    pub task_id: Option<String>,
    #[serde(default)]
    pub target: Option<String>,
    #[serde(default)]
    pub actor: Option<String>,
    #[serde(default)]
    pub risk: Option<Risk>,
    /// Defaults to 50 (at most 500).
    #[serde(default)]
    pub limit: Option<u32>,
    #[serde(default)]
    pub offset: Option<u32>,
}

/// One line of the append-only audit ledger.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AuditEntry {
    pub id: i64,
    pub at: String,
    /// `operator`, `agent` or `system`.
    pub actor_type: String,
    pub actor: String,
    pub channel: Option<Channel>,
    /// `approval.approved`, `execution.started`, `window.opened` …
    pub action: String,
    /// The entity it concerns (an execution's target).
    pub target: Option<String>,
    pub task_id: Option<String>,
    pub execution_id: Option<String>,
    /// The risk recorded with the line, when it has one.
    pub risk: Option<Risk>,
    pub detail: Json,
}

/// Autonomy now: whether it is paused and the windows open, as of `now`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Autonomy {
    pub paused: bool,
    pub windows: Vec<AutonomyWindow>,
    /// The engine's time when this was read.
    pub now: String,
}
