//! Proxmox VE's API answers (`pvesh get … --output-format json`), read leniently as the API
//! viewer documents them: optional fields optional, unknown fields ignored, integers that arrive
//! as strings (or booleans as `0`/`1`, `"1"`, `true`) accepted. PVE 7, 8 and 9 differ in a few
//! fields (9 lists SDN as `network`, 7 lacks `tags` on older releases); none is required.

use std::collections::BTreeMap;

use serde_json::{Map, Value as Json};

use super::DiscoveryError;

/// One JSON object of an answer, with lenient accessors.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Row<'a>(pub &'a Map<String, Json>);

impl<'a> Row<'a> {
    /// A non-empty string (numbers are given as their text: a node named `1` stays a name).
    pub fn str(&self, key: &str) -> Option<String> {
        match self.0.get(key)? {
            Json::String(s) if !s.trim().is_empty() => Some(s.trim().to_string()),
            Json::Number(n) => Some(n.to_string()),
            _ => None,
        }
    }

    pub fn u64(&self, key: &str) -> Option<u64> {
        number(self.0.get(key)?)
    }

    /// A finite number (fractions kept), from a number or a string of one.
    pub fn f64(&self, key: &str) -> Option<f64> {
        match self.0.get(key)? {
            Json::Number(n) => n.as_f64(),
            Json::String(s) => s.trim().parse::<f64>().ok(),
            _ => None,
        }
        .filter(|f| f.is_finite())
    }

    /// `1`, `"1"`, `true` are true; `0`, `"0"`, `false` false; anything else absent.
    pub fn flag(&self, key: &str) -> Option<bool> {
        match self.0.get(key)? {
            Json::Bool(b) => Some(*b),
            other => match number(other)? {
                0 => Some(false),
                1 => Some(true),
                _ => None,
            },
        }
    }
}

/// A non-negative integer from a number (fractions dropped) or a string of one.
fn number(v: &Json) -> Option<u64> {
    match v {
        Json::Number(n) => n.as_u64().or_else(|| n.as_f64().filter(|f| f.is_finite() && *f >= 0.0).map(|f| f as u64)),
        Json::String(s) => {
            let s = s.trim();
            s.parse::<u64>()
                .ok()
                .or_else(|| s.parse::<f64>().ok().filter(|f| f.is_finite() && *f >= 0.0).map(|f| f as u64))
        }
        Json::Bool(b) => Some(u64::from(*b)),
        _ => None,
    }
}

/// Parses an answer that must be a JSON array of objects (non-objects are skipped).
pub(crate) fn array(text: &str, path: &str) -> Result<Vec<Map<String, Json>>, DiscoveryError> {
    match parse(text, path)? {
        Json::Array(items) => Ok(items
            .into_iter()
            .filter_map(|v| match v {
                Json::Object(m) => Some(m),
                _ => None,
            })
            .collect()),
        other => Err(DiscoveryError::Malformed {
            path: path.to_string(),
            message: format!("expected a JSON array, got {}", kind_of(&other)),
        }),
    }
}

/// Parses an answer that must be a JSON object.
pub(crate) fn object(text: &str, path: &str) -> Result<Map<String, Json>, DiscoveryError> {
    match parse(text, path)? {
        Json::Object(m) => Ok(m),
        other => Err(DiscoveryError::Malformed {
            path: path.to_string(),
            message: format!("expected a JSON object, got {}", kind_of(&other)),
        }),
    }
}

fn parse(text: &str, path: &str) -> Result<Json, DiscoveryError> {
    let text = text.trim();
    if text.is_empty() {
        return Err(DiscoveryError::Malformed { path: path.to_string(), message: "the answer is empty".into() });
    }
    serde_json::from_str(text).map_err(|e| {
        let message = if e.is_eof() {
            format!("the JSON is truncated ({} bytes arrived)", text.len())
        } else {
            format!("not valid JSON: {e}")
        };
        DiscoveryError::Malformed { path: path.to_string(), message }
    })
}

