//! Shells and interpreters: a shell's script is judged as shell; an interpreter's inline code
//! cannot be, so it is gated, with its string literals checked for secrets and commands.

use nomos_types::Risk::{ConfigMutation as CM, Destructive as DE};

use super::Args;
use super::{quoted_literals, ro, script_arg, script_from_stdin};
use crate::paths::{is_access_file, is_block_device, is_broad, is_irreplaceable};
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

/// bash's long options, which it also takes after a single dash.
const BASH_LONG: &[&str] = &[
    "debugger",
    "dump-po-strings",
    "dump-strings",
    "help",
    "init-file",
    "login",
    "noediting",
    "noprofile",
    "norc",
    "posix",
    "pretty-print",
    "protected",
    "rcfile",
    "restricted",
    "verbose",
    "version",
    "wordexp",
];

/// A shell: its `-c` script, or the script it reads from its input, is judged as shell.
pub(super) fn shell(an: &mut Analysis<'_>, base: &str, a: &Args<'_>, stdin: &Stdin) {
    // Exactly a version or help query, with nothing flowing in: it prints and exits, running nothing.
    if let [only] = a.all {
        if matches!(only.as_static(), Some("--version" | "--help")) && stdin.texts.is_empty() && !stdin.unknown {
            return ro(an, format!("`{base} {}` only prints its version or help", only.shown()));
        }
    }
    // Options end at the first operand; `-c` (alone or in a cluster such as `-lc`) makes that operand
    // the script.
    let mut has_c = false;
    let mut reads_stdin = false;
    // `-n` reads commands without running them (ignored by an interactive shell).
    let mut noexec = false;
    let mut interactive = false;
    let mut first_operand = None;
    let mut i = 0;
    while let Some(arg) = a.all.get(i) {
        match arg.as_static() {
            Some("--") | Some("-") => {
                first_operand = a.all.get(i + 1);
                break;
            }
            Some("-o" | "+o" | "-O" | "+O" | "--rcfile" | "--init-file" | "-rcfile" | "-init-file") => i += 2,
            Some(s) if (s.starts_with('-') || s.starts_with('+')) && s.len() > 1 => {
                // bash takes its long options after one dash too (`-norc` is `--norc`, not `-n`).
                let long = s.starts_with("--") || (base == "bash" && BASH_LONG.contains(&s.trim_start_matches('-')));
                if !long && s.starts_with('-') {
                    has_c |= s.contains('c');
                    reads_stdin |= s.contains('s');
                    noexec |= s.contains('n');
                    interactive |= s.contains('i');
                }
                // `-euo pipefail`: a cluster ending in `o`/`O` takes the next word as its name.
                let takes_name = !long && s.ends_with(['o', 'O']);
                i += if takes_name { 2 } else { 1 };
            }
            _ => {
                first_operand = Some(arg);
                break;
            }
        }
    }
    if noexec && !interactive && base != "fish" {
        ro(an, format!("`{base} -n` reads the script without running it"));
    } else if has_c {
        script_arg(an, base, first_operand);
    } else if let (Some(script), false) = (first_operand, reads_stdin) {
        an.raise(CM, format!("`{base}` runs the script `{}`", script.shown()));
        super::wrappers::generated_script(an, base, script.shown());
    } else {
        script_from_stdin(an, base, stdin);
    }
}

/// The words that only ask an interpreter for its version or its help, by family: each exits
/// without running any code. (`python -v` traces imports and runs its input; `tclsh -h` reads
/// commands; those families do not list them.)
fn version_queries(family: &str) -> &'static [&'static str] {
    match family {
        "python" | "pypy" => {
            &["--version", "-V", "-VV", "--help", "-h", "-?", "--help-env", "--help-xoptions", "--help-all"]
        }
        "perl" => &["--version", "-v", "-V", "-h"],
        "ruby" => &["--version", "-h", "--help"],
        "node" | "nodejs" => &["--version", "-v", "--help", "-h"],
        "php" => &["--version", "-v", "--help", "-h"],
        "lua" | "luajit" => &["-v"],
        "deno" => &["--version", "-V", "--help", "-h"],
        "bun" => &["--version", "-v", "--help", "-h"],
        "pwsh" | "powershell" => &["-Version", "-v", "-Help", "-h", "-?"],
        "julia" | "groovy" => &["--version", "-v", "--help", "-h"],
        "expect" => &["-v"],
        "tclsh" | "wish" | "osascript" => &[],
        _ => &["--version", "--help"],
    }
}

