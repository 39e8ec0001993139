//! The text of arithmetic expressions and braced expansions, read as bash reads them: which
//! variables an expression names and assigns, and the parts of a `${…}`.

/// `1`, `@`, `*`, `0`: set by whoever runs the script.
pub(super) fn is_positional(name: &str) -> bool {
    name == "@" || name == "*" || (!name.is_empty() && name.bytes().all(|b| b.is_ascii_digit()))
}

/// The parts of a braced expansion `${…}` (given without `${` and `}`).
pub(super) struct Braced<'t> {
    /// `${!x}`.
    pub(super) indirect: bool,
    /// `${#x}`.
    pub(super) length: bool,
    pub(super) name: &'t str,
    /// Byte range of the subscript's text within the inner text, if any.
    pub(super) subscript: Option<(usize, usize)>,
    /// Everything after the name and subscript (the operator and its operands).
    pub(super) rest: &'t str,
    /// Where `rest` starts within the inner text.
    pub(super) rest_at: usize,
}

impl<'t> Braced<'t> {
    pub(super) fn parse(inner: &'t str) -> Braced<'t> {
        let b = inner.as_bytes();
        let mut i = 0;
        let indirect = b.first() == Some(&b'!') && b.len() > 1;
        let length = b.first() == Some(&b'#') && b.len() > 1 && !matches!(b.get(1), Some(b'-' | b'=' | b'?' | b'+'));
        if indirect || length {
            i = 1;
        }
        let start = i;
        match b.get(i) {
            Some(c) if c.is_ascii_alphabetic() || *c == b'_' => {
                while b.get(i).is_some_and(|c| c.is_ascii_alphanumeric() || *c == b'_') {
                    i += 1;
                }
            }
            Some(c) if c.is_ascii_digit() => {
                while b.get(i).is_some_and(u8::is_ascii_digit) {
                    i += 1;
                }
            }
            Some(b'@' | b'*' | b'#' | b'?' | b'-' | b'$' | b'!') => i += 1,
            _ => {}
        }
        // `start` and `i` sit after ASCII bytes (or at the ends): `get` always finds the text.
        let name = inner.get(start..i).unwrap_or_default();
        let mut subscript = None;
        if b.get(i) == Some(&b'[') {
            let end = closing(b, i, b'[', b']');
            subscript = Some((i + 1, end.saturating_sub(1).max(i + 1)));
            i = end;
        }
        Braced { indirect, length, name, subscript, rest: inner.get(i..).unwrap_or_default(), rest_at: i }
    }

    /// The subscript's text (`@`, `*`, an expression).
    pub(super) fn subscript_text(&self, inner: &'t str) -> Option<&'t str> {
        self.subscript.and_then(|(s, e)| inner.get(s..e))
    }

    /// Whether the expansion yields only text its variable holds (or a number): no replacement,
    /// escape decoding, prompt expansion or indirection can make something new of it.
    pub(super) fn keeps_value(&self) -> bool {
        let r = self.rest;
        if self.indirect {
            return false;
        }
        if self.length || r.is_empty() {
            return true;
        }
        let default = [":-", ":=", ":+", ":?", "-", "=", "+", "?"].iter().find_map(|op| r.strip_prefix(op));
        if let Some(word) = default {
            return !word.contains(['$', '`']);
        }
        // Substrings, pattern removal and case changes keep a part of the value as it was.
        matches!(r.as_bytes().first(), Some(b':' | b'#' | b'%' | b'^' | b','))
            || matches!(r, "@Q" | "@U" | "@u" | "@L" | "@a" | "@K" | "@k")
    }
}

/// The index just past the bracket closing the one at `open` (quotes and nesting followed
/// roughly), or the end of the text.
pub(super) fn closing(b: &[u8], open: usize, open_c: u8, close_c: u8) -> usize {
    let mut depth = 0usize;
    let mut i = open;
    let mut quote: Option<u8> = None;
    while let Some(&c) = b.get(i) {
        match quote {
            Some(q) if c == q => quote = None,
            Some(_) if c == b'\\' => i += 1,
            Some(_) => {}
            None if c == b'\\' => i += 1,
            None if c == b'\'' || c == b'"' => quote = Some(c),
            None if c == open_c => depth += 1,
            None if c == close_c => {
                depth = depth.saturating_sub(1);
                if depth == 0 {
                    return i + 1;
                }
            }
            None => {}
        }
        i += 1;
    }
    b.len()
}

fn is_name_start(c: u8) -> bool {
    c.is_ascii_alphabetic() || c == b'_'
}

fn name_end(b: &[u8], mut i: usize) -> usize {
    while b.get(i).is_some_and(|c| c.is_ascii_alphanumeric() || *c == b'_') {
        i += 1;
    }
    i
}

/// What an arithmetic expression refers to.
#[derive(Debug, Default)]
pub(super) struct ArithRefs {
    /// Variables whose values it evaluates.
    pub(super) reads: Vec<String>,
    /// Variables it assigns a number to.
    pub(super) assigns: Vec<String>,
    /// It evaluates a positional parameter or an indirect reference.
    pub(super) opaque: bool,
    /// Command substitutions in its text (byte ranges, delimiters included).
    pub(super) substitutions: Vec<(usize, usize)>,
}

/// Reads an arithmetic expression as bash would for the variables it names.
pub(super) fn arith_refs(text: &str) -> ArithRefs {
    let b = text.as_bytes();
    let mut r = ArithRefs::default();
    let mut i = 0;
    while let Some(&c) = b.get(i) {
        if c == b'$' {
            match b.get(i + 1).copied() {
                Some(b'(') if b.get(i + 2) == Some(&b'(') => i += 3,
                Some(b'(') => {
                    let end = closing(b, i + 1, b'(', b')');
                    r.substitutions.push((i, end));
                    i = end;
                }
                Some(b'{') => {
                    let end = closing(b, i + 1, b'{', b'}');
                    let inner = text.get(i + 2..end.saturating_sub(1)).unwrap_or("");
                    let braced = Braced::parse(inner);
                    if braced.indirect || is_positional(braced.name) {
                        r.opaque = true;
                    } else if !braced.length && braced.name.as_bytes().first().is_some_and(|&c| is_name_start(c)) {
                        r.reads.push(braced.name.to_string());
                    }
                    // A default word is evaluated when the variable is unset.
                    let rest = arith_refs(braced.rest);
                    r.reads.extend(rest.reads);
                    r.opaque |= rest.opaque;
                    // The subscript's names (its substitutions are found as nodes by the caller).
                    if let Some(sub) = braced.subscript_text(inner).filter(|s| *s != "@" && *s != "*") {
                        let sub = arith_refs(sub);
                        r.reads.extend(sub.reads);
                        r.opaque |= sub.opaque;
                    }
                    i = end;
                }
                Some(n) if is_name_start(n) => {
                    let end = name_end(b, i + 1);
                    // From the ASCII name start to the end of the name: `get` always finds it.
                    r.reads.push(text.get(i + 1..end).unwrap_or_default().to_string());
                    i = end;
                }
                Some(n) if n.is_ascii_digit() || n == b'@' || n == b'*' => {
                    r.opaque = true;
                    i += 2;
                }
                _ => i += 1,
            }
        } else if c == b'`' {
            let mut end = i + 1;
            while b.get(end).is_some_and(|&e| !(e == b'`' && b.get(end - 1) != Some(&b'\\'))) {
                end += 1;
            }
            let end = (end + 1).min(b.len());
            r.substitutions.push((i, end));
            i = end;
        } else if c.is_ascii_digit() {
            // A number, in any base (`0x1f`, `16#ff`, `64#@_`).
            while b.get(i).is_some_and(|c| c.is_ascii_alphanumeric() || matches!(c, b'_' | b'#' | b'@')) {
                i += 1;
            }
        } else if is_name_start(c) {
            let end = name_end(b, i);
            // An ASCII name: `get` always finds it.
            let name = text.get(i..end).unwrap_or_default().to_string();
            // What follows the name (and its subscript): an assignment operator?
            let mut j = end;
            if b.get(j) == Some(&b'[') {
                j = closing(b, j, b'[', b']');
            }
            while b.get(j).is_some_and(|c| *c == b' ' || *c == b'\t') {
                j += 1;
            }
            let after = b.get(j..).unwrap_or(&[]);
            let plain = after.first() == Some(&b'=') && after.get(1) != Some(&b'=');
            let compound = ["+=", "-=", "*=", "/=", "%=", "&=", "^=", "|=", "<<=", ">>=", "++", "--"]
                .iter()
                .any(|op| after.starts_with(op.as_bytes()));
            // `i` is at the name's first (ASCII) byte: `get` always finds the text before it.
            let before = text.get(..i).unwrap_or_default().trim_end();
            let prefixed = before.ends_with("++") || before.ends_with("--");
            if plain {
                r.assigns.push(name);
            } else {
                if compound || prefixed {
                    r.assigns.push(name.clone());
                }
                r.reads.push(name);
            }
            i = end;
        } else {
            i += 1;
        }
    }
    r
}

/// The first `:` of a substring's offset that is not inside brackets or a nested expansion.
pub(super) fn top_level_colon(body: &str) -> Option<usize> {
    let mut depth = 0i32;
    for (i, c) in body.bytes().enumerate() {
        match c {
            b'(' | b'[' | b'{' => depth += 1,
            b')' | b']' | b'}' => depth -= 1,
            b':' if depth == 0 => return Some(i),
            _ => {}
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn arithmetic_names_and_assignments() {
        let r = arith_refs("x = y + a[i] * 0x1f + 16#ff + $z + ${w:-v} - $1");
        assert_eq!(r.assigns, ["x"]);
        assert_eq!(r.reads, ["y", "a", "i", "z", "w", "v"]);
        assert!(r.opaque);
        let r = arith_refs("i++, --j, k += 2, l == 3, m <= 4");
        assert_eq!(r.assigns, ["i", "j", "k"]);
        assert_eq!(r.reads, ["i", "j", "k", "l", "m"]);
        let r = arith_refs("a[$(id)] + `id` + $(( 1 ))");
        assert_eq!(r.substitutions.len(), 2);
        assert_eq!(r.reads, ["a"]);
    }

    #[test]
    fn braced_expansions() {
        let b = Braced::parse("!x");
        assert!(b.indirect && b.name == "x" && b.rest.is_empty());
        let b = Braced::parse("a[i+1]:2:3");
        assert_eq!((b.name, b.subscript_text("a[i+1]:2:3"), b.rest), ("a", Some("i+1"), ":2:3"));
        let b = Braced::parse("#a[@]");
        assert!(b.length && b.name == "a");
        assert!(Braced::parse("x:-5").keeps_value() && !Braced::parse("x/a/b").keeps_value());
        assert!(!Braced::parse("x@E").keeps_value() && !Braced::parse("x:-$y").keeps_value());
    }
}
