//! Files and processes: removing, copying, moving, creating and editing files, permissions, `dd`,
//! `find`, `tar` and the clock.

use nomos_types::Risk::{ConfigMutation as CM, Destructive as DE};

use super::Args;
use super::{check_secrets, identity, recursive_read, ro, unknown, METADATA_ONLY};
use crate::paths::{
    is_access_file, is_block_device, is_broad, is_harmless_sink, is_irreplaceable, is_precious, is_vital,
};
use crate::shell::{Analysis, Arg, Stdin};
use crate::table::table;

/// Removing: recursive or broad removals destroy; guest and service data is precious.
pub(super) fn rm(an: &mut Analysis<'_>, base: &str, a: &Args<'_>, _stdin: &Stdin) {
    let recursive = a.short('r') || a.short('R') || a.long("--recursive");
    let force = a.short('f') || a.long("--force");
    let ops = a.operands(&[]);
    let broad: Vec<&str> = ops.iter().flat_map(|o| o.values()).filter(|p| is_broad(p)).collect();
    // A relative name after `cd DIR` is a file in DIR (`cd /etc/pve && rm qemu-server/*.conf`).
    let resolved: Vec<String> = ops
        .iter()
        .flat_map(|o| o.values())
        .filter(|p| !p.starts_with(['/', '~', '$']))
        .flat_map(|p| match an.resolve(p).as_slice() {
            [one] if one != p => Some(one.clone()),
            _ => None,
        })
        .collect();
    let placed = |test: fn(&str) -> bool| resolved.iter().find(|r| test(r)).cloned();
    let found = placed(is_precious).or_else(|| placed(is_access_file)).or_else(|| placed(is_irreplaceable));
    if let Some(p) = found.or_else(|| placed(is_vital)) {
        an.raise(DE, format!("`{base}` removes {p}, which holds guest, service or cluster data or logins depend on"));
    }
    if a.long("--no-preserve-root") {
        an.raise(DE, format!("`{base} --no-preserve-root` can remove the whole system"));
    }
    if recursive && force {
        an.raise(DE, format!("`{base} -rf` removes recursively without asking"));
    } else if recursive {
        an.raise(DE, format!("`{base} -r` removes directories and everything in them"));
    } else if let Some(p) = broad.first() {
        an.raise(DE, format!("`{base}` removes files from a system directory ({p})"));
    } else if let Some(p) = ops.iter().flat_map(|o| o.values()).find(|p| is_precious(p)) {
        an.raise(DE, format!("`{base}` removes guest or service data ({p})"));
    } else if let Some(p) = ops.iter().flat_map(|o| o.values()).find(|p| is_access_file(p)) {
        an.raise(DE, format!("`{base}` removes {p}, which logins or access depend on"));
    } else if let Some(p) = ops.iter().flat_map(|o| o.values()).find(|p| is_vital(p)) {
        an.raise(DE, format!("`{base}` removes {p}, which booting, logging in or the network depend on"));
    } else if let Some(p) = ops.iter().flat_map(|o| o.values()).find(|p| is_irreplaceable(p)) {
        an.raise(DE, format!("`{base}` removes {p}, which holds guest disks, backups or cluster state"));
    } else if ops.iter().any(|o| o.as_static().is_none()) {
        // Which files cannot be seen: they may be any, a guest's disk or a backup included.
        an.raise(DE, format!("`{base}` removes files named at run time, which may be any"));
    } else {
        let names: Vec<&str> = ops.iter().map(|o| o.shown()).collect();
        an.raise(CM, format!("`{base}` removes {}", names.join(" ")));
    }
}

