//! The adversarial corpus of replies to real proposals (`tests/data/chat-proposals.tsv`): plans
//! of several steps on several targets, compound commands, snapshot and path names that contain
//! verbs. Each reply is written down with what it decides: assent, typed confirmation, and the
//! steps it covers.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use nomos_policy::{judge_reply, ConfirmTarget, Proposal, Step};

mod common;
use common::unescape;

const CORPUS: &str = include_str!("data/chat-proposals.tsv");

struct Case {
    line: usize,
    proposal: usize,
    assent: bool,
    typed: bool,
    covers: Vec<usize>,
    message: String,
    note: String,
}

/// `@<TAB>step<TAB>step…`, each step `slug|name|id|command` (any field may be empty).
fn proposal(line: usize, cols: &[&str]) -> Proposal {
    let steps = cols
        .iter()
        .map(|step| {
            let [slug, name, id, command] = step.splitn(4, '|').collect::<Vec<_>>()[..] else {
                panic!("chat-proposals.tsv:{line}: want `slug|name|id|command`, got {step:?}")
            };
            let target =
                (!slug.is_empty()).then(|| ConfirmTarget::new(slug).with_name(name).with_pve_id(id.parse().ok()));
            Step::new(target, (!command.is_empty()).then_some(command))
        })
        .collect();
    Proposal::new(steps)
}

fn corpus() -> (Vec<Proposal>, Vec<Case>) {
    let flag = |f: &str, line: usize| match f {
        "y" => true,
        "n" => false,
        other => panic!("chat-proposals.tsv:{line}: want y or n, got {other:?}"),
    };
    let (mut proposals, mut cases) = (Vec::new(), Vec::new());
    for (i, l) in CORPUS.lines().enumerate() {
        let line = i + 1;
        if l.trim().is_empty() || l.starts_with('#') {
            continue;
        }
        let cols: Vec<&str> = l.split('\t').collect();
        if cols[0] == "@" {
            proposals.push(proposal(line, &cols[1..]));
            continue;
        }
        let [assent, typed, covers, message, note] = cols[..] else {
            panic!("chat-proposals.tsv:{line}: want `assent<TAB>typed<TAB>covers<TAB>message<TAB>note`")
        };
        assert!(!proposals.is_empty(), "chat-proposals.tsv:{line}: a reply before any proposal");
        let covers = if covers == "-" {
            Vec::new()
        } else {
            covers.split(',').map(|n| n.trim().parse::<usize>().unwrap() - 1).collect()
        };
        cases.push(Case {
            line,
            proposal: proposals.len() - 1,
            assent: flag(assent, line),
            typed: flag(typed, line),
            covers,
            message: unescape(message).unwrap_or_else(|e| panic!("chat-proposals.tsv:{line}: {e}")),
            note: note.to_string(),
        });
    }
    (proposals, cases)
}

#[test]
fn every_reply_decides_what_is_written_down() {
    let (proposals, cases) = corpus();
    let wrong: Vec<String> = cases
        .iter()
        .filter_map(|c| {
            let j = judge_reply(&c.message, &proposals[c.proposal]);
            // On assent every step is covered; the column lists what a typed confirmation covers.
            let covers = if j.assent { Vec::new() } else { j.covers.clone() };
            (j.assent != c.assent || j.typed_confirmation != c.typed || covers != c.covers).then(|| {
                format!(
                    "chat-proposals.tsv:{}: {:?} ({}): want {} {} {:?}, got {} {} {:?}",
                    c.line, c.message, c.note, c.assent, c.typed, c.covers, j.assent, j.typed_confirmation, covers
                )
            })
        })
        .collect();
    assert!(wrong.is_empty(), "{} of {} wrong:\n{}", wrong.len(), cases.len(), wrong.join("\n"));
}

#[test]
fn the_corpus_is_large_and_mostly_adversarial() {
    let (proposals, cases) = corpus();
    assert!(proposals.len() >= 8, "{}", proposals.len());
    assert!(proposals.iter().any(|p| p.steps.len() >= 3), "a plan of several steps");
    let refused = cases.iter().filter(|c| !c.assent && !c.typed).count();
    assert!(refused >= 500, "{refused} replies that grant nothing");
    assert!(cases.iter().filter(|c| c.assent).count() >= 50);
    assert!(cases.iter().filter(|c| c.typed).count() >= 20);
}
