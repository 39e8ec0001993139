//! Nomos's tools against the lab: the registry's argument checks, the gate tools through the real
//! gate and real sshd hosts, output capping and paging, and what each call records.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::time::Duration;

use nomos::agent::chat::ToolCall;
use nomos::agent::tools::{Next, Registry, RegistryConfig, ToolContext, ToolResult, RESULT_CAP};
use nomos::types::{Event, ExecutionStatus, Json, WaitingFor, WindowKind};
use serde_json::json;
use tokio_util::sync::CancellationToken;

mod support;

use support::*;

struct Agent {
    registry: Registry,
    task: String,
    cancel: CancellationToken,
}

impl Agent {
    async fn new(w: &World) -> Agent {
        Agent {
            registry: Registry::new(RegistryConfig::default()),
            task: w.task("agent").await,
            cancel: CancellationToken::new(),
        }
    }

    async fn call(&self, w: &World, name: &str, args: Json) -> ToolResult {
        self.call_text(w, name, &args.to_string()).await
    }

    async fn call_text(&self, w: &World, name: &str, args: &str) -> ToolResult {
        let id = format!("call-{}", uuid::Uuid::new_v4().simple());
        let ctx = ToolContext {
            engine: &w.engine,
            actuator: &w.act,
            task_id: &self.task,
            actor: nomos::agent::tools::AGENT,
            turn_id: "turn-1",
            call_id: &id,
            cancel: &self.cancel,
        };
        self.registry.call(&ctx, &ToolCall { id: id.clone(), name: name.into(), arguments: args.into() }).await
    }
}

