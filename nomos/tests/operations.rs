//! What the desktop's operations view reads from the gate, against the lab: output streamed while
//! a command runs (never a withheld one), the audit ledger's filters and paging, executions by
//! target, and the typed-confirmation check by the gate's own rule.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::time::Duration;

use nomos::types::events::Event;
use nomos::types::{AuditQuery, ExecutionQuery, ExecutionStatus, Risk};

mod support;

use support::*;

/// The `execution.output` pieces of `execution` received so far: (stream, text) in order.
fn pieces(
    rx: &mut tokio::sync::broadcast::Receiver<nomos::types::TransientEvent>,
    execution: &str,
) -> Vec<(String, String)> {
    let mut out = Vec::new();
    while let Ok(event) = rx.try_recv() {
        if let Event::ExecutionOutput(o) = event.event {
            if o.execution_id == execution {
                out.push((o.stream, o.text));
            }
        }
    }
    out
}

fn joined(pieces: &[(String, String)], stream: &str) -> String {
    pieces.iter().filter(|(s, _)| s == stream).map(|(_, t)| t.as_str()).collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn output_streams_while_a_command_runs_but_never_when_withheld() {
    let w = World::default(1).await;
    let mut rx = w.rt.subscribe_transient();
    // Read-only: runs at once. The pause splits the output into pieces sent apart.
    let x = ran(w.run("host:pve1", "echo one; echo oops >&2; sleep 0.6; printf 'три\\n'", None).await);
    assert_eq!(x.status, ExecutionStatus::Completed);
    let got = pieces(&mut rx, &x.id);
    assert_eq!(joined(&got, "stdout"), x.stdout, "the pieces add up to the stored output");
    assert_eq!(joined(&got, "stderr"), x.stderr);
    assert_eq!(x.stdout, "one\nтри\n");
    assert!(got.iter().filter(|(s, _)| s == "stdout").count() >= 2, "sent while it ran, not at the end: {got:?}");

    // Output withheld as secret is never sent.
    let (_, a) = queued(w.run("host:pve1", "head -c 0 /etc/shadow; echo visible; echo also >&2", None).await);
    let x = w.act.approve(&a, &confirm("confirm pve1")).await.unwrap();
    assert_eq!(x.status, ExecutionStatus::Completed);
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert_eq!(pieces(&mut rx, &x.id), Vec::<(String, String)>::new());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn the_ledger_and_executions_filter_and_confirmations_follow_the_gate() {
    let w = World::default(2).await;
    let victim = w.tmp.path().join("victim");
    std::fs::create_dir_all(&victim).unwrap();
    let (approval, _) = queued(w.run("host:pve1", &format!("rm -rf {}", q(&victim)), None).await);
    // The check the approval card makes as the operator types is the one approving makes.
    for (text, ok) in [("", false), ("yes", false), ("confirm host:pve2", false), ("confirm pve1", true)] {
        assert_eq!(w.act.check_confirmation(&approval, text).await.unwrap(), ok, "{text:?}");
    }
    assert!(w.act.approve(&approval, &confirm("confirm host:pve2")).await.is_err());
    assert_eq!(w.act.approve(&approval, &confirm("confirm pve1")).await.unwrap().status, ExecutionStatus::Completed);
    ran(w.run("host:pve2", "uptime", None).await);

    // Executions by target.
    let on = |target: &str| ExecutionQuery { target: Some(target.into()), ..Default::default() };
    let pve2 = w.act.executions_matching(&on("host:pve2")).await.unwrap();
    assert_eq!(pve2.iter().map(|x| x.command.as_str()).collect::<Vec<_>>(), ["uptime"]);
    assert_eq!(w.act.executions_matching(&on("host:pve1")).await.unwrap().len(), 1);

    // The ledger: by actor (whole or kind), risk, target; newest first, paged with its total.
    let all = w.act.audit(&AuditQuery::default()).await.unwrap();
    assert!(all.total >= 4, "{all:?}");
    assert!(all.items.windows(2).all(|p| p[0].id > p[1].id), "newest first");
    let by = |actor: &str| AuditQuery { actor: Some(actor.into()), ..Default::default() };
    let mine = w.act.audit(&by("operator:test")).await.unwrap();
    assert!(mine.items.iter().any(|e| e.action == "approval.approved"), "{mine:?}");
    assert!(mine.items.iter().all(|e| e.actor == "operator:test"));
    let operators = w.act.audit(&by("operator")).await.unwrap();
    assert!(operators.total >= mine.total);
    assert!(operators.items.iter().all(|e| e.actor_type == "operator"), "{operators:?}");
    let destructive = w.act.audit(&AuditQuery { risk: Some(Risk::Destructive), ..Default::default() }).await.unwrap();
    assert!(!destructive.items.is_empty());
    assert!(destructive.items.iter().all(|e| e.risk == Some(Risk::Destructive)));
    let on_pve2 = w.act.audit(&AuditQuery { target: Some("host:pve2".into()), ..Default::default() }).await.unwrap();
    assert!(!on_pve2.items.is_empty() && on_pve2.items.iter().all(|e| e.target.as_deref() == Some("host:pve2")));
    let page = w.act.audit(&AuditQuery { limit: Some(1), offset: Some(1), ..Default::default() }).await.unwrap();
    assert_eq!((page.items.len(), page.total), (1, all.total));
    assert_eq!(page.items[0].id, all.items[1].id);
}
