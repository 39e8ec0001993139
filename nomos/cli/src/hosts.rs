//! `nomos hosts list|trust`: SSH endpoints and their pinned host keys.

use clap::Subcommand;
use nomos::actuate::Actuator;

use crate::exit::Outcome;
use crate::out::Out;
use crate::report::operator;

#[derive(Subcommand, Debug)]
pub enum HostsCommand {
    /// Hosts with their SSH endpoint and pinned key
    List,
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
            let key = act.trust_host(&slug, fingerprint.as_deref(), &operator(None)).await?;
            out.print(&key, |k| format!("{} trusted: {} {}", k.host, k.algorithm, k.fingerprint))
        }
    }
}
