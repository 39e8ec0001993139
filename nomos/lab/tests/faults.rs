//! Faults on demand, seen over real SSH exactly as the engine's Observe reads them: `systemctl` on a
//! host and through `pct exec` in a container (exit codes included), `pvesh get … --output-format
//! json` for the cluster's resources, a node's status, certificates and backups; and `clear`
//! undoing it all. One lab for the whole file; a failing step panics and dropping the lab stops its
//! sshds.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::process::{Command, Output, Stdio};
use std::time::{SystemTime, UNIX_EPOCH};

use nomos_lab::{Fault, Lab, LabConfig, LabError};
use serde_json::Value;

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

/// stdout of a command that must succeed.
fn ok(lab: &Lab, host: &str, command: &str) -> String {
    let out = run(lab, host, command);
    assert!(out.status.success(), "`{command}` on {host}: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// Exit status and stdout.
fn status(lab: &Lab, host: &str, command: &str) -> (i32, String) {
    let out = run(lab, host, command);
    (out.status.code().unwrap_or(-1), String::from_utf8_lossy(&out.stdout).trim().to_string())
}

fn get(lab: &Lab, host: &str, path: &str) -> Value {
    let text = ok(lab, host, &format!("pvesh get {path} --output-format json"));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{path}: {e}: {text}"))
}

fn by_id(resources: &Value, id: &str) -> Value {
    resources.as_array().unwrap().iter().find(|r| r["id"] == id).cloned().unwrap_or_else(|| panic!("no {id}"))
}

fn share(r: &Value) -> f64 {
    r["disk"].as_f64().unwrap() / r["maxdisk"].as_f64().unwrap()
}

fn now() -> i64 {
    SystemTime::now().duration_since(UNIX_EPOCH).unwrap().as_secs() as i64
}

fn fault(lab: &Lab, host: &str, f: Fault) -> String {
    nomos_lab::fault(lab.dir(), host, &f).unwrap_or_else(|e| panic!("{f:?} on {host}: {e}"))
}

/// The newest backup of each VMID on the shared nas, as the daily check reads it.
fn newest_backups(lab: &Lab) -> Vec<(u64, i64)> {
    let content = get(lab, "pve2", "/nodes/pve2/storage/nas/content --content backup");
    let mut newest = std::collections::BTreeMap::new();
    for b in content.as_array().unwrap() {
        assert_eq!(b["content"], "backup");
        assert!(b["volid"].as_str().unwrap().starts_with("nas:backup/vzdump-"), "{b}");
        assert!(b["size"].is_u64() && b["format"].is_string() && b["subtype"].is_string(), "{b}");
        let t = newest.entry(b["vmid"].as_u64().unwrap()).or_insert(0);
        *t = (*t).max(b["ctime"].as_i64().unwrap());
    }
    newest.into_iter().collect()
}

/// The days until pve-ssl.pem of `node` expires.
fn cert_days(lab: &Lab, node: &str) -> i64 {
    let info = get(lab, "pve1", &format!("/nodes/{node}/certificates/info"));
    let cert = info.as_array().unwrap().iter().find(|c| c["filename"] == "pve-ssl.pem").unwrap().clone();
    for key in ["subject", "issuer", "fingerprint"] {
        assert!(cert[key].is_string(), "{cert}");
    }
    (cert["notafter"].as_i64().unwrap() - now()) / 86_400
}

#[test]
fn faults_show_over_ssh_as_observe_reads_them_and_clear_undoes_them() {
    let tmp = tempfile::tempdir().unwrap();
    // pve1: lxc 100, 102 (running), qemu 104 (template); pve2: lxc 101, 103, 105 (stopped).
    let config = LabConfig { hosts: 2, guests: Some(6), ..LabConfig::new(tmp.path().join("lab")) };
    let lab = Lab::start(config).unwrap();

    // The per-host probe: load, memory, failed units (none yet) and the clock, in one command.
    let probe = ok(
        &lab,
        "pve1",
        "cat /proc/loadavg; grep -E '^(MemTotal|MemAvailable):' /proc/meminfo; \
         systemctl list-units --state=failed --no-legend --plain; date +%s",
    );
    let lines: Vec<&str> = probe.lines().collect();
    assert_eq!(lines.len(), 4, "{probe}");
    assert_eq!(lines[0].split_whitespace().take(3).filter(|w| w.parse::<f64>().is_ok()).count(), 3, "{probe}");
    assert!(lines[1].starts_with("MemTotal:") && lines[2].starts_with("MemAvailable:"), "{probe}");
    assert!((lines[3].parse::<i64>().unwrap() - now()).abs() < 60, "{probe}");

    // Healthy: the host's and a container's units active (exit 0), as systemd answers.
    let (code, out) = status(&lab, "pve1", "systemctl is-active pveproxy pvedaemon pve-cluster corosync ssh cron");
    assert_eq!((code, out.lines().all(|l| l == "active")), (0, true), "{out}");
    assert_eq!(status(&lab, "pve1", "pct exec 100 -- systemctl is-active ssh cron systemd-journald").0, 0);
    assert_eq!(status(&lab, "pve1", "systemctl status nope.service").0, 4, "unknown unit");
    let (code, _) = status(&lab, "pve1", "systemctl frobnicate");
    assert_eq!(code, 1);
    assert!(String::from_utf8_lossy(&run(&lab, "pve1", "systemctl frobnicate").stderr).contains("stand-in"));
    // Killing a unit's processes leaves it failed, as systemd records a service killed by a
    // signal; a restart brings it back.
    assert_eq!(status(&lab, "pve1", "systemctl kill -s KILL cron").0, 0);
    assert_eq!(status(&lab, "pve1", "systemctl is-active cron"), (3, "failed".into()));
    assert_eq!(status(&lab, "pve1", "systemctl kill cron").0, 1, "nothing left to kill");
    assert_eq!(status(&lab, "pve1", "systemctl restart cron").0, 0);
    assert_eq!(status(&lab, "pve1", "systemctl is-active cron"), (0, "active".into()));

    // stop-service in a container: is-active via pct exec exits 3, list-units names it, the host
    // itself stays clean.
    let said = fault(&lab, "pve1", Fault::StopService { unit: "ssh.service".into(), guest: Some(100) });
    assert!(said.contains("ssh.service") && said.contains("CT 100"), "{said}");
    assert_eq!(status(&lab, "pve1", "pct exec 100 -- systemctl is-active ssh"), (3, "failed".into()));
    assert_eq!(status(&lab, "pve1", "pct exec 100 -- systemctl is-failed ssh.service").0, 0);
    let failed = ok(&lab, "pve1", "pct exec 100 -- systemctl list-units --state=failed --no-legend --plain");
    let words: Vec<&str> = failed.split_whitespace().collect();
    assert_eq!(&words[..4], ["ssh.service", "loaded", "failed", "failed"], "{failed}");
    assert_eq!(ok(&lab, "pve1", "pct exec 102 -- systemctl --failed --no-legend --plain"), "", "only CT 100");
    assert_eq!(ok(&lab, "pve1", "systemctl list-units --state=failed --no-legend --plain"), "");
    assert_eq!(ok(&lab, "pve1", "pct exec 100 -- systemctl show -p ActiveState ssh"), "ActiveState=failed\n");
    assert_eq!(status(&lab, "pve1", "pct exec 100 -- systemctl status ssh").0, 3);

    // On the host, through the combined probe's own line.
    fault(&lab, "pve1", Fault::StopService { unit: "pveproxy".into(), guest: None });
    let failed = ok(&lab, "pve1", "systemctl list-units --state=failed --no-legend --plain");
    assert!(failed.starts_with("pveproxy.service loaded failed failed PVE API Proxy Server"), "{failed}");
    assert_eq!(status(&lab, "pve1", "systemctl is-active pveproxy ssh"), (3, "failed\nactive".into()));
    assert_eq!(ok(&lab, "pve2", "systemctl --failed --no-legend --plain"), "", "pve2 is another host");

    // A unit started by hand recovers; `enable --now` adds one.
    assert_eq!(status(&lab, "pve1", "systemctl restart pveproxy.service && systemctl is-active pveproxy").0, 0);
    assert_eq!(
        status(
            &lab,
            "pve1",
            "pct exec 102 -- systemctl enable --now nginx >/dev/null; pct exec 102 -- systemctl is-active nginx"
        )
        .0,
        0
    );
    fault(&lab, "pve1", Fault::StopService { unit: "nginx".into(), guest: Some(102) });
    assert_eq!(status(&lab, "pve1", "pct exec 102 -- systemctl is-active nginx"), (3, "failed".into()));

    // flap: failed and active in turn, from the clock alone.
    let said = fault(&lab, "pve1", Fault::Flap { unit: "cron".into(), period_secs: 1, guest: Some(100) });
    assert!(said.contains("every 1s"), "{said}");
    let flapping =
        ok(&lab, "pve1", "pct exec 100 -- bash -c 'for i in $(seq 12); do systemctl is-active cron; sleep 0.25; done'");
    let states: Vec<&str> = flapping.lines().collect();
    assert!(states.contains(&"failed") && states.contains(&"active"), "{flapping}");
    assert!(states.windows(2).filter(|w| w[0] != w[1]).count() >= 2, "it alternates: {flapping}");
    assert_eq!(ok(&lab, "pve1", "systemctl is-active cron"), "active\n", "the host's cron does not flap");

    // fill-disk: the node's entry in /cluster/resources and its status agree; a container's disk.
    let before = share(&by_id(&get(&lab, "pve2", "/cluster/resources"), "node/pve1"));
    assert!(before < 0.5, "{before}");
    fault(&lab, "pve1", Fault::FillDisk { percent: 95, guest: None });
    fault(&lab, "pve1", Fault::FillDisk { percent: 97, guest: Some(100) });
    let resources = get(&lab, "pve2", "/cluster/resources");
    assert!((share(&by_id(&resources, "node/pve1")) - 0.95).abs() < 0.001);
    assert!((share(&by_id(&resources, "lxc/100")) - 0.97).abs() < 0.001);
    assert!(share(&by_id(&resources, "node/pve2")) < 0.5, "only pve1");
    let node = get(&lab, "pve1", "/nodes/pve1/status");
    let rootfs = &node["rootfs"];
    assert_eq!(rootfs["used"], by_id(&resources, "node/pve1")["disk"]);
    assert_eq!(rootfs["total"], by_id(&resources, "node/pve1")["maxdisk"]);
    assert_eq!(rootfs["used"].as_u64().unwrap() + rootfs["free"].as_u64().unwrap(), rootfs["total"].as_u64().unwrap());
    let memory = &node["memory"];
    assert_eq!(memory["used"].as_u64().unwrap() + memory["free"].as_u64().unwrap(), memory["total"].as_u64().unwrap());
    assert_eq!(memory["total"], by_id(&resources, "node/pve1")["maxmem"]);
    assert_eq!(node["loadavg"].as_array().unwrap().len(), 3);
    assert!(node["uptime"].as_u64().unwrap() > 0 && node["pveversion"].as_str().unwrap().starts_with("pve-manager/8"));

    // stop-guest --backup: stopped and locked as a stop-mode vzdump leaves it; pct refuses.
    let said = fault(&lab, "pve1", Fault::StopGuest { vmid: 102, backup: true });
    assert!(said.contains("lxc/102") && said.contains("backup"), "{said}");
    let ct = by_id(&get(&lab, "pve2", "/cluster/resources --type vm"), "lxc/102");
    assert_eq!((ct["status"].as_str(), ct["lock"].as_str()), (Some("stopped"), Some("backup")));
    let refused = run(&lab, "pve1", "pct start 102");
    assert!(String::from_utf8_lossy(&refused.stderr).contains("CT is locked (backup)"));

    // cert-expire, and the certificate of a node without the fault: about 700 days.
    assert!((695..=735).contains(&cert_days(&lab, "pve1")), "{}", cert_days(&lab, "pve1"));
    fault(&lab, "pve1", Fault::CertExpire { days: 5 });
    assert!((4..=5).contains(&cert_days(&lab, "pve1")));
    assert!(cert_days(&lab, "pve2") > 600);

    // Backups: every guest of the job has one from the last day; no-backup makes one 5 days old.
    let backups = newest_backups(&lab);
    assert_eq!(backups.iter().map(|b| b.0).collect::<Vec<_>>(), (100..106).collect::<Vec<_>>());
    assert!(backups.iter().all(|b| now() - b.1 < 86_400), "{backups:?}");
    assert_eq!(get(&lab, "pve1", "/cluster/backup-info/not-backed-up"), serde_json::json!([]));
    fault(&lab, "pve2", Fault::NoBackup { vmid: 103 });
    let age = now() - newest_backups(&lab).iter().find(|b| b.0 == 103).unwrap().1;
    assert!((5 * 86_400..6 * 86_400).contains(&age), "{age}");
    // A guest made after seeding is in no backup job.
    let fresh = nomos_lab::create_guest(lab.dir(), "pve2", None, nomos_lab::GuestKind::Lxc, "forgotten").unwrap();
    let missing = get(&lab, "pve1", "/cluster/backup-info/not-backed-up");
    assert_eq!(missing, serde_json::json!([{ "vmid": fresh.vmid, "name": "forgotten", "type": "lxc" }]));
    assert!(newest_backups(&lab).iter().all(|b| b.0 != u64::from(fresh.vmid)));

    // Subscription: active or notfound.
    assert_eq!(get(&lab, "pve1", "/nodes/pve1/subscription")["status"], "active");
    assert_eq!(get(&lab, "pve1", "/nodes/pve2/subscription")["status"], "notfound");

    // node-offline.
    fault(&lab, "pve2", Fault::NodeOffline);
    assert_eq!(by_id(&get(&lab, "pve1", "/cluster/resources --type node"), "node/pve2")["status"], "offline");

    // Bad input: one clear error each.
    let bad = |host: &str, f: Fault| nomos_lab::fault(lab.dir(), host, &f).unwrap_err().to_string();
    assert!(matches!(nomos_lab::fault(lab.dir(), "pve9", &Fault::Clear), Err(LabError::UnknownHost(_))));
    assert!(bad("pve1", Fault::FillDisk { percent: 101, guest: None }).contains("0 to 100"));
    assert!(bad("pve1", Fault::Flap { unit: "cron".into(), period_secs: 0, guest: None }).contains("at least 1"));
    assert!(bad("pve1", Fault::StopGuest { vmid: 999, backup: false }).contains("no guest with VMID 999"));
    assert!(bad("pve1", Fault::NoBackup { vmid: 101 }).contains("is on pve2"));
    assert!(bad("pve1", Fault::StopService { unit: "ssh".into(), guest: Some(104) }).contains("is a VM"));
    assert!(bad("pve1", Fault::StopService { unit: "../x".into(), guest: None }).contains("not a service name"));

    // clear undoes everything of its host.
    let said = fault(&lab, "pve1", Fault::Clear);
    assert!(said.contains("102"), "{said}");
    assert_eq!(ok(&lab, "pve1", "systemctl list-units --state=failed --no-legend --plain"), "");
    for ct in [100, 102] {
        assert_eq!(ok(&lab, "pve1", &format!("pct exec {ct} -- systemctl --failed --no-legend --plain")), "");
    }
    assert_eq!(status(&lab, "pve1", "pct exec 100 -- systemctl is-active ssh cron").0, 0);
    assert_eq!(status(&lab, "pve1", "pct exec 102 -- systemctl is-active nginx").0, 0);
    let resources = get(&lab, "pve1", "/cluster/resources");
    assert!(share(&by_id(&resources, "node/pve1")) < 0.5);
    assert!(share(&by_id(&resources, "lxc/100")) < 0.9);
    let ct = by_id(&resources, "lxc/102");
    assert_eq!((ct["status"].as_str(), ct.get("lock")), (Some("running"), None));
    assert!(cert_days(&lab, "pve1") > 600);
    assert_eq!(by_id(&resources, "node/pve2")["status"], "offline", "pve2's faults are its own");
    let said = fault(&lab, "pve2", Fault::Clear);
    assert!(said.contains("back online"), "{said}");
    assert_eq!(by_id(&get(&lab, "pve2", "/cluster/resources --type node"), "node/pve2")["status"], "online");
    assert!(newest_backups(&lab).iter().all(|b| now() - b.1 < 86_400));
    assert!(fault(&lab, "pve2", Fault::Clear).contains("every fault cleared"), "clearing twice is fine");
    lab.stop();
}
