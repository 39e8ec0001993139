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
    /// What a verb or an order acts on, by pronoun ("it", "them").
    Object,
    /// The plan itself or its parts ("the plan", "the remaining steps"): a verb that discards
    /// ([`CONFIRM_VERBS`], "clean up") cancels the plan rather than approving it.
    Plan,
    /// Everything ("all", "everything"): after an order it is every step ("do all"); after a verb
    /// it widens the step's scope ("destroy everything").
    All,
    /// Timing that means at once; only next to an order, a verb or its object.
    Now,
    /// "just": only right before an order or a verb ("just do it"); before an object it narrows the
    /// plan ("just the next step").
    Just,
    /// Words that lead on to more ("and", "so"): never last, where what they led to is missing.
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
    ("proced", Kind::Do), ("procede", Kind::Do), ("procced", Kind::Do), ("go ahed", Kind::Do),
    ("go ahaed", Kind::Do), ("go ahea", Kind::Do), ("goahed", Kind::Do), ("do itt", Kind::Do), ("doit", Kind::Do),
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
    ("those", Kind::Object), ("these", Kind::Object), ("all", Kind::All), ("all of it", Kind::All),
    ("all of them", Kind::All), ("everything", Kind::All), ("the plan", Kind::Plan),
    ("the whole plan", Kind::Plan), ("this plan", Kind::Plan), ("that plan", Kind::Plan),
    ("the steps", Kind::Plan), ("these steps", Kind::Plan), ("all steps", Kind::Plan),
    ("all the steps", Kind::Plan), ("all of the steps", Kind::Plan), ("the step", Kind::Plan),
    ("this step", Kind::Plan), ("the next step", Kind::Plan), ("the remaining steps", Kind::Plan),
    ("the rest", Kind::Plan), ("the rest of it", Kind::Plan), ("the rest of the steps", Kind::Plan),
    ("the rest of the plan", Kind::Plan), ("the change", Kind::Plan), ("the changes", Kind::Plan),
    ("this change", Kind::Plan), ("these changes", Kind::Plan), ("the fix", Kind::Plan),
    ("the update", Kind::Plan), ("the updates", Kind::Plan), ("the upgrade", Kind::Plan),
    ("the upgrades", Kind::Plan),
    // Timing that means at once.
    ("now", Kind::Now), ("right now", Kind::Now), ("right away", Kind::Now), ("asap", Kind::Now),
    ("immediately", Kind::Now),
    ("just", Kind::Just),
    // Politeness and filler.
    ("please", Kind::Filler), ("pls", Kind::Filler), ("plz", Kind::Filler), ("thanks", Kind::Filler),
    ("thank you", Kind::Filler), ("thanks a lot", Kind::Filler), ("many thanks", Kind::Filler),
    ("thx", Kind::Filler), ("ty", Kind::Filler), ("tysm", Kind::Filler), ("tyvm", Kind::Filler), ("ta", Kind::Filler),
    ("cheers", Kind::Filler), ("and", Kind::Link), ("so", Kind::Link), ("then", Kind::Filler),
    ("great", Kind::Filler), ("perfect", Kind::Filler), ("cool", Kind::Filler), ("nice", Kind::Filler),
    ("awesome", Kind::Filler), ("excellent", Kind::Filler), ("good", Kind::Filler), ("fine", Kind::Filler),
    ("hi", Kind::Filler), ("hey", Kind::Filler), ("hello", Kind::Filler), ("sir", Kind::Filler),
    ("as planned", Kind::Filler), ("as proposed", Kind::Filler), ("as suggested", Kind::Filler),
    ("as described", Kind::Filler), ("as discussed", Kind::Filler), ("nomos", Kind::Vocative),
];

/// The verbs of the vocabulary that carry a plan out: the only ones that approve it when they act on
/// the plan or its parts ("apply the changes", "run the remaining steps"). Any other verb there
/// edits or discards it ("update the plan", "delete the plan", "move the next step").
pub(super) const CARRY_OUT: &[&str] = &["apply", "run", "start", "launch", "deploy", "install", "retry", "carry out"];

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

