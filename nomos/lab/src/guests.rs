//! The lab's guests as files: seeding a new lab, and the changes `nomos lab guest …` makes behind
//! Oikos's back, as someone with a shell on the cluster would (editing the state the stand-ins read,
//! under the same flocks they take).
//!
//! A guest is `hosts/<node>/pve/<lxc|qemu>/<vmid>/{config,state}` (see `shell/lab-common.sh`); a
//! container also has `rootfs/` with the few files `pct create` writes there. Seeding writes these
//! directly rather than through the stand-ins: a fork-heavy bash script per guest made a 60-guest
//! lab slow to start.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::fs::{self, File, OpenOptions};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use serde::Serialize;

use super::{host_dir, write_file, LabError, Result};

/// Containers or virtual machines, as the lab's directories (and Proxmox's resource ids) name them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum GuestKind {
    Lxc,
    Qemu,
}

impl GuestKind {
    pub fn as_str(self) -> &'static str {
        match self {
            GuestKind::Lxc => "lxc",
            GuestKind::Qemu => "qemu",
        }
    }
}

/// A guest of the lab as `nomos lab guest …` reports it.
#[derive(Clone, Debug, Serialize)]
pub struct Guest {
    pub vmid: u32,
    pub kind: GuestKind,
    pub node: String,
    pub name: String,
    /// `running` or `stopped`.
    pub status: String,
}

/// Everything a seeded or created guest's config is made from.
#[derive(Clone, Debug)]
pub(super) struct GuestSpec {
    pub node: String,
    pub vmid: u32,
    pub kind: GuestKind,
    pub name: String,
    pub cores: u32,
    pub memory_mb: u32,
    pub disk_gb: u32,
    /// `10.10.0.21` (with LAN_PREFIX), or None for DHCP.
    pub ip: Option<String>,
    pub tags: Option<String>,
    pub description: Option<String>,
    pub onboot: bool,
    pub running: bool,
    pub template: bool,
    pub lock: Option<&'static str>,
    /// A data volume on the shared `nas` storage (containers: mp0).
    pub data_gb: Option<u32>,
    /// A second NIC on the VLAN-aware bridge vmbr1, VLAN 20.
    pub vlan_nic: bool,
}

/// The network every seeded guest is on; its gateway is 127.0.0.1 so that pinging it works.
pub(super) const LAN_CIDR: &str = "10.10.0.0/24";
pub(super) const LAN_PREFIX: u8 = 24;
pub(super) const LAN_GATEWAY: &str = "127.0.0.1";
const SEED_TEMPLATE: &str = "debian-12-standard_12.7-1_amd64.tar.zst";
/// The lowest VMID Proxmox hands out.
const FIRST_VMID: u32 = 100;
/// The cluster's backup job, as the pvesh stand-in reads it: `<id> <vmid>,<vmid>,...`.
const BACKUP_JOBS: &str = "backup-jobs";

impl GuestSpec {
    /// A guest as `nomos lab guest create` makes it: small, DHCP, running.
    pub(super) fn plain(node: &str, vmid: u32, kind: GuestKind, name: &str) -> GuestSpec {
        let (cores, memory_mb, disk_gb) = match kind {
            GuestKind::Lxc => (1, 512, 8),
            GuestKind::Qemu => (2, 2048, 32),
        };
        GuestSpec {
            node: node.into(),
            vmid,
            kind,
            name: name.into(),
            cores,
            memory_mb,
            disk_gb,
            ip: None,
            tags: None,
            description: None,
            onboot: false,
            running: true,
            template: false,
            lock: None,
            data_gb: None,
            vlan_nic: false,
        }
    }

    /// A MAC with Proxmox's prefix (BC:24:11), fixed by the VMID (and NIC) so a
    /// seeded lab is the same every time.
    fn mac(&self, nic: u32) -> String {
        let n = self.vmid.wrapping_mul(2).wrapping_add(nic);
        format!("BC:24:11:{:02X}:{:02X}:{:02X}", (n >> 16) & 0xff, (n >> 8) & 0xff, n & 0xff)
    }

