//! Storage whose rule needs code: partition edits in `parted`, volume sizes, ZFS and btrfs.

use nomos_types::Risk::{ConfigMutation as CM, Destructive as DE, ReversibleLow as RL};

use super::ro;
use super::Args;
use crate::shell::{Analysis, Stdin};

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
        [g, "delete" | "del" | "d", ..] if g.starts_with("sub") => {
            an.raise(DE, "`btrfs subvolume delete` destroys data")
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
        Some(
            "list" | "get" | "holds" | "diff" | "userspace" | "groupspace" | "projectspace" | "version" | "help"
            | "send",
        ) => ro(an, "`zfs list` only reports"),
        Some("destroy" | "rollback") => an.raise(DE, "`zfs destroy`/`rollback` deletes data"),
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
        Some((_, s @ ("list" | "status" | "iostat" | "get" | "history" | "events" | "version" | "help"))) => {
            ro(an, format!("`zpool {s}` only reports"))
        }
        Some((_, "upgrade")) if a.operands(&[]).len() == 1 && !a.short('a') => {
            ro(an, "`zpool upgrade` without a pool only lists")
        }
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
