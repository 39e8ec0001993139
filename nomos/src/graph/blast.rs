//! Blast radius: everything that is affected, transitively, when an entity fails or is changed.
//!
//! A breadth-first walk over current relationships, held in memory (`graph::impact`) and rebuilt
//! from the database when it changed, in this process or another. Which relationship types
//! carry impact, and in which direction, comes from the ontology (`impact:`), so adding a type to
//! the ontology is enough to make the walk follow it. The walk is depth-bounded and visits each
//! entity once, so cycles end it instead of looping; each hit carries the edges of the shortest path
//! that reached it. Destroyed entities are never hit.

use nomos_types::BlastRadius;

use crate::{Engine, Error, Result};

pub const DEFAULT_DEPTH: u32 = 3;
pub const MAX_DEPTH: u32 = 10;

impl Engine {
    /// Everything that depends, transitively, on `key`, up to `depth` hops (default 3, at most 10),
    /// ordered by depth then slug.
    pub async fn blast_radius(&self, key: &str, depth: Option<u32>) -> Result<BlastRadius> {
        let depth = depth.unwrap_or(DEFAULT_DEPTH);
        if depth == 0 || depth > MAX_DEPTH {
            return Err(Error::Invalid(format!("depth must be between 1 and {MAX_DEPTH}")));
        }
        let walked = self
            .impact
            .read(self.store().pool(), self.ontology(), |graph| {
                let root = graph.find(key)?;
                Some(BlastRadius { root: graph.entity(root), depth, hits: graph.walk(root, depth) })
            })
            .await?;
        walked.ok_or_else(|| Error::not_found("entity", key))
    }
}

#[cfg(test)]
mod tests {
    use std::collections::HashMap;

    use super::*;
    use crate::graph::entities::NewEntity;
    use crate::testing::engine;
    use nomos_types::{BlastHit, EntityRef, EntityState, PathEdge};
    use serde_json::json;
    use sqlx::Row;

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
        b.hits.iter().map(|h| (h.depth, h.entity.slug.to_string())).collect()
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
        let worker = b.hits.iter().find(|h| &*h.entity.slug == "service:worker").unwrap();
        let path: Vec<(&str, &str, &str)> =
            worker.path.iter().map(|e| (&*e.rel_type, &*e.source, &*e.target)).collect();
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

    /// The walk as it was done before the graph was held in memory: one SQL query per level. Kept
    /// here as the reference the in-memory walk must match exactly.
    async fn sql_walk(eng: &Engine, key: &str, depth: u32) -> BlastRadius {
        const LEVEL_SQL: &str = "
            SELECT r.type, r.source_id AS cause_id, 1 AS forward, a.id, a.slug, a.type AS a_type, a.name
              FROM relationships r JOIN entities a ON a.id = r.target_id
             WHERE r.valid_to IS NULL
               AND r.source_id IN (SELECT value FROM json_each(?1))
               AND r.type IN (SELECT value FROM json_each(?2))
               AND a.state NOT IN ('destroyed', 'gone')
            UNION ALL
            SELECT r.type, r.target_id, 0, a.id, a.slug, a.type, a.name
              FROM relationships r JOIN entities a ON a.id = r.source_id
             WHERE r.valid_to IS NULL
               AND r.target_id IN (SELECT value FROM json_each(?1))
               AND r.type IN (SELECT value FROM json_each(?3))
               AND a.state NOT IN ('destroyed', 'gone')";
        struct Visit {
            entity: EntityRef,
            depth: u32,
            via: Option<(String, PathEdge)>,
        }
        let mut conn = eng.store().pool().acquire().await.unwrap();
        let root = crate::graph::require_entity(&mut conn, key).await.unwrap();
        let (forward, backward) = eng.ontology().impact_types();
        let forward = serde_json::to_string(&forward).unwrap();
        let backward = serde_json::to_string(&backward).unwrap();
        let mut visits: HashMap<String, Visit> = HashMap::new();
        let root_ref = EntityRef::new(root.id.clone(), root.slug.clone(), root.entity_type, root.name);
        visits.insert(root.id.clone(), Visit { entity: root_ref.clone(), depth: 0, via: None });
        let mut frontier = vec![root.id.clone()];
        for level in 1..=depth {
            let ids = serde_json::to_string(&frontier).unwrap();
            let rows =
                sqlx::query(LEVEL_SQL).bind(&ids).bind(&forward).bind(&backward).fetch_all(&mut *conn).await.unwrap();
            let mut found: Vec<(String, bool, String, EntityRef)> = rows
                .iter()
                .map(|row| {
                    let text = |column: &str| row.get::<String, _>(column);
                    let affected = EntityRef::new(text("id"), text("slug"), text("a_type"), text("name"));
                    (row.get("cause_id"), row.get("forward"), row.get("type"), affected)
                })
                .collect();
            found.sort_by(|a, b| (&a.3.slug, &a.2, &a.0).cmp(&(&b.3.slug, &b.2, &b.0)));
            let mut next = Vec::new();
            for (cause_id, forward, rel_type, affected) in found {
                if visits.contains_key(&*affected.id) {
                    continue;
                }
                let cause_slug = visits[&cause_id].entity.slug.clone();
                let edge = if forward {
                    PathEdge { rel_type: rel_type.into(), source: cause_slug, target: affected.slug.clone() }
                } else {
                    PathEdge { rel_type: rel_type.into(), source: affected.slug.clone(), target: cause_slug }
                };
                next.push(affected.id.to_string());
                visits.insert(
                    affected.id.to_string(),
                    Visit { entity: affected, depth: level, via: Some((cause_id, edge)) },
                );
            }
            frontier = next;
        }
        let mut hits: Vec<BlastHit> = visits
            .values()
            .filter(|v| v.depth > 0)
            .map(|v| {
                let mut path = Vec::new();
                let mut cur = v;
                while let Some((parent, edge)) = &cur.via {
                    path.push(edge.clone());
                    cur = &visits[parent];
                }
                path.reverse();
                BlastHit { entity: v.entity.clone(), depth: v.depth, path }
            })
            .collect();
        hits.sort_by(|a, b| (a.depth, &a.entity.slug).cmp(&(b.depth, &b.entity.slug)));
        BlastRadius { root: root_ref, depth, hits }
    }

