//! Wire types shared by the engine (`nomos`), the desktop shell (`src-tauri`) and the UI (`ui`, wasm32).
//!
//! Everything that crosses the IPC boundary — command arguments, results and event payloads — is defined
//! here once, so the three crates cannot drift. The crate has no I/O and depends only on serde.

use std::collections::BTreeMap;
use std::fmt;
use std::str::FromStr;
use std::sync::Arc;

use serde::{Deserialize, Serialize};

pub use serde_json::Value as Json;

pub mod actions;
pub mod discovery;
pub mod events;
pub mod mcp;
pub mod observe;
pub mod operations;
pub mod tasks;
pub mod updates;
pub use actions::Action;
pub use discovery::{
    AddedHost, DiffKind, DiscoveryDiff, DiscoverySettings, HostCheck, HostRemoved, HostSpec, HostTest,
};
pub use events::{EngineEvent, Event, TransientEvent};
pub use observe::{
    Capability, Check, CheckKind, CheckRun, CheckSpec, DayOutcomes, HealthSummary, IncidentKind, Investigation,
    LearningReport, MetricRange, MetricSeries, ObserveReport, ObserveSettings, Overview, Recall, SeenBefore, Signal,
    SignalCounts, SignalList, SignalQuery, SignalState,
};
pub use operations::{AuditEntry, AuditQuery, Autonomy, ExecutionQuery, PendingApprovals};
pub use updates::{UpdateOffer, UpdateStatus, UPDATE_CHANNEL};

/// Declares a string-backed enum with `as_str`, `FromStr`, `Display`, a list of all variants and
/// snake_case serde names, so the database, the CLI and the wire all spell values the same way.
macro_rules! string_enum {
    ($(#[$meta:meta])* $name:ident { $($variant:ident => $text:literal),+ $(,)? }) => {
        $(#[$meta])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
        pub enum $name {
            $(#[serde(rename = $text)] $variant),+
        }

        impl $name {
            pub const ALL: &'static [$name] = &[$($name::$variant),+];

            pub fn as_str(self) -> &'static str {
                match self { $($name::$variant => $text),+ }
            }
        }

        impl FromStr for $name {
            type Err = UnknownValue;
            fn from_str(s: &str) -> Result<Self, Self::Err> {
                match s {
                    $($text => Ok($name::$variant),)+
                    other => Err(UnknownValue {
                        what: stringify!($name),
                        value: other.to_string(),
                        allowed: vec![$($text),+],
                    }),
                }
            }
        }

        impl fmt::Display for $name {
            // `pad` honours width and alignment (`{:<16}` in tables).
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.pad(self.as_str())
            }
        }
    };
}

pub(crate) use string_enum;

/// A string that is not one of an enum's spellings; names what is allowed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnknownValue {
    pub what: &'static str,
    pub value: String,
    pub allowed: Vec<&'static str>,
}

impl fmt::Display for UnknownValue {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "unknown {} `{}` (allowed: {})", self.what, self.value, self.allowed.join(", "))
    }
}

impl std::error::Error for UnknownValue {}

string_enum!(
    /// Lifecycle of a modelled thing, independent of its observed health. `gone`: no longer
    /// listed by Proxmox (discovery); kept with its history, which continues if it comes back.
    EntityState {
        Active => "active",
        Provisioning => "provisioning",
        Stopped => "stopped",
        Destroyed => "destroyed",
        Gone => "gone",
    }
);

string_enum!(
    /// Observed health from the last check; `unknown` until something has looked.
    Health {
        Healthy => "healthy",
        Degraded => "degraded",
        Down => "down",
        Unknown => "unknown",
    }
);

string_enum!(
    /// Whether the health reading is recent enough to trust.
    Freshness {
        Fresh => "fresh",
        Stale => "stale",
        Never => "never",
    }
);

string_enum!(
    #[derive(schemars::JsonSchema)]
    KnowledgeKind {
        Investigation => "investigation",
        Document => "document",
        Runbook => "runbook",
    }
);

