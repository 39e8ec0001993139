#![allow(clippy::expect_used, clippy::panic)] // A measurement harness: a failed setup step should stop it loudly.

//! Discovery, measured side by side in one run:
//! - a full discovery of the lab (3 nodes, 60 guests) to its diff, through the gate (classify,
//!   records, SSH, parse, compare with the graph), vs the very same commands run by the OpenSSH
//!   client on warm multiplexed connections (what the hosts themselves cost);
//! - a re-discovery when nothing changed: its time, and what it wrote (nothing in the graph, no
//!   graph event; the two reads are recorded as compact executions);
//! - applying a first discovery of 1,000 guests (fixture answers) in one transaction.
//!
//! Run with `make bench` (or `cargo bench -p nomos --bench discovery`).

use std::sync::Arc;
use std::time::{Duration, Instant};

use nomos::actuate::{ActuateConfig, Actuator, Decision};
use nomos::discovery::{ApplyBy, DiscoverOptions, Snapshot};
use nomos::policy::Policy;
use nomos::types::Channel;
use nomos::Engine;
use nomos_lab::{Lab, LabConfig};
use serde_json::json;

const ROUNDS: usize = 7;

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

async fn count(engine: &Engine, sql: &str) -> i64 {
    sqlx::query_scalar(sql).fetch_one(engine.store().pool()).await.expect("count")
}

fn main() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let mut config = LabConfig::new(tmp.path().join("lab"));
    config.hosts = 3;
    config.guests = Some(60);
    let lab = Lab::start(config).expect("the lab starts (needs openssh-server)");
    let rt = tokio::runtime::Builder::new_multi_thread().enable_all().build().expect("runtime");
    rt.block_on(async {
        let engine = Engine::open(&tmp.path().join("bench.db")).await.expect("db");
        engine.import_inventory_file(&lab.inventory_path()).await.expect("inventory");
        let act = Actuator::new(engine.clone(), Arc::new(Policy::builtin().clone()), ActuateConfig::default());
        let me = Decision { actor: "operator:bench".into(), channel: Channel::Cli, message: None };
        for h in lab.hosts() {
            act.present_key(&format!("host:{}", h.name)).await.expect("key");
            act.trust_host(&format!("host:{}", h.name), None, &me).await.expect("trust");
        }
        let review = || act.discover("host:pve1", DiscoverOptions { apply: None });
        // Warm the connection; learn the commands a full discovery runs.
        let first = review().await.expect("discover");
        assert!(first.counts.new >= 60, "{:?}", first.counts);
        let commands: Vec<String> = sqlx::query_scalar(
            "SELECT command FROM executions WHERE requested_by = 'discovery' ORDER BY created_at DESC, rowid DESC LIMIT ?",
        )
        .bind(i64::from(first.commands))
        .fetch_all(engine.store().pool())
        .await
        .expect("commands");

        // Interleaved, so both see the same machine.
        let mut ours = Vec::new();
        let mut openssh = Vec::new();
        let ssh = OpenSsh::start(&lab, &tmp.path().join("cm"));
        for _ in 0..ROUNDS {
            let t = Instant::now();
            let d = review().await.expect("discover");
            ours.push(t.elapsed());
            assert_eq!(d.changes.len(), first.changes.len());
            let t = Instant::now();
            for c in commands.iter().rev() {
                ssh.run(c);
            }
            openssh.push(t.elapsed());
        }
        ssh.stop();
        let (ours, openssh) = (median(ours), median(openssh));
        println!("full discovery of 3 nodes / 60 guests to its diff ({} commands, {} changes):", first.commands, first.changes.len());
        println!("  Oikos (gate, records, russh, parse, compare): {ours:>10.2?} median of {ROUNDS}");
        println!("  the same commands, OpenSSH client (warm):    {openssh:>10.2?} median of {ROUNDS}");
        println!("  ratio Oikos / OpenSSH:                        {:.2}x (goal ≤ 1.3x)", ours.as_secs_f64() / openssh.as_secs_f64());

        // Apply, then re-discover with nothing changed.
        act.discover("host:pve1", DiscoverOptions { apply: Some(ApplyBy::Operator("operator:bench".into())) })
            .await
            .expect("apply");
        let tables = ["entities", "relationships", "events", "audit_log", "executions"];
        let mut before = Vec::new();
        for t in tables {
            before.push(count(&engine, &format!("SELECT count(*) FROM {t}")).await);
        }
        let version = count(&engine, "SELECT version FROM graph_version").await;
        let before_events = count(&engine, "SELECT ifnull(max(id), 0) FROM events").await;
        let mut quiet = Vec::new();
        for _ in 0..ROUNDS {
            let t = Instant::now();
            let d = act.discover("host:pve1", DiscoverOptions { apply: Some(ApplyBy::Cycle) }).await.expect("again");
            quiet.push(t.elapsed());
            assert!(d.changes.is_empty(), "{:?}", d.changes);
        }
        println!("re-discovery, nothing changed: {:>10.2?} median of {ROUNDS}", median(quiet));
        for (t, b) in tables.iter().zip(&before) {
            let after = count(&engine, &format!("SELECT count(*) FROM {t}")).await;
            println!("  rows added to {t:<13} over {ROUNDS} cycles: {}", after - b);
        }
        let graph_events = count(
            &engine,
            &format!("SELECT count(*) FROM events WHERE type NOT LIKE 'execution.%' AND id > {}", before_events),
        )
        .await;
        println!("  events other than the reads' own execution events: {graph_events}");
        println!("  graph version moved: {}", count(&engine, "SELECT version FROM graph_version").await != version);
        let stored: i64 = count(&engine, "SELECT ifnull(max(length(stdout)), 0) FROM executions WHERE requested_by = 'discovery'").await;
        println!("  largest stored read output: {stored} bytes (compact)");
        engine.store().close().await;
    });
    lab.stop();

    // Applying a first discovery of 1,000 guests, from fixture answers, each on a fresh database.
    let rt = tokio::runtime::Builder::new_multi_thread().enable_all().build().expect("runtime");
    rt.block_on(async {
        let snap = thousand();
        let mut times = Vec::new();
        for i in 0..5 {
            let engine = Engine::open(&tmp.path().join(format!("big-{i}.db"))).await.expect("db");
            engine.import_inventory("hosts:\n  - { name: n1, address: 10.0.0.1 }\n", "bench").await.expect("host");
            let t = Instant::now();
            let d = engine.apply_discovery(&snap, "host:n1", &ApplyBy::Cycle).await.expect("apply");
            times.push(t.elapsed());
            assert!(d.counts.new >= 1000);
            engine.store().close().await;
        }
        println!(
            "applying a first discovery of 1,000 guests (one transaction): {:>10.2?} median of 5 (goal < 1 s)",
            median(times)
        );
    });
}

