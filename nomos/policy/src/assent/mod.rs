//! Chat assent: whether an operator's message approves what Nomos proposed.
//!
//! Deliberately a closed grammar built from the proposal, not a model's judgement, so it is
//! predictable and cannot be talked around. A [`Proposal`] is its steps, each with its target and
//! the actions of its command ([`actions_of`]: programs and sub-commands as the classifier parses
//! them, never paths or names). [`judge`] reads a reply against it:
//!
//! - **Assent** approves the whole proposal. The reply is made only of consent ("yes", "go ahead",
//!   "looks good to me", "no objections", 👍, ✅), politeness, the agent's name last, and references
//!   to the proposal itself: pronouns and the plan ("restart it", "the remaining steps"), its
//!   targets, its actions. Any other word, sign or emoji is ambiguity, and ambiguity is not
//!   assent: so are reports ("Bob said yes"), quotes, prefixes ("SYSTEM: approved"), questions,
//!   doubt ("ok..."), conditions, delays, retractions, plan edits, jokes and invisible format
//!   characters. A reply that names actions names each step's most destructive one, and only
//!   actions the proposal takes ("ok, rebuild it" does not approve a restart); one that names
//!   targets names all of them (one of two approves neither); a part of a plan of several steps
//!   ("the next step"), "just" before a verb, and a reply cut off after "and" narrow or leave out
//!   part of it. Refusals win wherever they stand and in any inflection ("stopping",
//!   "cancelled").
//! - **Typed confirmation** is the only chat message that approves a destructive action. It is a
//!   form, like typing a repository's name to delete it: `CONFIRM [VERB] TARGET`, nothing else,
//!   punctuation (`, . ! : ; -`) and case aside. CONFIRM is `confirm`, `confirmed` or `i confirm`;
//!   VERB, when given, names the most destructive action of the step (`destroy` for `qm stop 300
//!   && qm destroy 300`); TARGET is the target's slug, its name or its Proxmox id — without a known
//!   target, only a slug or an id. [`confirmation_phrase`] gives the exact words every surface
//!   shows.

mod actions;
mod confirm;
mod judge;
mod lexicon;
mod text;

pub use actions::{actions_of, most_destructive, Action};

/// A proposal's target, as a reply or a typed confirmation may name it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConfirmTarget {
    /// The entity's slug (`lxc:caddy`).
    pub slug: String,
    /// Its display name (`caddy`, `Home Assistant`); empty when unknown. A name containing a
    /// withholding word ("wait", "stop"…) does not count: the slug or the id says it without doubt.
    pub name: String,
    /// Its Proxmox id, for guests.
    pub pve_id: Option<u64>,
    /// The verbs a typed confirmation may carry: the most destructive action's (lowercase bases).
    /// Empty: the action is not known, and the form has no verb.
    pub verbs: Vec<String>,
}

impl ConfirmTarget {
    /// A target known by its slug alone, for an action not known (a typed confirmation then
    /// carries no verb).
    pub fn new(slug: impl Into<String>) -> Self {
        ConfirmTarget { slug: slug.into(), name: String::new(), pve_id: None, verbs: Vec::new() }
    }

    pub fn with_name(mut self, name: impl Into<String>) -> Self {
        self.name = name.into();
        self
    }

    pub fn with_pve_id(mut self, pve_id: Option<u64>) -> Self {
        self.pve_id = pve_id;
        self
    }

    /// The action is `command`: a typed confirmation's verb must name its most destructive action
    /// (`qm stop 300 && qm destroy 300` → destroy; `rm -rf /srv` → delete).
    pub fn for_command(mut self, command: &str) -> Self {
        self.verbs = most_destructive(&actions_of(command)).into_iter().map(str::to_string).collect();
        self
    }

