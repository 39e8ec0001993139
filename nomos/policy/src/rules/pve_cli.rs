//! What Proxmox's command-line tools destroy or take down without a deleting word: a guest's disk
//! or boot disk detached, a host disk or device handed to a guest, storage pointed elsewhere or
//! switched off, HA guests stopped, a Ceph pool left with one copy, accounts locked out, a backup
//! restored over the system, the QEMU monitor told to quit. The options are read as Getopt::Long
//! reads them (`meaning::getopt`), so every spelling the tools accept is judged alike.

use super::meaning::Opt;

/// Whether a boolean option is set on (`--x`, `--x 1`, `--x=yes`).
fn on(o: &Opt) -> bool {
    !o.is_off()
}

/// The first option that is `full` (or abbreviates it).
fn opt<'o>(opts: &'o [Opt], full: &str) -> Option<&'o Opt> {
    opts.iter().find(|o| o.is(full))
}

/// An option's value, by any of its spellings (`min_size`, `min-size`).
fn value<'o>(opts: &'o [Opt], names: &[&str]) -> Option<&'o str> {
    opts.iter().find(|o| names.iter().any(|n| o.name == *n)).and_then(|o| o.value.as_deref())
}

/// A key for the disk a guest boots from: the first disk of each bus (`scsi0`, `virtio0`,
/// `sata0`, `ide0`), its EFI variables and TPM state, a container's `rootfs`. Other disks taken
/// out of the configuration are kept as unused volumes, a change undone by attaching them again.
fn boot_disk_key(key: &str) -> bool {
    let k = key.trim().to_ascii_lowercase();
    matches!(k.as_str(), "rootfs" | "scsi0" | "virtio0" | "sata0" | "ide0" | "efidisk0" | "tpmstate0")
}

/// A host path whose passing into a container hands it the host's system: `/`, `/etc`, `/root`,
/// `/dev`, `/boot` and the like (a bind mount is the host's own directory, writable).
fn host_system_dir(path: &str) -> bool {
    let p = path.trim_end_matches('/');
    p.is_empty()
        || [
            "/etc", "/root", "/dev", "/boot", "/usr", "/var", "/bin", "/sbin", "/lib", "/lib64", "/proc", "/sys",
            "/run",
        ]
        .iter()
        .any(|d| p == *d || p.strip_prefix(d).is_some_and(|r| r.starts_with('/')))
}

/// `qm set|create`, `pct set|create` and the API's guest `config`: what their options detach,
/// expose or unguard.
pub(crate) fn guest_config(opts: &[Opt]) -> Option<String> {
    // A disk or mount point taken out of the configuration: a VM left without its boot disk does
    // not start, and the volume is left to be freed.
    for o in opts.iter().filter(|o| o.is("delete") || o.name == "revert") {
        let keys = o.value.as_deref().unwrap_or("");
        if let Some(k) = keys.split([',', ';', ' ']).find(|k| boot_disk_key(k)) {
            return Some(format!("detaches `{k}`, the disk the guest boots from: it no longer starts"));
        }
    }
    for o in opts {
        let v = o.value.as_deref().unwrap_or("").trim();
        let lower = v.to_ascii_lowercase();
        let source = lower.split(',').next().unwrap_or("");
        let name = o.name.trim_end_matches(|c: char| c.is_ascii_digit());
        let indexed = name.len() < o.name.len();
        match name {
            // Replacing the boot disk with an empty drive detaches it (a CD drive's `none` only ejects).
            "scsi" | "virtio" | "sata" | "efidisk" | "tpmstate" if boot_disk_key(&o.name) && source == "none" => {
                return Some(format!("replaces `{}`, the disk the guest boots from, with an empty drive", o.name));
            }
            // A host block device as a guest's disk (or imported from one): the guest reads and
            // writes the host's disk.
            "scsi" | "virtio" | "sata" | "ide" | "efidisk" | "tpmstate"
                if indexed && (source.starts_with("/dev/") || lower.contains("import-from=/dev/")) =>
            {
                return Some(format!("hands the host's disk `{v}` to the guest, which can read or overwrite it"));
            }
            "hostpci" if indexed && !v.is_empty() => {
                return Some(format!("passes the host's PCI device `{v}` to the guest, taking it away from the host"));
            }
            "usb" if indexed && lower.contains("host=") && !lower.contains("spice") => {
                return Some(format!("passes the host's USB device `{v}` to the guest, taking it away from the host"));
            }
            "mp" | "rootfs" if (indexed || name == "rootfs") && source.starts_with('/') && host_system_dir(source) => {
                return Some(format!("mounts the host's `{source}` into the container, writable from inside"));
            }
            "dev" if indexed && source.starts_with("/dev/") => {
                return Some(format!("hands the host's device `{source}` to the container"));
            }
            _ => {}
        }
    }
    if opts.iter().any(|o| o.is("protection") && o.is_off() && o.value.is_some()) {
        return Some("lifts the guest's protection against being removed".into());
    }
    if opts.iter().any(|o| o.is("unprivileged") && o.is_off() && o.value.is_some()) {
        return Some("makes the container privileged: its root is the host's root".into());
    }
    None
}

