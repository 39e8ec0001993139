//! The engine's events: one enum, [`Event`], with a variant per kind and a payload struct per
//! variant, and the envelope, [`EngineEvent`], that a stored event travels in.
//!
//! The kind names (`entity.created`, …) are written once, in the `events!` table below; the
//! database keeps them in `events.type` and the payload in `events.payload`, as before.

use serde::{Deserialize, Serialize};

use crate::tasks::{CallState, Role};
use crate::{
    ApprovalStatus, Channel, EntityState, ExecutionStatus, Health, ImportReport, Json, KnowledgeKind, Risk,
    TaskOutcome, TaskStatus, WaitingFor, WindowKind,
};

/// Declares [`Event`] from a table of `Variant = "kind"` rows: the payload struct of a variant
/// has the variant's name, and its `KIND` constant is the kind's one spelling.
macro_rules! events {
    ($($(#[$meta:meta])* $variant:ident = $kind:literal,)+) => {
        /// Something that changed in the engine, as a kind and its payload.
        ///
        /// Serialised adjacently tagged: `{"kind": "entity.created", "payload": {"type": "host",
        /// "name": "pve1"}}`. A kind this build does not know (written by a newer version) reads
        /// as [`Event::Other`] with its payload kept as JSON, so a newer writer never breaks an
        /// older reader; so does a known kind whose payload this build cannot read.
        ///
        /// Read as kind and JSON payload first, then the payload by its kind (see
        /// [`Event::from_parts`]): serde's derived reading of a tagged enum with a fallback,
        /// flattened into its envelope, buffered every event twice and was a tenth of the UI's
        /// code.
        #[derive(Debug, Clone, PartialEq, Serialize)]
        #[serde(tag = "kind", content = "payload")]
        pub enum Event {
            $($(#[$meta])* #[serde(rename = $kind)] $variant($variant),)+
            /// A kind (or payload) this build does not know.
            #[serde(untagged)]
            Other(OtherEvent),
        }

        impl Event {
            /// Every kind this build knows.
            pub const KINDS: &'static [&'static str] = &[$($kind),+];

            /// The kind's name (`entity.created`).
            pub fn kind(&self) -> &str {
                match self {
                    $(Event::$variant(_) => $kind,)+
                    Event::Other(o) => &o.kind,
                }
            }

            /// The event of `kind` with `payload`; [`Event::Other`] for a kind this build does
            /// not know or a payload it cannot read.
            pub fn from_parts(kind: String, payload: Json) -> Event {
                let known = match kind.as_str() {
                    $($kind => $variant::deserialize(&payload).map(Event::$variant).ok(),)+
                    _ => None,
                };
                known.unwrap_or(Event::Other(OtherEvent { kind, payload }))
            }
        }

        impl<'de> Deserialize<'de> for Event {
            fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
                let OtherEvent { kind, payload } = OtherEvent::deserialize(deserializer)?;
                Ok(Event::from_parts(kind, payload))
            }
        }

        $(
            impl $variant {
                /// The kind's name.
                pub const KIND: &'static str = $kind;
            }

            impl From<$variant> for Event {
                fn from(payload: $variant) -> Event {
                    Event::$variant(payload)
                }
            }
        )+
    };
}

events! {
    EntityCreated = "entity.created",
    EntityUpdated = "entity.updated",
    /// A task's own entity went with its task.
    EntityDeleted = "entity.deleted",
    RelationshipCreated = "relationship.created",
    /// Properties merged into a current relationship.
    RelationshipUpdated = "relationship.updated",
    /// A relationship stopped being current (it stays in history).
    RelationshipEnded = "relationship.ended",
    KnowledgeUpserted = "knowledge.upserted",
    InventoryImported = "inventory.imported",
    HealthChanged = "health.changed",
    TaskCreated = "task.created",
    TaskDeleted = "task.deleted",
    /// A task's status changed (working, waiting for something, or ended with an outcome).
    TaskUpdated = "task.updated",
    /// A message joined a task's transcript (operator, agent, or a note from the engine).
    MessageAdded = "message.added",
    /// The plan was proposed, extended, or a step changed.
    PlanUpdated = "plan.updated",
    QuestionAsked = "question.asked",
    QuestionAnswered = "question.answered",
    /// A tool call is about to have its effect.
    ToolCallStarted = "tool_call.started",
    /// A tool call ended: completed, interrupted (outcome unknown) or skipped.
    ToolCallFinished = "tool_call.finished",
    /// Transient: a piece of an answer being written (never stored).
    AgentDelta = "agent.delta",
    ExecutionCreated = "execution.created",
    ExecutionStarted = "execution.started",
    ExecutionFinished = "execution.finished",
    /// Transient: output of a running execution as it arrives (never stored; the execution's
    /// record keeps the whole output). Never sent for a command whose output is withheld.
    ExecutionOutput = "execution.output",
    /// A request waits for the operator (or a waiting one was raised to a higher risk).
    ApprovalRequested = "approval.requested",
    /// A waiting request was approved, denied, cancelled, expired or superseded by a window.
    ApprovalDecided = "approval.decided",
    WindowOpened = "window.opened",
    WindowRevoked = "window.revoked",
    /// Autonomy was paused or resumed.
    AutonomyChanged = "autonomy.changed",
    /// A host presented a key that is not pinned yet.
    HostKeySeen = "host_key.seen",
    HostKeyTrusted = "host_key.trusted",
    /// A host presented a key other than the trusted one; the connection was refused.
    HostKeyMismatch = "host_key.mismatch",
    /// Nomos, the agent, named an entity in a tool call (the UI highlights it).
    EntityTouched = "entity.touched",
    /// Discovery found an entity Proxmox lists and the graph did not have (or had as gone).
    EntityDiscovered = "entity.discovered",
    /// Discovery found an entity's attributes, state or name changed.
    EntityChanged = "entity.changed",
    /// Discovery found a guest on another node.
    EntityMoved = "entity.moved",
    /// Discovery no longer finds an entity: its edges ended, its state is `gone`.
    EntityGone = "entity.gone",
    /// A discovery cycle was applied to the graph.
    DiscoveryApplied = "discovery.applied",
    /// A signal opened (a new problem, or one that came back).
    SignalRaised = "signal.raised",
    /// An open signal changed: severity, flapping, value or occurrences.
    SignalUpdated = "signal.updated",
    /// An operator acknowledged a signal, with a reason.
    SignalAcked = "signal.acked",
    SignalMuted = "signal.muted",
    /// Resolved by hand or on recovery.
    SignalResolved = "signal.resolved",
    /// A signal is explained by one of something it depends on: shown, not notified.
    SignalSuppressed = "signal.suppressed",
    /// A desktop notification is due for one signal, a reminder, or a summary of several.
    SignalNotified = "signal.notified",
}

/// An event of a kind this build does not know, kept as it was written.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct OtherEvent {
    pub kind: String,
    #[serde(default)]
    pub payload: Json,
}

/// A stored event: its id (monotonic; consumers apply events oldest-first), when and about what,
/// and the [`Event`] itself.
///
/// This is also the JSON the desktop forwards to the webview on [`crate::EVENT_CHANNEL`]:
///
/// ```json
/// {"id": 42, "created_at": "2026-01-31T12:00:00.000Z", "correlation_id": null,
///  "entity_slug": "host:pve1", "kind": "entity.created", "payload": {"type": "host", "name": "pve1"}}
/// ```
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(try_from = "EventWire")]
pub struct EngineEvent {
    pub id: i64,
    pub created_at: String,
    /// Ties the events of one request together (an execution's or a task's id).
    pub correlation_id: Option<String>,
    /// The entity the event is about, if any.
    pub entity_slug: Option<String>,
    #[serde(flatten)]
    pub event: Event,
}

