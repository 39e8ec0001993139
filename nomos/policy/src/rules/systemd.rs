//! Services and the system manager: `systemctl`, `service`, runlevels, logins, `systemd-analyze`,
//! kernel parameters.

use nomos_types::Risk::{ConfigMutation as CM, Destructive as DE, ReversibleLow as RL};

use super::Args;
use super::{ro, LIFELINES};
use crate::paths::globs_intersect;
use crate::shell::{Analysis, Stdin};

/// `systemctl`: queries read, runtime changes restart, stopping a lifeline or leaving the normal state destroys access.
pub(super) fn systemctl(an: &mut Analysis<'_>, _base: &str, a: &Args<'_>, _stdin: &Stdin) {
    #[rustfmt::skip]
    let valued = [
        "-t", "--type", "-p", "--property", "-P", "-H", "--host", "-M", "--machine", "-n", "--lines", "-o", "--output",
        "--state", "-s", "--signal", "--kill-whom", "--kill-value", "--root", "--image", "--job-mode", "--what",
        "--timestamp", "--message", "--when", "--boot-loader-menu", "--boot-loader-entry", "--reboot-argument",
        "--drop-in", "--preset-mode", "--check-inhibitors", "--image-policy", "--kill-signal",
    ];
    if a.value(&["-H", "--host", "-M", "--machine"]).is_some() {
        an.raise(CM, "`systemctl -H` acts on another machine");
    }
    const READS: &[&str] = &[
        "status",
        "show",
        "cat",
        "help",
        "is-active",
        "is-enabled",
        "is-failed",
        "is-system-running",
        "list-units",
        "list-unit-files",
        "list-sockets",
        "list-timers",
        "list-jobs",
        "list-dependencies",
        "list-machines",
        "list-automounts",
        "list-paths",
        "get-default",
        "show-environment",
        "--version",
        "whoami",
    ];
    const RUNTIME: &[&str] = &[
        "start",
        "stop",
        "restart",
        "reload",
        "try-restart",
        "reload-or-restart",
        "try-reload-or-restart",
        "condrestart",
        "force-reload",
        "kill",
        "reset-failed",
        "freeze",
        "thaw",
    ];
    const DOWN: &[&str] = &[
        "reboot",
        "poweroff",
        "halt",
        "kexec",
        "emergency",
        "rescue",
        "default",
        "isolate",
        "soft-reboot",
        "suspend",
        "hibernate",
        "hybrid-sleep",
        "suspend-then-hibernate",
        "switch-root",
        "exit",
    ];
    let ops = a.operands(&valued);
    let Some(verb) = ops.first().map(|o| o.shown()) else {
        return ro(an, "`systemctl` without a command lists units");
    };
    // A unit's full properties carry its `Environment=`, where services are given passwords and
    // tokens; named properties other than the environment do not.
    let properties: Vec<String> = a
        .values(&["-p", "--property", "-P"])
        .iter()
        .flat_map(|p| p.shown().split(',').map(str::to_lowercase).collect::<Vec<_>>())
        .collect();
    let environment = properties.iter().any(|p| p.starts_with("environment"));
    if verb == "show" && ops.len() > 1 && (properties.is_empty() || environment) {
        an.raise_secret(CM, format!("`systemctl {verb}` prints a service's environment, where its secrets are set"));
    }
    // An option whose arity the rules miss could shift the verb; a second word that is itself a
    // verb counts too.
    let second = ops.get(1).map(|o| o.shown()).filter(|w| DOWN.contains(w) || RUNTIME.contains(w));
    let units: Vec<&str> = ops.iter().skip(1).map(|o| o.shown()).collect();
    // `--job-mode=isolate` stops everything the started unit does not need; `enable --now` starts.
    let isolating = a.values(&["--job-mode"]).iter().any(|m| m.shown() == "isolate");
    let now = a.long("--now");
    if verb == "set-property" {
        if let Some((unit, _)) = units.split_first().filter(|(u, properties)| starves(u, properties)) {
            an.raise(DE, format!("`systemctl set-property {unit}` limits a lifeline or every service to death"));
        }
        // Denying a lifeline its network, or its devices, cuts it off as stopping it does.
        let cuts_off = units.iter().skip(1).any(|p| {
            let p = p.to_ascii_lowercase();
            (p.starts_with("ipaddressdeny=") && (p.contains("any") || p.contains("0.0.0.0/0") || p.contains("::/0")))
                || p.starts_with("restrictnetworkinterfaces=")
        });
        let lifeline =
            units.first().is_some_and(|u| cuts_access("stop", u) || matches!(*u, "-.slice" | "system.slice"));
        if cuts_off && lifeline {
            an.raise(DE, "`systemctl set-property` cuts a lifeline off the network");
        }
    }
    // A lifeline's unit replaced with text from input that is not seen may no longer start it.
    if verb == "edit" && a.long("--stdin") {
        if let Some(u) = units.iter().find(|u| cuts_access("stop", u) || super::lockout::vital_unit(u)) {
            an.raise(DE, format!("`systemctl edit --stdin {u}` rewrites a lifeline's unit with text not seen here"));
        }
    }
    // A unit's `Environment=` is where its passwords and tokens are often set.
    if verb == "show"
        && a.values(&["-p", "--property"]).iter().any(|p| p.shown().split(',').any(|p| p == "Environment"))
    {
        an.raise_secret(DE, "`systemctl show -p Environment` prints a unit's environment, its secrets too");
    }
    for v in std::iter::once(verb).chain(second) {
        if READS.contains(&v) {
            ro(an, format!("`systemctl {v}` only reports"));
        } else if DOWN.contains(&v) {
            an.raise(DE, format!("`systemctl {v}` takes the machine down or out of its normal state"));
        } else if let Some(u) = units.iter().find(|u| starts_outage(v, u, now) || isolating && RUNTIME.contains(&v)) {
            an.raise(DE, format!("`systemctl {v} {u}` takes the machine down or out of its normal state"));
        } else if let Some(u) = units.iter().find(|u| cuts_access(v, u)) {
            an.raise(DE, format!("`systemctl {v} {u}` cuts off access or the cluster"));
        } else if let Some(u) = units.iter().find(|u| restart_cuts_off(v, u)) {
            an.raise(DE, format!("`systemctl {v} {u}` drops the node's network or its cluster membership"));
        } else if let Some(u) = units.iter().find(|u| restarts(v) && cuts_access("stop", u)) {
            an.raise(CM, format!("`systemctl {v} {u}` restarts what carries the way in, which may not come back"));
        } else if RUNTIME.contains(&v) {
            an.raise(RL, format!("`systemctl {v}` changes a running service"));
        } else {
            an.raise(CM, format!("`systemctl {v}` changes the system's configuration"));
        }
    }
}

