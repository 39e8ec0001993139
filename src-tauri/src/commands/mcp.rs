//! Other agents over MCP: the snippets that connect them to this database (`nomos mcp serve`) and
//! the sessions connected now.

use nomos_types::mcp::{connect_snippets, McpConnect};
use nomos_types::IpcError;

use super::ipc_error;
use crate::AppState;

pub async fn mcp_connect(state: &AppState) -> Result<McpConnect, IpcError> {
    let engine = state.engine().await?;
    let info = engine.info().await.map_err(ipc_error)?;
    // The `nomos` beside this app when there is one (a build tree, an install that ships both),
    // else the one on the PATH. The database is named always: the client must use this one.
    let beside = std::env::current_exe().ok().map(|exe| exe.with_file_name("nomos")).filter(|p| p.is_file());
    let nomos = beside.map_or_else(|| "nomos".to_string(), |p| p.to_string_lossy().into_owned());
    let sessions = nomos::mcp::sessions(engine, true, 50).await.map_err(ipc_error)?;
    Ok(McpConnect { snippets: connect_snippets(&nomos, Some(&info.path)), sessions })
}
