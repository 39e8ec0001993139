//! The desktop's life: starting at login (an entry in the session's autostart list on Linux, a
//! launch agent on macOS), off unless the operator turns it on.

use nomos_types::{IpcError, IpcErrorCode};
use tauri_plugin_autostart::ManagerExt;

use crate::AppState;

fn login_error(e: impl std::fmt::Display) -> IpcError {
    IpcError::new(IpcErrorCode::Desktop, format!("starting at login: {e}"))
}

pub async fn autostart(state: &AppState) -> Result<bool, IpcError> {
    state.app.autolaunch().is_enabled().map_err(login_error)
}

pub async fn set_autostart(state: &AppState, enabled: bool) -> Result<bool, IpcError> {
    let launch = state.app.autolaunch();
    if enabled { launch.enable() } else { launch.disable() }.map_err(login_error)?;
    launch.is_enabled().map_err(login_error)
}
