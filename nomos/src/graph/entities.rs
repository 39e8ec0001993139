//! Entities: create, upsert, read, list, attribute merge, lifecycle state and observed health.

use nomos_types::events::{EntityCreated, EntityUpdated, HealthChanged};
use nomos_types::{Entity, EntityListItem, EntityQuery, EntityState, EntityStatus, Health, Json, Page, TypeCount};
use serde_json::json;
use sqlx::{QueryBuilder, Sqlite, SqliteConnection};

use super::{
    check_slug, entity_from_row, find_entity, merge_object, new_id, require_entity, slugify, status_from_row,
    ENTITY_COLUMNS, STATUS_COLUMNS,
};
use crate::events::EventDraft;
use crate::store::WriteTx;
use crate::{Engine, Error, Ontology, Result};

/// Default and maximum page sizes for listings.
pub const DEFAULT_PAGE: u32 = 50;
pub const MAX_PAGE: u32 = 1000;

/// An entity to create or update.
#[derive(Debug, Clone, PartialEq)]
pub struct NewEntity {
    pub entity_type: String,
    pub name: String,
    /// `None` derives `<type>:<slugified name>`.
    pub slug: Option<String>,
    pub attributes: Json,
    pub state: Option<EntityState>,
}

impl NewEntity {
    pub fn new(entity_type: &str, name: &str) -> Self {
        NewEntity {
            entity_type: entity_type.to_string(),
            name: name.to_string(),
            slug: None,
            attributes: json!({}),
            state: None,
        }
    }

    pub fn attributes(mut self, attributes: Json) -> Self {
        self.attributes = attributes;
        self
    }

    pub fn slug(mut self, slug: &str) -> Self {
        self.slug = Some(slug.to_string());
        self
    }

    pub fn state(mut self, state: EntityState) -> Self {
        self.state = Some(state);
        self
    }

    /// The slug this entity will have.
    pub fn resolved_slug(&self) -> Result<String> {
        let slug = match &self.slug {
            Some(s) => s.clone(),
            None => {
                let name = slugify(&self.name);
                if name.is_empty() {
                    return Err(Error::Invalid(format!(
                        "cannot derive a slug from the name `{}`; give one explicitly",
                        self.name
                    )));
                }
                format!("{}:{name}", self.entity_type)
            }
        };
        check_slug(&slug, &self.entity_type)?;
        Ok(slug)
    }
}

/// What to do when an entity with the slug already exists.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum IfExists {
    /// Merge into it (attributes shallowly, name and state replaced).
    Merge,
    /// Refuse: creating something that exists is a conflict.
    Fail,
}

/// What an upsert did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Change {
    Created,
    Updated,
    Unchanged,
}

/// Creates the entity, or merges into the existing one with the same slug. Attributes are merged
/// shallowly; name and (when given) state are replaced. Emits one event if anything changed.
pub(crate) async fn upsert_entity_in(
    tx: &mut WriteTx,
    ontology: &Ontology,
    new: &NewEntity,
    if_exists: IfExists,
) -> Result<(Entity, Change)> {
    ontology.check_entity_type(&new.entity_type)?;
    let slug = new.resolved_slug()?;
    if new.name.trim().is_empty() {
        return Err(Error::Invalid(format!("entity `{slug}` needs a name")));
    }
    if !new.attributes.is_object() {
        return Err(Error::Invalid(format!("attributes of `{slug}` must be a JSON object")));
    }
    match find_entity(tx, &slug).await? {
        None => {
            let state = new.state.unwrap_or(EntityState::Active);
            let sql = format!(
                "INSERT INTO entities (id, slug, type, name, attributes, state, search, created_at, updated_at)
                 VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING {}",
                ENTITY_COLUMNS.replace("e.", "")
            );
            let row = sqlx::query(&sql)
                .bind(new_id())
                .bind(&slug)
                .bind(&new.entity_type)
                .bind(new.name.trim())
                .bind(new.attributes.to_string())
                .bind(state.as_str())
                .bind(search_text(&slug, new.name.trim()))
                .bind(tx.now().to_string())
                .bind(tx.now().to_string())
                .fetch_one(&mut **tx)
                .await?;
            let entity = entity_from_row(&row)?;
            let created = EntityCreated { entity_type: entity.entity_type.clone(), name: entity.name.clone() };
            tx.emit(EventDraft::new(created).entity(&slug)).await?;
            Ok((entity, Change::Created))
        }
        Some(_) if if_exists == IfExists::Fail => Err(Error::Conflict(format!("entity `{slug}` already exists"))),
        Some(existing) => {
            if existing.entity_type != new.entity_type {
                return Err(Error::Conflict(format!(
                    "`{slug}` already exists with type {} (not {})",
                    existing.entity_type, new.entity_type
                )));
            }
            let attributes = merge_object(&existing.attributes, &new.attributes)?;
            let name = new.name.trim().to_string();
            let state = new.state.unwrap_or(existing.state);
            if attributes == existing.attributes && name == existing.name && state == existing.state {
                return Ok((existing, Change::Unchanged));
            }
            let entity = write_entity(tx, &existing, &name, &attributes, state).await?;
            Ok((entity, Change::Updated))
        }
    }
}

