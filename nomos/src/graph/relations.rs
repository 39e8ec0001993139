//! Temporal relationships: create (idempotent, validated against the ontology and its
//! cardinality), end (history kept), and read from either endpoint.

use nomos_types::events::{RelationshipCreated, RelationshipEnded, RelationshipUpdated};
use nomos_types::{
    Direction, Entity, EntityListItem, EntityRef, EntityState, GraphEdge, GraphSnapshot, Json, Relation, Relationship,
};
use sqlx::sqlite::SqliteRow;
use sqlx::{Row, SqliteConnection};

use super::entities::Change;
use super::{entity_from_row, merge_object, new_id, require_entity, status_from_row, ENTITY_COLUMNS, STATUS_COLUMNS};
use crate::events::EventDraft;
use crate::store::WriteTx;
use crate::{Engine, Error, Ontology, Result};

/// What to do when a new edge would break the type's cardinality (e.g. a second host for an LXC).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OnConflict {
    /// Refuse, naming the edge in the way.
    Reject,
    /// End the edge in the way first (the inventory says the LXC moved).
    Replace,
}

/// Outcome of [`link_in`].
pub(crate) struct Linked {
    pub relationship: Relationship,
    pub change: Change,
    pub ended: u32,
}

const REL_SELECT: &str = "SELECT r.id, r.type, r.properties, r.valid_from, r.valid_to,
        s.id AS s_id, s.slug AS s_slug, s.type AS s_type, s.name AS s_name,
        t.id AS t_id, t.slug AS t_slug, t.type AS t_type, t.name AS t_name
    FROM relationships r JOIN entities s ON s.id = r.source_id JOIN entities t ON t.id = r.target_id";

/// An entity's short form from columns `<prefix>_id`, `_slug`, `_type`, `_name`.
fn ref_from_row(row: &SqliteRow, prefix: &str) -> Result<EntityRef> {
    let text = |column: &str| -> Result<std::sync::Arc<str>> {
        Ok(row.try_get::<String, _>(format!("{prefix}_{column}").as_str())?.into())
    };
    Ok(EntityRef { id: text("id")?, slug: text("slug")?, entity_type: text("type")?, name: text("name")? })
}

fn relationship_from_row(row: &SqliteRow) -> Result<Relationship> {
    let properties: String = row.try_get("properties")?;
    Ok(Relationship {
        id: row.try_get("id")?,
        rel_type: row.try_get("type")?,
        source: ref_from_row(row, "s")?,
        target: ref_from_row(row, "t")?,
        properties: serde_json::from_str(&properties).unwrap_or(Json::Null),
        valid_from: row.try_get("valid_from")?,
        valid_to: row.try_get("valid_to")?,
    })
}

async fn current_edges(tx: &mut WriteTx, rel: &str, column: &str, entity_id: &str) -> Result<Vec<Relationship>> {
    let sql = format!("{REL_SELECT} WHERE r.type = ? AND r.{column} = ? AND r.valid_to IS NULL ORDER BY r.valid_from");
    let rows = sqlx::query(&sql).bind(rel).bind(entity_id).fetch_all(&mut **tx).await?;
    rows.iter().map(relationship_from_row).collect()
}

async fn end_in(tx: &mut WriteTx, edge: &Relationship) -> Result<Relationship> {
    let now = tx.now().to_string();
    sqlx::query("UPDATE relationships SET valid_to = max(?, valid_from) WHERE id = ? AND valid_to IS NULL")
        .bind(now)
        .bind(&edge.id)
        .execute(&mut **tx)
        .await?;
    let row = sqlx::query(&format!("{REL_SELECT} WHERE r.id = ?")).bind(&edge.id).fetch_one(&mut **tx).await?;
    let ended = relationship_from_row(&row)?;
    let event = RelationshipEnded {
        id: ended.id.clone(),
        rel_type: ended.rel_type.clone(),
        source: ended.source.slug.to_string(),
        target: ended.target.slug.to_string(),
    };
    tx.emit(EventDraft::new(event).entity(&*ended.source.slug)).await?;
    Ok(ended)
}

/// Ends the relationship with this id if it is current; returns it as ended, or None.
pub(crate) async fn end_by_id_in(tx: &mut WriteTx, id: &str) -> Result<Option<Relationship>> {
    let row = sqlx::query(&format!("{REL_SELECT} WHERE r.id = ? AND r.valid_to IS NULL"))
        .bind(id)
        .fetch_optional(&mut **tx)
        .await?;
    match row {
        Some(row) => Ok(Some(end_in(tx, &relationship_from_row(&row)?).await?)),
        None => Ok(None),
    }
}

