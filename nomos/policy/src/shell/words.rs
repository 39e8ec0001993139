//! Static evaluation of words: quotes, escapes, `$'…'`, concatenation, variables assigned a
//! literal, `$(echo …)`, and brace lists, as far as they can be known before running.

use tree_sitter::Node;

use super::expand::FIELD;
use super::walk::text;
use super::{Analysis, Arg, MAX_CANDIDATES, MAX_FOLDING, MAX_TREE_DEPTH};

impl Analysis<'_> {
    /// Evaluates a word node statically where the shell would give it a fixed value.
    pub(crate) fn word(&self, node: Node<'_>, src: &str) -> Arg {
        self.word_at(node, src, 0)
    }

    pub(super) fn word_at(&self, node: Node<'_>, src: &str, depth: usize) -> Arg {
        self.word_in(node, src, depth, false)
    }

    /// A word of a command line: what unquoted expansions give is split into words on `IFS`
    /// (several words in one candidate are separated by [`FIELD`]).
    pub(super) fn field_at(&self, node: Node<'_>, src: &str, depth: usize) -> Arg {
        match self.word_in(node, src, depth, true) {
            Arg::Dynamic { text, candidates, complete } => {
                let mut fields: Vec<String> = Vec::new();
                for c in candidates {
                    let words: Vec<&str> = c.split(FIELD).filter(|w| !w.is_empty()).collect();
                    let joined = words.join(&FIELD.to_string());
                    if !fields.contains(&joined) {
                        fields.push(joined);
                    }
                }
                Arg::Dynamic { text, candidates: fields, complete }
            }
            other => other,
        }
    }

    /// `split`: the word is not quoted and its expansions are split into words.
    fn word_in(&self, node: Node<'_>, src: &str, depth: usize, split: bool) -> Arg {
        if depth > MAX_TREE_DEPTH {
            return Arg::unknown(String::new(), Vec::new());
        }
        match node.kind() {
            "word" | "number" => Arg::Static(unescape_word(text(node, src))),
            "raw_string" => Arg::Static(strip_quotes(text(node, src), '\'')),
            "ansi_c_string" => Arg::Static(decode_ansi_c(text(node, src))),
            "string" | "translated_string" => {
                // Each part is read once: reading a nested substitution again per use was
                // exponential in its depth.
                // Text the grammar leaves between its named parts (after a `--` or a `#` inside
                // the quotes, say) is part of the string too: it is taken from the source.
                let open = if node.kind() == "translated_string" { 2 } else { 1 };
                let (mut at, end) = (node.start_byte() + open, node.end_byte().saturating_sub(1));
                let mut parts: Vec<Arg> = Vec::new();
                let mut cursor = node.walk();
                for child in node.named_children(&mut cursor) {
                    if let Some(gap) = src.get(at..child.start_byte()).filter(|g| !g.is_empty()) {
                        parts.push(Arg::Static(unescape_double(gap)));
                    }
                    parts.push(match child.kind() {
                        "string_content" => Arg::Static(unescape_double(text(child, src))),
                        _ => self.word_at(child, src, depth + 1),
                    });
                    at = at.max(child.end_byte());
                }
                if let Some(gap) = src.get(at..end).filter(|g| !g.is_empty()) {
                    parts.push(Arg::Static(unescape_double(gap)));
                }
                if parts.iter().all(|p| p.as_static().is_some()) {
                    Arg::Static(parts.iter().filter_map(Arg::as_static).collect())
                } else {
                    // A double-quoted string with expansions: candidates from its parts.
                    combine(text(node, src), parts.iter().map(|p| (p.values(), p.is_complete())))
                }
            }
            "concatenation" => {
                let mut cursor = node.walk();
                let parts: Vec<Arg> =
                    node.named_children(&mut cursor).map(|c| self.word_in(c, src, depth + 1, split)).collect();
                if parts.iter().all(|p| p.as_static().is_some()) {
                    Arg::Static(parts.iter().filter_map(Arg::as_static).collect())
                } else {
                    combine(text(node, src), parts.iter().map(|p| (p.values(), p.is_complete())))
                }
            }
            "simple_expansion" | "expansion" => {
                let raw = text(node, src);
                let candidates = self.expand_parameter(raw, !split);
                let complete = !candidates.is_empty() && self.settled_reference(raw, node.start_byte());
                Arg::Dynamic { text: raw.to_string(), candidates, complete }
            }
            "command_substitution" => {
                let level = self.folding.get();
                if level >= MAX_FOLDING {
                    return Arg::unknown(text(node, src), Vec::new());
                }
                self.folding.set(level + 1);
                let value = self.substitution_value(node, src, depth);
                self.folding.set(level);
                value
            }
            // A process substitution is a pipe's path (`/dev/fd/63`); what runs in it is walked.
            "process_substitution" => Arg::Static("/dev/fd/63".into()),
            // An arithmetic result is a number, never a path or a program.
            "arithmetic_expansion" => Arg::Static("0".into()),
            _ => Arg::unknown(text(node, src), Vec::new()),
        }
    }

    /// `$(echo rm)` folds to its literal output, as a candidate.
    fn substitution_value(&self, node: Node<'_>, src: &str, depth: usize) -> Arg {
        let mut candidates = Vec::new();
        // `$(pgrep caddy)`, `$(nproc)`: numbers, whichever they are.
        if self.prints_only_numbers(node, src) {
            return Arg::Dynamic { text: text(node, src).to_string(), candidates: vec!["4242".into()], complete: true };
        }
        // `$(hostname)`, `$(uname -r)`: one plain name, whichever it is.
        if self.prints_a_name(node, src) {
            return Arg::Dynamic {
                text: text(node, src).to_string(),
                candidates: vec!["node1".into()],
                complete: true,
            };
        }
        let mut cursor = node.walk();
        let inner: Vec<Node<'_>> = node.named_children(&mut cursor).collect();
        if let [only] = inner.as_slice() {
            if matches!(only.kind(), "command" | "pipeline") {
                let out = self.output_of_at(*only, src, depth + 1);
                if !out.unknown {
                    candidates = out.texts.iter().map(|t| t.trim_end_matches('\n').to_string()).collect();
                }
            }
        }
        Arg::unknown(text(node, src), candidates)
    }
}

