//! Parses shell text with the tree-sitter bash grammar and walks every simple command in it: in
//! lists, pipelines, subshells, groups, loops, conditionals, functions, `$(…)`, backticks, process
//! substitutions, here-documents and here-strings. Each command's words are evaluated statically
//! where possible (quotes, escapes, `$'…'`, concatenation, brace lists, variables assigned a literal
//! earlier, `$(echo …)`) and handed to the program rules. Findings only ever raise the verdict.

use std::collections::HashMap;

use nomos_types::Risk;
use tree_sitter::{Node, Parser};

use super::rules;
use super::Policy;

/// Deeper syntax trees than this are adversarial; they are judged destructive without looking.
const MAX_TREE_DEPTH: usize = 200;
/// Scripts inside scripts (`bash -c "bash -c '…'"`) beyond this are judged destructive.
const MAX_SCRIPT_NESTING: u32 = 12;
/// Wrappers inside wrappers (`sudo env nice timeout …`) beyond this are judged destructive.
const MAX_WRAPPER_NESTING: u32 = 32;
/// Scripts parsed for one classification (nested shells, probes, re-split lines) beyond this are
/// adversarial; the command is judged destructive rather than analysed without end.
const MAX_SCRIPTS_TOTAL: u32 = 256;
/// How many static values a word may expand to before it is treated as unknowable.
const MAX_CANDIDATES: usize = 16;

/// One word of a command as far as it can be known before running it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Arg {
    Static(String),
    /// Computed at run time. `candidates` are literal values it is known it can take (a variable
    /// assigned a literal, `$(echo rm)`); they are used to raise the verdict, never to lower it.
    Dynamic {
        text: String,
        candidates: Vec<String>,
    },
}

impl Arg {
    pub(crate) fn as_static(&self) -> Option<&str> {
        match self {
            Arg::Static(s) => Some(s),
            Arg::Dynamic { .. } => None,
        }
    }

    /// Every literal value this word is known to possibly take.
    pub(crate) fn values(&self) -> Vec<&str> {
        match self {
            Arg::Static(s) => vec![s.as_str()],
            Arg::Dynamic { candidates, .. } => candidates.iter().map(String::as_str).collect(),
        }
    }

    /// How the word reads in a reason.
    pub(crate) fn shown(&self) -> &str {
        match self {
            Arg::Static(s) => s,
            Arg::Dynamic { text, .. } => text,
        }
    }
}

/// What feeds a command's standard input.
#[derive(Debug, Clone, Default)]
pub(crate) struct Stdin {
    /// Text known to flow in (here-documents, here-strings, `echo` upstream in a pipe).
    pub texts: Vec<String>,
    /// Something flows in that cannot be seen (a pipe from a program, a file).
    pub unknown: bool,
}

pub(crate) struct Analysis<'p> {
    pub(crate) policy: &'p Policy,
    findings: Vec<(Risk, String)>,
    /// Literal values assigned to shell variables anywhere in the text (all of them: a branch may
    /// assign either).
    vars: HashMap<String, Vec<String>>,
    scripts: u32,
    /// Scripts parsed so far in this classification.
    parsed: u32,
    wrappers: u32,
    /// Set inside a probe: a probe does not probe again (an unparseable text would re-probe itself).
    probing: bool,
    /// Where relative paths are judged.
    cwd: Cwd,
    /// Once `CDPATH` is set, no `cd` target is known.
    cdpath: bool,
    /// Functions that run their arguments as a command (`f() { "$@"; }`).
    runners: Vec<String>,
}

impl<'p> Analysis<'p> {
    pub(crate) fn new(policy: &'p Policy) -> Self {
        Analysis {
            policy,
            findings: Vec::new(),
            vars: HashMap::new(),
            scripts: 0,
            parsed: 0,
            wrappers: 0,
            probing: false,
            cwd: Cwd::Start,
            cdpath: false,
            runners: Vec::new(),
        }
    }

    pub(crate) fn raise(&mut self, risk: Risk, reason: impl Into<String>) {
        self.findings.push((risk, reason.into()));
    }

    /// Where a path may point: itself if absolute, else relative to the known working directory,
    /// or — at the start, where a remote shell usually sits in a home directory — to a home
    /// directory and to `/`.
    pub(crate) fn resolve(&self, path: &str) -> Vec<String> {
        let path = path.trim();
        if path.starts_with('/') || path.starts_with('~') || path.starts_with('$') || path.is_empty() {
            return vec![path.to_string()];
        }
        match &self.cwd {
            Cwd::Known(dir) => vec![format!("{dir}/{path}")],
            Cwd::Start | Cwd::Unknown => vec![path.to_string(), format!("~/{path}"), format!("/{path}")],
        }
    }

    /// Whether `path` names secret material, relative paths included.
    pub(crate) fn is_secret(&self, path: &str) -> bool {
        self.resolve(path).iter().any(|p| super::paths::is_secret(p))
    }

    /// Whether `path` may name secret material because where it points is not known: a relative
    /// name after `cd "$dir"` (or `~+/name`) could sit in any directory that holds secrets.
    pub(crate) fn may_be_secret(&self, path: &str) -> bool {
        /// Directories whose files are secrets by where they are, not by their names.
        const SENSITIVE: &[&str] = &[
            "/etc/ssh",
            "~/.ssh",
            "/etc/pve/priv",
            "/etc/ssl/private",
            "/etc/wireguard",
            "/etc/ceph",
            "/etc/proxmox-backup",
            "/var/lib/pve-cluster",
            "/etc/corosync",
            "/etc/letsencrypt/live/x",
        ];
        let path = path.trim();
        let relative = match path.strip_prefix("~+/").or_else(|| path.strip_prefix("~-/")) {
            Some(r) => r,
            None if self.cwd == Cwd::Unknown && !path.starts_with(['/', '~', '$', '-']) && !path.is_empty() => path,
            None => return false,
        };
        SENSITIVE.iter().any(|d| super::paths::is_secret(&format!("{d}/{relative}")))
    }