    /// The config file, as Proxmox writes it: the description as `#` lines first, then the keys
    /// sorted.
    pub(super) fn config(&self) -> String {
        let id = self.vmid;
        let mut keys: BTreeMap<&str, String> = BTreeMap::new();
        keys.insert("cores", self.cores.to_string());
        keys.insert("memory", self.memory_mb.to_string());
        if self.onboot {
            keys.insert("onboot", "1".into());
        }
        if let Some(tags) = &self.tags {
            keys.insert("tags", tags.clone());
        }
        if self.template {
            keys.insert("template", "1".into());
        }
        if let Some(lock) = self.lock {
            keys.insert("lock", lock.into());
        }
        let ip = self.ip.as_ref().map_or_else(|| "dhcp".to_string(), |ip| format!("{ip}/{LAN_PREFIX}"));
        // A static address comes with the gateway; DHCP brings its own.
        let gw = if self.ip.is_some() { format!(",gw={LAN_GATEWAY}") } else { String::new() };
        match self.kind {
            GuestKind::Lxc => {
                keys.insert("arch", "amd64".into());
                keys.insert("hostname", self.name.clone());
                keys.insert("swap", "512".into());
                keys.insert("ostype", "debian".into());
                keys.insert("unprivileged", "1".into());
                keys.insert("features", "nesting=1".into());
                keys.insert("rootfs", format!("local-lvm:vm-{id}-disk-0,size={}G", self.disk_gb));
                let mac = self.mac(0);
                keys.insert("net0", format!("name=eth0,bridge=vmbr0,firewall=1{gw},hwaddr={mac},ip={ip},type=veth"));
                if self.vlan_nic {
                    keys.insert(
                        "net1",
                        format!("name=eth1,bridge=vmbr1,hwaddr={},ip=dhcp,tag=20,type=veth", self.mac(1)),
                    );
                }
                if let Some(gb) = self.data_gb {
                    keys.insert("mp0", format!("nas:subvol-{id}-disk-1,mp=/data,size={gb}G"));
                }
            }
            GuestKind::Qemu => {
                keys.insert("name", self.name.clone());
                keys.insert("sockets", "1".into());
                keys.insert("ostype", "l26".into());
                keys.insert("boot", "order=scsi0;net0".into());
                keys.insert("scsihw", "virtio-scsi-single".into());
                keys.insert("scsi0", format!("local-lvm:vm-{id}-disk-0,iothread=1,size={}G", self.disk_gb));
                keys.insert("net0", format!("virtio={},bridge=vmbr0,firewall=1", self.mac(0)));
                keys.insert("ipconfig0", format!("ip={ip}{gw}"));
                if self.vlan_nic {
                    keys.insert("net1", format!("virtio={},bridge=vmbr1,firewall=1,tag=20", self.mac(1)));
                }
                if let Some(gb) = self.data_gb {
                    keys.insert("scsi1", format!("nas:{id}/vm-{id}-disk-1.qcow2,iothread=1,size={gb}G"));
                }
            }
        }
        let mut text = String::new();
        if let Some(d) = &self.description {
            for line in d.lines() {
                let _ = writeln!(text, "#{}", encode_comment(line));
            }
        }
        for (k, v) in keys {
            let _ = writeln!(text, "{k}: {v}");
        }
        text
    }
}

/// Proxmox keeps a description as comment lines with `%`, `:` and anything beyond printable ASCII
/// percent-encoded (byte by byte, UTF-8); `pvesh` decodes them.
fn encode_comment(line: &str) -> String {
    let mut out = String::new();
    for b in line.bytes() {
        if b == b'%' || b == b':' || !(0x20..0x7f).contains(&b) {
            let _ = write!(out, "%{b:02X}");
        } else {
            out.push(char::from(b));
        }
    }
    out
}

/// The guests a new lab starts with: the default set (which the inventory describes), with the
/// keys real guests carry.
pub(super) fn default_seeds() -> Vec<GuestSpec> {
    super::inventory::SEEDS
        .iter()
        .map(|s| {
            let kind = if s.kind == "lxc" { GuestKind::Lxc } else { GuestKind::Qemu };
            let mut g = GuestSpec::plain(s.host, s.vmid, kind, s.name);
            g.cores = s.cores;
            g.memory_mb = s.memory_mb;
            g.disk_gb = s.disk_gb;
            g.ip = Some(s.ip.to_string());
            g.onboot = true;
            match s.name {
                "caddy" => g.tags = Some("web;prod".into()),
                "gitea" => {
                    g.tags = Some("dev".into());
                    g.data_gb = Some(32);
                }
                "haos" => {
                    g.vlan_nic = true;
                    g.description = Some("Home Assistant OS – Wohnzimmer".into());
                }
                _ => {}
            }
            g
        })
        .collect()
}

