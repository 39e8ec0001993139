//! Text tools: what reading files means (named at run time, raw disks, trees that hold secrets,
//! pager commands).

use nomos_types::Risk::{ConfigMutation as CM, Destructive as DE};

use super::recursive_read;
use super::Args;
use crate::paths::is_block_device;
use crate::shell::{Analysis, Arg};

/// What reading the files named by `operands` means (the program's verdict is its entry's): a
/// file chosen at run time could be anything, a raw disk holds every secret on it, a recursive
/// read of a tree that holds secrets reads them, and pagers run their own commands.
pub(crate) fn reader(an: &mut Analysis<'_>, base: &str, a: &Args<'_>, operands: &[&Arg]) {
    // Pagers run their own commands given as `+cmd` (`less '+!reboot'`).
    // Moving to a line, the end or a search match (`+G`, `+100`, `+/error`) runs nothing.
    let moves_only = |c: &str| {
        let rest = c.trim_start_matches(|ch: char| ch.is_ascii_digit());
        matches!(rest, "" | "G" | "g" | "%" | "p")
            || (c.starts_with(['/', '?']) && !c.contains(['!', '|']) && !c.contains("\\"))
    };
    if matches!(base, "less" | "more" | "zless" | "zmore")
        && a.all.iter().any(|x| x.shown().strip_prefix('+').is_some_and(|c| x.as_static().is_none() || !moves_only(c)))
    {
        an.raise(CM, format!("`{base} +…` runs pager commands"));
        for x in a.all.iter().filter_map(Arg::as_static) {
            if let Some(cmd) = x.strip_prefix('+').and_then(|c| c.strip_prefix('!')) {
                an.script(cmd);
            }
        }
    }
    // The first operand of a search tool is its pattern, unless the pattern is an option's value.
    let pattern_first =
        matches!(base, "grep" | "egrep" | "fgrep" | "zgrep" | "zegrep" | "zfgrep" | "rg" | "ag" | "ack")
            && a.value(&["-e", "--regexp", "-f", "--file"]).is_none();
    for (k, op) in operands.iter().enumerate() {
        if let Arg::Dynamic { text, .. } = op {
            an.raise(CM, format!("`{base}` reads a file named at run time (`{text}`)"));
        }
        if !(pattern_first && k == 0) {
            for v in op.values() {
                if !an.is_secret(v) && an.is_credential(v) {
                    super::credential_read(an, base, v);
                }
            }
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
        let ops = operands;
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
                        && o.get(1..).is_some_and(|letters| {
                            letters
                                .contains(|c: char| c.is_ascii_digit() || c == 'z' || c == 'A' || c == 'B' || c == 'C')
                        }))
            })
            || a.long("--null-data")
            || a.long("--pre-glob")
            || a.long("--passthru");
        let specific = matches!(base, "grep" | "egrep" | "fgrep" | "zgrep" | "rg" | "ag" | "ack")
            && literal
            && !widened
            && !a.flag('v', "--invert-match");
        if !specific {
            // A search tool's first operand is its pattern, not a place it reads.
            let places = if pattern_first { ops.get(1..).unwrap_or(&[]) } else { ops };
            recursive_read(an, base, places);
        }
    }
    password_search(an, base, a, operands, pattern_first, recursive);
}

/// A search for password-like words through configuration prints the lines holding passwords: over
/// a tree that holds secrets (`grep -ri password /etc`), or through the guests' configurations
/// (`cipassword` in /etc/pve).
fn password_search(an: &mut Analysis<'_>, base: &str, a: &Args<'_>, operands: &[&Arg], first: bool, recursive: bool) {
    const WORDS: &[&str] =
        &["pass", "pwd", "secret", "token", "credential", "apikey", "api_key", "api[_-]?key", "api.key", "private"];
    let mut patterns: Vec<String> = a.values(&["-e", "--regexp"]).iter().map(|p| p.shown().to_lowercase()).collect();
    if first {
        patterns.extend(operands.first().map(|p| p.shown().to_lowercase()));
    }
    if !patterns.iter().any(|p| WORDS.iter().any(|w| p.contains(w))) {
        return;
    }
    let files: Vec<&str> = operands.iter().skip(usize::from(first)).flat_map(|o| o.values()).collect();
    // From its input (`git log -p | grep -i password`): judged with every other filter that asks
    // for secrets, in `disclosure::secret_filter`.
    if files.is_empty() && !recursive {
        return;
    }
    // Through a whole tree, a password-like word finds the configuration files that hold one —
    // wherever the tree is (`/srv`, `/opt/app`, `/var/www`); logs are only logs.
    let exposed = files
        .iter()
        .any(|f| f.starts_with("/etc/pve/") || recursive && an.resolve(f).iter().any(|r| !r.starts_with("/var/log")))
        || (recursive && files.is_empty());
    if exposed {
        an.raise_secret(DE, format!("`{base}` prints the lines that hold passwords or keys"));
    }
}