/// A word made of parts, each with the values it can take and whether those are all of them: the
/// word's candidates are their combinations (bounded), complete when every part's are.
fn combine<'v>(text: &str, parts: impl Iterator<Item = (Vec<&'v str>, bool)>) -> Arg {
    let mut candidates = vec![String::new()];
    let mut complete = true;
    for (values, whole) in parts {
        complete &= whole;
        if values.is_empty() || candidates.len() * values.len() > MAX_CANDIDATES {
            candidates.clear();
            complete = false;
            break;
        }
        candidates = candidates.iter().flat_map(|c| values.iter().map(move |v| format!("{c}{v}"))).collect();
    }
    Arg::Dynamic { text: text.to_string(), candidates, complete }
}

/// A word computed at run time as the glob of what it may be: quotes removed, every expansion
/// or substitution standing for any text (`/proc/$$/root/etc/shadow` is `/proc/*/root/etc/shadow`).
pub(crate) fn as_glob(text: &str) -> String {
    let b = text.as_bytes();
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    while let Some(&c) = b.get(i) {
        match c {
            b'\'' | b'"' => i += 1,
            b'$' if matches!(b.get(i + 1), Some(b'(' | b'{')) => {
                let (open, close) = if b.get(i + 1) == Some(&b'(') { (b'(', b')') } else { (b'{', b'}') };
                let mut depth = 0usize;
                let mut j = i + 1;
                while let Some(&d) = b.get(j) {
                    if d == open {
                        depth += 1;
                    } else if d == close {
                        depth -= 1;
                        if depth == 0 {
                            break;
                        }
                    }
                    j += 1;
                }
                out.push('*');
                i = j + 1;
            }
            b'$' if b.get(i + 1).is_some_and(|c| c.is_ascii_alphanumeric() || b"_@*#?-$!".contains(c)) => {
                let mut j = i + 2;
                if b.get(i + 1).is_some_and(|n| n.is_ascii_alphabetic() || *n == b'_') {
                    while b.get(j).is_some_and(|n| n.is_ascii_alphanumeric() || *n == b'_') {
                        j += 1;
                    }
                }
                out.push('*');
                i = j;
            }
            b'`' => {
                // Through the closing backtick, or to the end without one.
                let end = text.get(i + 1..).and_then(|r| r.find('`')).map_or(b.len(), |e| i + 1 + e + 1);
                out.push('*');
                i = end;
            }
            _ => {
                let ch = text.get(i..).and_then(|r| r.chars().next()).unwrap_or(' ');
                out.push(ch);
                i += ch.len_utf8();
            }
        }
    }
    out
}