fn kind_of(v: &Json) -> &'static str {
    match v {
        Json::Null => "null",
        Json::Bool(_) => "a boolean",
        Json::Number(_) => "a number",
        Json::String(_) => "a string",
        Json::Array(_) => "an array",
        Json::Object(_) => "an object",
    }
}

/// A guest's kind as Proxmox names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub(crate) enum Kind {
    Lxc,
    Qemu,
}

impl Kind {
    pub fn as_str(self) -> &'static str {
        match self {
            Kind::Lxc => "lxc",
            Kind::Qemu => "qemu",
        }
    }

    /// The graph's entity type for a guest of this kind (templates have their own).
    pub fn entity_type(self) -> &'static str {
        match self {
            Kind::Lxc => "lxc",
            Kind::Qemu => "vm",
        }
    }
}

/// `/cluster/status`: the cluster (absent on a stand-alone node) and its nodes.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct ClusterStatus {
    pub name: Option<String>,
    pub quorate: Option<bool>,
    pub nodes: Vec<NodeStatus>,
}

#[derive(Debug, Clone, PartialEq)]
pub(crate) struct NodeStatus {
    pub name: String,
    pub ip: Option<String>,
    pub online: bool,
    /// The node that answered.
    pub local: bool,
    pub nodeid: Option<u64>,
}

pub(crate) fn cluster_status(text: &str) -> Result<ClusterStatus, DiscoveryError> {
    let mut status = ClusterStatus::default();
    for m in array(text, "/cluster/status")? {
        let r = Row(&m);
        match r.str("type").as_deref() {
            Some("cluster") => {
                status.name = r.str("name");
                status.quorate = r.flag("quorate");
            }
            Some("node") => {
                let Some(name) = r.str("name") else { continue };
                status.nodes.push(NodeStatus {
                    name,
                    ip: r.str("ip"),
                    online: r.flag("online").unwrap_or(false),
                    local: r.flag("local").unwrap_or(false),
                    nodeid: r.u64("nodeid"),
                });
            }
            _ => {}
        }
    }
    Ok(status)
}

/// `/cluster/resources`: what the cluster runs, one row per node, guest and node-storage.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct Resources {
    pub nodes: Vec<NodeRow>,
    pub guests: Vec<GuestRow>,
    pub storage: Vec<StorageRow>,
}

#[derive(Debug, Clone, PartialEq)]
pub(crate) struct NodeRow {
    pub node: String,
    /// `online`, `offline` or `unknown`.
    pub status: String,
    pub maxcpu: Option<u64>,
    pub maxmem: Option<u64>,
    pub maxdisk: Option<u64>,
}

/// A guest's row: the fields that describe it (usage figures, which change every second, are
/// not kept here: they are metrics, not the graph).
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct GuestRow {
    pub vmid: u64,
    pub kind: Kind,
    pub name: String,
    pub node: String,
    pub status: String,
    pub template: bool,
    pub tags: Vec<String>,
    pub pool: Option<String>,
    pub lock: Option<String>,
    pub hastate: Option<String>,
    pub maxmem: Option<u64>,
    pub maxdisk: Option<u64>,
    pub cpus: Option<u64>,
}

#[derive(Debug, Clone, PartialEq)]
pub(crate) struct StorageRow {
    pub storage: String,
    pub node: String,
    /// `available`, `unknown` …
    pub status: String,
    pub plugintype: Option<String>,
    pub content: Option<String>,
    pub shared: bool,
    pub maxdisk: Option<u64>,
}

/// Tags as Proxmox writes them: separated by `;`, `,` or spaces, sorted, without duplicates.
pub(crate) fn tags(text: &str) -> Vec<String> {
    let mut t: Vec<String> =
        text.split([';', ',', ' ']).map(str::trim).filter(|s| !s.is_empty()).map(str::to_string).collect();
    t.sort();
    t.dedup();
    t
}

