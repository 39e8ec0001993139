//! Signals: `kill`, `pkill`, `killall`, `skill`. Listing signal names is the only thing they do
//! that only reads; sending any signal changes a running process; a signal to init, to every
//! process, to what keeps the operator connected or the cluster together is destructive. Their
//! arguments are read exactly as each program reads them: a signal given as `-NAME` or `-NUMBER`
//! is never taken for the list option.

use nomos_types::Risk::{ConfigMutation as CM, Destructive as DE, ReadOnly as RO, ReversibleLow as RL};

use super::{Args, LIFELINES};
use crate::shell::{Analysis, Arg, Stdin};

/// Processes whose loss cuts the operator (and Nomos, the agent) off, or takes the node or the
/// cluster down: names as `ps -o comm` shows them, and words of their command lines.
#[rustfmt::skip]
const PROCESSES: &[&str] = &[
    "sshd", "sshd-session", "sshd-auth", "sshd: root@notty", "sshd: root [priv]", "/usr/sbin/sshd -D", "init",
    "/sbin/init", "systemd", "/lib/systemd/systemd --system", "systemd-journald", "systemd-logind", "systemd-networkd",
    "systemd-resolved", "systemd-udevd", "dbus-daemon", "pmxcfs", "pve-cluster", "corosync", "/usr/sbin/corosync -f",
    "pvedaemon", "pvedaemon worker", "pveproxy", "pveproxy worker", "pvestatd", "pve-firewall", "pve-ha-lrm",
    "pve-ha-crm", "qmeventd", "NetworkManager", "dhclient", "wpa_supplicant", "ifupdown2", "networking", "-bash", "bash",
    "sh",
    // Every guest at once (or one guest's process killed outright, which is pulling its plug).
    "kvm", "qemu-system-x86_64", "qemu-system-aarch64", "qemu-server", "lxc-start", "lxc-monitord",
    "/usr/bin/kvm -id", "lxcfs", "dockerd", "containerd", "containerd-shim", "libvirtd",
    // What guests' disks and services' data live on.
    "ceph-osd", "ceph-mon", "ceph-mgr", "ceph-mds", "radosgw", "zed", "multipathd", "iscsid", "tgtd", "nfsd",
    "postgres", "mysqld", "mariadbd", "mongod", "redis-server", "etcd",
];

/// Signal names (without `SIG`), as the shells and procps read them.
#[rustfmt::skip]
const SIGNALS: &[&str] = &[
    "HUP", "INT", "QUIT", "ILL", "TRAP", "ABRT", "IOT", "BUS", "FPE", "KILL", "USR1", "SEGV", "USR2", "PIPE", "ALRM",
    "TERM", "STKFLT", "CHLD", "CLD", "CONT", "STOP", "TSTP", "TTIN", "TTOU", "URG", "XCPU", "XFSZ", "VTALRM", "PROF",
    "WINCH", "IO", "POLL", "PWR", "SYS", "UNUSED", "INFO", "LOST", "EMT", "RTMIN", "RTMAX", "EXIT", "DEBUG", "ERR",
    "RETURN",
];

/// Whether `spec` names a signal: a number, a name, `SIG`NAME, `RTMIN+n`/`RTMAX-n`, any case.
fn is_signal(spec: &str) -> bool {
    let upper = spec.to_ascii_uppercase();
    let name = upper.strip_prefix("SIG").unwrap_or(&upper);
    let base = name.split(['+', '-']).next().unwrap_or(name);
    (!spec.is_empty() && spec.bytes().all(|b| b.is_ascii_digit()))
        || SIGNALS.contains(&name)
        || (matches!(base, "RTMIN" | "RTMAX")
            && name.strip_prefix(base).and_then(|r| r.get(1..)).is_some_and(|n| n.parse::<u8>().is_ok()))
}

/// Signal 0 checks that a process exists; nothing is sent.
fn is_null_signal(spec: &str) -> bool {
    spec == "0"
}