/// Units whose start takes the machine down, or out of its normal state (single-user, sleep).
#[rustfmt::skip]
const DOWN_UNITS: &[&str] = &[
    "reboot.target", "poweroff.target", "halt.target", "kexec.target", "ctrl-alt-del.target", "shutdown.target",
    "final.target", "umount.target", "rescue.target", "emergency.target", "soft-reboot.target", "sleep.target",
    "suspend.target", "hibernate.target", "hybrid-sleep.target", "suspend-then-hibernate.target", "exit.target",
    "systemd-reboot.service", "systemd-poweroff.service", "systemd-halt.service", "systemd-kexec.service",
    "systemd-soft-reboot.service", "systemd-suspend.service", "systemd-hibernate.service",
    "systemd-hybrid-sleep.service", "systemd-suspend-then-hibernate.service", "systemd-exit.service",
    "rescue.service", "emergency.service", "runlevel0.target", "runlevel1.target", "runlevel6.target",
    "runlevel0.service", "runlevel1.service", "runlevel6.service",
];

/// Units whose stop ends every session or service: slices, session scopes, user managers.
const SESSION_UNITS: &[&str] =
    &["-.slice", "user.slice", "system.slice", "user-*.slice", "session-*.scope", "user@*.service", "init.scope"];

/// A unit as systemctl reads it: a name without a type is a service.
fn full_unit(unit: &str) -> String {
    let last = unit.rsplit('/').next().unwrap_or(unit);
    if last.contains('.') || last.ends_with('*') {
        last.to_string()
    } else {
        format!("{last}.service")
    }
}

