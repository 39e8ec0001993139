//! How engine events map to what the window must re-read. Pure: no DOM, no signals, so it is
//! tested natively. `live` applies it.

use nomos_types::events::Event;
use nomos_types::EngineEvent;

/// An area of engine state that views read and events make stale.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Topic {
    /// Entities, relationships, health and the knowledge about them.
    Graph,
    Tasks,
    Executions,
    Approvals,
    /// Autonomy windows (assent and destructive).
    Windows,
    HostKeys,
    /// Observe's signals (open problems) and what counts them.
    Signals,
}

impl Topic {
    pub const ALL: [Topic; 7] = [
        Topic::Graph,
        Topic::Tasks,
        Topic::Executions,
        Topic::Approvals,
        Topic::Windows,
        Topic::HostKeys,
        Topic::Signals,
    ];

    fn bit(self) -> u8 {
        1 << (self as u8)
    }
}

/// A set of topics.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Topics(u8);

impl Topics {
    pub fn of(topics: &[Topic]) -> Topics {
        Topics(topics.iter().fold(0, |bits, t| bits | t.bit()))
    }

    pub fn contains(self, topic: Topic) -> bool {
        self.0 & topic.bit() != 0
    }

    pub fn is_empty(self) -> bool {
        self.0 == 0
    }

    pub fn union(self, other: Topics) -> Topics {
        Topics(self.0 | other.0)
    }

    pub fn iter(self) -> impl Iterator<Item = Topic> {
        Topic::ALL.into_iter().filter(move |t| self.contains(*t))
    }
}

/// What an event makes stale. Exhaustive on purpose: a new kind of event has to say here which
/// views it concerns.
pub fn stale_after(event: &EngineEvent) -> Topics {
    use Topic::*;
    match &event.event {
        Event::EntityCreated(_)
        | Event::EntityUpdated(_)
        | Event::EntityDeleted(_)
        | Event::RelationshipCreated(_)
        | Event::RelationshipUpdated(_)
        | Event::RelationshipEnded(_)
        | Event::KnowledgeUpserted(_)
        | Event::InventoryImported(_)
        | Event::HealthChanged(_)
        | Event::EntityDiscovered(_)
        | Event::EntityChanged(_)
        | Event::EntityMoved(_)
        | Event::EntityGone(_)
        | Event::DiscoveryApplied(_) => Topics::of(&[Graph]),
        Event::TaskCreated(_)
        | Event::TaskDeleted(_)
        | Event::TaskUpdated(_)
        | Event::MessageAdded(_)
        | Event::PlanUpdated(_)
        | Event::QuestionAsked(_)
        | Event::QuestionAnswered(_)
        | Event::ToolCallStarted(_)
        | Event::ToolCallFinished(_) => Topics::of(&[Tasks]),
        // Streamed text for the conversation as it is written; the stored message follows.
        Event::AgentDelta(_) => Topics::of(&[]),
        // Streamed output of a running command; the stored execution follows when it ends.
        Event::ExecutionOutput(_) => Topics::of(&[]),
        Event::ExecutionCreated(_) | Event::ExecutionStarted(_) | Event::ExecutionFinished(_) => {
            Topics::of(&[Executions])
        }
        // A decision also moves its execution on (approved, denied).
        Event::ApprovalRequested(_) | Event::ApprovalDecided(_) => Topics::of(&[Approvals, Executions]),
        Event::WindowOpened(_) | Event::WindowRevoked(_) | Event::AutonomyChanged(_) => Topics::of(&[Windows]),
        Event::HostKeySeen(_) | Event::HostKeyTrusted(_) | Event::HostKeyMismatch(_) => Topics::of(&[HostKeys]),
        Event::SignalRaised(_)
        | Event::SignalUpdated(_)
        | Event::SignalAcked(_)
        | Event::SignalMuted(_)
        | Event::SignalResolved(_)
        | Event::SignalSuppressed(_) => Topics::of(&[Signals]),
        // A notification went out: nothing in the window changed.
        Event::SignalNotified(_) => Topics::of(&[]),
        // A highlight only: nothing read before is stale.
        Event::EntityTouched(_) => Topics::of(&[]),
        // Written by a newer version, or a payload this build cannot read: it may concern
        // anything, and re-reading is cheap.
        Event::Other(_) => Topics::of(&Topic::ALL),
    }
}

/// One line of the live event feed.
#[derive(Debug, Clone, PartialEq)]
pub struct FeedLine {
    pub id: i64,
    pub at: String,
    pub kind: String,
    pub entity: Option<String>,
    /// What happened, when the event says it in words (a signal's message, a health change).
    pub text: String,
}

/// How many events the feed keeps: enough for a glance, little to hold all day.
pub const FEED_LEN: usize = 30;

