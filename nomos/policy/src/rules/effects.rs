//! Outages and data loss by effect in the tools that manage power, management controllers,
//! arrays, encryption, volumes, kernels, namespaces, load and the node's identity: powering off or
//! resetting through a BMC or AMT, cutting the BMC's own network or users, failing or stopping an
//! array, erasing or replacing a LUKS header, labelling a device as a PV or swap, shrinking a
//! filesystem, rewinding or injecting faults into a pool, deleting the initramfs, unmounting the
//! cluster's or the guests' filesystems lazily, deleting a
//! network namespace, exhausting memory or CPU on purpose, a new cluster key, renaming a cluster
//! node, limiting a vital process to death. Reads of the same tools stay as their rules say.

use nomos_types::Risk::{ConfigMutation as CM, Destructive as DE};

use crate::paths::{is_block_device, normalise};
use crate::shell::{Analysis, Arg};

/// Mount points whose loss (even a lazy unmount) takes the system, the cluster's configuration
/// or the guests' storage away.
#[rustfmt::skip]
const VITAL_MOUNTS: &[&str] = &[
    "/", "/etc/pve", "/var/lib/vz", "/var/lib/ceph", "/var/lib/pve-cluster", "/boot", "/boot/efi", "/usr", "/var",
    "/home", "/srv", "/run", "/proc", "/sys", "/dev", "/etc", "/root", "/var/lib", "/var/log", "/tmp",
];

/// Directories whose mounts are datastores and guests' storage.
const VITAL_MOUNT_PARENTS: &[&str] = &["/mnt/pve/", "/mnt/datastore/", "/var/lib/vz/", "/rpool", "/var/lib/ceph/"];

fn is_vital_mount(path: &str) -> bool {
    let p = normalise(path);
    let trimmed = p.trim_end_matches('/');
    let p = if trimmed.is_empty() { "/" } else { trimmed };
    VITAL_MOUNTS.contains(&p) || VITAL_MOUNT_PARENTS.iter().any(|d| p.starts_with(d) || format!("{p}/") == *d)
}

/// The static words, in lower case.
fn lower(args: &[Arg]) -> Vec<String> {
    args.iter().filter_map(Arg::as_static).map(str::to_ascii_lowercase).collect()
}

/// The static words as written.
fn statics(args: &[Arg]) -> Vec<&str> {
    args.iter().filter_map(Arg::as_static).collect()
}

/// Whether a short-option cluster (`-uz`) holds `c`.
fn cluster_has(word: &str, c: char) -> bool {
    word.starts_with('-') && !word.starts_with("--") && word.chars().skip(1).any(|x| x == c)
}

/// Words that are not options, skipping the values of `valued` options.
fn operands<'a>(words: &[&'a str], valued: &[&str]) -> Vec<&'a str> {
    let mut out = Vec::new();
    let mut skip = false;
    for w in words {
        if skip {
            skip = false;
            continue;
        }
        if w.starts_with('-') && w.len() > 1 {
            skip = valued.contains(w);
            continue;
        }
        out.push(*w);
    }
    out
}

