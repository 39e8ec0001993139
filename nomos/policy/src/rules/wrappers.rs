//! Wrappers whose rule is more than their options (those that are only options — `sudo`, `env`,
//! `timeout`, `xargs`, `strace` … — are entries of the program table, `rules/wrappers.yaml`):
//! `eval` and `source` run text, GNU `parallel` runs commands built from its input, `perf` hands
//! its commands that run a program on to their entries.

use nomos_types::Risk::{ConfigMutation as CM, Destructive as DE, ReadOnly as RO};

use super::Args;
use super::{ro, script_arg, script_from_stdin, unknown};
use crate::shell::{Analysis, Arg, Stdin};
use crate::table::{interpret, table};

/// `eval` runs its words as shell.
pub(super) fn eval(an: &mut Analysis<'_>, _base: &str, a: &Args<'_>, _stdin: &Stdin) {
    an.raise(CM, "`eval` runs text assembled at run time");
    // Text another command prints that cannot be seen (`eval "$(cat /tmp/env.sh)"`) is rated at
    // the worst it could do; programs that only print variable settings for a shell are the
    // exception.
    const SETTINGS: &[&str] = &["ssh-agent", "gpg-agent", "dircolors", "keychain", "resize", "direnv", "locale"];
    for w in a.all {
        if let Arg::Dynamic { text, candidates, complete: false } = w {
            let settings = text
                .trim_start_matches(['"', '$', '(', '`'])
                .split_whitespace()
                .next()
                .is_some_and(|p| SETTINGS.contains(&p.rsplit('/').next().unwrap_or(p)));
            if candidates.is_empty() && !settings && (text.contains("$(") || text.contains('`')) {
                an.raise(DE, format!("`eval` runs text that cannot be seen (`{text}`)"));
            }
        }
    }
    let words: Vec<String> =
        a.all.iter().map(|w| w.values().first().map(|s| s.to_string()).unwrap_or_default()).collect();
    an.script(&words.join(" "));
    // Any one word may hold a whole command (`eval "$a" x 'reboot'`).
    for w in a.all.iter() {
        for v in w.values() {
            if v.contains(|c: char| c.is_whitespace() || c == ';') || a.all.len() > 1 {
                an.script(v);
            }
        }
    }
}

/// `source FILE` runs a script file.
pub(super) fn source(an: &mut Analysis<'_>, base: &str, a: &Args<'_>, stdin: &Stdin) {
    an.raise(CM, format!("`{base}` runs a script file"));
    if let Some(file) = a.all.first() {
        script_file(an, base, file.shown());
    }
    if a.all.first().is_some_and(|f| matches!(f.shown(), "/dev/stdin" | "/proc/self/fd/0" | "-")) {
        script_from_stdin(an, base, stdin);
    }
}

/// GNU `parallel` (and moreutils'): runs its command, through a shell, once per argument; with no
/// command, each argument is a command. It has hundreds of options, so every place its command
/// could start is judged, as shell text, and so is every argument after `:::`.
pub(super) fn parallel(an: &mut Analysis<'_>, base: &str, a: &Args<'_>, _stdin: &Stdin) {
    an.raise(CM, format!("`{base}` runs commands built from its input"));
    let words = a.all;
    // The words before the first separator (all of them without one).
    let command = words
        .split(|w| matches!(w.as_static(), Some(":::" | "::::" | ":::+" | "::::+" | "--")))
        .next()
        .unwrap_or(words);
    let end = command.len();
    // The command may start at any word that is not an option.
    let mut from = command;
    while let Some((first, after)) = from.split_first() {
        if !first.as_static().is_some_and(|w| w.starts_with('-')) {
            let text: Vec<&str> = from.iter().map(Arg::shown).collect();
            an.script(&text.join(" "));
        }
        from = after;
    }
    for w in words.get(end + 1..).unwrap_or(&[]) {
        if !matches!(w.as_static(), Some(":::" | "::::" | ":::+" | "::::+")) {
            an.script(w.shown());
        }
    }
}

