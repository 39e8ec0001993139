//! Approvals, executions, the audit ledger and autonomy. The desktop decides as the operator of
//! this machine on the `ui` channel; the gate checks every decision.

use nomos::actuate::Decision;
use nomos_types::events::Event;
use nomos_types::{
    Approval, AuditEntry, AuditQuery, Autonomy, Channel, Execution, ExecutionQuery, IpcError, IpcErrorCode, Page,
    PendingApprovals,
};
use tokio::sync::broadcast::error::RecvError;

use super::ipc_error;
use crate::AppState;

fn operator(message: Option<String>) -> Decision {
    Decision::by_operator(Channel::Ui, message.filter(|m| !m.trim().is_empty()))
}

pub async fn pending_approvals(state: &AppState) -> Result<PendingApprovals, IpcError> {
    let rt = state.runtime().await?;
    let approvals = rt.actuator().pending_approvals().await.map_err(ipc_error)?;
    Ok(PendingApprovals { approvals, now: rt.clock().now() })
}

/// Approves and returns as soon as the execution has started: the command runs on in the
/// engine, its output and end arrive as events, and the engine continues its task afterwards.
pub async fn approve(
    state: &AppState,
    approval_id: String,
    confirmation: Option<String>,
) -> Result<Execution, IpcError> {
    let rt = state.runtime().await?;
    let act = rt.actuator().clone();
    let approval = act.approval(&approval_id).await.map_err(ipc_error)?;
    // Subscribed before approving, so the start cannot be missed.
    let mut events = rt.subscribe();
    let decision = operator(confirmation);
    let mut run = tokio::spawn(async move { act.approve(&approval_id, &decision).await });
    loop {
        tokio::select! {
            ended = &mut run => {
                return match ended {
                    Ok(result) => result.map_err(ipc_error),
                    Err(e) => Err(IpcError::new(IpcErrorCode::Ipc, format!("approving stopped: {e}"))),
                };
            }
            event = events.recv() => match event {
                Ok(event) => {
                    if let Event::ExecutionStarted(started) = &event.event {
                        if started.execution_id == approval.execution_id {
                            return rt.actuator().execution(&approval.execution_id).await.map_err(ipc_error);
                        }
                    }
                }
                // Missed events: the approval's own end still answers.
                Err(RecvError::Lagged(_)) => {}
                Err(RecvError::Closed) => {
                    return rt.actuator().execution(&approval.execution_id).await.map_err(ipc_error);
                }
            }
        }
    }
}

pub async fn deny(state: &AppState, approval_id: String, reason: Option<String>) -> Result<Approval, IpcError> {
    state.runtime().await?.actuator().deny(&approval_id, &operator(reason)).await.map_err(ipc_error)
}

pub async fn check_confirmation(state: &AppState, approval_id: String, text: String) -> Result<bool, IpcError> {
    state.runtime().await?.actuator().check_confirmation(&approval_id, &text).await.map_err(ipc_error)
}

pub async fn executions(state: &AppState, query: ExecutionQuery) -> Result<Vec<Execution>, IpcError> {
    state.runtime().await?.actuator().executions_matching(&query).await.map_err(ipc_error)
}

pub async fn execution(state: &AppState, id: String) -> Result<Execution, IpcError> {
    state.runtime().await?.actuator().execution(&id).await.map_err(ipc_error)
}

pub async fn cancel_execution(state: &AppState, id: String) -> Result<Execution, IpcError> {
    state.runtime().await?.actuator().cancel(&id, &operator(None)).await.map_err(ipc_error)
}

pub async fn audit(state: &AppState, query: AuditQuery) -> Result<Page<AuditEntry>, IpcError> {
    state.runtime().await?.actuator().audit(&query).await.map_err(ipc_error)
}

pub async fn autonomy(state: &AppState) -> Result<Autonomy, IpcError> {
    let rt = state.runtime().await?;
    let act = rt.actuator();
    let paused = act.is_paused().await.map_err(ipc_error)?;
    let windows = act.open_windows().await.map_err(ipc_error)?;
    Ok(Autonomy { paused, windows, now: rt.clock().now() })
}

pub async fn set_autonomy_paused(state: &AppState, paused: bool) -> Result<Autonomy, IpcError> {
    state.runtime().await?.actuator().set_paused(paused, &operator(None)).await.map_err(ipc_error)?;
    autonomy(state).await
}
