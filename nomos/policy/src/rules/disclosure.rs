//! Disclosure at read level: a command that prints material that authenticates — passwords,
//! tokens, keys, cookies, the environment services run with, the rows of user tables, the pages of
//! guest disks, swap and database files — is not read-only, however plain the tool that prints it.
//! Judged by what is printed, whatever program prints it.

use nomos_types::Risk::ConfigMutation as CM;

use crate::paths::{matches_pattern, normalise};
use crate::shell::{Analysis, Arg};

/// Raises what `base` discloses with these arguments (see the module's description).
pub(crate) fn judge(an: &mut Analysis<'_>, base: &str, args: &[Arg]) {
    let words: Vec<&str> = args.iter().map(Arg::shown).collect();
    if let Some(why) = environment(base, args, &words) {
        an.raise_secret(CM, format!("`{base}` {why}"));
    }
    if let Some(why) = dump_or_history(base, &words).or_else(|| tool_secrets(base, &words)) {
        an.raise_secret(CM, format!("`{base}` {why}"));
    }
    if READERS.contains(&base) {
        if let Some(p) = words.iter().find(|w| holds_raw_data(w)) {
            an.raise_secret(
                CM,
                format!(
                    "`{base}` reads `{p}`, whose raw pages (disks, memory, backups, tables) hold passwords and keys"
                ),
            );
        }
    }
    if let Some(why) = credential_search(base, &words).or_else(|| git_credential_search(base, &words)) {
        an.raise_secret(CM, format!("`{base}` {why}"));
    }
    if READERS.contains(&base) || matches!(base, "sqlite3" | "sqlitebrowser" | "litecli" | "sqlite-utils") {
        if let Some(p) = words.iter().find(|w| is_credential_store(w)) {
            an.raise_secret(
                CM,
                format!("`{base}` reads `{p}`, where a browser or application keeps logins and cookies"),
            );
        }
    }
}

/// Files where browsers and applications keep cookies, saved logins and their keys.
fn is_credential_store(path: &str) -> bool {
    let name = path.rsplit('/').next().unwrap_or(path).to_ascii_lowercase();
    matches!(
        name.as_str(),
        "cookies"
            | "cookies.sqlite"
            | "cookies.db"
            | "login data"
            | "login data for account"
            | "web data"
            | "key3.db"
            | "key4.db"
            | "logins.json"
            | "signons.sqlite"
            | "logins.db"
            | "credentials.db"
            | "access_tokens.db"
            | "accounts.db"
    ) || (name.contains("cookie") || name.contains("credential") || name.contains("password") || name.contains("token"))
        && (name.ends_with(".sqlite") || name.ends_with(".sqlite3") || name.ends_with(".db"))
}

/// Whether a search pattern is for credentials: its letters and digits, regex syntax aside
/// (`api[_-]?key`, `pass(word|wd)`, `BEGIN .* PRIVATE KEY`), name one.
pub(crate) fn is_credential_pattern(pattern: &str) -> bool {
    const PIECES: &[&str] = &[
        "pass",
        "secret",
        "token",
        "apikey",
        "private",
        "credential",
        "cookie",
        "bearer",
        "authkey",
        "pwd",
        "accesskey",
        "passphrase",
        "privkey",
    ];
    let letters: String = pattern.chars().filter(|c| c.is_alphanumeric()).collect::<String>().to_lowercase();
    PIECES.iter().any(|x| letters.contains(x))
}

