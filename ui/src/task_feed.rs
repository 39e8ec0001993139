//! What the task views follow live beyond stored state: the answers being written (transient
//! events) and the entities being touched. Provided once at the root; the views read it by task.

use std::time::Duration;

use leptos::prelude::*;

use crate::ipc;
use crate::tasks::stream::Streams;
use crate::tasks::touched::Touches;

#[derive(Clone, Copy)]
pub struct TaskFeed {
    pub streams: RwSignal<Streams>,
    pub touches: RwSignal<Touches>,
    /// Now, in ms since the epoch, advancing every [`TICK`] for "3 min ago".
    pub now_ms: RwSignal<i64>,
}

/// How often relative times are recomputed.
const TICK: Duration = Duration::from_secs(20);

pub fn provide_task_feed() {
    let feed = TaskFeed {
        streams: RwSignal::new(Streams::default()),
        touches: RwSignal::new(Touches::default()),
        now_ms: RwSignal::new(js_sys::Date::now() as i64),
    };
    ipc::on_transient_event(move |event| {
        // Only a change notifies the views.
        feed.streams.maybe_update(|s| s.apply(&event));
    });
    ipc::on_engine_event(move |event| {
        feed.streams.maybe_update(|s| s.settle(&event));
        feed.touches.maybe_update(|t| t.apply(&event));
    });
    crate::ticker::every(TICK, "relative times", move || feed.now_ms.set(js_sys::Date::now() as i64));
    provide_context(feed);
}

pub fn use_task_feed() -> TaskFeed {
    expect_context::<TaskFeed>()
}
