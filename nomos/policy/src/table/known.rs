//! A program judged by code is read-only only when every option it is given is known: listed for
//! the program (`rules/code/*.yaml`, entry `git`) or for the mode its first operands select (entry
//! `git log`, which also takes the program's own options). The code rule says what the program
//! does; this says that nothing it was given is beyond what the rule understood.

use nomos_types::Risk;

use super::interpret::Parsed;
use super::{code_options, glob_matches, Effect, Entry};
use crate::shell::{Analysis, Arg};

/// Programs judged by code that read every word themselves with a grammar of their own (a sed or
/// awk program, find's expression, an interpreter's exact version query).
#[rustfmt::skip]
pub(crate) const OWN_GRAMMAR: &[&str] = &[
    "sed", "gsed", "awk", "gawk", "mawk", "nawk", "busybox-awk", "find",
    // `etckeeper vcs` hands its words to git, whose options are checked there.
    "etckeeper",
];

/// Mode paths are at most this many words (`ceph osd pool ls`).
const MAX_MODE_WORDS: usize = 4;

/// Raises `config_mutation` for each option of `base` that is not listed for it or its mode.
pub(crate) fn check_options(an: &mut Analysis<'_>, base: &str, args: &[Arg]) {
    let table = code_options();
    let Some(program) = table.sub(base) else {
        an.raise(Risk::ConfigMutation, format!("`{base}` has no listed options, so it is not known to be read-only"));
        return;
    };
    let parsed = program.read_args(args);
    unknown_options(an, base, program, &parsed);
    let Some(start) = parsed.operands.first().and_then(|first| args.iter().position(|a| std::ptr::eq(a, *first)))
    else {
        return;
    };
    // The longest listed mode the operands from there start with.
    let mut path = base.to_string();
    let mut mode: Option<(&Entry, String, usize)> = None;
    for (k, word) in args.iter().enumerate().skip(start).take(MAX_MODE_WORDS) {
        let Some(w) = word.as_static() else { break };
        path.push(' ');
        path.push_str(w);
        if let Some(entry) = table.sub(&path) {
            mode = Some((entry, path.clone(), k + 1));
        }
    }
    let rest = |end: usize| args.get(end..).unwrap_or(&[]);
    match mode {
        Some((entry, name, end)) => unknown_options(an, &name, entry, &entry.read_args(rest(end))),
        // Options may follow the operands of a program whose options end at its mode.
        None if table.has_modes(base) => {
            unknown_options(an, base, program, &program.read_args_as(rest(start + 1), false))
        }
        None => {}
    }
}

/// Options not listed are not known to be inert; listed ones (and their values) may raise the
/// level they are listed at (`set -o allexport`).
fn unknown_options(an: &mut Analysis<'_>, who: &str, entry: &Entry, parsed: &Parsed<'_, '_>) {
    for given in &parsed.options {
        if given.specs.is_empty() {
            an.raise(Risk::ConfigMutation, format!("`{who} {}` is not an option known to be read-only", given.word));
            continue;
        }
        let value = given.value.as_ref().and_then(Arg::as_static);
        let by_value = entry.values.iter().filter(|r| {
            given.specs.iter().any(|s| r.options.contains(&s.name))
                && value.is_some_and(|v| r.matches.iter().any(|m| glob_matches(m, v)))
        });
        let effects = given.specs.iter().flat_map(|s| s.effects.iter()).chain(by_value.map(|r| &r.effect));
        let what = format!("`{who} {}`", given.word);
        for effect in effects {
            match effect {
                Effect::Raise(risk) => an.raise(*risk, format!("{what} is not read-only")),
                Effect::Secret => an.raise_secret(Risk::Destructive, format!("{what} prints secret material")),
                Effect::Writes => match &given.value {
                    Some(v) => an.write_target(v, &what),
                    None => an.raise(Risk::ConfigMutation, format!("{what} writes a file")),
                },
                Effect::Network => an.raise(Risk::ConfigMutation, format!("{what} reaches another machine")),
                Effect::Loads | Effect::Runs | Effect::Script | Effect::Lock => {
                    an.raise(Risk::ConfigMutation, format!("{what} runs or loads something, or takes a lock"))
                }
                Effect::Reads => {
                    if let Some(Arg::Dynamic { text, .. }) = &given.value {
                        an.raise(Risk::ConfigMutation, format!("{what} reads a file named at run time (`{text}`)"));
                    }
                }
                _ => {}
            }
        }
    }
}
