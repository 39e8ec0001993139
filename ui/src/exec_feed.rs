//! Running executions' output as it streams, provided once at the root (one listener for the
//! window's lifetime); Operations reads it by execution.

use leptos::prelude::*;

use crate::ipc;
use crate::output::LiveOutput;

#[derive(Clone, Copy)]
pub struct ExecFeed {
    pub output: RwSignal<LiveOutput>,
}

pub fn provide_exec_feed() {
    let feed = ExecFeed { output: RwSignal::new(LiveOutput::default()) };
    ipc::on_transient_event(move |event| {
        // Only output notifies the views.
        feed.output.maybe_update(|o| o.apply(&event));
    });
    ipc::on_engine_event(move |event| {
        feed.output.maybe_update(|o| o.settle(&event));
    });
    provide_context(feed);
}

pub fn use_exec_feed() -> ExecFeed {
    expect_context::<ExecFeed>()
}
