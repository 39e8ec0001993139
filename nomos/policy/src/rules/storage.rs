//! Storage whose rule needs code: partition edits in `parted`, volume sizes, ZFS and btrfs.

use nomos_types::Risk::{ConfigMutation as CM, Destructive as DE, ReversibleLow as RL};

use super::ro;
use super::Args;
use crate::paths::is_block_device;
use crate::shell::{Analysis, Arg, Stdin};

/// `parted`: printing reads; anything else edits the partition table.
pub(super) fn parted(an: &mut Analysis<'_>, _base: &str, a: &Args<'_>, _stdin: &Stdin) {
    let words: Vec<&str> = a.operands(&["-a", "--align"]).iter().map(|o| o.shown()).collect();
    let reading = a.flag('l', "--list")
        || words.iter().skip(1).all(|w| {
            matches!(
                *w,
                "print" | "p" | "unit" | "s" | "B" | "MB" | "GB" | "MiB" | "GiB" | "%" | "free" | "list" | "all"
            )
        }) && words.len() > 1;
    if reading {
        ro(an, "`parted print` only reads");
    } else {
        an.raise(DE, "`parted` edits a partition table");
    }
}

/// `lvresize` to an absolute size may cut data off.
pub(super) fn lvresize(an: &mut Analysis<'_>, _base: &str, a: &Args<'_>, _stdin: &Stdin) {
    let sizes = a.values(&["-L", "--size", "-l", "--extents"]);
    // Without a leading `+` the size is absolute and may be smaller than the volume.
    if sizes.iter().any(|v| !v.shown().starts_with('+')) {
        an.raise(DE, "`lvresize` to a size that may be smaller cuts data off");
    } else {
        an.raise(CM, "`lvresize` grows a logical volume");
    }
}

/// `btrfs`: reports read; deleting subvolumes destroys.
pub(super) fn btrfs(an: &mut Analysis<'_>, _base: &str, a: &Args<'_>, _stdin: &Stdin) {
    let words: Vec<&str> = a.operands(&[]).iter().map(|o| o.shown()).collect();
    // `device stats -z` resets the error counters it prints.
    if words.first().is_some_and(|w| w.starts_with("dev")) && a.flag('z', "--reset") {
        return an.raise(CM, "`btrfs device stats -z` resets the error counters");
    }
    match words.as_slice() {
        ["check", ..] if a.long("--readonly") && !a.long("--repair") && !a.long("--init-csum-tree") => {
            ro(an, "`btrfs check --readonly` only checks")
        }
        [g, "get", ..] if g.starts_with("prop") => ro(an, "`btrfs property get` only reports"),
        [g, "delete" | "del" | "d", ..] if g.starts_with("sub") => {
            an.raise(DE, "`btrfs subvolume delete` destroys data")
        }
        // Another subvolume as the root at the next boot rolls the system back to it.
        [g, "set-default", ..] if g.starts_with("sub") => {
            an.raise(DE, "`btrfs subvolume set-default` boots into another subvolume, rolling the system back")
        }
        ["replace", "start", ..] => an.raise(DE, "`btrfs replace start` overwrites the target device"),
        ["rescue", ..] => an.raise(DE, "`btrfs rescue` rewrites filesystem structures and can lose data"),
        ["check", ..] if a.long("--repair") || a.long("--init-csum-tree") || a.long("--init-extent-tree") => {
            an.raise(DE, "`btrfs check --repair` rewrites the filesystem and can lose data")
        }
        [_, "show" | "list" | "df" | "usage" | "stats" | "status", ..] | ["version" | "--version"] => {
            ro(an, "`btrfs` only reports")
        }
        _ => an.raise(CM, "`btrfs` changes a filesystem"),
    }
}

