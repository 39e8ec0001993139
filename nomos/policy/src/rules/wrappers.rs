//! Wrappers: programs that run another command (`sudo`, `env`, `nice`, `timeout`, `xargs`, `watch`,
//! `flock`, `strace`, `systemd-run` …) or a script (`eval`, `source`, `at`). Each is judged by what it
//! runs; without a command it only reports.

use nomos_types::Risk::{ConfigMutation as CM, ReversibleLow as RL};

use super::Args;
use super::{ro, script_arg, script_from_stdin};
use crate::shell::{Analysis, Arg, Stdin};

/// `su`/`runuser`: `-c` is a script, `--` starts a command.
pub(super) fn su(an: &mut Analysis<'_>, base: &str, a: &Args<'_>, stdin: &Stdin) {
    if let Some(script) = a.value(&["-c", "--command", "--session-command"]) {
        script_arg(an, base, Some(&script));
    } else if let Some(i) = a.all.iter().position(|x| x.as_static() == Some("--")) {
        an.run(a.tail_from(i + 1), stdin);
    } else {
        an.raise(CM, format!("`{base}` without a command opens an interactive shell"));
    }
}

/// `nice CMD`.
pub(super) fn nice(an: &mut Analysis<'_>, base: &str, a: &Args<'_>, stdin: &Stdin) {
    wrapped(an, base, a, command_start(a, &["-n", "--adjustment"]), stdin)
}

/// `ionice CMD`; `-p` changes a running process.
pub(super) fn ionice(an: &mut Analysis<'_>, base: &str, a: &Args<'_>, stdin: &Stdin) {
    if a.flag('p', "--pid") || a.flag('P', "--pgid") || a.flag('u', "--uid") {
        an.raise(RL, "`ionice -p` changes a running process's I/O priority");
    } else {
        wrapped(an, base, a, command_start(a, &["-c", "-n", "--class", "--classdata"]), stdin);
    }
}

/// `timeout DURATION CMD`.
pub(super) fn timeout(an: &mut Analysis<'_>, base: &str, a: &Args<'_>, stdin: &Stdin) {
    let start = command_start(a, &["-s", "--signal", "-k", "--kill-after"]);
    // The first operand is the duration.
    wrapped(an, base, a, start.map(|i| i + 1), stdin);
}

/// Wrappers whose options come before the command.
pub(super) fn simple(an: &mut Analysis<'_>, base: &str, a: &Args<'_>, stdin: &Stdin) {
    let valued = ["-i", "-o", "-e", "--input", "--output", "--error", "-p", "-C", "-N", "-m", "-f", "-o"];
    if base == "time" && a.value(&["-o", "--output"]).is_some() {
        an.raise(CM, "`time -o` writes a file");
    }
    let start = command_start(a, &valued);
    let start = if base == "chrt" { start.map(|i| i + 1) } else { start };
    wrapped(an, base, a, start, stdin);
}

/// `taskset MASK CMD`; `-p` changes a running process.
pub(super) fn taskset(an: &mut Analysis<'_>, base: &str, a: &Args<'_>, stdin: &Stdin) {
    if a.flag('p', "--pid") {
        an.raise(RL, "`taskset -p` changes a running process's CPU affinity");
    } else {
        wrapped(an, base, a, command_start(a, &[]).map(|i| i + 1), stdin);
    }
}

/// `command -v` looks up; `command CMD` runs it.
pub(super) fn command(an: &mut Analysis<'_>, base: &str, a: &Args<'_>, stdin: &Stdin) {
    if a.short('v') || a.short('V') {
        ro(an, "`command -v` only looks a name up");
    } else {
        wrapped(an, base, a, command_start(a, &[]), stdin);
    }
}

/// `exec CMD` replaces the shell with CMD.
pub(super) fn exec(an: &mut Analysis<'_>, base: &str, a: &Args<'_>, stdin: &Stdin) {
    wrapped(an, base, a, command_start(a, &["-a"]), stdin)
}

