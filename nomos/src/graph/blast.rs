//! Blast radius: everything that is affected, transitively, when an entity fails or is changed.
//!
//! A breadth-first walk over current relationships, one query per level. Which relationship types
//! carry impact, and in which direction, comes from the ontology (`impact:`), so adding a type to
//! the ontology is enough to make the walk follow it. The walk is depth-bounded and visits each
//! entity once, so cycles end it instead of looping; each hit carries the edges of the shortest path
//! that reached it.

use std::collections::HashMap;

use nomos_types::{BlastHit, BlastRadius, EntityRef, PathEdge};
use sqlx::Row;

use super::{entity_ref, require_entity};
use crate::{Engine, Error, Result};

pub const DEFAULT_DEPTH: u32 = 3;
pub const MAX_DEPTH: u32 = 10;

/// One level of the walk: edges leaving the frontier in their impact direction. `?1` is the
/// frontier (JSON array of ids), `?2` the source-to-target types, `?3` the target-to-source types.
const LEVEL_SQL: &str = "
    SELECT r.type, r.source_id AS cause_id, 1 AS forward, a.id, a.slug, a.type AS a_type, a.name
      FROM relationships r JOIN entities a ON a.id = r.target_id
     WHERE r.valid_to IS NULL
       AND r.source_id IN (SELECT value FROM json_each(?1))
       AND r.type IN (SELECT value FROM json_each(?2))
       AND a.state <> 'destroyed'
    UNION ALL
    SELECT r.type, r.target_id, 0, a.id, a.slug, a.type, a.name
      FROM relationships r JOIN entities a ON a.id = r.source_id
     WHERE r.valid_to IS NULL
       AND r.target_id IN (SELECT value FROM json_each(?1))
       AND r.type IN (SELECT value FROM json_each(?3))
       AND a.state <> 'destroyed'";

struct Visit {
    entity: EntityRef,
    depth: u32,
    /// The entity that reached this one and the edge it came over.
    via: Option<(String, PathEdge)>,
}

impl Engine {
    /// Everything that depends, transitively, on `key`, up to `depth` hops (default 3, at most 10),
    /// ordered by depth then slug.
    pub async fn blast_radius(&self, key: &str, depth: Option<u32>) -> Result<BlastRadius> {
        let depth = depth.unwrap_or(DEFAULT_DEPTH);
        if depth == 0 || depth > MAX_DEPTH {
            return Err(Error::Invalid(format!("depth must be between 1 and {MAX_DEPTH}")));
        }
        let mut conn = self.store().pool().acquire().await?;
        let root = require_entity(&mut conn, key).await?;
        let (forward, backward) = self.ontology().impact_types();
        let forward = serde_json::to_string(&forward).unwrap_or_else(|_| "[]".into());
        let backward = serde_json::to_string(&backward).unwrap_or_else(|_| "[]".into());

        let mut visits: HashMap<String, Visit> = HashMap::new();
        visits.insert(root.id.clone(), Visit { entity: entity_ref(&root), depth: 0, via: None });
        let mut frontier = vec![root.id.clone()];
        for level in 1..=depth {
            if frontier.is_empty() {
                break;
            }
            let ids = serde_json::to_string(&frontier).unwrap_or_else(|_| "[]".into());
            let rows = sqlx::query(LEVEL_SQL).bind(&ids).bind(&forward).bind(&backward).fetch_all(&mut *conn).await?;
            let mut found = Vec::with_capacity(rows.len());
            for row in &rows {
                let cause_id: String = row.try_get("cause_id")?;
                let forward: bool = row.try_get("forward")?;
                let affected = EntityRef {
                    id: row.try_get("id")?,
                    slug: row.try_get("slug")?,
                    entity_type: row.try_get("a_type")?,
                    name: row.try_get("name")?,
                };
                found.push((cause_id, forward, row.try_get::<String, _>("type")?, affected));
            }
            // Deterministic: the same graph always yields the same paths.
            found.sort_by(|a, b| (&a.3.slug, &a.2, &a.0).cmp(&(&b.3.slug, &b.2, &b.0)));
            let mut next = Vec::new();
            for (cause_id, forward, rel_type, affected) in found {
                if visits.contains_key(&affected.id) {
                    continue;
                }
                let Some(cause) = visits.get(&cause_id) else { continue };
                let cause_slug = cause.entity.slug.clone();
                let edge = if forward {
                    PathEdge { rel_type, source: cause_slug, target: affected.slug.clone() }
                } else {
                    PathEdge { rel_type, source: affected.slug.clone(), target: cause_slug }
                };
                next.push(affected.id.clone());
                visits
                    .insert(affected.id.clone(), Visit { entity: affected, depth: level, via: Some((cause_id, edge)) });
            }
            frontier = next;
        }

        let mut hits: Vec<BlastHit> = visits
            .values()
            .filter(|v| v.depth > 0)
            .map(|v| BlastHit { entity: v.entity.clone(), depth: v.depth, path: path_to(&visits, v) })
            .collect();
        hits.sort_by(|a, b| (a.depth, &a.entity.slug).cmp(&(b.depth, &b.entity.slug)));
        Ok(BlastRadius { root: entity_ref(&root), depth, hits })
    }
}

