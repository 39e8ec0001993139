//! Code and configuration that reach a shell by another way: languages the gate does not parse
//! (whose shell escapes are judged as scripts), Windows shells in a guest, and configuration or
//! commands read from standard input whose text can be seen (`ip -batch -`, `ssh -F /dev/stdin`,
//! `curl -K -`, `sftp -b -`, `xargs sh -c`).

use nomos_types::Risk::{ConfigMutation as CM, Destructive as DE};

use super::{quoted_literals, Args};
use crate::shell::{Analysis, Arg, Stdin};

/// Languages the gate does not parse, and the options whose value is code in them.
const FOREIGN: &[(&str, &[&str])] = &[
    ("octave", &["--eval", "-e"]),
    ("octave-cli", &["--eval", "-e"]),
    ("matlab", &["-batch", "-r"]),
    ("R", &["-e"]),
    ("m4", &[]),
    ("gm4", &[]),
    ("dc", &["-e", "--expression"]),
    ("gnuplot", &["-e"]),
    ("maxima", &["--batch-string", "-r", "--run-string"]),
    ("scilab", &["-e"]),
    ("scilab-cli", &["-e"]),
    ("gp", &[]),
    ("lftp", &["-c", "-e"]),
    ("ftp", &[]),
    ("tftp", &["-c"]),
    ("lldb", &["-o", "--one-line", "-O", "--one-line-before-file"]),
];

/// Windows programs run directly in a guest, judged with the Windows vocabulary.
const WINDOWS_TOOLS: &[&str] =
    &["vssadmin", "wbadmin", "bcdedit", "diskpart", "cipher", "wevtutil", "netsh", "wmic", "format", "reg"];

