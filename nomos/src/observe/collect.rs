//! What one collection reads, turned into samples: Proxmox's `/cluster/status` and
//! `/cluster/resources` (status and usage of nodes, guests and storage, one command per
//! cluster), and a host's combined probe (load, memory, failed units, clock).

use std::collections::HashMap;

use crate::discovery::pve::{array, Row};

/// The combined per-host probe: one command, four answers separated by marker lines. Every part
/// only reads (the gate judges it so, or it is not run).
pub const HOST_PROBE: &str =
    "cat /proc/loadavg; echo '@@oikos mem'; grep -E '^(MemTotal|MemAvailable):' /proc/meminfo; \
     echo '@@oikos units'; systemctl list-units --state=failed --no-legend --plain; echo '@@oikos clock'; date +%s";

/// One value read for something Proxmox names by its key (`node/pve1`, `guest/101`,
/// `storage/pve1/local`, `storage/nas`) or for the cluster itself (`cluster`).
#[derive(Debug, Clone, PartialEq)]
pub struct Reading {
    pub pve_key: String,
    pub metric: &'static str,
    pub unit: &'static str,
    pub value: f64,
}

/// A guest's state this cycle, for deciding whether it is down.
#[derive(Debug, Clone, PartialEq)]
pub struct GuestState {
    pub vmid: u64,
    pub running: bool,
    /// `backup`, `migrate`, `snapshot` …: Proxmox itself is working on it.
    pub lock: Option<String>,
    /// Its node is offline (the status is not known).
    pub unknown: bool,
    pub template: bool,
    /// Counters for rates: (net in, net out, disk read, disk write) bytes.
    pub counters: [u64; 4],
}

#[derive(Debug, Clone, Default, PartialEq)]
pub struct ClusterReading {
    pub readings: Vec<Reading>,
    pub guests: Vec<GuestState>,
    pub quorate: Option<bool>,
}

fn pct(used: Option<f64>, total: Option<f64>) -> Option<f64> {
    match (used, total) {
        (Some(u), Some(t)) if t > 0.0 => Some((u / t * 100.0).clamp(0.0, 100.0)),
        _ => None,
    }
}

/// Reads `/cluster/status` (may be empty on a stand-alone node) and `/cluster/resources`.
pub fn cluster(status: Option<&str>, resources: &str) -> Result<ClusterReading, crate::discovery::DiscoveryError> {
    let mut out = ClusterReading::default();
    if let Some(text) = status {
        for m in array(text, "/cluster/status")? {
            let r = Row(&m);
            if r.str("type").as_deref() == Some("cluster") {
                out.quorate = r.flag("quorate");
            }
        }
    }
    if let Some(q) = out.quorate {
        out.readings.push(Reading {
            pve_key: "cluster".into(),
            metric: "quorate",
            unit: "",
            value: f64::from(u8::from(q)),
        });
    }
    let mut seen_storage: Vec<String> = Vec::new();
    for m in array(resources, "/cluster/resources")? {
        let r = Row(&m);
        let mut push = |key: &str, metric: &'static str, unit: &'static str, v: Option<f64>| {
            if let Some(value) = v {
                out.readings.push(Reading { pve_key: key.to_string(), metric, unit, value });
            }
        };
        match r.str("type").as_deref() {
            Some("node") => {
                let Some(node) = r.str("node").or_else(|| r.str("name")) else { continue };
                let key = format!("node/{node}");
                let online = r.str("status").as_deref() == Some("online");
                push(&key, "up", "", Some(f64::from(u8::from(online))));
                if online {
                    push(&key, "cpu_percent", "%", r.f64("cpu").map(|c| (c * 100.0).clamp(0.0, 100.0)));
                    push(&key, "memory_percent", "%", pct(r.f64("mem"), r.f64("maxmem")));
                    push(&key, "disk_percent", "%", pct(r.f64("disk"), r.f64("maxdisk")));
                }
            }
            Some(kind @ ("lxc" | "qemu")) => {
                let Some(vmid) = r.u64("vmid") else { continue };
                let key = format!("guest/{vmid}");
                let status = r.str("status").unwrap_or_default();
                let running = status == "running";
                let g = GuestState {
                    vmid,
                    running,
                    lock: r.str("lock"),
                    unknown: status == "unknown" || status.is_empty(),
                    template: r.flag("template").unwrap_or(false),
                    counters: ["netin", "netout", "diskread", "diskwrite"].map(|k| r.u64(k).unwrap_or(0)),
                };
                if running {
                    push(&key, "cpu_percent", "%", r.f64("cpu").map(|c| (c * 100.0).clamp(0.0, 100.0)));
                    push(&key, "memory_percent", "%", pct(r.f64("mem"), r.f64("maxmem")));
                    // A VM's disk use needs its guest agent; Proxmox reports 0 without it.
                    if kind == "lxc" || r.f64("disk").is_some_and(|d| d > 0.0) {
                        push(&key, "disk_percent", "%", pct(r.f64("disk"), r.f64("maxdisk")));
                    }
                }
                out.guests.push(g);
            }
            Some("storage") => {
                let Some(id) = r.str("storage") else { continue };
                if r.str("status").as_deref().is_some_and(|s| s != "available") {
                    continue;
                }
                let key = match (r.flag("shared").unwrap_or(false), r.str("node")) {
                    (false, Some(node)) => format!("storage/{node}/{id}"),
                    _ => format!("storage/{id}"),
                };
                // A shared storage is listed once per node; the first reading is enough.
                if !seen_storage.contains(&key) {
                    push(&key, "used_percent", "%", pct(r.f64("disk"), r.f64("maxdisk")));
                    seen_storage.push(key);
                }
            }
            _ => {}
        }
    }
    Ok(out)
}

