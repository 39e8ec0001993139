//! The impact graph: the part of the knowledge graph the blast radius walks, held in memory.
//!
//! It holds every entity (for the root and the result's references) and, per entity, the current
//! relationships along which impact leaves it, already turned into their impact direction by the
//! ontology; edges into destroyed entities are left out, since a destroyed entity is never hit.
//!
//! A graph is built from one read snapshot of the database together with the `graph_version`
//! counter of that snapshot (kept by triggers, see migration 0010). Each use reads the counter
//! again — one tiny query, so a change made by any process writing the same file is seen — and a
//! graph whose version differs is rebuilt. A built graph is never changed: a new one replaces it
//! whole, so a reader holds either the old or the new graph, never a half-built one, and only one
//! caller rebuilds at a time while the others wait for its result.

use std::borrow::Cow;
use std::collections::HashMap;
use std::fmt;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError, RwLock};

use nomos_types::{BlastHit, EntityRef, PathEdge};
use serde::Deserialize;
use sqlx::{ConnectOptions, SqliteConnection, SqlitePool};

use crate::{Error, Ontology, Result};

/// The counter of changes relevant to the blast radius, as of the reader's snapshot.
const VERSION_SQL: &str = "SELECT version FROM graph_version WHERE id = 1";

/// An entity's index in [`ImpactGraph::nodes`]. Nodes are sorted by id, so comparing indexes
/// compares ids.
type NodeIx = u32;

#[derive(Debug, Clone, Copy)]
struct Edge {
    /// The entity that is affected when the edge's cause is.
    to: NodeIx,
    /// Index into [`ImpactGraph::rel_types`] (sorted, so comparing indexes compares names).
    rel: u32,
    /// Whether impact travels from the relationship's source to its target (else the reverse).
    forward: bool,
}

/// An entity reached by a walk, and how.
#[derive(Debug, Clone, Copy)]
struct Reach {
    node: NodeIx,
    depth: u32,
    /// The entity whose edge reached this one, and its index among the reached.
    cause: NodeIx,
    parent: u32,
    rel: u32,
    forward: bool,
}

/// A walk's working memory. Reusing it spares each walk clearing an array the size of the graph,
/// and keeps the walk's large allocations (and the allocator's upkeep they trigger) to the one
/// vector it returns.
#[derive(Debug, Default)]
struct Scratch {
    /// 1 + a node's index in `reached`; 0 while unreached (and for every node between walks).
    slot: Vec<u32>,
    reached: Vec<Reach>,
    /// (slug rank, index in `reached`) per hit, sorted within each level.
    order: Vec<(u32, usize)>,
    /// A hit's position in `order` (and `hits`), by its index in `reached`.
    position: Vec<usize>,
    hits: Vec<BlastHit>,
}

/// An entity as read for the graph: id, slug, type, name, destroyed (0 or 1).
type EntityRow = (String, String, String, String, u8);

/// A current impact relationship as read for the graph: type, source id, target id.
#[derive(Deserialize)]
struct RelationshipRow<'a>(#[serde(borrow)] Cow<'a, str>, #[serde(borrow)] Cow<'a, str>, #[serde(borrow)] Cow<'a, str>);

/// One immutable snapshot of the impact graph.
#[derive(Debug)]
pub(crate) struct ImpactGraph {
    version: i64,
    /// Every entity's short form, by node index. A walk's result shares their text (`Arc<str>`)
    /// instead of copying it: a hit costs reference counts, not allocations.
    nodes: Vec<EntityRef>,
    /// Rank of each node's slug among all slugs, for ordering hits without comparing strings.
    slug_rank: Vec<u32>,
    by_slug: HashMap<String, NodeIx>,
    by_id: HashMap<String, NodeIx>,
    /// The edges leaving node `i` are `edges[offsets[i]..offsets[i + 1]]`.
    offsets: Vec<u32>,
    edges: Vec<Edge>,
    rel_types: Vec<Arc<str>>,
    /// Working memory of finished walks, reused by the next ones.
    scratch: Mutex<Vec<Scratch>>,
}