/// Judges what reaches a shell through the program's own language, configuration or input.
pub(super) fn judge(an: &mut Analysis<'_>, base: &str, args: &[Arg], stdin: &Stdin) {
    let a = Args::new(args);
    if let Some((_, valued)) = FOREIGN.iter().find(|(name, _)| *name == base) {
        let only_version =
            matches!(args, [one] if matches!(one.as_static(), Some("--version" | "--help" | "-v" | "-h")));
        if only_version && stdin.texts.is_empty() && !stdin.unknown {
            return;
        }
        let mut codes: Vec<String> = a.values(valued).iter().map(|v| v.shown().to_string()).collect();
        codes.extend(stdin.texts.iter().cloned());
        for code in &codes {
            unparsed_code(an, base, code);
        }
        if matches!(base, "lftp" | "ftp" | "tftp") {
            for code in &codes {
                transfer_commands(an, base, code);
            }
        }
        return;
    }
    // A Windows program named by its path in a guest (`C:\Windows\System32\cmd.exe`, or with the
    // backslashes the shell removed), and Windows' own tools run directly.
    let lower = base.to_ascii_lowercase();
    let tail = lower.rsplit('\\').next().unwrap_or(&lower);
    let windows_name = ["cmd.exe", "powershell.exe", "pwsh.exe"].iter().find(|n| tail.ends_with(*n));
    let base = match windows_name {
        Some(name) => name,
        None => base,
    };
    let tool = tail.trim_end_matches(".exe").trim_end_matches(".com");
    if WINDOWS_TOOLS.contains(&tool) {
        let words: Vec<&str> = args.iter().map(Arg::shown).collect();
        windows(an, base, &format!("{tool} {}", words.join(" ")), 0);
    }
    match base {
        // `newgrp GROUP` starts a shell, which reads its commands from the input.
        "newgrp" if !stdin.texts.is_empty() || stdin.unknown => super::script_from_stdin(an, base, stdin),
        "sg" if a.operands(&[]).len() <= 1 && (!stdin.texts.is_empty() || stdin.unknown) => {
            super::script_from_stdin(an, base, stdin)
        }
        // Vim in ex mode reads its commands from the input, as ex does.
        "vim" | "vi" | "nvim" | "view" if !a.any(&["-e", "-es", "-E", "-Es"]) => {}
        "ed" | "red" | "ex" | "vim" | "vi" | "nvim" | "view" => {
            for text in &stdin.texts {
                for line in text.lines() {
                    shell_escape(an, base, line);
                }
            }
        }
        "make" | "gmake" | "bmake" | "pmake" => make(an, base, &a, stdin),
        "ip" => ip_batch(an, &a, stdin),
        "ssh" => {
            ssh_config(an, &a, stdin);
            remote_shell_input(an, &a, stdin);
        }
        // A shell opened without a command (`su -`, `sudo -s`, `script`) reads the input as its
        // commands.
        "su" | "runuser" if !a.any(&["-c", "--command", "--session-command"]) => shell_input(an, base, &a, stdin),
        "sudo" | "doas" if a.any(&["-s", "--shell", "-i", "--login"]) => {
            let valued = ["-u", "-g", "-C", "-D", "-h", "-p", "-r", "-t", "-U", "-T", "--user", "--group"];
            if a.operands(&valued).is_empty() {
                shell_input(an, base, &a, stdin);
            }
        }
        "script" if !a.any(&["-c", "--command"]) => shell_input(an, base, &a, stdin),
        "apt" | "apt-get" | "aptitude" => {
            // APT's hooks given as options run their value as a shell command — an update's hooks
            // when it updates, dpkg's when it installs or removes.
            let words: Vec<&str> = a
                .operands(&["-o", "--option", "-c", "--config-file", "-t"])
                .iter()
                .filter_map(|w| w.as_static())
                .collect();
            let updates = words.contains(&"update");
            let installs = words.iter().any(|w| {
                matches!(
                    *w,
                    "install"
                        | "reinstall"
                        | "remove"
                        | "purge"
                        | "upgrade"
                        | "full-upgrade"
                        | "dist-upgrade"
                        | "autoremove"
                        | "autopurge"
                        | "build-dep"
                        | "safe-upgrade"
                )
            });
            for option in a.values(&["-o", "--option"]) {
                if let Some((key, command)) = option.shown().split_once('=') {
                    let runs = if key.contains("Update") { updates } else { installs };
                    if runs && (key.contains("Invoke") || key.contains("Pre-Install-Pkgs")) {
                        an.raise(CM, format!("`{base}` runs the hook `{key}`"));
                        an.script(command.trim_matches(['"', '{', '}', ';', ' ']));
                    }
                }
            }
        }
        "curl" => curl_config(an, args, stdin),
        "sftp" => {
            let batch = a.value(&["-b"]).map(|b| b.shown().to_string());
            if batch.as_deref().is_some_and(reads_input) {
                for text in &stdin.texts {
                    transfer_commands(an, "sftp", text);
                }
            }
        }
        "redis-cli" | "valkey-cli" | "keydb-cli" if a.long("--pipe") => {
            for line in stdin.texts.iter().flat_map(|t| t.lines()) {
                let mut argv = vec![Arg::Static(base.to_string())];
                argv.extend(line.split_whitespace().map(|w| Arg::Static(w.trim_matches('"').to_string())));
                if argv.len() > 1 {
                    an.run(&argv, &Stdin::default());
                }
            }
        }
        "xargs" => xargs(an, &a, stdin),
        "cmd" | "cmd.exe" | "CMD" | "CMD.EXE" => {
            let words: Vec<&str> = args.iter().map(Arg::shown).collect();
            let start = words.iter().position(|w| matches!(w.to_ascii_lowercase().as_str(), "/c" | "/k" | "/r"));
            if let Some(start) = start {
                let text = words.get(start + 1..).unwrap_or_default().join(" ");
                windows(an, base, &text, 0);
            }
        }
        "powershell" | "pwsh" | "powershell.exe" | "pwsh.exe" => {
            let words: Vec<&str> = args.iter().map(Arg::shown).collect();
            let text = powershell_command(&words);
            windows(an, base, &text, 0);
            for text in &stdin.texts {
                windows(an, base, text, 0);
            }
        }
        // A guest's file read by the bash builtin's name: Windows' `type` prints the file.
        "type" => {
            for arg in args.iter().map(Arg::shown) {
                if windows_path(arg) && windows_secret(arg) {
                    an.raise_secret(CM, format!("`type` prints `{arg}`, which holds credentials"));
                }
            }
        }
        _ => {}
    }
}

