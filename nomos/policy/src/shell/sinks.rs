//! Where bash evaluates a variable's value instead of only expanding it: arithmetic (`(( ))`,
//! `$(( ))`, `$[ ]`, `[[ … -eq … ]]`, `let`, integer variables, array subscripts, substring
//! offsets), prompt expansion (`${x@P}`) and indirection (`${!x}`, `-v NAME`, namerefs). A value
//! evaluated there runs the command substitutions it holds (`x='a[$(reboot)]'; (( x ))` reboots),
//! so a value not known before the command runs makes it at least `config_mutation`, and a known
//! value holding a substitution is judged by what that runs.
//!
//! Values are judged once the whole text has been walked: a loop may give a variable another value
//! after the place that evaluates it, and an assignment built from other variables is only as
//! known as they are.

use std::collections::{HashMap, HashSet};

use nomos_types::Risk;
use tree_sitter::Node;

use super::arith::{arith_refs, closing, is_positional, top_level_colon, ArithRefs, Braced};
use super::walk::text;
use super::{Analysis, MAX_CANDIDATES};

/// How a value is evaluated.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(super) enum Eval {
    /// As an arithmetic expression: variables named in it are evaluated in turn, subscripts expanded.
    Arith,
    /// As a prompt string: expanded like a double-quoted word, command substitutions included.
    Prompt,
    /// As a variable name, whose subscript is evaluated.
    Name,
}

#[derive(Debug, Clone)]
enum Target {
    /// A variable's value; `set_before`: the text assigns it before this use (else it comes from
    /// the environment).
    Var { name: String, set_before: bool },
    /// A value known in advance (a command's output folded to its literal text).
    Text(String),
    /// A value that cannot be known; the reason.
    Opaque(String),
}

/// One place that evaluates a value, judged when the walk is over.
#[derive(Debug, Clone)]
pub(super) struct Sink {
    eval: Eval,
    target: Target,
    /// What evaluates it, for the reasons (`arithmetic`, "`${x@P}`" …).
    context: String,
    /// A subscript of this array: not evaluated when the array is associative.
    unless_assoc: Option<String>,
}

/// What the walk learnt about variables' values and the places that evaluate them.
#[derive(Debug, Clone, Default)]
pub(super) struct Values {
    /// Given a value not known before the command runs (input, a file, a command's output).
    unknown: HashSet<String>,
    /// The variables each variable's value was built from.
    deps: HashMap<String, Vec<String>>,
    /// With the integer attribute: whatever is assigned to them is evaluated as arithmetic.
    integers: HashSet<String>,
    /// Associative arrays: their subscripts are strings, not arithmetic.
    assoc: HashSet<String>,
    /// Appended to (`x+=…`): pieces may join into a substitution.
    appended: HashSet<String>,
    pending: Vec<Sink>,
    done: HashSet<(Eval, String)>,
}

impl Values {
    /// For a probe: what is known about values, none of the pending work.
    pub(super) fn known_part(&self) -> Values {
        Values { pending: Vec::new(), done: HashSet::new(), ..self.clone() }
    }
}

/// Rounds of evaluation (a value naming a variable whose value names another …) before giving up.
const MAX_ROUNDS: usize = 32;

/// Variables bash keeps numeric (when the text does not assign them).
const NUMERIC: &[&str] = &[
    "#",
    "?",
    "$",
    "!",
    "-",
    "RANDOM",
    "SRANDOM",
    "SECONDS",
    "LINENO",
    "BASHPID",
    "PPID",
    "UID",
    "EUID",
    "EPOCHSECONDS",
    "EPOCHREALTIME",
    "HISTCMD",
    "OPTIND",
    "BASH_SUBSHELL",
];

/// `a[x]` → `a`.
pub(super) fn base_name(name: &str) -> &str {
    name.split('[').next().unwrap_or(name)
}

/// A command substitution in literal text: bash runs it where the text is evaluated.
pub(super) fn has_substitution(value: &str) -> bool {
    value.contains("$(") || value.contains('`')
}

