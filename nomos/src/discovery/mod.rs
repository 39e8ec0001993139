//! Discovery: what a Proxmox cluster says about itself, written into the graph.
//!
//! A cycle reads the cluster through one host, with a handful of read-only commands that go
//! through the gate like any other (see [`run`]): `/cluster/status`, `/cluster/resources` and
//! `/storage` once, each node's `/network`, and the configuration only of guests that are new or
//! whose row changed. What it read is a [`Snapshot`]; [`plan`] compares it with the graph and
//! yields a typed diff (new, changed, moved, renamed, gone) and the writes that make the graph
//! agree; [`apply`] makes them in one transaction.
//!
//! Identity never rests on names: a guest is its cluster and vmid, a node its cluster and name,
//! a storage its id (and node, when it is local), a bridge its node and interface. They are kept
//! as the attributes `cluster` and `pve_key` on every entity discovery owns. Entities from an
//! inventory are adopted when they match (a guest by its vmid, a host by its slug or the node it
//! is). Only the attributes discovery owns are written; what an operator or an inventory added
//! stays. Nothing is deleted: what Proxmox no longer lists has its edges ended and its state set
//! to `gone`, and continues its history if it comes back.

mod apply;
mod plan;
pub(crate) mod pve;
mod run;

use std::collections::BTreeMap;

pub use apply::ApplyBy;
pub(crate) use run::cycle;
pub(crate) use run::{node_name_ok, split as split_answers};
pub use run::{read_command, DiscoverOptions, Discovery, ACTOR};

/// Why a discovery could not finish. Nothing is applied when it fails.
#[derive(Debug, thiserror::Error)]
pub enum DiscoveryError {
    #[error("malformed answer to `pvesh get {path}`: {message}")]
    Malformed { path: String, message: String },
    #[error("{host} has no `pvesh`: it is not a Proxmox VE node (a plain Linux host is still a host; discovery needs Proxmox)")]
    NoPvesh { host: String },
    #[error("{host} refused `pvesh get {path}`: {message}")]
    Denied { host: String, path: String, message: String },
    #[error("`pvesh get {path}` failed on {host}: {message}")]
    Failed { host: String, path: String, message: String },
    #[error("{0}")]
    Unreachable(String),
    #[error("the cluster's answer names no node; nothing to discover")]
    Empty,
    #[error("{0}")]
    Engine(#[from] crate::Error),
}

impl From<DiscoveryError> for crate::Error {
    fn from(e: DiscoveryError) -> crate::Error {
        match e {
            DiscoveryError::Engine(inner) => inner,
            other => crate::Error::Invalid(other.to_string()),
        }
    }
}

/// What one cycle read from the cluster.
#[derive(Debug, Clone, Default)]
pub struct Snapshot {
    pub(crate) status: pve::ClusterStatus,
    pub(crate) resources: pve::Resources,
    pub(crate) storage: Vec<pve::StorageConfig>,
    /// Per node: its interfaces, or None when they could not be read (then kept as they are).
    pub(crate) networks: BTreeMap<String, Option<Vec<pve::Iface>>>,
    /// Configurations read this cycle, by vmid; a guest without one keeps what the graph has.
    pub(crate) configs: BTreeMap<u64, pve::GuestConfig>,
    /// What could not be read and was kept.
    pub(crate) warnings: Vec<String>,
}

impl Snapshot {
    /// The cluster's name, or the node's for a stand-alone node: what `cluster` means in the graph.
    pub(crate) fn scope(&self) -> Option<String> {
        if let Some(name) = &self.status.name {
            return Some(name.clone());
        }
        let local = self.status.nodes.iter().find(|n| n.local).or_else(|| self.status.nodes.first());
        local.map(|n| n.name.clone()).or_else(|| self.resources.nodes.first().map(|n| n.node.clone()))
    }

    /// Builds a snapshot from the answers' texts (the lab, fixtures and tests; [`run`] reads them
    /// from a host). `networks` and `configs` are keyed by node and by (node, kind, vmid).
    pub fn from_answers(
        status: &str,
        resources: &str,
        storage: &str,
        networks: &[(&str, &str)],
        configs: &[(&str, &str, u64, &str)],
    ) -> Result<Snapshot, DiscoveryError> {
        let mut snap = Snapshot {
            status: pve::cluster_status(status)?,
            resources: pve::resources(resources)?,
            storage: pve::storage_config(storage)?,
            ..Snapshot::default()
        };
        for node in snap.node_names() {
            snap.networks.insert(node, None);
        }
        for (node, text) in networks {
            snap.networks.insert((*node).to_string(), Some(pve::network(text, node)?));
        }
        for (node, kind, vmid, text) in configs {
            let kind = if *kind == "lxc" { pve::Kind::Lxc } else { pve::Kind::Qemu };
            let path = format!("/nodes/{node}/{}/{vmid}/config", kind.as_str());
            snap.configs.insert(*vmid, pve::guest_config(text, &path, kind)?);
        }
        Ok(snap)
    }

    /// Every node either answer names, in order.
    pub(crate) fn node_names(&self) -> Vec<String> {
        let mut names: Vec<String> = self.status.nodes.iter().map(|n| n.name.clone()).collect();
        for n in &self.resources.nodes {
            if !names.contains(&n.node) {
                names.push(n.node.clone());
            }
        }
        names
    }

    /// Whether a node is online (by the cluster's status, else its resource row).
    pub(crate) fn online(&self, node: &str) -> bool {
        match self.status.nodes.iter().find(|n| n.name == node) {
            Some(n) => n.online,
            None => self.resources.nodes.iter().any(|n| n.node == node && n.status == "online"),
        }
    }
}

#[cfg(test)]
mod tests;