/// A host's combined probe, read.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct HostReading {
    pub load1: Option<f64>,
    pub memory_percent: Option<f64>,
    pub failed_units: Vec<String>,
    /// The host's clock minus ours, in seconds.
    pub clock_offset: Option<f64>,
    /// How full the root file system is.
    pub root_percent: Option<f64>,
}

pub fn host(stdout: &str, local_now_s: i64) -> HostReading {
    let mut sections: HashMap<&str, Vec<&str>> = HashMap::new();
    let mut current = "load";
    for line in stdout.lines() {
        if let Some(name) = line.trim().strip_prefix("@@oikos ") {
            current = match name {
                "mem" => "mem",
                "units" => "units",
                "clock" => "clock",
                "df" => "df",
                _ => "other",
            };
            continue;
        }
        sections.entry(current).or_default().push(line);
    }
    let get = |k: &str| sections.get(k).cloned().unwrap_or_default();
    let load1 = get("load").first().and_then(|l| l.split_whitespace().next()).and_then(|v| v.parse::<f64>().ok());
    let mut total = None;
    let mut avail = None;
    for l in get("mem") {
        let mut parts = l.split_whitespace();
        let (k, v) = (parts.next(), parts.next().and_then(|v| v.parse::<f64>().ok()));
        match k {
            Some("MemTotal:") => total = v,
            Some("MemAvailable:") => avail = v,
            _ => {}
        }
    }
    let memory_percent = match (total, avail) {
        (Some(t), Some(a)) if t > 0.0 => Some(((t - a) / t * 100.0).clamp(0.0, 100.0)),
        _ => None,
    };
    let failed_units = get("units")
        .iter()
        .filter_map(|l| l.split_whitespace().next())
        .filter(|u| u.contains('.'))
        .map(str::to_string)
        .collect();
    let clock_offset =
        get("clock").first().and_then(|l| l.trim().parse::<i64>().ok()).map(|remote| (remote - local_now_s) as f64);
    // `df -P`: a header, then `fs 1024-blocks used available capacity mount` (used / (used + available)
    // is what `df` itself shows as the capacity).
    let root_percent = get("df").get(1).and_then(|l| {
        let f: Vec<&str> = l.split_whitespace().collect();
        let used = f.get(2)?.parse::<f64>().ok()?;
        let avail = f.get(3)?.parse::<f64>().ok()?;
        (used + avail > 0.0).then(|| used / (used + avail) * 100.0)
    });
    HostReading { load1: load1.filter(|v| v.is_finite()), memory_percent, failed_units, clock_offset, root_percent }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn resources_give_usage_and_state() {
        let status = r#"[{"type":"cluster","name":"lab","quorate":1},{"type":"node","name":"pve1","online":1}]"#;
        let res = r#"[
          {"type":"node","node":"pve1","status":"online","cpu":0.25,"mem":"512","maxmem":1024,"disk":90,"maxdisk":100},
          {"type":"node","node":"pve2","status":"offline"},
          {"type":"lxc","vmid":101,"node":"pve1","status":"running","cpu":0.5,"mem":100,"maxmem":400,"disk":10,"maxdisk":20,"netin":5},
          {"type":"qemu","vmid":"102","node":"pve1","status":"stopped","lock":"backup"},
          {"type":"qemu","vmid":103,"node":"pve2","status":"unknown"},
          {"type":"storage","storage":"nas","node":"pve1","shared":1,"disk":95,"maxdisk":100,"status":"available"},
          {"type":"storage","storage":"nas","node":"pve2","shared":1,"disk":95,"maxdisk":100,"status":"available"},
          {"type":"storage","storage":"local","node":"pve1","shared":0,"disk":1,"maxdisk":4},
          {"type":"pool","id":"/pool/x"}
        ]"#;
        let c = cluster(Some(status), res).unwrap();
        let v = |k: &str, m: &str| c.readings.iter().find(|r| r.pve_key == k && r.metric == m).map(|r| r.value);
        assert_eq!(c.quorate, Some(true));
        assert_eq!(v("node/pve1", "cpu_percent"), Some(25.0));
        assert_eq!(v("node/pve1", "memory_percent"), Some(50.0));
        assert_eq!(v("node/pve1", "disk_percent"), Some(90.0));
        assert_eq!(v("node/pve2", "up"), Some(0.0));
        assert_eq!(v("guest/101", "memory_percent"), Some(25.0));
        assert_eq!(v("guest/102", "cpu_percent"), None);
        assert_eq!(v("storage/nas", "used_percent"), Some(95.0));
        assert_eq!(v("storage/pve1/local", "used_percent"), Some(25.0));
        assert_eq!(c.readings.iter().filter(|r| r.pve_key == "storage/nas").count(), 1);
        let g102 = c.guests.iter().find(|g| g.vmid == 102).unwrap();
        assert_eq!((g102.running, g102.lock.as_deref()), (false, Some("backup")));
        assert!(c.guests.iter().find(|g| g.vmid == 103).unwrap().unknown);
        assert!(cluster(None, "not json").is_err());
    }

    #[test]
    fn a_host_probe_reads_its_four_answers() {
        let out = "0.52 0.40 0.30 1/200 999\n@@oikos mem\nMemTotal:  1000 kB\nMemAvailable:  250 kB\n@@oikos units\n\
                   caddy.service loaded failed failed Caddy\n@@oikos clock\n1000005\n@@oikos df\n\
                   Filesystem 1024-blocks Used Available Capacity Mounted on\n/dev/sda1 1000 900 100 90% /\n";
        let h = host(out, 1_000_000);
        assert_eq!(h.load1, Some(0.52));
        assert_eq!(h.memory_percent, Some(75.0));
        assert_eq!(h.failed_units, vec!["caddy.service".to_string()]);
        assert_eq!(h.clock_offset, Some(5.0));
        assert_eq!(h.root_percent, Some(90.0));
        let empty = host("", 0);
        assert_eq!(empty, HostReading::default());
        // Non-ASCII noise does not upset it.
        assert_eq!(host("ü\n@@oikos units\nnöt-a-unit\n", 0).failed_units, Vec::<String>::new());
    }
}