string_enum!(
    /// Who wrote a knowledge note.
    Author {
        Operator => "operator",
        Agent => "agent",
        System => "system",
    }
);

string_enum!(
    Direction {
        Outgoing => "outgoing",
        Incoming => "incoming",
    }
);

string_enum!(
    /// Where a task is in its life. `working` holds only while a live lease says something is
    /// working on it; `waiting` says for what in [`WaitingFor`]; the last three are ends.
    TaskStatus {
        Working => "working",
        Waiting => "waiting",
        Done => "done",
        Failed => "failed",
        Cancelled => "cancelled",
    }
);

impl TaskStatus {
    /// Done, failed or cancelled (an operator's message may still reopen it).
    pub fn is_end(self) -> bool {
        matches!(self, TaskStatus::Done | TaskStatus::Failed | TaskStatus::Cancelled)
    }
}

string_enum!(
    /// What a waiting task waits for: an answer to a question the agent asked, approval of the
    /// proposed plan, a decision on a queued execution, or simply the operator's next message (the
    /// work was interrupted, or stopped at its limit).
    WaitingFor {
        Answer => "answer",
        Plan => "plan",
        Approval => "approval",
        Message => "message",
    }
);

string_enum!(
    /// How a task ended, as the agent reports it (`complete_task`).
    #[derive(schemars::JsonSchema)]
    TaskOutcome {
        Success => "success",
        Failure => "failure",
        Partial => "partial",
    }
);

impl TaskOutcome {
    /// Reads an outcome a model reported; anything unrecognised counts as `partial`, never as done
    /// successfully.
    pub fn lenient(s: &str) -> TaskOutcome {
        s.trim().to_ascii_lowercase().parse().unwrap_or(TaskOutcome::Partial)
    }
}

/// A goal-structured unit of work for Nomos.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Task {
    pub id: String,
    pub title: String,
    pub goal: String,
    pub status: TaskStatus,
    /// Set exactly when the task is waiting.
    pub waiting_for: Option<WaitingFor>,
    pub outcome: Option<TaskOutcome>,
    pub summary: String,
    /// The task's own entity (`task:<short id>`).
    pub entity_slug: Option<String>,
    pub completion_nudges: u32,
    pub created_at: String,
    pub updated_at: String,
    pub last_active_at: String,
    /// Who drives it when not Nomos: `mcp:<client>` for an MCP session's task.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub driver: Option<String>,
}

string_enum!(
    /// How much a shell command can change, in increasing order. The gate lets `read_only` run at
    /// once, needs the operator's assent for `reversible_low` and `config_mutation`, and a typed
    /// confirmation naming the target for `destructive`.
    #[derive(schemars::JsonSchema)]
    Risk {
        ReadOnly => "read_only",
        ReversibleLow => "reversible_low",
        ConfigMutation => "config_mutation",
        Destructive => "destructive",
    }
);

/// The classifier's judgement of a command: its risk and short human-readable reasons.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Verdict {
    pub risk: Risk,
    pub reasons: Vec<String>,
    /// The command reads, copies or prints secret material: its output is never stored or shown.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub secret: bool,
}

string_enum!(
    /// Where an execution is: waiting for the operator, running, or finished one way or another.
    ExecutionStatus {
        PendingApproval => "pending_approval",
        Approved => "approved",
        Running => "running",
        Completed => "completed",
        Failed => "failed",
        Denied => "denied",
        Expired => "expired",
        Cancelled => "cancelled",
    }
);

impl ExecutionStatus {
    /// Whether nothing more will happen to it.
    pub fn is_final(self) -> bool {
        matches!(self, Self::Completed | Self::Failed | Self::Denied | Self::Expired | Self::Cancelled)
    }
}

string_enum!(
    ApprovalStatus {
        Pending => "pending",
        Approved => "approved",
        Denied => "denied",
        Expired => "expired",
        Cancelled => "cancelled",
    }
);