/// What a guest's or the system's storage is reached by: the processes holding these (found with
/// `lsof -t`, `fuser`) are the guests running on them, or what keeps the node's storage alive.
#[rustfmt::skip]
const HELD_STORAGE: &[&str] = &[
    "/dev/zvol/", "/dev/rbd", "/dev/mapper/", "/dev/pve/", "/dev/dm-", "/dev/md", "/dev/sd", "/dev/nvme", "/dev/vd",
    "/dev/disk/", "/dev/drbd", "/dev/nbd", "/dev/loop", "/var/lib/vz", "/mnt/pve/", "/etc/pve", "/var/lib/ceph",
    "/var/lib/libvirt/images", "/var/lib/lxc", "/run/qemu-server", "/var/run/qemu-server", "/dev/kvm", "/dev/net/tun",
    "vm-", "subvol-", "base-",
];

/// Whether a process id word is looked up from what holds a guest's disk or the node's storage
/// (`$(lsof -t /dev/zvol/rpool/data/vm-100-disk-0)`, `$(fuser /var/lib/vz/images/100/x.qcow2)`)
/// or what listens on the way in (`$(lsof -t -i :22)`).
fn holder_of_vital(word: &str) -> Option<&'static str> {
    // Socket tables name the process behind a port too (`ss -tlnp sport = :22`, `netstat -tlnp`).
    let lookup = ["lsof", "fuser", "ss -", "ss sport", "ss state", "netstat", "sockstat", "pid="]
        .iter()
        .any(|p| word.contains(p));
    if !lookup {
        return None;
    }
    if HELD_STORAGE.iter().any(|s| word.contains(s)) {
        return Some("the processes using a guest's disk or the node's storage");
    }
    let lower = word.to_ascii_lowercase();
    [":22", ":ssh", ":8006", ":5404", ":5405", ":3128", "22/tcp", "8006/tcp", "5405/udp"]
        .iter()
        .any(|p| lower.contains(p))
        .then_some("the processes serving the way in or the cluster's links")
}

/// Whether a process id computed at run time is read from process 1's own entries
/// (`$(cut -d' ' -f1 /proc/1/stat)`, `$(ps -o pid= -p 1)`, `$(awk '{print $4}' /proc/self/stat)`
/// walks up to it) or asks for the parent of everything: that id is init, and losing it takes
/// the machine down.
fn looks_up_init(word: &str) -> bool {
    if !(word.contains("$(") || word.contains('`')) {
        return false;
    }
    let spaced = word.replace(['(', ')', '`', '"', '\'', '=', ','], " ");
    let tokens: Vec<&str> = spaced.split_whitespace().collect();
    let proc_one = tokens.iter().any(|t| {
        let t = t.trim_end_matches('/');
        t == "/proc/1" || t.starts_with("/proc/1/")
    });
    // `ps -p 1`, `ps --pid 1`, `ps -q 1`: the entry of process 1.
    let ps_one =
        tokens.windows(2).any(|w| matches!(w, [o, "1"] if matches!(*o, "-p" | "--pid" | "-q" | "--quick-pid")));
    // The oldest process of init's name (`pgrep -o systemd`, `pidof -s init`).
    let oldest = tokens.iter().any(|t| matches!(*t, "-o" | "--oldest"))
        && tokens.iter().any(|t| matches!(t.rsplit('/').next(), Some("systemd" | "init")));
    proc_one || ps_one || oldest
}

/// Whether a word (a pid, a pattern, a pid file, a substitution) names a lifeline.
pub(super) fn names_lifeline(word: &str) -> Option<String> {
    if let Some(what) = holder_of_vital(word) {
        return Some(what.to_string());
    }
    if looks_up_init(word) {
        return Some("init (process 1)".to_string());
    }
    // `pgrep NAME` matches any process whose name holds NAME (`qemu-system` is every VM).
    if word.contains("pgrep") && !word.contains(" -x") {
        let hit = word.split(|c: char| c.is_whitespace() || matches!(c, '(' | ')' | '`' | '\'' | '"' | '$')).find_map(
            |part| {
                let part = part.trim_start_matches('^').trim_end_matches('$');
                (part.len() >= 3 && !part.starts_with('-') && part != "pgrep")
                    .then(|| PROCESSES.iter().chain(LIFELINES.iter()).find(|p| p.contains(part)))
                    .flatten()
            },
        );
        if let Some(name) = hit {
            return Some((*name).to_string());
        }
    }
    word.split(|c: char| !(c.is_ascii_alphanumeric() || c == '-' || c == '_'))
        .find(|part| {
            !part.is_empty()
                && (LIFELINES.iter().any(|l| l.eq_ignore_ascii_case(part))
                    || PROCESSES.iter().any(|p| p.eq_ignore_ascii_case(part)))
        })
        .map(str::to_string)
}

