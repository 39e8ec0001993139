//! Points where a test can make the process stop and wait to be killed, to prove that a kill at
//! that moment loses nothing and repeats nothing. Inert unless `NOMOS_TEST_PAUSE_AT` names the
//! point; then the process writes the point's name to `NOMOS_TEST_PAUSE_FILE` (if set) and sleeps
//! until it is killed.
//!
//! Debug builds only: the module and every call of [`pause_at`] are under
//! `#[cfg(debug_assertions)]`, so a release binary has no such code path (the tests, which run
//! debug builds, check that every use is gated).

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

#[cfg(test)]
mod tests {
    use std::path::Path;

    /// Every `.rs` file under `dir`.
    fn sources(dir: &Path, out: &mut Vec<std::path::PathBuf>) {
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                sources(&path, out);
            } else if path.extension().is_some_and(|e| e == "rs") {
                out.push(path);
            }
        }
    }

    #[test]
    fn every_use_is_compiled_in_debug_builds_only() {
        let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
        let mut files = Vec::new();
        sources(&src, &mut files);
        let mut uses = 0;
        for file in files.iter().filter(|f| !f.ends_with("testing_hooks.rs")) {
            let text = std::fs::read_to_string(file).unwrap();
            let lines: Vec<&str> = text.lines().collect();
            for (i, line) in lines.iter().enumerate() {
                let code = line.split("//").next().unwrap_or_default();
                if !code.contains("testing_hooks") {
                    continue;
                }
                uses += 1;
                // The line itself or the attributes just above it.
                let gated = lines[..i]
                    .iter()
                    .rev()
                    .take_while(|l| l.trim_start().starts_with("#[") || l.trim_start().starts_with("///"))
                    .any(|l| l.trim() == "#[cfg(debug_assertions)]");
                assert!(gated, "{}:{}: `{}` is not under #[cfg(debug_assertions)]", file.display(), i + 1, line.trim());
            }
        }
        // The module itself and the three pause points of a turn.
        assert!(uses >= 4, "found {uses} uses");
    }
}