    /// xorshift64*: the same graphs on every run.
    struct Rng(u64);

    impl Rng {
        fn below(&mut self, n: usize) -> usize {
            self.0 ^= self.0 >> 12;
            self.0 ^= self.0 << 25;
            self.0 ^= self.0 >> 27;
            (self.0.wrapping_mul(0x2545_F491_4F6C_DD1D) % n as u64) as usize
        }
    }

    /// Impact types of both directions, types without impact, and a dense graph so that entities
    /// are often reached over several edges at the same level (which one wins is part of the result).
    const REL_TYPES: [&str; 6] = ["hosts", "runs-on", "depends-on", "routes-to", "documents", "involves"];

    async fn random_graph(eng: &Engine, rng: &mut Rng, entities: usize, edges: usize) -> Vec<String> {
        let mut tx = eng.store().begin_write().await.unwrap();
        let mut slugs = Vec::new();
        for i in 0..entities {
            let ty = ["host", "lxc", "vm", "service"][rng.below(4)];
            let slug = format!("{ty}:e{}", rng.below(1000) * 100 + i);
            let state = if rng.below(8) == 0 { "destroyed" } else { "active" };
            sqlx::query("INSERT INTO entities (id, slug, type, name, state) VALUES (?, ?, ?, ?, ?)")
                .bind(crate::graph::new_id())
                .bind(&slug)
                .bind(ty)
                .bind(format!("E {i}"))
                .bind(state)
                .execute(&mut *tx)
                .await
                .unwrap();
            slugs.push(slug);
        }
        for _ in 0..edges {
            add_random_edge(&mut tx, rng, &slugs).await;
        }
        tx.commit().await.unwrap();
        slugs
    }

    async fn add_random_edge(tx: &mut crate::store::WriteTx, rng: &mut Rng, slugs: &[String]) {
        let (s, t) = (rng.below(slugs.len()), rng.below(slugs.len()));
        if s == t {
            return;
        }
        // Some edges are history: ended, so they must carry no impact.
        let ended = if rng.below(6) == 0 { "'2021-01-01T00:00:00.000Z'" } else { "NULL" };
        let sql = format!(
            "INSERT OR IGNORE INTO relationships (id, type, source_id, target_id, valid_from, valid_to)
             SELECT ?, ?, s.id, t.id, '2020-01-01T00:00:00.000Z', {ended}
               FROM entities s, entities t WHERE s.slug = ? AND t.slug = ?"
        );
        sqlx::query(&sql)
            .bind(crate::graph::new_id())
            .bind(REL_TYPES[rng.below(REL_TYPES.len())])
            .bind(&slugs[s])
            .bind(&slugs[t])
            .execute(&mut **tx)
            .await
            .unwrap();
    }

    async fn assert_same_as_sql_walk(eng: &Engine, slugs: &[String]) {
        for slug in slugs {
            for depth in [1, 2, 3, 5] {
                let expected = sql_walk(eng, slug, depth).await;
                let got = eng.blast_radius(slug, Some(depth)).await.unwrap();
                assert_eq!(got, expected, "{slug} at depth {depth}");
            }
        }
    }

