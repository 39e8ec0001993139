//! The golden conversations (`nomos/evals/*.yaml`, format in `evals/format.rs`): each scenario is
//! played against the real provider client talking HTTP to the scripted provider, the real engine
//! on a temporary SQLite file and the lab's real sshd — and, for a crash, the real `nomos` binary
//! killed at a pause point (which is why the harness lives with the command line's tests).
//!
//! `make eval` runs them all (`EVAL=<part of a file name>` runs fewer; `EVAL_JOBS=N` plays N at
//! once, default 4). With `NOMOS_EVAL_REAL=1` and a provider configured (`NOMOS_LLM_BASE_URL`,
//! `NOMOS_MODEL`, the key), the same scenarios are played against that model instead: its own
//! replies, the operator's side as written, only the `real` expectations and the model-independent
//! checks; it prints a pass rate and never fails the build.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

#[path = "../../tests/support/mod.rs"]
mod support;

#[path = "evals/format.rs"]
mod format;
#[path = "evals/play.rs"]
mod play;

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Instant;

use nomos::agent::provider::{Provider, ProviderConfig};
use play::Mode;

/// At least this many scenarios: the list the agent is held to.
const AT_LEAST: usize = 15;

fn scenario_files() -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../evals");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", dir.display()))
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "yaml"))
        .collect();
    files.sort();
    files
}

fn load(path: &Path) -> Result<format::Scenario, String> {
    let text = std::fs::read_to_string(path).map_err(|e| e.to_string())?;
    let sc: format::Scenario = serde_yaml_ng::from_str(&text).map_err(|e| format!("does not parse: {e}"))?;
    fn actions(steps: &[format::OpStep]) -> Result<(), String> {
        for (i, s) in steps.iter().enumerate() {
            s.action().map_err(|e| format!("step {}: {e}", i + 1))?;
            actions(&s.parallel)?;
        }
        Ok(())
    }
    actions(&sc.steps)?;
    Ok(sc)
}

fn real_mode() -> bool {
    std::env::var("NOMOS_EVAL_REAL").is_ok_and(|v| v == "1")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn golden_conversations() {
    let started = Instant::now();
    let files = scenario_files();
    let only = std::env::var("EVAL").unwrap_or_default();
    if only.is_empty() {
        assert!(files.len() >= AT_LEAST, "{} scenarios, expected at least {AT_LEAST}", files.len());
    }
    let jobs = std::env::var("EVAL_JOBS").ok().and_then(|v| v.parse().ok()).unwrap_or(4usize).max(1);
    let mode = if real_mode() {
        let config = tokio::task::spawn_blocking(ProviderConfig::from_env).await.unwrap();
        let provider = config.and_then(Provider::new).expect("NOMOS_EVAL_REAL=1 needs a configured provider");
        Mode::Real(provider)
    } else {
        Mode::Scripted
    };
    let limit = Arc::new(tokio::sync::Semaphore::new(jobs));
    let mut runs = Vec::new();
    for file in files {
        let name = file.file_name().unwrap().to_string_lossy().to_string();
        if !name.contains(&only) {
            continue;
        }
        let (mode, limit) = (mode.clone(), limit.clone());
        runs.push(async move {
            let sc = match load(&file) {
                Ok(sc) => sc,
                Err(e) => return (name, String::new(), Some(vec![e]), 0.0),
            };
            if matches!(mode, Mode::Real(_)) && sc.scripted_only {
                return (name, sc.description, None, 0.0);
            }
            let _turn = limit.acquire().await.unwrap();
            let t = Instant::now();
            let failures = play::play(&sc, mode).await;
            (name, sc.description, Some(failures), t.elapsed().as_secs_f64())
        });
    }
    let results = play::join_all(runs.into_iter()).await;
    let (mut played, mut passed, mut report) = (0, 0, String::new());
    for (name, description, failures, secs) in &results {
        match failures {
            None => println!("skip {name} (scripted only)"),
            Some(f) if f.is_empty() => {
                played += 1;
                passed += 1;
                println!("ok   {name} ({secs:.1} s)");
            }
            Some(f) => {
                played += 1;
                println!("FAIL {name} ({secs:.1} s): {}", description.trim());
                for line in f {
                    println!("       {line}");
                    report.push_str(&format!("{name}: {line}\n"));
                }
            }
        }
    }
    println!("{passed}/{played} scenarios passed in {:.1} s", started.elapsed().as_secs_f64());
    if !real_mode() {
        assert!(report.is_empty(), "golden conversations failed:\n{report}");
    }
}
