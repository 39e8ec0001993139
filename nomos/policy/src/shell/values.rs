//! What the shell's builtins put into variables and which of their words bash evaluates: `read`,
//! `mapfile`, `printf -v`, `getopts`, `wait -p`, `let`, `test -v`, `unset`, declarations; and
//! whether a word's value is known before the command runs.

use tree_sitter::Node;

use super::arith::Braced;
use super::sinks::{base_name, Eval};
use super::walk::text;
use super::{Analysis, Arg, Stdin, MAX_CANDIDATES, MAX_TREE_DEPTH};

/// The attributes a declaration gives (`declare -i`, `local -A`, `typeset -n`).
#[derive(Debug, Clone, Copy, Default)]
pub(super) struct Attributes {
    pub(super) integer: bool,
    pub(super) assoc: bool,
    pub(super) nameref: bool,
}

impl Attributes {
    /// From the option words of a declaration (`-i`, `-ia`, `-gA`; `+i` removes, which changes
    /// nothing already evaluated).
    pub(super) fn of<'w>(words: impl Iterator<Item = &'w str>) -> Attributes {
        let mut a = Attributes::default();
        for w in words.filter(|w| w.starts_with('-') && w.len() > 1) {
            a.integer |= w.contains('i');
            a.assoc |= w.contains('A');
            a.nameref |= w.contains('n');
        }
        a
    }
}

