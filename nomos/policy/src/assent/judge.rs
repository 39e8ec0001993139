//! Plain assent: a reply made only of the assent vocabulary, in an order that reads as a go-ahead.

use super::confirm::CONFIRM_WORDS;
use super::lexicon::{Kind, CARRY_OUT, CONFIRM_VERBS, PHRASES, TARGET_PREPOSITIONS, WITHHOLDING};
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
        && keeps_to_the_plan(&words, &kinds, target)
        && confirm_stands_alone(&words, &kinds, target)
        && target.is_none_or(|t| verbs_are_its_own(&words, &kinds, t))
}

/// The words of a phrase, spaced.
fn phrase(words: &[String], c: &Covered) -> String {
    words[c.start..c.start + c.len].join(" ")
}

/// A verb of the plan approves the step only when it acts on it: a verb with nothing after it adds
/// a step ("yes; reboot") unless it is the step's own ("yes, destroy" to `pct destroy`); on the
/// plan itself or its parts only a verb that carries it out ([`CARRY_OUT`]) approves it — any other
/// edits or cancels it ("ok, update the plan", "sure, delete the plan"); any verb on "all" or
/// "everything" widens the step ("yes, destroy everything").
fn keeps_to_the_plan(words: &[String], covered: &[Covered], target: Option<&ConfirmTarget>) -> bool {
    covered.iter().enumerate().filter(|(_, c)| c.kind == Kind::Verb).all(|(i, c)| {
        let verb = phrase(words, c);
        match covered.get(i + 1).map(|n| n.kind) {
            Some(Kind::Object | Kind::Target) => true,
            Some(Kind::Plan) => CARRY_OUT.contains(&verb.as_str()),
            Some(Kind::All) => false,
            _ => target.is_some_and(|t| t.accepts_verb(&verb)),
        }
    })
}

/// "confirm" (an order, unlike the statement "confirmed") approves only alone ("yes, confirm") or
/// as the typed form for the step ("confirm caddy", "confirm destroy 101"); followed by anything
/// else it asks for or states something ("confirm pls", "confirm asap", "confirm caddy backup").
fn confirm_stands_alone(words: &[String], covered: &[Covered], target: Option<&ConfirmTarget>) -> bool {
    let is_confirm = |c: &Covered| c.kind == Kind::Do && CONFIRM_WORDS.iter().any(|w| w.join(" ") == phrase(words, c));
    covered.iter().enumerate().filter(|(_, c)| is_confirm(c)).all(|(i, _)| {
        let rest: Vec<Kind> = covered[i + 1..].iter().map(|c| c.kind).collect();
        let its_verb = || target.is_some_and(|t| t.accepts_verb(&words[covered[i + 1].start]));
        match rest.as_slice() {
            [] | [Kind::Target] => true,
            [Kind::Verb, Kind::Target] => its_verb(),
            _ => false,
        }
    })
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
                Kind::Object | Kind::Plan | Kind::All => matches!(before, Some(Kind::Do | Kind::DoWith | Kind::Verb)),
                Kind::DoWith => matches!(after, Some(Kind::Object | Kind::Plan | Kind::All | Kind::Target)),
                Kind::Just => matches!(after, Some(Kind::Do | Kind::DoWith | Kind::Verb)),
                Kind::Now => {
                    matches!(before, Some(Kind::Do | Kind::Verb | Kind::Object | Kind::Plan | Kind::All | Kind::Target))
                        || matches!(after, Some(Kind::Do | Kind::DoWith | Kind::Verb))
                }
                Kind::Link => after.is_some(),
                Kind::Vocative => before.is_some() && after.is_none(),
                _ => true,
            }
        })
}
