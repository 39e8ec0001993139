//! Observe: the overview, signals (ack, mute, resolve), metrics, health and checks.

use nomos::actuate::Decision;
use nomos::types::{
    Check, CheckRun, CheckSpec, HealthSummary, Investigation, IpcError, LearningReport, MetricRange, MetricSeries,
    ObserveSettings, Overview, Signal, SignalList, SignalQuery,
};
use nomos_types::Channel;

use super::ipc_error;
use crate::AppState;

fn operator() -> String {
    Decision::by_operator(Channel::Ui, None).actor
}

pub async fn overview(state: &AppState) -> Result<Overview, IpcError> {
    state.engine().await?.overview().await.map_err(ipc_error)
}

pub async fn list_signals(state: &AppState, query: SignalQuery) -> Result<SignalList, IpcError> {
    state.engine().await?.list_signals(&query).await.map_err(ipc_error)
}

pub async fn ack_signal(state: &AppState, id: String, reason: String) -> Result<Signal, IpcError> {
    state.engine().await?.ack_signal(&id, &reason, &operator()).await.map_err(ipc_error)
}

pub async fn mute_signal(state: &AppState, id: String, seconds: u64) -> Result<Signal, IpcError> {
    state.engine().await?.mute_signal(&id, seconds, &operator()).await.map_err(ipc_error)
}

pub async fn resolve_signal(state: &AppState, id: String) -> Result<Signal, IpcError> {
    state.engine().await?.resolve_signal(&id, &operator()).await.map_err(ipc_error)
}

/// Opens the investigation and, when Nomos can think, runs its first turn in the background; the
/// window goes to the task either way (without a provider the task waits, researched).
pub async fn investigate_signal(state: &AppState, id: String) -> Result<Investigation, IpcError> {
    let rt = state.runtime().await?;
    let inv = rt.actuator().investigate(&id, false).await.map_err(ipc_error)?;
    if inv.created && super::tasks::with_provider(state).await.is_ok() {
        super::tasks::run_in_background(rt, inv.task_id.clone());
    }
    Ok(inv)
}

pub async fn learning_report(state: &AppState) -> Result<LearningReport, IpcError> {
    state.engine().await?.learning_report().await.map_err(ipc_error)
}

pub async fn query_metrics(
    state: &AppState,
    slug: String,
    metric: Option<String>,
    range: MetricRange,
) -> Result<Vec<MetricSeries>, IpcError> {
    state.engine().await?.query_metrics(&slug, metric.as_deref(), range).await.map_err(ipc_error)
}

pub async fn health_summary(state: &AppState) -> Result<HealthSummary, IpcError> {
    state.engine().await?.health_summary().await.map_err(ipc_error)
}

pub async fn entity_checks(state: &AppState, slug: String) -> Result<Vec<Check>, IpcError> {
    state.engine().await?.entity_checks(&slug).await.map_err(ipc_error)
}

pub async fn add_check(state: &AppState, spec: CheckSpec) -> Result<Check, IpcError> {
    state.engine().await?.add_check(&spec).await.map_err(ipc_error)
}

pub async fn set_check_enabled(state: &AppState, id: String, enabled: bool) -> Result<Check, IpcError> {
    state.engine().await?.set_check_enabled(&id, enabled, &operator()).await.map_err(ipc_error)
}

pub async fn remove_check(state: &AppState, id: String) -> Result<(), IpcError> {
    state.engine().await?.remove_check(&id, &operator()).await.map_err(ipc_error)
}

pub async fn run_check(state: &AppState, id: String) -> Result<CheckRun, IpcError> {
    state.runtime().await?.actuator().run_check(&id).await.map_err(ipc_error)
}

pub async fn observe_settings(state: &AppState) -> Result<ObserveSettings, IpcError> {
    state.engine().await?.observe_settings().await.map_err(ipc_error)
}

pub async fn save_observe_settings(state: &AppState, settings: ObserveSettings) -> Result<ObserveSettings, IpcError> {
    state.engine().await?.save_observe_settings(&settings).await.map_err(ipc_error)
}