/// Words a process id may be: the word, its known values, and how it is written.
pub(super) fn pid_texts(arg: &Arg) -> Vec<String> {
    let mut out: Vec<String> = arg.values().into_iter().map(str::to_string).collect();
    out.push(arg.shown().to_string());
    out
}

/// `kill [-s SIG | -n SIG | -SIG] [--] PID…`, `kill -l|-L [SIG…]`.
pub(super) fn kill(an: &mut Analysis<'_>, base: &str, a: &Args<'_>, _stdin: &Stdin) {
    let words = a.all;
    let first = words.first().and_then(Arg::as_static);
    // Listing: the list option first, then only signal names or numbers to translate.
    if first.is_some_and(|f| matches!(f, "-l" | "-L" | "--list" | "--table") || f.starts_with("--list="))
        && words.iter().skip(1).all(|w| w.as_static().is_some_and(|s| !s.starts_with('-') && is_signal(s)))
    {
        return an.raise(RO, format!("`{base} -l` only lists signal names"));
    }
    let mut signal: Option<String> = None;
    let mut i = 0;
    let mut unknown = false;
    while let Some(word) = words.get(i) {
        let Some(w) = word.as_static() else { break };
        // The word after its `-`, when there is something after it.
        let dashless = w.strip_prefix('-').filter(|r| !r.is_empty());
        match (w, w.strip_prefix("--signal="), dashless) {
            ("--", ..) => {
                i += 1;
                break;
            }
            ("-s" | "-n" | "--signal", ..) => {
                signal = Some(words.get(i + 1).map_or(String::new(), |s| s.shown().to_string()));
                i += 2;
            }
            ("-q" | "--queue", ..) => i += 2,
            ("--timeout", ..) => i += 3,
            ("-a" | "--all" | "--verbose" | "-p" | "--pid" | "-r" | "--require-handler", ..) => i += 1,
            (_, Some(value), _) => {
                signal = Some(value.to_string());
                i += 1;
            }
            // The first `-SIG` is the signal; after it, `-N` is a process group.
            (_, _, Some(spec)) if signal.is_none() && is_signal(spec) => {
                signal = Some(spec.to_string());
                i += 1;
            }
            (_, _, Some(spec)) if !spec.bytes().all(|b| b.is_ascii_digit()) => {
                unknown = true;
                i += 1;
            }
            _ => break,
        }
    }
    // Past the end (an option without its value), there are none.
    let pids = words.get(i..).unwrap_or(&[]);
    if unknown {
        an.raise(CM, format!("`{base}` has an option that is not known to be safe"));
    }
    // Signal 0 is never delivered: whichever processes the words name, it only asks whether they exist.
    if signal.as_deref().is_some_and(is_null_signal) && !unknown {
        return an.raise(RO, format!("`{base} -0` only checks that processes exist"));
    }
    judge_targets(an, base, pids);
}

/// What the process ids of a `kill` reach.
fn judge_targets(an: &mut Analysis<'_>, base: &str, pids: &[Arg]) {
    for pid in pids {
        // The kernel reads `-01` as -1 (every process) and `01` as 1 (init); 0 is the caller's own
        // process group (the session Nomos runs the command in).
        for text in pid_texts(pid) {
            match text.parse::<i64>() {
                Ok(-1) => return an.raise(DE, format!("`{base}` aimed at every process takes the machine down")),
                Ok(1) => return an.raise(DE, format!("`{base}` aimed at init takes the machine down")),
                Ok(0) => return an.raise(DE, format!("`{base} 0` signals its own session, cutting the connection")),
                _ => {}
            }
            if ["$$", "${$}", "$PPID", "${PPID}", "$BASHPID", "${BASHPID}"].iter().any(|v| text.contains(v)) {
                return an.raise(DE, format!("`{base}` aimed at its own shell or session cuts the connection"));
            }
            if let Some(name) = names_lifeline(&text) {
                return an.raise(DE, format!("`{base}` aimed at `{name}` cuts off access or the cluster"));
            }
        }
    }
    an.raise(RL, format!("`{base}` signals processes"));
}

