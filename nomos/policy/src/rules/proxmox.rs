//! Proxmox and Ceph tools whose rule needs code: guests (`pct`, `qm`, including what runs inside
//! them), the API (`pvesh`), Ceph's object and block tools, and the management controller.

use nomos_types::Risk::{ConfigMutation as CM, Destructive as DE, ReversibleLow as RL};

use super::ro;
use super::Args;
use crate::shell::{Analysis, Arg, Stdin};

/// `pct`: queries read, lifecycle restarts, destroy and rollback destroy, `exec` is judged by what it runs.
pub(super) fn pct(an: &mut Analysis<'_>, _base: &str, a: &Args<'_>, stdin: &Stdin) {
    match a.sub(&[]) {
        // `pct exec <vmid> [<extra-args>] [--keep-env <boolean>]`
        Some((i, "exec")) => guest_command(an, "pct exec", a.tail_from(i + 2), &[], &["keep-env"], stdin),
        Some((_, s)) => match s {
            "list" | "status" | "config" | "pending" | "listsnapshot" | "df" | "cpusets" | "help" => {
                ro(an, format!("`pct {s}` only reports"))
            }
            // A stop or a shutdown takes down what the container serves; a restart brings it back.
            "stop" | "shutdown" | "suspend" => {
                an.raise(DE, format!("`pct {s}` takes the container down: what it serves stops"))
            }
            "start" | "reboot" | "resume" => an.raise(RL, format!("`pct {s}` starts or restarts a container")),
            "destroy" | "rollback" | "delsnapshot" => an.raise(DE, format!("`pct {s}` destroys container data")),
            "set" if super::meaning::config_delete_destroys(&super::meaning::getopt(a.all).0).is_some() => {
                an.raise(DE, "`pct set --delete` of a mount point or unused volume frees the volume")
            }
            "move-volume" | "move_volume" if deletes_source(a) => {
                an.raise(DE, format!("`pct {s} --delete` deletes the volume it moved from"))
            }
            "restore" if a.long("--force") => an.raise(DE, "`pct restore --force` overwrites a container"),
            "enter" | "console" => {
                an.raise(CM, format!("`pct {s}` opens an interactive shell"));
                // What flows into the shell is run there as root.
                for text in &stdin.texts {
                    an.script(text);
                }
            }
            // `pct push <vmid> <file> <destination>`: a file written into the container.
            "push" => match super::meaning::getopt(a.all).1.get(3).filter(guest_system_path) {
                Some(dest) => an.raise(DE, format!("`pct push` overwrites {dest}, which the container runs from")),
                None => an.raise(CM, "`pct push` writes a file into a container"),
            },
            _ => an.raise(CM, format!("`pct {s}` changes a container")),
        },
        None => ro(an, "`pct` without a command prints help"),
    }
}