/// `git grep` for credentials prints them from the tree; `git log -p -S`/`-G` for them prints the
/// changes that added or removed them, from all of history.
fn git_credential_search(base: &str, words: &[&str]) -> Option<String> {
    if base != "git" {
        return None;
    }
    let at = words.iter().position(|w| matches!(*w, "grep" | "log" | "show" | "whatchanged" | "reflog" | "diff"))?;
    let sub = words.get(at)?;
    let rest = words.get(at + 1..).unwrap_or(&[]);
    if *sub == "grep" {
        let quiet = rest.iter().any(|w| {
            matches!(*w, "--count" | "--quiet" | "--name-only" | "--files-with-matches" | "--files-without-match")
                || (w.starts_with('-') && !w.starts_with("--") && w.chars().skip(1).any(|c| "lLcq".contains(c)))
        });
        let pattern = rest.iter().find(|w| !w.starts_with('-') && is_credential_pattern(w))?;
        return (!quiet).then(|| format!("searches the repository for `{pattern}`, printing the matching secrets"));
    }
    let mut pickaxe = None;
    for (k, w) in rest.iter().enumerate() {
        let value = match *w {
            "-S" | "-G" => rest.get(k + 1).copied(),
            _ => w.strip_prefix("-S").or_else(|| w.strip_prefix("-G")).filter(|v| !v.is_empty()),
        };
        if let Some(v) = value.filter(|v| is_credential_pattern(v)) {
            pickaxe = Some(v);
        }
    }
    let pattern = pickaxe?;
    git_history_prints_contents(words.get(at..).unwrap_or(&[]))
        .then(|| format!("prints the changes in history that add or remove `{pattern}`, the secrets with them"))
}

/// Whether a variable's name says it holds a credential (`PBS_PASSWORD`, `api_token`, `AWS_SECRET_ACCESS_KEY`).
pub(crate) fn is_secret_variable(name: &str) -> bool {
    let upper = name.to_ascii_uppercase();
    if matches!(upper.as_str(), "PWD" | "OLDPWD" | "KEYMAP") {
        return false;
    }
    upper.split(|c: char| !c.is_ascii_alphanumeric()).any(|w| {
        w.contains("PASSWORD")
            || w.contains("PASSWD")
            || w.contains("PASSPHRASE")
            || w.contains("SECRET")
            || w.contains("TOKEN")
            || w.contains("CREDENTIAL")
            || w.contains("APIKEY")
            || w.contains("COOKIE")
            || matches!(w, "PASS" | "PW" | "PWD" | "KEY" | "PSK" | "BEARER" | "PRIVKEY" | "DSN")
    })
}

/// The variables a word computed at run time expands (`$NAME`, `${NAME…}`), not counting those
/// that yield only names or lengths (`${!NAME*}`, `${#NAME}`).
fn expanded_variables(text: &str) -> Vec<String> {
    let chars: Vec<char> = text.chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while let Some(&c) = chars.get(i) {
        i += 1;
        if c != '$' {
            continue;
        }
        if chars.get(i) == Some(&'{') {
            i += 1;
            if matches!(chars.get(i), Some('!' | '#')) {
                continue;
            }
        }
        let name: String = chars.iter().skip(i).take_while(|c| c.is_ascii_alphanumeric() || **c == '_').collect();
        i += name.chars().count();
        if !name.is_empty() {
            out.push(name);
        }
    }
    out
}

/// Programs whose output is what they are given: a credential expanded among their arguments is printed.
const PRINTERS: &[&str] = &["echo", "printf", "print", "logger", "wall", "banner", "figlet", "toilet", "cowsay"];

