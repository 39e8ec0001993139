//! Running executions' output as it streams in (`execution.output` transient events), folded per
//! execution: consecutive pieces of one stream merge, and only the newest [`KEEP`] bytes of each
//! execution stay (the execution's record keeps the whole output; a finished execution is shown
//! from it). Pure, tested natively.

use std::collections::HashMap;

use nomos_types::events::Event;
use nomos_types::{EngineEvent, TransientEvent};

/// How much streamed text is kept per execution.
pub const KEEP: usize = 64 * 1024;

/// Which stream a piece came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stream {
    Stdout,
    Stderr,
}

/// One execution's streamed output.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Folded {
    /// Runs of one stream, oldest first.
    pub pieces: Vec<(Stream, String)>,
    /// Older text was dropped to stay within [`KEEP`].
    pub dropped: bool,
    len: usize,
}

impl Folded {
    fn push(&mut self, stream: Stream, text: &str) {
        match self.pieces.last_mut() {
            Some((last, run)) if *last == stream => run.push_str(text),
            _ => self.pieces.push((stream, text.to_string())),
        }
        self.len += text.len();
        while self.len > KEEP {
            let over = self.len - KEEP;
            let Some((_, first)) = self.pieces.first_mut() else { break };
            if first.len() <= over {
                self.len -= first.len();
                self.pieces.remove(0);
            } else {
                // Cut on a character boundary at or after `over`.
                let cut = (over..=first.len()).find(|i| first.is_char_boundary(*i)).unwrap_or(first.len());
                first.replace_range(..cut, "");
                self.len -= cut;
            }
            self.dropped = true;
        }
    }
}

/// Streamed output of every execution seen running.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct LiveOutput {
    by_execution: HashMap<String, Folded>,
}

impl LiveOutput {
    /// Folds a transient event in; true when it was output.
    pub fn apply(&mut self, event: &TransientEvent) -> bool {
        let Event::ExecutionOutput(out) = &event.event else { return false };
        let stream = if out.stream == "stderr" { Stream::Stderr } else { Stream::Stdout };
        self.by_execution.entry(out.execution_id.clone()).or_default().push(stream, &out.text);
        true
    }

    /// Forgets an execution's stream once it has ended (its record has the output); true when
    /// something was forgotten.
    pub fn settle(&mut self, event: &EngineEvent) -> bool {
        match &event.event {
            Event::ExecutionFinished(f) => self.by_execution.remove(&f.execution_id).is_some(),
            _ => false,
        }
    }

    pub fn of(&self, execution_id: &str) -> Option<&Folded> {
        self.by_execution.get(execution_id)
    }
}

#[cfg(test)]
mod tests {
    use nomos_types::events::{ExecutionFinished, ExecutionOutput};
    use nomos_types::ExecutionStatus;

    use super::*;

    fn piece(execution: &str, stream: &str, text: &str) -> TransientEvent {
        TransientEvent {
            created_at: "t".into(),
            correlation_id: Some(execution.into()),
            entity_slug: None,
            event: Event::ExecutionOutput(ExecutionOutput {
                execution_id: execution.into(),
                stream: stream.into(),
                text: text.into(),
            }),
        }
    }

    #[test]
    fn pieces_of_one_stream_merge_and_executions_stay_apart() {
        let mut live = LiveOutput::default();
        assert!(live.apply(&piece("x1", "stdout", "line 1\n")));
        live.apply(&piece("x1", "stdout", "line 2\n"));
        live.apply(&piece("x1", "stderr", "oops\n"));
        live.apply(&piece("x2", "stdout", "other\n"));
        let x1 = live.of("x1").unwrap();
        assert_eq!(
            x1.pieces,
            vec![(Stream::Stdout, "line 1\nline 2\n".to_string()), (Stream::Stderr, "oops\n".to_string())]
        );
        assert!(!x1.dropped);
        assert_eq!(live.of("x2").unwrap().pieces, vec![(Stream::Stdout, "other\n".to_string())]);
    }

    #[test]
    fn only_the_newest_text_is_kept() {
        let mut live = LiveOutput::default();
        live.apply(&piece("x", "stdout", &"a".repeat(KEEP)));
        live.apply(&piece("x", "stderr", "€€"));
        let x = live.of("x").unwrap();
        let total: usize = x.pieces.iter().map(|(_, t)| t.len()).sum();
        assert_eq!(total, KEEP);
        assert!(x.dropped);
        assert_eq!(x.pieces.last().unwrap(), &(Stream::Stderr, "€€".to_string()));
        // A cut never splits a character.
        live.apply(&piece("x", "stdout", &"b".repeat(KEEP - 1)));
        let x = live.of("x").unwrap();
        assert!(x.pieces.iter().map(|(_, t)| t.len()).sum::<usize>() <= KEEP);
        assert!(x.pieces.iter().all(|(_, t)| !t.starts_with('\u{fffd}')));
    }

    #[test]
    fn an_ended_execution_is_forgotten_other_events_change_nothing() {
        let mut live = LiveOutput::default();
        live.apply(&piece("x", "stdout", "hi"));
        let unrelated = TransientEvent {
            event: Event::Other(nomos_types::events::OtherEvent {
                kind: "agent.token".into(),
                payload: nomos_types::Json::Null,
            }),
            ..piece("x", "stdout", "")
        };
        assert!(!live.apply(&unrelated));
        let finished = EngineEvent {
            id: 1,
            created_at: "t".into(),
            correlation_id: None,
            entity_slug: None,
            event: Event::ExecutionFinished(ExecutionFinished {
                execution_id: "x".into(),
                task_id: None,
                status: ExecutionStatus::Cancelled,
                exit_code: None,
                error: None,
                action: "run".into(),
            }),
        };
        assert!(live.settle(&finished));
        assert!(live.of("x").is_none());
        assert!(!live.settle(&finished));
    }
}
