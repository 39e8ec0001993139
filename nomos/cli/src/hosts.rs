//! `nomos hosts list|add|edit|rm|test|trust`: SSH endpoints, their pinned host keys, and what
//! discovery needs on them.

use clap::Subcommand;
use nomos::actuate::Actuator;
use nomos::types::discovery::HostSpec;

use crate::exit::Outcome;
use crate::out::Out;
use crate::report::deciding;

#[derive(Subcommand, Debug)]
pub enum HostsCommand {
    /// Hosts with their SSH endpoint and pinned key
    List,
    /// Add a host to reach over SSH (and to discover, if it runs Proxmox VE). Shows the
    /// fingerprint of the key it presents; nothing is trusted until `nomos hosts trust`
    Add {
        /// A name (`pve1`) or slug (`host:pve1`)
        slug: String,
        /// Its address: a name or an IP
        #[arg(long)]
        address: String,
        #[arg(long, default_value_t = 22)]
        port: u16,
        #[arg(long, default_value = "root")]
        user: String,
        /// A private key file (default: the ssh-agent and the usual ~/.ssh keys)
        #[arg(long, value_name = "PATH")]
        key: Option<String>,
    },
    /// Change how a host is reached
    Edit {
        slug: String,
        #[arg(long)]
        address: Option<String>,
        #[arg(long)]
        port: Option<u16>,
        #[arg(long)]
        user: Option<String>,
        /// A private key file
        #[arg(long, value_name = "PATH", conflicts_with = "agent")]
        key: Option<String>,
        /// Use the ssh-agent and the usual ~/.ssh keys instead of a key file
        #[arg(long)]
        agent: bool,
    },
    /// Remove a host (kept as `gone` for its history if anything ran on it)
    Rm { slug: String },
    /// Test what discovery needs, one line each: SSH, the host key, pvesh, the Proxmox version,
    /// the cluster and the guests' configurations; says how to fix what is missing. Exit 1 if
    /// something is missing
    Test { slug: String },
    /// Pin the key the host presents as trusted. Without --fingerprint only a first sighting is
    /// trusted (the key shown in the "not trusted" error); a changed key needs --fingerprint.
    Trust {
        slug: String,
        /// The fingerprint checked on the host (`ssh-keygen -lf /etc/ssh/ssh_host_ed25519_key.pub`)
        #[arg(long, value_name = "SHA256:…")]
        fingerprint: Option<String>,
    },
}

pub async fn hosts(act: &Actuator, command: HostsCommand, out: Out) -> Outcome {
    match command {
        HostsCommand::Add { slug, address, port, user, key } => {
            let spec = HostSpec { slug, address: Some(address), port: Some(port), user: Some(user), key };
            let added = act.add_host(&spec).await?;
            out.print(&added, |a| {
                let key = match (&a.fingerprint, &a.unreachable) {
                    (Some(fp), _) => format!("it presents {fp} (not trusted yet)"),
                    (None, Some(e)) => format!("its key could not be read: {e}"),
                    (None, None) => String::new(),
                };
                format!("{} added ({})\n{key}\nnext: {}", a.host, a.endpoint, a.next)
            })
        }
        HostsCommand::Edit { slug, address, port, user, key, agent } => {
            let key = if agent { Some(String::new()) } else { key };
            let spec = HostSpec { slug, address, port, user, key };
            let host = act.engine().edit_host(&spec).await?;
            out.print(&host, |h| format!("{} changed", h.slug))
        }
        HostsCommand::Rm { slug } => {
            let removed = act.remove_host(&slug).await?;
            out.print(&removed, |r| match r.outcome.as_str() {
                "deleted" => format!("{} removed", r.host),
                _ => format!("{} removed; kept as gone for the history of what ran on it", r.host),
            })
        }
        HostsCommand::Test { slug } => {
            let test = act.test_host(&slug).await?;
            out.print(&test, |t| {
                let mut s = String::new();
                for c in &t.checks {
                    s.push_str(&format!("{} {:<9} {}\n", if c.ok { "ok  " } else { "FAIL" }, c.check, c.detail));
                    if let Some(fix) = &c.fix {
                        s.push_str(&format!("               fix: {fix}\n"));
                    }
                }
                s.push_str(match (t.ok, t.proxmox) {
                    (true, true) => "ready for discovery",
                    (true, false) => "reachable; not a Proxmox VE node, so there is nothing to discover",
                    (false, _) => "not ready",
                });
                s
            })?;
            Ok(if test.ok { crate::exit::Exit::Ok } else { crate::exit::Exit::Failed })
        }
        HostsCommand::List => {
            let rows = act.host_entries().await?;
            out.print(&rows, |rows| {
                let mut s = String::new();
                for r in rows {
                    let key = match &r.key {
                        None => "no key seen yet".to_string(),
                        Some(k) if k.trusted => format!("trusted {}", k.fingerprint),
                        Some(k) => format!("NOT trusted {} (nomos hosts trust {})", k.fingerprint, r.host),
                    };
                    s.push_str(&format!("{:<20} {:<32} {key}\n", r.host, r.endpoint));
                }
                if s.is_empty() {
                    s = "no hosts; import an inventory first (nomos inventory import FILE)".into();
                }
                s
            })
        }
        HostsCommand::Trust { slug, fingerprint } => {
            let key = act.trust_host(&slug, fingerprint.as_deref(), &deciding(act.engine(), None).await?).await?;
            out.print(&key, |k| format!("{} trusted: {} {}", k.host, k.algorithm, k.fingerprint))
        }
    }
}
