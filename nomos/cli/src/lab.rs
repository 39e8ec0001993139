//! `nomos lab up|down|status`: a lab that outlives the command, for trying Oikos without a cluster;
//! `nomos lab guest|node|fault`: changes and faults behind Oikos's back.

use std::fmt::Write as _;
use std::io::Write as _;
use std::path::{Path, PathBuf};

use clap::Subcommand;
use serde::Serialize;

use nomos_lab::{Fault, GuestKind, Lab, LabConfig, LabError};

use crate::exit::{Exit, Failure, Outcome};

#[derive(Debug, Subcommand)]
pub enum LabCommand {
    /// Start simulated Proxmox hosts (real sshd on 127.0.0.1, stand-in pct/pvesh/pveam/qm/apt/
    /// systemctl); they keep running after this command
    Up {
        /// Lab directory [default: the OS data directory's oikos/lab]
        #[arg(long, value_name = "DIR")]
        dir: Option<PathBuf>,
        /// Number of hosts (pve1..pveN), 1 to 64
        #[arg(long, default_value_t = 3, value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(1..=64))]
        hosts: usize,
        /// Host i listens on BASE_PORT + i (default: free ports)
        #[arg(long, value_name = "PORT")]
        base_port: Option<u16>,
        /// Seed a new lab with N guests spread over the hosts, VMIDs from 100 (default: the few the
        /// inventory describes); a restarted lab keeps its guests
        #[arg(long, value_name = "N", value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(1..=1000))]
        guests: Option<usize>,
    },
    /// Stop the lab's sshds (its guests and keys stay for the next `up`)
    Down {
        #[arg(long, value_name = "DIR")]
        dir: Option<PathBuf>,
        /// Also remove the lab directory
        #[arg(long)]
        purge: bool,
    },
    /// Which lab hosts run, on which ports
    Status {
        #[arg(long, value_name = "DIR")]
        dir: Option<PathBuf>,
    },
    /// Change the lab's guests behind Oikos's back, as someone with a shell on the cluster would
    #[command(subcommand)]
    Guest(GuestCommand),
    /// Take a lab host off line (its sshd stops; the cluster reports it offline) or back on line
    #[command(subcommand)]
    Node(NodeCommand),
    /// Make a fault on a lab host, as the engine's Observe will see it over ssh (systemctl, pvesh,
    /// pct); `clear` undoes them all
    Fault {
        /// Lab directory [default: the OS data directory's oikos/lab]
        #[arg(long, value_name = "DIR", global = true)]
        dir: Option<PathBuf>,
        /// The lab host (pve1, pve2, ...)
        host: String,
        #[command(subcommand)]
        fault: FaultCommand,
    },
}

#[derive(Debug, Subcommand)]
pub enum FaultCommand {
    /// A unit goes `failed`, as if it crashed (on the host, or in a container)
    StopService {
        /// The unit, with or without `.service`
        name: String,
        /// In this container instead of on the host
        #[arg(long, value_name = "VMID")]
        guest: Option<u32>,
    },
    /// The node's root file system (or a container's disk) reports PCT % used
    FillDisk {
        /// 0 to 100
        pct: u32,
        /// This container's disk instead of the node's
        #[arg(long, value_name = "VMID")]
        guest: Option<u32>,
    },
    /// A guest stops
    StopGuest {
        vmid: u32,
        /// Also lock it (backup), as a stop-mode vzdump at work does
        #[arg(long)]
        backup: bool,
    },
    /// The node goes off line (its sshd stops)
    NodeOffline,
    /// A unit alternates failed/active every SECS seconds (computed when read; nothing runs)
    Flap {
        name: String,
        /// At least 1
        secs: u64,
        /// In this container instead of on the host
        #[arg(long, value_name = "VMID")]
        guest: Option<u32>,
    },
    /// The node certificate (pve-ssl.pem) expires in DAYS days (negative: expired that long ago)
    CertExpire {
        #[arg(allow_negative_numbers = true)]
        days: i64,
    },
    /// A guest has no recent backup (its newest is 5 days old)
    NoBackup { vmid: u32 },
    /// Undo every fault of the host: units active, disks normal, node online, guests a fault
    /// stopped started and unlocked, certificate and backups normal
    Clear,
}

