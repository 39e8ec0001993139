//! The walk over the syntax tree: every command, redirection, pipeline stage, function and
//! assignment, in the order bash would meet them.

use tree_sitter::Node;

use super::sinks::{base_name, substitutions_within};
use super::values::printf_value;
use super::words::{dangerous_variable, environment_variable, expand_braces, expansion_parts, unescape_echo};
use super::{Analysis, Arg, Cwd, Input, Stdin, MAX_TREE_DEPTH};
use nomos_types::Risk;

impl Analysis<'_> {
    pub(super) fn walk(&mut self, node: Node<'_>, src: &str, depth: usize, stdin: &Stdin) {
        if depth > MAX_TREE_DEPTH {
            self.raise(Risk::Destructive, "nested too deeply to analyse");
            return;
        }
        if self.out_of_time() {
            return;
        }
        match node.kind() {
            "command" => self.command(node, src, depth, stdin),
            "redirected_statement" => self.redirected(node, src, depth, stdin),
            "pipeline" => self.pipeline(node, src, depth, stdin),
            "function_definition" => self.function(node, src, depth),
            // `>(cmd)` reads what the command around it writes: input it cannot see.
            "process_substitution" if text(node, src).starts_with(">(") => {
                self.walk_children(node, src, depth, &Stdin { texts: Vec::new(), unknown: true });
            }
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
                self.expansion_sinks(node, src);
                self.walk_children(node, src, depth, stdin);
            }
            "for_statement" => {
                // `for u in caddy gitea`: the loop variable takes those values.
                if let Some(var) = node.child_by_field_name("variable") {
                    let name = text(var, src).to_string();
                    let mut cursor = node.walk();
                    let nodes: Vec<Node<'_>> = node.children_by_field_name("value", &mut cursor).collect();
                    let mut values: Vec<String> = nodes
                        .iter()
                        .flat_map(|v| {
                            // `for x in $list`: the list's words, split as a command's are.
                            self.field_at(*v, src, 0)
                                .values()
                                .into_iter()
                                .flat_map(|c| c.split(super::expand::FIELD).map(str::to_string).collect::<Vec<_>>())
                                .collect::<Vec<_>>()
                        })
                        .collect();
                    // `for p in $(pgrep kvm)`: each value is a process id looked up so; the lookup
                    // is kept as a value, so that what is done to the ids is judged by it.
                    values.extend(
                        nodes
                            .iter()
                            .filter(|v| v.kind() == "command_substitution" && self.prints_only_numbers(**v, src))
                            .filter(|v| {
                                ["pgrep", "pidof", "lsof", "fuser", ".pid"].iter().any(|p| text(**v, src).contains(p))
                            })
                            .map(|v| text(*v, src).to_string()),
                    );
                    // `for x;` takes the positional parameters; a glob takes file names.
                    // A pattern's names are files it matches: for paths the pattern stands for them
                    // (its secret files are found as a pattern's are), but where bash evaluates the
                    // value, a file's name is text no one has seen.
                    let mut known = (!nodes.is_empty()).then(Vec::new);
                    let mut patterns = false;
                    for v in &nodes {
                        let glob = v.kind() == "word" && text(*v, src).contains(['*', '?', '[']);
                        patterns |= glob;
                        match (self.known_from(*v, src).filter(|_| !glob), known.as_mut()) {
                            (Some(deps), Some(all)) => all.extend(deps),
                            _ => known = None,
                        }
                    }
                    let literal = nodes.iter().all(|v| self.known_from(*v, src).is_some_and(|d| d.is_empty()));
                    let settled = known.as_ref().is_some_and(Vec::is_empty) || (patterns && literal);
                    if patterns && literal {
                        self.patterned.insert(name.clone());
                    }
                    self.set_var(&name, &values, known, false);
                    // Within the loop the variable is one of its words; after a loop at the top
                    // level, the last of them.
                    if settled {
                        let to = if node.parent().is_some_and(|p| p.kind() == "program") {
                            usize::MAX
                        } else {
                            node.end_byte()
                        };
                        self.settle(&name, var.end_byte(), to);
                    }
                }
                self.walk_children(node, src, depth, stdin);
            }
            "c_style_for_statement" => {
                self.walk_children(node, src, depth, stdin);
                // The header between `((` and `))` is arithmetic.
                let mut cursor = node.walk();
                let tokens: Vec<Node<'_>> =
                    node.children(&mut cursor).filter(|c| matches!(c.kind(), "((" | "))")).collect();
                if let [open, close, ..] = tokens.as_slice() {
                    self.arith_range(node, src, (open.end_byte(), close.start_byte()), "arithmetic", None);
                }
            }
            "test_command" => {
                self.test_sinks(node, src, depth);
                self.walk_children(node, src, depth, stdin);
            }
            "unset_command" => {
                let mut cursor = node.walk();
                let names: Vec<Node<'_>> = node.named_children(&mut cursor).collect();
                for n in &names {
                    self.name_sinks(*n, src, (n.start_byte(), n.end_byte()), "`unset`");
                }
                self.unset_history(names.iter().map(|n| text(*n, src)));
                self.walk_children(node, src, depth, stdin);
            }
            "declaration_command" => {
                // `export -p`, `declare -p NAME`: what a declaration prints is judged as any program's output.
                let words: Vec<&str> = text(node, src).split_whitespace().collect();
                if let Some((base, rest)) = words.split_first() {
                    let args: Vec<Arg> = rest.iter().map(|w| Arg::Static((*w).to_string())).collect();
                    crate::rules::disclosure(self, base, &args);
                }
                self.declaration(node, src);
                self.declaration_values(node, src);
                self.walk_children(node, src, depth, stdin);
            }
            "arithmetic_expansion" => {
                self.arithmetic(node, src);
                self.walk_children(node, src, depth, stdin);
                self.arith_range(node, src, (node.start_byte(), node.end_byte()), "arithmetic", None);
            }
            // In a here-document the grammar reads `$(( x ))` as a substitution running a subshell;
            // bash reads arithmetic there as everywhere.
            "command_substitution" if text(node, src).starts_with("$((") && text(node, src).ends_with("))") => {
                for inner in substitutions_within(node) {
                    self.walk(inner, src, depth + 1, stdin);
                }
                self.arithmetic(node, src);
                self.arith_range(node, src, (node.start_byte(), node.end_byte()), "arithmetic", None);
            }
            "compound_statement" if node.child(0).is_some_and(|c| c.kind() == "((") => {
                self.arithmetic(node, src);
                self.walk_children(node, src, depth, stdin);
                self.arith_range(node, src, (node.start_byte(), node.end_byte()), "arithmetic", None);
            }
            "variable_assignment" => self.assignment(node, src, depth),
            "file_redirect" | "heredoc_redirect" | "herestring_redirect" => {
                self.redirect(node, src, depth);
            }
            "ERROR" => {
                self.raise_unparsed("part of the command does not parse as shell");
                self.probe_destructive(text(node, src), "text that does not parse holds a destructive command");
                self.walk_children(node, src, depth, stdin);
            }
            _ => self.walk_children(node, src, depth, stdin),
        }
    }

    pub(super) fn walk_children(&mut self, node: Node<'_>, src: &str, depth: usize, stdin: &Stdin) {
        let mut cursor = node.walk();
        for child in node.children(&mut cursor) {
            self.walk(child, src, depth + 1, stdin);
        }
    }

    fn redirected(&mut self, node: Node<'_>, src: &str, depth: usize, stdin: &Stdin) {
        // bash gives a redirection after `a && b` to `b`, where the grammar hangs it on the whole
        // list: what comes before runs first, unredirected (a `cd` there moves where `b` writes).
        let mut body = node.child_by_field_name("body");
        while let Some(list) = body.filter(|b| b.kind() == "list") {
            let last = u32::try_from(list.named_child_count().saturating_sub(1)).unwrap_or(0);
            for k in 0..last {
                if let Some(part) = list.named_child(k) {
                    self.walk(part, src, depth + 1, stdin);
                }
            }
            body = list.named_child(last);
        }
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
        if let Some(body) = body {
            self.walk(body, src, depth + 1, &input);
            self.judge_output_files(node, body, src, &input);
        }
        // What reaches the tail is the body's output: the here-document when the body is a plain
        // `cat`, else something unseen (with the here-document as a possible part of it).
        let passes_through = body.is_some_and(|b| {
            b.kind() == "command" && {
                let words = self.words(b, src);
                matches!(words.as_slice(), [only] if only.as_static() == Some("cat"))
            }
        });
        for tail in tails {
            let fed = Stdin { texts: input.texts.clone(), unknown: !passes_through };
            self.walk(tail, src, depth + 1, &fed);
        }
    }

    /// What a command's standard output puts in the files it is redirected to: text that is
    /// visible is judged where it lands (a cron entry, a kernel setting), and a source that never
    /// ends (`cat /dev/zero`, `yes`) fills the filesystem it is written to.
    fn judge_output_files(&mut self, node: Node<'_>, body: Node<'_>, src: &str, input: &Stdin) {
        let mut cursor = node.walk();
        let mut files = Vec::new();
        for child in node.children_by_field_name("redirect", &mut cursor) {
            if child.kind() != "file_redirect" {
                continue;
            }
            let op = operator(child, src);
            let fd = child.child_by_field_name("descriptor").map(|d| text(d, src).to_string());
            let stdout = fd.as_deref().is_none_or(|d| d == "1") || op.starts_with('&');
            if !stdout || !matches!(op.as_str(), ">" | ">>" | ">|" | "&>" | "&>>") {
                continue;
            }
            if let Some(Arg::Static(path)) = child.child_by_field_name("destination").map(|d| self.word(d, src)) {
                files.push(path);
            }
        }
        if files.is_empty() {
            return;
        }
        // `a && b > f` is read with the redirection on the whole list; bash gives it to `b`.
        let mut body = body;
        while body.kind() == "list" {
            let last = u32::try_from(body.named_child_count().saturating_sub(1)).unwrap_or(0);
            match body.named_child(last) {
                Some(last) => body = last,
                None => return,
            }
        }
        let words = if body.kind() == "command" { self.words(body, src) } else { Vec::new() };
        let statics: Vec<&str> = words.iter().filter_map(Arg::as_static).collect();
        let endless = match statics.split_first() {
            Some((&"yes", _)) => true,
            Some((name, args)) if matches!(*name, "cat" | "pv" | "tac" | "tail") => {
                args.iter().any(|a| matches!(*a, "/dev/zero" | "/dev/urandom" | "/dev/random"))
            }
            _ => false,
        };
        let output = self.output_fed(body, src, 0, Some(input));
        for path in files {
            if endless && !crate::paths::is_harmless_sink(&path) {
                self.raise(Risk::Destructive, format!("writes without end to {path}, filling its filesystem"));
            }
            if !output.unknown && !output.texts.is_empty() {
                // Relative to where an earlier `cd` went.
                for resolved in self.resolve(&path) {
                    self.written_text(&resolved, &output.texts);
                }
            }
        }
    }

    /// Without its history file the shell keeps no record of what runs next.
    pub(super) fn unset_history<'s>(&mut self, names: impl Iterator<Item = &'s str>) {
        if names.into_iter().any(|n| matches!(n, "HISTFILE" | "HISTSIZE" | "HISTFILESIZE")) {
            self.raise(
                Risk::ConfigMutation,
                "`unset` turns off the shell's history, so what runs next leaves no record",
            );
        }
    }

    fn pipeline(&mut self, node: Node<'_>, src: &str, depth: usize, stdin: &Stdin) {
        let mut cursor = node.walk();
        let stages: Vec<Node<'_>> = node.named_children(&mut cursor).collect();
        let mut input = stdin.clone();
        let last = stages.len().saturating_sub(1);
        for (k, stage) in stages.into_iter().enumerate() {
            self.walk(stage, src, depth + 1, &input);
            // What a decoder makes of what it is fed (`echo … | base64 -d | sh`) is known too;
            // text decoded on its way to another command is hidden on purpose, so never routine.
            let fed = self.output_fed(stage, src, 0, Some(&input));
            let program = text(stage, src).split_whitespace().next().unwrap_or("");
            let decodes = matches!(program, "base64" | "base32" | "basenc" | "xxd" | "rev" | "tr");
            if decodes && k < last && !fed.unknown && !fed.texts.is_empty() {
                self.raise(Risk::ConfigMutation, format!("`{program}` decodes text it hands to the next command"));
            }
            input = fed;
        }
    }

    /// What a pipeline stage writes to the next one, when that is knowable: `echo`/`printf` of
    /// literals, and what decoders make of them. Anything else is unseen data.
    pub(super) fn output_of_at(&self, stage: Node<'_>, src: &str, depth: usize) -> Stdin {
        self.output_fed(stage, src, depth, None)
    }

    /// What a stage writes, given what a pipe feeds it (`None`: nothing known is fed).
    fn output_fed(&self, stage: Node<'_>, src: &str, depth: usize, fed: Option<&Stdin>) -> Stdin {
        let unseen = Stdin { texts: Vec::new(), unknown: true };
        // `$(echo cmVib290 | base64 -d)`: each stage's output feeds the next.
        if stage.kind() == "pipeline" && depth <= MAX_TREE_DEPTH {
            let mut cursor = stage.walk();
            let stages: Vec<Node<'_>> = stage.named_children(&mut cursor).collect();
            let mut flow: Option<Stdin> = fed.cloned();
            for s in stages {
                flow = Some(self.output_fed(s, src, depth + 1, flow.as_ref()));
            }
            return flow.unwrap_or(unseen);
        }
        // `(crontab -l; echo '@reboot …')`, `{ a; b; }`, `a && b`: what each part prints, in turn.
        if matches!(stage.kind(), "subshell" | "compound_statement" | "list") && depth <= MAX_TREE_DEPTH {
            let mut cursor = stage.walk();
            let mut out = Stdin { texts: Vec::new(), unknown: false };
            for part in stage.named_children(&mut cursor) {
                let printed = self.output_fed(part, src, depth + 1, None);
                out.unknown |= printed.unknown;
                out.texts.extend(printed.texts);
            }
            return out;
        }
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
        let Some((Arg::Static(name), args)) = words.split_first() else { return unseen };
        match name.as_str() {
            "echo" | "printf" if outer.is_none() && args.iter().all(|w| w.as_static().is_some()) => {
                let text: Vec<&str> = args.iter().filter_map(Arg::as_static).filter(|w| !w.starts_with('-')).collect();
                let joined = text.join(" ");
                // Both as written and with its escapes decoded (`echo -e`, `sh`'s echo, `printf`).
                let mut texts = vec![unescape_echo(&joined)];
                let decoded = match (name.as_str(), text.split_first()) {
                    ("printf", Some((format, args))) => {
                        let args: Vec<String> = args.iter().map(|a| a.to_string()).collect();
                        printf_value(format, &args)
                    }
                    _ => printf_value("%b", &[joined]),
                };
                texts.extend(decoded.filter(|d| !texts.contains(d)));
                Stdin { texts, unknown: false }
            }
            // `awk '{print "pct destroy " $1}'`, `sed 's/^/qm stop /'`, `perl -ne 'print "rm $_"'`: the
            // text they print, computed parts standing as `X`, is visible in part; the rest is not.
            "awk" | "gawk" | "mawk" | "nawk" | "sed" | "gsed" | "perl" | "ruby" if outer.is_none() => {
                match super::words::printed_template(name, args) {
                    Some(texts) => Stdin { texts, unknown: true },
                    None => unseen,
                }
            }
            // `pgrep kvm | while read p; do kill $p; done`: the lines are process ids, unseen, but
            // which processes they are is known by the lookup, kept as a line of its own.
            "pgrep" | "pidof" if outer.is_none() && args.iter().all(|w| w.as_static().is_some()) => {
                Stdin { texts: vec![format!("$({})", text(cmd, src))], unknown: true }
            }
            // `command -v rm`, `which rm`, `type -P rm`: where the program is, which runs it.
            "command" | "which" | "type" if outer.is_none() => {
                let names: Vec<&str> = args.iter().filter_map(Arg::as_static).filter(|w| !w.starts_with('-')).collect();
                let flag = |f: &[&str]| args.iter().any(|w| w.as_static().is_some_and(|w| f.contains(&w)));
                let locates = match name.as_str() {
                    "command" => flag(&["-v"]),
                    "type" => flag(&["-P", "-p"]),
                    _ => true,
                };
                match names.as_slice() {
                    [program] if locates && args.iter().all(|w| w.as_static().is_some()) && !program.contains('/') => {
                        Stdin { texts: vec![format!("/usr/bin/{program}")], unknown: false }
                    }
                    _ => unseen,
                }
            }
            // `cat <<EOF` / `cat <<< '…'` pass their input through; decoders decode it.
            _ if words.iter().all(|w| w.as_static().is_some()) && decoder(name, &words).is_some() => {
                let mut texts: Vec<String> = fed.filter(|f| !f.unknown).map(|f| f.texts.clone()).unwrap_or_default();
                if fed.is_some_and(|f| f.unknown) {
                    return unseen;
                }
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
                let args: Vec<&str> = words.iter().skip(1).filter_map(Arg::as_static).collect();
                let decoded: Option<Vec<String>> =
                    texts.iter().map(|t| decoder(name, &words).and_then(|d| d(t, &args))).collect();
                match decoded {
                    Some(texts) if !texts.is_empty() => Stdin { texts, unknown: false },
                    _ => unseen,
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
        // `export` and `declare -x` put the variables into later programs' environments.
        let keyword = node.child(0).map(|k| text(k, src)).unwrap_or("");
        let mut cursor = node.walk();
        let exports = keyword == "export"
            || node.named_children(&mut cursor).any(|c| {
                c.kind() == "word" && {
                    let w = text(c, src);
                    w.starts_with('-') && w.contains('x')
                }
            });
        // `declare -p NAME` prints it and sets nothing.
        let mut cursor = node.walk();
        let prints = node.named_children(&mut cursor).any(|c| {
            c.kind() == "word" && {
                let w = text(c, src);
                w.starts_with('-') && w.contains('p')
            }
        });
        if prints {
            return;
        }
        let mut cursor = node.walk();
        for child in node.named_children(&mut cursor) {
            if exports {
                let (name, value) = match child.kind() {
                    "variable_assignment" => (
                        child.child_by_field_name("name").map(|n| text(n, src).to_string()),
                        child.child_by_field_name("value").map(|v| self.word(v, src)),
                    ),
                    "variable_name" => (Some(text(child, src).to_string()), None),
                    _ => match self.word(child, src) {
                        Arg::Static(w) if !w.starts_with('-') => {
                            let (n, v) =
                                w.split_once('=').map_or((w.clone(), None), |(n, v)| (n.into(), Some(v.into())));
                            (Some(n), v.map(Arg::Static))
                        }
                        _ => (None, None),
                    },
                };
                if let Some(name) = name {
                    // `export NAME` exports the value it has, which is not known here.
                    let shown = value.as_ref().and_then(Arg::as_static);
                    if let Some(reason) = environment_variable(&name, shown) {
                        self.raise(Risk::ConfigMutation, format!("exports: {reason}"));
                    }
                    // An exported pager or editor runs in every later program that uses it.
                    if let Some(command) = shown.and_then(|v| super::words::command_variable(&name, v)) {
                        self.script(&command);
                    }
                }
            }
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
        let name = node.child_by_field_name("name").map(|n| text(n, src).to_string()).unwrap_or_default();
        let base = base_name(&name).to_string();
        // `a[$(cmd)]=1`: the subscript is evaluated, as arithmetic unless the array is associative.
        if let Some(n) = node.child_by_field_name("name") {
            self.walk(n, src, depth + 1, &Stdin::default());
            if let Some(index) = n.child_by_field_name("index").filter(|_| n.kind() == "subscript") {
                self.arith_range(index, src, (index.start_byte(), index.end_byte()), "an array subscript", Some(&base));
            }
        }
        if let Some(reason) = dangerous_variable(&name) {
            self.raise(Risk::ConfigMutation, reason);
        }
        if name == "CDPATH" {
            self.cdpath = true;
            self.cwd = Cwd::Unknown;
        }
        // `BASH_CMDS[cat]=/bin/rm`: `cat` runs `/bin/rm` from then on.
        if let Some(hashed) = name.strip_prefix("BASH_CMDS[").and_then(|n| n.strip_suffix(']')) {
            let program = node.child_by_field_name("value").map(|v| self.word(v, src));
            let targets = program.map(|p| p.values().into_iter().map(str::to_string).collect()).unwrap_or_default();
            self.hash_name(hashed.trim_matches(['"', '\'']), targets);
        }
        let mut cursor = node.walk();
        let append = node.children(&mut cursor).any(|c| c.kind() == "+=");
        let Some(value) = node.child_by_field_name("value") else {
            self.set_var(&name, &[String::new()], Some(Vec::new()), append);
            return;
        };
        let values = if value.kind() == "array" {
            let mut cursor = value.walk();
            let elements: Vec<Node<'_>> = value.named_children(&mut cursor).collect();
            let mut values = Vec::new();
            // A literal list keeps its elements in order (`a=(rm -rf /srv); "${a[@]}"`).
            let listed: Vec<Option<String>> = elements
                .iter()
                .map(|e| self.word(*e, src).as_static().filter(|_| !text(*e, src).starts_with('[')).map(str::to_string))
                .collect();
            if listed.iter().all(Option::is_some) && !append {
                let list = self.arrays.entry(base.clone()).or_default();
                if list.len() < super::MAX_CANDIDATES {
                    list.push(listed.into_iter().flatten().collect());
                }
            }
            for e in elements {
                let raw = text(e, src);
                // `([k]=v …)`: k is a subscript.
                if let Some(close) = raw.strip_prefix('[').and_then(|r| r.find("]=")) {
                    let at = e.start_byte() + 1;
                    self.arith_range(e, src, (at, at + close), "an array subscript", Some(&base));
                }
                for v in self.word(e, src).values() {
                    let v = v.strip_prefix('[').and_then(|r| r.split_once("]=")).map_or(v, |(_, v)| v);
                    values.push(v.to_string());
                }
            }
            values
        } else {
            self.word(value, src).values().into_iter().map(str::to_string).collect()
        };
        let known = self.known_from(value, src);
        // A literal assigned as a statement of the script itself holds from here on.
        let settled = !append
            && known.as_ref().is_some_and(Vec::is_empty)
            && value.kind() != "array"
            && node.parent().is_some_and(|p| p.kind() == "program");
        self.set_var(&name, &values, known, append);
        if settled {
            self.settle(&name, node.end_byte(), usize::MAX);
        }
        self.walk(value, src, depth + 1, &Stdin::default());
    }

    fn command(&mut self, node: Node<'_>, src: &str, depth: usize, stdin: &Stdin) {
        let mut input = stdin.clone();
        let mut cursor = node.walk();
        for child in node.children(&mut cursor) {
            match child.kind() {
                "variable_assignment" => {
                    // `NAME=value cmd`: only the command's environment.
                    let name = child.child_by_field_name("name").map(|n| text(n, src).to_string()).unwrap_or_default();
                    let value = child.child_by_field_name("value").map(|v| self.word(v, src));
                    let shown = value.as_ref().map_or(Some(""), Arg::as_static);
                    self.environment(&name, shown);
                    if let Some(value) = child.child_by_field_name("value") {
                        // The command's environment: what it runs (`x=… bash -c '…'`) may evaluate
                        // the value; in this shell the variable keeps coming from outside.
                        let values: Vec<String> =
                            self.word(value, src).values().into_iter().map(str::to_string).collect();
                        self.set_var(&name, &values, None, false);
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
        self.builtin_values(node, src, &input);
        let argv = self.words(node, src);
        self.run(&argv, &input);
    }

    /// The command's name and arguments, evaluated, with brace lists expanded.
    fn words(&self, command: Node<'_>, src: &str) -> Vec<Arg> {
        self.words_at(command, src, 0)
    }

    pub(super) fn words_at(&self, command: Node<'_>, src: &str, depth: usize) -> Vec<Arg> {
        let mut argv = Vec::new();
        if let Some(name) = command.child_by_field_name("name") {
            let word = name.named_child(0).unwrap_or(name);
            match self.field_at(word, src, depth + 1) {
                // `{rm,-rf,/srv}` in the command's place is the words it expands to.
                Arg::Static(s) if word.kind() == "word" && s.starts_with('{') => {
                    let expanded = expand_braces(&s);
                    match expanded.as_slice() {
                        [one] if one == &s => argv.push(Arg::Static(s)),
                        _ => argv.extend(expanded.into_iter().map(Arg::Static)),
                    }
                }
                other => argv.push(other),
            }
        }
        let mut cursor = command.walk();
        let mut last_end = None;
        for arg in command.children_by_field_name("argument", &mut cursor) {
            // `--arg-file=<(…)` is one word to bash, which the grammar splits after the `=`.
            let joined = last_end == Some(arg.start_byte()) && arg.kind() == "process_substitution";
            last_end = Some(arg.end_byte());
            if joined {
                if let Some(Arg::Static(prev)) =
                    argv.last_mut().filter(|p| p.as_static().is_some_and(|p| p.ends_with('=')))
                {
                    prev.push_str("/dev/fd/63");
                    continue;
                }
            }
            match self.field_at(arg, src, depth + 1) {
                Arg::Static(s) if arg.kind() == "word" || arg.kind() == "concatenation" => {
                    argv.extend(expand_braces(&s).into_iter().map(Arg::Static))
                }
                other => argv.push(other),
            }
        }
        argv
    }

    /// Judges a redirection and says what, if anything, it feeds to standard input.
    fn redirect(&mut self, node: Node<'_>, src: &str, depth: usize) -> Input {
        match node.kind() {
            "heredoc_redirect" => {
                let mut cursor = node.walk();
                let mut body = None;
                let literal = quoted_heredoc(node, src);
                for child in node.named_children(&mut cursor) {
                    if child.kind() == "heredoc_body" {
                        // Unquoted here-documents expand `$(…)` before anything reads them.
                        if !literal {
                            self.walk_children(child, src, depth + 1, &Stdin::default());
                        }
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
                                self.raise_secret(Risk::Destructive, format!("reads secret material `{p}`"))
                            }
                            Some(Arg::Static(p)) if self.is_credential(p) => self.raise_secret(
                                Risk::Destructive,
                                format!("reads `{p}`, which is named like a credential"),
                            ),
                            Some(Arg::Static(p)) if self.may_be_secret(p) => self.raise(
                                Risk::ConfigMutation,
                                format!("reads `{p}` in a directory not known before it runs"),
                            ),
                            Some(Arg::Static(p)) if crate::paths::is_block_device(p) => {
                                self.raise(Risk::ConfigMutation, format!("reads the raw device `{p}`"))
                            }
                            Some(Arg::Dynamic { text, .. }) => {
                                self.raise(Risk::ConfigMutation, format!("reads a file named at run time (`{text}`)"))
                            }
                            _ => {}
                        }
                        // `</dev/null` gives a program nothing to read; `< <(echo …)` what that prints.
                        let substituted = dest
                            .filter(|d| d.kind() == "process_substitution" && text(*d, src).starts_with("<("))
                            .and_then(|d| d.named_child(0))
                            .map(|inner| self.output_of_at(inner, src, depth + 1));
                        match (&dest_arg, substituted) {
                            (_, Some(printed)) if !printed.unknown && !printed.texts.is_empty() => {
                                Input::Text(printed.texts.join("\n"))
                            }
                            (Some(Arg::Static(p)), _) if p == "/dev/null" => Input::Text(String::new()),
                            _ => Input::Unknown,
                        }
                    }
                    // Duplicating or closing a descriptor (`2>&1`, `>&-`) writes nothing new.
                    // (`>&$f` with a file name in `$f` writes that file.)
                    // Standard input taken from another descriptor (`exec 3< file; bash <&3`) is
                    // whatever was opened there, which is not seen here.
                    "<&" if node.child_by_field_name("descriptor").is_none_or(|d| text(d, src) == "0")
                        && dest_arg
                            .as_ref()
                            .and_then(Arg::as_static)
                            .is_some_and(|d| d != "0" && !d.is_empty() && d.chars().all(|c| c.is_ascii_digit())) =>
                    {
                        Input::Unknown
                    }
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
                        // A brace list in a redirection's target is an error to bash ("ambiguous
                        // redirect"), but zsh opens every file it names: judged at the worst.
                        let unquoted = dest.is_some_and(|d| !text(d, src).contains(['\'', '"', '\\']));
                        if let Some(Arg::Static(p)) = dest_arg.as_ref().filter(|_| unquoted) {
                            let expanded = expand_braces(p);
                            if expanded.len() > 1 {
                                for one in expanded {
                                    self.write_target_as(&Arg::Static(one), &format!("`{op}` redirection"), op == ">>");
                                }
                            }
                        }
                        match &dest_arg {
                            Some(arg) => self.write_target_as(arg, &format!("`{op}` redirection"), op == ">>"),
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
}

/// A text transformation whose output can be computed from its input: what `$(base64 -d <<< …)`,
/// `$(rev <<< …)`, `$(tr a-z n-za-m <<< …)` or `$(xxd -r -p <<< …)` gives.
type Decoder = fn(&str, &[&str]) -> Option<String>;

fn decoder(name: &str, words: &[Arg]) -> Option<Decoder> {
    let args: Vec<&str> = words.iter().skip(1).filter_map(Arg::as_static).collect();
    Some(match (name, args.as_slice()) {
        ("cat", []) => |t, _| Some(t.to_string()),
        ("base64", [d]) if matches!(*d, "-d" | "--decode" | "-di" | "-id") => |t, _| base64_decode(t),
        ("rev", []) => {
            |t, _| Some(t.lines().map(|l| l.chars().rev().collect::<String>()).collect::<Vec<_>>().join("\n"))
        }
        ("tr", [d, _]) if *d == "-d" => |t, a| {
            let gone = tr_set(a.get(1)?)?;
            Some(t.chars().filter(|c| !gone.contains(c)).collect())
        },
        ("tr", [_, _]) => |t, a| {
            let from = tr_set(a.first()?)?;
            let to = tr_set(a.get(1)?)?;
            Some(
                t.chars()
                    .map(|c| {
                        from.iter().position(|f| *f == c).and_then(|i| to.get(i).or(to.last())).copied().unwrap_or(c)
                    })
                    .collect(),
            )
        },
        ("xxd", [r, p]) if *r == "-r" && matches!(*p, "-p" | "-ps" | "-plain") => |t, _| {
            let hex: Vec<char> = t.chars().filter(char::is_ascii_hexdigit).collect();
            let bytes: Option<Vec<u8>> =
                hex.chunks(2).map(|p| u8::from_str_radix(&p.iter().collect::<String>(), 16).ok()).collect();
            String::from_utf8(bytes?).ok()
        },
        _ => return None,
    })
}

/// `tr`'s set: characters and `a-z` ranges (classes are not computed).
fn tr_set(spec: &str) -> Option<Vec<char>> {
    let chars: Vec<char> = spec.chars().collect();
    if spec.contains("[:") {
        return None;
    }
    let mut out = Vec::new();
    let mut i = 0;
    while let Some(&c) = chars.get(i) {
        if let (Some('-'), Some(&end)) = (chars.get(i + 1), chars.get(i + 2)) {
            out.extend((c..=end).take(256));
            i += 3;
        } else {
            out.push(c);
            i += 1;
        }
    }
    Some(out)
}

/// Standard base64 (padding and line breaks allowed).
pub(crate) fn base64_decode(text: &str) -> Option<String> {
    const ALPHABET: &str = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut bits: u32 = 0;
    let mut count = 0;
    let mut out = Vec::new();
    for c in text.chars().filter(|c| !c.is_whitespace() && *c != '=') {
        let v = u32::try_from(ALPHABET.find(c)?).ok()?;
        bits = (bits << 6) | v;
        count += 6;
        if count >= 8 {
            count -= 8;
            out.push(u8::try_from((bits >> count) & 0xff).ok()?);
        }
    }
    String::from_utf8(out).ok()
}

impl Analysis<'_> {
    /// `NAME=value` in a program's environment: only an inert variable leaves it read-only; an
    /// exported function (`BASH_FUNC_name%%=() { … }`) is judged as the code it defines.
    pub(crate) fn environment(&mut self, name: &str, value: Option<&str>) {
        // A variable on the inert list with a plain value is inert (`SYSTEMD_PAGER=cat`).
        if let Some(reason) = environment_variable(name, value) {
            self.raise(Risk::ConfigMutation, reason);
            if let Some(reason) = dangerous_variable(name) {
                self.raise(Risk::ConfigMutation, reason);
            }
        }
        if let Some(why) = value.and_then(|v| crate::rules::loads_unseen_code(name, v)) {
            self.raise(Risk::Destructive, why);
        }
        if matches!(name, "CEPH_CONF" | "CEPH_ARGS") && value.is_none_or(|v| !crate::rules::ceph_own_config(v)) {
            self.raise(
                Risk::Destructive,
                format!("sets `{name}`: another Ceph configuration names files Ceph writes or replaces as root"),
            );
        }
        // A pager, editor, browser or ssh command given to a tool is run by it: what it runs is
        // judged as if written here (`PAGER='rm -rf /srv' man ls` removes /srv).
        if let Some(command) = value.and_then(|v| super::words::command_variable(name, v)) {
            self.script(&command);
        }
        if let (Some(function), Some(body)) = (name.strip_prefix("BASH_FUNC_"), value) {
            if let Some(body) = body.trim_start().strip_prefix("()") {
                let function = function.trim_end_matches('%').trim_end_matches("()");
                self.script(&format!("{function}(){body}"));
            }
        }
        if let Some(value) = value {
            self.loaded_code(name, value);
        }
    }

    /// A variable whose value is code or a command some program runs: the code is judged, and
    /// code that cannot be seen into (a library, a script file, a program outside the system's
    /// directories) is rated at the worst it could do.
    fn loaded_code(&mut self, name: &str, value: &str) {
        let what = format!("`{name}`");
        // A function bash imports from its environment (`() { …; }`), and whatever follows it,
        // runs when the function is called or, in an old bash, at once.
        if let Some(body) = value.trim_start().strip_prefix("()") {
            self.script(body);
        }
        if let Some(command) = super::words::command_variable(name, value) {
            let first = command.split_whitespace().next().unwrap_or_default();
            // A git configuration value need not be a command (`safe.directory=/srv/repo`).
            if !crate::rules::identity_trusted(first) && !name.starts_with("GIT_CONFIG_VALUE_") {
                self.raise(Risk::Destructive, format!("{what} runs `{first}`, a program that cannot be judged"));
            }
        }
        let upper = name.to_ascii_uppercase();
        match upper.as_str() {
            "BASH_ENV" | "ENV"
                if value.split([':', ' ']).any(|p| {
                    p.contains('/') && !p.starts_with("/usr/") && !p.starts_with("/lib") && !p.starts_with("/etc/")
                }) =>
            {
                self.raise(
                    Risk::Destructive,
                    format!("{what} loads `{value}` into what runs, code that cannot be judged"),
                );
            }
            // less runs a `+` command at start; `!` in it is a shell command.
            "LESS" | "SYSTEMD_LESS" | "MORE" | "LESSKEY_CONTENT" => {
                if let Some((_, after)) = value.split_once('+') {
                    if let Some((_, shell)) = after.split_once('!') {
                        self.raise(Risk::ConfigMutation, format!("{what} makes less run a shell command"));
                        self.script(shell);
                    }
                }
            }
            // man's options: `-P`/`--pager` names the pager, `-H`/`--html` the browser.
            "MANOPT" => {
                let text = value.replace("\\ ", " ");
                for flag in ["--pager=", "-P", "--html=", "-H"] {
                    if let Some((_, pager)) = text.split_once(flag) {
                        crate::rules::run_given(self, &what, pager.trim_start_matches(['=', ' ']));
                    }
                }
            }
            // Vim's and ex's start-up commands.
            "VIMINIT" | "EXINIT" | "GVIMINIT" | "MYVIMRC" => crate::rules::vim_command(self, name, value),
            // The Perl debugger's code, and options that load it or a module.
            "PERL5DB" => crate::rules::code_literals(self, "perl", value),
            "NODE_OPTIONS" | "PERL5OPT" | "RUBYOPT" | "JAVA_TOOL_OPTIONS" | "_JAVA_OPTIONS" | "JDK_JAVA_OPTIONS" => {
                let loads = ["--require", "--import", "--loader", "--experimental-loader", "-javaagent", "-agentpath"];
                if value.split_whitespace().any(|w| w == "-r" || loads.iter().any(|l| w.starts_with(l))) {
                    self.raise(
                        Risk::Destructive,
                        format!("{what} makes the program load code (`{value}`), which cannot be judged"),
                    );
                }
            }
            // git's configuration given in the environment: a command-valued key runs its value.
            "GIT_CONFIG_PARAMETERS" => {
                // Entries are `'key'='value'` or `'key=value'`.
                let literals = crate::rules::quoted_words(value);
                let mut pairs: Vec<(String, String)> = Vec::new();
                let mut rest = literals.iter();
                while let Some(word) = rest.next() {
                    match word.split_once('=') {
                        Some((key, command)) if key.contains('.') => pairs.push((key.to_string(), command.to_string())),
                        _ => pairs.push((word.clone(), rest.next().cloned().unwrap_or_default())),
                    }
                }
                for (key, command) in &pairs {
                    {
                        let key = key.to_ascii_lowercase();
                        if ["pager", "command", "editor", "program", "helper", "fsmonitor", "external", "textconv"]
                            .iter()
                            .any(|k| key.ends_with(k))
                            || key.starts_with("alias.")
                        {
                            crate::rules::run_given(self, &what, command.trim_start_matches('!'));
                        }
                    }
                }
            }
            // tar reads options from here as if given first: those that run commands run them.
            "TAR_OPTIONS" => {
                const RUNS: &[&str] = &[
                    "--to-command",
                    "--checkpoint-action",
                    "--use-compress-program",
                    "-I",
                    "--rsh-command",
                    "--info-script",
                    "--new-volume-script",
                    "-F",
                    "--rmt-command",
                    "--remove-files",
                ];
                if value.split_whitespace().any(|w| RUNS.iter().any(|r| w.starts_with(r))) {
                    self.raise(
                        Risk::Destructive,
                        format!("{what} gives tar options that run commands or remove files (`{value}`)"),
                    );
                }
            }
            // An interactive shell writes its history here when it exits.
            "HISTFILE" => self.write_target(&Arg::Static(value.to_string()), &what),
            n if n.starts_with("GIT_CONFIG_VALUE_")
                && (value.contains(char::is_whitespace) || value.contains('/') || value.starts_with('!')) =>
            {
                crate::rules::run_given(self, &what, value.trim_start_matches('!'));
            }
            _ => {}
        }
    }
}

/// A here-document whose delimiter is quoted (`<<'EOF'`, `<<\EOF`, `<<E"O"F`): its body is
/// literal text, nothing in it is expanded.
pub(super) fn quoted_heredoc(redirect: Node<'_>, src: &str) -> bool {
    let mut cursor = redirect.walk();
    let start = redirect.children(&mut cursor).find(|c| c.kind() == "heredoc_start");
    start.is_some_and(|s| text(s, src).contains(['\'', '"', '\\']))
}

pub(super) fn text<'s>(node: Node<'_>, src: &'s str) -> &'s str {
    node_text(node, src)
}

pub(super) fn node_text<'s>(node: Node<'_>, src: &'s str) -> &'s str {
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
