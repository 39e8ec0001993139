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
    // Lisp, ML, Haskell, JVM and BEAM languages and REPLs: their code can run programs the same way.
    "guile", "racket", "sbcl", "clisp", "ecl", "gosh", "csi", "chez", "ghc", "ghci", "runghc", "runhaskell", "ocaml",
    "jshell", "scala", "clojure", "clj", "bb", "kotlin", "elixir", "erl", "escript", "ipython", "ipython3",
];

/// Interpreters, also with a version suffix (`python3.11`).
pub(super) fn is_interpreter(base: &str) -> bool {
    let name = base.split_once('.').map(|(f, _)| f).unwrap_or(base);
    INTERPRETERS.contains(&name) || name.starts_with("python") || INTERPRETERS.contains(&family(base))
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
    let mut operand_at = a.all.len();
    let mut i = 0;
    while let Some(arg) = a.all.get(i) {
        match arg.as_static() {
            Some("--") | Some("-") => {
                first_operand = a.all.get(i + 1);
                operand_at = i + 1;
                break;
            }
            // The startup file an interactive shell runs first (`--rcfile /tmp/x`): a script.
            Some("--rcfile" | "--init-file" | "-rcfile" | "-init-file") => {
                if let Some(file) = a.all.get(i + 1) {
                    an.raise(CM, format!("`{base} {}` runs a startup file", arg.shown()));
                    super::wrappers::script_file(an, base, file.shown());
                }
                i += 2;
            }
            Some("-o" | "+o" | "-O" | "+O") => i += 2,
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
                operand_at = i;
                break;
            }
        }
    }
    if noexec && !interactive && base != "fish" {
        ro(an, format!("`{base} -n` reads the script without running it"));
    } else if has_c {
        script_arg(an, base, first_operand);
        positional_command(an, first_operand, a.all.get(operand_at + 1..).unwrap_or(&[]), stdin);
    } else if let (Some(script), false) = (
        // A script named as the input itself (`bash /dev/stdin`) is the input.
        first_operand.filter(|s| !matches!(s.shown(), "/dev/stdin" | "/dev/fd/0" | "/proc/self/fd/0")),
        reads_stdin,
    ) {
        an.raise(CM, format!("`{base}` runs the script `{}`", script.shown()));
        super::wrappers::script_file(an, base, script.shown());
    } else {
        script_from_stdin(an, base, stdin);
    }
}

/// `sh -c 'exec "$0" "$@"' qm destroy 100`: the words after a `-c` script are its `$0`, `$1` …;
/// a script that runs them as a command (`"$@"`, `$0` first) runs those words, judged as written.
fn positional_command(an: &mut Analysis<'_>, script: Option<&Arg>, rest: &[Arg], stdin: &Stdin) {
    let Some(text) = script.map(Arg::shown) else { return };
    let argv = if runs_positional(text, &["$0", "${0}"]) {
        rest
    } else if runs_positional(text, &["$@", "$*", "${@}", "${*}", "$1", "${1}"]) {
        rest.get(1..).unwrap_or(&[])
    } else if let Some(n) = (2..10).find(|n| runs_positional(text, &[&format!("${n}"), &format!("${{{n}}}")])) {
        rest.get(n..).unwrap_or(&[])
    } else {
        return;
    };
    if !argv.is_empty() {
        an.run(argv, stdin);
    }
    // `eval "$0"`, `sh -c "$1"`: the words are a script, not a program's name.
    if text.contains("eval") || argv.len() == 1 {
        let joined: Vec<&str> = argv.iter().map(Arg::shown).collect();
        an.script(&joined.join(" "));
    }
}