/// Whether an option's value names standard input.
fn reads_input(v: &str) -> bool {
    matches!(v, "-" | "/dev/stdin" | "/dev/fd/0" | "/proc/self/fd/0")
}

/// Code in a language the gate does not parse: never read-only, and read at the worst its shell
/// escapes could do — every quoted string, every call's argument and every line is judged as a
/// shell script, and a line's `!` escape as the command it runs.
pub(crate) fn unparsed_code(an: &mut Analysis<'_>, base: &str, code: &str) {
    if code.trim().is_empty() {
        return;
    }
    an.raise(CM, format!("`{base}` runs code in a language that cannot be judged"));
    super::code_literals(an, base, code);
    for literal in quoted_literals(code) {
        an.script(literal.trim().trim_start_matches(['|', '<', '!']).trim());
    }
    for argument in call_arguments(code) {
        an.script(&argument);
    }
    // Strings joined into one command (`["re", "boot"]`, `paste0("re", "boot")`).
    let literals = quoted_literals(code);
    if (2..=8).contains(&literals.len()) {
        an.script(&literals.concat());
    }
    for line in code.lines().take(200) {
        shell_escape(an, base, line);
        // A debugger's or client's `shell CMD` (`platform shell reboot`).
        if let Some((_, command)) = line.split_once("shell ") {
            an.script(command.trim().trim_matches(['"', '\'', ')', ';']));
        }
        let t = line.trim();
        if !t.is_empty() && !t.starts_with(['#', '%']) {
            an.script(t);
        }
    }
}

/// The text inside each `name(…)` of code, without m4's or other languages' quotes
/// (`syscmd(reboot)`, ``esyscmd(`zpool destroy tank')``, `system("qm stop 100")`).
fn call_arguments(code: &str) -> Vec<String> {
    let mut out = Vec::new();
    let chars: Vec<char> = code.chars().collect();
    for (i, c) in chars.iter().enumerate() {
        if *c != '(' || i == 0 || !chars.get(i - 1).is_some_and(|p| p.is_alphanumeric() || *p == '_') {
            continue;
        }
        let mut depth = 0usize;
        let mut inner = String::new();
        for d in chars.iter().skip(i + 1) {
            match d {
                '(' => depth += 1,
                ')' if depth == 0 => break,
                ')' => depth -= 1,
                _ => {}
            }
            inner.push(*d);
        }
        let inner = inner.trim().trim_matches(['`', '\'', '"', '[', ']', ' ']).to_string();
        if !inner.is_empty() {
            out.push(inner);
        }
        if out.len() >= 32 {
            break;
        }
    }
    out
}

/// A line's shell escape: `!cmd` (ed, ex, dc, ftp, octave, gnuplot), `w !cmd`, `r !cmd`, `e !cmd`.
fn shell_escape(an: &mut Analysis<'_>, base: &str, line: &str) {
    let Some((before, command)) = line.split_once('!') else { return };
    let before = before.trim();
    // `!` leads the line, follows an ed/ex command letter or address, or follows dc's stack.
    let escape = before.is_empty()
        || before.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, ',' | '.' | '$' | ' ' | ':' | '+' | '-'));
    if escape && !command.trim().is_empty() && !command.starts_with('=') {
        an.raise(CM, format!("`{base}` runs a shell command"));
        an.script(command.trim());
    }
}

