//! The Oikos desktop shell. It runs the engine in-process, exposes thin commands to the webview and
//! forwards engine events to it. No domain logic lives here.
#![cfg_attr(not(debug_assertions), windows_subsystem = "windows")]

mod commands;
mod notify;
mod rendering;
mod tray;
mod updates;
mod window;

use std::path::PathBuf;
use std::sync::LazyLock;
use std::time::Instant;

use nomos::{Runtime, RuntimeConfig};
use nomos_types::{EVENT_CHANNEL, TRANSIENT_CHANNEL};
use tauri::{Emitter, Manager};
use tokio::sync::broadcast::error::RecvError;

/// What the commands share. The runtime may have failed to open (corrupt or unwritable database,
/// invalid operator policy): the window still opens and says why, instead of the app vanishing.
pub struct AppState {
    /// The process's one runtime, or why it could not open.
    runtime: Result<Runtime, String>,
    /// The app, for commands that reach its plugins (starting at login).
    app: tauri::AppHandle,
    /// The app's own updates (checks, the offer, installing).
    updates: updates::Updates,
}

/// When the process started (forced first thing in `main`).
pub static STARTED: LazyLock<Instant> = LazyLock::new(Instant::now);

/// `--db PATH` / `--db=PATH` from the command line, if given.
fn db_arg() -> Option<PathBuf> {
    let mut args = std::env::args_os().skip(1);
    while let Some(arg) = args.next() {
        let s = arg.to_string_lossy();
        if s == "--db" {
            return args.next().map(PathBuf::from);
        }
        if let Some(v) = s.strip_prefix("--db=") {
            return Some(PathBuf::from(v));
        }
    }
    None
}

/// Opens the runtime and starts its background work (sweeps every 30 s, other processes' events
/// every second, and Nomos continuing tasks when what they wait on ends) on the app's async runtime.
fn open_runtime() -> Result<Runtime, String> {
    let path = nomos::store::resolve_path(db_arg().as_deref()).map_err(|e| e.to_string())?;
    tracing::info!(path = %path.display(), "opening database");
    tauri::async_runtime::block_on(async {
        let rt = Runtime::open(RuntimeConfig::new(path)).await.map_err(|e| e.to_string())?;
        rt.start_background();
        Ok(rt)
    })
}

fn main() {
    LazyLock::force(&STARTED);
    let rendering = rendering::apply();
    nomos::init_logging("OIKOS_LOG", "info");
    tracing::info!("{rendering}");

    let result = window::plugins(tauri::Builder::default())
        .plugin(tauri_plugin_notification::init())
        .plugin(tauri_plugin_updater::Builder::new().build())
        .setup(|app| {
            let runtime = open_runtime();
            match &runtime {
                Ok(rt) => {
                    forward_events(app.handle().clone(), rt);
                    notify::setup(app.handle(), rt);
                }
                Err(e) => tracing::error!("{e}"),
            }
            app.manage(AppState { runtime, app: app.handle().clone(), updates: updates::Updates::new(app.handle()) });
            updates::start(app.handle());
            window::setup(app.handle());
            Ok(())
        })
        .on_window_event(window::on_event)
        .invoke_handler(commands::handler())
        .build(tauri::generate_context!());
    match result {
        Ok(app) => app.run(|app, event| {
            if let tauri::RunEvent::Exit = event {
                // Background work stops and the database is closed cleanly (its WAL checkpointed).
                if let Some(Ok(rt)) = app.try_state::<AppState>().as_deref().map(|s| &s.runtime) {
                    tauri::async_runtime::block_on(rt.close());
                }
            }
        }),
        Err(e) => {
            tracing::error!("oikos stopped: {e}");
            std::process::exit(1);
        }
    }
}

/// Relays every engine event to the webview. A lagging relay drops events it missed and says so
/// in the log; the UI refreshes from the database on the next event anyway.
/// Changes made by the `nomos` CLI on the same database arrive through the runtime's background
/// work, so they show up live too.
fn forward_events(app: tauri::AppHandle, rt: &Runtime) {
    let mut rx = rt.subscribe();
    let app_t = app.clone();
    tauri::async_runtime::spawn(async move {
        loop {
            match rx.recv().await {
                Ok(event) => {
                    if let Err(e) = app.emit(EVENT_CHANNEL, &event) {
                        tracing::warn!("cannot forward event {}: {e}", event.id);
                    }
                }
                Err(RecvError::Lagged(n)) => tracing::warn!("event relay skipped {n} events"),
                Err(RecvError::Closed) => break,
            }
        }
    });
    // Transient events (an answer being written) on their own channel: the UI shows them and keeps
    // nothing. A lagging relay loses some text of the stream; the stored message replaces it.
    let mut transient = rt.subscribe_transient();
    tauri::async_runtime::spawn(async move {
        loop {
            match transient.recv().await {
                Ok(event) => {
                    if let Err(e) = app_t.emit(TRANSIENT_CHANNEL, &event) {
                        tracing::warn!("cannot forward transient event {}: {e}", event.kind());
                    }
                }
                Err(RecvError::Lagged(n)) => tracing::debug!("transient relay skipped {n} events"),
                Err(RecvError::Closed) => break,
            }
        }
    });
}
