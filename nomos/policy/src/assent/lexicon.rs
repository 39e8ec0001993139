//! The vocabulary of the chat judge. Everything it accepts is written here; everything else is
//! ambiguity, and ambiguity is not consent.

/// Words and phrases that withdraw, withhold, postpone or question consent, make it conditional,
/// ask for it, or mock it. Any of them anywhere makes a message neither assent nor a name for a
/// target. Contracted negatives are listed with and without their apostrophe and with the common
/// misplaced one.
#[rustfmt::skip]
pub(super) const WITHHOLDING: &[&str] = &[
    "no", "nope", "nah", "not", "don't", "dont", "do'nt", "do not", "stop", "wait", "hold on", "hold off", "not yet",
    "cancel", "abort", "nevermind", "never mind", "skip", "haven't", "havent", "hasn't", "hasnt", "isn't",
    "isnt", "wasn't", "wasnt", "aren't", "arent", "can't", "cant", "cannot", "won't", "wont", "wouldn't",
    "wouldnt", "shouldn't", "shouldnt", "didn't", "didnt", "doesn't", "doesnt", "mustn't", "mustnt", "weren't",
    "werent", "hadn't", "hadnt", "needn't", "neednt", "ain't", "aint", "never", "negative", "refuse", "deny",
    "denied", "reject", "rejected", "veto", "nein", "nicht", "non", "nee", "niet",
    // Postponing, conditions, doubt and second thoughts.
    "but", "first", "later", "let me", "check", "explain", "before", "after", "once", "if", "unless", "pause",
    "tomorrow", "tmrw", "tmr", "tonight", "tonite", "l8r", "soon", "maybe", "perhaps", "probably", "possibly",
    "think", "back", "undo", "revert", "hmm", "hm", "unsure", "not sure", "what", "why", "how", "which", "who",
    "where", "instead",
    "nvm", "halt", "hang on", "one sec", "a sec", "a second", "a minute", "brb", "scratch", "forget",
    "second thought", "leave", "terrible", "nothing", "none", "rather", "dunno", "idk", "afraid",
    "until", "till", "when", "whether", "only", "except", "without", "careful", "wrong", "bad", "hold", "no way",
    "actually", "though", "although", "yet", "eventually", "someday", "sometime", "whenever", "meanwhile",
    // Asking rather than answering; a precondition is not a yes.
    "are you sure", "you sure", "u sure", "make sure", "be sure", "ensure", "please confirm", "confirm please",
    "pls confirm", "plz confirm", "please approve", "approve please", "pls approve", "plz approve",
    // Jokes and sarcasm.
    "yeah right", "lol", "lmao", "haha", "jk", "kidding", "joking", "sarcasm",
];

/// What a phrase of the assent vocabulary does in a reply.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Kind {
    /// Consent as a judgement ("yes", "lgtm", "fine by me"): takes no object, and no "now" (what
    /// "looks good now" reports is a state, not a go-ahead).
    Yes,
    /// Consent as an order ("go ahead", "do it", "proceed"): may take an object and a "now".
    Do,
    /// An order that needs its object ("go ahead with", "proceed with"): cut off, it says nothing.
    DoWith,
    /// A verb: one that carries out whatever was proposed ("run", "apply"), or an action's
    /// ("restart", "destroy"), which must be one the proposal takes. No consent by itself.
    Verb,
    /// What a verb or an order acts on, by pronoun ("it", "them").
    Object,
    /// The plan itself or all its remaining parts ("the plan", "the remaining steps"): only a verb
    /// that carries it out approves it; any other edits or cancels it ("delete the plan").
    Plan,
    /// One part of the plan ("the next step", "this change"): the whole of it only when the
    /// proposal has one step.
    Part,
    /// Everything ("all", "everything"): after an order it is every step ("do all"); after a verb
    /// it widens the step's scope ("destroy everything").
    All,
    /// Timing that means at once; only next to an order, a verb or its object.
    Now,
    /// "just": only right before an order or a verb ("just do it"); before an object it narrows the
    /// plan ("just the next step").
    Just,
    /// Words that lead on to more ("and", "so", "and then"): only before more consent or a verb;
    /// cut off, what they led to is missing.
    Link,
    /// Politeness and filler.
    Filler,
    /// The agent addressed by its name, only last and after consent ("go ahead, nomos"); first it
    /// reads as a transcript's speaker ("nomos: go ahead").
    Vocative,
    /// The step's own target, by slug, name or Proxmox id (only when the target is known).
    Target,
}

