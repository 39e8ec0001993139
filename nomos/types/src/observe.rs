//! Observe on the wire: signals, metric series, checks, health and the overview, as the engine,
//! the command line and the desktop exchange them.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

use crate::{string_enum, Health, UnknownValue};

string_enum!(
    /// How bad a signal is.
    #[derive(schemars::JsonSchema)]
    Severity {
        Info => "info",
        Warning => "warning",
        Critical => "critical",
    }
);

string_enum!(
    /// Where a signal stands: open (raised, nobody has looked), acked (someone is on it, with a
    /// reason), muted (until a time), resolved (by hand or on recovery).
    #[derive(schemars::JsonSchema)]
    SignalState {
        Open => "open",
        Acked => "acked",
        Muted => "muted",
        Resolved => "resolved",
    }
);

string_enum!(
    /// The span of a metric query, and which tier answers it: raw samples for 1 h, 1-minute
    /// rollups for 24 h, 1-hour rollups for 30 d.
    #[derive(schemars::JsonSchema)]
    MetricRange {
        Hour => "1h",
        Day => "24h",
        Month => "30d",
    }
);

// `string_enum!` writes the variants, so `#[default]` cannot be put on one.
#[allow(clippy::derivable_impls)]
impl Default for MetricRange {
    fn default() -> Self {
        MetricRange::Hour
    }
}

impl MetricRange {
    pub fn seconds(self) -> i64 {
        match self {
            MetricRange::Hour => 3_600,
            MetricRange::Day => 86_400,
            MetricRange::Month => 30 * 86_400,
        }
    }
}

/// One open or past problem, once per fingerprint however often it fires.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Signal {
    pub id: String,
    /// The entity it is about (`lxc:caddy`), when it is about one.
    pub entity: Option<String>,
    pub entity_name: Option<String>,
    pub entity_type: Option<String>,
    /// The rule (`down`, `disk`, …) or `check:<name>`.
    pub kind: String,
    pub severity: Severity,
    pub state: SignalState,
    /// It opened and closed too often: one flapping signal instead of a signal per swing.
    pub flapping: bool,
    pub message: String,
    pub fingerprint: String,
    pub occurrences: i64,
    /// The last value the rule read, when it reads a number.
    pub value: Option<f64>,
    pub raised_at: String,
    pub last_seen_at: String,
    pub acked_at: Option<String>,
    pub ack_reason: Option<String>,
    pub acked_by: Option<String>,
    pub muted_until: Option<String>,
    pub resolved_at: Option<String>,
    /// Resolved: how long the problem lasted, in seconds.
    pub down_secs: Option<i64>,
    pub resolved_by: Option<String>,
    /// A signal of something this one depends on explains it (`host:pve1`): shown, not notified.
    pub suppressed_by: Option<String>,
    /// An approved plan is changing the entity (its task id): shown, not notified.
    pub maintenance: Option<String>,
    /// What depends on the entity (count and the first few names), for "affects 8: …".
    pub affects: i64,
    pub affects_names: Vec<String>,
    /// The task investigating it now (its id), while that task is still going.
    #[serde(default)]
    pub investigation: Option<String>,
    /// What Oikos wrote when the same problem was fixed before (newest note), read first.
    #[serde(default)]
    pub seen_before: Option<SeenBefore>,
}

/// A note written when a task resolved a signal with the same fingerprint.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SeenBefore {
    /// The note's slug (`knowledge:…`).
    pub knowledge: String,
    pub title: String,
    pub written_at: String,
}

/// A task opened on a signal, already researched (read-only).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Investigation {
    pub task_id: String,
    pub signal: Signal,
    /// False when the signal already had a task that is still going: that task is returned.
    pub created: bool,
    /// Opened by Observe itself (the opt-in for its severity), not by the operator.
    pub auto: bool,
    /// The research handed to Nomos as the task's first message.
    pub briefing: String,
}