/// What prints the environment or a secret-named variable.
fn environment(base: &str, args: &[Arg], words: &[&str]) -> Option<String> {
    const WHOLE: &str = "prints the whole environment, whose passwords and tokens are printed with it";
    let operands: Vec<&str> = words.iter().copied().filter(|w| !w.starts_with('-')).collect();
    let secret_named = || operands.iter().find(|w| is_secret_variable(w.split('=').next().unwrap_or("")));
    match base {
        "env" if env_runs_nothing(words) => Some(WHOLE.into()),
        "printenv" => match secret_named() {
            _ if operands.is_empty() => Some(WHOLE.into()),
            Some(n) => Some(format!("prints `{n}`, a variable named like a credential")),
            None => None,
        },
        // With no names these print every variable; `-p NAME` prints that one.
        "export" | "declare" | "typeset" | "readonly" | "local" => {
            let functions = words.iter().any(|w| w.starts_with('-') && w.contains(['f', 'F']));
            let printing = words.iter().any(|w| w.starts_with('-') && w.contains('p'));
            if operands.is_empty() && !functions && base != "local" {
                Some("prints every variable, passwords and tokens among them".into())
            } else if printing {
                secret_named().map(|n| format!("prints `{n}`, a variable named like a credential"))
            } else {
                None
            }
        }
        "set" if args.is_empty() => Some("prints every variable, passwords and tokens among them".into()),
        _ if PRINTERS.contains(&base) => args
            .iter()
            .filter(|a| a.as_static().is_none())
            .flat_map(|a| expanded_variables(a.shown()))
            .find(|n| is_secret_variable(n))
            .map(|n| format!("prints `${n}`, a variable named like a credential")),
        // jq and its kin read the environment as `$ENV`, `env` or `env(NAME)`.
        "jq" | "gojq" | "jaq" | "yq" if words.iter().any(|w| reads_environment_jq(w)) => {
            Some("reads the environment into its output, passwords and tokens too".into())
        }
        "awk" | "gawk" | "mawk" | "nawk" | "busybox-awk" if words.iter().any(|w| w.contains("ENVIRON")) => {
            Some("prints from `ENVIRON`, the environment with its passwords and tokens".into())
        }
        "systemctl" => {
            let shows_environment = words.contains(&"show-environment")
                || property_values(words).iter().any(|p| p.to_ascii_lowercase().contains("environment"));
            shows_environment.then(|| "prints the environment services are started with, secrets and all".into())
        }
        _ => None,
    }
}

/// `env` given no command prints its environment.
fn env_runs_nothing(words: &[&str]) -> bool {
    let mut i = 0;
    while let Some(w) = words.get(i) {
        i += 1;
        match *w {
            "--" => return words.get(i).is_none(),
            "-u" | "--unset" | "-C" | "--chdir" | "-a" | "--argv0" => i += 1,
            w if w.starts_with("-S") || w.starts_with("--split-string") || w.starts_with("--sp") => return false,
            w if w.starts_with('-') => {}
            w if w.split_once('=').is_some_and(|(n, _)| !n.is_empty() && super::is_identifier(n)) => {}
            _ => return false,
        }
    }
    true
}

/// A jq filter that reads the environment: `$ENV`, `env`, `env(NAME)`, `strenv(NAME)`.
fn reads_environment_jq(filter: &str) -> bool {
    if filter.contains("$ENV") || filter.contains("$__prog_args") {
        return true;
    }
    let chars: Vec<char> = filter.chars().collect();
    let ident = |c: Option<&char>| c.is_some_and(|c| c.is_ascii_alphanumeric() || *c == '_');
    (0..chars.len()).any(|at| {
        if chars.get(at..at + 3) != Some(&['e', 'n', 'v'][..]) {
            return false;
        }
        let before = at.checked_sub(1).and_then(|b| chars.get(b));
        let field = matches!(before, Some('.' | '$' | '"' | '\''));
        let strenv = at.checked_sub(3).and_then(|b| chars.get(b..at)) == Some(&['s', 't', 'r'][..]);
        (strenv || (!ident(before) && !field)) && !ident(chars.get(at + 3))
    })
}

/// `systemctl show -p NAME` / `--property=NAME` values.
fn property_values<'a>(words: &[&'a str]) -> Vec<&'a str> {
    let mut out = Vec::new();
    for (i, w) in words.iter().enumerate() {
        if matches!(*w, "-p" | "--property" | "-P" | "--value") {
            out.extend(words.get(i + 1).copied());
        } else if let Some(v) = w.strip_prefix("--property=").or_else(|| w.strip_prefix("-p").filter(|v| !v.is_empty()))
        {
            out.push(v);
        }
    }
    out
}

