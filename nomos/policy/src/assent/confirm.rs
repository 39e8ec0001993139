//! Typed confirmation: a form, not a word search. The message is the confirm word, optionally the
//! verb of the action's most destructive part, and the target's slug, name or Proxmox id —
//! nothing else, punctuation and case aside.

use super::actions::{reply_verb, verb_of_word};
use super::text::{doubtful, fold, has_format_characters, is_slug, words_only};
use super::Proposal;

/// The words a typed confirmation starts with.
pub(super) const CONFIRM_WORDS: &[&[&str]] = &[&["confirm"], &["confirmed"], &["i", "confirm"]];

/// The words after the confirm word, when the message has the form's frame: only words and
/// separating punctuation (no question mark, ellipsis, quote, bracket, emoji or format
/// character), starting with a confirm word.
fn after_confirm_word(message: &str) -> Option<Vec<String>> {
    if has_format_characters(message) {
        return None;
    }
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
    Some(words.get(lead..).unwrap_or_default().to_vec())
}

/// The verb base a one-word verb of a reply spells (`destroying` → `destroy`), or a command's own
/// name for it (`delsnapshot`, `rm`).
pub(super) fn verb_spelled(word: &str) -> Option<&'static str> {
    reply_verb(word).or_else(|| verb_of_word(word))
}

/// The steps `message` confirms by the typed form: those on the target it names (by slug, name or
/// id), and — when it carries a verb — whose most destructive action that verb names. A verb for a
/// step whose action is not known confirms nothing.
pub(super) fn typed_steps(message: &str, proposal: &Proposal) -> Vec<usize> {
    let Some(rest) = after_confirm_word(message) else { return Vec::new() };
    proposal
        .steps
        .iter()
        .enumerate()
        .filter(|(_, step)| {
            let Some(target) = &step.target else { return false };
            let names = target.names();
            let is_name = |words: &[String]| names.iter().any(|n| n.as_slice() == words);
            is_name(&rest) || rest.split_first().is_some_and(|(verb, name)| target.accepts_verb(verb) && is_name(name))
        })
        .map(|(i, _)| i)
        .collect()
}

/// Whether `message` has the form for some target: after the confirm word (and optionally a
/// verb), one word that names a target without doubt — a slug or a Proxmox id.
pub(super) fn typed_for_some_target(message: &str) -> bool {
    let Some(rest) = after_confirm_word(message) else { return false };
    let name = match rest.as_slice() {
        [name] => name,
        [verb, name] if verb_spelled(verb).is_some() => name,
        _ => return false,
    };
    is_slug(name) || is_pve_id(name)
}

/// A number as ids are written: no leading zero (`0900` is a time).
fn is_pve_id(word: &str) -> bool {
    !word.is_empty() && word.len() <= 10 && word.bytes().all(|b| b.is_ascii_digit()) && !word.starts_with('0')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn without_a_target_only_a_slug_or_an_id_names_one() {
        assert!(typed_for_some_target("confirm lxc:caddy") && typed_for_some_target("confirm destroy 101"));
        for m in ["confirm morgen", "confirmed. disregard", "confirm caddy", "confirm 0900", "confirm destroy it"] {
            assert!(!typed_for_some_target(m), "{m:?}");
        }
    }
}
