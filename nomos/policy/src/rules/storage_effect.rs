//! Storage outages and losses judged by what a command does, whatever subcommand spells it: a Ceph
//! cluster stopped, drained, left without copies or cut off from its clients; a pool, a volume
//! or a swap area taken away; a mount hidden or pulled from under the system; the boot order
//! changed; an array stopped; a filesystem repaired by answering yes to everything.

use nomos_types::Risk::{ConfigMutation as CM, Destructive as DE};

use super::Args;
use crate::paths::{is_block_device, normalise};
use crate::shell::{Analysis, Arg, Stdin};

/// Ceph's global options that take the next word as their value.
#[rustfmt::skip]
const CEPH_VALUED: &[&str] = &[
    "-c", "--conf", "-k", "--keyring", "-n", "--name", "--id", "--user", "-m", "-f", "--format", "--cluster", "-i",
    "--in-file", "-o", "--out-file", "--pool", "-W", "--watch-channel", "--connect-timeout", "-p", "--period",
    "--admin-daemon", "--setuser", "--setgroup", "--log-file", "--log_file", "--daemon-type", "--service-name",
    "--service_name", "--daemon-id", "--hostname", "--image", "--placement", "--keyfile", "-r", "--rgw-zone",
];

/// A program judged to change something that writes its result onto a disk — the device follows
/// a source among its operands (`rbd export IMG /dev/sdb`, `ddrescue SRC DST MAP`) or is an output
/// option's value
/// (`--output-path /dev/sda`, `-o /dev/sdb`) — replaces what the disk held. Tools that attach,
/// mount, test or tune a device without writing its contents, and those judged by their own
/// rules, are left to those.
pub(crate) fn device_output(an: &mut Analysis<'_>, base: &str, args: &[Arg], mark: usize) {
    #[rustfmt::skip]
    const ATTACH_OR_OWN: &[&str] = &[
        "mount", "umount", "swapon", "swapoff", "smartctl", "hdparm", "sdparm", "blockdev", "eject", "cryptsetup",
        "mdadm", "zpool", "losetup", "partprobe", "kpartx", "udevadm", "qm", "pct", "pvesm", "iscsiadm",
        "multipath", "dmsetup", "fstrim", "zramctl", "nbd-client", "qemu-nbd", "qemu-img", "dd", "fsfreeze",
        "xfs_freeze", "tee", "cat", "pv", "sysctl", "ceph-volume", "sg_format", "wipefs", "nvme",
        // Checkers: their repairs and write tests are judged by their own options.
        "fsck", "e2fsck", "xfs_repair", "badblocks", "btrfsck", "dosfsck", "fsck.ext4", "fsck.ext3", "fsck.ext2",
        "fsck.xfs", "fsck.vfat", "fsck.fat", "debugfs",
    ];
    if an.max_since(mark) != Some(CM) || ATTACH_OR_OWN.contains(&base) {
        return;
    }
    let words: Vec<&str> = args.iter().filter_map(Arg::as_static).collect();
    // A Ceph block device mapped or unmapped is attached, not written.
    if base == "rbd" && words.iter().any(|w| matches!(*w, "map" | "unmap" | "device")) {
        return;
    }
    // A disk after a source (`SRC /dev/sdb`, `IMG /dev/sdc MAP`): a device named alone is the
    // object a tool tunes or inspects, left to its own rules.
    let operands: Vec<&str> = words.iter().filter(|w| !w.starts_with('-')).copied().collect();
    let source = |w: &str| {
        w.contains('/') || w.contains(':') || w.rsplit_once('.').is_some_and(|(a, b)| !a.is_empty() && !b.is_empty())
    };
    let first_source = operands.iter().position(|w| source(w));
    let last = first_source.and_then(|at| operands.iter().skip(at + 1).find(|w| is_block_device(w)).copied());
    let output_name = |name: &str| {
        let n = name.trim_start_matches('-').to_ascii_lowercase();
        n == "o" || ["out", "dest", "target", "of", "to", "write"].iter().any(|p| n.starts_with(p))
    };
    let mut outputs: Vec<&str> = last.into_iter().collect();
    for (i, w) in words.iter().enumerate() {
        match w.split_once('=') {
            Some((name, value)) if name.starts_with('-') && output_name(name) => outputs.push(value),
            // `dev=/dev/sdc`, `of=…`, `target=…` as some tools spell them.
            Some((name, value)) if output_name(name) || name == "dev" => outputs.push(value),
            _ if w.starts_with('-') && output_name(w) => outputs.extend(words.get(i + 1)),
            _ => {}
        }
    }
    if let Some(device) = outputs.into_iter().find(|d| is_block_device(d)) {
        an.raise(DE, format!("`{base}` writes its result onto the disk {device}, replacing what it held"));
    }
}