/// `count` guests spread round-robin over `hosts`, VMIDs from 100 up: mostly containers, every
/// fifth a VM (the first of them a template), a few stopped, one locked by a backup, some with a
/// data volume on the NAS or a NIC on VLAN 20. The same count gives the same lab.
pub(super) fn generated_seeds(count: usize, hosts: &[String]) -> Vec<GuestSpec> {
    const LXC_ROLES: [&str; 10] = ["web", "db", "dns", "proxy", "git", "media", "mqtt", "backup", "monitor", "cache"];
    const VM_ROLES: [&str; 4] = ["k3s", "win11", "opnsense", "truenas"];
    let mut out = Vec::with_capacity(count);
    if hosts.is_empty() {
        return out;
    }
    for i in 0..count {
        let vmid = FIRST_VMID + i as u32;
        let node = hosts[i % hosts.len()].clone();
        let kind = if i % 5 == 4 { GuestKind::Qemu } else { GuestKind::Lxc };
        let template = i == 4;
        let role = match kind {
            GuestKind::Lxc => LXC_ROLES[i % LXC_ROLES.len()],
            GuestKind::Qemu => VM_ROLES[(i / 5) % VM_ROLES.len()],
        };
        let name = if template { "debian-12-template".to_string() } else { format!("{role}-{vmid}") };
        let mut g = GuestSpec::plain(&node, vmid, kind, &name);
        // 150 guests per /24, from .100: clear of the nodes' addresses (.2 up).
        g.ip = Some(format!("10.10.{}.{}", i / 150, 100 + i % 150));
        g.cores = [1, 2, 1, 4][i % 4] * if kind == GuestKind::Qemu { 2 } else { 1 };
        g.memory_mb = [512, 1024, 2048][i % 3] * if kind == GuestKind::Qemu { 4 } else { 1 };
        g.disk_gb = [4, 8, 16][i % 3] * if kind == GuestKind::Qemu { 4 } else { 1 };
        g.onboot = i % 2 == 0 && !template;
        g.running = i % 6 != 5 && !template;
        g.template = template;
        g.tags = match i % 3 {
            _ if template => None,
            0 => Some(format!("{role};prod")),
            1 => Some(role.to_string()),
            _ => None,
        };
        if i == 7 {
            g.lock = Some("backup");
        }
        if i % 4 == 1 {
            g.data_gb = Some(32);
        }
        g.vlan_nic = kind == GuestKind::Qemu && i % 10 == 9;
        if role == "media" {
            g.description = Some("Médiathèque (Jellyfin) – salon".into());
        }
        out.push(g);
    }
    out
}

/// Writes a guest's directory (atomically: built under a hidden name, then renamed into place, so
/// a reader sees all of it or none).
pub(super) fn write_guest(dir: &Path, g: &GuestSpec) -> Result<()> {
    let parent = host_dir(dir, &g.node).join("pve").join(g.kind.as_str());
    fs::create_dir_all(&parent).map_err(LabError::io(&parent))?;
    let staging = parent.join(format!(".new-{}", g.vmid));
    remove_dir_if_any(&staging)?;
    fs::create_dir_all(&staging).map_err(LabError::io(&staging))?;
    write_file(&staging.join("config"), &g.config(), 0o644)?;
    write_file(&staging.join("state"), if g.running { "running\n" } else { "stopped\n" }, 0o644)?;
    if g.kind == GuestKind::Lxc {
        write_rootfs(&staging.join("rootfs"), &g.name)?;
    }
    let target = parent.join(g.vmid.to_string());
    fs::rename(&staging, &target).map_err(LabError::io(&target))
}

