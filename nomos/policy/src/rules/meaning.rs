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
    "delgroup", "radosgw-admin", "cephadm", "helm", "snapper", "timeshift", "tune2fs", "xfs_admin", "e2fsck",
    "xfs_repair", "ha-manager", "pveam", "qmrestore", "pvesr",
    // Object storage and backup clients.
    "aws", "mc", "mcli", "s3cmd", "s5cmd", "gsutil", "gcloud", "az", "b2", "swift", "duplicity", "duply", "kopia",
    "rustic", "borgmatic", "restic-rest", "rdiff-backup", "bup", "tarsnap", "zrepl", "syncoid", "sanoid",
    // Containers and orchestration.
    "docker", "podman", "nerdctl", "crictl", "ctr", "kubectl", "oc", "k3s", "k0s", "kubeadm", "microk8s", "k9s",
    "consul", "nomad", "vault", "terraform", "tofu", "docker-compose", "podman-compose",
    // Database servers.
    "redis-cli", "valkey-cli", "keydb-cli", "mongosh", "mongo", "pg_ctl",
    "pg_ctlcluster", "pg_dropcluster", "cqlsh", "nodetool",
];

/// Subcommand paths of these tools that destroy or take down without a deleting word.
#[rustfmt::skip]
const ALSO_DESTRUCTIVE: &[(&str, &[&str], &str)] = &[
    ("rclone", &["sync"], "makes the destination match the source, deleting what the source lacks"),
    ("rclone", &["bisync"], "deletes on either side what the other side lost"),
    ("rclone", &["dedupe"], "deletes duplicate files"),
    ("rclone", &["cleanup"], "empties the trash and deletes old versions"),
    ("rclone", &["move"], "deletes the source once copied"),
    ("borg", &["compact"], "frees the space of deleted archives for good"),
    ("borg", &["recreate"], "rewrites archives, dropping what they no longer match"),
    ("borgmatic", &["compact"], "frees the space of deleted archives for good"),
    ("kopia", &["maintenance", "run"], "deletes unreferenced data"),
    ("kubectl", &["drain"], "evicts every pod from the node"),
    ("oc", &["drain"], "evicts every pod from the node"),
    ("kubectl", &["rollout", "undo"], "rolls a workload back"),
    ("oc", &["rollout", "undo"], "rolls a workload back"),
    ("docker", &["swarm", "leave"], "takes the node out of the swarm"),
    ("podman", &["system", "migrate"], "rewrites every container's storage"),
    ("etcdctl", &["compact"], "discards the key history"),
    ("etcdctl", &["defrag"], "blocks the member while it rewrites its store"),
    ("etcdctl", &["member", "remove"], "removes a member from the cluster"),
    ("redis-cli", &["shutdown"], "stops the database server"),
    ("redis-cli", &["debug"], "can crash or stall the server"),
    ("nodetool", &["decommission"], "takes the node out of the ring"),
    ("vault", &["operator", "seal"], "seals the vault, locking every secret away"),
    ("vault", &["operator", "step-down"], "forces the active node to give up leadership"),
    ("vault", &["secrets", "disable"], "deletes every secret stored in the mount"),
    ("vault", &["auth", "disable"], "deletes the login method and revokes every token it issued"),
    ("nodetool", &["clearsnapshot"], "deletes snapshots"),
    ("consul", &["leave"], "takes the agent out of the cluster"),
    ("consul", &["kv", "delete"], "deletes keys"),
    ("aws", &["s3", "mv"], "deletes the source once copied"),
    ("aws", &["ec2", "stop-instances"], "stops instances"),
    ("mc", &["mv"], "deletes the source once copied"),
    ("mc", &["admin", "service", "stop"], "stops the object store"),
    ("mc", &["admin", "service", "restart"], "restarts the object store"),
    ("mcli", &["admin", "service", "stop"], "stops the object store"),
    ("racadm", &["serveraction"], "powers the server off, cycles or resets it"),
    ("racadm", &["racreset"], "restarts the management controller"),
    ("racadm", &["racresetcfg"], "resets the management controller to its defaults"),
    ("racadm", &["systemerase"], "erases the server's storage and settings"),
];