/// Raises destructive for what `base` does to storage (see the module's description).
pub(crate) fn judge(an: &mut Analysis<'_>, base: &str, args: &[Arg], stdin: &Stdin) {
    let a = Args::new(args);
    let all: Vec<&str> = args.iter().filter_map(Arg::as_static).collect();
    // Ceph asks for this exact phrase before the operations it calls dangerous.
    let ceph_family = base.starts_with("ceph") || matches!(base, "rbd" | "rados" | "radosgw-admin" | "cephadm");
    if ceph_family && all.iter().any(|w| w.starts_with("--yes-i-really")) {
        an.raise(DE, format!("`{base} --yes-i-really-mean-it` confirms an operation Ceph itself calls dangerous"));
    }
    // Another configuration names the files Ceph writes or replaces as root (its log, its admin
    // socket, which it unlinks first).
    if ceph_family {
        if let Some(conf) = a.values(&["-c", "--conf"]).iter().find(|c| !ceph_own_config(c.shown())) {
            an.raise(
                DE,
                format!(
                    "`{base} -c {}` loads another configuration, which names files Ceph writes as root",
                    conf.shown()
                ),
            );
        }
    }
    if let Some(why) = extracts_over_system(base, &a, &all) {
        an.raise(DE, format!("`{base}` {why}"));
    }
    let why: Option<String> = match base {
        "ceph" => return ceph(an, &a, stdin),
        "rbd" => rbd(&a),
        "rados" => {
            let ops: Vec<&str> = a.operands(CEPH_VALUED).iter().map(|o| o.shown()).collect();
            ops.first()
                .filter(|w| matches!(**w, "write" | "setxattr" | "setomapval" | "tmap-to-omap"))
                .map(|w| format!("`rados {w}` writes objects in place, under the disks and files stored in them"))
        }
        "cephadm" => {
            let ops: Vec<&Arg> = a.operands(CEPH_VALUED);
            if ops.first().is_some_and(|o| o.shown() == "shell") {
                // `cephadm shell -- CMD` runs CMD in the cluster's container, with its keys.
                let inner: Vec<Arg> = match args.iter().position(|x| x.as_static() == Some("--")) {
                    Some(i) => args.get(i + 1..).unwrap_or(&[]).to_vec(),
                    None => ops.iter().skip(1).map(|o| (*o).clone()).collect(),
                };
                if !inner.is_empty() {
                    an.run(&inner, &Stdin::default());
                }
            }
            None
        }
        "ceph-volume" => {
            let ops: Vec<&str> = a.operands(&["--log-path", "--cluster"]).iter().map(|o| o.shown()).collect();
            ops.iter()
                .take(2)
                .find(|w| matches!(**w, "prepare" | "create" | "batch" | "migrate" | "new-db" | "new-wal"))
                .map(|w| format!("`ceph-volume {w}` formats disks as OSDs, erasing what they held"))
        }
        "ceph-objectstore-tool" => {
            let ops: Vec<&str> = a
                .operands(&[
                    "--data-path",
                    "--journal-path",
                    "--pgid",
                    "--type",
                    "--file",
                    "--format",
                    "--pool",
                    "--op",
                    "--rmtype",
                    "--namespace",
                    "--epoch",
                    "--osd",
                ])
                .iter()
                .map(|o| o.shown())
                .collect();
            let changes = ops.iter().skip(1).any(|w| {
                w.starts_with("set-") || w.starts_with("rm-") || w.starts_with("clear-") || w.starts_with("remove")
            });
            (changes || a.long("--fix")).then(|| "changes or removes objects in a stopped OSD's store".into())
        }
        "ceph-bluestore-tool" => (a.long("--repair") || a.long("--fix"))
            .then(|| "repairs an OSD's store, which rewrites it and can drop what it cannot fix".into()),
        "ceph-mon" | "ceph-osd" | "ceph-mds" => {
            (a.long("--mkfs") || a.long("--mkjournal") || a.options().any(|o| o.starts_with("--inject")))
                .then(|| "creates or overwrites the daemon's store or the monitor map in it".into())
        }
        "ceph-disk" => a
            .operands(&[])
            .first()
            .filter(|o| matches!(o.shown(), "zap" | "prepare" | "destroy"))
            .map(|o| format!("`{}` wipes or formats a disk", o.shown())),
        // Volumes are found by their names: the root filesystem at boot, guests by their
        // configuration.
        "lvrename" | "vgrename" => Some("renames volumes that the boot, the fstab or guests find by name".into()),
        "vgexport" => Some("exports a volume group: none of its volumes can be used".into()),
        "bootctl" => a
            .operands(&["--esp-path", "--boot-path", "--root", "--image"])
            .first()
            .map(|o| o.shown())
            .filter(|s| matches!(*s, "remove" | "unlink"))
            .map(|s| format!("`bootctl {s}` removes the boot loader or one of its entries")),
        "vgsplit" | "vgmerge" => {
            Some("moves volumes to another volume group, away from where they are looked up".into())
        }
        "pvresize" => a
            .options()
            .any(|o| o.starts_with("--setphysicalvolumesize"))
            .then(|| "sets a physical volume's size, cutting off what lies past it".into()),
        "thin_check" | "cache_check" => a
            .options()
            .any(|o| o.starts_with("--clear-needs-check"))
            .then(|| "clears the flag that keeps a damaged pool from being used".into()),
        "blockdev" => {
            a.options().any(|o| o == "--setro").then(|| "makes a disk read-only under what writes to it".into())
        }
        "hdparm" => a
            .options()
            .any(|o| !o.starts_with("--") && o.contains('Y'))
            .then(|| "puts a drive to sleep; it stays away until the controller is reset".into()),
        "mt" | "mt-st" => a
            .operands(&["-f", "-t"])
            .iter()
            .map(|o| o.shown())
            .find(|w| matches!(*w, "weof" | "eof" | "wset" | "erase"))
            .map(|w| format!("`mt {w}` writes a mark or erases the tape, losing what follows")),
        "zfs" => zfs(&a),
        "zpool" => zpool(&a),
        "lvchange" | "vgchange" => lvm_change(base, &all),
        "lvcreate" => ((a.short('s') || a.long("--snapshot"))
            && (a.short('L') || a.long("--size") || a.options().any(|o| o.starts_with("--size="))))
        .then(|| "makes a fixed-size snapshot: every write to the origin is copied, and a full one is dropped".into()),
        "pvmove" => (!a.long("--abort"))
            .then(|| "moves a volume's data between disks; a failure midway leaves it split across them".into()),
        "resize2fs" => (a.operands(&["-d", "-S", "-z"]).len() >= 2 || a.short('M'))
            .then(|| "resizes a filesystem to a given size; shrinking it cuts what lies past the new end".into()),
        b if matches!(b, "e2fsck" | "fsck") || b.starts_with("fsck.") => {
            answers_yes(&all).then(|| "answers yes to every repair, which deletes what it cannot fix".into())
        }
        "grub-install" | "grub2-install" => a
            .operands(&["--boot-directory", "--efi-directory", "--target", "-d", "--directory", "--modules"])
            .iter()
            .find(|o| is_block_device(o.shown()))
            .map(|d| format!("writes boot code onto {}, over what starts that disk", d.shown())),
        "mount" => mount(&a, &all),
        "umount" => umount(&a),
        "swapoff" => {
            Some("takes swap away; under memory pressure the kernel then kills processes, guests first".into())
        }
        "efibootmgr" => efibootmgr(&all),
        "mdadm" => {
            let stops = all.iter().any(|w| {
                matches!(
                    *w,
                    "--stop" | "--fail" | "--set-faulty" | "--remove" | "--grow" | "--readonly" | "--kill-subarray"
                ) || (w.starts_with('-') && !w.starts_with("--") && w.contains(['S', 'G']))
            });
            stops.then(|| "stops an array or fails, removes or reshapes its disks".into())
        }
        "cryptsetup" => a
            .operands(&["-d", "--key-file", "--type", "-c", "--cipher", "-s", "--key-size", "-S", "--key-slot"])
            .first()
            .map(|o| o.shown())
            .filter(|s| {
                matches!(
                    s.to_ascii_lowercase().as_str(),
                    "close" | "luksclose" | "remove" | "lukssuspend" | "suspend" | "lukschangekey"
                )
            })
            .map(|s| format!("`cryptsetup {s}` takes an open encrypted volume away, or its key")),
        "dmsetup" => all
            .contains(&"message")
            .then(|| "sends a thin pool a message, which creates or deletes thin volumes in it".into()),
        "btrfs" => {
            let balance = all.first() == Some(&"balance") || all.iter().take(2).any(|w| *w == "balance");
            let weakens = all
                .iter()
                .any(|w| w.contains("convert=single") || w.contains("convert=raid0") || w.contains("convert=dup"))
                || a.short('f');
            (balance && weakens).then(|| "`btrfs balance` converts away the filesystem's redundancy".into())
        }
        "tar" | "bsdtar" | "star" => {
            // The archive file given in a cluster (`-cf /dev/sdb`, `cf /dev/sdb`).
            all.windows(2).enumerate().find_map(|(i, w)| match w {
                [opt, device]
                    if is_block_device(device)
                        && ((opt.starts_with('-') && !opt.starts_with("--") && opt.ends_with('f'))
                            || (i == 0
                                && !opt.starts_with('-')
                                && opt.ends_with('f')
                                && opt.chars().all(|c| c.is_ascii_alphabetic()))) =>
                {
                    Some(format!("writes an archive onto the device {device}"))
                }
                _ => None,
            })
        }
        "proxmox-boot-tool" => {
            let ops: Vec<&str> = a.operands(&[]).iter().map(|o| o.shown()).collect();
            match ops.as_slice() {
                ["clean", ..] => {
                    Some("`proxmox-boot-tool clean` drops boot partitions from the list kept in sync".into())
                }
                ["kernel", "pin" | "remove", ..] => {
                    Some("`proxmox-boot-tool kernel pin/remove` changes which kernel the host boots".into())
                }
                ["reinit", ..] => Some("`proxmox-boot-tool reinit` rewrites every boot partition".into()),
                _ => None,
            }
        }
        _ => None,
    };
    if let Some(why) = why {
        an.raise(DE, format!("`{base}` {why}"));
    }
}