impl ImpactGraph {
    /// Reads entities and current impact edges from one snapshot, with that snapshot's version.
    async fn load(pool: &SqlitePool, ontology: &Ontology) -> Result<ImpactGraph> {
        let (forward, backward) = ontology.impact_types();
        let mut rel_types: Vec<String> = forward.iter().chain(&backward).cloned().collect();
        rel_types.sort();
        rel_types.dedup();

        // A deferred read transaction: every read below sees the same committed state. Each table
        // comes back as one JSON array built by SQLite: far cheaper than a row at a time.
        let mut read = pool.begin().await?;
        let version: i64 = sqlx::query_scalar(VERSION_SQL).fetch_one(&mut *read).await?;
        let entities: String = sqlx::query_scalar(
            "SELECT json_group_array(json_array(id, slug, type, name, state IN ('destroyed', 'gone'))) FROM entities",
        )
        .fetch_one(&mut *read)
        .await?;
        // Types without impact are skipped while building: filtering them here costs SQLite more
        // than the scan itself.
        let relationships: String = sqlx::query_scalar(
            "SELECT json_group_array(json_array(type, source_id, target_id)) FROM relationships
              WHERE valid_to IS NULL",
        )
        .fetch_one(&mut *read)
        .await?;
        read.commit().await?;
        ImpactGraph::build(version, rel_types, &forward, &entities, &relationships)
    }

    fn build(
        version: i64,
        rel_types: Vec<String>,
        forward: &[String],
        entities: &str,
        relationships: &str,
    ) -> Result<ImpactGraph> {
        let unreadable =
            |e: serde_json::Error| Error::Invalid(format!("cannot read the graph for the blast radius: {e}"));
        let too_big = || Error::Invalid("the graph is too large for the blast radius".into());
        let mut entities: Vec<EntityRow> = serde_json::from_str(entities).map_err(unreadable)?;
        let relationships: Vec<RelationshipRow<'_>> = serde_json::from_str(relationships).map_err(unreadable)?;
        let rel_forward: Vec<bool> = rel_types.iter().map(|t| forward.contains(t)).collect();

        entities.sort_unstable_by(|a, b| a.0.cmp(&b.0));
        let mut by_slug_order: Vec<usize> = (0..entities.len()).collect();
        by_slug_order.sort_unstable_by(|&a, &b| entities[a].1.cmp(&entities[b].1));
        let mut slug_rank = vec![0u32; entities.len()];
        for (rank, &i) in by_slug_order.iter().enumerate() {
            slug_rank[i] = u32::try_from(rank).map_err(|_| too_big())?;
        }
        let destroyed: Vec<bool> = entities.iter().map(|e| e.4 != 0).collect();
        let mut nodes = Vec::with_capacity(entities.len());
        let mut by_id = HashMap::with_capacity(entities.len());
        let mut by_slug = HashMap::with_capacity(entities.len());
        for (i, (id, slug, entity_type, name, _)) in entities.into_iter().enumerate() {
            let i = u32::try_from(i).map_err(|_| too_big())?;
            nodes.push(EntityRef::new(id.as_str(), slug.as_str(), entity_type, name));
            by_id.insert(id, i);
            by_slug.insert(slug, i);
        }

        // (cause, edge) pairs, then grouped by cause.
        let mut pairs: Vec<(NodeIx, Edge)> = Vec::with_capacity(relationships.len());
        for RelationshipRow(rel_type, source_id, target_id) in &relationships {
            let (Some(&source), Some(&target)) = (by_id.get(source_id.as_ref()), by_id.get(target_id.as_ref())) else {
                continue;
            };
            let Ok(rel) = rel_types.binary_search_by(|t| t.as_str().cmp(rel_type)) else { continue };
            let rel = u32::try_from(rel).map_err(|_| too_big())?;
            if rel_forward[rel as usize] {
                if !destroyed[target as usize] {
                    pairs.push((source, Edge { to: target, rel, forward: true }));
                }
            } else if !destroyed[source as usize] {
                pairs.push((target, Edge { to: source, rel, forward: false }));
            }
        }
        if u32::try_from(pairs.len()).is_err() {
            return Err(too_big());
        }
        let mut offsets = vec![0u32; nodes.len() + 1];
        for (cause, _) in &pairs {
            offsets[*cause as usize + 1] += 1;
        }
        for i in 0..nodes.len() {
            offsets[i + 1] += offsets[i];
        }
        let mut fill = offsets.clone();
        let mut edges = vec![Edge { to: 0, rel: 0, forward: true }; pairs.len()];
        for (cause, edge) in pairs {
            let slot = &mut fill[cause as usize];
            edges[*slot as usize] = edge;
            *slot += 1;
        }
        let rel_types = rel_types.into_iter().map(Arc::from).collect();
        Ok(ImpactGraph {
            version,
            nodes,
            slug_rank,
            by_slug,
            by_id,
            offsets,
            edges,
            rel_types,
            scratch: Mutex::default(),
        })
    }

