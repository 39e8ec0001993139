#![allow(clippy::expect_used, clippy::panic)] // A measurement harness: a failed setup step should stop it loudly.

//! The executor against the lab's real sshd processes, through the whole gated path (classify,
//! records, SSH, results):
//! - `uptime` on one host vs on 16 hosts at once (one batch = all 16 concurrently), and the same
//!   with `sleep 0.5`, which waits instead of using the CPU the 16 sshds share with the client;
//! - a command on a warm connection vs on a cold one (a fresh pool: TCP, key exchange, auth).
//!
//! All measured in the same process, side by side; the report gives medians and ratios. As a
//! reference for what the hosts themselves cost, the same `uptime` through the OpenSSH client on
//! warm multiplexed connections (ControlMaster), 1 host vs 16 at once.
//! Run with `make bench` (or `cargo bench -p nomos --bench ssh`).

use std::sync::Arc;
use std::time::{Duration, Instant};

use nomos::actuate::{ActuateConfig, Actuator, Decision, RunOutcome, RunRequest};
use nomos::policy::Policy;
use nomos::types::{Channel, ExecutionStatus};
use nomos::Engine;
use nomos_lab::{Lab, LabConfig};

const HOSTS: usize = 16;
const ROUNDS: usize = 15;

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

async fn uptime(act: &Actuator, host: &str) {
    run(act, host, "uptime").await
}

async fn run(act: &Actuator, host: &str, command: &str) {
    let req = RunRequest {
        target: format!("host:{host}"),
        command: command.into(),
        purpose: "bench".into(),
        requested_by: "bench".into(),
        ..Default::default()
    };
    match act.run(req).await.expect("run") {
        RunOutcome::Ran(x) => assert_eq!(x.status, ExecutionStatus::Completed, "{:?}", x.error),
        RunOutcome::Queued { .. } => panic!("{command} is read-only"),
    }
}

fn main() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let mut config = LabConfig::new(tmp.path().join("lab"));
    config.hosts = HOSTS;
    let started = Instant::now();
    let lab = Lab::start(config).expect("the lab starts (needs openssh-server)");
    println!("lab of {HOSTS} hosts up in {:?}", started.elapsed());
    let rt = tokio::runtime::Builder::new_multi_thread().enable_all().build().expect("runtime");
    rt.block_on(async {
        let engine = Engine::open(&tmp.path().join("bench.db")).await.expect("db");
        engine.import_inventory_file(&lab.inventory_path()).await.expect("inventory");
        let actuator = || Actuator::new(engine.clone(), Arc::new(Policy::builtin().clone()), ActuateConfig::default());
        let act = actuator();
        let me = Decision { actor: "operator:bench".into(), channel: Channel::Cli, message: None };
        let names: Vec<String> = lab.hosts().iter().map(|h| h.name.clone()).collect();
        for n in &names {
            act.present_key(&format!("host:{n}")).await.expect("key");
            act.trust_host(&format!("host:{n}"), None, &me).await.expect("trust");
        }
        // Warm every connection once.
        for n in &names {
            uptime(&act, n).await;
        }

        let mut one = Vec::new();
        let mut all = Vec::new();
        let mut wait_one = Vec::new();
        let mut wait_all = Vec::new();
        let mut warm = Vec::new();
        let mut cold = Vec::new();
        for _ in 0..ROUNDS {
            let t = Instant::now();
            uptime(&act, &names[0]).await;
            one.push(t.elapsed());

            let t = Instant::now();
            let mut set = tokio::task::JoinSet::new();
            for n in names.clone() {
                let act = act.clone();
                set.spawn(async move { uptime(&act, &n).await });
            }
            while let Some(r) = set.join_next().await {
                r.expect("task");
            }
            all.push(t.elapsed());

            // A command that waits rather than computes: what the executor itself overlaps,
            // apart from the hosts' CPU (16 sshd sessions share this machine's cores).
            let t = Instant::now();
            run(&act, &names[0], "sleep 0.5").await;
            wait_one.push(t.elapsed());
            let t = Instant::now();
            let mut set = tokio::task::JoinSet::new();
            for n in names.clone() {
                let act = act.clone();
                set.spawn(async move { run(&act, &n, "sleep 0.5").await });
            }
            while let Some(r) = set.join_next().await {
                r.expect("task");
            }
            wait_all.push(t.elapsed());

            let fresh = actuator();
            let t = Instant::now();
            uptime(&fresh, &names[1]).await;
            cold.push(t.elapsed());
            let t = Instant::now();
            uptime(&fresh, &names[1]).await;
            warm.push(t.elapsed());
        }
        let (ref_one, ref_all) = openssh_reference(&lab, &tmp.path().join("cm"));
        let (one, all, warm, cold) = (median(one), median(all), median(warm), median(cold));
        let (wait_one, wait_all) = (median(wait_one), median(wait_all));
        println!("uptime, 1 host:                {one:>10.2?} median of {ROUNDS}");
        println!("uptime, {HOSTS} hosts concurrently: {all:>10.2?} median of {ROUNDS} batches");
        println!(
            "  ratio {HOSTS} hosts / 1 host:   {:.2}x  (sequential would be {HOSTS}x)",
            all.as_secs_f64() / one.as_secs_f64()
        );
        println!("sleep 0.5, 1 host:             {wait_one:>10.2?} median of {ROUNDS}");
        println!("sleep 0.5, {HOSTS} hosts concurrently: {wait_all:>10.2?} median of {ROUNDS} batches");
        println!("  ratio {HOSTS} hosts / 1 host:   {:.2}x", wait_all.as_secs_f64() / wait_one.as_secs_f64());
        println!("reference, OpenSSH client, uptime on 1 host:   {ref_one:>10.2?}");
        println!("reference, OpenSSH client, uptime on {HOSTS} hosts: {ref_all:>10.2?}");
        println!("  ratio {HOSTS} hosts / 1 host:   {:.2}x", ref_all.as_secs_f64() / ref_one.as_secs_f64());
        println!("cold connection + command:     {cold:>10.2?} median of {ROUNDS}");
        println!("warm connection, next command: {warm:>10.2?} median of {ROUNDS}");
        println!("  ratio cold / warm:           {:.2}x", cold.as_secs_f64() / warm.as_secs_f64());
        engine.store().close().await;
    });
    lab.stop();
}

