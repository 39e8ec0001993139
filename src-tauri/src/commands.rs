//! Commands the webview invokes. Each is a thin call into the engine; errors cross as
//! [`IpcError`] (a stable code and a one-line message).

use nomos::Engine;
use nomos_types::{
    BlastRadius, EntityListItem, EntityQuery, Explain, ImportReport, IpcError, Page, StoreInfo, TypeCount,
};
use tauri::State;

use crate::AppState;

fn engine<'a>(state: &'a State<'_, AppState>) -> Result<&'a Engine, IpcError> {
    state.engine.as_ref().map_err(|message| IpcError { code: "store_unavailable".into(), message: message.clone() })
}

fn ipc(e: nomos::Error) -> IpcError {
    IpcError { code: e.code().into(), message: e.to_string() }
}

#[tauri::command]
pub async fn store_info(state: State<'_, AppState>) -> Result<StoreInfo, IpcError> {
    engine(&state)?.info().await.map_err(ipc)
}

#[tauri::command]
pub async fn entity_types(state: State<'_, AppState>) -> Result<Vec<TypeCount>, IpcError> {
    engine(&state)?.entity_type_counts().await.map_err(ipc)
}

#[tauri::command]
pub async fn list_entities(state: State<'_, AppState>, query: EntityQuery) -> Result<Page<EntityListItem>, IpcError> {
    engine(&state)?.list_entities(&query).await.map_err(ipc)
}

#[tauri::command]
pub async fn explain_entity(state: State<'_, AppState>, slug: String) -> Result<Explain, IpcError> {
    engine(&state)?.explain(&slug).await.map_err(ipc)
}

#[tauri::command]
pub async fn blast_radius(
    state: State<'_, AppState>,
    slug: String,
    depth: Option<u32>,
) -> Result<BlastRadius, IpcError> {
    engine(&state)?.blast_radius(&slug, depth).await.map_err(ipc)
}

#[tauri::command]
pub async fn import_demo_inventory(state: State<'_, AppState>) -> Result<ImportReport, IpcError> {
    engine(&state)?.import_inventory(nomos::inventory::DEMO_INVENTORY, "demo inventory").await.map_err(ipc)
}