/// Creates `source —rel→ target` inside a transaction, or returns the current one (merging
/// `properties` into it). Validates types and cardinality.
pub(crate) async fn link_in(
    tx: &mut WriteTx,
    ontology: &Ontology,
    rel: &str,
    source: &Entity,
    target: &Entity,
    properties: &Json,
    on_conflict: OnConflict,
) -> Result<Linked> {
    let def =
        ontology.check_relationship(rel, (&source.slug, &source.entity_type), (&target.slug, &target.entity_type))?;
    if source.id == target.id {
        return Err(Error::Invalid(format!("`{}` cannot be related to itself", source.slug)));
    }
    // Destroyed entities stay for history; nothing new may hang off them.
    if let Some(gone) =
        [source, target].into_iter().find(|e| matches!(e.state, EntityState::Destroyed | EntityState::Gone))
    {
        return Err(Error::Invalid(format!("`{}` is {}; it cannot gain relationships", gone.slug, gone.state)));
    }
    if !properties.is_object() {
        return Err(Error::Invalid("relationship properties must be a JSON object".into()));
    }

    let from_source = current_edges(tx, rel, "source_id", &source.id).await?;
    if let Some(existing) = from_source.iter().find(|r| *r.target.id == *target.id) {
        let merged = merge_object(&existing.properties, properties)?;
        if merged == existing.properties {
            return Ok(Linked { relationship: existing.clone(), change: Change::Unchanged, ended: 0 });
        }
        sqlx::query("UPDATE relationships SET properties = ? WHERE id = ?")
            .bind(merged.to_string())
            .bind(&existing.id)
            .execute(&mut **tx)
            .await?;
        let event = RelationshipUpdated {
            id: existing.id.clone(),
            rel_type: rel.to_string(),
            source: source.slug.clone(),
            target: target.slug.clone(),
            properties: merged.clone(),
        };
        tx.emit(EventDraft::new(event).entity(&source.slug)).await?;
        let mut updated = existing.clone();
        updated.properties = merged;
        return Ok(Linked { relationship: updated, change: Change::Updated, ended: 0 });
    }

    let mut in_the_way = Vec::new();
    if def.cardinality.single_target() {
        in_the_way.extend(from_source.iter().cloned());
    }
    if def.cardinality.single_source() {
        in_the_way.extend(current_edges(tx, rel, "target_id", &target.id).await?);
    }
    let mut ended = 0;
    for edge in &in_the_way {
        match on_conflict {
            OnConflict::Reject => {
                return Err(Error::Conflict(format!(
                    "`{rel}` is {}: {} —{rel}→ {} already exists; end it first",
                    def.cardinality, edge.source.slug, edge.target.slug
                )))
            }
            OnConflict::Replace => {
                end_in(tx, edge).await?;
                ended += 1;
            }
        }
    }

    let id = new_id();
    let now = tx.now().to_string();
    sqlx::query(
        "INSERT INTO relationships (id, type, source_id, target_id, properties, valid_from) VALUES (?, ?, ?, ?, ?, ?)",
    )
    .bind(&id)
    .bind(rel)
    .bind(&source.id)
    .bind(&target.id)
    .bind(properties.to_string())
    .bind(now)
    .execute(&mut **tx)
    .await?;
    let row = sqlx::query(&format!("{REL_SELECT} WHERE r.id = ?")).bind(&id).fetch_one(&mut **tx).await?;
    let relationship = relationship_from_row(&row)?;
    let event = RelationshipCreated {
        id: id.clone(),
        rel_type: rel.to_string(),
        source: source.slug.clone(),
        target: target.slug.clone(),
    };
    tx.emit(EventDraft::new(event).entity(&source.slug)).await?;
    Ok(Linked { relationship, change: Change::Created, ended })
}