/// An execution whose approval ends this way ends the same way (a pending approval's execution is
/// waiting for it).
impl From<ApprovalStatus> for ExecutionStatus {
    fn from(status: ApprovalStatus) -> ExecutionStatus {
        match status {
            ApprovalStatus::Pending => ExecutionStatus::PendingApproval,
            ApprovalStatus::Approved => ExecutionStatus::Approved,
            ApprovalStatus::Denied => ExecutionStatus::Denied,
            ApprovalStatus::Expired => ExecutionStatus::Expired,
            ApprovalStatus::Cancelled => ExecutionStatus::Cancelled,
        }
    }
}

string_enum!(
    /// Where an operator's decision came from.
    Channel {
        Ui => "ui",
        Chat => "chat",
        Tray => "tray",
        Cli => "cli",
        System => "system",
        Notification => "notification",
    }
);

string_enum!(
    /// An assent window lets one task's changes run; a destructive window one task's destructive
    /// commands on one target.
    WindowKind {
        Assent => "assent",
        Destructive => "destructive",
    }
);

/// One command (or curated action) on one target, from request to result.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Execution {
    pub id: String,
    pub task_id: Option<String>,
    pub target: String,
    /// `run`, or the curated action's name.
    pub action: String,
    pub params: Json,
    pub command: String,
    pub purpose: String,
    pub declared_risk: Option<Risk>,
    pub risk: Risk,
    pub reasons: Vec<String>,
    pub status: ExecutionStatus,
    pub requested_by: String,
    /// The approval or window that let it run (`read_only` for commands that need none).
    pub granted_by: Option<String>,
    pub exit_code: Option<i64>,
    /// Output as text (invalid UTF-8 replaced); the exact bytes stay in the store.
    pub stdout: String,
    pub stderr: String,
    pub output_truncated: bool,
    pub error: Option<String>,
    pub created_at: String,
    pub started_at: Option<String>,
    pub finished_at: Option<String>,
    pub duration_ms: Option<i64>,
}

/// A request for the operator's decision on one execution.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Approval {
    pub id: String,
    pub execution_id: String,
    pub task_id: Option<String>,
    pub status: ApprovalStatus,
    /// Destructive: needs a typed confirmation naming the target.
    pub requires_confirmation: bool,
    /// For a destructive request, the exact words that confirm it (`confirm lxc:caddy`); every
    /// surface that offers the decision shows them.
    #[serde(default)]
    pub confirmation: Option<String>,
    pub target: String,
    pub command: String,
    pub purpose: String,
    /// Who asks (`agent:nomos`, `mcp:claude-code`, `operator:ann` …), as its execution records.
    #[serde(default)]
    pub requested_by: String,
    pub risk: Risk,
    pub reasons: Vec<String>,
    /// What else the target's change reaches ("affects N: …").
    pub blast_radius: Json,
    pub expires_at: String,
    pub decided_at: Option<String>,
    pub decided_by: Option<String>,
    pub channel: Option<Channel>,
    pub grant_message: Option<String>,
    pub created_at: String,
}

/// An open permission for a task to run changes without asking again.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct AutonomyWindow {
    pub id: String,
    pub kind: WindowKind,
    pub task_id: String,
    pub target: Option<String>,
    pub approval_id: Option<String>,
    pub opened_by: String,
    pub channel: Channel,
    pub opened_at: String,
    pub expires_at: String,
    pub revoked_at: Option<String>,
}

/// A pinned SSH host key.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct HostKey {
    pub host: String,
    pub algorithm: String,
    pub fingerprint: String,
    pub trusted: bool,
    pub first_seen_at: String,
    pub trusted_at: Option<String>,
    pub trusted_by: Option<String>,
}

/// A node of the knowledge graph.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Entity {
    pub id: String,
    pub slug: String,
    #[serde(rename = "type")]
    pub entity_type: String,
    pub name: String,
    /// Always a JSON object.
    pub attributes: Json,
    pub state: EntityState,
    pub created_at: String,
    pub updated_at: String,
}

