//! Services and the system manager: `systemctl`, `service`, runlevels, logins, `systemd-analyze`,
//! kernel parameters.

use nomos_types::Risk::{ConfigMutation as CM, Destructive as DE, ReversibleLow as RL};

use super::Args;
use super::{ro, LIFELINES};
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
    for v in std::iter::once(verb).chain(second) {
        if READS.contains(&v) {
            ro(an, format!("`systemctl {v}` only reports"));
        } else if DOWN.contains(&v) {
            an.raise(DE, format!("`systemctl {v}` takes the machine down or out of its normal state"));
        } else {
            let units: Vec<&str> = ops.iter().skip(1).map(|o| o.shown().trim_end_matches(".service")).collect();
            let lifeline = units.iter().find(|u| LIFELINES.contains(u));
            match lifeline {
                Some(u) if matches!(v, "stop" | "kill" | "disable" | "mask" | "freeze") => {
                    an.raise(DE, format!("`systemctl {v} {u}` cuts off access or the cluster"))
                }
                _ if RUNTIME.contains(&v) => an.raise(RL, format!("`systemctl {v}` changes a running service")),
                _ => an.raise(CM, format!("`systemctl {v}` changes the system's configuration")),
            }
        }
    }
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
