//! Parameter expansion as bash performs it, on the values a variable is known to hold: the
//! operators (`${x:-w}`, `${x^^}`, `${x,,}`, `${x~~}`, `${x@L}`, `${x@E}`, `${x/a/b}`, `${x//a/b}`,
//! `${x#a}`, `${x%%a}`, `${x:1:3}`, `${#x}`), indirection (`${!x}`, `${!prefix*}`), arrays
//! (`"${a[@]}"`, `"${a[*]}"`, `${a[1]}`) and the splitting of unquoted results on `IFS`. A value
//! that cannot be computed is not a candidate; the word stays unknown.
//!
//! A candidate that bash would split into several words holds them separated by NUL (which no
//! shell word can contain): [`FIELD`].

use super::words::simple_escape;
use super::{Analysis, MAX_CANDIDATES};
use crate::table::glob_matches;

/// Separates the words of a candidate that expands to several.
pub(crate) const FIELD: char = '\0';

/// `IFS` when the text does not set it.
const DEFAULT_IFS: &str = " \t\n";

impl Analysis<'_> {
    /// The values `$…` or `${…}` (as written, `raw`) can take, split into words where bash would
    /// split them (unquoted).
    pub(crate) fn expand_parameter(&self, raw: &str, quoted: bool) -> Vec<String> {
        let values = self.parameter_values(raw, quoted);
        if quoted {
            return values;
        }
        let mut out = Vec::new();
        for ifs in self.ifs_values() {
            for v in &values {
                let mut fields = split_fields(v, &ifs).join(&FIELD.to_string());
                // White space at either end still ends the word it touches: `rm${IFS}-rf` is
                // two words, `rm` and `-rf`.
                let white = |c: char| ifs.contains(c) && c.is_whitespace();
                if v.ends_with(white) {
                    fields.push(FIELD);
                }
                if v.starts_with(white) && !(v.chars().all(white) && fields.starts_with(FIELD)) {
                    fields.insert(0, FIELD);
                }
                if !out.contains(&fields) && out.len() < MAX_CANDIDATES {
                    out.push(fields);
                }
            }
        }
        out
    }

    /// The values `IFS` may have where a word is split: the default, and any it is given.
    pub(crate) fn ifs_values(&self) -> Vec<String> {
        let mut all = vec![DEFAULT_IFS.to_string()];
        if let Some(set) = self.vars.get("IFS") {
            all.extend(set.iter().cloned());
        }
        all
    }

    fn parameter_values(&self, raw: &str, quoted: bool) -> Vec<String> {
        let Some(inner) = raw.strip_prefix("${").and_then(|r| r.strip_suffix('}')) else {
            let name = raw.strip_prefix('$').unwrap_or(raw);
            return self.variable(name);
        };
        // `${#x}`: the length of the value.
        if let Some(name) = inner.strip_prefix('#').filter(|n| is_name(n)) {
            return self.variable(name).iter().map(|v| v.chars().count().to_string()).collect();
        }
        if let Some(rest) = inner.strip_prefix('!') {
            // `${!prefix*}`, `${!prefix@}`: the names of the variables that start so.
            if let Some(prefix) = rest.strip_suffix('*').or_else(|| rest.strip_suffix('@')).filter(|p| is_name(p)) {
                let mut names: Vec<&String> = self.vars.keys().filter(|k| k.starts_with(prefix)).collect();
                names.sort();
                let sep = if rest.ends_with('@') && quoted { FIELD.to_string() } else { " ".to_string() };
                return vec![names.iter().map(|n| n.as_str()).collect::<Vec<_>>().join(&sep)];
            }
            // `${!x}`: the value of the variable whose name is x's value.
            if is_name(rest) {
                return self
                    .variable(rest)
                    .iter()
                    .filter(|n| is_name(n))
                    .flat_map(|n| self.variable(n))
                    .take(MAX_CANDIDATES)
                    .collect();
            }
            return Vec::new();
        }
        let name_end = inner
            .char_indices()
            .find(|(i, c)| {
                !(c.is_ascii_alphanumeric()
                    || *c == '_'
                    || (*i == 0 && matches!(c, '@' | '*' | '?' | '$' | '!' | '-' | '#')))
            })
            .map_or(inner.len(), |(i, _)| i);
        let (name, mut rest) = inner.split_at(name_end);
        let mut values = self.variable(name);
        // `a[@]`, `a[*]`, `a[N]`.
        if let Some(after) = rest.strip_prefix('[') {
            let Some((subscript, tail)) = after.split_once(']') else { return Vec::new() };
            rest = tail;
            values = match self.arrays.get(name) {
                Some(lists) => lists
                    .iter()
                    .filter_map(|elements| match subscript {
                        "@" if quoted => Some(elements.join(&FIELD.to_string())),
                        "@" | "*" => {
                            let sep = self.ifs_values().first().and_then(|i| i.chars().next()).map(String::from);
                            Some(elements.join(sep.as_deref().unwrap_or("")))
                        }
                        n => n.parse::<usize>().ok().and_then(|i| elements.get(i).cloned()),
                    })
                    .collect(),
                None => Vec::new(),
            };
        }
        apply_operator(values, rest)
    }

    /// A variable's known values (`HOME` is a home directory, `IFS` its default).
    fn variable(&self, name: &str) -> Vec<String> {
        let mut values = self.vars.get(name).cloned().unwrap_or_default();
        if values.is_empty() {
            match name {
                "HOME" => values.push("~".into()),
                "IFS" => values.push(DEFAULT_IFS.into()),
                // The running shell.
                "0" | "BASH" | "SHELL" => values.push("bash".into()),
                _ => {}
            }
        }
        // An array named without a subscript is its first element.
        if let Some(lists) = self.arrays.get(name) {
            values = lists.iter().filter_map(|e| e.first().cloned()).collect();
        }
        values
    }
}

