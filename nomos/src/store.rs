//! The SQLite store: where the database lives, how it is opened, migrated and written.
//!
//! One database file holds everything. It is opened in WAL mode with foreign keys on and a busy
//! timeout, and every write goes through [`WriteTx`], which begins `IMMEDIATE` (so a transaction that
//! reads before it writes cannot fail to upgrade its lock) and publishes the transaction's events on
//! the in-process bus only after the commit succeeded.
//!
//! Time comes from the store's [`Clock`]: every timestamp the engine writes is bound from it (the
//! schema's `DEFAULT`s are never relied on), so the whole engine can run on a manual clock.

use std::ops::{Deref, DerefMut};
use std::path::{Path, PathBuf};
use std::str::FromStr;
use std::sync::Arc;
use std::time::Duration;

use nomos_types::EngineEvent;
use sqlx::migrate::{MigrateError, Migrator};
use sqlx::sqlite::{SqliteConnectOptions, SqlitePoolOptions, SqliteSynchronous};
use sqlx::{Sqlite, SqliteConnection, SqlitePool, Transaction};

use crate::clock::{Clock, SystemClock};
use crate::events::{self, EventBus, EventDraft};

static MIGRATOR: Migrator = sqlx::migrate!("../migrations");

/// The schema version a fully migrated database has (the newest embedded migration).
pub fn latest_schema_version() -> i64 {
    MIGRATOR.iter().map(|m| m.version).max().unwrap_or(0)
}

/// Environment variable that overrides the database path.
pub const DB_ENV: &str = "OIKOS_DB";

const BUSY_TIMEOUT: Duration = Duration::from_secs(5);
const MAX_CONNECTIONS: u32 = 8;
/// How long to wait before retrying a step SQLite reported busy without waiting itself.
const RETRY_PAUSE: Duration = Duration::from_millis(20);

#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    #[error("no data directory on this system; set {DB_ENV} or pass --db")]
    NoDataDir,
    #[error("cannot use {path}: {reason}")]
    Path { path: PathBuf, reason: String },
    #[error("cannot open database {path}: {reason}")]
    Open { path: PathBuf, reason: String },
    #[error("{path} is not an Oikos database (the file is corrupt or something else); move it aside or choose another path with --db")]
    NotADatabase { path: PathBuf },
    #[error("database {path} is read-only: {reason}")]
    ReadOnly { path: PathBuf, reason: String },
    #[error("database {path} was written by a newer Oikos (schema migration {version} is unknown to this build)")]
    NewerSchema { path: PathBuf, version: i64 },
    #[error("cannot migrate database {path}: {reason}")]
    Migrate { path: PathBuf, reason: String },
    #[error("database error: {0}")]
    Sqlx(#[from] sqlx::Error),
}

/// Where the database lives: an explicit path, else `$OIKOS_DB`, else `<data dir>/oikos/oikos.db`
/// (`~/.local/share/oikos/oikos.db` on Linux, `~/Library/Application Support/oikos/oikos.db` on macOS).
pub fn resolve_path(explicit: Option<&Path>) -> Result<PathBuf, StoreError> {
    if let Some(p) = explicit {
        return Ok(p.to_path_buf());
    }
    if let Some(p) = std::env::var_os(DB_ENV).filter(|v| !v.is_empty()) {
        return Ok(PathBuf::from(p));
    }
    let base = dirs::data_dir().ok_or(StoreError::NoDataDir)?;
    Ok(base.join("oikos").join("oikos.db"))
}

/// A handle to the open database. Cheap to clone.
#[derive(Clone, Debug)]
pub struct Store {
    pool: SqlitePool,
    path: PathBuf,
    bus: EventBus,
    clock: Arc<dyn Clock>,
    /// The newest event id when this handle opened the file: other processes' writes after it are
    /// this process's to announce (see [`events::watch_other_writers`]).
    events_at_open: i64,
}

impl Store {
    /// Opens (creating if needed) the database at `path` on the system clock and applies pending
    /// migrations.
    pub async fn open(path: &Path) -> Result<Store, StoreError> {
        Store::open_with_clock(path, Arc::new(SystemClock)).await
    }