/// A prompt string's backslash escapes that can make an active `$` (`\044`, `\$`).
fn decode_prompt(value: &str) -> String {
    let mut out = String::with_capacity(value.len());
    let mut chars = value.chars().peekable();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match chars.peek().copied() {
            Some(d) if d.is_digit(8) => {
                let mut digits = String::new();
                while digits.len() < 3 && chars.peek().is_some_and(|d| d.is_digit(8)) {
                    digits.extend(chars.next());
                }
                match u32::from_str_radix(&digits, 8).ok().and_then(char::from_u32) {
                    Some(ch) => out.push(ch),
                    None => out.push_str(&digits),
                }
            }
            Some('$') => {
                chars.next();
                out.push('$');
            }
            _ => out.push(c),
        }
    }
    out
}

/// Whether expanding `value` could do more than copy it: an expansion or a substitution in it.
fn expands(value: &str) -> bool {
    let b = value.as_bytes();
    b.contains(&b'`')
        || b.windows(2).any(|w| matches!(w, [b'$', n] if n.is_ascii_alphanumeric() || b"({[_@*#?-$!".contains(n)))
}

/// `text` as the body of a here-document, which bash expands like a prompt string.
fn as_expanded_text(text: &str) -> String {
    let mut end = String::from("NOMOS_EXPANDED");
    while text.contains(&end) {
        end.push('_');
    }
    format!(": <<{end}\n{text}\n{end}\n")
}