/// The cluster's own configuration files.
pub(crate) fn ceph_own_config(path: &str) -> bool {
    let p = normalise(path);
    (p.starts_with("/etc/ceph/") || p == "/etc/pve/ceph.conf") && !p.contains("..")
}

/// Whether a filesystem checker's last answer option is `-y` (`-n`, `-p` and `-a` after it win).
fn answers_yes(all: &[&str]) -> bool {
    let mut yes = false;
    for w in all.iter().filter(|w| w.starts_with('-') && !w.starts_with("--")) {
        for c in w.chars().skip(1) {
            match c {
                'y' => yes = true,
                'n' | 'p' | 'a' => yes = false,
                _ => {}
            }
        }
    }
    yes
}

/// Places made for mounting removable or temporary filesystems: covering or unmounting them takes
/// nothing from the system.
fn ordinary_mount_point(path: &str) -> bool {
    let p = normalise(path);
    let p = p.trim_end_matches('/');
    ["/mnt", "/media", "/tmp", "/var/tmp", "/run/media"]
        .iter()
        .any(|d| p == *d || p.strip_prefix(d).is_some_and(|rest| rest.starts_with('/')))
        && !p.starts_with("/mnt/pve")
}

fn mount(a: &Args<'_>, all: &[&str]) -> Option<String> {
    let ops: Vec<&str> = a
        .operands(&["-t", "--types", "-o", "--options", "-O", "-L", "-U", "-T", "--target", "--source", "-N"])
        .iter()
        .map(|o| o.shown())
        .collect();
    let target = a.value(&["--target"]).map(|t| t.shown().to_string()).or_else(|| ops.last().map(|s| s.to_string()))?;
    if !target.starts_with('/') || ordinary_mount_point(&target) {
        return None;
    }
    let options: Vec<String> = a.values(&["-o", "--options"]).iter().map(|o| o.shown().to_string()).collect();
    let remount = options.iter().any(|o| o.split(',').any(|x| x == "remount")) || all.contains(&"--remount");
    let covers = ops.len() >= 2
        || a.long("--bind")
        || a.long("--rbind")
        || a.short('B')
        || a.short('R')
        || options.iter().any(|o| o.split(',').any(|x| x == "bind" || x == "rbind"));
    if remount {
        Some(format!("changes how {target} is mounted, which the system or its guests rely on"))
    } else if covers {
        Some(format!("mounts over {target}, hiding what the system or its guests keep there"))
    } else {
        None
    }
}