/// `start-stop-daemon`: `--stop` signals the processes it matches (a lifeline's is destructive),
/// `--start` runs its program with the arguments after `--`, `--test` and `--status` only check.
pub(super) fn start_stop_daemon(an: &mut Analysis<'_>, base: &str, a: &Args<'_>, stdin: &Stdin) {
    let shorts = a.short_options("pxnugsRaNPIkcrdOe", "");
    let short = |c: char| shorts.iter().any(|(s, _)| *s == c);
    let (start, stop) = (short('S') || a.long("--start"), short('K') || a.long("--stop"));
    if short('t') || a.long("--test") || (!start && !stop && (short('T') || a.long("--status"))) {
        return an.raise(RO, format!("`{base} --test` only checks"));
    }
    if stop {
        let targets = a.values(&["-n", "--name", "-x", "--exec", "-p", "--pidfile", "-a", "--startas"]);
        if let Some(name) = targets.iter().flat_map(pid_texts).find_map(|t| names_lifeline(&t)) {
            return an.raise(DE, format!("`{base} --stop` aimed at `{name}` cuts off access or the cluster"));
        }
        if a.values(&["-u", "--user"]).iter().any(|u| matches!(u.shown(), "root" | "0")) && targets.is_empty() {
            return an.raise(DE, format!("`{base} --stop --user root` signals every process of root"));
        }
        an.raise(RL, format!("`{base} --stop` signals processes"));
    }
    if start {
        an.raise(RL, format!("`{base} --start` starts a daemon"));
        // (`--start` is an option of its own, not an abbreviation of `--startas`.)
        let exact = |names: &[&str]| {
            a.all.iter().enumerate().find_map(|(k, w)| match w.as_static() {
                Some(s) if names.contains(&s) => a.all.get(k + 1).cloned(),
                Some(s) => names
                    .iter()
                    .find_map(|n| s.strip_prefix(n).and_then(|v| v.strip_prefix('=')))
                    .map(|v| Arg::Static(v.to_string())),
                None => None,
            })
        };
        let short_value =
            |c: char| shorts.iter().find(|(s, _)| *s == c).and_then(|(_, v)| v.map(|v| Arg::Static(v.to_string())));
        let program = short_value('a')
            .or_else(|| exact(&["--startas"]))
            .or_else(|| short_value('x'))
            .or_else(|| exact(&["--exec"]));
        let args = a.all.iter().position(|x| x.as_static() == Some("--")).map_or(&[][..], |d| a.tail_from(d + 1));
        if let Some(program) = program {
            let mut argv = vec![program];
            argv.extend_from_slice(args);
            an.run(&argv, stdin);
        }
    }
    if !start && !stop {
        an.raise(CM, format!("`{base}` without --start or --stop"));
    }
}

/// Options of `pkill` that take a value, and those that do not (procps-ng).
const PKILL_VALUED: &[&str] = &[
    "-g",
    "--pgroup",
    "-G",
    "--group",
    "-P",
    "--parent",
    "-s",
    "--session",
    "-t",
    "--terminal",
    "-u",
    "--euid",
    "-U",
    "--uid",
    "-F",
    "--pidfile",
    "-r",
    "--runstates",
    "--ns",
    "--nslist",
    "--cgroup",
    "-q",
    "--queue",
    "-O",
    "--older",
    "--signal",
    "--env",
];
const PKILL_FLAGS: &[&str] = &[
    "-e",
    "--echo",
    "-c",
    "--count",
    "-f",
    "--full",
    "-i",
    "--ignore-case",
    "-n",
    "--newest",
    "-o",
    "--oldest",
    "-x",
    "--exact",
    "-L",
    "--logpidfile",
    "-A",
    "--ignore-ancestors",
    "-v",
    "--inverse",
    "-H",
    "--require-handler",
    "-h",
    "--help",
    "-V",
    "--version",
];
/// … and of `killall` (psmisc).
const KILLALL_VALUED: &[&str] =
    &["-y", "--younger-than", "-o", "--older-than", "-s", "--signal", "-u", "--user", "-n", "--ns", "-Z", "--context"];
