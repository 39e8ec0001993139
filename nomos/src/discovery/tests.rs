//! Discovery against answers shaped from Proxmox VE's API schema: plan, apply, and every diff kind.

use nomos_types::discovery::{DiffKind, EdgeOp};
use nomos_types::{DiscoveryDiff, EntityState};
use serde_json::{json, Value as Json};

use super::apply::ApplyBy;
use super::{DiscoveryError, Snapshot};
use crate::testing::engine;
use crate::Engine;

/// One guest of a fixture cluster.
#[derive(Clone)]
struct G {
    vmid: u64,
    kind: &'static str,
    name: String,
    node: String,
    status: &'static str,
    template: bool,
    /// Extra fields of its `/cluster/resources` row.
    row: Json,
    /// Its configuration (`/nodes/{node}/{kind}/{vmid}/config`).
    config: Json,
}

fn lxc(vmid: u64, name: &str, node: &str) -> G {
    G {
        vmid,
        kind: "lxc",
        name: name.into(),
        node: node.into(),
        status: "running",
        template: false,
        row: json!({}),
        config: json!({
            "hostname": name, "cores": 1, "memory": 512, "ostype": "debian", "onboot": 1,
            "rootfs": format!("local-lvm:vm-{vmid}-disk-0,size=8G"),
            "net0": format!("name=eth0,bridge=vmbr0,firewall=1,gw=10.0.0.1,hwaddr=BC:24:11:00:00:{:02X},ip=10.0.0.{}/24,type=veth", vmid % 256, vmid % 250),
            "digest": "0123"
        }),
    }
}

fn vm(vmid: u64, name: &str, node: &str) -> G {
    G {
        vmid,
        kind: "qemu",
        name: name.into(),
        node: node.into(),
        status: "stopped",
        template: false,
        row: json!({}),
        config: json!({
            "name": name, "cores": 2, "sockets": 1, "memory": "4096",
            "scsi0": format!("nas:vm-{vmid}-disk-0,iothread=1,size=32G"),
            "net0": "virtio=BC:24:11:AA:00:01,bridge=vmbr0,firewall=1",
            "net1": "virtio=BC:24:11:AA:00:02,bridge=vmbr1,tag=20",
            "ipconfig0": "ip=10.0.0.200/24,gw=10.0.0.1", "ide2": "none,media=cdrom"
        }),
    }
}

/// A fixture cluster: what its nodes answer.
#[derive(Clone)]
struct Fx {
    cluster: Option<&'static str>,
    /// (name, online)
    nodes: Vec<(String, bool)>,
    local: String,
    guests: Vec<G>,
}

impl Fx {
    fn new(cluster: Option<&'static str>, nodes: &[&str]) -> Fx {
        Fx {
            cluster,
            nodes: nodes.iter().map(|n| (n.to_string(), true)).collect(),
            local: nodes[0].to_string(),
            guests: vec![],
        }
    }

    fn online(&self, node: &str) -> bool {
        self.nodes.iter().any(|(n, on)| n == node && *on)
    }

    fn status(&self) -> String {
        let mut out = vec![];
        if let Some(name) = self.cluster {
            let online = self.nodes.iter().filter(|(_, on)| *on).count();
            out.push(json!({"type": "cluster", "id": "cluster", "name": name, "nodes": self.nodes.len(),
                            "quorate": u8::from(online * 2 > self.nodes.len()), "version": 3}));
        }
        for (i, (n, on)) in self.nodes.iter().enumerate() {
            out.push(json!({"type": "node", "id": format!("node/{n}"), "name": n, "nodeid": i + 1,
                            "ip": format!("10.0.0.{}", 10 + i), "local": u8::from(*n == self.local),
                            "online": u8::from(*on), "level": ""}));
        }
        Json::Array(out).to_string()
    }

