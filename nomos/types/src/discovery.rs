//! Discovery's results: what a Proxmox cluster says, as a typed diff against the graph.
//!
//! This is the JSON of `nomos discover --json` and of the desktop's review screen:
//!
//! ```json
//! {"host": "host:pve1", "cluster": "oikos-lab", "quorate": true, "applied": false,
//!  "counts": {"new": 1, "changed": 0, "moved": 1, "renamed": 0, "gone": 1, "unchanged": 58},
//!  "changes": [{"kind": "moved", "slug": "lxc:web", "type": "lxc", "name": "web", "vmid": 101,
//!               "moved": {"from": "pve1", "to": "pve2"}, "renamed": null, "back": false,
//!               "attributes": [{"key": "node", "from": "pve1", "to": "pve2"}],
//!               "edges": [{"op": "end", "type": "hosts", "source": "host:pve1", "target": "lxc:web"},
//!                         {"op": "add", "type": "hosts", "source": "host:pve2", "target": "lxc:web"}]}],
//!  "warnings": ["node pve3 is offline: its guests are kept, their status unknown"],
//!  "commands": 2, "duration_ms": 812}
//! ```

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

use crate::{string_enum, Json, UnknownValue};

string_enum!(
    /// What discovery found for one entity, compared with the graph: `new` (not in the graph yet,
    /// or back after being gone: `back` is set), `changed` (attributes or state), `moved` (a guest
    /// on another node), `renamed` (the same cluster and vmid with a new name), `gone` (no longer
    /// listed: its edges end and its state becomes `gone`).
    DiffKind {
        New => "new",
        Changed => "changed",
        Moved => "moved",
        Renamed => "renamed",
        Gone => "gone",
    }
);

/// One attribute that differs: `from` is null for a new key, `to` null for a removed one.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AttrChange {
    pub key: String,
    pub from: Json,
    pub to: Json,
}

/// A before and after (node or name).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FromTo {
    pub from: String,
    pub to: String,
}

/// An edge the apply will create (`add`) or end (`end`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct EdgeChange {
    pub op: EdgeOp,
    #[serde(rename = "type")]
    pub rel_type: String,
    pub source: String,
    pub target: String,
}

string_enum!(
    EdgeOp {
        Add => "add",
        End => "end",
    }
);

/// One entity's change. `kind` is the main one; a guest that moved and was renamed in the same
/// cycle is `moved` with `renamed` filled too.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DiffItem {
    pub kind: DiffKind,
    pub slug: String,
    #[serde(rename = "type")]
    pub entity_type: String,
    pub name: String,
    /// A guest's Proxmox id.
    #[serde(default)]
    pub vmid: Option<u64>,
    #[serde(default)]
    pub moved: Option<FromTo>,
    #[serde(default)]
    pub renamed: Option<FromTo>,
    /// A `new` entity that was seen before and is back (its history continues).
    #[serde(default)]
    pub back: bool,
    #[serde(default)]
    pub attributes: Vec<AttrChange>,
    #[serde(default)]
    pub edges: Vec<EdgeChange>,
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct DiffCounts {
    pub new: u32,
    pub changed: u32,
    pub moved: u32,
    pub renamed: u32,
    pub gone: u32,
    pub unchanged: u32,
}

/// A discovery of one cluster (or stand-alone node) through one host.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct DiscoveryDiff {
    /// The host the commands ran on.
    pub host: String,
    /// The cluster's name, or the node's name for a stand-alone node.
    pub cluster: String,
    /// Whether the cluster has quorum (None for a stand-alone node).
    #[serde(default)]
    pub quorate: Option<bool>,
    /// Whether these changes were written to the graph.
    pub applied: bool,
    pub counts: DiffCounts,
    pub changes: Vec<DiffItem>,
    /// What discovery could not read and kept as it was (an offline node, a config it could not read).
    #[serde(default)]
    pub warnings: Vec<String>,
    /// Commands run on the host (each an execution in the ledger).
    pub commands: u32,
    pub duration_ms: u64,
}

impl DiscoveryDiff {
    /// Whether applying would change the graph.
    pub fn is_empty(&self) -> bool {
        self.changes.is_empty()
    }
}

/// One line of a host's connection test: what discovery needs, whether it is there, and how to fix it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct HostCheck {
    /// `ssh`, `host_key`, `pvesh`, `version`, `cluster`, `guests`.
    pub check: String,
    pub ok: bool,
    pub detail: String,
    /// How to fix it, when it failed.
    #[serde(default)]
    pub fix: Option<String>,
}

/// The result of testing a host: its checks in order; `proxmox` is false for a plain Linux host.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct HostTest {
    pub host: String,
    pub ok: bool,
    pub proxmox: bool,
    /// The key the host presented (shown before it is trusted).
    #[serde(default)]
    pub fingerprint: Option<String>,
    pub trusted: bool,
    pub checks: Vec<HostCheck>,
}

/// A host to add, or the fields of one to change (`None` leaves a field as it is).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct HostSpec {
    /// `pve1` or `host:pve1`.
    pub slug: String,
    #[serde(default)]
    pub address: Option<String>,
    #[serde(default)]
    pub port: Option<u16>,
    #[serde(default)]
    pub user: Option<String>,
    /// A private key file; `Some("")` switches back to the ssh-agent and the usual `~/.ssh` keys.
    #[serde(default)]
    pub key: Option<String>,
}

/// A host just added: how it is reached and the key it presents (shown before it is trusted).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct AddedHost {
    pub host: String,
    /// `user@address:port`.
    pub endpoint: String,
    /// The fingerprint of the key it presents; None when it could not be reached.
    #[serde(default)]
    pub fingerprint: Option<String>,
    pub trusted: bool,
    /// Why its key could not be read.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub unreachable: Option<String>,
    /// What to do next, in a sentence.
    pub next: String,
}

/// What removing a host did.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct HostRemoved {
    pub host: String,
    /// `deleted` (nothing ever ran on it or pointed at it) or `gone` (kept for its history).
    pub outcome: String,
}

/// How often discovery runs by itself on hosts whose first discovery was applied.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct DiscoverySettings {
    /// Seconds between cycles; 0 turns the background cycle off.
    pub interval_secs: u64,
}

impl DiscoverySettings {
    /// Every five minutes.
    pub const DEFAULT_INTERVAL: u64 = 300;
    /// Faster than this would poll Proxmox for little gain.
    pub const MIN_INTERVAL: u64 = 30;
}

impl Default for DiscoverySettings {
    fn default() -> DiscoverySettings {
        DiscoverySettings { interval_secs: DiscoverySettings::DEFAULT_INTERVAL }
    }
}