/// Words that delete, destroy or reset (whole words of a subcommand or an option's name, or the
/// start of one: `delsnapshot`, `rmpool`, `--prune-backups`).
#[rustfmt::skip]
const VERBS: &[&str] = &[
    "delete", "destroy", "purge", "prune", "wipe", "format", "reset", "rollback", "flush", "drop", "remove",
    "zap", "erase", "forget", "shrink", "sanitize", "discard", "labelclear", "unlink", "free", "truncate",
    "flushall", "flushdb", "revert", "uninstall", "kill", "deactivate", "terminate", "evict", "decommission",
    "teardown", "factoryreset",
];

/// Subcommand paths of these tools whose deleting word is not destructive.
#[rustfmt::skip]
const NOT_DESTRUCTIVE: &[(&str, &[&str])] = &[
    ("ceph", &["crash"]), ("ceph", &["config"]), ("ceph", &["health"]), ("ceph", &["progress"]),
    ("ceph", &["orch"]), ("qm", &["reset"]), ("pct", &["reset"]),
    ("qm", &["set"]), ("pct", &["set"]), ("zpool", &["clear"]), ("pvesm", &["prune-backups"]),
    ("virsh", &["undefine"]), ("parted", &["print"]),
    // A container killed is a container stopped; it starts again as it was.
    ("docker", &["kill"]), ("podman", &["kill"]), ("nerdctl", &["kill"]), ("docker", &["container", "kill"]),
    ("podman", &["container", "kill"]), ("docker", &["compose", "kill"]), ("podman", &["pod", "kill"]),
    ("docker-compose", &["kill"]), ("podman-compose", &["kill"]), ("crictl", &["stop"]),
    ("racadm", &["serveraction", "powerstatus"]),
    // A stopped container or an image removed is recreated from its image or pulled again;
    // a forced removal is judged above. A key or two deleted by name is an edit.
    ("docker", &["rm"]), ("docker", &["rmi"]), ("docker", &["container", "rm"]), ("docker", &["image", "rm"]),
    ("podman", &["rm"]), ("podman", &["rmi"]), ("podman", &["container", "rm"]), ("podman", &["image", "rm"]),
    ("podman", &["pod", "rm"]), ("nerdctl", &["rm"]), ("nerdctl", &["rmi"]), ("redis-cli", &["del"]),
    ("redis-cli", &["unlink"]), ("valkey-cli", &["del"]), ("valkey-cli", &["unlink"]),
    // What a container runs is judged as its own command.
    ("docker", &["exec"]), ("docker", &["run"]), ("docker", &["create"]), ("docker", &["container", "exec"]),
    ("docker", &["container", "run"]), ("docker", &["container", "create"]), ("docker", &["compose", "exec"]),
    ("docker", &["compose", "run"]), ("podman", &["exec"]), ("podman", &["run"]), ("podman", &["create"]),
    ("podman", &["container", "exec"]), ("podman", &["container", "run"]), ("podman", &["compose", "exec"]),
    ("podman", &["compose", "run"]), ("nerdctl", &["exec"]), ("nerdctl", &["run"]), ("kubectl", &["exec"]),
    ("kubectl", &["run"]), ("kubectl", &["debug"]), ("oc", &["exec"]), ("oc", &["run"]), ("oc", &["debug"]),
    ("oc", &["rsh"]), ("docker-compose", &["exec"]), ("docker-compose", &["run"]), ("podman-compose", &["exec"]),
    ("podman-compose", &["run"]), ("crictl", &["exec"]),
];

