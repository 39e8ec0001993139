//! `nomos signals investigate` and `nomos learning` as an operator meets them: a lab started by the
//! CLI, a host added and trusted, discovered, observed; a fault raises a signal; the investigation
//! opens researched and — with a provider (the scripted stand-in) — Nomos's first turn proposes a
//! plan (exit 3, waiting); asked again, the same task is returned; without a provider the task
//! still opens. Real sshd, the real binary, its JSON lines and exit statuses.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::Path;
use std::process::{Command, Output, Stdio};

use nomos_scripted_provider::{Script, ScriptedCall, ScriptedProvider, Step};
use serde_json::{json, Value};

fn nomos(db: &Path, provider: Option<&str>, args: &[&str]) -> Output {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_nomos"));
    cmd.arg("--db").arg(db).args(args).stdin(Stdio::null()).env_remove("NOMOS_LLM_BASE_URL");
    cmd.env("NOMOS_API_KEY", "unused");
    if let Some(url) = provider {
        cmd.env("NOMOS_LLM_BASE_URL", url).env("NOMOS_MODEL", "scripted");
    }
    cmd.output().unwrap()
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

fn ok(out: &Output) -> Value {
    assert!(out.status.success(), "{}{}", text(&out.stdout), text(&out.stderr));
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{e}: {}", text(&out.stdout)))
}

fn lines(out: &Output) -> Vec<Value> {
    text(&out.stdout).lines().map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}"))).collect()
}

struct Down<'a>(&'a Path);

impl Drop for Down<'_> {
    fn drop(&mut self) {
        let _ = Command::new(env!("CARGO_BIN_EXE_nomos"))
            .args(["lab", "down", "--purge", "--dir", self.0.to_str().unwrap()])
            .output();
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_signal_is_investigated_from_the_command_line() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("lab");
    let d = dir.to_str().unwrap();
    let _down = Down(&dir);
    let db = tmp.path().join("oikos.db");
    let up = ok(&nomos(&db, None, &["lab", "up", "--dir", d, "--hosts", "1", "--json"]));
    let port = up["hosts"][0]["port"].as_u64().unwrap().to_string();
    let key = up["client_key"].as_str().unwrap().to_string();
    let user = nomos_lab::current_user();
    let added = ok(&nomos(
        &db,
        None,
        &["hosts", "add", "pve1", "--address", "127.0.0.1", "--port", &port, "--user", &user, "--key", &key, "--json"],
    ));
    let fingerprint = added["fingerprint"].as_str().unwrap().to_string();
    ok(&nomos(&db, None, &["hosts", "trust", "pve1", "--fingerprint", &fingerprint, "--json"]));
    ok(&nomos(&db, None, &["discover", "pve1", "--apply", "--json"]));
    ok(&nomos(&db, None, &["observe", "run-once", "--json"]));

    // Nothing to investigate yet: a missing signal is one line and exit 1; no id is usage (2).
    let missing = nomos(&db, None, &["signals", "investigate", "no-such-signal"]);
    assert_eq!(missing.status.code(), Some(1));
    assert_eq!(text(&missing.stderr).trim().lines().count(), 1, "{}", text(&missing.stderr));
    assert_eq!(nomos(&db, None, &["signals", "investigate"]).status.code(), Some(2));

    // The fault, seen by the next cycle.
    assert!(nomos(&db, None, &["lab", "fault", "--dir", d, "pve1", "stop-service", "pveproxy"]).status.success());
    let cycle = ok(&nomos(&db, None, &["observe", "run-once", "--json"]));
    assert_eq!(cycle["raised"].as_array().unwrap().len(), 1, "{cycle}");
    let list = ok(&nomos(&db, None, &["signals", "list", "--json"]));
    let signal = list["signals"][0]["id"].as_str().unwrap().to_string();
    assert_eq!(list["signals"][0]["kind"], "failed-units");

    // With a provider: the first line is the investigation, then the turn; the plan waits (3).
    let plan = json!({"steps": [
        {"title": "restart pveproxy", "target": "host:pve1", "command": "systemctl restart pveproxy"},
        {"title": "verify the signal clears", "target": "host:pve1"}
    ]});
    let server =
        ScriptedProvider::start(Script::new(vec![Step::tool_calls(vec![ScriptedCall::new("propose_plan", plan)])]))
            .await
            .unwrap();
    let url = server.base_url();
    let out = nomos(&db, Some(&url), &["--json", "signals", "investigate", &signal]);
    assert_eq!(out.status.code(), Some(3), "{}{}", text(&out.stdout), text(&out.stderr));
    let events = lines(&out);
    let opened = &events[0];
    assert_eq!(opened["kind"], "investigation.opened");
    let task = opened["task"].as_str().unwrap().to_string();
    assert_eq!(opened["payload"]["task_id"], task.as_str());
    assert_eq!(opened["payload"]["created"], true);
    assert_eq!(opened["payload"]["auto"], false);
    assert_eq!(opened["payload"]["signal"]["id"], signal.as_str());
    let briefing = opened["payload"]["briefing"].as_str().unwrap();
    assert!(briefing.contains("## Journal") && briefing.contains("pveproxy"), "{briefing}");
    let last = events.last().unwrap();
    assert_eq!(last["kind"], "ask.finished");
    assert_eq!(
        (last["payload"]["status"].as_str(), last["payload"]["waiting_for"].as_str()),
        (Some("waiting"), Some("plan"))
    );

    // Asked again (no provider needed): the same task, not a second one; exit 0.
    let again = nomos(&db, None, &["--json", "signals", "investigate", &signal]);
    assert_eq!(again.status.code(), Some(0), "{}", text(&again.stderr));
    let again = lines(&again);
    assert_eq!(again.len(), 1);
    assert_eq!(
        (again[0]["task"].as_str(), again[0]["payload"]["created"].as_bool()),
        (Some(task.as_str()), Some(false))
    );
    let shown = ok(&nomos(&db, None, &["signals", "list", "--json"]));
    assert_eq!(shown["signals"][0]["investigation"], task.as_str());

    // The learning report's shape.
    let report = ok(&nomos(&db, None, &["learning", "--json"]));
    assert_eq!(report["outcomes"].as_array().unwrap().len(), 30);
    let incidents = report["incidents"].as_array().unwrap();
    assert!(incidents.iter().any(|k| k["kind"] == "failed-units" && k["signals"] == 1), "{report}");
    for key in ["capabilities", "recalls"] {
        assert!(report[key].is_array(), "{key}: {report}");
    }
    let human = nomos(&db, None, &["learning"]);
    assert!(text(&human.stdout).contains("incidents by kind"), "{}", text(&human.stdout));
}