/// An [`EngineEvent`] or a [`TransientEvent`] as read: its kind and payload as fields of their
/// own, not flattened (which would buffer the whole event before reading it).
#[derive(Deserialize)]
struct EventWire {
    id: Option<i64>,
    created_at: String,
    correlation_id: Option<String>,
    entity_slug: Option<String>,
    kind: String,
    #[serde(default)]
    payload: Json,
}

impl TryFrom<EventWire> for EngineEvent {
    type Error = &'static str;

    fn try_from(w: EventWire) -> Result<Self, Self::Error> {
        let id = w.id.ok_or("missing field `id`")?;
        let TransientEvent { created_at, correlation_id, entity_slug, event } = w.into();
        Ok(EngineEvent { id, created_at, correlation_id, entity_slug, event })
    }
}

impl EngineEvent {
    /// The kind's name (`entity.created`).
    pub fn kind(&self) -> &str {
        self.event.kind()
    }
}

/// An event that is broadcast to this process's subscribers and never stored (streamed output
/// such as an answer being written). Same shape as [`EngineEvent`] without the id.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(from = "EventWire")]
pub struct TransientEvent {
    pub created_at: String,
    pub correlation_id: Option<String>,
    pub entity_slug: Option<String>,
    #[serde(flatten)]
    pub event: Event,
}

