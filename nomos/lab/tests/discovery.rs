//! What discovery reads from a lab host, over real SSH: `pvesh get <path> --output-format json` for
//! each API path it uses, with Proxmox VE's shapes; and the lab's changes behind Oikos's back (guests
//! created, destroyed, migrated, renamed; a node off and back on line) showing in the next read.
//! One lab for the whole file (starting sshds costs time); a failing step panics and dropping the
//! lab stops its sshds.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::Path;
use std::process::{Command, Output, Stdio};

use nomos_lab::{GuestKind, Lab, LabConfig};
use serde_json::Value;

/// `pvesh get PATH --output-format json` on a lab host, through the ssh client.
fn pvesh(lab: &Lab, host: &str, path: &str) -> Output {
    run(lab, host, &format!("pvesh get {path} --output-format json"))
}

fn run(lab: &Lab, host: &str, command: &str) -> Output {
    let port = lab.host(host).unwrap().port;
    Command::new("ssh")
        .arg("-F")
        .arg("/dev/null")
        .arg("-i")
        .arg(lab.client_key())
        .args(["-p", &port.to_string()])
        .args(["-o", "StrictHostKeyChecking=no", "-o", "UserKnownHostsFile=/dev/null", "-o", "BatchMode=yes"])
        .args(["-o", "IdentitiesOnly=yes", "-o", "LogLevel=ERROR", "-o", "ConnectTimeout=5"])
        .arg(format!("{}@127.0.0.1", nomos_lab::current_user()))
        .arg(command)
        .stdin(Stdio::null())
        .output()
        .expect("the ssh client runs")
}

fn get(lab: &Lab, host: &str, path: &str) -> Value {
    let out = pvesh(lab, host, path);
    assert!(out.status.success(), "{path} on {host}: {}", String::from_utf8_lossy(&out.stderr));
    serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("{path}: {e}: {}", String::from_utf8_lossy(&out.stdout)))
}

/// A failing read: exit status 255 and the message.
fn refused(lab: &Lab, host: &str, path: &str) -> String {
    let out = pvesh(lab, host, path);
    assert_eq!(out.status.code(), Some(255), "{path} on {host} should fail: {}", String::from_utf8_lossy(&out.stdout));
    String::from_utf8_lossy(&out.stderr).into_owned()
}

fn array(v: &Value) -> &Vec<Value> {
    v.as_array().unwrap_or_else(|| panic!("not an array: {v}"))
}

fn has_u64(o: &Value, keys: &[&str]) {
    for k in keys {
        assert!(o[k].is_u64(), "`{k}` is not an integer in {o}");
    }
}

fn has_str(o: &Value, keys: &[&str]) {
    for k in keys {
        assert!(o[k].is_string(), "`{k}` is not a string in {o}");
    }
}

fn flag(o: &Value, key: &str) -> u64 {
    let v = o[key].as_u64().unwrap_or_else(|| panic!("`{key}` is not 0|1 in {o}"));
    assert!(v <= 1, "`{key}` is not 0|1 in {o}");
    v
}

