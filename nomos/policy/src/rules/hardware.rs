//! Hardware management tools whose words decide what they do to the machine: RAID controllers'
//! CLIs, firmware flashers, the HPE iLO client, EFI variables, the kernel's partition table, SCSI
//! start/stop and the Bacula console. Deleting, clearing, initialising, erasing, flashing,
//! resetting or taking a drive offline destroys data or takes the machine down; showing, listing
//! and getting only read.

use nomos_types::Risk::{ConfigMutation as CM, Destructive as DE};

use super::ro;
use super::Args;
use crate::shell::{Analysis, Arg, Stdin};

/// Whether a single-dash cluster (`-Ew`) holds one of `flags` before an option that takes a value.
fn short_cluster_has(word: &str, flags: &[char], valued: &[char]) -> bool {
    if !word.starts_with('-') || word.starts_with("--") {
        return false;
    }
    for c in word.chars().skip(1) {
        if flags.contains(&c) {
            return true;
        }
        if valued.contains(&c) {
            return false;
        }
    }
    false
}

/// The static words of an invocation, in lower case.
fn lower_words(a: &Args<'_>) -> Vec<String> {
    a.all.iter().filter_map(Arg::as_static).map(str::to_ascii_lowercase).collect()
}

/// A RAID controller's word (or a part of a `key=value` word) that loses data or takes drives
/// away: deleting or clearing a configuration, initialising or erasing a drive, flashing the
/// controller, resetting it to its defaults, marking a drive offline, missing or dead.
fn raid_destroys(word: &str) -> bool {
    word.split(['=', ':']).any(|w| {
        matches!(
            w,
            "del"
                | "clear"
                | "clr"
                | "init"
                | "uninit"
                | "initialize"
                | "download"
                | "offline"
                | "missing"
                | "reset"
                | "resetconfig"
                | "restart"
                | "spindown"
                | "ddd"
                | "sanitize"
                | "format"
                | "romupdate"
                | "imageupdate"
                | "secureerase"
        ) || ["delete", "erase", "flash", "factory", "clearconfig", "wipe"].iter().any(|p| w.starts_with(p))
    })
}

/// A RAID controller's verb that only reads.
fn raid_reads(verb: &str) -> bool {
    verb.starts_with("get")
        || matches!(verb, "show" | "list" | "help" | "version" | "info" | "status" | "/?" | "-h" | "-help" | "--help")
}

/// Words that name what a RAID CLI acts on rather than what it does (`/c0/v1`, `ctrl`,
/// `slot=0`, `ld 1`, `pd 1I:1:1`).
fn raid_object(word: &str) -> bool {
    word.starts_with('/') && word != "/?"
        || word.contains('=')
        || word.chars().next().is_some_and(|c| c.is_ascii_digit())
        || matches!(
            word,
            "ctrl" | "controller" | "ld" | "pd" | "array" | "all" | "logicaldrive" | "physicaldrive" | "enclosure"
        )
}

/// `storcli`, `perccli`, `ssacli`, `arcconf` and their kin: the verb after the objects decides.
pub(super) fn raid(an: &mut Analysis<'_>, base: &str, a: &Args<'_>, _stdin: &Stdin) {
    let words = lower_words(a);
    let Some((at, verb)) = words.iter().enumerate().find(|(_, w)| !raid_object(w)) else {
        return an.raise(CM, format!("`{base}` without a verb is not known to be read-only"));
    };
    if raid_reads(verb) {
        return ro(an, format!("`{base} {verb}` only reports"));
    }
    if let Some(w) = words.iter().skip(at).find(|w| raid_destroys(w)) {
        return an.raise(
            DE,
            format!("`{base} … {w}` deletes, clears, erases, flashes or offlines what the controller holds"),
        );
    }
    an.raise(CM, format!("`{base} {verb}` changes the RAID controller"));
}

