//! What each tool call concerned: an `agent_activity` row per entity it named (or one without an
//! entity) and an `entity.touched` event per entity, so the UI can highlight them.

use nomos_types::events::EntityTouched;
use serde_json::{json, Value as Json};
use sqlx::{QueryBuilder, Sqlite};

use super::{ToolContext, ToolResult};
use crate::events::EventDraft;

/// The argument keys that name an entity, at any depth (`propose_plan`'s `steps[].target` too).
const ENTITY_KEYS: &[&str] = &["target", "slug", "about", "entity_slug", "target_slug"];
/// The most entities one call is recorded against.
const MAX_NAMED: usize = 32;

/// The entity keys a call's arguments name, in order of appearance, without repeats.
pub(super) fn named_entities(args: &Json) -> Vec<String> {
    let mut out = Vec::new();
    walk(args, &mut out);
    out
}

fn walk(value: &Json, out: &mut Vec<String>) {
    match value {
        Json::Object(map) => {
            for (k, v) in map {
                let named = ENTITY_KEYS.contains(&k.as_str());
                match v {
                    Json::String(s) if named => push(out, s),
                    // `about: ["host:pve1", "lxc:caddy"]`
                    Json::Array(items) if named => items.iter().filter_map(Json::as_str).for_each(|s| push(out, s)),
                    _ => walk(v, out),
                }
            }
        }
        Json::Array(items) => items.iter().for_each(|v| walk(v, out)),
        _ => {}
    }
}

fn push(out: &mut Vec<String>, s: &str) {
    let s = s.trim();
    if !s.is_empty() && out.len() < MAX_NAMED && !out.iter().any(|o| o == s) {
        out.push(s.to_string());
    }
}

/// Records the call: the named entities resolved (by slug or id) in one query, one activity row
/// per entity found (one without an entity when none is), and an `entity.touched` event for each,
/// all in one transaction.
pub(super) async fn record(
    ctx: &ToolContext<'_>,
    tool: &str,
    named: &[String],
    result: &ToolResult,
) -> Result<(), sqlx::Error> {
    let mut tx = ctx.engine.store().begin_write().await?;
    let mut found: Vec<(String, String)> = Vec::new();
    if !named.is_empty() {
        let mut q = QueryBuilder::<Sqlite>::new("SELECT id, slug FROM entities WHERE slug IN (");
        let mut list = q.separated(", ");
        for key in named {
            list.push_bind(key);
        }
        q.push(") OR id IN (");
        let mut list = q.separated(", ");
        for key in named {
            list.push_bind(key);
        }
        q.push(")");
        let rows: Vec<(String, String)> = q.build_query_as().fetch_all(&mut *tx).await?;
        // In the order the call named them.
        for key in named {
            if let Some(row) = rows.iter().find(|(id, slug)| slug == key || id == key) {
                if !found.contains(row) {
                    found.push(row.clone());
                }
            }
        }
    }
    // A task that was deleted meanwhile keeps its activity, unattached.
    let task: Option<String> =
        sqlx::query_scalar("SELECT id FROM tasks WHERE id = ?").bind(ctx.task_id).fetch_optional(&mut *tx).await?;
    let detail = json!({
        "call_id": ctx.call_id,
        "turn_id": ctx.turn_id,
        "execution_id": result.execution_id,
    })
    .to_string();
    let success = !result.is_error;
    let entities: Vec<Option<&(String, String)>> =
        if found.is_empty() { vec![None] } else { found.iter().map(Some).collect() };
    for entity in entities {
        sqlx::query(
            "INSERT INTO agent_activity (task_id, agent_slug, activity_type, tool_name, entity_id, success, detail, created_at)
             VALUES (?, ?, 'tool_call', ?, ?, ?, ?, ?)",
        )
        .bind(&task)
        .bind(ctx.actor)
        .bind(tool)
        .bind(entity.map(|(id, _)| id))
        .bind(success)
        .bind(&detail)
        .bind(tx.now().to_string())
        .execute(&mut *tx)
        .await?;
        if let Some((_, slug)) = entity {
            let touched = EntityTouched {
                task_id: task.clone(),
                tool: tool.to_string(),
                call_id: ctx.call_id.to_string(),
                success,
            };
            tx.emit(EventDraft::new(touched).entity(slug.clone()).correlation(ctx.task_id)).await?;
        }
    }
    tx.commit().await?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entity_keys_are_found_at_any_depth_once_each() {
        let args = json!({
            "target": "lxc:caddy",
            "command": "host:pve1",
            "steps": [{"title": "a", "target": "host:pve1"}, {"target": "lxc:caddy"}],
            "about": [" host:pve2 ", "lxc:caddy"],
        });
        let mut got = named_entities(&args);
        got.sort();
        assert_eq!(got, vec!["host:pve1", "host:pve2", "lxc:caddy"]);
        assert!(named_entities(&json!({"query": "caddy"})).is_empty());
    }
}