/// Options of these tools whose deleting name is not destructive (`docker run --rm` removes the
/// container it started when it exits).
const NOT_DESTRUCTIVE_OPTIONS: &[(&str, &[&str])] = &[
    ("docker", &["rm", "force-rm", "remove-orphans"]),
    ("podman", &["rm", "force-rm", "remove-orphans", "replace"]),
    ("nerdctl", &["rm"]),
    ("kubectl", &["rm"]),
    ("oc", &["rm"]),
    ("docker-compose", &["rm", "remove-orphans"]),
    ("podman-compose", &["rm", "remove-orphans"]),
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
                // A negated boolean (`--no-NAME`) takes no value.
                let next = args
                    .get(i)
                    .and_then(Arg::as_static)
                    .filter(|n| !n.starts_with('-') || n.parse::<f64>().is_ok())
                    .filter(|_| !body.to_ascii_lowercase().starts_with("no-"));
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

/// Whether a positional word reads as a subcommand: a letter, then letters, digits, `-` or `_`
/// (`s3api`, `delete-object`; not a number, a path or a name with dots).
fn is_word(w: &str) -> bool {
    w.chars().next().is_some_and(|c| c.is_ascii_alphabetic())
        && w.chars().all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
}

/// Whether a word (a subcommand, or an option's name) deletes by its meaning; for an option,
/// also when it abbreviates such a name.
pub(crate) fn deleting(word: &str, option: bool) -> Option<&'static str> {
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
            || (*v == "remove" && (w == "rm" || w == "rb" || (w.starts_with("rm") && w.len() > 2)))
            // An object's name then `del` (`userdel`, `acldel`, `groupdel`), as Proxmox's aliases spell it.
            || (*v == "delete" && !option && w.len() > 3 && w.ends_with("del") && !w.ends_with("odel"))
    })
}