fn is_name(s: &str) -> bool {
    !s.is_empty()
        && s.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
        && !s.starts_with(|c: char| c.is_ascii_digit())
}

/// A word inside an operator (`${x:-word}`): literal text with its quotes removed; `None` when it
/// expands something itself.
fn literal(word: &str) -> Option<String> {
    if word.contains(['$', '`']) {
        return None;
    }
    let mut out = String::new();
    let mut chars = word.chars();
    while let Some(c) = chars.next() {
        match c {
            '\'' | '"' => {}
            '\\' => out.extend(chars.next()),
            c => out.push(c),
        }
    }
    Some(out)
}

/// Applies what follows the name in `${name…}` to each of its values.
fn apply_operator(values: Vec<String>, op: &str) -> Vec<String> {
    let map = |f: &dyn Fn(&str) -> Option<String>| -> Vec<String> {
        values.iter().filter_map(|v| f(v)).take(MAX_CANDIDATES).collect()
    };
    if op.is_empty() {
        return values;
    }
    for (prefix, keeps_value) in [(":-", true), ("-", true), (":=", true), ("=", true), (":?", true), ("?", true)] {
        if let Some(word) = op.strip_prefix(prefix) {
            let mut out = if keeps_value { values.clone() } else { Vec::new() };
            out.extend(literal(word));
            return out;
        }
    }
    for prefix in [":+", "+"] {
        if let Some(word) = op.strip_prefix(prefix) {
            return literal(word).map(|w| vec![w, String::new()]).unwrap_or_default();
        }
    }
    match op {
        "^^" => return map(&|v| Some(v.to_uppercase())),
        ",," => return map(&|v| Some(v.to_lowercase())),
        "^" => return map(&|v| Some(first_char(v, char::to_uppercase))),
        "," => return map(&|v| Some(first_char(v, char::to_lowercase))),
        "~~" => return map(&|v| Some(v.chars().map(toggle).collect())),
        "~" => {
            return map(&|v| {
                let mut c = v.chars();
                Some(c.next().map(toggle).into_iter().chain(c).collect())
            })
        }
        "@U" => return map(&|v| Some(v.to_uppercase())),
        "@L" => return map(&|v| Some(v.to_lowercase())),
        "@u" => return map(&|v| Some(first_char(v, char::to_uppercase))),
        "@E" => return map(&|v| Some(ansi_c(v))),
        "@Q" | "@A" | "@K" | "@a" | "@k" | "@P" => return Vec::new(),
        _ => {}
    }
    if let Some(spec) = op.strip_prefix('/') {
        let (mode, spec) = match spec.chars().next() {
            Some('/') => ('g', spec.get(1..).unwrap_or("")),
            Some('#') => ('#', spec.get(1..).unwrap_or("")),
            Some('%') => ('%', spec.get(1..).unwrap_or("")),
            _ => ('1', spec),
        };
        let (pattern, replacement) = spec.split_once('/').unwrap_or((spec, ""));
        let (Some(pattern), Some(replacement)) = (literal(pattern), literal(replacement)) else { return Vec::new() };
        return map(&|v| replace(v, &pattern, &replacement, mode));
    }
    for (prefix, longest, front) in [("##", true, true), ("#", false, true), ("%%", true, false), ("%", false, false)] {
        if let Some(pattern) = op.strip_prefix(prefix) {
            let Some(pattern) = literal(pattern) else { return Vec::new() };
            return map(&|v| Some(remove(v, &pattern, longest, front)));
        }
    }
    if let Some(spec) = op.strip_prefix(':') {
        let (offset, length) = match spec.split_once(':') {
            Some((o, l)) => (o.trim(), Some(l.trim())),
            None => (spec.trim(), None),
        };
        let Ok(offset) = offset.parse::<i64>() else { return Vec::new() };
        let length = match length.map(str::parse::<i64>) {
            Some(Ok(l)) => Some(l),
            Some(Err(_)) => return Vec::new(),
            None => None,
        };
        return map(&|v| substring(v, offset, length));
    }
    Vec::new()
}