/// Execution outcomes of one day.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct DayOutcomes {
    /// `YYYY-MM-DD` (UTC).
    pub day: String,
    pub succeeded: i64,
    pub failed: i64,
}

/// One action (`run` or a curated action): when it first worked, and how often.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Capability {
    pub action: String,
    pub first_success: Option<String>,
    pub successes: i64,
    pub total: i64,
    /// Executions judged against their plan step, and how many achieved it.
    pub judged: i64,
    pub achieved: i64,
}

/// Signals of one kind: how many, how fast they were resolved, and how often a problem came back.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct IncidentKind {
    pub kind: String,
    pub signals: i64,
    pub resolved: i64,
    /// Median time to resolve, in seconds (resolved ones).
    pub median_resolve_s: Option<i64>,
    /// How often a problem came back (a signal re-opened, or raised again later).
    pub repeats: i64,
    /// Resolved by a task Nomos ran.
    pub by_tasks: i64,
}

/// A note a task read, and how that task ended.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Recall {
    pub knowledge: String,
    pub title: String,
    pub task_id: String,
    pub task_title: String,
    /// `success`, `failure`, `partial`, or absent while the task runs.
    pub outcome: Option<String>,
    /// Tool calls the task needed (fewer after a recall is the point).
    pub tool_calls: i64,
    pub recalled_at: String,
}

/// What the Learning page shows.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct LearningReport {
    /// The last 30 days, oldest first, every day present.
    pub outcomes: Vec<DayOutcomes>,
    /// Ordered by first success; never-succeeded actions last.
    pub capabilities: Vec<Capability>,
    pub incidents: Vec<IncidentKind>,
    pub recalls: Vec<Recall>,
    /// Recalls whose task ended in success, out of recalls whose task ended.
    pub recalls_helped: i64,
    pub recalls_ended: i64,
}

/// Which signals to list.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct SignalQuery {
    /// Absent: open, acked and muted (everything not resolved).
    pub state: Option<SignalState>,
    pub severity: Option<Severity>,
    pub entity: Option<String>,
    pub limit: Option<u32>,
}

/// Open signals counted, for badges, the tray and the overview.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct SignalCounts {
    /// Open critical signals that are neither suppressed nor in maintenance.
    pub critical: i64,
    pub warning: i64,
    pub acked: i64,
    pub muted: i64,
    pub suppressed: i64,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct SignalList {
    pub signals: Vec<Signal>,
    pub counts: SignalCounts,
}

/// One point of a series: a raw sample (min = max = avg) or a rollup.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct MetricPoint {
    /// Seconds since the epoch (the start of the bucket for rollups).
    pub at: i64,
    pub avg: f64,
    pub min: f64,
    pub max: f64,
}

/// One metric of one entity over a range, from the tier that covers it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MetricSeries {
    pub entity: String,
    pub metric: String,
    pub unit: String,
    pub range: MetricRange,
    /// `raw`, `1m` or `1h`.
    pub tier: String,
    pub points: Vec<MetricPoint>,
    pub last: Option<f64>,
    pub min: Option<f64>,
    pub avg: Option<f64>,
    pub max: Option<f64>,
}

/// What a check looks at.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum CheckKind {
    /// A systemd unit active (inside the guest, through `pct exec`, for a container).
    Service { unit: String },
    /// A TCP port open, seen from the host.
    Tcp { address: String, port: u16 },
    /// An HTTP(S) URL answering with the status, seen from the host.
    Http { url: String, expect_status: u16 },
    /// A name resolving (optionally to an expected address).
    Dns { name: String, expect: Option<String> },
    /// The certificate of an HTTPS URL: days left.
    Certificate { url: String },
}

impl CheckKind {
    pub fn label(&self) -> &'static str {
        match self {
            CheckKind::Service { .. } => "service",
            CheckKind::Tcp { .. } => "tcp",
            CheckKind::Http { .. } => "http",
            CheckKind::Dns { .. } => "dns",
            CheckKind::Certificate { .. } => "certificate",
        }
    }
}

