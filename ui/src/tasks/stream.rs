//! The answer being written, per task: folded from transient `agent.delta` events and dropped when
//! the stored message arrives. Keyed by task and turn, so a view shows only its own task's current
//! turn however the operator switches between tasks mid-stream.

use std::collections::HashMap;

use nomos_types::events::{DeltaKind, Event};
use nomos_types::tasks::Role;
use nomos_types::{EngineEvent, TransientEvent};

/// The text a turn has streamed so far.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Stream {
    pub turn_id: String,
    pub text: String,
}

/// Every task's stream in progress.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Streams {
    by_task: HashMap<String, Stream>,
}

impl Streams {
    /// Folds a transient event in. True when what a view shows changed.
    pub fn apply(&mut self, event: &TransientEvent) -> bool {
        let (Event::AgentDelta(delta), Some(task)) = (&event.event, &event.correlation_id) else {
            return false;
        };
        let stream = self.by_task.entry(task.clone()).or_default();
        if stream.turn_id != delta.turn_id {
            // A new turn of this task: what an older one streamed is not part of it.
            *stream = Stream { turn_id: delta.turn_id.clone(), text: String::new() };
        }
        match delta.kind {
            DeltaKind::Text if !delta.text.is_empty() => {
                stream.text.push_str(&delta.text);
                true
            }
            // Thinking is not part of the answer.
            DeltaKind::Text | DeltaKind::Reasoning => false,
            DeltaKind::Reset => !std::mem::take(&mut stream.text).is_empty(),
        }
    }

    /// Folds a stored event in: a message joining the task's transcript, or the task ending, makes
    /// the stream stale (the stored text replaces it). True when something was dropped.
    pub fn settle(&mut self, event: &EngineEvent) -> bool {
        let Some(task) = &event.correlation_id else { return false };
        let stale = match &event.event {
            Event::MessageAdded(m) => m.role == Role::Assistant,
            Event::TaskUpdated(u) => u.status != nomos_types::TaskStatus::Working,
            Event::TaskDeleted(_) => true,
            _ => false,
        };
        stale && self.by_task.remove(task).is_some()
    }

    /// The text `task`'s current turn has streamed, if any.
    pub fn of(&self, task: &str) -> Option<&Stream> {
        self.by_task.get(task).filter(|s| !s.text.is_empty())
    }
}

#[cfg(test)]
mod tests {
    use nomos_types::events::{AgentDelta, MessageAdded, TaskUpdated};
    use nomos_types::TaskStatus;

    use super::*;

    fn delta(task: &str, turn: &str, kind: DeltaKind, text: &str) -> TransientEvent {
        TransientEvent {
            created_at: "t".into(),
            correlation_id: Some(task.into()),
            entity_slug: None,
            event: AgentDelta { turn_id: turn.into(), kind, text: text.into() }.into(),
        }
    }

    fn stored(task: &str, event: impl Into<Event>) -> EngineEvent {
        EngineEvent {
            id: 1,
            created_at: "t".into(),
            correlation_id: Some(task.into()),
            entity_slug: None,
            event: event.into(),
        }
    }

    #[test]
    fn interleaved_streams_stay_with_their_task() {
        let mut s = Streams::default();
        assert!(s.apply(&delta("a", "a1", DeltaKind::Text, "Checking ")));
        assert!(s.apply(&delta("b", "b1", DeltaKind::Text, "Other ")));
        assert!(s.apply(&delta("a", "a1", DeltaKind::Text, "caddy")));
        assert!(s.apply(&delta("b", "b1", DeltaKind::Text, "task")));
        assert_eq!(s.of("a").map(|x| x.text.as_str()), Some("Checking caddy"));
        assert_eq!(s.of("b").map(|x| x.text.as_str()), Some("Other task"));
        assert_eq!(s.of("c"), None);
    }

    #[test]
    fn a_new_turn_starts_afresh_and_a_reset_forgets() {
        let mut s = Streams::default();
        s.apply(&delta("a", "a1", DeltaKind::Text, "old"));
        s.apply(&delta("a", "a2", DeltaKind::Text, "new"));
        assert_eq!(s.of("a").map(|x| (x.turn_id.as_str(), x.text.as_str())), Some(("a2", "new")));
        assert!(!s.apply(&delta("a", "a2", DeltaKind::Reasoning, "hmm")));
        assert_eq!(s.of("a").map(|x| x.text.as_str()), Some("new"));
        assert!(s.apply(&delta("a", "a2", DeltaKind::Reset, "")));
        assert_eq!(s.of("a"), None);
    }

    #[test]
    fn the_stored_message_replaces_the_stream_of_its_task_only() {
        let mut s = Streams::default();
        s.apply(&delta("a", "a1", DeltaKind::Text, "x"));
        s.apply(&delta("b", "b1", DeltaKind::Text, "y"));
        let user = MessageAdded { message_id: 1, role: Role::User, turn_id: None };
        assert!(!s.settle(&stored("a", user)));
        let answer = MessageAdded { message_id: 2, role: Role::Assistant, turn_id: Some("a1".into()) };
        assert!(s.settle(&stored("a", answer)));
        assert_eq!(s.of("a"), None);
        assert_eq!(s.of("b").map(|x| x.text.as_str()), Some("y"));
        let ended =
            TaskUpdated { status: TaskStatus::Cancelled, waiting_for: None, outcome: None, summary: String::new() };
        assert!(s.settle(&stored("b", ended)));
        assert_eq!(s.of("b"), None);
    }

    #[test]
    fn events_without_a_task_are_ignored() {
        let mut s = Streams::default();
        let mut e = delta("a", "a1", DeltaKind::Text, "x");
        e.correlation_id = None;
        assert!(!s.apply(&e));
        assert_eq!(s, Streams::default());
    }
}
