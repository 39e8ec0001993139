//! Destructive by meaning, not by list: on the tools that manage storage, clusters, backups,
//! accounts, databases and hardware, a subcommand or an option that deletes, destroys, purges,
//! prunes, wipes, formats, resets, rolls back, flushes or drops is destructive unless a rule says
//! otherwise — however the tool's own grammar lets it be spelled. Proxmox's CLIs read options as
//! Perl's Getopt::Long does: one dash or two, any letter case, any unique abbreviation, `=value`
//! or the next word, before or after the positional arguments.

use nomos_types::Risk::{self, Destructive as DE};

use crate::shell::{Analysis, Arg};

/// Tools whose deleting words destroy what is hard or impossible to get back.
#[rustfmt::skip]
const MANAGING: &[&str] = &[
    "zfs", "zpool", "lvm", "lvremove", "vgremove", "pvremove", "lvreduce", "lvresize", "lvconvert", "vgreduce",
    "pvesm", "pvecm", "pveum", "pvenode", "pveceph", "pct", "qm", "vzdump", "ceph", "rados", "rbd", "ceph-volume",
    "proxmox-backup-manager", "proxmox-backup-client", "proxmox-tape", "restic", "borg", "rclone", "ipmitool",
    "racadm", "redfishtool", "mdadm", "cryptsetup", "btrfs", "parted", "sgdisk", "sfdisk", "fdisk", "gdisk",
    "wipefs", "nvme", "hdparm", "sg_format", "etcdctl", "influx", "virsh",
    "lxc", "incus", "multipath", "dmsetup", "losetup", "targetcli", "iscsiadm", "userdel", "deluser", "groupdel",
    "delgroup", "helm", "snapper", "timeshift", "tune2fs", "xfs_admin", "e2fsck", "xfs_repair",
];

/// Words that delete, destroy or reset (whole words of a subcommand or an option's name, or the
/// start of one: `delsnapshot`, `rmpool`, `--prune-backups`).
#[rustfmt::skip]
const VERBS: &[&str] = &[
    "delete", "destroy", "purge", "prune", "wipe", "format", "reset", "rollback", "flush", "drop", "remove",
    "zap", "erase", "forget", "shrink", "sanitize", "discard", "labelclear", "unlink", "free", "truncate",
    "flushall", "flushdb", "revert", "uninstall", "kill", "deactivate",
];

/// Subcommand paths of these tools whose deleting word is not destructive.
#[rustfmt::skip]
const NOT_DESTRUCTIVE: &[(&str, &[&str])] = &[
    ("ceph", &["crash"]), ("ceph", &["config"]), ("ceph", &["health"]), ("ceph", &["progress"]),
    ("ceph", &["orch"]), ("ha-manager", &["remove"]), ("qm", &["reset"]), ("pct", &["reset"]),
    ("qm", &["set"]), ("pct", &["set"]), ("zpool", &["clear"]), ("pvesm", &["prune-backups"]),
    ("ipmitool", &["sel"]), ("virsh", &["undefine"]), ("parted", &["print"]),
];

/// One option as Getopt::Long reads it: its name in lower case and its value, if it has one.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Opt {
    pub(crate) name: String,
    pub(crate) value: Option<String>,
}

impl Opt {
    /// Whether this is `full` as written or abbreviated (at least two letters).
    pub(crate) fn is(&self, full: &str) -> bool {
        self.name == full || (self.name.len() >= 2 && full.starts_with(self.name.as_str()))
    }

    /// A boolean set off (`--purge 0`, `--remove=no`).
    pub(crate) fn is_off(&self) -> bool {
        self.value.as_deref().is_some_and(|v| matches!(v.to_ascii_lowercase().as_str(), "0" | "false" | "no" | "off"))
    }
}

/// Options and positional words as Proxmox's CLIs read them: `-name`, `--name`, `-name=value`; a
/// value is the next word unless that is another option.
pub(crate) fn getopt(args: &[Arg]) -> (Vec<Opt>, Vec<String>) {
    let mut opts = Vec::new();
    let mut positional = Vec::new();
    let mut i = 0;
    while let Some(arg) = args.get(i) {
        i += 1;
        let Some(word) = arg.as_static() else {
            positional.push(arg.shown().to_string());
            continue;
        };
        if word == "--" {
            positional.extend(args.get(i..).unwrap_or(&[]).iter().map(|a| a.shown().to_string()));
            break;
        }
        let Some(body) = word
            .strip_prefix("--")
            .or_else(|| word.strip_prefix('-'))
            .filter(|b| b.chars().next().is_some_and(|c| c.is_ascii_alphabetic()))
        else {
            positional.push(word.to_string());
            continue;
        };
        let (name, value) = match body.split_once('=') {
            Some((n, v)) => (n, Some(v.to_string())),
            None => {
                let next =
                    args.get(i).and_then(Arg::as_static).filter(|n| !n.starts_with('-') || n.parse::<f64>().is_ok());
                if next.is_some() {
                    i += 1;
                }
                (body, next.map(str::to_string))
            }
        };
        opts.push(Opt { name: name.to_ascii_lowercase(), value });
    }
    (opts, positional)
}

/// Whether a word (a subcommand, or an option's name) deletes by its meaning; for an option,
/// also when it abbreviates such a name.
fn deleting(word: &str, option: bool) -> Option<&'static str> {
    let w = word.to_ascii_lowercase();
    let parts: Vec<&str> = w.split(['-', '_']).filter(|p| !p.is_empty()).collect();
    // As an option's name these speak of an output format, a signal or free space.
    let verbs = VERBS.iter().copied().filter(|v| !option || !matches!(*v, "format" | "kill" | "free"));
    verbs.into_iter().find(|v| {
        parts.contains(v)
            || (w.starts_with(v) && w.len() > v.len())
            || (option && w.len() >= 3 && v.starts_with(w.as_str()))
            || (*v == "delete"
                && (w == "del"
                    || (w.starts_with("del")
                        && !w.starts_with("dela")
                        && !w.starts_with("delt")
                        && !w.starts_with("deleg"))))
            || (*v == "remove" && (w == "rm" || (w.starts_with("rm") && w.len() > 2)))
    })
}