/// Copying, moving, installing and linking files: the destination decides.
pub(super) fn copy(an: &mut Analysis<'_>, base: &str, a: &Args<'_>, _stdin: &Stdin) {
    // A recursive copy of a tree that holds secrets reads them.
    if base == "cp" && (a.flag('r', "--recursive") || a.short('R') || a.flag('a', "--archive")) {
        let ops = a.operands(&["-t", "--target-directory", "-S", "--suffix"]);
        recursive_read(an, base, ops.split_last().map_or(&[][..], |(_, sources)| sources));
    }
    let ops =
        a.operands(&["-t", "--target-directory", "-S", "--suffix", "-m", "--mode", "-o", "--owner", "-g", "--group"]);
    let dest = a.value(&["-t", "--target-directory"]).or_else(|| ops.last().map(|o| (*o).clone()));
    // The destination is written as any other file is (a device, a kernel trigger, a vital
    // file); a directory named with its slash only receives files.
    let into_directory = dest.as_ref().is_some_and(|d| d.shown().ends_with('/'));
    if let Some(d) = dest.as_ref().filter(|_| !into_directory && ops.len() > 1) {
        let mark = an.mark();
        an.write_target(d, &format!("`{base}`"));
        if an.max_since(mark) == Some(DE) {
            return;
        }
    }
    if let Some(dest) = dest.as_ref().filter(|d| d.values().iter().any(|p| is_block_device(p))) {
        an.raise(DE, format!("`{base}` overwrites the device {}", dest.shown()));
    } else if let Some(dest) = dest.as_ref().filter(|d| d.values().iter().any(|p| is_irreplaceable(p))) {
        an.raise(DE, format!("`{base}` overwrites {}, which holds guest disks or cluster state", dest.shown()));
    } else if let Some(dest) = dest.as_ref().filter(|d| d.values().iter().any(|p| is_access_file(p))) {
        an.raise(DE, format!("`{base}` overwrites {}, which logins or access depend on", dest.shown()));
    } else if let Some(dest) = dest.as_ref().filter(|d| d.values().iter().any(|p| is_vital(p) && !p.ends_with('/'))) {
        an.raise(DE, format!("`{base}` replaces {}, which booting, logging in or the network depend on", dest.shown()));
    } else if let Some(src) = ops
        .iter()
        .take(ops.len().saturating_sub(1))
        .find(|o| base == "mv" && o.values().iter().any(|p| is_access_file(p) || is_vital(p)))
    {
        an.raise(DE, format!("`mv` takes {} away, which logins or access depend on", src.shown()));
    } else if base == "mv" && ops.iter().any(|o| o.values().iter().any(|p| is_broad(p))) {
        an.raise(
            DE,
            format!("`mv` moves a system directory ({})", ops.iter().map(|o| o.shown()).collect::<Vec<_>>().join(" ")),
        );
    } else if base == "mv" && dest.as_ref().is_some_and(|d| d.values().iter().any(|p| is_harmless_sink(p))) {
        an.raise(DE, "`mv` into /dev/null destroys the file");
    } else {
        an.raise(CM, format!("`{base}` changes files"));
    }
}

/// An in-place edit (`sed -i`, `perl -i`, an editor's script) of a file that booting, logging in,
/// the network or the cluster depend on: one wrong line there is an unbootable or unreachable
/// host, so it is judged as overwriting the file is.
pub(super) fn in_place_edit(an: &mut Analysis<'_>, base: &str, files: &[&Arg]) {
    for f in files {
        let values = f.values();
        if values.iter().any(|p| is_access_file(p)) {
            an.raise(DE, format!("`{base}` edits {}, which logins or access depend on", f.shown()));
        } else if values.iter().any(|p| is_irreplaceable(p)) {
            an.raise(DE, format!("`{base}` edits {}, which holds guest disks or cluster state", f.shown()));
        } else if values.iter().any(|p| is_vital(p) && !p.ends_with('/')) {
            an.raise(DE, format!("`{base}` edits {}, which booting, logging in or the network depend on", f.shown()));
        }
    }
}

/// Editors and what they are given to edit: a vital file opened to be changed is judged as an
/// in-place edit of it; `view` and `-R` only read.
const EDITORS: &[&str] = &["ed", "ex", "vi", "vim", "nvim", "nano", "emacs", "pico", "joe", "mcedit"];

/// Creating or editing files: changes, or destroys where guest disks or cluster state live.
pub(super) fn make_or_edit(an: &mut Analysis<'_>, base: &str, a: &Args<'_>, _stdin: &Stdin) {
    // Attributes set on a whole system tree (`chattr -R +i /etc`): updates, logins' records and
    // services that write there fail until every file is found and undone.
    if base == "chattr" && (a.short('R')) {
        if let Some(p) = a.operands(&["-v", "-p"]).iter().flat_map(|t| t.values()).find(|p| is_broad(p)) {
            an.raise(DE, format!("`chattr -R` changes the attributes of a whole system directory ({p})"));
        }
    }
    if base == "setfacl" {
        setfacl(an, a);
        if let Some(p) = acl_strips_system(a) {
            an.raise(
                DE,
                format!("`setfacl` leaves {p} with no access for its owner, group or others: the system stops working"),
            );
        }
    }
    if matches!(base, "vi" | "vim" | "nvim" | "view" | "ex") {
        editor_commands(an, base, a);
    }
    // Emacs Lisp given to run: judged as code (`shell-command`, `delete-directory` …).
    if base == "emacs" {
        for code in a.values(&["--eval", "-eval", "--execute", "-execute"]) {
            an.raise(CM, "`emacs --eval` runs Lisp code");
            super::interpreters::code_literals(an, "emacs", code.shown());
        }
    }
    if EDITORS.contains(&base) && !a.short('R') && !a.long("--view") {
        // The options that take a value, by family.
        let valued: &[&str] = match base {
            "ed" => &["-p", "--prompt"],
            "nano" | "pico" => &["-o", "--operatingdir", "-Y", "--syntax", "-T", "--tabsize", "-r", "--fill"],
            "emacs" => &["-l", "--load", "-f", "--funcall", "--eval", "-L", "--directory"],
            // In Ex mode (`-e`, `-E`, `ex`) `-s` is silent mode and takes no file.
            _ if base == "ex" || a.short('e') || a.short('E') || a.any(&["-es", "-Es"]) => {
                &["-c", "--cmd", "-S", "-u", "-i", "-T", "-w", "-W"]
            }
            _ => &["-c", "--cmd", "-S", "-u", "-i", "-T", "-w", "-W", "-s"],
        };
        let files: Vec<&Arg> =
            a.operands(valued).into_iter().filter(|o| o.as_static().is_none_or(|w| !w.starts_with('+'))).collect();
        in_place_edit(an, base, &files);
    }
    if base == "truncate"
        && a.operands(&["-s", "--size", "-r", "--reference"])
            .iter()
            .any(|o| o.values().iter().any(|p| is_block_device(p)))
    {
        an.raise(DE, "`truncate` on a device");
    } else if base == "truncate"
        && a.operands(&["-s", "--size", "-r", "--reference"])
            .iter()
            .any(|o| o.values().iter().any(|p| is_access_file(p)))
    {
        an.raise(DE, "`truncate` empties a file logins or access depend on");
    } else if base == "truncate"
        && a.operands(&["-s", "--size", "-r", "--reference"]).iter().any(|o| o.values().iter().any(|p| is_vital(p)))
    {
        an.raise(DE, "`truncate` empties a file booting, logging in or the network depend on");
    } else if a
        .operands(&["-s", "--size", "-r", "--reference"])
        .iter()
        .any(|o| o.values().iter().any(|p| is_precious(p) || is_irreplaceable(p)))
    {
        an.raise(DE, format!("`{base}` changes guest disks or cluster state"));
    } else {
        an.raise(CM, format!("`{base}` changes files"));
    }
}