/// `busybox APPLET …` is that applet.
pub(super) fn busybox(an: &mut Analysis<'_>, _base: &str, a: &Args<'_>, stdin: &Stdin) {
    match a.all.first().and_then(Arg::as_static) {
        Some(applet) if !applet.starts_with('-') => {
            let applet = if applet == "sh" || applet == "ash" { "busybox-sh" } else { applet };
            let mut argv = vec![Arg::Static(applet.to_string())];
            argv.extend_from_slice(a.tail_from(1));
            an.run(&argv, stdin);
        }
        Some(_) | None => ro(an, "`busybox` without an applet only lists"),
    }
}

/// `watch` runs its command as a script (with `-x`, as a command) again and again.
pub(super) fn watch(an: &mut Analysis<'_>, base: &str, a: &Args<'_>, stdin: &Stdin) {
    let start = command_start(a, &["-n", "--interval", "-d", "-q", "--equexit"]);
    if a.flag('x', "--exec") {
        wrapped(an, base, a, start, stdin);
    } else if let Some(i) = start {
        let words: Vec<&str> = a.tail_from(i).iter().map(Arg::shown).collect();
        an.script(&words.join(" "));
    } else {
        ro(an, "`watch` without a command");
    }
}

/// `xargs`/`parallel` run their command on input that cannot be seen.
pub(super) fn xargs(an: &mut Analysis<'_>, base: &str, a: &Args<'_>, _stdin: &Stdin) {
    an.raise(CM, format!("`{base}` runs a command on input it cannot see"));
    let start = command_start(
        a,
        &["-n", "-L", "-I", "-i", "-d", "-P", "-s", "-a", "-E", "-e", "--max-args", "--max-procs", "-j", "--delimiter"],
    );
    match start {
        Some(i) => an.run(a.tail_from(i), &Stdin::default()),
        None => ro(an, "`xargs` runs `echo` by default"),
    }
}

/// `flock LOCK CMD`, or `-c SCRIPT`.
pub(super) fn flock(an: &mut Analysis<'_>, base: &str, a: &Args<'_>, stdin: &Stdin) {
    if let Some(script) = a.value(&["-c", "--command"]) {
        script_arg(an, base, Some(&script));
    } else {
        let start = command_start(a, &["-w", "--wait", "--timeout", "-E", "--conflict-exit-code"]);
        wrapped(an, base, a, start.map(|i| i + 1), stdin);
    }
}

/// Another root or namespace: what runs there is judged.
pub(super) fn chroot(an: &mut Analysis<'_>, base: &str, a: &Args<'_>, stdin: &Stdin) {
    an.raise(CM, format!("`{base}` runs in another root or namespace"));
    let start = command_start(a, &["-t", "--target", "-u", "--userspec", "-D", "--directory", "-M", "--machine"]);
    let start = if base == "chroot" { start.map(|i| i + 1) } else { start };
    if let Some(i) = start.filter(|i| *i < a.all.len()) {
        an.run(a.tail_from(i), stdin);
    }
}

/// Tracers and profilers: what they run is judged; output files are writes, fault injection a change.
pub(super) fn trace(an: &mut Analysis<'_>, base: &str, a: &Args<'_>, stdin: &Stdin) {
    for out in a.values(&["-o", "--output", "--log-file", "--xml-file"]) {
        an.write_target(&out, &format!("`{base} -o`"));
    }
    if base == "perf" {
        let sub = a.sub(&["-e", "-o", "-p", "-u", "-C", "-a", "--event", "--output", "--pid"]).map(|(_, s)| s);
        // `perf record` (and its relatives) write perf.data; `perf script -s` runs a script;
        // `perf probe` changes the kernel's probes.
        if sub.is_some_and(|s| s.contains("record")) && a.value(&["-o", "--output"]).is_none() {
            an.raise(CM, "`perf record` writes perf.data");
        }
        if sub == Some("script") && a.value(&["-s", "--script"]).is_some() {
            an.raise(CM, "`perf script -s` runs a script");
        }
        if matches!(sub, Some("probe" | "inject" | "buildid-cache" | "config" | "daemon")) {
            an.raise(CM, format!("`perf {}` changes probes, caches or files", sub.unwrap_or_default()));
        }
    }
    if a.values(&["-e", "--inject", "--fault"])
        .iter()
        .any(|v| v.shown().contains("inject") || v.shown().contains("fault"))
        || a.long("--inject")
        || a.long("--fault")
    {
        an.raise(CM, format!("`{base}` injects faults into a process"));
    }
    if a.flag('p', "--pid") {
        ro(an, format!("`{base} -p` observes a running process"));
    } else {
        let start = command_start(a, &["-e", "-o", "-s", "-p", "-u", "-E", "-P"]);
        let start = if base == "perf" { start.map(|i| i + 1) } else { start };
        wrapped(an, base, a, start, stdin);
    }
}