/// A database dump of user tables (their password columns with them), or a history of `/etc`
/// (its shadow and key files, every version).
fn dump_or_history(base: &str, words: &[&str]) -> Option<String> {
    let has = |names: &[&str]| words.iter().any(|w| names.iter().any(|n| w == n || w.starts_with(&format!("{n}="))));
    match base {
        "mysqldump" | "mariadb-dump" if !has(&["-d", "--no-data", "-?", "--help", "-V", "--version"]) => {
            Some("prints the tables' rows, user tables with their password hashes and tokens".into())
        }
        "pg_dump" if !has(&["-s", "--schema-only", "-?", "--help", "-V", "--version"]) => {
            Some("prints the tables' rows, user tables with their password hashes and tokens".into())
        }
        "mongoexport" | "mongodump" if !has(&["--help", "--version"]) => {
            Some("prints the collections' documents, user records with their secrets".into())
        }
        "etckeeper" => {
            let at = words.iter().position(|w| *w == "vcs")?;
            git_history_prints_contents(words.get(at + 1..).unwrap_or(&[]))
                .then(|| "prints the contents of `/etc` in its history, password hashes and keys among them".into())
        }
        "git" => {
            let etc = words.windows(2).any(|w| match w {
                ["-C" | "--git-dir" | "--work-tree", dir] => normalise(dir).starts_with("/etc"),
                _ => false,
            }) || words.iter().any(|w| {
                w.strip_prefix("--git-dir=")
                    .or_else(|| w.strip_prefix("--work-tree="))
                    .is_some_and(|d| normalise(d).starts_with("/etc"))
            });
            let sub = words.iter().position(|w| !w.starts_with('-') && !normalise(w).starts_with("/etc"));
            (etc && sub.is_some_and(|i| git_history_prints_contents(words.get(i..).unwrap_or(&[]))))
                .then(|| "prints the contents of `/etc` in its history, password hashes and keys among them".into())
        }
        _ => None,
    }
}

/// A git command that prints file contents or changes (not only names, states or messages).
fn git_history_prints_contents(words: &[&str]) -> bool {
    let Some((sub, rest)) = words.split_first() else { return false };
    let patch = rest.iter().any(|w| {
        matches!(*w, "-p" | "-u" | "--patch" | "--patch-with-stat" | "--patch-with-raw" | "--cc" | "-c" | "--full-diff")
            || w.starts_with("-U")
            || w.starts_with("--unified")
            || w.starts_with("--word-diff")
            || (w.starts_with('-') && !w.starts_with("--") && w.contains('p'))
    });
    // `--stat`, `--name-only` and their kin print names and counts instead of the changes.
    let names_only = rest.iter().any(|w| {
        matches!(
            *w,
            "--stat"
                | "--name-only"
                | "--name-status"
                | "--shortstat"
                | "--numstat"
                | "--summary"
                | "-s"
                | "--no-patch"
                | "--oneline"
                | "--quiet"
                | "-q"
                | "--dirstat"
                | "--compact-summary"
        ) || w.starts_with("--stat=")
    });
    match *sub {
        "show" | "diff" | "whatchanged" => patch || !names_only,
        "cat-file" | "grep" | "blame" | "annotate" | "format-patch" | "archive" | "difftool" | "stash" => true,
        "log" | "reflog" => patch,
        _ => false,
    }
}

