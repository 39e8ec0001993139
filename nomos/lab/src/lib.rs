//! The lab: simulated Proxmox hosts as real OpenSSH servers on this machine, for tests and for
//! trying Oikos without a cluster.
//!
//! Every host is an `sshd` of its own on 127.0.0.1 (own port, own host key) whose forced command
//! (`lab-shell`) runs the client's command with bash. Only the Proxmox tools, apt and systemctl are
//! stand-ins: `pct`, `pvesh`, `pveam`, `qm`, `apt-get`/`apt` and `systemctl` are bash scripts that
//! keep their state in files under the lab directory. They say so in their headers and messages.
//! Faults (a failed unit, a full disk, ...) are made on demand with [`fault`].
//!
//! ```text
//! <dir>/bin/lab-shell, lab-common.sh     the forced command and the stand-ins' shared functions
//! <dir>/standins/{pct,pvesh,pveam,qm,apt-get,apt,systemctl}
//! <dir>/guest-standins/systemctl         what `pct exec` finds inside a container
//! <dir>/backup-jobs                      the cluster's backup job (the guests seeded first)
//! <dir>/client_ed25519[.pub]             the one key every host accepts (authorized_keys)
//! <dir>/inventory.yaml                   for `nomos inventory import`
//! <dir>/lab.json                         which sshd runs where (for `nomos lab status|down`)
//! <dir>/lab.lock                         held while the lab starts, stops or is removed
//! <dir>/hosts/<name>/                    host key, sshd_config, sshd.log, sshd.pid, pve/ state,
//!                                        systemd/ units, faults (see the faults module)
//! ```
//!
//! This crate is the only code that starts processes (sshd, ssh-keygen); the desktop app does not link it.

mod faults;
pub use faults::{fault, Fault};
mod guests;
pub use guests::{create_guest, destroy_guest, migrate_guest, rename_guest, Guest, GuestKind};
mod inventory;
pub use inventory::current_user;
mod lock;
mod sshd;

use std::fs;
use std::net::{Ipv4Addr, SocketAddr, TcpListener, TcpStream};
use std::os::unix::fs::PermissionsExt;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};

use lock::LabLock;

/// The files of the lab, embedded so an installed `nomos` can start one anywhere.
const BIN_FILES: [(&str, &str); 2] =
    [("lab-shell", include_str!("../shell/lab-shell")), ("lab-common.sh", include_str!("../shell/lab-common.sh"))];
/// `apt-get` and `apt` are one script (it looks at the name it was called by); it is on the lab
/// hosts' PATH so that an upgrade in the lab never reaches this machine's real apt.
const STANDINS: [(&str, &str); 7] = [
    ("pct", include_str!("../shell/standins/pct")),
    ("pvesh", include_str!("../shell/standins/pvesh")),
    ("pveam", include_str!("../shell/standins/pveam")),
    ("qm", include_str!("../shell/standins/qm")),
    ("apt-get", include_str!("../shell/standins/apt-get")),
    ("apt", include_str!("../shell/standins/apt-get")),
    ("systemctl", include_str!("../shell/standins/systemctl")),
];
/// What a container has of its own, on the PATH `pct exec` gives it (which has no Proxmox tools).
const GUEST_STANDINS: [(&str, &str); 1] = [("systemctl", include_str!("../shell/standins/systemctl"))];

/// Templates every host's cache holds from the start.
pub const TEMPLATES: [&str; 4] = [
    "debian-12-standard_12.7-1_amd64.tar.zst",
    "debian-13-standard_13.1-1_amd64.tar.zst",
    "ubuntu-24.04-standard_24.04-2_amd64.tar.zst",
    "alpine-3.20-default_20240908_amd64.tar.xz",
];

const STATE_FILE: &str = "lab.json";
const CLIENT_KEY: &str = "client_ed25519";
/// How long a starting sshd has to accept connections.
const START_TIMEOUT: Duration = Duration::from_secs(5);
/// How long stopping waits for a start (or stop) of the same lab in another process.
const LOCK_PATIENCE: Duration = Duration::from_secs(60);
/// Written last when a host's guests are seeded: without it the seeding starts over.
const SEEDED_MARKER: &str = ".seeded";