fn first_char<I: Iterator<Item = char>>(v: &str, f: impl Fn(char) -> I) -> String {
    let mut c = v.chars();
    c.next().map(|x| f(x).collect::<String>()).unwrap_or_default() + c.as_str()
}

fn toggle(c: char) -> char {
    if c.is_uppercase() {
        c.to_lowercase().next().unwrap_or(c)
    } else {
        c.to_uppercase().next().unwrap_or(c)
    }
}

/// `${x@E}`: backslash escapes as `$'…'` reads them.
fn ansi_c(v: &str) -> String {
    let mut out = String::new();
    let mut chars = v.chars().peekable();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        let Some(e) = chars.next() else { break };
        if let Some(x) = simple_escape(e) {
            out.push(x);
            continue;
        }
        let (radix, max) = match e {
            'x' => (16, 2),
            'u' => (16, 4),
            'U' => (16, 8),
            '0'..='7' => (8, 3),
            _ => {
                out.push('\\');
                out.push(e);
                continue;
            }
        };
        let mut digits = if radix == 8 { e.to_string() } else { String::new() };
        while digits.len() < max {
            match chars.peek() {
                Some(d) if d.is_digit(radix) => {
                    digits.push(*d);
                    chars.next();
                }
                _ => break,
            }
        }
        out.extend(u32::from_str_radix(&digits, radix).ok().and_then(char::from_u32));
    }
    out
}

/// The byte offsets at which a value's characters start, and its length.
fn boundaries(v: &str) -> Vec<usize> {
    v.char_indices().map(|(i, _)| i).chain(std::iter::once(v.len())).collect()
}

/// `${x/pattern/replacement}` and its `//`, `/#`, `/%` forms, the pattern a glob.
fn replace(v: &str, pattern: &str, replacement: &str, mode: char) -> Option<String> {
    if pattern.is_empty() {
        return Some(v.to_string());
    }
    let b = boundaries(v);
    let mut out = String::new();
    let mut start = 0;
    let mut replaced = false;
    while let Some(&from) = b.get(start) {
        if mode == '#' && from != 0 {
            break;
        }
        // The longest match starting here (bash matches the longest).
        let end =
            b.iter().skip(start + 1).rev().find(|&&to| {
                v.get(from..to).is_some_and(|s| glob_matches(pattern, s)) && (mode != '%' || to == v.len())
            });
        match end {
            Some(&to) if !(replaced && mode != 'g') => {
                out.push_str(replacement);
                replaced = true;
                start = b.iter().position(|&x| x == to).unwrap_or(b.len());
            }
            _ => {
                out.push_str(v.get(from..b.get(start + 1).copied().unwrap_or(v.len())).unwrap_or(""));
                start += 1;
            }
        }
    }
    Some(out)
}

