//! From a snapshot to a plan: what the graph should say, matched with what it says, as a typed
//! diff and the writes that make the two agree. Reads only; [`super::apply`] writes.

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};

use nomos_types::discovery::{AttrChange, DiffCounts, DiffItem, DiffKind, EdgeChange, EdgeOp, FromTo};
use nomos_types::{Entity, EntityState, Json};
use serde_json::{json, Map};
use sqlx::{Row, SqliteConnection};

use super::pve::{self, Kind};
use super::Snapshot;
use crate::graph::{entity_from_row, slugify, ENTITY_COLUMNS};
use crate::Result;

/// The entity types discovery writes.
const TYPES: [&str; 8] = ["cluster", "host", "lxc", "vm", "template", "storage", "bridge", "network"];
/// The relationship types discovery keeps.
const RELS: [&str; 5] = ["hosts", "member-of", "provides", "uses-storage", "attached-to"];
/// Marks the edges discovery made (the only ones it ends, besides a moved guest's `hosts`).
const VIA: &str = "discovery";

/// An entity as the cluster describes it.
#[derive(Debug, Clone)]
struct Want {
    key: String,
    ty: &'static str,
    name: String,
    /// Slugs to try for a new entity, preferred first.
    slugs: Vec<String>,
    /// The attributes discovery owns and their values now.
    attrs: Map<String, Json>,
    /// Owned attributes to remove when the entity has them (a tag list emptied, a lock released).
    clear: Vec<&'static str>,
    /// Set only for a new entity or where absent (how to reach a node found through another).
    if_absent: Map<String, Json>,
    state: Option<EntityState>,
    vmid: Option<u64>,
    node: Option<String>,
    adopt: Adopt,
}

impl Want {
    /// A want with the usual defaults: active, adopted by its preferred slug, nothing to clear.
    fn new(
        key: impl Into<String>,
        ty: &'static str,
        name: impl Into<String>,
        slugs: impl IntoIterator<Item = Option<String>>,
        attrs: Map<String, Json>,
    ) -> Want {
        Want {
            key: key.into(),
            ty,
            name: name.into(),
            slugs: slugs.into_iter().flatten().collect(),
            attrs,
            clear: vec![],
            if_absent: Map::new(),
            state: Some(EntityState::Active),
            vmid: None,
            node: None,
            adopt: Adopt::Slug,
        }
    }
}

#[derive(Debug, Clone)]
enum Adopt {
    /// A guest from an inventory: the only lxc/vm/template with this vmid and no owner.
    Guest(u64),
    /// A node: the host discovery runs through (when `local`), or `host:<node>`.
    Node { local: bool },
    /// An entity with the preferred slug and no owner.
    Slug,
}

/// An edge as the cluster describes it, between two keys. The edges one owner has of one kind
/// form a family, rewritten only when this cycle read what it comes from (see `known`).
#[derive(Debug, Clone)]
struct WantEdge {
    rel: &'static str,
    source: String,
    target: String,
    props: Json,
    owner: String,
}

/// A write of the plan: an entity created or patched.
#[derive(Debug, Clone)]
pub(crate) struct Upsert {
    pub slug: String,
    pub ty: String,
    pub name: String,
    /// For a new entity, all its attributes; for an existing one, the patch (null removes).
    pub attrs: Map<String, Json>,
    pub state: Option<EntityState>,
    /// Not in the graph yet (created, not patched).
    pub new: bool,
}

/// What the graph must do to agree with the cluster, and the diff that says it.
#[derive(Debug, Clone, Default)]
pub(crate) struct Plan {
    pub scope: String,
    pub quorate: Option<bool>,
    pub items: Vec<DiffItem>,
    pub unchanged: u32,
    pub upserts: Vec<Upsert>,
    /// Relationship ids to end.
    pub end_edges: Vec<String>,
    /// (type, source slug, target slug, properties) to create.
    pub add_edges: Vec<(String, String, String, Json)>,
    /// Slugs to set `gone`.
    pub gone: Vec<String>,
    /// Guests whose configuration should be read: new, changed, or never read.
    pub needs_config: Vec<(String, Kind, u64)>,
    pub warnings: Vec<String>,
}

impl Plan {
    pub fn counts(&self) -> DiffCounts {
        let mut c = DiffCounts { unchanged: self.unchanged, ..DiffCounts::default() };
        for i in &self.items {
            match i.kind {
                DiffKind::New => c.new += 1,
                DiffKind::Changed => c.changed += 1,
                DiffKind::Moved => c.moved += 1,
                DiffKind::Renamed => c.renamed += 1,
                DiffKind::Gone => c.gone += 1,
            }
        }
        c
    }
}

