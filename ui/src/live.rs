//! Keeps the window current: listens to engine events and, once per burst, bumps a revision per
//! stale [`Topic`]. A view that shows engine state tracks the topics it reads
//! (`live.track(Topic::Graph)` inside a resource's fetcher) and re-reads when they change;
//! nothing polls.

use std::cell::RefCell;
use std::rc::Rc;
use std::time::Duration;

use leptos::prelude::*;

use crate::events::{feed_line, push_feed, stale_after, FeedLine, Pending, Topic};
use crate::ipc;

/// How long after the first event of a burst the window re-reads.
const COALESCE: Duration = Duration::from_millis(120);

#[derive(Clone, Copy)]
pub struct Live {
    revisions: [RwSignal<u64>; Topic::ALL.len()],
    /// The newest event's id and kind, for the window's live indicator.
    last_event: RwSignal<Option<(i64, String)>>,
    /// The newest events since the window opened, newest first (the overview's feed).
    feed: RwSignal<Vec<FeedLine>>,
}

impl Live {
    /// Subscribes the reactive scope being run to the topic: it re-runs after the topic changed.
    pub fn track(&self, topic: Topic) {
        self.revisions[topic as usize].track();
    }

    pub fn last_event(&self) -> Option<(i64, String)> {
        self.last_event.get()
    }

    pub fn feed(&self) -> Vec<FeedLine> {
        self.feed.get()
    }
}

/// Starts listening and makes [`Live`] available to every view below (see [`use_live`]).
pub fn provide_live() {
    let live = Live {
        revisions: std::array::from_fn(|_| RwSignal::new(0)),
        last_event: RwSignal::new(None),
        feed: RwSignal::new(Vec::new()),
    };
    let pending = Rc::new(RefCell::new(Pending::default()));
    ipc::on_engine_event(move |event| {
        live.last_event.set(Some((event.id, event.kind().to_string())));
        if let Some(line) = feed_line(&event) {
            live.feed.update(|f| push_feed(f, line));
        }
        if pending.borrow_mut().note(stale_after(&event)) {
            let pending = pending.clone();
            set_timeout(
                move || {
                    let stale = pending.borrow_mut().flush();
                    for topic in stale.iter() {
                        live.revisions[topic as usize].update(|r| *r += 1);
                    }
                },
                COALESCE,
            );
        }
    });
    provide_context(live);
}

/// The [`Live`] provided at the root of the app.
pub fn use_live() -> Live {
    expect_context::<Live>()
}