/// `${NAME<op>WORD}` → (NAME, WORD) for the default/assign/alternative operators; `$NAME` → (NAME,
/// None).
pub(super) fn expansion_parts(raw: &str) -> (&str, Option<&str>) {
    let inner = raw.trim_start_matches('$').trim_start_matches('{').trim_end_matches('}');
    let end = inner.find(|c: char| !(c.is_ascii_alphanumeric() || c == '_')).unwrap_or(inner.len());
    let (name, rest) = inner.split_at(end);
    let operand = [":-", ":=", ":+", ":?", "-", "=", "+", "?"].iter().find_map(|op| rest.strip_prefix(op));
    (name, operand)
}

/// The shell command a variable's value is, for the variables whose value programs run as a
/// command (`PAGER`, `EDITOR`, `GIT_SSH_COMMAND`, `LESSOPEN='|cmd %s'` …); `None` for the others.
pub(crate) fn command_variable(name: &str, value: &str) -> Option<String> {
    const COMMANDS: &[&str] = &[
        "PAGER",
        "MANPAGER",
        "GIT_PAGER",
        "SYSTEMD_PAGER",
        "PSQL_PAGER",
        "MYSQL_PAGER",
        "BAT_PAGER",
        "DELTA_PAGER",
        "EDITOR",
        "VISUAL",
        "GIT_EDITOR",
        "SUDO_EDITOR",
        "SYSTEMD_EDITOR",
        "KUBE_EDITOR",
        "GIT_SEQUENCE_EDITOR",
        "BROWSER",
        "GIT_SSH",
        "GIT_SSH_COMMAND",
        "GIT_ASKPASS",
        "SSH_ASKPASS",
        "SUDO_ASKPASS",
        "GIT_EXTERNAL_DIFF",
        "LESSOPEN",
        "LESSCLOSE",
        "PROMPT_COMMAND",
        "RSYNC_RSH",
        "CVS_RSH",
        "MANROFFOPT_CMD",
        "DIFF_CMD",
        "RSYNC_CONNECT_PROG",
        "GIT_PROXY_COMMAND",
        "FZF_DEFAULT_COMMAND",
    ];
    // Any tool's pager or editor (`JOURNAL_PAGER`, `SVN_EDITOR`) is a command it runs; so is a
    // value git is given as configuration (`GIT_CONFIG_VALUE_0`), which a command-valued key
    // (`core.fsmonitor`, `core.pager`, an `!` alias) runs.
    // A password command (`RESTIC_PASSWORD_COMMAND`, `BORG_PASSCOMMAND`) is run to get one; bash's
    // own `BASH_COMMAND` and sudo's `SUDO_COMMAND` only report.
    let by_suffix = ["PAGER", "EDITOR", "_VISUAL", "_RSH", "_COMMAND", "PASSCOMMAND", "_ASKPASS", "_EXTERNAL_DIFF"]
        .iter()
        .any(|s| name.ends_with(s))
        && !matches!(name, "BASH_COMMAND" | "SUDO_COMMAND");
    if name.starts_with("GIT_CONFIG_VALUE_") {
        let command = value.trim_start().trim_start_matches('!');
        return (!command.trim().is_empty()).then(|| command.to_string());
    }
    if !COMMANDS.contains(&name) && !by_suffix {
        return None;
    }
    // rsync's connect program names the host as `%H`.
    let value = &value.replace("%H", "HOST");
    // `less` runs LESSOPEN after a leading `|` (or `||`), with `%s` the file's name.
    let command = value.trim_start_matches('|').replace("%s", "FILE");
    // A browser list is tried in turn (`BROWSER=a:b`).
    let command = if name == "BROWSER" { command.replace(':', ";") } else { command };
    (!command.trim().is_empty()).then_some(command)
}