/// Commands of a file-transfer client (`sftp -b -`, `lftp -c`, `ftp` on its input): removals,
/// uploads and renames are judged as the same acts on files; `!cmd` runs a local shell command.
fn transfer_commands(an: &mut Analysis<'_>, base: &str, text: &str) {
    for line in text.lines().flat_map(|l| l.split(';')) {
        let t = line.trim().trim_start_matches(['-', '@']);
        let words: Vec<&str> = t.split_whitespace().collect();
        let Some((verb, rest)) = words.split_first() else { continue };
        let operands: Vec<Arg> =
            rest.iter().filter(|w| !w.starts_with('-')).map(|w| Arg::Static((*w).to_string())).collect();
        let as_local = match verb.to_ascii_lowercase().as_str() {
            "rm" | "del" | "delete" | "mdelete" | "mrm" => Some("rm"),
            "rmdir" => Some("rmdir"),
            "put" | "reput" | "mput" | "append" => Some("cp"),
            "rename" | "mv" => Some("mv"),
            "chmod" => Some("chmod"),
            "chown" | "chgrp" => Some("chown"),
            "ln" | "symlink" => Some("ln"),
            "shell" | "system" => {
                an.raise(CM, format!("`{base}` runs a shell command"));
                an.script(&rest.join(" "));
                None
            }
            _ => None,
        };
        if let Some(program) = as_local {
            an.raise(CM, format!("`{base}` changes files on the other machine (`{verb}`)"));
            let mut argv = vec![Arg::Static(program.to_string())];
            if program == "rm" && words.iter().any(|w| *w == "-r" || *w == "-rf") {
                argv.push(Arg::Static("-r".into()));
            }
            argv.extend(operands);
            an.run(&argv, &Stdin::default());
        }
        shell_escape(an, base, line);
    }
}

/// `make -f -` or a makefile on the input: its recipes are shell text it runs.
fn make(an: &mut Analysis<'_>, base: &str, a: &Args<'_>, stdin: &Stdin) {
    let files: Vec<String> = a.values(&["-f", "--file", "--makefile"]).iter().map(|f| f.shown().to_string()).collect();
    if !files.iter().any(|f| reads_input(f)) || a.any(&["-n", "--dry-run", "--just-print", "--recon"]) {
        return;
    }
    if stdin.unknown && stdin.texts.is_empty() {
        an.raise(DE, format!("`{base}` runs recipes from an input it cannot see"));
    }
    for text in &stdin.texts {
        an.raise(CM, format!("`{base}` runs the recipes of a makefile on its input"));
        for line in text.lines() {
            // A recipe line starts with a tab; `$(shell …)` runs anywhere.
            if let Some(recipe) = line.strip_prefix('\t') {
                an.script(recipe.trim_start_matches(['@', '-', '+']));
            } else if let Some((_, after)) = line.split_once(';').filter(|(target, _)| target.contains(':')) {
                an.script(after);
            }
            if let Some((_, call)) = line.split_once("$(shell ") {
                an.script(call.trim_end().trim_end_matches(')'));
            }
        }
    }
}

/// `ip -batch -` and `ip -b /dev/stdin`: each line of the input is an `ip` command.
fn ip_batch(an: &mut Analysis<'_>, a: &Args<'_>, stdin: &Stdin) {
    let Some(file) = a.value(&["-batch", "-b", "--batch"]) else { return };
    if !reads_input(file.shown()) {
        return;
    }
    for line in stdin.texts.iter().flat_map(|t| t.lines()) {
        let words: Vec<Arg> = line.split_whitespace().map(|w| Arg::Static(w.to_string())).collect();
        if words.is_empty() || line.trim_start().starts_with('#') {
            continue;
        }
        let mut argv = vec![Arg::Static("ip".into())];
        argv.extend(words);
        an.run(&argv, &Stdin::default());
    }
}

/// `ssh -F /dev/stdin`: the commands its configuration runs (`ProxyCommand`, `LocalCommand`,
/// `KnownHostsCommand`, `Match exec`) are judged as written.
fn ssh_config(an: &mut Analysis<'_>, a: &Args<'_>, stdin: &Stdin) {
    let Some(file) = a.value(&["-F"]) else { return };
    if !reads_input(file.shown()) {
        return;
    }
    for line in stdin.texts.iter().flat_map(|t| t.lines()) {
        let t = line.trim();
        let (key, value) = t.split_once(|c: char| c.is_whitespace() || c == '=').unwrap_or((t, ""));
        let value = value.trim_start_matches(|c: char| c.is_whitespace() || c == '=').trim();
        let key = key.to_ascii_lowercase();
        if matches!(key.as_str(), "proxycommand" | "localcommand" | "knownhostscommand") && value != "none" {
            super::run_given(an, &format!("ssh's `{key}`"), value);
        } else if key == "match" {
            if let Some((_, command)) = value.split_once("exec") {
                super::run_given(an, "ssh's `Match exec`", command.trim().trim_matches('"'));
            }
        }
    }
}