#[derive(Debug, thiserror::Error)]
pub enum LabError {
    #[error("sshd not found (looked at /usr/sbin/sshd and on PATH): install openssh-server")]
    SshdMissing,
    #[error("ssh-keygen not found: install openssh-client")]
    KeygenMissing,
    #[error("a lab needs at least one host")]
    NoHosts,
    #[error("a lab is already running in {} (stop it with `nomos lab down --dir {}`)", .0.display(), .0.display())]
    AlreadyRunning(PathBuf),
    #[error(
        "a lab is starting or running in {}: another `nomos lab` command is at work on it (it holds {})",
        .0.display(),
        .0.join("lab.lock").display()
    )]
    Busy(PathBuf),
    #[error("no lab in {0} (start one with `nomos lab up`)")]
    NotFound(PathBuf),
    #[error("{0} does not look like a lab directory; not touching it")]
    NotALab(PathBuf),
    #[error("no lab host named `{0}`")]
    UnknownHost(String),
    #[error("{0}")]
    Guest(String),
    /// A fault that cannot be made as asked (a bad percentage, a VM where a container is needed).
    #[error("{0}")]
    Fault(String),
    #[error("no free port for {host}: {reason}")]
    Port { host: String, reason: String },
    #[error("sshd of {host} did not start: {reason}; log tail:\n{log}")]
    SshdFailed { host: String, reason: String, log: String },
    #[error(
        "lab host {host} serves, but logging in to it as {user} with the lab key failed: {message}; its sshd.log ends:\n{log}"
    )]
    LoginFailed { host: String, user: String, message: String, log: String },
    #[error("{what} failed: {message}")]
    Command { what: String, message: String },
    #[error("no data directory for this user (set --dir)")]
    NoDataDir,
    #[error("{path}: {source}")]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("{path}: {message}")]
    State { path: PathBuf, message: String },
}

impl LabError {
    fn io(path: &Path) -> impl FnOnce(std::io::Error) -> LabError + '_ {
        move |source| LabError::Io { path: path.to_path_buf(), source }
    }
}

pub type Result<T, E = LabError> = std::result::Result<T, E>;

/// What to start.
#[derive(Clone, Debug)]
pub struct LabConfig {
    pub dir: PathBuf,
    /// Number of hosts, named pve1..pveN.
    pub hosts: usize,
    /// Host i (from 0) listens on `base_port + i`; without it free ports are picked (and a
    /// restarted lab tries its previous ports first).
    pub base_port: Option<u16>,
    /// Guests to seed a new lab with, spread over the hosts; None seeds the default few (the ones
    /// the inventory describes). A restarted lab keeps the guests it has either way.
    pub guests: Option<usize>,
}

impl LabConfig {
    pub fn new(dir: impl Into<PathBuf>) -> LabConfig {
        LabConfig { dir: dir.into(), hosts: 3, base_port: None, guests: None }
    }
}

/// One simulated Proxmox host.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct LabHost {
    pub name: String,
    pub port: u16,
    /// The sshd's process id.
    pub pid: u32,
}

/// The part of the lab's state that outlives the process that started it.
#[derive(Debug, Serialize, Deserialize)]
struct StateFile {
    hosts: Vec<LabHost>,
}

/// A running lab. Dropping it stops the sshds it started, unless it was [`Lab::detach`]ed; a lab
/// found with [`Lab::attach`] is only stopped by [`Lab::stop`].
#[derive(Debug)]
pub struct Lab {
    dir: PathBuf,
    hosts: Vec<LabHost>,
    /// The sshd processes this value started, by host index.
    children: Vec<Option<Child>>,
    client_key: PathBuf,
    sshd: PathBuf,
    penalties_option: bool,
    stop_on_drop: bool,
    /// `<dir>/lab.lock` while this value starts or stops the lab.
    lock: Option<LabLock>,
}

impl Lab {
    /// `~/.local/share/oikos/lab` (the OS data directory).
    pub fn default_dir() -> Result<PathBuf> {
        dirs::data_dir().map(|d| d.join("oikos").join("lab")).ok_or(LabError::NoDataDir)
    }