/// `qm`: like `pct`, plus the guest agent.
pub(super) fn qm(an: &mut Analysis<'_>, _base: &str, a: &Args<'_>, stdin: &Stdin) {
    match a.sub(&[]) {
        Some((i, "agent")) => match a.all.get(i + 2).and_then(Arg::as_static) {
            Some(c)
                if c.starts_with("get-")
                    || matches!(c, "info" | "ping" | "network-get-interfaces" | "fsfreeze-status") =>
            {
                ro(an, format!("`qm agent {c}` only reports"))
            }
            Some(c) if agent_takes_down(c) => an.raise(DE, format!("`qm agent {c}` {}", AGENT_DOWN)),
            _ => an.raise(CM, "`qm agent` changes the guest"),
        },
        Some((i, "guest")) => match a.all.get(i + 1).and_then(Arg::as_static) {
            // `qm guest exec <vmid> [<extra-args>] [--pass-stdin <boolean>] [--synchronous <boolean>]
            // [--timeout <integer>]`
            Some("exec") => {
                // The guest agent runs it as the guest's administrator: it is judged as that
                // command run here would be. A script fed to it that cannot be seen can do anything.
                let tail = a.tail_from(i + 3);
                let runs_script = tail.iter().filter_map(Arg::as_static).any(|w| {
                    let base = w.rsplit('/').next().unwrap_or(w);
                    super::interpreters::is_interpreter(base) || super::interpreters::SHELLS.contains(&base)
                });
                if pve_flag(a, "pass-stdin") && stdin.unknown && runs_script {
                    an.raise(DE, "`qm guest exec --pass-stdin` runs a script that cannot be seen as the guest's root");
                }
                guest_command(
                    an,
                    "qm guest exec",
                    a.tail_from(i + 3),
                    &["timeout"],
                    &["pass-stdin", "synchronous"],
                    stdin,
                )
            }
            // `qm guest file-write <vmid> <file> <content>`
            Some("file-write") => match super::meaning::getopt(a.all).1.get(3).filter(guest_system_path) {
                Some(file) => {
                    an.raise(DE, format!("`qm guest file-write` overwrites {file}, which the guest runs from"))
                }
                None => an.raise(CM, "`qm guest file-write` writes a file in the guest"),
            },
            Some("exec-status") => ro(an, "`qm guest exec-status` only reports"),
            Some("cmd") => match a.all.get(i + 3).and_then(Arg::as_static) {
                Some(c)
                    if c.starts_with("get-")
                        || matches!(c, "info" | "ping" | "network-get-interfaces" | "fsfreeze-status") =>
                {
                    ro(an, format!("`qm guest cmd {c}` only reports"))
                }
                Some(c) if agent_takes_down(c) => an.raise(DE, format!("`qm guest cmd {c}` {}", AGENT_DOWN)),
                _ => an.raise(CM, "`qm guest cmd` changes the guest"),
            },
            _ => an.raise(CM, "`qm guest` changes the guest"),
        },
        Some((_, s)) => match s {
            // A guest's cloud-init user data holds its password, which `qm config` masks.
            "cloudinit-dump" | "cloudinit"
                if a.all.iter().any(|w| w.shown() == "user")
                    && (s == "cloudinit-dump" || a.all.get(1).and_then(Arg::as_static) == Some("dump")) =>
            {
                an.raise_secret(DE, "`qm cloudinit dump … user` prints the guest's password")
            }
            "list" | "status" | "config" | "pending" | "showcmd" | "listsnapshot" | "wait" | "help"
            | "cloudinit-dump" => ro(an, format!("`qm {s}` only reports")),
            "cloudinit" if matches!(a.all.get(1).and_then(Arg::as_static), Some("dump" | "pending")) => {
                ro(an, "`qm cloudinit dump` only reports")
            }
            // A stop or a reset is the power plug pulled (unsaved data lost); a shutdown or a
            // suspend takes down what the VM serves.
            "stop" | "shutdown" | "reset" | "suspend" => an
                .raise(DE, format!("`qm {s}` takes the VM down: what it serves stops, a hard stop loses unsaved data")),
            "start" | "reboot" | "resume" => an.raise(RL, format!("`qm {s}` starts or restarts a VM")),
            "destroy" | "rollback" | "delsnapshot" | "unlink" => an.raise(DE, format!("`qm {s}` destroys VM data")),
            "restore" if pve_flag(a, "force") => an.raise(DE, "`qm restore --force` overwrites a VM"),
            // `qm importovf --dryrun` prints the configuration it would make.
            "importovf" if pve_flag(a, "dryrun") => ro(an, "`qm importovf --dryrun` only shows what it would do"),
            // `qm rescan --dryrun 1`, `qm disk rescan --dryrun`: lists the volumes it would add.
            "rescan" if pve_flag(a, "dryrun") => ro(an, "`qm rescan --dryrun` only shows what it would do"),
            "disk" if matches!(a.all.get(1).and_then(Arg::as_static), Some("rescan")) && pve_flag(a, "dryrun") => {
                ro(an, "`qm disk rescan --dryrun` only shows what it would do")
            }
            "disk" if matches!(a.all.get(1).and_then(Arg::as_static), Some("unlink")) => {
                an.raise(DE, "`qm disk unlink` deletes a disk")
            }
            "move-disk" | "move_disk" if deletes_source(a) => {
                an.raise(DE, format!("`qm {s} --delete` deletes the disk it moved from"))
            }
            "disk" if matches!(a.all.get(1).and_then(Arg::as_static), Some("move")) && deletes_source(a) => {
                an.raise(DE, "`qm disk move --delete` deletes the disk it moved from")
            }
            "set" if super::meaning::config_delete_destroys(&super::meaning::getopt(a.all).0).is_some() => {
                an.raise(DE, "`qm set --delete` of a disk or unused volume frees the volume")
            }
            "set" if a.value(&["--delete"]).is_some() && truthy_flag(a, "--force") => {
                an.raise(DE, "`qm set --delete … --force` removes the disk for good")
            }
            "monitor" | "terminal" | "vncproxy" => {
                an.raise(CM, format!("`qm {s}` opens an interactive console"));
                // The monitor's commands come from its input, one a line.
                if s == "monitor" {
                    if let Some(why) = stdin.texts.iter().flat_map(|t| t.lines()).find_map(super::pve_cli::hmp_destroys)
                    {
                        an.raise(DE, format!("`qm monitor`: {why}"));
                    }
                }
            }
            _ => an.raise(CM, format!("`qm {s}` changes a VM")),
        },
        None => ro(an, "`qm` without a command prints help"),
    }
}