    /// Judges what `f` checks as if in `dir` (`env -C DIR`, `tar -C DIR`, `git -C DIR`), then
    /// returns to where the script was.
    pub(crate) fn in_dir(&mut self, dir: Option<&Arg>, f: impl FnOnce(&mut Self)) {
        let saved = self.cwd.clone();
        if let Some(d) = dir {
            self.change_dir(Some(d));
        }
        f(self);
        self.cwd = saved;
    }

    /// Follows a literal `cd`, so later relative paths are judged where they point.
    pub(crate) fn change_dir(&mut self, target: Option<&Arg>) {
        self.cwd = match target {
            _ if self.cdpath => Cwd::Unknown,
            None => Cwd::Known("~".into()),
            Some(Arg::Static(d)) if d == "-" => Cwd::Unknown,
            Some(Arg::Static(d)) if d.starts_with('/') || d.starts_with('~') => Cwd::Known(d.clone()),
            Some(Arg::Static(d)) => match &self.cwd {
                Cwd::Known(c) => Cwd::Known(format!("{c}/{d}")),
                _ => Cwd::Unknown,
            },
            Some(Arg::Dynamic { .. }) => Cwd::Unknown,
        };
    }

    pub(crate) fn max_risk(&self) -> Option<Risk> {
        self.findings.iter().map(|(r, _)| *r).max()
    }

    /// The verdict: the highest risk found, with the reasons given at that level (deduplicated, in
    /// order of discovery, at most ten).
    pub(crate) fn into_findings(self) -> Vec<(Risk, String)> {
        self.findings
    }

    /// Parses and walks a script (a command line, a `bash -c` argument, a here-document fed to a
    /// shell).
    pub(crate) fn script(&mut self, text: &str) {
        if self.scripts >= MAX_SCRIPT_NESTING {
            self.raise(Risk::Destructive, "scripts nested too deeply to analyse");
            return;
        }
        if text.trim().is_empty() {
            return;
        }
        // Bash removes backslash-newline before it reads words (`cat /etc/sha\<newline>dow`); the
        // grammar would split the word there.
        let joined;
        let text = if text.contains("\\\n") {
            joined = text.replace("\\\n", "");
            joined.as_str()
        } else {
            text
        };
        self.parsed += 1;
        if self.parsed > MAX_SCRIPTS_TOTAL {
            self.raise(Risk::Destructive, "too many nested scripts to analyse");
            return;
        }
        let mut parser = Parser::new();
        if parser.set_language(&tree_sitter_bash::LANGUAGE.into()).is_err() {
            self.raise(Risk::ConfigMutation, "the shell parser is unavailable");
            return;
        }
        // The grammar's scanner passes characters to C's `isdigit()`, which is undefined (and
        // crashes) beyond ASCII. The parser therefore sees every non-ASCII byte as the letter `a`:
        // offsets are unchanged, non-ASCII text is a run of word characters (as it is to bash,
        // which splits words only on ASCII blanks), and values are read from the original text.
        let ascii: Vec<u8> = text.bytes().map(|b| if b.is_ascii() { b } else { b'a' }).collect();
        let Some(tree) = parser.parse(&ascii, None) else {
            self.raise(Risk::ConfigMutation, "the command could not be parsed");
            return;
        };
        self.scripts += 1;
        let root = tree.root_node();
        if root.has_error() {
            self.raise(Risk::ConfigMutation, "the command does not parse as shell; it cannot be judged read-only");
        }
        self.walk(root, text, 0, &Stdin::default());
        // Text-level cross-checks can only raise the verdict; once it is destructive they are moot
        // (and on adversarially deep trees they would be slow).
        if self.max_risk() != Some(Risk::Destructive) {
            self.check_separators(root, text);
        }
        if self.max_risk() != Some(Risk::Destructive) {
            self.check_substitutions(root, text);
        }
        self.scripts -= 1;
    }

    /// Guards against the grammar and bash disagreeing about where a command ends. Bash ends a
    /// command at an unquoted newline, `;`, `&` or `|`; where the parse instead carries on (seen: a
    /// newline before a backslash, or before a line whose redirection the grammar attached to the
    /// line above), the text after that separator is judged as a command of its own.
    fn check_separators(&mut self, root: Node<'_>, text: &str) {
        /// Nodes a newline may legitimately sit in: lists of commands, and quoted or literal text.
        const NEWLINE_HOMES: &[&str] = &[
            "program",
            "list",
            "pipeline",
            "compound_statement",
            "subshell",
            "do_group",
            "if_statement",
            "elif_clause",
            "else_clause",
            "case_statement",
            "case_item",
            "while_statement",
            "for_statement",
            "c_style_for_statement",
            "function_definition",
            "redirected_statement",
            "negated_command",
            "test_command",
            "command_substitution",
            "process_substitution",
            "arithmetic_expansion",
            "array",
            "expansion",
            "binary_expression",
            "parenthesized_expression",
            "unary_expression",
            "ternary_expression",
            "string",
            "string_content",
            "raw_string",
            "ansi_c_string",
            "translated_string",
            "heredoc_body",
            "heredoc_content",
            "heredoc_redirect",
            "heredoc_start",
            "heredoc_end",
            "comment",
            "ERROR",
        ];
        let bytes = text.as_bytes();
        let separators: Vec<usize> = (0..bytes.len())
            .filter(|&i| matches!(bytes[i], b'\n' | b';' | b'&' | b'|') && !(i > 0 && bytes[i - 1] == b'\\'))
            .collect();
        let mut glued = Vec::new();
        for_each_innermost(root, text, &separators, |chain, i| {
            let Some(kind) = chain.last().map(|f| f.kind) else { return };
            let is_glued = match bytes[i] {
                b'\n' => !NEWLINE_HOMES.contains(&kind),
                _ => matches!(kind, "word" | "command" | "concatenation" | "command_name"),
            };
            if is_glued {
                glued.push(i);
            }
        });
        if glued.is_empty() {
            return;
        }
        self.raise(Risk::ConfigMutation, "the command cannot be split into commands reliably");
        // Judge each stretch between such separators on its own (each once: no overlapping re-reads).
        glued.push(bytes.len());
        for pair in glued.windows(2) {
            if let Some(segment) = text.get(pair[0] + 1..pair[1]) {
                self.script(segment);
            }
        }
    }