    /// Writes the lab's files, seeds the guests (first start only: a restarted lab keeps its state
    /// and keys), starts one sshd per host and logs in to each once.
    ///
    /// Holds `<dir>/lab.lock` throughout: while another process starts or stops a lab in the same
    /// directory this fails at once with [`LabError::Busy`].
    pub fn start(config: LabConfig) -> Result<Lab> {
        if config.hosts == 0 {
            return Err(LabError::NoHosts);
        }
        let sshd = sshd::find_sshd()?;
        fs::create_dir_all(&config.dir).map_err(LabError::io(&config.dir))?;
        // sshd needs absolute paths everywhere (it re-executes itself).
        let dir = fs::canonicalize(&config.dir).map_err(LabError::io(&config.dir))?;
        let lock = LabLock::try_take(&dir)?;
        let previous = read_state(&dir).ok();
        if let Some(state) = &previous {
            if state.hosts.iter().any(|h| sshd::is_our_sshd(h.pid, &host_dir(&dir, &h.name))) {
                return Err(LabError::AlreadyRunning(dir));
            }
        }
        write_files(&dir)?;
        let client_key = dir.join(CLIENT_KEY);
        if !client_key.exists() {
            sshd::keygen(&client_key, "oikos-lab client")?;
        }
        let public = read_public_key(&client_key.with_extension("pub"))?;
        write_file(&dir.join("authorized_keys"), &format!("{public}\n"), 0o600)?;
        sshd::ensure_privsep_dir();

        let names: Vec<String> = (1..=config.hosts).map(|i| format!("pve{i}")).collect();
        let seeds = match config.guests {
            None => guests::default_seeds(),
            Some(n) => guests::generated_seeds(n, &names),
        };
        for name in &names {
            prepare_host(&dir, name, &seeds)?;
        }
        guests::write_backup_job(&dir)?;
        let penalties_option = sshd::supports_penalties_option(&sshd, &dir, &names[0]);
        let mut lab = Lab {
            dir: dir.clone(),
            client_key,
            hosts: Vec::new(),
            children: Vec::new(),
            sshd,
            penalties_option,
            stop_on_drop: true,
            lock: Some(lock),
        };
        let mut taken = Vec::new();
        for (i, name) in names.iter().enumerate() {
            let wanted = match config.base_port {
                Some(base) => Some(base.checked_add(i as u16).ok_or_else(|| LabError::Port {
                    host: name.clone(),
                    reason: format!("{base} + {i} is beyond 65535"),
                })?),
                None => previous.as_ref().and_then(|s| s.hosts.iter().find(|h| &h.name == name)).map(|h| h.port),
            };
            // On failure `lab` is dropped, which stops the hosts already started.
            let (child, port) = lab.spawn_host(name, wanted, config.base_port.is_some(), &taken)?;
            taken.push(port);
            lab.hosts.push(LabHost { name: name.clone(), port, pid: child.id() });
            lab.children.push(Some(child));
            // After every host: an interrupted start leaves no sshd that `lab down` cannot find.
            lab.save_state()?;
        }
        for host in &lab.hosts {
            lab.check_login(host)?;
        }
        inventory::write(&lab)?;
        lab.lock = None;
        tracing::info!(dir = %lab.dir.display(), hosts = lab.hosts.len(), "lab started");
        Ok(lab)
    }

    /// Finds the lab running in `dir` (started by another process, such as `nomos lab up`); fails
    /// with [`LabError::NotFound`] if none of its sshds runs.
    pub fn attach(dir: &Path) -> Result<Lab> {
        let state = read_state(dir)?;
        let dir = fs::canonicalize(dir).map_err(LabError::io(dir))?;
        // The state file outlives the sshds (a restart reuses its ports): a lab none of whose
        // sshds runs is not running.
        if !state.hosts.iter().any(|h| sshd::is_our_sshd(h.pid, &host_dir(&dir, &h.name))) {
            return Err(LabError::NotFound(dir));
        }
        let sshd = sshd::find_sshd()?;
        let children = state.hosts.iter().map(|_| None).collect();
        let penalties_option = fs::read_to_string(dir.join("hosts").join("pve1").join("sshd_config"))
            .map(|c| c.contains("PerSourcePenalties"))
            .unwrap_or(false);
        let client_key = dir.join(CLIENT_KEY);
        Ok(Lab {
            dir,
            client_key,
            hosts: state.hosts,
            children,
            sshd,
            penalties_option,
            stop_on_drop: false,
            lock: None,
        })
    }