/// `megacli`: its actions are options (`-CfgLdDel`, `-PDList`).
pub(super) fn megacli(an: &mut Analysis<'_>, base: &str, a: &Args<'_>, _stdin: &Stdin) {
    let opts: Vec<String> =
        lower_words(a).into_iter().filter_map(|w| w.strip_prefix('-').map(str::to_string)).collect();
    const LOSS: &[&str] = &[
        "del", "clr", "clear", "offline", "missing", "flash", "facdef", "init", "erase", "prprmv", "restore",
        "spindown",
    ];
    if let Some(o) = opts.iter().find(|o| LOSS.iter().any(|l| o.contains(l))) {
        return an.raise(DE, format!("`{base} -{o}` deletes, clears, erases or flashes what the controller holds"));
    }
    let action = opts.first().map_or("", String::as_str);
    let reads = opts
        .iter()
        .any(|o| o.starts_with("get") || ["info", "list", "dsply", "getprop", "count"].iter().any(|r| o.contains(r)))
        || matches!(action, "v" | "h" | "help" | "version");
    let changes = opts.iter().any(|o| o.contains("set") || o.contains("start") || o == "f");
    if reads && !changes {
        return ro(an, format!("`{base} -{action}` only reports"));
    }
    an.raise(CM, format!("`{base}` changes the RAID controller"));
}

/// `sas2flash`, `sas3flash`: erasing or flashing the controller's firmware or BIOS.
pub(super) fn sasflash(an: &mut Analysis<'_>, base: &str, a: &Args<'_>, _stdin: &Stdin) {
    let words = lower_words(a);
    let flashes = words.iter().any(|w| matches!(w.as_str(), "-e" | "-f" | "-b" | "-fwall" | "-biosall" | "-reset"));
    if flashes {
        return an.raise(DE, format!("`{base}` erases or flashes the controller's firmware"));
    }
    let reads = words
        .iter()
        .filter(|w| w.starts_with('-'))
        .all(|w| matches!(w.as_str(), "-list" | "-listall" | "-c" | "-ver" | "-h" | "-help" | "-?" | "-l"));
    if reads && words.iter().any(|w| w.starts_with("-list") || w == "-ver" || w == "-h" || w == "-help") {
        return ro(an, format!("`{base}` only lists the controllers"));
    }
    an.raise(CM, format!("`{base}` changes the controller"));
}

/// `flashrom`: writing or erasing the firmware chip, or changing its write protection.
pub(super) fn flashrom(an: &mut Analysis<'_>, base: &str, a: &Args<'_>, _stdin: &Stdin) {
    let words: Vec<&str> = a.all.iter().filter_map(Arg::as_static).collect();
    let writes = words.iter().any(|w| {
        let l = w.to_ascii_lowercase();
        if let Some(long) = l.strip_prefix("--") {
            ["wr", "er"].iter().any(|p| long.starts_with(p))
                || (long.starts_with("wp") && !long.starts_with("wp-s") && !long.starts_with("wp-l"))
        } else {
            short_cluster_has(w, &['w', 'E'], &['p', 'c', 'l', 'i', 'o', 'r', 'v', 'f', 'x'])
        }
    });
    if writes {
        return an
            .raise(DE, format!("`{base}` writes or erases the firmware chip: a bad image leaves the machine dead"));
    }
    let reads_out = words.iter().any(|w| *w == "-r" || w.starts_with("--re") || (w.starts_with("-r") && w.len() > 2));
    if reads_out {
        return an.raise(CM, format!("`{base} -r` writes the chip's contents to a file"));
    }
    ro(an, format!("`{base}` only probes, lists or verifies"))
}

