//! The OpenSSH side of the lab: finding the binaries, keys, sshd configs and stopping sshds that
//! another process started.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use super::{host_dir, LabError, Result};

/// `/usr/sbin/sshd`, else `sshd` on PATH (as an absolute path: sshd re-executes itself and insists
/// on one).
pub(super) fn find_sshd() -> Result<PathBuf> {
    let standard = PathBuf::from("/usr/sbin/sshd");
    if standard.is_file() {
        return Ok(standard);
    }
    on_path("sshd").ok_or(LabError::SshdMissing)
}

pub(super) fn on_path(name: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path).map(|d| d.join(name)).find(|p| p.is_file() && p.is_absolute())
}

/// A new ed25519 key pair without passphrase at `path` and `path.pub`.
/// `SHA256:…` of a public key file, by `ssh-keygen -lf`.
pub(super) fn fingerprint(public: &Path) -> Result<String> {
    let program = on_path("ssh-keygen").unwrap_or_else(|| PathBuf::from("/usr/bin/ssh-keygen"));
    let out =
        Command::new(&program).arg("-lf").arg(public).stdin(Stdio::null()).output().map_err(|e| match e.kind() {
            std::io::ErrorKind::NotFound => LabError::KeygenMissing,
            _ => LabError::Command { what: "ssh-keygen -lf".into(), message: e.to_string() },
        })?;
    let text = String::from_utf8_lossy(&out.stdout);
    match text.split_whitespace().nth(1) {
        Some(fp) if out.status.success() && fp.starts_with("SHA256:") => Ok(fp.to_string()),
        _ => {
            Err(LabError::Command { what: format!("ssh-keygen -lf {}", public.display()), message: failure_text(&out) })
        }
    }
}

pub(super) fn keygen(path: &Path, comment: &str) -> Result<()> {
    let program = on_path("ssh-keygen").unwrap_or_else(|| PathBuf::from("/usr/bin/ssh-keygen"));
    let out = Command::new(&program)
        .args(["-q", "-t", "ed25519", "-N", "", "-C", comment, "-f"])
        .arg(path)
        .stdin(Stdio::null())
        .output()
        .map_err(|e| match e.kind() {
            std::io::ErrorKind::NotFound => LabError::KeygenMissing,
            _ => LabError::Command { what: "ssh-keygen".into(), message: e.to_string() },
        })?;
    if !out.status.success() {
        return Err(LabError::Command {
            what: format!("ssh-keygen for {}", path.display()),
            message: failure_text(&out),
        });
    }
    Ok(())
}

/// What a failed command said: its stderr, else its stdout (ssh-keygen asks whether to overwrite
/// there), else its exit status.
pub(super) fn failure_text(out: &std::process::Output) -> String {
    for stream in [&out.stderr, &out.stdout] {
        let text = String::from_utf8_lossy(stream).trim().to_string();
        if !text.is_empty() {
            return format!("{text} ({})", out.status);
        }
    }
    format!("no output ({})", out.status)
}

/// sshd started as root refuses to run without its privilege separation directory, which a
/// machine that never ran the system sshd (a container) lacks. Creating it needs root; as anyone
/// else sshd does not use it, so a failure here is of no consequence.
pub(super) fn ensure_privsep_dir() {
    if cfg!(target_os = "linux") && !Path::new("/run/sshd").exists() {
        use std::os::unix::fs::DirBuilderExt;
        let _ = fs::DirBuilder::new().mode(0o755).recursive(true).create("/run/sshd");
    }
}

/// Whether this sshd knows `PerSourcePenalties` (OpenSSH 9.8+). Where it does, the lab turns it
/// off: tests deliberately fail logins from 127.0.0.1, which would otherwise get every client on
/// the machine refused for a while.
pub(super) fn supports_penalties_option(sshd: &Path, dir: &Path, host: &str) -> bool {
    Command::new(sshd)
        .args(["-t", "-f", "/dev/null", "-o", "PerSourcePenalties=no", "-o"])
        .arg(format!("HostKey={}", host_dir(dir, host).join("ssh_host_ed25519_key").display()))
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .map(|s| s.success())
        .unwrap_or(false)
}

