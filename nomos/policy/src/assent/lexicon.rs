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
    /// A verb of the plan ("restart", "apply"): no consent by itself.
    Verb,
    /// What a verb or an order acts on ("it", "the plan", "the remaining steps").
    Object,
    /// Timing that means at once; only next to an order, a verb or its object.
    Now,
    /// "just": only right before an order or a verb ("just do it"); before an object it narrows the
    /// plan ("just the next step").
    Just,
    /// Words that lead on to more ("and", "so"): never last, where what they led to is missing.
    Link,
    /// Politeness and filler.
    Filler,
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
    // Orders to go ahead.
    ("go", Kind::Do), ("go ahead", Kind::Do), ("goahead", Kind::Do), ("go-ahead", Kind::Do), ("go on", Kind::Do),
    ("go for it", Kind::Do), ("go ahead with", Kind::DoWith), ("proceed", Kind::Do), ("proceed with", Kind::DoWith),
    ("continue", Kind::Do), ("continue with", Kind::DoWith), ("carry on", Kind::Do), ("carry on with", Kind::DoWith),
    ("do it", Kind::Do), ("do that", Kind::Do), ("do this", Kind::Do), ("do so", Kind::Do), ("do them", Kind::Do),
    ("do all", Kind::Do), ("do everything", Kind::Do), ("please do", Kind::Do), ("make it so", Kind::Do),
    ("run it", Kind::Do), ("run that", Kind::Do), ("execute", Kind::Do), ("execute it", Kind::Do),
    ("ship it", Kind::Do), ("send it", Kind::Do), ("approve", Kind::Do), ("i approve", Kind::Do),
    ("confirm", Kind::Do), ("i confirm", Kind::Do), ("let's do it", Kind::Do), ("lets do it", Kind::Do),
    ("let's go", Kind::Do), ("lets go", Kind::Do), ("let's proceed", Kind::Do), ("lets proceed", Kind::Do),
    ("you may proceed", Kind::Do), ("you can proceed", Kind::Do), ("you may go ahead", Kind::Do),
    ("you can go ahead", Kind::Do), ("feel free", Kind::Do),
    // Verbs of a plan.
    ("restart", Kind::Verb), ("reboot", Kind::Verb), ("start", Kind::Verb), ("apply", Kind::Verb),
    ("update", Kind::Verb), ("upgrade", Kind::Verb), ("install", Kind::Verb), ("run", Kind::Verb),
    ("deploy", Kind::Verb), ("fix", Kind::Verb), ("migrate", Kind::Verb), ("move", Kind::Verb),
    ("snapshot", Kind::Verb), ("backup", Kind::Verb), ("delete", Kind::Verb), ("remove", Kind::Verb),
    ("destroy", Kind::Verb), ("clean up", Kind::Verb), ("renew", Kind::Verb), ("reload", Kind::Verb),
    ("enable", Kind::Verb), ("disable", Kind::Verb), ("create", Kind::Verb), ("add", Kind::Verb),
    ("resize", Kind::Verb), ("retry", Kind::Verb), ("launch", Kind::Verb), ("rebuild", Kind::Verb),
    ("carry out", Kind::Verb),
    // What they act on.
    ("it", Kind::Object), ("that", Kind::Object), ("this", Kind::Object), ("them", Kind::Object),
    ("those", Kind::Object), ("these", Kind::Object), ("all", Kind::Object), ("all of it", Kind::Object),
    ("all of them", Kind::Object), ("everything", Kind::Object), ("the plan", Kind::Object),
    ("the whole plan", Kind::Object), ("this plan", Kind::Object), ("that plan", Kind::Object),
    ("the steps", Kind::Object), ("these steps", Kind::Object), ("all steps", Kind::Object),
    ("all the steps", Kind::Object), ("all of the steps", Kind::Object), ("the step", Kind::Object),
    ("this step", Kind::Object), ("the next step", Kind::Object), ("the remaining steps", Kind::Object),
    ("the rest", Kind::Object), ("the rest of it", Kind::Object), ("the rest of the steps", Kind::Object),
    ("the rest of the plan", Kind::Object), ("the change", Kind::Object), ("the changes", Kind::Object),
    ("this change", Kind::Object), ("these changes", Kind::Object), ("the fix", Kind::Object),
    ("the update", Kind::Object), ("the updates", Kind::Object), ("the upgrade", Kind::Object),
    ("the upgrades", Kind::Object),
    // Timing that means at once.
    ("now", Kind::Now), ("right now", Kind::Now), ("right away", Kind::Now), ("asap", Kind::Now),
    ("immediately", Kind::Now),
    ("just", Kind::Just),
    // Politeness and filler.
    ("please", Kind::Filler), ("pls", Kind::Filler), ("plz", Kind::Filler), ("thanks", Kind::Filler),
    ("thank you", Kind::Filler), ("thanks a lot", Kind::Filler), ("many thanks", Kind::Filler),
    ("thx", Kind::Filler), ("ty", Kind::Filler), ("tysm", Kind::Filler), ("tyvm", Kind::Filler),
    ("cheers", Kind::Filler), ("and", Kind::Link), ("so", Kind::Link), ("then", Kind::Filler),
    ("great", Kind::Filler), ("perfect", Kind::Filler), ("cool", Kind::Filler), ("nice", Kind::Filler),
    ("awesome", Kind::Filler), ("excellent", Kind::Filler), ("good", Kind::Filler), ("fine", Kind::Filler),
    ("hi", Kind::Filler), ("hey", Kind::Filler), ("hello", Kind::Filler), ("sir", Kind::Filler),
    ("as planned", Kind::Filler), ("as proposed", Kind::Filler), ("as suggested", Kind::Filler),
    ("as described", Kind::Filler), ("as discussed", Kind::Filler),
];

/// Words that may stand before a step's own target in a reply ("yes, for caddy").
pub(super) const TARGET_PREPOSITIONS: &[&str] = &["on", "for"];

/// The verbs a typed confirmation may carry, each with the spellings accepted for it (the verb, and
/// its -ing form where that is one word). A command's verbs are those of this list it names.
#[rustfmt::skip]
pub(super) const CONFIRM_VERBS: &[&[&str]] = &[
    &["destroy", "destroying"], &["delete", "deleting"], &["remove", "removing"], &["wipe", "wiping"],
    &["purge", "purging"], &["erase", "erasing"], &["format", "formatting"], &["overwrite", "overwriting"],
    &["reset", "resetting"], &["rollback"], &["restore", "restoring"], &["stop", "stopping"],
    &["shutdown"], &["poweroff"], &["halt", "halting"], &["reboot", "rebooting"], &["restart", "restarting"],
    &["kill", "killing"], &["drop", "dropping"], &["uninstall", "uninstalling"], &["disable", "disabling"],
    &["mask", "masking"], &["truncate", "truncating"], &["migrate", "migrating"],
];

/// Words that are no name of a target when a message is judged without one: pronouns, articles,
/// and words that say when or how much.
#[rustfmt::skip]
pub(super) const NOT_A_NAME: &[&str] = &[
    "i", "me", "my", "you", "your", "we", "us", "our", "they", "them", "their", "he", "him", "his", "she", "her",
    "it", "its", "it's", "that", "this", "these", "those", "the", "a", "an", "all", "any", "anything",
    "everything", "something", "here", "there", "now", "today", "again", "everyone", "receipt", "pending",
];