    /// Leaves the sshds running after this value is gone (for `nomos lab up`).
    pub fn detach(mut self) {
        self.stop_on_drop = false;
    }

    pub fn dir(&self) -> &Path {
        &self.dir
    }

    pub fn hosts(&self) -> &[LabHost] {
        &self.hosts
    }

    pub fn host(&self, name: &str) -> Result<&LabHost> {
        self.hosts.iter().find(|h| h.name == name).ok_or_else(|| LabError::UnknownHost(name.to_string()))
    }

    /// The private key every lab host accepts.
    pub fn client_key(&self) -> &Path {
        &self.client_key
    }

    pub fn inventory_path(&self) -> PathBuf {
        self.dir.join("inventory.yaml")
    }

    /// The host's public key as one OpenSSH line, `ssh-ed25519 AAAA...`.
    pub fn host_public_key(&self, name: &str) -> Result<String> {
        self.host(name)?;
        read_public_key(&host_dir(&self.dir, name).join("ssh_host_ed25519_key.pub"))
    }

    /// The fingerprint of the host's key as `ssh-keygen -lf` prints it (`SHA256:…`): what an
    /// operator compares before trusting it.
    pub fn host_fingerprint(&self, name: &str) -> Result<String> {
        self.host(name)?;
        sshd::fingerprint(&host_dir(&self.dir, name).join("ssh_host_ed25519_key.pub"))
    }

    /// Whether the host's sshd process is alive and its port accepts connections.
    pub fn is_serving(&self, name: &str) -> Result<bool> {
        let host = self.host(name)?;
        Ok(sshd::is_our_sshd(host.pid, &host_dir(&self.dir, name)) && port_open(host.port))
    }

    /// Gives the host a new host key and restarts its sshd on the same port, as a reinstalled
    /// server would look to a client that trusted the old key.
    pub fn regenerate_host_key(&mut self, name: &str) -> Result<()> {
        let i = self.hosts.iter().position(|h| h.name == name).ok_or_else(|| LabError::UnknownHost(name.into()))?;
        self.stop_host(i);
        let key = host_dir(&self.dir, name).join("ssh_host_ed25519_key");
        for path in [key.clone(), key.with_extension("pub")] {
            match fs::remove_file(&path) {
                Err(e) if e.kind() != std::io::ErrorKind::NotFound => return Err(LabError::io(&path)(e)),
                _ => {}
            }
        }
        sshd::keygen(&key, &format!("oikos-lab {name}"))?;
        let port = self.hosts[i].port;
        let (child, port) = self.spawn_host(name, Some(port), true, &[])?;
        self.hosts[i].pid = child.id();
        self.hosts[i].port = port;
        self.children[i] = Some(child);
        self.save_state()?;
        tracing::info!(host = name, "lab host key regenerated");
        Ok(())
    }

    /// Takes a host off or back on line, as a node that lost power (or came back) looks to the
    /// cluster: offline stops its sshd with its sessions, so the stand-ins on the other hosts report
    /// it offline; online starts it again on the same port. Its guests and keys stay. Works on a
    /// lab started by another process (`nomos lab node offline|online`); waits for a start or stop
    /// in progress.
    pub fn set_node_online(dir: &Path, name: &str, online: bool) -> Result<LabHost> {
        let state = read_state(dir)?;
        let dir = fs::canonicalize(dir).map_err(LabError::io(dir))?;
        let _lock = LabLock::wait(&dir, LOCK_PATIENCE)?;
        // Read again under the lock: a restart may have changed pids and ports.
        let state = read_state(&dir).unwrap_or(state);
        let mut lab = Lab {
            client_key: dir.join(CLIENT_KEY),
            penalties_option: fs::read_to_string(host_dir(&dir, name).join("sshd_config"))
                .map(|c| c.contains("PerSourcePenalties"))
                .unwrap_or(false),
            children: state.hosts.iter().map(|_| None).collect(),
            hosts: state.hosts,
            sshd: sshd::find_sshd()?,
            dir,
            stop_on_drop: false,
            lock: None,
        };
        let i = lab.hosts.iter().position(|h| h.name == name).ok_or_else(|| LabError::UnknownHost(name.into()))?;
        let serving = lab.is_serving(name)?;
        if online && !serving {
            let port = lab.hosts[i].port;
            let (child, port) = lab.spawn_host(name, Some(port), true, &[])?;
            lab.hosts[i].pid = child.id();
            lab.hosts[i].port = port;
            lab.save_state()?;
            let host = lab.hosts[i].clone();
            lab.check_login(&host)?;
            tracing::info!(host = name, port, "lab host back online");
        } else if !online && serving {
            lab.stop_host(i);
            tracing::info!(host = name, "lab host offline");
        }
        Ok(lab.hosts[i].clone())
    }