/// `pee` and `mispipe` (moreutils): each operand is a shell command.
pub(super) fn each_a_command(an: &mut Analysis<'_>, base: &str, a: &Args<'_>, _stdin: &Stdin) {
    an.raise(RO, format!("`{base}` runs the shell commands it is given, judged on their own"));
    for command in a.operands(&[]) {
        script_arg(an, base, Some(command));
    }
}

/// tmux: listing reads; commands that start a shell command (`new-session`, `split-window`,
/// `run-shell`, `if-shell`, `respawn-pane`, `pipe-pane`, `display-popup`) have every word after
/// them judged as one, keys sent to a pane are judged as typed; anything else changes sessions.
pub(super) fn tmux(an: &mut Analysis<'_>, base: &str, a: &Args<'_>, _stdin: &Stdin) {
    const READS: &[&str] = &[
        "ls",
        "list-sessions",
        "list-windows",
        "lsw",
        "list-panes",
        "lsp",
        "has-session",
        "has",
        "list-clients",
        "lsc",
        "list-buffers",
        "lsb",
        "show-options",
        "show",
        "show-window-options",
        "showw",
        "list-keys",
        "lsk",
        "list-commands",
        "lscm",
        "info",
        "server-info",
        "show-environment",
        "showenv",
    ];
    const SHELL: &[&str] = &[
        "new-session",
        "new",
        "new-window",
        "neww",
        "split-window",
        "splitw",
        "respawn-pane",
        "respawnp",
        "respawn-window",
        "respawnw",
        "run-shell",
        "run",
        "if-shell",
        "if",
        "pipe-pane",
        "pipep",
        "display-popup",
        "popup",
    ];
    // Global options: -c runs a shell command, -f reads a configuration (which can run-shell).
    let global = ["-c", "-f", "-L", "-S", "-T"];
    for command in a.values(&["-c"]) {
        script_arg(an, base, Some(&command));
    }
    if a.value(&["-f"]).is_some() {
        an.raise(CM, format!("`{base} -f` reads a configuration that can run commands"));
    }
    let Some((start, _)) = a.sub(&global) else {
        return an.raise(CM, format!("`{base}` without a command opens a session"));
    };
    // Commands are separated by `;` words.
    for command in a.tail_from(start).split(|w| matches!(w.as_static(), Some(";" | "\\;"))) {
        let Some(name) = command.first().and_then(Arg::as_static) else { continue };
        let words: Vec<&str> = command.iter().skip(1).map(Arg::shown).filter(|w| !w.starts_with('-')).collect();
        if READS.contains(&name) {
            an.raise(RO, format!("`{base} {name}` only reports"));
        } else if SHELL.contains(&name) {
            an.raise(CM, format!("`{base} {name}` starts a shell command in a session"));
            for w in &words {
                an.script(w);
            }
        } else if matches!(name, "send-keys" | "send") {
            an.raise(CM, format!("`{base} send-keys` types into a pane"));
            // Option values are among the words: each word alone is judged too.
            let typed: Vec<&str> =
                words.iter().copied().filter(|w| !matches!(*w, "Enter" | "C-m" | "KPEnter" | "C-j")).collect();
            an.script(&typed.join(" "));
            for w in &typed {
                an.script(w);
            }
        } else {
            an.raise(CM, format!("`{base} {name}` changes sessions"));
        }
    }
}

