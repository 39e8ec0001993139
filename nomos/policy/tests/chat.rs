//! The adversarial chat corpus (`tests/data/chat.tsv`): operator replies to one proposed step, each
//! with whether it is assent to that step and whether it is the step's typed confirmation.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use nomos_policy::{
    confirmation_phrase, is_assent, is_assent_to, is_typed_confirmation, typed_confirmation, ConfirmTarget,
};

mod common;
use common::unescape;

const CORPUS: &str = include_str!("data/chat.tsv");

/// The step every reply answers.
fn step() -> ConfirmTarget {
    ConfirmTarget::new("lxc:caddy")
        .with_name("caddy")
        .with_pve_id(Some(101))
        .for_command("pct stop 101 && pct destroy 101 --purge")
}

struct Case {
    line: usize,
    assent: bool,
    typed: bool,
    message: String,
    note: String,
}

fn cases() -> Vec<Case> {
    let flag = |f: &str, line: usize| match f {
        "y" => true,
        "n" => false,
        other => panic!("chat.tsv:{line}: want y or n, got {other:?}"),
    };
    CORPUS
        .lines()
        .enumerate()
        .filter(|(_, l)| !l.is_empty() && !l.starts_with('#'))
        .map(|(i, l)| {
            let line = i + 1;
            let cols: Vec<&str> = l.split('\t').collect();
            let [assent, typed, message, note] = cols[..] else {
                panic!("chat.tsv:{line}: want `assent<TAB>typed<TAB>message<TAB>note`")
            };
            let message = unescape(message).unwrap_or_else(|e| panic!("chat.tsv:{line}: {e}"));
            Case { line, assent: flag(assent, line), typed: flag(typed, line), message, note: note.to_string() }
        })
        .collect()
}

#[test]
fn every_reply_is_judged_as_written_down() {
    let step = step();
    let cases = cases();
    let wrong: Vec<String> = cases
        .iter()
        .filter_map(|c| {
            let assent = is_assent_to(&c.message, &step);
            let typed = typed_confirmation(&c.message, &step);
            (assent != c.assent || typed != c.typed).then(|| {
                format!(
                    "chat.tsv:{}: {:?} ({}): want assent {} typed {}, got {assent} {typed}",
                    c.line, c.message, c.note, c.assent, c.typed
                )
            })
        })
        .collect();
    assert!(wrong.is_empty(), "{} of {} wrong:\n{}", wrong.len(), cases.len(), wrong.join("\n"));
}

/// Judged without the target, less is read, never more: assent then implies assent to the step,
/// and a typed confirmation without a target (a slug or an id) is the step's when it names it.
#[test]
fn the_judgements_without_a_target_agree() {
    let step = step();
    for c in cases() {
        if is_assent(&c.message) {
            assert!(is_assent_to(&c.message, &step), "chat.tsv:{}: {:?}", c.line, c.message);
        }
        let by_slug_or_id = c.message.to_lowercase().contains("lxc:caddy") || c.message.contains("101");
        if c.typed && by_slug_or_id {
            assert!(is_typed_confirmation(&c.message), "chat.tsv:{}: {:?}", c.line, c.message);
        }
    }
}

#[test]
fn the_corpus_is_large_and_covers_both_answers() {
    let cases = cases();
    assert!(cases.len() >= 300, "{}", cases.len());
    assert!(cases.iter().filter(|c| c.assent).count() >= 100);
    assert!(cases.iter().filter(|c| c.typed).count() >= 20);
    assert!(cases.iter().filter(|c| !c.assent && !c.typed).count() >= 300);
    let phrase = confirmation_phrase(&step());
    assert!(cases.iter().any(|c| c.message == phrase && c.typed), "the phrase shown is in the corpus");
}
