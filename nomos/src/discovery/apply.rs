//! Applying a plan: one transaction, so the graph never holds half a discovery.

use nomos_types::discovery::DiffKind;
use nomos_types::events::{DiscoveryApplied, EntityChanged, EntityDiscovered, EntityGone, EntityMoved};
use nomos_types::{DiscoveryDiff, EntityState, Json};
use serde_json::json;

use super::plan::{plan, Plan};
use super::Snapshot;
use crate::actuate::db::audit::Audit;
use crate::events::EventDraft;
use std::collections::{HashMap, HashSet};

use nomos_types::Entity;
use sqlx::{QueryBuilder, Sqlite};

use super::plan::Upsert;
use crate::graph::entities::{entities_by_slugs, search_text, upsert_entity_in, IfExists, NewEntity};
use crate::graph::relations::{end_by_id_in, link_in, OnConflict};
use crate::graph::{check_slug, find_entity, new_id, require_entity};
use crate::store::WriteTx;
use crate::{Engine, Ontology, Result};

/// Rows per multi-row insert (SQLite allows 32,766 bound values per statement).
const CHUNK: usize = 500;

/// Inserts entities that do not exist yet, many per statement.
async fn insert_new(tx: &mut WriteTx, ontology: &Ontology, new: impl Iterator<Item = &Upsert>) -> Result<()> {
    let rows: Vec<&Upsert> = new.collect();
    for u in &rows {
        ontology.check_entity_type(&u.ty)?;
        check_slug(&u.slug, &u.ty)?;
    }
    let now = tx.now().to_string();
    for chunk in rows.chunks(CHUNK) {
        let mut qb = QueryBuilder::<Sqlite>::new(
            "INSERT INTO entities (id, slug, type, name, attributes, state, search, created_at, updated_at) ",
        );
        qb.push_values(chunk, |mut b, u| {
            b.push_bind(new_id())
                .push_bind(u.slug.clone())
                .push_bind(u.ty.clone())
                .push_bind(u.name.trim().to_string())
                .push_bind(Json::Object(u.attrs.clone()).to_string())
                .push_bind(u.state.unwrap_or(EntityState::Active).as_str())
                .push_bind(search_text(&u.slug, u.name.trim()))
                .push_bind(now.clone())
                .push_bind(now.clone());
        });
        qb.build().execute(&mut **tx).await?;
    }
    Ok(())
}

/// Inserts edges nothing can be in the way of, many per statement: (type, source id, target id, properties).
async fn insert_edges(tx: &mut WriteTx, edges: &[(&str, &str, &str, String)]) -> Result<()> {
    let now = tx.now().to_string();
    for chunk in edges.chunks(CHUNK) {
        let mut qb = QueryBuilder::<Sqlite>::new(
            "INSERT INTO relationships (id, type, source_id, target_id, properties, valid_from) ",
        );
        qb.push_values(chunk, |mut b, (rel, s, t, props)| {
            b.push_bind(new_id())
                .push_bind(rel.to_string())
                .push_bind(s.to_string())
                .push_bind(t.to_string())
                .push_bind(props.clone())
                .push_bind(now.clone());
        });
        qb.build().execute(&mut **tx).await?;
    }
    Ok(())
}

/// Who applies a discovery: the operator (after reviewing it) or the background cycle.
#[derive(Debug, Clone)]
pub enum ApplyBy {
    Operator(String),
    Cycle,
}

impl ApplyBy {
    fn actor(&self) -> &str {
        match self {
            ApplyBy::Operator(who) => who,
            ApplyBy::Cycle => "discovery",
        }
    }
}

impl Engine {
    /// Applies a snapshot read elsewhere (fixtures, benchmarks; [`crate::actuate::Actuator::discover`]
    /// reads and applies in one call): the diff that was written.
    pub async fn apply_discovery(&self, snap: &Snapshot, via_host: &str, by: &ApplyBy) -> Result<DiscoveryDiff> {
        Ok(self.discovery_apply(snap, via_host, by).await?.diff(via_host, true, 0, 0))
    }

    /// Compares a snapshot with the graph: the diff, nothing written.
    pub(crate) async fn discovery_plan(&self, snap: &Snapshot, via_host: &str) -> Result<Plan> {
        let mut conn = self.store().pool().acquire().await?;
        let host = require_entity(&mut conn, via_host).await?;
        plan(&mut conn, snap, &host).await
    }

