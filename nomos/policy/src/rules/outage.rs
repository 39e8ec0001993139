//! Outages, lockouts and data loss judged by their effect, whatever tool or spelling reaches them:
//! mounts over system paths and unmounting them, a root filesystem frozen, accounts and PAM locked,
//! lifeline binaries made unusable, every guest killed through systemd, kernel settings that cut
//! the network, a zvol resized or a pool's disks overwritten, a thin pool's metadata replaced,
//! service users removed with their data, database flushes in scripts, archives written onto a
//! device, holes punched into guest disks.

use nomos_types::Risk::Destructive as DE;

use crate::paths::{is_block_device, normalise};
use crate::shell::{Analysis, Arg};

/// Directories whose covering or removal takes the system, logins or the cluster down.
#[rustfmt::skip]
const SYSTEM_PATHS: &[&str] = &[
    "/", "/etc", "/usr", "/root", "/boot", "/bin", "/sbin", "/lib", "/lib64", "/var", "/var/lib", "/home", "/run",
    "/dev", "/proc", "/sys", "/srv",
];

/// Places whose unmounting takes guests' storage or the cluster's state away.
const STORAGE_PREFIXES: &[&str] = &["/etc/pve", "/mnt/pve", "/var/lib/vz", "/var/lib/ceph", "/var/lib/pve-cluster"];

/// Programs whose replacement or loss of permissions locks the operator out or stops the system.
#[rustfmt::skip]
const LIFELINE_BINARIES: &[&str] = &[
    "/usr/sbin/sshd", "/sbin/sshd", "/bin/bash", "/usr/bin/bash", "/bin/sh", "/usr/bin/sh", "/bin/dash",
    "/usr/bin/dash", "/sbin/init", "/lib/systemd/systemd", "/usr/lib/systemd/systemd", "/usr/bin/sudo",
    "/bin/login", "/usr/bin/login", "/usr/bin/env", "/lib/x86_64-linux-gnu/libc.so.6",
    "/usr/lib/x86_64-linux-gnu/libc.so.6", "/etc/ld.so.cache", "/usr/bin/pvedaemon", "/usr/bin/pveproxy",
];

/// Accounts whose home directory is a service's data (`userdel -r postgres` removes the database).
#[rustfmt::skip]
const SERVICE_USERS: &[&str] = &[
    "root", "postgres", "mysql", "www-data", "backup", "redis", "www", "nginx", "caddy", "git", "gitea", "nextcloud",
    "influxdb", "grafana", "prometheus", "ceph", "_apt", "daemon", "bin", "sys", "list", "irc", "proxy", "mail",
];

fn is_system_path(path: &str) -> bool {
    let p = normalise(path);
    let p = p.trim_end_matches('/');
    let p = if p.is_empty() { "/" } else { p };
    SYSTEM_PATHS.contains(&p)
        || SYSTEM_PATHS.iter().filter(|d| **d != "/").any(|d| {
            p.strip_prefix(d).is_some_and(|rest| rest.starts_with('/'))
                && (p.starts_with("/etc") || p.starts_with("/usr") || p.starts_with("/boot") || p.starts_with("/root"))
        })
}

fn is_storage_path(path: &str) -> bool {
    let p = normalise(path);
    STORAGE_PREFIXES.iter().any(|s| p == *s || p.starts_with(&format!("{s}/")))
}

/// The static words, and the operands among them (words that are not options).
fn words(args: &[Arg]) -> (Vec<&str>, Vec<&str>) {
    let all: Vec<&str> = args.iter().filter_map(Arg::as_static).collect();
    let mut operands = Vec::new();
    let mut skip = false;
    for w in &all {
        if skip {
            skip = false;
            continue;
        }
        if w.starts_with('-') {
            // Options that take the next word.
            skip = matches!(
                *w,
                "-t" | "-o"
                    | "-O"
                    | "-L"
                    | "-U"
                    | "-T"
                    | "--types"
                    | "--options"
                    | "-l"
                    | "-s"
                    | "-c"
                    | "-d"
                    | "-E"
                    | "-i"
            );
            continue;
        }
        operands.push(*w);
    }
    (all, operands)
}

