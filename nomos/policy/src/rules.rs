//! What each program does with its arguments: the read-only allowlist (program, subcommand and
//! flags), what mutates, what destroys, and which programs wrap another command or a script (those
//! are classified by what they run). A program with no rule here is not known to be read-only.

use nomos_types::Risk::{ConfigMutation as CM, Destructive as DE, ReadOnly as RO, ReversibleLow as RL};

use super::paths::{holds_secrets, is_block_device, is_broad, is_harmless_sink, is_irreplaceable, is_precious};
use super::shell::{dangerous_variable, Analysis, Arg, Stdin};

/// Directories whose programs are the system's own (`/usr/bin/cat` is `cat`; `./cat` is not).
#[rustfmt::skip]
const TRUSTED_DIRS: &[&str] = &[
    "/bin", "/usr/bin", "/sbin", "/usr/sbin", "/usr/local/bin", "/usr/local/sbin",
];

/// Programs that look at paths without reading what is in them; secret paths are fine there.
#[rustfmt::skip]
const METADATA_ONLY: &[&str] = &[
    "ls", "stat", "du", "find", "test", "[", "[[", "chmod", "chown", "chgrp", "lsattr", "getfacl", "namei",
    "realpath", "readlink", "basename", "dirname", "ssh-add", "ssh-keygen", "touch", "mkdir", "cd", "pushd", "popd",
];

/// Programs that only read the files named by their operands (and standard input).
#[rustfmt::skip]
const FILE_READERS: &[&str] = &[
    "cat", "tac", "head", "tail", "less", "more", "nl", "wc", "cut", "paste", "join", "comm", "column", "fold",
    "fmt", "expand", "unexpand", "rev", "grep", "egrep", "fgrep", "zgrep", "zegrep", "zfgrep", "rg", "ag", "ack",
    "zcat", "zless", "zmore", "bzcat", "xzcat", "zstdcat", "lzcat", "diff", "diff3", "cmp", "md5sum", "sha1sum",
    "sha224sum", "sha256sum", "sha384sum", "sha512sum", "b2sum", "cksum", "sum", "base32", "od", "hexdump",
    "strings", "jq", "look", "tr", "cat-file",
];

/// Programs that report on the system and change nothing, whatever their arguments.
#[rustfmt::skip]
const INSPECTORS: &[&str] = &[
    "echo", "true", "false", ":", "test", "[", "[[", "sleep", "which", "whereis", "type", "basename", "dirname",
    "seq", "expr", "uname", "whoami", "id", "groups", "who", "w", "users", "last", "lastb", "uptime", "free",
    "nproc", "lscpu", "lsmem", "lsblk", "lspci", "lsusb", "lsmod", "modinfo", "lsof", "lshw", "lsns", "lslocks",
    "lsipc", "lslogins", "dmidecode", "blkid", "findmnt", "ps", "pgrep", "pidof", "pstree", "vmstat", "iostat",
    "mpstat", "pidstat", "sensors", "printenv", "readlink", "realpath", "netstat", "ping", "ping6", "traceroute",
    "traceroute6", "tracepath", "mtr", "dig", "nslookup", "host", "whois", "ls", "dir", "vdir", "du", "df",
    "stat", "file", "locale", "tty", "hostid", "factor", "uuidgen", "cal", "ncal", "pveversion", "pvereport",
    "pveperf", "lsattr", "getfacl", "namei", "arch", "top", "htop", "btop", "atop", "iotop", "iftop", "nethogs",
    "glances", "smem", "numfmt", "ssh-keyscan", "systemd-cgls", "systemd-cgtop", "systemd-detect-virt",
    "lsinitramfs", "dpkg-query", "yes", "tput", "clear", "help", "jobs", "dirs", "caller", "times", "wait", "exit",
    "return", "shift", "getopts", "ulimit", "umask", "fg", "bg", "disown", "logout", "unalias", "complete",
    "arcstat", "arc_summary", "arcstat.py", "lsb_release", "aa-status", "apparmor_status", "sestatus", "virt-what",
];

/// Builtins that store into variables or move the working directory: safe unless the variable
/// changes what later programs run (`read BASH_ENV`, `export 'PATH=…'`).
#[rustfmt::skip]
const SETTERS: &[&str] = &[
    "read", "declare", "typeset", "local", "export", "readonly", "let", "unset", "set", "shopt", "cd", "pushd",
    "popd", "mapfile", "readarray",
];

/// Shells that run a script given with `-c`, by path, or on standard input.
#[rustfmt::skip]
const SHELLS: &[&str] = &[
    "bash", "sh", "dash", "zsh", "ksh", "ash", "mksh", "rbash", "fish", "busybox-sh",
];

/// Interpreters whose inline code cannot be judged.
#[rustfmt::skip]
const INTERPRETERS: &[&str] = &[
    "python", "python2", "python3", "pypy", "pypy3", "perl", "ruby", "node", "nodejs", "deno", "bun", "php", "lua",
    "luajit", "Rscript", "tclsh", "wish", "pwsh", "powershell", "osascript", "groovy", "julia", "expect",
];

/// Programs that are dangerous to the machine as a whole.
#[rustfmt::skip]
const POWER: &[&str] = &[
    "reboot", "shutdown", "poweroff", "halt", "killall5",
];

#[rustfmt::skip]
const SQL_CLIENTS: &[&str] = &[
    "psql", "mysql", "mariadb", "sqlite3", "cockroach",
];

/// The argument list with the helpers every rule needs.
struct Args<'a> {
    all: &'a [Arg],
}

impl<'a> Args<'a> {
    fn new(all: &'a [Arg]) -> Self {
        Args { all }
    }

    /// Static words before `--`.
    /// Option words before `--`. A word computed at run time does not end the options (getopt keeps
    /// reading after it), and its known values that look like options count as options.
    fn options(&self) -> impl Iterator<Item = &'a str> + 'a {
        let end = self.all.iter().position(|a| a.as_static() == Some("--")).unwrap_or(self.all.len());
        self.all[..end].iter().flat_map(|a| a.values()).filter(|s| s.starts_with('-') && *s != "--")
    }

    /// A short option, alone or in a cluster (`-r`, `-rf`, `-fR`).
    fn short(&self, c: char) -> bool {
        self.options().any(|o| {
            !o.starts_with("--")
                && o.len() > 1
                && o[1..].chars().all(|x| x.is_ascii_alphanumeric())
                && o[1..].contains(c)
        })
    }

    /// A long option, bare or with `=value`, also abbreviated: getopt accepts any unique prefix
    /// (`--se` for `--set`). A prefix that is not unique is an error for the program, so treating
    /// every prefix as a match never misses an option that takes effect.
    fn long(&self, name: &str) -> bool {
        self.options().any(|o| long_matches(o, name))
    }

    fn flag(&self, short: char, long: &str) -> bool {
        self.short(short) || self.long(long)
    }

    /// Any of these words before `--` (long ones also abbreviated).
    fn any(&self, words: &[&str]) -> bool {
        self.options().any(|o| words.iter().any(|w| o == *w || (w.starts_with("--") && long_matches(o, w))))
    }

    /// A long option starting with this prefix (`--vacuum-` matches `--vacuum-size=1G`), or an
    /// abbreviation that could stand for one (`--del` for `--delete-after`).
    fn long_prefix(&self, prefix: &str) -> bool {
        self.options().any(|o| {
            let key = o.split('=').next().unwrap_or(o);
            o.starts_with("--") && (key.starts_with(prefix) || (key.len() >= 3 && prefix.starts_with(key)))
        })
    }

    /// Words that are not options, skipping the values of `valued` options. Everything after `--`
    /// is an operand.
    fn operands(&self, valued: &[&str]) -> Vec<&'a Arg> {
        let mut out = Vec::new();
        let mut i = 0;
        let mut after_dashes = false;
        while i < self.all.len() {
            let arg = &self.all[i];
            i += 1;
            if after_dashes {
                out.push(arg);
                continue;
            }
            match arg.as_static() {
                Some("--") => after_dashes = true,
                Some(s) if s.starts_with('-') && s.len() > 1 => {
                    if valued.contains(&s) {
                        i += 1;
                    }
                }
                _ => out.push(arg),
            }
        }
        out
    }

    /// The first operand as a static word (a subcommand), and its index in the list.
    fn sub(&self, valued: &[&str]) -> Option<(usize, &'a str)> {
        let first = *self.operands(valued).first()?;
        let index = self.all.iter().position(|a| std::ptr::eq(a, first))?;
        Some((index, first.as_static()?))
    }

    /// The value of an option: `-o X`, `-oX`, `--out X`, `--out=X`.
    fn value(&self, names: &[&str]) -> Option<Arg> {
        self.values(names).into_iter().next()
    }

    fn values(&self, names: &[&str]) -> Vec<Arg> {
        let mut out = Vec::new();
        let next = |i: usize| self.all.get(i + 1).cloned();
        for (i, a) in self.all.iter().enumerate() {
            let Some(s) = a.as_static() else { continue };
            if s == "--" {
                break;
            }
            for n in names {
                if n.starts_with("--") {
                    if s.starts_with("--") && long_matches(s, n) {
                        match s.split_once('=') {
                            Some((_, v)) => out.push(Arg::Static(v.to_string())),
                            None => out.extend(next(i)),
                        }
                    }
                } else if s == *n {
                    out.extend(next(i));
                } else if n.len() == 2 && s.starts_with('-') && !s.starts_with("--") && s.len() > 2 {
                    // A short option in a cluster takes the rest of the word, or the next word if
                    // it comes last: `-oFILE`, `-so FILE`, `-fsSLo FILE`, `-Fa=@FILE`.
                    let flag = n.as_bytes()[1] as char;
                    if let Some(pos) = s[1..].find(flag).map(|p| p + 1) {
                        let rest = &s[pos + 1..];
                        if rest.is_empty() {
                            out.extend(next(i));
                        } else {
                            out.push(Arg::Static(rest.to_string()));
                        }
                    }
                } else if s.len() > n.len()
                    && s.starts_with(n)
                    && !n.starts_with("--")
                    && n.len() > 2
                    && s.as_bytes()[n.len()] == b'='
                {
                    out.push(Arg::Static(s[n.len() + 1..].to_string()));
                }
            }
        }
        out
    }

    fn tail_from(&self, index: usize) -> &'a [Arg] {
        self.all.get(index..).unwrap_or(&[])
    }
}

/// Whether the long option `o` (maybe `--name=value`, maybe abbreviated) names `name`.
fn long_matches(o: &str, name: &str) -> bool {
    let key = o.split('=').next().unwrap_or(o);
    key == name || (key.starts_with("--") && key.len() >= 3 && name.starts_with(key))
}

/// The program's name as the system knows it, and whether it is the system's program at all.
fn identity(name: &str) -> (&str, bool) {
    match name.rsplit_once('/') {
        None => (name, true),
        Some((dir, base)) => (base, TRUSTED_DIRS.contains(&dir)),
    }
}

/// Judges one program invocation. `name` is the word as written, `args` what follows it.
pub(crate) fn program(an: &mut Analysis<'_>, name: &str, args: &[Arg], stdin: &Stdin) {
    let (base, trusted) = identity(name);
    if !trusted {
        an.raise(CM, format!("runs `{name}` by path, which is not the system's `{base}`"));
    }
    for reason in an.policy.destructive_matches(base, args) {
        an.raise(DE, reason);
    }
    check_secrets(an, base, args);
    let a = Args::new(args);
    rule(an, base, &a, stdin);
    // Each known value of a computed word, in its place (`c=destroy; zfs $c …`).
    let alternatives = with_known_values(args);
    for alt in &alternatives {
        check_secrets(an, base, alt);
        rule(an, base, &Args::new(alt), stdin);
    }
    // A computed word with no known value could be any option or subcommand.
    if !ARGS_DO_NOT_MATTER.contains(&base) {
        if let Some(text) = args.iter().find_map(|x| match x {
            Arg::Dynamic { text, candidates } if candidates.is_empty() => Some(text),
            _ => None,
        }) {
            an.raise(
                CM,
                format!("`{base}` takes a word computed at run time (`{text}`), which could change what it does"),
            );
        }
    }
}

/// Programs whose behaviour no argument can turn into a change.
#[rustfmt::skip]
const ARGS_DO_NOT_MATTER: &[&str] = &[
    "echo", "true", "false", ":", "test", "[", "[[", "sleep", "seq", "expr", "basename", "dirname", "which", "type",
    "pwd", "exit", "return", "wait", "shift", "unset", "local", "declare", "typeset", "export", "readonly", "let",
    "read", "set", "shopt", "cd", "pushd", "popd", "logger", "numfmt", "factor",
];

/// The argument lists obtained by giving each computed word each of its known values (bounded).
fn with_known_values(args: &[Arg]) -> Vec<Vec<Arg>> {
    if !args.iter().any(|a| matches!(a, Arg::Dynamic { candidates, .. } if !candidates.is_empty())) {
        return Vec::new();
    }
    let mut out: Vec<Vec<Arg>> = vec![Vec::new()];
    for arg in args {
        let choices: Vec<Arg> = match arg {
            Arg::Dynamic { candidates, .. } if !candidates.is_empty() => {
                candidates.iter().map(|c| Arg::Static(c.clone())).collect()
            }
            other => vec![other.clone()],
        };
        if out.len() * choices.len() > 16 {
            // Too many combinations: vary one word at a time.
            return args
                .iter()
                .enumerate()
                .filter_map(|(i, a)| match a {
                    Arg::Dynamic { candidates, .. } if !candidates.is_empty() => Some((i, candidates)),
                    _ => None,
                })
                .flat_map(|(i, cands)| {
                    cands.iter().take(16).map(move |c| {
                        let mut v = args.to_vec();
                        v[i] = Arg::Static(c.clone());
                        v
                    })
                })
                .take(64)
                .collect();
        }
        out = out
            .iter()
            .flat_map(|prefix| choices.iter().map(move |c| [prefix.clone(), vec![c.clone()]].concat()))
            .collect();
    }
    out
}

/// Reading, copying or sending a secret is never routine, whatever the program.
fn check_secrets(an: &mut Analysis<'_>, base: &str, args: &[Arg]) {
    if METADATA_ONLY.contains(&base) {
        return;
    }
    let mut skip_next = false;
    for arg in args {
        if skip_next {
            skip_next = false;
            continue;
        }
        // The key an SSH client authenticates with is used, not read out.
        if matches!(base, "ssh" | "scp" | "sftp" | "rsync") && arg.as_static() == Some("-i") {
            skip_next = true;
            continue;
        }
        for value in arg.values() {
            let url_path = super::paths::file_url_path(value);
            let value = url_path.as_deref().unwrap_or(value);
            // `-f/etc/shadow`: a value glued to a short option.
            let value = if value.starts_with('-') && !value.starts_with("--") {
                value.find(['/', '~']).map_or(value, |i| &value[i..])
            } else {
                value
            };
            // `k@/etc/shadow` (curl --variable).
            let value =
                value.split_once('@').filter(|(k, _)| !k.is_empty() && !k.contains('/')).map_or(value, |(_, p)| p);
            // `host:path` for the copy tools.
            let value = match (matches!(base, "scp" | "rsync" | "sftp"), value.split_once(':')) {
                (true, Some((host, path))) if !host.contains('/') => path,
                _ => value,
            };
            let path = value.trim_start_matches('@').trim_start_matches('<');
            // `--file=/etc/shadow`, `name=@/etc/shadow`, `if=/etc/shadow`.
            let path = path
                .rsplit_once("=@")
                .map(|(_, p)| p)
                .or_else(|| path.strip_prefix("if="))
                .or_else(|| path.strip_prefix('-').and_then(|o| o.split_once('=')).map(|(_, p)| p))
                .unwrap_or(path);
            if an.is_secret(path) {
                an.raise_secret(DE, format!("`{base}` touches secret material `{path}`"));
            } else if an.may_be_secret(path) {
                an.raise(CM, format!("`{base}` touches `{path}` in a directory not known before it runs"));
            }
        }
    }
}

/// Services (and their processes) whose loss cuts the operator off or takes the cluster down.
const LIFELINES: &[&str] = &[
    "ssh",
    "sshd",
    "networking",
    "network",
    "systemd-networkd",
    "NetworkManager",
    "pve-firewall",
    "corosync",
    "pve-cluster",
    "pmxcfs",
    "ifupdown2-pre",
    "nftables",
    "iptables",
    "ufw",
    "firewalld",
    "wpa_supplicant",
    "dhclient",
];

fn ro(an: &mut Analysis<'_>, what: impl Into<String>) {
    an.raise(RO, what);
}

/// A file reader: read-only, but a file chosen at run time could be anything.
fn reader(an: &mut Analysis<'_>, base: &str, a: &Args<'_>, valued: &[&str]) {
    // Pagers run their own commands given as `+cmd` (`less '+!reboot'`).
    if matches!(base, "less" | "more" | "zless" | "zmore") && a.all.iter().any(|x| x.shown().starts_with('+')) {
        an.raise(CM, format!("`{base} +…` runs pager commands"));
        for x in a.all.iter().filter_map(Arg::as_static) {
            if let Some(cmd) = x.strip_prefix('+').and_then(|c| c.strip_prefix('!')) {
                an.script(cmd);
            }
        }
    }
    // Programs these readers hand their input to (`diff --diff-program`, `rg --pre`).
    for v in a.values(&["--diff-program", "--pre"]) {
        an.raise(CM, format!("`{base}` runs another program on what it reads"));
        an.run(&[v], &Stdin::default());
    }
    for op in a.operands(valued) {
        if let Arg::Dynamic { text, .. } = op {
            an.raise(CM, format!("`{base}` reads a file named at run time (`{text}`)"));
        }
    }
    // A device anywhere in the words: an option's value may be a file it reads (`-f /dev/sda`).
    for op in a.all.iter() {
        let raw =
            op.values().into_iter().flat_map(|v| [v, v.split_once('=').map_or(v, |(_, p)| p)]).any(is_block_device);
        if raw {
            an.raise_secret(CM, format!("`{base}` reads a raw disk ({}), secrets and all", op.shown()));
        }
    }
    // A recursive read of a directory that holds secrets reads them too.
    let recursive = matches!(base, "rg" | "ag" | "ack")
        || a.flag('r', "--recursive")
        || a.short('R')
        || a.long("--dereference-recursive")
        || (base.contains("grep") && a.values(&["-d", "--directories"]).iter().any(|v| v.shown() == "recurse"));
    if recursive {
        let ops = a.operands(valued);
        // A long literal pattern cannot pull key material out; anything broader reads it all
        // (context lines, several patterns, whole files as one line do).
        let patterns = a.values(&["-e", "--regexp"]);
        let pattern = patterns.first().cloned().or_else(|| ops.first().map(|o| (*o).clone()));
        let literal = pattern
            .as_ref()
            .and_then(Arg::as_static)
            .is_some_and(|p| p.len() >= 6 && p.chars().all(|c| c.is_alphanumeric() || matches!(c, ' ' | '_' | '-')));
        let widened = patterns.len() > 1
            || a.value(&["-f", "--file", "-A", "-B", "-C", "--context", "--after-context", "--before-context"])
                .is_some()
            || a.options().any(|o| {
                o.starts_with("--context")
                    || (!o.starts_with("--")
                        && o[1..]
                            .contains(|c: char| c.is_ascii_digit() || c == 'z' || c == 'A' || c == 'B' || c == 'C'))
            })
            || a.long("--null-data")
            || a.long("--pre-glob")
            || a.long("--passthru");
        let specific = matches!(base, "grep" | "egrep" | "fgrep" | "zgrep" | "rg" | "ag" | "ack")
            && literal
            && !widened
            && !a.flag('v', "--invert-match");
        if !specific {
            recursive_read(an, base, &ops);
        }
    }
    ro(an, format!("`{base}` only reads"));
}

/// Reading (or copying) a whole tree that holds secrets is never routine.
fn recursive_read(an: &mut Analysis<'_>, base: &str, paths: &[&Arg]) {
    for p in paths {
        for v in p.values() {
            if an.resolve(v).iter().any(|r| holds_secrets(r)) {
                an.raise_secret(CM, format!("`{base}` reads the whole of {v}, which holds secrets"));
            }
        }
    }
}