/// Variables that change which programs run or how they load.
pub(crate) fn dangerous_variable(name: &str) -> Option<String> {
    const NAMES: &[&str] = &[
        "PATH",
        "LD_PRELOAD",
        "LD_LIBRARY_PATH",
        "LD_AUDIT",
        "BASH_ENV",
        "ENV",
        "IFS",
        "PROMPT_COMMAND",
        "SHELLOPTS",
        "BASHOPTS",
        "PS4",
        "PAGER",
        "GIT_PAGER",
        "SYSTEMD_PAGER",
        "MANPAGER",
        "EDITOR",
        "VISUAL",
        "GIT_EXTERNAL_DIFF",
        "GIT_SSH",
        "GIT_SSH_COMMAND",
        "GIT_EDITOR",
        "PYTHONSTARTUP",
        "PYTHONPATH",
        "PERL5OPT",
        "PERL5LIB",
        "NODE_OPTIONS",
        "RUBYOPT",
        "LESSOPEN",
        "LESSCLOSE",
        // Startup files that can set output files, pagers, hooks or engines.
        "LESSKEY",
        "LESSKEYIN",
        "LESSKEY_CONTENT",
        "PSQLRC",
        "WGETRC",
        "CURL_HOME",
        "OPENSSL_CONF",
        "OPENSSL_ENGINES",
        "OPENSSL_MODULES",
    ];
    // Variables that name programs, scripts, configuration or trace files for the tools that read
    // them (GIT_CONFIG_*, ZPOOL_SCRIPTS_*, KUBECTL_EXTERNAL_DIFF, GIT_TRACE=FILE …).
    const HINTS: &[&str] = &[
        "COMMAND", "SCRIPT", "EXEC", "EDITOR", "PAGER", "DEBUGGER", "CONFIG", "TRACE", "ASKPASS", "PRELOAD", "PROXY",
        "HOOK", "DIFF", "SHELL", "_CMD", "OPTS", "OPTIONS",
    ];
    let name = name.split('[').next().unwrap_or(name);
    // Variables every login exports: assigning one changes what later programs are given.
    const EXPORTED: &[&str] = &["HOME", "SHELL", "USER", "LOGNAME", "MAIL", "PWD", "OLDPWD", "TMPDIR", "DISPLAY"];
    if EXPORTED.contains(&name) || name.starts_with("XDG_") || name.starts_with("SSH_") {
        return Some(format!("sets `{name}`, which later programs are given"));
    }
    let upper = name.to_ascii_uppercase();
    let harmless = matches!(
        name,
        "GIT_DIR" | "GIT_WORK_TREE" | "GIT_NAMESPACE" | "GIT_CEILING_DIRECTORIES" | "SYSTEMD_COLORS" | "LESS"
    );
    (!harmless
        && (NAMES.contains(&name)
            || name.starts_with("LD_")
            || name.starts_with("BASH_FUNC_")
            || name.starts_with("GIT_")
            || HINTS.iter().any(|h| upper.contains(h))))
    .then(|| format!("sets `{name}`, which changes what programs run"))
}

/// Why setting `name` to `value` in a program's environment (`NAME=value cmd`, `env NAME=value`,
/// `export NAME=value`) is not known to be inert; `None` when it is. Only a short list of
/// variables is: the locale, the time zone, the terminal's type and size, colours, output formats,
/// a pager that is `cat` — each with a plain value. Any other could make a read tool load code or
/// configuration (`HOME`, `GIT_DIR`, `LESS`, `PERLLIB`, `PYTHONUSERBASE`, `XZ_OPT`, `CEPH_ARGS` …).
pub(crate) fn environment_variable(name: &str, value: Option<&str>) -> Option<String> {
    let plain = |v: &str, extra: &[char]| {
        !v.is_empty()
            && v.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.') || extra.contains(&c))
    };
    let inert = match (name, value) {
        // A locale name with a `/` is a path glibc loads locale data from.
        ("LANG" | "LANGUAGE" | "LC_ALL", Some(v)) => plain(v, &['@', ':']),
        (n, Some(v)) if n.starts_with("LC_") && is_identifier_text(n) => plain(v, &['@']),
        ("TZ", Some(v)) => plain(v, &['/', '+']) && !v.starts_with('/') && !v.contains(".."),
        ("TERM", Some(v)) => plain(v, &['+']),
        ("COLUMNS" | "LINES", Some(v)) => !v.is_empty() && v.chars().all(|c| c.is_ascii_digit()),
        (
            "NO_COLOR" | "CLICOLOR" | "CLICOLOR_FORCE" | "SYSTEMD_COLORS" | "SYSTEMD_URLIFY" | "SYSTEMD_LOG_COLOR"
            | "SYSTEMD_LOG_LEVEL" | "TIME_STYLE" | "BLOCK_SIZE" | "BLOCKSIZE" | "DF_BLOCK_SIZE" | "DU_BLOCK_SIZE"
            | "LS_BLOCK_SIZE" | "QUOTING_STYLE" | "POSIXLY_CORRECT" | "LS_COLORS" | "GREP_COLORS" | "GREP_COLOR",
            Some(_),
        ) => true,
        ("SYSTEMD_PAGER" | "PAGER" | "GIT_PAGER" | "MANPAGER", Some(v)) => matches!(v, "" | "cat"),
        ("DEBIAN_FRONTEND", Some(v)) => v == "noninteractive",
        ("PYTHONDONTWRITEBYTECODE" | "PYTHONUNBUFFERED", Some(_)) => true,
        ("PYTHONIOENCODING", Some(v)) => plain(v, &[':']),
        _ => false,
    };
    (!inert).then(|| match value {
        None => format!("sets `{name}` to a value not known before it runs, in a program's environment"),
        Some(_) => format!("sets `{name}` in a program's environment, which is not known to be inert"),
    })
}

