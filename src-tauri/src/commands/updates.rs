//! The app's own updates: the status, a check on demand, "Later" and "Install and restart". The
//! work is in [`crate::updates`]; failures are part of the status, not errors of the call.

use nomos_types::{IpcError, UpdateStatus};

use crate::AppState;

pub async fn update_status(state: &AppState) -> Result<UpdateStatus, IpcError> {
    Ok(state.updates.status())
}

pub async fn check_for_update(state: &AppState) -> Result<UpdateStatus, IpcError> {
    Ok(state.updates.check().await)
}

pub async fn postpone_update(state: &AppState) -> Result<UpdateStatus, IpcError> {
    Ok(state.updates.postpone())
}

pub async fn install_update(state: &AppState) -> Result<UpdateStatus, IpcError> {
    Ok(state.updates.install().await)
}