/// The short form of an entity used inside other results.
///
/// Its text is shared (`Arc<str>`): a blast radius hands out the same entities and relationship
/// names hundreds of times, and sharing makes each copy a reference count instead of an allocation.
/// The JSON is plain strings.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct EntityRef {
    pub id: Arc<str>,
    pub slug: Arc<str>,
    #[serde(rename = "type")]
    pub entity_type: Arc<str>,
    pub name: Arc<str>,
}

impl EntityRef {
    pub fn new(
        id: impl Into<Arc<str>>,
        slug: impl Into<Arc<str>>,
        entity_type: impl Into<Arc<str>>,
        name: impl Into<Arc<str>>,
    ) -> EntityRef {
        EntityRef { id: id.into(), slug: slug.into(), entity_type: entity_type.into(), name: name.into() }
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct EntityStatus {
    pub health: Health,
    pub freshness: Freshness,
    pub last_check_at: Option<String>,
    pub detail: String,
}

/// One row of an entity listing: the entity and its current status.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct EntityListItem {
    #[serde(flatten)]
    pub entity: Entity,
    pub status: EntityStatus,
}

/// Filters for listing entities. Text matches slug or name, case-insensitively.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct EntityQuery {
    #[serde(default, rename = "type")]
    pub entity_type: Option<String>,
    #[serde(default)]
    pub text: Option<String>,
    #[serde(default)]
    pub health: Option<Health>,
    /// Page size; `None` means the default (50). Capped at 1000.
    #[serde(default)]
    pub limit: Option<u32>,
    #[serde(default)]
    pub offset: u32,
}

/// How many entities there are of one type.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TypeCount {
    #[serde(rename = "type")]
    pub entity_type: String,
    pub count: u64,
}

/// A page of results that always tells the true total, so nothing hides behind a silent limit.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Page<T> {
    pub items: Vec<T>,
    pub total: u64,
    pub limit: u32,
    pub offset: u32,
}

/// A relationship seen from one of its endpoints.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Relation {
    pub id: String,
    #[serde(rename = "type")]
    pub rel_type: String,
    pub direction: Direction,
    /// The type for outgoing edges, its inverse name for incoming ones ("hosted-by").
    pub label: String,
    pub other: EntityRef,
    pub properties: Json,
    pub valid_from: String,
    pub valid_to: Option<String>,
}

/// A stored relationship between two entities.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Relationship {
    pub id: String,
    #[serde(rename = "type")]
    pub rel_type: String,
    pub source: EntityRef,
    pub target: EntityRef,
    pub properties: Json,
    pub valid_from: String,
    /// `None` while the relationship is current.
    pub valid_to: Option<String>,
}

/// One edge on the way from the blast-radius root to a hit, in its stored orientation.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PathEdge {
    #[serde(rename = "type")]
    pub rel_type: Arc<str>,
    pub source: Arc<str>,
    pub target: Arc<str>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct BlastHit {
    pub entity: EntityRef,
    pub depth: u32,
    /// Edges from the root to this entity (shortest found).
    pub path: Vec<PathEdge>,
}

/// Everything that is affected, transitively, when an entity fails or is changed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct BlastRadius {
    pub root: EntityRef,
    pub depth: u32,
    pub hits: Vec<BlastHit>,
}

/// A knowledge note without its body, as listed and searched.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct KnowledgeSummary {
    pub id: String,
    pub slug: String,
    pub kind: KnowledgeKind,
    pub title: String,
    pub source: String,
    pub author: Author,
    pub tags: Vec<String>,
    pub created_at: String,
    pub updated_at: String,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct KnowledgeDoc {
    #[serde(flatten)]
    pub summary: KnowledgeSummary,
    /// Markdown.
    pub content: String,
    /// Entities this note documents.
    pub about: Vec<EntityRef>,
}

