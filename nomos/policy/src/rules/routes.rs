//! Code run by other routes, and outages by exhaustion or damage in place: build tools whose text
//! runs shell (`make --eval '$(shell …)'`, a makefile on stdin, `cmake -P`, `cmake -E`),
//! compressors that replace a file the system needs, `dpkg-divert --rename` of a vital binary,
//! `xfs_io` writing into a disk, an image or a vital file, pool rewinds that discard transactions,
//! files or streams sized to fill a filesystem, limits that starve a group of guests or PID 1, and
//! fork bombs in shell text.

use nomos_types::Risk::{ConfigMutation as CM, Destructive as DE};

use crate::paths::{is_access_file, is_block_device, is_irreplaceable, is_login_policy, is_precious, is_vital};
use crate::shell::{Analysis, Arg, Stdin};

/// A size at or above which a file, or a stream of zeros, is meant to fill a filesystem.
const FILLS: u128 = 100 << 30;

/// A file whose loss, or whose contents changed under it, stops booting, logging in, the
/// cluster or a guest.
fn needed(path: &str) -> bool {
    let p = path.trim_end_matches('/');
    is_vital(p)
        || is_access_file(p)
        || is_login_policy(p)
        || is_irreplaceable(p)
        || is_precious(p)
        || is_block_device(p)
        || p.starts_with("/etc/")
        || p == "/etc"
        || p.starts_with("/var/lib/vz/")
        || p.starts_with("/dev/zvol/")
        || ["/usr/sbin/", "/usr/bin/", "/sbin/", "/bin/", "/lib/", "/usr/lib/", "/lib64/", "/boot/"]
            .iter()
            .any(|d| p.starts_with(d))
}

fn statics(args: &[Arg]) -> Vec<&str> {
    args.iter().filter_map(Arg::as_static).collect()
}

/// Raises what `base` does by the routes above; see the module's description.
pub(crate) fn judge(an: &mut Analysis<'_>, base: &str, args: &[Arg], stdin: &Stdin) {
    match base {
        "gzip" | "gunzip" | "bzip2" | "bunzip2" | "xz" | "unxz" | "lzma" | "unlzma" | "pigz" | "unpigz" | "pbzip2"
        | "lbzip2" | "compress" | "uncompress" | "lzip" | "plzip" | "lzop" | "zstd" | "unzstd" | "zstdmt" | "lz4"
        | "unlz4" | "brotli" | "pixz" | "zopfli" => compressor(an, base, args),
        "dpkg-divert" => divert(an, args),
        "xfs_io" => xfs_io(an, args),
        "zpool" => zpool_rewind(an, args),
        "fallocate" => fallocate(an, args),
        "head" => head_fill(an, args),
        "dd" => dd_fill(an, args),
        "lxc-cgroup" => lxc_cgroup(an, args),
        "make" | "gmake" | "bmake" | "remake" => make(an, base, args, stdin),
        "cmake" => cmake(an, args, stdin),
        _ => {}
    }
}

/// Compressors replace each named file with its compressed (or decompressed) form unless they
/// write to standard output, list or test; zstd, lz4, lzop and brotli keep the file unless told
/// to remove it.
fn compressor(an: &mut Analysis<'_>, base: &str, args: &[Arg]) {
    let words = statics(args);
    let mut opts = true;
    let mut flags: Vec<&str> = Vec::new();
    let mut files: Vec<&str> = Vec::new();
    for w in &words {
        if opts && *w == "--" {
            opts = false;
        } else if opts && w.starts_with('-') && w.len() > 1 {
            flags.push(w);
        } else {
            files.push(w);
        }
    }
    let short = |c: char| flags.iter().any(|f| !f.starts_with("--") && f.contains(c));
    let long = |l: &str| flags.iter().any(|f| f.starts_with(l));
    if short('c') || short('l') || short('t') || long("--stdout") || long("--to-stdout") || long("--list") {
        return;
    }
    if long("--test") || long("--help") || long("--version") || short('h') || short('V') {
        return;
    }
    let keeps_by_default = matches!(base, "zstd" | "unzstd" | "zstdmt" | "lz4" | "unlz4" | "lzop" | "brotli");
    let removes =
        long("--rm") || long("--delete") || (base == "lzop" && short('U')) || (base == "brotli" && short('j'));
    if keeps_by_default && !removes {
        return;
    }
    if let Some(f) = files.iter().find(|f| needed(f.trim_end_matches(".gz").trim_end_matches(".bz2"))) {
        an.raise(DE, format!("`{base}` replaces {f} with a compressed copy under another name; what needs it fails"));
    }
}

