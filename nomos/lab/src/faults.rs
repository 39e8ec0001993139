//! Faults on demand (`nomos lab fault`): a unit that crashed or flaps, a full disk, a guest stopped
//! (by a backup), a node off line, a certificate about to expire, a missed backup. Each is state the
//! stand-ins read (see `shell/lab-common.sh`), written under the flocks they take, so a fault shows
//! through ssh exactly where a real one would: `systemctl`, `pvesh`, `pct`.
//!
//! ```text
//! hosts/<node>/faults                          rootfs_pct, cert_notafter, offline ("key=value")
//! hosts/<node>/systemd/<unit>.service          a host unit (ActiveState=, FlapPeriod=, ...)
//! hosts/<node>/pve/<kind>/<vmid>/faults        disk_pct, no_backup, stopped, locked
//! hosts/<node>/pve/lxc/<vmid>/systemd/<unit>.service   a container's unit
//! ```

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::fs;
use std::path::{Path, PathBuf};
use std::time::{SystemTime, UNIX_EPOCH};

use super::guests::{self, GuestKind};
use super::{host_dir, write_file, Lab, LabError, Result};

/// How many days a certificate fault may reach into the past or future.
const MAX_CERT_DAYS: i64 = 36_500;
const DAY_SECS: i64 = 86_400;

/// A fault to make on a lab host (or in one of its guests).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Fault {
    /// The unit goes `failed`, as if it crashed: on the host, or in the container `guest`.
    StopService { unit: String, guest: Option<u32> },
    /// The node's root file system (or the container's disk) reports `percent` % used.
    FillDisk { percent: u32, guest: Option<u32> },
    /// The guest stops; with `backup` it is also locked as by a stop-mode vzdump at work.
    StopGuest { vmid: u32, backup: bool },
    /// The node goes off line (its sshd stops), see [`Lab::set_node_online`].
    NodeOffline,
    /// The unit alternates failed/active every `period_secs`, computed when read.
    Flap { unit: String, period_secs: u64, guest: Option<u32> },
    /// The node's certificate (pve-ssl.pem) expires in `days` days (negative: expired).
    CertExpire { days: i64 },
    /// The guest's newest backup is five days old.
    NoBackup { vmid: u32 },
    /// Undoes every fault of the host and its guests.
    Clear,
}