    /// Command substitution syntax the walk did not reach as a substitution: backticks inside
    /// `${…}`, `$(…)` in single quotes that a builtin later evaluates as an array subscript
    /// (`printf -v 'a[$(cmd)]'`, `read`, `let`, `[[ … -eq … ]]`), a nested backtick. Bash may run
    /// it, so it is never read-only, and a destructive command in it counts as destructive.
    fn check_substitutions(&mut self, root: Node<'_>, text: &str) {
        let bytes = text.as_bytes();
        let openers: Vec<usize> = (0..bytes.len())
            .filter(|&i| bytes[i] == b'`' || (bytes[i] == b'$' && bytes.get(i + 1) == Some(&b'(')))
            .collect();
        if openers.is_empty() {
            return;
        }
        let mut unwalked = Vec::new();
        for_each_innermost(root, text, &openers, |chain, i| {
            let escaped_backtick = bytes[i] == b'`' && i > 0 && bytes[i - 1] == b'\\';
            if !Frame::substitution_was_walked(chain, i, escaped_backtick) {
                unwalked.push(i);
            }
        });
        if unwalked.is_empty() {
            return;
        }
        self.raise(Risk::ConfigMutation, "holds command substitution text that bash may evaluate");
        for &i in unwalked.iter().take(16) {
            let start = if bytes[i] == b'`' { i + 1 } else { i + 2 };
            if let Some(rest) = text.get(start..) {
                let end = rest.find(['`', ')']).unwrap_or(rest.len());
                let inner = rest[..end].to_string();
                self.probe_destructive(&inner, "substitution text that bash may evaluate holds a destructive command");
            }
        }
    }

    /// Arithmetic (`$((…))`, `((…))`) that reads like a command: bash would reject it, but a
    /// destructive command there is not waved through. Only a destructive finding is taken over.
    fn arithmetic(&mut self, node: Node<'_>, src: &str) {
        let inner = text(node, src).trim_start_matches('$').trim_start_matches("((").trim_end_matches("))");
        self.probe_destructive(inner, "an arithmetic expression holds a destructive command");
    }

    /// Judges text the grammar could not place (an arithmetic expression, a parse error) as if it
    /// were a command, taking over only a destructive finding: bash may well run it.
    fn probe_destructive(&mut self, inner: &str, reason: &str) {
        let inner = inner.trim_start_matches(['$', '(', '`', '{']).trim_end_matches([')', '`', '}']);
        if self.probing || self.scripts >= MAX_SCRIPT_NESTING || !inner.contains(' ') && inner.len() < 3 {
            return;
        }
        let mut probe = Analysis::new(self.policy);
        probe.probing = true;
        probe.scripts = self.scripts + 1;
        probe.vars = self.vars.clone();
        probe.parsed = self.parsed;
        probe.script(inner);
        self.parsed = probe.parsed;
        if probe.max_risk() == Some(Risk::Destructive) {
            self.raise(Risk::Destructive, reason);
        }
    }

    fn walk(&mut self, node: Node<'_>, src: &str, depth: usize, stdin: &Stdin) {
        if depth > MAX_TREE_DEPTH {
            self.raise(Risk::Destructive, "nested too deeply to analyse");
            return;
        }
        match node.kind() {
            "command" => self.command(node, src, depth, stdin),
            "redirected_statement" => self.redirected(node, src, depth, stdin),
            "pipeline" => self.pipeline(node, src, depth, stdin),
            "function_definition" => self.function(node, src, depth),
            "expansion" => {
                // `${BASH_ENV:=/dev/stdin}` assigns as it expands.
                let raw = text(node, src);
                let (name, operand) = expansion_parts(raw);
                let assigns =
                    raw.contains(":=") || raw.trim_start_matches("${").trim_start_matches(name).starts_with('=');
                if assigns && operand.is_some() {
                    if let Some(reason) = dangerous_variable(name) {
                        self.raise(Risk::ConfigMutation, reason);
                    }
                }
                self.walk_children(node, src, depth, stdin);
            }
            "for_statement" => {
                // `for u in caddy gitea`: the loop variable takes those values.
                if let Some(var) = node.child_by_field_name("variable") {
                    let name = text(var, src).to_string();
                    let mut cursor = node.walk();
                    let values: Vec<String> = node
                        .children_by_field_name("value", &mut cursor)
                        .flat_map(|v| self.word(v, src).values().into_iter().map(str::to_string).collect::<Vec<_>>())
                        .collect();
                    let entry = self.vars.entry(name).or_default();
                    for v in values {
                        if !entry.contains(&v) && entry.len() < MAX_CANDIDATES {
                            entry.push(v);
                        }
                    }
                }
                self.walk_children(node, src, depth, stdin);
            }
            "declaration_command" => {
                self.declaration(node, src);
                self.walk_children(node, src, depth, stdin);
            }
            "arithmetic_expansion" => {
                self.arithmetic(node, src);
                self.walk_children(node, src, depth, stdin);
            }
            "compound_statement" if node.child(0).is_some_and(|c| c.kind() == "((") => {
                self.arithmetic(node, src);
                self.walk_children(node, src, depth, stdin);
            }
            "variable_assignment" => self.assignment(node, src, depth),
            "file_redirect" | "heredoc_redirect" | "herestring_redirect" => {
                self.redirect(node, src, depth);
            }
            "ERROR" => {
                self.raise(Risk::ConfigMutation, "part of the command does not parse as shell");
                self.probe_destructive(text(node, src), "text that does not parse holds a destructive command");
                self.walk_children(node, src, depth, stdin);
            }
            _ => self.walk_children(node, src, depth, stdin),
        }
    }