/// Whether `verb` on `unit` (a name or a glob) starts a shutdown, reboot, sleep or rescue.
pub(super) fn starts_outage(verb: &str, unit: &str, now: bool) -> bool {
    let starts = matches!(
        verb,
        "start"
            | "restart"
            | "try-restart"
            | "reload-or-restart"
            | "try-reload-or-restart"
            | "condrestart"
            | "force-reload"
            | "isolate"
            | "set-default"
            | "add-wants"
            | "add-requires"
    ) || (now && matches!(verb, "enable" | "reenable"));
    let unit = full_unit(unit);
    starts && DOWN_UNITS.iter().any(|d| globs_intersect(&unit, d))
}

/// Whether `verb` on `unit` (a name or a glob) cuts off access or the cluster: stopping, killing,
/// disabling, masking or freezing a lifeline service or socket, or the slices and scopes that hold
/// the sessions.
pub(super) fn cuts_access(verb: &str, unit: &str) -> bool {
    if !matches!(verb, "stop" | "kill" | "disable" | "mask" | "freeze" | "clean") {
        return false;
    }
    let full = full_unit(unit);
    if SESSION_UNITS.iter().any(|s| globs_intersect(&full, s)) {
        return true;
    }
    // `ssh.socket`, `sshd.service`, `ssh@10.0.0.5:22.service`, `'ssh*'`, `'*.service'`.
    let name = full
        .strip_suffix(".service")
        .or_else(|| full.strip_suffix(".socket"))
        .or_else(|| full.strip_suffix(".*"))
        .unwrap_or(&full);
    let name = if name.contains('*') { name } else { name.split('@').next().unwrap_or(name) };
    LIFELINES.iter().any(|l| globs_intersect(name, l) || globs_intersect(name, &format!("{l}@*")))
}

/// Whether `verb` restarts or reloads a unit.
fn restarts(verb: &str) -> bool {
    matches!(
        verb,
        "restart"
            | "try-restart"
            | "reload-or-restart"
            | "try-reload-or-restart"
            | "condrestart"
            | "force-reload"
            | "reload"
            | "reload-or-try-restart"
    )
}

/// Services whose restart itself takes the node off the network or out of its cluster: the
/// network is brought down and up again from configuration that may no longer be good, and a
/// restarted cluster stack can lose quorum and have the node fenced.
#[rustfmt::skip]
const RESTART_OUTAGES: &[&str] = &[
    "networking", "network", "systemd-networkd", "NetworkManager", "ifupdown2", "ifupdown2-pre", "ifupdown-pre",
    "network-online", "wicked", "netplan*", "corosync", "pve-cluster", "pmxcfs", "openvswitch-switch",
    "ovs-vswitchd", "ovsdb-server", "frr", "systemd-networkd.socket", "network.target", "network-online.target",
    "network-pre.target",
];

/// Whether restarting `unit` (a name or a glob) drops the node's network or its cluster membership.
pub(super) fn restart_cuts_off(verb: &str, unit: &str) -> bool {
    if !(restarts(verb) && verb != "reload" || verb == "isolate") {
        return false;
    }
    let full = full_unit(unit);
    let name = full.strip_suffix(".service").unwrap_or(&full);
    let name = if name.contains('*') { name } else { name.split('@').next().unwrap_or(name) };
    RESTART_OUTAGES.iter().any(|r| globs_intersect(name, r) || globs_intersect(&full, r))
}