fn is_identifier_text(s: &str) -> bool {
    !s.is_empty() && s.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// A plain word: backslash escapes what follows; a backslash-newline disappears.
fn unescape_word(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut chars = s.chars();
    while let Some(c) = chars.next() {
        if c == '\\' {
            match chars.next() {
                Some('\n') | None => {}
                Some(next) => out.push(next),
            }
        } else {
            out.push(c);
        }
    }
    out
}

/// Inside double quotes a backslash escapes only `$`, `` ` ``, `"`, `\` and newline.
fn unescape_double(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut chars = s.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '\\' {
            match chars.peek() {
                Some('$' | '`' | '"' | '\\') => {
                    if let Some(n) = chars.next() {
                        out.push(n);
                    }
                }
                Some('\n') => {
                    chars.next();
                }
                _ => out.push(c),
            }
        } else {
            out.push(c);
        }
    }
    out
}

fn strip_quotes(s: &str, q: char) -> String {
    s.strip_prefix(q).and_then(|s| s.strip_suffix(q)).unwrap_or(s).to_string()
}

/// The one-letter C escapes `$'…'` and `printf` share (`\n`, `\e`, `\\` …).
pub(super) fn simple_escape(e: char) -> Option<char> {
    match e {
        'n' => Some('\n'),
        't' => Some('\t'),
        'r' => Some('\r'),
        'a' => Some('\x07'),
        'b' => Some('\x08'),
        'e' | 'E' => Some('\x1b'),
        'f' => Some('\x0c'),
        'v' => Some('\x0b'),
        '\\' | '\'' | '"' | '?' => Some(e),
        _ => None,
    }
}

/// `$'…'`: C-style escapes.
fn decode_ansi_c(s: &str) -> String {
    let body = s.strip_prefix("$'").and_then(|b| b.strip_suffix('\'')).unwrap_or(s);
    let mut out = String::with_capacity(body.len());
    let mut chars = body.chars().peekable();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        let Some(e) = chars.next() else { break };
        if let Some(c) = simple_escape(e) {
            out.push(c);
            continue;
        }
        let (radix, max, mut digits) = match e {
            'x' => (16, 2, String::new()),
            'u' => (16, 4, String::new()),
            'U' => (16, 8, String::new()),
            '0'..='7' => (8, 2, e.to_string()),
            _ => {
                out.push('\\');
                out.push(e);
                continue;
            }
        };
        while digits.len() < max + usize::from(radix == 8) {
            match chars.peek() {
                Some(d) if d.is_digit(radix) => {
                    digits.push(*d);
                    chars.next();
                }
                _ => break,
            }
        }
        if let Some(ch) = u32::from_str_radix(&digits, radix).ok().and_then(char::from_u32) {
            out.push(ch);
        }
    }
    out
}

/// `echo`'s text with the common escapes (`-e` style) resolved, for scripts piped into a shell.
pub(super) fn unescape_echo(s: &str) -> String {
    s.replace("\\n", "\n").replace("\\t", "\t")
}