/// `uptime` through the OpenSSH client over warm multiplexed connections: medians for 1 host and
/// for all hosts at once.
fn openssh_reference(lab: &Lab, dir: &std::path::Path) -> (Duration, Duration) {
    use std::process::{Command, Stdio};
    std::fs::create_dir_all(dir).expect("control dir");
    let ssh = |port: u16, extra: &[&str], command: &str| {
        let mut c = Command::new("ssh");
        c.arg("-i").arg(lab.client_key()).args(["-p", &port.to_string()]);
        c.args(["-o", "StrictHostKeyChecking=no", "-o", "UserKnownHostsFile=/dev/null", "-o", "BatchMode=yes"]);
        c.args(["-o", "LogLevel=ERROR", "-o"]).arg(format!("ControlPath={}/%p", dir.display()));
        c.args(extra).arg("root@127.0.0.1").arg(command).stdin(Stdio::null()).stdout(Stdio::null());
        c
    };
    let ports: Vec<u16> = lab.hosts().iter().map(|h| h.port).collect();
    for p in &ports {
        let ok = ssh(*p, &["-o", "ControlMaster=yes", "-o", "ControlPersist=120", "-f", "-N"], "")
            .status()
            .expect("ssh runs")
            .success();
        assert!(ok, "control master for port {p}");
    }
    let (mut one, mut all) = (Vec::new(), Vec::new());
    for _ in 0..ROUNDS {
        let t = Instant::now();
        assert!(ssh(ports[0], &[], "uptime").status().expect("ssh").success());
        one.push(t.elapsed());
        let t = Instant::now();
        let children: Vec<_> = ports.iter().map(|p| ssh(*p, &[], "uptime").spawn().expect("ssh")).collect();
        for mut c in children {
            assert!(c.wait().expect("ssh").success());
        }
        all.push(t.elapsed());
    }
    for p in &ports {
        let _ = ssh(*p, &["-O", "exit"], "").stderr(Stdio::null()).status();
    }
    (median(one), median(all))
}