/// `curl -K -`: each line of the input is an option, judged as if given on the command line.
fn curl_config(an: &mut Analysis<'_>, args: &[Arg], stdin: &Stdin) {
    let a = Args::new(args);
    if !a.values(&["-K", "--config"]).iter().any(|f| reads_input(f.shown())) {
        return;
    }
    let mut argv = vec![Arg::Static("curl".into())];
    let mut k = 0;
    while let Some(arg) = args.get(k) {
        let s = arg.shown();
        if s == "-K" || s == "--config" {
            k += 2;
            continue;
        }
        if !s.starts_with("--config=") {
            argv.push(arg.clone());
        }
        k += 1;
    }
    let before = argv.len();
    for line in stdin.texts.iter().flat_map(|t| t.lines()) {
        let t = line.trim();
        if t.is_empty() || t.starts_with('#') {
            continue;
        }
        let (key, value) = t.split_once(|c: char| c.is_whitespace() || c == '=' || c == ':').unwrap_or((t, ""));
        let value = value.trim_start_matches(|c: char| c.is_whitespace() || c == '=' || c == ':').trim();
        let key = key.trim_start_matches('-');
        let option = if key.chars().count() == 1 { format!("-{key}") } else { format!("--{key}") };
        argv.push(Arg::Static(option));
        if !value.is_empty() {
            argv.push(Arg::Static(value.trim_matches('"').to_string()));
        }
    }
    if argv.len() > before {
        an.run(&argv, &Stdin::default());
    }
}

/// `xargs` with input that can be seen: each item is put into its command as xargs would, and the
/// command then judged (`xargs -I{} sh -c '{}' <<< reboot` runs `reboot`).
fn xargs(an: &mut Analysis<'_>, a: &Args<'_>, stdin: &Stdin) {
    if stdin.texts.is_empty() {
        return;
    }
    const VALUED: &[&str] =
        &["-a", "--arg-file", "-d", "--delimiter", "-E", "-I", "-L", "-n", "--max-args", "-P", "--max-procs", "-s"];
    let replace = a.value(&["-I"]).map(|r| r.shown().to_string()).or_else(|| {
        a.options().find_map(|o| {
            o.strip_prefix("--replace").map(|r| r.trim_start_matches('=')).or_else(|| o.strip_prefix("-i")).map(|r| {
                if r.is_empty() {
                    "{}".to_string()
                } else {
                    r.to_string()
                }
            })
        })
    });
    // The command starts at the first operand.
    let start = a.operands(VALUED).first().and_then(|first| a.all.iter().position(|x| std::ptr::eq(x, *first)));
    let Some(start) = start else { return };
    let command = a.tail_from(start);
    let null = a.any(&["-0", "--null"]) || a.options().any(|o| !o.starts_with("--") && o.contains('0'));
    let delimiter = a.value(&["-d", "--delimiter"]).map(|d| d.shown().replace("\\n", "\n"));
    for text in stdin.texts.iter().take(4) {
        let items: Vec<String> = if null {
            // `printf 'a\0b'` may be seen as its format, with the NUL still written `\0`.
            let separator = if text.contains('\0') { "\0" } else { "\\0" };
            text.split(separator).filter(|w| !w.is_empty()).map(str::to_string).collect()
        } else if let Some(d) = delimiter.as_deref().filter(|d| !d.is_empty()) {
            text.split(d).filter(|w| !w.is_empty()).map(str::to_string).collect()
        } else if replace.is_some() {
            text.lines().filter(|w| !w.trim().is_empty()).map(|l| l.trim().to_string()).collect()
        } else {
            text.split_whitespace().map(str::to_string).collect()
        };
        if items.is_empty() {
            continue;
        }
        match &replace {
            Some(r) => {
                for item in items.iter().take(16) {
                    let argv: Vec<Arg> = command
                        .iter()
                        .map(|w| match w.as_static() {
                            Some(s) if s.contains(r.as_str()) => Arg::Static(s.replace(r.as_str(), item)),
                            _ => w.clone(),
                        })
                        .collect();
                    an.run(&argv, &Stdin::default());
                }
            }
            None => {
                let mut argv = command.to_vec();
                argv.extend(items.into_iter().take(64).map(Arg::Static));
                an.run(&argv, &Stdin::default());
            }
        }
    }
}