/// `systemd-run CMD` starts a transient unit running CMD.
pub(super) fn systemd_run(an: &mut Analysis<'_>, base: &str, a: &Args<'_>, stdin: &Stdin) {
    an.raise(RL, "`systemd-run` starts a transient unit");
    let start = command_start(
        a,
        &[
            "-u",
            "--unit",
            "-p",
            "--property",
            "-E",
            "--setenv",
            "-M",
            "--machine",
            "--on-calendar",
            "--on-active",
            "--uid",
            "--gid",
            "--nice",
            "--working-directory",
            "-H",
            "--host",
            "--slice",
            "--description",
        ],
    );
    wrapped(an, base, a, start, stdin);
}

/// `script` records a typescript file and runs `-c`.
pub(super) fn script(an: &mut Analysis<'_>, base: &str, a: &Args<'_>, _stdin: &Stdin) {
    an.raise(CM, "`script` writes a typescript file");
    script_arg(an, base, a.value(&["-c", "--command"]).as_ref());
}

/// `sg GROUP CMD` runs CMD as a script.
pub(super) fn sg(an: &mut Analysis<'_>, base: &str, a: &Args<'_>, _stdin: &Stdin) {
    script_arg(an, base, a.operands(&[]).get(1).copied())
}

/// `at`/`batch` schedule what they read for later; it is judged.
pub(super) fn at(an: &mut Analysis<'_>, base: &str, a: &Args<'_>, stdin: &Stdin) {
    if a.short('l') || a.short('c') {
        ro(an, format!("`{base} -l` only lists jobs"));
    } else {
        an.raise(CM, format!("`{base}` schedules commands for later"));
        for text in stdin.texts.clone() {
            an.script(&text);
        }
    }
}

/// `eval` runs its words as shell.
pub(super) fn eval(an: &mut Analysis<'_>, _base: &str, a: &Args<'_>, _stdin: &Stdin) {
    an.raise(CM, "`eval` runs text assembled at run time");
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
    if a.all.first().is_some_and(|f| matches!(f.shown(), "/dev/stdin" | "/proc/self/fd/0" | "-")) {
        script_from_stdin(an, base, stdin);
    }
}

/// `sudo`/`doas`: what they run is judged; `-l` only reports.
pub(super) fn sudo(an: &mut Analysis<'_>, base: &str, a: &Args<'_>, stdin: &Stdin) {
    if a.options().all(|o| {
        matches!(
            o,
            "-l" | "--list"
                | "-v"
                | "--validate"
                | "-k"
                | "--reset-timestamp"
                | "-K"
                | "--remove-timestamp"
                | "-V"
                | "--version"
                | "-n"
                | "-U"
        )
    }) && a.operands(&["-U"]).is_empty()
        && !a.all.is_empty()
    {
        return ro(an, format!("`{base} -l` only reports"));
    }
    if a.flag('e', "--edit") || base == "sudoedit" {
        return an.raise(CM, format!("`{base} -e` edits files"));
    }
    let valued = [
        "-u",
        "--user",
        "-g",
        "--group",
        "-C",
        "--close-from",
        "-D",
        "--chdir",
        "-h",
        "--host",
        "-p",
        "--prompt",
        "-r",
        "--role",
        "-t",
        "--type",
        "-U",
        "--other-user",
        "-T",
        "--command-timeout",
        "-R",
        "--chroot",
    ];
    let start = command_start(a, &valued);
    let shell_mode = a.flag('s', "--shell") || a.flag('i', "--login");
    match start {
        Some(i) if i < a.all.len() && shell_mode => {
            let words: Vec<&str> = a.tail_from(i).iter().map(Arg::shown).collect();
            an.script(&words.join(" "));
        }
        Some(i) if i < a.all.len() => {
            let dir = a.value(&["-D", "--chdir"]);
            an.in_dir(dir.as_ref(), |an| an.run(a.tail_from(i), stdin));
        }
        _ if shell_mode => an.raise(CM, format!("`{base} -i` opens an interactive root shell")),
        _ => an.raise(CM, format!("`{base}` without a command")),
    }
}