    /// Finds an entity by slug or id.
    pub(crate) fn find(&self, key: &str) -> Option<NodeIx> {
        self.by_slug.get(key).or_else(|| self.by_id.get(key)).copied()
    }

    pub(crate) fn entity(&self, node: NodeIx) -> EntityRef {
        self.nodes[node as usize].clone()
    }

    fn edges_of(&self, node: NodeIx) -> &[Edge] {
        let i = node as usize;
        &self.edges[self.offsets[i] as usize..self.offsets[i + 1] as usize]
    }

    /// Everything reached from `root` within `depth` hops, ordered by depth then slug, each with the
    /// edges of the path that reached it.
    ///
    /// Level by level; an entity first reached at a level is claimed by the edge with the smallest
    /// (relationship type, cause id) among that level's edges into it, so the same graph always
    /// yields the same paths. Each entity is visited once, so cycles end the walk.
    pub(crate) fn walk(&self, root: NodeIx, depth: u32) -> Vec<BlastHit> {
        let reused = self.scratch.lock().unwrap_or_else(PoisonError::into_inner).pop();
        let mut scratch = reused.unwrap_or_else(|| Scratch { slot: vec![0; self.nodes.len()], ..Scratch::default() });
        let Scratch { slot, reached, order, position, hits } = &mut scratch;
        reached.push(Reach { node: root, depth: 0, cause: root, parent: 0, rel: 0, forward: true });
        slot[root as usize] = 1;
        let mut level_start = 0;
        for level in 1..=depth {
            let level_end = reached.len();
            if level_start == level_end {
                break;
            }
            for parent in level_start..level_end {
                let cause = reached[parent].node;
                for edge in self.edges_of(cause) {
                    let claim = Reach {
                        node: edge.to,
                        depth: level,
                        cause,
                        parent: parent as u32,
                        rel: edge.rel,
                        forward: edge.forward,
                    };
                    match slot[edge.to as usize] {
                        0 => {
                            reached.push(claim);
                            slot[edge.to as usize] = reached.len() as u32;
                        }
                        s => {
                            let held = &mut reached[s as usize - 1];
                            if held.depth == level && (claim.rel, claim.cause) < (held.rel, held.cause) {
                                *held = claim;
                            }
                        }
                    }
                }
            }
            level_start = level_end;
        }

        // `reached` is in level order; within a level, hits go by slug. Each hit's path is its
        // parent's (already built: it is a level up) plus the edge that reached it.
        let mut level_start = 1;
        while level_start < reached.len() {
            let level = reached[level_start].depth;
            let level_end =
                reached[level_start..].iter().position(|r| r.depth != level).map_or(reached.len(), |n| level_start + n);
            let first = order.len();
            order.extend((level_start..level_end).map(|i| (self.slug_rank[reached[i].node as usize], i)));
            order[first..].sort_unstable();
            level_start = level_end;
        }
        position.resize(reached.len(), 0);
        for (at, &(_, i)) in order.iter().enumerate() {
            position[i] = at;
            let r = &reached[i];
            let mut path = Vec::with_capacity(r.depth as usize);
            if r.parent != 0 {
                path.extend_from_slice(&hits[position[r.parent as usize]].path);
            }
            path.push(self.path_edge(r));
            hits.push(BlastHit { entity: self.entity(r.node), depth: r.depth, path });
        }
        // Moved into a vector of the exact size, allocated last; `hits` keeps its capacity.
        #[allow(clippy::drain_collect)]
        let out: Vec<BlastHit> = hits.drain(..).collect();

        for r in reached.iter() {
            slot[r.node as usize] = 0;
        }
        reached.clear();
        order.clear();
        position.clear();
        self.scratch.lock().unwrap_or_else(PoisonError::into_inner).push(scratch);
        out
    }

    /// The edge over which `r` was reached, in its own direction.
    fn path_edge(&self, r: &Reach) -> PathEdge {
        let (affected, cause) = (&self.nodes[r.node as usize].slug, &self.nodes[r.cause as usize].slug);
        let (source, target) = if r.forward { (cause, affected) } else { (affected, cause) };
        PathEdge { rel_type: self.rel_types[r.rel as usize].clone(), source: source.clone(), target: target.clone() }
    }
}