/// Whether a word is a Windows path (`C:\Users\…`, `\\server\share`).
fn windows_path(w: &str) -> bool {
    let mut chars = w.chars();
    let drive = chars.next().is_some_and(|c| c.is_ascii_alphabetic()) && chars.next() == Some(':');
    drive || w.starts_with("\\\\")
}

/// Whether a Windows path holds credentials (the registry's hives, the domain's database, key and
/// password files).
fn windows_secret(w: &str) -> bool {
    let lower = w.to_ascii_lowercase();
    let name = lower.rsplit(['\\', '/']).next().unwrap_or(&lower);
    // Unquoted, the shell drops the backslashes (`C:WindowsSystem32configSAM`): the registry's
    // hives are then known by how the path ends.
    let hive = ["configsam", "configsecurity", "configsystem"].iter().any(|h| lower.ends_with(h));
    hive || matches!(name, "sam" | "security" | "system" | "ntds.dit" | "unattend.xml" | "sysprep.xml" | "web.config")
        || ["secret", "password", "passwd", "credential", ".kdbx", ".pfx", ".pem", ".key", "id_rsa", "id_ed25519"]
            .iter()
            .any(|s| lower.contains(s))
}

/// A Windows command line (`cmd /c …`, `powershell -Command …`), judged with a small vocabulary of
/// what wipes, deletes, stops or cuts off a Windows machine.
fn windows(an: &mut Analysis<'_>, base: &str, text: &str, depth: u32) {
    if depth > 3 || text.trim().is_empty() {
        return;
    }
    an.raise(CM, format!("`{base}` runs a Windows command line"));
    let lower = text.to_ascii_lowercase();
    if lower.contains("-encodedcommand") || lower.split_whitespace().any(|w| w == "-enc" || w == "-ec") {
        an.raise(DE, format!("`{base}` runs an encoded command, which cannot be judged"));
    }
    for statement in lower.split(['&', '|', ';', '\n', '(', ')', '{', '}']) {
        let words: Vec<&str> =
            statement.split_whitespace().map(|w| w.trim_matches(['"', '\'', '@'])).filter(|w| !w.is_empty()).collect();
        let Some((first, rest)) = words.split_first() else { continue };
        let verb = first.trim_end_matches(".exe");
        let has = |flags: &[&str]| rest.iter().any(|w| flags.contains(w));
        // `-Recurse`, abbreviated as PowerShell allows (`-r`, `-rec`).
        let recurse = rest.iter().any(|w| w.len() >= 2 && "-recurse".starts_with(w));
        let why = match verb {
            "format" if rest.iter().any(|w| w.ends_with(':')) => Some("formats a volume"),
            "del" | "erase" if has(&["/s", "/q", "/f"]) => Some("deletes files without asking"),
            "rd" | "rmdir" if has(&["/s"]) => Some("deletes a directory tree"),
            "remove-item" | "ri" | "rm" | "del" | "erase" | "rd" | "rmdir" if recurse => {
                Some("deletes a directory tree")
            }
            "diskpart" => Some("repartitions or cleans disks"),
            "cipher" if has(&["/w"]) || rest.iter().any(|w| w.starts_with("/w:")) => Some("wipes free space"),
            "vssadmin" | "wbadmin" if rest.first().is_some_and(|w| *w == "delete") => {
                Some("deletes backups or shadow copies")
            }
            "wmic" if rest.contains(&"delete") => Some("deletes what it names"),
            "bcdedit"
                if rest.iter().any(|w| {
                    matches!(*w, "/set" | "/delete" | "/deletevalue" | "/import" | "/default" | "/bootsequence")
                }) =>
            {
                Some("changes how the machine boots")
            }
            "shutdown" if !has(&["/a"]) => Some("shuts down or restarts the machine"),
            "clear-disk"
            | "format-volume"
            | "remove-partition"
            | "initialize-disk"
            | "clear-partition"
            | "stop-computer"
            | "restart-computer"
            | "disable-netadapter"
            | "remove-netipaddress"
            | "remove-netroute"
            | "clear-recyclebin"
            | "remove-vmsnapshot"
            | "remove-vm"
            | "remove-volume" => Some("wipes, stops or cuts off the machine"),
            "wevtutil" if rest.first().is_some_and(|w| matches!(*w, "cl" | "clear-log")) => Some("clears event logs"),
            "reg" if rest.first().is_some_and(|w| *w == "delete") => Some("deletes registry keys"),
            "remove-itemproperty" | "remove-localuser" | "remove-aduser" | "disable-localuser" => {
                Some("deletes accounts or settings")
            }
            "netsh" if rest.iter().any(|w| matches!(*w, "disable" | "disabled" | "reset" | "delete")) => {
                Some("cuts or resets the network")
            }
            v if v.starts_with("uninstall-") => Some("uninstalls software"),
            _ => None,
        };
        if let Some(why) = why {
            an.raise(DE, format!("`{base}`: `{verb}` {why}"));
        }
        if verb == "cmd" {
            windows(an, base, &rest.join(" "), depth + 1);
        } else if matches!(verb, "powershell" | "pwsh") {
            windows(an, base, &powershell_command(rest), depth + 1);
        }
        if matches!(verb, "type" | "get-content" | "gc" | "cat" | "copy" | "copy-item") {
            for path in rest.iter().filter(|w| windows_secret(w)) {
                an.raise_secret(CM, format!("`{base}` prints `{path}`, which holds credentials"));
            }
        }
    }
}