    fn resources(&self) -> String {
        let mut out = vec![];
        for (n, on) in &self.nodes {
            out.push(json!({"id": format!("node/{n}"), "type": "node", "node": n,
                            "status": if *on { "online" } else { "offline" }, "maxcpu": 8,
                            "maxmem": "34359738368", "cpu": 0.03, "mem": 1234, "uptime": 999}));
            for (s, shared, plugin) in [("local", 0, "dir"), ("local-lvm", 0, "lvmthin"), ("nas", 1, "nfs")] {
                out.push(json!({"id": format!("storage/{n}/{s}"), "type": "storage", "storage": s, "node": n,
                                "status": if *on { "available" } else { "unknown" }, "plugintype": plugin,
                                "shared": shared, "content": "images,rootdir", "maxdisk": 107374182400_u64}));
            }
        }
        for g in &self.guests {
            let mut row = json!({"id": format!("{}/{}", g.kind, g.vmid), "type": g.kind, "vmid": g.vmid,
                                 "name": g.name, "node": g.node,
                                 "status": if self.online(&g.node) { g.status } else { "unknown" },
                                 "template": u8::from(g.template), "maxmem": 536870912, "maxdisk": 8589934592_u64,
                                 "maxcpu": 1, "cpu": 0.01, "mem": 1000, "netin": 5, "uptime": 100});
            if let (Some(r), Some(extra)) = (row.as_object_mut(), g.row.as_object()) {
                for (k, v) in extra {
                    r.insert(k.clone(), v.clone());
                }
            }
            out.push(row);
        }
        // Pools and SDN zones are listed too, and ignored.
        out.push(json!({"id": "/pool/prod", "type": "pool", "pool": "prod"}));
        out.push(json!({"id": "sdn/pve1/localnetwork", "type": "sdn", "sdn": "localnetwork", "node": "pve1", "status": "ok"}));
        Json::Array(out).to_string()
    }

    fn storage(&self) -> String {
        json!([
            {"storage": "local", "type": "dir", "path": "/var/lib/vz", "content": "iso,vztmpl,backup", "digest": "x"},
            {"storage": "local-lvm", "type": "lvmthin", "thinpool": "data", "vgname": "pve", "content": "rootdir,images"},
            {"storage": "nas", "type": "nfs", "server": "10.0.0.50", "export": "/export/pve", "path": "/mnt/pve/nas",
             "content": "images,backup", "shared": 1}
        ])
        .to_string()
    }

    fn network(&self, i: usize) -> String {
        json!([
            {"iface": "eno1", "type": "eth", "active": 1, "method": "manual", "families": ["inet"]},
            {"iface": "vmbr0", "type": "bridge", "active": 1, "autostart": 1, "method": "static",
             "address": format!("10.0.0.{}", 10 + i), "netmask": "24", "cidr": format!("10.0.0.{}/24", 10 + i),
             "gateway": "10.0.0.1", "bridge_ports": "eno1", "bridge_stp": "off", "bridge_fd": "0", "families": ["inet"]},
            {"iface": "vmbr1", "type": "bridge", "active": 1, "method": "manual", "bridge_ports": "bond0",
             "bridge_vlan_aware": 1, "comments": "Gäste-VLANs"},
            {"iface": "vmbr1.20", "type": "vlan", "active": 1, "vlan-id": "20", "vlan-raw-device": "vmbr1"}
        ])
        .to_string()
    }

    /// The snapshot a cycle reads: networks of online nodes, configs of the guests given.
    fn snapshot(&self, configs_of: &[u64]) -> Snapshot {
        let status = self.status();
        let resources = self.resources();
        let storage = self.storage();
        let nets: Vec<(String, String)> = self
            .nodes
            .iter()
            .enumerate()
            .filter(|(_, (_, on))| *on)
            .map(|(i, (n, _))| (n.clone(), self.network(i)))
            .collect();
        let net_refs: Vec<(&str, &str)> = nets.iter().map(|(n, t)| (n.as_str(), t.as_str())).collect();
        let cfgs: Vec<(String, &'static str, u64, String)> = self
            .guests
            .iter()
            .filter(|g| configs_of.contains(&g.vmid) && self.online(&g.node))
            .map(|g| (g.node.clone(), g.kind, g.vmid, g.config.to_string()))
            .collect();
        let cfg_refs: Vec<(&str, &str, u64, &str)> =
            cfgs.iter().map(|(n, k, v, t)| (n.as_str(), *k, *v, t.as_str())).collect();
        Snapshot::from_answers(&status, &resources, &storage, &net_refs, &cfg_refs).unwrap()
    }

    fn all(&self) -> Vec<u64> {
        self.guests.iter().map(|g| g.vmid).collect()
    }
}

async fn add_host(eng: &Engine, slug: &str) {
    let name = slug.trim_start_matches("host:");
    eng.create_entity(
        crate::graph::entities::NewEntity::new("host", name)
            .slug(slug)
            .attributes(json!({"address": "10.0.0.10", "ssh_port": 2222, "ssh_user": "root"})),
    )
    .await
    .unwrap();
}

/// Plans (and applies with `apply`) the snapshot; the diff as the CLI would print it.
async fn discover(eng: &Engine, host: &str, snap: &Snapshot, apply: bool) -> DiscoveryDiff {
    let plan = if apply {
        eng.discovery_apply(snap, host, &ApplyBy::Operator("operator:test".into())).await.unwrap()
    } else {
        eng.discovery_plan(snap, host).await.unwrap()
    };
    plan.diff(host, apply, 0, 0)
}

fn item<'a>(d: &'a DiscoveryDiff, slug: &str) -> &'a nomos_types::discovery::DiffItem {
    d.changes.iter().find(|c| c.slug == slug).unwrap_or_else(|| panic!("no change for {slug}: {:#?}", d.changes))
}

