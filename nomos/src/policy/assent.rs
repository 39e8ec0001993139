//! Chat assent: whether an operator's message approves what Nomos just proposed.
//!
//! Deliberately a fixed vocabulary, not a model's judgement, so it is predictable and cannot be
//! talked around. Matching is on whole words (never "yes" inside "yesterday"), negations are checked
//! first and win (including contracted forms and a bare "not"), and a destructive approval needs an
//! explicit "confirm"/"confirmed" — and, stricter still, must name its target.

/// Phrases that withdraw or withhold consent; any of them anywhere makes the message not assent.
const NEGATIONS: &[&str] = &[
    "no",
    "nope",
    "nah",
    "not",
    "don't",
    "dont",
    "do not",
    "stop",
    "wait",
    "hold on",
    "hold off",
    "not yet",
    "cancel",
    "abort",
    "nevermind",
    "never mind",
    "skip that",
    "haven't",
    "hasn't",
    "isn't",
    "wasn't",
    "aren't",
    "can't",
    "cannot",
    "won't",
    "wouldn't",
    "shouldn't",
    "didn't",
    "doesn't",
    "mustn't",
    "weren't",
    "hadn't",
    "needn't",
    "never",
    "negative",
    "refuse",
    "deny",
    "denied",
    "reject",
];

/// Phrases that give consent, checked only when no negation matched.
const ASSENTS: &[&str] = &[
    "go ahead",
    "goahead",
    "yes",
    "yep",
    "yeah",
    "yup",
    "do it",
    "proceed",
    "approve",
    "approved",
    "confirm",
    "confirmed",
    "ship it",
    "sounds good",
    "lgtm",
    "run it",
    "execute",
    "ok go",
    "okay go",
    "please do",
    "go",
    "continue",
    "carry on",
    "go for it",
    "make it so",
    "sure",
    "ok",
    "okay",
    "affirmative",
    "absolutely",
];

/// Lowercase word tokens; apostrophes (straight or curly) stay inside their word, so "don't" and
/// "haven’t" are one token each.
fn tokens(message: &str) -> Vec<String> {
    let lowered = message.to_lowercase().replace(['\u{2019}', '\u{2018}', '`'], "'");
    lowered
        .split(|c: char| !(c.is_alphanumeric() || c == '\''))
        .map(|t| t.trim_matches('\''))
        .filter(|t| !t.is_empty())
        .map(str::to_string)
        .collect()
}

/// Whether `phrase` (one or more words) appears as consecutive whole tokens.
fn contains_phrase(tokens: &[String], phrase: &str) -> bool {
    let words: Vec<&str> = phrase.split_whitespace().collect();
    !words.is_empty() && tokens.windows(words.len()).any(|w| w.iter().zip(&words).all(|(t, p)| t == p))
}

fn negated(tokens: &[String]) -> bool {
    NEGATIONS.iter().any(|n| contains_phrase(tokens, n))
}

/// Whether the message approves the proposal just made. Ambiguity is not assent.
pub fn is_assent(message: &str) -> bool {
    let t = tokens(message);
    !negated(&t) && ASSENTS.iter().any(|a| contains_phrase(&t, a))
}

/// Whether the message is an explicit confirmation, the only chat message that may approve a
/// destructive action. Loose assent ("yes", "go ahead") is not.
pub fn is_typed_confirmation(message: &str) -> bool {
    let t = tokens(message);
    !negated(&t) && (contains_phrase(&t, "confirm") || contains_phrase(&t, "confirmed"))
}

/// Whether a typed confirmation names what it confirms: the target's slug (`lxc:caddy`), its name
/// (`caddy`), or its Proxmox id (`121`), as whole words.
pub fn confirmation_names_target(message: &str, slug: &str, name: &str, pve_id: Option<u64>) -> bool {
    if !is_typed_confirmation(message) {
        return false;
    }
    let lowered = message.to_lowercase();
    let name = name.trim().to_lowercase();
    mentions_slug(&lowered, &slug.to_lowercase())
        || (!name.is_empty() && mentions_slug(&lowered, &name))
        || pve_id.is_some_and(|id| mentions_slug(&lowered, &id.to_string()))
}