/// The relationships of `entity` read on the given connection (see [`Engine::relations`]).
pub(crate) async fn relations_in(conn: &mut SqliteConnection, entity: &Entity, history: bool) -> Result<Vec<Relation>> {
    let current = if history { "" } else { " AND r.valid_to IS NULL" };
    let sql = format!(
        "SELECT r.id, r.type, 'outgoing' AS direction, r.type AS label, o.id AS o_id, o.slug AS o_slug,
                o.type AS o_type, o.name AS o_name, r.properties, r.valid_from, r.valid_to
           FROM relationships r JOIN entities o ON o.id = r.target_id
          WHERE r.source_id = ?1{current}
         UNION ALL
         SELECT r.id, r.type, 'incoming', rt.inverse, o.id, o.slug, o.type, o.name, r.properties, r.valid_from,
                r.valid_to
           FROM relationships r JOIN entities o ON o.id = r.source_id
           JOIN relationship_types rt ON rt.name = r.type
          WHERE r.target_id = ?1{current}
         ORDER BY 3 DESC, 4, 6, 10"
    );
    let rows = sqlx::query(&sql).bind(&entity.id).fetch_all(conn).await?;
    rows.iter()
        .map(|row| {
            let direction: String = row.try_get("direction")?;
            let properties: String = row.try_get("properties")?;
            Ok(Relation {
                id: row.try_get("id")?,
                rel_type: row.try_get("type")?,
                direction: if direction == "incoming" { Direction::Incoming } else { Direction::Outgoing },
                label: row.try_get("label")?,
                other: ref_from_row(row, "o")?,
                properties: serde_json::from_str(&properties).unwrap_or(Json::Null),
                valid_from: row.try_get("valid_from")?,
                valid_to: row.try_get("valid_to")?,
            })
        })
        .collect()
}

impl Engine {
    /// Creates `source —rel→ target`. Creating a relationship that is already current changes
    /// nothing (properties are merged). Returns the relationship and whether it was new.
    pub async fn create_relationship(
        &self,
        rel: &str,
        source: &str,
        target: &str,
        properties: &Json,
    ) -> Result<(Relationship, bool)> {
        let mut tx = self.store().begin_write().await?;
        let s = require_entity(&mut tx, source).await?;
        let t = require_entity(&mut tx, target).await?;
        let linked = link_in(&mut tx, self.ontology(), rel, &s, &t, properties, OnConflict::Reject).await?;
        tx.commit().await?;
        Ok((linked.relationship, linked.change == Change::Created))
    }

    /// Ends the current `source —rel→ target` relationship: it stays in history with `valid_to` set.
    pub async fn end_relationship(&self, rel: &str, source: &str, target: &str) -> Result<Relationship> {
        let mut tx = self.store().begin_write().await?;
        let s = require_entity(&mut tx, source).await?;
        let t = require_entity(&mut tx, target).await?;
        let edge = current_edges(&mut tx, rel, "source_id", &s.id)
            .await?
            .into_iter()
            .find(|r| *r.target.id == *t.id)
            .ok_or_else(|| Error::not_found("current relationship", format!("{} —{rel}→ {}", s.slug, t.slug)))?;
        let ended = end_in(&mut tx, &edge).await?;
        tx.commit().await?;
        Ok(ended)
    }

    /// The whole graph for drawing: entities that are not destroyed or gone (with their status) and the
    /// current relationships between them, read from one snapshot.
    pub async fn graph_snapshot(&self) -> Result<GraphSnapshot> {
        let mut read = self.store().pool().begin().await?;
        let sql = format!(
            "SELECT {ENTITY_COLUMNS}, {STATUS_COLUMNS} FROM entities e \
             LEFT JOIN entity_status s ON s.entity_id = e.id WHERE e.state NOT IN ('destroyed', 'gone') ORDER BY e.slug"
        );
        let rows = sqlx::query(&sql).fetch_all(&mut *read).await?;
        let edges = sqlx::query(&format!(
            "{REL_SELECT} WHERE r.valid_to IS NULL AND s.state NOT IN ('destroyed', 'gone') AND t.state NOT IN ('destroyed', 'gone') ORDER BY r.id"
        ))
        .fetch_all(&mut *read)
        .await?;
        read.commit().await?;
        let now_ms = self.clock().now_ms();
        let nodes = rows
            .iter()
            .map(|row| Ok(EntityListItem { entity: entity_from_row(row)?, status: status_from_row(row, now_ms)? }))
            .collect::<Result<Vec<_>>>()?;
        let edges = edges
            .iter()
            .map(|row| {
                let r = relationship_from_row(row)?;
                Ok(GraphEdge {
                    id: r.id,
                    rel_type: r.rel_type,
                    source: r.source.slug.to_string(),
                    target: r.target.slug.to_string(),
                })
            })
            .collect::<Result<Vec<_>>>()?;
        Ok(GraphSnapshot { nodes, edges })
    }