pub(crate) fn resources(text: &str) -> Result<Resources, DiscoveryError> {
    let mut res = Resources::default();
    for m in array(text, "/cluster/resources")? {
        let r = Row(&m);
        let ty = r.str("type");
        match ty.as_deref() {
            Some("node") => {
                let Some(node) = r.str("node").or_else(|| r.str("name")) else { continue };
                res.nodes.push(NodeRow {
                    node,
                    status: r.str("status").unwrap_or_else(|| "unknown".into()),
                    maxcpu: r.u64("maxcpu"),
                    maxmem: r.u64("maxmem"),
                    maxdisk: r.u64("maxdisk"),
                });
            }
            Some(t @ ("lxc" | "qemu")) => {
                let kind = if t == "lxc" { Kind::Lxc } else { Kind::Qemu };
                // The vmid is in `vmid`, and in the id (`lxc/101`) on every release.
                let vmid = r.u64("vmid").or_else(|| r.str("id").and_then(|id| id.rsplit('/').next()?.parse().ok()));
                let (Some(vmid), Some(node)) = (vmid, r.str("node")) else { continue };
                let name = r.str("name").unwrap_or_else(|| format!("{}{vmid}", if t == "lxc" { "CT" } else { "VM" }));
                res.guests.push(GuestRow {
                    vmid,
                    kind,
                    name,
                    node,
                    status: r.str("status").unwrap_or_else(|| "unknown".into()),
                    template: r.flag("template").unwrap_or(false),
                    tags: r.str("tags").map(|t| tags(&t)).unwrap_or_default(),
                    pool: r.str("pool"),
                    lock: r.str("lock"),
                    hastate: r.str("hastate"),
                    maxmem: r.u64("maxmem"),
                    maxdisk: r.u64("maxdisk"),
                    cpus: r.u64("maxcpu").or_else(|| r.u64("cpus")),
                });
            }
            Some("storage") => {
                let (Some(storage), Some(node)) = (r.str("storage"), r.str("node")) else { continue };
                res.storage.push(StorageRow {
                    storage,
                    node,
                    status: r.str("status").unwrap_or_else(|| "unknown".into()),
                    plugintype: r.str("plugintype"),
                    content: r.str("content"),
                    shared: r.flag("shared").unwrap_or(false),
                    maxdisk: r.u64("maxdisk"),
                });
            }
            // pools, SDN zones (`sdn`, `network` in PVE 9) and whatever comes next: not ours yet.
            _ => {}
        }
    }
    Ok(res)
}

/// `/storage`: the cluster's storage configuration.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct StorageConfig {
    pub storage: String,
    pub storage_type: Option<String>,
    pub content: Option<String>,
    pub shared: bool,
    /// The nodes it is limited to (empty: all).
    pub nodes: Vec<String>,
    pub path: Option<String>,
    pub server: Option<String>,
    pub disabled: bool,
}

pub(crate) fn storage_config(text: &str) -> Result<Vec<StorageConfig>, DiscoveryError> {
    Ok(array(text, "/storage")?
        .iter()
        .filter_map(|m| {
            let r = Row(m);
            let storage = r.str("storage")?;
            let storage_type = r.str("type");
            // Network and cluster file systems are shared whatever the flag says.
            let shared_type = matches!(
                storage_type.as_deref(),
                Some("nfs" | "cifs" | "pbs" | "rbd" | "cephfs" | "glusterfs" | "iscsi" | "iscsidirect")
            );
            Some(StorageConfig {
                shared: r.flag("shared").unwrap_or(false) || shared_type,
                nodes: r
                    .str("nodes")
                    .map(|n| n.split(',').map(str::trim).filter(|s| !s.is_empty()).map(str::to_string).collect())
                    .unwrap_or_default(),
                content: r.str("content"),
                path: r.str("path"),
                server: r.str("server"),
                disabled: r.flag("disable").unwrap_or(false),
                storage_type,
                storage,
            })
        })
        .collect())
}