/// An interpreter's family: `python3.11` is `python`, `perl5.36` is `perl`, `lua5.4` is `lua`.
fn family(base: &str) -> &str {
    let name = base.trim_end_matches(|c: char| c.is_ascii_digit() || c == '.');
    match name {
        n if n.starts_with("python") => "python",
        n if n.starts_with("pypy") => "pypy",
        n => n,
    }
}

/// An interpreter runs code, which cannot be judged, unless it is asked exactly for its version or
/// help with nothing on its input.
pub(super) fn interpreter(an: &mut Analysis<'_>, base: &str, a: &Args<'_>, stdin: &Stdin) {
    let nothing_in = !stdin.unknown && stdin.texts.iter().all(|t| t.is_empty());
    if let [Arg::Static(only)] = a.all {
        if nothing_in && version_queries(family(base)).contains(&only.as_str()) {
            return ro(an, format!("`{base} {only}` only prints its version or help"));
        }
    }
    // `-i`, `-pi`, `-i.bak`, `-pi.orig`: in place, with or without a backup suffix.
    let in_place = a.all.iter().filter_map(Arg::as_static).take_while(|w| *w != "--").any(|w| {
        w.strip_prefix('-').filter(|o| !o.starts_with('-')).is_some_and(|o| {
            let letters: String = o.chars().take_while(|c| c.is_ascii_alphabetic()).collect();
            letters.contains('i') && !letters.split('i').next().is_some_and(|pre| pre.contains(['e', 'E', 'M', 'I']))
        })
    });
    if base.starts_with("perl") && (a.short('i') || in_place) {
        an.raise(CM, "`perl -i` edits files in place");
        if let Some(f) =
            a.operands(&["-e", "-E", "-M", "-I"]).iter().find(|f| f.values().iter().any(|p| is_access_file(p)))
        {
            an.raise(DE, format!("`perl -i` edits {}, which logins or access depend on", f.shown()));
        }
        super::coreutils::in_place_edit(an, "perl -i", &a.operands(&["-e", "-E", "-M", "-I"]));
    }
    let inline = a.values(&["-c", "-e", "-E", "-r", "--eval", "-p", "--print", "-Command", "-command", "-ex"]);
    let script = a
        .operands(&["-m", "-W", "-X", "-I", "-M", "-d", "-c", "-e", "-E", "-r", "--eval"])
        .first()
        .map(|s| s.shown().to_string());
    if inline.is_empty() {
        let what = match &script {
            Some(s) if s != "-" => format!("`{base}` runs the script `{s}`"),
            _ => format!("`{base}` runs code from its input"),
        };
        an.raise(CM, what);
    } else {
        an.raise(CM, format!("`{base}` runs inline code, which cannot be judged"));
    }
    for code in &inline {
        code_literals(an, base, code.shown());
    }
    // Code read from the input (a here-document, `echo … |`), whatever version flag precedes it.
    if inline.is_empty() && script.as_deref().is_none_or(|s| s == "-") || !stdin.texts.is_empty() {
        for text in &stdin.texts {
            code_literals(an, base, text);
        }
    }
    // A module's own work: serving a directory over HTTP discloses what is in it.
    let module = a.value(&["-m"]).map(|m| m.shown().to_string());
    if module.as_deref() == Some("http.server") || (family(base) == "php" && a.value(&["-S"]).is_some()) {
        let dir = a.value(&["--directory", "-d", "-t"]).map(|d| d.shown().to_string());
        if dir.as_deref().is_none_or(|d| {
            crate::paths::is_broad(d) || an.is_secret(&format!("{d}/x")) || crate::secrets::holds_secrets(d)
        }) {
            an.raise_secret(
                DE,
                format!(
                    "`{base}` serves {} over HTTP, secrets and all",
                    dir.as_deref().unwrap_or("its working directory")
                ),
            );
        }
    }
}