async fn count(eng: &Engine, sql: &str) -> i64 {
    sqlx::query_scalar(sql).fetch_one(eng.store().pool()).await.unwrap()
}

fn lab3() -> Fx {
    let mut fx = Fx::new(Some("homelab"), &["pve1", "pve2", "pve3"]);
    let mut web = lxc(101, "web", "pve1");
    web.row = json!({"tags": "prod;web", "pool": "prod", "hastate": "started"});
    let mut db = lxc(102, "db", "pve2");
    db.row = json!({"lock": "backup"});
    db.config["mp0"] = json!("nas:subvol-102-disk-1,mp=/var/lib/postgresql,size=32G");
    let mut tpl = lxc(9000, "debian-tpl", "pve1");
    tpl.template = true;
    tpl.status = "stopped";
    let mut odd = vm(200, "Home Assistant Küche", "pve3");
    odd.row = json!({"tags": "iot"});
    fx.guests = vec![web, db, tpl, odd];
    fx
}

#[tokio::test]
async fn a_first_discovery_builds_the_cluster_and_a_second_changes_nothing() {
    let (_dir, eng) = engine().await;
    add_host(&eng, "host:pve1").await;
    let fx = lab3();
    let snap = fx.snapshot(&fx.all());
    let review = discover(&eng, "host:pve1", &snap, false).await;
    assert_eq!(count(&eng, "SELECT count(*) FROM entities").await, 1, "a review writes nothing");
    assert_eq!(review.cluster, "homelab");
    assert_eq!(review.quorate, Some(true));
    let d = discover(&eng, "host:pve1", &snap, true).await;
    assert_eq!(d.changes.len(), review.changes.len());
    // host:pve1 (adopted as node pve1) changes; everything else is new.
    assert_eq!(item(&d, "host:pve1").kind, DiffKind::Changed);
    assert_eq!(d.counts.new as usize, d.changes.len() - 1, "{:#?}", d.counts);
    for slug in [
        "cluster:homelab",
        "host:pve2",
        "host:pve3",
        "lxc:web",
        "lxc:db",
        "template:debian-tpl",
        "vm:home-assistant-k-che",
        "storage:nas",
        "storage:pve1-local-lvm",
        "bridge:pve2-vmbr1",
        "network:10.0.0.0-24",
    ] {
        assert_eq!(item(&d, slug).kind, DiffKind::New, "{slug}");
    }
    let web = eng.entity("lxc:web").await.unwrap();
    let a = &web.attributes;
    assert_eq!(
        (a["cluster"].as_str(), a["pve_id"].as_u64(), a["node"].as_str()),
        (Some("homelab"), Some(101), Some("pve1"))
    );
    assert_eq!(a["host"], "host:pve1", "commands reach it through its node");
    assert_eq!(a["tags"], json!(["prod", "web"]));
    assert_eq!(a["hastate"], "started");
    assert_eq!(a["ip"], "10.0.0.101");
    assert_eq!(a["onboot"], true);
    assert_eq!(web.state, EntityState::Active);
    let odd = eng.entity("vm:home-assistant-k-che").await.unwrap();
    assert_eq!(odd.name, "Home Assistant Küche");
    assert_eq!(odd.state, EntityState::Stopped);
    assert_eq!(odd.attributes["ip"], "10.0.0.200", "a VM's address comes from its cloud-init ipconfig");
    let db = eng.entity("lxc:db").await.unwrap();
    assert_eq!(db.attributes["lock"], "backup");
    assert_eq!(db.attributes["mounts"], json!(["/var/lib/postgresql"]));
    let pve2 = eng.entity("host:pve2").await.unwrap();
    assert_eq!(pve2.attributes["address"], "10.0.0.11", "a node found through another gets its own address");
    assert_eq!(pve2.attributes["ssh_port"], 2222, "… and the way in of the node it was found through");
    let vmbr1 = eng.entity("bridge:pve1-vmbr1").await.unwrap();
    assert_eq!(vmbr1.attributes["vlans"], json!([20]));
    assert_eq!(vmbr1.attributes["comments"], "Gäste-VLANs");

    // The edges the blast radius follows.
    let rels = eng.relations("lxc:db", false).await.unwrap();
    let has = |t: &str, other: &str| rels.iter().any(|r| r.rel_type == t && &*r.other.slug == other);
    assert!(has("hosts", "host:pve2"));
    assert!(has("uses-storage", "storage:pve2-local-lvm"));
    assert!(has("uses-storage", "storage:nas"));
    assert!(has("attached-to", "bridge:pve2-vmbr0"));
    let hits = eng.blast_radius("storage:nas", None).await.unwrap().hits;
    assert!(hits.iter().any(|h| &*h.entity.slug == "lxc:db"), "{hits:?}");
    let member: Vec<String> = eng
        .relations("cluster:homelab", false)
        .await
        .unwrap()
        .iter()
        .filter(|r| r.rel_type == "member-of")
        .map(|r| r.other.slug.to_string())
        .collect();
    assert_eq!(member.len(), 3, "{member:?}");

    // Nothing changed: nothing written, nothing announced.
    let events = count(&eng, "SELECT count(*) FROM events").await;
    let version = count(&eng, "SELECT version FROM graph_version").await;
    let again = discover(&eng, "host:pve1", &fx.snapshot(&[]), true).await;
    assert!(again.changes.is_empty(), "{:#?}", again.changes);
    assert_eq!(again.counts.unchanged as usize, d.changes.len());
    assert_eq!(count(&eng, "SELECT count(*) FROM events").await, events);
    assert_eq!(count(&eng, "SELECT version FROM graph_version").await, version);
    let ledger = count(&eng, "SELECT count(*) FROM audit_log WHERE action = 'discovery.applied'").await;
    assert_eq!(ledger, 1);
}