fn umount(a: &Args<'_>) -> Option<String> {
    let ops = a.operands(&["-t", "--types", "-O", "--test-opts", "-N", "--namespace"]);
    let target = ops.iter().map(|o| o.shown()).find(|t| t.starts_with('/') && !ordinary_mount_point(t));
    let lazy_or_forced = a.short('l') || a.short('f') || a.long("--lazy") || a.long("--force");
    match target {
        Some(t) => Some(format!("unmounts {t}, which the system, its sessions or guests use")),
        None if lazy_or_forced && ops.iter().any(|o| !ordinary_mount_point(o.shown())) => {
            Some("detaches a filesystem still in use".into())
        }
        None => None,
    }
}

/// `efibootmgr`: deleting entries or the boot order, reordering, deactivating or adding an entry
/// (a new one goes first) changes what the next boot starts.
fn efibootmgr(all: &[&str]) -> Option<String> {
    let changes = all.iter().any(|w| {
        matches!(
            *w,
            "--delete-bootnum"
                | "--delete-bootorder"
                | "--bootorder"
                | "--inactive"
                | "--create"
                | "--create-only"
                | "--delete"
        ) || w.starts_with("--bootorder=")
            || (w.starts_with('-') && !w.starts_with("--") && w.contains(['B', 'O', 'o', 'A', 'c', 'C']))
    });
    changes.then(|| "changes the boot entries or their order, so the next boot may not find the system".into())
}

fn lvm_change(base: &str, all: &[&str]) -> Option<String> {
    // `-an`, `-a n`, `--activate n`, `-aln`: deactivation; `-p r`: read-only.
    let mut prev = "";
    for &w in all {
        let value_after = |name: &str, short: &str| -> Option<String> {
            if prev == name || prev == short {
                return Some(w.to_string());
            }
            w.strip_prefix(&format!("{name}="))
                .map(str::to_string)
                .or_else(|| w.strip_prefix(short).filter(|r| !r.is_empty() && !w.starts_with("--")).map(str::to_string))
        };
        if let Some(v) = value_after("--activate", "-a") {
            if matches!(v.as_str(), "n" | "ln" | "en" | "sn") {
                return Some(format!(
                    "deactivates volumes: everything on them (guests, the root filesystem) stops (`{base}`)"
                ));
            }
        }
        if let Some(v) = value_after("--permission", "-p") {
            if v == "r" {
                return Some("makes a volume read-only under what writes to it".into());
            }
        }
        prev = w;
    }
    None
}

/// `zfs` changes the code rule does not already judge destructive.
fn zfs(a: &Args<'_>) -> Option<String> {
    let ops: Vec<&str> = a.operands(&["-o", "-t", "-s", "-S"]).iter().map(|o| o.shown()).collect();
    match ops.as_slice() {
        ["unmount" | "umount", ..] if a.short('f') || a.short('a') || a.short('u') => {
            Some("unmounts datasets by force, from under what uses them".into())
        }
        // A channel program (Lua) runs with the power to destroy, roll back and rename; `-n`
        // runs it without syncing changes.
        ["program", ..] if !a.short('n') => {
            Some("runs a channel program, which can destroy, roll back or rename any dataset of the pool".into())
        }
        ["promote", ..] => Some(
            "moves a clone's origin and its snapshots, so destroying either later loses the other's history".into(),
        ),
        ["unload-key", ..] => Some("unloads an encryption key: the dataset's files become unreadable".into()),
        ["change-key", ..] => {
            Some("changes the key that unlocks the dataset; without the new one its data is lost".into())
        }
        // Guests and the boot find their datasets and volumes by name.
        ["rename", ..] => Some("renames a dataset that guests or the boot find by name".into()),
        ["set", props @ ..] => props.iter().copied().find_map(zfs_property),
        // Inheriting a property sets it to the parent's value: the same change as `zfs set`.
        ["inherit", prop, ..] => zfs_property(&format!("{prop}=inherited")),
        _ => None,
    }
}