/// Tools that print the credentials they keep.
fn tool_secrets(base: &str, words: &[&str]) -> Option<String> {
    let has = |w: &str| words.contains(&w);
    let position = |w: &str| words.iter().position(|x| *x == w);
    match base {
        "proxmox-backup-debug" if words.iter().any(|w| w.starts_with("--decode") || w.starts_with("--keyfile")) => {
            Some("decodes backup data with its key, printing the backed-up files".into())
        }
        "proxmox-backup-debug" if has("recover") || has("key") => Some("reads backup contents or keys".into()),
        "docker" | "podman" | "nerdctl" => {
            let at = position("inspect")?;
            // Only the container's environment holds its secrets: a format naming other fields is fine.
            let format = words.iter().enumerate().find_map(|(i, w)| match *w {
                "-f" | "--format" => words.get(i + 1).copied(),
                w => w.strip_prefix("--format=").or_else(|| w.strip_prefix("-f").filter(|v| !v.is_empty())),
            });
            let leaks = format.is_none_or(|f| {
                let compact: String = f.chars().filter(|c| !c.is_whitespace()).collect();
                compact.contains("Config")
                    || compact.contains("Env")
                    || compact.contains("{{.}}")
                    || compact.contains("json.}}")
                    || compact.contains("Spec")
            });
            // Secrets' values, images, networks and volumes are not shown by inspect.
            let other_object = words
                .get(..at)
                .unwrap_or(&[])
                .iter()
                .any(|w| matches!(*w, "secret" | "image" | "network" | "volume" | "node" | "plugin" | "context"));
            (leaks && !other_object && at <= 2)
                .then(|| "inspect prints the container's configuration, its environment's passwords with it".into())
        }
        "kubectl" | "oc" | "k3s" => {
            let secrets =
                words.iter().any(|w| w.split([',', '/']).any(|r| matches!(r, "secret" | "secrets" | "secret.v1")));
            let output = words.iter().enumerate().find_map(|(i, w)| match *w {
                "-o" | "--output" => words.get(i + 1).copied(),
                w => w.strip_prefix("--output=").or_else(|| w.strip_prefix("-o").filter(|v| !v.is_empty())),
            });
            let full = output.is_some_and(|o| {
                o.starts_with("yaml")
                    || o.starts_with("json")
                    || o.contains("template")
                    || o.starts_with("custom-columns")
                    || o.starts_with("go")
            }) || words.iter().any(|w| w.starts_with("--template"));
            if secrets && ((has("get") && full) || has("describe") || has("edit")) {
                Some("prints the cluster's secrets".into())
            } else if has("config") && has("view") && has("--raw") {
                Some("config view --raw prints the cluster credentials".into())
            } else {
                None
            }
        }
        // From four `-d`s on, zdb prints each object's contents and names down to its blocks.
        "zdb"
            if words
                .iter()
                .filter(|w| w.starts_with('-') && !w.starts_with("--"))
                .map(|w| w.chars().filter(|c| *c == 'd').count())
                .sum::<usize>()
                + words.iter().filter(|w| **w == "--datasets").count()
                >= 4 =>
        {
            Some("dumps the datasets' objects in full detail, file contents among them".into())
        }
        "named-checkconf"
            if words.iter().any(|w| w.starts_with('-') && w.contains('p'))
                && !words.iter().any(|w| w.starts_with('-') && w.contains('x')) =>
        {
            Some("-p prints the configuration with its shared keys".into())
        }
        _ => None,
    }
}

/// Programs that print what they read (whole or in part).
const READERS: &[&str] = &[
    "strings", "cat", "tac", "head", "tail", "less", "more", "most", "xxd", "hexdump", "hd", "od", "zcat", "zless",
    "zmore", "zstdcat", "xzcat", "bzcat", "lz4cat", "lzcat", "grep", "egrep", "fgrep", "zgrep", "zegrep", "rg", "ag",
    "nl", "base64", "base32", "basenc", "gzip", "gunzip", "zstd", "unzstd", "xz", "unxz", "bzip2", "bunzip2", "lz4",
    "lzop", "cut", "fold", "awk", "sed", "tr", "rev", "column",
];

