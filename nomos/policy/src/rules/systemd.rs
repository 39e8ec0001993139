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
    // An option whose arity the rules miss could shift the verb; a second word that is itself a
    // verb counts too.
    let second = ops.get(1).map(|o| o.shown()).filter(|w| DOWN.contains(w) || RUNTIME.contains(w));
    let units: Vec<&str> = ops.iter().skip(1).map(|o| o.shown()).collect();
    // `--job-mode=isolate` stops everything the started unit does not need; `enable --now` starts.
    let isolating = a.values(&["--job-mode"]).iter().any(|m| m.shown() == "isolate");
    let now = a.long("--now");
    for v in std::iter::once(verb).chain(second) {
        if READS.contains(&v) {
            ro(an, format!("`systemctl {v}` only reports"));
        } else if DOWN.contains(&v) {
            an.raise(DE, format!("`systemctl {v}` takes the machine down or out of its normal state"));
        } else if let Some(u) = units.iter().find(|u| starts_outage(v, u, now) || isolating && RUNTIME.contains(&v)) {
            an.raise(DE, format!("`systemctl {v} {u}` takes the machine down or out of its normal state"));
        } else if let Some(u) = units.iter().find(|u| cuts_access(v, u)) {
            an.raise(DE, format!("`systemctl {v} {u}` cuts off access or the cluster"));
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
    "rescue.service", "emergency.service",
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

/// `service NAME ACTION`.
pub(super) fn service(an: &mut Analysis<'_>, _base: &str, a: &Args<'_>, _stdin: &Stdin) {
    match a.operands(&[]).get(1).map(|o| o.shown()) {
        _ if a.long("--status-all") => ro(an, "`service --status-all` only lists"),
        Some("status") => ro(an, "`service status` only reads"),
        Some("start" | "stop" | "restart" | "reload" | "force-reload" | "try-restart" | "condrestart") => {
            an.raise(RL, "`service` starts, stops or restarts a service")
        }
        _ => an.raise(CM, "`service` changes a service"),
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
