//! The lab against the real OpenSSH client: one lab for the whole file (starting sshds costs time),
//! checked step by step. A failing step panics; dropping the lab then stops its sshds.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::net::TcpListener;
use std::path::Path;
use std::process::{Command, Output, Stdio};

use nomos_lab::{Lab, LabConfig};
use serde_json::Value;

struct Ssh {
    user: String,
}

impl Ssh {
    fn run_with_key(&self, key: &Path, port: u16, command: &str) -> Output {
        Command::new("ssh")
            .arg("-i")
            .arg(key)
            .args(["-p", &port.to_string()])
            .args(["-o", "StrictHostKeyChecking=no", "-o", "UserKnownHostsFile=/dev/null", "-o", "BatchMode=yes"])
            .args(["-o", "IdentitiesOnly=yes", "-o", "LogLevel=ERROR", "-o", "ConnectTimeout=5"])
            .arg(format!("{}@127.0.0.1", self.user))
            .arg(command)
            .stdin(Stdio::null())
            .output()
            .expect("the ssh client runs")
    }

    fn run(&self, lab: &Lab, host: &str, command: &str) -> Output {
        let port = lab.hosts().iter().find(|h| h.name == host).unwrap().port;
        self.run_with_key(lab.client_key(), port, command)
    }

    /// stdout of a command that must succeed.
    fn ok(&self, lab: &Lab, host: &str, command: &str) -> String {
        let out = self.run(lab, host, command);
        assert!(
            out.status.success(),
            "{host}: `{command}` failed ({}): {}",
            out.status,
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8(out.stdout).unwrap()
    }
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

const TEMPLATE: &str = "local:vztmpl/debian-13-standard_13.1-1_amd64.tar.zst";

#[test]
fn lab_hosts_over_real_ssh() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("lab");
    let mut lab = Lab::start(LabConfig::new(&dir)).unwrap();
    let names: Vec<&str> = lab.hosts().iter().map(|h| h.name.as_str()).collect();
    assert_eq!(names, ["pve1", "pve2", "pve3"]);

    // The inventory says how to log in; the tests log in the same way.
    let text = std::fs::read_to_string(lab.inventory_path()).unwrap();
    let inventory = nomos::inventory::Inventory::parse(&text, "lab").unwrap();
    let ssh = Ssh { user: inventory.hosts[0].ssh_user.clone() };
    assert_eq!(inventory.hosts[0].ssh_key.as_deref(), Some(lab.client_key().to_str().unwrap()));

    // Seeds.
    let list = ssh.ok(&lab, "pve1", "pct list");
    assert!(list.starts_with("VMID       Status     Lock         Name"), "{list}");
    assert!(list.lines().any(|l| l.starts_with("101 ") && l.contains("running") && l.contains("caddy")), "{list}");
    assert!(list.lines().any(|l| l.starts_with("102 ") && l.contains("gitea")), "{list}");
    assert!(ssh.ok(&lab, "pve2", "pct list").contains("dns"));
    assert!(ssh.ok(&lab, "pve2", "qm list").contains("haos"));
    assert_eq!(ssh.ok(&lab, "pve3", "pct list").lines().count(), 1, "pve3 starts empty");
    let templates = ssh.ok(&lab, "pve3", "pveam list local");
    assert!(templates.contains("local:vztmpl/alpine-3.20-default_20240908_amd64.tar.xz"), "{templates}");

    // The cluster view, as JSON.
    let resources: Value =
        serde_json::from_str(&ssh.ok(&lab, "pve3", "pvesh get /cluster/resources --type vm --output-format json"))
            .unwrap();
    let mut seen: Vec<(String, String, String)> = resources
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            assert!(r["maxmem"].as_u64().unwrap() > 0 && r["vmid"].is_u64(), "{r}");
            (r["id"].as_str().unwrap().into(), r["node"].as_str().unwrap().into(), r["status"].as_str().unwrap().into())
        })
        .collect();
    seen.sort();
    let expect = |id: &str, node: &str| (id.to_string(), node.to_string(), "running".to_string());
    assert_eq!(
        seen,
        [expect("lxc/101", "pve1"), expect("lxc/102", "pve1"), expect("lxc/201", "pve2"), expect("qemu/210", "pve2")]
    );
    let next: Value =
        serde_json::from_str(&ssh.ok(&lab, "pve1", "pvesh get /cluster/nextid --output-format json")).unwrap();
    let next = next.as_str().unwrap().to_string();
    assert_eq!(next, "100");
    let taken = ssh.run(&lab, "pve1", "pvesh get /cluster/nextid --vmid 210");
    assert_eq!(taken.status.code(), Some(255));
    assert!(stderr(&taken).contains("vmid: VM 210 already exists"), "{}", stderr(&taken));

    // Creating, running a command inside, and the cross-node VMID check.
    ssh.ok(
        &lab,
        "pve1",
        &format!(
            "pct create {next} {TEMPLATE} --hostname web --cores 1 --memory 256 --swap 0 --rootfs local:2 \
             --net0 name=eth0,bridge=vmbr0,ip=dhcp --unprivileged 1 --features nesting=1 --start 1 --password secret"
        ),
    );
    let rootfs = dir.canonicalize().unwrap().join(format!("hosts/pve1/pve/lxc/{next}/rootfs"));
    assert_eq!(ssh.ok(&lab, "pve1", &format!("pct exec {next} -- pwd")).trim(), rootfs.to_str().unwrap());
    assert_eq!(ssh.ok(&lab, "pve1", &format!("pct exec {next} -- hostname")).trim(), "web");
    assert!(ssh.ok(&lab, "pve1", &format!("pct exec {next} -- cat etc/os-release")).contains("ID=debian"));
    assert!(ssh.ok(&lab, "pve1", &format!("pct config {next}")).contains("features: nesting=1"));
    let dup = ssh.run(&lab, "pve1", &format!("pct create 201 {TEMPLATE} --hostname x"));
    assert_eq!(dup.status.code(), Some(255));
    assert!(
        stderr(&dup).contains("unable to create CT 201 - CT 201 already exists on node 'pve2'"),
        "{}",
        stderr(&dup)
    );
    let missing = ssh.run(&lab, "pve1", "pct create 300 local:vztmpl/nope.tar.zst");
    assert!(stderr(&missing).contains("volume 'local:vztmpl/nope.tar.zst' does not exist"), "{}", stderr(&missing));
    ssh.ok(&lab, "pve1", &format!("pct stop {next}"));
    let stopped = ssh.run(&lab, "pve1", &format!("pct exec {next} -- true"));
    assert!(!stopped.status.success() && stderr(&stopped).contains(&format!("CT {next} not running")));
    let unknown = ssh.run(&lab, "pve1", "pct status 999");
    assert!(stderr(&unknown).contains("Configuration file 'nodes/pve1/lxc/999.conf' does not exist"));

    // One VMID, four creates at once on different hosts: the cluster lock lets exactly one through.
    let racers: Vec<_> = ["pve1", "pve2", "pve3", "pve3"]
        .into_iter()
        .map(|host| {
            let (ssh, key) = (Ssh { user: ssh.user.clone() }, lab.client_key().to_path_buf());
            let port = lab.hosts().iter().find(|h| h.name == host).unwrap().port;
            std::thread::spawn(move || ssh.run_with_key(&key, port, &format!("pct create 150 {TEMPLATE}")))
        })
        .collect();
    let wins = racers.into_iter().map(|t| t.join().unwrap()).filter(|o| o.status.success()).count();
    assert_eq!(wins, 1);

    // What the command writes and returns passes through untouched.
    let out = ssh.run(&lab, "pve2", "echo out; echo err >&2; exit 3");
    assert_eq!(out.status.code(), Some(3));
    assert_eq!(String::from_utf8_lossy(&out.stdout), "out\n");
    assert_eq!(stderr(&out), "err\n");

    // apt is the lab's stand-in, first on PATH: it upgrades a pretend list, records what it was
    // asked, and refuses what it does not know — this machine's apt is never reached.
    let which = ssh.ok(&lab, "pve1", "command -v apt-get; command -v apt");
    assert_eq!(which, format!("{0}/standins/apt-get\n{0}/standins/apt\n", dir.display()));
    assert_eq!(
        ssh.ok(&lab, "pve1", "apt list --upgradable").lines().filter(|l| l.contains("upgradable from")).count(),
        4
    );
    let upgrade = "DEBIAN_FRONTEND=noninteractive apt-get -y -o Dpkg::Options::=--force-confold upgrade";
    assert!(ssh.ok(&lab, "pve1", upgrade).contains("4 upgraded, 0 newly installed"));
    assert_eq!(ssh.ok(&lab, "pve1", "apt list --upgradable"), "Listing... Done\n");
    assert!(ssh.ok(&lab, "pve2", "apt list --upgradable").contains("pve-manager"), "each host has its own state");
    let install = ssh.run(&lab, "pve1", "apt-get install -y nginx");
    assert_eq!(install.status.code(), Some(100));
    assert!(
        stderr(&install).contains("stand-in for apt-get does not support: install -y nginx"),
        "{}",
        stderr(&install)
    );
    let log = std::fs::read_to_string(dir.join("hosts/pve1/apt.log")).unwrap();
    assert_eq!(
        log,
        "apt list --upgradable\napt-get -y -o Dpkg::Options::=--force-confold upgrade\napt list --upgradable\napt-get install -y nginx\n"
    );

    // Only the lab key gets in.
    let stranger = tmp.path().join("stranger");
    let made =
        Command::new("ssh-keygen").args(["-q", "-t", "ed25519", "-N", "", "-f"]).arg(&stranger).status().unwrap();
    assert!(made.success());
    let refused = ssh.run_with_key(&stranger, lab.hosts()[0].port, "true");
    assert_eq!(refused.status.code(), Some(255));
    assert!(stderr(&refused).contains("Permission denied"), "{}", stderr(&refused));

    // A changed host key, as after a reinstall; the host keeps serving on its port.
    let before = lab.host_public_key("pve3").unwrap();
    assert!(before.starts_with("ssh-ed25519 AAAA") && before.split(' ').count() == 2, "{before}");
    let port = lab.hosts()[2].port;
    lab.regenerate_host_key("pve3").unwrap();
    let after = lab.host_public_key("pve3").unwrap();
    assert_ne!(before, after);
    assert_eq!(lab.hosts()[2].port, port);
    let scanned =
        Command::new("ssh-keyscan").args(["-t", "ed25519", "-p", &port.to_string(), "127.0.0.1"]).output().unwrap();
    assert!(String::from_utf8_lossy(&scanned.stdout).contains(&after), "the sshd offers the new key");
    assert_eq!(ssh.ok(&lab, "pve3", "echo still"), "still\n");

    // The inventory imports, with the ports the lab runs on.
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    runtime.block_on(async {
        let engine = nomos::Engine::open(&tmp.path().join("oikos.db")).await.unwrap();
        engine.import_inventory_file(&lab.inventory_path()).await.unwrap();
        let host = engine.entity("host:pve1").await.unwrap();
        assert_eq!(host.attributes["ssh_port"].as_u64(), Some(u64::from(lab.hosts()[0].port)));
        assert_eq!(host.attributes["address"], "127.0.0.1");
        let caddy = engine.entity("lxc:caddy").await.unwrap();
        assert_eq!(caddy.attributes["pve_id"], 101);
        engine.entity("service:gitea").await.unwrap();
        engine.entity("vm:haos").await.unwrap();
        engine.store().close().await;
    });

    // Another process finds the running lab; stopping frees every port.
    let attached = Lab::attach(&dir).unwrap();
    assert_eq!(attached.hosts().len(), 3);
    assert!(attached.is_serving("pve2").unwrap());
    drop(attached);
    assert!(lab.is_serving("pve2").unwrap(), "an attached lab does not stop on drop");
    let ports: Vec<u16> = lab.hosts().iter().map(|h| h.port).collect();
    lab.stop();
    for port in ports {
        TcpListener::bind(("127.0.0.1", port)).unwrap_or_else(|e| panic!("port {port} still taken: {e}"));
    }
    assert!(matches!(Lab::attach(&dir), Err(nomos_lab::LabError::NotFound(_))));

    // A restart keeps guests and keys; a panicking owner still stops its sshds.
    let port = std::panic::catch_unwind(|| {
        let lab = Lab::start(LabConfig { hosts: 1, ..LabConfig::new(&dir) }).unwrap();
        let port = lab.hosts()[0].port;
        assert!(Ssh { user: ssh.user.clone() }.ok(&lab, "pve1", "pct list").contains("web"));
        panic!("{port}");
    })
    .map(|_| 0)
    .unwrap_or_else(|e| e.downcast_ref::<String>().and_then(|p| p.parse().ok()).unwrap());
    TcpListener::bind(("127.0.0.1", port)).expect("the sshd died with its owner");
    Lab::purge(&dir).unwrap();
    assert!(!dir.exists());
}