/// One interface of `/nodes/{node}/network`.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Iface {
    pub iface: String,
    /// bridge, bond, eth, vlan, OVSBridge …
    pub iface_type: String,
    pub cidr: Option<String>,
    pub gateway: Option<String>,
    pub ports: Option<String>,
    pub vlan_aware: bool,
    pub vlan_id: Option<u64>,
    pub vlan_raw_device: Option<String>,
    pub active: bool,
    pub comments: Option<String>,
}

impl Iface {
    pub fn is_bridge(&self) -> bool {
        matches!(self.iface_type.as_str(), "bridge" | "OVSBridge")
    }
}

pub(crate) fn network(text: &str, node: &str) -> Result<Vec<Iface>, DiscoveryError> {
    let path = format!("/nodes/{node}/network");
    Ok(array(text, &path)?
        .iter()
        .filter_map(|m| {
            let r = Row(m);
            let iface = r.str("iface")?;
            let cidr = r.str("cidr").or_else(|| {
                // Older releases give address and netmask only.
                let (a, n) = (r.str("address")?, r.str("netmask")?);
                Some(match n.parse::<u8>() {
                    Ok(bits) => format!("{a}/{bits}"),
                    Err(_) => format!("{a}/{}", mask_bits(&n)?),
                })
            });
            Some(Iface {
                iface_type: r.str("type").unwrap_or_else(|| "unknown".into()),
                cidr,
                gateway: r.str("gateway"),
                ports: r.str("bridge_ports").or_else(|| r.str("ovs_ports")).or_else(|| r.str("slaves")),
                vlan_aware: r.flag("bridge_vlan_aware").unwrap_or(false),
                vlan_id: r.u64("vlan-id"),
                vlan_raw_device: r.str("vlan-raw-device"),
                active: r.flag("active").unwrap_or(false),
                comments: r.str("comments"),
                iface,
            })
        })
        .collect())
}

/// Prefix length of a dotted netmask (`255.255.255.0` → 24); None when it is not one.
fn mask_bits(mask: &str) -> Option<u32> {
    let octets: Vec<u8> = mask.split('.').map(|o| o.parse().ok()).collect::<Option<_>>()?;
    if octets.len() != 4 {
        return None;
    }
    let n = u32::from_be_bytes([octets[0], octets[1], octets[2], octets[3]]);
    (n.leading_ones() + n.trailing_zeros() == 32).then_some(n.leading_ones())
}

/// The subnet of an interface address (`10.0.0.5/24` → `10.0.0.0/24`); IPv4 only, else None.
pub(crate) fn subnet(cidr: &str) -> Option<String> {
    let (addr, bits) = cidr.split_once('/')?;
    let bits: u32 = bits.parse().ok().filter(|b| *b <= 32)?;
    let ip: std::net::Ipv4Addr = addr.parse().ok()?;
    let mask = if bits == 0 { 0 } else { u32::MAX << (32 - bits) };
    let net = std::net::Ipv4Addr::from(u32::from(ip) & mask);
    Some(format!("{net}/{bits}"))
}

/// A network interface of a guest (`net0: name=eth0,bridge=vmbr0,ip=…,tag=20`).
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) struct GuestNet {
    /// `net0`, `net1` …
    pub key: String,
    pub bridge: Option<String>,
    pub tag: Option<u64>,
    pub hwaddr: Option<String>,
    pub ip: Option<String>,
}

/// What a guest's configuration tells the graph.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct GuestConfig {
    pub nets: Vec<GuestNet>,
    /// Storages its disks and volumes are on.
    pub storages: Vec<String>,
    /// Mount points inside a container (`/data`).
    pub mounts: Vec<String>,
    pub onboot: Option<bool>,
    pub ostype: Option<String>,
    pub description: Option<String>,
}

impl GuestConfig {
    /// The first static IPv4/IPv6 address without its prefix length.
    pub fn ip(&self) -> Option<String> {
        self.nets.iter().find_map(|n| n.ip.as_deref()).map(|ip| ip.split('/').next().unwrap_or(ip).to_string())
    }
}