/// Raises destructive for what `base` does by its effect (see the module's description).
pub(crate) fn judge(an: &mut Analysis<'_>, base: &str, args: &[Arg]) {
    let (all, operands) = words(args);
    let has = |w: &str| all.contains(&w);
    let has_short = |c: char| all.iter().any(|x| x.starts_with('-') && !x.starts_with("--") && x.contains(c));
    let why: Option<String> = match base {
        "mount" => {
            let target = operands.last().copied().or_else(|| {
                all.iter()
                    .find_map(|w| w.strip_prefix("--target="))
                    .or_else(|| all.iter().position(|w| *w == "--target").and_then(|i| all.get(i + 1).copied()))
            });
            let options: Vec<&str> = all
                .windows(2)
                .filter_map(|w| match w {
                    ["-o" | "--options", value] => Some(*value),
                    _ => None,
                })
                .chain(all.iter().filter_map(|w| w.strip_prefix("-o").filter(|r| !r.is_empty())))
                .collect();
            let read_only_root = options.iter().any(|o| o.contains("remount") && o.split(',').any(|x| x == "ro"))
                && target.is_some_and(is_system_path);
            let covers = operands.len() >= 2 || has("--bind") || has("--rbind") || has("--move") || has_short('B');
            if read_only_root {
                Some("remounts a system filesystem read-only, which stops services and logins".into())
            } else if covers && target.is_some_and(is_system_path) {
                Some(format!("mounts over {}, hiding what the system runs from", target.unwrap_or("/")))
            } else if has("--move") || has_short('M') {
                Some("moves a mount, which can pull a filesystem from under what uses it".into())
            } else {
                None
            }
        }
        "umount" => {
            let all_of_them = has("-a")
                || has("--all")
                || all.iter().any(|w| w.starts_with('-') && !w.starts_with("--") && w.contains('a'));
            let target = operands.iter().find(|t| is_system_path(t) || is_storage_path(t));
            if all_of_them {
                Some("unmounts every filesystem".into())
            } else {
                target.map(|t| format!("unmounts {t}, which the system, the cluster or guests use"))
            }
        }
        "fsfreeze" | "xfs_freeze" => (has("-f") || has("--freeze"))
            .then(|| "freezes a filesystem: everything writing to it hangs, this session too".into()),
        "chage" => (all.contains(&"root") && all.windows(2).any(|w| matches!(w, ["-d" | "--lastday", "0"])))
            .then(|| "forces root to change its password at the next login, which non-interactive logins fail".into()),
        "pam-auth-update" => (has("--remove") || has("--disable"))
            .then(|| "removes an authentication module from PAM, which logins depend on".into()),
        "chmod" | "chown" | "chattr" | "ln" | "mv" | "cp" | "install" | "truncate" | "setfacl" => operands
            .iter()
            .find(|p| LIFELINE_BINARIES.contains(&normalise(p).as_str()))
            .map(|p| format!("changes {p}, which logins or the system cannot do without")),
        "touch" | "mkdir" | "mknod" => operands
            .iter()
            .find(|p| matches!(normalise(p).as_str(), "/etc/nologin" | "/run/nologin" | "/var/run/nologin"))
            .map(|p| format!("creates {p}, which refuses every login but root's")),
        "systemctl" => {
            let verb = operands.first().copied().unwrap_or("");
            let guests = operands.iter().skip(1).any(|u| {
                matches!(*u, "qemu.slice" | "lxc.slice" | "pve-container.slice")
                    || u.strip_suffix(".scope").is_some_and(|n| n.chars().all(|c| c.is_ascii_digit()) && !n.is_empty())
                    || u.starts_with("pve-container@")
            });
            (matches!(verb, "stop" | "kill" | "restart" | "freeze" | "mask") && guests)
                .then(|| "stops or kills guests through systemd, pulling their plug".into())
        }
        "sysctl" => all
            .iter()
            .map(|w| w.to_ascii_lowercase())
            .find(|w| {
                let (k, v) = w.split_once('=').unwrap_or((w, ""));
                (k.ends_with(".disable_ipv6") && v.trim() == "1" && (k.contains(".all.") || k.contains(".default.")))
                    || (k.ends_with(".arp_ignore") && v.trim() == "8")
                    || (k == "net.ipv4.conf.all.forwarding" || k == "net.ipv4.ip_forward") && v.trim() == "0"
            })
            .map(|w| format!("sets `{w}`, which cuts the machine or its guests off the network")),
        "zfs" => {
            let set = operands.first() == Some(&"set");
            let volsize = all.iter().any(|w| w.starts_with("volsize="));
            let root = operands.iter().any(|d| d.contains("/ROOT"));
            let freezes = all.iter().any(|w| {
                matches!(*w, "readonly=on" | "canmount=off" | "mountpoint=none" | "mountpoint=legacy")
                    || w.starts_with("mountpoint=")
            });
            if set && volsize {
                Some("resizes a zvol; shrinking one loses the data past the new end".into())
            } else if set && root && freezes {
                Some("makes the root dataset unmountable or read-only".into())
            } else {
                None
            }
        }
        "zpool" => matches!(
            operands.first(),
            Some(&("replace" | "attach" | "add" | "labelclear" | "split" | "offline" | "detach" | "reguid"))
        )
        .then(|| format!("`zpool {}` overwrites or takes away a pool's disk", operands.first().unwrap_or(&""))),
        "lvconvert" => (all.iter().any(|w| {
            matches!(*w, "--poolmetadata" | "--repair" | "--uncache" | "--splitmirrors" | "--mergesnapshot" | "--merge")
        }) || all.iter().any(|w| w.starts_with("--poolmetadata=") || w.starts_with("--splitmirrors=")))
        .then(|| "replaces or rewrites a pool's metadata or merges away a volume".into()),
        "thin_restore" | "thin_repair" | "cache_restore" | "era_restore" => {
            Some("writes thin-pool metadata over a device".into())
        }
        "userdel" | "deluser" => {
            let removes_home = has("--remove") || has("--remove-home") || has("--remove-all-files") || has_short('r');
            let service = operands.iter().any(|u| SERVICE_USERS.contains(u));
            (removes_home || service).then(|| "removes an account with its home, a service's data with it".into())
        }
        "redis-cli" | "valkey-cli" | "keydb-cli" => {
            let scripts =
                all.iter().any(|w| matches!(w.to_ascii_lowercase().as_str(), "eval" | "evalsha" | "fcall" | "eval_ro"));
            let flushes = all.iter().any(|w| {
                let w = w.to_ascii_lowercase();
                w.contains("flushall") || w.contains("flushdb") || w.contains("swapdb")
            });
            (scripts && flushes).then(|| "runs a script that empties a database".into())
        }
        "influx" => all
            .iter()
            .any(|w| {
                let w = w.to_ascii_lowercase();
                w.contains("drop ") || w.starts_with("delete ") || w.contains(" delete ")
            })
            .then(|| "drops or deletes data".into()),
        "tar" | "bsdtar" | "cpio" | "zstd" | "gzip" | "xz" | "pigz" | "7z" => all
            .windows(2)
            .find_map(|w| match w {
                ["-f" | "--file" | "-o" | "--output" | "-F", device] if is_block_device(device) => {
                    Some(format!("writes an archive onto the device {device}"))
                }
                _ => None,
            })
            .or_else(|| {
                all.iter()
                    .find_map(|w| w.strip_prefix("--file=").filter(|d| is_block_device(d)))
                    .map(|d| format!("writes an archive onto the device {d}"))
            }),
        "fallocate" => (has("-p")
            || has("--punch-hole")
            || has("-c")
            || has("--collapse-range")
            || has("-z")
            || has("--zero-range")
            || all.iter().any(|w| w.starts_with('-') && !w.starts_with("--") && w.contains(['p', 'c', 'z'])))
        .then(|| "punches, collapses or zeroes a range of a file, losing what it held".into()),
        // Unloading a storage or network driver takes the disks or links it drives away.
        "modprobe" | "rmmod" => {
            let dry_run = has("-n") || has("--dry-run") || has("--show") || has_short('n');
            let removes = !dry_run
                && (base == "rmmod"
                    || has("--remove")
                    || all.iter().any(|w| w.starts_with('-') && !w.starts_with("--") && w.contains('r')));
            operands
                .iter()
                .find(|m| removes && is_vital_driver(m))
                .map(|m| format!("unloads `{m}`, a storage or network driver, taking its disks or links away"))
        }
        _ => None,
    };
    if let Some(why) = why {
        an.raise(DE, format!("`{base}` {why}"));
    }
}

