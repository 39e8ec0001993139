//! Plain assent: a reply made only of consent, filler and references to the proposal itself — its
//! actions, its targets, the plan — in an order that reads as a go-ahead for all of it.

use super::actions::{self, most_destructive};
use super::confirm::CONFIRM_WORDS;
use super::lexicon::{refuses, Kind, PHRASES, TARGET_PREPOSITIONS, WITHHOLDING};
use super::text::{contains_phrase, doubtful, fold, has_format_characters, squeeze, words_only};
use super::Proposal;

/// Whether `message` approves the whole of `proposal`.
pub(super) fn assent(message: &str, proposal: &Proposal) -> bool {
    if has_format_characters(message) {
        return false;
    }
    let folded = fold(message);
    if doubtful(&folded) {
        return false;
    }
    let Some(raw) = words_only(&folded) else { return false };
    // The vocabulary is matched with stretched letters squeezed ("yesss"); names and ids exactly.
    let words: Vec<String> = raw.iter().map(|w| squeeze(w)).collect();
    let Some(covered) = cover(&raw, &words, proposal) else { return false };
    !withheld(&words, &covered)
        && reads_as_go_ahead(&covered)
        && keeps_to_the_plan(&covered, proposal)
        && confirm_stands_alone(&words, &covered, proposal)
        && names_the_proposals_actions(&covered, proposal)
        && names_every_target_or_none(&covered, proposal)
        && (proposal.steps.len() <= 1 || !covered.iter().any(|c| c.kind == Kind::Part))
}

/// One phrase of a reply: its kind, where its words are, and what of the proposal it names.
#[derive(Debug, Clone)]
struct Covered {
    kind: Kind,
    start: usize,
    len: usize,
    /// For a verb: the base of the action it names (`None`: a verb that carries out whatever was
    /// proposed, "run", "apply").
    verb: Option<&'static str>,
    /// For a target: the steps on it.
    steps: Vec<usize>,
}

impl Covered {
    fn phrase(&self, words: &[String]) -> String {
        words.get(self.start..self.start + self.len).unwrap_or_default().join(" ")
    }
}