/// `dpkg-divert --rename` moves the real file aside; a login, init or service binary moved away
/// stops what runs it.
fn divert(an: &mut Analysis<'_>, args: &[Arg]) {
    let words = statics(args);
    if !words.contains(&"--rename") {
        return;
    }
    let mut skip = false;
    for w in &words {
        if skip {
            skip = false;
            continue;
        }
        if matches!(*w, "--divert" | "--package" | "--admindir" | "--instdir" | "--root") {
            skip = true;
            continue;
        }
        if !w.starts_with('-') && needed(w) {
            an.raise(DE, format!("`dpkg-divert --rename` moves {w} aside; what runs it fails"));
            return;
        }
    }
}

/// `xfs_io -c CMD … FILE`: writes, truncates, punches or zeroes in place, or shuts a filesystem down.
fn xfs_io(an: &mut Analysis<'_>, args: &[Arg]) {
    let words = statics(args);
    let mut commands: Vec<String> = Vec::new();
    let mut files: Vec<&str> = Vec::new();
    let mut it = words.iter();
    while let Some(w) = it.next() {
        if matches!(*w, "-c" | "-C" | "-p" | "-m" | "-d") {
            if let Some(v) = it.next() {
                if matches!(*w, "-c" | "-C") {
                    commands.push(v.to_ascii_lowercase());
                }
            }
        } else if let Some(v) = w.strip_prefix("-c").filter(|v| !v.is_empty()) {
            commands.push(v.to_ascii_lowercase());
        } else if !w.starts_with('-') {
            files.push(w);
        }
    }
    if commands.iter().any(|c| c.split_whitespace().next() == Some("shutdown")) {
        an.raise(DE, "`xfs_io shutdown` takes the filesystem down");
    }
    let damages = ["pwrite", "truncate", "fpunch", "fzero", "fcollapse", "finsert", "zero", "funshare", "swapext"];
    if let Some(c) = commands.iter().find(|c| c.split_whitespace().next().is_some_and(|v| damages.contains(&v))) {
        if let Some(f) = files.iter().find(|f| needed(f) || f.ends_with(".raw") || f.ends_with(".qcow2")) {
            an.raise(DE, format!("`xfs_io -c '{c}'` overwrites or cuts {f} in place"));
        }
    }
}

/// `zpool import -T TXG`, `-X`, `-F`; `zpool clear -F`: rewinding a pool discards its last
/// transactions, and what they wrote, for good.
fn zpool_rewind(an: &mut Analysis<'_>, args: &[Arg]) {
    let words = statics(args);
    let Some(verb) = words.iter().find(|w| !w.starts_with('-')) else { return };
    if !matches!(*verb, "import" | "clear") {
        return;
    }
    let rewinds = words.iter().any(|w| {
        w.starts_with('-')
            && !w.starts_with("--")
            && w.chars().skip(1).take_while(char::is_ascii_alphabetic).any(|c| matches!(c, 'T' | 'X' | 'F'))
    });
    let dry = words.iter().any(|w| w.starts_with('-') && !w.starts_with("--") && w.contains('n'));
    if rewinds && !dry {
        an.raise(DE, format!("`zpool {verb}` rewinds the pool, discarding its last transactions for good"));
    }
}

/// A size such as `500G`, `2TiB`, `1e12`, in bytes.
fn size(text: &str) -> Option<u128> {
    let t = text.trim().trim_matches(['"', '\'']);
    let digits: String = t.chars().take_while(char::is_ascii_digit).collect();
    let n: u128 = digits.parse().ok()?;
    let unit: String = t.chars().skip(digits.chars().count()).collect::<String>().to_ascii_lowercase();
    let shift = match unit.trim_end_matches("ib").trim_end_matches('b') {
        "" | "c" => 0,
        "k" => 10,
        "m" => 20,
        "g" => 30,
        "t" => 40,
        "p" => 50,
        "e" => 60,
        _ => return None,
    };
    n.checked_shl(shift)
}

/// A size computed from the free space (`$(df … avail …)`) is meant to fill what is left.
fn from_free_space(arg: &Arg) -> bool {
    match arg {
        Arg::Dynamic { text, .. } => text.contains("df") || text.contains("avail") || text.contains("statvfs"),
        Arg::Static(_) => false,
    }
}