    fn walk_children(&mut self, node: Node<'_>, src: &str, depth: usize, stdin: &Stdin) {
        let mut cursor = node.walk();
        for child in node.children(&mut cursor) {
            self.walk(child, src, depth + 1, stdin);
        }
    }

    fn redirected(&mut self, node: Node<'_>, src: &str, depth: usize, stdin: &Stdin) {
        let mut input = stdin.clone();
        let mut tails = Vec::new();
        let mut cursor = node.walk();
        for child in node.children_by_field_name("redirect", &mut cursor) {
            match self.redirect(child, src, depth) {
                Input::Text(text) => input.texts.push(text),
                Input::Unknown => input.unknown = true,
                Input::None => {}
            }
            // `cat <<EOF | sh`: the grammar hangs the pipe's tail on the here-document.
            let mut inner = child.walk();
            for part in child.named_children(&mut inner) {
                if matches!(part.kind(), "pipeline" | "command" | "redirected_statement" | "list") {
                    tails.push(part);
                }
            }
        }
        if let Some(body) = node.child_by_field_name("body") {
            self.walk(body, src, depth + 1, &input);
        }
        // What reaches the tail is the body's output: the here-document when the body is a plain
        // `cat`, else something unseen (with the here-document as a possible part of it).
        let passes_through = node.child_by_field_name("body").is_some_and(|b| {
            b.kind() == "command" && {
                let words = self.words(b, src);
                words.len() == 1 && words[0].as_static() == Some("cat")
            }
        });
        for tail in tails {
            let fed = Stdin { texts: input.texts.clone(), unknown: !passes_through };
            self.walk(tail, src, depth + 1, &fed);
        }
    }

    fn pipeline(&mut self, node: Node<'_>, src: &str, depth: usize, stdin: &Stdin) {
        let mut cursor = node.walk();
        let stages: Vec<Node<'_>> = node.named_children(&mut cursor).collect();
        let mut input = stdin.clone();
        for stage in stages {
            self.walk(stage, src, depth + 1, &input);
            input = self.output_of(stage, src);
        }
    }

    /// What a pipeline stage writes to the next one, when that is knowable: `echo`/`printf` of
    /// literals. Anything else is unseen data.
    fn output_of(&self, stage: Node<'_>, src: &str) -> Stdin {
        self.output_of_at(stage, src, 0)
    }

    fn output_of_at(&self, stage: Node<'_>, src: &str, depth: usize) -> Stdin {
        let unseen = Stdin { texts: Vec::new(), unknown: true };
        let (command, outer) = match stage.kind() {
            "redirected_statement" => (stage.child_by_field_name("body"), Some(stage)),
            _ => (Some(stage), None),
        };
        let Some(cmd) = command.filter(|c| c.kind() == "command" && depth <= MAX_TREE_DEPTH) else {
            return unseen;
        };
        // Evaluated once: words nest through `$(…)`, and evaluating them twice per level would
        // double the work at every level.
        let words = self.words_at(cmd, src, depth);
        let Some(Arg::Static(name)) = words.first() else { return unseen };
        match name.as_str() {
            "echo" | "printf" if outer.is_none() && words[1..].iter().all(|w| w.as_static().is_some()) => {
                let text: Vec<&str> =
                    words[1..].iter().filter_map(Arg::as_static).filter(|w| !w.starts_with('-')).collect();
                Stdin { texts: vec![unescape_echo(&text.join(" "))], unknown: false }
            }
            // `cat <<EOF` / `cat <<< '…'` pass their input through.
            "cat" if words.len() == 1 => {
                let mut texts = Vec::new();
                for holder in [Some(cmd), outer].into_iter().flatten() {
                    let mut cursor = holder.walk();
                    for r in holder.children(&mut cursor) {
                        let mut inner = r.walk();
                        match r.kind() {
                            "heredoc_redirect" => texts.extend(
                                r.named_children(&mut inner)
                                    .filter(|b| b.kind() == "heredoc_body")
                                    .map(|b| text(b, src).to_string()),
                            ),
                            "herestring_redirect" => {
                                for w in r.named_children(&mut inner) {
                                    texts.extend(
                                        self.word_at(w, src, depth + 1).values().into_iter().map(str::to_string),
                                    );
                                }
                            }
                            _ => {}
                        }
                    }
                }
                if texts.is_empty() {
                    unseen
                } else {
                    Stdin { texts, unknown: false }
                }
            }
            _ => unseen,
        }
    }

    fn function(&mut self, node: Node<'_>, src: &str, depth: usize) {
        let name = node.child_by_field_name("name").map(|n| text(n, src).to_string()).unwrap_or_default();
        if let Some(body) = node.child_by_field_name("body") {
            let calls = count_calls(body, src, &name, 0);
            let runs_args = ["\"$@\"", "$@", "\"$*\"", "$*", "\"${@}\"", "${@}", "$1", "\"$1\""]
                .iter()
                .any(|a| count_calls(body, src, a, 0) > 0);
            if runs_args && !self.runners.contains(&name) {
                self.runners.push(name.clone());
            }
            let body_text = text(body, src);
            if calls > 0 && (body_text.contains('&') || body_text.contains('|')) {
                self.raise(Risk::Destructive, format!("function `{name}` spawns copies of itself (a fork bomb)"));
            } else if calls > 0 {
                self.raise(Risk::ConfigMutation, format!("function `{name}` calls itself"));
            }
            // The body runs when called; judge it as if it were.
            self.walk(body, src, depth + 1, &Stdin::default());
        }
    }

