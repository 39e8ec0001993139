//! The commands the webview invokes, generated from the command table in [`nomos_types::ipc`]:
//! the [`Commands`] trait (one method per command; the desktop not implementing one does not
//! compile), one Tauri handler per command and [`handler`], which registers them all. Each method
//! is a thin call into the engine; errors cross as [`IpcError`] (a stable code and a one-line
//! message).

use std::future::Future;

use nomos::Engine;
use nomos_types::{IpcError, IpcErrorCode};
use tauri::State;

use crate::AppState;

macro_rules! desktop_commands {
    ($( $(#[$doc:meta])* $name:ident ( $($arg:ident : $ty:ty),* ) -> $out:ty; )*) => {
        /// What the desktop answers, one method per command of the table.
        pub trait Commands {
            $(
                $(#[$doc])*
                fn $name(&self $(, $arg: $ty)*) -> impl Future<Output = Result<$out, IpcError>> + Send;
            )*
        }

        // Arguments are looked up under their declared (snake_case) names, the keys the UI sends.
        $(
            #[tauri::command(rename_all = "snake_case")]
            async fn $name(state: State<'_, AppState> $(, $arg: $ty)*) -> Result<$out, IpcError> {
                <AppState as Commands>::$name(state.inner() $(, $arg)*).await
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
    fn engine(&self) -> Result<&Engine, IpcError> {
        match &self.runtime {
            Ok(rt) => Ok(rt.engine()),
            Err(message) => Err(IpcError::new(IpcErrorCode::StoreUnavailable, message)),
        }
    }
}

/// The engine's error as the UI sees it. Exhaustive on purpose: a new kind of engine error has to
/// be given its code here.
fn ipc_error(e: nomos::Error) -> IpcError {
    let code = match &e {
        nomos::Error::Store(_) => IpcErrorCode::Store,
        nomos::Error::Ontology(_) => IpcErrorCode::Ontology,
        nomos::Error::NotFound { .. } => IpcErrorCode::NotFound,
        nomos::Error::Invalid(_) => IpcErrorCode::Invalid,
        nomos::Error::Conflict(_) => IpcErrorCode::Conflict,
        nomos::Error::Inventory { .. } => IpcErrorCode::Inventory,
        nomos::Error::Db(_) => IpcErrorCode::Database,
        nomos::Error::Policy(_) => IpcErrorCode::Policy,
    };
    IpcError::new(code, e)
}

impl Commands for AppState {
    async fn store_info(&self) -> Result<nomos_types::StoreInfo, IpcError> {
        self.engine()?.info().await.map_err(ipc_error)
    }

    async fn entity_types(&self) -> Result<Vec<nomos_types::TypeCount>, IpcError> {
        self.engine()?.entity_type_counts().await.map_err(ipc_error)
    }

    async fn list_entities(
        &self,
        query: nomos_types::EntityQuery,
    ) -> Result<nomos_types::Page<nomos_types::EntityListItem>, IpcError> {
        self.engine()?.list_entities(&query).await.map_err(ipc_error)
    }

    async fn explain_entity(&self, slug: String) -> Result<nomos_types::Explain, IpcError> {
        self.engine()?.explain(&slug).await.map_err(ipc_error)
    }

    async fn blast_radius(&self, slug: String, depth: Option<u32>) -> Result<nomos_types::BlastRadius, IpcError> {
        self.engine()?.blast_radius(&slug, depth).await.map_err(ipc_error)
    }

    async fn import_demo_inventory(&self) -> Result<nomos_types::ImportReport, IpcError> {
        self.engine()?.import_inventory(nomos::inventory::DEMO_INVENTORY, "demo inventory").await.map_err(ipc_error)
    }
}
