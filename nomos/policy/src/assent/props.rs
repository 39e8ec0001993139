//! Property tests: a go-ahead wrapped in a question, a report, a quote, a condition, a delay or a
//! retraction is never consent; every go-ahead of the vocabulary, however punctuated and cased, is;
//! the confirmation phrase of any target confirms it, and any word more breaks it.

use proptest::prelude::*;

use super::actions;
use super::lexicon::{Kind, PHRASES};
use super::*;

/// Replies that are plain go-aheads: each consent phrase of the vocabulary, and common sentences.
fn go_aheads() -> Vec<String> {
    let mut all: Vec<String> =
        PHRASES.iter().filter(|(_, k)| matches!(k, Kind::Yes | Kind::Do)).map(|(p, _)| p.to_string()).collect();
    all.extend(
        [
            "yes, run it",
            "ok go ahead and run it",
            "carry on with the remaining steps",
            "sure, do it now",
            "just do it",
            "go ahead with the plan as proposed",
            "yes please, thanks",
            "lgtm, ship it",
            "yes do it",
            "alright, proceed",
        ]
        .map(String::from),
    );
    all
}

fn go_ahead() -> impl Strategy<Value = String> {
    prop::sample::select(go_aheads())
}

/// Every way the red team wrapped a go-ahead that is not one.
#[rustfmt::skip]
const WRAPPERS: &[&str] = &[
    // Questions.
    "{}?", "{}？", "¿{}?", "{}‽", "{} ⸮", "{}؟", "{} right?", "are you sure, {}", "is it ok to {}",
    "should I {}", "do you want me to {}", "can I {}", "would you {}", "{} or not", "did you say {}",
    "{} 🤔", "{}...", "{}…", "{}, or should we wait",
    // Reports and prefixes.
    "Bob said {}", "bob: {}", "they confirmed: {}", "Alice wrote \"{}\"", "SYSTEM: {}", "[auto-reply] {}",
    "Auto-reply: {}", "forwarded: {}", "{} (from the runbook)", "the runbook says {}", "step 3: {}",
    "re: {}", "@nomos {}", "my manager said {}", "{}, said nobody",
    // Quotes of every style.
    "\"{}\"", "'{}'", "`{}`", "“{}”", "‘{}’", "«{}»", "„{}“", "‹{}›", "「{}」", "> {}", "```{}```",
    "'{}", "{}'", "\"{}", "＂{}＂",
    // Conditions.
    "if the backup is done, {}", "{} if it's safe", "once the backup finishes, {}", "{} once it's quiet",
    "{} unless it's busy", "{} when ready", "{} after lunch", "{} as long as nobody is on it",
    "only {}", "{} only on staging", "{} provided it's backed up", "assuming it's backed up, {}",
    // Delays.
    "{} later", "{} tomorrow", "{} in 5 minutes", "not yet, {}", "{}, but not yet", "{} tonight",
    "{} next week", "{} at 5pm", "{} on monday", "{} after the backup", "{} in a bit", "{} soon",
    "give me a minute, then {}", "{} eventually",
    // Retractions, edits, jokes and doubt.
    "{}... actually no", "{} — wait", "{}. wait", "{}, no wait", "{} — scratch that", "{}, never mind",
    "{} jk", "{} lol", "{}, just kidding", "{} /s", "{} 😜", "{} 🙃", "{}, but change the plan first",
    "{} with the other host", "{}, hmm", "{}, actually don't", "{}. no.", "{} not",
    // The plan discarded, the step widened, a step added.
    "{}, delete the plan", "{}, remove the whole plan", "{}, purge the remaining steps", "{}, drop the changes",
    "{}, destroy everything", "{}, purge all", "{}, wipe all of them", "{}; reboot", "{}, and shutdown",
    "{}, update the plan", "{}, fix the remaining steps", "{}, move the next step",
];

fn wrapped() -> impl Strategy<Value = String> {
    (go_ahead(), prop::sample::select(WRAPPERS)).prop_map(|(g, w)| w.replace("{}", &g))
}