    /// `export "NAME=value"`, `declare -n r=…`: names given as words rather than assignments.
    fn declaration(&mut self, node: Node<'_>, src: &str) {
        let mut cursor = node.walk();
        for child in node.named_children(&mut cursor) {
            if matches!(child.kind(), "variable_assignment" | "variable_name") {
                if child.kind() == "variable_name" {
                    if let Some(reason) = dangerous_variable(text(child, src)) {
                        self.raise(Risk::ConfigMutation, reason);
                    }
                }
                // A nameref (`declare -n r=BASH_ENV`) makes later assignments to `r` set the
                // variable it names.
                if let Some(value) = child.child_by_field_name("value") {
                    for v in self.word(value, src).values() {
                        if let Some(reason) = dangerous_variable(v) {
                            self.raise(Risk::ConfigMutation, format!("a reference to it: {reason}"));
                        }
                    }
                }
                continue;
            }
            match self.word(child, src) {
                Arg::Static(w) if !w.starts_with('-') => {
                    // Both sides: `export 'PATH=…'`, and a nameref `declare -n r=BASH_ENV`.
                    let (name, value) = w.split_once('=').unwrap_or((&w, ""));
                    for n in [name, value] {
                        if let Some(reason) = dangerous_variable(n) {
                            self.raise(Risk::ConfigMutation, reason);
                        }
                    }
                }
                Arg::Dynamic { text, .. } => {
                    self.raise(Risk::ConfigMutation, format!("declares a variable named at run time (`{text}`)"))
                }
                Arg::Static(_) => {}
            }
        }
    }

    fn assignment(&mut self, node: Node<'_>, src: &str, depth: usize) {
        // `a[$(cmd)]=1`: the subscript is evaluated.
        if let Some(n) = node.child_by_field_name("name") {
            self.walk(n, src, depth + 1, &Stdin::default());
        }
        let name = node.child_by_field_name("name").map(|n| text(n, src).to_string()).unwrap_or_default();
        if let Some(reason) = dangerous_variable(&name) {
            self.raise(Risk::ConfigMutation, reason);
        }
        if name == "CDPATH" {
            self.cdpath = true;
            self.cwd = Cwd::Unknown;
        }
        if let Some(value) = node.child_by_field_name("value") {
            let v = self.word(value, src);
            let literal = v.values().into_iter().map(str::to_string).collect::<Vec<_>>();
            let entry = self.vars.entry(name).or_default();
            for l in literal {
                if !entry.contains(&l) && entry.len() < MAX_CANDIDATES {
                    entry.push(l);
                }
            }
            self.walk(value, src, depth + 1, &Stdin::default());
        }
    }

    fn command(&mut self, node: Node<'_>, src: &str, depth: usize, stdin: &Stdin) {
        let mut input = stdin.clone();
        let mut cursor = node.walk();
        for child in node.children(&mut cursor) {
            match child.kind() {
                "variable_assignment" => {
                    // `NAME=value cmd`: only the command's environment.
                    let name = child.child_by_field_name("name").map(|n| text(n, src).to_string()).unwrap_or_default();
                    if let Some(reason) = dangerous_variable(&name) {
                        self.raise(Risk::ConfigMutation, reason);
                    }
                    if let Some(value) = child.child_by_field_name("value") {
                        self.walk(value, src, depth + 1, &Stdin::default());
                    }
                }
                "file_redirect" | "heredoc_redirect" | "herestring_redirect" => {
                    match self.redirect(child, src, depth) {
                        Input::Text(t) => input.texts.push(t),
                        Input::Unknown => input.unknown = true,
                        Input::None => {}
                    }
                }
                _ => self.walk(child, src, depth + 1, &Stdin::default()),
            }
        }
        let argv = self.words(node, src);
        self.run(&argv, &input);
    }

    /// The command's name and arguments, evaluated, with brace lists expanded.
    fn words(&self, command: Node<'_>, src: &str) -> Vec<Arg> {
        self.words_at(command, src, 0)
    }

    fn words_at(&self, command: Node<'_>, src: &str, depth: usize) -> Vec<Arg> {
        let mut argv = Vec::new();
        if let Some(name) = command.child_by_field_name("name") {
            let word = name.named_child(0).unwrap_or(name);
            argv.push(self.word_at(word, src, depth + 1));
        }
        let mut cursor = command.walk();
        for arg in command.children_by_field_name("argument", &mut cursor) {
            match self.word_at(arg, src, depth + 1) {
                Arg::Static(s) if arg.kind() == "word" || arg.kind() == "concatenation" => {
                    argv.extend(expand_braces(&s).into_iter().map(Arg::Static))
                }
                other => argv.push(other),
            }
        }
        argv
    }

    /// Runs the program rules on an argument vector (also used by wrappers for what they run).
    pub(crate) fn run(&mut self, argv: &[Arg], stdin: &Stdin) {
        if self.wrappers >= MAX_WRAPPER_NESTING {
            self.raise(Risk::Destructive, "commands wrapped too deeply to analyse");
            return;
        }
        let Some(first) = argv.first() else { return };
        self.wrappers += 1;
        match first {
            Arg::Dynamic { text, candidates } => {
                self.raise(Risk::ConfigMutation, format!("the program to run is computed at run time (`{text}`)"));
                for candidate in candidates.clone() {
                    let mut again = argv.to_vec();
                    again[0] = Arg::Static(candidate);
                    self.run(&again, stdin);
                }
            }
            Arg::Static(name) if name.is_empty() || name.contains(['*', '?', '[', '{']) => {
                self.raise(Risk::ConfigMutation, format!("the program name `{name}` is a pattern"));
            }
            Arg::Static(name) if self.runners.contains(name) => {
                // A function that runs its arguments: what it is given is what runs.
                self.raise(Risk::ReadOnly, format!("`{name}` runs its arguments"));
                self.run(&argv[1..], stdin);
            }
            Arg::Static(name) => {
                let name = name.clone();
                rules::program(self, &name, &argv[1..], stdin);
            }
        }
        self.wrappers -= 1;
    }