/// The feed's line for an event; `None` for the streamed pieces of an answer or of output, which
/// arrive many times a second and are followed by a stored event anyway.
pub fn feed_line(event: &EngineEvent) -> Option<FeedLine> {
    let text = match &event.event {
        Event::AgentDelta(_) | Event::ExecutionOutput(_) => return None,
        Event::SignalRaised(e) => e.message.clone(),
        Event::SignalUpdated(e) => e.message.clone(),
        Event::SignalAcked(e) => e.message.clone(),
        Event::SignalMuted(e) => e.message.clone(),
        Event::SignalResolved(e) => e.message.clone(),
        Event::SignalSuppressed(e) => e.message.clone(),
        Event::SignalNotified(e) => format!("notified: {}", e.title),
        Event::HealthChanged(e) => format!("{} → {}", e.from, e.to),
        _ => String::new(),
    };
    Some(FeedLine {
        id: event.id,
        at: event.created_at.clone(),
        kind: event.kind().to_string(),
        entity: event.entity_slug.clone(),
        text,
    })
}

/// Puts `line` first, keeping at most [`FEED_LEN`] lines.
pub fn push_feed(feed: &mut Vec<FeedLine>, line: FeedLine) {
    feed.insert(0, line);
    feed.truncate(FEED_LEN);
}

/// Gathers what a burst of events makes stale, so views re-read once per burst (an import
/// announces every entity it writes).
#[derive(Debug, Default)]
pub struct Pending {
    topics: Topics,
    scheduled: bool,
}

impl Pending {
    /// Notes stale topics. True when the caller must schedule a [`flush`](Self::flush): the
    /// first stale topic since the last flush.
    pub fn note(&mut self, topics: Topics) -> bool {
        if topics.is_empty() {
            return false;
        }
        self.topics = self.topics.union(topics);
        !std::mem::replace(&mut self.scheduled, true)
    }

    /// Everything noted since the last flush.
    pub fn flush(&mut self) -> Topics {
        self.scheduled = false;
        std::mem::take(&mut self.topics)
    }
}

#[cfg(test)]
mod tests {
    use nomos_types::events::*;
    use nomos_types::{
        ApprovalStatus, Channel, EntityState, ExecutionStatus, Health, ImportReport, Json, KnowledgeKind, WindowKind,
    };

    use super::*;

    fn envelope(event: impl Into<Event>) -> EngineEvent {
        EngineEvent {
            id: 1,
            created_at: "2026-01-01T00:00:00Z".into(),
            correlation_id: None,
            entity_slug: None,
            event: event.into(),
        }
    }

    fn graph_events() -> Vec<EngineEvent> {
        let ended = RelationshipEnded {
            id: "r1".into(),
            rel_type: "runs-on".into(),
            source: "lxc:a".into(),
            target: "host:b".into(),
        };
        let RelationshipEnded { id, rel_type, source, target } = ended.clone();
        vec![
            envelope(EntityCreated { entity_type: "host".into(), name: "b".into() }),
            envelope(EntityUpdated { changed: vec!["state".into()], state: EntityState::Stopped }),
            envelope(EntityDeleted {}),
            envelope(RelationshipCreated {
                id: id.clone(),
                rel_type: rel_type.clone(),
                source: source.clone(),
                target: target.clone(),
            }),
            envelope(RelationshipUpdated { id, rel_type, source, target, properties: Json::Null }),
            envelope(ended),
            envelope(KnowledgeUpserted {
                title: "caddy".into(),
                kind: KnowledgeKind::Runbook,
                created: true,
                about: vec!["lxc:a".into()],
            }),
            envelope(InventoryImported { source: "demo".into(), report: ImportReport::default() }),
            envelope(HealthChanged { from: Health::Unknown, to: Health::Down, detail: "no answer".into() }),
        ]
    }

    #[test]
    fn graph_changes_make_the_graph_stale() {
        for event in graph_events() {
            assert_eq!(stale_after(&event), Topics::of(&[Topic::Graph]), "{}", event.kind());
        }
    }

