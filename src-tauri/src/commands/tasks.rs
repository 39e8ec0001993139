//! Tasks and the conversation with Nomos. A command that starts a turn records what the operator
//! said, returns at once and runs the turn in the background: its progress reaches the window as
//! events (and the answer being written as transient ones).

use nomos::Runtime;
use nomos_types::tasks::{BoardCounts, TaskBoard, TaskDetail, TurnStarted};
use nomos_types::{IpcError, IpcErrorCode};

use super::ipc_error;
use crate::AppState;

/// How many tasks the board shows.
const BOARD_LIMIT: u32 = 500;

pub async fn list_tasks(state: &AppState) -> Result<TaskBoard, IpcError> {
    let tasks = state.engine().await?.tasks(BOARD_LIMIT).await.map_err(ipc_error)?;
    Ok(TaskBoard { counts: BoardCounts::of(&tasks), tasks })
}

pub async fn task_detail(state: &AppState, id: String) -> Result<TaskDetail, IpcError> {
    state.engine().await?.task_detail(&id).await.map_err(ipc_error)
}

pub async fn create_task(state: &AppState, message: String) -> Result<TurnStarted, IpcError> {
    let rt = with_provider(state).await?;
    let task_id = rt.agent().add_message(None, &message).await.map_err(ipc_error)?;
    Ok(run_in_background(rt, task_id))
}

pub async fn send_task_message(state: &AppState, id: String, message: String) -> Result<TurnStarted, IpcError> {
    let rt = with_provider(state).await?;
    let task_id = rt.agent().add_message(Some(&id), &message).await.map_err(ipc_error)?;
    Ok(run_in_background(rt, task_id))
}

pub async fn approve_task_plan(state: &AppState, id: String) -> Result<TurnStarted, IpcError> {
    let rt = with_provider(state).await?;
    let granted = rt.agent().grant_plan(&id).await.map_err(ipc_error)?;
    for why in &granted.refused {
        tracing::info!(task = %id, "plan approval: {why}");
    }
    Ok(run_in_background(rt, id))
}

pub async fn stop_task(state: &AppState, id: String) -> Result<bool, IpcError> {
    Ok(state.runtime().await?.agent().cancel(&id))
}

pub async fn delete_task(state: &AppState, id: String) -> Result<u64, IpcError> {
    let rt = state.runtime().await?;
    // A turn still running would write into a task that no longer exists.
    rt.agent().cancel(&id);
    rt.engine().delete_task(&id).await.map_err(ipc_error)
}

/// The runtime, when Nomos has a provider to think with; otherwise a `no_provider` error the
/// window turns into a pointer to Settings. The first look may ask the OS keychain, which blocks.
pub(super) async fn with_provider(state: &AppState) -> Result<&Runtime, IpcError> {
    let rt = state.runtime().await?;
    let probe = rt.clone();
    let checked = tauri::async_runtime::spawn_blocking(move || probe.agent().provider().map(|_| ()))
        .await
        .map_err(|e| IpcError::new(IpcErrorCode::Ipc, format!("the provider check did not finish: {e}")))?;
    match checked {
        Ok(()) => Ok(rt),
        Err(e) => Err(IpcError::new(IpcErrorCode::NoProvider, format!("Nomos has no model provider: {e}"))),
    }
}

/// Runs one turn of the task on the app's async runtime. How it ends is in the task's events; a
/// turn that cannot start (one already runs) is logged.
pub(super) fn run_in_background(rt: &Runtime, task_id: String) -> TurnStarted {
    let rt = rt.clone();
    let id = task_id.clone();
    tauri::async_runtime::spawn(async move {
        match rt.agent().run(&id).await {
            Ok((task, end)) => tracing::info!(task = %id, status = %task.status, "turn ended: {end:?}"),
            Err(e) => tracing::warn!(task = %id, "turn did not run: {e}"),
        }
    });
    TurnStarted { task_id }
}
