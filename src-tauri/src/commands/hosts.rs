//! Hosts and discovery: adding a host (its key shown before it is trusted), testing what discovery
//! needs, and discovering its cluster for review, then applying it.

use nomos::actuate::Decision;
use nomos::discovery::{ApplyBy, DiscoverOptions};
use nomos::types::{AddedHost, DiscoveryDiff, DiscoverySettings, HostEntry, HostRemoved, HostSpec, HostTest, IpcError};
use nomos_types::Channel;

use super::ipc_error;
use crate::AppState;

pub async fn add_host(state: &AppState, spec: HostSpec) -> Result<AddedHost, IpcError> {
    state.runtime().await?.actuator().add_host(&spec).await.map_err(ipc_error)
}

pub async fn edit_host(state: &AppState, spec: HostSpec) -> Result<HostEntry, IpcError> {
    let act = state.runtime().await?.actuator();
    let host = act.engine().edit_host(&spec).await.map_err(ipc_error)?;
    let entries = act.host_entries().await.map_err(ipc_error)?;
    entries
        .into_iter()
        .find(|e| e.host == host.slug)
        .ok_or_else(|| ipc_error(nomos::Error::NotFound { what: "host", key: host.slug.clone() }))
}

pub async fn remove_host(state: &AppState, slug: String) -> Result<HostRemoved, IpcError> {
    state.runtime().await?.actuator().remove_host(&slug).await.map_err(ipc_error)
}

pub async fn present_host_key(state: &AppState, slug: String) -> Result<String, IpcError> {
    state.runtime().await?.actuator().present_key(&slug).await.map_err(ipc_error)
}

pub async fn test_host(state: &AppState, slug: String) -> Result<HostTest, IpcError> {
    state.runtime().await?.actuator().test_host(&slug).await.map_err(ipc_error)
}

pub async fn discover(state: &AppState, slug: String, apply: bool) -> Result<DiscoveryDiff, IpcError> {
    // Applied from the window: the operator reviewed the diff (the same person the CLI names).
    let apply = apply.then(|| ApplyBy::Operator(Decision::by_operator(Channel::Ui, None).actor));
    state.runtime().await?.actuator().discover(&slug, DiscoverOptions { apply }).await.map_err(ipc_error)
}

pub async fn discovery_settings(state: &AppState) -> Result<DiscoverySettings, IpcError> {
    state.engine().await?.discovery_settings().await.map_err(ipc_error)
}

pub async fn save_discovery_settings(
    state: &AppState,
    settings: DiscoverySettings,
) -> Result<DiscoverySettings, IpcError> {
    state.engine().await?.save_discovery_settings(&settings).await.map_err(ipc_error)
}