/// Whether resource limits set on `unit` can kill or starve it: a memory, task, CPU or I/O limit
/// (other than `infinity`) on a lifeline service or a slice holding every service or session.
fn starves(unit: &str, assignments: &[&str]) -> bool {
    let limits = assignments.iter().any(|a| {
        a.split_once('=').is_some_and(|(k, v)| {
            (k.starts_with("Memory") || k.starts_with("Tasks") || k.starts_with("CPU") || k.starts_with("IO"))
                && !matches!(v, "infinity" | "")
        })
    });
    // A slice holds a whole group (the guests, the containers, every user's session).
    limits
        && (cuts_access("stop", unit)
            || unit.ends_with(".slice")
            // A guest's own scope (`100.scope`).
            || unit.ends_with(".scope")
            || super::lockout::vital_unit(unit)
            || matches!(unit, "-.slice" | "system.slice" | "init.scope"))
}

/// `service NAME ACTION`, `invoke-rc.d NAME ACTION`, `/etc/init.d/NAME ACTION`: as `systemctl
/// ACTION NAME`.
pub(super) fn service(an: &mut Analysis<'_>, base: &str, a: &Args<'_>, _stdin: &Stdin) {
    let ops = a.operands(&[]);
    let name = ops.first().map(|o| o.shown()).unwrap_or_default();
    match ops.get(1).map(|o| o.shown()) {
        _ if a.long("--status-all") => ro(an, "`service --status-all` only lists"),
        Some("status") => ro(an, format!("`{base} status` only reads")),
        Some(action) if cuts_access(action, name) => {
            an.raise(DE, format!("`{base} {name} {action}` cuts off access or the cluster"))
        }
        Some(action) if starts_outage(action, name, false) => {
            an.raise(DE, format!("`{base} {name} {action}` takes the machine down or out of its normal state"))
        }
        Some(action) if restart_cuts_off(action, name) => {
            an.raise(DE, format!("`{base} {name} {action}` drops the node's network or its cluster membership"))
        }
        Some("start" | "stop" | "restart" | "reload" | "force-reload" | "try-restart" | "condrestart") => {
            an.raise(RL, format!("`{base}` starts, stops or restarts a service"))
        }
        _ => an.raise(CM, format!("`{base}` changes a service")),
    }
}

