//! The Oikos desktop shell. It runs the engine in-process, exposes thin commands to the webview and
//! forwards engine events to it. No domain logic lives here.
#![cfg_attr(not(debug_assertions), windows_subsystem = "windows")]

mod commands;

use std::path::PathBuf;
use std::time::Duration;

use nomos::Engine;
use nomos_types::EVENT_CHANNEL;
use tauri::{Emitter, Manager};
use tokio::sync::broadcast::error::RecvError;

/// How often the desktop looks for changes written by other processes.
const OTHER_WRITERS_EVERY: Duration = Duration::from_secs(1);
/// How often overdue approvals are expired and executions of dead processes closed.
const SWEEP_EVERY: Duration = Duration::from_secs(30);

/// What the commands share. The engine may have failed to open (corrupt or unwritable database):
/// the window still opens and says why, instead of the app vanishing.
pub struct AppState {
    engine: Result<Engine, String>,
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

fn open_engine() -> Result<Engine, String> {
    let path = nomos::store::resolve_path(db_arg().as_deref()).map_err(|e| e.to_string())?;
    tracing::info!(path = %path.display(), "opening database");
    tauri::async_runtime::block_on(Engine::open(&path)).map_err(|e| e.to_string())
}

fn main() {
    nomos::init_logging("OIKOS_LOG", "info");

    let result = tauri::Builder::default()
        .setup(|app| {
            let engine = open_engine();
            match &engine {
                Ok(engine) => {
                    forward_events(app.handle().clone(), engine);
                    keep_house(engine);
                }
                Err(e) => tracing::error!("{e}"),
            }
            app.manage(AppState { engine });
            Ok(())
        })
        .invoke_handler(commands::handler())
        .run(tauri::generate_context!());
    if let Err(e) = result {
        tracing::error!("oikos stopped: {e}");
        std::process::exit(1);
    }
}

/// At start and then every [`SWEEP_EVERY`]: expires approvals nobody decided on and fails the
/// executions a killed process left running (the app itself may have been that process).
fn keep_house(engine: &Engine) {
    let policy = nomos::policy::Policy::load().unwrap_or_else(|e| {
        tracing::error!("operator policy not loaded, using the built-in one: {e}");
        nomos::policy::Policy::builtin().clone()
    });
    let act = nomos::actuate::Actuator::new(engine.clone(), policy, nomos::actuate::ActuateConfig::default());
    tauri::async_runtime::spawn(async move {
        let mut every = tokio::time::interval(SWEEP_EVERY);
        loop {
            every.tick().await;
            match act.sweep().await {
                Ok((0, 0)) => {}
                Ok((expired, interrupted)) => tracing::info!(expired, interrupted, "swept approvals and executions"),
                Err(e) => tracing::warn!("sweep failed: {e}"),
            }
        }
    });
}

/// Relays every engine event to the webview. A lagging relay drops events it missed and says so
/// in the log; the UI refreshes from the database on the next event anyway.
fn forward_events(app: tauri::AppHandle, engine: &Engine) {
    let mut rx = engine.subscribe();
    // Changes made by the `nomos` CLI on the same database show up live too.
    tauri::async_runtime::spawn(engine.watch_other_writers(OTHER_WRITERS_EVERY));
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
}