fn path_to(visits: &HashMap<String, Visit>, v: &Visit) -> Vec<PathEdge> {
    let mut path = Vec::with_capacity(v.depth as usize);
    let mut cur = v;
    while let Some((parent, edge)) = &cur.via {
        path.push(edge.clone());
        match visits.get(parent) {
            Some(p) => cur = p,
            None => break,
        }
    }
    path.reverse();
    path
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::graph::entities::NewEntity;
    use crate::testing::engine;
    use nomos_types::EntityState;
    use serde_json::json;

    async fn add(eng: &Engine, ty: &str, name: &str) {
        eng.create_entity(NewEntity::new(ty, name)).await.unwrap();
    }

    async fn link(eng: &Engine, rel: &str, s: &str, t: &str) {
        eng.create_relationship(rel, s, t, &json!({})).await.unwrap();
    }

    /// host:strong hosts lxc:db and lxc:web; service:postgres runs on lxc:db; service:app runs on
    /// lxc:web and depends on postgres; service:proxy routes to app; app and worker depend on each
    /// other (a cycle); a knowledge note documents the host (bookkeeping, carries no impact).
    async fn graph(eng: &Engine) {
        for (ty, name) in [
            ("host", "strong"),
            ("lxc", "db"),
            ("lxc", "web"),
            ("service", "postgres"),
            ("service", "app"),
            ("service", "worker"),
            ("service", "proxy"),
            ("service", "unrelated"),
            ("document", "strong notes"),
        ] {
            add(eng, ty, name).await;
        }
        link(eng, "hosts", "host:strong", "lxc:db").await;
        link(eng, "hosts", "host:strong", "lxc:web").await;
        link(eng, "runs-on", "service:postgres", "lxc:db").await;
        link(eng, "runs-on", "service:app", "lxc:web").await;
        link(eng, "depends-on", "service:app", "service:postgres").await;
        link(eng, "depends-on", "service:worker", "service:app").await;
        link(eng, "depends-on", "service:app", "service:worker").await;
        link(eng, "routes-to", "service:proxy", "service:app").await;
        link(eng, "documents", "document:strong-notes", "host:strong").await;
    }

    fn summary(b: &BlastRadius) -> Vec<(u32, String)> {
        b.hits.iter().map(|h| (h.depth, h.entity.slug.clone())).collect()
    }

    #[tokio::test]
    async fn walks_impact_edges_in_their_direction_with_paths() {
        let (_dir, eng) = engine().await;
        graph(&eng).await;
        let b = eng.blast_radius("host:strong", None).await.unwrap();
        assert_eq!(b.depth, 3);
        assert_eq!(
            summary(&b),
            [
                (1, "lxc:db".to_string()),
                (1, "lxc:web".to_string()),
                (2, "service:app".to_string()),
                (2, "service:postgres".to_string()),
                (3, "service:worker".to_string()),
            ]
        );
        let worker = b.hits.iter().find(|h| h.entity.slug == "service:worker").unwrap();
        let path: Vec<(&str, &str, &str)> =
            worker.path.iter().map(|e| (e.rel_type.as_str(), e.source.as_str(), e.target.as_str())).collect();
        assert_eq!(
            path,
            [
                ("hosts", "host:strong", "lxc:web"),
                ("runs-on", "service:app", "lxc:web"),
                ("depends-on", "service:worker", "service:app"),
            ]
        );
        // Routing is source-to-target: the proxy is not hurt when the app goes, and vice versa.
        assert!(!summary(&b).iter().any(|(_, s)| s == "service:proxy"));
    }

    #[tokio::test]
    async fn cycles_terminate_and_depth_bounds() {
        let (_dir, eng) = engine().await;
        graph(&eng).await;
        // app <-> worker is a cycle: each appears once, the root never appears as a hit.
        let b = eng.blast_radius("service:app", Some(10)).await.unwrap();
        assert_eq!(summary(&b), [(1, "service:worker".to_string())]);
        let b = eng.blast_radius("service:postgres", Some(1)).await.unwrap();
        assert_eq!(summary(&b), [(1, "service:app".to_string())]);
        let b = eng.blast_radius("service:postgres", Some(2)).await.unwrap();
        assert_eq!(summary(&b), [(1, "service:app".to_string()), (2, "service:worker".to_string())]);
        let b = eng.blast_radius("service:proxy", None).await.unwrap();
        assert_eq!(summary(&b), [(1, "service:app".to_string()), (2, "service:worker".to_string())]);
        assert!(eng.blast_radius("service:unrelated", None).await.unwrap().hits.is_empty());
        assert!(eng.blast_radius("host:strong", Some(0)).await.is_err());
        assert!(eng.blast_radius("host:strong", Some(11)).await.is_err());
        assert!(eng.blast_radius("host:gone", None).await.is_err());
    }

    #[tokio::test]
    async fn ended_edges_and_destroyed_entities_carry_no_impact() {
        let (_dir, eng) = engine().await;
        graph(&eng).await;
        eng.end_relationship("hosts", "host:strong", "lxc:web").await.unwrap();
        eng.set_entity_state("lxc:db", EntityState::Destroyed).await.unwrap();
        let b = eng.blast_radius("host:strong", None).await.unwrap();
        assert!(b.hits.is_empty(), "{:?}", summary(&b));
    }

    #[tokio::test]
    async fn impact_comes_from_the_ontology_not_the_code() {
        let dir = tempfile::tempdir().unwrap();
        let store = crate::Store::open(&dir.path().join("o.db")).await.unwrap();
        // Same types, but here `hosts` carries no impact and `documents` does.
        let yaml = crate::graph::ontology::BUILTIN_YAML
            .replace(
                "    cardinality: one-to-many\n    impact: source-to-target\n    description: A Proxmox node runs a guest.",
                "    cardinality: one-to-many\n    impact: none\n    description: A Proxmox node runs a guest.",
            )
            .replace(
                "    cardinality: many-to-many\n    impact: none\n    description: A knowledge note describes an entity.",
                "    cardinality: many-to-many\n    impact: target-to-source\n    description: A knowledge note describes an entity.",
            );
        let onto = crate::Ontology::from_yaml(&yaml).unwrap();
        assert_ne!(onto, crate::Ontology::builtin().unwrap());
        let eng = Engine::with_store(store, onto).await.unwrap();
        graph(&eng).await;
        let b = eng.blast_radius("host:strong", None).await.unwrap();
        assert_eq!(summary(&b), [(1, "document:strong-notes".to_string())]);
    }
}
