//! Cross-checks of the parse against the text: where the grammar and bash may disagree about
//! where a command ends, or whether a substitution runs, the text is judged again on its own.

use tree_sitter::Node;

use super::walk::{node_text, text};
use super::{Analysis, MAX_SCRIPT_NESTING};
use nomos_types::Risk;

impl Analysis<'_> {
    /// Guards against the grammar and bash disagreeing about where a command ends. Bash ends a
    /// command at an unquoted newline, `;`, `&` or `|`; where the parse instead carries on (seen: a
    /// newline before a backslash, or before a line whose redirection the grammar attached to the
    /// line above), the text after that separator is judged as a command of its own.
    pub(super) fn check_separators(&mut self, root: Node<'_>, text: &str) {
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
        let escaped = |i: usize| i.checked_sub(1).and_then(|p| bytes.get(p)) == Some(&b'\\');
        let separators: Vec<usize> = bytes
            .iter()
            .enumerate()
            .filter(|&(i, c)| matches!(c, b'\n' | b';' | b'&' | b'|') && !escaped(i))
            .map(|(i, _)| i)
            .collect();
        let mut glued = Vec::new();
        for_each_innermost(root, text, &separators, |chain, i| {
            let Some(kind) = chain.last().map(|f| f.kind) else { return };
            let is_glued = match bytes.get(i) {
                Some(b'\n') => !NEWLINE_HOMES.contains(&kind),
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
            if let [start, end] = *pair {
                if let Some(segment) = text.get(start + 1..end) {
                    self.script(segment);
                }
            }
        }
    }

    /// Command substitution syntax the walk did not reach as a substitution: backticks inside
    /// `${…}`, `$(…)` in single quotes that a builtin later evaluates as an array subscript
    /// (`printf -v 'a[$(cmd)]'`, `read`, `let`, `[[ … -eq … ]]`), a nested backtick. Bash may run
    /// it, so it is never read-only, and a destructive command in it counts as destructive.
    pub(super) fn check_substitutions(&mut self, root: Node<'_>, text: &str) {
        let bytes = text.as_bytes();
        let openers: Vec<usize> = bytes
            .iter()
            .enumerate()
            .filter(|&(i, &c)| c == b'`' || (c == b'$' && bytes.get(i + 1) == Some(&b'(')))
            .map(|(i, _)| i)
            .collect();
        if openers.is_empty() {
            return;
        }
        let mut unwalked = Vec::new();
        for_each_innermost(root, text, &openers, |chain, i| {
            let escaped_backtick =
                bytes.get(i) == Some(&b'`') && i.checked_sub(1).and_then(|p| bytes.get(p)) == Some(&b'\\');
            // `$((` opening an arithmetic expansion the grammar read as one (bash reads `$((…))`
            // as arithmetic when it closes with `))`); what it evaluates is judged by the walk.
            let arithmetic = bytes.get(i + 2) == Some(&b'(')
                && chain.iter().rev().take(2).any(|f| {
                    f.kind == "arithmetic_expansion"
                        && text.get(f.start..i).is_some_and(|lead| lead.trim().is_empty())
                        && text.get(..f.end).is_some_and(|t| t.ends_with("))"))
                });
            if !arithmetic && !Frame::substitution_was_walked(chain, i, escaped_backtick) {
                unwalked.push(i);
            }
        });
        if unwalked.is_empty() {
            return;
        }
        self.raise(Risk::ConfigMutation, "holds command substitution text that bash may evaluate");
        for &i in unwalked.iter().take(16) {
            let start = if bytes.get(i) == Some(&b'`') { i + 1 } else { i + 2 };
            if let Some(rest) = text.get(start..) {
                // Up to the first closing character, or all of it.
                let inner = rest.split(['`', ')']).next().unwrap_or(rest).to_string();
                self.probe_destructive(&inner, "substitution text that bash may evaluate holds a destructive command");
            }
        }
    }

    /// Arithmetic (`$((…))`, `((…))`) that reads like a command: bash would reject it, but a
    /// destructive command there is not waved through. Only a destructive finding is taken over.
    pub(super) fn arithmetic(&mut self, node: Node<'_>, src: &str) {
        let inner = text(node, src).trim_start_matches('$').trim_start_matches("((").trim_end_matches("))");
        // `*` multiplies there; read as a command word it would be a glob that may match a key.
        let inner = inner.replace('*', " ");
        self.probe_destructive(&inner, "an arithmetic expression holds a destructive command");
    }

    /// Judges text the grammar could not place (an arithmetic expression, a parse error) as if it
    /// were a command, taking over only a destructive finding: bash may well run it.
    pub(super) fn probe_destructive(&mut self, inner: &str, reason: &str) {
        let inner = inner.trim_start_matches(['$', '(', '`', '{']).trim_end_matches([')', '`', '}']);
        if self.probing || self.scripts >= MAX_SCRIPT_NESTING || !inner.contains(' ') && inner.len() < 3 {
            return;
        }
        let mut probe = Analysis::new(self.policy);
        probe.share_deadline(self);
        probe.probing = true;
        probe.scripts = self.scripts + 1;
        probe.vars = self.vars.clone();
        probe.values = self.values.known_part();
        probe.parsed = self.parsed;
        probe.script(inner);
        probe.finish();
        self.parsed = probe.parsed;
        if probe.max_risk() == Some(Risk::Destructive) {
            self.raise(Risk::Destructive, reason);
        }
    }
}

/// Calls `f` for each of `positions` (ascending byte offsets) with the chain of nodes from the root
/// to the innermost node holding it (empty past the end of the tree). One pass over the tree:
/// looking each position up from the root costs time in proportion to the siblings at every level,
/// which is quadratic on long, flat, broken input.
fn for_each_innermost<'t>(root: Node<'t>, text: &str, positions: &[usize], mut f: impl FnMut(&[Frame<'t>], usize)) {
    let mut next = 0;
    let mut take = |chain: &[Frame<'t>], below: usize, next: &mut usize| {
        while let Some(&position) = positions.get(*next).filter(|&&p| p < below) {
            f(chain, position);
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
    /// A here-document body that is not expanded (its delimiter is quoted).
    literal: bool,
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
        let literal = n.kind() == "heredoc_body" && n.parent().is_some_and(|r| super::walk::quoted_heredoc(r, text));
        Frame { kind: n.kind(), start: n.start_byte(), end: n.end_byte(), evaluates, literal }
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
                // The body of a here-document with a quoted delimiter is never expanded.
                "heredoc_body" if f.literal => return true,
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