/// Ownership and permissions: recursive changes over a system directory break it.
pub(super) fn permissions(an: &mut Analysis<'_>, base: &str, a: &Args<'_>, _stdin: &Stdin) {
    let recursive = a.short('R') || a.long("--recursive");
    let ops = a.operands(&["--reference", "--from"]);
    // `chmod -x FILE`: a mode that looks like an option is the mode, and every operand a target.
    let dash_mode =
        (base == "chmod").then(|| a.all.iter().filter_map(Arg::as_static).find(|w| is_dash_mode(w))).flatten();
    let (mode, targets) = match dash_mode {
        Some(m) => (m, ops.as_slice()),
        None => (ops.first().map(|o| o.shown()).unwrap_or_default(), ops.get(1..).unwrap_or(&[])),
    };
    // Files every user's programs must read (the account database, the resolver, libraries)
    // or run: taking that from others breaks logins and services for every non-root user.
    if base == "chmod" && strips_others(mode) {
        if let Some(p) = targets.iter().flat_map(|t| t.values()).find(|p| must_stay_readable(p)) {
            return an.raise(
                DE,
                format!("`chmod {mode}` takes reading or running {p} away from other users, breaking their logins"),
            );
        }
    }
    // Modes that open the way in to others, which sshd and sudo refuse to work with.
    if base == "chmod" {
        let opens = super::lockout::mode_opens(mode);
        for p in targets.iter().flat_map(|t| t.values()) {
            if let Some(why) = super::lockout::opened_access(p, recursive, opens) {
                return an.raise(DE, format!("`chmod {mode}` on {p}: {why}"));
            }
        }
    }
    let on_broad = targets.iter().flat_map(|t| t.values()).any(is_broad);
    let removes_all = base == "chmod" && (mode.chars().all(|c| c == '0') || mode == "a-rwx" || mode == "ugo-rwx");
    if removes_all && (recursive || on_broad) {
        an.raise(DE, format!("`{base} {mode}` locks everyone out of system files"));
    } else if recursive && on_broad {
        an.raise(DE, format!("`{base} -R` rewrites ownership or permissions of a system directory"));
    } else if let Some(p) = targets
        .iter()
        .flat_map(|t| t.values())
        .find(|p| is_vital(p))
        .filter(|_| base != "chmod" || loosens_or_strips(mode))
    {
        // sshd refuses keys in a directory others may write; a program without its execute bit
        // or an owner it does not expect stops working.
        an.raise(
            DE,
            format!("`{base}` changes ownership or permissions of {p}, which logging in or the system depend on"),
        );
    } else {
        an.raise(CM, format!("`{base}` changes ownership or permissions"));
    }
}

/// `-x`, `-rw`, `+x`, `=r`-like words: a symbolic mode written where an option could be.
fn is_dash_mode(w: &str) -> bool {
    w.strip_prefix('-').is_some_and(|r| !r.is_empty() && r.chars().all(|c| "rwxXst".contains(c)))
}