/// The engine's current impact graph, shared by its clones and rebuilt when the database's
/// `graph_version` moves.
#[derive(Default)]
pub(crate) struct ImpactCache {
    current: RwLock<Option<Arc<ImpactGraph>>>,
    /// Held while rebuilding, so concurrent callers wait for one rebuild instead of each doing it.
    rebuilding: tokio::sync::Mutex<()>,
    /// How many graphs this cache has built.
    builds: AtomicU64,
    /// A connection of its own for the version check, opened on first use: one round trip to
    /// SQLite instead of a pool checkout (which pings the connection first) and the query.
    checker: tokio::sync::Mutex<Option<SqliteConnection>>,
}

impl fmt::Debug for ImpactCache {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ImpactCache")
            .field("version", &self.loaded().map(|g| g.version))
            .field("builds", &self.builds.load(Ordering::Relaxed))
            .finish()
    }
}

impl ImpactCache {
    #[cfg(test)]
    pub(crate) fn builds(&self) -> u64 {
        self.builds.load(Ordering::Relaxed)
    }

    fn loaded(&self) -> Option<Arc<ImpactGraph>> {
        // A panic elsewhere cannot leave the slot half-written (it only ever holds a whole Arc).
        self.current.read().unwrap_or_else(PoisonError::into_inner).clone()
    }

    /// The database's current `graph_version`.
    async fn version(&self, pool: &SqlitePool) -> Result<i64> {
        if pool.is_closed() {
            // The store was closed: so is the checker, and no new connection is opened.
            *self.checker.lock().await = None;
            return Err(sqlx::Error::PoolClosed.into());
        }
        // A caller that finds the checker busy asks through the pool rather than queue behind it.
        let Ok(mut checker) = self.checker.try_lock() else {
            return Ok(sqlx::query_scalar(VERSION_SQL).fetch_one(pool).await?);
        };
        let conn = match checker.as_mut() {
            Some(conn) => conn,
            None => checker.insert(pool.connect_options().connect().await?),
        };
        match sqlx::query_scalar(VERSION_SQL).fetch_one(&mut *conn).await {
            Ok(version) => Ok(version),
            Err(e) => {
                // Start afresh with a new connection next time.
                *checker = None;
                Err(e.into())
            }
        }
    }

    /// Runs `read` on the impact graph as of the database's current version.
    ///
    /// The version check's round trip to SQLite overlaps with `read` on the graph held: the query
    /// is sent first, `read` runs while it is answered, and its output is returned only if the
    /// version confirms the graph was current. Otherwise the graph is rebuilt and `read` runs again.
    pub(crate) async fn read<T>(
        &self,
        pool: &SqlitePool,
        ontology: &Ontology,
        read: impl Fn(&ImpactGraph) -> T,
    ) -> Result<T> {
        let held = self.loaded();
        let (version, out) = match &held {
            // `join!` polls in order: the query is on its way before `read` starts.
            Some(graph) => tokio::join!(self.version(pool), async { Some(read(graph)) }),
            None => (self.version(pool).await, None),
        };
        let version = version?;
        if let (Some(graph), Some(out)) = (&held, out) {
            if graph.version == version {
                return Ok(out);
            }
        }
        let graph = self.rebuild(pool, ontology, version, held.as_ref()).await?;
        Ok(read(&graph))
    }

    /// Builds the graph anew, unless another caller did while this one waited: a graph other than
    /// the `stale` one that is at least as new as the version this caller read will do.
    async fn rebuild(
        &self,
        pool: &SqlitePool,
        ontology: &Ontology,
        version: i64,
        stale: Option<&Arc<ImpactGraph>>,
    ) -> Result<Arc<ImpactGraph>> {
        let _rebuilding = self.rebuilding.lock().await;
        if let Some(graph) = self.loaded() {
            let is_stale = stale.is_some_and(|s| Arc::ptr_eq(s, &graph));
            if !is_stale && graph.version >= version {
                return Ok(graph);
            }
        }
        let graph = Arc::new(ImpactGraph::load(pool, ontology).await?);
        self.builds.fetch_add(1, Ordering::Relaxed);
        tracing::debug!(
            version = graph.version,
            nodes = graph.nodes.len(),
            edges = graph.edges.len(),
            "impact graph built"
        );
        *self.current.write().unwrap_or_else(PoisonError::into_inner) = Some(Arc::clone(&graph));
        Ok(graph)
    }
}