/// A cluster of 4 nodes and 1,000 guests, as Proxmox would answer.
fn thousand() -> Snapshot {
    let nodes = ["n1", "n2", "n3", "n4"];
    let mut status = vec![json!({"type": "cluster", "name": "big", "nodes": 4, "quorate": 1})];
    let mut res = Vec::new();
    for (i, n) in nodes.iter().enumerate() {
        status.push(json!({"type": "node", "name": n, "nodeid": i + 1, "ip": format!("10.0.0.{}", i + 1), "online": 1, "local": u8::from(i == 0)}));
        res.push(json!({"type": "node", "node": n, "status": "online", "maxcpu": 32, "maxmem": 137438953472_u64}));
        res.push(json!({"type": "storage", "storage": "local-lvm", "node": n, "status": "available", "shared": 0, "plugintype": "lvmthin"}));
    }
    let mut configs = Vec::new();
    for v in 0..1000_u64 {
        let vmid = 1000 + v;
        let n = nodes[(v % 4) as usize];
        res.push(json!({"type": "lxc", "id": format!("lxc/{vmid}"), "vmid": vmid, "name": format!("ct-{vmid}"), "node": n,
                        "status": "running", "tags": "bench;fleet", "maxmem": 536870912, "maxdisk": 8589934592_u64, "maxcpu": 1}));
        configs.push((n.to_string(), vmid, json!({"hostname": format!("ct-{vmid}"), "rootfs": format!("local-lvm:vm-{vmid}-disk-0,size=8G"),
            "net0": format!("name=eth0,bridge=vmbr0,hwaddr=BC:24:11:00:{:02X}:{:02X},ip=10.1.{}.{}/16,type=veth", v / 256, v % 256, v / 250, v % 250 + 1),
            "onboot": 1}).to_string()));
    }
    let net = json!([{"iface": "vmbr0", "type": "bridge", "cidr": "10.1.0.1/16", "active": 1, "bridge_ports": "eno1"}])
        .to_string();
    let nets: Vec<(&str, &str)> = nodes.iter().map(|n| (*n, net.as_str())).collect();
    let cfgs: Vec<(&str, &str, u64, &str)> =
        configs.iter().map(|(n, v, c)| (n.as_str(), "lxc", *v, c.as_str())).collect();
    let storage = json!([{"storage": "local-lvm", "type": "lvmthin", "content": "rootdir,images"}]).to_string();
    Snapshot::from_answers(&json!(status).to_string(), &json!(res).to_string(), &storage, &nets, &cfgs)
        .expect("fixture")
}

/// The OpenSSH client on a warm multiplexed connection to the first lab host.
struct OpenSsh {
    key: std::path::PathBuf,
    port: u16,
    control: std::path::PathBuf,
    user: String,
}

impl OpenSsh {
    fn start(lab: &Lab, dir: &std::path::Path) -> OpenSsh {
        std::fs::create_dir_all(dir).expect("control dir");
        let s = OpenSsh {
            key: lab.client_key().to_path_buf(),
            port: lab.hosts()[0].port,
            control: dir.join("cm"),
            user: nomos_lab::current_user(),
        };
        assert!(s
            .command(&["-o", "ControlMaster=yes", "-o", "ControlPersist=120", "-f", "-N"], "")
            .status()
            .expect("ssh")
            .success());
        s
    }

    fn command(&self, extra: &[&str], command: &str) -> std::process::Command {
        let mut c = std::process::Command::new("ssh");
        c.arg("-i").arg(&self.key).args(["-p", &self.port.to_string()]);
        c.args(["-o", "StrictHostKeyChecking=no", "-o", "UserKnownHostsFile=/dev/null", "-o", "BatchMode=yes"]);
        c.args(["-o", "LogLevel=ERROR", "-o"]).arg(format!("ControlPath={}", self.control.display()));
        c.args(extra).arg(format!("{}@127.0.0.1", self.user)).arg(command);
        c.stdin(std::process::Stdio::null()).stdout(std::process::Stdio::null()).stderr(std::process::Stdio::null());
        c
    }

    fn run(&self, command: &str) {
        // The stand-ins answer from their state; what is printed is not needed here.
        let _ = self.command(&[], command).status().expect("ssh");
    }

    fn stop(&self) {
        let _ = self.command(&["-O", "exit"], "").status();
    }
}