/// Raises destructive for a managing tool's deleting subcommand or option, unless the rule
/// already found it so or a dry run asks only what would happen.
pub(crate) fn judge(an: &mut Analysis<'_>, base: &str, args: &[Arg], mark: usize) {
    if !MANAGING.contains(&base) || an.max_since(mark) == Some(Risk::Destructive) {
        return;
    }
    if let Some(why) = also_destructive(base, args) {
        return an.raise(DE, why);
    }
    // A subcommand the table lists is what the table says it is (`ceph osd safe-to-destroy`).
    if crate::table::table().get(base).and_then(|e| e.subcommand_level(args)).is_some() {
        return;
    }
    let words: Vec<&str> = args.iter().filter_map(Arg::as_static).collect();
    // The last word on it decides: a dry run undone later (`--no-dry-run`, `--dry-run=0`,
    // `--dry-run no`) is no dry run.
    let mut dry_run = false;
    for (i, w) in words.iter().enumerate() {
        let lower = w.to_ascii_lowercase();
        let (name, value) = match lower.split_once('=') {
            Some((n, v)) => (n, Some(v)),
            None => (lower.as_str(), None),
        };
        let off = |v: &str| matches!(v, "0" | "false" | "no" | "off" | "none");
        if matches!(name, "--dry-run" | "--dryrun" | "--dry_run" | "-dry-run" | "--simulate") {
            dry_run = !value.or(words.get(i + 1).copied()).is_some_and(off);
        } else if matches!(name, "--no-dry-run" | "--no-dryrun" | "--no-simulate") {
            dry_run = false;
        } else if matches!(base, "zfs" | "zpool") && w.starts_with('-') && !w.starts_with("--") && w.contains('n') {
            // ZFS's `-n` (`zfs destroy -nv`, `zpool remove -n`) only says what would happen.
            dry_run = true;
        }
    }
    if dry_run {
        return;
    }
    let (opts, positional) = getopt(args);
    // The subcommand path: the leading positional words that read as words.
    let path: Vec<&str> = positional.iter().map(String::as_str).take(3).take_while(|w| is_word(w)).collect();
    // Proxmox's tools destroy or take down by options and words that do not say so.
    if let Some(why) = super::pve_cli::judge(base, &path, &opts, &positional) {
        return an.raise(DE, format!("`{base} {}` {why}", path.join(" ")));
    }
    let exempt = NOT_DESTRUCTIVE.iter().any(|(p, prefix)| {
        *p == base && prefix.iter().enumerate().all(|(i, w)| path.get(i).is_some_and(|x| x.eq_ignore_ascii_case(w)))
    });
    if exempt {
        return;
    }
    // Outages and lockouts these tools spell without a deleting word.
    let lockout = match (base, path.as_slice()) {
        ("pvecm", ["expected", ..]) => Some("overrides the cluster's quorum, which risks a split brain"),
        ("pvenode", ["stopall", ..]) => Some("stops every guest on the node"),
        ("pveum", ["user", "modify" | "mod", ..]) => (positional.iter().any(|w| w == "root@pam")
            && opts.iter().any(|o| {
                (o.is("enable") && o.is_off()) || (o.is("expire") && o.value.as_deref().is_none_or(|v| v.trim() != "0"))
            }))
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
    let kept = NOT_DESTRUCTIVE_OPTIONS.iter().find(|(p, _)| *p == base).map_or(&[][..], |(_, o)| *o);
    if let Some((opt, verb)) = opts
        .iter()
        .filter(|o| !o.is_off() && !kept.contains(&o.name.as_str()))
        .find_map(|o| deleting(&o.name, true).map(|v| (o, v)))
    {
        an.raise(DE, format!("`{base} --{}` is a `{verb}`: it destroys what it names", opt.name));
    }
}

fn first_word(path: &[String]) -> Option<&str> {
    path.first().map(String::as_str)
}

/// A subcommand of a managing tool that destroys or takes down without a deleting word: listed
/// paths (`rclone sync`, `kubectl drain`), a workload scaled to nothing, every container stopped.
fn also_destructive(base: &str, args: &[Arg]) -> Option<String> {
    let (opts, positional) = getopt(args);
    let path: Vec<String> = positional.iter().take(3).map(|w| w.to_ascii_lowercase()).collect();
    // Every container at once (`--all`, or the ids `docker ps -q` lists) stopped, killed or removed.
    let containers = matches!(base, "docker" | "podman" | "nerdctl");
    let lifecycle = matches!(path.first().map(String::as_str), Some("stop" | "kill" | "rm" | "pause" | "restart"))
        || (path.first().is_some_and(|w| w == "container")
            && matches!(path.get(1).map(String::as_str), Some("stop" | "kill" | "rm")));
    if containers && lifecycle {
        let every = args.iter().any(|a| match a {
            Arg::Dynamic { text, .. } => text.contains(" ps") || text.contains("container ls"),
            Arg::Static(w) => {
                w == "--all"
                    || (w.starts_with('-')
                        && !w.starts_with("--")
                        && w.contains('a')
                        && path.first().is_none_or(|w| w != "rm"))
            }
        });
        if every {
            return Some(format!("`{base} {}` acts on every container at once", path.join(" ")));
        }
    }
    // A forced removal kills running containers first; plain removal takes only stopped ones.
    let removal = matches!(path.first().map(String::as_str), Some("rm" | "rmi"))
        || (path.first().is_some_and(|w| matches!(w.as_str(), "container" | "image" | "pod"))
            && path.get(1).is_some_and(|w| w == "rm"));
    let force = args.iter().filter_map(Arg::as_static).any(|w| {
        w == "--force" || w == "--force=true" || (w.starts_with('-') && !w.starts_with("--") && w.contains('f'))
    });
    if containers && removal && force {
        return Some(format!("`{base} {} -f` kills and removes running containers", path.join(" ")));
    }
    // A forced label is written over a tape that already holds backups, which are lost with it.
    let labels = matches!(first_word(&path), Some("label" | "barcode-label"));
    if base == "proxmox-tape" && labels && opts.iter().any(|o| o.is("force") && !o.is_off()) {
        return Some(format!("`{base} {} --force` relabels tapes that hold backups, losing them", path.join(" ")));
    }
    // Keys fed in from elsewhere (`--scan | xargs redis-cli del`): every key found is deleted.
    let redis = matches!(base, "redis-cli" | "valkey-cli" | "keydb-cli");
    if redis && matches!(path.first().map(String::as_str), Some("del" | "unlink")) && path.len() == 1 {
        return Some(format!("`{base} {}` deletes every key it is fed", path.join(" ")));
    }
    let exempt = NOT_DESTRUCTIVE
        .iter()
        .any(|(p, pre)| *p == base && pre.iter().enumerate().all(|(i, w)| path.get(i).is_some_and(|x| x == w)));
    if exempt {
        return None;
    }
    for (tool, prefix, why) in ALSO_DESTRUCTIVE {
        if *tool == base && prefix.iter().enumerate().all(|(i, p)| path.get(i).is_some_and(|w| w == p)) {
            return Some(format!("`{base} {}` {why}", prefix.join(" ")));
        }
    }
    let first = path.first().map(String::as_str);
    // An immediate stop skips the clean shutdown: the server needs crash recovery to come back.
    if matches!(base, "pg_ctl" | "pg_ctlcluster") && positional.iter().any(|w| matches!(w.as_str(), "stop" | "restart"))
    {
        let immediate = opts.iter().any(|o| {
            (o.name == "m" || o.is("mode"))
                && o.value.as_deref().is_some_and(|v| v.to_ascii_lowercase().starts_with('i'))
        }) || opts.iter().any(|o| o.name.starts_with("mi"));
        if immediate {
            return Some(format!("`{base} stop -m immediate` stops the server without a clean shutdown"));
        }
    }
    // `compose down -v` deletes the project's volumes with its containers.
    let compose =
        (matches!(base, "docker" | "podman") && first == Some("compose") && path.get(1).is_some_and(|w| w == "down"))
            || (matches!(base, "docker-compose" | "podman-compose") && first == Some("down"));
    let volumes = args.iter().filter_map(Arg::as_static).any(|w| {
        w == "--volumes" || w == "--volumes=true" || (w.starts_with('-') && !w.starts_with("--") && w.contains('v'))
    });
    if compose && volumes {
        return Some(format!("`{base} compose down -v` deletes the project's volumes"));
    }
    // Old backup sets are only deleted with `--force`; without it `cleanup` lists them.
    if matches!(base, "duplicity" | "duply") && first == Some("cleanup") && args.iter().any(|a| a.shown() == "--force")
    {
        return Some(format!("`{base} cleanup --force` deletes backup files"));
    }
    // A workload scaled to zero replicas serves nothing.
    if matches!(base, "kubectl" | "oc") && first == Some("scale") {
        let zero = opts.iter().any(|o| o.is("replicas") && o.value.as_deref().is_some_and(|v| v.trim() == "0"));
        if zero {
            return Some(format!("`{base} scale --replicas=0` takes the workload down"));
        }
    }
    None
}

/// Whether a word of an unknown program (its name's parts, a subcommand, an option's name)
/// names a deletion: a deleting word whole, `rm`/`del`/`rb` and the like, or (not in a name) a
/// word that starts with a strong one (`deletefile`, `--purge-all`). `format`, `free`, `kill`
/// and their like speak of output, memory or signals as often, so they do not count here.
fn deleting_strict(word: &str, name: bool) -> Option<&'static str> {
    let w = word.to_ascii_lowercase();
    if w.starts_with("no-") || w.starts_with("keep") || w.starts_with("skip") {
        return None;
    }
    // `:` parts a task's name (`db:drop`, `migrate:reset`, `doctrine:schema:drop`).
    let parts: Vec<&str> = w.split(['-', '_', '.', ':']).filter(|p| !p.is_empty()).collect();
    if parts.iter().any(|p| matches!(*p, "killall" | "nuke")) {
        return Some("kill");
    }
    if matches!(parts.as_slice(), ["rm" | "rb" | "del" | "rmi" | "rmdir" | "rmdirs", ..]) {
        return Some("remove");
    }
    const STRONG: &[&str] =
        &["delete", "destroy", "purge", "wipe", "remove", "drop", "erase", "uninstall", "flush", "prune", "truncate"];
    const WEAK: &[&str] = &["format", "free", "kill", "discard", "unlink", "revert", "shrink", "deactivate", "zap"];
    VERBS
        .iter()
        .copied()
        .filter(|v| !WEAK.contains(v))
        .find(|v| parts.contains(v) || (!name && STRONG.contains(v) && parts.iter().any(|p| p.starts_with(v))))
}