/// Whether `slug` (or a name, or an id) occurs whole (not inside `lxc:caddy-old` or `1010`); a full stop right after it
/// ends the sentence and counts as a boundary.
fn mentions_slug(hay: &str, slug: &str) -> bool {
    let slug_char = |c: char| c.is_alphanumeric() || matches!(c, '-' | '_' | ':' | '.');
    !slug.is_empty()
        && hay.match_indices(slug).any(|(i, _)| {
            let before = hay[..i].chars().next_back().is_none_or(|c| !slug_char(c));
            let mut rest = hay[i + slug.len()..].chars();
            let after = match rest.next() {
                None => true,
                Some('.') => rest.next().is_none_or(char::is_whitespace),
                Some(c) => !slug_char(c),
            };
            before && after
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn assent_positive() {
        for m in [
            "go ahead",
            "Go ahead.",
            "yes",
            "Yes!",
            "yeah",
            "yep",
            "do it",
            "proceed",
            "approve",
            "ship it",
            "sounds good",
            "lgtm",
            "please do",
            "ok go ahead and run it",
            "continue",
            "go",
            "OK",
            "sure, run it",
            "Yes — do it",
        ] {
            assert!(is_assent(m), "{m:?}");
        }
    }

    #[test]
    fn assent_negative() {
        for m in [
            "no",
            "no, don't",
            "wait",
            "hold on",
            "not yet",
            "cancel that",
            "nevermind",
            "what's the plan for tomorrow?",
            "how many CPUs does strong have?",
            "maybe later",
            "",
            "   ",
            "why?",
            "hmm",
            "what does that do",
        ] {
            assert!(!is_assent(m), "{m:?}");
        }
    }

    #[test]
    fn negation_beats_assent() {
        for m in [
            "no, don't do it yet",
            "wait, not yet please",
            "yes but stop first",
            "don’t proceed",
            "I can’t approve that",
            "go ahead? no.",
        ] {
            assert!(!is_assent(m), "{m:?}");
        }
    }

    /// Regression: substring matching once read "yesterday" as "yes" and "eyesight" as "yes".
    #[test]
    fn whole_words_only() {
        for m in [
            "not sure, maybe yesterday's logs show something useful",
            "my eyesight isn't great, what does that say",
            "eyes on the logs",
            "gopher",
            "okayish",
        ] {
            assert!(!is_assent(m), "{m:?}");
        }
        assert!(!is_assent("yesterday"));
        assert!(!is_assent("proceeds from the sale"));
    }

    /// Deliberate difference from the original: a bare "not" is a negation (pitfall 1), so "go ahead,
    /// this is not risky" is not assent and Nomos asks again. Erring toward re-confirming is safe.
    #[test]
    fn bare_not_negates() {
        assert!(!is_assent("go ahead, this is not risky"));
    }

    /// Regression: "confirm" inside "confirmed" plus uncovered contracted negatives once read an
    /// explicit refusal as a destructive confirmation.
    #[test]
    fn typed_confirmation_contracted_negation() {
        for m in [
            "I haven't confirmed anything yet, let me think",
            "that isn't confirmed on my end",
            "we can't confirm that until tomorrow",
            "I haven’t confirmed",
            "do not confirm",
        ] {
            assert!(!is_typed_confirmation(m), "{m:?}");
        }
    }

    #[test]
    fn typed_confirmation() {
        for m in ["I confirm destroy 135 in strong", "confirm", "Confirmed.", "yes I confirm"] {
            assert!(is_typed_confirmation(m), "{m:?}");
        }
        for m in [
            "yes",
            "go ahead",
            "do it",
            "proceed",
            "lgtm",
            "no, don't confirm yet",
            "wait",
            "",
            "unconfirmed",
            "confirmation pending",
            "reconfirm later",
        ] {
            assert!(!is_typed_confirmation(m), "{m:?}");
        }
    }

    #[test]
    fn destructive_confirmation_must_name_the_target() {
        assert!(confirmation_names_target("I confirm destroying lxc:caddy", "lxc:caddy", "caddy", Some(101)));
        assert!(confirmation_names_target("confirm: destroy caddy", "lxc:caddy", "caddy", Some(101)));
        assert!(confirmation_names_target("I confirm pct destroy 101", "lxc:caddy", "caddy", Some(101)));
        assert!(confirmation_names_target("Confirmed, LXC:CADDY.", "lxc:caddy", "caddy", None));
        assert!(confirmation_names_target("confirm home assistant", "vm:home-assistant", "Home Assistant", None));
        // Not naming it, naming something else, or naming it without confirming.
        assert!(!confirmation_names_target("I confirm", "lxc:caddy", "caddy", Some(101)));
        assert!(!confirmation_names_target("I confirm destroying lxc:gitea", "lxc:caddy", "caddy", Some(101)));
        assert!(!confirmation_names_target("confirm destroy 1010", "lxc:caddy", "caddy", Some(101)));
        assert!(!confirmation_names_target("confirm lxc:caddy-old", "lxc:caddy", "caddy", None));
        assert!(!confirmation_names_target("confirm caddyserver", "lxc:caddy", "caddy", None));
        assert!(!confirmation_names_target("yes destroy lxc:caddy", "lxc:caddy", "caddy", Some(101)));
        assert!(!confirmation_names_target("don't confirm lxc:caddy", "lxc:caddy", "caddy", Some(101)));
    }
}
