//! How engine events map to what the window must re-read. Pure: no DOM, no signals, so it is
//! tested natively. `live` applies it.

use nomos_types::{event_kind, EngineEvent};

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
}

impl Topic {
    pub const ALL: [Topic; 6] =
        [Topic::Graph, Topic::Tasks, Topic::Executions, Topic::Approvals, Topic::Windows, Topic::HostKeys];

    fn bit(self) -> u8 {
        1 << (self as u8)
    }
}

/// A set of topics.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Topics(u8);

impl Topics {
    pub const NONE: Topics = Topics(0);

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

/// What an event makes stale.
pub fn stale_after(event: &EngineEvent) -> Topics {
    use Topic::*;
    let kind = event.kind.as_str();
    let graph = [
        event_kind::ENTITY_CREATED,
        event_kind::ENTITY_UPDATED,
        event_kind::ENTITY_DELETED,
        event_kind::RELATIONSHIP_CREATED,
        event_kind::RELATIONSHIP_UPDATED,
        event_kind::RELATIONSHIP_ENDED,
        event_kind::KNOWLEDGE_UPSERTED,
        event_kind::INVENTORY_IMPORTED,
        event_kind::HEALTH_CHANGED,
    ];
    if graph.contains(&kind) {
        return Topics::of(&[Graph]);
    }
    match kind {
        event_kind::TASK_CREATED | event_kind::TASK_DELETED => Topics::of(&[Tasks]),
        event_kind::EXECUTION_CREATED | event_kind::EXECUTION_STARTED | event_kind::EXECUTION_FINISHED => {
            Topics::of(&[Executions])
        }
        // A decision also moves its execution on (approved, denied).
        event_kind::APPROVAL_REQUESTED | event_kind::APPROVAL_DECIDED => Topics::of(&[Approvals, Executions]),
        event_kind::WINDOW_OPENED | event_kind::WINDOW_REVOKED | event_kind::AUTONOMY_CHANGED => Topics::of(&[Windows]),
        event_kind::HOST_KEY_SEEN | event_kind::HOST_KEY_TRUSTED | event_kind::HOST_KEY_MISMATCH => {
            Topics::of(&[HostKeys])
        }
        _ => Topics::NONE,
    }
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
    use nomos_types::Json;

    use super::*;

    fn event(kind: &str) -> EngineEvent {
        EngineEvent {
            id: 1,
            kind: kind.into(),
            correlation_id: None,
            entity_slug: None,
            payload: Json::Null,
            created_at: "2026-01-01T00:00:00Z".into(),
        }
    }

    #[test]
    fn graph_changes_make_the_graph_stale() {
        for kind in [
            event_kind::ENTITY_CREATED,
            event_kind::ENTITY_DELETED,
            event_kind::RELATIONSHIP_ENDED,
            event_kind::KNOWLEDGE_UPSERTED,
            event_kind::INVENTORY_IMPORTED,
            event_kind::HEALTH_CHANGED,
        ] {
            assert_eq!(stale_after(&event(kind)), Topics::of(&[Topic::Graph]), "{kind}");
        }
    }

    #[test]
    fn other_events_leave_the_graph_alone() {
        for kind in [
            event_kind::TASK_CREATED,
            event_kind::EXECUTION_FINISHED,
            event_kind::APPROVAL_DECIDED,
            event_kind::WINDOW_OPENED,
            event_kind::HOST_KEY_SEEN,
        ] {
            let stale = stale_after(&event(kind));
            assert!(!stale.is_empty(), "{kind}");
            assert!(!stale.contains(Topic::Graph), "{kind}");
        }
        assert_eq!(
            stale_after(&event(event_kind::APPROVAL_DECIDED)),
            Topics::of(&[Topic::Approvals, Topic::Executions])
        );
        assert!(stale_after(&event("something.else")).is_empty());
    }

    #[test]
    fn a_burst_schedules_one_flush_with_everything_it_touched() {
        let mut pending = Pending::default();
        assert!(!pending.note(Topics::NONE), "nothing stale, nothing to schedule");
        assert!(pending.note(Topics::of(&[Topic::Graph])));
        assert!(!pending.note(Topics::of(&[Topic::Graph])));
        assert!(!pending.note(Topics::of(&[Topic::Tasks])));
        let flushed = pending.flush();
        assert_eq!(flushed.iter().collect::<Vec<_>>(), [Topic::Graph, Topic::Tasks]);
        assert!(pending.flush().is_empty());
        assert!(pending.note(Topics::of(&[Topic::HostKeys])), "the next burst schedules again");
    }
}
