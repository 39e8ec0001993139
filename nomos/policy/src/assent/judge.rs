//! Plain assent: a reply made only of the assent vocabulary, in an order that reads as a go-ahead.

use super::lexicon::{Kind, CONFIRM_VERBS, PHRASES, TARGET_PREPOSITIONS, WITHHOLDING};
use super::text::{contains_phrase, doubtful, fold, squeeze, words_only};
use super::ConfirmTarget;

/// Whether `message` approves what was just proposed; `target`, when known, is the step's own
/// target, which the reply may name.
pub(super) fn assent(message: &str, target: Option<&ConfirmTarget>) -> bool {
    let folded = fold(message);
    if doubtful(&folded) {
        return false;
    }
    let Some(words) = words_only(&folded) else { return false };
    let words: Vec<String> = words.iter().map(|w| squeeze(w)).collect();
    let targets: Vec<Vec<String>> =
        target.map(|t| t.names().iter().map(|n| n.iter().map(|w| squeeze(w)).collect()).collect()).unwrap_or_default();
    let Some(kinds) = cover(&words, target, &targets) else { return false };
    !withheld(&words, &kinds)
        && reads_as_go_ahead(&kinds)
        && target.is_none_or(|t| verbs_are_its_own(&words, &kinds, t))
}

/// A reply that names an action of the confirmation verbs names the step's own: "yes, reboot it"
/// does not approve a restart (as a typed confirmation must name the action's verb, too).
fn verbs_are_its_own(words: &[String], covered: &[Covered], target: &ConfirmTarget) -> bool {
    covered.iter().filter(|c| c.kind == Kind::Verb && c.len == 1).all(|c| {
        let verb = &words[c.start];
        !CONFIRM_VERBS.iter().any(|forms| forms.contains(&verb.as_str())) || target.accepts_verb(verb)
    })
}

/// One phrase of a reply: its kind and where its words are.
#[derive(Debug, Clone, Copy)]
struct Covered {
    kind: Kind,
    start: usize,
    len: usize,
}

/// Splits `words` into vocabulary phrases (with the step's target and verbs, when known), longest
/// first at each place; `None` when a word is not part of any.
fn cover(words: &[String], target: Option<&ConfirmTarget>, targets: &[Vec<String>]) -> Option<Vec<Covered>> {
    let mut out = Vec::new();
    let mut at = 0;
    while at < words.len() {
        let rest = &words[at..];
        let phrase =
            PHRASES.iter().filter(|(p, _)| starts_with(rest, p.split(' '))).map(|(p, k)| (p.split(' ').count(), *k));
        // The step's own verbs are verbs of the plan, whatever the vocabulary lists.
        let its_verb = target.filter(|t| rest.first().is_some_and(|w| t.accepts_verb(w))).map(|_| (1, Kind::Verb));
        let named = targets.iter().flat_map(|t| {
            let bare = starts_with(rest, t.iter().map(String::as_str)).then_some(t.len());
            let after_preposition = TARGET_PREPOSITIONS
                .iter()
                .filter(|p| rest.first().is_some_and(|w| w == *p))
                .filter(|_| starts_with(&rest[1..], t.iter().map(String::as_str)))
                .map(|_| t.len() + 1);
            bare.into_iter().chain(after_preposition).map(|n| (n, Kind::Target))
        });
        let (len, kind) = phrase.chain(its_verb).chain(named).max_by_key(|(n, _)| *n)?;
        out.push(Covered { kind, start: at, len });
        at += len;
    }
    Some(out)
}

fn starts_with<'a>(words: &[String], phrase: impl Iterator<Item = &'a str>) -> bool {
    let mut n = 0;
    for p in phrase {
        if words.get(n).is_none_or(|w| w != p) {
            return false;
        }
        n += 1;
    }
    n > 0
}

/// A withholding word or phrase anywhere. A vocabulary phrase that spells out consent with a
/// negation in it ("no objections") is read as one unit, not word by word.
fn withheld(words: &[String], covered: &[Covered]) -> bool {
    let mut read: Vec<String> = Vec::new();
    for c in covered {
        let phrase = &words[c.start..c.start + c.len];
        if c.kind == Kind::Yes && c.len > 1 && WITHHOLDING.iter().any(|w| contains_phrase(phrase, w)) {
            read.push(String::new());
        } else {
            read.extend_from_slice(phrase);
        }
    }
    WITHHOLDING.iter().any(|w| contains_phrase(&read, w))
}

/// The order of the phrases: some consent; objects only after an order or a verb, and an order
/// that needs one has one; "just" only before an order or a verb; "now" only next to an order, a
/// verb, an object or the target; nothing cut off after "and" or "so".
fn reads_as_go_ahead(kinds: &[Covered]) -> bool {
    let kind = |i: Option<usize>| i.and_then(|i| kinds.get(i)).map(|c| c.kind);
    kinds.iter().any(|c| matches!(c.kind, Kind::Yes | Kind::Do | Kind::DoWith))
        && kinds.iter().enumerate().all(|(i, c)| {
            let before = kind(i.checked_sub(1));
            let after = kind(Some(i + 1));
            match c.kind {
                Kind::Object => matches!(before, Some(Kind::Do | Kind::DoWith | Kind::Verb)),
                Kind::DoWith => matches!(after, Some(Kind::Object | Kind::Target)),
                Kind::Just => matches!(after, Some(Kind::Do | Kind::DoWith | Kind::Verb)),
                Kind::Now => {
                    matches!(before, Some(Kind::Do | Kind::Verb | Kind::Object | Kind::Target))
                        || matches!(after, Some(Kind::Do | Kind::DoWith | Kind::Verb))
                }
                Kind::Link => after.is_some(),
                _ => true,
            }
        })
}