/// `keyctl`: listing reads and printing a key's payload discloses it; `session [NAME [CMD …]]`
/// joins a new session keyring and runs CMD (judged as it runs), or a shell; the rest change
/// keyrings.
pub(super) fn keyctl(an: &mut Analysis<'_>, base: &str, a: &Args<'_>, stdin: &Stdin) {
    let Some((i, sub)) = a.sub(&[]) else {
        if a.operands(&[]).is_empty() {
            return ro(an, format!("`{base}` without a command prints help"));
        }
        return an.raise(DE, format!("`{base}` runs a command chosen at run time"));
    };
    match sub {
        "show" | "list" | "rlist" | "describe" | "rdescribe" | "id" | "supports" | "--version" | "-x" => {
            ro(an, format!("`{base} {sub}` only reports"))
        }
        "print" | "pipe" | "read" => an.raise_secret(DE, format!("`{base} {sub}` prints a key's payload")),
        "session" => {
            an.raise(CM, format!("`{base} session` starts a new session keyring"));
            match a.tail_from(i + 1).split_first() {
                Some((_, command)) if !command.is_empty() => an.run(command, stdin),
                _ => an.raise(CM, format!("`{base} session` without a command starts a shell")),
            }
        }
        _ => an.raise(CM, format!("`{base} {sub}` changes the kernel's keyrings")),
    }
}

/// `perf`: the commands that run a program (`record`, `stat`, `trace`, `… record`) are table
/// entries; the others report, or change probes, caches and files.
pub(super) fn perf(an: &mut Analysis<'_>, base: &str, a: &Args<'_>, stdin: &Stdin) {
    let Some((i, sub)) = a.sub(&["--exec-path", "--debugfs-dir", "--buildid-dir"]) else {
        return ro(an, "`perf` without a command prints help");
    };
    let rest = a.tail_from(i + 1);
    let entry = match (sub, rest.split_first()) {
        (_, Some((first, after))) if first.as_static() == Some("record") => Some(("perf record", after)),
        ("record", _) => Some(("perf record", rest)),
        ("stat", _) => Some(("perf stat", rest)),
        ("trace", _) => Some(("perf trace", rest)),
        _ => None,
    };
    if let Some((name, args)) = entry {
        return match table().sub(name) {
            Some(entry) => interpret(an, name, entry, args, stdin),
            None => unknown(an, base),
        };
    }
    let r = Args::new(rest);
    for out in r.values(&["-o", "--output"]) {
        an.write_target(&out, &format!("`perf {sub} -o`"));
    }
    for program in r.values(&["--objdump", "--addr2line"]) {
        an.raise(CM, format!("`perf {sub}` runs another program"));
        an.run(&[program], &Stdin::default());
    }
    match sub {
        "script" if r.value(&["-s", "--script"]).is_some() || r.long("--gen-script") => {
            an.raise(CM, "`perf script -s` runs or writes a script")
        }
        "report" | "annotate" | "list" | "top" | "diff" | "evlist" | "version" | "help" | "buildid-list"
        | "kallsyms" | "script" | "bench" | "mem" | "sched" | "lock" | "kmem" | "c2c" | "check" => {
            an.raise(RO, format!("`perf {sub}` only reports"))
        }
        "ftrace" => {
            // `perf ftrace [options] [command]`: what it runs is judged wherever it may start.
            an.raise(CM, "`perf ftrace` changes kernel tracing while it runs");
            let mut from = rest;
            while let Some((first, after)) = from.split_first() {
                if first.as_static().is_some_and(|w| !w.starts_with('-')) {
                    an.run(from, stdin);
                }
                from = after;
            }
        }
        _ => an.raise(CM, format!("`perf {sub}` changes probes, caches or files")),
    }
}

/// Runs the command that starts at `index` (a wrapper's payload), or notes that there is none.
pub(super) fn wrapped(an: &mut Analysis<'_>, wrapper: &str, a: &Args<'_>, index: Option<usize>, stdin: &Stdin) {
    match index {
        Some(i) if i < a.all.len() => an.run(a.tail_from(i), stdin),
        _ => ro(an, format!("`{wrapper}` without a command only reports")),
    }
}