    #[tokio::test]
    async fn matches_the_sql_walk_on_random_graphs_before_and_after_changes_elsewhere() {
        for seed in 1..=4u64 {
            let (dir, eng) = engine().await;
            let mut rng = Rng(0x9E37_79B9_7F4A_7C15 ^ seed);
            let slugs = random_graph(&eng, &mut rng, 40, 160).await;
            assert_same_as_sql_walk(&eng, &slugs).await;
            // Another engine on the same file changes the graph; the first one must follow.
            let other = Engine::open(&dir.path().join("oikos.db")).await.unwrap();
            for _ in 0..3 {
                let mut tx = other.store().begin_write().await.unwrap();
                for _ in 0..10 {
                    add_random_edge(&mut tx, &mut rng, &slugs).await;
                }
                sqlx::query(
                    "UPDATE relationships SET valid_to = '2022-01-01T00:00:00.000Z'
                      WHERE id IN (SELECT id FROM relationships WHERE valid_to IS NULL ORDER BY id LIMIT 5)",
                )
                .execute(&mut *tx)
                .await
                .unwrap();
                let flip = &slugs[rng.below(slugs.len())];
                sqlx::query(
                    "UPDATE entities SET state = CASE state WHEN 'destroyed' THEN 'active' ELSE 'destroyed' END
                      WHERE slug = ?",
                )
                .bind(flip)
                .execute(&mut *tx)
                .await
                .unwrap();
                tx.commit().await.unwrap();
                assert_same_as_sql_walk(&eng, &slugs).await;
            }
        }
    }

    async fn graph_version(eng: &Engine) -> i64 {
        sqlx::query_scalar("SELECT version FROM graph_version").fetch_one(eng.store().pool()).await.unwrap()
    }

    #[tokio::test]
    async fn a_second_engine_on_the_same_file_is_seen_by_the_next_blast_radius() {
        let (dir, eng) = engine().await;
        graph(&eng).await;
        let all = [
            (1, "lxc:db".to_string()),
            (1, "lxc:web".to_string()),
            (2, "service:app".to_string()),
            (2, "service:postgres".to_string()),
            (3, "service:worker".to_string()),
        ];
        assert_eq!(summary(&eng.blast_radius("host:strong", None).await.unwrap()), all);
        let builds = eng.impact.builds();

        // Stands in for another process: its own pool and its own in-memory graph.
        let other = Engine::open(&dir.path().join("oikos.db")).await.unwrap();
        assert_eq!(summary(&other.blast_radius("host:strong", None).await.unwrap()), all);

        // What does not change who is affected leaves the graph as it is.
        let version = graph_version(&eng).await;
        other.merge_attributes("lxc:web", &json!({"ip": "10.0.0.9"})).await.unwrap();
        other.record_health("lxc:web", nomos_types::Health::Down, "gone").await.unwrap();
        other
            .create_relationship("depends-on", "service:app", "service:postgres", &json!({"port": 5432}))
            .await
            .unwrap();
        assert_eq!(graph_version(&eng).await, version);
        assert_eq!(summary(&eng.blast_radius("host:strong", None).await.unwrap()), all);
        assert_eq!(eng.impact.builds(), builds, "no rebuild without a relevant change");

        // An ended relationship drops out.
        other.end_relationship("hosts", "host:strong", "lxc:web").await.unwrap();
        assert_eq!(
            summary(&eng.blast_radius("host:strong", None).await.unwrap()),
            [(1, "lxc:db".to_string()), (2, "service:postgres".to_string()), (3, "service:app".to_string())]
        );
        // A new entity is found as a root and as a hit.
        other.create_entity(NewEntity::new("lxc", "cache")).await.unwrap();
        other.create_relationship("hosts", "host:strong", "lxc:cache", &json!({})).await.unwrap();
        assert!(eng.blast_radius("lxc:cache", None).await.unwrap().hits.is_empty());
        let b = eng.blast_radius("host:strong", Some(1)).await.unwrap();
        assert_eq!(summary(&b), [(1, "lxc:cache".to_string()), (1, "lxc:db".to_string())]);
        // A destroyed entity is no longer hit, and nothing is reached through it.
        other.set_entity_state("lxc:db", EntityState::Destroyed).await.unwrap();
        assert_eq!(summary(&eng.blast_radius("host:strong", None).await.unwrap()), [(1, "lxc:cache".to_string())]);
        // A renamed entity is reported under its new name.
        other.upsert_entity(NewEntity::new("lxc", "Cache Two").slug("lxc:cache")).await.unwrap();
        let b = eng.blast_radius("host:strong", None).await.unwrap();
        assert_eq!(&*b.hits[0].entity.name, "Cache Two");
        // A deleted entity is gone as a root.
        sqlx::query("DELETE FROM entities WHERE slug = 'service:unrelated'")
            .execute(other.store().pool())
            .await
            .unwrap();
        let err = eng.blast_radius("service:unrelated", None).await.unwrap_err();
        assert_eq!(err.to_string(), "entity `service:unrelated` not found");
        // A closed store answers no more blast radii.
        eng.store().close().await;
        assert!(eng.blast_radius("host:strong", None).await.is_err());
    }