/// Raises destructive for a managing tool's deleting subcommand or option, unless the rule
/// already found it so or a dry run asks only what would happen.
pub(crate) fn judge(an: &mut Analysis<'_>, base: &str, args: &[Arg], mark: usize) {
    if !MANAGING.contains(&base) || an.max_since(mark) == Some(Risk::Destructive) {
        return;
    }
    // A subcommand the table lists is what the table says it is (`ceph osd safe-to-destroy`).
    if crate::table::table().get(base).and_then(|e| e.subcommand_level(args)).is_some() {
        return;
    }
    let words: Vec<&str> = args.iter().filter_map(Arg::as_static).collect();
    let dry_run = words.iter().any(|w| {
        matches!(w.to_ascii_lowercase().as_str(), "--dry-run" | "--dryrun" | "--dry_run" | "-dry-run" | "--simulate")
            // ZFS's `-n` (`zfs destroy -nv`, `zpool remove -n`) only says what would happen.
            || (matches!(base, "zfs" | "zpool") && w.starts_with('-') && !w.starts_with("--") && w.contains('n'))
    });
    if dry_run {
        return;
    }
    let (opts, positional) = getopt(args);
    // The subcommand path: the leading positional words that read as words.
    let path: Vec<&str> = positional
        .iter()
        .map(String::as_str)
        .take(3)
        .take_while(|w| !w.is_empty() && w.chars().all(|c| c.is_ascii_alphabetic() || c == '-' || c == '_'))
        .collect();
    let exempt = NOT_DESTRUCTIVE.iter().any(|(p, prefix)| *p == base && path.starts_with(prefix));
    if exempt {
        return;
    }
    // Outages and lockouts these tools spell without a deleting word.
    let lockout = match (base, path.as_slice()) {
        ("pvecm", ["expected", ..]) => Some("overrides the cluster's quorum, which risks a split brain"),
        ("pvenode", ["stopall", ..]) => Some("stops every guest on the node"),
        ("pveum", ["user", "modify" | "mod", ..]) => (positional.iter().any(|w| w == "root@pam")
            && opts.iter().any(|o| (o.is("enable") && o.is_off()) || o.is("expire")))
        .then_some("disables root@pam, locking the operator out of the API"),
        ("pveum", ["passwd", ..]) if positional.iter().any(|w| w == "root@pam") => {
            Some("changes root@pam's password, which logins depend on")
        }
        _ => None,
    };
    if let Some(why) = lockout {
        return an.raise(DE, format!("`{base} {}` {why}", path.join(" ")));
    }
    if let Some((word, verb)) = path.iter().find_map(|w| deleting(w, false).map(|v| (*w, v))) {
        return an.raise(DE, format!("`{base} {word}` is a `{verb}`: it destroys what it names"));
    }
    if let Some((opt, verb)) = opts.iter().filter(|o| !o.is_off()).find_map(|o| deleting(&o.name, true).map(|v| (o, v)))
    {
        an.raise(DE, format!("`{base} --{}` is a `{verb}`: it destroys what it names", opt.name));
    }
}

/// `qm set`/`pct set`/`pvesh set …/config` `--delete KEYS`: deleting an unused volume's entry
/// destroys the volume, and a disk's or mount point's entry leaves the volume to be freed.
pub(crate) fn config_delete_destroys(opts: &[Opt]) -> Option<String> {
    let keys = opts.iter().filter(|o| o.is("delete")).filter_map(|o| o.value.clone()).collect::<Vec<_>>();
    // A disk or mount point deleted from the configuration becomes an unused volume; an unused
    // volume's entry, or the saved state's, deleted is the volume freed.
    let disk = |k: &str| {
        let k = k.trim().to_ascii_lowercase();
        let name = k.trim_end_matches(|c: char| c.is_ascii_digit());
        matches!(name, "unused" | "vmstate")
    };
    keys.iter().flat_map(|v| v.split([',', ';', ' '])).find(|k| disk(k)).map(str::to_string)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(s: &str) -> Vec<Arg> {
        s.split_whitespace().map(|w| Arg::Static(w.into())).collect()
    }

    #[test]
    fn getopt_reads_as_perl_does() {
        let (o, p) = getopt(&args("set -delete unused0 100 --FO=yes"));
        assert_eq!(p, ["set", "100"]);
        assert!(o.iter().any(|x| x.is("delete") && x.value.as_deref() == Some("unused0")));
        assert!(o.iter().any(|x| x.is("force") && x.value.as_deref() == Some("yes")));
        assert_eq!(config_delete_destroys(&getopt(&args("set 100 --dele unused1")).0).as_deref(), Some("unused1"));
        assert_eq!(config_delete_destroys(&getopt(&args("set 100 --delete net0,description")).0), None);
        assert_eq!(config_delete_destroys(&getopt(&args("set 100 --delete scsi1")).0), None);
    }

    #[test]
    fn deleting_words() {
        for w in ["destroy", "delsnapshot", "rmpool", "prune-backups", "remove-vanished", "labelclear", "del"] {
            assert!(deleting(w, false).is_some(), "{w}");
        }
        for w in ["list", "status", "delay", "delta", "delegate", "format-output"] {
            assert_eq!(deleting(w, false).is_some(), w == "format-output", "{w}");
        }
        assert!(deleting("pru", true).is_some() && deleting("dele", true).is_some());
    }
}