async fn executions(w: &World) -> usize {
    w.act.executions(None, None, 1000).await.unwrap().len()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn arguments_that_do_not_match_the_schema_run_nothing_and_say_what_was_wrong() {
    let w = World::default(1).await;
    let agent = Agent::new(&w).await;
    let marks = q(&w.marks("never"));
    let cases: Vec<(&str, String, &str)> = vec![
        (
            "run",
            json!({"target": "host:pve1", "command": format!("echo x >> {marks}")}).to_string(),
            "missing required field `purpose` (string)",
        ),
        (
            "run",
            json!({"target": "host:pve1", "command": 5, "purpose": "p"}).to_string(),
            "`command`: expected string, got an integer 5",
        ),
        (
            "run",
            json!({"target": "host:pve1", "command": "true", "purpose": "p", "sudo": true}).to_string(),
            "unknown field `sudo`; allowed: command, declared_risk, purpose, target, timeout_secs",
        ),
        (
            "run",
            json!({"target": "host:pve1", "command": "true", "purpose": "p", "declared_risk": "tiny"}).to_string(),
            "`declared_risk`: expected one of",
        ),
        (
            "run",
            json!({"target": "host:pve1", "command": "true", "purpose": "p", "timeout_secs": 0}).to_string(),
            "`timeout_secs`: must be at least 1, got 0",
        ),
        (
            "run",
            format!("{{\"target\": \"host:pve1\", \"command\": \"echo x >> {marks}\""),
            "the arguments are not valid JSON",
        ),
        ("run", "[]".into(), "the arguments must be a JSON object, got an array"),
        (
            "request_execution",
            json!({"target": "host:pve1", "action": {"action": "restart"}}).to_string(),
            "`action`: restart: `unit` is required",
        ),
        (
            "request_execution",
            json!({"target": "host:pve1", "action": {"action": "restart", "unit": "a;b"}}).to_string(),
            "`action`:",
        ),
        ("read_output", json!({"execution_id": "x", "stream": "both"}).to_string(), "`stream`: expected one of"),
    ];
    for (tool, args, expected) in cases {
        let r = agent.call_text(&w, tool, &args).await;
        assert!(r.is_error, "{tool} {args}");
        assert!(
            r.content.starts_with(&format!("invalid arguments for `{tool}`: {expected}")),
            "{tool} {args}: {}",
            r.content
        );
        assert!(r.content.ends_with("Nothing was run."), "{}", r.content);
        assert_eq!(r.next, Next::Continue);
    }
    assert_eq!(executions(&w).await, 0, "nothing reached the gate");
    assert!(w.read_marks("never").is_empty());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn an_unknown_tool_gets_the_list_of_tools() {
    let w = World::default(1).await;
    let agent = Agent::new(&w).await;
    let r = agent.call(&w, "shell", json!({"command": "id"})).await;
    assert!(r.is_error);
    assert!(r.content.starts_with("unknown tool `shell`; the tools are: "), "{}", r.content);
    for name in agent.registry.names() {
        assert!(r.content.contains(name), "{name} missing from {}", r.content);
    }
    for name in ["run", "request_execution", "get_execution_status", "read_output"] {
        assert!(agent.registry.names().contains(&name));
    }
    assert_eq!(executions(&w).await, 0);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn run_reads_at_once_queues_a_change_and_runs_it_inside_the_tasks_window() {
    let w = World::default(1).await;
    let agent = Agent::new(&w).await;
    let mut events = w.engine.subscribe();

    let r = agent
        .call(
            &w,
            "run",
            json!({"target": "host:pve1", "command": "echo hello; echo oops >&2; exit 3", "purpose": "look"}),
        )
        .await;
    assert!(r.is_error, "a non-zero exit is a failed call: {}", r.content);
    assert!(r.content.contains(": failed, exit 3"), "{}", r.content);
    assert!(
        r.content.contains("stdout (6 bytes):\nhello\n") && r.content.contains("stderr (5 bytes):\noops\n"),
        "{}",
        r.content
    );
    let first = r.execution_id.clone().unwrap();
    assert_eq!(w.act.execution(&first).await.unwrap().requested_by, "agent:nomos");
    assert_eq!(w.act.execution(&first).await.unwrap().task_id.as_deref(), Some(agent.task.as_str()));

    let ok = agent.call(&w, "run", json!({"target": "host:pve1", "command": "uname -s", "purpose": "look"})).await;
    assert!(!ok.is_error && ok.content.contains("exit 0"), "{}", ok.content);
    assert_eq!(ok.next, Next::Continue);

    let marks = q(&w.marks("change"));
    let change = json!({"target": "host:pve1", "command": format!("echo ran >> {marks}"), "purpose": "write a mark"});
    let r = agent.call(&w, "run", change.clone()).await;
    assert!(!r.is_error, "{}", r.content);
    assert_eq!(r.next, Next::Wait(WaitingFor::Approval));
    assert!(r.content.starts_with("waiting for the operator: execution "), "{}", r.content);
    assert!(r.content.contains("The operator must approve it"), "{}", r.content);
    let queued = r.execution_id.unwrap();
    assert_eq!(w.act.execution(&queued).await.unwrap().status, ExecutionStatus::PendingApproval);
    assert!(w.read_marks("change").is_empty(), "a change never runs unapproved");

    // The same request again is the same waiting one.
    let again = agent.call(&w, "run", change.clone()).await;
    assert_eq!(again.execution_id.as_deref(), Some(queued.as_str()));
    assert!(again.content.contains("An identical request was already waiting"), "{}", again.content);

    // Inside an open window of this task, a change runs.
    w.act.open_window(&agent.task, WindowKind::Assent, None, &operator()).await.unwrap();
    let other = q(&w.marks("windowed"));
    let r = agent
        .call(
            &w,
            "run",
            json!({"target": "host:pve1", "command": format!("echo ran >> {other}"), "purpose": "in the window"}),
        )
        .await;
    assert!(!r.is_error && r.content.contains("completed, exit 0"), "{}", r.content);
    assert_eq!(r.next, Next::Continue);
    assert_eq!(w.read_marks("windowed"), ["ran"]);

    // A destructive one still waits, and says what the operator must type.
    let r = agent
        .call(&w, "run", json!({"target": "host:pve1", "command": "rm -rf /srv/data", "purpose": "clean up"}))
        .await;
    assert_eq!(r.next, Next::Wait(WaitingFor::Approval));
    let approval = w
        .act
        .pending_approvals()
        .await
        .unwrap()
        .into_iter()
        .find(|a| Some(&a.execution_id) == r.execution_id.as_ref())
        .unwrap();
    let words = approval.confirmation.unwrap();
    assert!(r.content.contains(&format!("typing exactly \"{words}\"")), "{}", r.content);

    // A refusal (unknown target) is a tool error.
    let r = agent.call(&w, "run", json!({"target": "host:nowhere", "command": "true", "purpose": "p"})).await;
    assert!(r.is_error && r.execution_id.is_none(), "{}", r.content);
    assert!(r.content.contains("nowhere"), "{}", r.content);

    // Every call touched host:pve1 (but the refused one): rows and events name it.
    let rows: Vec<(String, Option<String>, Option<i64>)> = sqlx::query_as(
        "SELECT a.tool_name, e.slug, a.success FROM agent_activity a LEFT JOIN entities e ON e.id = a.entity_id
         WHERE a.task_id = ? ORDER BY a.id",
    )
    .bind(&agent.task)
    .fetch_all(w.engine.store().pool())
    .await
    .unwrap();
    assert_eq!(rows.len(), 7, "{rows:?}");
    assert!(rows[..6].iter().all(|(t, e, _)| t == "run" && e.as_deref() == Some("host:pve1")), "{rows:?}");
    assert_eq!(rows[0].2, Some(0), "the failed command");
    assert_eq!(rows[1].2, Some(1));
    assert_eq!(rows[6].1, None, "an unknown target names no entity");
    let mut touched = Vec::new();
    while let Ok(ev) = events.try_recv() {
        if let Event::EntityTouched(t) = &ev.event {
            assert_eq!(t.task_id.as_deref(), Some(agent.task.as_str()));
            assert_eq!(ev.correlation_id.as_deref(), Some(agent.task.as_str()));
            touched.push((ev.entity_slug.clone().unwrap(), t.tool.clone(), t.success));
        }
    }
    assert_eq!(touched.len(), 6, "{touched:?}");
    assert!(touched.iter().all(|(slug, tool, _)| slug == "host:pve1" && tool == "run"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn long_output_is_capped_and_read_back_in_pages() {
    let w = World::default(1).await;
    let agent = Agent::new(&w).await;
    let r =
        agent.call(&w, "run", json!({"target": "host:pve1", "command": "seq 1 20000", "purpose": "much output"})).await;
    assert!(!r.is_error, "{}", r.content);
    assert!(r.content.len() <= RESULT_CAP, "{}", r.content.len());
    let id = r.execution_id.unwrap();
    let full = w.act.execution(&id).await.unwrap().stdout;
    assert_eq!(full.lines().count(), 20000, "the record keeps everything");
    assert!(r.content.contains("\n1\n2\n3\n") && r.content.ends_with("19999\n20000\n"), "head and tail kept");
    let marker = r.content.lines().find(|l| l.starts_with("[… ")).unwrap();
    let field = |k: &str| -> usize {
        marker.split_whitespace().find_map(|p| p.strip_prefix(&format!("{k}="))).unwrap().parse().unwrap()
    };
    assert!(marker.contains(&format!("read_output execution_id={id} stream=stdout")), "{marker}");
    let (offset, length) = (field("offset"), field("length"));

    // Page through what was left out: it is exactly the missing part.
    let mut read = String::new();
    let mut at = offset;
    while at < offset + length {
        let want = (offset + length - at).min(3000);
        let page = agent.call(&w, "read_output", json!({"execution_id": id, "offset": at, "length": want})).await;
        assert!(!page.is_error, "{}", page.content);
        let (header, body) = page.content.split_once('\n').unwrap();
        assert!(header.starts_with(&format!("stdout of execution {id}, bytes {at}–")), "{header}");
        assert!(header.contains(&format!(" of {}", full.len())));
        read.push_str(body);
        at += body.len();
        assert!(!body.is_empty());
    }
    assert_eq!(read, full[offset..offset + length]);
    let head = &r.content[r.content.find("):\n").unwrap() + 3..];
    assert!(full.starts_with(&head[..head.find("[… ").unwrap()]));

    // Paging is read-only; a command is not.
    assert!(agent.registry.is_read_only("read_output", &json!({"execution_id": id})));
    assert!(!agent.registry.is_read_only("run", &json!({"target": "host:pve1", "command": "ls", "purpose": "p"})));
    assert!(!agent.registry.is_read_only("read_output", &json!({"execution_id": 5})), "unchecked arguments are not");
    assert!(!agent.registry.is_read_only("nope", &json!({})));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn secret_output_stays_withheld_from_the_agent() {
    let w = World::default(1).await;
    let agent = Agent::new(&w).await;
    let r = agent
        .call(
            &w,
            "run",
            json!({"target": "host:pve1", "command": "head -c 0 /etc/shadow; echo visible", "purpose": "p"}),
        )
        .await;
    assert_eq!(r.next, Next::Wait(WaitingFor::Approval), "{}", r.content);
    let id = r.execution_id.unwrap();
    let approval = w.act.pending_approvals().await.unwrap().into_iter().find(|a| a.execution_id == id).unwrap();
    w.act.approve(&approval.id, &confirm(approval.confirmation.as_deref().unwrap())).await.unwrap();
    wait_final(&w.act, &id).await;
    let status = agent.call(&w, "get_execution_status", json!({"execution_id": id})).await;
    assert!(status.content.contains("completed, exit 0"), "{}", status.content);
    assert!(status.content.contains(nomos::actuate::WITHHELD.trim_end()), "{}", status.content);
    let page = agent.call(&w, "read_output", json!({"execution_id": id})).await;
    for text in [&status.content, &page.content] {
        assert!(!text.contains("visible"), "{text}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn request_execution_runs_curated_actions_through_the_gate() {
    let w = World::default(1).await;
    let agent = Agent::new(&w).await;
    let spec = agent.registry.specs().into_iter().find(|s| s.name == "request_execution").unwrap();
    let mut expected = nomos::types::actions::schema().clone();
    expected.as_object_mut().unwrap().remove("$schema");
    expected.as_object_mut().unwrap().remove("title");
    assert_eq!(spec.parameters["properties"]["action"], expected, "the action schema is the Action enum's");

    // Read-only audit runs at once.
    let r = agent
        .call(
            &w,
            "request_execution",
            json!({"target": "host:pve1", "action": {"action": "apt_upgrade", "mode": "audit"}}),
        )
        .await;
    assert!(r.content.contains("apt_upgrade on host:pve1"), "{}", r.content);
    assert_eq!(r.next, Next::Continue);
    let x = w.act.execution(r.execution_id.as_deref().unwrap()).await.unwrap();
    assert_eq!((x.action.as_str(), x.requested_by.as_str()), ("apt_upgrade", "agent:nomos"));

    // A restart waits for the operator.
    let r = agent
        .call(
            &w,
            "request_execution",
            json!({"target": "host:pve1", "action": {"action": "restart", "unit": "nginx"}, "purpose": "p"}),
        )
        .await;
    assert_eq!(r.next, Next::Wait(WaitingFor::Approval), "{}", r.content);
    assert_eq!(
        w.act.execution(r.execution_id.as_deref().unwrap()).await.unwrap().status,
        ExecutionStatus::PendingApproval
    );

    // A background action inside the window returns at once with its execution.
    w.act.open_window(&agent.task, WindowKind::Assent, None, &operator()).await.unwrap();
    let r = agent
        .call(
            &w,
            "request_execution",
            json!({"target": "host:pve1", "action": {"action": "pct_create", "hostname": "web", "storage": "local", "template": "debian-12"}}),
        )
        .await;
    assert!(r.content.contains("started in the background: execution"), "{}", r.content);
    assert!(r.content.contains("resumes by itself when it ends"));
    let id = r.execution_id.unwrap();
    let done = wait_final(&w.act, &id).await;
    let status = agent.call(&w, "get_execution_status", json!({"execution_id": id})).await;
    assert!(status.content.contains(&format!("execution {id}: {}", done.status)), "{}", status.content);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_cancelled_turn_stops_its_running_command() {
    let w = World::default(1).await;
    let agent = Agent::new(&w).await;
    let sleep = unique_sleep(30);
    let cancel = agent.cancel.clone();
    tokio::spawn(async move {
        tokio::time::sleep(Duration::from_millis(1500)).await;
        cancel.cancel();
    });
    let started = std::time::Instant::now();
    let r = agent.call(&w, "run", json!({"target": "host:pve1", "command": sleep, "purpose": "wait"})).await;
    assert!(started.elapsed() < Duration::from_secs(15), "{:?}", started.elapsed());
    assert!(r.is_error && r.content.contains(": cancelled"), "{}", r.content);
    assert!(no_process(&sleep));
}