/// `${x#p}`, `${x##p}`, `${x%p}`, `${x%%p}`: the shortest or longest matching prefix or suffix
/// removed.
fn remove(v: &str, pattern: &str, longest: bool, front: bool) -> String {
    let piece = |c: usize| if front { v.get(..c) } else { v.get(c..) };
    let matches = |c: &usize| piece(*c).is_some_and(|p| glob_matches(pattern, p));
    // Cuts from the shortest piece to the longest.
    let mut cuts = boundaries(v);
    if !front {
        cuts.reverse();
    }
    let cut = if longest { cuts.iter().rev().copied().find(matches) } else { cuts.iter().copied().find(matches) };
    match (cut, front) {
        (Some(c), true) => v.get(c..).unwrap_or("").to_string(),
        (Some(c), false) => v.get(..c).unwrap_or("").to_string(),
        (None, _) => v.to_string(),
    }
}

/// `${x:offset:length}`, characters counted as bash counts them (negative from the end).
fn substring(v: &str, offset: i64, length: Option<i64>) -> Option<String> {
    let chars: Vec<char> = v.chars().collect();
    let n = i64::try_from(chars.len()).ok()?;
    let start = if offset < 0 { (n + offset).max(0) } else { offset.min(n) };
    let end = match length {
        None => n,
        Some(l) if l < 0 => (n + l).max(start),
        Some(l) => (start + l).min(n),
    };
    let start = usize::try_from(start).ok()?;
    let end = usize::try_from(end).ok()?;
    Some(chars.get(start..end)?.iter().collect())
}

/// Splits a value into fields as bash splits unquoted expansions: on every `IFS` character, runs
/// of `IFS` white space counting as one and trimmed at the ends. An empty `IFS` splits nothing.
pub(crate) fn split_fields(value: &str, ifs: &str) -> Vec<String> {
    if ifs.is_empty() {
        return vec![value.to_string()];
    }
    let white = |c: char| ifs.contains(c) && c.is_whitespace();
    let mut fields = Vec::new();
    let mut current = String::new();
    let mut pending = false;
    let mut chars = value.chars().peekable();
    while chars.peek().is_some_and(|c| white(*c)) {
        chars.next();
    }
    while let Some(c) = chars.next() {
        if ifs.contains(c) {
            // Surrounding IFS white space belongs to this delimiter.
            while chars.peek().is_some_and(|c| white(*c)) {
                chars.next();
            }
            if !white(c) || !current.is_empty() || pending {
                fields.push(std::mem::take(&mut current));
            }
            pending = false;
            if white(c) {
                if let Some(&next) = chars.peek() {
                    if ifs.contains(next) && !white(next) {
                        chars.next();
                        while chars.peek().is_some_and(|c| white(*c)) {
                            chars.next();
                        }
                    }
                }
            }
        } else {
            current.push(c);
            pending = true;
        }
    }
    if pending || !current.is_empty() {
        fields.push(current);
    }
    fields
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn operators_compute_as_bash_does() {
        let one = |v: &str, op: &str| apply_operator(vec![v.to_string()], op);
        assert_eq!(one("REBOOT", ",,"), ["reboot"]);
        assert_eq!(one("REBOOT", "@L"), ["reboot"]);
        assert_eq!(one("REBOOT", "~~"), ["reboot"]);
        assert_eq!(one("reboox", "/%x/t"), ["reboot"]);
        assert_eq!(one("rXeXbXoXoXt", "//X/"), ["reboot"]);
        assert_eq!(one("_reboot", ":1"), ["reboot"]);
        assert_eq!(one("reboot.log", "%.log"), ["reboot"]);
        assert_eq!(one("a.b.c", "%%.*"), ["a"]);
        assert_eq!(one("a.b.c", "#*."), ["b.c"]);
        assert_eq!(one("a.b.c", "##*."), ["c"]);
        assert_eq!(one("\\x72eboot", "@E"), ["reboot"]);
        assert_eq!(one("abc", ":-1"), ["abc", "1"]);
        assert_eq!(one("héllo", ":1:3"), ["éll"]);
        assert_eq!(one("héllo", ": -2"), ["lo"]);
    }

    #[test]
    fn fields_split_on_ifs() {
        assert_eq!(split_fields("rm -rf  /srv", " \t\n"), ["rm", "-rf", "/srv"]);
        assert_eq!(split_fields("rm,-rf,/srv", ","), ["rm", "-rf", "/srv"]);
        assert_eq!(split_fields("a,,b", ","), ["a", "", "b"]);
        assert_eq!(split_fields(" a ", " \t\n"), ["a"]);
        assert_eq!(split_fields("rm -rf", ""), ["rm -rf"]);
    }
}