/// A value for sshd_config: double-quoted (paths may contain spaces, as macOS's data directory does).
fn quoted(path: &Path) -> String {
    format!("\"{}\"", path.display())
}

/// A word for the shell that runs the forced command.
fn shell_word(s: &str) -> String {
    format!("'{}'", s.replace('\'', r"'\''"))
}

/// The sshd_config of one lab host.
pub(super) fn config(dir: &Path, name: &str, port: u16, no_penalties: bool) -> String {
    let hdir = host_dir(dir, name);
    let lab_shell = dir.join("bin").join("lab-shell");
    let force = format!(
        "{} {} {}",
        shell_word(&lab_shell.display().to_string()),
        shell_word(&dir.display().to_string()),
        shell_word(name)
    );
    let mut c = format!(
        "# Oikos lab host {name}: written by `nomos lab up` on every start; edits are lost.\n\
         ListenAddress 127.0.0.1\n\
         Port {port}\n\
         HostKey {host_key}\n\
         PidFile {pid_file}\n\
         AuthorizedKeysFile {authorized}\n\
         PasswordAuthentication no\n\
         KbdInteractiveAuthentication no\n\
         PubkeyAuthentication yes\n\
         AuthenticationMethods publickey\n\
         # Root logs in with the lab key only; any other user (who runs the lab) may too.\n\
         PermitRootLogin prohibit-password\n\
         UsePAM no\n\
         # The lab's files belong to whoever started it, with whatever umask.\n\
         StrictModes no\n\
         UseDNS no\n\
         # OpenSSH's default, as on Proxmox hosts: the executor must live within it.\n\
         MaxSessions 10\n\
         MaxStartups 100:30:200\n\
         ForceCommand {force}\n\
         AllowTcpForwarding no\n\
         AllowAgentForwarding no\n\
         X11Forwarding no\n\
         PermitTunnel no\n\
         PrintMotd no\n\
         LogLevel VERBOSE\n",
        host_key = quoted(&hdir.join("ssh_host_ed25519_key")),
        pid_file = quoted(&hdir.join("sshd.pid")),
        authorized = quoted(&dir.join("authorized_keys")),
    );
    if no_penalties {
        c.push_str("PerSourcePenalties no\n");
    }
    c
}

/// Whether `pid` is the sshd of the host in `hdir` (not a process that reused the number).
pub(super) fn is_our_sshd(pid: u32, hdir: &Path) -> bool {
    let config = hdir.join("sshd_config").display().to_string();
    let proc_cmdline = PathBuf::from(format!("/proc/{pid}/cmdline"));
    let args = if Path::new("/proc/self/cmdline").exists() {
        fs::read(&proc_cmdline).map(|b| String::from_utf8_lossy(&b).replace('\0', " ")).unwrap_or_default()
    } else {
        Command::new("ps")
            .args(["-p", &pid.to_string(), "-o", "args="])
            .stdin(Stdio::null())
            .stderr(Stdio::null())
            .output()
            .map(|o| String::from_utf8_lossy(&o.stdout).into_owned())
            .unwrap_or_default()
    };
    // sshd rewrites its process title; the pid file vouches for it should the title be cut short.
    let in_pid_file = fs::read_to_string(hdir.join("sshd.pid")).map(|p| p.trim() == pid.to_string()).unwrap_or(false);
    args.contains("sshd") && (args.contains(&config) || in_pid_file)
}

/// How long stopped processes get to exit on SIGTERM before SIGKILL.
const STOP_GRACE: Duration = Duration::from_secs(2);

