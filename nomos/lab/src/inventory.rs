//! The lab's seeded guests and the inventory file describing the lab (format of
//! [`crate::inventory`]).

use std::fmt::Write as _;
use std::process::{Command, Stdio};

use super::guests::{LAN_CIDR, LAN_GATEWAY};
use super::{host_dir, write_file, Lab, Result};

/// A guest every new lab starts with.
pub(super) struct Seed {
    pub host: &'static str,
    pub vmid: u32,
    pub name: &'static str,
    /// `lxc` or `qemu`.
    pub kind: &'static str,
    pub ip: &'static str,
    pub cores: u32,
    pub memory_mb: u32,
    pub disk_gb: u32,
    /// A service that runs in it: (name, port).
    pub service: Option<(&'static str, u16)>,
}

pub(super) const SEEDS: [Seed; 4] = [
    Seed {
        host: "pve1",
        vmid: 101,
        name: "caddy",
        kind: "lxc",
        ip: "10.10.0.21",
        cores: 1,
        memory_mb: 512,
        disk_gb: 4,
        service: Some(("caddy", 443)),
    },
    Seed {
        host: "pve1",
        vmid: 102,
        name: "gitea",
        kind: "lxc",
        ip: "10.10.0.22",
        cores: 2,
        memory_mb: 1024,
        disk_gb: 8,
        service: Some(("gitea", 3000)),
    },
    Seed {
        host: "pve2",
        vmid: 201,
        name: "dns",
        kind: "lxc",
        ip: "10.10.0.53",
        cores: 1,
        memory_mb: 256,
        disk_gb: 2,
        service: None,
    },
    Seed {
        host: "pve2",
        vmid: 210,
        name: "haos",
        kind: "qemu",
        ip: "10.10.0.40",
        cores: 2,
        memory_mb: 4096,
        disk_gb: 32,
        service: None,
    },
];

/// The user the lab's sshds let in with the lab key: whoever runs the lab.
pub fn current_user() -> String {
    for var in ["USER", "LOGNAME"] {
        if let Ok(u) = std::env::var(var) {
            if !u.is_empty() {
                return u;
            }
        }
    }
    Command::new("id")
        .arg("-un")
        .stdin(Stdio::null())
        .output()
        .ok()
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
        .filter(|u| !u.is_empty())
        .unwrap_or_else(|| "root".into())
}

/// A YAML scalar that survives any characters (JSON strings are YAML).
fn q(s: &str) -> String {
    serde_json::Value::String(s.to_string()).to_string()
}

/// Writes `<dir>/inventory.yaml` for the running lab.
pub(super) fn write(lab: &Lab) -> Result<()> {
    let user = current_user();
    let key = lab.client_key().display().to_string();
    let mut y = String::new();
    // `write!` to a String cannot fail.
    let _ = writeln!(
        y,
        "# The Oikos lab: simulated Proxmox hosts on this machine (real sshd on 127.0.0.1; pct, pvesh,\n\
         # pveam and qm are stand-ins). Written by `nomos lab up`: ports change when the lab restarts,\n\
         # import again afterwards.\n\
         #   nomos inventory import {}\n",
        q(&lab.inventory_path().display().to_string())
    );
    y.push_str("hosts:\n");
    for h in lab.hosts() {
        let _ = writeln!(
            y,
            "  - {{ name: {}, address: 127.0.0.1, ssh_port: {}, ssh_user: {}, ssh_key: {}, attributes: {{ lab: true, pve_version: \"8.3\" }} }}",
            h.name, h.port, q(&user), q(&key)
        );
    }
    y.push_str("\nstorage:\n");
    for h in lab.hosts() {
        let _ = writeln!(
            y,
            "  - {{ name: local, slug: \"storage:{0}-local\", host: {0}, attributes: {{ type: dir, path: /var/lib/vz, content: \"backup,iso,rootdir,images,vztmpl\" }} }}",
            h.name
        );
    }
    let _ = writeln!(y, "\nnetworks:\n  - {{ name: lan, attributes: {{ cidr: {LAN_CIDR}, gateway: {LAN_GATEWAY} }} }}");
    // The default seeds that are there (a lab seeded with `--guests N` has others, for discovery to
    // find; a guest someone destroyed is not described).
    let present: Vec<&Seed> = SEEDS
        .iter()
        .filter(|s| {
            let config = host_dir(lab.dir(), s.host).join("pve").join(s.kind).join(s.vmid.to_string()).join("config");
            std::fs::read_to_string(config).is_ok_and(|c| c.lines().any(|l| l.ends_with(&format!(": {}", s.name))))
        })
        .collect();
    for (section, kind) in [("lxcs", "lxc"), ("vms", "qemu")] {
        let guests: Vec<&&Seed> = present.iter().filter(|s| s.kind == kind).collect();
        if guests.is_empty() {
            continue;
        }
        let _ = writeln!(y, "\n{section}:");
        for s in guests {
            let _ = writeln!(
                y,
                "  - {{ name: {}, pve_id: {}, host: {}, ip: {}, storage: [\"storage:{}-local\"], networks: [lan], attributes: {{ cores: {}, memory_mb: {}, disk_gb: {} }} }}",
                s.name, s.vmid, s.host, s.ip, s.host, s.cores, s.memory_mb, s.disk_gb
            );
        }
    }
    let services: Vec<&&Seed> = present.iter().filter(|s| s.service.is_some()).collect();
    if !services.is_empty() {
        y.push_str("\nservices:\n");
        for s in services {
            if let Some((name, port)) = s.service {
                let kind = if s.kind == "lxc" { "lxc" } else { "vm" };
                let _ = writeln!(y, "  - {{ name: {name}, runs_on: \"{kind}:{}\", port: {port} }}", s.name);
            }
        }
    }
    write_file(&lab.inventory_path(), &y, 0o644)
}