    /// [`Store::open`] with the clock every timestamp is taken from.
    pub async fn open_with_clock(path: &Path, clock: Arc<dyn Clock>) -> Result<Store, StoreError> {
        if path.is_dir() {
            return Err(StoreError::Path {
                path: path.to_path_buf(),
                reason: "it is a directory, not a database file".into(),
            });
        }
        if let Some(parent) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
            std::fs::create_dir_all(parent).map_err(|e| StoreError::Path {
                path: parent.to_path_buf(),
                reason: format!("cannot create the directory: {e}"),
            })?;
        }
        // No journal mode here: every pooled connection would set it again, and switching a file
        // into WAL needs a lock SQLite's busy timeout does not wait for (see `enter_wal`).
        let options = SqliteConnectOptions::new()
            .filename(path)
            .create_if_missing(true)
            .synchronous(SqliteSynchronous::Normal)
            .foreign_keys(true)
            .busy_timeout(BUSY_TIMEOUT);
        let pool = SqlitePoolOptions::new()
            .max_connections(MAX_CONNECTIONS)
            // Connecting reads the schema (for `synchronous`), which is where corrupt files and
            // read-only WAL files first show up; classify those instead of a bare SQLite code.
            .connect_with(options)
            .await
            .map_err(|e| classify_open_error(path, e))?;
        let mut store = Store { pool, path: path.to_path_buf(), bus: EventBus::default(), clock, events_at_open: 0 };
        store.enter_wal().await?;
        store.migrate().await?;
        store.check_writable().await?;
        let newest: Option<i64> = sqlx::query_scalar("SELECT max(id) FROM events").fetch_one(&store.pool).await?;
        store.events_at_open = newest.unwrap_or(0);
        Ok(store)
    }

    /// Puts the file in WAL mode (a property of the file, kept across opens). Switching needs an
    /// exclusive lock that SQLite reports busy at once instead of waiting for, so several processes
    /// opening one new file together (the desktop app and `nomos`) would fail here; retry until the
    /// busy timeout instead. A read-only file that is not yet in WAL fails here.
    async fn enter_wal(&self) -> Result<(), StoreError> {
        let mut conn = self.pool.acquire().await?;
        let started = std::time::Instant::now();
        let mode = loop {
            match sqlx::query_scalar::<_, String>("PRAGMA journal_mode = WAL").fetch_one(&mut *conn).await {
                Ok(mode) => break mode,
                Err(e) if is_busy(&e) && started.elapsed() < BUSY_TIMEOUT => {
                    tokio::time::sleep(RETRY_PAUSE).await;
                }
                Err(e) => return Err(classify_open_error(&self.path, e)),
            }
        };
        if !mode.eq_ignore_ascii_case("wal") {
            // SQLite keeps the old mode when its file layer offers no shared memory; the store
            // still works in the rollback journal, with readers waiting on writers.
            tracing::warn!(path = %self.path.display(), %mode, "database cannot use WAL mode; using the rollback journal");
        }
        Ok(())
    }

    /// SQLite opens a file it cannot write read-only without a word (even BEGIN IMMEDIATE passes
    /// in WAL mode), and an up-to-date schema writes nothing while migrating; so write the
    /// header's user version back unchanged and roll back, and a read-only database is a clear
    /// error at open rather than a failure at the first change.
    async fn check_writable(&self) -> Result<(), StoreError> {
        let mut conn = self.pool.acquire().await?;
        sqlx::query("BEGIN IMMEDIATE").execute(&mut *conn).await.map_err(|e| classify_open_error(&self.path, e))?;
        let probe = async {
            let version: i64 = sqlx::query_scalar("PRAGMA user_version").fetch_one(&mut *conn).await?;
            sqlx::query(&format!("PRAGMA user_version = {version}")).execute(&mut *conn).await?;
            Ok::<(), sqlx::Error>(())
        }
        .await;
        let rolled_back = sqlx::query("ROLLBACK").execute(&mut *conn).await;
        probe.map_err(|e| classify_open_error(&self.path, e))?;
        rolled_back?;
        Ok(())
    }

    /// Applies pending migrations. Already-applied migrations are skipped, so this is idempotent.
    ///
    /// Migrations run with foreign keys off, as SQLite prescribes for schema changes: a table
    /// rebuilt to change a constraint (create new, copy, drop old, rename) must not cascade the
    /// drop into the rows that reference it. The pragma only takes effect outside a transaction,
    /// so it is set on the migrating connection around the migrations, and every reference is
    /// checked before it is turned back on.
    pub async fn migrate(&self) -> Result<(), StoreError> {
        let mut conn = self.pool.acquire().await?;
        sqlx::query("PRAGMA foreign_keys = OFF").execute(&mut *conn).await?;
        // Another process may migrate the same new file at the same moment (the desktop app and
        // `nomos` started together): SQLite has no migration lock, so the slower one fails on a
        // migration the other just applied, or finds the file busy where a read turns into a write.
        // When the other made progress meanwhile, or the file was busy, go again from what is
        // applied now.
        let mut attempts = 0;
        let started = std::time::Instant::now();
        let ran = loop {
            let before = applied_migrations(&mut conn).await;
            let ran = MIGRATOR.run(&mut *conn).await;
            let Err(err) = &ran else { break ran };
            // Each attempt on progress needs the other's next migration, so they end within one
            // per migration; a busy file is waited for as long as any write would be.
            let progressed = attempts < MIGRATOR.iter().count() && applied_migrations(&mut conn).await > before;
            let busy = matches!(err, MigrateError::Execute(e) | MigrateError::ExecuteMigration(e, _) if is_busy(e))
                && started.elapsed() < BUSY_TIMEOUT;
            if !progressed && !busy {
                break ran;
            }
            attempts += usize::from(progressed);
            tokio::time::sleep(RETRY_PAUSE).await;
        };
        let dangling: Result<Option<String>, sqlx::Error> =
            sqlx::query_scalar("SELECT \"table\" FROM pragma_foreign_key_check LIMIT 1")
                .fetch_optional(&mut *conn)
                .await;
        let restored = sqlx::query("PRAGMA foreign_keys = ON").execute(&mut *conn).await;
        if restored.is_err() {
            // Never hand a connection without foreign keys back to the pool.
            drop(conn.detach());
        }
        ran.map_err(|e| match e {
            MigrateError::VersionMissing(version) => StoreError::NewerSchema { path: self.path.clone(), version },
            MigrateError::Execute(err) => classify_open_error(&self.path, err),
            other => StoreError::Migrate { path: self.path.clone(), reason: other.to_string() },
        })?;
        restored?;
        if let Some(table) = dangling? {
            return Err(StoreError::Migrate {
                path: self.path.clone(),
                reason: format!("rows of `{table}` point at rows that do not exist"),
            });
        }
        Ok(())
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    pub fn pool(&self) -> &SqlitePool {
        &self.pool
    }

    pub fn events(&self) -> &EventBus {
        &self.bus
    }

    pub fn clock(&self) -> &Arc<dyn Clock> {
        &self.clock
    }

    /// The newest event id when the file was opened (0 for none).
    pub fn events_at_open(&self) -> i64 {
        self.events_at_open
    }

    /// The newest applied migration version.
    pub async fn schema_version(&self) -> Result<i64, StoreError> {
        let v: Option<i64> = sqlx::query_scalar("SELECT max(version) FROM _sqlx_migrations WHERE success = 1")
            .fetch_one(&self.pool)
            .await?;
        Ok(v.unwrap_or(0))
    }

    /// Starts a write transaction. Events emitted through it reach subscribers only if it commits.
    /// Its time ([`WriteTx::now`]) is taken once the write lock is held.
    pub async fn begin_write(&self) -> Result<WriteTx, sqlx::Error> {
        let tx = self.pool.begin_with("BEGIN IMMEDIATE").await?;
        Ok(WriteTx { tx, pending: Vec::new(), bus: self.bus.clone(), now: self.clock.now() })
    }

    pub async fn close(&self) {
        self.pool.close().await;
    }
}