/// `pvesm set|add` and the API's storage configuration: switching a storage off, or pointing it
/// at another place, pool, server or key, cuts the guests off their disks or backups off their data.
pub(crate) fn storage_change(opts: &[Opt]) -> Option<String> {
    if opts.iter().any(|o| o.is("disable") && on(o)) || opts.iter().any(|o| o.name == "enable" && o.is_off()) {
        return Some("switches a storage off, cutting its guests off their disks".into());
    }
    if let Some(o) = opts.iter().find(|o| o.name == "prune-backups" || o.name == "maxfiles") {
        return Some(format!("sets `{}`, which removes older backups", o.name));
    }
    const WHERE: &[&str] = &[
        "path",
        "pool",
        "server",
        "export",
        "datastore",
        "vgname",
        "thinpool",
        "fingerprint",
        "encryption-key",
        "master-pubkey",
        "monhost",
        "share",
        "portal",
        "target",
        "nodes",
        "subdir",
        "namespace",
        "base",
        "krbd",
        "keyring",
        "fs-name",
        "mountpoint",
        "blocksize",
        "sparse",
        "content-dirs",
    ];
    opts.iter()
        .find(|o| WHERE.contains(&o.name.as_str()))
        .map(|o| format!("changes the storage's `{}`, which cuts its guests off their disks or backups", o.name))
}

/// A QEMU monitor (HMP) command that stops, resets or takes apart a running VM.
pub(crate) fn hmp_destroys(line: &str) -> Option<String> {
    let cmd = line.split_whitespace().next().unwrap_or("").to_ascii_lowercase();
    let harmless = cmd.is_empty() || cmd.starts_with('#') || matches!(cmd.as_str(), "info" | "help" | "?" | "i");
    (!harmless
        && (matches!(cmd.as_str(), "q" | "quit" | "stop" | "system_reset" | "system_powerdown")
            || cmd.ends_with("_del")
            || cmd.starts_with("drive_")
            || cmd.starts_with("block")
            || cmd.starts_with("migrate")
            || cmd.contains("del")
            || cmd.contains("eject")
            || cmd.contains("commit")
            || cmd.contains("snapshot")
            || cmd.contains("savevm")
            || cmd.contains("loadvm")
            || matches!(cmd.as_str(), "nmi" | "sendkey" | "balloon" | "memsave" | "pmemsave" | "dump-guest-memory")))
    .then(|| format!("the QEMU monitor's `{cmd}` stops, resets, dumps or takes apart the running VM"))
}

/// A key press that reboots or crashes the guest (`ctrl-alt-delete`, SysRq).
pub(crate) fn key_reboots(key: &str) -> bool {
    let k = key.to_ascii_lowercase();
    (k.contains("ctrl") && k.contains("alt") && k.contains("del")) || k.contains("sysrq")
}