/// Raises destructive (or a change) for what `base` does by its effect; see the module's description.
pub(crate) fn judge(an: &mut Analysis<'_>, base: &str, args: &[Arg]) {
    let why = match base {
        "ipmitool" => ipmitool(args),
        "ipmi-chassis" => chassis_control(args),
        "ipmipower" => ipmipower(args),
        "ipmiutil" => ipmiutil(args),
        "amttool" => amttool(args),
        "wsman" | "wsmancli" => wsman(args),
        "mdadm" => mdadm(args),
        "cryptsetup" => cryptsetup(args),
        "vgcreate" | "pvcreate" | "vgextend" | "mkswap" => labels_device(base, args),
        "btrfs" => btrfs_shrink(args),
        "zdb" => zdb(args),
        "zinject" => zinject(args),
        "update-initramfs" => initramfs(args),
        "fusermount" | "fusermount3" | "umount" => lazy_unmount(base, args),
        "ip" => netns_delete(args),
        "stress" | "stress-ng" | "memtester" | "stressapptest" => exhausts(base, args),
        "corosync-keygen" => corosync_keygen(args),
        "corosync-cfgtool" => corosync_cfgtool(args),
        "hostnamectl" => hostnamectl(args),
        "hostname" => hostname(args),
        "pmxcfs" => pmxcfs(args),
        "prlimit" => prlimit(args),
        "nmcli" => nmcli_hostname(args),
        "sysctl" => sysctl_hostname(args),
        "upsdrvctl" | "upscmd" | "upsmon" => ups(base, args),
        _ => None,
    };
    if let Some(why) = why {
        return an.raise(DE, format!("`{base}` {why}"));
    }
    // `taskset -p PID`, `chrt -p PID` and `ionice -p PID` only print; a value before the pid sets.
    let words = statics(args);
    // Only the processes `-p` names are judged here (`ionice -c3 CMD` runs a command).
    let by_pid = base == "renice" || words.iter().any(|w| *w == "--pid" || cluster_has(w, 'p'));
    let sets = by_pid
        && match base {
            "renice" => true,
            "ionice" => words.iter().any(|w| w.starts_with("-c") || w.starts_with("-n") || w.starts_with("--class")),
            _ => operands(&words, &[]).len() + args.iter().filter(|a| a.as_static().is_none()).count() >= 2,
        };
    if sets && matches!(base, "renice" | "chrt" | "taskset" | "ionice") {
        if let Some(name) =
            args.iter().flat_map(super::signals::pid_texts).find_map(|t| super::signals::names_lifeline(&t))
        {
            an.raise(CM, format!("`{base}` changes how `{name}` is scheduled, which it and what depends on it feel"));
        }
    }
}

/// `ipmitool [-I iface -H host -U user -P pass …] COMMAND …`.
fn ipmitool(args: &[Arg]) -> Option<String> {
    // Options are read as written (`-E` is a flag, `-e` takes a value); the rest in lower case.
    let words = statics(args);
    #[rustfmt::skip]
    let valued = [
        "-I", "-H", "-U", "-P", "-p", "-L", "-A", "-C", "-k", "-y", "-f", "-e", "-o", "-O", "-b", "-t", "-T", "-B",
        "-m", "-l", "-N", "-R", "-z", "-d", "-S", "-D",
    ];
    let lowered: Vec<String> = operands(&words, &valued).iter().map(|w| w.to_ascii_lowercase()).collect();
    let ops: Vec<&str> = lowered.iter().map(String::as_str).collect();
    let has = |w: &str| ops.contains(&w);
    let sub = ops.first().copied().unwrap_or("");
    let next = ops.get(1).copied().unwrap_or("");
    let power_verbs = ["off", "cycle", "reset", "soft", "diag"];
    match sub {
        "chassis" | "power" if (sub == "power" || next == "power") && ops.iter().any(|w| power_verbs.contains(w)) => {
            Some("powers the machine off, cycles or resets it".into())
        }
        "mc" if next == "reset" => {
            Some("resets the management controller, cutting out-of-band access meanwhile".into())
        }
        "bmc" if next == "reset" => {
            Some("resets the management controller, cutting out-of-band access meanwhile".into())
        }
        "channel" if next == "setaccess" && ops.iter().any(|w| w.ends_with("=off")) => {
            Some("turns a channel's access off, locking the management controller out".into())
        }
        "lan" if next == "set" => {
            let cuts = ["ipsrc", "ipaddr", "netmask", "defgw", "vlan", "access", "auth", "password", "cipher_privs"];
            ops.iter()
                .find(|w| cuts.contains(w))
                .map(|w| format!("changes the management controller's network (`{w}`), which can cut it off"))
        }
        "user" if matches!(next, "disable" | "priv" | "set") || has("password") => {
            Some("disables or changes a management controller's user, which can lock the operator out".into())
        }
        "sel" if next == "clear" => Some("clears the hardware event log for good".into()),
        "raw" => {
            // NetFn 0x00 (chassis) command 0x02 is chassis control; 0x06 0x02/0x03 resets the BMC.
            let bytes: Vec<u64> = ops.iter().skip(1).filter_map(|w| parse_byte(w)).collect();
            match bytes.as_slice() {
                [0x00, 0x02, ..] => Some("sends a raw chassis control (power off, cycle or reset)".into()),
                [0x06, 0x02 | 0x03, ..] => Some("sends a raw reset to the management controller".into()),
                [0x06, 0x40 | 0x41, ..] | [0x0c, 0x01, ..] => {
                    Some("sends a raw change of the controller's channel or network settings".into())
                }
                _ => None,
            }
        }
        _ => None,
    }
}

