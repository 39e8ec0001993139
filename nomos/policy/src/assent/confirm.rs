//! Typed confirmation: a form, not a word search. The message is the confirm word, optionally one
//! verb of the action, and the target's slug, name or Proxmox id — nothing else, punctuation and
//! case aside.

use super::lexicon::{CONFIRM_VERBS, NOT_A_NAME, PHRASES, WITHHOLDING};
use super::text::{doubtful, fold, is_slug, words_only};
use super::ConfirmTarget;

/// The words a typed confirmation starts with.
pub(super) const CONFIRM_WORDS: &[&[&str]] = &[&["confirm"], &["confirmed"], &["i", "confirm"]];

/// The words after the confirm word, when the message has the form's frame: only words and
/// separating punctuation (no question mark, ellipsis, quote, bracket or emoji), starting with a
/// confirm word.
fn after_confirm_word(message: &str) -> Option<Vec<String>> {
    let folded = fold(message);
    if doubtful(&folded) {
        return None;
    }
    let words = words_only(&folded)?;
    let lead = CONFIRM_WORDS
        .iter()
        .filter(|c| words.len() >= c.len() && words.iter().zip(c.iter()).all(|(w, c)| w == c))
        .map(|c| c.len())
        .max()?;
    Some(words[lead..].to_vec())
}

/// Whether `message` is the typed confirmation of an action on `target`.
pub(super) fn typed(message: &str, target: &ConfirmTarget) -> bool {
    let Some(rest) = after_confirm_word(message) else { return false };
    let names = target.names();
    let is_name = |words: &[String]| names.iter().any(|n| n.as_slice() == words);
    is_name(&rest) || rest.split_first().is_some_and(|(verb, name)| target.accepts_verb(verb) && is_name(name))
}

/// Whether `message` has the form for some target: one word after the confirm word (or after a
/// verb of the list) that could name one — a slug, a Proxmox id, or a word that is not a pronoun,
/// an article, a verb, a refusal or part of the assent vocabulary.
pub(super) fn typed_for_some_target(message: &str) -> bool {
    let Some(rest) = after_confirm_word(message) else { return false };
    let name = match rest.as_slice() {
        [name] => name,
        [verb, name] if any_verb(verb) => name,
        _ => return false,
    };
    is_slug(name) || is_pve_id(name) || could_be_a_name(name)
}

fn any_verb(word: &str) -> bool {
    CONFIRM_VERBS.iter().any(|forms| forms.contains(&word))
}

/// A number as ids are written: no leading zero (`0900` is a time).
fn is_pve_id(word: &str) -> bool {
    !word.is_empty() && word.len() <= 10 && word.bytes().all(|b| b.is_ascii_digit()) && !word.starts_with('0')
}

fn could_be_a_name(word: &str) -> bool {
    word.starts_with(|c: char| c.is_alphanumeric())
        && word.chars().all(|c| c.is_alphanumeric() || matches!(c, '-' | '.' | '_'))
        && !any_verb(word)
        && !NOT_A_NAME.contains(&word)
        && !WITHHOLDING.contains(&word)
        && !PHRASES.iter().any(|(p, _)| p.split(' ').any(|w| w == word))
        && !CONFIRM_WORDS.iter().any(|c| c.contains(&word))
        && !says_how_or_when(word)
        && !a_compound_of_non_names(word)
}

/// A compound (`after-lunch`, `not-now`, `next-week`, `end-of-day`) with a withholding part, or
/// made only of words that name nothing; a host name's parts (`git.home.arpa`, `web-01`) are not.
fn a_compound_of_non_names(word: &str) -> bool {
    let parts: Vec<&str> = word.split(['-', '.', '_']).filter(|p| !p.is_empty()).collect();
    let names_nothing = |p: &&str| NOT_A_NAME.contains(p) || says_how_or_when(p);
    parts.len() > 1 && (parts.iter().any(|p| WITHHOLDING.contains(p)) || parts.iter().all(names_nothing))
}

/// Classes of words that say how, when, how often or who rather than which: adverbs (`manually`,
/// `afterwards`, `otherwise`), reflexives (`yourself`, `themselves`), and times, durations and counts
/// (`5pm`, `10min`, `2h`, `2x`, `x2`, `1st`, `3rd`). A host or guest so named is confirmed by its slug
/// or id, or against its real target.
fn says_how_or_when(word: &str) -> bool {
    if !word.is_empty() && word.bytes().all(|b| b.is_ascii_digit()) {
        return word.starts_with('0');
    }
    let alpha = word.chars().all(char::is_alphabetic);
    let suffix = |s: &str| word.len() > s.len() + 2 && word.ends_with(s);
    let adverb = alpha && (suffix("ly") || suffix("wards") || suffix("ward") || suffix("wise"));
    let reflexive = alpha && (word.ends_with("self") || word.ends_with("selves"));
    let digits = word.trim_start_matches(|c: char| c.is_ascii_digit());
    let count = word.strip_prefix('x').is_some_and(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()));
    let unit =
        ["am", "pm", "h", "hr", "hrs", "m", "min", "mins", "s", "sec", "secs", "d", "w", "x", "st", "nd", "rd", "th"];
    let timed = digits.len() < word.len() && unit.contains(&digits);
    adverb || reflexive || count || timed
}

/// The verb bases of [`CONFIRM_VERBS`] that `command` names as words.
pub(super) fn verbs_of(command: &str) -> Vec<String> {
    let lowered = command.to_lowercase();
    let words: Vec<&str> = lowered.split(|c: char| !c.is_alphanumeric()).filter(|w| !w.is_empty()).collect();
    CONFIRM_VERBS.iter().map(|forms| forms[0]).filter(|base| words.contains(base)).map(str::to_string).collect()
}

/// Whether `word` spells one of `verbs` (a base of [`CONFIRM_VERBS`], or any other verb given).
pub(super) fn spells_one_of(word: &str, verbs: &[String]) -> bool {
    verbs.iter().any(|v| {
        v == word || CONFIRM_VERBS.iter().any(|forms| forms.first().is_some_and(|b| b == v) && forms.contains(&word))
    })
}