/// The text with each brace list that starts a word outside quotes (`{rm,-rf,/srv}`) replaced by
/// the words bash expands it to, when there is one: in command position bash runs the expansion
/// (`rm -rf /srv`), which the grammar cannot read as a command.
pub(crate) fn brace_commands(text: &str) -> Option<String> {
    let chars: Vec<char> = text.chars().collect();
    let mut out = String::new();
    let mut changed = false;
    let mut quote: Option<char> = None;
    let mut i = 0;
    while let Some(&c) = chars.get(i) {
        let word_start = i == 0 || chars.get(i - 1).is_some_and(|p| p.is_whitespace() || ";|&(`".contains(*p));
        if quote.is_none() && c == '{' && word_start {
            // The word runs to a blank or an operator outside braces.
            let mut depth = 0i32;
            let mut end = i;
            while let Some(&w) = chars.get(end) {
                match w {
                    '{' => depth += 1,
                    '}' => depth -= 1,
                    _ if depth <= 0 && (w.is_whitespace() || ";|&)".contains(w)) => break,
                    _ => {}
                }
                end += 1;
            }
            let word: String = chars.get(i..end).unwrap_or(&[]).iter().collect();
            let expanded = expand_braces(&word);
            if word.contains(',') && expanded.len() > 1 {
                out.push_str(&expanded.join(" "));
                changed = true;
                i = end;
                continue;
            }
        }
        match (quote, c) {
            (None, '\'' | '"') => quote = Some(c),
            (Some(q), _) if q == c => quote = None,
            _ => {}
        }
        out.push(c);
        i += 1;
    }
    changed.then_some(out)
}

/// Expands brace lists (`{a,b}`, `-r{f,}`) the way bash would, up to a bound.
pub(crate) fn expand_braces(word: &str) -> Vec<String> {
    let bytes = word.as_bytes();
    let Some(open) = word.find('{') else { return vec![word.to_string()] };
    // The matching close brace and the top-level commas between.
    let mut depth = 0;
    let mut commas = Vec::new();
    let mut close = None;
    for (i, &b) in bytes.iter().enumerate().skip(open) {
        match b {
            b'{' => depth += 1,
            b'}' => {
                depth -= 1;
                if depth == 0 {
                    close = Some(i);
                    break;
                }
            }
            b',' if depth == 1 => commas.push(i),
            _ => {}
        }
    }
    let Some(close) = close else { return vec![word.to_string()] };
    // `open`, `close` and the commas are offsets of ASCII bytes: the pieces are always there.
    let (Some(prefix), Some(through_close), Some(suffix)) =
        (word.get(..open), word.get(..=close), word.get(close + 1..))
    else {
        return vec![word.to_string()];
    };
    if commas.is_empty() {
        // A range `{a..e}` / `{1..3}` expands; `{x}` stays as written.
        if let Some((a, b)) = word.get(open + 1..close).and_then(|inner| inner.split_once("..")) {
            let items: Option<Vec<String>> =
                match (a.parse::<i64>(), b.parse::<i64>(), a.chars().count(), b.chars().count()) {
                    // A span too wide to count (`{-9223372036854775808..1}`) is not expanded either.
                    (Ok(x), Ok(y), _, _)
                        if x.checked_sub(y).and_then(i64::checked_abs).is_some_and(|d| d < MAX_CANDIDATES as i64) =>
                    {
                        let (lo, hi) = (x.min(y), x.max(y));
                        Some((lo..=hi).map(|n| n.to_string()).collect())
                    }
                    (_, _, 1, 1) => {
                        let (x, y) = (a.chars().next().unwrap_or('a') as u32, b.chars().next().unwrap_or('a') as u32);
                        let (lo, hi) = (x.min(y), x.max(y));
                        (hi - lo < MAX_CANDIDATES as u32)
                            .then(|| (lo..=hi).filter_map(char::from_u32).map(String::from).collect())
                    }
                    _ => None,
                };
            if let Some(items) = items {
                return items
                    .iter()
                    .flat_map(|i| expand_braces(&format!("{prefix}{i}{suffix}")))
                    .take(MAX_CANDIDATES)
                    .collect();
            }
        }
        let rest = expand_braces(suffix);
        return rest.into_iter().map(|r| format!("{through_close}{r}")).collect();
    }
    let mut bounds = vec![open];
    bounds.extend(&commas);
    bounds.push(close);
    let mut out = Vec::new();
    for w in bounds.windows(2) {
        // Full before the next item is expanded: expanding it only to drop it was exponential.
        if out.len() >= MAX_CANDIDATES {
            break;
        }
        let Some(item) = (match *w {
            [from, to] => word.get(from + 1..to),
            _ => None,
        }) else {
            continue;
        };
        for expanded in expand_braces(&format!("{prefix}{item}{suffix}")) {
            if out.len() >= MAX_CANDIDATES {
                return out;
            }
            out.push(expanded);
        }
    }
    out
}