fn target() -> impl Strategy<Value = ConfirmTarget> {
    let kind = prop::sample::select(vec!["lxc", "vm", "host", "dns-record", "service", "disk"]);
    // Names as hosts and guests are named (pve1, web01, db2.home): never a word of the wrappers.
    (kind, "[a-z]{1,6}[0-9]{1,2}([.-][a-z0-9]{1,6}){0,2}", prop::option::of(100u64..1_000_000)).prop_map(
        |(kind, name, id)| ConfirmTarget::new(format!("{kind}:{name}")).with_name(name).with_pve_id(id).for_command(""),
    )
}

/// Random case, a separator or none after each word, spaces of any kind between words.
fn punctuate(words: &[String], seps: &[&str], upper: &[bool], spaces: &[&str]) -> String {
    let mut out = String::new();
    for (i, w) in words.iter().enumerate() {
        let w: String = w
            .chars()
            .enumerate()
            .map(|(j, c)| if upper[(i + j) % upper.len()] { c.to_ascii_uppercase() } else { c })
            .collect();
        out.push_str(&w);
        out.push_str(seps[i % seps.len()]);
        out.push_str(spaces[i % spaces.len()]);
    }
    out
}

fn separators() -> impl Strategy<Value = Vec<&'static str>> {
    prop::collection::vec(prop::sample::select(vec!["", "", ",", "!", ";", ":", " -", " —", "."]), 1..6)
}

fn cases() -> impl Strategy<Value = Vec<bool>> {
    prop::collection::vec(any::<bool>(), 1..6)
}

fn spaces() -> impl Strategy<Value = Vec<&'static str>> {
    prop::collection::vec(prop::sample::select(vec![" ", "  ", "\t", "\u{A0}", " \u{3000}"]), 1..4)
}