/// `zfs`: queries (and `send` to standard output) read; destroy and rollback destroy.
pub(super) fn zfs(an: &mut Analysis<'_>, _base: &str, a: &Args<'_>, _stdin: &Stdin) {
    match a.sub(&[]).map(|(_, s)| s) {
        // A send stream holds the dataset's files (a container's /etc/shadow, the host's keys); a
        // dry run (`-n`) only estimates its size.
        Some("send") if !a.short('n') && !a.long("--dryrun") => {
            an.raise_secret(DE, "`zfs send` streams a dataset's files, secrets too")
        }
        Some(
            "list" | "get" | "holds" | "diff" | "userspace" | "groupspace" | "projectspace" | "version" | "help"
            | "send",
        ) => ro(an, "`zfs list` only reports"),
        // `zfs upgrade` alone or `-v` lists; `-a` or a dataset upgrades it for good.
        Some("upgrade") if a.short('a') || a.operands(&[]).len() > 1 => {
            an.raise(DE, "`zfs upgrade` raises a dataset's version, which cannot be undone")
        }
        Some("upgrade") => ro(an, "`zfs upgrade -v` only lists versions"),
        // `zfs mount` alone lists what is mounted.
        Some("mount") if a.all.len() == 1 => ro(an, "`zfs mount` alone lists mounted datasets"),
        // `destroy -n` only says what would be destroyed (`-nv`, `-rnv`).
        Some("destroy") if a.short('n') => ro(an, "`zfs destroy -n` only reports what it would destroy"),
        Some("destroy" | "rollback") => an.raise(DE, "`zfs destroy`/`rollback` deletes data"),
        // `zfs allow DATASET` alone shows the delegated permissions.
        Some("allow") if a.all.len() == 2 && a.options().next().is_none() => {
            ro(an, "`zfs allow DATASET` only shows delegated permissions")
        }
        Some("receive" | "recv") if a.short('F') => an.raise(DE, "`zfs receive -F` rolls a dataset back"),
        None => ro(an, "`zfs` without a command prints help"),
        Some(s) => an.raise(CM, format!("`zfs {s}` changes datasets")),
    }
}

/// `zpool`: queries read; `-c` runs scripts; destroying, upgrading and rewinding cannot be undone.
pub(super) fn zpool(an: &mut Analysis<'_>, _base: &str, a: &Args<'_>, _stdin: &Stdin) {
    // `-c SCRIPT` on status/iostat runs scripts (as root with ZPOOL_SCRIPTS_AS_ROOT).
    if a.short('c') {
        return an.raise(CM, "`zpool -c` runs scripts or clears events");
    }
    match a.sub(&["-o", "-O", "-R", "-d", "-T"]) {
        Some((_, s @ ("list" | "status" | "iostat" | "get" | "history" | "events" | "version" | "help" | "wait"))) => {
            ro(an, format!("`zpool {s}` only reports"))
        }
        Some((_, "upgrade")) if a.operands(&[]).len() == 1 && !a.short('a') => {
            ro(an, "`zpool upgrade` without a pool only lists")
        }
        Some((_, "remove")) if a.short('n') => ro(an, "`zpool remove -n` only reports what it would do"),
        Some((_, "import")) if a.operands(&["-o", "-d", "-R"]).len() <= 1 && !a.short('a') => {
            ro(an, "`zpool import` without a pool only lists")
        }
        Some((_, s @ ("destroy" | "labelclear" | "create"))) => an.raise(DE, format!("`zpool {s}` destroys pool data")),
        // An upgraded pool cannot go back to older software; a rewind import drops recent writes.
        Some((_, "upgrade")) if a.operands(&[]).len() > 1 || a.short('a') => {
            an.raise(DE, "`zpool upgrade` cannot be undone")
        }
        Some((_, "import")) if a.short('F') || a.short('X') || a.long("--rewind-to-checkpoint") => {
            an.raise(DE, "`zpool import -F/-X` discards the pool's last transactions")
        }
        Some((_, s @ ("scrub" | "clear" | "resilver" | "trim"))) => {
            an.raise(RL, format!("`zpool {s}` starts maintenance"))
        }
        Some((_, s)) => an.raise(CM, format!("`zpool {s}` changes a pool")),
        None => ro(an, "`zpool` without a command prints help"),
    }
}