/// The lines a text tool prints when its program shows what they hold: the literal text of awk's,
/// Perl's or Ruby's `print`s and of sed's `s` replacement, with every computed part (`$1`, `$_`,
/// `\1`, `&`, a variable) standing as `X`. `None` when nothing printed is visible (a program read
/// from a file, a print of fields only).
pub(crate) fn printed_template(tool: &str, args: &[Arg]) -> Option<Vec<String>> {
    let sed = tool.ends_with("sed");
    let mut program: Option<&str> = None;
    let mut words = args.iter();
    while let Some(word) = words.next() {
        let w = word.as_static()?;
        match w {
            "-f" | "--file" => return None,
            "-F" | "-v" => {
                words.next();
            }
            "-e" | "--expression" => {
                program = words.next().and_then(Arg::as_static);
                break;
            }
            _ if w.starts_with("-f") && !sed => return None,
            _ if w.starts_with('-') && w.contains('e') && !sed && w.len() > 1 => {
                program = words.next().and_then(Arg::as_static);
                break;
            }
            _ if w.starts_with('-') => {}
            _ => {
                program = Some(w);
                break;
            }
        }
    }
    let program = program?;
    let lines = if sed { sed_replacements(program) } else { print_templates(program) };
    let visible: Vec<String> = lines
        .into_iter()
        .filter(|l| l.chars().filter(|c| c.is_alphabetic()).count().saturating_sub(l.matches('X').count()) >= 2)
        .collect();
    (!visible.is_empty()).then_some(visible)
}

/// What each `print`/`printf`/`puts` statement of awk, Perl or Ruby code prints.
fn print_templates(code: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = code;
    while let Some(at) = ["print", "puts", "say "].iter().filter_map(|w| rest.find(w)).min() {
        let after = rest.get(at..).unwrap_or_default();
        let after = after.trim_start_matches(|c: char| c.is_alphabetic());
        let mut line = String::new();
        let mut chars = after.chars().peekable();
        let mut in_token = false;
        while let Some(c) = chars.next() {
            match c {
                ';' | '}' | '\n' | '|' | '>' => break,
                '"' | '\'' => {
                    in_token = false;
                    while let Some(d) = chars.next() {
                        match d {
                            '\\' => match chars.next() {
                                Some('n') => line.push('\n'),
                                Some('t') => line.push(' '),
                                Some(e) => line.push(e),
                                None => {}
                            },
                            '$' | '@' if c == '"' => {
                                line.push('X');
                                while chars.peek().is_some_and(|e| e.is_alphanumeric() || matches!(e, '_' | '{' | '}'))
                                {
                                    chars.next();
                                }
                            }
                            '#' if c == '"' && chars.peek() == Some(&'{') => {
                                line.push('X');
                                for e in chars.by_ref() {
                                    if e == '}' {
                                        break;
                                    }
                                }
                            }
                            d if d == c => break,
                            d => line.push(d),
                        }
                    }
                }
                ',' => {
                    line.push(' ');
                    in_token = false;
                }
                c if c.is_alphanumeric() || matches!(c, '$' | '_' | '[' | ']' | '.') => {
                    if !in_token {
                        line.push('X');
                        in_token = true;
                    }
                }
                _ => in_token = false,
            }
        }
        out.extend(line.lines().map(str::to_string));
        rest = rest.get(at + 4..).unwrap_or_default();
        if out.len() > 16 {
            break;
        }
    }
    out
}