/// The command PowerShell is given: the words after `-Command` (or an abbreviation of it), else
/// the words after its options.
fn powershell_command(words: &[&str]) -> String {
    let command = words.iter().position(|w| {
        let w = w.to_ascii_lowercase();
        w.len() >= 2 && "-command".starts_with(w.as_str())
    });
    let rest = match command {
        Some(at) => words.get(at + 1..).unwrap_or_default(),
        None => {
            let at = words.iter().position(|w| !w.starts_with('-')).unwrap_or(words.len());
            words.get(at..).unwrap_or_default()
        }
    };
    rest.join(" ")
}

/// A shell opened without a command, reading its commands from the input.
fn shell_input(an: &mut Analysis<'_>, base: &str, _a: &Args<'_>, stdin: &Stdin) {
    if !stdin.texts.is_empty() || stdin.unknown {
        super::script_from_stdin(an, base, stdin);
    }
}

/// `ssh host bash -s <<< …`: a remote shell without a `-c` script reads the input as its commands.
fn remote_shell_input(an: &mut Analysis<'_>, a: &Args<'_>, stdin: &Stdin) {
    if stdin.texts.is_empty() {
        return;
    }
    let valued = [
        "-b", "-c", "-D", "-E", "-e", "-F", "-I", "-i", "-J", "-L", "-l", "-m", "-O", "-o", "-p", "-Q", "-R", "-S",
        "-W", "-w", "-B",
    ];
    let operands = a.operands(&valued);
    let Some(word) = operands.get(1) else { return };
    let first = word.shown();
    let shell = first.rsplit('/').next().unwrap_or(first);
    let at = a.all.iter().position(|x| std::ptr::eq(x, *word)).unwrap_or(a.all.len());
    let has_script = a.all.iter().skip(at + 1).filter_map(Arg::as_static).any(|w| {
        w.starts_with('-') && !w.starts_with("--") && w.contains('c') || w.contains(' ') || !w.starts_with('-')
    });
    if super::interpreters::SHELLS.contains(&shell) && !has_script {
        for text in &stdin.texts {
            an.script(text);
        }
    }
}