fn fallocate(an: &mut Analysis<'_>, args: &[Arg]) {
    let words = statics(args);
    let mut fills = false;
    for (i, a) in args.iter().enumerate() {
        let w = a.as_static().unwrap_or("");
        let value = if matches!(w, "-l" | "--length") { args.get(i + 1) } else { None };
        if let Some(v) = value {
            fills |= from_free_space(v) || v.as_static().and_then(size).is_some_and(|s| s >= FILLS);
        }
        if let Some(v) = w.strip_prefix("--length=").or_else(|| w.strip_prefix("-l").filter(|v| !v.is_empty())) {
            fills |= size(v).is_some_and(|s| s >= FILLS);
        }
    }
    if fills {
        an.raise(DE, "`fallocate` reserves enough space to fill the filesystem, which stops what writes there");
    }
    let cuts = words.iter().any(|w| {
        matches!(*w, "--punch-hole" | "--collapse-range" | "--zero-range" | "--insert-range")
            || (w.starts_with('-')
                && !w.starts_with("--")
                && w.chars().skip(1).any(|c| matches!(c, 'p' | 'c' | 'z' | 'i')))
    });
    if cuts {
        if let Some(f) = words.iter().rev().find(|w| !w.starts_with('-') && needed(w)) {
            an.raise(DE, format!("`fallocate` punches, zeroes or shifts the contents of {f} in place"));
        }
    }
}

fn endless_source(path: &str) -> bool {
    matches!(path, "/dev/zero" | "/dev/urandom" | "/dev/random")
}

/// `head -c 500G /dev/zero`: a stream big enough to fill a filesystem where it is written.
fn head_fill(an: &mut Analysis<'_>, args: &[Arg]) {
    let words = statics(args);
    if !words.iter().any(|w| endless_source(w)) {
        return;
    }
    let big = words.iter().enumerate().any(|(i, w)| {
        let v = if matches!(*w, "-c" | "--bytes") {
            words.get(i + 1).copied()
        } else {
            w.strip_prefix("--bytes=").or_else(|| w.strip_prefix("-c").filter(|v| !v.is_empty()))
        };
        v.and_then(size).is_some_and(|s| s >= FILLS)
    });
    if big {
        an.raise(DE, "`head` writes a stream big enough to fill a filesystem");
    }
}

/// `dd if=/dev/zero of=FILE` without a count runs until the filesystem is full.
fn dd_fill(an: &mut Analysis<'_>, args: &[Arg]) {
    let words = statics(args);
    let get = |k: &str| words.iter().find_map(|w| w.strip_prefix(k));
    let Some(input) = get("if=") else { return };
    let Some(output) = get("of=") else { return };
    if !endless_source(input) || output.starts_with("/dev/") {
        return;
    }
    let block = get("bs=").or_else(|| get("obs=")).and_then(size).unwrap_or(512);
    let total = get("count=").and_then(|c| size(c).map(|n| n.saturating_mul(block)));
    if total.is_none_or(|t| t >= FILLS) {
        an.raise(DE, format!("`dd` writes {output} until the filesystem is full, which stops what writes there"));
    }
}

/// A cgroup file that limits, freezes or kills every process of its group.
pub(crate) fn cgroup_limit(key: &str) -> bool {
    let name = key.rsplit('/').next().unwrap_or(key);
    matches!(
        name,
        "memory.max"
            | "memory.high"
            | "memory.swap.max"
            | "pids.max"
            | "cpu.max"
            | "cpu.weight"
            | "cpuset.cpus"
            | "cpuset.mems"
            | "io.max"
            | "cgroup.freeze"
            | "cgroup.kill"
            | "cgroup.procs"
            | "memory.limit_in_bytes"
            | "cpu.cfs_quota_us"
            | "freezer.state"
    )
}

/// A write under `/sys/fs/cgroup` that limits, freezes or kills the guests, the services, the
/// sessions or PID 1.
pub(crate) fn cgroup_write(path: &str) -> bool {
    path.strip_prefix("/sys/fs/cgroup/").is_some_and(cgroup_limit)
}