/// A program with no rule: when its name, subcommand or an option is a deleting word, it
/// destroys what it names (an unknown tool is never read-only; this only raises).
pub(crate) fn unknown(an: &mut Analysis<'_>, base: &str, args: &[Arg]) {
    let name = base.rsplit('/').next().unwrap_or(base);
    // A bare word (`drop`, `DROP TABLE x;` typed at the shell) is not a program's name that says
    // what it does; a name of several parts (`k3s-uninstall.sh`, `wipe-cache`) is.
    let several = name.split(['-', '_', '.']).filter(|p| !p.is_empty()).count() > 1;
    if let Some(verb) = deleting_strict(name, true).filter(|_| several) {
        return an.raise(DE, format!("`{name}` is named for a `{verb}`: it destroys what it names"));
    }
    let dry_run = args.iter().filter_map(Arg::as_static).any(|w| {
        let w = w.to_ascii_lowercase();
        w.starts_with("--dry-run") || w == "--dryrun" || w == "--simulate" || w == "--what-if"
    });
    if dry_run {
        return;
    }
    if let Some(why) = takes_down(args) {
        return an.raise(DE, format!("`{name}` {why}"));
    }
    // A management controller's shell (iLO, iDRAC, a BMC over ssh) takes its verb as the program:
    // `power off hard`, `power reset`, `reset /system1`, `stop /system1`.
    if let Some(why) = console_takes_down(name, args) {
        return an.raise(DE, format!("`{name}` {why}"));
    }
    // Raw bytes sent to a management controller (`ipmi-raw 0x0 0x02 …`) can power the machine
    // off or reset the controller; what they ask cannot be judged.
    let lower = name.to_ascii_lowercase();
    let raw =
        lower.contains("raw") || args.iter().any(|a| a.as_static().is_some_and(|w| w.eq_ignore_ascii_case("raw")));
    if raw && ["ipmi", "bmc", "redfish", "amt"].iter().any(|k| lower.contains(k)) {
        return an
            .raise(DE, format!("`{name}` sends raw commands to the management controller, which cannot be judged"));
    }
    let (opts, positional) = getopt(args);
    // Its action words, wherever they stand among the first operands (`storcli /c0/v1 del`), and
    // the tasks of application consoles (`rake db:drop`, `rails db:schema:load`).
    let path: Vec<&String> = positional.iter().take(4).filter(|w| is_word(w) || is_task(w)).collect();
    // A dump imported into the database (`wp db import`) replaces what it held.
    let said = |set: &[&str]| path.iter().any(|w| set.iter().any(|s| w.eq_ignore_ascii_case(s)));
    if said(&["db", "database", "sql"]) && said(&["import", "load"]) {
        return an.raise(DE, format!("`{name} db import` replaces the database's contents"));
    }
    for word in path {
        if let Some(verb) = deleting_strict(word, false) {
            return an.raise(DE, format!("`{name} {word}` is a `{verb}`: it destroys what it names"));
        }
        if let Some(why) = empties(word, &opts) {
            return an.raise(DE, format!("`{name} {word}` {why}"));
        }
        // Formatting is a disk's or a tape's content lost when it names a device or a drive
        // (`/dev/nst0`, `--drive lto1`), or the tool is a tape's.
        const DRIVE_OPTIONS: &[&str] = &["drive", "device", "dev", "tape", "changer", "disk"];
        let tape_tool = ["tape", "pmt", "lto", "mt"].iter().any(|t| lower.split(['-', '_', '.']).any(|p| p == *t));
        let device = tape_tool
            || args.iter().any(|a| a.shown().starts_with("/dev/"))
            || opts.iter().any(|o| DRIVE_OPTIONS.contains(&o.name.as_str()));
        if device && word.eq_ignore_ascii_case("format") {
            return an.raise(DE, format!("`{name} format` erases the device it names"));
        }
    }
    if let Some((opt, verb)) =
        opts.iter().filter(|o| !o.is_off()).find_map(|o| deleting_strict(&o.name, false).map(|v| (o, v)))
    {
        return an.raise(DE, format!("`{name} --{}` is a `{verb}`: it destroys what it names", opt.name));
    }
    // An option's value that asks for a deletion (`--tags destroy`, `-e state=absent`).
    const ASKS: &[&str] =
        &["delete", "destroy", "purge", "wipe", "remove", "drop", "erase", "uninstall", "prune", "truncate", "absent"];
    let asks = |v: &str| {
        let v = v.to_ascii_lowercase();
        v.split([',', '=', ' ', ':', ';']).find(|p| ASKS.contains(p)).map(str::to_string)
    };
    if let Some((opt, word)) = opts.iter().find_map(|o| o.value.as_deref().and_then(asks).map(|w| (o, w))) {
        let dash = if opt.name.chars().count() == 1 { "-" } else { "--" };
        an.raise(DE, format!("`{name} {dash}{}` asks for `{word}`: it destroys what it names", opt.name));
    }
}

