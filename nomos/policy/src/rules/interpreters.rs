//! Shells and interpreters: a shell's script is judged as shell; an interpreter's inline code
//! cannot be, so it is gated, with its string literals checked for secrets and commands.

use nomos_types::Risk::{ConfigMutation as CM, Destructive as DE};

use super::Args;
use super::{check_secrets, quoted_literals, ro, script_arg, script_from_stdin};
use crate::paths::{is_access_file, is_block_device};
use crate::shell::{Analysis, Arg, Stdin};

/// Shells that run a script given with `-c`, by path, or on standard input.
#[rustfmt::skip]
pub(super) const SHELLS: &[&str] = &[
    "bash", "sh", "dash", "zsh", "ksh", "ash", "mksh", "rbash", "fish", "busybox-sh",
];

/// Interpreters whose inline code cannot be judged.
#[rustfmt::skip]
pub(super) const INTERPRETERS: &[&str] = &[
    "python", "python2", "python3", "pypy", "pypy3", "perl", "ruby", "node", "nodejs", "deno", "bun", "php", "lua",
    "luajit", "Rscript", "tclsh", "wish", "pwsh", "powershell", "osascript", "groovy", "julia", "expect",
];

/// Interpreters, also with a version suffix (`python3.11`).
pub(super) fn is_interpreter(base: &str) -> bool {
    let family = base.split_once('.').map(|(f, _)| f).unwrap_or(base);
    INTERPRETERS.contains(&family) || family.starts_with("python")
}

/// A shell: its `-c` script, or the script it reads from its input, is judged as shell.
pub(super) fn shell(an: &mut Analysis<'_>, base: &str, a: &Args<'_>, stdin: &Stdin) {
    // Options end at the first operand; `-c` (alone or in a cluster such as `-lc`) makes that operand
    // the script.
    let mut has_c = false;
    let mut reads_stdin = false;
    let mut first_operand = None;
    let mut i = 0;
    while i < a.all.len() {
        match a.all[i].as_static() {
            Some("--") | Some("-") => {
                first_operand = Some(i + 1).filter(|j| *j < a.all.len());
                break;
            }
            Some("-o" | "+o" | "-O" | "+O" | "--rcfile" | "--init-file") => i += 2,
            Some(s) if (s.starts_with('-') || s.starts_with('+')) && s.len() > 1 => {
                if !s.starts_with("--") {
                    has_c |= s.contains('c');
                    reads_stdin |= s.contains('s');
                }
                i += 1;
            }
            _ => {
                first_operand = Some(i);
                break;
            }
        }
    }
    if has_c {
        script_arg(an, base, first_operand.map(|j| &a.all[j]));
    } else if let (Some(j), false) = (first_operand, reads_stdin) {
        an.raise(CM, format!("`{base}` runs the script `{}`", a.all[j].shown()));
    } else {
        script_from_stdin(an, base, stdin);
    }
}

/// An interpreter runs code that cannot be judged; `--version` and `-m json.tool` only read.
pub(super) fn interpreter(an: &mut Analysis<'_>, base: &str, a: &Args<'_>, _stdin: &Stdin) {
    if a.all.iter().all(|x| matches!(x.as_static(), Some("--version" | "-V" | "-v" | "--help" | "-h" | "version")))
        && !a.all.is_empty()
    {
        return ro(an, format!("`{base} --version` only reports"));
    }
    let module = a.value(&["-m"]);
    let module = module.as_ref().map(Arg::shown);
    if module == Some("json.tool") {
        // `json.tool IN OUT` writes OUT.
        let ops = a.operands(&["-m", "--indent"]);
        if let Some(out) = ops.get(1) {
            an.write_target(out, &format!("`{base} -m json.tool` with an output file"));
        }
        if let Some(input) = ops.first() {
            check_secrets(an, base, &[(*input).clone()]);
        }
        return ro(an, format!("`{base} -m json.tool` only formats JSON"));
    }
    if base.starts_with("perl") && a.short('i') {
        an.raise(CM, "`perl -i` edits files in place");
        if let Some(f) =
            a.operands(&["-e", "-E", "-M", "-I"]).iter().find(|f| f.values().iter().any(|p| is_access_file(p)))
        {
            an.raise(DE, format!("`perl -i` edits {}, which logins or access depend on", f.shown()));
        }
    }
    let inline = a.values(&["-c", "-e", "-E", "-r", "--eval", "-p", "--print"]);
    if inline.is_empty() {
        let what = match a.operands(&["-m", "-W", "-X", "-I", "-M"]).first() {
            Some(script) => format!("`{base}` runs the script `{}`", script.shown()),
            None => format!("`{base}` runs code from its input"),
        };
        an.raise(CM, what);
    } else {
        an.raise(CM, format!("`{base}` runs inline code, which cannot be judged"));
    }
    for code in inline {
        code_literals(an, base, code.shown());
    }
}

/// Judges the string literals of inline code: secret paths anywhere, and, when the code can run
/// commands (`system`, `exec`, `popen`, backticks …), each literal as a shell command.
pub(super) fn code_literals(an: &mut Analysis<'_>, base: &str, code: &str) {
    let runs =
        ["system", "exec", "popen", "subprocess", "spawn", "shell", "`", "call("].iter().any(|w| code.contains(w));
    for literal in quoted_literals(code) {
        if an.is_secret(literal.trim()) {
            an.raise_secret(DE, format!("`{base}` code touches secret material `{}`", literal.trim()));
        }
        if is_block_device(literal.trim()) {
            an.raise(DE, format!("`{base}` code touches the device `{}`", literal.trim()));
        }
        if runs {
            an.script(&literal);
        }
    }
}