/// Places whose files are raw pages: guest disks and their memory states, swap, backups and
/// dumps, database heap and log files, core dumps — passwords, keys and sessions lie in them.
const RAW_DATA: &[&str] = &[
    "/swapfile",
    "/swap.img",
    "**/*.swap",
    "**/swapfile",
    "**/swap.img",
    "/var/lib/vz/images/**",
    "**/vm-*-disk-*",
    "**/base-*-disk-*",
    "**/vm-*-state-*",
    "**/*.qcow2",
    "**/*.vmdk",
    "**/*.vdi",
    "**/*.vhd",
    "**/*.vhdx",
    "**/*.raw",
    "/dev/zvol/**",
    "/dev/pve/**",
    "/var/lib/vz/dump/**",
    "**/vzdump-*",
    "**/*.vma",
    "**/*.vma.*",
    "**/*.pxar",
    "**/*.didx",
    "**/*.fidx",
    "**/*.blob",
    "**/.chunks/**",
    "/var/lib/postgresql/**",
    "/var/lib/pgsql/**",
    "**/pg_wal/**",
    "/var/lib/mysql/**",
    "**/*.ibd",
    "**/ibdata*",
    "**/ib_logfile*",
    "/var/lib/redis/**",
    "**/*.rdb",
    "**/*.aof",
    "/var/lib/mongodb/**",
    "/var/lib/influxdb/**",
    "/var/crash/**",
    "/var/lib/systemd/coredump/**",
    "/var/lib/apport/coredump/**",
    "**/*.core",
    "**/*.hprof",
    "**/*.dmp",
    "/dev/mem",
    "/dev/kmem",
    "/dev/port",
    "/dev/zram*",
    "**/*.sql",
    "**/*.sql.*",
    "**/*.dump",
];

/// Archives of the system, its configuration or its homes (`root.tar.xz`, `etc-2024.tgz`):
/// printed, they are every file's contents, the shadow file and keys included.
fn system_archive(path: &str) -> bool {
    let name = path.rsplit('/').next().unwrap_or(path).to_ascii_lowercase();
    let suffixes = [".tar.gz", ".tar.xz", ".tar.bz2", ".tar.zst", ".tar.lz4", ".tar", ".tgz", ".txz", ".tbz2", ".tzst"];
    let Some(stem) = suffixes.iter().find_map(|s| name.strip_suffix(s)) else { return false };
    matches!(stem, "root" | "rootfs" | "etc" | "home")
        || ["root-", "root_", "rootfs", "etc-", "etc_", "home-", "home_"].iter().any(|p| stem.starts_with(p))
        || stem.ends_with("-rootfs")
}

/// Whether `path` is one of the raw stores above.
pub(crate) fn holds_raw_data(path: &str) -> bool {
    if !path.contains('/') && !path.contains('.') {
        return false;
    }
    let p = normalise(path);
    system_archive(&p) || RAW_DATA.iter().any(|pattern| matches_pattern(&p, pattern))
}

/// Where applications and their data live.
const APP_TREES: &[&str] =
    &["/srv", "/opt", "/var/www", "/var/lib", "/home", "/root", "/usr/local", "/data", "/mnt", "/etc/pve", "~"];

/// Logs: matches there are events (`Failed password for root`), not stored credentials.
fn is_log(path: &str) -> bool {
    let p = normalise(path);
    p.starts_with("/var/log") || p.starts_with("/run/log") || p.ends_with(".log") || p.contains(".log.")
}