/// A task's name as application consoles spell it: words joined by `:` (`db:drop`), or by `.`
/// when the last word is the action (`ecto.drop`; `drop.txt` is a file's name).
fn is_task(w: &str) -> bool {
    (w.contains(':') && w.split(':').all(is_word))
        || (w.contains('.')
            && w.split('.').all(is_word)
            && w.rsplit('.').next().is_some_and(|last| deleting_strict(last, false).is_some()))
}

/// Package managers' verbs that manage the project's packages rather than run its scripts.
#[rustfmt::skip]
const PACKAGE_VERBS: &[&str] = &[
    "install", "i", "add", "remove", "rm", "uninstall", "un", "upgrade", "update", "up", "link", "unlink", "publish",
    "pack", "cache", "config", "init", "create", "import", "prune", "dedupe", "why", "ls", "list", "info", "view",
    "outdated", "audit", "rebuild", "set", "patch", "patch-commit", "login", "logout", "owner", "team", "version",
    "workspace", "workspaces", "global", "bin", "node", "plugin", "policies", "constraints", "explain", "npm", "stage",
    "unplug", "tag", "ci", "test", "start", "build", "help", "store", "env", "licenses", "fetch", "setup", "upgrade-interactive",
];

/// `npm run TASK`, `pnpm exec TOOL …`, `yarn TOOL …`: a project's script or tool run by its
/// package manager is judged by its words as any unknown program is (`yarn prisma migrate reset`).
pub(crate) fn package_runner(an: &mut Analysis<'_>, base: &str, args: &[Arg]) {
    if !matches!(base, "npm" | "yarn" | "pnpm" | "bun") {
        return;
    }
    let (_, positional) = getopt(args);
    let Some(first) = positional.first() else { return };
    let runs = matches!(first.as_str(), "run" | "run-script" | "exec" | "dlx" | "x");
    let bin = base != "npm" && !runs && !PACKAGE_VERBS.contains(&first.as_str());
    let word = if runs { positional.get(1) } else { Some(first).filter(|_| bin) };
    let Some(word) = word else { return };
    let Some(at) = args.iter().position(|a| a.as_static() == Some(word.as_str())) else { return };
    let rest = args.get(at..).unwrap_or(&[]);
    unknown(an, base, rest);
}