/// Stops a lab host: its sshd (`sshd_pid`, when it still is that host's sshd; `child` when this
/// process started it) with its whole process group, every process descending from it (each
/// connection is a session of its own), and whatever else runs for the host: processes whose
/// environment names the lab directory and host (set by `lab-shell`, inherited by everything a
/// session starts, even when the session is gone) or whose command line holds the host's
/// directory. SIGTERM first, SIGKILL after a grace period.
pub(super) fn stop_host(dir: &Path, name: &str, sshd_pid: Option<u32>, mut child: Option<std::process::Child>) {
    let hdir = host_dir(dir, name);
    let table = processes();
    let mut targets: Vec<u32> = Vec::new();
    if let Some(pid) = sshd_pid {
        targets.push(pid);
        let mut i = 0;
        while i < targets.len() {
            let parent = targets[i];
            for p in &table {
                if p.ppid == parent && !targets.contains(&p.pid) {
                    targets.push(p.pid);
                }
            }
            i += 1;
        }
    }
    let env_dir = format!("OIKOS_LAB_DIR={}", dir.display());
    let env_host = format!("OIKOS_LAB_HOST={name}");
    let hdir_text = hdir.display().to_string();
    for p in &table {
        let ours = p.environ.iter().any(|e| e == &env_dir) && p.environ.iter().any(|e| e == &env_host);
        if (ours || p.cmdline.contains(&hdir_text)) && !targets.contains(&p.pid) {
            targets.push(p.pid);
        }
    }
    let me = std::process::id();
    targets.retain(|&p| p != me && p != 0);
    if targets.is_empty() && child.is_none() {
        return;
    }
    let group = sshd_pid.map(|p| format!("-{p}"));
    let signal_all = |sig: &str| {
        let mut args: Vec<String> = vec![sig.to_string(), "--".to_string()];
        args.extend(group.iter().cloned());
        args.extend(targets.iter().map(u32::to_string));
        let _ =
            Command::new("kill").args(&args).stdin(Stdio::null()).stdout(Stdio::null()).stderr(Stdio::null()).status();
    };
    signal_all("-TERM");
    let deadline = Instant::now() + STOP_GRACE;
    loop {
        let child_gone = child.as_mut().is_none_or(|c| matches!(c.try_wait(), Ok(Some(_)) | Err(_)));
        if child_gone && !targets.iter().any(|&p| is_running(p)) {
            break;
        }
        if Instant::now() > deadline {
            signal_all("-KILL");
            break;
        }
        std::thread::sleep(Duration::from_millis(25));
    }
    if let Some(mut c) = child {
        let _ = c.kill();
        let _ = c.wait();
    }
    tracing::debug!(host = name, processes = targets.len(), "lab host stopped");
}

struct Process {
    pid: u32,
    ppid: u32,
    cmdline: String,
    environ: Vec<String>,
}

/// Every process this user can see (on Linux with environment; elsewhere from `ps`, without).
fn processes() -> Vec<Process> {
    if Path::new("/proc/self/stat").exists() {
        let Ok(entries) = fs::read_dir("/proc") else { return Vec::new() };
        return entries
            .filter_map(|e| e.ok()?.file_name().to_str()?.parse::<u32>().ok())
            .filter_map(|pid| {
                let stat = fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
                let ppid = stat[stat.rfind(')')? + 1..].split_whitespace().nth(1)?.parse().ok()?;
                let read = |what: &str| fs::read(format!("/proc/{pid}/{what}")).unwrap_or_default();
                let cmdline = String::from_utf8_lossy(&read("cmdline")).replace('\0', " ");
                let environ =
                    read("environ").split(|b| *b == 0).map(|e| String::from_utf8_lossy(e).into_owned()).collect();
                Some(Process { pid, ppid, cmdline, environ })
            })
            .collect();
    }
    let out = Command::new("ps")
        .args(["-A", "-o", "pid=", "-o", "ppid=", "-o", "args="])
        .stdin(Stdio::null())
        .stderr(Stdio::null())
        .output()
        .map(|o| String::from_utf8_lossy(&o.stdout).into_owned())
        .unwrap_or_default();
    out.lines()
        .filter_map(|l| {
            let mut words = l.split_whitespace();
            let pid = words.next()?.parse().ok()?;
            let ppid = words.next()?.parse().ok()?;
            Some(Process { pid, ppid, cmdline: words.collect::<Vec<_>>().join(" "), environ: Vec::new() })
        })
        .collect()
}

/// Whether `pid` exists and is not a zombie.
pub(super) fn is_running(pid: u32) -> bool {
    if Path::new("/proc/self/stat").exists() {
        return fs::read_to_string(format!("/proc/{pid}/stat"))
            .ok()
            .and_then(|s| s.rfind(')').and_then(|i| s[i + 1..].split_whitespace().next().map(|st| st != "Z")))
            .unwrap_or(false);
    }
    Command::new("kill")
        .args(["-0", &pid.to_string()])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}