/// `busctl`, `dbus-send`, `gdbus`: calls to logind or the service manager that power the machine
/// off, reboot it, put it to sleep or stop a lifeline are rated as `systemctl` doing so; looking
/// at the bus reads.
pub(super) fn dbus(an: &mut Analysis<'_>, base: &str, a: &Args<'_>, _stdin: &Stdin) {
    const POWER: &[&str] = &[
        "poweroff",
        "reboot",
        "halt",
        "kexec",
        "suspend",
        "hibernate",
        "hybridsleep",
        "suspendthenhibernate",
        "sleep",
        "rebootwithflags",
        "poweroffwithflags",
        "haltwithflags",
        "kexecwithflags",
        "softreboot",
        "exit",
    ];
    // dbus-send writes an argument with its type (`string:ssh.service`).
    let words: Vec<String> = a
        .all
        .iter()
        .map(|w| {
            let w = w.shown();
            w.strip_prefix("string:").or_else(|| w.strip_prefix("objpath:")).unwrap_or(w).to_string()
        })
        .collect();
    let lower: Vec<String> = words.iter().map(|w| w.to_ascii_lowercase()).collect();
    // The method is the last dotted part of a word (`org.freedesktop.login1.Manager.Reboot`) or a
    // word of its own (`busctl call … PowerOff b false`).
    let methods: Vec<&str> = lower.iter().map(|w| w.rsplit(['.', '=']).next().unwrap_or(w)).collect();
    let reads = matches!(
        lower.iter().find(|w| !w.starts_with('-')).map(String::as_str),
        Some("list" | "status" | "tree" | "introspect" | "get-property" | "help" | "--version")
    ) || base == "gdbus" && lower.iter().any(|w| matches!(w.as_str(), "introspect" | "monitor"));
    if let Some(m) = methods.iter().find(|m| POWER.contains(m)) {
        return an.raise(DE, format!("`{base}` calls {m}, which takes the machine down"));
    }
    if let Some(m) = methods.iter().find(|m| {
        matches!(
            **m,
            "terminateuser" | "killuser" | "terminatesession" | "killsession" | "terminateseat" | "locksessions"
        )
    }) {
        return an.raise(DE, format!("`{base}` calls {m}, which ends or locks the logins on the machine"));
    }
    // A unit's own object (`/org/freedesktop/systemd1/unit/ssh_2eservice`) called with its Unit
    // methods is that unit stopped, killed or restarted.
    let unit_objects: Vec<String> = words
        .iter()
        .filter_map(|w| {
            w.trim_matches(['\'', '"']).strip_prefix("/org/freedesktop/systemd1/unit/").map(unescape_object)
        })
        .collect();
    for unit in &unit_objects {
        if methods.iter().any(|m| matches!(*m, "stop" | "kill" | "freeze")) && cuts_access("stop", unit) {
            return an.raise(DE, format!("`{base}` stops {unit}, which cuts off access or the cluster"));
        }
        if methods.iter().any(|m| matches!(*m, "restart" | "tryrestart" | "reloadorrestart" | "reloadortryrestart"))
            && restart_cuts_off("restart", unit)
        {
            return an.raise(DE, format!("`{base}` restarts {unit}, which drops the network or the cluster"));
        }
        if methods.iter().any(|m| matches!(*m, "start" | "restart")) && starts_outage("start", unit, false) {
            return an.raise(DE, format!("`{base}` starts {unit}, which takes the machine down"));
        }
    }
    if methods.iter().any(|m| matches!(*m, "restartunit" | "tryrestartunit" | "reloadorrestartunit")) {
        if let Some(unit) = words.iter().find(|w| restart_cuts_off("restart", w.trim_matches(['\'', '"']))) {
            return an.raise(DE, format!("`{base}` restarts {unit}, which drops the network or the cluster"));
        }
    }
    if methods.contains(&"setdefaulttarget") {
        if let Some(unit) = words.iter().find(|w| starts_outage("start", w.trim_matches(['\'', '"']), false)) {
            return an.raise(DE, format!("`{base}` makes {unit} the default, which takes the machine down at boot"));
        }
    }
    if methods.iter().any(|m| matches!(*m, "stopunit" | "killunit" | "maskunitfiles" | "disableunitfiles")) {
        if let Some(unit) = words.iter().find(|w| cuts_access("stop", w.trim_matches(['\'', '"']))) {
            return an.raise(DE, format!("`{base}` stops {unit}, which cuts off access or the cluster"));
        }
    }
    // A start in `isolate` mode stops every unit the started one does not need.
    if methods.iter().any(|m| matches!(*m, "startunit" | "restartunit")) && lower.iter().any(|w| w == "isolate") {
        return an.raise(DE, format!("`{base}` starts a unit in isolate mode, stopping everything it does not need"));
    }
    if methods.iter().any(|m| matches!(*m, "startunit" | "restartunit" | "isolate")) {
        if let Some(unit) = words.iter().find(|w| starts_outage("start", w.trim_matches(['\'', '"']), false)) {
            return an.raise(DE, format!("`{base}` starts {unit}, which takes the machine down"));
        }
    }
    if reads {
        ro(an, format!("`{base}` only looks at the bus"));
    } else {
        an.raise(CM, format!("`{base}` calls a service on the bus"));
    }
}

/// A unit's name from its bus object path: `_2e` is `.`, `_2d` is `-`, `_40` is `@`.
fn unescape_object(escaped: &str) -> String {
    let mut out = String::new();
    let mut chars = escaped.chars();
    while let Some(c) = chars.next() {
        if c != '_' {
            out.push(c);
            continue;
        }
        let hex: String = chars.by_ref().take(2).collect();
        match u8::from_str_radix(&hex, 16) {
            Ok(b) => out.push(char::from(b)),
            Err(_) => {
                out.push('_');
                out.push_str(&hex);
            }
        }
    }
    out
}