    /// The word sequences that name the target: its slug, its name (unless it holds a withholding
    /// word), its Proxmox id.
    fn names(&self) -> Vec<Vec<String>> {
        let words = |s: &str| text::words_only(&text::fold(s)).filter(|w| !w.is_empty());
        let name = words(&self.name).filter(|n| !lexicon::WITHHOLDING.iter().any(|w| text::contains_phrase(n, w)));
        words(&self.slug).into_iter().chain(name).chain(self.pve_id.map(|id| vec![id.to_string()])).collect()
    }

    /// Whether a reply's word names the action a typed confirmation is for.
    fn accepts_verb(&self, word: &str) -> bool {
        confirm::verb_spelled(word).is_some_and(|said| self.verbs.iter().any(|v| actions::names(said, v)))
    }
}

/// One step of a proposal: what it acts on (when known) and the actions of its command (none when
/// the step has no command).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Step {
    pub target: Option<ConfirmTarget>,
    pub actions: Vec<Action>,
}

impl Step {
    /// A step running `command` (when known) on `target` (when known).
    pub fn new(target: Option<ConfirmTarget>, command: Option<&str>) -> Self {
        let actions = command.map(actions_of).unwrap_or_default();
        let verbs: Vec<String> = most_destructive(&actions).into_iter().map(str::to_string).collect();
        let target = target.map(|t| ConfirmTarget { verbs: verbs.clone(), ..t });
        Step { target, actions }
    }

    /// A step on `target` whose action is known only by the target's verbs.
    fn for_target(target: &ConfirmTarget) -> Self {
        let actions = target
            .verbs
            .iter()
            .filter_map(|v| actions::base(v))
            .map(|verb| Action { verb, risk: crate::Risk::Destructive, part: 0 })
            .collect();
        Step { target: Some(target.clone()), actions }
    }
}

/// What Nomos proposed and waits for: the plan's steps not begun and the approvals waiting.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Proposal {
    pub steps: Vec<Step>,
}

impl Proposal {
    pub fn new(steps: Vec<Step>) -> Self {
        Proposal { steps }
    }
}

/// What a reply decides about a proposal.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Judgement {
    /// A go-ahead for the whole proposal.
    pub assent: bool,
    /// A typed confirmation of the steps in `covers` (the form `CONFIRM [VERB] TARGET`).
    pub typed_confirmation: bool,
    /// The steps (indices into the proposal) the reply approves: all of them on assent; on a typed
    /// confirmation, the steps on the target it names whose most destructive action it names.
    pub covers: Vec<usize>,
}

/// Judges `message` against the proposal it answers: see the module documentation.
pub fn judge(message: &str, proposal: &Proposal) -> Judgement {
    let typed = confirm::typed_steps(message, proposal);
    let assent = judge::assent(message, proposal);
    let covers = if assent { (0..proposal.steps.len()).collect() } else { typed.clone() };
    Judgement { assent, typed_confirmation: !typed.is_empty(), covers }
}

/// Whether the message is a go-ahead when nothing is known of the proposal (no target, no
/// command): consent words only; any verb or name asks again.
pub fn is_assent(message: &str) -> bool {
    judge::assent(message, &Proposal::default())
}

/// Whether the message approves a one-step proposal on `target`, whose action is known by the
/// target's verbs (see [`ConfirmTarget::for_command`]).
pub fn is_assent_to(message: &str, target: &ConfirmTarget) -> bool {
    judge::assent(message, &Proposal::new(vec![Step::for_target(target)]))
}

/// Whether the message is the typed confirmation of the action on `target`: `CONFIRM [VERB]
/// TARGET` and nothing else (see the module documentation).
pub fn typed_confirmation(message: &str, target: &ConfirmTarget) -> bool {
    !confirm::typed_steps(message, &Proposal::new(vec![Step::for_target(target)])).is_empty()
}

/// Whether the message has the form of a typed confirmation for some target, judged without one:
/// the confirm word, optionally a verb, and a slug or a Proxmox id — never a free word. What the
/// gate accepts is always judged against the real target with [`typed_confirmation`].
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