#[derive(Debug, Subcommand)]
pub enum GuestCommand {
    /// Create a guest (running) on a node
    Create {
        #[arg(long, value_name = "DIR")]
        dir: Option<PathBuf>,
        /// The node to create it on
        #[arg(long, value_name = "NODE")]
        node: String,
        /// Its VMID (default: the next free one from 100)
        #[arg(long, value_name = "VMID")]
        vmid: Option<u32>,
        #[arg(long, value_enum, default_value_t = Kind::Lxc)]
        kind: Kind,
        /// Its name (a container's hostname): a DNS name
        name: String,
    },
    /// Destroy a guest
    Destroy {
        #[arg(long, value_name = "DIR")]
        dir: Option<PathBuf>,
        vmid: u32,
    },
    /// Move a guest to another node
    Migrate {
        #[arg(long, value_name = "DIR")]
        dir: Option<PathBuf>,
        vmid: u32,
        /// The node to move it to
        #[arg(long, value_name = "NODE")]
        to: String,
    },
    /// Give a guest a new name
    Rename {
        #[arg(long, value_name = "DIR")]
        dir: Option<PathBuf>,
        vmid: u32,
        name: String,
    },
}

#[derive(Debug, Subcommand)]
pub enum NodeCommand {
    /// Stop the host's sshd, as a node that lost power
    Offline {
        #[arg(long, value_name = "DIR")]
        dir: Option<PathBuf>,
        name: String,
    },
    /// Start the host's sshd again on its port
    Online {
        #[arg(long, value_name = "DIR")]
        dir: Option<PathBuf>,
        name: String,
    },
}

#[derive(Clone, Copy, Debug, clap::ValueEnum)]
pub enum Kind {
    Lxc,
    Qemu,
}

#[derive(Serialize)]
struct HostStatus {
    name: String,
    port: u16,
    pid: u32,
    serving: bool,
}

#[derive(Serialize)]
struct Started {
    dir: String,
    inventory: String,
    client_key: String,
    hosts: Vec<nomos_lab::LabHost>,
}

#[derive(Serialize)]
struct Status {
    dir: String,
    running: bool,
    inventory: Option<String>,
    client_key: Option<String>,
    hosts: Vec<HostStatus>,
}

/// Prints a line; a closed stdout (`| head`) is not worth a panic.
fn say(args: std::fmt::Arguments<'_>) {
    let mut out = std::io::stdout().lock();
    let _ = out.write_fmt(args).and_then(|()| out.write_all(b"\n"));
}

fn dir_or_default(dir: Option<PathBuf>) -> Result<PathBuf, Failure> {
    match dir {
        Some(d) => Ok(d),
        None => Lab::default_dir().map_err(failure),
    }
}

/// An error as the caller prints it. Errors whose text spans lines (an sshd's log) are printed
/// here, line breaks kept, and reported as the empty message (already said).
fn failure(e: LabError) -> Failure {
    let text = e.to_string();
    if !text.contains('\n') {
        return Failure(text);
    }
    let mut err = std::io::stderr().lock();
    let _ = writeln!(err, "nomos: {}", text.trim_end());
    Failure(String::new())
}