/// Builtins that set variables or move the working directory: judged by the variables they set.
fn setter(an: &mut Analysis<'_>, base: &str, a: &Args<'_>) {
    match base {
        "cd" | "pushd" => an.change_dir(a.operands(&[]).first().copied()),
        "popd" => an.change_dir(Some(&Arg::Dynamic { text: "popd".into(), candidates: Vec::new() })),
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
    if base == "set" && a.all.iter().any(|x| x.shown().contains("history")) {
        an.raise(CM, "`set -o history` records commands that can be replayed");
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

fn unknown(an: &mut Analysis<'_>, base: &str) {
    an.raise(CM, format!("`{base}` is not known to be read-only"));
}

/// Runs the command that starts at `index` (a wrapper's payload), or notes that there is none.
fn wrapped(an: &mut Analysis<'_>, wrapper: &str, a: &Args<'_>, index: Option<usize>, stdin: &Stdin) {
    match index {
        Some(i) if i < a.all.len() => an.run(a.tail_from(i), stdin),
        _ => ro(an, format!("`{wrapper}` without a command only reports")),
    }
}

/// The index of the first operand after options (skipping `valued` options' values); `--` ends the
/// options.
fn command_start(a: &Args<'_>, valued: &[&str]) -> Option<usize> {
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

fn is_identifier(s: &str) -> bool {
    !s.is_empty()
        && s.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
        && !s.starts_with(|c: char| c.is_ascii_digit())
}

/// Runs a script given as text (`bash -c`, `ssh host CMD`, `su -c`).
fn script_arg(an: &mut Analysis<'_>, who: &str, arg: Option<&Arg>) {
    match arg {
        Some(Arg::Static(s)) => an.script(s),
        Some(Arg::Dynamic { text, candidates }) => {
            an.raise(CM, format!("`{who}` runs a script built at run time (`{text}`)"));
            for c in candidates.clone() {
                an.script(&c);
            }
        }
        None => an.raise(CM, format!("`{who}` starts an interactive shell")),
    }
}

/// A shell reading its script from standard input: judge what is known to flow in.
fn script_from_stdin(an: &mut Analysis<'_>, who: &str, stdin: &Stdin) {
    if stdin.unknown || stdin.texts.is_empty() {
        an.raise(CM, format!("`{who}` runs a script it reads from its input, which cannot be seen"));
    }
    for text in stdin.texts.clone() {
        an.script(&text);
    }
}

fn rule(an: &mut Analysis<'_>, base: &str, a: &Args<'_>, stdin: &Stdin) {
    // Tools with a version suffix (`python3.11`, `mkfs.ext4`, `pip3`) share their family's rule.
    let family = base.split_once('.').map(|(f, _)| f).unwrap_or(base);
    match base {
        _ if POWER.contains(&base) => {
            if base == "shutdown" && a.flag('c', "--cancel") {
                an.raise(RL, "`shutdown -c` cancels a scheduled shutdown");
            } else {
                an.raise(DE, format!("`{base}` takes the machine down"));
            }
        }
        _ if SETTERS.contains(&base) => setter(an, base, a),
        _ if FILE_READERS.contains(&base) => {
            reader(an, base, a, &["-e", "-f", "-m", "-A", "-B", "-C", "-n", "-c", "-d"])
        }
        "dmidecode" | "lshw" | "atop" | "sar" if !a.values(&["--dump-bin", "-dump", "-w", "-o"]).is_empty() => {
            for out in a.values(&["--dump-bin", "-dump", "-w", "-o"]) {
                an.write_target(&out, &format!("`{base}` with an output file"));
            }
        }
        "sensors" if a.flag('s', "--set") => an.raise(CM, "`sensors -s` writes limits to the chips"),
        "glances" if a.short('w') || a.long_prefix("--export") || a.long("--webserver") || a.short('s') => {
            an.raise(CM, "`glances` in server or export mode")
        }
        _ if INSPECTORS.contains(&base) => ro(an, format!("`{base}` only reports")),
        "pwd" | "ifquery" | "sar" => ro(an, format!("`{base}` only reports")),
        "tcpdump" => {
            if let Some(cmd) = a.value(&["-z"]) {
                an.raise(CM, "`tcpdump -z` runs a program on each capture file");
                an.run(&[cmd], &Stdin::default());
            }
            for out in a.values(&["-w"]) {
                an.write_target(&out, "`tcpdump -w`");
            }
            ro(an, "`tcpdump` only watches traffic");
        }
        "ipmitool" => ipmitool(an, a),
        "corosync-cfgtool" | "corosync-quorumtool" => {
            let reads: &[&str] = if base == "corosync-cfgtool" {
                &["-s", "-n", "-i", "-b"]
            } else {
                &["-s", "-l", "-i", "-p", "-o", "-a", "-m", "-H"]
            };
            if base == "corosync-cfgtool" && (a.short('k') || a.short('H')) {
                an.raise(DE, "`corosync-cfgtool -k/-H` stops corosync on a node");
            } else if !a.all.is_empty()
                && a.options().all(|o| o.len() > 1 && o[1..].chars().all(|c| reads.contains(&format!("-{c}").as_str())))
            {
                ro(an, format!("`{base}` only reports"));
            } else {
                an.raise(CM, format!("`{base}` with this option changes the cluster"));
            }
        }
        "rados" | "rbd" => ceph_storage(an, base, a),
        "printf" => match a.value(&["-v"]) {
            None => ro(an, "`printf` only prints"),
            Some(Arg::Static(name)) => match dangerous_variable(&name) {
                Some(reason) => an.raise(CM, format!("`printf -v` {reason}")),
                None => ro(an, "`printf -v` only sets a variable"),
            },
            Some(Arg::Dynamic { .. }) => an.raise(CM, "`printf -v` sets a variable named at run time"),
        },
        "hash" => {
            if a.short('p') {
                an.raise(CM, "`hash -p` makes a name run another program");
            } else {
                ro(an, "`hash` only reports");
            }
        }
        "compgen" => {
            if a.short('C') || a.short('F') || a.short('W') {
                an.raise(CM, "`compgen -C/-F/-W` runs or expands commands");
                for v in a.values(&["-C", "-F"]) {
                    an.script(v.shown());
                }
            } else {
                ro(an, "`compgen` only lists");
            }
        }
        "fc" => an.raise(CM, "`fc` re-runs commands from history"),
        "history" => {
            if a.options().any(|o| o.contains(['s', 'w', 'r', 'a', 'n', 'p'])) {
                an.raise(CM, "`history` with this option writes or replays history");
            } else {
                ro(an, "`history` only lists or clears this shell's history");
            }
        }
        "enable" => {
            if a.short('f') {
                an.raise(CM, "`enable -f` loads code into the shell");
            } else {
                ro(an, "`enable` only lists builtins");
            }
        }
        "getent" => match a.operands(&["-s", "--service"]).first().map(|o| o.shown()) {
            Some("shadow" | "gshadow") => an.raise_secret(DE, "`getent shadow` prints password hashes"),
            _ => ro(an, "`getent` only looks up"),
        },
        "ss" => {
            if a.flag('K', "--kill") {
                an.raise(CM, "`ss -K` kills connections");
            } else {
                ro(an, "`ss` only reports");
            }
        }
        "lastlog" => {
            if a.flag('C', "--clear") || a.flag('S', "--set") {
                an.raise(CM, "`lastlog -C/-S` changes login records");
            } else {
                ro(an, "`lastlog` only reports");
            }
        }
        "iperf3" | "iperf" => {
            if a.flag('s', "--server") || a.flag('D', "--daemon") {
                an.raise(CM, format!("`{base} -s` starts a network server"));
            } else {
                ro(an, format!("`{base}` measures throughput"));
            }
        }
        "systemd-analyze" => match a.sub(&["--root", "--image", "-H", "--host", "-M", "--machine"]).map(|(_, s)| s) {
            Some("set-log-level" | "set-log-target") => an.raise(CM, "`systemd-analyze set-log-*` changes the manager"),
            Some("log-level" | "log-target" | "service-watchdogs") if a.operands(&[]).len() > 1 => {
                an.raise(CM, "`systemd-analyze log-level X` changes the manager")
            }
            _ => ro(an, "`systemd-analyze` only reports"),
        },
        "coredumpctl" => match a.sub(&["-o", "--output", "-F", "--field", "-D", "--directory"]).map(|(_, s)| s) {
            Some("debug" | "gdb") => an.raise(CM, "`coredumpctl debug` runs a debugger"),
            _ => {
                if let Some(out) = a.value(&["-o", "--output"]) {
                    an.write_target(&out, "`coredumpctl -o`");
                }
                ro(an, "`coredumpctl` only reports");
            }
        },
        "sshd" => {
            if a.short('T') || a.short('t') || a.short('V') {
                ro(an, "`sshd -T` only checks the configuration");
            } else {
                an.raise(CM, "`sshd` starts an SSH server");
            }
        }
        "chronyc" => {
            const REPORTS: &[&str] = &[
                "tracking",
                "sources",
                "sourcestats",
                "activity",
                "ntpdata",
                "clients",
                "serverstats",
                "rtcdata",
                "smoothing",
                "waitsync",
                "authdata",
                "selectdata",
            ];
            // With `-m` every operand is a command of its own.
            let commands: Vec<&str> = if a.short('m') {
                a.operands(&["-h", "-p"]).iter().map(|o| o.shown().split_whitespace().next().unwrap_or("")).collect()
            } else {
                a.sub(&["-h", "-p"]).map(|(_, s)| s).into_iter().collect()
            };
            match commands.iter().find(|c| !REPORTS.contains(c)) {
                Some(c) => an.raise(CM, format!("`chronyc {c}` changes time sources")),
                None => ro(an, "`chronyc tracking` only reports"),
            }
        }
        "efibootmgr" => {
            if a.options().all(|o| matches!(o, "-v" | "--verbose" | "-q" | "--quiet")) {
                ro(an, "`efibootmgr` only lists boot entries");
            } else {
                an.raise(CM, "`efibootmgr` changes boot entries");
            }
        }
        "multipath" => {
            if !a.all.is_empty() && a.options().all(|o| matches!(o, "-l" | "-ll" | "-v2" | "-v3" | "-d")) {
                ro(an, "`multipath -ll` only lists");
            } else {
                an.raise(CM, "`multipath` changes device maps");
            }
        }
        "apt-cache" => {
            if a.value(&["-o", "--option", "-c", "--config-file"]).is_some() {
                an.raise(CM, "`apt-cache -o` can rewrite caches");
            }
            match a.sub(&["-o", "--option", "-c", "--config-file"]).map(|(_, s)| s) {
                Some("gencaches") => an.raise(CM, "`apt-cache gencaches` writes caches"),
                _ => ro(an, "`apt-cache` only queries"),
            }
        }
        "iconv" | "tree" => {
            for out in a.values(&["-o", "--output"]) {
                an.write_target(&out, &format!("`{base} -o`"));
            }
            reader(an, base, a, &["-f", "-t", "--from-code", "--to-code", "-o", "--output", "-L", "-P", "-I"]);
        }
        _ if SHELLS.contains(&base) => shell(an, base, a, stdin),
        _ if INTERPRETERS.contains(&family) || family.starts_with("python") => interpreter(an, base, a),
        _ if SQL_CLIENTS.contains(&base) => sql_client(an, base, a, stdin),

        // ─── Text tools with a writing mode ───────────────────────────────────────────────
        "sort" => {
            if let Some(out) = a.value(&["-o", "--output"]) {
                an.write_target(&out, "`sort -o`");
            }
            if let Some(prog) = a.value(&["--compress-program"]) {
                an.raise(CM, "`sort --compress-program` runs another program");
                an.run(&[prog], &Stdin::default());
            }
            reader(an, base, a, &["-k", "-t", "-S", "-T", "-o", "--output"]);
        }
        "uniq" | "xxd" => {
            let ops = a.operands(&["-f", "-s", "-w", "-c", "-g", "-l", "-o", "-s"]);
            if let Some(out) = ops.get(1) {
                an.write_target(out, &format!("`{base}` with an output file"));
            }
            reader(an, base, a, &["-f", "-s", "-w", "-c", "-g", "-l", "-o"]);
        }
        "base64" => {
            if let Some(out) = a.value(&["-o", "--output"]) {
                an.write_target(&out, "`base64 -o`");
            }
            reader(an, base, a, &["-w", "-o", "--output", "-i", "--input"]);
        }
        "tee" => {
            let targets = a.operands(&[]);
            if targets.is_empty() {
                ro(an, "`tee` without files only passes its input on");
            }
            for t in targets {
                an.write_target(t, "`tee`");
            }
        }
        "sed" | "gsed" => sed(an, base, a),
        "awk" | "gawk" | "mawk" | "nawk" | "busybox-awk" => awk(an, base, a),
        "yq" => {
            if a.flag('i', "--inplace") {
                an.raise(CM, "`yq -i` edits a file in place");
            }
            reader(an, base, a, &["-o", "-p", "--output-format", "--input-format"]);
        }
        "dd" => dd(an, a),
        "find" => find(an, a, stdin),
        "env" => env(an, a, stdin),
        "hostname" => {
            if a.flag('F', "--file") || !a.operands(&[]).is_empty() {
                an.raise(CM, "`hostname NAME` sets the hostname");
            } else {
                ro(an, "`hostname` only reports");
            }
        }
        "date" => {
            let sets = a.flag('s', "--set")
                || a.operands(&["-d", "--date", "-r", "--reference", "-I"]).iter().any(|o| !o.shown().starts_with('+'));
            if sets {
                an.raise(CM, "`date` with a time sets the clock");
            } else {
                ro(an, "`date` only reports");
            }
        }
        "journalctl" => {
            if a.long_prefix("--vacuum-")
                || a.any(&[
                    "--rotate",
                    "--flush",
                    "--sync",
                    "--relinquish-var",
                    "--smart-relinquish-var",
                    "--setup-keys",
                    "--update-catalog",
                    "--cursor-file",
                ])
            {
                an.raise(CM, "`journalctl` maintenance changes the journal");
            } else {
                ro(an, "`journalctl` only reads logs");
            }
        }
        "dmesg" => {
            if a.flag('C', "--clear")
                || a.flag('c', "--read-clear")
                || a.flag('n', "--console-level")
                || a.flag('D', "--console-off")
                || a.flag('E', "--console-on")
            {
                an.raise(CM, "`dmesg` with this option changes the kernel log");
            } else {
                ro(an, "`dmesg` only reads the kernel log");
            }
        }
        "sysctl" => {
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
        "kill" | "pkill" | "killall" | "skill" => {
            let ops = a.operands(&["-s", "-n", "-u", "-g", "-t", "-P", "-U", "-G", "--signal"]);
            // Numbers as the kernel reads them: `-01` is -1 (every process), `01` is init.
            let pid = |s: &str| s.parse::<i64>().ok();
            let everything = match base {
                "kill" => {
                    a.all.iter().skip(1).chain(ops.iter().copied()).any(|x| matches!(pid(x.shown()), Some(1 | -1)))
                }
                _ => {
                    a.flag('v', "--inverse")
                        || a.values(&["-u", "--euid", "-U", "--uid"]).iter().any(|u| matches!(u.shown(), "root" | "0"))
                        || ops.iter().any(|o| matches!(o.shown(), "." | ".*" | "" | "^" | "init" | "systemd" | "-"))
                }
            };
            // A process named anywhere in the words (`pkill sshd`, `kill $(pidof corosync)`).
            let lifeline = ops.iter().flat_map(|o| {
                let mut words: Vec<String> = o.values().into_iter().map(str::to_string).collect();
                words.push(o.shown().to_string());
                words
            });
            let lifeline = lifeline.into_iter().find(|w| {
                w.split(|c: char| !(c.is_ascii_alphanumeric() || c == '-' || c == '_'))
                    .any(|part| LIFELINES.iter().any(|l| l.eq_ignore_ascii_case(part)))
            });
            let lists = match base {
                "kill" => a.flag('l', "--list") || a.short('L'),
                _ => false,
            };
            if lists || a.all.first().and_then(Arg::as_static) == Some("-0") {
                ro(an, "`kill -l`/`-0` only checks");
            } else if everything {
                an.raise(DE, format!("`{base}` aimed at init or every process takes the machine down"));
            } else if let Some(name) = lifeline {
                an.raise(DE, format!("`{base}` aimed at `{name}` cuts off access or the cluster"));
            } else {
                an.raise(RL, format!("`{base}` signals processes"));
            }
        }
        "renice" | "taskset-p" => an.raise(RL, format!("`{base}` changes a running process's priority")),
        "logger" | "wall" | "write" => an.raise(RL, format!("`{base}` writes a message to users or the log")),
        "mktemp" => {
            if a.flag('u', "--dry-run") {
                ro(an, "`mktemp -u` only prints a name");
            } else {
                an.raise(CM, "`mktemp` creates a file");
            }
        }

        // ─── Wrappers: judged by what they run ────────────────────────────────────────────
        "sudo" | "doas" => sudo(an, base, a, stdin),
        "su" | "runuser" => {
            if let Some(script) = a.value(&["-c", "--command", "--session-command"]) {
                script_arg(an, base, Some(&script));
            } else if let Some(i) = a.all.iter().position(|x| x.as_static() == Some("--")) {
                an.run(a.tail_from(i + 1), stdin);
            } else {
                an.raise(CM, format!("`{base}` without a command opens an interactive shell"));
            }
        }
        "nice" => wrapped(an, base, a, command_start(a, &["-n", "--adjustment"]), stdin),
        "ionice" => {
            if a.flag('p', "--pid") || a.flag('P', "--pgid") || a.flag('u', "--uid") {
                an.raise(RL, "`ionice -p` changes a running process's I/O priority");
            } else {
                wrapped(an, base, a, command_start(a, &["-c", "-n", "--class", "--classdata"]), stdin);
            }
        }
        "timeout" => {
            let start = command_start(a, &["-s", "--signal", "-k", "--kill-after"]);
            // The first operand is the duration.
            wrapped(an, base, a, start.map(|i| i + 1), stdin);
        }
        "nohup" | "setsid" | "time" | "builtin" | "stdbuf" | "chrt" | "numactl" | "caffeinate" | "unbuffer" => {
            let valued = ["-i", "-o", "-e", "--input", "--output", "--error", "-p", "-C", "-N", "-m", "-f", "-o"];
            if base == "time" && a.value(&["-o", "--output"]).is_some() {
                an.raise(CM, "`time -o` writes a file");
            }
            let start = command_start(a, &valued);
            let start = if base == "chrt" { start.map(|i| i + 1) } else { start };
            wrapped(an, base, a, start, stdin);
        }
        "taskset" => {
            if a.flag('p', "--pid") {
                an.raise(RL, "`taskset -p` changes a running process's CPU affinity");
            } else {
                wrapped(an, base, a, command_start(a, &[]).map(|i| i + 1), stdin);
            }
        }
        "command" => {
            if a.short('v') || a.short('V') {
                ro(an, "`command -v` only looks a name up");
            } else {
                wrapped(an, base, a, command_start(a, &[]), stdin);
            }
        }
        "exec" => wrapped(an, base, a, command_start(a, &["-a"]), stdin),
        "busybox" => match a.all.first().and_then(Arg::as_static) {
            Some(applet) if !applet.starts_with('-') => {
                let applet = if applet == "sh" || applet == "ash" { "busybox-sh" } else { applet };
                let mut argv = vec![Arg::Static(applet.to_string())];
                argv.extend_from_slice(a.tail_from(1));
                an.run(&argv, stdin);
            }
            Some(_) | None => ro(an, "`busybox` without an applet only lists"),
        },
        "watch" => {
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
        "xargs" | "parallel" => {
            an.raise(CM, format!("`{base}` runs a command on input it cannot see"));
            let start = command_start(
                a,
                &[
                    "-n",
                    "-L",
                    "-I",
                    "-i",
                    "-d",
                    "-P",
                    "-s",
                    "-a",
                    "-E",
                    "-e",
                    "--max-args",
                    "--max-procs",
                    "-j",
                    "--delimiter",
                ],
            );
            match start {
                Some(i) => an.run(a.tail_from(i), &Stdin::default()),
                None => ro(an, "`xargs` runs `echo` by default"),
            }
        }
        "flock" => {
            if let Some(script) = a.value(&["-c", "--command"]) {
                script_arg(an, base, Some(&script));
            } else {
                let start = command_start(a, &["-w", "--wait", "--timeout", "-E", "--conflict-exit-code"]);
                wrapped(an, base, a, start.map(|i| i + 1), stdin);
            }
        }
        "chroot" | "unshare" | "nsenter" | "systemd-nspawn" => {
            an.raise(CM, format!("`{base}` runs in another root or namespace"));
            let start =
                command_start(a, &["-t", "--target", "-u", "--userspec", "-D", "--directory", "-M", "--machine"]);
            let start = if base == "chroot" { start.map(|i| i + 1) } else { start };
            if let Some(i) = start.filter(|i| *i < a.all.len()) {
                an.run(a.tail_from(i), stdin);
            }
        }
        "strace" | "ltrace" | "perf" | "valgrind" => {
            for out in a.values(&["-o", "--output"]) {
                an.write_target(&out, &format!("`{base} -o`"));
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
        "systemd-run" => {
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
        "script" => {
            an.raise(CM, "`script` writes a typescript file");
            script_arg(an, base, a.value(&["-c", "--command"]).as_ref());
        }
        "sg" => script_arg(an, base, a.operands(&[]).get(1).copied()),
        "at" | "batch" => {
            if a.short('l') || a.short('c') {
                ro(an, format!("`{base} -l` only lists jobs"));
            } else {
                an.raise(CM, format!("`{base}` schedules commands for later"));
                for text in stdin.texts.clone() {
                    an.script(&text);
                }
            }
        }
        "atq" => ro(an, "`atq` only lists jobs"),
        "atrm" => an.raise(CM, "`atrm` removes scheduled jobs"),
        "eval" => {
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
        "source" | "." => {
            an.raise(CM, format!("`{base}` runs a script file"));
            if a.all.first().is_some_and(|f| matches!(f.shown(), "/dev/stdin" | "/proc/self/fd/0" | "-")) {
                script_from_stdin(an, base, stdin);
            }
        }
        "trap" => {
            if a.short('l') || a.short('p') || a.all.is_empty() {
                ro(an, "`trap -l`/`-p` only lists");
            } else {
                ro(an, "`trap` sets a handler");
                if let Some(first) = a.operands(&[]).first() {
                    script_arg(an, base, Some(first));
                }
            }
        }
        "alias" => {
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
        "ssh" => ssh(an, a, stdin),
        "scp" | "sftp" => {
            an.raise(CM, format!("`{base}` copies files between machines"));
            for v in a.values(&["-S", "-o"]) {
                let v = v.shown();
                an.script(
                    v.split_once('=')
                        .filter(|(k, _)| k.to_ascii_lowercase().ends_with("command"))
                        .map_or(v, |(_, c)| c),
                );
            }
        }
        "rsync" if a.value(&["-e", "--rsh", "--rsync-path"]).is_some() => {
            an.raise(CM, "`rsync -e` runs a command of its own");
            for v in a.values(&["-e", "--rsh", "--rsync-path"]) {
                an.script(v.shown());
            }
            let rest: Vec<Arg> = a
                .all
                .iter()
                .filter(|x| {
                    !x.shown().starts_with("-e")
                        && !x.shown().starts_with("--rsh")
                        && !x.shown().starts_with("--rsync-path")
                })
                .cloned()
                .collect();
            rule(an, "rsync-files", &Args::new(&rest), stdin);
        }
        "rsync" | "rsync-files" => {
            let ops = a.operands(&[
                "-e",
                "--rsh",
                "--rsync-path",
                "--exclude",
                "--include",
                "--filter",
                "-f",
                "--log-file",
                "--password-file",
                "--port",
            ]);
            recursive_read(an, "rsync", &ops[..ops.len().saturating_sub(1)]);
            if a.long_prefix("--delete") || a.long("--remove-source-files") {
                an.raise(DE, "`rsync --delete` removes files at the destination");
            } else if a.flag('n', "--dry-run") || a.long("--list-only") {
                ro(an, "`rsync --dry-run` only reports");
            } else {
                an.raise(CM, "`rsync` copies files");
            }
        }

        // ─── Files ────────────────────────────────────────────────────────────────────────
        "rm" | "srm" => rm(an, base, a),
        "shred" | "wipe" => an.raise(DE, format!("`{base}` destroys file contents")),
        "rmdir" | "unlink" => an.raise(CM, format!("`{base}` removes files")),
        "cp" if a.flag('r', "--recursive") || a.short('R') || a.flag('a', "--archive") => {
            let ops = a.operands(&["-t", "--target-directory", "-S", "--suffix"]);
            recursive_read(an, base, &ops[..ops.len().saturating_sub(1)]);
            rule(an, "cp-files", a, stdin);
        }
        "mv" | "cp" | "cp-files" | "install" | "ln" => {
            let ops = a.operands(&[
                "-t",
                "--target-directory",
                "-S",
                "--suffix",
                "-m",
                "--mode",
                "-o",
                "--owner",
                "-g",
                "--group",
            ]);
            let dest = a.value(&["-t", "--target-directory"]).or_else(|| ops.last().map(|o| (*o).clone()));
            if let Some(dest) = dest.as_ref().filter(|d| d.values().iter().any(|p| is_block_device(p))) {
                an.raise(DE, format!("`{base}` overwrites the device {}", dest.shown()));
            } else if let Some(dest) = dest.as_ref().filter(|d| d.values().iter().any(|p| is_irreplaceable(p))) {
                an.raise(DE, format!("`{base}` overwrites {}, which holds guest disks or cluster state", dest.shown()));
            } else if base == "mv" && ops.iter().any(|o| o.values().iter().any(|p| is_broad(p))) {
                an.raise(
                    DE,
                    format!(
                        "`mv` moves a system directory ({})",
                        ops.iter().map(|o| o.shown()).collect::<Vec<_>>().join(" ")
                    ),
                );
            } else if base == "mv" && dest.as_ref().is_some_and(|d| d.values().iter().any(|p| is_harmless_sink(p))) {
                an.raise(DE, "`mv` into /dev/null destroys the file");
            } else {
                an.raise(CM, format!("`{base}` changes files"));
            }
        }
        "mkdir" | "touch" | "mkfifo" | "mknod" | "truncate" | "split" | "csplit" | "dos2unix" | "unix2dos"
        | "chattr" | "setfacl" | "ed" | "ex" | "vi" | "vim" | "nvim" | "nano" | "emacs" | "view" | "pico" | "joe"
        | "mcedit" => {
            if base == "truncate"
                && a.operands(&["-s", "--size", "-r", "--reference"])
                    .iter()
                    .any(|o| o.values().iter().any(|p| is_block_device(p)))
            {
                an.raise(DE, "`truncate` on a device");
            } else if a
                .operands(&["-s", "--size", "-r", "--reference"])
                .iter()
                .any(|o| o.values().iter().any(|p| is_precious(p) || is_irreplaceable(p)))
            {
                an.raise(DE, format!("`{base}` changes guest disks or cluster state"));
            } else {
                an.raise(CM, format!("`{base}` changes files"));
            }
        }
        "chmod" | "chown" | "chgrp" => permissions(an, base, a),
        "tar" | "bsdtar" => tar(an, a),
        "gzip" | "gunzip" | "bzip2" | "bunzip2" | "xz" | "unxz" | "zstd" | "unzstd" | "lz4" | "lzma" | "pigz" => {
            if a.flag('c', "--stdout") || a.flag('l', "--list") || a.flag('t', "--test") || a.long("--to-stdout") {
                reader(an, base, a, &["-S", "--suffix", "-T", "--threads"]);
            } else {
                an.raise(CM, format!("`{base}` replaces files with their (de)compressed form"));
            }
        }
        "unzip" => {
            if a.short('l') || a.short('t') || a.short('v') || a.short('Z') || a.short('p') {
                reader(an, base, a, &[]);
            } else {
                an.raise(CM, "`unzip` extracts files");
            }
        }
        "zip" | "7z" | "rar" | "cpio" | "patch" => {
            if base == "patch" && a.long("--dry-run") {
                ro(an, "`patch --dry-run` only checks");
            } else {
                an.raise(CM, format!("`{base}` writes files"));
            }
        }

        // ─── Disks and filesystems ────────────────────────────────────────────────────────
        _ if family == "mkfs"
            || matches!(
                base,
                "mke2fs"
                    | "mkswap"
                    | "mkdosfs"
                    | "mkntfs"
                    | "mkexfatfs"
                    | "blkdiscard"
                    | "cfdisk"
                    | "gdisk"
                    | "badblocks-w"
            ) =>
        {
            an.raise(DE, format!("`{base}` erases a filesystem or disk"))
        }
        "wipefs" => {
            if a.flag('a', "--all") || a.flag('o', "--offset") || a.flag('t', "--types") {
                if a.flag('n', "--no-act") {
                    ro(an, "`wipefs --no-act` only reports");
                } else {
                    an.raise(DE, "`wipefs` erases filesystem signatures");
                }
            } else {
                ro(an, "`wipefs` without erase options only lists signatures");
            }
        }
        "sgdisk" => {
            let reading = a.flag('p', "--print")
                || a.flag('i', "--info")
                || a.flag('v', "--verify")
                || a.flag('L', "--list-types")
                || a.long("--print-mbr");
            let writing = a.options().any(|o| {
                !matches!(o, "-p" | "--print" | "-i" | "-v" | "--verify" | "-L" | "--list-types" | "--print-mbr")
                    && !o.starts_with("--info")
                    && !o.starts_with("-i")
            });
            if reading && !writing {
                ro(an, "`sgdisk --print` only reads the partition table");
            } else {
                an.raise(DE, "`sgdisk` rewrites a partition table");
            }
        }
        "sfdisk" => {
            let read_opts = [
                "-l",
                "--list",
                "-d",
                "--dump",
                "-s",
                "--show-size",
                "-V",
                "--verify",
                "-J",
                "--json",
                "-g",
                "--show-geometry",
                "--list-free",
                "-F",
                "-q",
                "--quiet",
                "-X",
                "--label",
                "-o",
                "--output",
            ];
            if a.options().next().is_some()
                && a.options().all(|o| {
                    read_opts.iter().any(|r| {
                        o == *r
                            || (r.starts_with("--") && long_matches(o, r))
                            || o.starts_with("--output=")
                            || o.starts_with("--label=")
                    })
                })
            {
                ro(an, "`sfdisk --list` only reads");
            } else {
                an.raise(DE, "`sfdisk` rewrites a partition table");
            }
        }
        "fdisk" => {
            let read_opts =
                ["-l", "--list", "-x", "--list-details", "-o", "--output", "-u", "--units", "-b", "--sector-size"];
            if a.options().next().is_some()
                && a.options().all(|o| {
                    read_opts.iter().any(|r| {
                        o == *r
                            || (r.starts_with("--") && long_matches(o, r))
                            || o.starts_with("--output=")
                            || o.starts_with("--units")
                    })
                })
                && (a.flag('l', "--list") || a.flag('x', "--list-details"))
            {
                ro(an, "`fdisk -l` only reads");
            } else {
                an.raise(DE, "`fdisk` edits a partition table");
            }
        }
        "parted" => {
            let words: Vec<&str> = a.operands(&["-a", "--align"]).iter().map(|o| o.shown()).collect();
            let reading = a.flag('l', "--list")
                || words.iter().skip(1).all(|w| {
                    matches!(
                        *w,
                        "print"
                            | "p"
                            | "unit"
                            | "s"
                            | "B"
                            | "MB"
                            | "GB"
                            | "MiB"
                            | "GiB"
                            | "%"
                            | "free"
                            | "list"
                            | "all"
                    )
                }) && words.len() > 1;
            if reading {
                ro(an, "`parted print` only reads");
            } else {
                an.raise(DE, "`parted` edits a partition table");
            }
        }
        "hdparm" => {
            if a.long_prefix("--security-erase") || a.long_prefix("--trim-sector") || a.short('z') {
                an.raise(DE, "`hdparm` erase/trim destroys data");
            } else if a.options().all(|o| matches!(o, "-I" | "-i" | "-t" | "-T" | "-g" | "-C" | "-v" | "-tT" | "-Tt")) {
                ro(an, "`hdparm -I` only reads");
            } else {
                an.raise(CM, "`hdparm` changes drive settings");
            }
        }
        "smartctl" => {
            if a.flag('t', "--test") {
                an.raise(RL, "`smartctl -t` starts a self-test");
            } else if a.flag('s', "--smart")
                || a.flag('o', "--offlineauto")
                || a.flag('S', "--saveauto")
                || a.long("--set")
            {
                an.raise(CM, "`smartctl` changes drive settings");
            } else {
                ro(an, "`smartctl` only reads drive health");
            }
        }
        "nvme" => match a.sub(&[]).map(|(_, s)| s) {
            Some(
                "format" | "sanitize" | "delete-ns" | "detach-ns" | "write-zeroes" | "dsm" | "write-uncor" | "write"
                | "fw-download" | "fw-commit",
            ) => an.raise(DE, "`nvme` erases, overwrites or reflashes the drive"),
            Some(
                "list" | "smart-log" | "id-ctrl" | "id-ns" | "error-log" | "list-ns" | "list-subsys" | "fw-log"
                | "show-regs" | "version" | "help",
            )
            | None => ro(an, "`nvme` only reads"),
            Some(_) => an.raise(CM, "`nvme` changes the drive"),
        },
        "cryptsetup" => {
            match a.sub(&["--type", "-c", "--cipher", "-s", "--key-size", "-d", "--key-file"]).map(|(_, s)| s) {
                Some("status" | "luksDump" | "isLuks" | "luksUUID" | "tcryptDump" | "bitlkDump") => {
                    ro(an, "`cryptsetup status` only reads")
                }
                Some(
                    "luksFormat" | "erase" | "luksErase" | "luksKillSlot" | "luksRemoveKey" | "reencrypt" | "format",
                ) => an.raise(DE, "`cryptsetup` destroys keys or data"),
                _ => an.raise(CM, "`cryptsetup` changes encrypted volumes"),
            }
        }
        "mdadm" => {
            if a.long("--zero-superblock") || a.long("--create") || a.short('C') {
                an.raise(DE, "`mdadm` create/zero-superblock destroys array data");
            } else if a.flag('D', "--detail")
                || a.flag('E', "--examine")
                || a.flag('Q', "--query")
                || a.long("--detail-platform")
            {
                ro(an, "`mdadm --detail` only reads");
            } else {
                an.raise(CM, "`mdadm` changes an array");
            }
        }
        "lvs" | "vgs" | "pvs" | "lvdisplay" | "vgdisplay" | "pvdisplay" | "lvscan" | "vgscan" | "pvscan"
        | "dmsetup-ls" => ro(an, format!("`{base}` only reports")),
        "lvremove" | "vgremove" | "pvremove" | "lvreduce" | "pvcreate" => {
            an.raise(DE, format!("`{base}` destroys volume data"))
        }
        "lvresize" => {
            let sizes = a.values(&["-L", "--size", "-l", "--extents"]);
            // Without a leading `+` the size is absolute and may be smaller than the volume.
            if sizes.iter().any(|v| !v.shown().starts_with('+')) {
                an.raise(DE, "`lvresize` to a size that may be smaller cuts data off");
            } else {
                an.raise(CM, "`lvresize` grows a logical volume");
            }
        }
        "lvconvert" if a.long("--merge") || a.long("--mergesnapshot") || a.long("--mergethin") => {
            an.raise(DE, "`lvconvert --merge` rolls a volume back to its snapshot")
        }
        "lvcreate" | "lvextend" | "lvchange" | "lvrename" | "lvconvert" | "vgcreate" | "vgextend" | "vgreduce"
        | "vgchange" | "vgrename" | "pvmove" | "pvresize" | "pvchange" => an.raise(CM, format!("`{base}` changes LVM")),
        "dmsetup" => match a.sub(&[]).map(|(_, s)| s) {
            Some("ls" | "info" | "status" | "table" | "deps" | "targets" | "version") => {
                ro(an, "`dmsetup ls` only reads")
            }
            Some("remove" | "remove_all" | "wipe_table") => an.raise(DE, "`dmsetup remove` tears down device mappings"),
            _ => an.raise(CM, "`dmsetup` changes device mappings"),
        },
        "zfs" => zfs(an, a),
        "zpool" => zpool(an, a),
        "btrfs" => {
            let words: Vec<&str> = a.operands(&[]).iter().map(|o| o.shown()).collect();
            match words.as_slice() {
                [g, "delete" | "del" | "d", ..] if g.starts_with("sub") => {
                    an.raise(DE, "`btrfs subvolume delete` destroys data")
                }
                [_, "show" | "list" | "df" | "usage" | "stats" | "status", ..] | ["version" | "--version"] => {
                    ro(an, "`btrfs` only reports")
                }
                _ => an.raise(CM, "`btrfs` changes a filesystem"),
            }
        }
        "mount" => {
            let listing = a.options().all(|o| {
                matches!(o, "-l" | "--show-labels" | "-t" | "--types" | "-v" | "--verbose") || o.starts_with("--types=")
            });
            if listing && a.operands(&["-t", "--types"]).is_empty() {
                ro(an, "`mount` without arguments only lists");
            } else {
                an.raise(CM, "`mount` changes what is mounted");
            }
        }
        "umount" | "swapoff" | "fstrim" | "sync" | "losetup" | "partprobe" | "blockdev" | "resize2fs"
        | "xfs_growfs" | "tune2fs" | "e2fsck" | "fsck" | "xfs_repair" | "zramctl" => {
            if (base == "losetup" && (a.flag('l', "--list") || a.flag('a', "--all") || a.all.is_empty()))
                || (base == "blockdev" && a.options().all(|o| o.starts_with("--get") || o == "--report" || o == "-v"))
                || (base == "sync")
                || (base == "tune2fs" && a.options().all(|o| o == "-l"))
                || (base == "zramctl" && a.operands(&[]).is_empty())
                || (matches!(base, "e2fsck" | "fsck" | "xfs_repair") && a.options().any(|o| o == "-n"))
            {
                ro(an, format!("`{base}` only reports"));
            } else if base == "sync" {
                ro(an, "`sync` flushes buffers");
            } else {
                an.raise(CM, format!("`{base}` changes storage"));
            }
        }
        "swapon" => {
            if a.long("--show") || a.flag('s', "--summary") || a.all.is_empty() {
                ro(an, "`swapon --show` only lists");
            } else {
                an.raise(CM, "`swapon` changes swap");
            }
        }

        // ─── Services, power, system state ────────────────────────────────────────────────
        "systemctl" => systemctl(an, a),
        "service" => match a.operands(&[]).get(1).map(|o| o.shown()) {
            _ if a.long("--status-all") => ro(an, "`service --status-all` only lists"),
            Some("status") => ro(an, "`service status` only reads"),
            Some("start" | "stop" | "restart" | "reload" | "force-reload" | "try-restart" | "condrestart") => {
                an.raise(RL, "`service` starts, stops or restarts a service")
            }
            _ => an.raise(CM, "`service` changes a service"),
        },
        "init" | "telinit" => match a.operands(&[]).first().map(|o| o.shown()) {
            Some("q" | "Q" | "u" | "U") => an.raise(RL, format!("`{base} q` reloads init")),
            _ => an.raise(DE, format!("`{base}` changes the runlevel (halt, reboot or single-user)")),
        },
        "kexec" => {
            if a.flag('e', "--exec") || !a.flag('l', "--load") {
                an.raise(DE, "`kexec` boots another kernel");
            } else {
                an.raise(CM, "`kexec -l` loads a kernel for later");
            }
        }
        "loginctl" => match a.sub(&["-p", "--property", "-H", "-M"]).map(|(_, s)| s) {
            Some("poweroff" | "reboot" | "halt" | "suspend" | "hibernate") => {
                an.raise(DE, "`loginctl` takes the machine down")
            }
            Some(s) if s.starts_with("list") || s.starts_with("show") || s.ends_with("-status") => {
                ro(an, "`loginctl` only reports")
            }
            None => ro(an, "`loginctl` only lists sessions"),
            Some(s)
                if s.starts_with("terminate")
                    || s.starts_with("kill")
                    || s == "lock-session"
                    || s == "lock-sessions" =>
            {
                an.raise(RL, "`loginctl` ends or locks sessions")
            }
            Some(_) => an.raise(CM, "`loginctl` changes login state"),
        },
        "timedatectl" | "hostnamectl" | "localectl" => {
            match a.sub(&["-H", "--host", "-M", "--machine", "-p", "--property"]).map(|(_, s)| s) {
                None
                | Some(
                    "status"
                    | "show"
                    | "list-timezones"
                    | "timesync-status"
                    | "show-timesync"
                    | "list-locales"
                    | "list-keymaps"
                    | "list-x11-keymap-models"
                    | "list-x11-keymap-layouts",
                ) => ro(an, format!("`{base}` only reports")),
                Some(_) => an.raise(CM, format!("`{base}` changes system settings")),
            }
        }
        "hwclock" => {
            if a.flag('r', "--show") || a.long("--get") || a.all.is_empty() {
                ro(an, "`hwclock --show` only reads");
            } else {
                an.raise(CM, "`hwclock` sets a clock");
            }
        }
        "crontab" => {
            if a.short('r') {
                an.raise(DE, "`crontab -r` deletes the whole crontab");
            } else if a.short('l') {
                ro(an, "`crontab -l` only lists");
            } else {
                an.raise(CM, "`crontab` replaces scheduled jobs");
            }
        }
        "modprobe" => {
            if a.flag('n', "--dry-run") || a.flag('c', "--showconfig") || a.long("--show-depends") {
                ro(an, "`modprobe --dry-run` only reports");
            } else {
                an.raise(CM, "`modprobe` loads or unloads kernel modules");
            }
        }
        "rmmod"
        | "insmod"
        | "depmod"
        | "update-initramfs"
        | "update-grub"
        | "grub-install"
        | "proxmox-boot-tool-refresh"
        | "dracut" => an.raise(CM, format!("`{base}` changes the kernel or boot setup")),
        "useradd" | "userdel" | "usermod" | "groupadd" | "groupdel" | "groupmod" | "chpasswd" | "gpasswd"
        | "adduser" | "deluser" | "addgroup" | "delgroup" | "newusers" | "vipw" | "vigr" | "pwck" => {
            an.raise(CM, format!("`{base}` changes accounts"))
        }
        "passwd" | "chage" => {
            if a.flag('S', "--status") || (base == "chage" && a.flag('l', "--list")) {
                ro(an, format!("`{base}` only reports"));
            } else {
                an.raise(CM, format!("`{base}` changes accounts"));
            }
        }
        "visudo" => {
            if a.flag('c', "--check") {
                ro(an, "`visudo -c` only checks");
            } else {
                an.raise(CM, "`visudo` edits sudo rules");
            }
        }
        "faillock" => {
            if a.long("--reset") {
                an.raise(CM, "`faillock --reset` clears lockouts");
            } else {
                ro(an, "`faillock` only reports");
            }
        }

        // ─── Network ──────────────────────────────────────────────────────────────────────
        "ip" => ip(an, a, stdin),
        "ifconfig" => {
            if a.operands(&[]).len() <= 1 {
                ro(an, "`ifconfig` only reports");
            } else {
                an.raise(CM, "`ifconfig` changes an interface");
            }
        }
        "ifup" | "ifdown" | "ifreload" | "dhclient" | "netplan" | "iw" | "iwconfig" | "wpa_cli" => {
            if base == "netplan" && matches!(a.sub(&[]).map(|(_, s)| s), Some("get" | "info" | "status")) {
                ro(an, "`netplan get` only reads");
            } else {
                an.raise(CM, format!("`{base}` changes the network"));
            }
        }
        "route" | "arp" => {
            let changes = a.operands(&[]).iter().any(|o| matches!(o.shown(), "add" | "del" | "delete" | "flush"))
                || a.short('d')
                || a.short('s')
                || a.short('f');
            if changes {
                an.raise(CM, format!("`{base}` changes the network tables"));
            } else {
                ro(an, format!("`{base}` only reports"));
            }
        }
        "brctl" | "bridge" | "tc" => {
            let words: Vec<&str> = a.operands(&[]).iter().map(|o| o.shown()).collect();
            let object_only = base == "bridge" && words.len() == 1;
            if words.iter().any(|w| matches!(*w, "show" | "showmacs" | "showstp" | "list" | "ls" | "monitor"))
                || words.is_empty()
                || object_only
            {
                ro(an, format!("`{base}` only reports"));
            } else {
                an.raise(CM, format!("`{base}` changes the network"));
            }
        }
        "ethtool" => {
            if a.flag('f', "--flash") || a.flag('E', "--change-eeprom") {
                an.raise(DE, "`ethtool` writes NIC firmware or EEPROM");
            } else if a.options().any(|o| {
                matches!(
                    o,
                    "-s" | "-K"
                        | "-G"
                        | "-A"
                        | "-C"
                        | "-L"
                        | "-r"
                        | "-X"
                        | "-N"
                        | "-U"
                        | "-W"
                        | "-p"
                        | "-t"
                        | "--test"
                        | "--reset"
                        | "--identify"
                ) || o.starts_with("--change")
                    || o.starts_with("--set")
                    || o == "--features"
                    || o == "--offload"
            }) {
                an.raise(CM, "`ethtool` changes NIC settings");
            } else {
                ro(an, "`ethtool` only reports");
            }
        }
        "nmcli" => {
            let words: Vec<&str> = a
                .operands(&[
                    "-f",
                    "--fields",
                    "-t",
                    "-m",
                    "--mode",
                    "-c",
                    "--colors",
                    "-e",
                    "--escape",
                    "-g",
                    "--get-values",
                ])
                .iter()
                .map(|o| o.shown())
                .collect();
            let reading = words.is_empty()
                || words.iter().skip(1).all(|w| {
                    matches!(
                        *w,
                        "show"
                            | "status"
                            | "list"
                            | "wifi"
                            | "all"
                            | "permissions"
                            | "logging"
                            | "hostname"
                            | "general"
                            | "s"
                            | "sh"
                    )
                })
                || matches!(words.as_slice(), [_] | ["general" | "g", "status" | "permissions" | "hostname"]);
            if reading
                && !words.iter().any(|w| {
                    matches!(
                        *w,
                        "up" | "down"
                            | "modify"
                            | "add"
                            | "delete"
                            | "reload"
                            | "set"
                            | "off"
                            | "on"
                            | "connect"
                            | "disconnect"
                    )
                })
            {
                ro(an, "`nmcli` only reports");
            } else {
                an.raise(CM, "`nmcli` changes the network");
            }
        }
        "resolvectl" | "systemd-resolve" => {
            match a.sub(&["-i", "--interface", "-t", "--type", "-p", "--protocol"]).map(|(_, s)| s) {
                None
                | Some(
                    "status" | "query" | "statistics" | "service" | "openpgp" | "tlsa" | "monitor" | "show-cache"
                    | "show-server-state",
                ) => ro(an, "`resolvectl` only reports"),
                Some("flush-caches" | "reset-statistics" | "reset-server-features") => {
                    an.raise(RL, "`resolvectl flush-caches` resets caches")
                }
                Some(_) if a.operands(&[]).len() == 1 => ro(an, "`resolvectl` only reports"),
                Some(_) => an.raise(CM, "`resolvectl` changes DNS settings"),
            }
        }
        "networkctl" => match a.sub(&[]).map(|(_, s)| s) {
            None | Some("list" | "status" | "lldp" | "label" | "cat") => ro(an, "`networkctl` only reports"),
            Some(_) => an.raise(CM, "`networkctl` changes the network"),
        },
        "iptables" | "ip6tables" | "iptables-legacy" | "ip6tables-legacy" | "iptables-nft" | "ip6tables-nft"
        | "ebtables" | "arptables" => iptables(an, base, a),
        "iptables-save" | "ip6tables-save" | "nft-list" => ro(an, format!("`{base}` only prints rules")),
        "iptables-restore" | "ip6tables-restore" => {
            if a.flag('t', "--test") {
                ro(an, format!("`{base} --test` only checks"));
            } else if a.flag('n', "--noflush") {
                an.raise(CM, format!("`{base} --noflush` adds firewall rules"));
            } else {
                an.raise(DE, format!("`{base}` flushes and replaces every firewall rule"));
            }
        }
        "nft" => nft(an, a, stdin),
        "ufw" => match a.sub(&[]).map(|(_, s)| s) {
            Some("disable" | "reset") => an.raise(DE, "`ufw disable`/`reset` drops the firewall"),
            Some("status" | "show" | "version" | "--version") | None => ro(an, "`ufw status` only reports"),
            Some("app") if matches!(a.operands(&[]).get(1).map(|o| o.shown()), Some("list" | "info")) => {
                ro(an, "`ufw app list` only reports")
            }
            Some(_) => an.raise(CM, "`ufw` changes the firewall"),
        },
        "pve-firewall" => match a.sub(&[]).map(|(_, s)| s) {
            Some("status" | "compile" | "localnet" | "help") | None => ro(an, "`pve-firewall status` only reports"),
            Some("stop") => an.raise(DE, "`pve-firewall stop` drops the firewall"),
            Some("start" | "restart") => an.raise(RL, "`pve-firewall` restarts the firewall"),
            Some(_) => an.raise(CM, "`pve-firewall` changes the firewall"),
        },
        "firewall-cmd" => {
            if a.long("--panic-on") {
                an.raise(DE, "`firewall-cmd --panic-on` cuts all traffic");
            } else if a.options().all(|o| {
                o == "--state"
                    || o.starts_with("--list")
                    || o.starts_with("--get")
                    || o.starts_with("--query")
                    || o.starts_with("--zone")
                    || o == "--permanent"
            }) {
                ro(an, "`firewall-cmd --list` only reports");
            } else if a.long("--reload") {
                an.raise(RL, "`firewall-cmd --reload` reloads rules");
            } else {
                an.raise(CM, "`firewall-cmd` changes the firewall");
            }
        }
        "curl" => curl(an, a),
        "wget" => {
            let to_stdout = a.values(&["-O", "--output-document"]).iter().any(|v| v.shown() == "-")
                || a.options().any(|o| o == "-qO-" || o == "-O-");
            if let Some(out) = a.value(&["-O", "--output-document"]).filter(|v| v.shown() != "-") {
                an.write_target(&out, "`wget -O`");
            }
            for log in a.values(&["-o", "--output-file", "-a", "--append-output"]) {
                an.write_target(&log, "`wget -o`");
            }
            if a.long_prefix("--post") || a.long("--method") || a.long("--body-data") || a.long("--body-file") {
                an.raise(CM, "`wget` sends data");
            } else if a.long("--spider") || to_stdout {
                ro(an, "`wget` to standard output only reads");
            } else if a.long_prefix("--post") || a.long("--method") || a.long("--body-data") || a.long("--body-file") {
                an.raise(CM, "`wget` sends data");
            } else {
                an.raise(CM, "`wget` writes the download to a file");
            }
        }
        "nc" | "ncat" | "netcat" | "socat" | "telnet" | "openssl-s_server" => {
            if base != "socat" && a.short('z') {
                ro(an, format!("`{base} -z` only checks a port"));
            } else {
                an.raise(CM, format!("`{base}` opens arbitrary network connections"));
            }
        }
        "openssl" => openssl(an, a, stdin),
        "ssh-keygen" => {
            if a.short('l') || a.short('F') || a.short('L') || a.short('y') || a.short('B') {
                ro(an, "`ssh-keygen -l` only reads");
            } else if a.short('R') {
                an.raise(CM, "`ssh-keygen -R` edits known_hosts");
            } else {
                an.raise(CM, "`ssh-keygen` creates or changes keys");
            }
        }
        "ssh-add" => {
            if a.short('l') || a.short('L') {
                ro(an, "`ssh-add -l` only lists");
            } else {
                an.raise(RL, "`ssh-add` changes the agent's keys");
            }
        }
        "certbot" => {
            match a.sub(&["-d", "--domains", "--cert-name", "-m", "--email", "-a", "-i", "-w"]).map(|(_, s)| s) {
                Some("certificates") | None if a.long("--version") || a.sub(&[]).is_some() => {
                    ro(an, "`certbot certificates` only lists")
                }
                Some("renew") if a.long("--dry-run") => ro(an, "`certbot renew --dry-run` only checks"),
                Some("revoke" | "delete") => an.raise(DE, "`certbot revoke`/`delete` destroys certificates"),
                _ => an.raise(CM, "`certbot` issues or changes certificates"),
            }
        }
        "tailscale" => match a.sub(&[]).map(|(_, s)| s) {
            Some("status" | "ip" | "netcheck" | "version" | "ping" | "whois") | None => {
                ro(an, "`tailscale status` only reports")
            }
            Some(_) => an.raise(CM, "`tailscale` changes the tailnet connection"),
        },
        "wg" => {
            match a.sub(&[]).map(|(_, s)| s) {
                Some("showconf") => an.raise_secret(DE, "`wg showconf` prints private keys"),
                _ if a.all.iter().any(|x| {
                    x.shown().contains("private-key") || x.shown() == "preshared-keys" || x.shown() == "dump"
                }) && matches!(a.sub(&[]).map(|(_, s)| s), Some("show")) =>
                {
                    an.raise_secret(DE, "`wg show … private-key` prints private keys")
                }
                Some("show" | "genpsk" | "pubkey") | None => ro(an, "`wg show` only reports"),
                Some(_) => an.raise(CM, "`wg` changes WireGuard"),
            }
        }
        "wg-quick" | "openvpn" | "zerotier-cli" => {
            if base == "zerotier-cli"
                && matches!(
                    a.sub(&[]).map(|(_, s)| s),
                    Some("info" | "listnetworks" | "listpeers" | "peers" | "status")
                )
            {
                ro(an, "`zerotier-cli info` only reports");
            } else {
                an.raise(CM, format!("`{base}` changes a VPN"));
            }
        }
        "fail2ban-client" => match a.sub(&[]).map(|(_, s)| s) {
            Some("status" | "ping" | "version" | "get" | "banned") | None => {
                ro(an, "`fail2ban-client status` only reports")
            }
            Some(_) => an.raise(CM, "`fail2ban-client` changes bans"),
        },
        "nginx" => match a.value(&["-s"]).as_ref().map(Arg::shown) {
            Some("reload" | "reopen") => an.raise(RL, "`nginx -s reload` reloads the server"),
            Some(_) => an.raise(RL, "`nginx -s` stops the server"),
            None if a.options().all(|o| matches!(o, "-t" | "-T" | "-v" | "-V" | "-q" | "-c" | "-p" | "-g"))
                && a.options().any(|o| matches!(o, "-t" | "-T" | "-v" | "-V")) =>
            {
                ro(an, "`nginx -t` only checks the configuration")
            }
            None => an.raise(CM, "`nginx` starts a server"),
        },
        "apachectl" | "apache2ctl" => match a.sub(&[]).map(|(_, s)| s) {
            Some("configtest" | "-t" | "-S" | "-M" | "status" | "fullstatus" | "-v" | "-V") => {
                ro(an, "`apachectl configtest` only checks")
            }
            _ if a.options().any(|o| matches!(o, "-t" | "-S" | "-M" | "-v" | "-V")) => {
                ro(an, "`apachectl -t` only checks")
            }
            Some("graceful" | "restart" | "stop" | "start" | "graceful-stop") => {
                an.raise(RL, "`apachectl` restarts the server")
            }
            _ => an.raise(CM, "`apachectl` changes the server"),
        },
        "caddy" => match a.sub(&["--config", "--adapter", "--address"]).map(|(_, s)| s) {
            Some("version" | "validate" | "list-modules" | "environ" | "build-info" | "adapt" | "help") => {
                ro(an, "`caddy validate` only checks")
            }
            Some("fmt") if !a.long("--overwrite") && !a.short('w') => ro(an, "`caddy fmt` prints the formatted file"),
            Some("reload" | "stop" | "start" | "run") => an.raise(RL, "`caddy` starts, stops or reloads the server"),
            _ => an.raise(CM, "`caddy` changes the server"),
        },
        "haproxy" => {
            if a.short('c') {
                ro(an, "`haproxy -c` only checks");
            } else {
                an.raise(CM, "`haproxy` starts a server");
            }
        }

        // ─── Packages ─────────────────────────────────────────────────────────────────────
        "apt" | "apt-get" | "aptitude" => apt(an, base, a),
        "apt-mark" => match a.sub(&[]).map(|(_, s)| s) {
            Some(s) if s.starts_with("show") => ro(an, "`apt-mark show*` only lists"),
            _ => an.raise(CM, "`apt-mark` changes package marks"),
        },
        "dpkg" => {
            let reading = a.options().any(|o| {
                matches!(
                    o,
                    "-l" | "--list"
                        | "-L"
                        | "--listfiles"
                        | "-s"
                        | "--status"
                        | "-S"
                        | "--search"
                        | "-p"
                        | "--print-avail"
                        | "--print-architecture"
                        | "--print-foreign-architectures"
                        | "--get-selections"
                        | "-c"
                        | "--contents"
                        | "-I"
                        | "--info"
                        | "-V"
                        | "--verify"
                        | "--audit"
                        | "-C"
                        | "--compare-versions"
                        | "--version"
                        | "--help"
                )
            });
            if reading
                && !a.options().any(|o| {
                    matches!(
                        o,
                        "-i" | "--install"
                            | "-r"
                            | "--remove"
                            | "-P"
                            | "--purge"
                            | "--configure"
                            | "--unpack"
                            | "--set-selections"
                            | "--clear-selections"
                            | "-a"
                    )
                })
            {
                ro(an, "`dpkg -l` only reports");
            } else {
                an.raise(CM, "`dpkg` installs or removes packages");
            }
        }
        "dpkg-reconfigure"
        | "snap"
        | "flatpak"
        | "pip"
        | "pip3"
        | "pipx"
        | "npm"
        | "yarn"
        | "pnpm"
        | "gem"
        | "cargo"
        | "go"
        | "make"
        | "cmake"
        | "ninja"
        | "meson"
        | "unattended-upgrade"
        | "unattended-upgrades" => {
            let sub = a.sub(&[]).map(|(_, s)| s);
            let reading = match base {
                "snap" | "flatpak" => {
                    matches!(sub, Some("list" | "info" | "version" | "find" | "search" | "changes" | "services"))
                }
                "pip" | "pip3" | "pipx" => {
                    matches!(sub, Some("list" | "show" | "freeze" | "check" | "search" | "--version" | "index"))
                }
                "npm" | "yarn" | "pnpm" => {
                    matches!(
                        sub,
                        Some("ls" | "list" | "view" | "info" | "outdated" | "--version" | "-v" | "why" | "audit")
                    ) && !a.long("--fix")
                }
                "unattended-upgrade" | "unattended-upgrades" => a.long("--dry-run"),
                _ => false,
            };
            if reading {
                ro(an, format!("`{base} {}` only reports", sub.unwrap_or("")));
            } else {
                an.raise(CM, format!("`{base}` installs, builds or changes software"));
            }
        }

        // ─── Containers, VMs, Proxmox ─────────────────────────────────────────────────────
        "docker" | "podman" | "nerdctl" => docker(an, base, a, stdin),
        "docker-compose" | "podman-compose" => compose(an, base, a, 0, stdin),
        "pct" => pct(an, a, stdin),
        "qm" => qm(an, a, stdin),
        "qmrestore" | "pct-restore" => {
            if a.long("--force") {
                an.raise(DE, "`qmrestore --force` overwrites an existing guest");
            } else {
                an.raise(CM, "`qmrestore` creates a guest from a backup");
            }
        }
        "vzdump" => an.raise(CM, "`vzdump` writes a backup"),
        "pvesh" => {
            let path =
                a.operands(&["--output-format", "--noproxy"]).get(1).map(|p| p.shown().to_string()).unwrap_or_default();
            let command = a.value(&["--command"]).map(|c| c.shown().to_string()).unwrap_or_default();
            match a.sub(&["--output-format", "--noproxy"]).map(|(_, s)| s) {
                Some("get" | "ls" | "usage" | "help") | None => ro(an, "`pvesh get` only reads the API"),
                Some("delete") => an.raise(DE, "`pvesh delete` removes cluster objects (guests, storage, users)"),
                _ if path.contains("wipedisk") || path.contains("/disks/") && path.contains("init") => {
                    an.raise(DE, "`pvesh` wipes or initialises a disk")
                }
                _ if path.ends_with("/status") && matches!(command.as_str(), "reboot" | "shutdown" | "stop") => {
                    an.raise(DE, "`pvesh … /status --command reboot` takes a node down")
                }
                Some(_) => an.raise(CM, "`pvesh` changes cluster configuration"),
            }
        }
        "pveam" => match a.sub(&[]).map(|(_, s)| s) {
            Some("list" | "available" | "help") | None => ro(an, "`pveam list` only reports"),
            Some(_) => an.raise(CM, "`pveam` downloads or removes templates"),
        },
        "pvesm" => match a.sub(&[]).map(|(_, s)| s) {
            Some("status" | "list" | "path" | "scan" | "help" | "apiinfo") | None => {
                ro(an, "`pvesm status` only reports")
            }
            Some("free") => an.raise(DE, "`pvesm free` deletes a volume"),
            Some(_) => an.raise(CM, "`pvesm` changes storage"),
        },
        "pvecm" => match a.sub(&[]).map(|(_, s)| s) {
            Some("status" | "nodes" | "help") => ro(an, "`pvecm status` only reports"),
            None => ro(an, "`pvecm` without a command prints help"),
            Some("mtunnel") => an.raise(CM, "`pvecm mtunnel` opens a migration tunnel"),
            Some("delnode") => an.raise(DE, "`pvecm delnode` removes a node from the cluster"),
            Some(_) => an.raise(CM, "`pvecm` changes the cluster"),
        },
        "pveum"
        | "pvenode"
        | "pvesr"
        | "ha-manager"
        | "pvesubscription"
        | "pveceph"
        | "ceph"
        | "proxmox-backup-client"
        | "proxmox-backup-manager"
        | "proxmox-boot-tool"
        | "pvescheduler"
        | "pveupgrade" => proxmox_tool(an, base, a),
        "ceph-volume" => match a.operands(&[]).iter().map(|o| o.shown()).collect::<Vec<_>>().as_slice() {
            [_, "zap", ..] => an.raise(DE, "`ceph-volume lvm zap` wipes a disk"),
            [_, "list", ..] | ["inventory", ..] => ro(an, "`ceph-volume list` only reports"),
            _ => an.raise(CM, "`ceph-volume` changes OSD volumes"),
        },
        "lxc-ls" | "lxc-info" | "lxc-config" | "lxc-checkconfig" | "lxc-top" => {
            ro(an, format!("`{base}` only reports"))
        }
        "lxc-attach" => {
            let dashes = a.all.iter().position(|x| x.as_static() == Some("--"));
            match dashes {
                Some(i) if i + 1 < a.all.len() => an.run(a.tail_from(i + 1), stdin),
                _ => an.raise(CM, "`lxc-attach` without a command opens a shell in the container"),
            }
        }
        "lxc-start" | "lxc-stop" | "lxc-freeze" | "lxc-unfreeze" => {
            an.raise(RL, format!("`{base}` starts or stops a container"))
        }
        "lxc-destroy" => an.raise(DE, "`lxc-destroy` deletes a container"),
        "lxc-create" | "lxc-copy" | "lxc-snapshot" | "lxc-execute" | "lxc-console" => {
            an.raise(CM, format!("`{base}` changes containers"))
        }
        "virsh" => virsh(an, a),
        "kubectl" | "oc" => kubectl(an, base, a, stdin),
        "helm" => match a.sub(&["-n", "--namespace", "--kube-context"]).map(|(_, s)| s) {
            _ if a.long("--post-renderer") => an.raise(CM, "`helm --post-renderer` runs a program"),
            Some("list" | "ls" | "status" | "get" | "history" | "show" | "version" | "template" | "search" | "env") => {
                ro(an, "`helm list` only reports")
            }
            Some("uninstall" | "delete" | "del") => an.raise(DE, "`helm uninstall` removes a release"),
            _ => an.raise(CM, "`helm` changes releases"),
        },
        "terraform" | "tofu" => match a.sub(&["-chdir"]).map(|(_, s)| s) {
            _ if a.any(&["-destroy", "--destroy"]) => an.raise(DE, "`terraform -destroy` deletes infrastructure"),
            Some("plan" | "show" | "output" | "validate" | "version" | "providers" | "graph") => {
                ro(an, "`terraform plan` only reports")
            }
            Some("fmt") if a.any(&["-check"]) => ro(an, "`terraform fmt -check` only checks"),
            Some("destroy") => an.raise(DE, "`terraform destroy` deletes infrastructure"),
            _ => an.raise(CM, "`terraform` changes infrastructure"),
        },
        // ─── Version control and databases ────────────────────────────────────────────────
        "git" => git(an, a),
        "pg_dump" | "pg_dumpall" | "mysqldump" | "mariadb-dump" => {
            if let Some(out) = a.value(&["-f", "--file", "-r", "--result-file"]) {
                an.write_target(&out, &format!("`{base}`"));
            } else {
                ro(an, format!("`{base}` to standard output only reads"));
            }
        }
        "pg_restore" => {
            if a.flag('c', "--clean") {
                an.raise(DE, "`pg_restore --clean` drops objects first");
            } else {
                an.raise(CM, "`pg_restore` writes to a database");
            }
        }
        "dropdb" | "dropuser-all" => an.raise(DE, format!("`{base}` drops a database")),
        "createdb" | "createuser" | "dropuser" | "pg_ctl" | "pg_ctlcluster" | "pg_upgradecluster" => {
            if matches!(a.sub(&[]).map(|(_, s)| s), Some("status")) {
                ro(an, format!("`{base} status` only reports"));
            } else {
                an.raise(CM, format!("`{base}` changes database servers"));
            }
        }
        "pg_lsclusters" | "pg_isready" | "pg_controldata" => ro(an, format!("`{base}` only reports")),
        "redis-cli" | "valkey-cli" | "keydb-cli" => redis(an, base, a),
        "mongosh" | "mongo" => {
            let js = a.value(&["--eval"]).map(|v| v.shown().to_lowercase()).unwrap_or_default();
            if js.contains("dropdatabase") || js.contains(".drop(") || js.contains("deletemany({})") {
                an.raise(DE, "`mongosh` drops data");
            } else {
                an.raise(CM, "`mongosh` runs database code");
            }
        }
        "influx" | "clickhouse-client" | "sqlcmd" => an.raise(CM, format!("`{base}` runs database commands")),

        _ => match an.policy.extra_read_only(base, a.all) {
            Some(reason) => ro(an, reason),
            None => unknown(an, base),
        },
    }
}

fn shell(an: &mut Analysis<'_>, base: &str, a: &Args<'_>, stdin: &Stdin) {
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

fn interpreter(an: &mut Analysis<'_>, base: &str, a: &Args<'_>) {
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
fn code_literals(an: &mut Analysis<'_>, base: &str, code: &str) {
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

/// String literals in a piece of code (`'…'` and `"…"`), for finding shell commands hidden in
/// `os.system("…")` and the like.
fn quoted_literals(code: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut chars = code.chars();
    while let Some(c) = chars.next() {
        if c == '"' || c == '\'' {
            let mut lit = String::new();
            let mut escaped = false;
            for d in chars.by_ref() {
                if escaped {
                    lit.push(d);
                    escaped = false;
                } else if d == '\\' {
                    escaped = true;
                } else if d == c {
                    break;
                } else {
                    lit.push(d);
                }
            }
            if !lit.trim().is_empty() {
                out.push(lit);
            }
        }
        if out.len() >= 32 {
            break;
        }
    }
    out
}

fn sudo(an: &mut Analysis<'_>, base: &str, a: &Args<'_>, stdin: &Stdin) {
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

fn env(an: &mut Analysis<'_>, a: &Args<'_>, stdin: &Stdin) {
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

fn ssh(an: &mut Analysis<'_>, a: &Args<'_>, stdin: &Stdin) {
    let valued = [
        "-b", "-c", "-D", "-E", "-e", "-F", "-I", "-i", "-J", "-L", "-l", "-m", "-O", "-o", "-p", "-Q", "-R", "-S",
        "-W", "-w", "-B",
    ];
    for o in a.values(&["-o"]) {
        let v = o.shown().to_ascii_lowercase();
        if ["remoteforward", "localforward", "dynamicforward", "tunnel", "gatewayports"]
            .iter()
            .any(|k| v.starts_with(k))
        {
            an.raise(CM, "`ssh -o …Forward` opens tunnels between machines");
        }
        if v.contains("proxycommand") || v.contains("localcommand") || v.contains("knownhostscommand") {
            an.raise(CM, "`ssh -o …Command` runs a local command");
            if let Some((_, cmd)) = o.shown().split_once(['=', ' ']) {
                an.script(cmd);
            }
        }
    }
    if !a.values(&["-R", "-L", "-D", "-W", "-w"]).is_empty() || a.short('N') && a.short('f') {
        an.raise(CM, "`ssh -R/-L/-D` opens tunnels between machines");
    }
    if a.short('O') {
        return an.raise(RL, "`ssh -O` controls a master connection");
    }
    let ops = a.operands(&valued);
    if stdin.unknown {
        an.raise(CM, "`ssh` sends data from this machine to another");
    }
    match ops.split_first() {
        None => an.raise(CM, "`ssh` without a host"),
        Some((_host, [])) => {
            if stdin.texts.is_empty() {
                an.raise(CM, "`ssh` without a command opens a remote shell");
            } else {
                script_from_stdin(an, "ssh", stdin);
            }
        }
        Some((_host, rest)) => {
            // The remote side joins the words with spaces and hands them to its shell.
            let words: Vec<String> = rest
                .iter()
                .map(|w| w.values().first().map(|s| s.to_string()).unwrap_or_else(|| w.shown().to_string()))
                .collect();
            if rest.iter().any(|w| w.as_static().is_none()) {
                an.raise(CM, "`ssh` runs a remote command built at run time");
            }
            an.script(&words.join(" "));
        }
    }
}

fn rm(an: &mut Analysis<'_>, base: &str, a: &Args<'_>) {
    let recursive = a.short('r') || a.short('R') || a.long("--recursive");
    let force = a.short('f') || a.long("--force");
    let ops = a.operands(&[]);
    let broad: Vec<&str> = ops.iter().flat_map(|o| o.values()).filter(|p| is_broad(p)).collect();
    if a.long("--no-preserve-root") {
        an.raise(DE, format!("`{base} --no-preserve-root` can remove the whole system"));
    }
    if recursive && force {
        an.raise(DE, format!("`{base} -rf` removes recursively without asking"));
    } else if recursive {
        an.raise(DE, format!("`{base} -r` removes directories and everything in them"));
    } else if let Some(p) = broad.first() {
        an.raise(DE, format!("`{base}` removes files from a system directory ({p})"));
    } else if let Some(p) = ops.iter().flat_map(|o| o.values()).find(|p| is_precious(p)) {
        an.raise(DE, format!("`{base}` removes guest or service data ({p})"));
    } else if ops.iter().any(|o| o.as_static().is_none()) {
        an.raise(CM, format!("`{base}` removes files named at run time"));
    } else {
        let names: Vec<&str> = ops.iter().map(|o| o.shown()).collect();
        an.raise(CM, format!("`{base}` removes {}", names.join(" ")));
    }
}

fn permissions(an: &mut Analysis<'_>, base: &str, a: &Args<'_>) {
    let recursive = a.short('R') || a.long("--recursive");
    let ops = a.operands(&["--reference", "--from"]);
    let mode = ops.first().map(|o| o.shown()).unwrap_or_default();
    let targets = ops.get(1..).unwrap_or(&[]);
    let on_broad = targets.iter().flat_map(|t| t.values()).any(is_broad);
    let removes_all = base == "chmod" && (mode.chars().all(|c| c == '0') || mode == "a-rwx" || mode == "ugo-rwx");
    if removes_all && (recursive || on_broad) {
        an.raise(DE, format!("`{base} {mode}` locks everyone out of system files"));
    } else if recursive && on_broad {
        an.raise(DE, format!("`{base} -R` rewrites ownership or permissions of a system directory"));
    } else {
        an.raise(CM, format!("`{base}` changes ownership or permissions"));
    }
}

fn dd(an: &mut Analysis<'_>, a: &Args<'_>) {
    let mut wrote = false;
    for arg in a.all {
        for v in arg.values() {
            if let Some(target) = v.strip_prefix("of=") {
                wrote = true;
                an.write_target(&Arg::Static(target.to_string()), "`dd`");
            }
        }
        if let Arg::Dynamic { text, .. } = arg {
            if text.starts_with("of=") {
                wrote = true;
                an.raise(CM, format!("`dd` writes to a place named at run time (`{text}`)"));
            }
        }
    }
    if !wrote {
        ro(an, "`dd` without `of=` writes to standard output");
    }
}

fn find(an: &mut Analysis<'_>, a: &Args<'_>, stdin: &Stdin) {
    let starts: Vec<&Arg> = a
        .all
        .iter()
        .take_while(|x| x.as_static().is_none_or(|s| !s.starts_with('-') && s != "(" && s != "!"))
        .collect();
    let broad = starts.is_empty() || starts.iter().flat_map(|s| s.values()).any(is_broad);
    let mut i = 0;
    let mut acted = false;
    while i < a.all.len() {
        match a.all[i].as_static() {
            Some("-delete") => {
                acted = true;
                if broad {
                    an.raise(DE, "`find -delete` removes files under a system directory");
                } else {
                    an.raise(CM, "`find -delete` removes files");
                }
            }
            Some(action @ ("-exec" | "-execdir" | "-ok" | "-okdir")) => {
                acted = true;
                let end = a.all[i + 1..]
                    .iter()
                    .position(|x| matches!(x.as_static(), Some(";" | "+" | "\\;")))
                    .map(|p| i + 1 + p)
                    .unwrap_or(a.all.len());
                let inner = &a.all[i + 1..end];
                let inner_name = inner.first().and_then(Arg::as_static).map(|n| identity(n).0).unwrap_or("");
                let runs_rm = inner_name == "rm";
                // What the command does with each file it is given: reading files under a tree that
                // holds secrets reads those secrets.
                if !METADATA_ONLY.contains(&inner_name) && !INSPECTORS.contains(&inner_name) {
                    recursive_read(an, &format!("find {action} {inner_name}"), &starts);
                }
                if runs_rm && broad {
                    an.raise(DE, format!("`find {action} rm` removes files under a system directory"));
                }
                an.run(inner, stdin);
                i = end;
            }
            Some(action @ ("-fprint" | "-fprint0" | "-fprintf" | "-fls")) => {
                acted = true;
                if let Some(target) = a.all.get(i + 1) {
                    an.write_target(target, &format!("`find {action}`"));
                }
            }
            _ => {}
        }
        i += 1;
    }
    if !acted {
        ro(an, "`find` without actions only lists");
    }
}

fn sed(an: &mut Analysis<'_>, base: &str, a: &Args<'_>) {
    let in_place = a.options().any(|o| {
        long_matches(o, "--in-place")
            || (!o.starts_with("--") && o.starts_with('-') && o[1..].contains('i') && !o.contains('='))
    });
    let mut scripts: Vec<Arg> = a.values(&["-e", "--expression"]);
    let from_file = a.value(&["-f", "--file"]).is_some();
    let ops = a.operands(&["-e", "--expression", "-f", "--file", "-l", "--line-length", "-s"]);
    let files = if scripts.is_empty() && !from_file {
        if let Some((first, rest)) = ops.split_first() {
            scripts.push((*first).clone());
            rest.to_vec()
        } else {
            Vec::new()
        }
    } else {
        ops
    };
    if in_place {
        for f in files.iter().filter(|f| f.values().iter().any(|p| is_irreplaceable(p))) {
            an.raise(DE, format!("`{base} -i` edits {}, which holds guest disks or cluster state", f.shown()));
        }
        let names: Vec<&str> = files.iter().map(|f| f.shown()).collect();
        an.raise(
            CM,
            format!(
                "`{base} -i` edits {} in place",
                if names.is_empty() { "files".to_string() } else { names.join(" ") }
            ),
        );
    }
    if from_file {
        an.raise(CM, format!("`{base} -f` runs a script from a file"));
    }
    for script in scripts {
        match script.as_static() {
            Some(s) => sed_script(an, base, s),
            None => an.raise(CM, format!("`{base}` runs a script built at run time")),
        }
    }
    for f in &files {
        if let Arg::Dynamic { text, .. } = f {
            an.raise(CM, format!("`{base}` reads a file named at run time (`{text}`)"));
        }
    }
    if !in_place {
        ro(an, format!("`{base}` prints its result"));
    }
}

/// Looks through a sed script for commands that write files (`w`, `W`, `s///w`), run commands
/// (`e`, `s///e`) or read other files (`r`, `R`).
fn sed_script(an: &mut Analysis<'_>, base: &str, script: &str) {
    let chars: Vec<char> = script.chars().collect();
    let mut i = 0;
    let skip_ws = |i: &mut usize| {
        while *i < chars.len() && (chars[*i] == ' ' || chars[*i] == '\t') {
            *i += 1;
        }
    };
    let rest_of_line = |i: &mut usize| -> String {
        let start = *i;
        while *i < chars.len() && chars[*i] != '\n' && chars[*i] != ';' {
            *i += 1;
        }
        chars[start..*i].iter().collect::<String>().trim().to_string()
    };
    while i < chars.len() {
        skip_ws(&mut i);
        // Addresses: numbers, $, /re/, \cREc, ranges, steps, negation.
        loop {
            skip_ws(&mut i);
            match chars.get(i) {
                Some(c) if c.is_ascii_digit() || *c == '$' || *c == ',' || *c == '~' || *c == '!' || *c == '+' => {
                    i += 1
                }
                Some('/') | Some('\\') => {
                    let delim = if chars[i] == '\\' {
                        i += 1;
                        chars.get(i).copied().unwrap_or('/')
                    } else {
                        '/'
                    };
                    i += 1;
                    while i < chars.len() && chars[i] != delim {
                        if chars[i] == '\\' {
                            i += 1;
                        }
                        i += 1;
                    }
                    i += 1;
                    // Address flags I and M.
                    while matches!(chars.get(i), Some('I' | 'M')) {
                        i += 1;
                    }
                }
                _ => break,
            }
        }
        let Some(&cmd) = chars.get(i) else { break };
        i += 1;
        match cmd {
            's' | 'y' => {
                let Some(&delim) = chars.get(i) else { break };
                i += 1;
                for _ in 0..2 {
                    while i < chars.len() && chars[i] != delim {
                        if chars[i] == '\\' {
                            i += 1;
                        }
                        i += 1;
                    }
                    i += 1;
                }
                if cmd == 's' {
                    while let Some(&f) = chars.get(i) {
                        match f {
                            'w' => {
                                i += 1;
                                let target = rest_of_line(&mut i);
                                an.write_target(&Arg::Static(target), &format!("`{base}` s///w"));
                            }
                            'e' => {
                                an.raise(CM, format!("`{base}` s///e runs the result as a command"));
                                i += 1;
                            }
                            'g' | 'p' | 'i' | 'I' | 'm' | 'M' => i += 1,
                            d if d.is_ascii_digit() => i += 1,
                            _ => break,
                        }
                    }
                }
            }
            'w' | 'W' => {
                let target = rest_of_line(&mut i);
                an.write_target(&Arg::Static(target), &format!("`{base}` w"));
            }
            'e' => {
                let command = rest_of_line(&mut i);
                an.raise(CM, format!("`{base}` e runs a command"));
                an.script(&command);
            }
            'r' | 'R' => {
                let file = rest_of_line(&mut i);
                if an.is_secret(&file) {
                    an.raise_secret(DE, format!("`{base}` reads secret material `{file}`"));
                }
            }
            'a' | 'i' | 'c' | 'b' | 't' | 'T' | ':' | 'l' | 'L' | 'q' | 'Q' => {
                // Text or a label up to the end of the line.
                while i < chars.len() && chars[i] != '\n' {
                    if matches!(cmd, 'b' | 't' | 'T' | 'l' | 'q' | 'Q') && chars[i] == ';' {
                        break;
                    }
                    i += 1;
                }
            }
            '{' | '}' | ';' | '\n' | ' ' | '\t' | '=' | 'd' | 'D' | 'g' | 'G' | 'h' | 'H' | 'n' | 'N' | 'p' | 'P'
            | 'x' | 'z' | 'F' | '#' => {
                if cmd == '#' {
                    while i < chars.len() && chars[i] != '\n' {
                        i += 1;
                    }
                }
            }
            other => {
                an.raise(CM, format!("`{base}` script has a command `{other}` that cannot be judged"));
                break;
            }
        }
    }
}

fn awk(an: &mut Analysis<'_>, base: &str, a: &Args<'_>) {
    let valued = ["-F", "-v", "-f", "--file", "-E", "--exec", "-i", "--include", "-l", "--load", "-o", "-W"];
    if a.values(&["-i", "--include"]).iter().any(|v| v.shown() == "inplace") {
        an.raise(CM, format!("`{base} -i inplace` edits files"));
    }
    let ops = a.operands(&valued);
    let program = if a.value(&["-f", "--file", "-E", "--exec"]).is_some() {
        an.raise(CM, format!("`{base} -f` runs a program from a file"));
        None
    } else {
        ops.first().copied()
    };
    match program.map(|p| p.as_static()) {
        Some(Some(p)) => {
            let code = strip_awk_strings(p);
            if code.contains("system") || code.contains('|') {
                an.raise(CM, format!("`{base}` runs commands (system() or a pipe)"));
                for literal in quoted_literals(p) {
                    an.script(&literal);
                }
            }
            if awk_redirects_output(&code) {
                an.raise(CM, format!("`{base}` writes to a file"));
            }
            // `getline < "/etc/shadow"` reads whatever file the program names.
            for literal in quoted_literals(p) {
                if an.is_secret(literal.trim()) {
                    an.raise_secret(DE, format!("`{base}` reads secret material `{}`", literal.trim()));
                } else if is_block_device(literal.trim()) {
                    an.raise(CM, format!("`{base}` reads the device `{}`", literal.trim()));
                }
            }
            if code.contains("getline") && code.contains('<') {
                an.raise(CM, format!("`{base}` reads a file its program names"));
            }
        }
        Some(None) => an.raise(CM, format!("`{base}` runs a program built at run time")),
        None => {}
    }
    for f in ops.iter().skip(1) {
        if let Arg::Dynamic { text, .. } = f {
            an.raise(CM, format!("`{base}` reads a file named at run time (`{text}`)"));
        }
    }
    ro(an, format!("`{base}` prints its result"));
}

/// awk code with string literals blanked (a `|` or `>` inside a string is not an operator).
fn strip_awk_strings(code: &str) -> String {
    let mut out = String::with_capacity(code.len());
    let mut in_string = false;
    let mut escaped = false;
    for c in code.chars() {
        if in_string {
            if escaped {
                escaped = false;
            } else if c == '\\' {
                escaped = true;
            } else if c == '"' {
                in_string = false;
                out.push('"');
            }
            continue;
        }
        if c == '"' {
            in_string = true;
        }
        out.push(c);
    }
    out
}

/// `print … > "file"` (as opposed to a comparison): a `>` after print/printf in the same statement
/// and outside parentheses.
fn awk_redirects_output(code: &str) -> bool {
    for statement in code.split([';', '\n', '{', '}']) {
        let Some(pos) = statement.find("print") else { continue };
        let mut depth = 0i32;
        for c in statement[pos..].chars() {
            match c {
                '(' => depth += 1,
                ')' => depth -= 1,
                '>' if depth <= 0 => return true,
                _ => {}
            }
        }
    }
    false
}

fn tar(an: &mut Analysis<'_>, a: &Args<'_>) {
    // Old-style bundled flags: `tar czf out.tgz dir`.
    let bundled = a
        .all
        .first()
        .and_then(Arg::as_static)
        .filter(|s| !s.starts_with('-') && s.chars().all(|c| c.is_ascii_alphabetic()))
        .unwrap_or("");
    let has = |short: char, long: &str| a.flag(short, long) || bundled.contains(short);
    if a.long_prefix("--to-command")
        || a.long_prefix("--use-compress-program")
        || a.short('I')
        || a.long_prefix("--checkpoint-action")
        || a.long_prefix("--info-script")
        || a.long_prefix("--new-volume-script")
    {
        an.raise(CM, "`tar` runs another program");
        for v in a.values(&[
            "--to-command",
            "--checkpoint-action",
            "--info-script",
            "--new-volume-script",
            "--use-compress-program",
            "-I",
        ]) {
            let cmd = v.shown().strip_prefix("exec=").unwrap_or(v.shown()).to_string();
            an.script(&cmd);
        }
    }
    if a.long("--remove-files") {
        return an.raise(DE, "`tar --remove-files` deletes what it archives");
    }
    if a.long_prefix("--rsh-command") || a.long_prefix("--rmt-command") {
        an.raise(CM, "`tar --rsh-command` runs another program");
        for v in a.values(&["--rsh-command", "--rmt-command"]) {
            an.script(v.shown());
        }
    }
    // `-f host:file` is a remote archive reached over rsh/ssh.
    let archive =
        a.value(&["-f", "--file"]).or_else(|| if bundled.contains('f') { a.all.get(1).cloned() } else { None });
    if archive
        .as_ref()
        .is_some_and(|f| f.shown().split_once(':').is_some_and(|(h, _)| !h.is_empty() && !h.contains('/')))
        && !a.long("--force-local")
    {
        an.raise(CM, "`tar -f host:file` reaches another machine");
    }
    if has('t', "--list") {
        return ro(an, "`tar -t` only lists");
    }
    if has('x', "--extract")
        || has('r', "--append")
        || has('u', "--update")
        || has('A', "--concatenate")
        || a.long("--delete")
    {
        return an.raise(CM, "`tar` writes files");
    }
    if has('c', "--create") {
        let sources: Vec<&Arg> = a.operands(&[
            "-f",
            "--file",
            "-C",
            "--directory",
            "-T",
            "--files-from",
            "-X",
            "--exclude-from",
            "-b",
            "-H",
            "--format",
        ]);
        // `-C DIR` moves tar before it reads the files named after it.
        let dir = a.value(&["-C", "--directory"]);
        an.in_dir(dir.as_ref(), |an| {
            recursive_read(an, "tar", &sources);
            check_secrets(an, "tar", &sources.iter().map(|s| (*s).clone()).collect::<Vec<_>>());
        });
        let to_stdout = a.value(&["-f", "--file"]).as_ref().map(Arg::shown) == Some("-") || (!has('f', "--file"));
        if to_stdout || bundled.ends_with('f') && a.all.get(1).map(Arg::shown) == Some("-") {
            return ro(an, "`tar -c` to standard output only reads");
        }
        return an.raise(CM, "`tar -c` writes an archive");
    }
    unknown(an, "tar");
}

fn systemctl(an: &mut Analysis<'_>, a: &Args<'_>) {
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

fn ip(an: &mut Analysis<'_>, a: &Args<'_>, stdin: &Stdin) {
    let valued = ["-n", "-netns", "-b", "-batch", "-f", "-family", "-l", "-loops", "-rc", "-rcvbuf"];
    // `ip` options are whole words (`-br` is brief, not `-b r`).
    // `ip` accepts any prefix of `-batch` (`-ba`, `-bat`); `-br…` is `-brief`.
    if a.any(&["-force"]) || a.options().any(|o| o.starts_with("-b") && !o.starts_with("-br") && !o.starts_with("--")) {
        an.raise(CM, "`ip -batch` runs commands from a file");
    }
    let ops = a.operands(&valued);
    let words: Vec<&str> = ops.iter().map(|o| o.shown()).collect();
    let Some(object) = words.first() else {
        return ro(an, "`ip` without an object prints help");
    };
    if "netns".starts_with(object) && object.len() >= 3 {
        match words.get(1) {
            Some(&"exec") => {
                let index = a.all.iter().position(|x| std::ptr::eq(x, ops[2.min(ops.len() - 1)])).map(|i| i + 1);
                return wrapped(an, "ip netns exec", a, index, stdin);
            }
            None | Some(&("list" | "ls" | "show" | "identify" | "pids" | "list-id" | "monitor")) => {
                return ro(an, "`ip netns list` only reports")
            }
            Some(_) => return an.raise(CM, "`ip netns` changes network namespaces"),
        }
    }
    // Actions may be abbreviated (`ip a s`, `ip r l`); anything that is not a way of showing is a change.
    // `ip a s` is show, but `ip link s` is set: iproute2 resolves abbreviations per object.
    let action = match (words.get(1).copied(), *object) {
        (None, _) => "show",
        (Some("s" | "sh"), o)
            if ["address", "route", "neighbour", "rule", "maddress", "mroute", "xfrm"]
                .iter()
                .any(|x| x.starts_with(o)) =>
        {
            "show"
        }
        (Some(a), _) => a,
    };
    // A prefix that could also mean a change (`s` may be `set`, `l` may be… only list) is a change.
    let mutating = [
        "set", "add", "del", "delete", "change", "replace", "flush", "append", "prepend", "save", "restore", "update",
        "test",
    ];
    let showing =
        ["show", "list", "lst", "ls", "get", "help", "monitor", "showdump"].iter().any(|v| v.starts_with(action))
            && !mutating.iter().any(|m| m.starts_with(action));
    // Nested objects (`ip xfrm state list`): a showing verb anywhere, and no changing one.
    let showing = showing
        || (words.iter().skip(2).any(|w| matches!(*w, "show" | "list" | "ls" | "lst" | "get" | "count"))
            && !mutating.contains(&action));
    let changes = ["add", "del", "delete", "flush", "set", "change", "replace", "deleteall", "update"];
    if showing && !words.iter().skip(2).any(|w| changes.contains(w)) {
        ro(an, format!("`ip {object} {action}` only reports"));
    } else {
        an.raise(CM, format!("`ip {object} {action}` changes the network"));
    }
}

fn iptables(an: &mut Analysis<'_>, base: &str, a: &Args<'_>) {
    if a.flag('F', "--flush") {
        return an.raise(DE, format!("`{base} -F` flushes firewall rules"));
    }
    if a.flag('P', "--policy") || a.flag('X', "--delete-chain") {
        return an.raise(DE, format!("`{base}` changes a default policy or deletes chains"));
    }
    // A DROP/REJECT rule on incoming traffic that matches everything cuts this session off.
    let target = a.value(&["-j", "--jump"]);
    let chain = a.value(&["-A", "--append", "-I", "--insert"]);
    let narrowing = [
        "-s",
        "--source",
        "-d",
        "--destination",
        "--dport",
        "--sport",
        "--dports",
        "-i",
        "--in-interface",
        "-m",
        "--match",
    ];
    let protocol_all = a.value(&["-p", "--protocol"]).is_none_or(|p| p.shown() == "all" || p.shown() == "0");
    let narrowed = !a.values(&narrowing).is_empty() || !protocol_all;
    if chain.as_ref().is_some_and(|c| matches!(c.shown(), "INPUT" | "PREROUTING" | "FORWARD"))
        && target.as_ref().is_some_and(|t| matches!(t.shown(), "DROP" | "REJECT"))
        && !narrowed
    {
        return an.raise(DE, format!("`{base}` drops all incoming traffic (including this session)"));
    }
    let lists = a.flag('L', "--list") || a.flag('S', "--list-rules") || a.long("--version");
    let changes = a.options().any(|o| {
        matches!(
            o,
            "-A" | "--append"
                | "-I"
                | "--insert"
                | "-D"
                | "--delete"
                | "-R"
                | "--replace"
                | "-N"
                | "--new-chain"
                | "-E"
                | "--rename-chain"
                | "-Z"
                | "--zero"
        )
    });
    if lists && !changes {
        ro(an, format!("`{base} -L` only lists rules"));
    } else {
        an.raise(CM, format!("`{base}` changes firewall rules"));
    }
}

fn nft(an: &mut Analysis<'_>, a: &Args<'_>, stdin: &Stdin) {
    let reads_input = a.value(&["-f", "--file"]).is_some() || a.flag('i', "--interactive");
    let words: Vec<String> =
        a.operands(&["-I", "--includepath", "-f", "--file"]).iter().map(|o| o.shown().to_string()).collect();
    let mut texts = vec![words.join(" ")];
    if reads_input {
        an.raise(CM, "`nft -f/-i` loads rules it reads");
        texts.extend(stdin.texts.iter().cloned());
    }
    let flushes = texts.iter().any(|t| {
        let t = t.to_lowercase();
        t.contains("flush ruleset")
            || t.contains("flush table")
            || t.contains("delete table")
            || t.contains("destroy table")
    });
    let first = words.first().map(String::as_str);
    if flushes {
        an.raise(DE, "`nft` drops firewall rules");
    } else if !reads_input
        && (matches!(first, Some("list" | "describe" | "monitor")) || a.flag('c', "--check") || words.is_empty())
    {
        ro(an, "`nft list` only reports");
    } else {
        an.raise(CM, "`nft` changes firewall rules");
    }
}

fn curl(an: &mut Analysis<'_>, a: &Args<'_>) {
    #[rustfmt::skip]
    let sending = [
        "-d", "--data", "--data-raw", "--data-binary", "--data-urlencode", "--data-ascii", "-F", "--form",
        "--form-string", "-T", "--upload-file", "--json", "--url-query",
    ];
    let method = a.value(&["-X", "--request"]).map(|m| m.shown().to_ascii_uppercase());
    if !a.values(&sending).is_empty() || method.as_deref().is_some_and(|m| m != "GET" && m != "HEAD") {
        an.raise(CM, "`curl` sends data or a changing request");
    }
    #[rustfmt::skip]
    let writing = [
        "-o", "--output", "-D", "--dump-header", "-c", "--cookie-jar", "--trace", "--trace-ascii", "--stderr",
        "--etag-save", "--hsts", "--alt-svc", "--libcurl", "--output-dir",
    ];
    for out in a.values(&writing) {
        if out.shown() != "-" {
            an.write_target(&out, "`curl`");
        }
    }
    if a.flag('O', "--remote-name") || a.long("--remote-name-all") || a.long("--create-dirs") {
        an.raise(CM, "`curl -O` writes the download to a file");
    }
    if a.value(&["-K", "--config"]).is_some() {
        an.raise(CM, "`curl -K` takes options from a file");
    }
    // `--variable k@FILE` with `--expand-url` puts a file's content into the request.
    if a.long_prefix("--variable") && a.long_prefix("--expand-") {
        an.raise(CM, "`curl --expand-…` sends what `--variable` read");
    }
    ro(an, "`curl` fetching to standard output only reads");
}

fn openssl(an: &mut Analysis<'_>, a: &Args<'_>, stdin: &Stdin) {
    let sub = a.sub(&[]).map(|(_, s)| s);
    // `echo | openssl s_client` only closes the session; anything else typed in is sent.
    let sends = stdin.unknown || stdin.texts.iter().any(|t| !matches!(t.trim(), "" | "Q" | "q"));
    if sub == Some("s_client") && sends {
        an.raise(CM, "`openssl s_client` sends its input to another machine");
    }
    let writes = a
        .all
        .iter()
        .filter_map(Arg::as_static)
        .any(|o| o.starts_with('-') && (o.contains("out") || o.contains("write")) && o != "-noout");
    if writes {
        for out in a.values(&["-out", "-keyout", "-writerand", "-sess_out", "-msgfile"]) {
            an.write_target(&out, "`openssl`");
        }
        an.raise(CM, "`openssl` writes a file");
    }
    match sub {
        Some(
            "x509" | "s_client" | "version" | "verify" | "crl" | "ciphers" | "list" | "asn1parse" | "dgst" | "sess_id"
            | "ocsp" | "s_time" | "speed" | "errstr" | "help" | "prime" | "rand" | "storeutl",
        ) => ro(an, "`openssl` inspection only reads"),
        Some("req") if a.any(&["-text", "-noout", "-verify"]) && !a.any(&["-new", "-x509", "-newkey"]) => {
            ro(an, "`openssl req -text` only reads")
        }
        _ => an.raise(CM, "`openssl` creates or converts keys and certificates"),
    }
}

fn apt(an: &mut Analysis<'_>, base: &str, a: &Args<'_>) {
    if a.flag('s', "--simulate") || a.any(&["--dry-run", "--just-print", "--no-act", "--recon"]) {
        return ro(an, format!("`{base} --simulate` only reports"));
    }
    match a.sub(&["-o", "--option", "-c", "--config-file", "-t", "--target-release"]).map(|(_, s)| s) {
        Some(
            "list" | "show" | "search" | "policy" | "depends" | "rdepends" | "madison" | "showsrc" | "changelog"
            | "check" | "help" | "version" | "why" | "why-not" | "showpkg" | "stats" | "pkgnames" | "dotty" | "xvcg"
            | "--version",
        )
        | None => ro(an, format!("`{base}` query only reports")),
        Some(s) => an.raise(CM, format!("`{base} {s}` changes installed packages")),
    }
}

fn docker(an: &mut Analysis<'_>, base: &str, a: &Args<'_>, stdin: &Stdin) {
    let global =
        ["-H", "--host", "-c", "--context", "--config", "-l", "--log-level", "--tlscacert", "--tlscert", "--tlskey"];
    if a.value(&["-H", "--host"]).is_some() {
        an.raise(CM, format!("`{base} -H` acts on another machine"));
    }
    let Some((i, sub)) = a.sub(&global) else {
        return ro(an, format!("`{base}` without a command prints help"));
    };
    let rest = Args::new(a.tail_from(i + 1));
    let group =
        |an: &mut Analysis<'_>, what: &str, ro_subs: &[&str], de_subs: &[&str]| match rest.sub(&[]).map(|(_, s)| s) {
            Some(s) if ro_subs.contains(&s) => ro(an, format!("`{base} {what} {s}` only reports")),
            Some(s) if de_subs.contains(&s) => an.raise(DE, format!("`{base} {what} {s}` deletes data")),
            None => ro(an, format!("`{base} {what}` prints help")),
            Some(s) => an.raise(CM, format!("`{base} {what} {s}` changes containers")),
        };
    match sub {
        "ps" | "images" | "inspect" | "logs" | "stats" | "top" | "port" | "diff" | "events" | "info" | "version"
        | "search" | "history" => ro(an, format!("`{base} {sub}` only reports")),
        "save" | "export" => {
            if let Some(out) = rest.value(&["-o", "--output"]) {
                an.write_target(&out, &format!("`{base} {sub}`"));
            } else {
                ro(an, format!("`{base} {sub}` to standard output only reads"));
            }
        }
        "exec" => {
            let valued = ["-u", "--user", "-w", "--workdir", "-e", "--env", "--env-file", "--detach-keys"];
            // After the options: the container, then the command.
            let start = command_start(&rest, &valued).map(|j| j + 1);
            match start {
                Some(j) if j < rest.all.len() => an.run(rest.tail_from(j), stdin),
                _ => an.raise(CM, format!("`{base} exec` without a command")),
            }
        }
        "restart" | "start" | "stop" | "pause" | "unpause" | "kill" => {
            an.raise(RL, format!("`{base} {sub}` starts or stops containers"))
        }
        "container" => match rest.sub(&[]).map(|(_, s)| s) {
            Some("exec") => {
                let mut argv = vec![Arg::Static(base.to_string())];
                argv.extend_from_slice(rest.all);
                an.run(&argv, stdin)
            }
            Some("restart" | "start" | "stop" | "pause" | "unpause" | "kill") => {
                an.raise(RL, format!("`{base} container` starts or stops containers"))
            }
            _ => group(an, "container", &["ls", "list", "ps", "inspect", "logs", "top", "port", "diff", "stats"], &[]),
        },
        "image" => group(an, "image", &["ls", "list", "inspect", "history"], &[]),
        "volume" => group(an, "volume", &["ls", "list", "inspect"], &["rm", "remove", "prune"]),
        "network" => group(an, "network", &["ls", "list", "inspect"], &[]),
        "context" | "plugin" | "node" | "secret" | "config" | "manifest" | "trust" | "buildx" | "stack" | "service" => {
            group(an, sub, &["ls", "list", "inspect", "show", "ps", "logs", "version", "services"], &[])
        }
        "system" => match rest.sub(&[]).map(|(_, s)| s) {
            Some("df" | "info" | "events") => ro(an, format!("`{base} system` only reports")),
            Some("prune") if rest.long("--volumes") => {
                an.raise(DE, format!("`{base} system prune --volumes` deletes volumes"))
            }
            _ => an.raise(CM, format!("`{base} system` changes containers")),
        },
        "compose" => compose(an, base, a, i + 1, stdin),
        "run" | "create" => {
            an.raise(CM, format!("`{base} {sub}` starts a new container"));
            // What the container runs still counts: with host paths mounted it reaches the host.
            let valued = [
                "-v",
                "--volume",
                "-e",
                "--env",
                "--env-file",
                "-p",
                "--publish",
                "--name",
                "-w",
                "--workdir",
                "-u",
                "--user",
                "--network",
                "--net",
                "-h",
                "--hostname",
                "--entrypoint",
                "-l",
                "--label",
                "--mount",
                "--device",
                "--cap-add",
                "--cap-drop",
                "--restart",
                "-m",
                "--memory",
                "--cpus",
                "--ulimit",
                "--log-driver",
                "--log-opt",
                "--add-host",
                "--dns",
                "--security-opt",
                "--tmpfs",
                "--platform",
                "--pull",
                "--pid",
                "--ipc",
                "--gpus",
                "--shm-size",
                "--stop-signal",
                "--stop-timeout",
                "--health-cmd",
                "--userns",
                "--uts",
                "--cgroupns",
                "--expose",
                "--link",
                "--volumes-from",
                "-a",
                "--attach",
                "--cidfile",
                "--group-add",
                "--runtime",
                "--init-path",
                "--label-file",
                "--memory-swap",
                "--mac-address",
                "--ip",
                "--ip6",
            ];
            if let Some(image) = command_start(&rest, &valued) {
                if image + 1 < rest.all.len() {
                    an.run(rest.tail_from(image + 1), &Stdin::default());
                }
            }
        }
        "rm" if rest.flag('v', "--volumes") => an.raise(DE, format!("`{base} rm -v` deletes volumes")),
        _ => an.raise(CM, format!("`{base} {sub}` changes containers or images")),
    }
}

fn compose(an: &mut Analysis<'_>, base: &str, a: &Args<'_>, from: usize, stdin: &Stdin) {
    let rest = Args::new(a.tail_from(from));
    let valued = [
        "-f",
        "--file",
        "-p",
        "--project-name",
        "--profile",
        "--env-file",
        "--project-directory",
        "--ansi",
        "--parallel",
    ];
    if let Some(out) = rest.value(&["-o", "--output"]) {
        an.write_target(&out, &format!("`{base} compose -o`"));
    }
    match rest.sub(&valued) {
        Some((_, s @ ("ps" | "logs" | "config" | "ls" | "images" | "top" | "version" | "port" | "events"))) => {
            ro(an, format!("`{base} compose {s}` only reports"))
        }
        Some((_, s @ ("restart" | "start" | "stop" | "pause" | "unpause" | "kill"))) => {
            an.raise(RL, format!("`{base} compose {s}` starts or stops services"))
        }
        Some((j, "down")) if Args::new(rest.tail_from(j + 1)).flag('v', "--volumes") => {
            an.raise(DE, format!("`{base} compose down -v` deletes volumes"))
        }
        Some((j, "exec" | "run")) => {
            an.raise(RL, format!("`{base} compose exec` runs in a service container"));
            let tail = Args::new(rest.tail_from(j + 1));
            let start = command_start(
                &tail,
                &[
                    "-u",
                    "--user",
                    "-w",
                    "--workdir",
                    "-e",
                    "--env",
                    "--index",
                    "--name",
                    "--entrypoint",
                    "-p",
                    "--publish",
                    "-v",
                    "--volume",
                ],
            )
            .map(|k| k + 1);
            match start {
                Some(k) if k < tail.all.len() => an.run(tail.tail_from(k), stdin),
                _ => an.raise(CM, format!("`{base} compose exec` without a command")),
            }
        }
        Some((_, s)) => an.raise(CM, format!("`{base} compose {s}` changes services")),
        None => ro(an, format!("`{base} compose` prints help")),
    }
}

fn pct(an: &mut Analysis<'_>, a: &Args<'_>, stdin: &Stdin) {
    match a.sub(&[]) {
        Some((i, "exec")) => {
            // `pct exec <vmid> [--] <command…>`
            let after_id = i + 2;
            let start = match a.all.get(after_id).and_then(Arg::as_static) {
                Some("--") => after_id + 1,
                _ => after_id,
            };
            if start < a.all.len() {
                an.run(a.tail_from(start), stdin);
            } else {
                an.raise(CM, "`pct exec` without a command");
            }
        }
        Some((_, s)) => match s {
            "list" | "status" | "config" | "pending" | "listsnapshot" | "df" | "cpusets" | "help" => {
                ro(an, format!("`pct {s}` only reports"))
            }
            "start" | "stop" | "shutdown" | "reboot" | "resume" | "suspend" => {
                an.raise(RL, format!("`pct {s}` starts or stops a container"))
            }
            "destroy" | "rollback" | "delsnapshot" => an.raise(DE, format!("`pct {s}` destroys container data")),
            "restore" if a.long("--force") => an.raise(DE, "`pct restore --force` overwrites a container"),
            "enter" | "console" => an.raise(CM, format!("`pct {s}` opens an interactive shell")),
            _ => an.raise(CM, format!("`pct {s}` changes a container")),
        },
        None => ro(an, "`pct` without a command prints help"),
    }
}

fn qm(an: &mut Analysis<'_>, a: &Args<'_>, stdin: &Stdin) {
    match a.sub(&[]) {
        Some((i, "agent")) => match a.all.get(i + 2).and_then(Arg::as_static) {
            Some(c)
                if c.starts_with("get-")
                    || matches!(c, "info" | "ping" | "network-get-interfaces" | "fsfreeze-status") =>
            {
                ro(an, format!("`qm agent {c}` only reports"))
            }
            _ => an.raise(CM, "`qm agent` changes the guest"),
        },
        Some((i, "guest")) => match a.all.get(i + 1).and_then(Arg::as_static) {
            Some("exec") => {
                let dashes = a.all.iter().position(|x| x.as_static() == Some("--"));
                match dashes {
                    Some(d) if d + 1 < a.all.len() => an.run(a.tail_from(d + 1), stdin),
                    _ => match a.all.get(i + 3) {
                        Some(_) => an.run(a.tail_from(i + 3), stdin),
                        None => an.raise(CM, "`qm guest exec` without a command"),
                    },
                }
            }
            Some("exec-status") => ro(an, "`qm guest exec-status` only reports"),
            Some("cmd") => match a.all.get(i + 3).and_then(Arg::as_static) {
                Some(c)
                    if c.starts_with("get-")
                        || matches!(c, "info" | "ping" | "network-get-interfaces" | "fsfreeze-status") =>
                {
                    ro(an, format!("`qm guest cmd {c}` only reports"))
                }
                _ => an.raise(CM, "`qm guest cmd` changes the guest"),
            },
            _ => an.raise(CM, "`qm guest` changes the guest"),
        },
        Some((_, s)) => match s {
            "list" | "status" | "config" | "pending" | "showcmd" | "listsnapshot" | "wait" | "help"
            | "cloudinit-dump" => ro(an, format!("`qm {s}` only reports")),
            "cloudinit" if matches!(a.all.get(1).and_then(Arg::as_static), Some("dump" | "pending")) => {
                ro(an, "`qm cloudinit dump` only reports")
            }
            "start" | "stop" | "shutdown" | "reboot" | "reset" | "resume" | "suspend" => {
                an.raise(RL, format!("`qm {s}` starts or stops a VM"))
            }
            "destroy" | "rollback" | "delsnapshot" | "unlink" => an.raise(DE, format!("`qm {s}` destroys VM data")),
            "disk" if matches!(a.all.get(1).and_then(Arg::as_static), Some("unlink")) => {
                an.raise(DE, "`qm disk unlink` deletes a disk")
            }
            "monitor" | "terminal" | "vncproxy" => an.raise(CM, format!("`qm {s}` opens an interactive console")),
            _ => an.raise(CM, format!("`qm {s}` changes a VM")),
        },
        None => ro(an, "`qm` without a command prints help"),
    }
}

/// Proxmox and Ceph tools with verb paths: read-only only for the listed query paths (and then only
/// when the next word is not a change), destructive for the listed destroying ones, and
/// destructive when they print secrets.
fn proxmox_tool(an: &mut Analysis<'_>, base: &str, a: &Args<'_>) {
    let words: Vec<&str> = a
        .operands(&[
            "--output-format",
            "-f",
            "--format",
            "--cluster",
            "-c",
            "--conf",
            "-n",
            "--name",
            "-k",
            "--keyring",
            "-o",
            "--out-file",
            "-i",
            "--in-file",
            "--id",
            "--user",
            "-m",
            "--connect-timeout",
        ])
        .iter()
        .map(|o| o.shown())
        .collect();
    // `*` stands for any one word (a placement group id).
    let starts = |path: &[&str]| words.len() >= path.len() && words.iter().zip(path).all(|(w, p)| *p == "*" || w == p);
    #[rustfmt::skip]
    let reads: &[&[&str]] = match base {
        "ceph" => &[&["status"], &["-s"], &["health"], &["df"], &["osd", "tree"], &["osd", "df"], &["osd", "stat"], &["osd", "perf"], &["osd", "pool", "ls"], &["osd", "pool", "stats"], &["osd", "pool", "get"], &["osd", "dump"], &["osd", "ls"], &["pg", "stat"], &["pg", "dump"], &["mon", "stat"], &["mon", "dump"], &["quorum_status"], &["versions"], &["version"], &["fs", "status"], &["fs", "ls"], &["mgr", "services"], &["mgr", "stat"], &["crash", "ls"], &["balancer", "status"], &["pg", "ls"], &["pg", "ls-by-pool"], &["pg", "ls-by-osd"], &["pg", "ls-by-primary"], &["pg", "dump_stuck"], &["config", "dump"], &["config", "get"], &["config", "show"], &["config", "log"], &["mgr", "module", "ls"], &["mgr", "dump"], &["osd", "crush", "rule", "ls"], &["osd", "crush", "rule", "dump"], &["osd", "crush", "tree"], &["osd", "crush", "dump"], &["osd", "pool", "autoscale-status"], &["osd", "utilization"], &["osd", "metadata"], &["mon", "metadata"], &["osd", "blocklist", "ls"], &["health", "detail"], &["osd", "find"]],
        "pveceph" => &[&["status"], &["pool", "ls"], &["osd", "details"], &["help"]],
        "pveum" => &[&["user", "list"], &["group", "list"], &["role", "list"], &["acl", "list"], &["pool", "list"], &["realm", "list"], &["user", "permissions"], &["user", "token", "list"], &["help"]],
        "pvesr" => &[&["status"], &["list"], &["help"]],
        "ha-manager" => &[&["status"], &["config"], &["groupconfig"], &["help"]],
        "pvenode" => &[&["config", "get"], &["cert", "info"], &["task", "list"], &["task", "log"], &["task", "status"], &["help"]],
        "pvesubscription" => &[&["get"], &["help"]],
        "proxmox-backup-client" => &[&["list"], &["snapshots"], &["snapshot", "list"], &["status"], &["version"], &["catalog", "dump"], &["help"]],
        "proxmox-backup-manager" => &[&["datastore", "list"], &["user", "list"], &["remote", "list"], &["sync-job", "list"], &["task", "list"], &["versions"], &["help"]],
        "proxmox-boot-tool" => &[&["status"], &["kernel", "list"], &["help"]],
        _ => &[],
    };
    #[rustfmt::skip]
    let destroys: &[&[&str]] = match base {
        "ceph" => &[&["osd", "purge"], &["osd", "destroy"], &["osd", "pool", "delete"], &["osd", "pool", "rm"], &["fs", "rm"], &["fs", "fail"], &["mon", "remove"], &["mon", "rm"], &["osd", "lost"], &["pg", "*", "mark_unfound_lost"], &["osd", "force-create-pg"], &["fs", "reset"], &["mds", "rmfailed"]],
        "pveceph" => &[&["osd", "destroy"], &["osd", "create"], &["pool", "destroy"], &["purge"], &["mon", "destroy"], &["fs", "destroy"], &["mds", "destroy"]],
        "proxmox-backup-client" => &[&["forget"], &["snapshot", "forget"], &["prune"]],
        "proxmox-backup-manager" => &[&["datastore", "remove"], &["prune-job", "run"], &["garbage-collection", "start"]],
        "proxmox-boot-tool" => &[&["format"], &["init"]],
        "pvecm" => &[&["delnode"]],
        _ => &[],
    };
    #[rustfmt::skip]
    let secret: &[&[&str]] = match base {
        "ceph" => &[&["auth", "ls"], &["auth", "list"], &["auth", "get"], &["auth", "export"], &["auth", "print-key"], &["auth", "print_key"], &["config-key", "dump"], &["config-key", "get"]],
        "proxmox-backup-client" => &[&["key", "show"], &["key", "paperkey"]],
        _ => &[],
    };
    const CHANGES: &[&str] = &[
        "set", "rm", "remove", "del", "delete", "reset", "mute", "unmute", "create", "add", "rename", "purge",
        "destroy", "out", "in", "down", "up", "reweight", "repair", "enable", "disable", "clear", "import", "put",
        "update", "modify", "start", "stop",
    ];
    if let Some(path) = secret.iter().find(|p| starts(p)) {
        return an.raise_secret(DE, format!("`{base} {}` prints secret keys", path.join(" ")));
    }
    if base == "ceph" {
        for out in a.values(&["-o", "--out-file"]) {
            an.write_target(&out, "`ceph -o`");
        }
    }
    if let Some(path) = destroys.iter().find(|p| starts(p)) {
        return an.raise(DE, format!("`{base} {}` destroys data, disks or cluster members", path.join(" ")));
    }
    let reading =
        reads.iter().find(|p| starts(p)).is_some_and(|p| words.get(p.len()).is_none_or(|next| !CHANGES.contains(next)))
            || (words.is_empty() && !matches!(base, "pveupgrade" | "pvescheduler"));
    if reading {
        ro(an, format!("`{base} {}` only reports", words.join(" ")));
    } else {
        an.raise(CM, format!("`{base} {}` changes the cluster or the system", words.join(" ")));
    }
}

fn ipmitool(an: &mut Analysis<'_>, a: &Args<'_>) {
    let valued = [
        "-I", "-H", "-U", "-P", "-p", "-L", "-f", "-y", "-k", "-o", "-C", "-A", "-t", "-b", "-T", "-B", "-m", "-R",
        "-N", "-O", "-Y", "-z", "-l",
    ];
    let words: Vec<&str> = a.operands(&valued).iter().map(|o| o.shown()).collect();
    let w = |i: usize| words.get(i).copied().unwrap_or("");
    match (w(0), w(1), w(2)) {
        ("chassis" | "power", "power", "off" | "cycle" | "reset" | "soft" | "diag")
        | ("power", "off" | "cycle" | "reset" | "soft" | "diag", _) => {
            an.raise(DE, "`ipmitool power off/cycle/reset` takes the machine down")
        }
        ("mc", "reset", _) => an.raise(DE, "`ipmitool mc reset` restarts the management controller"),
        ("sensor", "" | "list" | "get", _)
        | ("sdr", "" | "list" | "elist" | "type" | "get" | "info" | "entity", _)
        | ("fru", "" | "print" | "list", _)
        | ("sel", "" | "list" | "elist" | "info" | "get", _)
        | ("sel", "time", "get")
        | ("lan", "print", _)
        | ("chassis", "status" | "restart_cause" | "poh" | "bootparam", "" | "get")
        | ("chassis" | "power", "power", "status")
        | ("power", "status", _)
        | ("mc", "info" | "guid" | "selftest", _)
        | ("user", "list" | "summary", _)
        | ("channel", "info", _)
        | ("dcmi", "power", "reading")
        | ("help", _, _) => ro(an, "`ipmitool` only reports"),
        _ => an.raise(CM, "`ipmitool` changes the management controller or the machine"),
    }
}

/// Ceph's object and block tools: listing reads, removing destroys.
fn ceph_storage(an: &mut Analysis<'_>, base: &str, a: &Args<'_>) {
    let valued = [
        "-p",
        "--pool",
        "-c",
        "--conf",
        "-n",
        "--name",
        "--id",
        "-k",
        "--keyring",
        "--format",
        "--namespace",
        "-N",
        "--image",
        "--snap",
    ];
    let words: Vec<&str> = a.operands(&valued).iter().map(|o| o.shown()).collect();
    let w = |i: usize| words.get(i).copied().unwrap_or("");
    let reads = match base {
        "rados" => {
            matches!(
                w(0),
                "df" | "lspools"
                    | "ls"
                    | "stat"
                    | "listxattr"
                    | "getxattr"
                    | "listomapkeys"
                    | "list-inconsistent-pg"
                    | "list-inconsistent-obj"
                    | "listsnaps"
                    | "lssnap"
                    | ""
            ) || (w(0) == "get" && w(2) == "-")
        }
        _ => {
            matches!(w(0), "ls" | "list" | "info" | "du" | "disk-usage" | "status" | "showmapped" | "")
                || matches!(
                    (w(0), w(1)),
                    ("snap", "ls" | "list") | ("device", "list" | "ls") | ("trash", "ls" | "list")
                )
        }
    };
    let destroys = match base {
        "rados" => {
            matches!(w(0), "rm" | "purge" | "rmpool" | "cleanup" | "rmsnap" | "truncate" | "rmomapkey" | "clearomap")
        }
        _ => {
            matches!(w(0), "rm" | "remove")
                || matches!(
                    (w(0), w(1)),
                    ("snap", "rm" | "remove" | "purge" | "rollback" | "revert") | ("trash", "rm" | "remove" | "purge")
                )
        }
    };
    if destroys {
        an.raise(DE, format!("`{base} {}` deletes data", words.join(" ")));
    } else if reads {
        ro(an, format!("`{base} {}` only reports", words.join(" ")));
    } else {
        an.raise(CM, format!("`{base} {}` changes the storage", words.join(" ")));
    }
}

fn virsh(an: &mut Analysis<'_>, a: &Args<'_>) {
    match a.sub(&["-c", "--connect"]).map(|(_, s)| s) {
        Some(s)
            if s.starts_with("list")
                || s.starts_with("dom")
                    && (s.ends_with("info")
                        || s.ends_with("state")
                        || s == "dumpxml"
                        || s.ends_with("stats")
                        || s.ends_with("list"))
                || matches!(
                    s,
                    "dumpxml"
                        | "nodeinfo"
                        | "version"
                        | "capabilities"
                        | "net-list"
                        | "pool-list"
                        | "vol-list"
                        | "net-info"
                        | "pool-info"
                        | "vol-info"
                        | "net-dumpxml"
                        | "pool-dumpxml"
                        | "vol-dumpxml"
                        | "snapshot-list"
                        | "snapshot-info"
                        | "help"
                ) =>
        {
            ro(an, format!("`virsh {s}` only reports"))
        }
        Some("vol-delete" | "pool-delete" | "snapshot-delete" | "vol-wipe") => an.raise(DE, "`virsh` deletes storage"),
        Some("undefine") if a.long("--remove-all-storage") || a.long("--wipe-storage") || a.long("--storage") => {
            an.raise(DE, "`virsh undefine` deletes the VM's disks")
        }
        Some("start" | "shutdown" | "reboot" | "destroy" | "suspend" | "resume" | "reset") => {
            an.raise(RL, "`virsh` starts or stops a VM")
        }
        None => ro(an, "`virsh` without a command"),
        Some(s) => an.raise(CM, format!("`virsh {s}` changes VMs")),
    }
}

fn kubectl(an: &mut Analysis<'_>, base: &str, a: &Args<'_>, stdin: &Stdin) {
    let valued = [
        "-n",
        "--namespace",
        "--context",
        "--kubeconfig",
        "-o",
        "--output",
        "-l",
        "--selector",
        "-c",
        "--container",
        "-f",
        "--filename",
    ];
    let words: Vec<&str> = a.operands(&valued).iter().map(|o| o.shown()).collect();
    let output = a.value(&["-o", "--output"]).map(|o| o.shown().to_string()).unwrap_or_default();
    let secrets = words.iter().any(|w| w.starts_with("secret"))
        && (!output.is_empty() || matches!(words.first(), Some(&"describe")));
    match a.sub(&valued) {
        _ if secrets => an.raise_secret(DE, format!("`{base}` prints secret values")),
        Some((_, "config")) if a.long("--raw") => {
            an.raise_secret(DE, format!("`{base} config view --raw` prints credentials"))
        }
        Some((_, "config"))
            if matches!(words.get(1), Some(&("view" | "get-contexts" | "current-context" | "get-clusters"))) =>
        {
            ro(an, format!("`{base} config view` only reports"))
        }
        Some((_, "auth")) if matches!(words.get(1), Some(&("can-i" | "whoami"))) => {
            ro(an, format!("`{base} auth can-i` only checks"))
        }
        Some((
            _,
            s @ ("get" | "describe" | "logs" | "top" | "version" | "cluster-info" | "api-resources" | "api-versions"
            | "explain" | "events" | "diff"),
        )) => ro(an, format!("`{base} {s}` only reports")),
        Some((_, "delete")) => an.raise(DE, format!("`{base} delete` removes cluster objects")),
        Some((i, "exec")) => {
            let dashes = a.all.iter().position(|x| x.as_static() == Some("--"));
            match dashes {
                Some(d) if d > i && d + 1 < a.all.len() => an.run(a.tail_from(d + 1), stdin),
                _ => an.raise(CM, format!("`{base} exec` without a command")),
            }
        }
        Some((_, s)) => an.raise(CM, format!("`{base} {s}` changes the cluster")),
        None => ro(an, format!("`{base}` without a command prints help")),
    }
}

fn zfs(an: &mut Analysis<'_>, a: &Args<'_>) {
    match a.sub(&[]).map(|(_, s)| s) {
        Some(
            "list" | "get" | "holds" | "diff" | "userspace" | "groupspace" | "projectspace" | "version" | "help"
            | "send",
        ) => ro(an, "`zfs list` only reports"),
        Some("destroy" | "rollback") => an.raise(DE, "`zfs destroy`/`rollback` deletes data"),
        Some("receive" | "recv") if a.short('F') => an.raise(DE, "`zfs receive -F` rolls a dataset back"),
        None => ro(an, "`zfs` without a command prints help"),
        Some(s) => an.raise(CM, format!("`zfs {s}` changes datasets")),
    }
}

fn zpool(an: &mut Analysis<'_>, a: &Args<'_>) {
    // `-c SCRIPT` on status/iostat runs scripts (as root with ZPOOL_SCRIPTS_AS_ROOT).
    if a.short('c') {
        return an.raise(CM, "`zpool -c` runs scripts or clears events");
    }
    match a.sub(&["-o", "-O", "-R", "-d", "-T"]) {
        Some((_, s @ ("list" | "status" | "iostat" | "get" | "history" | "events" | "version" | "help"))) => {
            ro(an, format!("`zpool {s}` only reports"))
        }
        Some((_, "upgrade")) if a.operands(&[]).len() == 1 && !a.short('a') => {
            ro(an, "`zpool upgrade` without a pool only lists")
        }
        Some((_, "import")) if a.operands(&["-o", "-d", "-R"]).len() <= 1 && !a.short('a') => {
            ro(an, "`zpool import` without a pool only lists")
        }
        Some((_, s @ ("destroy" | "labelclear" | "create"))) => an.raise(DE, format!("`zpool {s}` destroys pool data")),
        // An upgraded pool cannot go back to older software; a rewind import drops recent writes.
        Some((_, "upgrade")) if a.operands(&[]).len() > 1 || a.short('a') => {
            an.raise(DE, "`zpool upgrade` cannot be undone")
        }
        Some((_, "import")) if a.short('F') || a.short('X') || a.long("--rewind-to-checkpoint") => {
            an.raise(DE, "`zpool import -F/-X` discards the pool's last transactions")
        }
        Some((_, s @ ("scrub" | "clear" | "resilver" | "trim"))) => {
            an.raise(RL, format!("`zpool {s}` starts maintenance"))
        }
        Some((_, s)) => an.raise(CM, format!("`zpool {s}` changes a pool")),
        None => ro(an, "`zpool` without a command prints help"),
    }
}

fn git(an: &mut Analysis<'_>, a: &Args<'_>) {
    let global =
        ["-C", "-c", "--git-dir", "--work-tree", "--namespace", "--exec-path", "--super-prefix", "--config-env"];
    if a.value(&["-c", "--config-env"]).is_some() || a.long("--exec-path") {
        an.raise(CM, "`git -c` can make git run other programs");
        for v in a.values(&["-c"]) {
            if let Some((_, cmd)) = v.shown().split_once('=') {
                an.script(cmd.trim_start_matches('!'));
            }
        }
    }
    let Some((i, sub)) = a.sub(&global) else {
        return ro(an, "`git` without a command prints help");
    };
    // A repository over a tree that holds secrets (etckeeper keeps /etc) shows them in diffs.
    for dir in a.values(&["-C", "--git-dir", "--work-tree"]) {
        recursive_read(an, "git", &[&dir]);
        if an.may_be_secret(dir.shown()) || dir.as_static().is_none() {
            an.raise(CM, format!("`git` works in a directory not known before it runs (`{}`)", dir.shown()));
        }
    }
    if a.tail_from(i + 1).iter().any(|x| x.as_static() == Some("--no-index")) {
        an.raise(CM, "`git --no-index` compares arbitrary files");
    }
    let rest = Args::new(a.tail_from(i + 1));
    let runs = ["--open-files-in-pager", "--upload-pack", "--receive-pack", "--exec", "--ext-diff", "--textconv"];
    if rest.any(&runs)
        || rest.all.iter().filter_map(Arg::as_static).any(|o| {
            o.starts_with("-O") || (o == "-u" && matches!(sub, "ls-remote" | "fetch" | "clone" | "pull" | "archive"))
        })
    {
        an.raise(CM, format!("`git {sub}` with this option runs another program"));
    }
    if rest.long("--output") || rest.value(&["-o", "--output-directory"]).is_some() && sub == "format-patch" {
        an.raise(CM, format!("`git {sub} --output` writes a file"));
    }
    let ops = rest.operands(&[
        "-n",
        "--max-count",
        "--format",
        "--pretty",
        "--since",
        "--until",
        "--author",
        "-S",
        "-G",
        "--grep",
        "--sort",
        "--contains",
        "--merged",
        "--no-merged",
        "--points-at",
        "-U",
        "--unified",
    ]);
    match sub {
        "status" | "log" | "diff" | "show" | "rev-parse" | "rev-list" | "describe" | "blame" | "annotate"
        | "ls-files" | "ls-tree" | "ls-remote" | "cat-file" | "shortlog" | "grep" | "whatchanged" | "count-objects"
        | "fsck" | "verify-commit" | "verify-tag" | "check-ignore" | "check-attr" | "name-rev" | "merge-base"
        | "for-each-ref" | "show-ref" | "var" | "version" | "help" | "show-branch" | "cherry" | "range-diff"
        | "diff-tree" | "diff-index" | "diff-files" => ro(an, format!("`git {sub}` only reads")),
        "branch" => {
            let changes = rest.options().any(|o| {
                matches!(
                    o,
                    "-d" | "-D"
                        | "--delete"
                        | "-m"
                        | "-M"
                        | "--move"
                        | "-c"
                        | "-C"
                        | "--copy"
                        | "-u"
                        | "--set-upstream-to"
                        | "--unset-upstream"
                        | "-f"
                        | "--force"
                        | "--edit-description"
                )
            });
            if changes || (!ops.is_empty() && !rest.flag('l', "--list")) {
                an.raise(CM, "`git branch` creates, moves or deletes branches");
            } else {
                ro(an, "`git branch` only lists");
            }
        }
        "tag" => {
            if ops.is_empty() || rest.flag('l', "--list") || rest.short('v') && !rest.short('d') {
                ro(an, "`git tag` only lists");
            } else {
                an.raise(CM, "`git tag` creates or deletes tags");
            }
        }
        "remote" => match ops.first().map(|o| o.shown()) {
            None | Some("show" | "get-url") => ro(an, "`git remote` only lists"),
            Some(_) => an.raise(CM, "`git remote` changes remotes"),
        },
        "reflog" | "stash" | "worktree" | "submodule" | "notes" => match ops.first().map(|o| o.shown()) {
            Some("list" | "show" | "status") => ro(an, format!("`git {sub} list` only reads")),
            None if sub == "reflog" => ro(an, "`git reflog` only reads"),
            Some("clear") if sub == "stash" => an.raise(DE, "`git stash clear` discards every stash"),
            _ => an.raise(CM, format!("`git {sub}` changes the repository")),
        },
        "config" => {
            let reading = rest.options().any(|o| {
                matches!(
                    o,
                    "--get"
                        | "--get-all"
                        | "--get-regexp"
                        | "--get-urlmatch"
                        | "--list"
                        | "-l"
                        | "--show-origin"
                        | "--show-scope"
                        | "--get-color"
                        | "--get-colorbool"
                )
            }) || ops.first().is_some_and(|o| matches!(o.shown(), "get" | "list"))
                || ops.len() == 1;
            if reading
                && !rest.options().any(|o| {
                    matches!(
                        o,
                        "--unset"
                            | "--unset-all"
                            | "--add"
                            | "--replace-all"
                            | "--rename-section"
                            | "--remove-section"
                            | "-e"
                            | "--edit"
                    )
                })
            {
                ro(an, "`git config --get` only reads");
            } else {
                an.raise(CM, "`git config` changes configuration");
            }
        }
        "clean" => {
            if rest.flag('n', "--dry-run") {
                ro(an, "`git clean -n` only lists");
            } else if rest.short('x') || rest.short('X') || rest.short('d') {
                an.raise(DE, "`git clean -fdx` deletes untracked and ignored files for good");
            } else {
                an.raise(CM, "`git clean` deletes untracked files");
            }
        }
        "reset" if rest.long("--hard") => an.raise(DE, "`git reset --hard` discards uncommitted work"),
        "push"
            if rest.flag('f', "--force")
                || rest.long_prefix("--force")
                || rest.long("--mirror")
                || rest.long("--delete")
                || ops.iter().any(|o| o.shown().starts_with('+') || o.shown().starts_with(':')) =>
        {
            an.raise(DE, "`git push --force` rewrites or deletes remote history")
        }
        _ => an.raise(CM, format!("`git {sub}` changes the repository or its remotes")),
    }
}

fn sql_client(an: &mut Analysis<'_>, base: &str, a: &Args<'_>, stdin: &Stdin) {
    let mut sql: Vec<String> =
        a.values(&["-c", "--command", "-e", "--execute"]).iter().map(|v| v.shown().to_string()).collect();
    if a.value(&["-f", "--file"]).is_some() {
        an.raise(CM, format!("`{base} -f` runs SQL from a file"));
    }
    if base == "sqlite3" {
        // `sqlite3 [options] DB [SQL…]`
        let ops = a.operands(&["-cmd", "-separator", "-nullvalue", "-init"]);
        sql.extend(ops.iter().skip(1).map(|o| o.shown().to_string()));
        sql.extend(a.values(&["-cmd"]).iter().map(|v| v.shown().to_string()));
        if a.value(&["-init"]).is_some() {
            an.raise(CM, "`sqlite3 -init` runs SQL from a file");
        }
    }
    let listing = (base == "psql" && a.flag('l', "--list")) || a.long("--version") || a.short('V');
    sql.extend(stdin.texts.iter().cloned());
    if sql.is_empty() && !listing {
        return an.raise(CM, format!("`{base}` without SQL opens an interactive session"));
    }
    if stdin.unknown && stdin.texts.is_empty() && !listing {
        an.raise(CM, format!("`{base}` runs SQL from its input, which cannot be seen"));
    }
    for text in sql {
        judge_sql(an, base, &text);
    }
    if listing {
        ro(an, format!("`{base} -l` only lists"));
    }
}

fn judge_sql(an: &mut Analysis<'_>, base: &str, sql: &str) {
    // Client shell escapes run commands on this machine: `\!` (psql, mysql), `system` (mysql),
    // `.shell`/`.system` (sqlite3).
    for line in sql.lines().flat_map(|l| l.split(';')) {
        let t = line.trim();
        let escape = t
            .strip_prefix("\\!")
            .or_else(|| t.strip_prefix(".shell "))
            .or_else(|| t.strip_prefix(".system "))
            .or_else(|| (base != "psql").then(|| t.strip_prefix("system ")).flatten());
        if let Some(cmd) = escape {
            an.raise(CM, format!("`{base}` runs a shell command"));
            an.script(cmd);
        }
    }
    let lower = sql.to_lowercase();
    let words: Vec<&str> = lower
        .split(|c: char| !c.is_alphanumeric() && c != '_' && c != '\\' && c != '.')
        .filter(|w| !w.is_empty())
        .collect();
    let has = |a: &str, b: &str| words.windows(2).any(|w| w[0] == a && w[1] == b);
    if has("drop", "table")
        || has("drop", "database")
        || has("drop", "schema")
        || has("drop", "owned")
        || words.contains(&"truncate")
        || has("drop", "column")
    {
        return an.raise(DE, format!("`{base}` runs DROP/TRUNCATE"));
    }
    for statement in lower.split(';').map(str::trim).filter(|s| !s.is_empty()) {
        if statement.starts_with("delete") && !statement.contains(" where ") {
            return an.raise(DE, format!("`{base}` deletes every row of a table"));
        }
    }
    let side_effects = [
        "pg_terminate_backend",
        "pg_cancel_backend",
        "pg_drop",
        "pg_reload_conf",
        "pg_rotate",
        "pg_switch_wal",
        "pg_create",
        "nextval",
        "setval",
        "lo_unlink",
        "lo_import",
        "lo_export",
        "dblink",
        "set_config",
        "pg_advisory",
        "into outfile",
        "into dumpfile",
        "load_file",
        "writefile",
        "load_extension",
        "edit(",
        "pg_read_file",
        "pg_read_binary_file",
        "pg_ls_dir",
    ];
    // sqlite's readfile() and friends read files of this machine.
    for literal in quoted_literals(sql) {
        if an.is_secret(literal.trim()) {
            an.raise_secret(DE, format!("`{base}` reads secret material `{}`", literal.trim()));
        }
    }
    let read_only = lower.split(';').map(str::trim).filter(|s| !s.is_empty()).all(|s| {
        let first = s.split_whitespace().next().unwrap_or("");
        let reading = matches!(first, "select" | "show" | "with" | "table" | "values" | "describe" | "desc")
            || (first == "explain" && !s.contains("analyze"))
            || (first.starts_with('\\')
                && !matches!(
                    first,
                    "\\!"
                        | "\\o"
                        | "\\w"
                        | "\\copy"
                        | "\\i"
                        | "\\ir"
                        | "\\g"
                        | "\\gexec"
                        | "\\s"
                        | "\\setenv"
                        | "\\lo_import"
                        | "\\lo_export"
                        | "\\lo_unlink"
                ))
            || (first.starts_with('.')
                && matches!(
                    first,
                    ".tables"
                        | ".schema"
                        | ".indexes"
                        | ".databases"
                        | ".dbinfo"
                        | ".dump"
                        | ".show"
                        | ".help"
                        | ".fullschema"
                        | ".mode"
                        | ".headers"
                ));
        reading && !s.contains(" into ") && !side_effects.iter().any(|f| s.contains(f))
    });
    if read_only {
        ro(an, format!("`{base}` runs only queries"));
    } else {
        an.raise(CM, format!("`{base}` runs SQL that may change data"));
    }
}

fn redis(an: &mut Analysis<'_>, base: &str, a: &Args<'_>) {
    let ops = a.operands(&["-h", "-p", "-a", "-n", "-u", "--user", "--pass", "-s", "-r", "-i", "--tls", "--cacert"]);
    let cmd = ops.first().map(|o| o.shown().to_ascii_uppercase());
    match cmd.as_deref() {
        None if a.long("--scan")
            || a.long("--bigkeys")
            || a.long("--memkeys")
            || a.long("--stat")
            || a.long_prefix("--latency") =>
        {
            ro(an, format!("`{base}` inspection only reads"))
        }
        None => an.raise(CM, format!("`{base}` without a command opens an interactive session")),
        Some("FLUSHALL" | "FLUSHDB" | "SHUTDOWN") => an.raise(DE, format!("`{base}` flushes or stops the database")),
        Some(
            "GET" | "MGET" | "KEYS" | "SCAN" | "INFO" | "PING" | "TTL" | "PTTL" | "TYPE" | "EXISTS" | "DBSIZE"
            | "LRANGE" | "LLEN" | "HGET" | "HGETALL" | "HKEYS" | "HLEN" | "SMEMBERS" | "SCARD" | "ZRANGE" | "ZCARD"
            | "STRLEN" | "MEMORY" | "SLOWLOG" | "LASTSAVE" | "TIME" | "ROLE" | "XLEN" | "XRANGE" | "CLIENT" | "CONFIG",
        ) => {
            let second = ops.get(1).map(|o| o.shown().to_ascii_uppercase());
            if matches!(cmd.as_deref(), Some("CONFIG" | "CLIENT" | "MEMORY" | "SLOWLOG"))
                && !matches!(second.as_deref(), Some("GET" | "LIST" | "INFO" | "STATS" | "USAGE" | "DOCTOR" | "LEN"))
            {
                an.raise(CM, format!("`{base}` changes server settings"));
            } else {
                ro(an, format!("`{base}` query only reads"));
            }
        }
        Some(_) => an.raise(CM, format!("`{base}` command changes data")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn option_helpers() {
        let args: Vec<Arg> = ["-rf", "--force", "-u", "caddy", "--lines=5", "x", "--", "-y"]
            .iter()
            .map(|s| Arg::Static(s.to_string()))
            .collect();
        let a = Args::new(&args);
        assert!(a.short('r') && a.short('f') && !a.short('y'));
        assert!(a.long("--force") && a.long("--lines") && !a.long("--line"));
        assert_eq!(a.operands(&["-u"]).iter().map(|o| o.shown()).collect::<Vec<_>>(), ["x", "-y"]);
        assert_eq!(a.value(&["-u"]).as_ref().map(Arg::shown), Some("caddy"));
        assert_eq!(a.value(&["--lines"]).as_ref().map(Arg::shown), Some("5"));
        assert_eq!(identity("/usr/bin/rm"), ("rm", true));
        assert_eq!(identity("./rm"), ("rm", false));
        assert_eq!(identity("/tmp/x/cat"), ("cat", false));
    }

    #[test]
    fn awk_output_redirection_is_told_from_comparison() {
        assert!(awk_redirects_output(&strip_awk_strings(r#"{ print $1 > "/tmp/x" }"#)));
        assert!(!awk_redirects_output(&strip_awk_strings(r#"$3 > 5 { print $1 }"#)));
        assert!(!awk_redirects_output(&strip_awk_strings(r#"{ print ($1 > 5) }"#)));
        assert!(!awk_redirects_output(&strip_awk_strings(r#"{ print "a > b" }"#)));
    }
}