/// Proxmox VE's command-line tools, which read options with Perl's Getopt::Long: one dash or two.
const GETOPT_LONG: &[&str] = &[
    "qm",
    "pct",
    "pvesh",
    "pvesm",
    "pveum",
    "pvenode",
    "ha-manager",
    "pvecm",
    "vzdump",
    "pveceph",
    "pvesr",
    "pveam",
    "pvesubscription",
    "pve-firewall",
    "qmrestore",
    "pvereport",
];

/// `qm help destroy`, `qm destroy --help`: Proxmox's tools print the usage and do nothing else (an
/// option the command does not take stops it before it acts).
pub(super) fn only_help(base: &str, args: &[Arg]) -> bool {
    if !GETOPT_LONG.contains(&base) {
        return false;
    }
    let words: Vec<Option<&str>> = args.iter().map(Arg::as_static).take_while(|w| *w != Some("--")).collect();
    // Every word must be known: a computed one could be anything.
    words.iter().all(Option::is_some) && (words.first() == Some(&Some("help")) || words.contains(&Some("--help")))
}

/// The words of a Proxmox tool with its single-dash long options (`-current 1`) written with two,
/// so one spelling is judged; `None` when nothing changes. Words after `--` are another program's.
pub(super) fn long_options(base: &str, args: &[Arg]) -> Option<Vec<Arg>> {
    if !GETOPT_LONG.contains(&base) {
        return None;
    }
    let mut changed = false;
    let mut after_dashes = false;
    let words = args
        .iter()
        .map(|arg| match arg.as_static() {
            Some("--") => {
                after_dashes = true;
                arg.clone()
            }
            Some(w)
                if !after_dashes
                    && !w.starts_with("--")
                    && w.chars().count() > 2
                    && w.strip_prefix('-').and_then(|b| b.chars().next()).is_some_and(|c| c.is_ascii_alphabetic()) =>
            {
                changed = true;
                Arg::Static(format!("-{w}"))
            }
            _ => arg.clone(),
        })
        .collect();
    changed.then_some(words)
}

/// Guest agent commands that take the guest down or freeze its filesystems (writes hang until
/// thawed), or change an account's password in it.
fn agent_takes_down(c: &str) -> bool {
    let c = c.to_ascii_lowercase();
    c == "shutdown" || c.starts_with("suspend") || c == "fsfreeze-freeze" || c == "set-user-password"
}

const AGENT_DOWN: &str = "shuts the guest down, suspends it, freezes its filesystems or changes a password in it";