const KILLALL_FLAGS: &[&str] = &[
    "-e",
    "--exact",
    "-I",
    "--ignore-case",
    "-g",
    "--process-group",
    "-i",
    "--interactive",
    "-l",
    "--list",
    "-q",
    "--quiet",
    "-r",
    "--regexp",
    "-v",
    "--verbose",
    "-V",
    "--version",
    "-w",
    "--wait",
    "-h",
    "--help",
];

/// `pkill`, `killall` and `skill`: processes chosen by name, pattern, user or relation.
pub(super) fn pkill(an: &mut Analysis<'_>, base: &str, a: &Args<'_>, _stdin: &Stdin) {
    let (valued, flags) = match base {
        "killall" => (KILLALL_VALUED, KILLALL_FLAGS),
        _ => (PKILL_VALUED, PKILL_FLAGS),
    };
    let words = a.all;
    if base != "pkill"
        && words
            .first()
            .and_then(Arg::as_static)
            .is_some_and(|f| matches!(f, "-l" | "--list" | "-L" | "-V" | "--version"))
        && words.len() == 1
    {
        return an.raise(RO, format!("`{base} -l` only lists signal names"));
    }
    let mut given: Vec<(String, Option<Arg>)> = Vec::new();
    let mut patterns: Vec<&Arg> = Vec::new();
    let mut unknown = false;
    let mut i = 0;
    let mut after_dashes = false;
    while let Some(arg) = words.get(i) {
        i += 1;
        // An option, and what follows its `-`.
        let option = arg.as_static().filter(|_| !after_dashes).and_then(|w| Some((w, w.strip_prefix('-')?)));
        let Some((w, dashless)) = option.filter(|(_, dashless)| !dashless.is_empty()) else {
            patterns.push(arg);
            continue;
        };
        if w == "--" {
            after_dashes = true;
            continue;
        }
        let (name, inline) = match w.split_once('=').filter(|_| w.starts_with("--")) {
            Some((n, v)) => (n, Some(Arg::Static(v.to_string()))),
            None => (w, None),
        };
        if valued.contains(&name) {
            let value = inline.or_else(|| {
                i += 1;
                words.get(i - 1).cloned()
            });
            given.push((name.to_string(), value));
        } else if flags.contains(&name) {
            given.push((name.to_string(), None));
        } else if is_signal(dashless) {
            given.push(("--signal".into(), Some(Arg::Static(dashless.to_string()))));
        } else if !w.starts_with("--") && dashless.chars().all(|c| flags.contains(&format!("-{c}").as_str())) {
            // A cluster of flags (`-fx`).
            given.extend(dashless.chars().map(|c| (format!("-{c}"), None)));
        } else if let Some((short, value)) =
            w.split_at_checked(2).filter(|(s, _)| !w.starts_with("--") && w.len() > 2 && valued.contains(s))
        {
            // A value attached to a short option (`-uroot`).
            given.push((short.to_string(), Some(Arg::Static(value.to_string()))));
        } else {
            unknown = true;
        }
    }
    if unknown {
        an.raise(CM, format!("`{base}` has an option that is not known to be safe"));
    }
    // Signal 0 sends nothing: it only checks that matching processes exist.
    let mut signals = given
        .iter()
        .filter(|(n, _)| n == "--signal" || (base == "killall" && n == "-s"))
        .map(|(_, v)| v.as_ref().and_then(Arg::as_static).unwrap_or(""))
        .peekable();
    if !unknown && signals.peek().is_some() && signals.all(is_null_signal) {
        return an.raise(RO, format!("`{base}` with signal 0 only checks that processes exist"));
    }
    let has = |names: &[&str]| given.iter().any(|(n, _)| names.contains(&n.as_str()));
    let values = |names: &[&str]| -> Vec<String> {
        given
            .iter()
            .filter(|(n, _)| names.contains(&n.as_str()))
            .filter_map(|(_, v)| v.as_ref())
            .flat_map(pid_texts)
            .collect()
    };
    let full = has(&["-f", "--full"]);
    let regex = base != "killall" || has(&["-r", "--regexp"]);
    let exact = has(&["-x", "--exact", "-e"]) && base != "killall" || (base == "killall" && !regex);
    // What a criterion selects: everything (broad), a lifeline, or something narrower.
    let mut narrowed = false;
    let broad_users = values(&["-u", "--euid", "-U", "--uid", "--user", "-G", "--group"])
        .iter()
        .flat_map(|v| v.split(',').map(str::to_string).collect::<Vec<_>>())
        .any(|u| matches!(u.as_str(), "root" | "0"));
    if has(&["-u", "--euid", "-U", "--uid", "--user", "-G", "--group"]) && !broad_users {
        narrowed = true;
    }
    if has(&["-v", "--inverse"]) {
        return an.raise(DE, format!("`{base} -v` signals every process but the ones named"));
    }
    // Session or process group 0 is pkill's own: the session Nomos runs the command in.
    if values(&["-s", "--session", "-g", "--pgroup"]).iter().any(|v| v.split(',').any(|s| s.trim() == "0")) {
        return an.raise(DE, format!("`{base}` aimed at its own session cuts the connection"));
    }
    let parents = values(&["-P", "--parent"]);
    if parents.iter().any(|p| p.split(',').any(|p| matches!(p.trim(), "1" | "0" | "$PPID" | "$$"))) {
        return an.raise(DE, format!("`{base} -P 1` signals every service"));
    }
    if has(&[
        "-P",
        "--parent",
        "-g",
        "--pgroup",
        "-s",
        "--session",
        "-t",
        "--terminal",
        "--ns",
        "--cgroup",
        "-Z",
        "--context",
    ]) {
        narrowed = true;
    }
    for file in values(&["-F", "--pidfile"]) {
        if let Some(name) = names_lifeline(&file) {
            return an.raise(DE, format!("`{base} -F` aimed at `{name}` cuts off access or the cluster"));
        }
        narrowed = true;
    }
    for pattern in &patterns {
        for text in pid_texts(pattern) {
            match pattern_reach(&text, full, regex, exact, has(&["-i", "--ignore-case", "-I"])) {
                Reach::Everything => {
                    return an.raise(DE, format!("`{base} {text}` matches every process"));
                }
                Reach::Lifeline(name) => {
                    return an.raise(DE, format!("`{base}` aimed at `{name}` cuts off access or the cluster"));
                }
                Reach::Other => narrowed = true,
            }
        }
        if pattern.as_static().is_none() && pattern.values().is_empty() {
            an.raise(CM, format!("`{base}` signals processes matched by a pattern built at run time"));
        }
    }
    if !narrowed && (broad_users || !patterns.is_empty()) {
        return an.raise(DE, format!("`{base}` aimed at every process of root takes the machine down"));
    }
    an.raise(RL, format!("`{base}` signals processes"));
}