    /// Stops every sshd of the lab, with the commands running in its sessions, and waits for them.
    /// The state (guests, keys) stays.
    pub fn stop(mut self) {
        self.stop_on_drop = false;
        self.stop_all();
    }

    /// Stops the lab running in `dir` (for `nomos lab down`): waits for a start or stop in progress,
    /// then stops every host's sshd and session processes. Returns how many sshds ran; fails with
    /// [`LabError::NotFound`] where no lab was ever started.
    pub fn stop_dir(dir: &Path) -> Result<usize> {
        read_state(dir)?;
        let _lock = LabLock::wait(dir, LOCK_PATIENCE)?;
        stop_dir_locked(dir)
    }

    /// Removes a lab directory (stopping its sshds and session processes first). Refuses
    /// directories that do not look like a lab, so a mistyped `--dir` cannot remove anything else.
    pub fn purge(dir: &Path) -> Result<()> {
        if !dir.exists() {
            return Ok(());
        }
        if !dir.join("bin").join("lab-shell").exists() && !dir.join(STATE_FILE).exists() {
            return Err(LabError::NotALab(dir.to_path_buf()));
        }
        let _lock = LabLock::wait(dir, LOCK_PATIENCE)?;
        match stop_dir_locked(dir) {
            Ok(_) | Err(LabError::NotFound(_)) => {}
            Err(e) => return Err(e),
        }
        fs::remove_dir_all(dir).map_err(LabError::io(dir))
    }

    fn stop_all(&mut self) {
        // Within `start` the lock is held already; otherwise wait for it, but stop regardless.
        let _lock = match self.lock {
            Some(_) => None,
            None => LabLock::wait(&self.dir, LOCK_PATIENCE).ok(),
        };
        for i in 0..self.hosts.len() {
            self.stop_host(i);
            faults::forget_offline(&self.dir, &self.hosts[i].name);
        }
        tracing::info!(dir = %self.dir.display(), "lab stopped");
    }

    fn stop_host(&mut self, i: usize) {
        let name = self.hosts[i].name.clone();
        let hdir = host_dir(&self.dir, &name);
        let child = self.children.get_mut(i).and_then(Option::take);
        let pid = self.hosts[i].pid;
        let sshd_pid = (child.is_some() || sshd::is_our_sshd(pid, &hdir)).then_some(pid);
        sshd::stop_host(&self.dir, &name, sshd_pid, child);
        // A stale pid file would make the stand-ins think the node is online.
        let _ = fs::remove_file(hdir.join("sshd.pid"));
    }

    /// One login with the lab key, as every client will: an sshd that serves but lets nobody in
    /// (an account it considers locked, say) fails here with its log rather than later.
    fn check_login(&self, host: &LabHost) -> Result<()> {
        let Some(ssh) = sshd::on_path("ssh") else {
            tracing::warn!("no ssh client on PATH: lab logins not checked");
            return Ok(());
        };
        let user = inventory::current_user();
        let out = Command::new(ssh)
            .arg("-F")
            .arg("/dev/null")
            .arg("-i")
            .arg(&self.client_key)
            .args(["-p", &host.port.to_string()])
            .args(["-o", "BatchMode=yes", "-o", "IdentitiesOnly=yes", "-o", "StrictHostKeyChecking=no"])
            .args(["-o", "UserKnownHostsFile=/dev/null", "-o", "LogLevel=ERROR", "-o", "ConnectTimeout=5"])
            .arg(format!("{user}@127.0.0.1"))
            .arg("true")
            .stdin(Stdio::null())
            .output()
            .map_err(|e| LabError::Command { what: format!("ssh to {}", host.name), message: e.to_string() })?;
        if out.status.success() {
            return Ok(());
        }
        Err(LabError::LoginFailed {
            host: host.name.clone(),
            user,
            message: sshd::failure_text(&out),
            log: log_tail(&host_dir(&self.dir, &host.name).join("sshd.log")),
        })
    }

