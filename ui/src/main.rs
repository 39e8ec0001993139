//! The Oikos desktop UI: a Leptos (CSR) app compiled to wasm32 and served by the Tauri shell.
//!
//! `app` is the shell and its routes, `pages` one file per page, `components` their parts, `ipc`
//! the only bridge to the shell, `live` keeps views current from engine events (`events` says
//! which events make what stale; `task_feed` the answers being written; `navigation` the pages
//! the shell asks for). The logic without a DOM (`events`, `steady`, `routes`, `tasks`, summaries)
//! is tested natively with `cargo test -p oikos-ui`.

mod app;
mod clock;
mod components;
mod discovery_view;
mod events;
mod exec_feed;
mod first_run;
mod graph_layout;
mod ipc;
mod keys;
mod knowledge_view;
mod live;
mod navigation;
mod observe_view;
mod output;
mod pages;
mod routes;
mod settings_form;
mod steady;
#[cfg(test)]
mod style_check;
mod task_feed;
mod tasks;
mod ticker;

fn main() {
    // When the UI's code begins to run: fetched, compiled and instantiated (reported with ready).
    let loaded = js_sys::Date::now();
    console_error_panic_hook::set_once();
    // The outline index.html draws until the UI is here.
    if let Some(outline) = web_sys::window().and_then(|w| w.document()).and_then(|d| d.get_element_by_id("boot-shell"))
    {
        outline.remove();
    }
    leptos::mount::mount_to_body(app::App);
    let mounted = js_sys::Date::now();
    // The callback of the frame after next runs once the UI's first frame is on screen: the shell
    // logs the start-up time of that moment, and the pages' first reads, held until then, leave.
    leptos::prelude::request_animation_frame(move || {
        leptos::prelude::request_animation_frame(move || {
            let at = js_sys::Date::now();
            ipc::first_frame_drawn();
            leptos::task::spawn_local(async move {
                if let Err(e) = ipc::ui_ready(Some(at), Some(loaded), Some(mounted)).await {
                    leptos::logging::warn!("{e}");
                }
            })
        })
    });
    // A webview that does not draw (a window started hidden) still reads, a moment later.
    leptos::prelude::set_timeout(ipc::first_frame_drawn, READS_AT_THE_LATEST);
}

/// How long the pages' first reads wait for the first frame at most.
const READS_AT_THE_LATEST: std::time::Duration = std::time::Duration::from_secs(1);