/// A `zfs set` property that can stop writes, lose data on a crash, expose or hide it, or keep
/// it from mounting; user properties (`com.example:note`) and tuning ones are not.
fn zfs_property(assignment: &str) -> Option<String> {
    let (key, value) = assignment.split_once('=')?;
    let key = key.to_ascii_lowercase();
    let value = value.to_ascii_lowercase();
    const TUNING: &[&str] = &[
        "compression",
        "compress",
        "atime",
        "relatime",
        "recordsize",
        "snapdir",
        "aclinherit",
        "acltype",
        "aclmode",
        "xattr",
        "dnodesize",
        "logbias",
        "comment",
        "snapdev",
        "volmode",
        "special_small_blocks",
    ];
    if key.contains(':') || TUNING.contains(&key.as_str()) {
        return None;
    }
    let off_ok = matches!(key.as_str(), "sharenfs" | "sharesmb") && value == "off";
    let copies_up = key == "copies" && value != "1";
    (!off_ok && !copies_up).then(|| {
        format!("sets `{key}`, which can stop writes, lose data on a crash, expose it or keep it from mounting")
    })
}

/// `zpool` changes the code rule does not already judge destructive.
fn zpool(a: &Args<'_>) -> Option<String> {
    let ops: Vec<&str> = a.operands(&["-o", "-O", "-R", "-d", "-T", "-t"]).iter().map(|o| o.shown()).collect();
    match ops.as_slice() {
        ["export", ..] => Some("takes a pool offline: everything on it, guests too, stops".into()),
        // A pool another host still has imported is corrupted by a second import.
        ["import", _, ..] if a.short('f') => Some("forces the import of a pool another system may be using".into()),
        ["checkpoint", ..] if a.short('d') || a.long("--discard") => {
            Some("discards the pool's checkpoint, the one way back to it".into())
        }
        ["clear", ..] if a.short('F') || a.short('X') => {
            Some("rewinds the pool, discarding its last transactions".into())
        }
        ["initialize", ..] if !a.short('s') && !a.short('c') => {
            Some("writes over the free space of every disk of the pool".into())
        }
        ["trim", ..] if a.short('d') || a.long("--secure") => Some("securely erases the pool's free space".into()),
        ["resilver", ..] => {
            Some("restarts every resilver from the start, leaving the pool without redundancy longer".into())
        }
        ["set", prop, ..] => {
            let (key, value) = prop.split_once('=').unwrap_or((prop, ""));
            let risky = match key {
                "failmode" => value != "wait",
                "readonly" | "bootfs" | "cachefile" | "altroot" | "multihost" | "compatibility" | "guid" => true,
                k => k.starts_with("feature@"),
            };
            risky.then(|| format!("sets the pool's `{key}`, which can hang, freeze or unboot it, or cannot be undone"))
        }
        _ => None,
    }
}

/// `rbd` changes the code rule does not already judge destructive.
fn rbd(a: &Args<'_>) -> Option<String> {
    let ops: Vec<&str> = a.operands(CEPH_VALUED).iter().map(|o| o.shown()).collect();
    let w = |i: usize| ops.get(i).copied().unwrap_or("");
    let options: Vec<String> = a.values(&["-o", "--options"]).iter().map(|o| o.shown().to_string()).collect();
    match (w(0), w(1), w(2)) {
        ("mv" | "rename", _, _)
        | ("trash", "mv" | "move", _)
        | ("migration", "prepare" | "abort" | "execute" | "commit", _) => {
            Some("moves an image away from the name its guest finds it by".into())
        }
        ("device" | "unmap", _, _) | ("nbd", "unmap", _)
            if (w(0) == "unmap" || w(1) == "unmap")
                && (options.iter().any(|o| o.contains("force")) || a.long("--force")) =>
        {
            Some("unmaps a disk by force, from under what uses it".into())
        }
        ("mirror", "image" | "pool", "demote" | "promote" | "disable" | "resync") => {
            Some("switches or drops which copy of a mirrored image is primary, cutting writers off".into())
        }
        ("pool", "init", _) if a.long("--force") => Some("re-initialises a pool in use".into()),
        ("config", "pool" | "image" | "global", "set" | "rm" | "remove") => {
            Some("changes how images are opened; a wrong setting keeps guests from starting".into())
        }
        ("feature", "disable", _) | ("lock", "rm" | "remove" | "break", _) => {
            Some("disables an image feature or breaks its lock, under the guest writing to it".into())
        }
        ("import", _, _) => Some("writes a new image, which takes the place a guest's disk is looked up by".into()),
        _ => None,
    }
}