#[tokio::test]
async fn moved_renamed_gone_and_back_keep_their_history() {
    let (_dir, eng) = engine().await;
    add_host(&eng, "host:pve1").await;
    let mut fx = lab3();
    discover(&eng, "host:pve1", &fx.snapshot(&fx.all()), true).await;
    let web_id = eng.entity("lxc:web").await.unwrap().id;

    // web migrates to pve2 and is renamed; db is destroyed.
    fx.guests[0].node = "pve2".into();
    fx.guests[0].name = "www".into();
    fx.guests.retain(|g| g.vmid != 102);
    let d = discover(&eng, "host:pve1", &fx.snapshot(&[101]), true).await;
    let web = item(&d, "lxc:web");
    assert_eq!(web.kind, DiffKind::Moved, "{web:#?}");
    assert_eq!(web.moved.as_ref().map(|m| (m.from.as_str(), m.to.as_str())), Some(("pve1", "pve2")));
    assert_eq!(web.renamed.as_ref().map(|r| r.to.as_str()), Some("www"), "renamed by vmid, never matched by name");
    assert!(web.edges.iter().any(|e| e.op == EdgeOp::End && e.rel_type == "hosts" && e.source == "host:pve1"));
    assert!(web.edges.iter().any(|e| e.op == EdgeOp::Add && e.rel_type == "hosts" && e.source == "host:pve2"));
    assert!(web
        .edges
        .iter()
        .any(|e| e.op == EdgeOp::Add && e.rel_type == "attached-to" && e.target == "bridge:pve2-vmbr0"));
    let db = item(&d, "lxc:db");
    assert_eq!(db.kind, DiffKind::Gone);
    assert!(db.edges.iter().all(|e| e.op == EdgeOp::End) && db.edges.len() >= 3, "{db:#?}");
    assert_eq!(d.counts.gone, 1);

    let web = eng.entity("lxc:web").await.unwrap();
    assert_eq!((web.id.as_str(), web.name.as_str()), (web_id.as_str(), "www"), "the same entity, renamed");
    assert_eq!(web.attributes["host"], "host:pve2");
    let hist = eng.relations("lxc:web", true).await.unwrap();
    let hosted: Vec<(&str, bool)> =
        hist.iter().filter(|r| r.rel_type == "hosts").map(|r| (&*r.other.slug, r.valid_to.is_none())).collect();
    assert!(hosted.contains(&("host:pve1", false)) && hosted.contains(&("host:pve2", true)), "{hosted:?}");
    let gone = eng.entity("lxc:db").await.unwrap();
    assert_eq!(gone.state, EntityState::Gone);
    assert!(eng.relations("lxc:db", false).await.unwrap().is_empty(), "a gone guest has no current edges");
    assert!(!eng.relations("lxc:db", true).await.unwrap().is_empty(), "… and keeps its history");
    assert!(eng.blast_radius("storage:nas", None).await.unwrap().hits.iter().all(|h| &*h.entity.slug != "lxc:db"));

    // db comes back (restored from backup): the same entity, its history continues.
    fx.guests.push(lxc(102, "db", "pve2"));
    let d = discover(&eng, "host:pve1", &fx.snapshot(&[102]), true).await;
    let back = item(&d, "lxc:db");
    assert_eq!((back.kind, back.back), (DiffKind::New, true), "{back:#?}");
    let db = eng.entity("lxc:db").await.unwrap();
    assert_eq!(db.id, gone.id);
    assert_eq!(db.state, EntityState::Active);
    assert!(eng.relations("lxc:db", false).await.unwrap().iter().any(|r| r.rel_type == "hosts"));
    let kinds: Vec<String> = sqlx::query_scalar("SELECT type FROM events WHERE entity_slug = 'lxc:db' ORDER BY id")
        .fetch_all(eng.store().pool())
        .await
        .unwrap();
    for k in ["entity.discovered", "entity.gone"] {
        assert!(kinds.iter().any(|x| x == k), "{kinds:?}");
    }
    let moved: i64 =
        count(&eng, "SELECT count(*) FROM events WHERE type = 'entity.moved' AND entity_slug = 'lxc:web'").await;
    assert_eq!(moved, 1);
}