    #[tokio::test]
    async fn entities_are_found_by_id_as_well_as_slug() {
        let (_dir, eng) = engine().await;
        graph(&eng).await;
        let host = eng.entity("host:strong").await.unwrap();
        assert_eq!(
            eng.blast_radius(&host.id, None).await.unwrap(),
            eng.blast_radius("host:strong", None).await.unwrap()
        );
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 4)]
    async fn concurrent_callers_share_one_rebuild() {
        let (_dir, eng) = engine().await;
        graph(&eng).await;
        eng.blast_radius("host:strong", None).await.unwrap();
        eng.end_relationship("hosts", "host:strong", "lxc:web").await.unwrap();
        let before = eng.impact.builds();
        let callers: Vec<_> = (0..16)
            .map(|_| {
                let eng = eng.clone();
                tokio::spawn(async move { eng.blast_radius("host:strong", None).await.unwrap() })
            })
            .collect();
        for caller in callers {
            assert_eq!(caller.await.unwrap().hits.len(), 3);
        }
        assert_eq!(eng.impact.builds(), before + 1);
    }

    /// A writer elsewhere swaps one whole chain for another in single transactions; every blast
    /// radius read meanwhile shows one chain or the other, never a mixture of the two.
    #[tokio::test(flavor = "multi_thread", worker_threads = 4)]
    async fn readers_see_whole_states_while_another_engine_writes() {
        let (dir, eng) = engine().await;
        for name in ["h", "a", "b"] {
            add(&eng, "host", name).await;
        }
        for name in ["a1", "b1"] {
            add(&eng, "lxc", name).await;
        }
        for name in ["a2", "b2"] {
            add(&eng, "service", name).await;
        }
        link(&eng, "depends-on", "lxc:a1", "host:h").await;
        link(&eng, "runs-on", "service:a2", "lxc:a1").await;
        let chain_a = [(1, "lxc:a1".to_string()), (2, "service:a2".to_string())];
        let chain_b = [(1, "lxc:b1".to_string()), (2, "service:b2".to_string())];
        let other = Engine::open(&dir.path().join("oikos.db")).await.unwrap();
        let writer = tokio::spawn(async move {
            for round in 0..60 {
                let (from, to) = if round % 2 == 0 { ("a", "b") } else { ("b", "a") };
                let mut tx = other.store().begin_write().await.unwrap();
                sqlx::query(
                    "UPDATE relationships SET valid_to = valid_from
                      WHERE valid_to IS NULL AND source_id IN (SELECT id FROM entities WHERE slug IN (?, ?))",
                )
                .bind(format!("lxc:{from}1"))
                .bind(format!("service:{from}2"))
                .execute(&mut *tx)
                .await
                .unwrap();
                for (ty, s, t) in [
                    ("depends-on", format!("lxc:{to}1"), "host:h".to_string()),
                    ("runs-on", format!("service:{to}2"), format!("lxc:{to}1")),
                ] {
                    sqlx::query(
                        "INSERT INTO relationships (id, type, source_id, target_id)
                         SELECT ?, ?, s.id, t.id FROM entities s, entities t WHERE s.slug = ? AND t.slug = ?",
                    )
                    .bind(crate::graph::new_id())
                    .bind(ty)
                    .bind(s)
                    .bind(t)
                    .execute(&mut *tx)
                    .await
                    .unwrap();
                }
                tx.commit().await.unwrap();
                tokio::task::yield_now().await;
            }
        });
        let (mut seen_a, mut seen_b) = (0, 0);
        while !writer.is_finished() {
            let s = summary(&eng.blast_radius("host:h", None).await.unwrap());
            if s == chain_a {
                seen_a += 1;
            } else if s == chain_b {
                seen_b += 1;
            } else {
                panic!("a mixture of two states: {s:?}");
            }
        }
        writer.await.unwrap();
        assert!(seen_a + seen_b > 0);
        assert_eq!(summary(&eng.blast_radius("host:h", None).await.unwrap()), chain_a);
    }
}
