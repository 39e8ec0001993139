//! Every timestamp the engine stores comes from its clock: with a manual clock set far in the
//! past or the future, every time column of every row the operations wrote says exactly that
//! time (or, for expiries, that time plus their length) — nothing from SQL's `now`.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::time::Duration;

use nomos::actuate::{ActuateConfig, Decision, RunOutcome, RunRequest};
use nomos::clock::{format_ms, ManualClock};
use nomos::graph::entities::NewEntity;
use nomos::types::{Author, Channel, Health, KnowledgeInput, KnowledgeKind, WindowKind};
use nomos::{PolicySource, Runtime, RuntimeConfig};
use serde_json::json;

/// 2999-01-01T00:00:00.000Z and 1971-02-03T04:05:06.789Z.
const FUTURE_MS: i64 = 32_472_144_000_000;
const PAST_MS: i64 = 34_401_906_789;

fn operator() -> Decision {
    Decision { actor: "operator:test".into(), channel: Channel::Ui, message: None }
}

/// Runs a little of everything on a runtime whose clock stands at `at`, then checks the times.
async fn everything_at(at: i64) {
    let dir = tempfile::tempdir().unwrap();
    let clock = ManualClock::at(at);
    let actuate = ActuateConfig::default();
    let config = RuntimeConfig {
        clock: clock.clone(),
        policy: PolicySource::Builtin,
        actuate: actuate.clone(),
        ..RuntimeConfig::new(dir.path().join("oikos.db"))
    };
    let rt = Runtime::open(config).await.unwrap();
    let (eng, act) = (rt.engine(), rt.actuator());

    // The graph: entities created and updated, relationships made and ended, health, an import.
    eng.upsert_entity(NewEntity::new("host", "far").attributes(json!({"address": "192.0.2.1"}))).await.unwrap();
    eng.upsert_entity(NewEntity::new("host", "far").attributes(json!({"note": "updated"}))).await.unwrap();
    eng.create_entity(NewEntity::new("lxc", "box").attributes(json!({"pve_id": 101}))).await.unwrap();
    eng.create_relationship("hosts", "host:far", "lxc:box", &json!({})).await.unwrap();
    eng.create_entity(NewEntity::new("service", "web")).await.unwrap();
    eng.create_relationship("runs-on", "service:web", "lxc:box", &json!({})).await.unwrap();
    eng.end_relationship("runs-on", "service:web", "lxc:box").await.unwrap();
    eng.record_health("lxc:box", Health::Degraded, "disk").await.unwrap();
    eng.import_inventory(nomos::inventory::DEMO_INVENTORY, "demo").await.unwrap();
    // Knowledge, created and updated.
    let mut note = KnowledgeInput {
        kind: KnowledgeKind::Runbook,
        title: "Restart the box".into(),
        content: "pct reboot 101".into(),
        source: String::new(),
        author: Author::Operator,
        tags: vec![],
        about: vec!["lxc:box".into()],
    };
    eng.upsert_knowledge(&note).await.unwrap();
    note.content.push_str(" (then check)");
    eng.upsert_knowledge(&note).await.unwrap();
    // Tasks, and the gate's records: a request that waits, is denied, a window opened and
    // revoked by a pause. None of it connects anywhere.
    let task = eng.create_task("Far task", "goal").await.unwrap().id;
    let doomed = eng.create_task("Doomed task", "goal").await.unwrap().id;
    let ask = |task: &str| RunRequest {
        target: "host:far".into(),
        command: "systemctl restart nginx".into(),
        purpose: "test".into(),
        task_id: Some(task.to_string()),
        requested_by: "agent:nomos".into(),
        ..Default::default()
    };
    let RunOutcome::Queued { approval, .. } = act.run(ask(&task)).await.unwrap() else { panic!("it ran") };
    act.deny(&approval.id, &operator()).await.unwrap();
    act.run(ask(&doomed)).await.unwrap();
    eng.delete_task(&doomed).await.unwrap();
    act.open_window(&task, WindowKind::Assent, None, &operator()).await.unwrap();
    act.set_paused(true, &operator()).await.unwrap();
    act.sweep().await.unwrap();

    let now = format_ms(at);
    let expiries = [format_ms(at + ms(actuate.approval_ttl)), format_ms(at + ms(actuate.assent_window))];
    let pool = eng.store().pool();
    let tables: Vec<String> = sqlx::query_scalar(
        "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name NOT LIKE '\\_%' ESCAPE '\\'
           AND name NOT LIKE 'knowledge_fts%'",
    )
    .fetch_all(pool)
    .await
    .unwrap();
    let mut checked = 0;
    for table in &tables {
        let columns: Vec<String> = sqlx::query_scalar(&format!("SELECT name FROM pragma_table_info('{table}')"))
            .fetch_all(pool)
            .await
            .unwrap();
        for column in
            columns.iter().filter(|c| c.ends_with("_at") || ["at", "valid_from", "valid_to"].contains(&c.as_str()))
        {
            let values: Vec<Option<String>> =
                sqlx::query_scalar(&format!("SELECT {column} FROM {table}")).fetch_all(pool).await.unwrap();
            for v in values.into_iter().flatten() {
                if column == "expires_at" {
                    assert!(expiries.contains(&v), "{table}.{column} = {v}, expected one of {expiries:?}");
                } else {
                    assert_eq!(v, now, "{table}.{column}");
                }
                checked += 1;
            }
        }
    }
    // Every kind of row above was written and looked at.
    for table in [
        "entities",
        "relationships",
        "entity_status",
        "knowledge",
        "tasks",
        "executions",
        "approvals",
        "autonomy_windows",
        "settings",
        "audit_log",
        "events",
    ] {
        let n: i64 = sqlx::query_scalar(&format!("SELECT count(*) FROM {table}")).fetch_one(pool).await.unwrap();
        assert!(n > 0, "nothing written to {table}");
    }
    assert!(checked > 100, "only {checked} timestamps checked");
    // Freshness and the week's knowledge are judged on the same clock.
    assert_eq!(eng.entity_status("lxc:box").await.unwrap().freshness, nomos::types::Freshness::Fresh);
    assert_eq!(eng.knowledge_stats().await.unwrap().changed_last_7_days, 1);
    clock.advance_ms(3600 * 1000);
    assert_eq!(eng.entity_status("lxc:box").await.unwrap().freshness, nomos::types::Freshness::Stale);
    rt.close().await;
}

fn ms(d: Duration) -> i64 {
    i64::try_from(d.as_millis()).unwrap()
}

#[tokio::test]
async fn far_future() {
    assert_eq!(format_ms(FUTURE_MS), "2999-01-01T00:00:00.000Z");
    everything_at(FUTURE_MS).await;
}

#[tokio::test]
async fn far_past() {
    assert_eq!(format_ms(PAST_MS), "1971-02-03T04:05:06.789Z");
    everything_at(PAST_MS).await;
}