/// Makes `fault` on `host` of the lab in `dir` and says in one line what it did.
pub fn fault(dir: &Path, host: &str, fault: &Fault) -> Result<String> {
    let dir = guests::canonical(dir)?;
    guests::check_node(&dir, host)?;
    match fault {
        Fault::StopService { unit, guest } => {
            let unit = unit_name(unit)?;
            let (units, place) = unit_scope(&dir, host, *guest)?;
            let _locks = guests::lock(&dir, &[host])?;
            set_unit(&units, &unit, |u| {
                u.insert("ActiveState".into(), "failed".into());
                u.remove("FlapPeriod");
                u.remove("FlapSince");
            })?;
            Ok(format!("{unit}.service {place} failed (as if it crashed)"))
        }
        Fault::Flap { unit, period_secs, guest } => {
            if *period_secs == 0 {
                return Err(LabError::Fault("a flap needs a period of at least 1 second".into()));
            }
            let unit = unit_name(unit)?;
            let (units, place) = unit_scope(&dir, host, *guest)?;
            let _locks = guests::lock(&dir, &[host])?;
            let since = now();
            set_unit(&units, &unit, |u| {
                u.insert("ActiveState".into(), "failed".into());
                u.insert("FlapPeriod".into(), period_secs.to_string());
                u.insert("FlapSince".into(), since.to_string());
            })?;
            Ok(format!("{unit}.service {place} alternates failed/active every {period_secs}s (failed first)"))
        }
        Fault::FillDisk { percent, guest } => {
            if *percent > 100 {
                return Err(LabError::Fault(format!("{percent} is not a percentage (0 to 100)")));
            }
            match guest {
                None => {
                    let _locks = guests::lock(&dir, &[host])?;
                    update_kv(&host_faults(&dir, host), |f| {
                        f.insert("rootfs_pct".into(), percent.to_string());
                    })?;
                    Ok(format!("{host}'s root file system reports {percent}% used"))
                }
                Some(vmid) => {
                    let gdir = container_on(&dir, host, *vmid, "its disk use")?;
                    let _locks = guests::lock(&dir, &[host])?;
                    update_kv(&gdir.join("faults"), |f| {
                        f.insert("disk_pct".into(), percent.to_string());
                    })?;
                    Ok(format!("CT {vmid} on {host}: its disk reports {percent}% used (while it runs)"))
                }
            }
        }
        Fault::StopGuest { vmid, backup } => {
            // Looked up under the host's lock: a guest moves under the locks of its nodes.
            let _locks = guests::lock(&dir, &[host])?;
            let (kind, gdir) = guest_on(&dir, host, *vmid)?;
            let was_running = read_state(&gdir) == "running";
            let config = gdir.join("config");
            let locked = *backup && current_lock(&config)?.is_none();
            if was_running {
                write_atomic(&gdir.join("state"), "stopped\n")?;
            }
            if locked {
                guests::set_config_key(&config, "lock", Some("backup"))?;
            }
            update_kv(&gdir.join("faults"), |f| {
                if was_running {
                    f.insert("stopped".into(), "1".into());
                }
                if locked {
                    f.insert("locked".into(), "1".into());
                }
            })?;
            let what = format!("{}/{vmid} on {host}", kind.as_str());
            let state = if was_running { "stopped" } else { "was stopped already" };
            Ok(if *backup {
                format!("{what} {state}, locked (backup) as by a stop-mode vzdump at work")
            } else {
                format!("{what} {state}")
            })
        }
        Fault::NodeOffline => {
            Lab::set_node_online(&dir, host, false)?;
            // Recorded once it is off line, so that `clear` brings back only what a fault took.
            let _locks = guests::lock(&dir, &[host])?;
            update_kv(&host_faults(&dir, host), |f| {
                f.insert("offline".into(), "1".into());
            })?;
            Ok(format!("{host} offline (its sshd is stopped; the cluster reports it offline)"))
        }
        Fault::CertExpire { days } => {
            if days.abs() > MAX_CERT_DAYS {
                return Err(LabError::Fault(format!(
                    "{days} days is out of range (-{MAX_CERT_DAYS} to {MAX_CERT_DAYS})"
                )));
            }
            let at = now() + days * DAY_SECS;
            let _locks = guests::lock(&dir, &[host])?;
            update_kv(&host_faults(&dir, host), |f| {
                f.insert("cert_notafter".into(), at.to_string());
            })?;
            Ok(if *days < 0 {
                format!("{host}'s certificate pve-ssl.pem expired {} days ago (notafter {at})", -days)
            } else {
                format!("{host}'s certificate pve-ssl.pem expires in {days} days (notafter {at})")
            })
        }
        Fault::NoBackup { vmid } => {
            let _locks = guests::lock(&dir, &[host])?;
            let (kind, gdir) = guest_on(&dir, host, *vmid)?;
            update_kv(&gdir.join("faults"), |f| {
                f.insert("no_backup".into(), "1".into());
            })?;
            Ok(format!("{}/{vmid} on {host}: no recent backup (its newest is 5 days old)", kind.as_str()))
        }
        Fault::Clear => clear(&dir, host),
    }
}