/// What to write as knowledge. `(kind, title)` identifies the note: writing the same title again
/// updates it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct KnowledgeInput {
    pub kind: KnowledgeKind,
    pub title: String,
    pub content: String,
    #[serde(default)]
    pub source: String,
    #[serde(default = "default_author")]
    pub author: Author,
    #[serde(default)]
    pub tags: Vec<String>,
    /// Slugs of entities the note documents.
    #[serde(default)]
    pub about: Vec<String>,
}

fn default_author() -> Author {
    Author::Operator
}

/// For the command table's tests, which build every command's arguments from defaults.
#[cfg(test)]
impl Default for KnowledgeInput {
    fn default() -> Self {
        KnowledgeInput {
            kind: KnowledgeKind::Document,
            title: String::new(),
            content: String::new(),
            source: String::new(),
            author: default_author(),
            tags: Vec::new(),
            about: Vec::new(),
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct KnowledgeUpsert {
    pub doc: KnowledgeDoc,
    pub created: bool,
}

/// A search result. `snippet` is HTML-escaped text whose only markup is `<b>…</b>` around matches.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SearchHit {
    #[serde(flatten)]
    pub summary: KnowledgeSummary,
    pub snippet: String,
    /// The same snippet as plain text …
    pub text: String,
    /// … and the matches in it as `[start, end)` ranges of characters (not bytes), in order.
    pub marks: Vec<[u32; 2]>,
    /// Lower is better (FTS5 bm25).
    pub rank: f64,
}

#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct KnowledgeStats {
    pub total: u64,
    pub by_kind: BTreeMap<String, u64>,
    pub agent_authored: u64,
    pub changed_last_7_days: u64,
}

/// An entity with everything known about it, in one structure.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Explain {
    pub entity: Entity,
    pub status: EntityStatus,
    pub relations: Vec<Relation>,
    pub knowledge: Vec<KnowledgeSummary>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct ImportCounts {
    pub created: u32,
    pub updated: u32,
    pub unchanged: u32,
}

#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct ImportReport {
    pub entities: ImportCounts,
    pub relationships: ImportCounts,
    /// Relationships ended because the inventory now says otherwise (e.g. an LXC moved hosts).
    pub relationships_ended: u32,
}

/// A current relationship as drawn: its type and the slugs of its ends.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct GraphEdge {
    pub id: String,
    #[serde(rename = "type")]
    pub rel_type: String,
    pub source: String,
    pub target: String,
}

/// The whole graph in one answer, for drawing it: every entity that is not destroyed, with its
/// status, and every current relationship between them. Ordered by slug (edges by id).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct GraphSnapshot {
    pub nodes: Vec<EntityListItem>,
    pub edges: Vec<GraphEdge>,
}

/// The model provider as the operator set it in the desktop (the API key is never part of it: it
/// lives in the OS keychain).
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct ProviderSettings {
    /// The API root, e.g. `https://api.openai.com/v1` or `http://127.0.0.1:11434/v1`.
    pub base_url: String,
    pub model: String,
    /// The model's context window; `None` for the engine's table of known models.
    #[serde(default)]
    pub context_tokens: Option<u32>,
}

string_enum!(
    /// Where the provider's API key comes from: `NOMOS_API_KEY`, the OS keychain, nowhere, or a
    /// keychain that could not be read.
    KeySource {
        Env => "env",
        Keychain => "keychain",
        None => "none",
        Unavailable => "unavailable",
    }
);

/// Whether an API key is set, and where (never the key).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ApiKeyStatus {
    pub source: KeySource,
    /// Why the keychain could not be read, for `unavailable`.
    pub detail: Option<String>,
}

/// The provider as the settings page shows it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ProviderStatus {
    /// What the operator saved.
    pub stored: Option<ProviderSettings>,
    /// `NOMOS_LLM_BASE_URL` is set: the environment wins over the stored settings.
    pub env_overrides: bool,
    /// What the next turn uses, or `None` (see `problem`).
    pub in_use: Option<ProviderSettings>,
    /// Why there is no provider in use.
    pub problem: Option<String>,
    pub key: ApiKeyStatus,
}