/// A check to add.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CheckSpec {
    pub entity: String,
    pub name: String,
    #[serde(flatten)]
    pub kind: CheckKind,
    /// Seconds between runs (at least 30; the default is 60).
    pub interval_s: Option<u32>,
}

impl Default for CheckSpec {
    fn default() -> Self {
        CheckSpec {
            entity: String::new(),
            name: String::new(),
            kind: CheckKind::Service { unit: String::new() },
            interval_s: None,
        }
    }
}

/// A check with how it last went.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Check {
    pub id: String,
    pub entity: String,
    pub name: String,
    #[serde(flatten)]
    pub kind: CheckKind,
    pub interval_s: u32,
    pub enabled: bool,
    /// The read-only command it runs, as the gate judges it.
    pub command: String,
    pub last_run_at: Option<String>,
    /// `ok`, `failing` or absent (never run).
    pub last_status: Option<String>,
    pub last_detail: Option<String>,
    pub last_latency_ms: Option<f64>,
}

/// One run of a check.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CheckRun {
    pub check: Check,
    pub ok: bool,
    pub detail: String,
}

/// Entities of one type by health.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct TypeHealth {
    pub entity_type: String,
    pub ok: i64,
    pub degraded: i64,
    pub down: i64,
    pub unknown: i64,
    /// Not observed for more than three cycles.
    pub stale: i64,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct HealthSummary {
    pub types: Vec<TypeHealth>,
    pub counts: SignalCounts,
}

/// A host's recent CPU and memory, for a sparkline.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct HostSparkline {
    pub slug: String,
    pub name: String,
    pub health: Health,
    pub cpu: Vec<f64>,
    pub memory: Vec<f64>,
}

/// What needs the operator now.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Overview {
    pub pending_approvals: i64,
    pub running_tasks: i64,
    /// Open critical and warning signals, worst and newest first (bounded).
    pub signals: Vec<Signal>,
    pub health: HealthSummary,
    pub hosts: Vec<HostSparkline>,
    /// When collection last finished, and how it went.
    pub last_cycle_at: Option<String>,
}

/// One collection cycle, as `nomos observe run-once` reports it.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ObserveReport {
    pub clusters: u32,
    pub hosts: u32,
    /// Commands run on hosts (all read-only).
    pub commands: u32,
    pub samples: u32,
    pub checks: u32,
    pub raised: Vec<String>,
    pub updated: Vec<String>,
    pub resolved: Vec<String>,
    /// Tasks opened by automatic investigation this cycle.
    #[serde(default)]
    pub investigations: Vec<String>,
    pub warnings: Vec<String>,
    pub duration_ms: u64,
}

/// How Observe runs (setting `observe_settings`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ObserveSettings {
    /// Seconds between collection cycles (0: off; at least 10).
    pub interval_s: u32,
    /// Warnings raise a notification too (off: they stay in the window).
    pub notify_warnings: bool,
    /// Nomos starts investigating a new critical signal by itself (read-only until approved).
    #[serde(default)]
    pub investigate_critical: bool,
    /// … and a new warning.
    #[serde(default)]
    pub investigate_warnings: bool,
}

impl Default for ObserveSettings {
    fn default() -> Self {
        ObserveSettings {
            interval_s: 30,
            notify_warnings: false,
            investigate_critical: false,
            investigate_warnings: false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn check_specs_read_flat_with_their_kind() {
        let spec: CheckSpec = serde_json::from_str(
            r#"{"entity":"lxc:caddy","name":"caddy","kind":"service","unit":"caddy","interval_s":null}"#,
        )
        .unwrap();
        assert_eq!(spec.kind, CheckKind::Service { unit: "caddy".into() });
        assert_eq!("24h".parse::<MetricRange>(), Ok(MetricRange::Day));
        assert_eq!(MetricRange::Month.seconds(), 2_592_000);
        assert_eq!(SignalState::Acked.as_str(), "acked");
    }
}