/// Splits the reply into phrases — the vocabulary's and the verbs of actions (read in `words`,
/// squeezed), the proposal's targets (read in `raw`, exactly: `vm:90000` is not `vm:9000`) —
/// longest first at each place, a word of the vocabulary before a target of the same length (a
/// guest named `restore` does not make "restore" mean it); `None` when a word is part of none.
fn cover(raw: &[String], words: &[String], proposal: &Proposal) -> Option<Vec<Covered>> {
    // Each target's names, with the steps on it.
    let mut targets: Vec<(Vec<String>, Vec<usize>)> = Vec::new();
    for (i, step) in proposal.steps.iter().enumerate() {
        for name in step.target.iter().flat_map(|t| t.names()) {
            match targets.iter_mut().find(|(n, _)| *n == name) {
                Some((_, steps)) => steps.push(i),
                None => targets.push((name, vec![i])),
            }
        }
    }
    let mut out = Vec::new();
    let mut at = 0;
    while at < words.len() {
        let rest = words.get(at..).unwrap_or_default();
        let raw_rest = raw.get(at..).unwrap_or_default();
        let mut best: Option<Covered> = None;
        let mut offer = |c: Covered| {
            if best.as_ref().is_none_or(|b| c.len > b.len) {
                best = Some(c);
            }
        };
        for (p, kind) in PHRASES.iter().filter(|(p, _)| starts_with(rest, p.split(' '))) {
            offer(Covered { kind: *kind, start: at, len: p.split(' ').count(), verb: None, steps: Vec::new() });
        }
        for spelled in actions::spellings().filter(|s| starts_with(rest, s.split(' '))) {
            let verb = actions::reply_verb(spelled);
            offer(Covered { kind: Kind::Verb, start: at, len: spelled.split(' ').count(), verb, steps: Vec::new() });
        }
        for (name, steps) in &targets {
            let bare = starts_with(raw_rest, name.iter().map(String::as_str)).then_some(name.len());
            let after_preposition = raw_rest
                .split_first()
                .filter(|(p, tail)| {
                    TARGET_PREPOSITIONS.contains(&p.as_str()) && starts_with(tail, name.iter().map(String::as_str))
                })
                .map(|_| name.len() + 1);
            for len in bare.into_iter().chain(after_preposition) {
                offer(Covered { kind: Kind::Target, start: at, len, verb: None, steps: steps.clone() });
            }
        }
        let found = best?;
        at += found.len;
        out.push(found);
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

/// A withholding word or phrase anywhere, or a refusal in any inflection ("stopping",
/// "cancelled"). A vocabulary phrase that spells out consent with a negation in it ("no
/// objections"), or an action in words that withhold alone ("roll back"), is read as one unit,
/// not word by word.
fn withheld(words: &[String], covered: &[Covered]) -> bool {
    let mut read: Vec<String> = Vec::new();
    for c in covered {
        let phrase = words.get(c.start..c.start + c.len).unwrap_or_default();
        let unit = matches!(c.kind, Kind::Yes | Kind::Verb) && c.len > 1;
        if unit && WITHHOLDING.iter().any(|w| contains_phrase(phrase, w)) {
            read.push(String::new());
        } else {
            read.extend_from_slice(phrase);
        }
    }
    WITHHOLDING.iter().any(|w| contains_phrase(&read, w)) || read.iter().any(|w| refuses(w))
}

/// The order of the phrases: some consent; objects only after consent, an order or a verb, and an order
/// that needs one has one; "just" only right before an order (before a verb or an object it
/// narrows the plan: "just restart it", "just the first step"); "now" only next to an order, a
/// verb, an object or a target; a word that leads on ("and", "and then") only before more consent
/// or what it acts on — cut off, what it led to is missing.
fn reads_as_go_ahead(kinds: &[Covered]) -> bool {
    let kind = |i: Option<usize>| i.and_then(|i| kinds.get(i)).map(|c| c.kind);
    // An order to carry out the plan is consent too ("apply the changes", "run the remaining steps").
    let carry_out = |i: usize| {
        kinds.get(i).is_some_and(|c| c.kind == Kind::Verb && c.verb.is_none())
            && matches!(kind(Some(i + 1)), Some(Kind::Plan | Kind::Part))
    };
    (kinds.iter().any(|c| matches!(c.kind, Kind::Yes | Kind::Do | Kind::DoWith)) || (0..kinds.len()).any(carry_out))
        && kinds.iter().enumerate().all(|(i, c)| {
            let before = kind(i.checked_sub(1));
            let after = kind(Some(i + 1));
            match c.kind {
                // "yes, the whole plan", "yes to both": what the consent is to — never "all" or
                // "everything" after a bare yes, which reach past the plan.
                Kind::Object | Kind::Plan | Kind::Part => {
                    matches!(before, Some(Kind::Yes | Kind::Do | Kind::DoWith | Kind::Verb))
                }
                Kind::All => matches!(before, Some(Kind::Do | Kind::DoWith | Kind::Verb)),
                Kind::DoWith => {
                    matches!(after, Some(Kind::Object | Kind::Plan | Kind::Part | Kind::All | Kind::Target))
                }
                Kind::Just => matches!(after, Some(Kind::Do | Kind::DoWith)),
                Kind::Now => {
                    matches!(
                        before,
                        Some(Kind::Do | Kind::Verb | Kind::Object | Kind::Plan | Kind::Part | Kind::All | Kind::Target)
                    ) || matches!(after, Some(Kind::Do | Kind::DoWith | Kind::Verb))
                }
                Kind::Link => {
                    matches!(after, Some(Kind::Yes | Kind::Do | Kind::DoWith | Kind::Verb | Kind::Just | Kind::Target))
                }
                Kind::Vocative => before.is_some() && after.is_none(),
                _ => true,
            }
        })
}

/// A verb acts on the proposal: followed by an object or a target it names what was proposed;
/// with nothing after it, it must be one of the proposal's own actions ("yes, destroy" to `pct
/// destroy`), else it adds a step ("yes; reboot"); on the plan or its parts only a verb that
/// carries it out approves it ("apply the changes") — any other edits or cancels it ("update the
/// plan", "delete the plan"); any verb on "all" or "everything" widens it ("destroy everything").
fn keeps_to_the_plan(covered: &[Covered], proposal: &Proposal) -> bool {
    covered.iter().enumerate().filter(|(_, c)| c.kind == Kind::Verb).all(|(i, c)| {
        let carries_out = c.verb.is_none();
        match covered.get(i + 1).map(|n| n.kind) {
            Some(Kind::Object | Kind::Target) => true,
            Some(Kind::Plan | Kind::Part) => carries_out,
            Some(Kind::All) => false,
            _ => carries_out || c.verb.is_some_and(|v| proposes(proposal, v)),
        }
    })
}

/// Whether some step of the proposal takes the action `verb`.
fn proposes(proposal: &Proposal, verb: &str) -> bool {
    proposal.steps.iter().flat_map(|s| &s.actions).any(|a| actions::names(verb, a.verb))
}

/// Every action a reply names is one the proposal takes, and a reply that names actions names,
/// for each step, its most destructive one: "yes, stop it" does not approve `qm stop 300 && qm
/// destroy 300`, and "ok, rebuild it" does not approve a restart.
fn names_the_proposals_actions(covered: &[Covered], proposal: &Proposal) -> bool {
    let named: Vec<&'static str> = covered.iter().filter_map(|c| c.verb).collect();
    if named.is_empty() {
        return true;
    }
    named.iter().all(|v| proposes(proposal, v))
        && proposal
            .steps
            .iter()
            .filter(|s| !s.actions.is_empty())
            .all(|s| most_destructive(&s.actions).iter().any(|top| named.iter().any(|v| actions::names(v, top))))
}

/// A reply that names targets names every target of the proposal: naming one of two approves
/// neither ("yes, restart caddy" to a plan for caddy and nginx asks again).
fn names_every_target_or_none(covered: &[Covered], proposal: &Proposal) -> bool {
    let named: Vec<usize> = covered.iter().filter(|c| c.kind == Kind::Target).flat_map(|c| c.steps.clone()).collect();
    named.is_empty() || proposal.steps.iter().enumerate().all(|(i, s)| s.target.is_none() || named.contains(&i))
}

/// "confirm" (an order, unlike the statement "confirmed") approves only alone ("yes, confirm") or
/// as the typed form for a target ("confirm caddy", "confirm destroy 101"); followed by anything
/// else it asks for or states something ("confirm pls", "confirm asap", "confirm caddy backup").
fn confirm_stands_alone(words: &[String], covered: &[Covered], proposal: &Proposal) -> bool {
    let is_confirm = |c: &Covered| c.kind == Kind::Do && CONFIRM_WORDS.iter().any(|w| w.join(" ") == c.phrase(words));
    covered.iter().enumerate().filter(|(_, c)| is_confirm(c)).all(|(i, _)| {
        let rest = covered.get(i + 1..).unwrap_or_default();
        match rest {
            [] => true,
            [t] => t.kind == Kind::Target,
            [v, t] => {
                v.kind == Kind::Verb
                    && t.kind == Kind::Target
                    && t.steps.iter().any(|s| {
                        let said = words.get(v.start).map(String::as_str).unwrap_or_default();
                        proposal
                            .steps
                            .get(*s)
                            .and_then(|s| s.target.as_ref())
                            .is_some_and(|target| v.len == 1 && target.accepts_verb(said))
                    })
            }
            _ => false,
        }
    })
}

#[cfg(test)]
mod tests {
    use super::super::{ConfirmTarget, Step};
    use super::*;

    fn plan(steps: &[(&str, &str)]) -> Proposal {
        Proposal::new(
            steps
                .iter()
                .map(|(slug, command)| {
                    let name = slug.split(':').nth(1).unwrap_or_default();
                    Step::new(Some(ConfirmTarget::new(*slug).with_name(name)), Some(command))
                })
                .collect(),
        )
    }

    #[test]
    fn a_go_ahead_is_for_the_whole_proposal() {
        let two = plan(&[("lxc:caddy", "systemctl restart caddy"), ("lxc:nginx", "systemctl restart nginx")]);
        for yes in ["yes", "go ahead", "yes, restart them", "ok, restart caddy and nginx", "lgtm \u{1F44D}"] {
            assert!(assent(yes, &two), "{yes:?}");
        }
        for no in [
            "yes, restart caddy",
            "ok, rebuild it",
            "just restart it",
            "go ahead and then",
            "yes, do the next step",
            "ok, reboot them",
            "yes \u{202E}",
            "stopping is fine, go ahead",
        ] {
            assert!(!assent(no, &two), "{no:?}");
        }
    }

    #[test]
    fn a_reply_naming_actions_names_the_worst_of_each_step() {
        let compound = plan(&[("vm:app", "qm stop 300 && qm destroy 300")]);
        assert!(assent("yes, destroy it", &compound));
        assert!(!assent("yes, migrate it", &compound));
        assert!(!assent("ok, restart it", &compound));
        let snapshot = plan(&[("lxc:web", "pct delsnapshot 105 pre-migrate")]);
        assert!(!assent("yes, migrate it", &snapshot));
        assert!(assent("yes, delete it", &snapshot));
    }
}