/// `lxc-cgroup -n CT KEY VALUE` sets a limit; with no value it only reads it.
fn lxc_cgroup(an: &mut Analysis<'_>, args: &[Arg]) {
    let words = statics(args);
    let mut ops: Vec<&str> = Vec::new();
    let mut skip = false;
    for w in &words {
        if skip {
            skip = false;
        } else if matches!(*w, "-n" | "--name" | "-P" | "--lxcpath" | "-o" | "--logfile" | "-l" | "--logpriority") {
            skip = true;
        } else if !w.starts_with('-') {
            ops.push(w);
        }
    }
    if let [key, _value, ..] = ops.as_slice() {
        if cgroup_limit(key) {
            an.raise(DE, format!("`lxc-cgroup` sets {key}, which can starve, freeze or kill the container"));
        }
    }
}

/// The shell text make runs: `$(shell …)`, `VAR != …` and recipes (`target: ; cmd`, tab lines).
fn make_shell(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let chars: Vec<char> = text.chars().collect();
    let mut i = 0;
    while let Some(&c) = chars.get(i) {
        i += 1;
        if c == '$' && matches!(chars.get(i), Some('(' | '{')) {
            let rest: String = chars.iter().skip(i + 1).take(6).collect();
            if rest.starts_with("shell") && rest.chars().nth(5).is_some_and(char::is_whitespace) {
                let mut depth = 1;
                let mut body = String::new();
                for &d in chars.iter().skip(i + 7) {
                    match d {
                        '(' | '{' => depth += 1,
                        ')' | '}' => depth -= 1,
                        _ => {}
                    }
                    if depth == 0 {
                        break;
                    }
                    body.push(d);
                }
                out.push(body);
            }
        }
    }
    for line in text.lines() {
        if let Some((_, cmd)) = line.split_once("!=") {
            out.push(cmd.to_string());
        }
        if let Some(recipe) = line.strip_prefix('\t') {
            out.push(recipe.trim_start_matches(['@', '-', '+']).to_string());
        } else if let Some((head, cmd)) = line.split_once(';') {
            if head.contains(':') && !head.contains('=') {
                out.push(cmd.trim().trim_start_matches(['@', '-', '+']).to_string());
            }
        }
    }
    out
}

fn make(an: &mut Analysis<'_>, base: &str, args: &[Arg], stdin: &Stdin) {
    let mut texts: Vec<String> = Vec::new();
    let mut from_stdin = false;
    for (i, a) in args.iter().enumerate() {
        let w = a.as_static().unwrap_or("");
        if matches!(w, "--eval" | "-E") {
            texts.extend(args.get(i + 1).map(|v| v.shown().to_string()));
        } else if let Some(v) = w.strip_prefix("--eval=").or_else(|| w.strip_prefix("-E").filter(|v| !v.is_empty())) {
            texts.push(v.to_string());
        }
        let file = if matches!(w, "-f" | "--file" | "--makefile") {
            args.get(i + 1).and_then(Arg::as_static)
        } else {
            w.strip_prefix("--file=").or_else(|| w.strip_prefix("-f").filter(|v| !v.is_empty()))
        };
        from_stdin |= matches!(file, Some("-" | "/dev/stdin" | "/proc/self/fd/0" | "/dev/fd/0"));
    }
    if from_stdin {
        texts.extend(stdin.texts.iter().cloned());
    }
    for text in &texts {
        let text = text.replace("\\n", "\n").replace("\\t", "\t");
        for cmd in make_shell(&text) {
            an.raise(CM, format!("`{base}` runs shell text given to it"));
            an.script(cmd.trim());
        }
    }
}

/// `cmake -P SCRIPT` (a script on stdin is read) and `cmake -E TOOL`.
fn cmake(an: &mut Analysis<'_>, args: &[Arg], stdin: &Stdin) {
    let words = statics(args);
    if let Some(at) = words.iter().position(|w| *w == "-E") {
        let tool: Vec<&str> = words.iter().skip(at + 1).copied().collect();
        match tool.as_slice() {
            ["rm", rest @ ..] | ["remove", rest @ ..] | ["remove_directory", rest @ ..] => {
                let recursive = tool.first() == Some(&"remove_directory")
                    || rest.iter().any(|w| {
                        w.starts_with("-r")
                            || w.starts_with("-R")
                            || *w == "-rf"
                            || w.contains('r') && w.starts_with('-')
                    });
                let files: Vec<&str> = rest.iter().copied().filter(|w| !w.starts_with('-')).collect();
                an.raise(CM, "`cmake -E` deletes files");
                an.script(&format!("rm {} -- {}", if recursive { "-rf" } else { "-f" }, files.join(" ")));
            }
            ["env", rest @ ..] => {
                let cmd: Vec<&str> =
                    rest.iter().copied().skip_while(|w| w.contains('=') || w.starts_with('-')).collect();
                an.raise(CM, "`cmake -E env` runs a command");
                an.script(&cmd.join(" "));
            }
            _ => {}
        }
    }
    let script = words.iter().position(|w| *w == "-P").and_then(|at| words.get(at + 1)).copied();
    if matches!(script, Some("-" | "/dev/stdin" | "/proc/self/fd/0" | "/dev/fd/0")) {
        for text in &stdin.texts {
            cmake_script(an, text);
        }
    }
}