/// Undoes every fault of the host: units active, disks and certificate normal, guests a fault
/// stopped running again and unlocked, backups recent, and the node back on line if a fault took it
/// off.
fn clear(dir: &Path, host: &str) -> Result<String> {
    let mut done = Vec::new();
    let offline = {
        let _locks = guests::lock(dir, &[host])?;
        let faults = read_kv(&host_faults(dir, host))?;
        remove_file_if_any(&host_faults(dir, host))?;
        let mut units = reset_units(&host_dir(dir, host).join("systemd"))?;
        let mut restarted = Vec::new();
        for kind in [GuestKind::Lxc, GuestKind::Qemu] {
            let parent = host_dir(dir, host).join("pve").join(kind.as_str());
            let Ok(entries) = fs::read_dir(&parent) else { continue };
            for gdir in entries.filter_map(|e| e.ok()).map(|e| e.path()).filter(|p| p.join("config").is_file()) {
                units += reset_units(&gdir.join("systemd"))?;
                let f = read_kv(&gdir.join("faults"))?;
                if f.contains_key("locked") && current_lock(&gdir.join("config"))?.as_deref() == Some("backup") {
                    guests::set_config_key(&gdir.join("config"), "lock", None)?;
                }
                if f.contains_key("stopped") && read_state(&gdir) == "stopped" {
                    write_atomic(&gdir.join("state"), "running\n")?;
                    restarted.push(gdir.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default());
                }
                remove_file_if_any(&gdir.join("faults"))?;
            }
        }
        done.push(format!("{units} units active again"));
        if !restarted.is_empty() {
            restarted.sort();
            done.push(format!("guests started again: {}", restarted.join(", ")));
        }
        faults.contains_key("offline")
    };
    if offline {
        Lab::set_node_online(dir, host, true)?;
        done.push("back online".into());
    }
    Ok(format!("{host}: every fault cleared ({}; disks, certificate and backups normal)", done.join("; ")))
}

/// A lab that stops ends a node-offline fault: the next start brings every host up, and `clear`
/// must not start one host of a stopped lab. Best effort (stopping goes on regardless).
pub(super) fn forget_offline(dir: &Path, host: &str) {
    let path = host_faults(dir, host);
    if path.exists() {
        let _ = update_kv(&path, |f| {
            f.remove("offline");
        });
    }
}

/// Failed or flapping units of a unit directory made active; returns how many.
fn reset_units(units: &Path) -> Result<usize> {
    let Ok(entries) = fs::read_dir(units) else { return Ok(0) };
    let mut count = 0;
    for path in entries.filter_map(|e| e.ok()).map(|e| e.path()) {
        if path.extension().is_none_or(|e| e != "service") {
            continue;
        }
        let mut unit = read_kv(&path)?;
        let period = unit.remove("FlapPeriod");
        let since = unit.remove("FlapSince");
        let flapping = period.is_some() || since.is_some();
        if flapping || unit.get("ActiveState").is_some_and(|s| s == "failed") {
            unit.insert("ActiveState".into(), "active".into());
            write_kv(&path, &unit)?;
            count += 1;
        }
    }
    Ok(count)
}

/// A unit name as the systemctl stand-in keeps it: without `.service`.
fn unit_name(name: &str) -> Result<String> {
    let unit = name.strip_suffix(".service").unwrap_or(name);
    let ok = |c: char| c.is_ascii_alphanumeric() || ":_.@-".contains(c);
    if unit.is_empty() || !unit.chars().all(ok) || unit.starts_with('.') {
        return Err(LabError::Fault(format!("`{name}` is not a service name")));
    }
    Ok(unit.to_string())
}

/// The unit directory of the host or of its container `guest`, and where that is in words.
fn unit_scope(dir: &Path, host: &str, guest: Option<u32>) -> Result<(PathBuf, String)> {
    match guest {
        None => Ok((host_dir(dir, host).join("systemd"), format!("on {host}"))),
        Some(vmid) => {
            let gdir = container_on(dir, host, vmid, "units")?;
            Ok((gdir.join("systemd"), format!("in CT {vmid} on {host}")))
        }
    }
}

/// The guest's kind and directory, if it is on `host`.
fn guest_on(dir: &Path, host: &str, vmid: u32) -> Result<(GuestKind, PathBuf)> {
    let (node, kind, gdir) = guests::find(dir, vmid).ok_or_else(|| guests::no_guest(vmid))?;
    if node != host {
        return Err(LabError::Fault(format!("guest {vmid} is on {node}, not on {host}")));
    }
    Ok((kind, gdir))
}