/// The command a Proxmox CLI runs in a guest: its `extra-args`, which the option parser leaves
/// wherever they are (options may come before, among or after them; `--` ends the options).
/// Options take a value (`--timeout 5`, `-timeout=5`); a boolean takes one only if it reads as one.
/// `qm config $id`, `pct status $id`: the subcommand, given literally first, only reads whatever
/// words follow it (a guest id, `--current`), so a word computed at run time there changes nothing.
pub(super) fn reads_whatever_follows(base: &str, args: &[Arg]) -> bool {
    const READS: &[&str] = &["config", "status", "pending", "listsnapshot", "showcmd"];
    matches!(base, "qm" | "pct") && args.first().and_then(Arg::as_static).is_some_and(|s| READS.contains(&s))
}

fn guest_command(an: &mut Analysis<'_>, who: &str, args: &[Arg], valued: &[&str], booleans: &[&str], stdin: &Stdin) {
    let mut command: Vec<Arg> = Vec::new();
    let mut rest = args;
    while let Some((arg, after)) = rest.split_first() {
        rest = after;
        let Some(word) = arg.as_static().filter(|w| w.starts_with('-') && w.len() > 1) else {
            command.push(arg.clone());
            continue;
        };
        if word == "--" {
            command.extend_from_slice(rest);
            break;
        }
        let (name, inline) = match word.trim_start_matches('-').split_once('=') {
            Some((n, v)) => (n, Some(v)),
            None => (word.trim_start_matches('-'), None),
        };
        if inline.is_some() {
            continue;
        }
        if valued.contains(&name) {
            // Past its value (nothing is left when there is none).
            rest = rest.get(1..).unwrap_or(&[]);
        } else if booleans.contains(&name) {
            let next = rest.first().and_then(Arg::as_static).map(str::to_ascii_lowercase);
            if next.is_some_and(|n| matches!(n.as_str(), "0" | "1" | "yes" | "no" | "true" | "false" | "on" | "off")) {
                rest = rest.get(1..).unwrap_or(&[]);
            }
        } else {
            an.raise(CM, format!("`{who} {word}` is not an option known to be safe"));
        }
    }
    if command.is_empty() {
        an.raise(CM, format!("`{who}` without a command"));
    } else {
        an.run(&command, stdin);
    }
}

/// A path inside a guest whose overwriting breaks it: its system directories (`/etc/fstab`,
/// `C:\\Windows\\…`).
fn guest_system_path(path: &&String) -> bool {
    let lower = path.to_ascii_lowercase().replace('\\', "/");
    matches!(lower.trim_end_matches('/'), "" | "/etc" | "/boot" | "/usr" | "/bin" | "/sbin" | "/lib" | "/lib64")
        || ["/etc/", "/boot/", "/usr/", "/bin/", "/sbin/", "/lib/", "/lib64/", "/root/.ssh"]
            .iter()
            .any(|p| lower.starts_with(p))
        || lower.starts_with("c:/windows")
}

/// A boolean option as Proxmox's CLIs read it: `--name`, `-name`, `--name 1`, `--name=true`, or
/// an abbreviation.
fn pve_flag(a: &Args<'_>, name: &str) -> bool {
    super::meaning::getopt(a.all).0.iter().any(|o| o.is(name) && !o.is_off())
}

/// A boolean option given as `--name`, `--name 1`, `--name=true`.
fn truthy_flag(a: &Args<'_>, name: &str) -> bool {
    a.long(name) && a.value(&[name]).is_none_or(|v| !matches!(v.shown(), "0" | "false" | "no" | "off"))
}

/// `--delete` on a move: the source is removed once copied.
fn deletes_source(a: &Args<'_>) -> bool {
    truthy_flag(a, "--delete")
}