/// SQLite's primary result code of a database error (the low byte of an extended code).
fn primary_code(err: &sqlx::Error) -> Option<i64> {
    let sqlx::Error::Database(db) = err else { return None };
    db.code().and_then(|c| i64::from_str(&c).ok()).map(|c| c & 0xff)
}

/// SQLITE_BUSY or SQLITE_LOCKED: the file (or a table) is locked for now; worth trying again.
fn is_busy(err: &sqlx::Error) -> bool {
    matches!(primary_code(err), Some(5) | Some(6))
}

fn classify_open_error(path: &Path, err: sqlx::Error) -> StoreError {
    let path = path.to_path_buf();
    // SQLite primary result codes: 8 READONLY, 14 CANTOPEN, 26 NOTADB, 11 CORRUPT.
    match primary_code(&err) {
        Some(26) | Some(11) => return StoreError::NotADatabase { path },
        Some(8) | Some(14) => return explain_unwritable(path),
        _ => {}
    }
    StoreError::Open { path, reason: err.to_string() }
}

/// SQLite only says "cannot open" or "read-only"; find out which part cannot be written, so the
/// message points at the real problem.
fn explain_unwritable(path: PathBuf) -> StoreError {
    if path.exists() {
        return match std::fs::OpenOptions::new().append(true).open(&path) {
            Err(e) => StoreError::ReadOnly { path, reason: format!("the file cannot be written ({e})") },
            Ok(_) => StoreError::ReadOnly {
                path,
                reason: "its directory cannot be written (WAL mode keeps -wal and -shm files beside the database)"
                    .into(),
            },
        };
    }
    let dir = path.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new(".")).to_path_buf();
    let reason = match tempfile_probe(&dir) {
        Err(e) => format!("cannot create files in {} ({e})", dir.display()),
        Ok(()) => "the file cannot be created".to_string(),
    };
    StoreError::Open { path, reason }
}