fn parse_byte(w: &str) -> Option<u64> {
    match w.strip_prefix("0x") {
        Some(hex) => u64::from_str_radix(hex, 16).ok(),
        None => w.parse().ok(),
    }
}

/// `ipmi-chassis --chassis-control=POWER-DOWN` (FreeIPMI).
fn chassis_control(args: &[Arg]) -> Option<String> {
    let words = lower(args);
    let value = words.iter().enumerate().find_map(|(i, w)| {
        w.strip_prefix("--chassis-control=")
            .map(str::to_string)
            .or_else(|| (w == "--chassis-control").then(|| words.get(i + 1).cloned().unwrap_or_default()))
    })?;
    (!matches!(value.as_str(), "power-up" | "power-on"))
        .then(|| format!("sends chassis control `{value}`, which powers the machine off, cycles or resets it"))
}

/// `ipmipower -h HOST --off|--cycle|--reset|--soft|--pulse` (`-f -c -r -m -j`).
fn ipmipower(args: &[Arg]) -> Option<String> {
    let words = lower(args);
    let long = ["--off", "--cycle", "--reset", "--soft", "--pulse", "--diag"];
    words
        .iter()
        .any(|w| {
            long.contains(&w.as_str()) || ['f', 'c', 'r', 'm', 'j'].iter().any(|c| cluster_has(w, *c) && w.len() == 2)
        })
        .then(|| "powers machines off, cycles or resets them".into())
}

/// `ipmiutil power|reset -d|-r|-c|-D|-h|-k|-n|-o|-s …`.
fn ipmiutil(args: &[Arg]) -> Option<String> {
    let words = statics(args);
    let sub = words.first().copied().unwrap_or("");
    if matches!(sub, "power" | "reset") {
        let acts = ['d', 'r', 'c', 'D', 'h', 'k', 'n', 'o', 's', 'e', 'm'];
        if words.iter().any(|w| w.len() == 2 && acts.iter().any(|c| cluster_has(w, *c))) {
            return Some("powers the machine off, cycles or resets it (or its controller)".into());
        }
    }
    if matches!(sub, "lan" | "user") && words.iter().any(|w| matches!(*w, "-d" | "-l" | "-D")) {
        return Some("disables the management controller's network or users".into());
    }
    None
}

/// `amttool HOST powerdown|reset|powercycle`.
fn amttool(args: &[Arg]) -> Option<String> {
    lower(args)
        .iter()
        .find(|w| matches!(w.as_str(), "powerdown" | "reset" | "powercycle" | "poweroff"))
        .map(|w| format!("`{w}` powers the machine off or resets it through AMT"))
}

/// `wsman invoke -a RequestPowerStateChange … -k PowerState=N`: only 2 (on) is harmless.
fn wsman(args: &[Arg]) -> Option<String> {
    let words = lower(args);
    if !words.iter().any(|w| w.contains("requestpowerstatechange") || w.contains("setbootconfigrole")) {
        return None;
    }
    let on = words.iter().any(|w| w == "powerstate=2") && !words.iter().any(|w| w.contains("setbootconfigrole"));
    (!on).then(|| "asks for a power state change: off, cycle or reset".into())
}

/// `mdadm`: failing, removing or stopping members and arrays, erasing superblocks, reshaping,
/// creating over devices, in any mode's spelling.
fn mdadm(args: &[Arg]) -> Option<String> {
    let words = statics(args);
    let reads = words.iter().any(|w| {
        matches!(
            *w,
            "-D" | "--detail" | "-E" | "--examine" | "-Q" | "--query" | "--detail-platform" | "-X" | "--examine-bitmap"
        )
    });
    let assembling = words.iter().any(|w| matches!(*w, "-A" | "--assemble" | "-I" | "--incremental"));
    let found = words.iter().find(|w| {
        let name = w.split('=').next().unwrap_or(w);
        matches!(
            name,
            "--fail"
                | "--set-faulty"
                | "--remove"
                | "--stop"
                | "--zero-superblock"
                | "--grow"
                | "--create"
                | "--kill-subarray"
                | "--replace"
                | "--build"
                | "--update-subarray"
        ) || (!assembling && matches!(name, "-f" | "-r"))
            || matches!(name, "-S" | "-G" | "-C" | "-B")
    });
    match found {
        Some(w) if !reads || matches!(*w, "--zero-superblock" | "--stop" | "-S") => {
            Some(format!("`{w}` fails, removes or stops an array's disks, or rewrites the array"))
        }
        _ => None,
    }
}