impl Analysis<'_> {
    /// Whether every value `node` can take is known before it runs (its literal values are its
    /// candidates, or it is a number), and the variables it is built from, which must be known
    /// too. `None`: it is not.
    pub(super) fn known_from(&self, node: Node<'_>, src: &str) -> Option<Vec<String>> {
        let mut deps = Vec::new();
        self.known_from_at(node, src, 0, &mut deps).then_some(deps)
    }

    fn known_from_at(&self, node: Node<'_>, src: &str, depth: usize, deps: &mut Vec<String>) -> bool {
        if depth > MAX_TREE_DEPTH {
            return false;
        }
        match node.kind() {
            "word"
            | "number"
            | "raw_string"
            | "ansi_c_string"
            | "string_content"
            | "arithmetic_expansion"
            | "process_substitution" => true,
            "string" | "translated_string" | "concatenation" | "array" => {
                let mut cursor = node.walk();
                let children: Vec<Node<'_>> = node.named_children(&mut cursor).collect();
                children.into_iter().all(|c| self.known_from_at(c, src, depth + 1, deps))
            }
            "simple_expansion" => {
                let name = text(node, src).trim().trim_start_matches('$');
                reference_known(name, deps)
            }
            "expansion" => {
                let raw = text(node, src).trim();
                let inner = raw.strip_prefix("${").and_then(|r| r.strip_suffix('}')).unwrap_or("");
                let braced = Braced::parse(inner);
                braced.keeps_value() && (braced.length || reference_known(braced.name, deps))
            }
            "command_substitution" => {
                self.prints_only_numbers(node, src) || !self.word_at(node, src, depth + 1).values().is_empty()
            }
            _ => false,
        }
    }

    /// A command substitution whose output can only be numbers (`$(nproc)`, `$(wc -l < f)`,
    /// `$(seq 1 5)`, `$(date +%s)`, `$(id -u)`).
    pub(super) fn prints_only_numbers(&self, node: Node<'_>, src: &str) -> bool {
        let mut cursor = node.walk();
        let inner: Vec<Node<'_>> = node.named_children(&mut cursor).collect();
        let [only] = inner.as_slice() else { return false };
        // In a pipeline, the last stage prints; filters that only pick, order or separate what
        // they are given (`pidof kvm | tr ' ' ,`, `| cut -d' ' -f1`) print numbers when fed them.
        let mut stage = *only;
        while stage.kind() == "pipeline" {
            let mut cursor = stage.walk();
            let stages: Vec<Node<'_>> = stage.named_children(&mut cursor).collect();
            let source = stages.iter().rev().find(|s| !self.keeps_numbers(**s, src));
            let Some(source) = source.or(stages.first()) else { return false };
            stage = *source;
        }
        if self.first_column_of_guests(*only, src) {
            return true;
        }
        if stage.kind() == "redirected_statement" {
            match stage.child_by_field_name("body") {
                Some(body) => stage = body,
                None => return false,
            }
        }
        if stage.kind() != "command" {
            return false;
        }
        let words = self.words_at(stage, src, 0);
        let statics: Option<Vec<&str>> = words.iter().map(Arg::as_static).collect();
        let Some(statics) = statics else { return false };
        let Some((program, args)) = statics.split_first() else { return false };
        let digits = |w: &str| {
            !w.is_empty() && w.trim_start_matches(['-', '+']).bytes().all(|b| b.is_ascii_digit() || b == b'.')
        };
        match *program {
            "nproc" => args.iter().all(|a| a.starts_with("--") || digits(a)),
            // Counts, without file names (those are printed beside them).
            "wc" => args.iter().all(|a| {
                matches!(*a, "-l" | "-c" | "-w" | "-m" | "-L" | "--lines" | "--bytes" | "--words" | "--chars")
            }),
            "seq" => args.iter().all(|a| digits(a)),
            // Process ids (without the names `-l`/`-a` add).
            "pgrep" => args.iter().all(|a| {
                !(a.starts_with("--list") || (a.starts_with('-') && !a.starts_with("--") && a.contains(['l', 'a'])))
            }),
            "pidof" => true,
            // `lsof -t` prints only process ids; `fuser` prints them (its names go to stderr).
            "lsof" => args.iter().any(|a| a.starts_with('-') && !a.starts_with("--") && a.contains('t')),
            "fuser" => args.iter().all(|a| !a.starts_with('-') || !a.contains(['k', 'v'])),
            // A pid file.
            "cat" => matches!(args, [f] if f.ends_with(".pid")),
            "id" => matches!(args, ["-u" | "-g" | "-ru" | "-rg" | "-ur" | "-gr"]),
            // `stat -c %Y FILE`: times, sizes, counts and ids, never the file's name.
            "stat" => stat_prints_numbers(args),
            "date" => matches!(args, [f] if f.strip_prefix('+').is_some_and(|f| {
                let mut chars = f.chars();
                let mut ok = true;
                while let Some(c) = chars.next() {
                    ok &= match c {
                        '%' => chars.next().is_some_and(|d| "sNHMSdmYjuwyeklIVUWGgCq".contains(d)),
                        c => c.is_ascii_digit(),
                    };
                }
                ok
            })),
            _ => false,
        }
    }

    /// `LIST | awk 'PROGRAM'`: the listing command's words and the awk program with its blanks
    /// taken out, when the pipeline is exactly that and every word is known.
    fn listing_through_awk(&self, node: Node<'_>, src: &str) -> Option<(Vec<String>, String)> {
        if node.kind() != "pipeline" {
            return None;
        }
        let mut cursor = node.walk();
        let stages: Vec<Node<'_>> = node.named_children(&mut cursor).collect();
        let statics = |stage: &Node<'_>| -> Option<Vec<String>> {
            if stage.kind() != "command" {
                return None;
            }
            self.words_at(*stage, src, 0).iter().map(|w| w.as_static().map(str::to_string)).collect()
        };
        let [list, pick] = stages.as_slice() else { return None };
        let (list, pick) = (statics(list)?, statics(pick)?);
        match pick.as_slice() {
            [awk, program] if matches!(awk.as_str(), "awk" | "gawk" | "mawk") => {
                Some((list, program.split_whitespace().collect()))
            }
            _ => None,
        }
    }

    /// `pct list | awk 'NR>1 {print $1}'`: the first column of a guest listing, its header
    /// skipped, is the guests' numeric ids.
    fn first_column_of_guests(&self, node: Node<'_>, src: &str) -> bool {
        let Some((list, program)) = self.listing_through_awk(node, src) else { return false };
        let lists_guests = matches!(list.first().map(String::as_str), Some("pct" | "qm"))
            && list.get(1).map(String::as_str) == Some("list")
            && list.iter().skip(2).all(|w| w.starts_with('-'));
        lists_guests && matches!(program.as_str(), "NR>1{print$1}" | "NR!=1{print$1}" | "NR>=2{print$1}")
    }

    /// `loginctl | awk 'NR==2 {print $1}'`: a field of a session listing is a session id, a user
    /// or seat name, one word of letters and digits.
    fn session_field(&self, node: Node<'_>, src: &str) -> bool {
        let Some((list, program)) = self.listing_through_awk(node, src) else { return false };
        let lists = list.first().map(String::as_str) == Some("loginctl")
            && list
                .iter()
                .skip(1)
                .all(|w| w.starts_with("--no-") || matches!(w.as_str(), "list-sessions" | "list-users" | "list-seats"));
        let pattern = program.strip_suffix("{print$1}").unwrap_or("?");
        let line = |p: &str| p.bytes().all(|b| b.is_ascii_digit()) && !p.is_empty();
        lists
            && (pattern.is_empty()
                || pattern.strip_prefix("NR==").is_some_and(line)
                || pattern.strip_prefix("NR>").is_some_and(line)
                || pattern.strip_prefix("NR>=").is_some_and(line))
    }

    /// A pipeline stage that, fed only numbers, prints only numbers and separators: `tr` between
    /// blanks and punctuation, `cut` of fields, `head`, `tail`, `sort`, `uniq`, `paste`.
    fn keeps_numbers(&self, stage: Node<'_>, src: &str) -> bool {
        if stage.kind() != "command" {
            return false;
        }
        let words = self.words_at(stage, src, 0);
        let statics: Option<Vec<&str>> = words.iter().map(Arg::as_static).collect();
        let Some(statics) = statics else { return false };
        let Some((program, args)) = statics.split_first() else { return false };
        let separators = |w: &str| w.replace("\\n", "").replace("\\t", "").chars().all(|c| " ,:;\t\n".contains(c));
        let options_or_digits = |w: &&str| w.starts_with('-') || w.bytes().all(|b| b.is_ascii_digit());
        match *program {
            "tr" => args.iter().all(|a| matches!(*a, "-d" | "-s" | "-ds" | "-sd") || separators(a)),
            "cut" => args.iter().all(|a| {
                let a = a.strip_prefix("-f").or_else(|| a.strip_prefix("-d")).unwrap_or(a);
                a.chars().all(|c| c.is_ascii_digit() || " ,-:;\t".contains(c))
            }),
            "head" | "tail" => args.iter().all(options_or_digits),
            "sort" | "uniq" => args.iter().all(|a| a.starts_with('-') && a.chars().skip(1).all(|c| "nurb".contains(c))),
            "paste" => args.iter().all(|a| matches!(*a, "-s" | "-d," | "-sd," | "-d" | "," | "-sd" | "-d ")),
            _ => false,
        }
    }

    /// A command substitution whose output is one plain name (`$(hostname)`, `$(uname -r)`,
    /// `$(whoami)`): letters, digits, `.`, `-`, `_` and nothing else.
    pub(super) fn prints_a_name(&self, node: Node<'_>, src: &str) -> bool {
        let mut cursor = node.walk();
        let inner: Vec<Node<'_>> = node.named_children(&mut cursor).collect();
        let [only] = inner.as_slice() else { return false };
        if self.session_field(*only, src) {
            return true;
        }
        if only.kind() != "command" {
            return false;
        }
        let words = self.words_at(*only, src, 0);
        let statics: Option<Vec<&str>> = words.iter().map(Arg::as_static).collect();
        match statics.as_deref() {
            Some(["hostname"] | ["whoami"]) => true,
            Some(["hostname", o]) => matches!(*o, "-s" | "-f" | "-d" | "--short" | "--fqdn" | "--domain"),
            Some(["uname", o]) => matches!(*o, "-r" | "-n" | "-m" | "-s" | "-o" | "-p" | "-i"),
            Some(["id", o]) => matches!(*o, "-un" | "-gn" | "-nu" | "-ng"),
            _ => false,
        }
    }

    /// What a declaration (`declare`, `local`, `typeset`, `export`, `readonly`) sets up for later
    /// evaluation: integer and associative variables, and namerefs, whose target is a name.
    pub(super) fn declaration_values(&mut self, node: Node<'_>, src: &str) {
        let mut cursor = node.walk();
        let children: Vec<Node<'_>> = node.named_children(&mut cursor).collect();
        let flags: Vec<String> = children
            .iter()
            .filter(|c| c.kind() == "word")
            .filter_map(|c| self.word(*c, src).as_static().map(str::to_string))
            .collect();
        let attributes = Attributes::of(flags.iter().map(String::as_str));
        for child in children {
            let (name, value) = match child.kind() {
                "variable_assignment" => (
                    child.child_by_field_name("name").map(|n| text(n, src).to_string()).unwrap_or_default(),
                    child.child_by_field_name("value"),
                ),
                "variable_name" => (text(child, src).to_string(), None),
                _ => match self.word(child, src) {
                    // `declare "x=…"`: a quoted assignment.
                    Arg::Static(w) if !w.starts_with(['-', '+']) => {
                        let (name, value) = w.split_once('=').unwrap_or((&w, ""));
                        if w.contains('=') {
                            self.set_var(name, &[value.to_string()], Some(Vec::new()), false);
                        }
                        (name.to_string(), None)
                    }
                    _ => continue,
                },
            };
            if attributes.integer {
                self.mark_integer(&name);
            }
            if attributes.assoc {
                self.mark_assoc(&name);
            }
            if let (true, Some(value)) = (attributes.nameref, value) {
                self.nameref_target(&name, value, src);
            }
        }
    }

    /// `declare -n r=TARGET`: using `r` uses TARGET as a name, subscript and all, and `$r` is
    /// TARGET's value.
    fn nameref_target(&mut self, name: &str, value: Node<'_>, src: &str) {
        let context = "a nameref";
        match self.word(value, src) {
            Arg::Static(target) => {
                self.add_dep(name, base_name(&target));
                self.evaluates_text(Eval::Name, &target, context)
            }
            Arg::Dynamic { .. } => match value.kind() {
                "simple_expansion" => {
                    let name = text(value, src).trim().trim_start_matches('$').to_string();
                    self.evaluates(Eval::Name, &name, context, None);
                }
                _ => self.name_sinks(value, src, (value.start_byte(), value.end_byte()), context),
            },
        }
    }

    /// The builtins that assign variables or evaluate words naming them, with their argument nodes.
    pub(super) fn builtin_values(&mut self, node: Node<'_>, src: &str, stdin: &Stdin) {
        const BUILTINS: &[&str] = &[
            "let",
            "hash",
            "test",
            "[",
            "unset",
            "printf",
            "read",
            "mapfile",
            "readarray",
            "getopts",
            "wait",
            "declare",
            "typeset",
            "local",
            "export",
            "readonly",
        ];
        let mut cursor = node.walk();
        let name = node.child_by_field_name("name").map(|n| n.named_child(0).unwrap_or(n));
        // Most commands are none of these, as written: pass them over before evaluating any word.
        let written = name.map_or("", |n| text(n, src));
        if written.bytes().all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'.' | b'/'))
            && !BUILTINS.contains(&written)
            && !matches!(written, "builtin" | "command")
        {
            return;
        }
        let mut words: Vec<Node<'_>> =
            name.into_iter().chain(node.children_by_field_name("argument", &mut cursor)).collect();
        // `builtin let …`, `command read …`.
        while words.len() > 1
            && words.first().is_some_and(|w| matches!(self.word(*w, src).as_static(), Some("builtin" | "command")))
        {
            words.remove(0);
        }
        let Some((first, args)) = words.split_first() else { return };
        let Arg::Static(program) = self.word(*first, src) else { return };
        if !BUILTINS.contains(&program.as_str()) {
            return;
        }
        let statics: Vec<Option<String>> =
            args.iter().map(|a| self.word(*a, src).as_static().map(str::to_string)).collect();
        let whole = |n: &Node<'_>| (n.start_byte(), n.end_byte());
        match program.as_str() {
            "let" => {
                for a in args {
                    self.arith_range(*a, src, whole(a), "`let`", None);
                }
            }
            "test" | "[" => {
                for (k, s) in statics.iter().enumerate() {
                    if let (Some("-v"), Some(n)) = (s.as_deref(), args.get(k + 1)) {
                        self.name_sinks(*n, src, whole(n), "`test -v`");
                    }
                }
            }
            "unset" => {
                for a in args {
                    self.name_sinks(*a, src, whole(a), "`unset`");
                }
                self.unset_history(statics.iter().flatten().map(String::as_str));
            }
            "printf" => self.printf_values(args, &statics, src),
            // `hash -p PATH NAME`: NAME runs PATH from then on.
            "hash" => {
                if let Some(k) = statics.iter().position(|s| s.as_deref().is_some_and(|w| w.starts_with("-p"))) {
                    let inline =
                        statics.get(k).cloned().flatten().and_then(|w| w.strip_prefix("-p").map(str::to_string));
                    let (path, names) = match inline.filter(|p| !p.is_empty()) {
                        Some(p) => (Some(p), k + 1),
                        None => (statics.get(k + 1).cloned().flatten(), k + 2),
                    };
                    for name in statics.iter().skip(names).flatten() {
                        self.hash_name(name, path.iter().cloned().collect());
                    }
                }
            }
            "read" | "mapfile" | "readarray" => self.read_values(&program, args, &statics, src, stdin),
            "getopts" => {
                if let Some(Some(name)) = statics.get(1) {
                    self.set_var(name, &[], Some(Vec::new()), false);
                }
                self.set_var("OPTARG", &[], None, false);
            }
            "wait" => {
                for (k, s) in statics.iter().enumerate() {
                    if s.as_deref().is_some_and(|s| s.starts_with('-') && s.ends_with('p')) {
                        if let Some(Some(name)) = statics.get(k + 1) {
                            self.set_var(name, &[], Some(Vec::new()), false);
                        }
                    }
                }
            }
            // Declarations behind `builtin`/`command` are plain words here.
            "declare" | "typeset" | "local" | "export" | "readonly" => {
                let attributes = Attributes::of(statics.iter().flatten().map(String::as_str));
                for (a, s) in args.iter().zip(&statics) {
                    let raw = text(*a, src);
                    if raw.starts_with(['-', '+']) {
                        continue;
                    }
                    let name = raw.split(['=', '[']).next().unwrap_or(raw);
                    if attributes.integer {
                        self.mark_integer(name);
                    }
                    if attributes.assoc {
                        self.mark_assoc(name);
                    }
                    match s.as_deref().and_then(|s| s.split_once('=')) {
                        Some((_, value)) => self.set_var(name, &[value.to_string()], Some(Vec::new()), false),
                        None if raw.contains('=') => self.set_var(name, &[], None, false),
                        None => {}
                    }
                }
            }
            _ => {}
        }
    }

    /// `printf -v NAME FORMAT ARGS…`: NAME's subscript is evaluated; its value is what printf makes.
    fn printf_values(&mut self, args: &[Node<'_>], statics: &[Option<String>], src: &str) {
        let Some(k) = statics.iter().position(|s| s.as_deref().is_some_and(|s| s.starts_with("-v"))) else { return };
        let attached = statics.get(k).and_then(|s| s.as_deref()).is_some_and(|s| s.len() > 2);
        let (target, rest) = if attached { (k, k + 1) } else { (k + 1, k + 2) };
        let Some(node) = args.get(target) else { return };
        let start = node.start_byte() + if attached { 2 } else { 0 };
        self.name_sinks(*node, src, (start, node.end_byte()), "`printf -v`");
        let name = match statics.get(target) {
            // After `-v`.
            Some(Some(s)) if attached => s.get(2..),
            Some(Some(s)) => Some(s.as_str()),
            _ => None,
        };
        let Some(name) = name.map(str::to_string) else { return };
        let mut rest = args.get(rest..).unwrap_or(&[]);
        if let Some((_, after)) = rest.split_first().filter(|(n, _)| self.word(**n, src).as_static() == Some("--")) {
            rest = after;
        }
        let mut known = Some(Vec::new());
        let mut choices: Vec<Vec<String>> = Vec::new();
        for n in rest {
            match (self.known_from(*n, src), known.as_mut()) {
                (Some(deps), Some(all)) => all.extend(deps),
                _ => known = None,
            }
            choices.push(self.word(*n, src).values().into_iter().map(str::to_string).collect());
        }
        let mut values = Vec::new();
        for combination in combinations(&choices) {
            match combination.split_first().and_then(|(format, args)| printf_value(format, args)) {
                Some(v) => values.push(v),
                None => known = None,
            }
        }
        if values.is_empty() {
            known = None;
        }
        self.set_var(&name, &values, known, false);
    }

    /// `read NAME…`, `read -a NAME`, `mapfile NAME`: the values are the input's lines, known only
    /// when the input is (a here-string, a here-document, `echo` upstream).
    fn read_values(&mut self, program: &str, args: &[Node<'_>], statics: &[Option<String>], src: &str, stdin: &Stdin) {
        let valued: &[char] = if program == "read" {
            &['a', 'd', 'i', 'n', 'N', 'p', 't', 'u']
        } else {
            &['d', 'n', 'O', 's', 'u', 'C', 'c']
        };
        let mut names: Vec<(Node<'_>, usize, Option<String>)> = Vec::new();
        let mut raw = false;
        let mut k = 0;
        while let Some(&node) = args.get(k) {
            let word = statics.get(k).and_then(|s| s.as_deref());
            match word {
                Some(w) if w.starts_with('-') && w.len() > 1 && w != "--" => {
                    let mut letters = w.chars();
                    letters.next(); // The `-`.
                    while let Some(c) = letters.next() {
                        raw |= c == 'r';
                        if valued.contains(&c) {
                            let attached = letters.as_str();
                            let value = if attached.is_empty() {
                                k += 1;
                                args.get(k).map(|n| (*n, 0, statics.get(k).cloned().flatten()))
                            } else {
                                Some((node, w.len() - attached.len(), Some(attached.to_string())))
                            };
                            if c == 'a' {
                                names.extend(value);
                            }
                            break;
                        }
                    }
                }
                Some("--") => {}
                _ => names.push((node, 0, word.map(str::to_string))),
            }
            k += 1;
        }
        if names.is_empty() {
            self.set_var(if program == "read" { "REPLY" } else { "MAPFILE" }, &[], None, false);
        }
        let known = !stdin.unknown && !stdin.texts.is_empty();
        let mut lines: Vec<String> = Vec::new();
        for t in &stdin.texts {
            for line in t.lines() {
                lines.push(line.to_string());
                if !raw && line.contains('\\') {
                    let mut unescaped = String::new();
                    let mut chars = line.chars();
                    while let Some(c) = chars.next() {
                        if c == '\\' {
                            unescaped.extend(chars.next());
                        } else {
                            unescaped.push(c);
                        }
                    }
                    lines.push(unescaped);
                }
            }
        }
        let context = format!("`{program}`");
        for (node, skip, name) in names {
            self.name_sinks(node, src, (node.start_byte() + skip, node.end_byte()), &context);
            if let Some(name) = name {
                self.set_var(base_name(&name), &lines, known.then(Vec::new), false);
            }
        }
    }
}

/// `$name` (or a special parameter) as the source of a value: numbers are known, positional
/// parameters are not, other variables are known when their own values are.
fn reference_known(name: &str, deps: &mut Vec<String>) -> bool {
    match name.as_bytes().first() {
        None => false,
        Some(b'#' | b'?' | b'$' | b'!' | b'-') => true,
        Some(c) if c.is_ascii_digit() || *c == b'@' || *c == b'*' => false,
        Some(_) => {
            deps.push(name.to_string());
            true
        }
    }
}

/// Every way of picking one value for each word (bounded).
fn combinations(choices: &[Vec<String>]) -> Vec<Vec<String>> {
    let mut out: Vec<Vec<String>> = vec![Vec::new()];
    for values in choices {
        if values.is_empty() || out.len() * values.len() > MAX_CANDIDATES {
            return Vec::new();
        }
        out = out.iter().flat_map(|p| values.iter().map(move |v| [p.clone(), vec![v.clone()]].concat())).collect();
    }
    out
}

/// What bash's `printf` prints for this format and these arguments, where that is certain: the
/// escapes, `%s`, `%b`, `%c`, `%q` (taken as the argument itself, which is no safer) and the
/// numeric conversions (a number). `None` for anything else.
/// `stat -c %Y FILE`, `stat --format=%s FILE`: a format of numeric fields only (times, size,
/// inode, links, owner ids, blocks) prints numbers; `-f` reads the file system instead, where
/// `%i` is hexadecimal.
fn stat_prints_numbers(args: &[&str]) -> bool {
    let numeric = |f: &str| {
        let mut chars = f.chars();
        let mut ok = !f.is_empty();
        while let Some(c) = chars.next() {
            ok &= match c {
                '%' => chars.next().is_some_and(|d| "XYZWsihugbBo".contains(d)),
                c => c.is_ascii_digit() || c == ' ',
            };
        }
        ok
    };
    let mut format = false;
    let mut rest = args.iter();
    while let Some(a) = rest.next() {
        let ok = match *a {
            "-c" | "--format" => rest.next().is_some_and(|f| numeric(f)),
            "-L" | "--dereference" | "--" => true,
            a if a.starts_with("--format=") => numeric(a.trim_start_matches("--format=")),
            a if a.starts_with("-c") => numeric(a.trim_start_matches("-c")),
            a => !a.starts_with('-'),
        };
        if !ok {
            return false;
        }
        format |= a.starts_with("-c") || a.starts_with("--format");
    }
    format
}

pub(super) fn printf_value(format: &str, args: &[String]) -> Option<String> {
    let mut out = String::new();
    let mut next = 0;
    // The format is reused while arguments remain.
    for _ in 0..MAX_CANDIDATES {
        let before = next;
        let mut chars = format.chars().peekable();
        while let Some(c) = chars.next() {
            match c {
                '\\' => {
                    if !escape(&mut chars, &mut out, false) {
                        return Some(out);
                    }
                }
                '%' if chars.peek() == Some(&'%') => {
                    chars.next();
                    out.push('%');
                }
                '%' => {
                    while chars.peek().is_some_and(|c| "-+ #0'".contains(*c)) {
                        chars.next();
                    }
                    for _ in 0..2 {
                        if chars.peek() == Some(&'*') {
                            chars.next();
                            next += 1;
                        }
                        while chars.peek().is_some_and(|c| c.is_ascii_digit()) {
                            chars.next();
                        }
                        if chars.peek() == Some(&'.') {
                            chars.next();
                        }
                    }
                    let arg = args.get(next).map(String::as_str).unwrap_or("");
                    next += 1;
                    match chars.next()? {
                        's' | 'q' | 'Q' => out.push_str(arg),
                        'b' => {
                            let mut inner = arg.chars().peekable();
                            while let Some(c) = inner.next() {
                                if c != '\\' {
                                    out.push(c);
                                } else if !escape(&mut inner, &mut out, true) {
                                    return Some(out);
                                }
                            }
                        }
                        'c' => out.extend(arg.chars().next()),
                        'd' | 'i' | 'o' | 'u' | 'x' | 'X' | 'e' | 'E' | 'f' | 'F' | 'g' | 'G' | 'a' | 'A' => {
                            out.push('0')
                        }
                        _ => return None,
                    }
                }
                c => out.push(c),
            }
        }
        if next == before || next >= args.len() {
            return Some(out);
        }
    }
    None
}

/// One backslash escape of `printf` (after the backslash); false for `\c`, which ends the output.
fn escape(chars: &mut std::iter::Peekable<std::str::Chars<'_>>, out: &mut String, in_b: bool) -> bool {
    let Some(e) = chars.next() else {
        out.push('\\');
        return true;
    };
    if e == 'c' {
        return false;
    }
    if let Some(c) = super::words::simple_escape(e) {
        out.push(c);
        return true;
    }
    let (radix, max, mut digits) = match e {
        'x' => (16, 2, String::new()),
        'u' => (16, 4, String::new()),
        'U' => (16, 8, String::new()),
        // `%b` takes `\0NNN`; the format takes `\NNN`.
        '0' if in_b => (8, 3, String::new()),
        '0'..='7' => (8, 2, e.to_string()),
        _ => {
            out.push('\\');
            out.push(e);
            return true;
        }
    };
    while digits.len() < max + usize::from(radix == 8 && !in_b) {
        match chars.peek() {
            Some(d) if d.is_digit(radix) => {
                digits.push(*d);
                chars.next();
            }
            _ => break,
        }
    }
    match u32::from_str_radix(&digits, radix).ok().and_then(char::from_u32) {
        Some(ch) => out.push(ch),
        None if digits.is_empty() => {
            out.push('\\');
            out.push(e);
        }
        None => {}
    }
    true
}

/// The letters a word computed at run time keeps when each of its expansions yields nothing
/// (`${PATH:0:0}reboot` is `reboot`, `"$x"poweroff` is `poweroff`): a program name it may be.
pub(super) fn literal_remainder(text: &str) -> Option<String> {
    let chars: Vec<char> = text.chars().collect();
    let mut out = String::new();
    let mut i = 0;
    while let Some(&c) = chars.get(i) {
        match c {
            '$' | '`' => {
                let (open, close) = match chars.get(i + 1) {
                    _ if c == '`' => ('`', '`'),
                    Some('{') => ('{', '}'),
                    Some('(') => ('(', ')'),
                    _ => {
                        // `$name`, `$1`, `$@`: the name's characters.
                        i += 1;
                        if chars.get(i).is_some_and(|n| n.is_ascii_digit() || "@*#?$!-".contains(*n)) {
                            i += 1;
                        } else {
                            while chars.get(i).is_some_and(|n| n.is_ascii_alphanumeric() || *n == '_') {
                                i += 1;
                            }
                        }
                        continue;
                    }
                };
                // Skip to the matching close.
                let mut depth = 0usize;
                i += usize::from(c == '$');
                while let Some(&d) = chars.get(i) {
                    i += 1;
                    if d == close && (depth <= 1 || open == close) {
                        if open == close && depth == 0 {
                            depth = 1;
                            continue;
                        }
                        break;
                    }
                    if d == open {
                        depth += 1;
                    } else if d == close {
                        depth = depth.saturating_sub(1);
                    }
                }
            }
            '"' | '\'' => i += 1,
            _ => {
                out.push(c);
                i += 1;
            }
        }
    }
    let name = out.trim();
    let plain = name.chars().all(|c| c.is_ascii_alphanumeric() || "._-/".contains(c));
    (plain && name.chars().any(|c| c.is_ascii_alphabetic()) && name != text).then(|| name.to_string())
}

/// Whether a word is only a positional parameter (`$1`, `"$@"`, `${*}`): the words a function or
/// script was given.
pub(crate) fn is_positional(text: &str) -> bool {
    let inner = text.trim_matches('"');
    let inner = inner.strip_prefix('$').unwrap_or("");
    let inner = inner.strip_prefix('{').and_then(|i| i.strip_suffix('}')).unwrap_or(inner);
    !inner.is_empty() && (inner == "@" || inner == "*" || inner.chars().all(|c| c.is_ascii_digit()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn printf_makes_what_bash_makes() {
        let s = |v: &[&str]| v.iter().map(|x| x.to_string()).collect::<Vec<_>>();
        assert_eq!(printf_value(r"\x24(id)", &[]).as_deref(), Some("$(id)"));
        assert_eq!(printf_value(r"\044(id)", &[]).as_deref(), Some("$(id)"));
        assert_eq!(printf_value("%s", &s(&["$(id)"])).as_deref(), Some("$(id)"));
        assert_eq!(printf_value("%b", &s(&[r"\x24(id)"])).as_deref(), Some("$(id)"));
        assert_eq!(printf_value("%s-", &s(&["a", "b"])).as_deref(), Some("a-b-"));
        assert_eq!(printf_value("%05d%%", &s(&["12"])).as_deref(), Some("0%"));
        assert_eq!(printf_value("%c%c", &s(&["$x", "(y"])).as_deref(), Some("$("));
        assert_eq!(printf_value("%(%s)T", &s(&["1"])), None);
    }
}