/// `ceph`: commands that stop the cluster, drain it, leave it without copies, cut clients or
/// daemons off, or change how every daemon runs.
fn ceph(an: &mut Analysis<'_>, a: &Args<'_>, stdin: &Stdin) {
    let ops: Vec<String> = a.operands(CEPH_VALUED).iter().map(|o| o.shown().to_string()).collect();
    // Watching, or a status flag, with a command after it still runs the command; commands read
    // from the input are commands too.
    let watching = a.options().any(|o| {
        matches!(o, "-s" | "--status" | "-w" | "--watch" | "-W" | "--watch-channel")
            || o.starts_with("--watch")
            || o.starts_with("-W")
    });
    if watching && !ops.is_empty() {
        let mut argv = vec![Arg::Static("ceph".into())];
        argv.extend(ops.iter().map(|w| Arg::Static(w.clone())));
        an.run(&argv, &Stdin::default());
    }
    if ops.is_empty() {
        for line in stdin.texts.iter().flat_map(|t| t.lines()) {
            let words: Vec<&str> = line.split_whitespace().collect();
            if words.is_empty() || words.first().is_some_and(|w| w.starts_with('#')) {
                continue;
            }
            let mut argv = vec![Arg::Static("ceph".into())];
            argv.extend(words.iter().map(|w| Arg::Static(w.to_string())));
            an.run(&argv, &Stdin::default());
        }
        return;
    }
    let admin_socket = a.long("--admin-daemon");
    let words: Vec<&str> = ops.iter().map(String::as_str).collect();
    // `injectargs` takes its settings as option words (`'--osd-max-backfills 0'`).
    let all: Vec<&str> = a.all.iter().filter_map(Arg::as_static).collect();
    if let Some(i) = all.iter().position(|w| *w == "injectargs") {
        let words: Vec<&str> = all.iter().skip(i).copied().collect();
        if let Some(why) = daemon_command(&words) {
            an.raise(DE, format!("`ceph injectargs` {why}"));
        }
    }
    // A command the table lists is what the table says it is (`ceph osd safe-to-destroy`).
    let listed = crate::table::table().get("ceph").and_then(|e| e.subcommand_level(a.all)).is_some();
    if let Some(why) = ceph_command(&words, admin_socket, a, listed) {
        an.raise(DE, format!("`ceph {}` {why}", words.iter().take(4).copied().collect::<Vec<_>>().join(" ")));
    }
}

/// OSD flags that stop I/O, recovery or the cluster's view of its OSDs.
const CEPH_OUTAGE_FLAGS: &[&str] =
    &["pause", "pauserd", "pausewr", "noup", "nodown", "noin", "full", "norecover", "nobackfill"];

fn ceph_command(w: &[&str], admin_socket: bool, a: &Args<'_>, listed: bool) -> Option<String> {
    if admin_socket {
        return daemon_command(w);
    }
    let num = |s: &str| s.parse::<f64>().ok();
    let at = |i: usize| w.get(i).copied().unwrap_or("");
    match w {
        ["tell" | "daemon", _, rest @ ..] => daemon_command(rest),
        ["config", "set", _, key, value, ..] => config_option(key, Some(*value)),
        ["config", "rm" | "unset", _, key, ..] => config_option(key, None),
        ["config", "assimilate-conf", ..] => Some("merges another configuration file into the cluster's".into()),
        ["osd", "set", flag, ..] if CEPH_OUTAGE_FLAGS.contains(flag) => {
            Some(format!("sets `{flag}`, which stops I/O, recovery or OSDs joining or leaving"))
        }
        ["osd", "set-group" | "add-noup" | "add-nodown" | "add-noin", ..]
            if w.iter().any(|x| x.split(',').any(|f| CEPH_OUTAGE_FLAGS.contains(&f))) || at(1).starts_with("add-") =>
        {
            Some("sets flags on OSDs that keep them down, up or out".into())
        }
        ["osd", "pause", ..] => Some("pauses all reads and writes".into()),
        ["osd", "stop", ..] => Some("stops OSDs".into()),
        ["osd", "reweight" | "primary-affinity", _, weight, ..]
        | ["osd", "crush", "reweight" | "reweight-subtree" | "set" | "add" | "create-or-move", _, weight, ..]
            if num(weight).is_some_and(|x| x <= 0.0) =>
        {
            Some("weights an OSD to zero, draining all its data away".into())
        }
        ["osd", "reweight-by-utilization" | "reweight-by-pg" | "reweightn", ..]
        | ["osd", "crush", "reweight-all" | "move" | "swap-bucket" | "unlink" | "tunables" | "set-tunable" | "link", ..] => {
            Some("reweights or moves OSDs, moving data across the whole cluster".into())
        }
        ["osd", "setcrushmap" | "setmaxosd" | "set-require-min-compat-client" | "require-osd-release", ..] => Some(
            "replaces the placement map or the OSD and client limits, which can strand data or lock clients out".into(),
        ),
        ["osd", m, ..] if m.starts_with("pg-temp") || m.starts_with("primary-temp") || m.contains("pg-upmap") => {
            Some("pins placement groups to chosen OSDs".into())
        }
        ["osd", "tier", ..] => {
            Some("changes a cache tier, which can stop I/O to the pool or lose what is not flushed".into())
        }
        ["osd", "blocklist" | "blacklist", "add", ..] => {
            Some("fences a client: its writes are refused and its guests stop".into())
        }
        ["osd", "erasure-code-profile", "set", ..] if w.contains(&"m=0") || a.long("--force") => {
            Some("sets an erasure-code profile without redundancy or over one in use".into())
        }
        ["osd", "pool", "set", _, key, value, ..] => pool_setting(key, value),
        ["osd", "pool", "set-quota", _, field, value, ..] if quota_is_small(field, value) => {
            Some("sets a quota that stops writes to the pool".into())
        }
        ["osd", "pool", "application", "disable", ..] => {
            Some("disables an application on a pool, refusing its clients".into())
        }
        ["auth", "import" | "rotate" | "add", ..] => {
            Some("replaces keys, which can lock clients and daemons out".into())
        }
        ["mon", op, ..]
            if !(matches!(
                *op,
                "stat"
                    | "dump"
                    | "metadata"
                    | "versions"
                    | "count-metadata"
                    | "ok-to-stop"
                    | "ok-to-add-offline"
                    | "ok-to-rm"
                    | "getmap"
                    | "enable-msgr2"
                    | "compact"
                    | "scrub"
            ) || (*op == "feature" && at(2) == "ls")) =>
        {
            Some("changes the monitors, which hold the cluster's quorum".into())
        }
        ["mds", "repaired" | "fail" | "rm" | "rmfailed" | "set_state" | "deactivate", ..] => {
            Some("changes an MDS rank's state under its clients".into())
        }
        ["fs", "set", _, key, value, ..] => fs_setting(key, value),
        ["fs", "subvolume", "resize", ..] if !a.long("--no_shrink") && !a.long("--no-shrink") => {
            Some("resizes a subvolume, possibly below what it holds".into())
        }
        ["fs", "rename" | "reset" | "rm_data_pool" | "authorize", ..] => {
            Some("renames, resets or exposes a filesystem its clients mount".into())
        }
        ["mgr", "module", ..] if w.contains(&"disable") => Some(
            "turns off a manager module the cluster relies on (autoscaler, balancer, dashboard, orchestrator)".into(),
        ),
        ["orch", "apply", ..] => {
            Some("changes which daemons the orchestrator runs; the ones left out are removed".into())
        }
        ["orch", "upgrade", "start", ..] => Some("upgrades every daemon of the cluster, which cannot be undone".into()),
        ["orch", "host", "maintenance", "enter", ..] => Some("stops every daemon on a host".into()),
        ["crash", "rm" | "prune" | "archive-all", ..] => Some("deletes crash reports".into()),
        _ if w.iter().take(4).any(|x| x.contains("lost")) => Some("marks data lost, which gives it up".into()),
        _ if !listed && !matches!(at(0), "orch" | "config" | "health" | "progress") => w
            .iter()
            .take(5)
            .take_while(|x| x.chars().all(|c| c.is_ascii_lowercase() || c == '-' || c == '_'))
            .find_map(|x| super::meaning::deleting(x, false))
            .map(|verb| format!("is a `{verb}`: it destroys what it names")),
        _ => None,
    }
}