/// `cryptsetup`: actions that destroy or replace keys or headers, or rewrite the volume.
fn cryptsetup(args: &[Arg]) -> Option<String> {
    const DESTROYING: &[&str] = &[
        "luksheaderrestore",
        "lukserase",
        "erase",
        "lukskillslot",
        "luksremovekey",
        "luksformat",
        "reencrypt",
        "convert",
        "tcryptformat",
    ];
    let words = lower(args);
    if words.iter().any(|w| w == "lukssuspend") {
        return Some("`luksSuspend` freezes all I/O to the volume until its key is given again".into());
    }
    words
        .iter()
        .filter(|w| !w.starts_with('-'))
        .find(|w| DESTROYING.contains(&w.as_str()))
        .map(|w| format!("`{w}` destroys or replaces the keys or header a volume is opened with"))
        .or_else(|| {
            words
                .iter()
                .any(|w| w.starts_with("--encrypt") || w.starts_with("--decrypt"))
                .then(|| "rewrites the whole volume in place".into())
        })
}

/// `vgcreate VG DEV…`, `pvcreate DEV`, `vgextend VG DEV`, `mkswap DEV`: a new label written over
/// what the device held.
fn labels_device(base: &str, args: &[Arg]) -> Option<String> {
    let words = statics(args);
    if words.iter().any(|w| matches!(*w, "--help" | "-h" | "--version" | "-V" | "--test" | "-t")) {
        return None;
    }
    let what = if base == "mkswap" { "swap" } else { "an LVM label" };
    words
        .iter()
        .find(|w| !w.starts_with('-') && is_block_device(w))
        .map(|d| format!("writes {what} over {d}, destroying what it held"))
}

/// `btrfs filesystem resize [devid:]-SIZE|SIZE PATH`: a shrink (or an absolute size, which may be
/// one) moves data off the end and drops it.
fn btrfs_shrink(args: &[Arg]) -> Option<String> {
    let words = lower(args);
    let ops: Vec<&str> = words.iter().map(String::as_str).filter(|w| !matches!(*w, "--enqueue")).collect();
    let fs = ops.iter().position(|w| "filesystem".starts_with(*w) && w.len() >= 2)?;
    if !ops.get(fs + 1).is_some_and(|w| "resize".starts_with(*w) && w.len() >= 3) {
        return None;
    }
    let size = ops.get(fs + 2)?;
    let amount = size.rsplit(':').next().unwrap_or(size);
    (amount != "max" && !amount.starts_with('+'))
        .then(|| format!("resize `{size}` shrinks the filesystem (or may), which drops what lies past the new end"))
}

/// `zdb -F`/`-X`: rewinds a pool to an older transaction on import.
fn zdb(args: &[Arg]) -> Option<String> {
    statics(args)
        .iter()
        .any(|w| cluster_has(w, 'F') || cluster_has(w, 'X'))
        .then(|| "`-F`/`-X` rewinds the pool to an older transaction, losing what came after".into())
}

/// `zinject`: without arguments it lists, `-c` clears; anything else injects faults into a pool.
fn zinject(args: &[Arg]) -> Option<String> {
    let words = statics(args);
    (!words.is_empty() && !words.iter().any(|w| *w == "-c" || *w == "-h" || *w == "--help"))
        .then(|| "injects faults into a pool, which can fault its disks and stall its I/O".into())
}

/// `update-initramfs -d`: deletes the initramfs the kernel boots with.
fn initramfs(args: &[Arg]) -> Option<String> {
    statics(args)
        .iter()
        .any(|w| cluster_has(w, 'd'))
        .then(|| "`-d` deletes the initramfs, and the machine cannot boot that kernel".into())
}

/// `fusermount -u[z] MOUNT`, `umount -l MOUNT`: unmounting the cluster's configuration, the root
/// or a datastore pulls it from under everything using it.
fn lazy_unmount(base: &str, args: &[Arg]) -> Option<String> {
    let words = statics(args);
    let unmounts = base == "umount" || words.iter().any(|w| cluster_has(w, 'u') || *w == "--unmount");
    if !unmounts {
        return None;
    }
    words
        .iter()
        .filter(|w| !w.starts_with('-'))
        .find(|w| is_vital_mount(w))
        .map(|m| format!("unmounts {m}, pulling it from under the cluster, the system or the guests"))
}

