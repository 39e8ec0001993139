//! `nomos ask` against the scripted provider (a stand-in for the language model, on 127.0.0.1).

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use nomos_scripted_provider::{Script, ScriptedCall, ScriptedProvider, Step};
use serde_json::{json, Value};

fn nomos(db: &std::path::Path, base_url: Option<&str>, args: &[&str]) -> std::process::Output {
    let mut cmd = std::process::Command::new(env!("CARGO_BIN_EXE_nomos"));
    cmd.arg("--db").arg(db).args(args).env_remove("NOMOS_LLM_BASE_URL").env("NOMOS_API_KEY", "unused");
    if let Some(url) = base_url {
        cmd.env("NOMOS_LLM_BASE_URL", url).env("NOMOS_MODEL", "scripted");
    }
    cmd.output().unwrap()
}

fn lines(out: &std::process::Output) -> Vec<Value> {
    String::from_utf8_lossy(&out.stdout).lines().map(|l| serde_json::from_str(l).unwrap()).collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ask_answers_plans_and_says_when_no_provider_is_set() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("oikos.db");

    let none = nomos(&db, None, &["ask", "hello"]);
    assert_eq!(none.status.code(), Some(1));
    let err = String::from_utf8_lossy(&none.stderr);
    assert!(err.contains("NOMOS_LLM_BASE_URL") && err.lines().count() == 1, "{err}");

    let plan = json!({"steps": [{"title": "upgrade pve1", "target": "host:pve1"}]});
    let server = ScriptedProvider::start(Script::new(vec![
        Step::text("pve1 runs 4 containers."),
        Step::tool_calls(vec![ScriptedCall::new("propose_plan", plan)]),
        Step::text("Upgrading pve1 now."),
    ]))
    .await
    .unwrap();
    let url = server.base_url();

    let answered = nomos(&db, Some(&url), &["--json", "ask", "how", "many", "containers?"]);
    assert_eq!(answered.status.code(), Some(0), "{}", String::from_utf8_lossy(&answered.stderr));
    let events = lines(&answered);
    let last = events.last().unwrap();
    assert_eq!(last["kind"], "ask.finished");
    assert_eq!(
        (last["payload"]["status"].as_str(), last["payload"]["outcome"].as_str()),
        (Some("done"), Some("success"))
    );
    let task = last["task"].as_str().unwrap().to_string();
    let streamed: String = events
        .iter()
        .filter(|e| e["kind"] == "agent.delta")
        .map(|e| e["payload"]["text"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(streamed, "pve1 runs 4 containers.");
    assert!(events.iter().all(|e| e["task"] == task.as_str()));

    // The next message to the same task proposes a plan: it waits (exit 3) for its approval.
    let planned = nomos(&db, Some(&url), &["ask", "--task", &task, "upgrade", "it"]);
    assert_eq!(planned.status.code(), Some(3), "{}", String::from_utf8_lossy(&planned.stderr));
    let text = String::from_utf8_lossy(&planned.stdout);
    assert!(text.contains("→ propose_plan") && text.contains(&format!("task {task}: waiting for plan")), "{text}");
    let shown = String::from_utf8(nomos(&db, None, &["tasks", "show", &task]).stdout).unwrap();
    assert!(shown.contains("1. [pending] upgrade pve1") && shown.contains("operator: upgrade it"), "{shown}");

    // Assent to the plan opens the task's window from chat and the turn goes on: the model is
    // told the plan is approved.
    let approved = nomos(&db, Some(&url), &["ask", "--task", &task, "yes, go ahead"]);
    assert_eq!(approved.status.code(), Some(3), "{}", String::from_utf8_lossy(&approved.stderr));
    let status: Value = serde_json::from_slice(&nomos(&db, None, &["--json", "autonomy", "status"]).stdout).unwrap();
    let windows = status["windows"].as_array().unwrap();
    assert_eq!(windows.len(), 1, "{status}");
    assert_eq!((windows[0]["task_id"].as_str(), windows[0]["channel"].as_str()), (Some(&*task), Some("chat")));
    let shown = String::from_utf8(nomos(&db, None, &["tasks", "show", &task]).stdout).unwrap();
    assert!(shown.contains("The plan is approved") && shown.contains("nomos: Upgrading pve1 now."), "{shown}");
    let sent = server.requests();
    let last = sent.last().unwrap().to_string();
    assert!(last.contains("The plan is approved"), "{last}");
}