/// Words that are no name of a target when a message is judged without one: pronouns (personal,
/// reflexive, indefinite and negative), articles and quantifiers, and words that say when, where,
/// how or how often. Whole classes are refused by shape too (see `confirm::could_be_a_name`):
/// adverbs in -ly, -wards and -wise, reflexives in -self and -selves, times and counts (`5pm`,
/// `2x`, `1st`).
#[rustfmt::skip]
pub(super) const NOT_A_NAME: &[&str] = &[
    // Pronouns, articles and quantifiers.
    "i", "me", "my", "mine", "you", "your", "yours", "u", "ur", "we", "us", "our", "ours", "they", "them", "their",
    "theirs", "he", "him", "his", "she", "her", "hers", "it", "its", "it's", "that", "this", "these", "those",
    "the", "a", "an", "all", "any", "anything", "everything", "something", "nothing", "each", "every", "both",
    "either", "neither", "some", "most", "many", "much", "few", "several", "whole", "rest", "other", "others",
    "another", "same", "such", "one", "ones", "everyone", "everybody", "someone", "somebody", "anyone", "anybody",
    "nobody", "noone", "no-one", "whoever", "whatever", "oneself", "thyself", "yall", "y'all", "folks", "team",
    "else", "boss", "manager", "mgmt", "management", "supervisor", "colleague", "colleagues", "coworker", "oncall",
    "on-call",
    // Where: directions and pointers to other text.
    "here", "there", "elsewhere", "everywhere", "somewhere", "anywhere", "nowhere", "below", "above", "up",
    "down", "left", "right", "ahead", "behind", "inside", "outside", "upstairs", "downstairs", "over", "under",
    "beneath", "beside", "nearby", "away", "abroad", "home", "offline", "online", "onsite", "offsite", "remote",
    "remotely", "locally", "in-person", "in-line", "inline", "attached", "thread", "channel", "chat", "email",
    "mail", "ticket", "phone", "call", "slack", "irc", "dm", "pm", "sms", "text", "verbal", "written", "writing",
    "in-writing",
    // When and how often.
    "now", "today", "tonight", "tomorrow", "yesterday", "again", "already", "still", "then", "soon", "soonish",
    "earlier", "afterward", "afterwards", "later", "next", "last", "first", "second", "third", "final", "finally",
    "once", "twice", "thrice", "always", "often", "forever", "thereafter", "hereafter", "overnight", "meantime",
    "anyhow", "somehow", "upon", "sometimes", "anytime", "anyway", "anyways", "too", "also",
    "as", "well", "asap", "eod", "eow", "eom", "cob", "eta", "tbd", "tba", "morning", "afternoon", "evening",
    "night", "midnight", "noon", "midday", "weekend", "weekday", "week", "month", "year", "hour", "minute",
    "moment", "mon", "tue", "tues", "wed", "thu", "thur", "thurs", "fri", "sat", "sun", "monday", "tuesday",
    "wednesday", "thursday", "friday", "saturday", "sunday", "jan", "feb", "mar", "apr", "jun", "jul", "aug",
    "sep", "sept", "oct", "nov", "dec", "january", "february", "march", "april", "may", "june", "july",
    "august", "september", "october", "november", "december", "2day", "2moro", "2morrow", "2nite", "b4",
    // How: manner, speed, and what is asked of whom.
    "fast", "quick", "slow", "hard", "soft", "properly", "manual", "automatic", "auto", "alone", "together",
    "personally", "individually", "directly", "first-hand", "pls", "plz", "please", "thanks", "thx",
    "ty", "receipt", "pending", "done", "received", "seen", "read", "noted", "ack", "ok", "okay", "yes",
    // Prepositions and conjunctions.
    "of", "in", "on", "at", "by", "for", "from", "with", "via", "per", "into", "onto", "to", "or", "nor", "and",
    "so", "than", "off", "out", "about", "around", "across", "through", "during", "within", "end", "day",
    "days", "weeks", "hours", "minutes", "mins", "secs",
    // Modal and auxiliary verbs.
    "will", "would", "shall", "should", "can", "could", "might", "must", "did", "do", "does", "am",
    "is", "are", "was", "were", "be", "been", "have", "has", "had",
];