    /// Plans again inside one write transaction (the graph may have moved since the review) and
    /// writes the plan. With nothing to change, nothing is written and nothing announced.
    pub(crate) async fn discovery_apply(&self, snap: &Snapshot, via_host: &str, by: &ApplyBy) -> Result<Plan> {
        let mut tx = self.store().begin_write().await?;
        let host = require_entity(&mut tx, via_host).await?;
        let plan = plan(&mut tx, snap, &host).await?;
        // The first apply an operator makes lets the background cycle follow this host from then on.
        let first = matches!(by, ApplyBy::Operator(_)) && host.attributes.get("discovered_at").is_none();
        if first {
            let now = tx.now().to_string();
            let patch = NewEntity::new("host", &host.name).slug(&host.slug).attributes(json!({"discovered_at": now}));
            upsert_entity_in(&mut tx, self.ontology(), &patch, IfExists::Merge).await?;
        }
        if plan.items.is_empty() {
            if first {
                tx.commit().await?;
            }
            return Ok(plan);
        }
        let ontology = self.ontology();
        // New entities in bulk (a first discovery of a large cluster is thousands of rows); their
        // `entity.discovered` events below announce them. Changed ones one by one.
        insert_new(&mut tx, ontology, plan.upserts.iter().filter(|u| u.new)).await?;
        for u in plan.upserts.iter().filter(|u| !u.new) {
            let mut new = NewEntity::new(&u.ty, &u.name).slug(&u.slug).attributes(Json::Object(u.attrs.clone()));
            new.state = u.state;
            upsert_entity_in(&mut tx, ontology, &new, IfExists::Merge).await?;
        }
        for id in &plan.end_edges {
            end_by_id_in(&mut tx, id).await?;
        }
        let created: HashSet<&str> = plan.upserts.iter().filter(|u| u.new).map(|u| u.slug.as_str()).collect();
        let mut ends: Vec<String> = plan.add_edges.iter().flat_map(|(_, s, t, _)| [s.clone(), t.clone()]).collect();
        ends.sort();
        ends.dedup();
        let by_slug: HashMap<String, Entity> =
            entities_by_slugs(&mut tx, &ends).await?.into_iter().map(|e| (e.slug.clone(), e)).collect();
        let mut bulk = Vec::new();
        for (rel, source, target, props) in &plan.add_edges {
            let (Some(s), Some(t)) = (by_slug.get(source), by_slug.get(target)) else {
                return Err(crate::Error::Invalid(format!("discovery: `{source}` or `{target}` is not in the graph")));
            };
            let def = ontology.check_relationship(rel, (&s.slug, &s.entity_type), (&t.slug, &t.entity_type))?;
            // Nothing can be in the way of an edge whose limited end was created just now (and
            // many-to-many edges have no limited end): those are inserted in bulk. Any other goes
            // through the one checked path, which ends what it replaces.
            let free = (!def.cardinality.single_target() || created.contains(source.as_str()))
                && (!def.cardinality.single_source() || created.contains(target.as_str()))
                && ![s, t].iter().any(|e| matches!(e.state, EntityState::Gone | EntityState::Destroyed));
            if free {
                bulk.push((rel.as_str(), s.id.as_str(), t.id.as_str(), props.to_string()));
            } else {
                link_in(&mut tx, ontology, rel, s, t, props, OnConflict::Replace).await?;
            }
        }
        insert_edges(&mut tx, &bulk).await?;
        for slug in &plan.gone {
            if let Some(e) = find_entity(&mut tx, slug).await? {
                let new = NewEntity::new(&e.entity_type, &e.name).slug(&e.slug).state(EntityState::Gone);
                upsert_entity_in(&mut tx, ontology, &new, IfExists::Merge).await?;
            }
        }
        for item in &plan.items {
            let changed: Vec<String> = item.attributes.iter().map(|a| a.key.clone()).collect();
            let draft = match item.kind {
                DiffKind::New => EventDraft::new(EntityDiscovered {
                    entity_type: item.entity_type.clone(),
                    name: item.name.clone(),
                    back: item.back,
                }),
                DiffKind::Gone => {
                    EventDraft::new(EntityGone { entity_type: item.entity_type.clone(), name: item.name.clone() })
                }
                DiffKind::Moved => match &item.moved {
                    Some(m) => EventDraft::new(EntityMoved { from: m.from.clone(), to: m.to.clone() }),
                    None => EventDraft::new(EntityChanged { changed, renamed_from: None }),
                },
                DiffKind::Renamed | DiffKind::Changed => EventDraft::new(EntityChanged {
                    changed,
                    renamed_from: item.renamed.as_ref().map(|r| r.from.clone()),
                }),
            };
            tx.emit(draft.entity(&item.slug)).await?;
        }
        let counts = plan.counts();
        let detail = json!({"cluster": plan.scope, "counts": counts});
        let applied = DiscoveryApplied {
            host: via_host.to_string(),
            cluster: plan.scope.clone(),
            counts,
            by: by.actor().to_string(),
        };
        Audit::by(by.actor(), "discovery.applied", detail)
            .entity(via_host)
            .record(&mut tx, EventDraft::new(applied).entity(via_host))
            .await?;
        tx.commit().await?;
        tracing::info!(host = via_host, cluster = %plan.scope, items = plan.items.len(), "discovery applied");
        Ok(plan)
    }
}

impl Plan {
    /// The diff as the command line and the desktop show it.
    pub(crate) fn diff(&self, host: &str, applied: bool, commands: u32, duration_ms: u64) -> DiscoveryDiff {
        DiscoveryDiff {
            host: host.to_string(),
            cluster: self.scope.clone(),
            quorate: self.quorate,
            applied,
            counts: self.counts(),
            changes: self.items.clone(),
            warnings: self.warnings.clone(),
            commands,
            duration_ms,
        }
    }
}
