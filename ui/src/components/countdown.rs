//! Time left until an engine timestamp, ticking every second.

use std::time::Duration;

use leptos::prelude::*;

use crate::clock::{format_left, left_ms};

/// The webview's clock, re-read every second while the calling view lives.
pub fn ticking_now() -> ReadSignal<f64> {
    let (now, set_now) = signal(js_sys::Date::now());
    crate::ticker::every(Duration::from_secs(1), "time left", move || set_now.set(js_sys::Date::now()));
    now
}

/// "4m 09s" until `expires_at`; `engine_now` is the engine's time when `expires_at` was read.
#[component]
pub fn Countdown(expires_at: String, engine_now: String) -> impl IntoView {
    let received = js_sys::Date::now();
    let now = ticking_now();
    let left = move || {
        let elapsed = (now.get() - received) as i64;
        left_ms(&expires_at, &engine_now, elapsed).map_or_else(|| "unknown".to_string(), format_left)
    };
    view! { <span class="countdown" data-testid="time-left">{left}</span> }
}