/// What sed's `s` commands put in a line: the replacement, with `\1` and `&` as `X`, and the rest
/// of the line (`X`) kept where the pattern only anchors (`s/^/cmd /`).
fn sed_replacements(script: &str) -> Vec<String> {
    let mut out = Vec::new();
    for command in script.split([';', '\n']) {
        let command = command.trim();
        let Some(body) = command.strip_prefix('s') else { continue };
        let mut chars = body.chars();
        let Some(delim) = chars.next().filter(|d| !d.is_alphanumeric() && !d.is_whitespace()) else { continue };
        let parts: Vec<&str> = chars.as_str().split(delim).collect();
        let (Some(pattern), Some(replacement)) = (parts.first(), parts.get(1)) else { continue };
        let mut line = String::new();
        let mut rc = replacement.chars();
        while let Some(c) = rc.next() {
            match c {
                '\\' => match rc.next() {
                    Some(d) if d.is_ascii_digit() => line.push('X'),
                    Some('n') => line.push('\n'),
                    Some(d) => line.push(d),
                    None => {}
                },
                '&' => line.push('X'),
                c => line.push(c),
            }
        }
        let line = match *pattern {
            "^" => format!("{line}X"),
            "$" => format!("X{line}"),
            _ => line,
        };
        out.extend(line.lines().map(str::to_string));
    }
    out
}

/// The parts of a text between the separators bash reads outside quotes (`&&`, `||`, `;`, `|`,
/// `&`, newlines), each trimmed; quotes and backslashes are kept as they are within a part.
pub(crate) fn top_level_parts(text: &str) -> Vec<String> {
    let mut parts = Vec::new();
    let mut current = String::new();
    let mut quote: Option<char> = None;
    let mut escaped = false;
    for c in text.chars() {
        if escaped {
            escaped = false;
            current.push(c);
            continue;
        }
        match (quote, c) {
            (Some('\''), '\'') | (Some('"'), '"') => quote = None,
            (Some('"'), '\\') | (None, '\\') => escaped = true,
            (None, '\'' | '"') => quote = Some(c),
            (None, ';' | '&' | '|' | '\n') => {
                if !current.trim().is_empty() {
                    parts.push(current.trim().to_string());
                }
                current.clear();
                continue;
            }
            _ => {}
        }
        current.push(c);
    }
    if !current.trim().is_empty() {
        parts.push(current.trim().to_string());
    }
    parts
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_unescape_like_bash() {
        assert_eq!(unescape_word(r"\rm"), "rm");
        assert_eq!(unescape_word("a\\\nb"), "ab");
        assert_eq!(unescape_double(r#"a\"b\$c\d"#), r#"a"b$c\d"#);
        assert_eq!(decode_ansi_c(r"$'r\x6d'"), "rm");
        assert_eq!(decode_ansi_c(r"$'\162\155'"), "rm");
        assert_eq!(decode_ansi_c(r"$'a\nb'"), "a\nb");
    }

    #[test]
    fn computed_words_as_globs() {
        assert_eq!(as_glob("/proc/$$/root/etc/shadow"), "/proc/*/root/etc/shadow");
        assert_eq!(as_glob("\"/proc/${pid}/root/$(echo etc)/shadow\""), "/proc/*/root/*/shadow");
        assert_eq!(as_glob("$HOME/.ssh/`id -un`"), "*/.ssh/*");
    }

    #[test]
    fn brace_lists_expand() {
        assert_eq!(expand_braces("-r{f,}"), ["-rf", "-r"]);
        assert_eq!(expand_braces("{-rf,/}"), ["-rf", "/"]);
        assert_eq!(expand_braces("a{b,c}d{e,f}"), ["abde", "abdf", "acde", "acdf"]);
        assert_eq!(expand_braces("{1..3}"), ["1", "2", "3"]);
        assert_eq!(expand_braces("/etc/s{h..h}adow"), ["/etc/shadow"]);
        assert_eq!(expand_braces("{x}"), ["{x}"]);
        assert_eq!(expand_braces("${x}"), ["${x}"]);
        assert_eq!(expand_braces("plain"), ["plain"]);
        // Ranges wider than any count stay as written.
        assert_eq!(expand_braces("{9223372036854775807..-1}"), ["{9223372036854775807..-1}"]);
        assert_eq!(expand_braces("{-9223372036854775808..1}"), ["{-9223372036854775808..1}"]);
    }
}
