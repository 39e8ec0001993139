//! Shell builtins that set variables, move the working directory or define what later commands
//! run (`trap`, `alias`, `printf -v`).

use nomos_types::Risk::ConfigMutation as CM;

use super::Args;
use super::{ro, script_arg};
use crate::shell::dangerous_variable;
use crate::shell::{Analysis, Arg, Stdin};

/// Builtins that store into variables or move the working directory: safe unless the variable
/// changes what later programs run (`read BASH_ENV`, `export 'PATH=…'`).
#[rustfmt::skip]
pub(super) const SETTERS: &[&str] = &[
    "read", "declare", "typeset", "local", "export", "readonly", "let", "unset", "set", "shopt", "cd", "pushd",
    "popd", "mapfile", "readarray",
];

/// Builtins that set variables or move the working directory: judged by the variables they set.
/// Builtins whose arguments can only name variables or directories: a word computed at run time
/// among them changes nothing but which variable is set (judged by `setter`).
#[rustfmt::skip]
pub(super) const INERT: &[&str] = &[
    "unset", "local", "declare", "typeset", "export", "readonly", "let", "read", "set", "shopt", "cd", "pushd", "popd",
];

/// Builtins that set variables or move the working directory: judged by the variables they set.
pub(super) fn setter(an: &mut Analysis<'_>, base: &str, a: &Args<'_>, _stdin: &Stdin) {
    match base {
        "cd" | "pushd" => an.change_dir(a.operands(&[]).first().copied()),
        "popd" => an.change_dir(Some(&Arg::unknown("popd", Vec::new()))),
        _ => {}
    }
    let mut names: Vec<String> = Vec::new();
    for arg in a.operands(&["-p", "-d", "-n", "-t", "-u", "-N", "-i", "-O", "-s", "-c", "-C"]) {
        match arg {
            Arg::Static(s) => names.push(s.split('=').next().unwrap_or(s).to_string()),
            Arg::Dynamic { text, .. } if !matches!(base, "cd" | "pushd" | "unset" | "set" | "shopt" | "let") => {
                an.raise(CM, format!("`{base}` sets a variable named at run time (`{text}`)"));
            }
            Arg::Dynamic { .. } => {}
        }
    }
    if matches!(base, "mapfile" | "readarray") {
        if let Some(callback) = a.value(&["-C"]) {
            an.raise(CM, format!("`{base} -C` runs a callback"));
            an.script(callback.shown());
        }
    }
    // `set -- rm -rf /srv` makes those words the positional parameters, which `"$@"` runs.
    if base == "set" {
        if let Some(k) = a.all.iter().position(|x| x.as_static() == Some("--")) {
            let words: Option<Vec<&str>> = a.tail_from(k + 1).iter().map(Arg::as_static).collect();
            if let Some(words) = words.filter(|w| !w.is_empty()) {
                let value = words.join(&crate::shell::FIELD.to_string());
                for name in ["@", "*"] {
                    an.set_var(name, std::slice::from_ref(&value), None, false);
                }
                if let Some(first) = words.first() {
                    an.set_var("1", &[(*first).to_string()], None, false);
                }
            }
        }
    }
    if base == "set" && a.all.iter().any(|x| x.shown().contains("history")) {
        an.raise(CM, "`set -o history` records commands that can be replayed");
    }
    if base == "export" {
        for arg in a.operands(&[]) {
            if let Some(word) = arg.as_static() {
                let (name, value) = word.split_once('=').map_or((word, None), |(n, v)| (n, Some(v)));
                an.environment(name, value);
            } else {
                an.raise(CM, format!("`export` exports something built at run time (`{}`)", arg.shown()));
            }
        }
    }
    if !matches!(base, "cd" | "pushd" | "popd" | "set" | "shopt" | "unset") {
        for name in names {
            if let Some(reason) = dangerous_variable(&name) {
                an.raise(CM, format!("`{base}` {reason}"));
            }
        }
    }
    ro(an, format!("`{base}` only sets shell state"));
}

/// `printf -v NAME` sets a variable; the rest only prints.
pub(super) fn printf(an: &mut Analysis<'_>, _base: &str, a: &Args<'_>, _stdin: &Stdin) {
    match a.value(&["-v"]) {
        None => ro(an, "`printf` only prints"),
        Some(Arg::Static(name)) => match dangerous_variable(&name) {
            Some(reason) => an.raise(CM, format!("`printf -v` {reason}")),
            None => ro(an, "`printf -v` only sets a variable"),
        },
        Some(Arg::Dynamic { .. }) => an.raise(CM, "`printf -v` sets a variable named at run time"),
    }
}

/// A trap runs its handler later: judged as if it ran.
pub(super) fn trap(an: &mut Analysis<'_>, base: &str, a: &Args<'_>, _stdin: &Stdin) {
    if a.short('l') || a.short('p') || a.all.is_empty() {
        ro(an, "`trap -l`/`-p` only lists");
    } else {
        ro(an, "`trap` sets a handler");
        if let Some(first) = a.operands(&[]).first() {
            script_arg(an, base, Some(first));
        }
    }
}

/// An alias runs its value when used: judged as if it ran.
pub(super) fn alias(an: &mut Analysis<'_>, _base: &str, a: &Args<'_>, _stdin: &Stdin) {
    ro(an, "`alias` defines a shorthand");
    if a.all.iter().any(|x| x.as_static().is_none()) {
        an.raise(CM, "`alias` defines a shorthand built at run time");
    }
    for arg in a.all {
        if let Some((_, value)) = arg.as_static().and_then(|s| s.split_once('=')) {
            an.script(value);
        }
    }
}

/// `coproc CMD …`: runs the command beside the shell, as if written alone.
pub(super) fn coproc(an: &mut Analysis<'_>, _base: &str, a: &Args<'_>, stdin: &Stdin) {
    if a.all.is_empty() {
        return an.raise(CM, "`coproc` without a command");
    }
    an.run(a.all, stdin);
}