/// `fwupdmgr`, `fwupdtool`: installing, downgrading or activating firmware; the `get-…` queries read.
pub(super) fn fwupd(an: &mut Analysis<'_>, base: &str, a: &Args<'_>, _stdin: &Stdin) {
    // Its options are flags; the first other word is the command.
    let verb = a.all.iter().map(Arg::shown).find(|w| !w.starts_with('-')).unwrap_or("").to_ascii_lowercase();
    const FLASHES: &[&str] = &[
        "install",
        "local-install",
        "install-blob",
        "update",
        "upgrade",
        "downgrade",
        "reinstall",
        "activate",
        "unlock",
        "switch-branch",
        "security-fix",
        "security-undo",
        "firmware-patch",
        "clean",
    ];
    if FLASHES.contains(&verb.as_str()) {
        return an
            .raise(DE, format!("`{base} {verb}` flashes firmware: a bad or interrupted flash leaves a device dead"));
    }
    if verb.starts_with("get-") || matches!(verb.as_str(), "security" | "hwids" | "search" | "help" | "esp-list") {
        return ro(an, format!("`{base} {verb}` only reports"));
    }
    if verb.is_empty() && a.all.iter().any(|w| matches!(w.shown(), "--version" | "-h" | "--help")) {
        return ro(an, format!("`{base}` only prints its version or usage"));
    }
    an.raise(CM, format!("`{base} {verb}` changes firmware settings"));
}

/// `efivar`: writing, appending or importing an EFI variable (the boot order, the boot entries).
pub(super) fn efivar(an: &mut Analysis<'_>, base: &str, a: &Args<'_>, _stdin: &Stdin) {
    let writes = a.options().any(|w| {
        let l = w.to_ascii_lowercase();
        ["--wr", "--ap", "--im"].iter().any(|p| l.starts_with(p))
            || short_cluster_has(w, &['w', 'a', 'i'], &['n', 'f', 'A', 't'])
    });
    if writes {
        return an.raise(
            DE,
            format!("`{base}` writes an EFI variable: a wrong boot entry or order keeps the machine from booting"),
        );
    }
    if a.options().any(|w| w == "-e" || w.starts_with("--ex")) {
        return an.raise(CM, format!("`{base} --export` writes a variable to a file"));
    }
    ro(an, format!("`{base}` only lists or prints EFI variables"))
}

/// `delpart`, `resizepart`: the kernel's partition table changed under a disk in use.
pub(super) fn partition(an: &mut Analysis<'_>, base: &str, a: &Args<'_>, _stdin: &Stdin) {
    if a.all.iter().any(|w| matches!(w.shown(), "-h" | "--help" | "-V" | "--version")) {
        return ro(an, format!("`{base}` only prints its usage"));
    }
    match base {
        "addpart" => an.raise(CM, "`addpart` tells the kernel of a new partition"),
        _ => an
            .raise(DE, format!("`{base}` removes or resizes a partition under the system, which loses its filesystem")),
    }
}

/// `sg_start`: stopping or ejecting a disk takes it away from whatever uses it (`-S`, `--stop`,
/// `-e`, `--eject`, the operand `0`, or a power condition other than active).
pub(super) fn sg_start(an: &mut Analysis<'_>, base: &str, a: &Args<'_>, _stdin: &Stdin) {
    if !a.all.is_empty() && a.all.iter().all(|w| matches!(w.shown(), "-h" | "--help" | "-V" | "--version")) {
        return ro(an, format!("`{base}` only prints its usage"));
    }
    let stops = a.all.iter().filter_map(Arg::as_static).any(|w| {
        let l = w.to_ascii_lowercase();
        l == "0"
            || ["--sto", "--ej"].iter().any(|p| l.starts_with(p))
            || l.strip_prefix("--pc=").is_some_and(|v| v != "0" && v != "1")
            || short_cluster_has(w, &['S', 'e'], &[])
    });
    if stops {
        return an.raise(DE, format!("`{base} --stop` spins the disk down, taking it away from what uses it"));
    }
    an.raise(CM, format!("`{base}` starts or changes the disk's power state"));
}