async fn write_entity(
    tx: &mut WriteTx,
    existing: &Entity,
    name: &str,
    attributes: &Json,
    state: EntityState,
) -> Result<Entity> {
    let sql = format!(
        "UPDATE entities SET name = ?, search = ?, attributes = ?, state = ?, updated_at = ? WHERE id = ? RETURNING {}",
        ENTITY_COLUMNS.replace("e.", "")
    );
    let now = tx.now().to_string();
    let row = sqlx::query(&sql)
        .bind(name)
        .bind(search_text(&existing.slug, name))
        .bind(attributes.to_string())
        .bind(state.as_str())
        .bind(now)
        .bind(&existing.id)
        .fetch_one(&mut **tx)
        .await?;
    let entity = entity_from_row(&row)?;
    let changed: Vec<String> = [
        (existing.name != entity.name, "name"),
        (existing.attributes != entity.attributes, "attributes"),
        (existing.state != entity.state, "state"),
    ]
    .into_iter()
    .filter(|(c, _)| *c)
    .map(|(_, f)| f.to_string())
    .collect();
    tx.emit(EventDraft::new(EntityUpdated { changed, state: entity.state }).entity(&entity.slug)).await?;
    Ok(entity)
}

/// What the text filter matches: slug and name, case-folded (Unicode, not just ASCII).
pub(crate) fn search_text(slug: &str, name: &str) -> String {
    format!("{slug}\n{name}").to_lowercase()
}

fn push_filters<'a>(
    qb: &mut QueryBuilder<'a, Sqlite>,
    q: &'a EntityQuery,
    types: &'a Option<String>,
    text: &'a Option<String>,
) {
    qb.push(" WHERE 1 = 1");
    if let Some(types) = types {
        qb.push(" AND e.type IN (SELECT value FROM json_each(").push_bind(types.as_str()).push("))");
    }
    if let Some(text) = text {
        // instr() needs no escaping of % or _; `search` holds slug and name folded the same way.
        qb.push(" AND instr(e.search, ").push_bind(text.as_str()).push(") > 0");
    }
    if let Some(h) = q.health {
        qb.push(" AND ifnull(s.health, 'unknown') = ").push_bind(h.as_str());
    }
}

impl Engine {
    /// Creates an entity; an existing slug is a conflict.
    pub async fn create_entity(&self, new: NewEntity) -> Result<Entity> {
        let mut tx = self.store().begin_write().await?;
        let (entity, _) = upsert_entity_in(&mut tx, self.ontology(), &new, IfExists::Fail).await?;
        tx.commit().await?;
        Ok(entity)
    }

    /// Creates the entity or merges into the existing one with the same slug.
    pub async fn upsert_entity(&self, new: NewEntity) -> Result<(Entity, Change)> {
        let mut tx = self.store().begin_write().await?;
        let out = upsert_entity_in(&mut tx, self.ontology(), &new, IfExists::Merge).await?;
        tx.commit().await?;
        Ok(out)
    }