/// An application's action that empties what it holds without a deleting word: a site or trash
/// emptied, accounts culled, the tables recreated from the schema or fixtures, every migration
/// run again from nothing (`wp site empty`, `tootctl accounts cull`, `rails db:schema:load`,
/// `artisan migrate:fresh`, `doctrine:fixtures:load` without `--append`).
fn empties(word: &str, opts: &[Opt]) -> Option<&'static str> {
    let w = word.to_ascii_lowercase();
    let parts: Vec<&str> = w.split([':', '-', '_']).filter(|p| !p.is_empty()).collect();
    let has = |p: &str| parts.contains(&p);
    if has("empty") || has("emptytrash") {
        return Some("empties what it names, deleting its contents");
    }
    if has("cull") {
        return Some("deletes the accounts it finds gone");
    }
    if has("fresh") || has("replant") || (has("migrate") && has("refresh")) {
        return Some("drops the tables and builds them again empty");
    }
    if (has("schema") || has("structure")) && has("load") {
        return Some("recreates every table from the schema, emptying it");
    }
    if has("fixtures") && has("load") && !opts.iter().any(|o| o.is("append")) {
        return Some("purges the database before loading fixtures");
    }
    if has("setup") && has("db") {
        return Some("recreates the database from the schema");
    }
    if has("downgrade") {
        return Some("undoes migrations, dropping the tables and columns they made");
    }
    if has("site") && (has("install") || has("reinstall")) {
        return Some("installs the site again over the one there, dropping its tables");
    }
    None
}

/// A word's parts in lower case, split at punctuation and where a capital follows a small letter
/// (`RequestPowerStateChange` is request, power, state, change; `POWER-DOWN` is power, down).
fn parts_of(word: &str) -> Vec<String> {
    let mut parts = Vec::new();
    let mut current = String::new();
    let mut prev_lower = false;
    for c in word.chars() {
        if !c.is_alphanumeric() {
            parts.push(std::mem::take(&mut current));
            prev_lower = false;
            continue;
        }
        if c.is_uppercase() && prev_lower {
            parts.push(std::mem::take(&mut current));
        }
        prev_lower = c.is_lowercase() || c.is_ascii_digit();
        current.extend(c.to_lowercase());
    }
    parts.push(current);
    parts.retain(|p| !p.is_empty());
    parts
}