    /// Starts the host's sshd on `wanted` (or a free port) and waits until it serves. With `fixed`
    /// the port is not negotiable; otherwise a port someone else took meanwhile is replaced.
    fn spawn_host(&self, name: &str, wanted: Option<u16>, fixed: bool, taken: &[u16]) -> Result<(Child, u16)> {
        let hdir = host_dir(&self.dir, name);
        let mut last_error = None;
        for attempt in 0..5 {
            let port = match (wanted, attempt) {
                (Some(p), 0) => p,
                _ if fixed => break,
                _ => free_port(taken).map_err(|e| LabError::Port { host: name.into(), reason: e.to_string() })?,
            };
            let config = sshd::config(&self.dir, name, port, self.penalties_option);
            write_file(&hdir.join("sshd_config"), &config, 0o644)?;
            let _ = fs::remove_file(hdir.join("sshd.pid"));
            let log = hdir.join("sshd.log");
            let mut child = Command::new(&self.sshd)
                .arg("-D")
                .arg("-f")
                .arg(hdir.join("sshd_config"))
                .arg("-E")
                .arg(&log)
                .stdin(Stdio::null())
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                // Its own process group: a Ctrl-C meant for `nomos lab up` must not reach it.
                .process_group(0)
                .spawn()
                .map_err(|e| LabError::Command {
                    what: format!("starting {}", self.sshd.display()),
                    message: e.to_string(),
                })?;
            match wait_serving(&mut child, port, &hdir.join("sshd.pid")) {
                Ok(()) => {
                    tracing::debug!(host = name, port, pid = child.id(), "lab sshd serving");
                    return Ok((child, port));
                }
                Err(reason) => {
                    let _ = child.kill();
                    let _ = child.wait();
                    let tail = log_tail(&log);
                    let retry = !fixed && (tail.contains("Address already in use") || tail.contains("Cannot bind"));
                    last_error = Some(LabError::SshdFailed { host: name.into(), reason, log: tail });
                    if !retry {
                        break;
                    }
                }
            }
        }
        Err(last_error.unwrap_or_else(|| LabError::Port { host: name.into(), reason: "no port to try".into() }))
    }

    fn save_state(&self) -> Result<()> {
        let state = StateFile { hosts: self.hosts.clone() };
        let text = serde_json::to_string_pretty(&state)
            .map_err(|e| LabError::State { path: self.dir.join(STATE_FILE), message: e.to_string() })?;
        write_file(&self.dir.join(STATE_FILE), &text, 0o644)
    }
}

impl Drop for Lab {
    fn drop(&mut self) {
        if self.stop_on_drop {
            self.stop_all();
        }
    }
}

/// Stops every host recorded in `dir/lab.json` (sshd and session processes), the lock held.
fn stop_dir_locked(dir: &Path) -> Result<usize> {
    let state = read_state(dir)?;
    let dir = fs::canonicalize(dir).map_err(LabError::io(dir))?;
    let mut running = 0;
    for h in &state.hosts {
        let hdir = host_dir(&dir, &h.name);
        let ours = sshd::is_our_sshd(h.pid, &hdir);
        running += usize::from(ours);
        sshd::stop_host(&dir, &h.name, ours.then_some(h.pid), None);
        let _ = fs::remove_file(hdir.join("sshd.pid"));
        faults::forget_offline(&dir, &h.name);
    }
    tracing::info!(dir = %dir.display(), running, "lab stopped");
    Ok(running)
}

fn host_dir(dir: &Path, name: &str) -> PathBuf {
    dir.join("hosts").join(name)
}

fn read_state(dir: &Path) -> Result<StateFile> {
    let path = dir.join(STATE_FILE);
    let text = match fs::read_to_string(&path) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Err(LabError::NotFound(dir.to_path_buf())),
        Err(e) => return Err(LabError::io(&path)(e)),
    };
    serde_json::from_str(&text).map_err(|e| LabError::State { path, message: e.to_string() })
}