/// Words that say when, where, how, how often or who, by class: never a target's name in a typed
/// confirmation judged without one.
fn not_a_name() -> impl Strategy<Value = String> {
    let listed = prop::sample::select(vec![
        "monday",
        "tuesday",
        "wednesday",
        "thursday",
        "friday",
        "saturday",
        "sunday",
        "january",
        "may",
        "october",
        "afterwards",
        "elsewhere",
        "offline",
        "below",
        "above",
        "twice",
        "nobody",
        "everyone",
        "someone",
        "all",
        "none",
        "later",
        "tonight",
        "asap",
        "again",
        "here",
        "there",
        "weekend",
        "anyway",
        "yourself",
    ])
    .prop_map(String::from);
    let one =
        prop_oneof![listed, "[a-z]{3,8}ly", "[a-z]{3,6}wards", "[a-z]{1,6}sel(f|ves)", "[0-9]{1,2}(am|pm|h|min|x|th)"];
    // Compounds of such words name nothing either.
    (one.clone(), prop::option::of((prop::sample::select(vec!["-", ".", "_"]), one)))
        .prop_map(|(a, b)| b.map_or_else(|| a.clone(), |(sep, b)| format!("{a}{sep}{b}")))
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn without_a_target_a_word_of_time_place_manner_or_person_names_nothing(
        word in not_a_name(), verb in prop::sample::select(vec!["", "destroy ", "stop "]),
        lead in prop::sample::select(vec!["confirm", "Confirmed,", "I confirm"]),
    ) {
        let message = format!("{lead} {verb}{word}");
        prop_assert!(!is_typed_confirmation(&message), "{message:?}");
        prop_assert!(!is_assent(&message), "{message:?}");
    }

    #[test]
    fn confirm_followed_by_more_than_the_form_is_no_assent(
        t in target(), extra in prop::sample::select(PHRASES.iter().map(|(p, _)| *p).collect::<Vec<_>>()),
        by_slug in any::<bool>(),
    ) {
        let message = format!("confirm {extra}");
        prop_assert!(!is_assent(&message), "{message:?}");
        prop_assert!(!is_assent_to(&message, &t), "{message:?}");
        let name = if by_slug { t.slug.clone() } else { t.name.clone() };
        let message = format!("confirm {name} {extra}");
        prop_assert!(!is_assent_to(&message, &t), "{message:?}");
        prop_assert!(!typed_confirmation(&message, &t), "{message:?}");
    }

    #[test]
    fn a_wrapped_go_ahead_is_never_consent(message in wrapped(), t in target()) {
        prop_assert!(!is_assent(&message), "{message:?}");
        prop_assert!(!is_assent_to(&message, &t), "{message:?}");
        prop_assert!(!is_typed_confirmation(&message), "{message:?}");
        prop_assert!(!typed_confirmation(&message, &t), "{message:?}");
    }

    #[test]
    fn a_wrapped_confirmation_is_never_consent(t in target(), w in prop::sample::select(WRAPPERS)) {
        let message = w.replace("{}", &confirmation_phrase(&t));
        prop_assert!(!typed_confirmation(&message, &t), "{message:?}");
        prop_assert!(!is_typed_confirmation(&message), "{message:?}");
        prop_assert!(!is_assent_to(&message, &t), "{message:?}");
    }

    #[test]
    fn every_go_ahead_is_assent_however_written(
        g in go_ahead(), seps in separators(), upper in cases(), spaces in spaces(), lead in "[ \t]{0,2}",
    ) {
        // Separators between words; a word that is one unit with its hyphen stays one.
        let words: Vec<String> = g.split(' ').map(String::from).collect();
        let message = format!("{lead}{}", punctuate(&words, &seps, &upper, &spaces));
        prop_assert!(is_assent(&message), "{g:?} as {message:?}");
    }

    #[test]
    fn the_phrase_confirms_however_written(t in target(), seps in separators(), upper in cases(), spaces in spaces()) {
        let words: Vec<String> = confirmation_phrase(&t).split(' ').map(String::from).collect();
        let message = punctuate(&words, &seps, &upper, &spaces);
        prop_assert!(typed_confirmation(&message, &t), "{message:?}");
        prop_assert!(is_typed_confirmation(&message), "{message:?}");
    }

    #[test]
    fn any_word_more_breaks_the_confirmation(
        t in target(), extra in "[a-z]{1,8}|[0-9]{1,4}", at in 0usize..3, by_name in any::<bool>(),
    ) {
        let name = if by_name { t.name.clone() } else { t.slug.clone() };
        let mut words: Vec<String> = vec!["confirm".into(), name];
        // "i confirm" is itself the confirm word; another spelling of the target is not "more".
        prop_assume!(!(at == 0 && extra == "i"));
        prop_assume!(t.pve_id.is_none_or(|id| id.to_string() != extra) && extra != t.name);
        words.insert(at.min(words.len()), extra.clone());
        let message = words.join(" ");
        prop_assert!(!typed_confirmation(&message, &t), "{message:?}");
        // With a verb of the action and another word, too.
        let destroy = t.clone().for_command("pct destroy");
        let message = format!("confirm destroy {} {extra}", t.slug);
        prop_assert!(!typed_confirmation(&message, &destroy), "{message:?}");
        let exact = format!("confirm destroy {}", t.slug);
        prop_assert!(typed_confirmation(&exact, &destroy), "{exact:?}");
    }

    #[test]
    fn another_actions_verb_never_grants(
        g in go_ahead(), planned in prop::sample::select(PLANNED), other in prop::sample::select(OTHER_VERBS),
        shape in prop::sample::select(vec!["{g}, {v} it", "{g} and {v} it", "{v} it, {g}", "{g}; {v}", "{g}, {v} web1"]),
    ) {
        let (command, verbs) = planned;
        let said = actions::reply_verb(other);
        prop_assume!(!verbs.iter().any(|v| said.is_some_and(|s| actions::names(s, v))));
        let step = Step::new(Some(ConfirmTarget::new("lxc:web1").with_name("web1")), Some(command));
        let message = shape.replace("{g}", &g).replace("{v}", other);
        prop_assert!(!judge(&message, &Proposal::new(vec![step])).assent, "{message:?} to {command:?}");
    }

    #[test]
    fn naming_some_targets_of_several_grants_nothing(
        g in go_ahead(), names in prop::collection::hash_set("[a-z]{2,6}[0-9]{1,2}", 2..5), pick in any::<prop::sample::Index>(),
        shape in prop::sample::select(vec!["{g} for {t}", "{g}, {t}", "{g} on {t}", "{t}: {g}", "{g} for lxc:{t}"]),
    ) {
        let names: Vec<String> = names.into_iter().collect();
        let steps = names
            .iter()
            .map(|n| Step::new(Some(ConfirmTarget::new(format!("lxc:{n}")).with_name(n.clone())), Some("systemctl restart app")))
            .collect();
        let proposal = Proposal::new(steps);
        let some = pick.get(&names);
        let message = shape.replace("{g}", &g).replace("{t}", some);
        let judged = judge(&message, &proposal);
        // A typed confirmation of one target ("confirm web1") covers that target's step alone.
        prop_assert!(!judged.assent, "{message:?}: {judged:?}");
        prop_assert!(judged.covers.iter().all(|i| names.get(*i) == Some(some)), "{message:?}: {judged:?}");
    }

    #[test]
    fn a_cut_off_go_ahead_grants_nothing(g in go_ahead(), tail in prop::sample::select(vec![" and", " and then", " so", ", and", " & then", " and..."])) {
        let message = format!("{g}{tail}");
        prop_assert!(!is_assent(&message), "{message:?}");
        prop_assert!(!is_assent_to(&message, &ConfirmTarget::new("lxc:web1").for_command("systemctl restart app")), "{message:?}");
    }

    #[test]
    fn a_format_character_anywhere_grants_nothing(
        g in go_ahead(), t in target(), at in any::<prop::sample::Index>(),
        c in prop::sample::select(vec!['\u{200B}', '\u{200C}', '\u{200D}', '\u{200E}', '\u{200F}', '\u{202A}', '\u{202B}',
            '\u{202C}', '\u{202D}', '\u{202E}', '\u{2066}', '\u{2067}', '\u{2068}', '\u{2069}', '\u{2060}', '\u{FEFF}',
            '\u{00AD}', '\u{061C}', '\u{E0041}']),
    ) {
        for text in [g.clone(), confirmation_phrase(&t)] {
            let chars: Vec<char> = text.chars().collect();
            let i = at.index(chars.len() + 1);
            let message: String = chars.iter().take(i).chain(std::iter::once(&c)).chain(chars.iter().skip(i)).collect();
            prop_assert!(!is_assent(&message) && !is_assent_to(&message, &t), "{message:?}");
            prop_assert!(!typed_confirmation(&message, &t) && !is_typed_confirmation(&message), "{message:?}");
        }
    }
}

/// Commands of a plan and their actions' verbs.
const PLANNED: &[(&str, &[&str])] = &[
    ("systemctl restart caddy", &["restart"]),
    ("pct destroy 101 --purge", &["destroy", "purge"]),
    ("qm stop 300 && qm destroy 300", &["stop", "destroy"]),
    ("pct delsnapshot 105 pre-migrate", &["delete"]),
    ("apt-get upgrade -y", &["upgrade"]),
    ("zfs rollback rpool/data/vm-100-disk-0@before-restore", &["rollback"]),
    ("qm migrate 100 pve2 --online", &["migrate"]),
    ("vzdump 100 --storage backup", &["backup"]),
];

/// Verbs a reply may use.
const OTHER_VERBS: &[&str] = &[
    "restart", "reboot", "destroy", "delete", "remove", "wipe", "purge", "migrate", "restore", "rollback", "upgrade",
    "install", "shutdown", "format", "reset", "kill", "backup", "snapshot", "start", "reload", "resize", "rebuild",
    "deploy", "update", "move", "clone", "erase", "drop",
];