/// What a name or pattern can match.
enum Reach {
    Everything,
    Lifeline(String),
    Other,
}

/// Whether a process name (or, with `full`, a command line) pattern can match every process or a
/// lifeline. A regular expression is reduced to its literal runs: a branch can match a name only
/// if every run of it is in that name; anything more than literals, anchors and `.*` is taken to
/// match anything.
fn pattern_reach(pattern: &str, full: bool, regex: bool, exact: bool, fold: bool) -> Reach {
    let fold_case = |s: &str| if fold { s.to_ascii_lowercase() } else { s.to_string() };
    let pattern = fold_case(pattern);
    let names: Vec<String> =
        PROCESSES.iter().chain(LIFELINES.iter()).filter(|p| full || !p.contains(' ')).map(|p| fold_case(p)).collect();
    if !regex {
        // killall: exact names (a path matches the executable).
        let name = pattern.rsplit('/').next().unwrap_or(&pattern);
        return match names.iter().find(|n| n.as_str() == name || (name.len() >= 15 && n.starts_with(name))) {
            Some(n) => Reach::Lifeline(n.clone()),
            None if name.is_empty() => Reach::Everything,
            None => Reach::Other,
        };
    }
    // A command line that starts with a vital program's name and goes on with its arguments
    // (`kvm -id 100`, `/usr/bin/corosync -f`) is that program's process.
    if full && reaches_guest(&pattern) {
        return Reach::Lifeline("a guest's process".into());
    }
    if full {
        for branch in pattern.split('|') {
            let body = branch.trim_start_matches('^');
            let first = body.split_whitespace().next().unwrap_or("");
            let program = first.rsplit('/').next().unwrap_or(first);
            let vital = names.iter().find(|n| {
                let head = n.split_whitespace().next().unwrap_or("");
                let head = head.rsplit('/').next().unwrap_or(head);
                !matches!(head, "bash" | "-bash" | "sh") && head == program
            });
            if let (Some(n), true) = (vital, body.contains(' ')) {
                return Reach::Lifeline(n.clone());
            }
        }
    }
    let mut any_branch = false;
    for branch in pattern.split('|') {
        let anchored_start = branch.starts_with('^') || exact;
        let anchored_end = branch.ends_with('$') || exact;
        let body = branch.trim_start_matches('^').trim_end_matches('$');
        // Literal runs, split at `.*`; any other operator could match anything.
        let runs: Vec<&str> = body.split(".*").collect();
        if body.contains(|c: char| "[](){}?+\\*.".contains(c) && c != '.' && c != '*')
            || runs.iter().any(|r| r.contains(['.', '*']))
        {
            return Reach::Everything;
        }
        if runs.iter().all(|r| r.is_empty()) {
            return Reach::Everything;
        }
        any_branch = true;
        let hit = names.iter().find(|n| {
            let mut rest = n.as_str();
            let mut ok = true;
            for (k, run) in runs.iter().enumerate() {
                if run.is_empty() {
                    continue;
                }
                // What follows the run's first match.
                let found = if k == 0 && anchored_start {
                    rest.strip_prefix(*run)
                } else {
                    rest.split_once(*run).map(|(_, after)| after)
                };
                match found {
                    Some(after) => rest = after,
                    None => {
                        ok = false;
                        break;
                    }
                }
            }
            ok && (!anchored_end || rest.is_empty() || runs.last().is_some_and(|r| r.is_empty()))
        });
        if let Some(n) = hit {
            return Reach::Lifeline(n.clone());
        }
    }
    if any_branch {
        Reach::Other
    } else {
        Reach::Everything
    }
}

