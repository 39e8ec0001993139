//! The commands the webview invokes, generated from the command table in [`nomos_types::ipc`]:
//! one Tauri handler per command, each calling the function of the same name and signature in one
//! of the area modules below (a command of the table without its function, or with another
//! signature, does not compile), and [`handler`], which registers them all. Each function is a thin
//! call into the engine; errors cross as [`IpcError`] (a stable code and a one-line message).
//!
//! Areas: [`graph`] (entities, relations, blast radius, inventory), [`hosts`] (hosts and discovery), [`tasks`] (tasks and the
//! conversation with Nomos), [`operations`] (approvals, executions, the audit ledger, autonomy),
//! [`library`] (knowledge and settings), [`mcp`] (other agents connected over MCP), [`notify`] (which notifications are on), [`updates`] (the
//! app's own updates), [`window`] (the window itself). A new area is a module here and a line in
//! `imp`.

mod desktop;
mod graph;
mod hosts;
mod library;
mod mcp;
mod notify;
mod observe;
mod operations;
mod tasks;
mod updates;
mod window;

use nomos::{Engine, Runtime};
use nomos_types::{IpcError, IpcErrorCode};
use tauri::State;

use crate::AppState;

/// The window's Investigate, also behind a notification's button.
pub(crate) use observe::investigate_signal as investigate;

/// Every command's function, by name.
mod imp {
    pub(super) use super::desktop::*;
    pub(super) use super::graph::*;
    pub(super) use super::hosts::*;
    pub(super) use super::library::*;
    pub(super) use super::mcp::*;
    pub(super) use super::notify::*;
    pub(super) use super::observe::*;
    pub(super) use super::operations::*;
    pub(super) use super::tasks::*;
    pub(super) use super::updates::*;
    pub(super) use super::window::*;
}

macro_rules! desktop_commands {
    ($( $(#[$doc:meta])* $name:ident ( $($arg:ident : $ty:ty),* ) -> $out:ty; )*) => {
        // Arguments are looked up under their declared (snake_case) names, the keys the UI sends.
        $(
            $(#[$doc])*
            #[tauri::command(rename_all = "snake_case")]
            async fn $name(state: State<'_, AppState> $(, $arg: $ty)*) -> Result<$out, IpcError> {
                let result: Result<$out, IpcError> = imp::$name(state.inner() $(, $arg)*).await;
                result
            }
        )*

        /// Every command's handler, for `Builder::invoke_handler`.
        pub fn handler<R: tauri::Runtime>() -> impl Fn(tauri::ipc::Invoke<R>) -> bool + Send + Sync + 'static {
            tauri::generate_handler![$($name),*]
        }
    };
}

nomos_types::ipc_commands!(desktop_commands);

impl AppState {
    /// The engine, or why the runtime could not open (database or policy): the UI shows that.
    pub(crate) async fn engine(&self) -> Result<&Engine, IpcError> {
        self.runtime().await.map(Runtime::engine)
    }

    /// The runtime (engine, gate and Nomos), or why it could not open.
    /// Commands that arrive while it still opens wait for it.
    pub(crate) async fn runtime(&self) -> Result<&Runtime, IpcError> {
        self.runtime.wait().await.as_ref().map_err(|message| IpcError::new(IpcErrorCode::StoreUnavailable, message))
    }
}

/// The engine's error as the UI sees it. Exhaustive on purpose: a new kind of engine error has to
/// be given its code here.
pub(crate) fn ipc_error(e: nomos::Error) -> IpcError {
    let code = match &e {
        nomos::Error::Store(_) => IpcErrorCode::Store,
        nomos::Error::Ontology(_) => IpcErrorCode::Ontology,
        nomos::Error::NotFound { .. } => IpcErrorCode::NotFound,
        nomos::Error::Invalid(_) => IpcErrorCode::Invalid,
        nomos::Error::Conflict(_) => IpcErrorCode::Conflict,
        nomos::Error::Inventory { .. } => IpcErrorCode::Inventory,
        nomos::Error::Db(_) => IpcErrorCode::Database,
        nomos::Error::Policy(_) => IpcErrorCode::Policy,
        nomos::Error::Refused(_) => IpcErrorCode::Refused,
    };
    IpcError::new(code, e)
}
