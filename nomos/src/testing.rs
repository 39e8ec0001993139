//! Helpers for the engine's own tests: real SQLite files in temporary directories.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::Engine;

/// A fresh engine on a new database file; keep the directory alive as long as the engine.
pub(crate) async fn engine() -> (tempfile::TempDir, Engine) {
    let dir = tempfile::tempdir().expect("tempdir");
    let engine = Engine::open(&dir.path().join("oikos.db")).await.expect("open engine");
    (dir, engine)
}

/// A database file at `path` as an older version left it: every migration before `first_missing`
/// (e.g. "0013") applied, none after, foreign keys on. Close the returned pool before opening the
/// engine on it, which then runs the rest — the upgrade a user's database goes through.
pub(crate) async fn database_before(path: &Path, first_missing: &str) -> sqlx::SqlitePool {
    let old = path.with_extension("old-migrations");
    std::fs::create_dir(&old).expect("dir for the older migrations");
    let all = Path::new(env!("CARGO_MANIFEST_DIR")).join("../migrations");
    for entry in std::fs::read_dir(&all).expect("migrations") {
        let entry = entry.expect("migration");
        let name = entry.file_name().into_string().expect("utf-8 name");
        if name.as_str() < first_missing {
            std::fs::copy(entry.path(), old.join(&name)).expect("copy migration");
        }
    }
    let opts = sqlx::sqlite::SqliteConnectOptions::new().filename(path).create_if_missing(true).foreign_keys(true);
    let pool = sqlx::SqlitePool::connect_with(opts).await.expect("open the old database");
    sqlx::migrate::Migrator::new(old.as_path()).await.expect("older migrations").run(&pool).await.expect("migrate");
    pool
}

/// A directory that really cannot be written, holding an existing database made before it became
/// read-only. For an ordinary user that is a `chmod 0555` directory; root ignores permissions, so
/// for root it is a tmpfs remounted read-only. If neither is possible here, `new` says so and
/// returns `None` — unless `OIKOS_REQUIRE_RO_TEST` is set (CI sets it), where that is a failure.
fn cannot(why: &str) -> Option<ReadOnlyDir> {
    assert!(std::env::var_os("OIKOS_REQUIRE_RO_TEST").is_none(), "read-only test cannot run here: {why}");
    eprintln!("SKIP read-only case: {why}");
    None
}

pub(crate) struct ReadOnlyDir {
    dir: tempfile::TempDir,
    mounted: bool,
}

impl ReadOnlyDir {
    pub(crate) async fn new() -> Option<ReadOnlyDir> {
        let dir = tempfile::tempdir().ok()?;
        let mounted = Command::new("mount")
            .args(["-t", "tmpfs", "-o", "size=16m", "tmpfs"])
            .arg(dir.path())
            .status()
            .map(|s| s.success())
            .unwrap_or(false);
        let ro = ReadOnlyDir { dir, mounted };
        {
            let engine = Engine::open(&ro.existing_db()).await.ok()?;
            // A copy taken while the database is open keeps its -wal and -shm files, as a
            // database left by a killed app does; SQLite then opens it read-only without a word.
            for suffix in ["", "-wal", "-shm"] {
                let from = path_with_suffix(&ro.existing_db(), suffix);
                if from.exists() {
                    std::fs::copy(&from, path_with_suffix(&ro.live_db(), suffix)).ok()?;
                }
            }
            engine.store().close().await;
        }
        if ro.mounted {
            // SQLite's worker threads may still be letting go of the file; give them a moment.
            let mut ok = false;
            for _ in 0..50 {
                ok = Command::new("mount")
                    .args(["-o", "remount,ro"])
                    .arg(ro.path())
                    .status()
                    .map(|s| s.success())
                    .unwrap_or(false);
                if ok {
                    break;
                }
                tokio::time::sleep(std::time::Duration::from_millis(100)).await;
            }
            if !ok {
                return cannot("cannot remount the test tmpfs read-only");
            }
        } else {
            set_mode(&ro.existing_db(), 0o444);
            for suffix in ["", "-wal", "-shm"] {
                set_mode(&path_with_suffix(&ro.live_db(), suffix), 0o444);
            }
            for suffix in ["-wal", "-shm"] {
                let _ = std::fs::remove_file(path_with_suffix(&ro.existing_db(), suffix));
            }
            set_mode(ro.path(), 0o555);
            if std::fs::write(ro.path().join("probe"), b"x").is_ok() {
                set_mode(ro.path(), 0o755);
                return cannot("running as root without the right to mount a tmpfs");
            }
        }
        Some(ro)
    }

    pub(crate) fn path(&self) -> &Path {
        self.dir.path()
    }

    pub(crate) fn existing_db(&self) -> PathBuf {
        self.dir.path().join("existing.db")
    }

    /// A copy of a database taken while it was open, with whatever -wal and -shm files it had.
    pub(crate) fn live_db(&self) -> PathBuf {
        self.dir.path().join("live.db")
    }
}

fn path_with_suffix(p: &Path, suffix: &str) -> PathBuf {
    let mut s = p.as_os_str().to_owned();
    s.push(suffix);
    PathBuf::from(s)
}

#[cfg(unix)]
fn set_mode(p: &Path, mode: u32) {
    use std::os::unix::fs::PermissionsExt;
    let _ = std::fs::set_permissions(p, std::fs::Permissions::from_mode(mode));
}

#[cfg(not(unix))]
fn set_mode(_p: &Path, _mode: u32) {}

impl Drop for ReadOnlyDir {
    fn drop(&mut self) {
        if self.mounted {
            let _ = Command::new("umount").arg(self.dir.path()).status();
        } else {
            set_mode(self.dir.path(), 0o755);
        }
    }
}