/// Kernel modules that drive disks, filesystems, volumes or network links (by name or family).
#[rustfmt::skip]
const VITAL_DRIVERS: &[&str] = &[
    "zfs", "spl", "nvme", "nvme_core", "ahci", "libahci", "libata", "sd_mod", "scsi_mod", "megaraid_sas", "mpt3sas",
    "mpt2sas", "hpsa", "smartpqi", "aacraid", "virtio_blk", "virtio_scsi", "virtio_net", "virtio_pci", "dm_mod",
    "dm_thin_pool", "dm_crypt", "dm_multipath", "md_mod", "btrfs", "ext4", "xfs", "rbd", "ceph", "nfs", "nfsd",
    "iscsi_tcp", "libiscsi", "e1000", "e1000e", "igb", "igc", "ixgbe", "i40e", "ice", "bnx2", "bnx2x", "bnxt_en", "tg3",
    "r8169", "r8125", "mlx4_core", "mlx4_en", "mlx5_core", "vmxnet3", "bonding", "bridge", "8021q", "vxlan",
    "openvswitch", "tun", "vhost_net", "kvm", "kvm_intel", "kvm_amd", "qede", "qla2xxx", "lpfc", "be2net", "sfc",
    "cxgb4", "atlantic", "tulip", "8139too", "usb_storage", "uas", "xhci_hcd", "xhci_pci", "raid0", "raid1", "raid10",
    "raid456", "linear", "overlay", "fuse", "wireguard",
];

/// Whether a module name (`-` and `_` alike, a `.ko` path too) is a storage or network driver.
fn is_vital_driver(module: &str) -> bool {
    let name = module.rsplit('/').next().unwrap_or(module);
    let name = name.split(".ko").next().unwrap_or(name).replace('-', "_");
    VITAL_DRIVERS.contains(&name.as_str())
        || ["mlx", "bnx", "ixgb", "i40", "nvme", "megaraid", "mpt", "dm_", "raid", "virtio", "igb", "e1000", "qla"]
            .iter()
            .any(|p| name.starts_with(p))
}