    /// The relationships of an entity in both directions: current ones, or with `history` also the
    /// ended ones. Incoming edges are labelled with the type's inverse ("hosted-by").
    pub async fn relations(&self, key: &str, history: bool) -> Result<Vec<Relation>> {
        let mut conn = self.store().pool().acquire().await?;
        let entity = require_entity(&mut conn, key).await?;
        relations_in(&mut conn, &entity, history).await
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::graph::entities::NewEntity;
    use crate::testing::engine;
    use serde_json::json;

    async fn lab(eng: &Engine) {
        for (ty, name) in [("host", "strong"), ("host", "quiet"), ("lxc", "caddy"), ("lxc", "gitea")] {
            eng.create_entity(NewEntity::new(ty, name)).await.unwrap();
        }
    }

    #[tokio::test]
    async fn creating_twice_is_idempotent() {
        let (_dir, eng) = engine().await;
        lab(&eng).await;
        let (r1, created1) = eng.create_relationship("hosts", "host:strong", "lxc:caddy", &json!({})).await.unwrap();
        let (r2, created2) = eng.create_relationship("hosts", "host:strong", "lxc:caddy", &json!({})).await.unwrap();
        assert!(created1 && !created2);
        assert_eq!(r1.id, r2.id);
        let n: i64 =
            sqlx::query_scalar("SELECT count(*) FROM relationships").fetch_one(eng.store().pool()).await.unwrap();
        assert_eq!(n, 1);
    }

    #[tokio::test]
    async fn types_and_endpoints_are_validated() {
        let (_dir, eng) = engine().await;
        lab(&eng).await;
        let err = eng.create_relationship("hosts", "lxc:caddy", "host:strong", &json!({})).await.unwrap_err();
        assert!(err.to_string().contains("allowed source types: host"), "{err}");
        let err = eng.create_relationship("likes", "host:strong", "lxc:caddy", &json!({})).await.unwrap_err();
        assert!(err.to_string().contains("unknown relationship type `likes` (allowed:"), "{err}");
        let err = eng.create_relationship("depends-on", "lxc:caddy", "lxc:caddy", &json!({})).await.unwrap_err();
        assert!(err.to_string().contains("itself"), "{err}");
        let err = eng.create_relationship("depends-on", "lxc:caddy", "lxc:nope", &json!({})).await.unwrap_err();
        assert_eq!(err.to_string(), "entity `lxc:nope` not found");
    }

    #[tokio::test]
    async fn properties_merge_into_the_current_edge_and_announce_it() {
        let (_dir, eng) = engine().await;
        lab(&eng).await;
        eng.create_relationship("depends-on", "lxc:gitea", "lxc:caddy", &json!({"port": 443})).await.unwrap();
        let mut rx = eng.subscribe();
        let (r, created) =
            eng.create_relationship("depends-on", "lxc:gitea", "lxc:caddy", &json!({"why": "tls"})).await.unwrap();
        assert!(!created);
        assert_eq!(r.properties, json!({"port": 443, "why": "tls"}));
        let ev = rx.try_recv().unwrap();
        let nomos_types::Event::RelationshipUpdated(u) = ev.event else { panic!("{ev:?}") };
        assert_eq!(u.properties, json!({"port": 443, "why": "tls"}));
        assert_eq!(eng.relations("lxc:gitea", false).await.unwrap()[0].properties, r.properties);
        eng.create_relationship("depends-on", "lxc:gitea", "lxc:caddy", &json!({"why": "tls"})).await.unwrap();
        assert!(rx.try_recv().is_err(), "no change, no event");
    }

    #[tokio::test]
    async fn destroyed_entities_gain_no_relationships() {
        let (_dir, eng) = engine().await;
        lab(&eng).await;
        eng.set_entity_state("lxc:gitea", EntityState::Destroyed).await.unwrap();
        let err =
            eng.create_relationship("hosts", "host:strong", "lxc:gitea", &json!({})).await.unwrap_err().to_string();
        assert_eq!(err, "`lxc:gitea` is destroyed; it cannot gain relationships");
    }

    #[tokio::test]
    async fn cardinality_is_enforced() {
        let (_dir, eng) = engine().await;
        lab(&eng).await;
        eng.create_relationship("hosts", "host:strong", "lxc:caddy", &json!({})).await.unwrap();
        // An LXC has one host.
        let err = eng.create_relationship("hosts", "host:quiet", "lxc:caddy", &json!({})).await.unwrap_err();
        assert!(err.to_string().contains("one-to-many"), "{err}");
        // But a host has many guests.
        eng.create_relationship("hosts", "host:strong", "lxc:gitea", &json!({})).await.unwrap();
        // Many-to-one: a service runs on one machine.
        eng.create_entity(NewEntity::new("service", "web")).await.unwrap();
        eng.create_relationship("runs-on", "service:web", "lxc:caddy", &json!({})).await.unwrap();
        let err = eng.create_relationship("runs-on", "service:web", "lxc:gitea", &json!({})).await.unwrap_err();
        assert!(err.to_string().contains("many-to-one: service:web —runs-on→ lxc:caddy already exists"), "{err}");
    }

    #[tokio::test]
    async fn ending_keeps_history() {
        let (_dir, eng) = engine().await;
        lab(&eng).await;
        let mut rx = eng.subscribe();
        eng.create_relationship("hosts", "host:strong", "lxc:caddy", &json!({"since": "2024"})).await.unwrap();
        let ended = eng.end_relationship("hosts", "host:strong", "lxc:caddy").await.unwrap();
        assert!(ended.valid_to.is_some());
        assert!(eng.relations("lxc:caddy", false).await.unwrap().is_empty());
        let history = eng.relations("lxc:caddy", true).await.unwrap();
        assert_eq!(history.len(), 1);
        assert_eq!(history[0].label, "hosted-by");
        assert_eq!(history[0].direction, Direction::Incoming);
        assert_eq!(&*history[0].other.slug, "host:strong");
        assert!(history[0].valid_to.is_some());

        // Moving the LXC is now allowed, and re-creating a relationship makes a new row.
        eng.create_relationship("hosts", "host:quiet", "lxc:caddy", &json!({})).await.unwrap();
        eng.end_relationship("hosts", "host:quiet", "lxc:caddy").await.unwrap();
        eng.create_relationship("hosts", "host:strong", "lxc:caddy", &json!({})).await.unwrap();
        let history = eng.relations("lxc:caddy", true).await.unwrap();
        assert_eq!(history.len(), 3);
        let current = eng.relations("lxc:caddy", false).await.unwrap();
        assert_eq!(current.len(), 1);
        assert_eq!(&*current[0].other.slug, "host:strong");

        let err = eng.end_relationship("hosts", "host:quiet", "lxc:caddy").await.unwrap_err();
        assert!(matches!(err, Error::NotFound { .. }), "{err}");

        let kinds: Vec<String> = std::iter::from_fn(|| rx.try_recv().ok()).map(|e| e.kind().to_string()).collect();
        assert_eq!(
            kinds,
            [
                "relationship.created",
                "relationship.ended",
                "relationship.created",
                "relationship.ended",
                "relationship.created"
            ]
        );
    }

    #[tokio::test]
    async fn relations_show_both_directions() {
        let (_dir, eng) = engine().await;
        lab(&eng).await;
        eng.create_relationship("hosts", "host:strong", "lxc:caddy", &json!({})).await.unwrap();
        eng.create_relationship("depends-on", "lxc:gitea", "lxc:caddy", &json!({})).await.unwrap();
        let rels = eng.relations("lxc:caddy", false).await.unwrap();
        let labels: Vec<(String, String)> = rels.iter().map(|r| (r.label.clone(), r.other.slug.to_string())).collect();
        assert_eq!(
            labels,
            [
                ("depended-on-by".to_string(), "lxc:gitea".to_string()),
                ("hosted-by".to_string(), "host:strong".to_string())
            ]
        );
        let out = eng.relations("host:strong", false).await.unwrap();
        assert_eq!(out[0].direction, Direction::Outgoing);
        assert_eq!(out[0].label, "hosts");
    }

    #[tokio::test]
    async fn the_snapshot_holds_living_entities_and_current_edges() {
        let (_dir, eng) = engine().await;
        lab(&eng).await;
        eng.create_relationship("hosts", "host:strong", "lxc:caddy", &json!({})).await.unwrap();
        eng.create_relationship("hosts", "host:quiet", "lxc:gitea", &json!({})).await.unwrap();
        eng.create_relationship("depends-on", "lxc:gitea", "lxc:caddy", &json!({})).await.unwrap();
        eng.end_relationship("depends-on", "lxc:gitea", "lxc:caddy").await.unwrap();
        eng.set_entity_state("host:quiet", EntityState::Destroyed).await.unwrap();
        let snap = eng.graph_snapshot().await.unwrap();
        let slugs: Vec<&str> = snap.nodes.iter().map(|n| n.entity.slug.as_str()).collect();
        assert_eq!(slugs, ["host:strong", "lxc:caddy", "lxc:gitea"]);
        let edges: Vec<(&str, &str, &str)> =
            snap.edges.iter().map(|e| (e.source.as_str(), e.rel_type.as_str(), e.target.as_str())).collect();
        assert_eq!(edges, [("host:strong", "hosts", "lxc:caddy")]);
    }
}