fn tempfile_probe(dir: &Path) -> std::io::Result<()> {
    let probe = dir.join(format!(".oikos-probe-{}", std::process::id()));
    std::fs::OpenOptions::new().write(true).create_new(true).open(&probe)?;
    std::fs::remove_file(&probe)
}

/// A point inside a [`WriteTx`] to go back to (see [`WriteTx::savepoint`]).
#[must_use = "release or roll back to a savepoint"]
pub struct Savepoint {
    events: usize,
}

/// A write transaction that collects the events of the changes it makes.
pub struct WriteTx {
    tx: Transaction<'static, Sqlite>,
    pending: Vec<EngineEvent>,
    bus: EventBus,
    now: String,
}

impl WriteTx {
    /// The transaction's time: every timestamp it writes is this one.
    pub fn now(&self) -> &str {
        &self.now
    }

    /// Records an event in this transaction; it is published when (and only if) the commit succeeds.
    pub async fn emit(&mut self, draft: EventDraft) -> Result<(), sqlx::Error> {
        let event = events::insert(&mut self.tx, draft, &self.now).await?;
        self.pending.push(event);
        Ok(())
    }

    /// Marks a point this transaction can go back to, undoing what follows (rows and events)
    /// without giving up what came before. Savepoints do not nest.
    pub async fn savepoint(&mut self) -> Result<Savepoint, sqlx::Error> {
        sqlx::query("SAVEPOINT oikos_savepoint").execute(&mut *self.tx).await?;
        Ok(Savepoint { events: self.pending.len() })
    }

    /// Keeps what was done since the savepoint.
    pub async fn release(&mut self, _savepoint: Savepoint) -> Result<(), sqlx::Error> {
        sqlx::query("RELEASE oikos_savepoint").execute(&mut *self.tx).await?;
        Ok(())
    }

    /// Undoes what was done since the savepoint, events included.
    pub async fn rollback_to(&mut self, savepoint: Savepoint) -> Result<(), sqlx::Error> {
        sqlx::query("ROLLBACK TO oikos_savepoint").execute(&mut *self.tx).await?;
        sqlx::query("RELEASE oikos_savepoint").execute(&mut *self.tx).await?;
        self.pending.truncate(savepoint.events);
        Ok(())
    }

