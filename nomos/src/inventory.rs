//! Importing a homelab description (hosts, storage, networks, LXCs, VMs, services and their
//! relationships) from YAML.
//!
//! Import is idempotent and additive: entities are matched by slug and their attributes merged, so
//! importing the same file twice changes nothing, and entities the file does not mention (found by
//! discovery, written by the agent) are left alone. Single-valued relationships follow the file:
//! if it now puts an LXC on another host, the old `hosts` edge is ended (kept in history) and the new
//! one created. Everything happens in one transaction — a bad file changes nothing.
//!
//! ```yaml
//! hosts:
//!   - { name: strong, address: 192.168.1.10, ssh_port: 22, ssh_user: root, ssh_key: ~/.ssh/oikos_ed25519 }
//! storage:
//!   - { name: local-zfs, host: strong, attributes: { type: zfspool } }
//! networks:
//!   - { name: lan, attributes: { cidr: 192.168.1.0/24 } }
//!   - { name: vmbr0, type: bridge }
//! lxcs:
//!   - { name: caddy, pve_id: 101, host: strong, ip: 192.168.1.21, storage: [local-zfs], networks: [lan] }
//! vms:
//!   - { name: haos, pve_id: 200, host: strong }
//! services:
//!   - { name: caddy, runs_on: lxc:caddy, port: 443 }
//! entities:            # anything else the ontology knows
//!   - { type: dns-record, name: git.home.arpa }
//! relationships:
//!   - { source: service:caddy, type: routes-to, target: service:gitea }
//! checks:              # what Observe checks (see `nomos checks add`)
//!   - { entity: lxc:caddy, name: caddy, kind: service, unit: caddy }
//!   - { entity: lxc:caddy, name: https, kind: http, url: "https://192.168.1.21/", expect_status: 200, interval_s: 120 }
//! ```

use std::collections::{HashMap, HashSet};
use std::path::Path;

use nomos_types::events::InventoryImported;
use nomos_types::{Entity, ImportCounts, ImportReport, Json};
use serde::Deserialize;
use serde_json::{json, Map};

use crate::events::EventDraft;
use crate::graph::entities::{upsert_entity_in, Change, IfExists, NewEntity};
use crate::graph::find_entity;
use crate::graph::relations::{link_in, OnConflict};
use crate::store::WriteTx;
use crate::{Engine, Error, Result};

