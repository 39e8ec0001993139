//! The graph tools: `list_entities`, `get_entity`, `get_relations`, `get_blast_radius`. Each
//! answers in one call what would otherwise take many (an entity with its status, relations and
//! notes; a page of entities with their attributes and the true total).

use nomos_types::{EntityQuery, Relation};
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{json, Value as Json};

use super::args::schema_of;
use super::{Tool, ToolContext, ToolFuture, ToolResult};

pub(super) fn tools() -> Vec<Box<dyn Tool>> {
    vec![Box::new(ListEntities), Box::new(GetEntity), Box::new(GetRelations), Box::new(GetBlastRadius)]
}

/// The arguments of `list_entities`.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct ListArgs {
    /// An entity type (`host`, `lxc`, `service`, …); a type includes the types below it
    /// (`compute` lists hosts, containers and VMs).
    #[serde(rename = "type")]
    entity_type: Option<String>,
    /// Text the slug or name contains (any case).
    filter: Option<String>,
    /// How many (default 50, at most 200).
    #[schemars(range(min = 1, max = 200))]
    limit: Option<u32>,
    /// How many to skip (for the next page).
    offset: Option<u32>,
}

struct ListEntities;

impl Tool for ListEntities {
    fn name(&self) -> &'static str {
        "list_entities"
    }

    fn description(&self) -> &'static str {
        "List entities of the homelab graph (hosts, containers, VMs, services, …), optionally of one type \
         and/or whose slug or name contains `filter`. One line each: slug, type, name, state, health and \
         attributes — usually enough without calling get_entity for each. Says how many match in all and \
         the offset of the next page."
    }

    fn parameters(&self) -> Json {
        schema_of::<ListArgs>()
    }

    fn is_read_only(&self, _args: &Json) -> bool {
        true
    }

    fn call<'a>(&'a self, ctx: &'a ToolContext<'a>, args: Json) -> ToolFuture<'a> {
        Box::pin(async move {
            let a: ListArgs = parsed!(args);
            let q = EntityQuery {
                entity_type: a.entity_type,
                text: a.filter,
                health: None,
                limit: Some(a.limit.unwrap_or(50).min(200)),
                offset: a.offset.unwrap_or(0),
            };
            let page = engine!(ctx.engine.list_entities(&q).await);
            let shown = page.items.len() as u64;
            let end = u64::from(page.offset) + shown;
            let mut text = format!("{shown} of {} entities (offset {})", page.total, page.offset);
            if end < page.total {
                text.push_str(&format!("; next page: offset={end}"));
            }
            text.push('\n');
            for item in &page.items {
                let e = &item.entity;
                text.push_str(&format!(
                    "{} ({}, \"{}\", {}, health {}) {}\n",
                    e.slug, e.entity_type, e.name, e.state, item.status.health, e.attributes
                ));
            }
            ToolResult::ok(text)
        })
    }
}

/// The arguments of the tools about one entity.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct SlugArgs {
    /// The entity's slug (`host:pve1`, `lxc:caddy`).
    slug: String,
}

struct GetEntity;

impl Tool for GetEntity {
    fn name(&self) -> &'static str {
        "get_entity"
    }

    fn description(&self) -> &'static str {
        "Everything known about one entity in one call: type, name, state, attributes, health, its current \
         relations (both directions) and the titles of the knowledge notes about it."
    }

    fn parameters(&self) -> Json {
        schema_of::<SlugArgs>()
    }

    fn is_read_only(&self, _args: &Json) -> bool {
        true
    }

    fn call<'a>(&'a self, ctx: &'a ToolContext<'a>, args: Json) -> ToolFuture<'a> {
        Box::pin(async move {
            let a: SlugArgs = parsed!(args);
            let x = engine!(ctx.engine.explain(&a.slug).await);
            ToolResult::json(&json!({
                "slug": x.entity.slug,
                "type": x.entity.entity_type,
                "name": x.entity.name,
                "state": x.entity.state,
                "attributes": x.entity.attributes,
                "health": x.status.health,
                "freshness": x.status.freshness,
                "last_check_at": x.status.last_check_at,
                "health_detail": x.status.detail,
                "relations": x.relations.iter().map(relation_line).collect::<Vec<_>>(),
                "knowledge": x.knowledge.iter().map(|k| json!({"slug": k.slug, "kind": k.kind, "title": k.title}))
                    .collect::<Vec<_>>(),
            }))
        })
    }
}