    #[test]
    fn other_events_leave_the_graph_alone() {
        let decided = envelope(ApprovalDecided {
            approval_id: "a".into(),
            execution_id: "x".into(),
            status: ApprovalStatus::Denied,
            channel: Channel::Ui,
            task_id: None,
            reason: None,
            granted_by: None,
        });
        let cases = [
            (envelope(TaskDeleted { knowledge_kept: 0 }), Topics::of(&[Topic::Tasks])),
            (envelope(PlanUpdated { steps: 3 }), Topics::of(&[Topic::Tasks])),
            (
                envelope(QuestionAsked { question_id: "q".into(), prompt: "which host?".into() }),
                Topics::of(&[Topic::Tasks]),
            ),
            (
                envelope(ToolCallFinished {
                    call_id: "c".into(),
                    name: "run".into(),
                    state: nomos_types::tasks::CallState::Completed,
                    is_error: false,
                    execution_id: Some("x".into()),
                    preview: "ok".into(),
                }),
                Topics::of(&[Topic::Tasks]),
            ),
            (envelope(AgentDelta { turn_id: "t".into(), kind: DeltaKind::Text, text: "hel".into() }), Topics::of(&[])),
            (
                envelope(ExecutionStarted { execution_id: "x".into(), task_id: None, granted_by: None }),
                Topics::of(&[Topic::Executions]),
            ),
            (
                envelope(ExecutionFinished {
                    execution_id: "x".into(),
                    status: ExecutionStatus::Completed,
                    exit_code: Some(0),
                    error: None,
                    task_id: None,
                    action: "run".into(),
                }),
                Topics::of(&[Topic::Executions]),
            ),
            (decided, Topics::of(&[Topic::Approvals, Topic::Executions])),
            (
                envelope(WindowOpened {
                    window_id: "w".into(),
                    kind: WindowKind::Assent,
                    task_id: "t".into(),
                    target: None,
                    expires_at: "later".into(),
                }),
                Topics::of(&[Topic::Windows]),
            ),
            (envelope(AutonomyChanged { paused: true }), Topics::of(&[Topic::Windows])),
            (envelope(HostKeyMismatch { fingerprint: "SHA256:x".into() }), Topics::of(&[Topic::HostKeys])),
            (
                envelope(SignalAcked {
                    id: "s".into(),
                    entity: Some("lxc:caddy".into()),
                    kind: "down".into(),
                    severity: nomos_types::observe::Severity::Critical,
                    state: nomos_types::SignalState::Acked,
                    message: "caddy is down".into(),
                    suppressed_by: None,
                    maintenance: None,
                    flapping: false,
                }),
                Topics::of(&[Topic::Signals]),
            ),
        ];
        for (event, expected) in cases {
            assert_eq!(stale_after(&event), expected, "{}", event.kind());
            assert!(!stale_after(&event).contains(Topic::Graph), "{}", event.kind());
        }
    }

    #[test]
    fn an_event_this_build_cannot_read_makes_everything_stale() {
        let unknown = envelope(Event::Other(OtherEvent { kind: "someday.happened".into(), payload: Json::Null }));
        assert_eq!(stale_after(&unknown).iter().collect::<Vec<_>>(), Topic::ALL);
    }

    #[test]
    fn events_arrive_as_the_shell_forwards_them() {
        let raw = serde_json::json!({"id": 9, "created_at": "t", "correlation_id": null, "entity_slug": "host:b",
            "kind": "health.changed", "payload": {"from": "unknown", "to": "down", "detail": "no answer"}});
        let event: EngineEvent = serde_json::from_value(raw).unwrap();
        assert_eq!(stale_after(&event), Topics::of(&[Topic::Graph]));
    }

    #[test]
    fn the_feed_keeps_the_newest_lines_in_words() {
        let mut feed = Vec::new();
        let delta = envelope(AgentDelta { turn_id: "t".into(), kind: DeltaKind::Text, text: "hel".into() });
        assert_eq!(feed_line(&delta), None, "streamed pieces are not lines");
        let mut health =
            envelope(HealthChanged { from: Health::Healthy, to: Health::Down, detail: "no answer".into() });
        health.entity_slug = Some("host:b".into());
        let line = feed_line(&health).unwrap();
        assert_eq!(
            (line.kind.as_str(), line.entity.as_deref(), line.text.as_str()),
            ("health.changed", Some("host:b"), "healthy → down")
        );
        for id in 0..40 {
            push_feed(&mut feed, FeedLine { id, ..line.clone() });
        }
        assert_eq!(feed.len(), FEED_LEN);
        assert_eq!((feed[0].id, feed[FEED_LEN - 1].id), (39, 10));
    }

    #[test]
    fn a_burst_schedules_one_flush_with_everything_it_touched() {
        let mut pending = Pending::default();
        assert!(!pending.note(Topics::default()), "nothing stale, nothing to schedule");
        assert!(pending.note(Topics::of(&[Topic::Graph])));
        assert!(!pending.note(Topics::of(&[Topic::Graph])));
        assert!(!pending.note(Topics::of(&[Topic::Tasks])));
        let flushed = pending.flush();
        assert_eq!(flushed.iter().collect::<Vec<_>>(), [Topic::Graph, Topic::Tasks]);
        assert!(pending.flush().is_empty());
        assert!(pending.note(Topics::of(&[Topic::HostKeys])), "the next burst schedules again");
    }
}