#[tokio::test]
async fn an_offline_node_keeps_its_guests_and_bridges() {
    let (_dir, eng) = engine().await;
    add_host(&eng, "host:pve1").await;
    let mut fx = lab3();
    discover(&eng, "host:pve1", &fx.snapshot(&fx.all()), true).await;
    fx.nodes[1].1 = false; // pve2 goes offline: no network read, its guests' status unknown
    let d = discover(&eng, "host:pve1", &fx.snapshot(&[]), true).await;
    assert_eq!(d.counts.gone, 0, "{:#?}", d.changes);
    let db = eng.entity("lxc:db").await.unwrap();
    assert_eq!(db.state, EntityState::Active, "status unknown is not gone");
    assert_eq!(db.attributes["status"], "unknown");
    assert_eq!(db.attributes["ip"], "10.0.0.102", "what the config said stays");
    assert_eq!(eng.entity("bridge:pve2-vmbr0").await.unwrap().state, EntityState::Active);
    assert_eq!(eng.entity("host:pve2").await.unwrap().attributes["status"], "offline");
    assert!(eng.relations("lxc:db", false).await.unwrap().iter().any(|r| r.rel_type == "attached-to"));
}

#[tokio::test]
async fn two_clusters_with_the_same_vmids_stay_apart() {
    let (_dir, eng) = engine().await;
    add_host(&eng, "host:a1").await;
    add_host(&eng, "host:b1").await;
    let mut a = Fx::new(Some("alpha"), &["a1"]);
    a.guests = vec![lxc(100, "web", "a1")];
    let mut b = Fx::new(Some("beta"), &["b1"]);
    b.guests = vec![lxc(100, "web", "b1")];
    discover(&eng, "host:a1", &a.snapshot(&[100]), true).await;
    let d = discover(&eng, "host:b1", &b.snapshot(&[100]), true).await;
    assert_eq!(d.counts.gone, 0, "one cluster never ends the other's entities");
    let web = eng.entity("lxc:web").await.unwrap();
    let other = eng.entity("lxc:web-100").await.unwrap();
    assert_eq!(web.attributes["cluster"], "alpha");
    assert_eq!(other.attributes["cluster"], "beta");
    assert_eq!(other.attributes["host"], "host:b1");
    // Each re-discovery is quiet: neither claims the other's guest.
    assert!(discover(&eng, "host:a1", &a.snapshot(&[]), true).await.changes.is_empty());
    assert!(discover(&eng, "host:b1", &b.snapshot(&[]), true).await.changes.is_empty());
}