    /// An entity by slug or id.
    pub async fn entity(&self, key: &str) -> Result<Entity> {
        let mut conn = self.store().pool().acquire().await?;
        require_entity(&mut conn, key).await
    }

    /// An entity's current status (health and freshness).
    pub async fn entity_status(&self, key: &str) -> Result<EntityStatus> {
        let mut conn = self.store().pool().acquire().await?;
        let entity = require_entity(&mut conn, key).await?;
        status_in(&mut conn, &entity.id, self.clock().now_ms()).await
    }

    /// Lists entities with filters, ordered by slug. `total` counts every match, not just this page.
    pub async fn list_entities(&self, q: &EntityQuery) -> Result<Page<EntityListItem>> {
        let limit = q.limit.unwrap_or(DEFAULT_PAGE).clamp(1, MAX_PAGE);
        // A type filter includes the types below it, so `compute` lists hosts, LXCs and VMs.
        let types = match q.entity_type.as_deref().filter(|t| !t.is_empty()) {
            None => None,
            Some(t) => Some(serde_json::to_string(&self.ontology().types_below(t)?).unwrap_or_else(|_| "[]".into())),
        };
        let text = q.text.as_deref().map(str::trim).filter(|t| !t.is_empty()).map(str::to_lowercase);
        let from = " FROM entities e LEFT JOIN entity_status s ON s.entity_id = e.id";

        // One read transaction: the total and the page come from the same snapshot.
        let mut read = self.store().pool().begin().await?;
        let mut count = QueryBuilder::<Sqlite>::new(format!("SELECT count(*){from}"));
        push_filters(&mut count, q, &types, &text);
        let total: i64 = count.build_query_scalar().fetch_one(&mut *read).await?;

        let mut select = QueryBuilder::<Sqlite>::new(format!("SELECT {ENTITY_COLUMNS}, {STATUS_COLUMNS}{from}"));
        push_filters(&mut select, q, &types, &text);
        select
            .push(" ORDER BY e.slug LIMIT ")
            .push_bind(i64::from(limit))
            .push(" OFFSET ")
            .push_bind(i64::from(q.offset));
        let rows = select.build().fetch_all(&mut *read).await?;
        read.commit().await?;
        let now_ms = self.clock().now_ms();
        let items = rows
            .iter()
            .map(|row| Ok(EntityListItem { entity: entity_from_row(row)?, status: status_from_row(row, now_ms)? }))
            .collect::<Result<Vec<_>>>()?;
        Ok(Page { items, total: total.max(0) as u64, limit, offset: q.offset })
    }

    /// How many entities exist of each type, by type name.
    pub async fn entity_type_counts(&self) -> Result<Vec<TypeCount>> {
        let rows: Vec<(String, i64)> =
            sqlx::query_as("SELECT type, count(*) FROM entities GROUP BY type ORDER BY type")
                .fetch_all(self.store().pool())
                .await?;
        Ok(rows.into_iter().map(|(entity_type, n)| TypeCount { entity_type, count: n.max(0) as u64 }).collect())
    }

    /// Shallow-merges `patch` into an entity's attributes (`null` removes a key).
    pub async fn merge_attributes(&self, key: &str, patch: &Json) -> Result<Entity> {
        let mut tx = self.store().begin_write().await?;
        let existing = require_entity(&mut tx, key).await?;
        let attributes = merge_object(&existing.attributes, patch)?;
        if attributes == existing.attributes {
            return Ok(existing);
        }
        let entity = write_entity(&mut tx, &existing, &existing.name, &attributes, existing.state).await?;
        tx.commit().await?;
        Ok(entity)
    }

    /// Changes an entity's lifecycle state.
    pub async fn set_entity_state(&self, key: &str, state: EntityState) -> Result<Entity> {
        let mut tx = self.store().begin_write().await?;
        let existing = require_entity(&mut tx, key).await?;
        if existing.state == state {
            return Ok(existing);
        }
        let entity = write_entity(&mut tx, &existing, &existing.name, &existing.attributes, state).await?;
        tx.commit().await?;
        Ok(entity)
    }

