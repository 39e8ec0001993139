//! Points where a test can make the process stop and wait to be killed, to prove that a kill at
//! that moment loses nothing and repeats nothing. Inert unless `NOMOS_TEST_PAUSE_AT` names the
//! point; then the process writes the point's name to `NOMOS_TEST_PAUSE_FILE` (if set) and sleeps
//! until it is killed.

/// Environment variable naming the point to pause at.
pub const PAUSE_AT_ENV: &str = "NOMOS_TEST_PAUSE_AT";
/// Environment variable naming a file written when the pause begins.
pub const PAUSE_FILE_ENV: &str = "NOMOS_TEST_PAUSE_FILE";

/// Pauses forever if `point` is the one named in [`PAUSE_AT_ENV`].
pub fn pause_at(point: &str) {
    if std::env::var(PAUSE_AT_ENV).ok().as_deref() != Some(point) {
        return;
    }
    if let Some(file) = std::env::var_os(PAUSE_FILE_ENV) {
        if let Err(e) = std::fs::write(&file, point) {
            tracing::warn!("cannot write the pause file: {e}");
        }
    }
    loop {
        // Blocking on purpose: nothing else of this process may make progress past this point.
        std::thread::sleep(std::time::Duration::from_secs(3600));
    }
}