/// Words of interpreter code that run a program or a shell.
#[rustfmt::skip]
const RUNS: &[&str] = &[
    "system", "exec", "popen", "subprocess", "spawn", "shell", "`", "call(", "qx", "%x", "passthru", "proc_open",
    "pcntl_exec", "child_process", "os.execute", "Open3", "run(", "pipeline(", "Process.Start", "Start-Process",
    "Invoke-Expression", "iex ", "open(", "readpipe", "Kernel.", "IO.popen", "execSync", "spawnSync", "& /",
];

/// Words of interpreter code that write or truncate files.
#[rustfmt::skip]
const WRITES: &[&str] = &[
    "'w'", "\"w\"", "'wb'", "\"wb\"", "'a'", "writeFileSync", "writeFile", "File.write", "write_text", "write_bytes",
    "File.truncate", "truncate", "fwrite", "file_put_contents", "Set-Content", "Out-File", "open(F, \">",
    "open F, \">", "file delete", "file rename",
];

/// Words of interpreter code that delete files or trees.
#[rustfmt::skip]
const DELETES: &[&str] = &[
    "unlink", "rmtree", "remove(", "rmdir", "rm_rf", "rm_r", "File.delete", "FileUtils.rm", "fs.rm", "rmSync",
    "os.remove", "Remove-Item", "truncate", "shred", "remove_tree", "rm(", "delete(", "file delete", "unlinkSync",
];

/// Words of interpreter code that delete a whole tree.
#[rustfmt::skip]
const RECURSIVE_DELETES: &[&str] = &[
    "rmtree", "rm_rf", "rm_r", "remove_tree", "rmdir -r", "-Recurse", "recursive: true", "recursive=True",
    "File::Path", "rimraf", "remove_dir_all", "RemoveAll", "file delete -force",
];

/// Judges interpreter code by what can be seen of it: secret paths anywhere; when it can run
/// commands (`system`, `exec`, `popen`, backticks, `qx`, `spawn` …), each literal, each list of
/// literals (`["systemctl", "stop", "ssh"]`) and each `exec`/`spawn`/`system` statement as a
/// shell command; deleting, truncating or writing a precious file or tree, or signalling PID 1, is
/// destructive. Payloads spelled in hex or base64 are decoded and judged the same way.
pub(super) fn code_literals(an: &mut Analysis<'_>, base: &str, code: &str) {
    code_literals_at(an, base, code, 0);
}