/// A mode that leaves others without read (`600`, `o-r`, `go=`, `-r`, `a-x`).
fn strips_others(mode: &str) -> bool {
    if !mode.is_empty() && mode.chars().all(|c| c.is_ascii_digit()) {
        return mode.len() >= 3 && mode.chars().last().and_then(|c| c.to_digit(8)).is_some_and(|o| o & 4 == 0);
    }
    mode.split(',').any(|clause| {
        let at = clause.find(['+', '-', '=']).unwrap_or(clause.len());
        let (who, rest) = (clause.get(..at).unwrap_or_default(), clause.get(at..).unwrap_or_default());
        let others = who.is_empty() || who.contains('a') || who.contains('o');
        others
            && ((rest.starts_with('-') && (rest.contains('r') || rest.contains('x')))
                || (rest.starts_with('=') && !rest.contains('r')))
    })
}

/// Files and trees every user needs to read or run.
fn must_stay_readable(path: &str) -> bool {
    let p = crate::paths::normalise(path);
    let p = p.trim_end_matches(['*', '/']);
    matches!(
        p,
        "" | "/etc/passwd"
            | "/etc/group"
            | "/etc/nsswitch.conf"
            | "/etc/hosts"
            | "/etc/resolv.conf"
            | "/etc/ld.so.cache"
            | "/etc/ld.so.conf"
            | "/etc/localtime"
            | "/etc/pam.d"
            | "/etc/security"
            | "/etc/environment"
            | "/etc/profile"
            | "/etc/shells"
            | "/etc"
            | "/usr"
            | "/"
            | "/dev/null"
    ) || (is_vital(p)
        && !p.starts_with("/root")
        && !p.starts_with('~')
        && !p.contains("/ssh")
        && !p.starts_with("/boot"))
}

/// `setfacl`: entries that open the way in to others (judged as `chmod` modes are); ACLs
/// restored from a file that cannot be seen, on whatever paths it names; every ACL of a system
/// tree stripped or rewritten at once.
fn setfacl(an: &mut Analysis<'_>, a: &Args<'_>) {
    let recursive = a.short('R') || a.long("--recursive");
    let entries: Vec<String> = a.values(&["-m", "--modify", "--set"]).iter().map(|v| v.shown().to_string()).collect();
    let opens = super::lockout::acl_opens(&entries);
    let valued =
        ["-m", "--modify", "--set", "-M", "--modify-file", "-X", "--remove-file", "-x", "--remove", "--set-file"];
    let ops = a.operands(&valued);
    for p in ops.iter().flat_map(|t| t.values()) {
        if let Some(why) = super::lockout::opened_access(p, recursive, opens) {
            return an.raise(DE, format!("`setfacl` on {p}: {why}"));
        }
    }
    if let Some(file) = a.value(&["--restore"]) {
        return an.raise(
            DE,
            format!("`setfacl --restore` applies ACLs from {}, on paths it names, which cannot be seen", file.shown()),
        );
    }
    if recursive {
        if let Some(p) = ops.iter().flat_map(|t| t.values()).find(|p| is_broad(p)) {
            an.raise(DE, format!("`setfacl -R` rewrites the permissions of a system directory ({p})"));
        }
    }
}

/// `setfacl` entries that leave an owner, the group class or others with nothing (`u::0`,
/// `m::---`) on a system tree: every program there stops being readable or runnable.
pub(super) fn acl_strips_system(a: &Args<'_>) -> Option<String> {
    let entries: Vec<String> = a.values(&["-m", "--modify", "--set"]).iter().map(|v| v.shown().to_string()).collect();
    let empty = entries.iter().flat_map(|e| e.split(',')).any(|e| {
        let perms = e.rsplit(':').next().unwrap_or("").trim();
        let kind = e.split(':').next().unwrap_or("");
        let class = e.split(':').nth(1).is_some_and(str::is_empty) || matches!(kind, "m" | "mask" | "o" | "other");
        class && (perms.is_empty() || perms.chars().all(|c| c == '0' || c == '-'))
    });
    if !empty {
        return None;
    }
    let ops = a.operands(&["-m", "--modify", "--set", "-M", "--modify-file", "-X", "--remove-file", "-x", "--remove"]);
    ops.iter().flat_map(|t| t.values()).find(|p| must_stay_readable(p) || is_broad(p)).map(str::to_string)
}

/// A mode that lets group or others write, or takes read or execute away from everyone
/// (`777`, `g+w`, `a-x`, `000`); tightening (`700`, `go-rwx`) is not.
fn loosens_or_strips(mode: &str) -> bool {
    if mode.chars().all(|c| c.is_ascii_digit()) {
        let digits: Vec<u32> = mode.chars().filter_map(|c| c.to_digit(8)).collect();
        let [.., owner, group, other] = digits.as_slice() else { return true };
        return group & 2 != 0 || other & 2 != 0 || owner & 4 == 0;
    }
    mode.split(',').any(|clause| {
        let at = clause.find(['+', '-', '=']).unwrap_or(clause.len());
        let (who, rest) = (clause.get(..at).unwrap_or_default(), clause.get(at..).unwrap_or_default());
        let everyone = who.is_empty() || who.contains('a');
        let others = everyone || who.contains('g') || who.contains('o');
        (rest.starts_with('+') && others && rest.contains('w'))
            || (rest.starts_with('=') && others && rest.contains('w'))
            || (rest.starts_with('-') && (everyone || who.contains('u')) && (rest.contains('x') || rest.contains('r')))
    })
}