/// The container's directory; a VM is refused, as the lab simulates `what` only in containers.
fn container_on(dir: &Path, host: &str, vmid: u32, what: &str) -> Result<PathBuf> {
    match guest_on(dir, host, vmid)? {
        (GuestKind::Lxc, gdir) => Ok(gdir),
        (GuestKind::Qemu, _) => {
            Err(LabError::Fault(format!("guest {vmid} is a VM: the lab simulates {what} only in containers")))
        }
    }
}

/// Changes a unit's file (made if the unit has none yet: enabled, as an installed service is).
fn set_unit(units: &Path, unit: &str, change: impl FnOnce(&mut BTreeMap<String, String>)) -> Result<()> {
    fs::create_dir_all(units).map_err(LabError::io(units))?;
    let path = units.join(format!("{unit}.service"));
    let mut fields = read_kv(&path)?;
    fields.entry("UnitFileState".into()).or_insert_with(|| "enabled".into());
    change(&mut fields);
    write_kv(&path, &fields)
}

fn host_faults(dir: &Path, host: &str) -> PathBuf {
    host_dir(dir, host).join("faults")
}

fn read_state(gdir: &Path) -> String {
    fs::read_to_string(gdir.join("state")).map(|s| s.trim().to_string()).unwrap_or_else(|_| "stopped".into())
}

fn current_lock(config: &Path) -> Result<Option<String>> {
    let text = fs::read_to_string(config).map_err(LabError::io(config))?;
    Ok(guests::config_value(&text, "lock"))
}

/// `key=value` lines (a missing file is empty).
fn read_kv(path: &Path) -> Result<BTreeMap<String, String>> {
    match fs::read_to_string(path) {
        Ok(text) => {
            Ok(text.lines().filter_map(|l| l.split_once('=')).map(|(k, v)| (k.to_string(), v.to_string())).collect())
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(BTreeMap::new()),
        Err(e) => Err(LabError::io(path)(e)),
    }
}

/// Writes `key=value` lines in one step; an empty map removes the file.
fn write_kv(path: &Path, fields: &BTreeMap<String, String>) -> Result<()> {
    if fields.is_empty() {
        return remove_file_if_any(path);
    }
    let mut text = String::new();
    for (k, v) in fields {
        let _ = writeln!(text, "{k}={v}");
    }
    write_atomic(path, &text)
}

fn update_kv(path: &Path, change: impl FnOnce(&mut BTreeMap<String, String>)) -> Result<()> {
    let mut fields = read_kv(path)?;
    change(&mut fields);
    write_kv(path, &fields)
}

/// Replaced in one step: the stand-ins read without a lock and must see the old file or the new.
fn write_atomic(path: &Path, text: &str) -> Result<()> {
    let mut staging = path.as_os_str().to_owned();
    staging.push(".new");
    let staging = PathBuf::from(staging);
    write_file(&staging, text, 0o644)?;
    fs::rename(&staging, path).map_err(LabError::io(path))
}

fn remove_file_if_any(path: &Path) -> Result<()> {
    match fs::remove_file(path) {
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => Err(LabError::io(path)(e)),
        _ => Ok(()),
    }
}

fn now() -> i64 {
    SystemTime::now().duration_since(UNIX_EPOCH).map(|d| i64::try_from(d.as_secs()).unwrap_or(i64::MAX)).unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unit_names_with_or_without_service() {
        assert_eq!(unit_name("ssh.service").unwrap(), "ssh");
        assert_eq!(unit_name("pve-cluster").unwrap(), "pve-cluster");
        assert_eq!(unit_name("getty@tty1").unwrap(), "getty@tty1");
        for bad in ["", "../x", "a b", ".service", "x/y"] {
            assert!(unit_name(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn key_value_files_round_trip_and_vanish_when_empty() {
        let tmp = tempfile::tempdir().unwrap();
        let path = tmp.path().join("faults");
        update_kv(&path, |f| {
            f.insert("rootfs_pct".into(), "95".into());
        })
        .unwrap();
        assert_eq!(fs::read_to_string(&path).unwrap(), "rootfs_pct=95\n");
        update_kv(&path, |f| {
            f.remove("rootfs_pct");
        })
        .unwrap();
        assert!(!path.exists());
    }
}
