//! Nomos, the Oikos engine.
//!
//! One [`Engine`] owns the SQLite store and the ontology. Each concern lives in its own module and
//! adds its operations to `Engine`:
//! - [`store`]: opening, migrating and writing the database;
//! - [`graph`]: ontology, entities, temporal relationships, blast radius, explain;
//! - [`knowledge`]: the knowledge base with full-text search;
//! - [`inventory`]: importing a homelab description from YAML;
//! - [`discovery`]: reading a Proxmox cluster through the gate into the graph, as a reviewed diff;
//! - [`tasks`]: task records and their lifecycle;
//! - [`settings`]: operator settings kept in the database (the model provider);
//! - [`events`]: the event bus every change is announced on;
//! - [`actuate`]: the gate and the SSH executor — the one path by which anything runs on a host;
//! - [`runtime`]: the one [`Runtime`] a process builds: the engine, the policy, the actuator, the
//!   clock and the background work, owned together.
//!
//! The classifier is the crate `nomos-policy` (re-exported as [`policy`]); the command line is
//! `nomos-cli`; the simulated Proxmox hosts are `nomos-lab`.

pub mod actuate;
pub mod agent;
pub mod clock;
pub mod discovery;
pub mod events;
pub mod graph;
pub mod hosts;
pub mod inventory;
pub mod knowledge;
pub mod mcp;
pub mod observe;
pub mod plan;
pub mod process;
pub mod runtime;
pub mod settings;
pub mod store;
pub mod tasks;
/// Only in debug builds (tests run those): a release binary has no pause points.
#[cfg(debug_assertions)]
#[doc(hidden)]
pub mod testing_hooks;

#[cfg(test)]
pub(crate) mod testing;

use std::path::Path;
use std::sync::Arc;

pub use nomos_policy as policy;
pub use nomos_types as types;
use nomos_types::{EngineEvent, StoreInfo, TransientEvent};
use tokio::sync::broadcast;

use clock::{Clock, SystemClock};
use events::EventDraft;
pub use graph::ontology::{Ontology, OntologyError};
pub use runtime::{PolicySource, Runtime, RuntimeConfig};
pub use store::{Store, StoreError};

/// Sends `tracing` output to stderr, filtered by the environment variable `var` (EnvFilter syntax),
/// else by `default`. For binaries; call once.
pub fn init_logging(var: &str, default: &str) {
    let filter = tracing_subscriber::EnvFilter::try_from_env(var)
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new(default));
    tracing_subscriber::fmt().with_env_filter(filter).with_writer(std::io::stderr).init();
}

/// Errors of the engine's operations. Each carries a one-line message fit for an operator.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error(transparent)]
    Store(#[from] StoreError),
    #[error(transparent)]
    Ontology(#[from] OntologyError),
    #[error("{what} `{key}` not found")]
    NotFound { what: &'static str, key: String },
    #[error("{0}")]
    Invalid(String),
    #[error("{0}")]
    Conflict(String),
    #[error("inventory {source_name}: {message}")]
    Inventory { source_name: String, message: String },
    #[error("database error: {0}")]
    Db(#[from] sqlx::Error),
    #[error(transparent)]
    Policy(#[from] policy::PolicyError),
    /// The gate refused a command it could not judge.
    #[error(transparent)]
    Refused(#[from] policy::ClassifierFailure),
}

impl From<nomos_types::actions::ActionError> for Error {
    fn from(e: nomos_types::actions::ActionError) -> Error {
        Error::Invalid(e.to_string())
    }
}

impl Error {
    /// A stable machine-readable code (used by the desktop UI and `--json` errors).
    pub fn code(&self) -> &'static str {
        match self {
            Error::Store(_) => "store",
            Error::Ontology(_) => "ontology",
            Error::NotFound { .. } => "not_found",
            Error::Invalid(_) => "invalid",
            Error::Conflict(_) => "conflict",
            Error::Inventory { .. } => "inventory",
            Error::Db(_) => "database",
            Error::Policy(_) => "policy",
            Error::Refused(_) => "refused",
        }
    }

    pub(crate) fn not_found(what: &'static str, key: impl Into<String>) -> Error {
        Error::NotFound { what, key: key.into() }
    }
}

pub type Result<T, E = Error> = std::result::Result<T, E>;

/// The engine: an open store plus the ontology it validates against. Its time is the store's
/// clock.
#[derive(Clone, Debug)]
pub struct Engine {
    store: Store,
    ontology: Arc<Ontology>,
    /// The blast radius's in-memory graph, shared by clones.
    impact: Arc<graph::impact::ImpactCache>,
}

impl Engine {
    /// Opens the database at `path` (creating and migrating it as needed) on the system clock and
    /// loads the built-in ontology into it.
    pub async fn open(path: &Path) -> Result<Engine> {
        Engine::open_with_clock(path, Arc::new(SystemClock)).await
    }

    /// [`Engine::open`] with the clock every timestamp is taken from.
    pub async fn open_with_clock(path: &Path, clock: Arc<dyn Clock>) -> Result<Engine> {
        let store = Store::open_with_clock(path, clock).await?;
        Engine::with_store(store, Ontology::builtin()?).await
    }

    /// Uses an already-open store with the given ontology (loaded into the store idempotently).
    pub async fn with_store(store: Store, ontology: Ontology) -> Result<Engine> {
        ontology.sync(&store).await?;
        Ok(Engine { store, ontology: Arc::new(ontology), impact: Default::default() })
    }

    pub fn store(&self) -> &Store {
        &self.store
    }

    pub fn ontology(&self) -> &Ontology {
        &self.ontology
    }

    pub fn clock(&self) -> &Arc<dyn Clock> {
        self.store.clock()
    }

    /// Live events, from now on. Older ones are in the `events` table ([`events::since`]).
    pub fn subscribe(&self) -> broadcast::Receiver<EngineEvent> {
        self.store.events().subscribe()
    }

    /// Live transient events (never stored), from now on.
    pub fn subscribe_transient(&self) -> broadcast::Receiver<TransientEvent> {
        self.store.events().subscribe_transient()
    }

    /// Broadcasts an event to this process's subscribers without storing it (streamed output).
    pub fn publish_transient(&self, draft: EventDraft) {
        self.store.events().publish_transient(TransientEvent {
            created_at: self.clock().now(),
            correlation_id: draft.correlation_id,
            entity_slug: draft.entity_slug,
            event: draft.event,
        });
    }

    pub async fn info(&self) -> Result<StoreInfo> {
        let entities: i64 = sqlx::query_scalar("SELECT count(*) FROM entities").fetch_one(self.store.pool()).await?;
        Ok(StoreInfo {
            path: self.store.path().display().to_string(),
            entities: entities.max(0) as u64,
            schema_version: self.store.schema_version().await?,
        })
    }
}
