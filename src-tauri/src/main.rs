//! The Oikos desktop shell. It runs the engine in-process, exposes thin commands to the webview and
//! forwards engine events to it. No domain logic lives here.
#![cfg_attr(not(debug_assertions), windows_subsystem = "windows")]

mod commands;
mod notify;
mod rendering;
mod startup;
mod tray;
mod updates;
mod window;

use std::path::PathBuf;

use nomos::{Runtime, RuntimeConfig};
use nomos_types::{EVENT_CHANNEL, TRANSIENT_CHANNEL};
use tauri::{Emitter, Manager};
use tokio::sync::broadcast::error::RecvError;
use tokio::sync::SetOnce;

/// What the commands share. The runtime may have failed to open (corrupt or unwritable database,
/// invalid operator policy): the window still opens and says why, instead of the app vanishing.
pub struct AppState {
    /// The process's one runtime, or why it could not open. It opens beside the window, not
    /// before it: the page loads while the database opens (and migrates), and the commands that
    /// need it wait for it.
    runtime: SetOnce<Result<Runtime, String>>,
    /// The app, for commands that reach its plugins (starting at login).
    app: tauri::AppHandle,
    /// The app's own updates (checks, the offer, installing).
    updates: updates::Updates,
}

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
/// every second, and Nomos continuing tasks when what they wait on ends), what follows the engine
/// (the window's events, notifications, the tray), then hands it to the commands waiting for it.
fn open_runtime(app: tauri::AppHandle) {
    // Commands wait for an answer: even a panic while opening gives them one.
    let opened = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        // Within the async runtime: the background work and the followers are tasks of it.
        tauri::async_runtime::block_on(open_and_follow(&app))
    }))
    .unwrap_or_else(|_| Err("opening the database failed unexpectedly; the log says more".to_string()));
    if let Err(e) = &opened {
        tracing::error!("{e}");
    }
    if app.state::<AppState>().runtime.set(opened).is_err() {
        tracing::error!("the runtime was opened twice");
    }
}

async fn open_and_follow(app: &tauri::AppHandle) -> Result<Runtime, String> {
    let path = nomos::store::resolve_path(db_arg().as_deref()).map_err(|e| e.to_string())?;
    tracing::info!(path = %path.display(), "opening database");
    let rt = Runtime::open(RuntimeConfig::new(path)).await.map_err(|e| e.to_string())?;
    // Subscribed before the background work starts and before any command can read: nothing
    // between a page's first read and its events is missed.
    forward_events(app.clone(), &rt);
    notify::setup(app, &rt);
    tray::follow_engine(app.clone(), &rt);
    rt.start_background();
    tracing::info!(ms = startup::elapsed_ms(), "database open");
    Ok(rt)
}

/// How long quitting waits for a database still opening, to close it cleanly.
const CLOSE_WAIT: std::time::Duration = std::time::Duration::from_secs(5);

fn main() {
    startup::begin();
    let rendering = rendering::apply();
    nomos::init_logging("OIKOS_LOG", "info");
    tracing::info!("{rendering}");

    let result = window::plugins(tauri::Builder::default())
        .plugin(tauri_plugin_notification::init())
        .plugin(tauri_plugin_updater::Builder::new().build())
        .setup(|app| {
            app.manage(AppState {
                runtime: SetOnce::new(),
                app: app.handle().clone(),
                updates: updates::Updates::new(app.handle()),
            });
            updates::start(app.handle());
            // The tray first: its counts follow the engine once it is open.
            window::setup(app.handle());
            // A thread of its own: the main thread goes on to serve the page.
            let handle = app.handle().clone();
            std::thread::Builder::new().name("open-runtime".into()).spawn(move || open_runtime(handle))?;
            Ok(())
        })
        .on_window_event(window::on_event)
        .invoke_handler(commands::handler())
        .build(tauri::generate_context!());
    match result {
        Ok(app) => app.run(|app, event| {
            if let tauri::RunEvent::Exit = event {
                // Background work stops and the database is closed cleanly (its WAL checkpointed),
                // also when quitting while it still opens (a bounded wait for it first).
                if let Some(state) = app.try_state::<AppState>() {
                    tauri::async_runtime::block_on(async {
                        if let Ok(Ok(rt)) = tokio::time::timeout(CLOSE_WAIT, state.runtime.wait()).await {
                            rt.close().await;
                        }
                    });
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