/// An expiry date set (`--expire 1`): `0` means the account never expires.
fn expires(o: &Opt) -> bool {
    o.is("expire") && o.value.as_deref().is_none_or(|v| v.trim() != "0")
}

/// A replica count that leaves one copy or none (`--size 1`, `--min_size 1`).
fn one_copy(opts: &[Opt]) -> Option<&str> {
    ["size", "min_size", "min-size"]
        .into_iter()
        .find(|n| value(opts, &[n]).and_then(|v| v.trim().parse::<i64>().ok()).is_some_and(|v| v <= 1))
}

/// A target directory whose overwriting breaks the system that runs it.
fn system_target(path: &str) -> bool {
    path.starts_with('/') && host_system_dir(path)
}

/// What a Proxmox CLI's invocation destroys or takes down, judged by its words and options:
/// `path` is its leading subcommand words, `positional` all its operands.
pub(crate) fn judge(base: &str, path: &[&str], opts: &[Opt], positional: &[String]) -> Option<String> {
    let word = |i: usize| positional.get(i).map_or("", String::as_str);
    match (base, path) {
        ("qm" | "pct", ["set" | "create" | "clone", ..]) => guest_config(opts),
        ("qm" | "pct", ["template", ..]) => Some("turns the guest into a template, which cannot be turned back".into()),
        ("qm" | "pct", ["unlock", ..]) => {
            Some("lifts the lock of a backup, migration or snapshot in progress, risking its data".into())
        }
        ("qm" | "pct", ["stop" | "reset" | "shutdown" | "suspend", ..])
            if opts.iter().any(|o| o.is("skiplock") && on(o)) =>
        {
            Some("stops the guest ignoring the lock of a backup or migration in progress".into())
        }
        ("qm", ["sendkey", ..]) if positional.iter().skip(2).any(|k| key_reboots(k)) => {
            Some("sends the guest the key press that reboots or crashes it".into())
        }
        ("qmrestore", _) | ("pct", ["restore", ..])
            if opts.iter().any(|o| (o.is("force") || o.name == "f") && on(o)) =>
        {
            Some("restores over an existing guest, replacing its disks".into())
        }
        ("ha-manager", ["set" | "add", ..])
            if value(opts, &["state", "st", "sta", "stat"])
                .is_some_and(|v| matches!(v.to_ascii_lowercase().as_str(), "stopped" | "disabled" | "ignored")) =>
        {
            Some("stops an HA-managed guest, or leaves it unguarded".into())
        }
        ("ha-manager", ["crm-command", "stop" | "relocate", ..]) => Some("stops an HA-managed guest".into()),
        ("ha-manager", ["crm-command", "node-maintenance", "enable", ..]) => {
            Some("puts a node in maintenance, moving or stopping every guest on it".into())
        }
        ("pvecm", ["add" | "create", ..]) => {
            Some("makes or joins a cluster, rewriting the node's cluster configuration for good".into())
        }
        ("pvecm", ["updatecerts", ..]) if opts.iter().any(|o| (o.is("force") || o.name == "f") && on(o)) => {
            Some("replaces the node's certificates, which clients and other nodes trust".into())
        }
        ("pveceph", ["stop" | "restart", ..]) | ("pveceph", [_, "stop" | "restart", ..]) => {
            Some("stops Ceph services, which hold the guests' disks".into())
        }
        ("pveceph", ["pool" | "init" | "createpool", ..]) => {
            one_copy(opts).map(|n| format!("sets `{n}` to one copy or none: one failed disk loses the data"))
        }
        ("pvesm", ["set" | "add", ..]) => storage_change(opts),
        // A user switched off or expired, or given no access, is locked out.
        ("pveum" | "proxmox-backup-manager", ["user", "modify" | "mod" | "update" | "set", ..] | ["usermod", ..])
            if opts.iter().any(|o| (o.is("enable") && o.is_off() && o.value.is_some()) || expires(o)) =>
        {
            let user = if path.first() == Some(&"usermod") { word(1) } else { word(2) };
            Some(format!("disables or expires the account `{user}`, locking it out"))
        }
        ("pveum" | "proxmox-backup-manager", ["acl", "modify" | "mod" | "update" | "set", ..] | ["aclmod", ..])
            if positional.iter().any(|w| w.eq_ignore_ascii_case("NoAccess"))
                || value(opts, &["roles", "role"]).is_some_and(|r| r.eq_ignore_ascii_case("NoAccess")) =>
        {
            Some("gives an account no access, locking it out".into())
        }
        ("pveum", ["role", "modify" | "mod" | "set", ..] | ["rolemod", ..])
            if opts.iter().any(|o| o.is("privs")) && !opts.iter().any(|o| o.is("append") && on(o)) =>
        {
            Some(format!("replaces the privileges of the role `{}`, taking away what it granted", word(2)))
        }
        ("proxmox-backup-manager", ["datastore", "update" | "create", ..]) => {
            if let Some(o) = opts.iter().find(|o| o.is("maintenance-mode")) {
                let v = o.value.as_deref().unwrap_or("");
                return (!v.eq_ignore_ascii_case("none") && !v.is_empty())
                    .then(|| "puts the datastore offline or marks it for deletion".into());
            }
            if let Some(o) = opts.iter().find(|o| o.name.starts_with("keep-") || o.is("prune-schedule")) {
                return Some(format!("sets `{}`, which removes older backups", o.name));
            }
            opt(opts, "path").map(|_| "points the datastore at another directory, leaving its backups".into())
        }
        ("proxmox-backup-manager", ["network" | "dns", ..])
            if !matches!(word(1), "list" | "get" | "changes" | "show") =>
        {
            Some("changes the backup server's network or name resolution, which can cut it off".into())
        }
        ("proxmox-backup-manager", ["cert", "update", ..])
        | ("proxmox-backup-manager", ["acme", "cert", "revoke", ..]) => {
            Some("replaces or revokes the server's certificate, which clients trust by fingerprint".into())
        }
        ("proxmox-backup-client" | "proxmox-tape", ["restore", ..]) => {
            if let Some(o) = opts.iter().find(|o| o.name.starts_with("overwrite") && on(o)) {
                return Some(format!("restores with `--{}`, replacing existing files", o.name));
            }
            positional
                .iter()
                .skip(3)
                .find(|t| system_target(t))
                .map(|t| format!("restores a backup over `{t}`, which the system runs from"))
        }
        ("proxmox-backup-client", ["garbage-collect" | "garbage-collection", ..]) => {
            Some("removes the chunks no backup refers to".into())
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::meaning::getopt;
    use crate::shell::Arg;

    fn opts(s: &str) -> Vec<Opt> {
        getopt(&s.split_whitespace().map(|w| Arg::Static(w.into())).collect::<Vec<_>>()).0
    }

    #[test]
    fn guest_configs() {
        assert!(guest_config(&opts("set 100 -delete virtio0")).is_some());
        assert!(guest_config(&opts("set 100 --scsi0 none")).is_some());
        assert!(guest_config(&opts("set 100 --ide2 none")).is_none());
        assert!(guest_config(&opts("set 100 --sata1 /dev/disk/by-id/x")).is_some());
        assert!(guest_config(&opts("set 200 --mp0 /etc,mp=/mnt/x")).is_some());
        assert!(guest_config(&opts("set 100 --delete scsi1")).is_none());
        assert!(guest_config(&opts("set 200 --mp0 /srv/data,mp=/data")).is_none());
        assert!(guest_config(&opts("set 100 --memory 4096 --delete description")).is_none());
        assert!(guest_config(&opts("set 100 --protection=0")).is_some());
    }

    #[test]
    fn monitor_commands() {
        assert!(hmp_destroys("info status").is_none() && hmp_destroys("q").is_some());
        assert!(hmp_destroys("drive_del drive-scsi0").is_some() && hmp_destroys("system_reset").is_some());
    }
}
