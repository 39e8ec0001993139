//! Clocks for the views (time left, "3 min ago"). They skip their ticks while the window is hidden
//! in the tray: nothing is drawn then, and an app that idles all day must cost nothing. The next
//! tick after the window shows again catches up.

use std::time::Duration;

use leptos::prelude::*;

/// Whether the page is hidden (window closed to the tray or minimised).
fn hidden() -> bool {
    web_sys::window().and_then(|w| w.document()).is_some_and(|d| d.hidden())
}

/// Calls `tick` every `period` while the page is shown, for as long as the calling view lives
/// (or the app, when called outside a view).
pub fn every(period: Duration, what: &str, tick: impl Fn() + 'static) {
    match set_interval_with_handle(
        move || {
            if !hidden() {
                tick();
            }
        },
        period,
    ) {
        Ok(handle) => on_cleanup(move || handle.clear()),
        Err(e) => leptos::logging::warn!("{what} will not advance: {e:?}"),
    }
}