/// Whether one of `names` stands where a command starts in `script` (`"$@"`, `exec "$0"`,
/// `x; $1`), not as an argument (`echo "$1"`).
fn runs_positional(script: &str, names: &[&str]) -> bool {
    const LEADS: &[&str] = &["exec", "eval", "then", "do", "else", "command", "builtin", "nohup", "sudo", "env", "!"];
    names.iter().any(|name| {
        script.match_indices(name).any(|(at, _)| {
            let before = script.get(..at).unwrap_or_default().trim_end_matches('"').trim_end();
            before.is_empty()
                || before.ends_with([';', '&', '|', '(', '{', '\n', '`'])
                || before.rsplit(|c: char| c.is_whitespace()).next().is_some_and(|w| LEADS.contains(&w))
        })
    })
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
    if (base.starts_with("perl") || family(base) == "ruby") && (a.short('i') || in_place) {
        an.raise(CM, format!("`{base} -i` edits files in place"));
        if let Some(f) =
            a.operands(&["-e", "-E", "-M", "-I"]).iter().find(|f| f.values().iter().any(|p| is_access_file(p)))
        {
            an.raise(DE, format!("`{base} -i` edits {}, which logins or access depend on", f.shown()));
        }
        super::coreutils::in_place_edit(an, &format!("{base} -i"), &a.operands(&["-e", "-E", "-M", "-I"]));
    }
    let mut inline =
        a.values(&["-c", "-e", "-E", "-r", "--eval", "-p", "--print", "-Command", "-command", "-ex", "-eval"]);
    // `deno eval CODE`, `bun eval CODE`: the subcommand's operand is the code.
    if matches!(family(base), "deno" | "bun") {
        let words: Vec<&Arg> = a.all.iter().filter(|w| w.as_static().is_none_or(|s| !s.starts_with('-'))).collect();
        if let [first, code, ..] = words.as_slice() {
            if first.as_static() == Some("eval") {
                inline.push((*code).clone());
            }
        }
    }
    // PowerShell's encoded command is code nobody can read before it runs.
    if matches!(family(base), "pwsh" | "powershell")
        && a.all.iter().filter_map(Arg::as_static).any(|w| {
            let w = w.to_ascii_lowercase();
            (w.len() > 2 && "-encodedcommand".starts_with(w.as_str())) || w == "-ec"
        })
    {
        an.raise(DE, format!("`{base}` runs an encoded command, which cannot be judged"));
    }
    let script = a
        .operands(&["-m", "-W", "-X", "-I", "-M", "-d", "-c", "-e", "-E", "-r", "--eval"])
        .first()
        .map(|s| s.shown().to_string());
    // Nextcloud's `occ` console, run by PHP: its commands are judged by what they do.
    if family(base) == "php" && script.as_deref().is_some_and(|s| s == "occ" || s.ends_with("/occ")) {
        let words: Vec<&str> = a.all.iter().filter_map(Arg::as_static).collect();
        let after: Vec<&str> =
            words.iter().skip_while(|w| **w != "occ" && !w.ends_with("/occ")).skip(1).copied().collect();
        occ(an, &after);
    }
    if inline.is_empty() {
        let what = match &script {
            Some(s) if s != "-" => format!("`{base}` runs the script `{s}`"),
            _ => format!("`{base}` runs code from its input"),
        };
        an.raise(CM, what);
        // A module (`-m json.tool`) is the system's; a file named as the script is not seen.
        if let Some(s) = script.as_deref().filter(|_| a.value(&["-m"]).is_none()) {
            super::wrappers::script_file(an, base, s);
        }
    } else {
        an.raise(CM, format!("`{base}` runs inline code, which cannot be judged"));
    }
    for code in &inline {
        code_literals(an, base, code.shown());
        // The code cannot be parsed: each string in it may reach a shell however it is passed,
        // so each is judged as the command it would be.
        for literal in quoted_literals(code.shown()) {
            an.script(literal.trim().trim_start_matches('|').trim_end_matches('|'));
        }
    }
    // A module given code (`-m timeit -s SETUP STMT`, `-m cProfile -c …`): every word after the
    // module may be code it runs.
    if let Some(at) = a.all.iter().position(|w| w.as_static() == Some("-m")) {
        for word in a.all.iter().skip(at + 2) {
            code_literals(an, base, word.shown());
        }
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

/// `gdb`: it can change, or kill, whatever it attaches to. Its commands (`-ex`, `-iex`, a script on
/// its input) are judged: `shell`/`!` run shell text, `python` runs code, and calling `exit`,
/// `abort`, `kill` or `raise` in an attached process ends it, which may be PID 1 or a service.
pub(super) fn gdb(an: &mut Analysis<'_>, _base: &str, a: &Args<'_>, stdin: &Stdin) {
    if let [only] = a.all {
        if matches!(only.as_static(), Some("--version" | "-version" | "--help" | "-help" | "--configuration"))
            && stdin.texts.is_empty()
            && !stdin.unknown
        {
            return ro(an, "`gdb` only prints its version or help");
        }
    }
    an.raise(CM, "`gdb` debugs a process, which it can change or kill");
    if let Some(k) = a.all.iter().position(|w| w.as_static().is_some_and(|s| matches!(s, "--args" | "-args"))) {
        an.run(a.tail_from(k + 1), &Stdin::default());
    }
    let valued = [
        "-ex",
        "--ex",
        "-iex",
        "--iex",
        "-eval-command",
        "--eval-command",
        "-init-eval-command",
        "--init-eval-command",
    ];
    let mut commands: Vec<String> = a.values(&valued).iter().map(|v| v.shown().to_string()).collect();
    commands.extend(stdin.texts.iter().flat_map(|t| t.lines().map(str::to_string)));
    let attached = a.value(&["-p", "--pid"]).is_some()
        || a.operands(&valued)
            .iter()
            .skip(1)
            .any(|o| o.as_static().is_none_or(|w| w.chars().all(|c| c.is_ascii_digit())))
        || commands.iter().any(|c| c.trim_start().starts_with("attach"));
    for command in &commands {
        let c = command.trim();
        let (verb, rest) = c.split_once(char::is_whitespace).unwrap_or((c, ""));
        if let Some(shell) = c.strip_prefix('!').or_else(|| matches!(verb, "shell" | "she" | "shel").then_some(rest)) {
            an.raise(CM, "`gdb` runs a shell command");
            an.script(shell);
        } else if verb == "pipe" || verb == "|" {
            if let Some((_, shell)) = rest.split_once('|') {
                an.script(shell);
            }
        } else if matches!(verb, "python" | "py" | "python-interactive" | "pi") {
            code_literals(an, "gdb python", rest);
        } else if matches!(verb, "call" | "print" | "p" | "output" | "set" | "kill" | "signal" | "queue-signal") {
            let ends = ["exit", "abort", "kill", "raise", "syscall", "reboot", "SIG"].iter().any(|w| rest.contains(w))
                || matches!(verb, "kill" | "signal" | "queue-signal");
            if ends && attached {
                an.raise(DE, "`gdb` makes the process it attaches to exit or be killed (it may be init or a service)");
            }
            if rest.contains("system") || rest.contains("exec") {
                code_literals(an, "gdb", rest);
            }
        }
    }
}

/// Nextcloud's `occ` commands that delete users, groups, files or data, rewrite the database, or
/// take the instance offline for its users.
fn occ(an: &mut Analysis<'_>, words: &[&str]) {
    let Some(command) = words.iter().find(|w| !w.starts_with('-')) else { return };
    let destroys = matches!(
        *command,
        "user:delete"
            | "group:delete"
            | "files:cleanup"
            | "db:convert-type"
            | "app:remove"
            | "trashbin:cleanup"
            | "versions:cleanup"
            | "encryption:disable"
            | "encryption:decrypt-all"
            | "encryption:encrypt-all"
            | "ldap:delete-config"
            | "config:system:delete"
            | "config:app:delete"
            | "preview:delete"
            | "files:transfer-ownership"
            | "db:drop-column"
    ) || command.ends_with(":delete")
        || command.ends_with(":cleanup")
        || command.ends_with(":remove")
        || command.ends_with(":purge");
    let offline = *command == "maintenance:mode" && words.contains(&"--on") || *command == "maintenance:install";
    if destroys {
        an.raise(DE, format!("`occ {command}` deletes or rewrites Nextcloud data"));
    } else if offline {
        an.raise(DE, format!("`occ {command}` takes Nextcloud offline for its users"));
    }
}

/// Words of interpreter code that run a program or a shell. (Rust's process call is spelled in
/// two parts so that this file does not read as starting processes itself.)
#[rustfmt::skip]
const RUNS: &[&str] = &[
    "system", "exec", "popen", "subprocess", "spawn", "shell", "`", "call(", "qx", "%x", "passthru", "proc_open",
    "pcntl_exec", "child_process", "os.execute", "Open3", "run(", "pipeline(", "Process.Start", "Start-Process",
    "Invoke-Expression", "iex ", "open(", "readpipe", "Kernel.", "IO.popen", "execSync", "spawnSync", "& /",
    "run-program", "callCommand", "readProcess", "rawSystem", "Sys.command", "Unix.system", "Unix.exec",
    "getRuntime", "ProcessBuilder", "clojure.java.shell", "shell-command", "call-process", "start-process",
    "process-lines", concat!("Command::", "new"), "System.cmd", "os:cmd", "do shell script", "shell_exec", "Deno.run",
    "Deno.Command", "Bun.spawn", "\"-|\"", "\"|-\"", "'-|'", "'|-'", "getoutput", "check_output",
];

/// Words of code that reach the operating system beneath any command (system calls, foreign
/// functions, power and process APIs): what they do cannot be judged, and can be anything.
#[rustfmt::skip]
const OS_CALLS: &[&str] = &[
    "syscall", "ctypes", "CDLL", "dlopen", "FFI", "require 'ffi'", "require(\"ffi", "import ffi", "cffi", "Fiddle",
    "DllImport", "sb-alien", "foreign-funcall", "Native.load", "reboot(", "Stop-Computer", "Restart-Computer",
    "Stop-Process", "Stop-Service", "to shut down", "to restart", "LINUX_REBOOT", "0xfee1dead", "sysrq-trigger",
    // Signals sent from code, to whichever processes it picks (a guest's, PID 1).
    "os.kill", "os.killpg", "process.kill", "Process.kill", "posix.kill", "signal.SIGKILL", "kill 9", "kill 'KILL'",
    "kill('KILL'", "kill(\"KILL\"", "kill -9", "kill(9",
];

/// Calls that run what they are given: followed by something other than a literal, the program
/// they run is computed.
#[rustfmt::skip]
const RUN_CALLS: &[&str] = &[
    "system", "exec", "popen", "spawn", "passthru", "shell_exec", "proc_open", "pcntl_exec", "execSync", "spawnSync",
    "execFile", "execv", "execvp", "callCommand", "readProcess", "Sys.command", "run-program", "Popen",
    "check_output", "check_call", "getoutput", "os.execute", "io.popen", "Start-Process", "Invoke-Expression", "iex",
    "eval", "Process.Start", "ProcessBuilder", "call-process", "shell-command", concat!("Command::", "new"), "readpipe",
    "qx",
    "subprocess.run", "subprocess.call", "spawnl", "spawnlp", "spawnv", "spawnvp", "execl", "execlp", "execve",
    "execvpe", "posix_spawn",
];

/// Words of interpreter code that write or truncate files.
#[rustfmt::skip]
const WRITES: &[&str] = &[
    "'w'", "\"w\"", "'wb'", "\"wb\"", "'a'", "writeFileSync", "writeFile", "File.write", "write_text", "write_bytes",
    "File.truncate", "truncate", "fwrite", "file_put_contents", "Set-Content", "Out-File", "open(F, \">",
    "open F, \">", "file delete", "file rename",
    // Renaming a file away, or changing who may read or run it, takes it from what needs it.
    "rename", "os.replace", "shutil.move", "chmod", "chown", "lchown", "File.rename", "fs.rename", "Move-Item",
];

/// Words of interpreter code that delete files or trees.
#[rustfmt::skip]
const DELETES: &[&str] = &[
    "unlink", "rmtree", "remove(", "rmdir", "rm_rf", "rm_r", "File.delete", "FileUtils.rm", "fs.rm", "rmSync",
    "os.remove", "Remove-Item", "truncate", "shred", "remove_tree", "rm(", "delete(", "file delete", "unlinkSync",
    "delete-file", "delete-directory", "Files.delete", "deleteRecursively", "removeFile", "removeDirectory",
    "Sys.remove", "file:delete", "File.rm",
];

/// Words of interpreter code that delete a whole tree.
#[rustfmt::skip]
const RECURSIVE_DELETES: &[&str] = &[
    "rmtree", "rm_rf", "rm_r", "remove_tree", "rmdir -r", "-Recurse", "recursive: true", "recursive=True",
    "File::Path", "rimraf", "remove_dir_all", "RemoveAll", "file delete -force", "delete-directory",
    "deleteRecursively", "removeDirectoryRecursive", "File.rm_rf",
];

/// Judges interpreter code by what can be seen of it: secret paths anywhere; when it can run
/// commands (`system`, `exec`, `popen`, backticks, `qx`, `spawn` …), each literal, each list of
/// literals (`["systemctl", "stop", "ssh"]`) and each `exec`/`spawn`/`system` statement as a
/// shell command; deleting, truncating or writing a precious file or tree, or signalling PID 1, is
/// destructive. Payloads spelled in hex or base64 are decoded and judged the same way.
pub(crate) fn code_literals(an: &mut Analysis<'_>, base: &str, code: &str) {
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
    // A mode that opens for writing (`">"`, `'+>'`, `"w+"`, `"r+"`) truncates or overwrites in place.
    let writes = WRITES.iter().any(|w| code.contains(w))
        || literals.iter().any(|l| matches!(l.trim(), ">" | "+>" | "+<" | "w+" | "wt" | "wb+" | "w+b" | "r+" | "rb+"))
        || code.contains("O_TRUNC")
        || code.contains("O_WRONLY");
    forks_in_a_loop(an, base, code);
    if let Some(call) = OS_CALLS.iter().find(|w| code.contains(*w)) {
        an.raise(DE, format!("`{base}` code calls the operating system directly (`{call}`), which can do anything"));
    }
    if runs_computed(code, matches!(family(base), "tclsh" | "wish" | "expect")) || (runs && concatenates(code)) {
        an.raise(DE, format!("`{base}` runs a program it computes, which cannot be judged"));
    }
    // Paths written without quotes (`Remove-Item -Recurse /var/lib/vz`, `file delete -force /x`).
    let bare_paths = code
        .split(|c: char| c.is_whitespace() || matches!(c, ';' | '(' | ')' | ',' | '[' | ']' | '{' | '}'))
        .filter(|w| w.starts_with('/') && w.len() > 1)
        .map(str::to_string);
    let mut paths: Vec<String> = literals.clone();
    paths.extend(bare_paths);
    for literal in &paths {
        let path = literal.trim().trim_start_matches('|').trim_end_matches('|').trim();
        // Perl's two-argument open carries its mode before the path (`">/etc/fstab"`).
        let path = match path.trim_start_matches(['+', '>', '<']).trim_start() {
            p if p.starts_with('/') && writes => p,
            _ => path,
        };
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
                || crate::paths::is_vital(path)
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
        // IPython runs a line starting with `!` as a shell command.
        if let Some(shell) = t.strip_prefix('!').filter(|_| base.starts_with("ipython")) {
            an.raise(CM, format!("`{base}` code runs a shell command"));
            an.script(shell.trim_start_matches('!'));
        }
        // IPython's shell magics (`%sx`, `%system`, `%sc`), anywhere in the statement (`x = %sx …`).
        if base.starts_with("ipython") {
            for magic in ["%sx ", "%system ", "%sc "] {
                if let Some((_, rest)) = t.split_once(magic) {
                    // `%sc -l name = cmd`: the command follows the `=`.
                    let rest = if magic == "%sc " { rest.split_once('=').map_or(rest, |(_, c)| c) } else { rest };
                    an.raise(CM, format!("`{base}` code runs a shell command"));
                    an.script(rest.trim());
                }
            }
        }
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
    // IPython's cell magics (`%%bash`, `%%sh`, `%%script sh`): the lines after are shell text.
    if base.starts_with("ipython") {
        if let Some((head, cell)) = code.trim_start().split_once('\n') {
            let head = head.trim();
            let shell = matches!(head, "%%bash" | "%%sh" | "%%system" | "%%sx")
                || head.strip_prefix("%%script").is_some_and(|s| {
                    let prog = s.split_whitespace().next().unwrap_or("");
                    matches!(prog.rsplit('/').next().unwrap_or(""), "sh" | "bash" | "dash" | "zsh" | "ksh")
                });
            if shell {
                an.raise(CM, format!("`{base}` code runs a shell cell"));
                an.script(cell);
            }
        }
        if code.contains("get_ipython()") {
            for literal in &literals {
                an.script(literal.trim());
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
        // Ruby's `%x(…)`, `%x{…}`: a command run like backticks.
        if c == '%' && chars.get(i) == Some(&'x') {
            if let Some(close) = chars.get(i + 1).and_then(|o| closing(*o)) {
                let body: String = chars.iter().skip(i + 2).take_while(|&&x| x != close).collect();
                i += 2 + body.chars().count() + 1;
                if !body.trim().is_empty() {
                    out.push(body);
                }
                continue;
            }
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

/// The closing delimiter of a quote-like operator's opening one.
fn closing(open: char) -> Option<char> {
    match open {
        '(' => Some(')'),
        '{' => Some('}'),
        '[' => Some(']'),
        '<' => Some('>'),
        '/' | '|' | '!' | '#' => Some(open),
        _ => None,
    }
}

/// Code with the contents of its `'…'` and `"…"` literals blanked, so that words inside strings
/// are not read as calls.
fn blank_strings(code: &str) -> Vec<char> {
    let mut out = Vec::new();
    let mut quote: Option<char> = None;
    let mut escaped = false;
    for c in code.chars() {
        match quote {
            Some(q) => {
                if escaped {
                    escaped = false;
                    out.push(' ');
                } else if c == '\\' {
                    escaped = true;
                    out.push(' ');
                } else if c == q {
                    quote = None;
                    out.push(c);
                } else {
                    out.push(' ');
                }
            }
            None => {
                if c == '"' || c == '\'' {
                    quote = Some(c);
                }
                out.push(c);
            }
        }
    }
    out
}

/// Code that joins string literals (`"re" . "boot"`, `'re' + 'boot'`, `"re" .. "boot"`): in code
/// that runs programs, the program can be spelled in pieces no single literal shows.
fn concatenates(code: &str) -> bool {
    let chars = blank_strings(code);
    let quotes = chars.iter().enumerate().filter(|(_, c)| matches!(c, '"' | '\''));
    let mut previous: Option<usize> = None;
    let mut closing = false;
    for (i, _) in quotes {
        // Quotes alternate: opening, closing. A closing one followed only by an operator and
        // blanks before the next opening one joins the two.
        if !closing {
            if let Some(p) = previous {
                let between: String = chars.iter().skip(p + 1).take(i.saturating_sub(p + 1)).collect();
                let op = between.trim();
                if matches!(op, "." | "+" | ".." | "++" | "<>" | "&" | "^") {
                    return true;
                }
            }
        } else {
            previous = Some(i);
        }
        closing = !closing;
    }
    false
}

/// Code that runs a program whose name it computes: `` `$c` ``, `qx{$c}`, `%x(#{c})`, a call
/// through a variable (`$f("x")`), or a run call given something other than a literal
/// (`system($cmd)`, `os.system(cmd)`, `exec $x`, `eval $code`).
fn runs_computed(code: &str, bare_words: bool) -> bool {
    let chars = blank_strings(code);
    let at = |i: usize| chars.get(i).copied();
    let ident = |c: char| c.is_alphanumeric() || c == '_';
    let mut i = 0;
    while let Some(c) = at(i) {
        // Backticks and quote-like run operators whose body interpolates.
        let body_from = match c {
            '`' => Some((i + 1, '`')),
            'q' if at(i + 1) == Some('x') && !i.checked_sub(1).and_then(at).is_some_and(ident) => {
                at(i + 2).and_then(closing).map(|cl| (i + 3, cl))
            }
            '%' if at(i + 1) == Some('x') => at(i + 2).and_then(closing).map(|cl| (i + 3, cl)),
            _ => None,
        };
        if let Some((start, close)) = body_from {
            let body: String = chars.iter().skip(start).take_while(|&&x| x != close).collect();
            if body.contains('$') || body.contains("#{") || body.contains('@') {
                return true;
            }
            i = start + body.chars().count() + 1;
            continue;
        }
        // `$f(…)`, `&$f(…)`: a function named by a variable.
        if c == '$' {
            let mut j = i + 1;
            while at(j).is_some_and(ident) {
                j += 1;
            }
            while at(j).is_some_and(|c| c == ' ') {
                j += 1;
            }
            if j > i + 1 && at(j) == Some('(') {
                return true;
            }
        }
        i += 1;
    }
    let text: String = chars.iter().collect();
    RUN_CALLS.iter().any(|word| {
        text.match_indices(word).any(|(pos, _)| {
            let before = text.get(..pos).and_then(|b| b.chars().last());
            if before.is_some_and(|b| ident(b) || b == '-') {
                return false;
            }
            let rest = text.get(pos + word.len()..).unwrap_or_default();
            computed_argument(rest, word, bare_words)
        })
    })
}

/// Whether what follows a run call is something other than a literal: a name, a variable, a
/// call. In Tcl and expect a bare word is a literal; only `$name` and `[command]` are computed.
fn computed_argument(rest: &str, word: &str, bare_words: bool) -> bool {
    let mut rest = match rest.chars().next() {
        Some('(' | ' ' | '\t') => rest,
        _ => return false,
    };
    if bare_words {
        return rest.trim_start().starts_with(['$', '[']);
    }
    for _ in 0..4 {
        rest = rest.trim_start_matches(|c: char| c == '(' || c == '[' || c.is_whitespace());
        // `eval { … }` is Perl's guarded block, not code built at run time.
        if rest.starts_with('{') && word == "eval" {
            return false;
        }
        rest = rest.trim_start_matches(|c: char| c == '{' || c.is_whitespace());
        let name_len = rest.chars().take_while(|c| c.is_alphanumeric() || *c == '_').count();
        let after = rest.get(name_len..).unwrap_or_default().trim_start();
        // A keyword argument or an object key (`args=[…]`, `{cmd: […]}`): look at its value.
        if name_len > 0
            && (after.starts_with(':') && !after.starts_with("::")
                || after.starts_with('=') && !after.starts_with("=="))
        {
            rest = after.get(1..).unwrap_or_default();
            continue;
        }
        let Some(first) = rest.chars().next() else { return false };
        // A string prefix (`f"…"`, `r'…'`) is still a literal.
        let prefixed = name_len == 1 && matches!(after.chars().next(), Some('"' | '\''));
        return !prefixed && (first.is_alphabetic() || first == '_' || first == '$' || first == '@');
    }
    false
}

/// Code that forks inside a loop without end (`fork while 1`, `while True: os.fork()`, `loop {
/// fork }`) is a fork bomb: it fills the process table and starves the machine.
fn forks_in_a_loop(an: &mut Analysis<'_>, base: &str, code: &str) {
    let forks = code
        .split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .any(|w| matches!(w, "fork" | "forkpty" | "pcntl_fork" | "Fork" | "spawn_link"));
    let loops = ["while", "loop", "until", "for ", "for(", "iter(", "..", "repeat", "forever", "setInterval"]
        .iter()
        .any(|l| code.contains(l));
    if forks && loops {
        an.raise(DE, format!("`{base}` code forks in a loop, a fork bomb that exhausts the machine"));
    }
}