/// `ip [-all] netns delete NAME`: the namespace's interfaces go with it.
fn netns_delete(args: &[Arg]) -> Option<String> {
    let words = lower(args);
    let ops: Vec<&str> = words.iter().map(String::as_str).filter(|w| !w.starts_with('-')).collect();
    let object = ops.first().copied().unwrap_or("");
    let verb = ops.get(1).copied().unwrap_or("");
    (matches!(object, "net" | "netn" | "netns") && !verb.is_empty() && "delete".starts_with(verb))
        .then(|| "deletes a network namespace and the interfaces and links in it".into())
}

/// `stress`, `stress-ng`, `memtester`: load made on purpose to exhaust memory or CPU.
fn exhausts(base: &str, args: &[Arg]) -> Option<String> {
    let words = statics(args);
    let harmless = |w: &&str| {
        matches!(*w, "--help" | "-h" | "--version" | "-V" | "--dry-run" | "-n" | "--cmds" | "--stressors" | "--class")
            || w.starts_with("--class=")
    };
    if words.is_empty() || words.iter().any(harmless) {
        return None;
    }
    Some(match base {
        "memtester" => "locks and tests memory, starving everything else of it".into(),
        _ => "loads the machine on purpose, exhausting its memory or CPU".into(),
    })
}

/// `corosync-keygen`: a new key splits this node from the rest of the cluster.
fn corosync_keygen(args: &[Arg]) -> Option<String> {
    (!statics(args).iter().any(|w| matches!(*w, "-h" | "--help")))
        .then(|| "writes a new cluster key, splitting this node from the rest of the cluster".into())
}

/// `corosync-cfgtool -H` shuts corosync down; `-k NODEID` kills a node.
fn corosync_cfgtool(args: &[Arg]) -> Option<String> {
    statics(args)
        .iter()
        .any(|w| cluster_has(w, 'H') || cluster_has(w, 'k'))
        .then(|| "shuts the cluster engine down or kills a node out of the cluster".into())
}

/// `hostnamectl set-hostname NAME` (or `hostname NAME`): a renamed Proxmox node loses its place in
/// the cluster and its guests' configuration directory; the pretty name alone is harmless.
fn hostnamectl(args: &[Arg]) -> Option<String> {
    let words = statics(args);
    let ops = operands(&words, &["-H", "--host", "-M", "--machine", "--json"]);
    let pretty_only = words.contains(&"--pretty") && !words.iter().any(|w| matches!(*w, "--static" | "--transient"));
    match ops.as_slice() {
        ["set-hostname" | "hostname", name, ..] if !pretty_only => {
            Some(format!("renames the node to `{name}`, {RENAMED}"))
        }
        _ => None,
    }
}

const RENAMED: &str = "which on a cluster node loses its guests' configuration and its place in the cluster";

/// `hostname NAME`, `hostname -F FILE`, `hostname -b NAME`.
fn hostname(args: &[Arg]) -> Option<String> {
    let words = statics(args);
    // `--file` in any abbreviation (`--fil=`), or `-F` in a cluster (`-bF`).
    let file = |w: &&str| {
        let name = w.split('=').next().unwrap_or(w);
        (name.len() >= 4 && "--file".starts_with(name)) || cluster_has(w, 'F')
    };
    if words.iter().any(file) {
        return Some(format!("sets the node's name from a file, {RENAMED}"));
    }
    operands(&words, &[]).first().map(|name| format!("renames the node to `{name}`, {RENAMED}"))
}

/// `pmxcfs -l`: the cluster filesystem in local mode, apart from the cluster's.
fn pmxcfs(args: &[Arg]) -> Option<String> {
    statics(args)
        .iter()
        .any(|w| cluster_has(w, 'l') || *w == "--local")
        .then(|| "`-l` runs the cluster filesystem apart from the cluster, whose changes then diverge".into())
}

/// Limits that starve a process: too few files or processes, too little memory, any CPU time.
fn starving(name: &str, value: &str) -> bool {
    let numbers: Vec<Option<u64>> = value
        .split(':')
        .filter(|v| !v.is_empty())
        .map(|v| if v == "unlimited" || v == "infinity" { Some(u64::MAX) } else { v.parse().ok() })
        .collect();
    if numbers.is_empty() {
        return false;
    }
    let floor: u64 = match name {
        "nofile" | "n" | "nproc" | "u" | "sigpending" | "i" | "locks" | "x" => 1024,
        "as" | "v" | "data" | "d" | "rss" | "m" | "stack" | "s" | "memlock" | "l" | "fsize" | "f" => 256 << 20,
        "cpu" | "t" => u64::MAX,
        _ => 0,
    };
    numbers.iter().any(|n| n.is_none_or(|n| n < floor))
}