    pub async fn commit(self) -> Result<Vec<EngineEvent>, sqlx::Error> {
        let ids: Vec<i64> = self.pending.iter().map(|e| e.id).collect();
        self.bus.claim(ids.iter().copied());
        if let Err(e) = self.tx.commit().await {
            self.bus.release(ids);
            return Err(e);
        }
        for event in &self.pending {
            self.bus.publish(event.clone());
        }
        Ok(self.pending)
    }
}

impl Deref for WriteTx {
    type Target = SqliteConnection;
    fn deref(&self) -> &SqliteConnection {
        &self.tx
    }
}

impl DerefMut for WriteTx {
    fn deref_mut(&mut self) -> &mut SqliteConnection {
        &mut self.tx
    }
}

/// How many migrations the file records as applied (none while it has no record yet).
async fn applied_migrations(conn: &mut sqlx::SqliteConnection) -> i64 {
    sqlx::query_scalar("SELECT count(*) FROM _sqlx_migrations WHERE success").fetch_one(conn).await.unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::events::tests::test_event;

    async fn schema(store: &Store) -> Vec<(String, String)> {
        sqlx::query_as("SELECT name, ifnull(sql, '') FROM sqlite_master WHERE name NOT LIKE 'sqlite_%' ORDER BY name")
            .fetch_all(store.pool())
            .await
            .unwrap()
    }

    #[tokio::test]
    async fn opens_a_new_file_with_wal_and_foreign_keys() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("nested").join("oikos.db");
        let store = Store::open(&path).await.unwrap();
        assert!(path.exists());
        let mode: String = sqlx::query_scalar("PRAGMA journal_mode").fetch_one(store.pool()).await.unwrap();
        assert_eq!(mode, "wal");
        let fk: i64 = sqlx::query_scalar("PRAGMA foreign_keys").fetch_one(store.pool()).await.unwrap();
        assert_eq!(fk, 1);
        assert_eq!(store.schema_version().await.unwrap(), latest_schema_version());
        assert_eq!(latest_schema_version(), 18);
    }

    #[tokio::test]
    async fn stores_opening_one_new_file_at_once_all_open_it() {
        for _ in 0..5 {
            let dir = tempfile::tempdir().unwrap();
            let path = dir.path().join("oikos.db");
            // Interleaved on one task: each open waits on SQLite's own threads in between.
            let opens = (0..4).map(|_| Store::open(&path));
            for opened in futures_util::future::join_all(opens).await {
                let store = opened.unwrap();
                let mode: String = sqlx::query_scalar("PRAGMA journal_mode").fetch_one(store.pool()).await.unwrap();
                assert_eq!(mode, "wal");
                assert_eq!(store.schema_version().await.unwrap(), latest_schema_version());
            }
        }
    }

    #[test]
    fn stores_opening_one_new_file_from_several_threads_all_open_it_in_wal() {
        for _ in 0..5 {
            let dir = tempfile::tempdir().unwrap();
            let path = dir.path().join("oikos.db");
            // A thread and runtime each, as close to processes started together as one test gets.
            let start = Arc::new(std::sync::Barrier::new(6));
            let opens: Vec<_> = (0..6)
                .map(|_| {
                    let (path, start) = (path.clone(), start.clone());
                    std::thread::spawn(move || {
                        let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
                        start.wait();
                        rt.block_on(async {
                            let store = Store::open(&path).await?;
                            let mode: String =
                                sqlx::query_scalar("PRAGMA journal_mode").fetch_one(store.pool()).await?;
                            Ok::<_, StoreError>((mode, store.schema_version().await?))
                        })
                    })
                })
                .collect();
            for opened in opens {
                let (mode, version) = opened.join().unwrap().unwrap();
                assert_eq!(mode, "wal");
                assert_eq!(version, latest_schema_version());
            }
        }
    }

    #[tokio::test]
    async fn migrating_twice_changes_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("oikos.db");
        let store = Store::open(&path).await.unwrap();
        let before = schema(&store).await;
        let applied: i64 =
            sqlx::query_scalar("SELECT count(*) FROM _sqlx_migrations").fetch_one(store.pool()).await.unwrap();
        store.migrate().await.unwrap();
        store.close().await;
        // And again through a fresh open of the same file.
        let store = Store::open(&path).await.unwrap();
        assert_eq!(schema(&store).await, before);
        let applied_after: i64 =
            sqlx::query_scalar("SELECT count(*) FROM _sqlx_migrations").fetch_one(store.pool()).await.unwrap();
        assert_eq!(applied, applied_after);
        for table in [
            "entities",
            "relationships",
            "knowledge",
            "knowledge_fts",
            "tasks",
            "executions",
            "approvals",
            "autonomy_windows",
            "audit_log",
            "events",
            "signals",
            "series",
            "samples_raw",
            "samples_1h",
            "probe_results",
            "checks",
            "agent_activity",
            "plan_steps",
            "questions",
            "task_executions",
            "messages",
            "entity_status",
            "host_keys",
            "tool_calls",
            "context_summaries",
        ] {
            assert!(before.iter().any(|(n, _)| n == table), "missing table {table}");
        }
    }

    #[tokio::test]
    async fn a_corrupt_file_is_a_clear_error() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("oikos.db");
        std::fs::write(&path, b"this is not sqlite, just some text that happens to be long enough").unwrap();
        let err = Store::open(&path).await.unwrap_err();
        assert!(matches!(err, StoreError::NotADatabase { .. }), "{err:?}");
        assert!(err.to_string().contains("is not an Oikos database"), "{err}");
        assert!(err.to_string().contains(&path.display().to_string()));
    }

    #[tokio::test]
    async fn a_directory_path_is_a_clear_error() {
        let dir = tempfile::tempdir().unwrap();
        let err = Store::open(dir.path()).await.unwrap_err();
        assert!(err.to_string().contains("is a directory"), "{err}");
    }

    #[tokio::test]
    async fn an_uncreatable_parent_is_a_clear_error() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("plain-file");
        std::fs::write(&file, b"x").unwrap();
        let err = Store::open(&file.join("sub").join("oikos.db")).await.unwrap_err();
        assert!(matches!(err, StoreError::Path { .. }), "{err:?}");
        assert!(err.to_string().contains("cannot create the directory"), "{err}");
    }

    #[tokio::test]
    async fn read_only_locations_are_clear_errors() {
        let Some(ro) = crate::testing::ReadOnlyDir::new().await else {
            return;
        };
        // An existing database that can no longer be written.
        let err = Store::open(&ro.existing_db()).await.unwrap_err();
        assert!(matches!(err, StoreError::ReadOnly { .. }), "{err:?}");
        assert!(err.to_string().contains("read-only"), "{err}");
        assert!(err.to_string().contains(&ro.existing_db().display().to_string()), "{err}");
        // One whose -wal and -shm files are still there.
        let err = Store::open(&ro.live_db()).await.unwrap_err();
        assert!(matches!(err, StoreError::ReadOnly { .. }), "{err:?}");
        // A new database in a directory that cannot be written.
        let fresh = ro.path().join("new.db");
        let err = Store::open(&fresh).await.unwrap_err();
        assert!(matches!(err, StoreError::Open { .. }), "{err:?}");
        assert!(err.to_string().contains("new.db"), "{err}");
        assert!(err.to_string().contains("cannot create files in"), "{err}");
    }

    #[tokio::test]
    async fn events_publish_only_after_commit() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(&dir.path().join("oikos.db")).await.unwrap();
        let mut rx = store.events().subscribe();

        let mut tx = store.begin_write().await.unwrap();
        tx.emit(test_event("rolled back")).await.unwrap();
        drop(tx); // rolled back
        assert!(rx.try_recv().is_err());

        let mut tx = store.begin_write().await.unwrap();
        tx.emit(test_event("one")).await.unwrap();
        tx.emit(test_event("two")).await.unwrap();
        let committed = tx.commit().await.unwrap();
        let first = rx.try_recv().unwrap();
        let second = rx.try_recv().unwrap();
        assert_eq!(first.event, test_event("one").event);
        assert_eq!(second.event, test_event("two").event);
        assert!(second.id > first.id);
        assert_eq!(committed.len(), 2);
        let stored: i64 = sqlx::query_scalar("SELECT count(*) FROM events").fetch_one(store.pool()).await.unwrap();
        assert_eq!(stored, 2, "the rolled-back event must not be stored");
    }

    #[tokio::test]
    async fn rolling_back_to_a_savepoint_undoes_its_rows_and_events_only() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(&dir.path().join("oikos.db")).await.unwrap();
        let mut rx = store.events().subscribe();
        let mut tx = store.begin_write().await.unwrap();
        tx.emit(test_event("kept")).await.unwrap();
        let mark = tx.savepoint().await.unwrap();
        tx.emit(test_event("undone")).await.unwrap();
        tx.rollback_to(mark).await.unwrap();
        let mark = tx.savepoint().await.unwrap();
        tx.emit(test_event("released")).await.unwrap();
        tx.release(mark).await.unwrap();
        let committed = tx.commit().await.unwrap();
        let events: Vec<_> = committed.into_iter().map(|e| e.event).collect();
        assert_eq!(events, [test_event("kept").event, test_event("released").event]);
        assert_eq!(rx.try_recv().unwrap().event, test_event("kept").event);
        assert_eq!(rx.try_recv().unwrap().event, test_event("released").event);
        assert!(rx.try_recv().is_err());
        let stored: i64 = sqlx::query_scalar("SELECT count(*) FROM events").fetch_one(store.pool()).await.unwrap();
        assert_eq!(stored, 2);
    }

    #[tokio::test]
    async fn audit_log_is_append_only() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(&dir.path().join("oikos.db")).await.unwrap();
        sqlx::query("INSERT INTO audit_log (actor_type, actor, action) VALUES ('operator', 'me', 'test')")
            .execute(store.pool())
            .await
            .unwrap();
        let upd = sqlx::query("UPDATE audit_log SET action = 'x'").execute(store.pool()).await;
        assert!(upd.unwrap_err().to_string().contains("append-only"));
        let del = sqlx::query("DELETE FROM audit_log").execute(store.pool()).await;
        assert!(del.unwrap_err().to_string().contains("append-only"));
    }

    /// Migration 0013 rebuilds `approvals` and `autonomy_windows` to accept the channel
    /// "notification": a database made before it keeps every row, reference and index, and accepts
    /// the new channel afterwards.
    mod notification_channel {
        async fn exec(pool: &sqlx::SqlitePool, sql: &str) {
            sqlx::query(sql).execute(pool).await.unwrap();
        }

        #[tokio::test]
        async fn the_rebuild_keeps_rows_references_and_indexes_and_accepts_the_notification_channel() {
            let dir = tempfile::tempdir().unwrap();
            let path = dir.path().join("oikos.db");
            {
                let pool = crate::testing::database_before(&path, "0013").await;
                exec(
                    &pool,
                    "INSERT INTO tasks (id, title, status, waiting_for) VALUES ('t1', 't1', 'waiting', 'approval')",
                )
                .await;
                for (exec_id, status) in [("e1", "pending_approval"), ("e2", "completed"), ("e3", "denied")] {
                    exec(
                        &pool,
                        &format!(
                            "INSERT INTO executions (id, task_id, target_slug, command, risk, status)
                         VALUES ('{exec_id}', 't1', 'host:pve1', 'echo {exec_id}', 'config_mutation', '{status}')"
                        ),
                    )
                    .await;
                }
                exec(
                &pool,
                "INSERT INTO approvals (id, execution_id, task_id, status, requires_confirmation, blast_radius, expires_at)
                 VALUES ('a1', 'e1', 't1', 'pending', 1, '{\"affects\": 2}', '9999-01-01T00:00:00.000Z')",
            )
            .await;
                exec(
                &pool,
                "INSERT INTO approvals (id, execution_id, task_id, status, expires_at, decided_at, decided_by, channel,
                                        grant_message, created_at)
                 VALUES ('a2', 'e2', 't1', 'approved', '9999', '2026-01-01T00:00:00.000Z', 'operator:me', 'chat',
                         'yes go', '2025-12-31T00:00:00.000Z')",
            )
            .await;
                exec(
                    &pool,
                    "INSERT INTO approvals (id, execution_id, task_id, status, expires_at, decided_by, channel)
                 VALUES ('a3', 'e3', 't1', 'denied', '9999', 'operator:me', 'tray')",
                )
                .await;
                exec(
                &pool,
                "INSERT INTO autonomy_windows (id, kind, task_id, target_slug, approval_id, opened_by, channel, expires_at)
                 VALUES ('w1', 'assent', 't1', NULL, 'a2', 'operator:me', 'chat', '9999')",
            )
            .await;
                pool.close().await;
            }

            let eng = crate::Engine::open(&path).await.unwrap();
            let pool = eng.store().pool();
            // The file was made in SQLite's default rollback journal; opening moves it to WAL.
            let mode: String = sqlx::query_scalar("PRAGMA journal_mode").fetch_one(pool).await.unwrap();
            assert_eq!(mode, "wal");
            let count =
                |sql: &'static str| async move { sqlx::query_scalar::<_, i64>(sql).fetch_one(pool).await.unwrap() };
            assert_eq!(count("SELECT count(*) FROM approvals").await, 3);
            assert_eq!(count("SELECT count(*) FROM autonomy_windows").await, 1);
            assert_eq!(count("SELECT count(*) FROM executions").await, 3);
            assert_eq!(count("SELECT count(*) FROM pragma_foreign_key_check").await, 0);
            assert_eq!(count("PRAGMA foreign_keys").await, 1, "foreign keys are back on");
            let a2: (String, String, Option<String>, Option<String>, Option<String>, String) = sqlx::query_as(
            "SELECT status, expires_at, decided_by, channel, grant_message, created_at FROM approvals WHERE id = 'a2'",
        )
        .fetch_one(pool)
        .await
        .unwrap();
            assert_eq!(
                a2,
                (
                    "approved".into(),
                    "9999".into(),
                    Some("operator:me".into()),
                    Some("chat".into()),
                    Some("yes go".into()),
                    "2025-12-31T00:00:00.000Z".into()
                )
            );
            let a1: (i64, String) =
                sqlx::query_as("SELECT requires_confirmation, blast_radius FROM approvals WHERE id = 'a1'")
                    .fetch_one(pool)
                    .await
                    .unwrap();
            assert_eq!(a1, (1, "{\"affects\": 2}".into()));
            let w1: Option<String> = sqlx::query_scalar("SELECT approval_id FROM autonomy_windows WHERE id = 'w1'")
                .fetch_one(pool)
                .await
                .unwrap();
            assert_eq!(w1.as_deref(), Some("a2"));

            // The indexes are back, and the partial one is what a pending lookup uses.
            let indexes: Vec<String> = sqlx::query_scalar(
                "SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name IN ('approvals', 'autonomy_windows')
             AND name NOT LIKE 'sqlite_%' ORDER BY name",
            )
            .fetch_all(pool)
            .await
            .unwrap();
            assert_eq!(indexes, ["approvals_pending", "autonomy_windows_open"]);
            let unique: i64 =
                count("SELECT count(*) FROM pragma_index_list('approvals') WHERE \"unique\" = 1 AND origin = 'u'")
                    .await;
            assert_eq!(unique, 1, "execution_id stays unique");

            // The references still act: deleting the task clears the approvals' task and drops its windows;
            // deleting an execution drops its approval.
            exec(pool, "UPDATE approvals SET channel = 'notification', status = 'approved' WHERE id = 'a1'").await;
            exec(
            pool,
            "INSERT INTO autonomy_windows (id, kind, task_id, target_slug, approval_id, opened_by, channel, expires_at)
             VALUES ('w2', 'destructive', 't1', 'host:pve1', 'a1', 'operator:me', 'notification', '9999')",
        )
        .await;
            let bad = sqlx::query("UPDATE approvals SET channel = 'pager' WHERE id = 'a3'").execute(pool).await;
            assert!(bad.is_err(), "an unknown channel is still refused");
            exec(pool, "DELETE FROM executions WHERE id = 'e3'").await;
            assert_eq!(count("SELECT count(*) FROM approvals WHERE id = 'a3'").await, 0);
            exec(pool, "DELETE FROM tasks WHERE id = 't1'").await;
            assert_eq!(count("SELECT count(*) FROM autonomy_windows").await, 0);
            assert_eq!(count("SELECT count(*) FROM approvals WHERE task_id IS NULL").await, 2);
        }
    }
}
