//! The window itself.

use nomos_types::IpcError;

use crate::AppState;

/// Logged once per window load: how long the app took from its start to its first frame — the
/// page's outline (what `bench-desktop` reads, and what an operator quotes when start-up feels
/// slow).
pub async fn ui_painted(_state: &AppState, at: Option<f64>) -> Result<(), IpcError> {
    let (ms, at) = crate::startup::page_moment(at);
    tracing::info!(ms, at, "first paint");
    Ok(())
}

/// Logged once per window load: how long until the UI itself (its code loaded and mounted) drew.
pub async fn ui_ready(
    _state: &AppState,
    at: Option<f64>,
    loaded: Option<f64>,
    mounted: Option<f64>,
) -> Result<(), IpcError> {
    let (ms, at) = crate::startup::page_moment(at);
    // Only moments the page could tell: an unplaceable one is left out rather than guessed.
    let (loaded_ms, mounted_ms) = (crate::startup::page_ms(loaded), crate::startup::page_ms(mounted));
    tracing::info!(ms, at, loaded_ms, mounted_ms, "UI ready");
    Ok(())
}