    /// The Proxmox ids (`pve_id`) of the containers and VMs the graph knows, with their slugs;
    /// destroyed ones are left out.
    pub async fn guest_ids(&self) -> Result<Vec<(u64, String)>> {
        let known: Vec<(Option<i64>, String)> = sqlx::query_as(
            "SELECT json_extract(attributes, '$.pve_id'), slug FROM entities WHERE type IN ('lxc', 'vm') AND state != ?",
        )
        .bind(EntityState::Destroyed.as_str())
        .fetch_all(self.store().pool())
        .await?;
        Ok(known.into_iter().filter_map(|(id, slug)| Some((u64::try_from(id?).ok()?, slug))).collect())
    }

    /// Records an observed health reading for an entity. Emits `health.changed` when the health
    /// differs from the previous reading.
    pub async fn record_health(&self, key: &str, health: Health, detail: &str) -> Result<EntityStatus> {
        let mut tx = self.store().begin_write().await?;
        let entity = require_entity(&mut tx, key).await?;
        let previous: Option<String> = sqlx::query_scalar("SELECT health FROM entity_status WHERE entity_id = ?")
            .bind(&entity.id)
            .fetch_optional(&mut *tx)
            .await?;
        // An unreadable stored value counts as unknown, as the schema's CHECK allows no other.
        let previous = previous.and_then(|h| h.parse::<Health>().ok()).unwrap_or(Health::Unknown);
        let changed = previous != health;
        let now = tx.now().to_string();
        sqlx::query(
            "INSERT INTO entity_status (entity_id, health, detail, last_check_at, last_change_at)
             VALUES (?1, ?2, ?3, ?4, ?4)
             ON CONFLICT (entity_id) DO UPDATE SET health = ?2, detail = ?3, last_check_at = ?4,
                last_change_at = CASE WHEN entity_status.health <> ?2 THEN ?4 ELSE entity_status.last_change_at END",
        )
        .bind(&entity.id)
        .bind(health.as_str())
        .bind(detail)
        .bind(now)
        .execute(&mut *tx)
        .await?;
        if changed {
            let change = HealthChanged { from: previous, to: health, detail: detail.to_string() };
            tx.emit(EventDraft::new(change).entity(&entity.slug)).await?;
        }
        tx.commit().await?;
        self.entity_status(&entity.id).await
    }
}

/// Renames an entity inside a transaction (announced like any update).
pub(crate) async fn rename_entity_in(tx: &mut WriteTx, entity: &Entity, name: &str) -> Result<Entity> {
    write_entity(tx, entity, name, &entity.attributes, entity.state).await
}

/// An entity's status read on the given connection, as of `now_ms`.
pub(crate) async fn status_in(conn: &mut SqliteConnection, entity_id: &str, now_ms: i64) -> Result<EntityStatus> {
    let sql = format!(
        "SELECT {STATUS_COLUMNS} FROM entities e LEFT JOIN entity_status s ON s.entity_id = e.id WHERE e.id = ?"
    );
    let row = sqlx::query(&sql).bind(entity_id).fetch_optional(conn).await?;
    row.as_ref().map(|r| status_from_row(r, now_ms)).transpose()?.ok_or_else(|| Error::not_found("entity", entity_id))
}