/// The files `pct create` puts in a container's directory: its hostname (with a `hostname` command
/// that prints it, for `pct exec`) and an os-release naming the template's distribution.
fn write_rootfs(root: &Path, hostname: &str) -> Result<()> {
    for d in ["etc", "bin", "usr/bin", "root", "tmp"] {
        let p = root.join(d);
        fs::create_dir_all(&p).map_err(LabError::io(&p))?;
    }
    write_file(&root.join("etc/hostname"), &format!("{hostname}\n"), 0o644)?;
    let version = SEED_TEMPLATE.split(['-', '_']).nth(1).unwrap_or("12");
    write_file(
        &root.join("etc/os-release"),
        &format!(
            "PRETTY_NAME=\"Debian GNU/Linux {version} (Oikos lab stand-in)\"\nID=debian\nVERSION_ID=\"{version}\"\n"
        ),
        0o644,
    )?;
    // Found relative to the script itself: the container's directory moves (staging, migration).
    write_file(
        &root.join("bin/hostname"),
        "#!/bin/sh\n# Oikos lab stand-in: the container's hostname.\ncat \"${0%/*}/../etc/hostname\"\n",
        0o755,
    )
}

fn remove_dir_if_any(path: &Path) -> Result<()> {
    match fs::remove_dir_all(path) {
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => Err(LabError::io(path)(e)),
        _ => Ok(()),
    }
}

/// Where the guest with this VMID lives: (node, kind, its directory).
pub(super) fn find(dir: &Path, vmid: u32) -> Option<(String, GuestKind, PathBuf)> {
    for node in nodes(dir) {
        for kind in [GuestKind::Lxc, GuestKind::Qemu] {
            let gdir = host_dir(dir, &node).join("pve").join(kind.as_str()).join(vmid.to_string());
            if gdir.join("config").is_file() {
                return Some((node, kind, gdir));
            }
        }
    }
    None
}

/// The lab's nodes (those with Proxmox state), in natural order (pve2 before pve10).
fn nodes(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = fs::read_dir(dir.join("hosts"))
        .map(|entries| {
            entries
                .filter_map(|e| e.ok())
                .filter(|e| e.path().join("pve").is_dir())
                .filter_map(|e| e.file_name().to_str().map(str::to_string))
                .collect()
        })
        .unwrap_or_default();
    names.sort_by_key(|n| {
        let digits: String = n.chars().rev().take_while(char::is_ascii_digit).collect();
        let number: u64 = digits.chars().rev().collect::<String>().parse().unwrap_or(0);
        let stem: String = n.chars().take(n.chars().count() - digits.chars().count()).collect();
        (stem, number)
    });
    names
}

fn read_guest(node: &str, kind: GuestKind, gdir: &Path, vmid: u32) -> Result<Guest> {
    let config_path = gdir.join("config");
    let config = fs::read_to_string(&config_path).map_err(LabError::io(&config_path))?;
    let key = if kind == GuestKind::Lxc { "hostname" } else { "name" };
    let name = config_value(&config, key).unwrap_or_default();
    let status =
        fs::read_to_string(gdir.join("state")).map(|s| s.trim().to_string()).unwrap_or_else(|_| "stopped".into());
    Ok(Guest { vmid, kind, node: node.into(), name, status })
}

pub(super) fn config_value(config: &str, key: &str) -> Option<String> {
    config.lines().find_map(|l| l.strip_prefix(key)?.strip_prefix(": ").map(str::to_string))
}

/// A valid DNS name, as Proxmox requires of a container's hostname and a VM's name.
fn check_name(name: &str) -> Result<()> {
    let ok_char = |c: char| c.is_ascii_alphanumeric() || c == '-' || c == '.';
    let ends_ok = name.chars().next().is_some_and(|c| c.is_ascii_alphanumeric())
        && name.chars().last().is_some_and(|c| c.is_ascii_alphanumeric());
    if name.chars().all(ok_char) && ends_ok && name.len() <= 63 {
        Ok(())
    } else {
        Err(LabError::Guest(format!("`{name}` is not a valid DNS name (letters, digits, '-' and '.')")))
    }
}

pub(super) fn check_node(dir: &Path, node: &str) -> Result<()> {
    if host_dir(dir, node).join("pve").is_dir() {
        Ok(())
    } else {
        Err(LabError::UnknownHost(node.into()))
    }
}