/// `dd` writes only with `of=`, judged by where it writes.
pub(super) fn dd(an: &mut Analysis<'_>, _base: &str, a: &Args<'_>, _stdin: &Stdin) {
    let mut wrote = false;
    for arg in a.all {
        for v in arg.values() {
            if let Some(target) = v.strip_prefix("of=") {
                wrote = true;
                an.write_target(&Arg::Static(target.to_string()), "`dd`");
            }
        }
        if let Arg::Dynamic { text, .. } = arg {
            if text.starts_with("of=") {
                wrote = true;
                an.raise(CM, format!("`dd` writes to a place named at run time (`{text}`)"));
            }
        }
    }
    if !wrote {
        ro(an, "`dd` without `of=` writes to standard output");
    }
    // A source that never ends, copied with no `count=`, writes until the filesystem is full.
    let words: Vec<&str> = a.all.iter().filter_map(Arg::as_static).collect();
    let endless = words.iter().any(|w| matches!(*w, "if=/dev/zero" | "if=/dev/urandom" | "if=/dev/random"));
    let bounded = words.iter().any(|w| w.starts_with("count=") || w.starts_with("iflag=count"));
    if endless && !bounded {
        for target in words.iter().filter_map(|w| w.strip_prefix("of=")) {
            if !crate::paths::is_harmless_sink(target) {
                an.raise(DE, format!("`dd` writes without end to {target}, filling its filesystem"));
            }
        }
    }
}

/// `find` actions: deleting, running commands on what it finds, writing lists.
pub(super) fn find(an: &mut Analysis<'_>, _base: &str, a: &Args<'_>, stdin: &Stdin) {
    let starts: Vec<&Arg> = a
        .all
        .iter()
        .take_while(|x| x.as_static().is_none_or(|s| !s.starts_with('-') && s != "(" && s != "!"))
        .collect();
    let broad = starts.is_empty() || starts.iter().flat_map(|s| s.values()).any(is_broad);
    // Under a backup store, or matching backups' own files, what is deleted is the backups.
    let backups = starts.iter().flat_map(|s| s.values()).any(crate::paths::holds_backups)
        || a.all.iter().filter_map(Arg::as_static).any(crate::paths::names_backup_files);
    // Tests that pick which files an action takes (by name, age, size, owner …).
    let narrowed = a.all.iter().filter_map(Arg::as_static).any(|w| {
        matches!(
            w,
            "-name"
                | "-iname"
                | "-path"
                | "-ipath"
                | "-wholename"
                | "-iwholename"
                | "-regex"
                | "-iregex"
                | "-lname"
                | "-ilname"
                | "-mtime"
                | "-mmin"
                | "-atime"
                | "-amin"
                | "-ctime"
                | "-cmin"
                | "-size"
                | "-empty"
                | "-user"
                | "-group"
                | "-uid"
                | "-gid"
                | "-nouser"
                | "-nogroup"
                | "-perm"
                | "-inum"
                | "-samefile"
                | "-links"
                | "-used"
        ) || w.starts_with("-newer")
    });
    let mut i = 0;
    let mut acted = false;
    while let Some(arg) = a.all.get(i) {
        match arg.as_static() {
            Some("-delete") => {
                acted = true;
                if broad {
                    an.raise(DE, "`find -delete` removes files under a system directory");
                } else if backups {
                    an.raise(DE, "`find -delete` removes backups or a backup store's chunks, for good");
                } else if !narrowed {
                    // No test picks the files: it empties the whole tree, as `rm -r` does.
                    an.raise(DE, "`find -delete` with no test naming which files removes everything under its paths");
                } else {
                    an.raise(CM, "`find -delete` removes files");
                }
            }
            Some(action @ ("-exec" | "-execdir" | "-ok" | "-okdir")) => {
                acted = true;
                // The command's words: up to the terminator, or to the end without one.
                let after = a.all.get(i + 1..).unwrap_or(&[]);
                let inner = after.split(|x| matches!(x.as_static(), Some(";" | "+" | "\\;"))).next().unwrap_or(after);
                let end = i + 1 + inner.len();
                let inner_name = inner.first().and_then(Arg::as_static).map(|n| identity(n).0).unwrap_or("");
                let runs_rm = inner_name == "rm";
                // What the command does with each file it is given: reading files under a tree that
                // holds secrets reads those secrets.
                let only_reports = table().get(inner_name).is_some_and(|e| e.only_reports());
                if !METADATA_ONLY.contains(&inner_name) && !only_reports {
                    recursive_read(an, &format!("find {action} {inner_name}"), &starts);
                }
                if runs_rm && broad {
                    an.raise(DE, format!("`find {action} rm` removes files under a system directory"));
                }
                // Emptying, shredding or removing each file found under a backup store is the
                // backups lost; so is a shell given each file to do what it likes with.
                let destroys = matches!(inner_name, "rm" | "unlink" | "shred" | "truncate" | "wipe" | "srm")
                    || (matches!(inner_name, "sh" | "bash" | "dash" | "zsh")
                        && inner.iter().any(|w| w.shown().contains('>')));
                if destroys && backups {
                    an.raise(DE, format!("`find {action} {inner_name}` destroys backups or a backup store's chunks"));
                }
                an.run(inner, stdin);
                // Each file it finds in the place of `{}`: the files under where it starts, named
                // as the expression asks.
                let name = find_name_pattern(a.all);
                let places = starts.iter().filter_map(|s| s.as_static()).flat_map(|start| {
                    let start = start.trim_end_matches('/');
                    [format!("{start}/**/{name}"), format!("{start}/{name}")]
                });
                for found in places {
                    let substituted: Vec<Arg> = inner
                        .iter()
                        .map(|w| match w.as_static() {
                            Some(t) if t.contains("{}") => Arg::Static(t.replace("{}", &found)),
                            _ => w.clone(),
                        })
                        .collect();
                    if substituted != inner {
                        an.run(&substituted, stdin);
                    }
                }
                i = end;
            }
            Some(action @ ("-fprint" | "-fprint0" | "-fprintf" | "-fls")) => {
                acted = true;
                if let Some(target) = a.all.get(i + 1) {
                    an.write_target(target, &format!("`find {action}`"));
                }
            }
            _ => {}
        }
        i += 1;
    }
    if let Some(word) = find_unknown_primary(a.all.get(starts.len()..).unwrap_or(&[])) {
        an.raise(CM, format!("`find {word}` is not a test or action known to be read-only"));
    }
    if !acted {
        ro(an, "`find` without actions only lists");
    }
}