    /// Judges a redirection and says what, if anything, it feeds to standard input.
    fn redirect(&mut self, node: Node<'_>, src: &str, depth: usize) -> Input {
        match node.kind() {
            "heredoc_redirect" => {
                let mut cursor = node.walk();
                let mut body = None;
                for child in node.named_children(&mut cursor) {
                    if child.kind() == "heredoc_body" {
                        // Unquoted here-documents expand `$(…)` before anything reads them.
                        self.walk_children(child, src, depth + 1, &Stdin::default());
                        body = Some(text(child, src).to_string());
                    }
                }
                body.map(Input::Text).unwrap_or(Input::None)
            }
            "herestring_redirect" => {
                let mut cursor = node.walk();
                let mut out = Input::Unknown;
                for child in node.named_children(&mut cursor) {
                    self.walk(child, src, depth + 1, &Stdin::default());
                    if let Arg::Static(s) = self.word(child, src) {
                        out = Input::Text(s);
                    }
                }
                out
            }
            _ => {
                let op = operator(node, src);
                let dest = node.child_by_field_name("destination");
                if let Some(d) = dest {
                    self.walk(d, src, depth + 1, &Stdin::default());
                }
                let dest_arg = dest.map(|d| self.word(d, src));
                match op.as_str() {
                    "<" => {
                        match &dest_arg {
                            Some(Arg::Static(p)) if self.is_secret(p) => {
                                self.raise(Risk::Destructive, format!("reads secret material `{p}`"))
                            }
                            Some(Arg::Static(p)) if self.may_be_secret(p) => self.raise(
                                Risk::ConfigMutation,
                                format!("reads `{p}` in a directory not known before it runs"),
                            ),
                            Some(Arg::Static(p)) if super::paths::is_block_device(p) => {
                                self.raise(Risk::ConfigMutation, format!("reads the raw device `{p}`"))
                            }
                            Some(Arg::Dynamic { text, .. }) => {
                                self.raise(Risk::ConfigMutation, format!("reads a file named at run time (`{text}`)"))
                            }
                            _ => {}
                        }
                        // `</dev/null` gives a program nothing to read.
                        match &dest_arg {
                            Some(Arg::Static(p)) if p == "/dev/null" => Input::Text(String::new()),
                            _ => Input::Unknown,
                        }
                    }
                    // Duplicating or closing a descriptor (`2>&1`, `>&-`) writes nothing new.
                    // (`>&$f` with a file name in `$f` writes that file.)
                    ">&" | "<&" | ">&-" | "<&-"
                        if dest_arg
                            .as_ref()
                            .and_then(Arg::as_static)
                            .is_some_and(|d| d == "-" || d.chars().all(|c| c.is_ascii_digit()))
                            || (op.ends_with('-') && dest_arg.is_none()) =>
                    {
                        Input::None
                    }
                    "<&" | "<&-" => Input::Unknown,
                    _ => {
                        match &dest_arg {
                            Some(arg) => self.write_target(arg, &format!("`{op}` redirection")),
                            None => self.raise(Risk::ConfigMutation, format!("`{op}` redirection to an unknown place")),
                        }
                        if op == "<>" {
                            Input::Unknown
                        } else {
                            Input::None
                        }
                    }
                }
            }
        }
    }

    /// Judges writing to `target` (a redirection, `tee`, `dd of=`, `sort -o` …).
    pub(crate) fn write_target(&mut self, target: &Arg, what: &str) {
        use super::paths::{is_block_device, is_harmless_sink, is_power_trigger};
        let values = target.values();
        if let Arg::Dynamic { text, .. } = target {
            self.raise(Risk::ConfigMutation, format!("{what} writes to a file named at run time (`{text}`)"));
        }
        for p in values {
            if super::paths::is_unresolvable(p) {
                self.raise(
                    Risk::Destructive,
                    format!("{what} writes {p}, which could be a device or a kernel trigger"),
                );
            } else if is_harmless_sink(p) {
                self.raise(Risk::ReadOnly, format!("{what} to {p} discards the output"));
            } else if self.is_secret(p) {
                self.raise(Risk::Destructive, format!("{what} overwrites secret material {p}"));
            } else if is_power_trigger(p) {
                self.raise(Risk::Destructive, format!("{what} writes {p} (reboots or crashes the machine)"));
            } else if is_block_device(p) {
                self.raise(Risk::Destructive, format!("{what} writes the device {p}"));
            } else if super::paths::is_irreplaceable(p) {
                self.raise(
                    Risk::Destructive,
                    format!("{what} overwrites {p}, which holds guest disks, backups, cluster state or hardware"),
                );
            } else if p.starts_with("/proc/sys/") || p.starts_with("/sys/") {
                self.raise(Risk::ConfigMutation, format!("{what} changes the kernel setting {p}"));
            } else {
                self.raise(Risk::ConfigMutation, format!("{what} writes {p}"));
            }
        }
    }

    /// Evaluates a word node statically where the shell would give it a fixed value.
    pub(crate) fn word(&self, node: Node<'_>, src: &str) -> Arg {
        self.word_at(node, src, 0)
    }