/// Runs a lab subcommand; `json` selects JSON output.
pub fn lab(command: LabCommand, json: bool) -> Outcome {
    match command {
        LabCommand::Up { dir, hosts, base_port, guests } => {
            let dir = dir_or_default(dir)?;
            let lab = Lab::start(LabConfig { dir, hosts, base_port, guests }).map_err(failure)?;
            // Detached before printing: a closed stdout (`| head`) must not take the lab down.
            let summary = if json {
                let started = Started {
                    dir: lab.dir().display().to_string(),
                    inventory: lab.inventory_path().display().to_string(),
                    client_key: lab.client_key().display().to_string(),
                    hosts: lab.hosts().to_vec(),
                };
                serde_json::to_string_pretty(&started).map_err(Failure::from)
            } else {
                Ok(started(&lab))
            };
            lab.detach();
            say(format_args!("{}", summary?.trim_end()));
            Ok(Exit::Ok)
        }
        LabCommand::Down { dir, purge } => {
            let dir = dir_or_default(dir)?;
            match Lab::stop_dir(&dir) {
                Ok(0) | Err(LabError::NotFound(_)) => say(format_args!("no lab running in {}", dir.display())),
                Ok(n) => say(format_args!("lab in {} stopped ({n} hosts)", dir.display())),
                Err(e) => return Err(failure(e)),
            }
            if purge {
                Lab::purge(&dir).map_err(failure)?;
                say(format_args!("removed {}", dir.display()));
            }
            Ok(Exit::Ok)
        }
        LabCommand::Status { dir } => {
            let dir = dir_or_default(dir)?;
            let status = status(&dir)?;
            if json {
                let text = serde_json::to_string_pretty(&status)?;
                say(format_args!("{text}"));
            } else if !status.running && status.hosts.is_empty() {
                say(format_args!("no lab running in {}", status.dir));
            } else {
                say(format_args!("lab in {}", status.dir));
                for h in &status.hosts {
                    let state = if h.serving { "serving" } else { "not running" };
                    say(format_args!("  {:<6} 127.0.0.1:{:<5}  pid {:<7} {state}", h.name, h.port, h.pid));
                }
                if let Some(inv) = &status.inventory {
                    say(format_args!("inventory: {inv}"));
                }
            }
            Ok(Exit::Ok)
        }
        LabCommand::Guest(command) => guest(command, json),
        LabCommand::Node(NodeCommand::Offline { dir, name }) => node(dir, &name, false, json),
        LabCommand::Node(NodeCommand::Online { dir, name }) => node(dir, &name, true, json),
        LabCommand::Fault { dir, host, fault } => make_fault(dir, &host, fault, json),
    }
}

/// Makes a fault on a lab host and says what it did in one line.
fn make_fault(dir: Option<PathBuf>, host: &str, command: FaultCommand, json: bool) -> Outcome {
    let dir = dir_or_default(dir)?;
    let (name, fault) = match command {
        FaultCommand::StopService { name, guest } => ("stop-service", Fault::StopService { unit: name, guest }),
        FaultCommand::FillDisk { pct, guest } => ("fill-disk", Fault::FillDisk { percent: pct, guest }),
        FaultCommand::StopGuest { vmid, backup } => ("stop-guest", Fault::StopGuest { vmid, backup }),
        FaultCommand::NodeOffline => ("node-offline", Fault::NodeOffline),
        FaultCommand::Flap { name, secs, guest } => ("flap", Fault::Flap { unit: name, period_secs: secs, guest }),
        FaultCommand::CertExpire { days } => ("cert-expire", Fault::CertExpire { days }),
        FaultCommand::NoBackup { vmid } => ("no-backup", Fault::NoBackup { vmid }),
        FaultCommand::Clear => ("clear", Fault::Clear),
    };
    let done = nomos_lab::fault(&dir, host, &fault).map_err(failure)?;
    if json {
        let text = serde_json::to_string_pretty(&serde_json::json!({ "host": host, "fault": name, "done": done }))?;
        say(format_args!("{text}"));
    } else {
        say(format_args!("{done}"));
    }
    Ok(Exit::Ok)
}

/// Runs a `lab guest` subcommand and reports the guest as it is now (or was, when destroyed).
fn guest(command: GuestCommand, json: bool) -> Outcome {
    let (done, guest) = match command {
        GuestCommand::Create { dir, node, vmid, kind, name } => {
            let kind = match kind {
                Kind::Lxc => GuestKind::Lxc,
                Kind::Qemu => GuestKind::Qemu,
            };
            ("created", nomos_lab::create_guest(&dir_or_default(dir)?, &node, vmid, kind, &name))
        }
        GuestCommand::Destroy { dir, vmid } => ("destroyed", nomos_lab::destroy_guest(&dir_or_default(dir)?, vmid)),
        GuestCommand::Migrate { dir, vmid, to } => {
            ("migrated", nomos_lab::migrate_guest(&dir_or_default(dir)?, vmid, &to))
        }
        GuestCommand::Rename { dir, vmid, name } => {
            ("renamed", nomos_lab::rename_guest(&dir_or_default(dir)?, vmid, &name))
        }
    };
    let guest = guest.map_err(failure)?;
    if json {
        let text = serde_json::to_string_pretty(&serde_json::json!({ "done": done, "guest": guest }))?;
        say(format_args!("{text}"));
    } else {
        say(format_args!(
            "{done} {}/{} ({}) on {}, {}",
            guest.kind.as_str(),
            guest.vmid,
            guest.name,
            guest.node,
            guest.status
        ));
    }
    Ok(Exit::Ok)
}