impl From<EventWire> for TransientEvent {
    fn from(w: EventWire) -> Self {
        let event = Event::from_parts(w.kind, w.payload);
        TransientEvent { created_at: w.created_at, correlation_id: w.correlation_id, entity_slug: w.entity_slug, event }
    }
}

impl TransientEvent {
    pub fn kind(&self) -> &str {
        self.event.kind()
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct EntityCreated {
    #[serde(rename = "type")]
    pub entity_type: String,
    pub name: String,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct EntityUpdated {
    /// Which of `name`, `attributes`, `state` changed.
    pub changed: Vec<String>,
    pub state: EntityState,
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct EntityDeleted {}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RelationshipCreated {
    /// The relationship's id.
    pub id: String,
    #[serde(rename = "type")]
    pub rel_type: String,
    /// Source and target slugs.
    pub source: String,
    pub target: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RelationshipUpdated {
    pub id: String,
    #[serde(rename = "type")]
    pub rel_type: String,
    pub source: String,
    pub target: String,
    /// The properties after the merge.
    pub properties: Json,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RelationshipEnded {
    pub id: String,
    #[serde(rename = "type")]
    pub rel_type: String,
    pub source: String,
    pub target: String,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct KnowledgeUpserted {
    pub title: String,
    pub kind: KnowledgeKind,
    /// A new note (not an update).
    pub created: bool,
    /// Slugs of the entities it documents.
    pub about: Vec<String>,
}

/// Discovery's events carry the entity (the envelope's `entity_slug`) and what it found.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct EntityDiscovered {
    #[serde(rename = "type")]
    pub entity_type: String,
    pub name: String,
    /// Seen before and back (its history continues).
    #[serde(default)]
    pub back: bool,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct EntityChanged {
    /// The attribute keys that changed (`name` for a rename, `state`).
    pub changed: Vec<String>,
    #[serde(default)]
    pub renamed_from: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct EntityMoved {
    /// Node names.
    pub from: String,
    pub to: String,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct EntityGone {
    #[serde(rename = "type")]
    pub entity_type: String,
    pub name: String,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct DiscoveryApplied {
    /// The host discovery ran through, and the cluster it saw.
    pub host: String,
    pub cluster: String,
    pub counts: crate::discovery::DiffCounts,
    /// Who applied it: `operator:<login>` or `discovery` (the background cycle).
    pub by: String,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct InventoryImported {
    /// The file or name the inventory came from.
    pub source: String,
    pub report: ImportReport,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct HealthChanged {
    pub from: Health,
    pub to: Health,
    pub detail: String,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TaskCreated {
    pub title: String,
    pub goal: String,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TaskDeleted {
    /// Notes the task produced, which stay.
    pub knowledge_kept: u64,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TaskUpdated {
    pub status: TaskStatus,
    pub waiting_for: Option<WaitingFor>,
    pub outcome: Option<TaskOutcome>,
    /// Why it changed, in a few words (the summary for an end).
    pub summary: String,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct MessageAdded {
    pub message_id: i64,
    pub role: Role,
    pub turn_id: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PlanUpdated {
    /// How many steps the plan has now.
    pub steps: u32,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct QuestionAsked {
    pub question_id: String,
    pub prompt: String,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct QuestionAnswered {
    pub question_id: String,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ToolCallStarted {
    pub call_id: String,
    pub name: String,
    pub turn_id: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ToolCallFinished {
    pub call_id: String,
    pub name: String,
    /// `completed`, `interrupted` or `skipped`.
    pub state: CallState,
    pub is_error: bool,
    pub execution_id: Option<String>,
    /// The result's first line, shortened (the whole result is in the transcript).
    #[serde(default)]
    pub preview: String,
}

/// What an [`AgentDelta`] carries.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum DeltaKind {
    Text,
    Reasoning,
    /// Forget what this turn streamed so far (the completion is being retried).
    Reset,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct AgentDelta {
    pub turn_id: String,
    pub kind: DeltaKind,
    #[serde(default)]
    pub text: String,
}

/// A piece of a running execution's output, in order; consecutive pieces of one stream may be
/// merged before they are sent.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ExecutionOutput {
    pub execution_id: String,
    /// `stdout` or `stderr`.
    pub stream: String,
    pub text: String,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct EntityTouched {
    /// The task the call belongs to.
    pub task_id: Option<String>,
    /// The tool's wire name (`get_entity`, `run`).
    pub tool: String,
    /// The provider's id of the call.
    pub call_id: String,
    /// Whether the call succeeded.
    pub success: bool,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ExecutionCreated {
    pub execution_id: String,
    pub status: ExecutionStatus,
    pub risk: Risk,
    pub task_id: Option<String>,
    /// `run`, or the curated action's name.
    pub action: String,
    pub purpose: String,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ExecutionStarted {
    pub execution_id: String,
    pub task_id: Option<String>,
    /// The approval or window that let it run (`read_only` for commands that need none).
    pub granted_by: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ExecutionFinished {
    pub execution_id: String,
    pub status: ExecutionStatus,
    #[serde(default)]
    pub exit_code: Option<i64>,
    pub error: Option<String>,
    pub task_id: Option<String>,
    #[serde(default)]
    pub action: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ApprovalRequested {
    pub approval_id: String,
    pub execution_id: String,
    pub risk: Risk,
    pub task_id: Option<String>,
    #[serde(default)]
    pub command: String,
    #[serde(default)]
    pub purpose: String,
    /// What else the change reaches ("affects N: …"), as on the approval.
    #[serde(default)]
    pub blast_radius: Json,
    /// Set when a waiting request was asked again as riskier: the risk it had.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub raised_from: Option<Risk>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ApprovalDecided {
    pub approval_id: String,
    pub execution_id: String,
    pub status: ApprovalStatus,
    pub channel: Channel,
    pub task_id: Option<String>,
    /// Why the system closed it (`superseded`, `task deleted`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// For a request superseded by a window: the window that runs it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub granted_by: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct WindowOpened {
    pub window_id: String,
    pub kind: WindowKind,
    pub task_id: String,
    /// The one target of a destructive window.
    pub target: Option<String>,
    pub expires_at: String,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct WindowRevoked {
    pub window_id: String,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct AutonomyChanged {
    pub paused: bool,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct HostKeySeen {
    pub fingerprint: String,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct HostKeyTrusted {
    pub fingerprint: String,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct HostKeyMismatch {
    pub fingerprint: String,
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn envelope(event: Event) -> EngineEvent {
        EngineEvent {
            id: 7,
            created_at: "2026-01-31T12:00:00.000Z".into(),
            correlation_id: None,
            entity_slug: Some("host:pve1".into()),
            event,
        }
    }

    #[test]
    fn the_webview_receives_kind_and_payload_beside_the_envelope() {
        let ev = envelope(EntityCreated { entity_type: "host".into(), name: "pve1".into() }.into());
        let v = serde_json::to_value(&ev).unwrap();
        assert_eq!(
            v,
            json!({"id": 7, "created_at": "2026-01-31T12:00:00.000Z", "correlation_id": null,
                   "entity_slug": "host:pve1", "kind": "entity.created",
                   "payload": {"type": "host", "name": "pve1"}})
        );
        let back: EngineEvent = serde_json::from_value(v).unwrap();
        assert_eq!(back, ev);
        assert_eq!(back.kind(), "entity.created");
        assert_eq!(EntityCreated::KIND, "entity.created");
    }

    #[test]
    fn every_kind_round_trips_and_is_spelled_once() {
        let mut kinds = Event::KINDS.to_vec();
        kinds.sort_unstable();
        kinds.dedup();
        assert_eq!(kinds.len(), Event::KINDS.len(), "a kind is listed twice");
        let ev = Event::from(ApprovalDecided {
            approval_id: "a".into(),
            execution_id: "x".into(),
            status: ApprovalStatus::Cancelled,
            channel: Channel::System,
            task_id: None,
            reason: Some("superseded".into()),
            granted_by: Some("window:w".into()),
        });
        let v = serde_json::to_value(&ev).unwrap();
        assert_eq!(v["kind"], "approval.decided");
        assert_eq!(v["payload"]["status"], "cancelled");
        assert_eq!(serde_json::from_value::<Event>(v).unwrap(), ev);
        // An empty payload is still an object, as the stored column always was.
        assert_eq!(serde_json::to_value(Event::from(EntityDeleted {})).unwrap()["payload"], json!({}));
    }

    #[test]
    fn unknown_kinds_and_unreadable_payloads_are_kept_not_refused() {
        let newer = json!({"id": 9, "created_at": "t", "correlation_id": "c", "entity_slug": null,
                           "kind": "agent.token", "payload": {"text": "hel"}});
        let ev: EngineEvent = serde_json::from_value(newer.clone()).unwrap();
        assert_eq!(ev.kind(), "agent.token");
        assert_eq!(ev.event, Event::Other(OtherEvent { kind: "agent.token".into(), payload: json!({"text": "hel"}) }));
        assert_eq!(serde_json::to_value(&ev).unwrap(), newer, "written back unchanged");

        // A known kind whose payload changed shape in a newer build.
        let odd: Event = serde_json::from_value(json!({"kind": "health.changed", "payload": {"to": 3}})).unwrap();
        assert!(matches!(&odd, Event::Other(o) if o.kind == "health.changed"), "{odd:?}");
    }

    #[test]
    fn an_envelope_reads_without_its_optional_fields_and_with_fields_it_does_not_know() {
        let ev: EngineEvent = serde_json::from_value(json!({"id": 3, "created_at": "t", "kind": "entity.created",
            "payload": {"type": "host", "name": "pvé1"}, "written_by": "a newer build"}))
        .unwrap();
        assert_eq!((ev.correlation_id.as_deref(), ev.entity_slug.as_deref()), (None, None));
        assert_eq!(ev.event, Event::from(EntityCreated { entity_type: "host".into(), name: "pvé1".into() }));
        // No payload at all: kept as it came, never refused.
        let bare: EngineEvent =
            serde_json::from_value(json!({"id": 4, "created_at": "t", "kind": "entity.created"})).unwrap();
        assert_eq!(bare.event, Event::Other(OtherEvent { kind: "entity.created".into(), payload: Json::Null }));
        // The envelope's own fields are required.
        assert!(serde_json::from_value::<EngineEvent>(json!({"created_at": "t", "kind": "x"})).is_err());
        assert!(serde_json::from_value::<Event>(json!({"payload": {}})).is_err(), "an event has a kind");
    }

    #[test]
    fn transient_events_have_no_id() {
        let t = TransientEvent {
            created_at: "t".into(),
            correlation_id: Some("task-1".into()),
            entity_slug: None,
            event: Event::Other(OtherEvent { kind: "agent.token".into(), payload: json!({"text": "x"}) }),
        };
        let v = serde_json::to_value(&t).unwrap();
        assert!(v.get("id").is_none());
        assert_eq!(serde_json::from_value::<TransientEvent>(v).unwrap(), t);
    }
}

/// Declares the signal events' payloads: the same fields for each kind, so a consumer reads any
/// of them alike.
macro_rules! signal_payloads {
    ($($name:ident),+) => {$(
        #[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
        pub struct $name {
            pub id: String,
            pub entity: Option<String>,
            pub kind: String,
            pub severity: crate::observe::Severity,
            pub state: crate::observe::SignalState,
            pub message: String,
            /// Shown but not notified: explained by this signal's entity (`host:pve1`).
            #[serde(default)]
            pub suppressed_by: Option<String>,
            /// Shown but not notified: an approved plan of this task is changing the entity.
            #[serde(default)]
            pub maintenance: Option<String>,
            #[serde(default)]
            pub flapping: bool,
        }
    )+};
}

signal_payloads!(SignalRaised, SignalUpdated, SignalAcked, SignalMuted, SignalResolved, SignalSuppressed);

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SignalNotified {
    pub title: String,
    pub body: String,
    /// The signals it is about (one, or several for a summary).
    pub signals: Vec<String>,
    /// The entity of a single signal (for "Open").
    pub entity: Option<String>,
    /// A reminder of an unacknowledged critical signal.
    #[serde(default)]
    pub reminder: bool,
    /// The task investigating it, when Nomos is on it (for "Open" to go there).
    #[serde(default)]
    pub task: Option<String>,
}