/// The name the expression asks files to have (`-name '*.zst'`), else any.
fn find_name_pattern(words: &[Arg]) -> String {
    words
        .windows(2)
        .find_map(|w| match w {
            [k, v] if matches!(k.as_static(), Some("-name" | "-iname")) => v.as_static().map(str::to_string),
            _ => None,
        })
        .unwrap_or_else(|| "*".to_string())
}

/// The first word of find's expression that is not a test, operator or action known to be inert
/// (the actions that run or write are judged above).
fn find_unknown_primary(expression: &[Arg]) -> Option<String> {
    #[rustfmt::skip]
    const VALUED: &[&str] = &[
        "-name", "-iname", "-path", "-ipath", "-wholename", "-iwholename", "-regex", "-iregex", "-lname", "-ilname",
        "-type", "-xtype", "-size", "-mtime", "-mmin", "-atime", "-amin", "-ctime", "-cmin", "-newer", "-anewer",
        "-cnewer", "-perm", "-user", "-group", "-uid", "-gid", "-links", "-inum", "-samefile", "-maxdepth",
        "-mindepth", "-printf", "-fstype", "-regextype", "-used", "-context", "-fprint", "-fprint0", "-fls",
        "-files0-from",
    ];
    #[rustfmt::skip]
    const PLAIN: &[&str] = &[
        "-print", "-print0", "-ls", "-prune", "-quit", "-true", "-false", "-not", "-a", "-and", "-o", "-or", "!", "(",
        ")", ",", "-empty", "-nouser", "-nogroup", "-readable", "-writable", "-executable", "-depth", "-d", "-xdev",
        "-mount", "-follow", "-daystart", "-noleaf", "-ignore_readdir_race", "-noignore_readdir_race", "-warn",
        "-nowarn", "-delete", "-fprintf", "-L", "-H", "-P",
    ];
    let mut i = 0;
    while let Some(word) = expression.get(i) {
        i += 1;
        let Some(w) = word.as_static() else { continue };
        if matches!(w, "-exec" | "-execdir" | "-ok" | "-okdir") {
            // Its command runs to `;` or `+`, judged above.
            while let Some(x) = expression.get(i) {
                i += 1;
                if matches!(x.as_static(), Some(";" | "+" | "\\;")) {
                    break;
                }
            }
        } else if w == "-fprintf" {
            i += 2;
        } else if VALUED.contains(&w) || (w.starts_with("-newer") && w.len() == 8) {
            i += 1;
        } else if !PLAIN.contains(&w) && (w.starts_with('-') || w.starts_with('(')) {
            return Some(w.to_string());
        }
    }
    None
}

/// `tar`: listing reads, extracting writes, creating to standard output reads what it archives.
pub(super) fn tar(an: &mut Analysis<'_>, base: &str, a: &Args<'_>, stdin: &Stdin) {
    // Old-style bundled letters (`tar tvfI x.tar prog`): the letters that take an argument take the
    // words after the bundle, in order. Read as the options they stand for.
    if let Some(bundle) = a
        .all
        .first()
        .and_then(Arg::as_static)
        .filter(|s| !s.starts_with('-') && s.chars().all(|c| c.is_ascii_alphabetic()))
    {
        let mut expanded: Vec<Arg> = Vec::new();
        let mut next = 1;
        for c in bundle.chars() {
            expanded.push(Arg::Static(format!("-{c}")));
            if "bCfFgHIKLNTVX".contains(c) {
                expanded.extend(a.all.get(next).cloned());
                next += 1;
            }
        }
        expanded.extend_from_slice(a.tail_from(next));
        return tar_options(an, base, &Args::new(&expanded), stdin);
    }
    tar_options(an, base, a, stdin)
}