/// A command sent to one daemon (`ceph tell osd.0 …`, `ceph daemon mon.a …`).
fn daemon_command(w: &[&str]) -> Option<String> {
    match w {
        ["config", "set", key, value, ..] => config_option(key, Some(*value)),
        ["config", "rm" | "unset", key, ..] => config_option(key, None),
        ["injectargs", rest @ ..] => {
            let text = rest.join(" ");
            let words: Vec<&str> = text.split_whitespace().collect();
            words.iter().enumerate().find_map(|(i, t)| {
                let t = t.trim_matches(['\'', '"']);
                let body = t.strip_prefix("--")?;
                let (key, value) = match body.split_once('=') {
                    Some((k, v)) => (k.to_string(), Some(v.to_string())),
                    None => (body.to_string(), words.get(i + 1).map(|v| v.trim_matches(['\'', '"']).to_string())),
                };
                config_option(&key.replace('-', "_"), value.as_deref())
            })
        }
        _ => {
            let harmful = w.iter().flat_map(|x| x.split([',', ' '])).find(|x| {
                let x = x.to_ascii_lowercase();
                matches!(
                    x.as_str(),
                    "shutdown"
                        | "osd_shutdown"
                        | "exit"
                        | "evict"
                        | "kill"
                        | "repair"
                        | "damage"
                        | "abort"
                        | "stop"
                        | "suspend"
                        | "fail"
                        | "force"
                        | "drop"
                        | "flush_journal"
                ) || (!x.starts_with("flush_pg") && super::meaning::deleting(&x, false).is_some())
            });
            harmful.map(|x| format!("makes a daemon `{x}`, which takes it or its data out of service"))
        }
    }
}

/// `ceph config set/rm` of an option: logging and health warnings are harmless; recovery and
/// backfill tuning is unless it stalls recovery; any other option changes how daemons store,
/// serve, authenticate or talk, where a wrong value stops I/O, cuts clients off or allows deletes.
fn config_option(key: &str, value: Option<&str>) -> Option<String> {
    let k = key.to_ascii_lowercase().replace('-', "_");
    let k = k.rsplit('/').next().unwrap_or(k.as_str()).to_string();
    let harmless =
        ["debug", "log_to_", "mon_warn_", "mon_health_", "osd_scrub_", "osd_deep_scrub_", "clog_", "err_to_"]
            .iter()
            .any(|p| k.starts_with(p))
            || (key.starts_with("mgr/dashboard/") && !key.contains("ssl") && !key.contains("server"));
    if harmless {
        return None;
    }
    if k.contains("backfill") || k.contains("recovery") {
        let n = value.and_then(|v| v.trim().parse::<f64>().ok());
        let stalls = match n {
            Some(x) if k.contains("sleep") => x > 10.0,
            Some(x) => x <= 0.0,
            None => value.is_some(),
        };
        return stalls.then(|| format!("sets `{key}` so that recovery stalls, leaving data with fewer copies"));
    }
    Some(format!("changes `{key}`, which daemons run by: a wrong value stops I/O, cuts clients off or allows deletes"))
}