/// A search for password-like keys through files (an application's tree, its configuration):
/// what matches is printed, the values with the keys.
fn credential_search(base: &str, words: &[&str]) -> Option<String> {
    let recursive_by_default = matches!(base, "rg" | "ag" | "ack" | "ack-grep");
    if !recursive_by_default && !matches!(base, "grep" | "egrep" | "fgrep" | "zgrep" | "zegrep") {
        return None;
    }
    let valued_short = ['e', 'f', 'm', 'A', 'B', 'C', 'd', 'D', 'g', 't', 'T', 'j', 'M'];
    let mut patterns: Vec<&str> = Vec::new();
    let mut operands: Vec<&str> = Vec::new();
    let mut recursive = recursive_by_default;
    let mut quiet = false;
    let mut explicit = false;
    let mut i = 0;
    let mut options_end = false;
    while let Some(w) = words.get(i) {
        i += 1;
        if options_end || !w.starts_with('-') || *w == "-" {
            operands.push(*w);
            continue;
        }
        if *w == "--" {
            options_end = true;
            continue;
        }
        if let Some(long) = w.strip_prefix("--") {
            let (name, value) = long.split_once('=').map_or((long, None), |(n, v)| (n, Some(v)));
            match name {
                "regexp" => {
                    explicit = true;
                    patterns.extend(value.or_else(|| words.get(i).copied()));
                    i += usize::from(value.is_none());
                }
                "recursive" | "dereference-recursive" => recursive = true,
                "directories" if value == Some("recurse") => recursive = true,
                "count" | "files-with-matches" | "files-without-match" | "quiet" | "silent" | "files" => quiet = true,
                _ => {}
            }
            continue;
        }
        let cluster: Vec<char> = w.chars().skip(1).collect();
        for (k, c) in cluster.iter().enumerate() {
            match c {
                'r' | 'R' => recursive = true,
                'c' | 'l' | 'L' | 'q' => quiet = true,
                _ => {}
            }
            if valued_short.contains(c) {
                let attached: String = cluster.iter().skip(k + 1).collect();
                let value = if attached.is_empty() { words.get(i).copied() } else { None };
                if *c == 'e' {
                    explicit = true;
                    if let Some(v) = value {
                        patterns.push(v);
                    }
                }
                if *c == 'd' && (attached == "recurse" || value == Some("recurse")) {
                    recursive = true;
                }
                i += usize::from(attached.is_empty());
                break;
            }
        }
    }
    if !explicit && !operands.is_empty() {
        patterns.push(operands.remove(0));
    }
    const PIECES: &[&str] = &[
        "pass",
        "secret",
        "token",
        "apikey",
        "api_key",
        "api-key",
        "private",
        "credential",
        "cookie",
        "bearer",
        "authkey",
        "auth_key",
        "pwd",
    ];
    let credential = patterns.iter().find(|p| {
        let lower = p.to_ascii_lowercase();
        PIECES.iter().any(|x| lower.contains(x)) || is_credential_pattern(p)
    })?;
    // A login event (`Failed password for root`) is what a log search looks for, not a secret.
    let lower = credential.to_ascii_lowercase();
    let event = ["fail", "accept", "invalid", "authentication", "incorrect", "wrong", "expired", "changed"]
        .iter()
        .any(|e| lower.contains(e));
    // Compressed old logs and the installer's logs may hold passwords typed or logged in clear.
    let log_sweep = base.starts_with('z');
    // Files of applications and their trees; a file of the system's own configuration
    // (`/etc/ssh/sshd_config`) is judged by what it is (its secrets are known by path).
    let application = |o: &&str| {
        let p = normalise(o);
        if is_log(o) {
            return (log_sweep || p.starts_with("/var/log/installer")) && !event;
        }
        recursive || crate::paths::has_glob(o) || !p.starts_with('/') || APP_TREES.iter().any(|d| p.starts_with(d))
    };
    let over_files = if operands.is_empty() { recursive } else { operands.iter().any(application) };
    (over_files && !quiet)
        .then(|| format!("searches files for `{credential}`, printing the matching passwords and keys"))
}