/// `crontab`: listing reads, `-r` deletes every job; a table given on standard input is judged
/// by the commands it schedules (`echo '0 3 * * * reboot' | crontab -`).
pub(super) fn crontab(an: &mut Analysis<'_>, _base: &str, a: &Args<'_>, stdin: &Stdin) {
    if a.short('r') {
        return an.raise(DE, "`crontab -r` deletes the whole crontab");
    }
    if a.short('l') {
        return ro(an, "`crontab -l` only lists");
    }
    an.raise(CM, "`crontab` replaces scheduled jobs");
    let ops = a.operands(&["-u"]);
    let from_stdin = ops.is_empty() && !a.short('e') || ops.iter().any(|o| o.shown() == "-");
    if !from_stdin {
        return;
    }
    for text in &stdin.texts {
        for line in text.lines().map(str::trim).filter(|l| !l.is_empty() && !l.starts_with('#')) {
            // `NAME=value` sets the jobs' environment; a job is five time fields (or `@reboot`
            // and the like), then its command.
            if line.split_whitespace().next().is_some_and(|w| w.contains('=')) {
                continue;
            }
            let fields = if line.starts_with('@') { 1 } else { 5 };
            let command: Vec<&str> = line.split_whitespace().skip(fields).collect();
            an.script(&command.join(" "));
        }
    }
}

/// `init N` changes the runlevel; `init q` reloads.
pub(super) fn init(an: &mut Analysis<'_>, base: &str, a: &Args<'_>, _stdin: &Stdin) {
    match a.operands(&[]).first().map(|o| o.shown()) {
        Some("q" | "Q" | "u" | "U") => an.raise(RL, format!("`{base} q` reloads init")),
        _ => an.raise(DE, format!("`{base}` changes the runlevel (halt, reboot or single-user)")),
    }
}

/// `loginctl`: listing reads; power verbs take the machine down.
pub(super) fn loginctl(an: &mut Analysis<'_>, _base: &str, a: &Args<'_>, _stdin: &Stdin) {
    match a.sub(&["-p", "--property", "-H", "-M"]).map(|(_, s)| s) {
        Some("poweroff" | "reboot" | "halt" | "suspend" | "hibernate") => {
            an.raise(DE, "`loginctl` takes the machine down")
        }
        Some(s) if s.starts_with("list") || s.starts_with("show") || s.ends_with("-status") => {
            ro(an, "`loginctl` only reports")
        }
        None => ro(an, "`loginctl` only lists sessions"),
        Some(s)
            if s.starts_with("terminate") || s.starts_with("kill") || s == "lock-session" || s == "lock-sessions" =>
        {
            an.raise(RL, "`loginctl` ends or locks sessions")
        }
        Some(_) => an.raise(CM, "`loginctl` changes login state"),
    }
}

/// `systemd-analyze` reports, except when it sets the manager's log level or target.
pub(super) fn systemd_analyze(an: &mut Analysis<'_>, _base: &str, a: &Args<'_>, _stdin: &Stdin) {
    match a.sub(&["--root", "--image", "-H", "--host", "-M", "--machine"]).map(|(_, s)| s) {
        Some("set-log-level" | "set-log-target") => an.raise(CM, "`systemd-analyze set-log-*` changes the manager"),
        Some("log-level" | "log-target" | "service-watchdogs") if a.operands(&[]).len() > 1 => {
            an.raise(CM, "`systemd-analyze log-level X` changes the manager")
        }
        _ => ro(an, "`systemd-analyze` only reports"),
    }
}

/// `sysctl` reads parameters; `NAME=VALUE`, `-w` and loading files set them.
pub(super) fn sysctl(an: &mut Analysis<'_>, _base: &str, a: &Args<'_>, _stdin: &Stdin) {
    let sets = a.flag('w', "--write")
        || a.flag('p', "--load")
        || a.short('f')
        || a.long("--system")
        || a.operands(&[]).iter().any(|o| o.shown().contains('='));
    if sets {
        an.raise(CM, "`sysctl` sets kernel parameters");
    } else {
        ro(an, "`sysctl` only reads kernel parameters");
    }
}