/// `env`: variables that change what runs, `-S` strings, and the command.
pub(super) fn env(an: &mut Analysis<'_>, _base: &str, a: &Args<'_>, stdin: &Stdin) {
    let mut i = 0;
    let mut dir: Option<Arg> = None;
    while i < a.all.len() {
        match a.all[i].as_static() {
            Some("-S" | "--split-string") => {
                // `env -S 'cmd args'` splits a string into the command line.
                script_arg(an, "env -S", a.all.get(i + 1));
                return;
            }
            Some(s) if s.starts_with("--split-string=") => {
                an.script(&s["--split-string=".len()..]);
                return;
            }
            // `-S` may sit inside a cluster (`-iS'cmd'`), taking the rest or the next word.
            Some(s) if s.starts_with('-') && !s.starts_with("--") && s[1..].contains('S') => {
                let rest = &s[s.find('S').map_or(s.len(), |p| p + 1)..];
                if rest.is_empty() {
                    script_arg(an, "env -S", a.all.get(i + 1));
                } else {
                    an.script(rest);
                }
                return;
            }
            Some("-C" | "--chdir") => {
                dir = a.all.get(i + 1).cloned();
                i += 2;
            }
            Some(s) if s.starts_with("--chdir=") => {
                dir = Some(Arg::Static(s["--chdir=".len()..].to_string()));
                i += 1;
            }
            Some("-u" | "--unset" | "-P" | "-a" | "--argv0") => i += 2,
            Some("--") => {
                i += 1;
                break;
            }
            Some(s) if s.starts_with('-') && s.len() > 1 => i += 1,
            Some(s) if s.contains('=') && s.split('=').next().is_some_and(is_identifier) => {
                let name = s.split('=').next().unwrap_or_default();
                if matches!(
                    name,
                    "PATH"
                        | "LD_PRELOAD"
                        | "LD_LIBRARY_PATH"
                        | "BASH_ENV"
                        | "ENV"
                        | "IFS"
                        | "PAGER"
                        | "GIT_PAGER"
                        | "EDITOR"
                        | "GIT_SSH_COMMAND"
                        | "PYTHONPATH"
                        | "PERL5OPT"
                        | "NODE_OPTIONS"
                ) || name.starts_with("LD_")
                {
                    an.raise(CM, format!("`env` sets `{name}`, which changes what programs run"));
                }
                i += 1;
            }
            _ => break,
        }
    }
    if i < a.all.len() {
        an.in_dir(dir.as_ref(), |an| an.run(a.tail_from(i), stdin));
    } else {
        ro(an, "`env` without a command only prints the environment");
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
    while i < a.all.len() {
        match a.all[i].as_static() {
            Some("--") => return Some(i + 1),
            Some(s) if s.starts_with('-') && s.len() > 1 => {
                i += if valued.contains(&s) { 2 } else { 1 };
            }
            // `env NAME=value cmd`
            Some(s) if s.contains('=') && !s.starts_with('=') && s.split('=').next().is_some_and(is_identifier) => {
                i += 1
            }
            _ => return Some(i),
        }
    }
    None
}

/// A shell variable name.
pub(super) fn is_identifier(s: &str) -> bool {
    !s.is_empty()
        && s.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
        && !s.starts_with(|c: char| c.is_ascii_digit())
}