/// Command lines of guests as the node runs them: a VM's `kvm`, a container's `lxc-start` and
/// monitor. Any number in them stands for any other (a guest's id, a size, a port).
#[rustfmt::skip]
const GUEST_COMMAND_LINES: &[&str] = &[
    "/usr/bin/kvm -id 0 -name vm0,debug-threads=on -no-shutdown -chardev socket,id=qmp,path=/var/run/qemu-server/0.qmp,server=on,wait=off -mon chardev=qmp,mode=control -pidfile /var/run/qemu-server/0.pid -daemonize -smbios type=0,uuid=0 -smp 0,sockets=0,cores=0,maxcpus=0 -nodefaults -vnc unix:/var/run/qemu-server/0.vnc,password=on -cpu host,+kvm_pv_eoi -m 0 -device virtio-scsi-pci,id=scsihw0 -drive file=/dev/zvol/rpool/data/vm-0-disk-0,if=none,id=drive-scsi0,format=raw -drive file=/dev/pve/vm-0-disk-0 -drive file=/var/lib/vz/images/0/vm-0-disk-0.qcow2 -drive file=rbd:rbd/vm-0-disk-0 -netdev type=tap,id=net0,ifname=tap0i0 -machine type=pc-i440fx-0+pve0 -name guest -enable-kvm",
    "qemu-system-x86_64 -enable-kvm -name guest=vm0 -drive file=/var/lib/libvirt/images/vm0.qcow2",
    "/usr/bin/lxc-start -F -n 0",
    "[lxc monitor] /var/lib/lxc 0",
    "/usr/bin/lxc-start -F -n 0 -- /sbin/init",
];

/// Every run of digits as one `0`, so that a guest's id in a pattern matches any guest's.
fn digits_as_zero(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut in_digits = false;
    for c in text.chars() {
        if c.is_ascii_digit() {
            if !in_digits {
                out.push('0');
            }
            in_digits = true;
        } else {
            out.push(c);
            in_digits = false;
        }
    }
    out
}