impl Analysis<'_> {
    /// Records a value given to a variable: the literal values it may hold, and the variables it
    /// was built from (`None`: not known before the command runs). `append` for `x+=…`.
    pub(crate) fn set_var(&mut self, name: &str, candidates: &[String], known: Option<Vec<String>>, append: bool) {
        let name = base_name(name).to_string();
        if name.is_empty() {
            return;
        }
        *self.assignments.entry(name.clone()).or_default() += 1;
        let was_set = self.vars.contains_key(&name);
        let entry = self.vars.entry(name.clone()).or_default();
        let mut new: Vec<String> = Vec::new();
        if append {
            new.extend(entry.iter().flat_map(|old| candidates.iter().map(move |c| format!("{old}{c}"))));
        }
        new.extend(candidates.iter().cloned());
        for v in new {
            if !entry.contains(&v) && entry.len() < MAX_CANDIDATES {
                entry.push(v);
            }
        }
        match known {
            Some(deps) if !append || was_set => self.values.deps.entry(name.clone()).or_default().extend(deps),
            _ => {
                self.values.unknown.insert(name.clone());
            }
        }
        if append {
            self.values.appended.insert(name);
        }
    }

    /// The literal values recorded for a variable (none when it is not assigned here).
    pub(crate) fn var_candidates(&self, name: &str) -> Vec<String> {
        self.vars.get(name).cloned().unwrap_or_default()
    }

    /// The assignment just recorded for `name` is one its later uses in this script, from byte
    /// `from` up to `to`, can rely on: literal, made unconditionally (or a loop's variable, within
    /// the loop).
    pub(super) fn settle(&mut self, name: &str, from: usize, to: usize) {
        let name = base_name(name).to_string();
        *self.good_assignments.entry(name.clone()).or_default() += 1;
        self.settled.entry(name).or_insert((self.script_id, from, to));
    }

    /// Whether `$name` / `${name}` written at byte `at` can only have the values recorded for it:
    /// every assignment of it is settled, literal, and made before this place in this script.
    pub(crate) fn settled_reference(&self, raw: &str, at: usize) -> bool {
        let name = raw.trim_start_matches('$');
        let name = name.strip_prefix('{').and_then(|n| n.strip_suffix('}')).unwrap_or(name);
        if name.is_empty() || !name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
            return false;
        }
        let count = |m: &HashMap<String, usize>| m.get(name).copied().unwrap_or(0);
        let good = count(&self.good_assignments);
        good > 0
            && good == count(&self.assignments)
            && (!self.values.unknown.contains(name) || self.patterned.contains(name))
            && self.values.deps.get(name).is_none_or(Vec::is_empty)
            && self.vars.get(name).is_some_and(|v| !v.is_empty() && v.len() < MAX_CANDIDATES)
            && self
                .settled
                .get(name)
                .is_some_and(|&(script, from, to)| script == self.script_id && from <= at && at < to)
    }

    /// `name`'s value is (also) the value of `dep` (a nameref's target).
    pub(super) fn add_dep(&mut self, name: &str, dep: &str) {
        self.values.deps.entry(base_name(name).to_string()).or_default().push(dep.to_string());
    }

    pub(super) fn mark_integer(&mut self, name: &str) {
        self.values.integers.insert(base_name(name).to_string());
    }

    pub(super) fn mark_assoc(&mut self, name: &str) {
        self.values.assoc.insert(base_name(name).to_string());
    }

    /// The value of variable `name` is evaluated here.
    pub(super) fn evaluates(&mut self, eval: Eval, name: &str, context: &str, unless_assoc: Option<&str>) {
        let target = if is_positional(name) {
            Target::Opaque(format!("{context} evaluates a positional parameter (`${name}`), not known before it runs"))
        } else {
            Target::Var { name: name.to_string(), set_before: self.vars.contains_key(name) }
        };
        self.values.pending.push(Sink {
            eval,
            target,
            context: context.to_string(),
            unless_assoc: unless_assoc.map(str::to_string),
        });
    }

    fn evaluates_unknown(&mut self, reason: String, unless_assoc: Option<&str>) {
        self.values.pending.push(Sink {
            eval: Eval::Arith,
            target: Target::Opaque(reason),
            context: String::new(),
            unless_assoc: unless_assoc.map(str::to_string),
        });
    }

    /// The text of `node` between `range` (absolute byte offsets) is evaluated as arithmetic.
    pub(super) fn arith_range(
        &mut self,
        node: Node<'_>,
        src: &str,
        range: (usize, usize),
        context: &str,
        unless_assoc: Option<&str>,
    ) {
        let Some(expr) = src.get(range.0..range.1) else { return };
        let refs = arith_refs(expr);
        self.arith_refs_evaluated(&refs, context, unless_assoc);
        // Substitutions the walk ran: their output is evaluated.
        let mut walked = Vec::new();
        substitutions_in(node, range, &mut walked, 0);
        let starts: Vec<usize> = walked.iter().map(Node::start_byte).collect();
        for n in walked {
            self.output_evaluated(n, src, context, unless_assoc);
        }
        // Substitution text the walk did not run as such (in single quotes): bash runs it here.
        for (s, e) in refs.substitutions {
            if !starts.contains(&(range.0 + s)) {
                if let Some(t) = expr.get(s..e) {
                    self.substitution_text_runs(t, context);
                }
            }
        }
    }

    fn arith_refs_evaluated(&mut self, refs: &ArithRefs, context: &str, unless_assoc: Option<&str>) {
        for name in &refs.reads {
            self.evaluates(Eval::Arith, name, context, unless_assoc);
        }
        if refs.opaque {
            self.evaluates_unknown(
                format!(
                    "{context} evaluates a positional parameter or an indirect reference, not known before it runs"
                ),
                unless_assoc,
            );
        }
        // After the reads: `(( x = x + 1 ))` reads `x` before it assigns it.
        for name in &refs.assigns {
            self.set_var(name, &[], Some(Vec::new()), false);
        }
    }

    /// A command substitution whose output is evaluated as arithmetic.
    fn output_evaluated(&mut self, node: Node<'_>, src: &str, context: &str, unless_assoc: Option<&str>) {
        if self.prints_only_numbers(node, src) {
            return;
        }
        let folded: Vec<String> = self.word(node, src).values().into_iter().map(str::to_string).collect();
        if folded.is_empty() {
            let shown: String = text(node, src).chars().take(60).collect();
            self.evaluates_unknown(
                format!("{context} evaluates the output of `{shown}`, not known before it runs"),
                unless_assoc,
            );
        }
        for value in folded {
            self.values.pending.push(Sink {
                eval: Eval::Arith,
                target: Target::Text(value),
                context: context.to_string(),
                unless_assoc: unless_assoc.map(str::to_string),
            });
        }
    }

    /// A value known in advance is evaluated here.
    pub(super) fn evaluates_text(&mut self, eval: Eval, value: &str, context: &str) {
        self.values.pending.push(Sink {
            eval,
            target: Target::Text(value.to_string()),
            context: context.to_string(),
            unless_assoc: None,
        });
    }

    /// `$(…)` or backticks in literal text that bash evaluates: judged as what it runs.
    fn substitution_text_runs(&mut self, substitution: &str, context: &str) {
        self.raise(Risk::ConfigMutation, format!("{context} runs the command substitution in `{substitution}`"));
        let inner = substitution
            .strip_prefix("$(")
            .map(|s| s.strip_suffix(')').unwrap_or(s))
            .or_else(|| substitution.strip_prefix('`').map(|s| s.strip_suffix('`').unwrap_or(s)))
            .unwrap_or(substitution);
        self.script(inner);
    }

    /// A braced expansion: indirection, prompt expansion, subscripts and substring offsets.
    pub(super) fn expansion_sinks(&mut self, node: Node<'_>, src: &str) {
        let raw = text(node, src);
        let lead = raw.len() - raw.trim_start().len();
        let Some(inner) = raw.trim().strip_prefix("${").and_then(|r| r.strip_suffix('}')) else { return };
        // Absolute offset of the inner text.
        let base = node.start_byte() + lead + 2;
        let braced = Braced::parse(inner);
        let name = braced.name;
        let all = |s: Option<&str>| matches!(s, Some("@" | "*"));
        let sub = braced.subscript_text(inner);
        if let Some((s, e)) = braced.subscript.filter(|_| !all(sub)) {
            self.arith_range(node, src, (base + s, base + e), "an array subscript", Some(name));
        }
        if braced.indirect && !all(sub) && !matches!(braced.rest, "*" | "@") {
            self.evaluates(Eval::Name, name, &format!("`${{!{name}}}`"), None);
        }
        if braced.rest.starts_with("@P") {
            if braced.indirect {
                self.evaluates_unknown(
                    format!("`${{!{name}@P}}` prompt-expands the value of a variable named at run time"),
                    None,
                );
            } else {
                self.evaluates(Eval::Prompt, name, &format!("`${{{name}@P}}`"), None);
            }
        }
        // `${x:offset:length}` (not `${x:-…}` and the like): both are arithmetic.
        if let Some(body) = braced.rest.strip_prefix(':').filter(|body| !body.starts_with(['-', '=', '+', '?'])) {
            let start = base + braced.rest_at + 1;
            let split = top_level_colon(body);
            let offset = (start, start + split.unwrap_or(body.len()));
            self.arith_range(node, src, offset, "a substring offset", None);
            if let Some(k) = split {
                self.arith_range(node, src, (start + k + 1, start + body.len()), "a substring length", None);
            }
        }
    }

    /// `[[ … ]]`: arithmetic comparisons evaluate both sides; `-v NAME[SUB]` (also in `[ … ]`)
    /// evaluates the subscript. `[ … ]` compares integers without evaluating them.
    pub(super) fn test_sinks(&mut self, node: Node<'_>, src: &str, depth: usize) {
        let double = node.child(0).is_some_and(|c| c.kind() == "[[");
        self.test_sinks_in(node, src, depth, double);
    }

    fn test_sinks_in(&mut self, node: Node<'_>, src: &str, depth: usize, double: bool) {
        if depth > super::MAX_TREE_DEPTH {
            return;
        }
        let op = node.child_by_field_name("operator").map(|o| text(o, src).trim().to_string()).unwrap_or_default();
        match node.kind() {
            "binary_expression" if double && matches!(op.as_str(), "-eq" | "-ne" | "-lt" | "-le" | "-gt" | "-ge") => {
                for side in ["left", "right"] {
                    if let Some(s) = node.child_by_field_name(side) {
                        self.arith_range(s, src, (s.start_byte(), s.end_byte()), "`[[ … -eq … ]]`", None);
                    }
                }
            }
            "unary_expression" if op == "-v" => {
                let mut cursor = node.walk();
                let operands: Vec<Node<'_>> =
                    node.named_children(&mut cursor).filter(|c| c.kind() != "test_operator").collect();
                if let (Some(first), Some(last)) = (operands.first(), operands.last()) {
                    self.name_sinks(node, src, (first.start_byte(), last.end_byte()), "`-v`");
                }
            }
            _ => {}
        }
        let mut cursor = node.walk();
        for child in node.named_children(&mut cursor) {
            self.test_sinks_in(child, src, depth + 1, double);
        }
    }

    /// A word naming a variable (`-v a[x]`, `printf -v 'a[$i]'`, `unset 'a[k]'`): its subscript
    /// is evaluated, and a name taken from a variable is that variable's value used as a name.
    pub(super) fn name_sinks(&mut self, node: Node<'_>, src: &str, range: (usize, usize), context: &str) {
        let Some(word) = src.get(range.0..range.1) else { return };
        let b = word.as_bytes();
        let mut i = 0;
        while let Some(&c) = b.get(i) {
            if c == b'[' {
                let end = closing(b, i, b'[', b']');
                let close = if b.get(end.wrapping_sub(1)) == Some(&b']') { end - 1 } else { end };
                self.arith_range(node, src, (range.0 + i + 1, range.0 + close), context, None);
                i = end;
            } else {
                i += 1;
            }
        }
        // The name itself from a variable: `-v "$n"`.
        let unquoted = word.trim_matches(['"', '\'']);
        let head = unquoted.split('[').next().unwrap_or(unquoted);
        if let Some(reference) = head.strip_prefix('$') {
            let reference = reference.trim_start_matches('{').trim_end_matches('}');
            if !reference.is_empty() && reference.bytes().all(|c| c.is_ascii_alphanumeric() || c == b'_') {
                self.evaluates(Eval::Name, reference, context, None);
            } else {
                self.evaluates_unknown(format!("{context} uses a name computed at run time (`{head}`)"), None);
            }
        }
    }

    /// Judges every place that evaluated a value, now that all assignments are known.
    pub(crate) fn finish(&mut self) {
        let mut integers: Vec<String> =
            self.values.integers.iter().filter(|v| self.vars.contains_key(*v)).cloned().collect();
        integers.sort();
        for name in integers {
            self.values.pending.push(Sink {
                eval: Eval::Arith,
                target: Target::Var { name: name.clone(), set_before: true },
                context: format!("the integer variable `{name}`"),
                unless_assoc: None,
            });
        }
        // Prompt strings are expanded when bash prints them (`PS4` before every traced command).
        for prompt in ["PS0", "PS1", "PS2", "PS3", "PS4"].into_iter().filter(|p| self.vars.contains_key(*p)) {
            self.values.pending.push(Sink {
                eval: Eval::Prompt,
                target: Target::Var { name: prompt.to_string(), set_before: true },
                context: format!("the prompt `{prompt}`"),
                unless_assoc: None,
            });
        }
        for _ in 0..MAX_ROUNDS {
            let pending = std::mem::take(&mut self.values.pending);
            if pending.is_empty() {
                return;
            }
            for sink in pending {
                self.judge_sink(sink);
            }
        }
        if !self.values.pending.is_empty() {
            self.values.pending.clear();
            self.raise(Risk::ConfigMutation, "values are evaluated through each other too deeply to follow");
        }
    }

    fn judge_sink(&mut self, sink: Sink) {
        if sink.unless_assoc.as_ref().is_some_and(|a| self.values.assoc.contains(a)) {
            return;
        }
        let context = sink.context;
        match sink.target {
            Target::Opaque(reason) => self.raise(Risk::ConfigMutation, reason),
            Target::Text(value) => self.evaluate_value(sink.eval, &value, "a value", &context),
            Target::Var { name, set_before } => {
                let assigned = self.vars.contains_key(&name);
                if NUMERIC.contains(&name.as_str()) && !assigned {
                    return;
                }
                if !set_before {
                    self.raise(
                        Risk::ConfigMutation,
                        format!(
                            "{context} evaluates `${name}`, whose value comes from outside the command \
                             (it could hold a command substitution)"
                        ),
                    );
                    return;
                }
                if !self.values.done.insert((sink.eval, name.clone())) {
                    return;
                }
                if self.values.unknown.contains(&name) {
                    self.raise(
                        Risk::ConfigMutation,
                        format!(
                            "{context} evaluates `${name}`, whose value is not known before it runs \
                             (it could hold a command substitution)"
                        ),
                    );
                }
                let mut values = self.vars.get(&name).cloned().unwrap_or_default();
                if self.values.appended.contains(&name) && values.len() > 1 {
                    let joined = values.concat();
                    values.push(format!("{joined}{joined}"));
                }
                let holder = format!("`${name}`");
                for value in values {
                    self.evaluate_value(sink.eval, &value, &holder, &context);
                }
                for dep in self.values.deps.get(&name).cloned().unwrap_or_default() {
                    self.evaluates(sink.eval, &dep, &context, None);
                }
            }
        }
    }

    /// A value known in advance, evaluated as `eval`.
    fn evaluate_value(&mut self, eval: Eval, value: &str, holder: &str, context: &str) {
        let value = if eval == Eval::Prompt { decode_prompt(value) } else { value.to_string() };
        if has_substitution(&value) {
            self.raise(
                Risk::ConfigMutation,
                format!("{context} evaluates {holder}, which holds a command substitution"),
            );
        }
        let expr = match eval {
            Eval::Prompt => {
                if expands(&value) {
                    self.script(&as_expanded_text(&value));
                }
                return;
            }
            Eval::Arith => value,
            // A name is expanded as it is; its subscript is arithmetic.
            Eval::Name => {
                let (head, sub) = value.split_once('[').unwrap_or((&value, ""));
                if expands(head) {
                    self.script(&as_expanded_text(head));
                }
                sub.strip_suffix(']').unwrap_or(sub).to_string()
            }
        };
        if expands(&expr) {
            self.script(&format!("(( {expr} ))"));
        } else {
            let refs = arith_refs(&expr);
            self.arith_refs_evaluated(&refs, context, None);
        }
    }
}

/// Command substitutions among the descendants of `node`, outermost only.
pub(super) fn substitutions_within(node: Node<'_>) -> Vec<Node<'_>> {
    let mut out = Vec::new();
    substitutions_in(node, (node.start_byte(), node.end_byte()), &mut out, 0);
    out
}

/// Command substitutions among the descendants of `node` within `range`, outermost only.
fn substitutions_in<'t>(node: Node<'t>, range: (usize, usize), out: &mut Vec<Node<'t>>, depth: usize) {
    if depth > super::MAX_TREE_DEPTH || node.end_byte() <= range.0 || node.start_byte() >= range.1 {
        return;
    }
    if node.kind() == "command_substitution" && node.start_byte() >= range.0 && depth > 0 {
        out.push(node);
        return;
    }
    let mut cursor = node.walk();
    for child in node.children(&mut cursor) {
        substitutions_in(child, range, out, depth + 1);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prompt_escapes_that_make_a_dollar() {
        assert_eq!(decode_prompt(r"\044(id)"), "$(id)");
        assert_eq!(decode_prompt(r"\u@\h \$"), r"\u@\h $");
    }
}
