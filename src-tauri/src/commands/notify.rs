//! Which desktop notifications are on (kept in the engine's settings; `crate::notify` reads them
//! for every event).

use nomos_types::{IpcError, NotificationSettings};

use super::ipc_error;
use crate::AppState;

pub async fn notification_settings(state: &AppState) -> Result<NotificationSettings, IpcError> {
    state.engine().await?.notification_settings().await.map_err(ipc_error)
}

pub async fn save_notification_settings(
    state: &AppState,
    settings: NotificationSettings,
) -> Result<NotificationSettings, IpcError> {
    state.engine().await?.save_notification_settings(&settings).await.map_err(ipc_error)
}