/// `key=value,key=value` of a Proxmox property string; a bare first item is returned as `("", item)`.
fn props(value: &str) -> BTreeMap<String, String> {
    value
        .split(',')
        .filter(|p| !p.is_empty())
        .map(|p| match p.split_once('=') {
            Some((k, v)) => (k.trim().to_string(), v.trim().to_string()),
            None => (String::new(), p.trim().to_string()),
        })
        .collect()
}

/// Disk keys of both kinds: where a volume is `<storage>:<volume>`.
fn is_volume_key(key: &str) -> bool {
    let base = key.trim_end_matches(|c: char| c.is_ascii_digit());
    key == "rootfs"
        || (base != key
            && matches!(base, "mp" | "scsi" | "virtio" | "sata" | "ide" | "efidisk" | "tpmstate" | "unused"))
}

pub(crate) fn guest_config(text: &str, path: &str, kind: Kind) -> Result<GuestConfig, DiscoveryError> {
    let m = object(text, path)?;
    let r = Row(&m);
    let mut cfg = GuestConfig {
        onboot: r.flag("onboot"),
        ostype: r.str("ostype"),
        description: r.str("description"),
        ..GuestConfig::default()
    };
    let mut ipconfig: BTreeMap<String, String> = BTreeMap::new();
    for (key, value) in &m {
        let Some(value) = value.as_str() else { continue };
        if let Some(n) = key.strip_prefix("ipconfig") {
            if let Some(ip) = props(value).get("ip").filter(|ip| *ip != "dhcp" && *ip != "manual") {
                ipconfig.insert(format!("net{n}"), ip.clone());
            }
        } else if key.strip_prefix("net").is_some_and(|n| !n.is_empty() && n.chars().all(|c| c.is_ascii_digit())) {
            let p = props(value);
            // A VM's first item is `model=MAC` (`virtio=BC:24:…`); a container's has `hwaddr`.
            let hwaddr = p.get("hwaddr").cloned().or_else(|| {
                ["virtio", "e1000", "e1000e", "rtl8139", "vmxnet3"].iter().find_map(|m| p.get(*m).cloned())
            });
            cfg.nets.push(GuestNet {
                key: key.clone(),
                bridge: p.get("bridge").cloned(),
                tag: p.get("tag").and_then(|t| t.parse().ok()),
                hwaddr,
                ip: p.get("ip").filter(|ip| *ip != "dhcp" && *ip != "manual").cloned(),
            });
        } else if is_volume_key(key) {
            let p = props(value);
            let Some(volume) = p.get("").or_else(|| p.get("volume")).or_else(|| p.get("file")) else { continue };
            // `none` (an empty drive), bind mounts (`/mnt/x`) and devices name no storage.
            if let Some((storage, _)) = volume.split_once(':').filter(|_| !volume.starts_with('/')) {
                if !storage.is_empty() && !cfg.storages.iter().any(|s| s == storage) {
                    cfg.storages.push(storage.to_string());
                }
            }
            if kind == Kind::Lxc {
                if let Some(mp) = p.get("mp") {
                    cfg.mounts.push(mp.clone());
                }
            }
        }
    }
    for net in &mut cfg.nets {
        if net.ip.is_none() {
            net.ip = ipconfig.get(&net.key).cloned();
        }
    }
    cfg.nets.sort();
    cfg.storages.sort();
    cfg.mounts.sort();
    Ok(cfg)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_may_arrive_as_strings_and_flags_many_ways() {
        let m: Map<String, Json> = serde_json::from_str(
            r#"{"a": "42", "b": 7.9, "c": "1", "d": true, "e": "x", "f": -3, "g": 0, "h": " 8 "}"#,
        )
        .unwrap();
        let r = Row(&m);
        assert_eq!(r.u64("a"), Some(42));
        assert_eq!(r.u64("b"), Some(7));
        assert_eq!(r.flag("c"), Some(true));
        assert_eq!(r.flag("d"), Some(true));
        assert_eq!(r.flag("g"), Some(false));
        assert_eq!(r.u64("e"), None);
        assert_eq!(r.u64("f"), None);
        assert_eq!(r.u64("h"), Some(8));
        assert_eq!(r.u64("missing"), None);
    }

    #[test]
    fn bad_answers_say_what_is_wrong() {
        let e = array("", "/cluster/resources").unwrap_err().to_string();
        assert!(e.contains("/cluster/resources") && e.contains("empty"), "{e}");
        let e = array(r#"[{"id": "node/pve1", "type": "no"#, "/cluster/resources").unwrap_err().to_string();
        assert!(e.contains("truncated"), "{e}");
        let e = array("{}", "/cluster/resources").unwrap_err().to_string();
        assert!(e.contains("expected a JSON array, got an object"), "{e}");
        let e = array("<html>502</html>", "/storage").unwrap_err().to_string();
        assert!(e.contains("not valid JSON"), "{e}");
    }

    #[test]
    fn subnets_and_masks() {
        assert_eq!(subnet("10.0.0.5/24").as_deref(), Some("10.0.0.0/24"));
        assert_eq!(subnet("192.168.7.130/25").as_deref(), Some("192.168.7.128/25"));
        assert_eq!(subnet("fd00::1/64"), None);
        assert_eq!(subnet("10.0.0.5"), None);
        assert_eq!(mask_bits("255.255.255.0"), Some(24));
        assert_eq!(mask_bits("255.0.255.0"), None);
        assert_eq!(tags("web; prod;web,db "), vec!["db", "prod", "web"]);
    }

    #[test]
    fn guest_configs_of_both_kinds() {
        let lxc = r#"{"hostname": "web", "cores": 2, "memory": "1024", "onboot": 1, "ostype": "debian",
            "net0": "name=eth0,bridge=vmbr0,firewall=1,gw=10.0.0.1,hwaddr=BC:24:11:AA:BB:CC,ip=10.0.0.21/24,type=veth",
            "net1": "name=eth1,bridge=vmbr1,tag=20,ip=dhcp,type=veth",
            "rootfs": "local-lvm:vm-101-disk-0,size=8G", "mp0": "nas:subvol-101-disk-1,mp=/data,size=32G",
            "mp1": "/mnt/bulk,mp=/bulk", "lock": "backup", "digest": "abc", "unknown-future-key": {"x": 1}}"#;
        let c = guest_config(lxc, "/nodes/pve1/lxc/101/config", Kind::Lxc).unwrap();
        assert_eq!(c.storages, vec!["local-lvm", "nas"]);
        assert_eq!(c.mounts, vec!["/bulk", "/data"]);
        assert_eq!(c.ip().as_deref(), Some("10.0.0.21"));
        assert_eq!(c.nets.len(), 2);
        assert_eq!(c.nets[1].tag, Some(20));
        assert_eq!(c.nets[1].ip, None);
        assert_eq!(c.onboot, Some(true));

        let vm = r#"{"name": "haos", "cores": 2, "sockets": 1, "memory": 4096, "template": 1,
            "net0": "virtio=BC:24:11:00:00:01,bridge=vmbr0,firewall=1", "ipconfig0": "ip=10.0.0.50/24,gw=10.0.0.1",
            "scsi0": "local-lvm:vm-200-disk-0,iothread=1,size=32G", "ide2": "none,media=cdrom",
            "efidisk0": "local-lvm:vm-200-disk-1,efitype=4m,size=4M", "boot": "order=scsi0"}"#;
        let c = guest_config(vm, "/nodes/pve1/qemu/200/config", Kind::Qemu).unwrap();
        assert_eq!(c.storages, vec!["local-lvm"]);
        assert_eq!(c.nets[0].hwaddr.as_deref(), Some("BC:24:11:00:00:01"));
        assert_eq!(c.ip().as_deref(), Some("10.0.0.50"));
        assert!(c.mounts.is_empty());
    }
}