/// The demo homelab shipped with Oikos (also offered by the desktop when the database is empty).
pub const DEMO_INVENTORY: &str = include_str!(concat!(env!("CARGO_MANIFEST_DIR"), "/../seeds/demo-inventory.yaml"));

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Inventory {
    #[serde(default)]
    pub hosts: Vec<HostEntry>,
    #[serde(default)]
    pub storage: Vec<StorageEntry>,
    #[serde(default)]
    pub networks: Vec<NetworkEntry>,
    #[serde(default)]
    pub lxcs: Vec<GuestEntry>,
    #[serde(default)]
    pub vms: Vec<GuestEntry>,
    #[serde(default)]
    pub services: Vec<ServiceEntry>,
    #[serde(default)]
    pub entities: Vec<EntityEntry>,
    #[serde(default)]
    pub relationships: Vec<RelationshipEntry>,
    #[serde(default)]
    pub checks: Vec<nomos_types::CheckSpec>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct HostEntry {
    pub name: String,
    #[serde(default)]
    pub slug: Option<String>,
    pub address: String,
    #[serde(default = "default_ssh_port")]
    pub ssh_port: u16,
    #[serde(default = "default_ssh_user")]
    pub ssh_user: String,
    /// Private key file for this host (a path, `~` allowed). Without it the ssh-agent and the
    /// usual `~/.ssh/id_*` files are tried. The key itself never enters the database.
    #[serde(default)]
    pub ssh_key: Option<String>,
    #[serde(default)]
    pub attributes: Map<String, Json>,
}

fn default_ssh_port() -> u16 {
    22
}

fn default_ssh_user() -> String {
    "root".into()
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct StorageEntry {
    pub name: String,
    #[serde(default)]
    pub slug: Option<String>,
    /// The host that provides it (omit for shared storage such as a NAS export).
    #[serde(default)]
    pub host: Option<String>,
    #[serde(default)]
    pub attributes: Map<String, Json>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NetworkEntry {
    pub name: String,
    #[serde(default)]
    pub slug: Option<String>,
    /// `network` (default) or `bridge`.
    #[serde(default, rename = "type")]
    pub network_type: Option<String>,
    #[serde(default)]
    pub attributes: Map<String, Json>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GuestEntry {
    pub name: String,
    #[serde(default)]
    pub slug: Option<String>,
    pub pve_id: u32,
    pub host: String,
    #[serde(default)]
    pub ip: Option<String>,
    #[serde(default)]
    pub storage: Vec<String>,
    #[serde(default)]
    pub networks: Vec<String>,
    #[serde(default)]
    pub attributes: Map<String, Json>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ServiceEntry {
    pub name: String,
    #[serde(default)]
    pub slug: Option<String>,
    /// Slug of the machine or container it runs on (`lxc:caddy`).
    pub runs_on: String,
    #[serde(default)]
    pub port: Option<u16>,
    #[serde(default)]
    pub attributes: Map<String, Json>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EntityEntry {
    #[serde(rename = "type")]
    pub entity_type: String,
    pub name: String,
    #[serde(default)]
    pub slug: Option<String>,
    #[serde(default)]
    pub attributes: Map<String, Json>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RelationshipEntry {
    pub source: String,
    #[serde(rename = "type")]
    pub rel_type: String,
    pub target: String,
    #[serde(default)]
    pub properties: Map<String, Json>,
}

impl Inventory {
    pub fn parse(text: &str, source_name: &str) -> Result<Inventory> {
        serde_yaml_ng::from_str(text)
            .map_err(|e| Error::Inventory { source_name: source_name.to_string(), message: e.to_string() })
    }
}

/// A reference to another entity: a full slug (`host:strong`) or a bare name of the expected type.
fn reference(value: &str, default_type: &str) -> String {
    let value = value.trim();
    if value.contains(':') {
        value.to_string()
    } else {
        format!("{default_type}:{}", crate::graph::slugify(value))
    }
}

fn with(mut attrs: Map<String, Json>, extra: impl IntoIterator<Item = (&'static str, Json)>) -> Json {
    for (k, v) in extra {
        if !v.is_null() {
            attrs.insert(k.to_string(), v);
        }
    }
    Json::Object(attrs)
}

struct Importer<'a> {
    engine: &'a Engine,
    source_name: &'a str,
    report: ImportReport,
    seen: HashSet<String>,
    /// Single-valued slots this file has filled: (relationship, endpoint slug) → the other end.
    /// Two entries filling one slot differently would replace each other on every import.
    slots: HashMap<(String, String), String>,
}

impl Importer<'_> {
    fn fail(&self, at: &str, message: impl std::fmt::Display) -> Error {
        Error::Inventory { source_name: self.source_name.to_string(), message: format!("{at}: {message}") }
    }

    async fn entity(&mut self, tx: &mut WriteTx, at: &str, new: NewEntity) -> Result<Entity> {
        let (entity, change) =
            upsert_entity_in(tx, self.engine.ontology(), &new, IfExists::Merge).await.map_err(|e| self.fail(at, e))?;
        // A second entry for the same slug would silently merge into the first: the file is wrong.
        if !self.seen.insert(entity.slug.clone()) {
            return Err(self.fail(at, format!("`{}` is listed twice", entity.slug)));
        }
        count(&mut self.report.entities, change);
        Ok(entity)
    }

    async fn link(
        &mut self,
        tx: &mut WriteTx,
        at: &str,
        rel: &str,
        source: &str,
        target: &str,
        props: Json,
    ) -> Result<()> {
        let s = find_entity(tx, source)
            .await?
            .ok_or_else(|| self.fail(at, format!("`{source}` is not in this file or the database")))?;
        let t = find_entity(tx, target)
            .await?
            .ok_or_else(|| self.fail(at, format!("`{target}` is not in this file or the database")))?;
        if let Some(def) = self.engine.ontology().relationship_type(rel) {
            let mut slots = Vec::new();
            if def.cardinality.single_target() {
                slots.push((s.slug.clone(), t.slug.clone(), "target"));
            }
            if def.cardinality.single_source() {
                slots.push((t.slug.clone(), s.slug.clone(), "source"));
            }
            for (owner, other, end) in slots {
                match self.slots.get(&(rel.to_string(), owner.clone())) {
                    Some(first) if *first != other => {
                        return Err(
                            self.fail(at, format!("the file gives `{owner}` two `{rel}` {end}s: {first} and {other}"))
                        )
                    }
                    _ => {
                        self.slots.insert((rel.to_string(), owner), other);
                    }
                }
            }
        }
        let linked = link_in(tx, self.engine.ontology(), rel, &s, &t, &props, OnConflict::Replace)
            .await
            .map_err(|e| self.fail(at, e))?;
        count(&mut self.report.relationships, linked.change);
        self.report.relationships_ended += linked.ended;
        Ok(())
    }
}

fn count(c: &mut ImportCounts, change: Change) {
    match change {
        Change::Created => c.created += 1,
        Change::Updated => c.updated += 1,
        Change::Unchanged => c.unchanged += 1,
    }
}

fn entry(section: &str, i: usize, name: &str) -> String {
    format!("{section}[{i}] ({name})")
}

/// Where the lab (`nomos lab up`, the crate `nomos-lab`) writes its inventory by default:
/// `<data dir>/oikos/lab/inventory.yaml`. Read by path so the engine and the desktop need not
/// link the lab.
pub fn lab_inventory_path() -> Option<std::path::PathBuf> {
    dirs::data_dir().map(|d| d.join("oikos").join("lab").join("inventory.yaml"))
}

impl Engine {
    /// Imports an inventory from YAML text. `source_name` names it in errors and in the event.
    pub async fn import_inventory(&self, text: &str, source_name: &str) -> Result<ImportReport> {
        let inv = Inventory::parse(text, source_name)?;
        let mut tx = self.store().begin_write().await?;
        let mut imp = Importer {
            engine: self,
            source_name,
            report: ImportReport::default(),
            seen: HashSet::new(),
            slots: HashMap::new(),
        };
        // Pending edges, applied once every entity of the file exists: (where, type, source, target).
        let mut edges: Vec<(String, String, String, String, Json)> = Vec::new();

        for (i, h) in inv.hosts.iter().enumerate() {
            let at = entry("hosts", i, &h.name);
            let attrs = with(
                h.attributes.clone(),
                [
                    ("address", json!(h.address)),
                    ("ssh_port", json!(h.ssh_port)),
                    ("ssh_user", json!(h.ssh_user)),
                    ("ssh_key", json!(h.ssh_key)),
                ],
            );
            let mut new = NewEntity::new("host", &h.name).attributes(attrs);
            new.slug = h.slug.clone();
            imp.entity(&mut tx, &at, new).await?;
        }
        for (i, s) in inv.storage.iter().enumerate() {
            let at = entry("storage", i, &s.name);
            let mut new = NewEntity::new("storage", &s.name).attributes(Json::Object(s.attributes.clone()));
            new.slug = s.slug.clone();
            let e = imp.entity(&mut tx, &at, new).await?;
            if let Some(host) = &s.host {
                edges.push((at, "provides".into(), reference(host, "host"), e.slug, json!({})));
            }
        }
        for (i, n) in inv.networks.iter().enumerate() {
            let at = entry("networks", i, &n.name);
            let ty = n.network_type.as_deref().unwrap_or("network");
            if ty != "network" && ty != "bridge" {
                return Err(imp.fail(&at, format!("type must be network or bridge, not `{ty}`")));
            }
            let mut new = NewEntity::new(ty, &n.name).attributes(Json::Object(n.attributes.clone()));
            new.slug = n.slug.clone();
            imp.entity(&mut tx, &at, new).await?;
        }
        for (section, ty, guests) in [("lxcs", "lxc", &inv.lxcs), ("vms", "vm", &inv.vms)] {
            for (i, g) in guests.iter().enumerate() {
                let at = entry(section, i, &g.name);
                let host = reference(&g.host, "host");
                let attrs = with(
                    g.attributes.clone(),
                    [
                        ("pve_id", json!(g.pve_id)),
                        ("host", json!(host)),
                        ("ip", g.ip.as_ref().map(|ip| json!(ip)).unwrap_or(Json::Null)),
                    ],
                );
                let mut new = NewEntity::new(ty, &g.name).attributes(attrs);
                new.slug = g.slug.clone();
                let e = imp.entity(&mut tx, &at, new).await?;
                edges.push((at.clone(), "hosts".into(), host, e.slug.clone(), json!({})));
                for s in &g.storage {
                    edges.push((at.clone(), "uses-storage".into(), e.slug.clone(), reference(s, "storage"), json!({})));
                }
                for n in &g.networks {
                    edges.push((at.clone(), "member-of".into(), e.slug.clone(), reference(n, "network"), json!({})));
                }
            }
        }
        for (i, s) in inv.services.iter().enumerate() {
            let at = entry("services", i, &s.name);
            let attrs = with(s.attributes.clone(), [("port", s.port.map(|p| json!(p)).unwrap_or(Json::Null))]);
            let mut new = NewEntity::new("service", &s.name).attributes(attrs);
            new.slug = s.slug.clone();
            let e = imp.entity(&mut tx, &at, new).await?;
            edges.push((at, "runs-on".into(), e.slug, s.runs_on.trim().to_string(), json!({})));
        }
        for (i, x) in inv.entities.iter().enumerate() {
            let at = entry("entities", i, &x.name);
            let mut new = NewEntity::new(&x.entity_type, &x.name).attributes(Json::Object(x.attributes.clone()));
            new.slug = x.slug.clone();
            imp.entity(&mut tx, &at, new).await?;
        }
        for (i, r) in inv.relationships.iter().enumerate() {
            let at = format!("relationships[{i}] ({} {} {})", r.source, r.rel_type, r.target);
            edges.push((
                at,
                r.rel_type.clone(),
                r.source.trim().into(),
                r.target.trim().into(),
                Json::Object(r.properties.clone()),
            ));
        }
        for (at, rel, source, target, props) in edges {
            imp.link(&mut tx, &at, &rel, &source, &target, props).await?;
        }
        for (i, c) in inv.checks.iter().enumerate() {
            let at = format!("checks[{i}] ({} on {})", c.name, c.entity);
            crate::observe::checks::add_in(&mut tx, c).await.map_err(|e| imp.fail(&at, e.to_string()))?;
        }

        let report = imp.report;
        tx.emit(EventDraft::new(InventoryImported { source: source_name.to_string(), report: report.clone() })).await?;
        tx.commit().await?;
        tracing::info!(source = source_name, ?report, "inventory imported");
        Ok(report)
    }

    /// Imports an inventory file.
    pub async fn import_inventory_file(&self, path: &Path) -> Result<ImportReport> {
        let text = tokio::fs::read_to_string(path)
            .await
            .map_err(|e| Error::Inventory { source_name: path.display().to_string(), message: e.to_string() })?;
        self.import_inventory(&text, &path.display().to_string()).await
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::engine;
    use nomos_types::EntityQuery;

    #[tokio::test]
    async fn demo_inventory_imports_idempotently() {
        let (_dir, eng) = engine().await;
        let first = eng.import_inventory(DEMO_INVENTORY, "demo").await.unwrap();
        assert!(first.entities.created >= 20, "{first:?}");
        assert_eq!(first.entities.updated + first.entities.unchanged, 0);
        assert!(first.relationships.created >= 20, "{first:?}");
        let second = eng.import_inventory(DEMO_INVENTORY, "demo").await.unwrap();
        assert_eq!(second.entities.created + second.entities.updated, 0, "{second:?}");
        assert_eq!(second.entities.unchanged, first.entities.created);
        assert_eq!(second.relationships.created + second.relationships.updated, 0);
        assert_eq!(second.relationships_ended, 0);

        let hosts =
            eng.list_entities(&EntityQuery { entity_type: Some("host".into()), ..Default::default() }).await.unwrap();
        assert!((2..=3).contains(&hosts.total), "{}", hosts.total);
        let lxcs =
            eng.list_entities(&EntityQuery { entity_type: Some("lxc".into()), ..Default::default() }).await.unwrap();
        assert!(lxcs.total >= 8, "{}", lxcs.total);
        let caddy = eng.entity("lxc:caddy").await.unwrap();
        assert!(caddy.attributes["pve_id"].is_u64());
        let host = caddy.attributes["host"].as_str().unwrap().to_string();
        let h = eng.entity(&host).await.unwrap();
        assert!(h.attributes["address"].is_string());
        assert_eq!(h.attributes["ssh_user"], "root");
        // A realistic graph: losing the postgres LXC hurts something beyond itself.
        let b = eng.blast_radius("lxc:postgres", None).await.unwrap();
        assert!(b.hits.len() >= 3, "{:?}", b.hits);
    }

    const SMALL: &str = "
hosts:
  - { name: strong, address: 10.0.0.2 }
  - { name: quiet, address: 10.0.0.3, ssh_port: 2222, ssh_user: admin, ssh_key: /keys/quiet }
lxcs:
  - { name: caddy, pve_id: 101, host: strong, ip: 10.0.0.21 }
services:
  - { name: caddy, runs_on: lxc:caddy, port: 443 }
";

    #[tokio::test]
    async fn a_moved_guest_ends_the_old_edge_and_merges_attributes() {
        let (_dir, eng) = engine().await;
        eng.import_inventory(SMALL, "small").await.unwrap();
        eng.merge_attributes("lxc:caddy", &json!({"discovered": true})).await.unwrap();
        let moved = SMALL.replace("host: strong, ip: 10.0.0.21", "host: quiet, ip: 10.0.0.21");
        let report = eng.import_inventory(&moved, "small").await.unwrap();
        assert_eq!(report.entities.updated, 1, "{report:?}");
        assert_eq!(report.relationships_ended, 1, "{report:?}");
        assert_eq!(report.relationships.created, 1, "{report:?}");
        let caddy = eng.entity("lxc:caddy").await.unwrap();
        assert_eq!(caddy.attributes["host"], "host:quiet");
        assert_eq!(caddy.attributes["discovered"], true, "attributes from elsewhere are kept");
        let history = eng.relations("lxc:caddy", true).await.unwrap();
        let hosted: Vec<(&str, bool)> =
            history.iter().filter(|r| r.rel_type == "hosts").map(|r| (&*r.other.slug, r.valid_to.is_none())).collect();
        assert_eq!(hosted.len(), 2);
        assert!(hosted.contains(&("host:quiet", true)));
        assert!(hosted.contains(&("host:strong", false)));
        let q = eng.entity("host:quiet").await.unwrap();
        assert_eq!(q.attributes["ssh_port"], 2222);
        assert_eq!(q.attributes["ssh_user"], "admin");
        assert_eq!(q.attributes["ssh_key"], "/keys/quiet");
    }

    #[tokio::test]
    async fn checks_come_with_their_entities() {
        let (_dir, eng) = engine().await;
        let yaml = "hosts: [{ name: pve1, address: 10.0.0.1 }]\nlxcs: [{ name: caddy, pve_id: 101, host: pve1 }]\n\
                    checks:\n  - { entity: lxc:caddy, name: caddy, kind: service, unit: caddy }\n\
                    \x20 - { entity: lxc:caddy, name: https, kind: http, url: 'https://10.0.0.21/', expect_status: 200, interval_s: 120 }\n";
        eng.import_inventory(yaml, "with checks").await.unwrap();
        eng.import_inventory(yaml, "with checks").await.unwrap();
        let checks = eng.entity_checks("lxc:caddy").await.unwrap();
        assert_eq!(checks.len(), 2, "{checks:?}");
        assert_eq!(checks[1].name, "https");
        assert_eq!(checks[1].interval_s, 120);
    }

    #[tokio::test]
    async fn bad_files_change_nothing_and_say_where() {
        let (_dir, eng) = engine().await;
        let cases = [
            ("hosts: [{ name: a }]", "missing field `address`"),
            (
                "lxcs: [{ name: x, pve_id: 1, host: nowhere }]",
                "lxcs[0] (x): `host:nowhere` is not in this file or the database",
            ),
            ("hosts: [{ name: a, address: b, colour: red }]", "unknown field `colour`"),
            ("entities: [{ type: toaster, name: t }]", "entities[0] (t): unknown entity type `toaster`"),
            (
                "hosts: [{name: a, address: b}]\nrelationships: [{ source: host:a, type: likes, target: host:a }]",
                "unknown relationship type `likes`",
            ),
            ("hosts: [{name: a, address: b}, {name: A, address: c}]", "`host:a` is listed twice"),
            ("networks: [{ name: n, type: vlan }]", "type must be network or bridge"),
            ("hosts: 5", "hosts: invalid type: integer `5`, expected a sequence"),
            (
                "hosts: [{name: a, address: b}, {name: c, address: d}]\nlxcs: [{ name: x, pve_id: 1, host: a }]\nrelationships: [{ source: host:c, type: hosts, target: lxc:x }]",
                "the file gives `lxc:x` two `hosts` sources: host:a and host:c",
            ),
            (
                "hosts: [{name: a, address: b}]\nchecks: [{ entity: host:a, name: web, kind: http, url: ftp://x, expect_status: 200 }]",
                "checks[0] (web on host:a): `ftp://x` is not an http(s) URL",
            ),
            ("checks: [{ entity: host:a, name: s, kind: telepathy }]", "unknown variant `telepathy`"),
        ];
        for (yaml, expect) in cases {
            let err = eng.import_inventory(yaml, "bad").await.unwrap_err().to_string();
            assert!(err.contains(expect), "{yaml}: {err}");
            assert!(err.starts_with("inventory bad: "), "{err}");
        }
        let n: i64 = sqlx::query_scalar("SELECT count(*) FROM entities").fetch_one(eng.store().pool()).await.unwrap();
        assert_eq!(n, 0);
        let ev: i64 = sqlx::query_scalar("SELECT count(*) FROM events").fetch_one(eng.store().pool()).await.unwrap();
        assert_eq!(ev, 0);
    }

    #[tokio::test]
    async fn import_announces_itself() {
        let (_dir, eng) = engine().await;
        let mut rx = eng.subscribe();
        eng.import_inventory(SMALL, "small").await.unwrap();
        let kinds: Vec<String> = std::iter::from_fn(|| rx.try_recv().ok()).map(|e| e.kind().to_string()).collect();
        assert_eq!(kinds.iter().filter(|k| *k == "entity.created").count(), 4);
        assert_eq!(kinds.last().map(String::as_str), Some("inventory.imported"));
    }
}
