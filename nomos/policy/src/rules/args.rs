//! The argument list of one program invocation, with the option helpers the rules written as code
//! share: short options in clusters, long options abbreviated, values attached or separate.

use crate::shell::Arg;

/// The argument list with the helpers every rule needs.
pub(crate) struct Args<'a> {
    pub(crate) all: &'a [Arg],
}

impl<'a> Args<'a> {
    pub(crate) fn new(all: &'a [Arg]) -> Self {
        Args { all }
    }

    /// Option words before `--`. A word computed at run time does not end the options (getopt keeps
    /// reading after it), and its known values that look like options count as options.
    pub(crate) fn options(&self) -> impl Iterator<Item = &'a str> + 'a {
        self.all
            .iter()
            .take_while(|a| a.as_static() != Some("--"))
            .flat_map(|a| a.values())
            .filter(|s| s.starts_with('-') && *s != "--")
    }

    /// A short option, alone or in a cluster (`-r`, `-rf`, `-fR`).
    pub(crate) fn short(&self, c: char) -> bool {
        self.options().any(|o| {
            !o.starts_with("--")
                && o.len() > 1
                && o.get(1..)
                    .is_some_and(|letters| letters.chars().all(|x| x.is_ascii_alphanumeric()) && letters.contains(c))
        })
    }

    /// Short options letter by letter, in order, as getopt reads clusters: a letter in `required`
    /// takes the rest of the word or the next word as its value, one in `optional` takes the rest
    /// of the word (so `-LZ` is `-L` with the value `Z`, not `-L -Z`). Long options are left out.
    pub(crate) fn short_options(&self, required: &str, optional: &str) -> Vec<(char, Option<&'a str>)> {
        let mut out = Vec::new();
        let mut i = 0;
        while let Some(arg) = self.all.get(i) {
            i += 1;
            let Some(word) = arg.as_static() else { continue };
            if word == "--" {
                break;
            }
            if !word.starts_with('-') || word.starts_with("--") || word.len() < 2 {
                continue;
            }
            let mut letters = word.chars();
            letters.next(); // The `-`.
            while let Some(c) = letters.next() {
                let rest = letters.as_str();
                if required.contains(c) {
                    let value = if rest.is_empty() {
                        i += 1;
                        self.all.get(i - 1).and_then(Arg::as_static)
                    } else {
                        Some(rest)
                    };
                    out.push((c, value));
                    break;
                }
                if optional.contains(c) {
                    out.push((c, Some(rest).filter(|r| !r.is_empty())));
                    break;
                }
                out.push((c, None));
            }
        }
        out
    }

    /// A long option, bare or with `=value`, also abbreviated: getopt accepts any unique prefix
    /// (`--se` for `--set`). A prefix that is not unique is an error for the program, so treating
    /// every prefix as a match never misses an option that takes effect.
    pub(crate) fn long(&self, name: &str) -> bool {
        self.options().any(|o| long_matches(o, name))
    }

    pub(crate) fn flag(&self, short: char, long: &str) -> bool {
        self.short(short) || self.long(long)
    }

    /// Any of these words before `--` (long ones also abbreviated).
    pub(crate) fn any(&self, words: &[&str]) -> bool {
        self.options().any(|o| words.iter().any(|w| o == *w || (w.starts_with("--") && long_matches(o, w))))
    }

    /// A long option starting with this prefix (`--vacuum-` matches `--vacuum-size=1G`), or an
    /// abbreviation that could stand for one (`--del` for `--delete-after`).
    pub(crate) fn long_prefix(&self, prefix: &str) -> bool {
        self.options().any(|o| {
            let key = o.split('=').next().unwrap_or(o);
            o.starts_with("--") && (key.starts_with(prefix) || (key.len() >= 3 && prefix.starts_with(key)))
        })
    }

    /// Words that are not options, skipping the values of `valued` options. Everything after `--`
    /// is an operand.
    pub(crate) fn operands(&self, valued: &[&str]) -> Vec<&'a Arg> {
        let mut out = Vec::new();
        let mut i = 0;
        let mut after_dashes = false;
        while let Some(arg) = self.all.get(i) {
            i += 1;
            if after_dashes {
                out.push(arg);
                continue;
            }
            match arg.as_static() {
                Some("--") => after_dashes = true,
                Some(s) if s.starts_with('-') && s.len() > 1 => {
                    if valued.contains(&s) || cluster_ends_in_valued(s, valued) {
                        i += 1;
                    }
                }
                _ => out.push(arg),
            }
        }
        out
    }

    /// The first operand as a static word (a subcommand), and its index in the list.
    pub(crate) fn sub(&self, valued: &[&str]) -> Option<(usize, &'a str)> {
        let first = *self.operands(valued).first()?;
        let index = self.all.iter().position(|a| std::ptr::eq(a, first))?;
        Some((index, first.as_static()?))
    }

    /// The value of an option: `-o X`, `-oX`, `--out X`, `--out=X`.
    pub(crate) fn value(&self, names: &[&str]) -> Option<Arg> {
        self.values(names).into_iter().next()
    }

    pub(crate) fn values(&self, names: &[&str]) -> Vec<Arg> {
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
                    let flag = n.as_bytes().get(1).map(|&b| b as char);
                    if let Some((_, rest)) = flag.and_then(|flag| s.get(1..)?.split_once(flag)) {
                        if rest.is_empty() {
                            out.extend(next(i));
                        } else {
                            out.push(Arg::Static(rest.to_string()));
                        }
                    }
                } else if let Some(value) =
                    s.strip_prefix(*n).and_then(|r| r.strip_prefix('=')).filter(|_| !n.starts_with("--") && n.len() > 2)
                {
                    out.push(Arg::Static(value.to_string()));
                }
            }
        }
        out
    }

    pub(crate) fn tail_from(&self, index: usize) -> &'a [Arg] {
        self.all.get(index..).unwrap_or(&[])
    }

    /// The arguments before `index` (all of them when it is past the end).
    pub(crate) fn head_to(&self, index: usize) -> &'a [Arg] {
        self.all.get(..index).unwrap_or(self.all)
    }
}

/// A shell variable name.
pub(crate) fn is_identifier(s: &str) -> bool {
    !s.is_empty()
        && s.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
        && !s.starts_with(|c: char| c.is_ascii_digit())
}

/// Whether the long option `o` (maybe `--name=value`, maybe abbreviated) names `name`.
pub(crate) fn long_matches(o: &str, name: &str) -> bool {
    let key = o.split('=').next().unwrap_or(o);
    key == name || (key.starts_with("--") && key.len() >= 3 && name.starts_with(key))
}

/// `-zvw` of `nc -zvw 2 host 80`: in a cluster of short options, the first that takes a value
/// takes the rest of the word, or the next word when it is last.
fn cluster_ends_in_valued(word: &str, valued: &[&str]) -> bool {
    let Some(letters) = word.strip_prefix('-').filter(|l| !l.starts_with('-')) else { return false };
    let mut chars = letters.chars();
    while let Some(c) = chars.next() {
        let mut short = [0u8; 4];
        let short = format!("-{}", c.encode_utf8(&mut short));
        if valued.contains(&short.as_str()) {
            return chars.as_str().is_empty();
        }
    }
    false
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
    }
}