/// An exclusive flock on `path`, held until the returned file is dropped: the lock the stand-ins
/// take with flock(1). Taken by flock(1) too, on this process's descriptor passed as its stdin: the
/// lock belongs to the open file, so it outlives that process (std's `File::lock` is newer than this
/// workspace's minimum Rust, and `unsafe` is forbidden).
fn flock(path: &Path) -> Result<File> {
    let file = OpenOptions::new().create(true).append(true).open(path).map_err(LabError::io(path))?;
    let stdin = file.try_clone().map_err(LabError::io(path))?;
    let status = Command::new("flock")
        .args(["--exclusive", "0"])
        .stdin(Stdio::from(stdin))
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .output()
        .map_err(|e| LabError::Command {
            what: format!("flock {}", path.display()),
            message: format!("{e} (the lab needs flock from util-linux)"),
        })?;
    if !status.status.success() {
        return Err(LabError::Command {
            what: format!("flock {}", path.display()),
            message: String::from_utf8_lossy(&status.stderr).trim().to_string(),
        });
    }
    Ok(file)
}

/// The cluster lock and then the given nodes' locks (sorted, so two changes cannot wait on each
/// other), in the stand-ins' order.
pub(super) fn lock(dir: &Path, nodes: &[&str]) -> Result<Vec<File>> {
    let mut held = vec![flock(&dir.join("cluster.lock"))?];
    let mut sorted: Vec<&str> = nodes.to_vec();
    sorted.sort_unstable();
    sorted.dedup();
    for node in sorted {
        held.push(flock(&host_dir(dir, node).join("pve.lock"))?);
    }
    Ok(held)
}

pub(super) fn canonical(dir: &Path) -> Result<PathBuf> {
    if !dir.join("hosts").is_dir() {
        return Err(LabError::NotFound(dir.to_path_buf()));
    }
    fs::canonicalize(dir).map_err(LabError::io(dir))
}

/// Creates a guest on `node` (the next free VMID unless one is given), running, as if someone
/// made it on the cluster.
pub fn create_guest(dir: &Path, node: &str, vmid: Option<u32>, kind: GuestKind, name: &str) -> Result<Guest> {
    let dir = canonical(dir)?;
    check_node(&dir, node)?;
    check_name(name)?;
    if let Some(id) = vmid {
        if !(FIRST_VMID..=999_999_999).contains(&id) {
            return Err(LabError::Guest(format!("VMID {id} is out of range (100 to 999999999)")));
        }
    }
    let _locks = lock(&dir, &[node])?;
    let vmid = match vmid {
        Some(id) => {
            if let Some((at, k, _)) = find(&dir, id) {
                return Err(LabError::Guest(format!("{} {id} already exists on node '{at}'", k.as_str())));
            }
            id
        }
        None => (FIRST_VMID..).find(|id| find(&dir, *id).is_none()).unwrap_or(FIRST_VMID),
    };
    let spec = GuestSpec::plain(node, vmid, kind, name);
    write_guest(&dir, &spec)?;
    tracing::info!(vmid, node, "lab guest created");
    Ok(Guest { vmid, kind, node: node.into(), name: name.into(), status: "running".into() })
}

/// Removes a guest wherever it is (what it was is returned).
pub fn destroy_guest(dir: &Path, vmid: u32) -> Result<Guest> {
    let dir = canonical(dir)?;
    let (node, _, _) = find(&dir, vmid).ok_or_else(|| no_guest(vmid))?;
    let _locks = lock(&dir, &[&node])?;
    // Found again under the lock: it may have moved or gone meanwhile.
    let (node, kind, gdir) = find(&dir, vmid).ok_or_else(|| no_guest(vmid))?;
    let guest = read_guest(&node, kind, &gdir, vmid)?;
    // Out of sight in one step, then removed.
    let doomed = gdir.with_file_name(format!(".gone-{vmid}"));
    remove_dir_if_any(&doomed)?;
    fs::rename(&gdir, &doomed).map_err(LabError::io(&gdir))?;
    remove_dir_if_any(&doomed)?;
    tracing::info!(vmid, node, "lab guest destroyed");
    Ok(guest)
}

/// Moves a guest to another node (its state unchanged), as moving its config file in /etc/pve does.
pub fn migrate_guest(dir: &Path, vmid: u32, to: &str) -> Result<Guest> {
    let dir = canonical(dir)?;
    check_node(&dir, to)?;
    let (from, _, _) = find(&dir, vmid).ok_or_else(|| no_guest(vmid))?;
    let _locks = lock(&dir, &[&from, to])?;
    let (from, kind, gdir) = find(&dir, vmid).ok_or_else(|| no_guest(vmid))?;
    if from == to {
        return Err(LabError::Guest(format!("guest {vmid} is already on node '{to}'")));
    }
    let parent = host_dir(&dir, to).join("pve").join(kind.as_str());
    fs::create_dir_all(&parent).map_err(LabError::io(&parent))?;
    let target = parent.join(vmid.to_string());
    fs::rename(&gdir, &target).map_err(LabError::io(&target))?;
    tracing::info!(vmid, from, to, "lab guest migrated");
    read_guest(to, kind, &target, vmid)
}

