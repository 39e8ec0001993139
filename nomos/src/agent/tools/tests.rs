//! The registry and the graph and knowledge tools against a real SQLite database (the gate tools
//! are tested against the lab in `tests/agent_tools.rs`).

use std::sync::Arc;

use nomos_types::{Event, KnowledgeKind};
use serde_json::json;
use tokio_util::sync::CancellationToken;

use super::*;
use crate::actuate::{ActuateConfig, Actuator};
use crate::inventory::DEMO_INVENTORY;
use crate::policy::Policy;
use crate::testing::engine;

struct Setup {
    _dir: tempfile::TempDir,
    engine: Engine,
    actuator: Actuator,
    task: String,
    registry: Registry,
    cancel: CancellationToken,
}

async fn setup() -> Setup {
    let (dir, engine) = engine().await;
    engine.import_inventory(DEMO_INVENTORY, "demo").await.unwrap();
    let actuator = Actuator::new(engine.clone(), Arc::new(Policy::builtin().clone()), ActuateConfig::default());
    let task = engine.create_task("look around", "know the homelab").await.unwrap().id;
    Setup {
        _dir: dir,
        engine,
        actuator,
        task,
        registry: Registry::new(RegistryConfig::default()),
        cancel: CancellationToken::new(),
    }
}

impl Setup {
    async fn call(&self, name: &str, args: Json) -> ToolResult {
        let ctx = ToolContext {
            engine: &self.engine,
            actuator: &self.actuator,
            task_id: &self.task,
            actor: super::AGENT,
            turn_id: "turn-1",
            call_id: "call-1",
            cancel: &self.cancel,
        };
        self.registry
            .call(&ctx, &ToolCall { id: "call-1".into(), name: name.into(), arguments: args.to_string() })
            .await
    }
}

#[test]
fn every_tool_has_a_closed_object_schema_and_a_description() {
    let r = Registry::new(RegistryConfig::default());
    let specs = r.specs();
    for name in [
        "list_entities",
        "get_entity",
        "get_relations",
        "get_blast_radius",
        "search_knowledge",
        "get_knowledge",
        "upsert_knowledge",
        "run",
        "request_execution",
        "get_execution_status",
        "read_output",
        "http_get",
    ] {
        let spec = specs.iter().find(|s| s.name == name).unwrap_or_else(|| panic!("{name} missing"));
        assert_eq!(spec.parameters["type"], "object", "{name}");
        assert_eq!(spec.parameters["additionalProperties"], false, "{name}");
        assert!(spec.description.len() > 60, "{name}: {}", spec.description);
        assert!(!spec.parameters.to_string().contains("$ref"), "{name}: subschemas are inlined");
    }
    let names = r.names();
    let mut unique = names.clone();
    unique.dedup();
    assert_eq!(names.len(), unique.len());
}

#[tokio::test]
async fn list_entities_pages_with_the_true_total() {
    let s = setup().await;
    let r = s.call("list_entities", json!({"type": "lxc", "limit": 3})).await;
    assert!(!r.is_error, "{}", r.content);
    let mut lines = r.content.lines();
    assert_eq!(lines.next().unwrap(), "3 of 10 entities (offset 0); next page: offset=3");
    let first = lines.next().unwrap();
    assert!(first.starts_with("lxc:caddy (lxc, \"caddy\", active, health "), "{first}");
    assert!(first.contains("\"memory_mb\":1024"), "attributes come along: {first}");
    let last = s.call("list_entities", json!({"type": "lxc", "limit": 3, "offset": 9})).await;
    assert!(last.content.starts_with("1 of 10 entities (offset 9)\n"), "{}", last.content);
    let filtered = s.call("list_entities", json!({"filter": "GRAF"})).await;
    assert!(
        filtered.content.contains("lxc:grafana") && filtered.content.contains("service:grafana"),
        "{}",
        filtered.content
    );
    let bad = s.call("list_entities", json!({"type": "spaceship"})).await;
    assert!(bad.is_error && bad.content.contains("spaceship"), "{}", bad.content);
}

#[tokio::test]
async fn get_entity_answers_in_one_call() {
    let s = setup().await;
    s.engine
        .upsert_knowledge(&nomos_types::KnowledgeInput {
            kind: KnowledgeKind::Runbook,
            title: "Renew caddy certificates".into(),
            content: "caddy reload".into(),
            source: String::new(),
            author: nomos_types::Author::Operator,
            tags: vec![],
            about: vec!["lxc:caddy".into()],
        })
        .await
        .unwrap();
    let r = s.call("get_entity", json!({"slug": "lxc:caddy"})).await;
    assert!(!r.is_error, "{}", r.content);
    let v: Json = serde_json::from_str(&r.content).unwrap();
    assert_eq!(v["type"], "lxc");
    assert_eq!(v["attributes"]["pve_id"], 101);
    assert_eq!(v["health"], "unknown");
    let relations: Vec<&str> = v["relations"].as_array().unwrap().iter().filter_map(Json::as_str).collect();
    assert!(
        relations.iter().any(|l| l.starts_with("hosted-by host:strong") || l.contains("host:strong")),
        "{relations:?}"
    );
    assert!(relations.iter().any(|l| l.contains("service:caddy")), "{relations:?}");
    assert_eq!(v["knowledge"][0]["title"], "Renew caddy certificates");
    let missing = s.call("get_entity", json!({"slug": "lxc:nope"})).await;
    assert!(missing.is_error && missing.content.contains("lxc:nope"), "{}", missing.content);
}