/// The verbs of a management controller's command line, given as the program: `power` with an
/// action that is not a read, or `reset`/`stop` of a server target (`/system1`, `/admin1/system1`).
fn console_takes_down(name: &str, args: &[Arg]) -> Option<String> {
    let words: Vec<String> = args.iter().filter_map(Arg::as_static).map(str::to_ascii_lowercase).collect();
    let first = words.first().map(String::as_str).unwrap_or("");
    match name.to_ascii_lowercase().as_str() {
        "power" | "powerstate" | "chassis" | "serveraction"
            if matches!(
                first,
                "off"
                    | "down"
                    | "reset"
                    | "cycle"
                    | "warm"
                    | "cold"
                    | "hard"
                    | "soft"
                    | "powerdown"
                    | "powercycle"
                    | "hardreset"
                    | "graceshutdown"
                    | "power"
            ) =>
        {
            Some("turns the server's power off or resets it".to_string())
        }
        "reset" | "stop" | "restart"
            if words.iter().any(|w| w.starts_with("/system") || w.starts_with("/admin") || w.starts_with("/map")) =>
        {
            Some("resets or stops the server through its management controller".to_string())
        }
        _ => None,
    }
}

/// What an unknown tool's words ask of a machine or its state when that is an outage or a loss:
/// powering it off, cycling, resetting or rebooting it (`amttool HOST powerdown`, `wsman invoke -a
/// RequestPowerStateChange`, `tool power -d`), or putting an old state in place of the current
/// one (`restore`, `overwrite`, `reinit`, `factory`). Reading a power state is not.
fn takes_down(args: &[Arg]) -> Option<String> {
    const DOWN: &[&str] = &["reboot", "poweroff", "powerdown", "powercycle", "shutdown", "halt", "kexec", "powerreset"];
    const POWER_ACTS: &[&str] = &["off", "down", "cycle", "reset", "change", "set", "control", "hard", "soft", "kill"];
    const READS: &[&str] = &["status", "stat", "get", "show", "query", "info", "list", "print", "read", "on", "up"];
    const JOINED_DOWN: &[&str] = &[
        "poweroff",
        "powerdown",
        "powercycle",
        "forceoff",
        "forcerestart",
        "gracefulshutdown",
        "gracefulrestart",
        "coldreset",
        "warmreset",
        "hardreset",
        "forcereboot",
    ];
    const REPLACES: &[&str] = &["restore", "overwrite", "reinit", "reinitialize", "reimage", "factory", "reflash"];
    let words: Vec<&str> = args.iter().filter_map(Arg::as_static).collect();
    let all: Vec<Vec<String>> = words.iter().map(|w| parts_of(w)).collect();
    let reads = all.iter().flatten().any(|p| READS.contains(&p.as_str()));
    for (i, parts) in all.iter().enumerate() {
        let has = |set: &[&str]| parts.iter().find(|p| set.contains(&p.as_str())).cloned();
        if let Some(p) = has(DOWN) {
            return Some(format!("asks for `{p}`: it takes the machine down"));
        }
        // Written as one word of several (`ForceOff`, `POWER_OFF`, `GracefulShutdown`).
        let joined = parts.concat();
        let reads_here = parts.iter().any(|p| READS.contains(&p.as_str()));
        if let Some(p) = JOINED_DOWN.iter().find(|d| joined.contains(*d)).filter(|_| !reads_here) {
            return Some(format!("asks for `{p}`: it takes the machine down"));
        }
        if parts.iter().any(|p| p == "power") {
            // `power off`, `POWER-DOWN`, `PowerStateChange`; `power` followed by an action word
            // that is not a read (`power -d`, `power cycle`).
            let act = has(POWER_ACTS);
            let next = all.get(i + 1).filter(|n| !n.is_empty() && parts.len() == 1);
            let next_acts = next.is_some_and(|n| !n.iter().any(|p| READS.contains(&p.as_str())));
            if act.is_some() || (next_acts && !reads) {
                return Some("changes a machine's power state: it takes the machine down".into());
            }
        }
        // `--revertTPer`, `--PSIDrevert`: a drive or device put back to its factory state.
        if joined.contains("revert") || joined.contains("factoryreset") {
            return Some("reverts a device to its factory state, erasing what it holds".into());
        }
        if let Some(p) = has(REPLACES).filter(|_| i < 6) {
            return Some(format!("asks for `{p}`: it puts other contents in place of what is there"));
        }
    }
    None
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