/// A host, how it is reached and its pinned SSH key.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct HostEntry {
    pub host: String,
    /// `user@address:port`.
    pub endpoint: String,
    /// `None` until the host was contacted once.
    pub key: Option<HostKey>,
}

/// The lab's inventory file and whether it is there.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LabInventory {
    pub path: String,
    pub exists: bool,
}

/// The classifier's policy in use: the built-in rules, and the operator's file if any.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PolicyFiles {
    pub operator_file: Option<String>,
    /// The file came from `OIKOS_POLICY`.
    pub from_env: bool,
    /// Where the operator's file would be read from when none is in use.
    pub default_path: Option<String>,
}

/// What the desktop shows about the open database.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct StoreInfo {
    pub path: String,
    pub entities: u64,
    pub schema_version: i64,
}

/// The name under which the desktop shell forwards engine events to the webview.
pub const EVENT_CHANNEL: &str = "nomos://event";

/// The channel transient events (an answer being written) are forwarded on: never stored, so the
/// UI applies them to what it shows and keeps nothing of them.
pub const TRANSIENT_CHANNEL: &str = "nomos://transient";

/// The channel the desktop shell asks the window to show a page on (a notification clicked, a
/// tray menu item): the payload is a [`Destination`].
pub const NAVIGATE_CHANNEL: &str = "oikos://navigate";

/// A page the shell asks the window to show, on [`NAVIGATE_CHANNEL`]; the UI turns it into its
/// route.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "page", rename_all = "snake_case")]
pub enum Destination {
    /// The approvals page.
    Approvals,
    /// The approvals page with this approval brought into view.
    Approval { id: String },
    /// A task's conversation.
    Task { id: String },
    /// The signals page.
    Signals,
    /// An entity's page.
    Entity { slug: String },
}

/// Which desktop notifications the operator wants. Every kind is on until turned off.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct NotificationSettings {
    /// A request waits for approval.
    pub approvals: bool,
    /// Nomos asks the operator a question.
    pub questions: bool,
    /// A task finished or failed.
    pub task_ends: bool,
    /// A critical signal (Observe decides which are worth it: see its rules).
    pub signals: bool,
}

impl Default for NotificationSettings {
    fn default() -> Self {
        NotificationSettings { approvals: true, questions: true, task_ends: true, signals: true }
    }
}

pub mod ipc;
pub use ipc::{IpcError, IpcErrorCode};

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn enums_round_trip_through_their_spelling() {
        for h in Health::ALL {
            assert_eq!(h.as_str().parse::<Health>(), Ok(*h));
            assert_eq!(serde_json::to_value(h).unwrap(), Json::String(h.as_str().into()));
        }
        let err = "sick".parse::<Health>().unwrap_err();
        assert_eq!(err.to_string(), "unknown Health `sick` (allowed: healthy, degraded, down, unknown)");
    }

    #[test]
    fn risks_are_ordered_by_severity() {
        assert!(Risk::ReadOnly < Risk::ReversibleLow);
        assert!(Risk::ReversibleLow < Risk::ConfigMutation);
        assert!(Risk::ConfigMutation < Risk::Destructive);
        assert_eq!(Risk::ALL.iter().max(), Some(&Risk::Destructive));
    }

    #[test]
    fn stray_outcomes_become_partial() {
        assert_eq!(TaskOutcome::lenient("Success "), TaskOutcome::Success);
        assert_eq!(TaskOutcome::lenient("failure"), TaskOutcome::Failure);
        assert_eq!(TaskOutcome::lenient("mostly worked"), TaskOutcome::Partial);
        assert_eq!(TaskOutcome::lenient(""), TaskOutcome::Partial);
    }

    #[test]
    fn entity_serialises_type_field_as_type() {
        let e =
            EntityRef { id: "1".into(), slug: "host:strong".into(), entity_type: "host".into(), name: "strong".into() };
        let v = serde_json::to_value(&e).unwrap();
        assert_eq!(v["type"], "host");
    }
}