/// `tar` with its options written as options.
fn tar_options(an: &mut Analysis<'_>, _base: &str, a: &Args<'_>, _stdin: &Stdin) {
    let has = |short: char, long: &str| a.flag(short, long);
    // An archive of a tree that holds secrets written to standard output prints them.
    let to_stdout = a.values(&["-f", "--file"]).iter().any(|f| f.shown() == "-")
        || a.options().any(|o| !o.starts_with("--") && o.ends_with("f-"));
    if has('c', "--create") && to_stdout {
        let trees = a.operands(&["-f", "--file", "-C", "--directory", "-T", "--files-from", "-X", "--exclude-from"]);
        for tree in trees.iter().flat_map(|t| t.values()) {
            if an.resolve(tree).iter().any(|r| crate::secrets::holds_secrets(r) && r != "-") {
                an.raise_secret(DE, format!("`tar` streams {tree}, secrets and all, to standard output"));
            }
        }
    }
    if a.long_prefix("--to-command")
        || a.long_prefix("--use-compress-program")
        || a.short('I')
        || a.short('F')
        || a.long_prefix("--checkpoint-action")
        || a.long_prefix("--info-script")
        || a.long_prefix("--new-volume-script")
    {
        an.raise(CM, "`tar` runs another program");
        for v in a.values(&[
            "--to-command",
            "--checkpoint-action",
            "--info-script",
            "--new-volume-script",
            "--use-compress-program",
            "-I",
            "-F",
        ]) {
            let cmd = v.shown().strip_prefix("exec=").unwrap_or(v.shown()).to_string();
            // `--checkpoint-action=echo` and friends are tar's own actions, not commands.
            if !v.shown().contains('=') || v.shown().starts_with("exec=") {
                crate::rules::run_given(an, "`tar`", &cmd);
            } else {
                an.script(&cmd);
            }
        }
    }
    if a.long("--remove-files") {
        return an.raise(DE, "`tar --remove-files` deletes what it archives");
    }
    // Files tar writes besides the archive: a verbose listing, the incremental snapshot, the
    // volume number.
    for out in a.values(&["--index-file", "--listed-incremental", "-g", "--volno-file"]) {
        an.write_target(&out, "`tar`");
    }
    if a.long_prefix("--rsh-command") || a.long_prefix("--rmt-command") {
        an.raise(CM, "`tar --rsh-command` runs another program");
        for v in a.values(&["--rsh-command", "--rmt-command"]) {
            an.script(v.shown());
        }
    }
    // `-f host:file` is a remote archive reached over rsh/ssh.
    let archive = a.value(&["-f", "--file"]);
    if archive
        .as_ref()
        .is_some_and(|f| f.shown().split_once(':').is_some_and(|(h, _)| !h.is_empty() && !h.contains('/')))
        && !a.long("--force-local")
    {
        an.raise(CM, "`tar -f host:file` reaches another machine");
    }
    if has('t', "--list") {
        return ro(an, "`tar -t` only lists");
    }
    if has('x', "--extract")
        || has('r', "--append")
        || has('u', "--update")
        || has('A', "--concatenate")
        || a.long("--delete")
    {
        return an.raise(CM, "`tar` writes files");
    }
    if has('c', "--create") {
        let sources: Vec<&Arg> = a.operands(&[
            "-f",
            "--file",
            "-C",
            "--directory",
            "-T",
            "--files-from",
            "-X",
            "--exclude-from",
            "-b",
            "-H",
            "--format",
        ]);
        // `-C DIR` moves tar before it reads the files named after it.
        let dir = a.value(&["-C", "--directory"]);
        an.in_dir(dir.as_ref(), |an| {
            recursive_read(an, "tar", &sources);
            check_secrets(an, "tar", &sources.iter().map(|s| (*s).clone()).collect::<Vec<_>>());
        });
        let to_stdout = a.value(&["-f", "--file"]).as_ref().map(Arg::shown) == Some("-") || (!has('f', "--file"));
        if to_stdout {
            return ro(an, "`tar -c` to standard output only reads");
        }
        return an.raise(CM, "`tar -c` writes an archive");
    }
    unknown(an, "tar");
}