/// Whether a full command-line pattern (`pkill -f`) made only of literal runs (split at `.*`) can
/// match a guest's command line: `-id 100`, `vm-100-disk`, `/var/run/qemu-server/100`, `lxc-start`.
fn reaches_guest(pattern: &str) -> bool {
    let lines: Vec<String> = GUEST_COMMAND_LINES.iter().map(|l| digits_as_zero(&l.to_ascii_lowercase())).collect();
    digits_as_zero(&pattern.to_ascii_lowercase()).split('|').any(|branch| {
        let body = branch.trim_start_matches('^').trim_end_matches('$');
        let runs: Vec<&str> = body.split(".*").filter(|r| !r.is_empty()).collect();
        // Other operators are judged where any pattern is.
        if runs.is_empty() || body.contains(|c: char| "[](){}?+\\".contains(c)) {
            return false;
        }
        lines.iter().any(|line| {
            let mut rest = line.as_str();
            runs.iter().all(|run| match rest.split_once(run) {
                Some((_, after)) => {
                    rest = after;
                    true
                }
                None => false,
            })
        })
    })
}

/// `fuser`: lists the processes using files, mounts or ports; `-k` kills them. Killing every user
/// of the root filesystem or of a lifeline's port (SSH) takes the services or the session down.
pub(super) fn fuser(an: &mut Analysis<'_>, _base: &str, a: &Args<'_>, _stdin: &Stdin) {
    let kills = a.flag('k', "--kill");
    if !kills {
        return an.raise(RO, "`fuser` only lists the processes using files or ports");
    }
    let namespace = a.value(&["-n", "--namespace"]).map(|v| v.shown().to_string());
    let operands: Vec<String> =
        a.all.iter().filter(|w| !w.shown().starts_with('-')).map(|w| w.shown().to_string()).collect();
    let cuts = operands.iter().any(|o| {
        let port = o.split('/').next().unwrap_or(o);
        matches!(o.as_str(), "/" | "/proc" | "/dev" | "/run" | "/usr" | "/var")
            || (o.ends_with("/tcp") || namespace.as_deref() == Some("tcp")) && super::firewall::includes_ssh_port(port)
            || names_lifeline(o).is_some()
            || o.contains('$')
    });
    if cuts {
        return an.raise(DE, "`fuser -k` kills every process using the root filesystem or SSH's port");
    }
    // Whatever holds a file or mount open (a database, a guest) is killed mid-write.
    an.raise(DE, "`fuser -k` kills every process using a file or port, whatever it is doing");
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn signal_names_are_read_as_signals() {
        for s in ["9", "KILL", "kill", "SIGKILL", "sigalrm", "RTMIN+3", "SIGRTMAX-1", "HUP", "0"] {
            assert!(is_signal(s), "{s}");
        }
        for s in ["l", "L", "list", "table", "KILLX", "RTMIN+x", ""] {
            assert!(!is_signal(s), "{s}");
        }
    }

    #[test]
    fn patterns_reach_what_they_can_match() {
        let reach = |p: &str, full: bool| match pattern_reach(p, full, true, false, false) {
            Reach::Everything => "everything".to_string(),
            Reach::Lifeline(n) => n,
            Reach::Other => "other".to_string(),
        };
        assert_eq!(reach("caddy", false), "other");
        assert_eq!(reach("ssh", false), "sshd");
        assert_eq!(reach("^sshd$", false), "sshd");
        assert_eq!(reach("^sshx$", false), "other");
        assert_eq!(reach("^caddy$", false), "other");
        assert_eq!(reach("caddy|corosync", false), "corosync");
        assert_eq!(reach("py.*worker", false), "other");
        assert_eq!(reach("pve.*", false), "pve-cluster");
        assert_eq!(reach(".", false), "everything");
        assert_eq!(reach("[a-z]", false), "everything");
        assert_eq!(reach("", false), "everything");
        assert_eq!(reach("notty", true), "sshd: root@notty");
        assert_eq!(reach("notty", false), "other");
    }
}