/// `ceph osd pool set POOL KEY VALUE`: scrub, compression and autoscaler hints are tuning; the
/// guards set to true protect; anything else changes how the pool keeps or serves data.
fn pool_setting(key: &str, value: &str) -> Option<String> {
    let k = key.to_ascii_lowercase();
    let on = matches!(value.to_ascii_lowercase().as_str(), "true" | "1" | "yes" | "on");
    let tuning = k.starts_with("compression_")
        || k.contains("scrub")
        || matches!(
            k.as_str(),
            "target_size_ratio"
                | "target_size_bytes"
                | "pg_num_min"
                | "pg_num_max"
                | "recovery_priority"
                | "recovery_op_priority"
                | "fast_read"
                | "csum_type"
                | "bulk"
        )
        || (k == "pg_autoscale_mode" && value != "off")
        || (matches!(k.as_str(), "nodelete" | "nopgchange" | "nosizechange") && on);
    (!tuning).then(|| format!("sets the pool's `{key}`, which can stop its I/O, drop copies or move all its data"))
}

/// `ceph fs set FS KEY VALUE`: standby and session settings are tuning; anything else can refuse
/// clients, stop the file system or cut its files short.
fn fs_setting(key: &str, value: &str) -> Option<String> {
    let k = key.to_ascii_lowercase();
    let on = matches!(value.to_ascii_lowercase().as_str(), "true" | "1" | "yes");
    let tuning = matches!(
        k.as_str(),
        "standby_count_wanted"
            | "allow_standby_replay"
            | "session_timeout"
            | "session_autoclose"
            | "balancer"
            | "bal_rank_mask"
    ) || (k == "max_mds" && value.parse::<u32>().is_ok_and(|n| n > 0))
        || (k == "joinable" && on)
        || (k == "down" && !on);
    (!tuning).then(|| format!("sets the file system's `{key}`, which can refuse its clients or stop it"))
}

/// A quota small enough to stop writes (under a gibibyte or a thousand objects); 0 removes it.
fn quota_is_small(field: &str, value: &str) -> bool {
    let v = value.trim().to_ascii_uppercase();
    let digits: String = v.chars().take_while(|c| c.is_ascii_digit()).collect();
    let Ok(n) = digits.parse::<u64>() else { return true };
    let unit = v.trim_start_matches(|c: char| c.is_ascii_digit()).trim_end_matches(['B', 'I']);
    let factor: u64 = match unit {
        "" => 1,
        "K" => 1 << 10,
        "M" => 1 << 20,
        "G" => 1 << 30,
        "T" | "P" | "E" => 1 << 40,
        _ => return true,
    };
    let limit = if field.contains("objects") { 1000 } else { 1 << 30 };
    n != 0 && n.saturating_mul(factor) < limit
}

/// Where extracting replaces the system's own files: the root, its programs, libraries and boot
/// files, its configuration and services' state, root's home.
fn is_system_tree(dir: &str) -> bool {
    let d = normalise(dir);
    let d = d.trim_end_matches('/');
    const TREES: &[&str] =
        &["/etc", "/usr", "/boot", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/var/lib", "/root"];
    d.is_empty() || TREES.iter().any(|t| d.strip_prefix(t).is_some_and(|rest| rest.is_empty() || rest.starts_with('/')))
}

/// An archive extracted over the system's own files, or wherever its member names point.
fn extracts_over_system(base: &str, a: &Args<'_>, all: &[&str]) -> Option<String> {
    let cluster_has = |c: char| {
        all.iter().enumerate().any(|(i, w)| {
            (w.starts_with('-') && !w.starts_with("--") && w.contains(c))
                || (i == 0 && !w.starts_with('-') && w.chars().all(|x| x.is_ascii_alphabetic()) && w.contains(c))
        })
    };
    let (extracting, dest, absolute) = match base {
        "tar" | "bsdtar" | "star" | "gtar" => (
            cluster_has('x') || all.iter().any(|w| matches!(*w, "--extract" | "--get")),
            a.values(&["-C", "--directory"]).last().map(|v| v.shown().to_string()),
            cluster_has('P') || all.contains(&"--absolute-names"),
        ),
        "unzip" => (
            !all.iter()
                .any(|w| w.starts_with('-') && !w.starts_with("--") && w.contains(['l', 't', 'v', 'Z', 'p', 'c', 'z'])),
            a.values(&["-d"]).last().map(|v| v.shown().to_string()),
            false,
        ),
        "7z" | "7za" | "7zz" => (
            a.operands(&[]).first().is_some_and(|w| matches!(w.shown(), "x" | "e")),
            all.iter().rev().find_map(|w| w.strip_prefix("-o")).map(str::to_string),
            false,
        ),
        "unsquashfs" => (true, a.values(&["-d", "-dest"]).last().map(|v| v.shown().to_string()), false),
        _ => return None,
    };
    if !extracting {
        return None;
    }
    if absolute {
        return Some("extracts members to the absolute paths they name, over the system's files".into());
    }
    dest.filter(|d| is_system_tree(d))
        .map(|d| format!("extracts an archive over the system's own files in `{d}`, replacing them"))
}