/// `qemu-img`: inspection reads; converting, copying or creating onto a disk, a guest's volume or
/// an existing image overwrites it; applying or deleting a snapshot and shrinking lose data.
pub(super) fn qemu_img(an: &mut Analysis<'_>, base: &str, a: &Args<'_>, _stdin: &Stdin) {
    #[rustfmt::skip]
    let valued = [
        "-f", "-F", "-O", "-o", "-b", "-B", "-t", "-T", "-l", "-s", "-S", "-m", "-r", "--object", "--output",
        "--cache", "--target-format", "--backing", "--backing-format",
    ];
    let ops = a.operands(&valued);
    let Some((sub, rest)) = ops.split_first() else { return ro(an, "`qemu-img` without a command prints help") };
    match sub.shown() {
        "info" | "map" | "measure" | "compare" | "--version" | "--help" | "-h" | "-V" => {
            ro(an, format!("`{base}` only inspects images"))
        }
        "check" if !a.short('r') && !a.long("--repair") && !a.options().any(|o| o.starts_with("-r")) => {
            ro(an, "`qemu-img check` only inspects an image")
        }
        "snapshot" if a.short('a') => an.raise(DE, "`qemu-img snapshot -a` rolls an image back to a snapshot"),
        "snapshot" if a.short('d') => an.raise(DE, "`qemu-img snapshot -d` deletes a snapshot"),
        "snapshot" if a.short('l') => ro(an, "`qemu-img snapshot -l` only lists snapshots"),
        "resize" if a.long("--shrink") || rest.iter().any(|r| r.shown().starts_with('-')) => {
            an.raise(DE, "`qemu-img resize --shrink` cuts the end of the image off")
        }
        "convert" => match rest.last() {
            // Driver options name the target file (`driver=raw,file.filename=/dev/sda`).
            Some(out) if rest.len() > 1 && out.shown().contains("filename=") => {
                for part in out.shown().split(',') {
                    if let Some((_, file)) = part.split_once("filename=") {
                        an.write_target(&Arg::Static(file.to_string()), "`qemu-img convert`");
                    }
                }
            }
            Some(out) if rest.len() > 1 => an.write_target(out, "`qemu-img convert`"),
            _ => an.raise(CM, "`qemu-img convert` writes an image"),
        },
        "create" => match rest.first() {
            Some(out) => an.write_target(out, "`qemu-img create`"),
            None => an.raise(CM, "`qemu-img create` writes an image"),
        },
        "dd" => {
            let outputs: Vec<&str> = a.all.iter().filter_map(|w| w.as_static()?.strip_prefix("of=")).collect();
            for out in outputs {
                an.write_target(&Arg::Static(out.to_string()), "`qemu-img dd`");
            }
            an.raise(DE, "`qemu-img dd` overwrites its output image with the input's blocks");
        }
        "bench" if a.short('w') || a.options().any(|o| o == "--pattern" || o.starts_with("--pattern=")) => {
            an.raise(DE, "`qemu-img bench -w` writes over the image's data")
        }
        "bench" => ro(an, "`qemu-img bench` only reads the image"),
        "rebase" if a.short('u') => an.raise(
            DE,
            "`qemu-img rebase -u` swaps the backing file unchecked, which corrupts the image's view of its data",
        ),
        // Committing writes the overlay into its backing file, which other images may share.
        "commit" => an.raise(DE, "`qemu-img commit` writes an overlay into its backing image"),
        s => an.raise(CM, format!("`{base} {s}` changes an image")),
    }
}

/// `fio`: a benchmark whose writing jobs overwrite their files; on a disk that is the disk's data.
pub(super) fn fio(an: &mut Analysis<'_>, _base: &str, a: &Args<'_>, _stdin: &Stdin) {
    let modes: Vec<String> = a.values(&["--rw", "--readwrite"]).iter().map(|m| m.shown().to_string()).collect();
    // Jobs read unless told to write (`--rw=write`, `randwrite`, `rw`, `randrw`, `trim` …).
    let writes = modes.iter().any(|m| m.contains("write") || m.contains("trim") || m.ends_with("rw"));
    let files: Vec<String> = a
        .values(&["--filename"])
        .iter()
        .flat_map(|f| f.shown().split(':').map(str::to_string).collect::<Vec<_>>())
        .collect();
    if a.operands(&[]).iter().any(|o| !o.shown().starts_with("--")) {
        an.raise(CM, "`fio` runs jobs from a job file");
    }
    for file in files {
        if writes {
            an.write_target(&Arg::Static(file), "`fio`");
        } else if is_block_device(&file) {
            an.raise_secret(CM, format!("`fio` reads the raw disk {file}"));
        }
    }
    an.raise(CM, "`fio` runs a storage benchmark");
}