#[tokio::test]
async fn relations_and_blast_radius() {
    let s = setup().await;
    let r = s.call("get_relations", json!({"slug": "host:strong"})).await;
    assert!(r.content.lines().next().unwrap().ends_with("relations of host:strong"), "{}", r.content);
    assert!(r.content.contains("lxc:caddy (lxc)"), "{}", r.content);
    let b = s.call("get_blast_radius", json!({"slug": "lxc:postgres", "depth": 2})).await;
    assert!(!b.is_error, "{}", b.content);
    assert!(b.content.contains("within 2 hops"), "{}", b.content);
    assert!(b.content.contains("service:postgres"), "{}", b.content);
    let e = s.call("get_blast_radius", json!({"slug": "lxc:postgres", "depth": 11})).await;
    assert!(e.content.contains("`depth`: must be at most 10, got 11"), "{}", e.content);
}

#[tokio::test]
async fn knowledge_is_searched_read_and_written_by_the_agent_for_its_task() {
    let s = setup().await;
    let w = s
        .call(
            "upsert_knowledge",
            json!({"title": "Caddy <proxy> layout", "content": "Caddyfile lives in /etc/caddy; reload with systemctl reload caddy", "about": ["lxc:caddy", "service:caddy"]}),
        )
        .await;
    assert!(!w.is_error, "{}", w.content);
    assert!(
        w.content.starts_with("wrote new note ")
            && w.content.contains("(investigation) about lxc:caddy, service:caddy"),
        "{}",
        w.content
    );
    let again = s
        .call("upsert_knowledge", json!({"title": "Caddy <proxy> layout", "content": "updated", "about": "lxc:caddy"}))
        .await;
    assert!(again.content.starts_with("updated note "), "{}", again.content);

    let found = s.call("search_knowledge", json!({"query": "caddy"})).await;
    assert!(found.content.starts_with("1 notes match\n"), "{}", found.content);
    assert!(
        found.content.contains("(investigation, by agent, ") && found.content.contains("Caddy <proxy> layout"),
        "{}",
        found.content
    );
    let slug = found.content.lines().nth(1).unwrap().split_whitespace().next().unwrap().to_string();
    let doc = s.call("get_knowledge", json!({"slug": slug})).await;
    assert!(doc.content.ends_with("\n\nupdated"), "{}", doc.content);

    // Linked to the task that wrote it.
    let task = s.engine.task(&s.task).await.unwrap();
    let produced = s.engine.entity_knowledge(task.entity_slug.as_deref().unwrap()).await.unwrap();
    assert_eq!(produced.len(), 1);
    assert_eq!(produced[0].author, nomos_types::Author::Agent);
    assert!(!s.registry.is_read_only("upsert_knowledge", &json!({"title": "t", "content": "c"})));
    assert!(s.registry.is_read_only("search_knowledge", &json!({"query": "c"})));
}

#[tokio::test]
async fn each_call_records_its_entities_in_one_row_each_and_announces_them() {
    let s = setup().await;
    let mut rx = s.engine.subscribe();
    s.call(
        "upsert_knowledge",
        json!({"title": "t", "content": "c", "about": ["lxc:caddy", "host:strong", "lxc:gone"]}),
    )
    .await;
    s.call("list_entities", json!({})).await;
    s.call("get_entity", json!({"slug": 5})).await;
    let rows: Vec<(String, Option<String>, bool, String)> = sqlx::query_as(
        "SELECT a.tool_name, e.slug, a.success, a.detail FROM agent_activity a LEFT JOIN entities e ON e.id = a.entity_id
          WHERE a.task_id = ? ORDER BY a.id",
    )
    .bind(&s.task)
    .fetch_all(s.engine.store().pool())
    .await
    .unwrap();
    let short: Vec<(&str, Option<&str>, bool)> =
        rows.iter().map(|(t, e, ok, _)| (t.as_str(), e.as_deref(), *ok)).collect();
    assert_eq!(
        short,
        [
            ("upsert_knowledge", Some("lxc:caddy"), false),
            ("upsert_knowledge", Some("host:strong"), false),
            ("list_entities", None, true),
            ("get_entity", None, false),
        ]
    );
    let detail: Json = serde_json::from_str(&rows[0].3).unwrap();
    assert_eq!(detail["call_id"], "call-1");
    assert_eq!(detail["turn_id"], "turn-1");
    let touched: Vec<String> = std::iter::from_fn(|| rx.try_recv().ok())
        .filter(|e| matches!(e.event, Event::EntityTouched(_)))
        .map(|e| e.entity_slug.unwrap())
        .collect();
    assert_eq!(touched, ["lxc:caddy", "host:strong"]);
}

#[tokio::test]
async fn results_the_model_sees_are_capped() {
    let s = setup().await;
    let registry = Registry::new(RegistryConfig { result_cap: 600, ..RegistryConfig::default() });
    let ctx = ToolContext {
        engine: &s.engine,
        actuator: &s.actuator,
        task_id: &s.task,
        actor: super::AGENT,
        turn_id: "t",
        call_id: "c",
        cancel: &s.cancel,
    };
    let call = ToolCall { id: "c".into(), name: "list_entities".into(), arguments: "{\"limit\": 200}".into() };
    let r = registry.call(&ctx, &call).await;
    assert!(r.content.len() <= 600, "{}", r.content.len());
    assert!(r.content.contains("bytes left out; ask for less"), "{}", r.content);
    assert!(r.content.contains(" entities (offset 0)\n"), "the head is kept: {}", r.content);
}

#[tokio::test]
async fn http_get_refuses_local_targets_as_a_tool_error() {
    let s = setup().await;
    for url in ["http://127.0.0.1:9/", "http://localhost:9/x", "file:///etc/passwd"] {
        let r = s.call("http_get", json!({"url": url})).await;
        assert!(r.is_error, "{url}: {}", r.content);
        assert!(r.content.starts_with("refused: "), "{url}: {}", r.content);
    }
    assert!(s.registry.is_read_only("http_get", &json!({"url": "https://example.com/"})));
}