/// Takes a lab host off or back on line and reports it.
fn node(dir: Option<PathBuf>, name: &str, online: bool, json: bool) -> Outcome {
    let dir = dir_or_default(dir)?;
    let host = Lab::set_node_online(&dir, name, online).map_err(failure)?;
    if json {
        let text = serde_json::to_string_pretty(&serde_json::json!({
            "name": host.name, "port": host.port, "pid": host.pid, "online": online,
        }))?;
        say(format_args!("{text}"));
    } else if online {
        say(format_args!("{name} online: 127.0.0.1:{}, pid {}", host.port, host.pid));
    } else {
        say(format_args!("{name} offline (its sshd is stopped; `nomos lab node online {name}` brings it back)"));
    }
    Ok(Exit::Ok)
}

fn status(dir: &Path) -> Result<Status, Failure> {
    match Lab::attach(dir) {
        Ok(lab) => {
            let mut hosts = Vec::new();
            for h in lab.hosts() {
                let serving = lab.is_serving(&h.name).map_err(failure)?;
                hosts.push(HostStatus { name: h.name.clone(), port: h.port, pid: h.pid, serving });
            }
            Ok(Status {
                dir: lab.dir().display().to_string(),
                running: hosts.iter().any(|h| h.serving),
                inventory: Some(lab.inventory_path().display().to_string()),
                client_key: Some(lab.client_key().display().to_string()),
                hosts,
            })
        }
        Err(LabError::NotFound(_)) => Ok(Status {
            dir: dir.display().to_string(),
            running: false,
            inventory: None,
            client_key: None,
            hosts: Vec::new(),
        }),
        Err(e) => Err(failure(e)),
    }
}

/// A path as one shell word (quoted only when it needs to be).
fn shell_path(path: &Path) -> String {
    let text = path.display().to_string();
    if !text.is_empty() && text.chars().all(|c| c.is_ascii_alphanumeric() || "/._-+,:@%".contains(c)) {
        text
    } else {
        format!("'{}'", text.replace('\'', r"'\''"))
    }
}

/// What `lab up` prints: the hosts and the next steps.
fn started(lab: &Lab) -> String {
    let mut s = String::new();
    // `--dir` wherever the lab is not in the default directory (the commands must find it).
    let default = Lab::default_dir().ok().map(|d| std::fs::canonicalize(&d).unwrap_or(d));
    let dir_arg =
        if default.as_deref() == Some(lab.dir()) { String::new() } else { format!(" --dir {}", shell_path(lab.dir())) };
    let _ = writeln!(
        s,
        "lab started in {} with {} hosts (real sshd; pct, pvesh, pveam, qm, apt and systemctl are stand-ins):",
        lab.dir().display(),
        lab.hosts().len()
    );
    for h in lab.hosts() {
        let _ = writeln!(s, "  {:<6} 127.0.0.1:{:<5}  pid {}", h.name, h.port, h.pid);
    }
    let inventory = lab.inventory_path();
    let _ = writeln!(s, "inventory:  {}", inventory.display());
    let _ = writeln!(s, "client key: {}", lab.client_key().display());
    let _ = writeln!(s);
    let _ = writeln!(s, "next:");
    let _ = writeln!(s, "  nomos inventory import {}", shell_path(&inventory));
    for h in lab.hosts() {
        match lab.host_fingerprint(&h.name) {
            Ok(fp) => {
                let _ = writeln!(s, "  nomos hosts trust {} --fingerprint {fp}", h.name);
            }
            Err(_) => {
                let _ = writeln!(s, "  nomos hosts trust {}", h.name);
            }
        }
    }
    if let Some(h) = lab.hosts().first() {
        let user = nomos_lab::current_user();
        let _ = writeln!(
            s,
            "  ssh -i {} -p {} {user}@127.0.0.1 pct list   # by hand",
            shell_path(lab.client_key()),
            h.port
        );
    }
    let _ = writeln!(s, "stop it with: nomos lab down{dir_arg}");
    s
}