fn attr<'a>(e: &'a Entity, key: &str) -> Option<&'a Json> {
    e.attributes.get(key)
}

fn attr_str<'a>(e: &'a Entity, key: &str) -> Option<&'a str> {
    attr(e, key).and_then(Json::as_str)
}

fn put(map: &mut Map<String, Json>, key: &str, value: impl Into<Json>) {
    map.insert(key.to_string(), value.into());
}

fn put_opt<T: Into<Json>>(map: &mut Map<String, Json>, key: &str, value: Option<T>) {
    if let Some(v) = value {
        map.insert(key.to_string(), v.into());
    }
}

/// `<type>:<slugified parts joined by ->`, or None when nothing usable is left.
fn slug_of(ty: &str, parts: &[&str]) -> Option<String> {
    let name = slugify(&parts.join("-"));
    (!name.is_empty()).then(|| format!("{ty}:{name}"))
}

fn storage_key(storage: &str, node: Option<&str>) -> String {
    match node {
        Some(n) => format!("storage/{n}/{storage}"),
        None => format!("storage/{storage}"),
    }
}

/// Everything the cluster describes, as wants and edges.
fn wants(
    snap: &Snapshot,
    scope: &str,
    via_host: &Entity,
) -> (Vec<Want>, Vec<WantEdge>, HashSet<(String, &'static str)>) {
    let mut wants = Vec::new();
    let mut edges = Vec::new();
    // (owner key, family) whose edges this cycle knows in full.
    let mut known: HashSet<(String, &'static str)> = HashSet::new();
    let clustered = snap.status.name.is_some();
    // The family (last argument) is what `known` records; the edge itself needs only its owner.
    let edge = |rel, source: &str, target: &str, props: Json, owner: &str, _family: &str| WantEdge {
        rel,
        source: source.to_string(),
        target: target.to_string(),
        props,
        owner: owner.to_string(),
    };

    if clustered {
        let mut a = Map::new();
        put(&mut a, "cluster", scope);
        put(&mut a, "pve_key", "cluster");
        put_opt(&mut a, "quorate", snap.status.quorate);
        put(&mut a, "nodes", snap.node_names().len());
        wants.push(Want::new("cluster", "cluster", scope, [slug_of("cluster", &[scope])], a));
    }

    // Shared storages are one entity for the cluster; local ones one per node.
    let shared: HashMap<&str, &pve::StorageConfig> =
        snap.storage.iter().filter(|s| s.shared).map(|s| (s.storage.as_str(), s)).collect();
    for s in snap.storage.iter().filter(|s| s.shared) {
        let mut a = storage_attrs(scope, &storage_key(&s.storage, None), Some(s), None);
        put(&mut a, "shared", true);
        wants.push(Want {
            state: Some(if s.disabled { EntityState::Stopped } else { EntityState::Active }),
            ..Want::new(
                storage_key(&s.storage, None),
                "storage",
                s.storage.clone(),
                [slug_of("storage", &[&s.storage]), slug_of("storage", &[scope, &s.storage])],
                a,
            )
        });
    }

    let ssh_of = |key: &str| via_host.attributes.get(key).cloned();
    for node in snap.node_names() {
        let status = snap.status.nodes.iter().find(|n| n.name == node);
        let row = snap.resources.nodes.iter().find(|n| n.node == node);
        let key = format!("node/{node}");
        let mut a = Map::new();
        put(&mut a, "cluster", scope);
        put(&mut a, "pve_key", key.clone());
        put(&mut a, "node", node.clone());
        let online = snap.online(&node);
        put(&mut a, "status", if online { "online" } else { "offline" });
        if let Some(r) = row {
            put_opt(&mut a, "maxcpu", r.maxcpu);
            put_opt(&mut a, "maxmem", r.maxmem);
            put_opt(&mut a, "maxdisk", r.maxdisk);
        }
        put_opt(&mut a, "nodeid", status.and_then(|s| s.nodeid));
        let local = status.is_some_and(|s| s.local);
        let mut if_absent = Map::new();
        if let Some(ip) = status.and_then(|s| s.ip.clone()) {
            put(&mut a, "ip", ip.clone());
            // A node found through another is reached the same way, at its own address.
            if !local {
                put(&mut if_absent, "address", ip);
                for k in ["ssh_port", "ssh_user", "ssh_key"] {
                    if let Some(v) = ssh_of(k) {
                        if_absent.insert(k.to_string(), v);
                    }
                }
            }
        }
        wants.push(Want {
            if_absent,
            state: None,
            node: Some(node.clone()),
            adopt: Adopt::Node { local },
            ..Want::new(
                key.clone(),
                "host",
                node.clone(),
                [slug_of("host", &[&node]), slug_of("host", &[&node, scope])],
                a,
            )
        });
        if clustered {
            edges.push(edge("member-of", &key, "cluster", json!({"via": VIA}), &key, "member-of"));
            known.insert((key.clone(), "member-of"));
        }
        // Local storages of this node, as the resources list them.
        known.insert((key.clone(), "provides-storage"));
        for r in snap.resources.storage.iter().filter(|r| r.node == node && !r.shared) {
            if shared.contains_key(r.storage.as_str()) {
                continue;
            }
            let skey = storage_key(&r.storage, Some(&node));
            let config = snap.storage.iter().find(|c| c.storage == r.storage);
            let mut sa = storage_attrs(scope, &skey, config, Some(r));
            put(&mut sa, "node", node.clone());
            put(&mut sa, "shared", false);
            wants.push(Want {
                node: Some(node.clone()),
                ..Want::new(
                    skey.clone(),
                    "storage",
                    format!("{} on {node}", r.storage),
                    [slug_of("storage", &[&node, &r.storage]), slug_of("storage", &[scope, &node, &r.storage])],
                    sa,
                )
            });
            edges.push(edge("provides", &key, &skey, json!({"via": VIA}), &key, "provides-storage"));
        }
        // Bridges and the subnets they carry, when this node's network could be read.
        if let Some(Some(ifaces)) = snap.networks.get(&node) {
            known.insert((key.clone(), "provides-bridge"));
            for br in ifaces.iter().filter(|i| i.is_bridge()) {
                let bkey = format!("bridge/{node}/{}", br.iface);
                let mut ba = Map::new();
                put(&mut ba, "cluster", scope);
                put(&mut ba, "pve_key", bkey.clone());
                put(&mut ba, "node", node.clone());
                put(&mut ba, "iface", br.iface.clone());
                put(&mut ba, "kind", br.iface_type.clone());
                put(&mut ba, "vlan_aware", br.vlan_aware);
                put(&mut ba, "active", br.active);
                put_opt(&mut ba, "cidr", br.cidr.clone());
                put_opt(&mut ba, "gateway", br.gateway.clone());
                put_opt(&mut ba, "ports", br.ports.clone());
                put_opt(&mut ba, "comments", br.comments.clone());
                let vlans: Vec<u64> = ifaces
                    .iter()
                    .filter(|v| v.vlan_raw_device.as_deref() == Some(br.iface.as_str()))
                    .filter_map(|v| v.vlan_id)
                    .collect();
                if !vlans.is_empty() {
                    put(&mut ba, "vlans", vlans);
                }
                wants.push(Want {
                    clear: vec!["cidr", "gateway", "ports", "comments", "vlans"],
                    node: Some(node.clone()),
                    ..Want::new(
                        bkey.clone(),
                        "bridge",
                        format!("{} on {node}", br.iface),
                        [slug_of("bridge", &[&node, &br.iface]), slug_of("bridge", &[scope, &node, &br.iface])],
                        ba,
                    )
                });
                edges.push(edge("provides", &key, &bkey, json!({"via": VIA}), &key, "provides-bridge"));
                known.insert((bkey.clone(), "member-of"));
                if let Some(net) = br.cidr.as_deref().and_then(pve::subnet) {
                    let nkey = format!("net/{net}");
                    if !wants.iter().any(|w| w.key == nkey) {
                        let mut na = Map::new();
                        put(&mut na, "cluster", scope);
                        put(&mut na, "pve_key", nkey.clone());
                        put(&mut na, "cidr", net.clone());
                        wants.push(Want::new(
                            nkey.clone(),
                            "network",
                            net.clone(),
                            [slug_of("network", &[&net]), slug_of("network", &[scope, &net])],
                            na,
                        ));
                    }
                    edges.push(edge("member-of", &bkey, &nkey, json!({"via": VIA}), &bkey, "member-of"));
                }
            }
        }
    }

    for g in &snap.resources.guests {
        let key = format!("guest/{}", g.vmid);
        let ty = if g.template { "template" } else { g.kind.entity_type() };
        let mut a = Map::new();
        put(&mut a, "cluster", scope);
        put(&mut a, "pve_key", key.clone());
        put(&mut a, "pve_id", g.vmid);
        put(&mut a, "kind", g.kind.as_str());
        put(&mut a, "node", g.node.clone());
        put(&mut a, "status", g.status.clone());
        put_opt(&mut a, "maxmem", g.maxmem);
        put_opt(&mut a, "maxdisk", g.maxdisk);
        put_opt(&mut a, "cpus", g.cpus);
        put_opt(&mut a, "pool", g.pool.clone());
        put_opt(&mut a, "lock", g.lock.clone());
        put_opt(&mut a, "hastate", g.hastate.clone());
        if !g.tags.is_empty() {
            put(&mut a, "tags", g.tags.clone());
        }
        let mut clear = vec!["pool", "lock", "hastate", "tags"];
        let node_key = format!("node/{}", g.node);
        edges.push(edge("hosts", &node_key, &key, json!({"via": VIA}), &key, "hosts"));
        known.insert((key.clone(), "hosts"));
        if let Some(cfg) = snap.configs.get(&g.vmid) {
            put_opt(&mut a, "ip", cfg.ip());
            put_opt(&mut a, "onboot", cfg.onboot);
            put_opt(&mut a, "ostype", cfg.ostype.clone());
            if !cfg.mounts.is_empty() {
                put(&mut a, "mounts", cfg.mounts.clone());
            }
            let bridges: BTreeSet<&str> = cfg.nets.iter().filter_map(|n| n.bridge.as_deref()).collect();
            put(&mut a, "bridges", bridges.into_iter().collect::<Vec<_>>());
            put(&mut a, "storages", cfg.storages.clone());
            clear.extend(["ip", "onboot", "ostype", "mounts"]);
            known.insert((key.clone(), "uses-storage"));
            known.insert((key.clone(), "attached-to"));
            for s in &cfg.storages {
                let skey =
                    if shared.contains_key(s.as_str()) { storage_key(s, None) } else { storage_key(s, Some(&g.node)) };
                edges.push(edge("uses-storage", &key, &skey, json!({"via": VIA}), &key, "uses-storage"));
            }
            // One edge per bridge; its interfaces (and VLAN tags) in the properties.
            let mut per_bridge: BTreeMap<&str, Vec<Json>> = BTreeMap::new();
            for n in &cfg.nets {
                if let Some(b) = n.bridge.as_deref() {
                    let mut p = Map::new();
                    put(&mut p, "iface", n.key.clone());
                    put_opt(&mut p, "tag", n.tag);
                    put_opt(&mut p, "hwaddr", n.hwaddr.clone());
                    per_bridge.entry(b).or_default().push(Json::Object(p));
                }
            }
            for (b, ifaces) in per_bridge {
                let bkey = format!("bridge/{}/{b}", g.node);
                edges.push(edge(
                    "attached-to",
                    &key,
                    &bkey,
                    json!({"via": VIA, "interfaces": ifaces}),
                    &key,
                    "attached-to",
                ));
            }
        }
        let state = match g.status.as_str() {
            "running" | "paused" | "suspended" | "prelaunch" => Some(EntityState::Active),
            "stopped" if !g.template => Some(EntityState::Stopped),
            _ if g.template => Some(EntityState::Active),
            // Unknown (its node is offline): whatever it was, it still is.
            _ => None,
        };
        wants.push(Want {
            clear,
            state,
            vmid: Some(g.vmid),
            node: Some(g.node.clone()),
            adopt: Adopt::Guest(g.vmid),
            ..Want::new(
                key,
                ty,
                g.name.clone(),
                [
                    slug_of(ty, &[&g.name]),
                    slug_of(ty, &[&g.name, &g.vmid.to_string()]),
                    slug_of(ty, &[&g.name, scope, &g.vmid.to_string()]),
                    slug_of(ty, &[scope, &g.vmid.to_string()]),
                ],
                a,
            )
        });
    }
    (wants, edges, known)
}

fn storage_attrs(
    scope: &str,
    key: &str,
    config: Option<&pve::StorageConfig>,
    row: Option<&pve::StorageRow>,
) -> Map<String, Json> {
    let mut a = Map::new();
    put(&mut a, "cluster", scope);
    put(&mut a, "pve_key", key);
    if let Some(c) = config {
        put(&mut a, "storage", c.storage.clone());
        put_opt(&mut a, "type", c.storage_type.clone());
        put_opt(&mut a, "content", c.content.clone());
        put_opt(&mut a, "path", c.path.clone());
        put_opt(&mut a, "server", c.server.clone());
    }
    if let Some(r) = row {
        put(&mut a, "storage", r.storage.clone());
        put(&mut a, "status", r.status.clone());
        put_opt(&mut a, "maxdisk", r.maxdisk);
        if config.is_none() {
            put_opt(&mut a, "type", r.plugintype.clone());
            put_opt(&mut a, "content", r.content.clone());
        }
    }
    a
}

/// A current edge of a kind discovery keeps, touching an entity in scope.
struct Current {
    id: String,
    rel: String,
    source_id: String,
    target_id: String,
    source_slug: String,
    target_slug: String,
    target_type: String,
    via: bool,
}

/// The family an edge belongs to, and which end owns it.
fn family_of(rel: &str, target_type: &str) -> Option<(&'static str, bool)> {
    // (family, owned by the source end)
    Some(match rel {
        "hosts" => ("hosts", false),
        "member-of" => ("member-of", true),
        "provides" if target_type == "storage" => ("provides-storage", true),
        "provides" => ("provides-bridge", true),
        "uses-storage" => ("uses-storage", true),
        "attached-to" => ("attached-to", true),
        _ => return None,
    })
}

/// Compares the snapshot with the graph read on `conn`.
pub(crate) async fn plan(conn: &mut SqliteConnection, snap: &Snapshot, via_host: &Entity) -> Result<Plan> {
    let Some(scope) = snap.scope() else {
        return Err(crate::Error::Invalid("the cluster's answer names no node; nothing to discover".into()));
    };
    let (wants, want_edges, known) = wants(snap, &scope, via_host);

    let sql = format!("SELECT {ENTITY_COLUMNS} FROM entities e WHERE e.type IN (SELECT value FROM json_each(?))");
    let rows = sqlx::query(&sql).bind(json!(TYPES).to_string()).fetch_all(&mut *conn).await?;
    let existing: Vec<Entity> = rows.iter().map(entity_from_row).collect::<Result<_>>()?;
    let mut taken: HashSet<String> = existing.iter().map(|e| e.slug.clone()).collect();
    // Entities this scope owns, by key; entities nobody owns, for adoption.
    let mut owned: HashMap<String, &Entity> = HashMap::new();
    for e in &existing {
        if let (Some(c), Some(k)) = (attr_str(e, "cluster"), attr_str(e, "pve_key")) {
            if c == scope {
                owned.insert(k.to_string(), e);
            }
        }
    }
    let unowned = |e: &&Entity| attr_str(e, "pve_key").is_none();
    let mut claimed: HashSet<&str> = HashSet::new();

    let mut plan = Plan { scope: scope.clone(), quorate: snap.status.quorate, ..Plan::default() };
    plan.warnings.extend(snap.warnings.iter().cloned());
    // key → (slug, entity if it exists, want index)
    let mut slugs: HashMap<String, String> = HashMap::new();
    let mut matched: Vec<Option<&Entity>> = Vec::with_capacity(wants.len());
    for w in &wants {
        let mut found = owned.get(&w.key).copied().filter(|e| !claimed.contains(e.id.as_str()));
        if found.is_none() {
            found = match &w.adopt {
                Adopt::Guest(vmid) => {
                    let mut c = existing.iter().filter(unowned).filter(|e| {
                        matches!(e.entity_type.as_str(), "lxc" | "vm" | "template")
                            && attr(e, "pve_id").and_then(Json::as_u64) == Some(*vmid)
                            && !claimed.contains(e.id.as_str())
                    });
                    // Adopt only when it is unambiguous.
                    match (c.next(), c.next()) {
                        (Some(e), None) => Some(e),
                        _ => None,
                    }
                }
                Adopt::Node { local } => {
                    let via = (*local && attr_str(via_host, "pve_key").is_none()).then_some(via_host);
                    via.and_then(|v| existing.iter().find(|e| e.id == v.id)).or_else(|| {
                        existing.iter().filter(unowned).find(|e| {
                            e.entity_type == "host"
                                && !claimed.contains(e.id.as_str())
                                && (w.slugs.first() == Some(&e.slug) || attr_str(e, "node") == w.node.as_deref())
                        })
                    })
                }
                Adopt::Slug => existing
                    .iter()
                    .filter(unowned)
                    .find(|e| w.slugs.first() == Some(&e.slug) && !claimed.contains(e.id.as_str())),
            };
        }
        // A guest turned into a template (or back) is another entity: the old one is gone.
        let found = found.filter(|e| e.entity_type == w.ty);
        if let Some(e) = found {
            claimed.insert(e.id.as_str());
            slugs.insert(w.key.clone(), e.slug.clone());
        } else {
            let slug = w
                .slugs
                .iter()
                .find(|s| !taken.contains(*s))
                .cloned()
                .or_else(|| {
                    let base = w.slugs.last()?;
                    (2..).map(|n| format!("{base}-{n}")).find(|s| !taken.contains(s))
                })
                .ok_or_else(|| crate::Error::Invalid(format!("no slug for `{}`", w.name)))?;
            taken.insert(slug.clone());
            slugs.insert(w.key.clone(), slug);
        }
        matched.push(found);
    }

    // What this scope owns and no longer sees is gone, unless this cycle could not look at it.
    let unread: Vec<&String> = snap.networks.iter().filter(|(_, v)| v.is_none()).map(|(k, _)| k).collect();
    let mut gone: Vec<&Entity> = Vec::new();
    for (key, e) in &owned {
        if claimed.contains(e.id.as_str()) || e.state == EntityState::Gone {
            continue;
        }
        let kept = (key.starts_with("bridge/") && unread.iter().any(|n| key.starts_with(&format!("bridge/{n}/"))))
            || (key.starts_with("net/") && !unread.is_empty());
        if kept {
            slugs.entry(key.clone()).or_insert_with(|| e.slug.clone());
        } else {
            gone.push(e);
        }
    }
    gone.sort_by(|a, b| a.slug.cmp(&b.slug));

    // The current edges of the kinds discovery keeps that touch anything in scope.
    let ids: Vec<&str> =
        matched.iter().flatten().map(|e| e.id.as_str()).chain(owned.values().map(|e| e.id.as_str())).collect();
    let rows = sqlx::query(
        "SELECT r.id, r.type, r.source_id, r.target_id, r.properties, s.slug AS s_slug, t.slug AS t_slug, t.type AS t_type
           FROM relationships r JOIN entities s ON s.id = r.source_id JOIN entities t ON t.id = r.target_id
          WHERE r.valid_to IS NULL AND r.type IN (SELECT value FROM json_each(?1))
            AND (r.source_id IN (SELECT value FROM json_each(?2)) OR r.target_id IN (SELECT value FROM json_each(?2)))",
    )
    .bind(json!(RELS).to_string())
    .bind(json!(ids).to_string())
    .fetch_all(&mut *conn)
    .await?;
    let mut current = Vec::with_capacity(rows.len());
    for row in &rows {
        let props: String = row.try_get("properties")?;
        let via = serde_json::from_str::<Json>(&props).ok().and_then(|p| p.get("via").cloned()) == Some(json!(VIA));
        current.push(Current {
            id: row.try_get("id")?,
            rel: row.try_get("type")?,
            source_id: row.try_get("source_id")?,
            target_id: row.try_get("target_id")?,
            source_slug: row.try_get("s_slug")?,
            target_slug: row.try_get("t_slug")?,
            target_type: row.try_get("t_type")?,
            via,
        });
    }
    let id_of_key: HashMap<&str, &str> = wants
        .iter()
        .zip(&matched)
        .filter_map(|(w, e)| e.map(|e| (w.key.as_str(), e.id.as_str())))
        .chain(owned.iter().map(|(k, e)| (k.as_str(), e.id.as_str())))
        .collect();
    let key_of_id: HashMap<&str, &str> = id_of_key.iter().map(|(k, id)| (*id, *k)).collect();

    // Desired edges by (type, source slug, target slug), for those whose ends are known.
    let mut desired: BTreeMap<(String, String, String), (Json, String)> = BTreeMap::new();
    for e in &want_edges {
        let (Some(s), Some(t)) = (slugs.get(&e.source), slugs.get(&e.target)) else { continue };
        desired.insert((e.rel.to_string(), s.clone(), t.clone()), (e.props.clone(), e.owner.clone()));
    }
    let present: HashSet<(String, String, String)> =
        current.iter().map(|c| (c.rel.clone(), c.source_slug.clone(), c.target_slug.clone())).collect();
    let gone_ids: HashSet<&str> = gone.iter().map(|e| e.id.as_str()).collect();
    let mut edge_changes: HashMap<String, Vec<EdgeChange>> = HashMap::new();
    for c in &current {
        let ends_with_gone = gone_ids.contains(c.source_id.as_str()) || gone_ids.contains(c.target_id.as_str());
        let Some((family, by_source)) = family_of(&c.rel, &c.target_type) else { continue };
        let owner_id = if by_source { &c.source_id } else { &c.target_id };
        let owner_key = key_of_id.get(owner_id.as_str()).copied();
        let stale = owner_key.is_some_and(|k| {
            known.contains(&(k.to_string(), family))
                && (c.via || c.rel == "hosts")
                && !desired.contains_key(&(c.rel.clone(), c.source_slug.clone(), c.target_slug.clone()))
        });
        if ends_with_gone || stale {
            plan.end_edges.push(c.id.clone());
            let owner = if ends_with_gone
                && gone_ids.contains(c.target_id.as_str())
                && !gone_ids.contains(c.source_id.as_str())
            {
                c.target_slug.clone()
            } else if by_source {
                c.source_slug.clone()
            } else {
                c.target_slug.clone()
            };
            edge_changes.entry(owner).or_default().push(EdgeChange {
                op: EdgeOp::End,
                rel_type: c.rel.clone(),
                source: c.source_slug.clone(),
                target: c.target_slug.clone(),
            });
        }
    }
    for ((rel, s, t), (props, owner)) in &desired {
        if present.contains(&(rel.clone(), s.clone(), t.clone())) {
            continue;
        }
        plan.add_edges.push((rel.clone(), s.clone(), t.clone(), props.clone()));
        let owner_slug = slugs.get(owner).cloned().unwrap_or_else(|| s.clone());
        edge_changes.entry(owner_slug).or_default().push(EdgeChange {
            op: EdgeOp::Add,
            rel_type: rel.clone(),
            source: s.clone(),
            target: t.clone(),
        });
    }

    // Entities: new, changed, moved, renamed.
    for (w, found) in wants.iter().zip(&matched) {
        let slug = slugs.get(&w.key).cloned().unwrap_or_default();
        let edges = edge_changes.remove(&slug).unwrap_or_default();
        let mut attrs = w.attrs.clone();
        // A guest's `host` is how commands reach it (`pct exec` on that node).
        if let Some(node) = &w.node {
            if matches!(w.ty, "lxc" | "vm" | "template") {
                if let Some(h) = slugs.get(&format!("node/{node}")) {
                    put(&mut attrs, "host", h.clone());
                }
            }
        }
        match found {
            None => {
                for (k, v) in &w.if_absent {
                    attrs.entry(k.clone()).or_insert_with(|| v.clone());
                }
                plan.upserts.push(Upsert {
                    slug: slug.clone(),
                    ty: w.ty.to_string(),
                    name: w.name.clone(),
                    attrs: attrs.clone(),
                    state: Some(w.state.unwrap_or(EntityState::Active)),
                    new: true,
                });
                plan.items.push(DiffItem {
                    kind: DiffKind::New,
                    slug,
                    entity_type: w.ty.to_string(),
                    name: w.name.clone(),
                    vmid: w.vmid,
                    moved: None,
                    renamed: None,
                    back: false,
                    attributes: attrs
                        .iter()
                        .map(|(k, v)| AttrChange { key: k.clone(), from: Json::Null, to: v.clone() })
                        .collect(),
                    edges,
                });
                if let (Some(vmid), Some(node)) = (w.vmid, &w.node) {
                    if !snap.configs.contains_key(&vmid) {
                        plan.needs_config.push((node.clone(), guest_kind(&attrs), vmid));
                    }
                }
            }
            Some(e) => {
                let mut changes = Vec::new();
                let mut patch = Map::new();
                for (k, v) in &attrs {
                    if attr(e, k) != Some(v) {
                        changes.push(AttrChange {
                            key: k.clone(),
                            from: attr(e, k).cloned().unwrap_or(Json::Null),
                            to: v.clone(),
                        });
                        patch.insert(k.clone(), v.clone());
                    }
                }
                for k in &w.clear {
                    if !attrs.contains_key(*k) {
                        if let Some(old) = attr(e, k) {
                            changes.push(AttrChange { key: (*k).to_string(), from: old.clone(), to: Json::Null });
                            patch.insert((*k).to_string(), Json::Null);
                        }
                    }
                }
                for (k, v) in &w.if_absent {
                    if attr(e, k).is_none() {
                        changes.push(AttrChange { key: k.clone(), from: Json::Null, to: v.clone() });
                        patch.insert(k.clone(), v.clone());
                    }
                }
                let back = e.state == EntityState::Gone;
                let state = if back { Some(w.state.unwrap_or(EntityState::Active)) } else { w.state };
                let state_change = state.filter(|s| *s != e.state);
                if let Some(s) = state_change {
                    changes.push(AttrChange { key: "state".into(), from: json!(e.state), to: json!(s) });
                }
                let renamed = (e.name != w.name).then(|| FromTo { from: e.name.clone(), to: w.name.clone() });
                let moved = match (attr_str(e, "node"), &w.node) {
                    (Some(from), Some(to)) if from != to && w.vmid.is_some() => {
                        Some(FromTo { from: from.to_string(), to: to.clone() })
                    }
                    _ => None,
                };
                let config_unread = w.vmid.is_some() && attr(e, "bridges").is_none();
                let row_changed = !changes.is_empty() || renamed.is_some();
                if let (Some(vmid), Some(node)) = (w.vmid, &w.node) {
                    if (row_changed || config_unread) && !snap.configs.contains_key(&vmid) {
                        plan.needs_config.push((node.clone(), guest_kind(&attrs), vmid));
                    }
                }
                if !row_changed && edges.is_empty() {
                    plan.unchanged += 1;
                    continue;
                }
                let kind = if back {
                    DiffKind::New
                } else if moved.is_some() {
                    DiffKind::Moved
                } else if renamed.is_some() && w.vmid.is_some() {
                    DiffKind::Renamed
                } else {
                    DiffKind::Changed
                };
                if renamed.is_some() && w.vmid.is_none() {
                    changes.push(AttrChange { key: "name".into(), from: json!(e.name), to: json!(w.name) });
                }
                if row_changed {
                    plan.upserts.push(Upsert {
                        slug: e.slug.clone(),
                        ty: w.ty.to_string(),
                        name: w.name.clone(),
                        attrs: patch,
                        state: state_change,
                        new: false,
                    });
                }
                plan.items.push(DiffItem {
                    kind,
                    slug: e.slug.clone(),
                    entity_type: w.ty.to_string(),
                    name: w.name.clone(),
                    vmid: w.vmid,
                    moved,
                    renamed,
                    back,
                    attributes: changes,
                    edges,
                });
            }
        }
    }
    for e in gone {
        let edges = edge_changes.remove(&e.slug).unwrap_or_default();
        plan.gone.push(e.slug.clone());
        plan.items.push(DiffItem {
            kind: DiffKind::Gone,
            slug: e.slug.clone(),
            entity_type: e.entity_type.clone(),
            name: e.name.clone(),
            vmid: attr(e, "pve_id").and_then(Json::as_u64),
            moved: None,
            renamed: None,
            back: false,
            attributes: vec![AttrChange { key: "state".into(), from: json!(e.state), to: json!(EntityState::Gone) }],
            edges,
        });
    }
    // Edges whose owner has no item of its own (an inventory entity's edge ended): on their own line.
    for (slug, edges) in edge_changes {
        if edges.is_empty() {
            continue;
        }
        let e = existing.iter().find(|e| e.slug == slug);
        plan.items.push(DiffItem {
            kind: DiffKind::Changed,
            entity_type: e.map(|e| e.entity_type.clone()).unwrap_or_default(),
            name: e.map(|e| e.name.clone()).unwrap_or_else(|| slug.clone()),
            slug,
            vmid: None,
            moved: None,
            renamed: None,
            back: false,
            attributes: vec![],
            edges,
        });
    }
    let order = |t: &str| TYPES.iter().position(|x| *x == t).unwrap_or(TYPES.len());
    plan.items.sort_by(|a, b| order(&a.entity_type).cmp(&order(&b.entity_type)).then_with(|| a.slug.cmp(&b.slug)));
    plan.needs_config.sort();
    plan.needs_config.dedup();
    Ok(plan)
}

fn guest_kind(attrs: &Map<String, Json>) -> Kind {
    match attrs.get("kind").and_then(Json::as_str) {
        Some("qemu") => Kind::Qemu,
        _ => Kind::Lxc,
    }
}
