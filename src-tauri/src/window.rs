//! The main window's life: one instance of the app (starting it again shows the window already
//! open), closing hides it to the tray, its size and position remembered, and starting at login.

use nomos_types::{Destination, NAVIGATE_CHANNEL};
use tauri::{AppHandle, Emitter, Manager, Window, WindowEvent};
use tauri_plugin_window_state::StateFlags;

use crate::tray;

/// The window the app opens (tauri.conf.json).
pub const MAIN: &str = "main";

/// Given on the command line by the login entry: start in the tray, without the window.
const HIDDEN_ARG: &str = "--hidden";

/// The plugins of the app's desktop life, single instance first (a second start must end before
/// anything else starts).
pub fn plugins(builder: tauri::Builder<tauri::Wry>) -> tauri::Builder<tauri::Wry> {
    builder
        // The second process hands over to the first (over D-Bus on Linux) and exits with 0.
        .plugin(tauri_plugin_single_instance::init(|app, _argv, _cwd| show(app)))
        // Size, position and maximized; never "hidden", which closing to the tray would save.
        .plugin(
            tauri_plugin_window_state::Builder::default()
                .with_state_flags(StateFlags::SIZE | StateFlags::POSITION | StateFlags::MAXIMIZED)
                .build(),
        )
        .plugin(tauri_plugin_autostart::init(
            tauri_plugin_autostart::MacosLauncher::LaunchAgent,
            Some(vec![HIDDEN_ARG]),
        ))
}

/// Starts the tray, and stays in it when started at login.
pub fn setup(app: &AppHandle) {
    tray::setup(app);
    if std::env::args().any(|a| a == HIDDEN_ARG) && tray::is_shown(app) {
        if let Some(window) = app.get_webview_window(MAIN) {
            if let Err(e) = window.hide() {
                tracing::warn!("cannot start hidden: {e}");
            }
        }
    }
}

/// Shows the main window, restored and focused.
pub fn show(app: &AppHandle) {
    show_then(app, |_| {});
}

/// Shows the main window on `destination` (the tray's Pending approvals, a notification's Open
/// or click): the window's router navigates on this event.
pub fn open(app: &AppHandle, destination: Destination) {
    show_then(app, move |app| {
        if let Err(e) = app.emit(NAVIGATE_CHANNEL, &destination) {
            tracing::warn!("cannot ask the window to show {destination:?}: {e}");
        }
    });
}

/// Shows the main window, then does `then` (e.g. asks it for a page). Both run together on the
/// main thread, in this order, so a close arriving in between cannot leave the window half shown.
pub fn show_then(app: &AppHandle, then: impl FnOnce(&AppHandle) + Send + 'static) {
    let Some(window) = app.get_webview_window(MAIN) else { return };
    let handle = app.clone();
    let scheduled = app.run_on_main_thread(move || {
        let shown = window.show().and_then(|()| window.unminimize()).and_then(|()| window.set_focus());
        if let Err(e) = shown {
            tracing::warn!("cannot show the window: {e}");
        }
        then(&handle);
    });
    if let Err(e) = scheduled {
        tracing::warn!("cannot show the window: {e}");
    }
}

/// Closing the main window hides it while the tray icon is there to bring it back; without a
/// tray it closes, and the app ends as before.
pub fn on_event(window: &Window, event: &WindowEvent) {
    let WindowEvent::CloseRequested { api, .. } = event else { return };
    if window.label() != MAIN {
        return;
    }
    let app = window.app_handle();
    if !tray::is_shown(app) {
        return;
    }
    api.prevent_close();
    if let Err(e) = window.hide() {
        tracing::warn!("cannot hide the window: {e}");
        return;
    }
    tray::closed_to_tray_notice(app);
}