/// Ceph's object and block tools: listing reads, removing destroys.
pub(super) fn ceph_storage(an: &mut Analysis<'_>, base: &str, a: &Args<'_>, _stdin: &Stdin) {
    let valued = [
        "-p",
        "--pool",
        "-c",
        "--conf",
        "-n",
        "--name",
        "--id",
        "-k",
        "--keyring",
        "--format",
        "--namespace",
        "-N",
        "--image",
        "--snap",
        "--iterations",
    ];
    let words: Vec<&str> = a.operands(&valued).iter().map(|o| o.shown()).collect();
    let w = |i: usize| words.get(i).copied().unwrap_or("");
    let reads = match base {
        "rados" => {
            matches!(
                w(0),
                "df" | "lspools"
                    | "ls"
                    | "stat"
                    | "listxattr"
                    | "getxattr"
                    | "listomapkeys"
                    | "list-inconsistent-pg"
                    | "list-inconsistent-obj"
                    | "listsnaps"
                    | "lssnap"
                    | ""
            )
        }
        _ => {
            matches!(w(0), "ls" | "list" | "info" | "du" | "disk-usage" | "status" | "showmapped" | "")
                || matches!(
                    (w(0), w(1)),
                    ("snap", "ls" | "list")
                        | ("device", "list" | "ls")
                        | ("trash", "ls" | "list")
                        | ("pool", "stats")
                        | ("mirror", "pool" | "image")
                        | ("perf", "image")
                ) && (w(0) != "mirror" || matches!(w(2), "info" | "status"))
                    && (w(0) != "perf" || matches!(w(2), "iostat" | "iotop"))
        }
    };
    let destroys = match base {
        "rados" => {
            matches!(
                w(0),
                "rm" | "purge"
                    | "rmpool"
                    | "cleanup"
                    | "rmsnap"
                    | "truncate"
                    | "rmomapkey"
                    | "clearomap"
                    | "rollback"
                    | "put"
                    | "append"
                    | "setomapval"
                    | "setomapheader"
                    | "rmxattr"
                    | "import"
                    | "load-gen"
            ) || (w(0) == "bench" && w(2) == "write" && a.long("--no-cleanup"))
        }
        _ => {
            // Importing a diff or an image over an existing one, and write benchmarks, overwrite
            // the image's data.
            matches!(w(0), "rm" | "remove" | "import-diff")
                || (w(0) == "bench"
                    && a.all.iter().any(|x| {
                        matches!(
                            x.shown(),
                            "write" | "--io-type=write" | "rw" | "--io-type=rw" | "readwrite" | "--io-type=readwrite"
                        )
                    }))
                || (w(0) == "resize" && a.long("--allow-shrink"))
                || matches!(
                    (w(0), w(1)),
                    ("snap", "rm" | "remove" | "purge" | "rollback" | "revert") | ("trash", "rm" | "remove" | "purge")
                )
        }
    };
    // Reading an object or a disk image out (`rados get obj -`, `rbd export img -`) shows what the
    // guests stored, their secrets among it; to a file it is written there.
    let reads_out = match base {
        "rados" => w(0) == "get",
        _ => matches!(w(0), "export" | "export-diff"),
    };
    if destroys {
        an.raise(DE, format!("`{base} {}` deletes data", words.join(" ")));
    } else if reads_out {
        an.raise(CM, format!("`{base} {}` reads stored data out", words.join(" ")));
    } else if reads {
        ro(an, format!("`{base} {}` only reports", words.join(" ")));
    } else {
        an.raise(CM, format!("`{base} {}` changes the storage", words.join(" ")));
    }
}