    fn word_at(&self, node: Node<'_>, src: &str, depth: usize) -> Arg {
        if depth > MAX_TREE_DEPTH {
            return Arg::Dynamic { text: String::new(), candidates: Vec::new() };
        }
        match node.kind() {
            "word" | "number" => Arg::Static(unescape_word(text(node, src))),
            "raw_string" => Arg::Static(strip_quotes(text(node, src), '\'')),
            "ansi_c_string" => Arg::Static(decode_ansi_c(text(node, src))),
            "string" | "translated_string" => {
                let mut out = String::new();
                let mut dynamic = false;
                let mut cursor = node.walk();
                for child in node.named_children(&mut cursor) {
                    match child.kind() {
                        "string_content" => out.push_str(&unescape_double(text(child, src))),
                        _ => match self.word_at(child, src, depth + 1) {
                            Arg::Static(s) => out.push_str(&s),
                            Arg::Dynamic { .. } => dynamic = true,
                        },
                    }
                }
                if dynamic {
                    self.concat_dynamic(node, src, depth)
                } else {
                    Arg::Static(out)
                }
            }
            "concatenation" => {
                let mut cursor = node.walk();
                let parts: Vec<Arg> =
                    node.named_children(&mut cursor).map(|c| self.word_at(c, src, depth + 1)).collect();
                if parts.iter().all(|p| p.as_static().is_some()) {
                    Arg::Static(parts.iter().filter_map(Arg::as_static).collect())
                } else {
                    let mut candidates = vec![String::new()];
                    for part in &parts {
                        let values = part.values();
                        if values.is_empty() || candidates.len() * values.len() > MAX_CANDIDATES {
                            candidates.clear();
                            break;
                        }
                        candidates =
                            candidates.iter().flat_map(|c| values.iter().map(move |v| format!("{c}{v}"))).collect();
                    }
                    Arg::Dynamic { text: text(node, src).to_string(), candidates }
                }
            }
            "simple_expansion" | "expansion" => {
                let raw = text(node, src);
                let (name, operand) = expansion_parts(raw);
                let mut candidates = self.vars.get(name).cloned().unwrap_or_default();
                if name == "HOME" && candidates.is_empty() {
                    candidates.push("~".into());
                }
                // `${x:-word}`, `${x:=word}`, `${x:+word}`: the word is a possible value.
                if let Some(word) = operand.filter(|w| !w.contains(['$', '`'])) {
                    candidates.push(word.trim_matches(['"', '\'']).to_string());
                }
                Arg::Dynamic { text: raw.to_string(), candidates }
            }
            "command_substitution" => {
                // `$(echo rm)` folds to its literal output, as a candidate.
                let mut candidates = Vec::new();
                let mut cursor = node.walk();
                let inner: Vec<Node<'_>> = node.named_children(&mut cursor).collect();
                if let [only] = inner.as_slice() {
                    if only.kind() == "command" {
                        let out = self.output_of_at(*only, src, depth + 1);
                        if !out.unknown {
                            candidates = out.texts.iter().map(|t| t.trim_end_matches('\n').to_string()).collect();
                        }
                    }
                }
                Arg::Dynamic { text: text(node, src).to_string(), candidates }
            }
            // A process substitution is a pipe's path (`/dev/fd/63`); what runs in it is walked.
            "process_substitution" => Arg::Static("/dev/fd/63".into()),
            // An arithmetic result is a number, never a path or a program.
            "arithmetic_expansion" => Arg::Static("0".into()),
            _ => Arg::Dynamic { text: text(node, src).to_string(), candidates: Vec::new() },
        }
    }

    fn concat_dynamic(&self, node: Node<'_>, src: &str, depth: usize) -> Arg {
        // A double-quoted string with expansions: candidates from its parts, like a concatenation.
        let mut candidates = vec![String::new()];
        let mut cursor = node.walk();
        for child in node.named_children(&mut cursor) {
            let values: Vec<String> = match child.kind() {
                "string_content" => vec![unescape_double(text(child, src))],
                _ => self.word_at(child, src, depth + 1).values().into_iter().map(str::to_string).collect(),
            };
            if values.is_empty() || candidates.len() * values.len() > MAX_CANDIDATES {
                candidates.clear();
                break;
            }
            candidates = candidates.iter().flat_map(|c| values.iter().map(move |v| format!("{c}{v}"))).collect();
        }
        Arg::Dynamic { text: text(node, src).to_string(), candidates }
    }
}

/// `${NAME<op>WORD}` → (NAME, WORD) for the default/assign/alternative operators; `$NAME` → (NAME,
/// None).
fn expansion_parts(raw: &str) -> (&str, Option<&str>) {
    let inner = raw.trim_start_matches('$').trim_start_matches('{').trim_end_matches('}');
    let end = inner.find(|c: char| !(c.is_ascii_alphanumeric() || c == '_')).unwrap_or(inner.len());
    let (name, rest) = inner.split_at(end);
    let operand = [":-", ":=", ":+", ":?", "-", "=", "+", "?"].iter().find_map(|op| rest.strip_prefix(op));
    (name, operand)
}

/// Calls `f` for each of `positions` (ascending byte offsets) with the chain of nodes from the root
/// to the innermost node holding it (empty past the end of the tree). One pass over the tree:
/// looking each position up from the root costs time in proportion to the siblings at every level,
/// which is quadratic on long, flat, broken input.
fn for_each_innermost<'t>(root: Node<'t>, text: &str, positions: &[usize], mut f: impl FnMut(&[Frame<'t>], usize)) {
    let mut next = 0;
    let mut take = |chain: &[Frame<'t>], below: usize, next: &mut usize| {
        while *next < positions.len() && positions[*next] < below {
            f(chain, positions[*next]);
            *next += 1;
        }
    };
    let mut chain: Vec<Frame<'t>> = vec![Frame::of(root, text)];
    let mut cursor = root.walk();
    'walk: loop {
        if cursor.goto_first_child() {
            let child = cursor.node();
            take(&chain, child.start_byte(), &mut next);
            chain.push(Frame::of(child, text));
            continue;
        }
        loop {
            let end = chain.last().map_or(usize::MAX, |f| f.end);
            take(&chain, end, &mut next);
            chain.pop();
            if cursor.goto_next_sibling() {
                let sibling = cursor.node();
                take(&chain, sibling.start_byte(), &mut next);
                chain.push(Frame::of(sibling, text));
                continue 'walk;
            }
            if !cursor.goto_parent() {
                break 'walk;
            }
        }
    }
    take(&[], usize::MAX, &mut next);
}

/// A node on the way from the root to some text, as the substitution check needs it.
struct Frame<'t> {
    kind: &'t str,
    start: usize,
    end: usize,
    /// Bash evaluates text here as arithmetic or as a subscripted name.
    evaluates: bool,
}