/// A text filter whose pattern names a credential or a service's environment (`grep -i pass`,
/// `grep Environment=`, `awk '/token/'`, `sed -n '/secret/p'`) states what it is after: what it
/// prints of configuration, an environment or a program's output piped to it are those secrets.
/// Judged by the filter, whatever feeds it; a search for login events (`Failed password`) and a
/// filter fed only literal text are not.
pub(crate) fn secret_filter(an: &mut Analysis<'_>, base: &str, args: &[Arg], stdin: &crate::shell::Stdin) {
    let words: Vec<&str> = args.iter().map(Arg::shown).collect();
    let seeks = |p: &str| {
        let letters: String = p.chars().filter(|c| c.is_alphanumeric()).collect::<String>().to_lowercase();
        let event = ["fail", "accept", "invalid", "authentication", "incorrect", "wrong", "expired", "changed"]
            .iter()
            .any(|e| letters.contains(e));
        !event && (is_credential_pattern(p) || letters.contains("environment"))
    };
    let (pattern, files) = match base {
        "grep" | "egrep" | "fgrep" | "rg" | "ag" | "ack" => {
            let quiet = words.iter().any(|w| {
                matches!(*w, "--count" | "--quiet" | "--silent" | "--files-with-matches" | "--files-without-match")
                    || (w.starts_with('-') && !w.starts_with("--") && w.chars().skip(1).any(|c| "lLcq".contains(c)))
            });
            if quiet {
                return;
            }
            let mut explicit = Vec::new();
            let mut operands = Vec::new();
            let mut i = 0;
            while let Some(w) = words.get(i) {
                i += 1;
                if matches!(*w, "-e" | "--regexp") {
                    explicit.extend(words.get(i).copied());
                    i += 1;
                } else if let Some(v) = w.strip_prefix("--regexp=") {
                    explicit.push(v);
                } else if matches!(*w, "-m" | "-A" | "-B" | "-C" | "--max-count" | "-f" | "--file") {
                    i += 1;
                } else if !w.starts_with('-') || *w == "-" {
                    operands.push(*w);
                }
            }
            if explicit.is_empty() && !operands.is_empty() {
                explicit.push(operands.remove(0));
            }
            let Some(p) = explicit.into_iter().find(|p| seeks(p)) else { return };
            (p, operands)
        }
        "awk" | "gawk" | "mawk" | "nawk" | "sed" | "gsed" => {
            let program = words.iter().position(|w| !w.starts_with('-'));
            let Some(p) = program.and_then(|k| words.get(k)).copied() else { return };
            // An awk pattern or a sed address selects lines: `/token/`, `$0 ~ "pass"`, `/pass/p`.
            let selects = p.contains('/') || p.contains('~');
            let sed_prints = !base.contains("sed") || words.iter().any(|w| *w == "-n" || w.starts_with("--quiet"));
            if !(selects && sed_prints && seeks(p)) {
                return;
            }
            let files = program.map_or(Vec::new(), |k| words.iter().skip(k + 1).copied().collect());
            (p, files)
        }
        _ => return,
    };
    let logs_only = !files.is_empty() && files.iter().all(|f| is_log(f));
    if files.is_empty() && !stdin.unknown || logs_only {
        return;
    }
    an.raise_secret(CM, format!("`{base}` picks out lines matching `{pattern}`, printing the secrets they hold"));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn secret_variable_names() {
        for n in
            ["PBS_PASSWORD", "api_token", "AWS_SECRET_ACCESS_KEY", "DB_PASS", "MYSQL_PW", "GITHUB_TOKEN", "PGPASSWORD"]
        {
            assert!(is_secret_variable(n), "{n}");
        }
        for n in ["HOME", "PATH", "PWD", "OLDPWD", "LANG", "TERM", "KEYMAP", "HOSTNAME"] {
            assert!(!is_secret_variable(n), "{n}");
        }
    }

    #[test]
    fn expansions_are_found() {
        assert_eq!(expanded_variables("\"$PBS_PASSWORD\""), ["PBS_PASSWORD"]);
        assert_eq!(expanded_variables("x${TOKEN:0:3}y"), ["TOKEN"]);
        assert!(expanded_variables("${!PASS*}").is_empty());
        assert!(expanded_variables("${#PASS}").is_empty());
    }

    #[test]
    fn jq_environment() {
        for f in ["$ENV", "$ENV.HOME", "env", "env.PBS_PASSWORD", "[env]", "strenv(X)", "env(TOKEN)", "é|env"] {
            assert!(reads_environment_jq(f), "{f}");
        }
        for f in [".env", ".environment", ".data.env", "\"env\"", ".[] | .envs", "environment"] {
            assert!(!reads_environment_jq(f), "{f}");
        }
    }
}