/// `ldd` runs the program it lists through its loader: a program installed in the system's own
/// directories loads as it always does; any other file may name a loader of its own and run.
pub(super) fn ldd(an: &mut Analysis<'_>, _base: &str, a: &Args<'_>, _stdin: &Stdin) {
    let files = a.operands(&[]);
    let installed = |w: &str| {
        ["/usr/bin/", "/usr/sbin/", "/usr/lib/", "/usr/libexec/", "/bin/", "/sbin/", "/lib/", "/lib64/", "/usr/lib64/"]
            .iter()
            .any(|d| w.starts_with(d))
            && !w.split('/').any(|c| c == "..")
    };
    if !files.is_empty() && files.iter().all(|f| f.as_static().is_some_and(installed)) {
        ro(an, "`ldd` only lists the libraries of an installed program");
    } else {
        an.raise(CM, "`ldd` may run the program it is given");
    }
}

/// `date` with a time sets the clock; with a format it only prints.
pub(super) fn date(an: &mut Analysis<'_>, _base: &str, a: &Args<'_>, _stdin: &Stdin) {
    // `-Iseconds` is `-I` with its format, not `-s`: short options read letter by letter.
    let sets = a.short_options("dfrs", "I").iter().any(|(c, _)| *c == 's')
        || a.long("--set")
        || a.operands(&["-d", "--date", "-r", "--reference", "-f", "--file", "-s"])
            .iter()
            .any(|o| !o.shown().starts_with('+'));
    if sets {
        an.raise(CM, "`date` with a time sets the clock");
    } else {
        ro(an, "`date` only reports");
    }
}

/// The Ex commands a vi-family editor runs at start (`-c CMD`, `+CMD`, `--cmd CMD`): `:!cmd` runs
/// a shell command (`-R` does not stop it), `:w FILE` writes FILE, judged as a redirect's target.
fn editor_commands(an: &mut Analysis<'_>, base: &str, a: &Args<'_>) {
    let mut commands: Vec<String> = a.values(&["-c", "--cmd", "-S"]).iter().map(|v| v.shown().to_string()).collect();
    commands.extend(a.all.iter().filter_map(Arg::as_static).filter_map(|w| w.strip_prefix('+')).map(str::to_string));
    vim_write(an, base, commands.clone());
    for command in commands {
        vim_command(an, base, &command);
    }
}

/// One Vim or ex command line (`-c`, `+cmd`, `VIMINIT`): `!cmd`, a range filtered through a
/// command (`%!cmd`), `call system(…)`, `execute "!…"` and embedded Python, Lua, Perl or Ruby run
/// programs; `w FILE` writes.
pub(crate) fn vim_command(an: &mut Analysis<'_>, base: &str, line: &str) {
    // `|` separates commands, except after `!`, which takes the rest of the line.
    let mut rest = line;
    while !rest.is_empty() {
        let c = rest.trim_start_matches([':', ' ', '\t']);
        let c = c.strip_prefix("silent!").or_else(|| c.strip_prefix("silent")).unwrap_or(c).trim_start();
        // A range (`%`, `1,$`, `.`) before a filter.
        let unranged = c.trim_start_matches(|ch: char| ch.is_ascii_digit() || "%.$,;+-'<>".contains(ch));
        if let Some(shell) = unranged.strip_prefix('!') {
            an.raise(CM, format!("`{base}` runs a shell command"));
            an.script(shell);
            return;
        }
        let (this, next) = c.split_once('|').unwrap_or((c, ""));
        let verb = this.split_whitespace().next().unwrap_or_default();
        if matches!(
            verb,
            "py" | "python"
                | "py3"
                | "python3"
                | "pyx"
                | "lua"
                | "perl"
                | "ruby"
                | "pydo"
                | "py3do"
                | "luado"
                | "rubydo"
        ) || this.contains("system(")
            || this.contains("systemlist(")
            || matches!(verb, "exe" | "exec" | "execute" | "call")
        {
            an.raise(CM, format!("`{base}` runs code"));
            super::interpreters::code_literals(an, base, this);
            // `execute "!reboot"`: a literal that is itself an ex command.
            for literal in super::quoted_literals(this) {
                if literal.trim_start_matches(':').starts_with('!') {
                    vim_command(an, base, &literal);
                }
            }
        }
        rest = next;
    }
}

/// `w FILE`, `sh`, `r !cmd` in one of an editor's commands.
fn vim_write(an: &mut Analysis<'_>, base: &str, commands: Vec<String>) {
    for command in commands {
        let c = command.trim_start_matches([':', ' ']);
        if let Some(shell) = c.strip_prefix('!').or_else(|| c.strip_prefix("sh ")).or_else(|| c.strip_prefix("r !")) {
            an.raise(CM, format!("`{base} -c !` runs a shell command"));
            an.script(shell);
        } else if let Some(rest) =
            c.strip_prefix("w!").or_else(|| c.strip_prefix("w ")).or_else(|| c.strip_prefix("wq "))
        {
            let target = rest.trim();
            if let Some(shell) = target.strip_prefix('!') {
                an.script(shell);
            } else if !target.is_empty() {
                an.write_target(&Arg::Static(target.to_string()), &format!("`{base} :w`"));
            }
        }
    }
}