fn write_file(path: &Path, text: &str, mode: u32) -> Result<()> {
    fs::write(path, text).map_err(LabError::io(path))?;
    fs::set_permissions(path, fs::Permissions::from_mode(mode)).map_err(LabError::io(path))
}

/// (Re)writes the forced command and the stand-ins, so a lab always runs this binary's version.
fn write_files(dir: &Path) -> Result<()> {
    for (sub, files) in [("bin", &BIN_FILES[..]), ("standins", &STANDINS[..]), ("guest-standins", &GUEST_STANDINS[..])]
    {
        let d = dir.join(sub);
        fs::create_dir_all(&d).map_err(LabError::io(&d))?;
        for (name, text) in files {
            write_file(&d.join(name), text, 0o755)?;
        }
    }
    Ok(())
}

/// The host's key and, on first start, its Proxmox state: template cache and its share of the
/// seeded guests (those whose VMID no guest of the lab has yet).
fn prepare_host(dir: &Path, name: &str, seeds: &[guests::GuestSpec]) -> Result<()> {
    let hdir = host_dir(dir, name);
    let key = hdir.join("ssh_host_ed25519_key");
    fs::create_dir_all(&hdir).map_err(LabError::io(&hdir))?;
    if !key.exists() {
        sshd::keygen(&key, &format!("oikos-lab {name}"))?;
    }
    let pve = hdir.join("pve");
    if pve.join(SEEDED_MARKER).exists() {
        return Ok(());
    }
    // A seeding that stopped partway goes on where it stopped: what exists stays (a guest is
    // written whole or not at all).
    let cache = pve.join("template").join("cache");
    for d in [pve.join("lxc"), pve.join("qemu"), cache.clone()] {
        fs::create_dir_all(&d).map_err(LabError::io(&d))?;
    }
    for t in TEMPLATES {
        write_file(&cache.join(t), "", 0o644)?;
    }
    for seed in seeds.iter().filter(|s| s.node == name) {
        if !guests::exists(dir, seed.vmid) {
            guests::write_guest(dir, seed)?;
        }
    }
    write_file(&pve.join(SEEDED_MARKER), "", 0o644)
}

/// `ssh-ed25519 AAAA...` from a `.pub` file (the comment dropped).
fn read_public_key(path: &Path) -> Result<String> {
    let text = fs::read_to_string(path).map_err(LabError::io(path))?;
    let mut words = text.split_whitespace();
    match (words.next(), words.next()) {
        (Some(kind), Some(key)) => Ok(format!("{kind} {key}")),
        _ => Err(LabError::State { path: path.to_path_buf(), message: "not an OpenSSH public key".into() }),
    }
}

/// A port that was free a moment ago (bound to 127.0.0.1:0, then released) and not in `taken`.
fn free_port(taken: &[u16]) -> std::io::Result<u16> {
    loop {
        let port = TcpListener::bind((Ipv4Addr::LOCALHOST, 0))?.local_addr()?.port();
        if !taken.contains(&port) {
            return Ok(port);
        }
    }
}

fn port_open(port: u16) -> bool {
    TcpStream::connect_timeout(&SocketAddr::from((Ipv4Addr::LOCALHOST, port)), Duration::from_millis(200)).is_ok()
}

/// Waits until the sshd wrote its pid file (it does so after binding) and the port accepts
/// connections; fails early if it exits.
fn wait_serving(child: &mut Child, port: u16, pid_file: &Path) -> Result<(), String> {
    let deadline = Instant::now() + START_TIMEOUT;
    loop {
        if let Ok(Some(status)) = child.try_wait() {
            return Err(format!("it exited ({status})"));
        }
        let pid_written = fs::read_to_string(pid_file).map(|p| p.trim() == child.id().to_string()).unwrap_or(false);
        if pid_written && port_open(port) {
            return Ok(());
        }
        if Instant::now() > deadline {
            return Err(format!("port {port} did not accept connections within {}s", START_TIMEOUT.as_secs()));
        }
        std::thread::sleep(Duration::from_millis(25));
    }
}

fn log_tail(path: &Path) -> String {
    let text = fs::read_to_string(path).unwrap_or_default();
    let lines: Vec<&str> = text.lines().collect();
    lines[lines.len().saturating_sub(10)..].join("\n")
}