fn code_literals_at(an: &mut Analysis<'_>, base: &str, code: &str, depth: u32) {
    if depth > 3 {
        return;
    }
    let literals = code_strings(code);
    let joined: String = literals.concat();
    let runs = RUNS.iter().any(|w| code.contains(w) || joined.contains(w.trim_end_matches('(')));
    let deletes = DELETES.iter().any(|w| code.contains(w));
    let recursive = RECURSIVE_DELETES.iter().any(|w| code.contains(w));
    let writes = WRITES.iter().any(|w| code.contains(w));
    // Paths written without quotes (`Remove-Item -Recurse /var/lib/vz`, `file delete -force /x`).
    let bare_paths = code
        .split(|c: char| c.is_whitespace() || matches!(c, ';' | '(' | ')' | ',' | '[' | ']' | '{' | '}'))
        .filter(|w| w.starts_with('/') && w.len() > 1)
        .map(str::to_string);
    let mut paths: Vec<String> = literals.clone();
    paths.extend(bare_paths);
    for literal in &paths {
        let path = literal.trim().trim_start_matches('|').trim_end_matches('|').trim();
        if an.is_secret(path) {
            an.raise_secret(DE, format!("`{base}` code touches secret material `{path}`"));
        }
        if is_block_device(path) {
            an.raise(DE, format!("`{base}` code touches the device `{path}`"));
        }
        let precious = path.starts_with(['/', '~'])
            && (is_broad(path)
                || is_irreplaceable(path)
                || is_access_file(path)
                || crate::paths::is_login_policy(path)
                || path.starts_with("/etc/"));
        if (deletes || writes) && precious {
            an.raise(DE, format!("`{base}` code deletes, truncates or overwrites {path}"));
        }
        // A tree deleted whole is `rm -r`, wherever it is; files the system needs, or every file
        // of the working directory, deleted one by one are `rm` of them.
        let tree = path.starts_with(['/', '~', '.']) && !path.contains(char::is_whitespace);
        if recursive && tree {
            an.raise(DE, format!("`{base}` code deletes the tree {path} and everything in it"));
        } else if deletes
            && (crate::paths::is_vital(path) || crate::paths::is_precious(path) || matches!(path, "." | "./"))
        {
            an.raise(DE, format!("`{base}` code deletes {path}, or what is in it"));
        }
    }
    if runs {
        for literal in &literals {
            an.script(literal.trim().trim_start_matches('|').trim_end_matches('|').trim());
        }
        if literals.len() > 1 {
            an.script(&literals.join(" "));
        }
    }
    // `exec reboot`, `spawn systemctl poweroff`, `system "x"` as statements (Tcl, expect, Perl).
    for statement in code.split([';', '\n']) {
        let t = statement.trim();
        for word in ["exec ", "spawn ", "system ", "shell "] {
            if let Some(rest) = t.strip_prefix(word) {
                let rest = rest.trim().trim_matches(['"', '\'', '{', '}']);
                if !rest.is_empty() {
                    an.raise(CM, format!("`{base}` code runs a command"));
                    an.script(rest);
                }
            }
        }
    }
    // `bytes.fromhex("…")`, `pack "H*", "…"`, `b64decode("…")`: the payload they decode.
    for literal in &literals {
        let l = literal.trim();
        let hex = l.len() >= 8 && l.len() % 2 == 0 && l.chars().all(|c| c.is_ascii_hexdigit());
        let decoded = if hex && (code.contains("fromhex") || code.contains("H*") || code.contains("unhexlify")) {
            let bytes: Option<Vec<u8>> = l
                .as_bytes()
                .chunks(2)
                .map(|p| std::str::from_utf8(p).ok().and_then(|p| u8::from_str_radix(p, 16).ok()))
                .collect();
            bytes.and_then(|b| String::from_utf8(b).ok())
        } else if l.len() >= 8
            && (code.contains("b64decode")
                || code.contains("base64")
                || code.contains("atob")
                || code.contains("decode64"))
        {
            crate::shell::base64_text(l)
        } else {
            None
        };
        if let Some(payload) = decoded {
            an.raise(CM, format!("`{base}` code decodes a payload"));
            code_literals_at(an, base, &payload, depth + 1);
        }
    }
    // `kill 'INT', 1`, `os.kill(1, 9)`, `Process.kill(:INT, 1)`: PID 1 is the init system.
    if code.contains("kill") && code.split(|c: char| !c.is_ascii_alphanumeric()).any(|w| w == "1") {
        an.raise(DE, format!("`{base}` code may signal PID 1 (init), which reboots or halts the machine"));
    }
}

/// The string literals of code: `'…'`, `"…"`, `` `…` ``, and Perl's `q(…)`, `qq{…}`, `qx{…}`,
/// `qw(…)` (its words joined).
fn code_strings(code: &str) -> Vec<String> {
    let mut out = quoted_literals(code);
    let chars: Vec<char> = code.chars().collect();
    let mut i = 0;
    while let Some(&c) = chars.get(i) {
        i += 1;
        if c == '`' {
            let body: String = chars.iter().skip(i).take_while(|&&x| x != '`').collect();
            i += body.chars().count() + 1;
            if !body.trim().is_empty() {
                out.push(body);
            }
            continue;
        }
        // Perl's quote-like operators: `q`, `qq`, `qx`, `qw` and a delimiter.
        let before = i.checked_sub(2).and_then(|b| chars.get(b)).copied();
        if c == 'q' && !before.is_some_and(|b| b.is_alphanumeric() || b == '_') {
            let mut j = i;
            if matches!(chars.get(j), Some('q' | 'x' | 'w')) {
                j += 1;
            }
            let open = chars.get(j).copied();
            let close = match open {
                Some('(') => Some(')'),
                Some('{') => Some('}'),
                Some('[') => Some(']'),
                Some('<') => Some('>'),
                Some('/' | '|' | '!' | '#') => open,
                _ => None,
            };
            if let Some(close) = close {
                let body: String = chars.iter().skip(j + 1).take_while(|&&x| x != close).collect();
                i = j + 1 + body.chars().count() + 1;
                if !body.trim().is_empty() {
                    out.push(body.split_whitespace().collect::<Vec<_>>().join(" "));
                }
            }
        }
    }
    out.truncate(64);
    out
}