/// Gives a guest a new name (a container's hostname, a VM's name).
pub fn rename_guest(dir: &Path, vmid: u32, name: &str) -> Result<Guest> {
    let dir = canonical(dir)?;
    check_name(name)?;
    let (node, _, _) = find(&dir, vmid).ok_or_else(|| no_guest(vmid))?;
    let _locks = lock(&dir, &[&node])?;
    let (node, kind, gdir) = find(&dir, vmid).ok_or_else(|| no_guest(vmid))?;
    let key = if kind == GuestKind::Lxc { "hostname" } else { "name" };
    set_config_key(&gdir.join("config"), key, Some(name))?;
    if kind == GuestKind::Lxc {
        let hostname = gdir.join("rootfs").join("etc").join("hostname");
        if hostname.parent().is_some_and(Path::is_dir) {
            write_file(&hostname, &format!("{name}\n"), 0o644)?;
        }
    }
    tracing::info!(vmid, node, name, "lab guest renamed");
    read_guest(&node, kind, &gdir, vmid)
}

/// Sets a key of a guest's config (or removes it, given None), as Proxmox writes the file: the
/// description's `#` lines first, keys sorted. Replaced in one step: a reader sees the old file or
/// the new one.
pub(super) fn set_config_key(path: &Path, key: &str, value: Option<&str>) -> Result<()> {
    let config = fs::read_to_string(path).map_err(LabError::io(path))?;
    let is_key = |line: &str| line.strip_prefix(key).is_some_and(|rest| rest.starts_with(": "));
    let mut lines: Vec<String> = Vec::new();
    let mut replaced = false;
    for line in config.lines() {
        if !replaced && is_key(line) {
            replaced = true;
            if let Some(v) = value {
                lines.push(format!("{key}: {v}"));
            }
        } else {
            lines.push(line.to_string());
        }
    }
    if let (false, Some(v)) = (replaced, value) {
        let at = lines.iter().position(|l| !l.starts_with('#') && l.as_str() > key).unwrap_or(lines.len());
        lines.insert(at, format!("{key}: {v}"));
    }
    let mut text = lines.join("\n");
    text.push('\n');
    let staging = path.with_extension("edit");
    write_file(&staging, &text, 0o644)?;
    fs::rename(&staging, path).map_err(LabError::io(path))
}

/// The VMIDs of every guest in the lab, ascending.
pub(super) fn all_vmids(dir: &Path) -> Vec<u32> {
    let mut ids = Vec::new();
    for node in nodes(dir) {
        for kind in [GuestKind::Lxc, GuestKind::Qemu] {
            let Ok(entries) = fs::read_dir(host_dir(dir, &node).join("pve").join(kind.as_str())) else { continue };
            ids.extend(
                entries
                    .filter_map(|e| e.ok())
                    .filter(|e| e.path().join("config").is_file())
                    .filter_map(|e| e.file_name().to_str().and_then(|n| n.parse::<u32>().ok())),
            );
        }
    }
    ids.sort_unstable();
    ids
}

/// The cluster's backup job (`<dir>/backup-jobs`), written once when the lab is first seeded: it
/// covers the guests that exist then, so a guest made later is in no job, as one someone forgot
/// to add.
pub(super) fn write_backup_job(dir: &Path) -> Result<()> {
    let path = dir.join(BACKUP_JOBS);
    if path.exists() {
        return Ok(());
    }
    let ids: Vec<String> = all_vmids(dir).iter().map(u32::to_string).collect();
    write_file(&path, &format!("backup-daily {}\n", ids.join(",")), 0o644)
}

pub(super) fn no_guest(vmid: u32) -> LabError {
    LabError::Guest(format!("no guest with VMID {vmid} in the lab"))
}

/// Whether any guest of the lab has this VMID (seeding skips those: a restart keeps what exists).
pub(super) fn exists(dir: &Path, vmid: u32) -> bool {
    find(dir, vmid).is_some()
}