/// `prlimit --pid PID --nofile=3:3`: a vital process left without files, processes or memory dies
/// or stops serving.
fn prlimit(args: &[Arg]) -> Option<String> {
    let mut pids: Vec<&Arg> = Vec::new();
    let mut attached: Vec<Arg> = Vec::new();
    let mut starves = false;
    let mut i = 0;
    while let Some(arg) = args.get(i) {
        i += 1;
        let Some(w) = arg.as_static() else {
            // `--pid=$(pidof corosync)`: the lookup is in the word.
            if arg.shown().starts_with("--pid=") || arg.shown().starts_with("-p") {
                pids.push(arg);
            }
            continue;
        };
        if matches!(w, "-p" | "--pid") {
            if let Some(p) = args.get(i) {
                pids.push(p);
            }
            i += 1;
            continue;
        }
        // `--pid=1`, `-p1`: the pid attached.
        if let Some(pid) = w.strip_prefix("--pid=").or_else(|| w.strip_prefix("-p").filter(|r| !r.is_empty())) {
            let pid = pid.trim_start_matches('=');
            attached.push(Arg::Static(pid.to_string()));
            continue;
        }
        if let Some(rest) = w.strip_prefix("--") {
            let (name, value) = match rest.split_once('=') {
                Some((n, v)) => (n, Some(v.to_string())),
                None => (rest, None),
            };
            if let Some(value) = value {
                starves |= starving(name, &value);
            }
        } else if let Some(rest) = w.strip_prefix('-') {
            let mut chars = rest.chars();
            if let Some(c) = chars.next() {
                let value = chars.as_str().trim_start_matches('=');
                if !value.is_empty() {
                    starves |= starving(&c.to_string(), value);
                }
            }
        }
    }
    if !starves {
        return None;
    }
    pids.extend(attached.iter());
    pids.iter().find_map(|p| {
        super::signals::pid_texts(p).iter().find_map(|t| {
            let vital = matches!(t.as_str(), "1" | "$$" | "$PPID") || t.parse::<i64>().is_ok_and(|n| n == 1);
            if vital {
                Some("limits init (or its own session) to death, taking the machine down".to_string())
            } else {
                super::signals::names_lifeline(t)
                    .map(|n| format!("limits `{n}` to death, cutting off access or the cluster"))
            }
        })
    })
}

/// `nmcli general hostname NAME` (any abbreviation of `general`): the node renamed.
fn nmcli_hostname(args: &[Arg]) -> Option<String> {
    let words = statics(args);
    let ops =
        operands(&words, &["-f", "--fields", "-g", "--get-values", "-e", "--escape", "-c", "--colors", "-w", "--wait"]);
    match ops.as_slice() {
        [object, "hostname", name, ..] if !object.is_empty() && "general".starts_with(*object) => {
            Some(format!("renames the node to `{name}`, {RENAMED}"))
        }
        _ => None,
    }
}

/// `sysctl [-w] kernel.hostname=NAME` (or `kernel/hostname`).
fn sysctl_hostname(args: &[Arg]) -> Option<String> {
    statics(args)
        .iter()
        .find_map(|w| w.strip_prefix("kernel.hostname=").or_else(|| w.strip_prefix("kernel/hostname=")))
        .map(|name| format!("renames the node to `{name}`, {RENAMED}"))
}

/// UPS tools: shutting the UPS down (or telling every machine on it to) cuts the power.
fn ups(base: &str, args: &[Arg]) -> Option<String> {
    let words = lower(args);
    let hit = match base {
        "upsdrvctl" => words.iter().any(|w| w == "shutdown"),
        "upsmon" => words.windows(2).any(|p| {
            p.first().is_some_and(|a| a == "-c") && p.get(1).is_some_and(|b| matches!(b.as_str(), "fsd" | "stop"))
        }),
        _ => words.iter().any(|w| w.starts_with("load.off") || w.starts_with("shutdown.") || w == "load.cycle"),
    };
    hit.then(|| "cuts the power the UPS feeds, shutting the machines on it down".into())
}