/// The guests of /cluster/resources by VMID: (node, name, status).
fn guests(resources: &Value) -> Vec<(u64, String, String, String)> {
    let mut out: Vec<_> = array(resources)
        .iter()
        .filter(|r| r["type"] == "lxc" || r["type"] == "qemu")
        .map(|r| {
            (
                r["vmid"].as_u64().unwrap(),
                r["node"].as_str().unwrap().to_string(),
                r["name"].as_str().unwrap().to_string(),
                r["status"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    out.sort();
    out
}

fn by_id<'a>(resources: &'a Value, id: &str) -> &'a Value {
    array(resources).iter().find(|r| r["id"] == id).unwrap_or_else(|| panic!("no {id} in {resources}"))
}

fn check_resources(resources: &Value, guests_expected: usize) {
    let items = array(resources);
    let mut counts = (0, 0, 0);
    for r in items {
        match r["type"].as_str().unwrap() {
            "node" => {
                counts.0 += 1;
                has_str(r, &["id", "node", "status", "level"]);
                has_u64(r, &["maxcpu", "mem", "maxmem", "disk", "maxdisk", "uptime"]);
                assert!(r["cpu"].is_number(), "{r}");
                assert!(["online", "offline"].contains(&r["status"].as_str().unwrap()), "{r}");
                assert_eq!(r["id"], format!("node/{}", r["node"].as_str().unwrap()));
            }
            "lxc" | "qemu" => {
                counts.1 += 1;
                has_str(r, &["id", "name", "node", "status"]);
                has_u64(r, &["vmid", "maxmem", "maxdisk", "maxcpu", "mem", "disk", "uptime"]);
                has_u64(r, &["netin", "netout", "diskread", "diskwrite"]);
                assert!(r["cpu"].is_number(), "{r}");
                flag(r, "template");
                assert_eq!(r["id"], format!("{}/{}", r["type"].as_str().unwrap(), r["vmid"]));
                assert!(["running", "stopped", "unknown"].contains(&r["status"].as_str().unwrap()), "{r}");
                for optional in ["tags", "lock", "pool"] {
                    assert!(r.get(optional).is_none_or(Value::is_string), "{r}");
                }
                assert!(r.get("cpus").is_none(), "cpus is /nodes/<node>/lxc's: {r}");
            }
            "storage" => {
                counts.2 += 1;
                has_str(r, &["id", "storage", "node", "status", "plugintype", "content"]);
                has_u64(r, &["disk", "maxdisk"]);
                flag(r, "shared");
                assert_eq!(
                    r["id"],
                    format!("storage/{}/{}", r["node"].as_str().unwrap(), r["storage"].as_str().unwrap())
                );
            }
            other => panic!("unexpected type {other}: {r}"),
        }
    }
    assert_eq!(counts, (3, guests_expected, 9), "3 nodes, the guests, local + local-lvm + nas per node");
}

#[test]
fn discovery_reads_and_lab_changes_over_real_ssh() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("lab");
    let config = LabConfig { guests: Some(12), ..LabConfig::new(&dir) };
    let lab = Lab::start(config.clone()).unwrap();

    // /cluster/resources: every kind of entry, with Proxmox's types.
    let resources = get(&lab, "pve2", "/cluster/resources");
    check_resources(&resources, 12);
    let seeded = guests(&resources);
    let vmids: Vec<u64> = seeded.iter().map(|g| g.0).collect();
    assert_eq!(vmids, (100..112).collect::<Vec<_>>(), "VMIDs from 100 up");
    for (i, (vmid, node, _, _)) in seeded.iter().enumerate() {
        assert_eq!(node, &format!("pve{}", i % 3 + 1), "{vmid} round-robin");
    }
    let template = by_id(&resources, "qemu/104");
    assert_eq!((template["template"].as_u64(), template["status"].as_str()), (Some(1), Some("stopped")));
    assert_eq!(by_id(&resources, "lxc/107")["lock"], "backup");
    assert_eq!(by_id(&resources, "lxc/100")["tags"], "web;prod");
    assert!(by_id(&resources, "lxc/102").get("tags").is_none(), "no tags key without tags");
    let running = by_id(&resources, "lxc/100");
    assert!(running["mem"].as_u64().unwrap() > 0 && running["uptime"].as_u64().unwrap() > 0, "{running}");
    assert_eq!(by_id(&resources, "lxc/101")["maxmem"], 1024 * 1024 * 1024);
    assert_eq!(by_id(&resources, "storage/pve1/nas")["shared"], 1);
    assert_eq!(by_id(&resources, "storage/pve1/local-lvm")["plugintype"], "lvmthin");
    let only_vms = get(&lab, "pve1", "/cluster/resources --type vm");
    assert_eq!(array(&only_vms).len(), 12);

    // The guest a backup holds refuses changes until unlocked, as on Proxmox.
    let locked = run(&lab, "pve2", "pct stop 107");
    assert_eq!(locked.status.code(), Some(255));
    assert!(String::from_utf8_lossy(&locked.stderr).contains("CT is locked (backup)"));
    assert!(run(&lab, "pve2", "pct unlock 107 && pct stop 107 && pct start 107").status.success());
    assert!(by_id(&get(&lab, "pve1", "/cluster/resources --type vm"), "lxc/107").get("lock").is_none());

    // /cluster/status: the cluster, then its nodes; `local` marks the one answering.
    let status = get(&lab, "pve2", "/cluster/status");
    let cluster = &array(&status)[0];
    assert_eq!((cluster["type"].as_str(), cluster["name"].as_str()), (Some("cluster"), Some("oikos-lab")));
    has_u64(cluster, &["nodes", "version"]);
    assert_eq!((cluster["nodes"].as_u64(), flag(cluster, "quorate")), (Some(3), 1));
    let nodes: Vec<&Value> = array(&status).iter().filter(|s| s["type"] == "node").collect();
    assert_eq!(nodes.len(), 3);
    for n in &nodes {
        has_str(n, &["id", "name", "ip", "level"]);
        has_u64(n, &["nodeid"]);
        assert_eq!(flag(n, "online"), 1);
        assert_eq!(flag(n, "local"), u64::from(n["name"] == "pve2"), "{n}");
    }

    // /nodes/<node>/network: a real node's interfaces; the bond only where there is one.
    let network = get(&lab, "pve1", "/nodes/pve1/network");
    let iface = |net: &Value, name: &str| array(net).iter().find(|i| i["iface"] == name).cloned();
    let bond = iface(&network, "bond0").expect("pve1 has a bond");
    assert_eq!((bond["slaves"].as_str(), bond["bond_mode"].as_str()), (Some("eno1 eno2"), Some("active-backup")));
    let vmbr0 = iface(&network, "vmbr0").unwrap();
    has_str(&vmbr0, &["address", "netmask", "cidr", "gateway", "bridge_ports", "method"]);
    assert_eq!((vmbr0["type"].as_str(), vmbr0["method"].as_str()), (Some("bridge"), Some("static")));
    assert_eq!(vmbr0["families"], serde_json::json!(["inet"]));
    has_u64(&vmbr0, &["autostart", "active"]);
    let vmbr1 = iface(&network, "vmbr1").unwrap();
    assert_eq!((vmbr1["bridge_vlan_aware"].as_u64(), vmbr1.get("address")), (Some(1), None));
    let vlan = iface(&network, "vmbr1.20").unwrap();
    assert_eq!((vlan["type"].as_str(), vlan["vlan-id"].as_u64()), (Some("vlan"), Some(20)));
    assert_eq!(vlan["vlan-raw-device"], "vmbr1");
    let pve2_net = get(&lab, "pve1", "/nodes/pve2/network");
    assert!(iface(&pve2_net, "bond0").is_none() && iface(&pve2_net, "eno1").is_some());
    assert_eq!(iface(&pve2_net, "vmbr0").unwrap()["bridge_ports"], "eno1");
    assert_eq!(array(&get(&lab, "pve1", "/nodes/pve1/network --type bridge")).len(), 2);
    assert!(refused(&lab, "pve1", "/nodes/nope/network").contains("hostname lookup 'nope' failed"));

    // /storage: the configuration, shared NFS included, consistent with the resources.
    let storage = get(&lab, "pve3", "/storage");
    let names: Vec<&str> = array(&storage).iter().map(|s| s["storage"].as_str().unwrap()).collect();
    assert_eq!(names, ["local", "local-lvm", "nas"]);
    for s in array(&storage) {
        has_str(s, &["storage", "type", "content", "digest"]);
        let resource = by_id(&resources, &format!("storage/pve3/{}", s["storage"].as_str().unwrap()));
        assert_eq!(resource["plugintype"], s["type"]);
        assert_eq!(resource["content"], s["content"]);
    }
    let nas = &array(&storage)[2];
    assert_eq!((nas["type"].as_str(), nas["shared"].as_u64()), (Some("nfs"), Some(1)));
    has_str(nas, &["server", "export", "path"]);
    assert_eq!(array(&storage)[1]["thinpool"], "data");

    // A guest's config: its keys, integers as numbers, and a digest; only on its own node.
    let ct = get(&lab, "pve2", "/nodes/pve1/lxc/100/config");
    has_u64(&ct, &["cores", "memory", "swap", "onboot", "unprivileged"]);
    has_str(&ct, &["hostname", "ostype", "rootfs", "net0", "tags", "digest", "arch"]);
    assert_eq!(ct["rootfs"], "local-lvm:vm-100-disk-0,size=4G");
    assert!(ct["net0"].as_str().unwrap().contains("bridge=vmbr0,firewall=1,gw="), "{ct}");
    assert!(ct["net0"].as_str().unwrap().contains(",hwaddr=BC:24:11:"), "{ct}");
    assert!(get(&lab, "pve1", "/nodes/pve2/lxc/101/config")["mp0"].as_str().unwrap().starts_with("nas:"));
    let media = get(&lab, "pve1", "/nodes/pve3/lxc/105/config");
    assert_eq!(media["description"], "Médiathèque (Jellyfin) – salon");
    assert_eq!(media["hostname"], "media-105");
    let vm = get(&lab, "pve1", "/nodes/pve2/qemu/104/config");
    has_u64(&vm, &["cores", "sockets", "memory", "template"]);
    has_str(&vm, &["name", "scsi0", "net0", "ipconfig0", "digest"]);
    assert_eq!(vm["template"], 1);
    let win = get(&lab, "pve1", "/nodes/pve1/qemu/109/config");
    assert!(win["net1"].as_str().unwrap().contains("bridge=vmbr1") && win["net1"].as_str().unwrap().contains("tag=20"));
    let elsewhere = refused(&lab, "pve1", "/nodes/pve2/lxc/100/config");
    assert!(elsewhere.contains("Configuration file 'nodes/pve2/lxc/100.conf' does not exist"), "{elsewhere}");
    assert!(refused(&lab, "pve1", "/nodes/pve1/qemu/100/config").contains("'nodes/pve1/qemu-server/100.conf'"));

    // /nodes and /version.
    let listed = get(&lab, "pve1", "/nodes");
    assert_eq!(array(&listed).len(), 3);
    has_u64(&array(&listed)[0], &["maxcpu", "maxmem", "uptime"]);
    has_str(&get(&lab, "pve1", "/version"), &["version", "release", "repoid"]);
    let on_node = get(&lab, "pve1", "/nodes/pve1/lxc");
    has_u64(&array(&on_node)[0], &["vmid", "cpus", "maxmem"]);

    // Changes behind Oikos's back show in the next read.
    let made = nomos_lab::create_guest(&dir, "pve2", None, GuestKind::Lxc, "fresh").unwrap();
    assert_eq!((made.vmid, made.node.as_str()), (112, "pve2"));
    let vm = nomos_lab::create_guest(&dir, "pve3", Some(500), GuestKind::Qemu, "bigvm").unwrap();
    assert!(nomos_lab::create_guest(&dir, "pve1", Some(500), GuestKind::Lxc, "dup").is_err(), "VMIDs are cluster-wide");
    assert!(nomos_lab::create_guest(&dir, "pve1", None, GuestKind::Lxc, "not_a_host").is_err());
    nomos_lab::destroy_guest(&dir, 101).unwrap();
    let moved = nomos_lab::migrate_guest(&dir, 102, "pve1").unwrap();
    assert_eq!(moved.node, "pve1");
    nomos_lab::rename_guest(&dir, 103, "renamed").unwrap();
    nomos_lab::rename_guest(&dir, 104, "tmpl-renamed").unwrap();
    let after = guests(&get(&lab, "pve2", "/cluster/resources"));
    let find = |vmid: u64| after.iter().find(|g| g.0 == vmid).cloned();
    assert_eq!(find(112), Some((112, "pve2".into(), "fresh".into(), "running".into())));
    assert_eq!(find(u64::from(vm.vmid)).map(|g| (g.1, g.2)), Some(("pve3".into(), "bigvm".into())));
    assert_eq!(find(101), None, "destroyed");
    assert_eq!(find(102).map(|g| g.1), Some("pve1".into()), "migrated");
    assert_eq!(find(103).map(|g| g.2), Some("renamed".into()));
    assert_eq!(find(104).map(|g| g.2), Some("tmpl-renamed".into()));
    assert!(get(&lab, "pve1", "/nodes/pve1/lxc/102/config")["hostname"].is_string(), "its config moved along");
    assert!(refused(&lab, "pve1", "/nodes/pve3/lxc/102/config").contains("does not exist"));

    // A node off line: its guests read as unknown, its storages too; the cluster keeps quorum.
    let port = lab.host("pve3").unwrap().port;
    let host = Lab::set_node_online(&dir, "pve3", false).unwrap();
    assert_eq!(host.port, port);
    let resources = get(&lab, "pve1", "/cluster/resources");
    check_resources(&resources, 13);
    assert_eq!(by_id(&resources, "node/pve3")["status"], "offline");
    assert_eq!(by_id(&resources, "lxc/105")["status"], "unknown");
    assert_eq!(by_id(&resources, "storage/pve3/local")["status"], "unknown");
    assert_eq!(by_id(&resources, "node/pve2")["status"], "online");
    let status = get(&lab, "pve1", "/cluster/status");
    assert_eq!(array(&status)[0]["quorate"], 1);
    assert_eq!(array(&status).iter().find(|s| s["name"] == "pve3").unwrap()["online"], 0);
    assert!(refused(&lab, "pve1", "/nodes/pve3/network").contains("595"));
    Lab::set_node_online(&dir, "pve2", false).unwrap();
    assert_eq!(array(&get(&lab, "pve1", "/cluster/status"))[0]["quorate"], 0, "one of three is no majority");
    Lab::set_node_online(&dir, "pve2", true).unwrap();
    let back = Lab::set_node_online(&dir, "pve3", true).unwrap();
    assert_eq!(back.port, port, "back on its port");
    assert_eq!(by_id(&get(&lab, "pve3", "/cluster/resources"), "node/pve3")["status"], "online");

    // A restarted lab keeps its guests as they were left.
    lab.stop();
    let lab = Lab::start(config).unwrap();
    let again = guests(&get(&lab, "pve1", "/cluster/resources"));
    assert_eq!(again, after);
    lab.stop();
    assert!(Path::new(&dir).join("lab.json").exists());
}