impl<'t> Frame<'t> {
    fn of(n: Node<'t>, text: &str) -> Frame<'t> {
        let evaluates = match n.kind() {
            "test_command"
            | "arithmetic_expansion"
            | "variable_assignment"
            | "declaration_command"
            | "unset_command" => true,
            "command" => matches!(
                n.child_by_field_name("name").map(|c| node_text(c, text)).unwrap_or_default(),
                "printf"
                    | "read"
                    | "let"
                    | "test"
                    | "["
                    | "unset"
                    | "declare"
                    | "typeset"
                    | "local"
                    | "export"
                    | "readonly"
                    | "mapfile"
                    | "readarray"
                    | "eval"
                    | "trap"
                    | "alias"
                    | "wait"
                    | "compgen"
                    | "complete"
            ),
            "compound_statement" => n.child(0).is_some_and(|c| c.kind() == "(("),
            _ => false,
        };
        Frame { kind: n.kind(), start: n.start_byte(), end: n.end_byte(), evaluates }
    }

    /// Whether the substitution opened (or closed) at byte `i` was walked as one, or sits where
    /// bash never runs it (a comment, single quotes nothing evaluates). `chain` runs from the root
    /// to the innermost node holding `i`.
    fn substitution_was_walked(chain: &[Frame<'_>], i: usize, escaped_backtick: bool) -> bool {
        let mut single_quoted = false;
        let mut evaluated = false;
        for f in chain.iter().rev() {
            match f.kind {
                // Only the substitution this `$(` opens (or this backtick opens or closes) was
                // walked as one; text inside an outer substitution is checked like any other.
                "command_substitution" | "process_substitution"
                    if !escaped_backtick && (f.start == i || f.end == i + 1) =>
                {
                    return true
                }
                "comment" => return true,
                "raw_string" => single_quoted = true,
                // Inside double quotes a `'` quotes nothing: `"${x:-'$(cmd)'}"` runs cmd.
                "string" => single_quoted = false,
                _ => {}
            }
            evaluated |= f.evaluates;
        }
        // Single-quoted text is literal unless something evaluates it (a quoted `bash -c` script
        // is parsed on its own and judged there).
        single_quoted && !evaluated
    }
}

/// The working directory relative paths are judged in.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Cwd {
    /// Where the command starts: usually a home directory.
    Start,
    /// After a literal `cd`.
    Known(String),
    /// After a `cd` to a place not known before run time.
    Unknown,
}

enum Input {
    Text(String),
    Unknown,
    None,
}

fn text<'s>(node: Node<'_>, src: &'s str) -> &'s str {
    node_text(node, src)
}

fn node_text<'s>(node: Node<'_>, src: &'s str) -> &'s str {
    node.utf8_text(src.as_bytes()).unwrap_or("")
}

fn operator(node: Node<'_>, src: &str) -> String {
    let mut cursor = node.walk();
    for child in node.children(&mut cursor) {
        if !child.is_named() {
            return text(child, src).to_string();
        }
    }
    String::new()
}

/// Commands in `node` whose name is `name`.
fn count_calls(node: Node<'_>, src: &str, name: &str, depth: usize) -> usize {
    if depth > MAX_TREE_DEPTH || name.is_empty() {
        return 0;
    }
    let mut n = 0;
    if node.kind() == "command" {
        if let Some(cmd) = node.child_by_field_name("name") {
            if text(cmd, src) == name {
                n += 1;
            }
        }
    }
    let mut cursor = node.walk();
    for child in node.children(&mut cursor) {
        n += count_calls(child, src, name, depth + 1);
    }
    n
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
    ];
    // Variables that name programs, scripts, configuration or trace files for the tools that read
    // them (GIT_CONFIG_*, ZPOOL_SCRIPTS_*, KUBECTL_EXTERNAL_DIFF, GIT_TRACE=FILE …).
    const HINTS: &[&str] = &[
        "COMMAND", "SCRIPT", "EXEC", "EDITOR", "PAGER", "DEBUGGER", "CONFIG", "TRACE", "ASKPASS", "PRELOAD", "PROXY",
        "HOOK", "DIFF", "SHELL", "_CMD", "OPTS", "OPTIONS",
    ];
    let name = name.split('[').next().unwrap_or(name);
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
        let simple = match e {
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
        };
        if let Some(c) = simple {
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
fn unescape_echo(s: &str) -> String {
    s.replace("\\n", "\n").replace("\\t", "\t")
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
    if commas.is_empty() {
        // A range `{a..e}` / `{1..3}` expands; `{x}` stays as written.
        let inner = &word[open + 1..close];
        if let Some((a, b)) = inner.split_once("..") {
            let items: Option<Vec<String>> =
                match (a.parse::<i64>(), b.parse::<i64>(), a.chars().count(), b.chars().count()) {
                    (Ok(x), Ok(y), _, _) if (x - y).abs() < MAX_CANDIDATES as i64 => {
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
                let (prefix, suffix) = (&word[..open], &word[close + 1..]);
                return items
                    .iter()
                    .flat_map(|i| expand_braces(&format!("{prefix}{i}{suffix}")))
                    .take(MAX_CANDIDATES)
                    .collect();
            }
        }
        let rest = expand_braces(&word[close + 1..]);
        return rest.into_iter().map(|r| format!("{}{r}", &word[..=close])).collect();
    }
    let (prefix, suffix) = (&word[..open], &word[close + 1..]);
    let mut bounds = vec![open];
    bounds.extend(&commas);
    bounds.push(close);
    let mut out = Vec::new();
    for w in bounds.windows(2) {
        let item = &word[w[0] + 1..w[1]];
        for expanded in expand_braces(&format!("{prefix}{item}{suffix}")) {
            if out.len() >= MAX_CANDIDATES {
                return out;
            }
            out.push(expanded);
        }
    }
    out
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
    fn brace_lists_expand() {
        assert_eq!(expand_braces("-r{f,}"), ["-rf", "-r"]);
        assert_eq!(expand_braces("{-rf,/}"), ["-rf", "/"]);
        assert_eq!(expand_braces("a{b,c}d{e,f}"), ["abde", "abdf", "acde", "acdf"]);
        assert_eq!(expand_braces("{1..3}"), ["1", "2", "3"]);
        assert_eq!(expand_braces("/etc/s{h..h}adow"), ["/etc/shadow"]);
        assert_eq!(expand_braces("{x}"), ["{x}"]);
        assert_eq!(expand_braces("${x}"), ["${x}"]);
        assert_eq!(expand_braces("plain"), ["plain"]);
    }
}