/// The assent vocabulary: phrases (words as the tokenizer gives them, squeezed) and their kinds.
/// Left out on purpose: "that's ok", "it's fine", "all good", "I'm good" (as often "no need" as
/// "yes"), "ack", "roger", "noted", "got it" (seen is not approved), "+1".
#[rustfmt::skip]
pub(super) const PHRASES: &[(&str, Kind)] = &[
    // Yes, its short forms and its common typos.
    ("yes", Kind::Yes), ("y", Kind::Yes), ("ye", Kind::Yes), ("ya", Kind::Yes), ("yah", Kind::Yes),
    ("yea", Kind::Yes), ("yeah", Kind::Yes), ("yeahh", Kind::Yes), ("yeh", Kind::Yes), ("yep", Kind::Yes),
    ("yepp", Kind::Yes), ("yup", Kind::Yes), ("yupp", Kind::Yes), ("yeap", Kind::Yes), ("yess", Kind::Yes),
    ("yees", Kind::Yes), ("yse", Kind::Yes), ("ys", Kind::Yes), ("yas", Kind::Yes), ("yesh", Kind::Yes),
    ("yessir", Kind::Yes), ("aye", Kind::Yes), ("\u{1F44D}", Kind::Yes),
    ("ok", Kind::Yes), ("okay", Kind::Yes), ("okk", Kind::Yes), ("k", Kind::Yes), ("kk", Kind::Yes),
    ("okey", Kind::Yes), ("okie", Kind::Yes), ("oki", Kind::Yes), ("oke", Kind::Yes), ("okey-dokey", Kind::Yes),
    ("okie-dokie", Kind::Yes), ("okey dokey", Kind::Yes), ("okie dokie", Kind::Yes), ("alright", Kind::Yes),
    ("alrighty", Kind::Yes), ("all right", Kind::Yes), ("allright", Kind::Yes), ("aight", Kind::Yes),
    ("sure", Kind::Yes), ("suree", Kind::Yes), ("sure thing", Kind::Yes), ("for sure", Kind::Yes),
    ("of course", Kind::Yes), ("ofc", Kind::Yes), ("certainly", Kind::Yes), ("by all means", Kind::Yes),
    ("absolutely", Kind::Yes), ("definitely", Kind::Yes), ("affirmative", Kind::Yes),
    ("agreed", Kind::Yes), ("agree", Kind::Yes), ("i agree", Kind::Yes),
    ("approved", Kind::Yes), ("confirmed", Kind::Yes), ("granted", Kind::Yes), ("permission granted", Kind::Yes),
    ("lgtm", Kind::Yes), ("sgtm", Kind::Yes), ("looks good", Kind::Yes), ("looks good to me", Kind::Yes),
    ("looks great", Kind::Yes), ("looks fine", Kind::Yes), ("looks fine to me", Kind::Yes), ("sounds good", Kind::Yes),
    ("sounds good to me", Kind::Yes), ("sounds great", Kind::Yes), ("sounds fine", Kind::Yes),
    ("sounds like a plan", Kind::Yes), ("good to go", Kind::Yes),
    ("fine by me", Kind::Yes), ("fine with me", Kind::Yes), ("ok by me", Kind::Yes), ("okay by me", Kind::Yes),
    ("ok with me", Kind::Yes), ("okay with me", Kind::Yes), ("works for me", Kind::Yes),
    ("that works", Kind::Yes), ("that works for me", Kind::Yes), ("that's fine", Kind::Yes),
    ("thats fine", Kind::Yes), ("that is fine", Kind::Yes), ("no objections", Kind::Yes),
    ("no objection", Kind::Yes), ("no objections from me", Kind::Yes),
    ("surely", Kind::Yes), ("\u{2705}", Kind::Yes), ("\u{2714}", Kind::Yes), ("\u{2611}", Kind::Yes),
    ("green light", Kind::Yes), ("you have my approval", Kind::Yes), ("you have my blessing", Kind::Yes),
    ("you have my go-ahead", Kind::Yes), ("i say yes", Kind::Yes), ("i say go", Kind::Yes),
    ("plan looks good", Kind::Yes), ("the plan looks good", Kind::Yes), ("plan looks fine", Kind::Yes),
    ("the plan looks fine", Kind::Yes), ("looks correct", Kind::Yes), ("looks right", Kind::Yes),
    ("looks alright", Kind::Yes), ("looks ok", Kind::Yes), ("looks okay", Kind::Yes),
    // Typos one key or one letter away, where no other word is spelled.
    ("yez", Kind::Yes), ("ues", Kind::Yes), ("tes", Kind::Yes), ("lgmt", Kind::Yes), ("lgtn", Kind::Yes),
    ("aproved", Kind::Yes), ("approvd", Kind::Yes), ("apporved", Kind::Yes), ("aprroved", Kind::Yes),
    ("approed", Kind::Yes), ("oka", Kind::Yes), ("yes to", Kind::Yes),
    // Orders to go ahead.
    ("go", Kind::Do), ("go ahead", Kind::Do), ("goahead", Kind::Do), ("go-ahead", Kind::Do), ("go on", Kind::Do),
    ("go for it", Kind::Do), ("go ahead with", Kind::DoWith), ("proceed", Kind::Do), ("proceed with", Kind::DoWith),
    ("continue", Kind::Do), ("continue with", Kind::DoWith), ("carry on", Kind::Do), ("carry on with", Kind::DoWith),
    ("do it", Kind::Do), ("do that", Kind::Do), ("do this", Kind::Do), ("do so", Kind::Do), ("do them", Kind::Do),
    ("do all", Kind::Do), ("do everything", Kind::Do), ("please do", Kind::Do), ("make it so", Kind::Do),
    ("run it", Kind::Do), ("run that", Kind::Do), ("execute", Kind::Do), ("execute it", Kind::Do),
    ("ship it", Kind::Do), ("shipit", Kind::Do), ("ship ti", Kind::Do), ("go aheda", Kind::Do), ("send it", Kind::Do), ("approve", Kind::Do), ("i approve", Kind::Do),
    ("confirm", Kind::Do), ("i confirm", Kind::Do), ("let's do it", Kind::Do), ("lets do it", Kind::Do),
    ("let's go", Kind::Do), ("lets go", Kind::Do), ("let's proceed", Kind::Do), ("lets proceed", Kind::Do),
    ("you may proceed", Kind::Do), ("you can proceed", Kind::Do), ("you may go ahead", Kind::Do),
    ("you can go ahead", Kind::Do), ("feel free", Kind::Do),
    ("proced", Kind::Do), ("procede", Kind::Do), ("procced", Kind::Do), ("go ahed", Kind::Do),
    ("go ahaed", Kind::Do), ("go ahea", Kind::Do), ("goahed", Kind::Do), ("do itt", Kind::Do), ("doit", Kind::Do),
    // Verbs that carry out whatever was proposed; actions' verbs come from the proposal's commands.
    ("run", Kind::Verb), ("apply", Kind::Verb), ("carry out", Kind::Verb), ("retry", Kind::Verb),
    // What they act on.
    ("it", Kind::Object), ("that", Kind::Object), ("this", Kind::Object), ("them", Kind::Object),
    ("those", Kind::Object), ("these", Kind::Object), ("all", Kind::All), ("all of it", Kind::All),
    ("all of them", Kind::Object), ("them all", Kind::Object), ("both", Kind::Object), ("both of them", Kind::Object),
    ("everything", Kind::All), ("the plan", Kind::Plan),
    ("the whole plan", Kind::Plan), ("this plan", Kind::Plan), ("that plan", Kind::Plan),
    ("the steps", Kind::Plan), ("these steps", Kind::Plan), ("all steps", Kind::Plan),
    ("all the steps", Kind::Plan), ("both steps", Kind::Plan), ("the whole thing", Kind::Plan), ("all of the steps", Kind::Plan), ("the step", Kind::Part),
    ("this step", Kind::Part), ("the next step", Kind::Part), ("the remaining steps", Kind::Plan),
    ("the rest", Kind::Plan), ("the rest of it", Kind::Plan), ("the rest of the steps", Kind::Plan),
    ("the rest of the plan", Kind::Plan), ("the change", Kind::Part), ("the changes", Kind::Plan),
    ("this change", Kind::Part), ("these changes", Kind::Plan), ("the fix", Kind::Part),
    ("the update", Kind::Part), ("the updates", Kind::Plan), ("the upgrade", Kind::Part),
    ("the upgrades", Kind::Plan),
    // Timing that means at once.
    ("now", Kind::Now), ("right now", Kind::Now), ("right away", Kind::Now), ("asap", Kind::Now),
    ("immediately", Kind::Now),
    ("just", Kind::Just),
    // Politeness and filler.
    ("please", Kind::Filler), ("pls", Kind::Filler), ("plz", Kind::Filler), ("thanks", Kind::Filler),
    ("thank you", Kind::Filler), ("thanks a lot", Kind::Filler), ("many thanks", Kind::Filler),
    ("thx", Kind::Filler), ("ty", Kind::Filler), ("tysm", Kind::Filler), ("tyvm", Kind::Filler), ("ta", Kind::Filler),
    ("cheers", Kind::Filler), ("and", Kind::Link), ("so", Kind::Link), ("and then", Kind::Link), ("so then", Kind::Link),
    ("and also", Kind::Link), ("then", Kind::Filler),
    ("great", Kind::Filler), ("perfect", Kind::Filler), ("cool", Kind::Filler), ("nice", Kind::Filler),
    ("awesome", Kind::Filler), ("excellent", Kind::Filler), ("good", Kind::Filler), ("fine", Kind::Filler),
    ("hi", Kind::Filler), ("hey", Kind::Filler), ("hello", Kind::Filler), ("sir", Kind::Filler),
    ("as planned", Kind::Filler), ("as proposed", Kind::Filler), ("as suggested", Kind::Filler),
    ("as described", Kind::Filler), ("as discussed", Kind::Filler), ("nomos", Kind::Vocative),
];

