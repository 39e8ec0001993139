//! Discovery end to end against the lab: real sshd, the stand-in `pvesh`, the gate, SQLite. The
//! lab changes behind Oikos's back (a guest destroyed, migrated, renamed, created; a node offline)
//! and every diff kind shows up at the next cycle.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod support;

use nomos::actuate::{ActuateConfig, RunRequest};
use nomos::discovery::{ApplyBy, DiscoverOptions};
use nomos::types::discovery::DiffKind;
use nomos::types::{DiscoveryDiff, EntityState, ExecutionQuery, Risk};
use nomos_lab::{create_guest, destroy_guest, migrate_guest, rename_guest, GuestKind, Lab};
use support::World;

async fn discover(w: &World, apply: bool) -> DiscoveryDiff {
    let apply = apply.then(|| ApplyBy::Operator("operator:test".into()));
    w.act.discover("host:pve1", DiscoverOptions { apply }).await.unwrap()
}

fn kind_of(d: &DiscoveryDiff, slug: &str) -> Option<DiffKind> {
    d.changes.iter().find(|c| c.slug == slug).map(|c| c.kind)
}

async fn count(w: &World, sql: &str) -> i64 {
    sqlx::query_scalar(sql).fetch_one(w.engine.store().pool()).await.unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_lab_is_discovered_and_followed_through_every_change() {
    let w = World::start(3, false, ActuateConfig::default()).await;
    let lab = w.lab.dir().to_path_buf();

    // The permission self-test: every line green on a lab node.
    let test = w.act.test_host("host:pve1").await.unwrap();
    assert!(test.ok && test.proxmox && test.trusted, "{test:#?}");
    let names: Vec<&str> = test.checks.iter().map(|c| c.check.as_str()).collect();
    assert_eq!(names, ["host_key", "ssh", "pvesh", "version", "cluster", "guests"]);

    // Review first: nothing written.
    let entities = count(&w, "SELECT count(*) FROM entities").await;
    let review = discover(&w, false).await;
    assert_eq!(count(&w, "SELECT count(*) FROM entities").await, entities);
    assert_eq!(review.cluster, "oikos-lab");
    assert_eq!(review.quorate, Some(true));
    assert!(!review.applied);
    // The inventory's guests are adopted (renamed to what Proxmox calls them at most), never doubled.
    let first = discover(&w, true).await;
    assert!(first.applied);
    assert_eq!(
        first.counts.new as usize + first.counts.changed as usize + first.counts.renamed as usize,
        first.changes.len()
    );
    assert_eq!(kind_of(&first, "cluster:oikos-lab"), Some(DiffKind::New));
    let caddy = w.engine.entity("lxc:caddy").await.unwrap();
    assert_eq!(caddy.attributes["cluster"], "oikos-lab");
    assert_eq!(caddy.attributes["host"], "host:pve1");
    assert!(caddy.attributes["bridges"].as_array().is_some_and(|b| !b.is_empty()), "{caddy:?}");
    assert_eq!(
        count(&w, "SELECT count(*) FROM entities WHERE type = 'lxc' AND json_extract(attributes, '$.pve_id') = 101")
            .await,
        1
    );
    // Every command discovery ran is a read-only execution by `discovery`, none waits for anyone.
    let xs = w.act.executions_matching(&ExecutionQuery { limit: Some(100), ..Default::default() }).await.unwrap();
    let ours: Vec<_> = xs.iter().filter(|x| x.requested_by == "discovery").collect();
    assert!(ours.len() >= 2 + 2 + 2, "{}", ours.len());
    assert!(ours.iter().all(|x| x.risk == Risk::ReadOnly && x.granted_by.as_deref() == Some("read_only")));
    assert_eq!(count(&w, "SELECT count(*) FROM approvals").await, 0);
    // Compact: the store keeps the head of a long answer, the caller got all of it.
    assert!(ours.iter().all(|x| x.stdout.len() < 4096), "routine reads are kept compact");

    // Nothing changed: two commands, nothing written, nothing announced about the graph.
    let version = count(&w, "SELECT version FROM graph_version").await;
    let quiet = discover(&w, true).await;
    assert!(quiet.changes.is_empty(), "{:#?}", quiet.changes);
    assert_eq!(quiet.commands, 2);
    assert_eq!(count(&w, "SELECT version FROM graph_version").await, version);

    // Behind Oikos's back: dns destroyed, caddy migrated, gitea renamed, a new guest, pve3 offline.
    destroy_guest(&lab, 201).unwrap();
    migrate_guest(&lab, 101, "pve2").unwrap();
    rename_guest(&lab, 102, "forge").unwrap();
    let new = create_guest(&lab, "pve2", None, GuestKind::Lxc, "fresh").unwrap();
    let d = discover(&w, true).await;
    assert_eq!(kind_of(&d, "lxc:dns"), Some(DiffKind::Gone), "{:#?}", d.changes);
    assert_eq!(kind_of(&d, "lxc:caddy"), Some(DiffKind::Moved));
    assert_eq!(kind_of(&d, "lxc:gitea"), Some(DiffKind::Renamed));
    assert_eq!(kind_of(&d, "lxc:fresh"), Some(DiffKind::New));
    assert_eq!(w.engine.entity("lxc:dns").await.unwrap().state, EntityState::Gone);
    let caddy = w.engine.entity("lxc:caddy").await.unwrap();
    assert_eq!(caddy.attributes["host"], "host:pve2");
    let hist = w.engine.relations("lxc:caddy", true).await.unwrap();
    assert!(hist.iter().any(|r| r.rel_type == "hosts" && &*r.other.slug == "host:pve1" && r.valid_to.is_some()));
    assert!(hist.iter().any(|r| r.rel_type == "hosts" && &*r.other.slug == "host:pve2" && r.valid_to.is_none()));
    assert_eq!(w.engine.entity("lxc:gitea").await.unwrap().name, "forge");
    assert_eq!(w.engine.entity("lxc:fresh").await.unwrap().attributes["pve_id"], new.vmid);
    // A moved container is reached on its new node.
    let x = support::ran(w.run("lxc:caddy", "hostname", None).await);
    assert_eq!(x.status, nomos::types::ExecutionStatus::Completed, "{x:?}");

    Lab::set_node_online(&lab, "pve3", false).unwrap();
    let d = discover(&w, true).await;
    assert_eq!(d.counts.gone, 0, "{:#?}", d.changes);
    assert!(d.warnings.iter().any(|m| m.contains("pve3") && m.contains("offline")), "{:?}", d.warnings);
    assert_eq!(w.engine.entity("host:pve3").await.unwrap().attributes["status"], "offline");
    Lab::set_node_online(&lab, "pve3", true).unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_read_only_caller_is_refused_anything_else_and_nothing_is_queued() {
    let w = World::default(1).await;
    let req = RunRequest {
        target: "host:pve1".into(),
        command: "pvesh create /nodes/pve1/lxc --vmid 999".into(),
        purpose: "discovery".into(),
        requested_by: "discovery".into(),
        read_only: true,
        ..RunRequest::default()
    };
    let e = w.act.run(req).await.unwrap_err().to_string();
    assert!(e.contains("refused") && e.contains("read-only"), "{e}");
    assert_eq!(count(&w, "SELECT count(*) FROM executions").await, 0);
    assert_eq!(count(&w, "SELECT count(*) FROM approvals").await, 0);
    let refused = count(&w, "SELECT count(*) FROM audit_log WHERE action = 'execution.refused' AND actor = 'discovery' AND actor_type = 'system'").await;
    assert_eq!(refused, 1);
}