/// `ipmitool`: sensor and status queries read; power and controller resets take the machine down.
pub(super) fn ipmitool(an: &mut Analysis<'_>, _base: &str, a: &Args<'_>, _stdin: &Stdin) {
    let valued = [
        "-I", "-H", "-U", "-P", "-p", "-L", "-f", "-y", "-k", "-o", "-C", "-A", "-t", "-b", "-T", "-B", "-m", "-R",
        "-N", "-O", "-Y", "-z", "-l",
    ];
    let words: Vec<&str> = a.operands(&valued).iter().map(|o| o.shown()).collect();
    let w = |i: usize| words.get(i).copied().unwrap_or("");
    // `raw 0x00 0x02 N` is the chassis control command: power off, cycle, reset, soft off.
    let byte = |s: &str| u8::from_str_radix(s.trim_start_matches("0x").trim_start_matches("0X"), 16).ok();
    if w(0) == "raw" && byte(w(1)) == Some(0) && byte(w(2)) == Some(2) {
        return an.raise(DE, "`ipmitool raw 0x00 0x02` is chassis control: it powers the machine off or resets it");
    }
    // The specification's Get requests (network function, command) only read.
    const RAW_GETS: &[(u8, &[u8])] = &[
        (0x00, &[0x00, 0x01, 0x07, 0x09, 0x0f]),
        (0x04, &[0x20, 0x21, 0x25, 0x27, 0x29, 0x2b, 0x2d, 0x2f]),
        (0x06, &[0x01, 0x04, 0x07, 0x08, 0x25, 0x37, 0x42, 0x44, 0x46, 0x59]),
        (0x0a, &[0x10, 0x11, 0x20, 0x23, 0x40, 0x43, 0x48]),
        (0x0c, &[0x02]),
    ];
    if w(0) == "raw" {
        let get = byte(w(1))
            .zip(byte(w(2)))
            .is_some_and(|(f, c)| RAW_GETS.iter().any(|(nf, cmds)| *nf == f && cmds.contains(&c)));
        if get && words.iter().skip(1).all(|x| byte(x).is_some()) {
            return ro(an, "`ipmitool raw` sends a Get request, which only reads");
        }
    }
    match (w(0), w(1), w(2)) {
        ("chassis" | "power", "power", "off" | "cycle" | "reset" | "soft" | "diag")
        | ("power", "off" | "cycle" | "reset" | "soft" | "diag", _) => {
            an.raise(DE, "`ipmitool power off/cycle/reset` takes the machine down")
        }
        ("mc", "reset", _) => an.raise(DE, "`ipmitool mc reset` restarts the management controller"),
        // The controller's network settings and its accounts are the way in when the host is down.
        ("lan", "set", _) => an.raise(DE, "`ipmitool lan set` changes the controller's network, cutting the way in"),
        ("user", "disable", _) => an.raise(DE, "`ipmitool user disable` locks an account out of the controller"),
        // A password, name or privilege changed is the operator's way in changed.
        ("user", "set" | "priv", _) => {
            an.raise(DE, "`ipmitool user set/priv` changes a controller account, which can lock the operator out")
        }
        // Any other raw request goes to the controller unchecked: power, fans, resets, firmware.
        ("raw" | "i2c" | "spd", _, _) => {
            an.raise(DE, "`ipmitool raw` sends the controller a request that can power off, reset or reflash it")
        }
        // Commands read from a file or typed at its shell cannot be seen.
        ("exec" | "shell", _, _) => an.raise(DE, "`ipmitool exec/shell` runs controller commands that cannot be seen"),
        ("sel", "clear" | "delete", _) => an.raise(DE, "`ipmitool sel clear` erases the event log for good"),
        // The next boot from the network or a disc can reinstall the machine; a power policy of
        // always-off keeps it down after an outage.
        ("chassis", "bootdev", dev) if !matches!(dev, "disk" | "none" | "") => {
            an.raise(DE, format!("`ipmitool chassis bootdev {dev}` boots the machine from another device next time"))
        }
        ("chassis", "policy", "always-off") => {
            an.raise(DE, "`ipmitool chassis policy always-off` keeps the machine off")
        }
        ("fru", "write" | "edit", _) | ("hpm" | "fwum" | "ekanalyzer", _, _) => {
            an.raise(DE, "`ipmitool` rewrites the controller's firmware or inventory")
        }
        ("sensor", "" | "list" | "get", _)
        | ("sdr", "" | "list" | "elist" | "type" | "get" | "info" | "entity", _)
        | ("fru", "" | "print" | "list", _)
        | ("sel", "" | "list" | "elist" | "info" | "get", _)
        | ("sel", "time", "get")
        | ("lan", "print", _)
        | ("chassis", "status" | "restart_cause" | "poh" | "bootparam", "" | "get")
        | ("chassis" | "power", "power", "status")
        | ("power", "status", _)
        | ("mc", "info" | "guid" | "selftest", _)
        | ("user", "list" | "summary", _)
        | ("channel", "info", _)
        | ("dcmi", "power", "reading")
        | ("help", _, _) => ro(an, "`ipmitool` only reports"),
        _ => an.raise(CM, "`ipmitool` changes the management controller or the machine"),
    }
}