/// Words that may stand before a step's own target in a reply ("yes, for caddy").
pub(super) const TARGET_PREPOSITIONS: &[&str] = &["on", "for"];

/// Verbs of refusal, recognised in every inflection ("stopping", "cancelled", "denied", "held"):
/// a reply that reports or announces one refuses as the bare verb does.
#[rustfmt::skip]
const REFUSAL_VERBS: &[&str] = &[
    "stop", "wait", "cancel", "abort", "halt", "hold", "pause", "skip", "refuse", "deny", "reject", "veto", "revert",
    "undo", "forget", "leave", "scratch", "check", "explain", "postpone", "delay", "defer", "decline", "reconsider",
    "object", "block", "freeze", "rethink", "suspend", "withdraw", "retract", "revoke", "hesitate", "doubt",
    "worry", "disagree", "disapprove", "forbid", "prohibit", "prevent", "interrupt", "terminate", "drop",
];

/// Irregular forms of the refusal verbs.
const REFUSAL_FORMS: &[&str] = &[
    "held",
    "left",
    "forgot",
    "forgotten",
    "undid",
    "undone",
    "withdrew",
    "withdrawn",
    "froze",
    "frozen",
    "forbade",
    "forbidden",
];

/// Whether `word` is a refusal verb in some inflection: `-s`, `-es`, `-ed`, `-ing`, `-er`, with
/// the final consonant doubled or an `e` or `y` restored (`stopping`, `pausing`, `denied`).
pub(super) fn refuses(word: &str) -> bool {
    if REFUSAL_VERBS.contains(&word) || REFUSAL_FORMS.contains(&word) {
        return true;
    }
    let mut stems: Vec<String> = Vec::new();
    for (suffix, restore) in
        [("ies", "y"), ("ied", "y"), ("ying", "y"), ("ing", ""), ("ed", ""), ("es", ""), ("s", ""), ("er", "")]
    {
        if let Some(stem) = word.strip_suffix(suffix).filter(|s| s.chars().count() >= 2) {
            stems.push(format!("{stem}{restore}"));
            stems.push(format!("{stem}e"));
            let mut chars: Vec<char> = stem.chars().collect();
            if chars.len() >= 2 && chars.last() == chars.get(chars.len() - 2) {
                chars.pop();
                stems.push(chars.into_iter().collect());
            }
        }
    }
    stems.iter().any(|s| REFUSAL_VERBS.contains(&s.as_str()))
}