/// A relation as one line: `hosted-by host:pve1 (host)`, with its properties and, once ended,
/// its period.
fn relation_line(r: &Relation) -> String {
    let mut line = format!("{} {} ({})", r.label, r.other.slug, r.other.entity_type);
    if r.properties.as_object().is_some_and(|p| !p.is_empty()) {
        line.push_str(&format!(" {}", r.properties));
    }
    if let Some(to) = &r.valid_to {
        line.push_str(&format!(" [ended; {} – {to}]", r.valid_from));
    }
    line
}

/// The arguments of `get_relations`.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct RelationsArgs {
    /// The entity's slug.
    slug: String,
    /// Also the relations that ended (moves, removals), with their periods.
    history: Option<bool>,
}

struct GetRelations;

impl Tool for GetRelations {
    fn name(&self) -> &'static str {
        "get_relations"
    }

    fn description(&self) -> &'static str {
        "The relations of one entity in both directions, one per line (`runs-on host:pve1`, `hosts \
         lxc:caddy`); with history=true also the ended ones and when they held. get_entity already includes \
         the current ones."
    }

    fn parameters(&self) -> Json {
        schema_of::<RelationsArgs>()
    }

    fn is_read_only(&self, _args: &Json) -> bool {
        true
    }

    fn call<'a>(&'a self, ctx: &'a ToolContext<'a>, args: Json) -> ToolFuture<'a> {
        Box::pin(async move {
            let a: RelationsArgs = parsed!(args);
            let relations = engine!(ctx.engine.relations(&a.slug, a.history.unwrap_or(false)).await);
            let mut text = format!("{} relations of {}\n", relations.len(), a.slug);
            for r in &relations {
                text.push_str(&relation_line(r));
                text.push('\n');
            }
            ToolResult::ok(text)
        })
    }
}

/// The arguments of `get_blast_radius`.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct BlastArgs {
    /// The entity that would fail or change.
    slug: String,
    /// How many hops to follow (default 3, at most 10).
    #[schemars(range(min = 1, max = 10))]
    depth: Option<u32>,
}

struct GetBlastRadius;

impl Tool for GetBlastRadius {
    fn name(&self) -> &'static str {
        "get_blast_radius"
    }

    fn description(&self) -> &'static str {
        "What depends on an entity, transitively: everything affected if it fails or is changed, with the \
         depth and the path of relations that connects each. Use before a change to know (and tell the \
         operator) what it reaches."
    }

    fn parameters(&self) -> Json {
        schema_of::<BlastArgs>()
    }

    fn is_read_only(&self, _args: &Json) -> bool {
        true
    }

    fn call<'a>(&'a self, ctx: &'a ToolContext<'a>, args: Json) -> ToolFuture<'a> {
        Box::pin(async move {
            let a: BlastArgs = parsed!(args);
            let b = engine!(ctx.engine.blast_radius(&a.slug, a.depth).await);
            let mut text = format!("{} entities affected by {} within {} hops\n", b.hits.len(), b.root.slug, b.depth);
            for h in &b.hits {
                let path: Vec<String> =
                    h.path.iter().map(|p| format!("{} {} {}", p.source, p.rel_type, p.target)).collect();
                text.push_str(&format!(
                    "{} {} ({}) via {}\n",
                    h.depth,
                    h.entity.slug,
                    h.entity.entity_type,
                    path.join(", ")
                ));
            }
            ToolResult::ok(text)
        })
    }
}