/// A CMake script: `execute_process(COMMAND …)` runs a command; `file(REMOVE…|WRITE …)` deletes
/// or overwrites.
fn cmake_script(an: &mut Analysis<'_>, text: &str) {
    for call in text.split(')') {
        let Some((name, body)) = call.split_once('(') else { continue };
        let name = name.trim().rsplit(char::is_whitespace).next().unwrap_or("").to_ascii_lowercase();
        let words: Vec<&str> = body.split_whitespace().collect();
        match (name.as_str(), words.as_slice()) {
            ("execute_process", [_, ..]) => {
                for part in body.split("COMMAND").skip(1) {
                    let cmd: Vec<&str> = part
                        .split_whitespace()
                        .take_while(|w| !w.chars().all(|c| c.is_ascii_uppercase() || c == '_') || w.len() < 3)
                        .collect();
                    an.raise(CM, "`cmake` script runs a command");
                    an.script(&cmd.join(" "));
                }
            }
            ("file", [verb, rest @ ..]) => {
                let recursive = *verb == "REMOVE_RECURSE";
                let writes = matches!(*verb, "WRITE" | "REMOVE" | "REMOVE_RECURSE" | "RENAME" | "COPY_FILE");
                if let Some(p) = rest.iter().map(|w| w.trim_matches('"')).find(|p| p.starts_with('/')) {
                    if writes && (needed(p) || recursive && crate::paths::is_broad(p)) {
                        an.raise(DE, format!("`cmake` script deletes or overwrites {p}"));
                    }
                }
            }
            _ => {}
        }
    }
}

/// Fork bombs in shell text: a function that runs itself in a pipe or the background, and a
/// loop without end that starts a background job each time round.
pub(crate) fn shell_exhaustion(an: &mut Analysis<'_>, text: &str) {
    let compact: String = text.split_whitespace().collect::<Vec<_>>().join(" ");
    // `NAME(){ … NAME | NAME & … }`, `function NAME { … }`.
    for (at, _) in compact.match_indices("()") {
        let name = compact.get(..at).unwrap_or("").rsplit([' ', ';', '&', '|', '(']).next().unwrap_or("");
        let name = name.trim();
        if name.is_empty() {
            continue;
        }
        let body: String = compact.get(at + 2..).unwrap_or("").chars().take_while(|c| *c != '}').collect();
        let calls = body
            .split(|c: char| c.is_whitespace() || matches!(c, '|' | '&' | ';' | '{' | '(' | ')'))
            .filter(|w| *w == name)
            .count();
        let spawns = body.contains('|') || body.replace("&&", "").replace(">&", "").replace("&>", "").contains('&');
        if calls >= 1 && spawns {
            an.raise(
                DE,
                format!("`{name}` starts copies of itself without end, a fork bomb that exhausts the machine"),
            );
            return;
        }
    }
    let endless = [
        "while true",
        "while :",
        "while [ 1 ]",
        "while [ 1 -eq 1 ]",
        "while /bin/true",
        "until false",
        "for ((;;))",
        "for (( ; ; ))",
        "while sleep",
    ];
    if let Some(start) = endless.iter().find_map(|e| compact.find(e)) {
        let rest = compact.get(start..).unwrap_or("");
        let body = rest.split_once(" do ").map(|(_, b)| b).unwrap_or("");
        let body = body.split("done").next().unwrap_or("");
        let cleaned = body.replace("&&", "").replace(">&", "").replace("&>", "");
        if cleaned.contains('&') {
            an.raise(DE, "a loop without end starts a background job each time round, exhausting the machine");
        }
    }
}
