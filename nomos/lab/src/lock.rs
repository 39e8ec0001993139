//! `<dir>/lab.lock`: one start, stop or purge of a lab directory at a time.
//!
//! The lock file is created exclusively and names its holder (`pid start-time`); it is removed when
//! the holder lets go. A lock whose holder is gone (killed, machine rebooted) is stale and taken
//! over.

use std::fs;
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant, SystemTime};

use super::{LabError, Result};

const LOCK_FILE: &str = "lab.lock";
/// A lock file without a holder yet (being written) counts as held for this long.
const UNWRITTEN_GRACE: Duration = Duration::from_secs(10);

/// Held while alive; dropping it releases the lock.
#[derive(Debug)]
pub(super) struct LabLock {
    path: PathBuf,
    holder: String,
}

impl LabLock {
    /// Takes the lock or fails at once with [`LabError::Busy`].
    pub(super) fn try_take(dir: &Path) -> Result<LabLock> {
        let path = dir.join(LOCK_FILE);
        let holder = holder_of(std::process::id());
        // Two rounds: the second after removing a stale lock.
        for _ in 0..2 {
            match fs::OpenOptions::new().write(true).create_new(true).open(&path) {
                Ok(mut file) => {
                    let written = file.write_all(holder.as_bytes()).and_then(|()| file.sync_all());
                    let lock = LabLock { path: path.clone(), holder: holder.clone() };
                    written.map_err(LabError::io(&path))?;
                    return Ok(lock);
                }
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {
                    if !is_stale(&path) {
                        return Err(LabError::Busy(dir.to_path_buf()));
                    }
                    tracing::debug!(path = %path.display(), "removing a stale lab lock");
                    match fs::remove_file(&path) {
                        Err(e) if e.kind() != std::io::ErrorKind::NotFound => return Err(LabError::io(&path)(e)),
                        _ => {}
                    }
                }
                Err(e) => return Err(LabError::io(&path)(e)),
            }
        }
        Err(LabError::Busy(dir.to_path_buf()))
    }

    /// Takes the lock, waiting up to `patience` for whoever holds it (a `lab up` in progress).
    pub(super) fn wait(dir: &Path, patience: Duration) -> Result<LabLock> {
        let deadline = Instant::now() + patience;
        loop {
            match LabLock::try_take(dir) {
                Err(LabError::Busy(_)) if Instant::now() < deadline => std::thread::sleep(Duration::from_millis(50)),
                other => return other,
            }
        }
    }
}

impl Drop for LabLock {
    fn drop(&mut self) {
        // Only our own lock: a purge may have removed the directory, another process relocked it.
        if fs::read_to_string(&self.path).is_ok_and(|h| h == self.holder) {
            let _ = fs::remove_file(&self.path);
        }
    }
}

/// `pid start-time\n` (the start time tells a live holder from a process that reused its pid).
fn holder_of(pid: u32) -> String {
    format!("{pid} {}\n", start_time(pid).unwrap_or_default())
}

fn is_stale(path: &Path) -> bool {
    let Ok(text) = fs::read_to_string(path) else {
        // Gone meanwhile: the next create decides.
        return true;
    };
    let mut words = text.split_whitespace();
    let Some(pid) = words.next().and_then(|p| p.parse::<u32>().ok()) else {
        let age =
            fs::metadata(path).and_then(|m| m.modified()).ok().and_then(|t| SystemTime::now().duration_since(t).ok());
        return age.is_some_and(|a| a > UNWRITTEN_GRACE);
    };
    if !super::sshd::is_running(pid) {
        return true;
    }
    match (words.next(), start_time(pid)) {
        (Some(recorded), Some(now)) if !recorded.is_empty() => recorded != now,
        _ => false,
    }
}

/// The process's start time in clock ticks since boot (Linux), field 22 of `/proc/PID/stat`.
fn start_time(pid: u32) -> Option<String> {
    let stat = fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // The command name (field 2) may hold spaces and parentheses: count from its closing one.
    let rest = &stat[stat.rfind(')')? + 1..];
    rest.split_whitespace().nth(19).map(str::to_string)
}
