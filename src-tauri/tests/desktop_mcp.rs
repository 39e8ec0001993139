//! Another agent connected over MCP, as the operator sees it in the real webview: Settings →
//! Connect an agent shows the snippets (with this app's database) and the session connected now;
//! the agent's change waits in Approvals under its name ("Claude Code asks"), the operator approves
//! it in the window and it runs on the lab host; the session's task is on the board. The session
//! is the engine's side of `nomos mcp serve`, opened in this process on the app's database (the
//! protocol itself is tested with the official Python SDK in `nomos/cli/tests/mcp.rs`).
//! Screenshots of the Settings section and of the approval.
//!
//! See `support` for what it needs.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod support;

use std::time::{Duration, Instant};

use nomos::mcp::Hands;
use nomos::types::ExecutionStatus;
use nomos_scripted_provider::Script;
use serde_json::json;
use support::{artifacts_dir, TaskLab, STARTUP, STEP};

#[test]
fn an_mcp_agent_is_connected_named_on_its_request_and_approved_in_the_window() {
    let Some(lab) = TaskLab::start(1, |_, _| Script::new(vec![])) else { return };
    let d = &lab.desktop.d;
    let hands = lab
        .rt
        .block_on(Hands::open(lab.ours.engine().clone(), lab.ours.actuator().clone(), "claude-code", None, "2.1"))
        .unwrap();

    // Settings: the session connected now, and a snippet per client naming this database.
    let nav = d.wait_until("[data-testid=nav-settings]", STARTUP, |_| true);
    d.click(&nav[0].0);
    let session = d.wait_until("[data-testid=mcp-session]", STEP, |t| t.iter().any(|s| s.contains("Claude Code")));
    assert!(session[0].1.contains("2.1"), "{session:?}");
    let snippets = d.wait_until("[data-testid=mcp-snippet]", STEP, |t| t.len() == 4);
    let db = lab.desktop.db.display().to_string();
    assert!(snippets[0].1.contains("Claude Code"), "{snippets:?}");
    assert!(snippets[0].1.contains(&format!("--db {db} mcp serve")), "{}", snippets[0].1);
    assert!(snippets.iter().any(|(_, t)| t.contains("[mcp_servers.oikos]")), "Codex's");
    d.execute("document.querySelector('[data-testid=connect-agent]').scrollIntoView()");
    let shot = artifacts_dir().join("oikos-connect-agent.png");
    d.screenshot(&shot);
    eprintln!("screenshot: {}", shot.display());

    // The agent asks for a change: it waits, and the card says who asks.
    let mark = lab.tmp.path().join("mcp-mark");
    let command = format!("touch '{}'", mark.display());
    let cancel = tokio_util::sync::CancellationToken::new();
    let asked = lab.rt.block_on(hands.call(
        "run",
        json!({"target": "host:pve1", "command": command, "purpose": "mark the host"}),
        "c1",
        &cancel,
    ));
    let asked = asked.structured.unwrap();
    assert_eq!(asked["status"], "pending_approval", "{asked}");
    let execution = asked["execution_id"].as_str().unwrap().to_string();
    let nav = d.wait_until("[data-testid=nav-approvals]", STEP, |_| true);
    d.click(&nav[0].0);
    let asker = d.wait_until("[data-testid=approval-asker]", STEP, |_| true);
    assert_eq!(asker[0].1, "Claude Code asks");
    let shot = artifacts_dir().join("oikos-mcp-approval.png");
    d.screenshot(&shot);
    eprintln!("screenshot: {}", shot.display());
    let approve = d.wait_until("[data-testid=approval-approve]", STEP, |_| true);
    d.click(&approve[0].0);
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        let x = lab.rt.block_on(lab.ours.actuator().execution(&execution)).unwrap();
        if x.status.is_final() {
            assert_eq!(x.status, ExecutionStatus::Completed, "{x:?}");
            assert!(x.granted_by.is_some());
            break;
        }
        assert!(Instant::now() < deadline, "the approved change did not run");
        std::thread::sleep(Duration::from_millis(200));
    }
    assert!(mark.exists(), "the change ran on the host");

    // The session's task is on the board under the client's name.
    let nav = d.wait_until("[data-testid=nav-tasks]", STEP, |_| true);
    d.click(&nav[0].0);
    let links =
        d.wait_until("[data-testid=task-link]", STEP, |t| t.iter().any(|c| c.contains("Claude Code (MCP session)")));
    let link = links.iter().find(|(_, t)| t.contains("Claude Code")).unwrap();
    d.click(&link.0);
    // Its page says whose it is, and offers no reply box: Nomos does not act there.
    let driven = d.wait_until("[data-testid=task-driven]", STEP, |_| true);
    assert!(driven[0].1.starts_with("Claude Code's session over MCP"), "{driven:?}");
    assert!(d.find_all("[data-testid=reply-input]").is_empty());

    lab.rt.block_on(hands.close()).unwrap();
    lab.close();
}
