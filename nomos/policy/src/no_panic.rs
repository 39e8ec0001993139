//! No input makes the classifier fail: arbitrary Unicode words — combining marks, wide, right-to-
//! left and format characters, NUL, quotes and shell metacharacters — in every option and operand
//! position of every program of the table and of every program judged by code, as written and
//! quoted. (The gate refuses a command the classifier fails on; this proves it does not.)

use proptest::prelude::*;
use proptest::strategy::ValueTree;
use proptest::test_runner::TestRunner;

use crate::rules::code_programs;
use crate::table::{code_options, table};
use crate::Policy;

/// Words made of the characters most likely to break byte offsets and parsers.
fn words(count: usize) -> Vec<String> {
    let special = prop::sample::select(vec![
        '\u{301}', '\u{200f}', '\u{202e}', '\u{2066}', '\u{feff}', '\u{0}', 'é', 'ß', 'İ', '世', '界', '𝕏', '🦀', 'ـ',
        'ש', '-', '=', '/', '\'', '"', '\\', '$', '{', '}', '[', ']', '*', '?', ' ', '\t', '\n', ',', ':', ';', '|',
        '&', '<', '>', '(', ')', '#', '!', '~', '`', '%', '@', '^', '+', '0', '9', 'a', 'Z',
    ]);
    let word = prop::collection::vec(prop_oneof![3 => special, 1 => any::<char>()], 0..7)
        .prop_map(|cs| cs.into_iter().collect::<String>());
    let mut runner = TestRunner::deterministic();
    (0..count).filter_map(|_| word.new_tree(&mut runner).ok().map(|t| t.current())).collect()
}

/// A word as the shell's single quotes keep it.
fn quoted(w: &str) -> String {
    format!("'{}'", w.replace('\'', r"'\''"))
}

/// The commands that put `w` in each position of each program.
fn commands(w: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut program = |p: &str, options: Vec<&str>, subcommands: Vec<String>| {
        for form in [w.to_string(), quoted(w)] {
            out.push(format!("{p} {form}"));
            out.push(format!("{p} -{form}"));
            out.push(format!("{p} --{form}"));
            out.push(format!("{p} -- {form}"));
            for o in &options {
                out.push(format!("{p} {o}{form}"));
                out.push(format!("{p} {o} {form}"));
                out.push(format!("{p} {o}={form}"));
                out.push(format!("{p} {form} {o}"));
            }
            for s in &subcommands {
                out.push(format!("{p} {s} {form}"));
                out.push(format!("{p} {s} -{form} {form}"));
            }
        }
    };
    for entry in table().entries().iter().chain(code_options().entries()) {
        let options: Vec<&str> = entry.options.iter().map(|o| o.name.as_str()).filter(|n| !n.ends_with('*')).collect();
        let subcommands: Vec<String> = entry.subcommands.iter().map(|s| s.path.join(" ")).collect();
        for p in &entry.programs {
            program(p, options.clone(), subcommands.clone());
        }
    }
    for p in code_programs() {
        program(p, Vec::new(), Vec::new());
    }
    out
}

#[test]
fn no_word_in_any_position_makes_the_classifier_fail() {
    let policy = Policy::builtin();
    let mut failed = Vec::new();
    let mut count = 0usize;
    for w in words(3) {
        for command in commands(&w) {
            count += 1;
            let judged = std::panic::catch_unwind(|| policy.analyse(&command).into_findings().len());
            if judged.is_err() && failed.len() < 20 {
                failed.push(command);
            }
        }
    }
    assert!(count > 20_000, "{count} commands");
    assert!(failed.is_empty(), "the classifier failed on:\n{}", failed.join("\n"));
}

#[test]
fn a_failure_is_caught_and_refused() {
    // Whatever happens inside, `classify` answers, and a failure is destructive with its reason.
    let v = Policy::builtin().classify("awk -é '{print}'", None);
    assert!(!v.reasons.is_empty());
}