#[tokio::test]
async fn an_inventory_is_adopted_not_duplicated() {
    let (_dir, eng) = engine().await;
    eng.import_inventory(
        "hosts:\n  - { name: strong, address: 10.0.0.2 }\nlxcs:\n  - { name: caddy, pve_id: 101, host: strong, attributes: { owner: ann } }\n",
        "inv",
    )
    .await
    .unwrap();
    let mut fx = Fx::new(None, &["pve"]);
    fx.guests = vec![lxc(101, "caddy-proxy", "pve")];
    let d = discover(&eng, "host:strong", &fx.snapshot(&[101]), true).await;
    assert_eq!(d.cluster, "pve", "a stand-alone node is its own scope");
    assert_eq!(d.quorate, None);
    assert_eq!(item(&d, "host:strong").kind, DiffKind::Changed, "the node is the host it was reached through");
    assert_eq!(item(&d, "lxc:caddy").kind, DiffKind::Renamed, "adopted by vmid");
    let caddy = eng.entity("lxc:caddy").await.unwrap();
    assert_eq!(caddy.attributes["owner"], "ann", "attributes discovery does not own stay");
    assert_eq!(caddy.attributes["cluster"], "pve");
    assert_eq!(count(&eng, "SELECT count(*) FROM entities WHERE type = 'host'").await, 1);
    assert_eq!(count(&eng, "SELECT count(*) FROM entities WHERE type = 'lxc'").await, 1);
    let strong = eng.entity("host:strong").await.unwrap();
    assert_eq!(strong.attributes["address"], "10.0.0.2", "an address the operator gave is kept");
}

#[tokio::test]
async fn a_guest_made_a_template_is_a_new_entity_and_the_old_one_gone() {
    let (_dir, eng) = engine().await;
    add_host(&eng, "host:pve1").await;
    let mut fx = Fx::new(Some("c"), &["pve1"]);
    fx.guests = vec![vm(300, "golden", "pve1")];
    discover(&eng, "host:pve1", &fx.snapshot(&[300]), true).await;
    fx.guests[0].template = true;
    let d = discover(&eng, "host:pve1", &fx.snapshot(&[300]), true).await;
    assert_eq!(item(&d, "vm:golden").kind, DiffKind::Gone);
    assert_eq!(item(&d, "template:golden").kind, DiffKind::New);
    assert_eq!(eng.entity("template:golden").await.unwrap().attributes["kind"], "qemu");
}

#[tokio::test]
async fn bad_answers_are_refused_whole() {
    let fx = lab3();
    let (status, resources, storage) = (fx.status(), fx.resources(), fx.storage());
    let cut: String = resources.chars().take(resources.chars().count() / 2).collect();
    let e = Snapshot::from_answers(&status, &cut, &storage, &[], &[]).unwrap_err();
    assert!(matches!(e, DiscoveryError::Malformed { .. }) && e.to_string().contains("truncated"), "{e}");
    let e = Snapshot::from_answers("{\"data\": []}", &resources, &storage, &[], &[]).unwrap_err();
    assert!(e.to_string().contains("/cluster/status") && e.to_string().contains("expected a JSON array"), "{e}");
    // Unknown fields, strings for numbers and missing optional fields are all fine.
    let odd = r#"[{"type":"qemu","id":"qemu/7001","vmid":"7001","node":"pve1","status":"running","future":{"x":1}},
                  {"type":"lxc","id":"lxc/7002","node":"pve1"},{"type":"network","id":"network/pve1/zone/z"},
                  {"type":"node","node":"pve1","status":"online","maxmem":"1e3"}]"#;
    let s = Snapshot::from_answers(&status, odd, "[]", &[], &[]).unwrap();
    assert_eq!(s.resources.guests.len(), 2);
    assert_eq!(s.resources.guests[1].name, "CT7002", "a guest without a name is named as Proxmox shows it");
    assert_eq!(s.resources.nodes[0].maxmem, Some(1000));
}

#[tokio::test]
async fn applying_a_large_cluster_is_one_transaction() {
    let (_dir, eng) = engine().await;
    add_host(&eng, "host:n1").await;
    let mut fx = Fx::new(Some("big"), &["n1", "n2", "n3"]);
    for i in 0..300 {
        let node = format!("n{}", i % 3 + 1);
        fx.guests.push(lxc(1000 + i, &format!("ct-{i}"), &node));
    }
    let d = discover(&eng, "host:n1", &fx.snapshot(&fx.all()), true).await;
    assert!(d.counts.new >= 300);
    assert_eq!(count(&eng, "SELECT count(*) FROM entities WHERE type = 'lxc'").await, 300);
    let again = discover(&eng, "host:n1", &fx.snapshot(&[]), false).await;
    assert!(again.changes.is_empty());
}
