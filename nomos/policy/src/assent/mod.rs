#![allow(clippy::string_slice, clippy::indexing_slicing)] // Reworked separately.
//! Chat assent: whether an operator's message approves what Nomos just proposed.
//!
//! Deliberately a fixed vocabulary and a fixed form, not a model's judgement, so it is predictable
//! and cannot be talked around. Two judgements:
//!
//! - **Assent** ([`is_assent`], [`is_assent_to`]) approves a plan or a change. The reply must be
//!   made only of the assent vocabulary (whole words, Unicode look-alikes folded): consent ("yes",
//!   "go ahead", "looks good to me", "no objections", 👍, ✅), the plan's verbs and objects
//!   ("restart it", "the remaining steps"), politeness, the agent's name last ("go ahead, nomos"),
//!   and — when known — the step's own target. Any other word, sign or emoji is ambiguity, and
//!   ambiguity is not assent: so are reports ("Bob said yes"), quotes, prefixes ("SYSTEM:
//!   approved"), questions (with any question mark, or without one: "are you sure"), doubt
//!   ("ok..."), conditions, delays, retractions, plan edits and jokes. A verb must act on the step:
//!   with nothing after it, it adds a step ("yes; reboot") unless it is the step's own; a verb that
//!   discards, on the plan, cancels it ("ok, delete the plan"); any verb on "all" or "everything"
//!   widens it ("yes, destroy everything"). "confirm" approves alone or as the typed form, never
//!   followed by anything else ("confirm pls", "confirm caddy backup"). Withholding words ("not",
//!   "wait", "later", "only", "make sure", "please confirm"…) win wherever they stand, so a
//!   go-ahead carrying a reassurance with a negation ("do it, nothing here is dangerous") is asked
//!   again.
//! - **Typed confirmation** ([`typed_confirmation`]) is the only chat message that approves a
//!   destructive action. It is a form, like typing a repository's name to delete it:
//!   `CONFIRM [VERB] TARGET`, nothing else, punctuation (`, . ! : ; -`) and case aside. CONFIRM is
//!   `confirm`, `confirmed` or `i confirm`; VERB is one of the action's verbs (from a fixed list of
//!   24: destroy, delete, remove, wipe, … and their -ing forms); TARGET is the target's slug, its
//!   name or its Proxmox id. [`confirmation_phrase`] gives the exact words every surface shows.

mod confirm;
mod judge;
mod lexicon;
mod text;

/// What a typed confirmation must name: the target of the action, and the verbs it may carry.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConfirmTarget {
    /// The entity's slug (`lxc:caddy`).
    pub slug: String,
    /// Its display name (`caddy`, `Home Assistant`); empty when unknown. A name containing a
    /// withholding word ("wait", "stop"…) does not count: the slug or the id says it without doubt.
    pub name: String,
    /// Its Proxmox id, for guests.
    pub pve_id: Option<u64>,
    /// The verbs that may stand between the confirm word and the target (lowercase; the -ing
    /// forms of the fixed list are accepted too). Empty: the form has no verb.
    pub verbs: Vec<String>,
}

impl ConfirmTarget {
    /// A target known by its slug alone, for an action not known: any verb of the fixed list.
    pub fn new(slug: impl Into<String>) -> Self {
        let verbs = lexicon::CONFIRM_VERBS.iter().map(|forms| forms[0].to_string()).collect();
        ConfirmTarget { slug: slug.into(), name: String::new(), pve_id: None, verbs }
    }

    pub fn with_name(mut self, name: impl Into<String>) -> Self {
        self.name = name.into();
        self
    }

    pub fn with_pve_id(mut self, pve_id: Option<u64>) -> Self {
        self.pve_id = pve_id;
        self
    }

    /// The action is `command`: its verbs are the words of the fixed list the command names
    /// (`pct destroy 101` → destroy; `rm -rf /srv` → none, so only `confirm TARGET` confirms it).
    pub fn for_command(mut self, command: &str) -> Self {
        self.verbs = confirm::verbs_of(command);
        self
    }

    /// The word sequences that name the target: its slug, its name (unless it holds a withholding
    /// word), its Proxmox id.
    fn names(&self) -> Vec<Vec<String>> {
        let words = |s: &str| text::words_only(&text::fold(s)).filter(|w| !w.is_empty());
        let name = words(&self.name).filter(|n| !lexicon::WITHHOLDING.iter().any(|w| text::contains_phrase(n, w)));
        words(&self.slug).into_iter().chain(name).chain(self.pve_id.map(|id| vec![id.to_string()])).collect()
    }

    fn accepts_verb(&self, word: &str) -> bool {
        confirm::spells_one_of(word, &self.verbs)
    }
}

/// Whether the message approves the proposal just made, judged without knowing its target (a
/// reply naming one asks again). Ambiguity is not assent.
pub fn is_assent(message: &str) -> bool {
    judge::assent(message, None)
}

/// Whether the message approves the proposed step on `target`; the reply may name that target
/// ("yes, restart caddy"), never another.
pub fn is_assent_to(message: &str, target: &ConfirmTarget) -> bool {
    judge::assent(message, Some(target))
}

/// Whether the message is the typed confirmation of the action on `target`: `CONFIRM [VERB]
/// TARGET` and nothing else (see the module documentation).
pub fn typed_confirmation(message: &str, target: &ConfirmTarget) -> bool {
    confirm::typed(message, target)
}

/// Whether the message has the form of a typed confirmation for some target, judged without one:
/// the confirm word, optionally a verb of the fixed list, and one word that could name a target —
/// a slug, an id, or a name-shaped word (letters, digits, `.`, `-`, `_`) that is no pronoun,
/// article, quantifier, verb, refusal or assent word, and no word of time, place, manner or
/// frequency, listed (`monday`, `offline`, `twice`, `nobody`) or by shape (`-ly`, `-wards`,
/// `-wise`, `-self`, `5pm`, `2x`). What the gate accepts is always judged against the real target
/// with [`typed_confirmation`], where the name is matched exactly.
pub fn is_typed_confirmation(message: &str) -> bool {
    confirm::typed_for_some_target(message)
}

/// The exact words to type to confirm an action on `target`: `confirm <slug>`. Every surface that
/// asks for a confirmation shows this.
pub fn confirmation_phrase(target: &ConfirmTarget) -> String {
    format!("confirm {}", target.slug.trim().to_lowercase())
}

#[cfg(test)]
mod props;
#[cfg(test)]
mod tests;