/// Resolves many slugs at once (one query, not one per slug); unknown slugs are absent.
pub(crate) async fn entities_by_slugs(conn: &mut SqliteConnection, slugs: &[String]) -> Result<Vec<Entity>> {
    if slugs.is_empty() {
        return Ok(Vec::new());
    }
    let sql = format!(
        "SELECT {ENTITY_COLUMNS} FROM entities e WHERE e.slug IN (SELECT value FROM json_each(?)) ORDER BY e.slug"
    );
    let rows =
        sqlx::query(&sql).bind(serde_json::to_string(slugs).unwrap_or_else(|_| "[]".into())).fetch_all(conn).await?;
    rows.iter().map(entity_from_row).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::engine;

    #[tokio::test]
    async fn create_get_and_conflict() {
        let (_dir, eng) = engine().await;
        let e = eng
            .create_entity(NewEntity::new("host", "Strong").attributes(json!({"address": "10.0.0.2"})))
            .await
            .unwrap();
        assert_eq!(e.slug, "host:strong");
        assert_eq!(e.name, "Strong");
        assert_eq!(eng.entity("host:strong").await.unwrap(), e);
        assert_eq!(eng.entity(&e.id).await.unwrap(), e);
        let err = eng.create_entity(NewEntity::new("host", "strong")).await.unwrap_err();
        assert!(matches!(err, Error::Conflict(_)), "{err}");
        let err = eng.entity("host:nope").await.unwrap_err();
        assert_eq!(err.to_string(), "entity `host:nope` not found");
    }

    #[tokio::test]
    async fn unknown_and_abstract_types_are_rejected_with_the_allowed_list() {
        let (_dir, eng) = engine().await;
        let err = eng.create_entity(NewEntity::new("toaster", "t1")).await.unwrap_err();
        assert!(err.to_string().contains("unknown entity type `toaster` (allowed:"), "{err}");
        assert!(err.to_string().contains("lxc"), "{err}");
        let err = eng.create_entity(NewEntity::new("compute", "c")).await.unwrap_err();
        assert!(err.to_string().contains("is abstract"), "{err}");
        let err = eng.create_entity(NewEntity::new("lxc", "x").slug("host:x")).await.unwrap_err();
        assert!(err.to_string().contains("must start with its type"), "{err}");
        let none: i64 =
            sqlx::query_scalar("SELECT count(*) FROM entities").fetch_one(eng.store().pool()).await.unwrap();
        assert_eq!(none, 0);
    }

    #[tokio::test]
    async fn upsert_merges_and_reports_changes() {
        let (_dir, eng) = engine().await;
        let mut rx = eng.subscribe();
        let new = NewEntity::new("lxc", "caddy").attributes(json!({"pve_id": 101, "host": "host:strong"}));
        let (_, c1) = eng.upsert_entity(new.clone()).await.unwrap();
        let (_, c2) = eng.upsert_entity(new.clone()).await.unwrap();
        let (e3, c3) =
            eng.upsert_entity(NewEntity::new("lxc", "caddy").attributes(json!({"ip": "10.0.0.21"}))).await.unwrap();
        assert_eq!((c1, c2, c3), (Change::Created, Change::Unchanged, Change::Updated));
        assert_eq!(e3.attributes, json!({"pve_id": 101, "host": "host:strong", "ip": "10.0.0.21"}));
        assert_eq!(rx.try_recv().unwrap().kind(), "entity.created");
        let updated = rx.try_recv().unwrap();
        let nomos_types::Event::EntityUpdated(u) = updated.event else { panic!("{updated:?}") };
        assert_eq!(u.changed, ["attributes"]);
        assert!(rx.try_recv().is_err(), "an unchanged upsert emits nothing");
    }

    #[tokio::test]
    async fn merge_attributes_is_shallow() {
        let (_dir, eng) = engine().await;
        eng.create_entity(NewEntity::new("vm", "haos").attributes(json!({"pve_id": 200, "disk": {"size": 32}})))
            .await
            .unwrap();
        let e = eng
            .merge_attributes("vm:haos", &json!({"disk": {"bus": "scsi"}, "pve_id": null, "cores": 2}))
            .await
            .unwrap();
        assert_eq!(e.attributes, json!({"disk": {"bus": "scsi"}, "cores": 2}));
        assert!(eng.merge_attributes("vm:haos", &json!("x")).await.is_err());
    }

    #[tokio::test]
    async fn listing_pages_report_the_true_total() {
        let (_dir, eng) = engine().await;
        for i in 0..120 {
            let ty = if i % 3 == 0 { "vm" } else { "lxc" };
            eng.create_entity(NewEntity::new(ty, &format!("Guest-{i:03}"))).await.unwrap();
        }
        let page = eng.list_entities(&EntityQuery::default()).await.unwrap();
        assert_eq!(page.total, 120);
        assert_eq!(page.items.len(), 50);
        assert_eq!(page.limit, 50);
        let last = eng.list_entities(&EntityQuery { offset: 100, ..Default::default() }).await.unwrap();
        assert_eq!(last.items.len(), 20);
        assert_eq!(last.total, 120);
        assert_eq!(last.items[19].entity.slug, "vm:guest-117");

        let vms = eng
            .list_entities(&EntityQuery { entity_type: Some("vm".into()), limit: Some(10), ..Default::default() })
            .await
            .unwrap();
        assert_eq!((vms.total, vms.items.len()), (40, 10));
        let guests = eng
            .list_entities(&EntityQuery { entity_type: Some("compute".into()), ..Default::default() })
            .await
            .unwrap();
        assert_eq!(guests.total, 120, "an abstract type lists the types below it");
        let counts = eng.entity_type_counts().await.unwrap();
        assert_eq!(
            counts,
            [TypeCount { entity_type: "lxc".into(), count: 80 }, TypeCount { entity_type: "vm".into(), count: 40 }]
        );
        let err = eng
            .list_entities(&EntityQuery { entity_type: Some("toaster".into()), ..Default::default() })
            .await
            .unwrap_err();
        assert!(err.to_string().contains("unknown entity type"), "{err}");

        // Case-insensitive on name and slug.
        let hits = eng
            .list_entities(&EntityQuery { text: Some("GUEST-01".into()), limit: Some(1000), ..Default::default() })
            .await
            .unwrap();
        assert_eq!(hits.total, 10);
        eng.create_entity(NewEntity::new("service", "Küchenradio").slug("service:kuechenradio")).await.unwrap();
        let umlaut =
            eng.list_entities(&EntityQuery { text: Some("KÜCHEN".into()), ..Default::default() }).await.unwrap();
        assert_eq!(umlaut.total, 1, "case folding is not limited to ASCII");
        let pct = eng.list_entities(&EntityQuery { text: Some("%".into()), ..Default::default() }).await.unwrap();
        assert_eq!(pct.total, 0, "% is a literal, not a wildcard");
    }

    #[tokio::test]
    async fn health_filter_and_freshness() {
        let (_dir, eng) = engine().await;
        eng.create_entity(NewEntity::new("lxc", "a")).await.unwrap();
        eng.create_entity(NewEntity::new("lxc", "b")).await.unwrap();
        let mut rx = eng.subscribe();
        let st = eng.record_health("lxc:a", Health::Degraded, "disk 93%").await.unwrap();
        assert_eq!(st.health, Health::Degraded);
        assert_eq!(st.freshness, nomos_types::Freshness::Fresh);
        let ev = rx.try_recv().unwrap();
        let nomos_types::Event::HealthChanged(h) = ev.event else { panic!("{ev:?}") };
        assert_eq!((h.from, h.to), (Health::Unknown, Health::Degraded));
        eng.record_health("lxc:a", Health::Degraded, "disk 94%").await.unwrap();
        assert!(rx.try_recv().is_err(), "same health, no event");

        let q = |h| EntityQuery { health: Some(h), ..Default::default() };
        let degraded = eng.list_entities(&q(Health::Degraded)).await.unwrap();
        assert_eq!(degraded.items.len(), 1);
        assert_eq!(degraded.items[0].status.detail, "disk 94%");
        let unknown = eng.list_entities(&q(Health::Unknown)).await.unwrap();
        assert_eq!(unknown.items[0].entity.slug, "lxc:b");
        assert_eq!(unknown.items[0].status.freshness, nomos_types::Freshness::Never);

        sqlx::query("UPDATE entity_status SET last_check_at = '2020-01-01T00:00:00.000Z'")
            .execute(eng.store().pool())
            .await
            .unwrap();
        assert_eq!(eng.entity_status("lxc:a").await.unwrap().freshness, nomos_types::Freshness::Stale);
    }
}
