//! Entities, relations, blast radius and inventory.

use nomos_types::IpcError;

use super::ipc_error;
use crate::AppState;

pub async fn store_info(state: &AppState) -> Result<nomos_types::StoreInfo, IpcError> {
    state.engine().await?.info().await.map_err(ipc_error)
}

pub async fn entity_types(state: &AppState) -> Result<Vec<nomos_types::TypeCount>, IpcError> {
    state.engine().await?.entity_type_counts().await.map_err(ipc_error)
}

pub async fn list_entities(
    state: &AppState,
    query: nomos_types::EntityQuery,
) -> Result<nomos_types::Page<nomos_types::EntityListItem>, IpcError> {
    state.engine().await?.list_entities(&query).await.map_err(ipc_error)
}

pub async fn explain_entity(state: &AppState, slug: String) -> Result<nomos_types::Explain, IpcError> {
    state.engine().await?.explain(&slug).await.map_err(ipc_error)
}

pub async fn blast_radius(
    state: &AppState,
    slug: String,
    depth: Option<u32>,
) -> Result<nomos_types::BlastRadius, IpcError> {
    state.engine().await?.blast_radius(&slug, depth).await.map_err(ipc_error)
}

pub async fn import_demo_inventory(state: &AppState) -> Result<nomos_types::ImportReport, IpcError> {
    state.engine().await?.import_inventory(nomos::inventory::DEMO_INVENTORY, "demo inventory").await.map_err(ipc_error)
}

pub async fn graph_snapshot(state: &AppState) -> Result<nomos_types::GraphSnapshot, IpcError> {
    state.engine().await?.graph_snapshot().await.map_err(ipc_error)
}

pub async fn entity_relations(
    state: &AppState,
    slug: String,
    history: bool,
) -> Result<Vec<nomos_types::Relation>, IpcError> {
    state.engine().await?.relations(&slug, history).await.map_err(ipc_error)
}