/// The index of the first operand after options (skipping `valued` options' values); `--` ends the
/// options.
pub(super) fn command_start(a: &Args<'_>, valued: &[&str]) -> Option<usize> {
    let mut i = 0;
    while let Some(arg) = a.all.get(i) {
        match arg.as_static() {
            Some("--") => return Some(i + 1),
            Some(s) if s.starts_with('-') && s.len() > 1 => {
                i += if valued.contains(&s) { 2 } else { 1 };
            }
            _ => return Some(i),
        }
    }
    None
}

/// A script read from a pipe another command fills (`<(…)`, `/dev/fd/N`) is text that cannot be
/// seen here, and may do anything a shell can.
/// Where the system's own packages keep programs, libraries and init scripts: code there was
/// installed with the system, not put in place for this command.
pub(crate) fn is_system_code(path: &str) -> bool {
    let p = crate::paths::normalise(path);
    !p.contains("..")
        && ["/usr/", "/bin/", "/sbin/", "/lib/", "/lib64/", "/lib32/", "/etc/init.d/"].iter().any(|d| p.starts_with(d))
        && !p.starts_with("/usr/local/")
}

/// A script file outside the system's own code: its contents cannot be seen, so it is rated at
/// the worst it could do (`bash /tmp/x.sh`, `. ./env.sh`, `python3 /root/cleanup.py`).
pub(super) fn script_file(an: &mut Analysis<'_>, base: &str, path: &str) {
    generated_script(an, base, path);
    let stdin_like = matches!(path, "-" | "/dev/stdin" | "/dev/fd/0" | "/proc/self/fd/0");
    if !stdin_like && !path.is_empty() && !is_system_code(path) {
        an.raise(DE, format!("`{base}` runs the script `{path}`, whose contents cannot be seen"));
    }
}

/// A variable that makes programs load code from a path (`LD_PRELOAD=/tmp/x.so`,
/// `PYTHONPATH=/tmp`, `PATH=/tmp/evil:…`): code from outside the system's own cannot be seen.
pub(crate) fn loads_unseen_code(name: &str, value: &str) -> Option<String> {
    const LOADS: &[&str] = &[
        "LD_PRELOAD",
        "LD_AUDIT",
        "LD_LIBRARY_PATH",
        "PYTHONPATH",
        "PYTHONSTARTUP",
        "PYTHONHOME",
        "PYTHONUSERBASE",
        "PERL5LIB",
        "PERLLIB",
        "RUBYLIB",
        "NODE_PATH",
        "BASH_ENV",
        "ENV",
        "GCONV_PATH",
        "LOCPATH",
        "LUA_PATH",
        "LUA_CPATH",
        "LUA_INIT",
        "PHPRC",
        "PHP_INI_SCAN_DIR",
        "PATH",
        "GIT_EXEC_PATH",
        "PYTHONEXECUTABLE",
    ];
    if !LOADS.contains(&name) {
        return None;
    }
    // Earlier entries of `$PATH` and the usual local program directories are the system's own.
    let trusted = |dir: &str| {
        dir.is_empty()
            || dir.starts_with('$')
            || is_system_code(&format!("{}/x", dir.trim_end_matches('/')))
            || (name == "PATH" && matches!(dir.trim_end_matches('/'), "/usr/local/bin" | "/usr/local/sbin"))
    };
    let separators: &[char] = if matches!(name, "LD_PRELOAD" | "LD_AUDIT") { &[':', ' '] } else { &[':'] };
    value
        .split(separators)
        .find(|d| !trusted(d))
        .map(|d| format!("sets `{name}` to load code from `{d}`, which cannot be seen"))
}

pub(super) fn generated_script(an: &mut Analysis<'_>, base: &str, path: &str) {
    if path.starts_with("/dev/fd/") || path.starts_with("/proc/self/fd/") || path.starts_with("/proc/thread-self/fd/") {
        an.raise(DE, format!("`{base}` runs a script another command writes into `{path}`, which cannot be seen"));
    }
}