/// The slow reads of a cluster: hourly certificates and subscriptions per node, daily the newest
/// backup per guest (from the storages that hold backups).
pub mod slow {
    use super::{array, Reading, Row};

    /// Days until the node's own certificate (`pve-ssl.pem`, else the first one listed) expires.
    pub fn certificate_days(text: &str, now_s: i64) -> Option<f64> {
        let rows = array(text, "certificates/info").ok()?;
        let pick =
            rows.iter().find(|m| Row(m).str("filename").as_deref() == Some("pve-ssl.pem")).or_else(|| rows.first())?;
        let notafter = Row(pick).f64("notafter")?;
        Some((notafter - now_s as f64) / 86_400.0)
    }

    /// Whether the node's subscription is active.
    pub fn subscription_active(text: &str) -> Option<bool> {
        let v: serde_json::Value = serde_json::from_str(text.trim()).ok()?;
        let status = v.get("status")?.as_str()?;
        Some(status.eq_ignore_ascii_case("active"))
    }

    /// The newest backup per guest of one storage's content: (vmid, ctime).
    pub fn backups(text: &str) -> Vec<(u64, i64)> {
        let Ok(rows) = array(text, "storage content") else { return Vec::new() };
        rows.iter()
            .filter_map(|m| {
                let r = Row(m);
                let ctime = i64::try_from(r.u64("ctime")?).ok()?;
                Some((r.u64("vmid")?, ctime))
            })
            .collect()
    }

    /// Backup ages (hours) as readings, from every storage's content.
    pub fn backup_ages(contents: &[Vec<(u64, i64)>], now_s: i64) -> Vec<Reading> {
        let mut newest: std::collections::BTreeMap<u64, i64> = std::collections::BTreeMap::new();
        for (vmid, ctime) in contents.iter().flatten() {
            let e = newest.entry(*vmid).or_insert(*ctime);
            *e = (*e).max(*ctime);
        }
        newest
            .into_iter()
            .map(|(vmid, ctime)| Reading {
                pve_key: format!("guest/{vmid}"),
                metric: "backup_age_hours",
                unit: "h",
                value: ((now_s - ctime) as f64 / 3600.0).max(0.0),
            })
            .collect()
    }

    #[cfg(test)]
    mod tests {
        use super::*;

        #[test]
        fn slow_reads() {
            let certs = r#"[{"filename":"pve-root-ca.pem","notafter":2000000000},{"filename":"pve-ssl.pem","notafter":1000864000}]"#;
            assert_eq!(certificate_days(certs, 1_000_000_000), Some(10.0));
            assert_eq!(certificate_days("[]", 0), None);
            assert_eq!(subscription_active(r#"{"status":"Active","level":"c"}"#), Some(true));
            assert_eq!(subscription_active(r#"{"status":"notfound"}"#), Some(false));
            assert_eq!(subscription_active("nope"), None);
            let a = backups(
                r#"[{"vmid":101,"ctime":3600},{"vmid":101,"ctime":7200},{"vmid":"102","ctime":"0"},{"volid":"x"}]"#,
            );
            let b = backups(r#"[{"vmid":102,"ctime":3600}]"#);
            let ages = backup_ages(&[a, b], 7200 + 3 * 3600);
            assert_eq!(ages.len(), 2);
            assert_eq!((ages[0].pve_key.as_str(), ages[0].value), ("guest/101", 3.0));
            assert_eq!((ages[1].pve_key.as_str(), ages[1].value), ("guest/102", 4.0));
        }
    }
}