/// `ilorest`: the HPE iLO client. Power actions, raw writes, resets to factory defaults, firmware
/// flashes, account and network changes take the machine down or lock the operator out.
pub(super) fn ilorest(an: &mut Analysis<'_>, base: &str, a: &Args<'_>, _stdin: &Stdin) {
    let valued = [
        "-u",
        "-p",
        "--url",
        "--user",
        "--password",
        "--cache-dir",
        "--selector",
        "--filter",
        "-f",
        "--sessionid",
        "--config",
        "-c",
    ];
    let ops: Vec<String> = a.operands(&valued).iter().map(|o| o.shown().to_ascii_lowercase()).collect();
    let verb = ops.first().map_or("", String::as_str);
    let sub = ops.get(1).map_or("", String::as_str);
    let has = |o: &str| a.all.iter().any(|w| w.shown().to_ascii_lowercase().starts_with(o));
    const DOWN: &[&str] = &[
        "reboot",
        "iloreset",
        "factorydefaults",
        "factoryresetcontroller",
        "rawpost",
        "rawput",
        "rawpatch",
        "rawdelete",
        "firmwareupdate",
        "flashfwpkg",
        "uploadcomp",
        "deletecomp",
        "clearrestapistate",
        "disableilofunctionality",
        "setpassword",
        "clearlogs",
    ];
    if DOWN.contains(&verb) {
        return an
            .raise(DE, format!("`{base} {verb}` powers, resets, reflashes or reconfigures the server or its iLO"));
    }
    // The iLO's own network is the way in when the host is down.
    let network = verb == "ethernet" && a.all.iter().any(|w| w.shown().starts_with("--") && w.shown() != "--json");
    let changes_accounts =
        network || verb == "iloaccounts" && matches!(sub, "delete" | "changepass" | "modify" | "add");
    let clears = has("--clearlog")
        || has("--resetqueue")
        || has("--resetallkeys")
        || has("--resetdefaultkeys")
        || (verb == "smartarray" && (has("--delete") || sub.starts_with("delete") || sub.starts_with("clear")))
        || (verb == "commit" && has("--reboot"));
    if changes_accounts || clears {
        return an.raise(DE, format!("`{base} {verb}` locks accounts out, clears logs or deletes drives"));
    }
    let reads = matches!(
        verb,
        "serverinfo"
            | "list"
            | "get"
            | "info"
            | "types"
            | "ls"
            | "help"
            | "status"
            | "serverstate"
            | "rawget"
            | "rawhead"
            | "listcomp"
            | "results"
            | "fwintegritycheck"
            | "pending"
    ) || (verb == "iloaccounts" && sub.is_empty())
        || (verb.is_empty() && a.all.iter().any(|w| matches!(w.shown(), "-h" | "--help" | "--version")));
    if reads {
        return ro(an, format!("`{base} {verb}` only reports"));
    }
    an.raise(CM, format!("`{base} {verb}` changes the server's or the iLO's settings"));
}

/// `bconsole`: the Bacula console runs the commands on its input; deleting, purging, pruning,
/// truncating or relabelling a volume loses the backups on it.
pub(super) fn bconsole(an: &mut Analysis<'_>, base: &str, _a: &Args<'_>, stdin: &Stdin) {
    const LOSS: &[&str] = &["delete", "purge", "prune", "truncate", "relabel"];
    const READS: &[&str] =
        &["list", "llist", "show", "status", "messages", "version", "help", "estimate", "time", "quit", "exit"];
    let verbs: Vec<String> = stdin
        .texts
        .iter()
        .flat_map(|t| t.lines())
        .filter_map(|l| l.split_whitespace().next().map(|w| w.trim_start_matches('.').to_ascii_lowercase()))
        .collect();
    if let Some(v) = verbs.iter().find(|v| LOSS.contains(&v.as_str())) {
        return an.raise(DE, format!("`{base}` is told to `{v}`: the backups on that volume or job are lost"));
    }
    let reads = !stdin.unknown && !verbs.is_empty() && verbs.iter().all(|v| READS.contains(&v.as_str()));
    if reads {
        return ro(an, format!("`{base}` only lists and shows"));
    }
    an.raise(CM, format!("`{base}` runs console commands that change the backup catalogue"));
}
