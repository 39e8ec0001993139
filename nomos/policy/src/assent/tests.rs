use super::*;

fn caddy() -> ConfirmTarget {
    ConfirmTarget::new("lxc:caddy").with_name("caddy").with_pve_id(Some(101))
}

fn scratch() -> ConfirmTarget {
    ConfirmTarget::new("lxc:scratch")
        .with_name("scratch")
        .with_pve_id(Some(131))
        .for_command("wipefs -a /dev/pve/scratch")
}

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
/// Found in review: questions, conditions, postponements and apostrophe-less negatives read as
/// assent; they must not.
#[test]
fn questions_conditions_and_loose_negatives_are_not_assent() {
    for m in [
        "are you sure?",
        "is it ok to run this?",
        "should I approve this?",
        "yes?",
        "ok, let me check with my team first",
        "yes, but first take a snapshot",
        "Noooo, go back!",
        "pause, then continue tomorrow",
        "sure, explain it first",
        "I wont approve this",
        "don´t proceed",
        "don′t proceed",
        "donʼt proceed",
        "ok nein",
        "yes if the backup finished",
    ] {
        assert!(!is_assent(m), "{m:?}");
    }
    for m in [
        "can you confirm what this deletes first?",
        "Could you confirm which container that is?",
        "confirm?",
        "I'll confirm later",
        "I cant confirm that yet",
        "i havent confirmed anything",
    ] {
        assert!(!is_typed_confirmation(m), "{m:?}");
    }
    assert!(is_assent("yesss, go ahead"));
}

/// Found in a second review: anything beyond the assent vocabulary makes a message ambiguous,
/// and a confirmation asked for or reported is not one given.
#[test]
fn unknown_words_and_second_hand_confirmations_are_not_consent() {
    for m in [
        "yes, on gitea",
        "yes for the other container",
        "ok, I'd like to see the diff",
        "nvm",
        "hang on",
        "one sec",
        "brb",
        "scratch that",
        "forget it",
        "on second thought, go",
        "leave it",
        "do'nt proceed",
        "terrible idea, go ahead",
        "go ahead with nothing",
        "sure, when the backup is done",
        "yes only the first step",
        "yeah, I'd rather not",
    ] {
        assert!(!is_assent(m), "{m:?}");
    }
    assert!(!is_assent("yes, restart it"), "no action is known without a proposal");
    assert!(is_assent_to("yes, restart it", &caddy().for_command("systemctl restart caddy")));
    for m in ["ok, go ahead and apply the plan", "Sounds good, thanks!", "lgtm, ship it", "approved", "yes please"] {
        assert!(is_assent(m), "{m:?}");
    }
    for m in [
        "you need to confirm the target",
        "please confirm the vmid",
        "I will confirm after lunch",
        "the backup is confirmed",
        "that was confirmed yesterday",
        "has this been confirmed",
        "I'll confirm",
        // A confirmation is a form now: words beyond it ("in strong") make it no confirmation.
        "I confirm destroy 135 in strong",
    ] {
        assert!(!is_typed_confirmation(m), "{m:?}");
    }
    assert!(is_typed_confirmation("I confirm destroy 135"));
    assert!(is_typed_confirmation("confirmed, destroy lxc:caddy"));
}

#[test]
fn bare_not_negates() {
    assert!(!is_assent("go ahead, this is not risky"));
}

/// Continuing a plan already under way is a plain go-ahead.
#[test]
fn carrying_on_is_assent() {
    for m in ["carry on with the remaining steps", "carry on with the rest of the steps", "continue with the next step"]
    {
        assert!(is_assent(m), "{m:?}");
    }
    for m in ["carry on with the remaining steps tomorrow", "carry on with the remaining steps?", "don't carry on"] {
        assert!(!is_assent(m), "{m:?}");
    }
}

/// The decision on reassurances: a go-ahead that carries a reassurance with a negation in it is
/// not assent (Nomos asks again). Words alone cannot tell "nothing here is dangerous" from
/// "nothing else" or "not this one", and asking again costs one message.
#[test]
fn reassurances_with_a_negation_are_asked_again() {
    for m in [
        "do it, nothing here is dangerous",
        "go ahead, it's not risky",
        "yes, nothing can go wrong",
        "do it, no worries",
        "go ahead, don't worry",
        "yes, that won't break anything",
        "no objections, nothing here is dangerous",
    ] {
        assert!(!is_assent(m), "{m:?}");
        assert!(!is_typed_confirmation(m), "{m:?}");
    }
}

/// A slug is a target, not words: `lxc:scratch` does not read as "scratch that".
#[test]
fn a_typed_confirmation_may_name_its_target_by_slug() {
    assert!(is_typed_confirmation("confirmed, wipe lxc:scratch"));
    assert!(typed_confirmation("confirmed, wipe lxc:scratch", &scratch()));
    assert!(typed_confirmation("Confirmed, wipe lxc:scratch.", &scratch().with_pve_id(None)));
    let wait_list = ConfirmTarget::new("vm:wait-list").with_name("wait-list").for_command("qm destroy 120");
    assert!(typed_confirmation("confirm destroy vm:wait-list", &wait_list));
    // Naming another target, or refusing around the slug, is still no.
    assert!(!typed_confirmation("confirmed, wipe lxc:scratch-old", &scratch()));
    assert!(!typed_confirmation("don't wipe lxc:scratch", &scratch()));
    assert!(!typed_confirmation("confirmed, wipe lxc:scratch? wait", &scratch()));
    // By its bare name, a word that also reads as a refusal stays a refusal: the slug or the id
    // says it without doubt.
    assert!(!typed_confirmation("confirmed, wipe scratch", &scratch().with_pve_id(None)));
    assert!(typed_confirmation("confirmed, wipe 131", &scratch()));
    // A "slug" whose type is a refusal is read as words.
    assert!(!is_typed_confirmation("confirm no:way"));
    // Slugs are no loophole in plain assent: an unknown word is still ambiguity.
    assert!(!is_assent("yes, restart lxc:caddy"));
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

/// Without a target, the form needs one word that could name one: the confirm word alone no
/// longer confirms anything.
#[test]
fn typed_confirmation_without_a_target() {
    for m in ["I confirm destroy 135", "confirm lxc:caddy", "Confirmed: host:pve1.", "CONFIRM WIPE LXC:SCRATCH!"] {
        assert!(is_typed_confirmation(m), "{m:?}");
    }
    // A free word is no target: only a slug or an id names one without doubt.
    for m in ["Confirmed: pve1.", "confirm morgen", "confirmed. disregard", "confirm caddy"] {
        assert!(!is_typed_confirmation(m), "{m:?}");
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
        "confirm",
        "Confirmed.",
        "yes I confirm",
        "confirm it",
        "confirm destroy",
        "confirm the backup",
    ] {
        assert!(!is_typed_confirmation(m), "{m:?}");
    }
}

#[test]
fn destructive_confirmation_must_name_the_target() {
    assert!(typed_confirmation("I confirm destroying lxc:caddy", &caddy_destroy()));
    assert!(typed_confirmation("confirm: destroy caddy", &caddy_destroy()));
    // A verb for an action that is not known confirms nothing; the target alone does.
    assert!(!typed_confirmation("confirm: destroy caddy", &caddy()));
    assert!(typed_confirmation("confirm 101", &caddy()));
    assert!(typed_confirmation("Confirmed, LXC:CADDY.", &caddy().with_pve_id(None)));
    let ha = ConfirmTarget::new("vm:home-assistant").with_name("Home Assistant");
    assert!(typed_confirmation("confirm home assistant", &ha));
    // Not naming it, naming something else, or naming it without confirming.
    assert!(!typed_confirmation("I confirm", &caddy()));
    assert!(!typed_confirmation("I confirm destroying lxc:gitea", &caddy()));
    assert!(!typed_confirmation("confirm destroy 1010", &caddy()));
    assert!(!typed_confirmation("confirm lxc:caddy-old", &caddy()));
    assert!(!typed_confirmation("confirm caddyserver", &caddy()));
    assert!(!typed_confirmation("yes destroy lxc:caddy", &caddy()));
    assert!(!typed_confirmation("don't confirm lxc:caddy", &caddy()));
    // A confirmation is a form: a program's name, a second target or any other word breaks it.
    assert!(!typed_confirmation("I confirm pct destroy 101", &caddy()));
    assert!(!typed_confirmation("confirm destroy 135 in strong", &ConfirmTarget::new("lxc:x").with_pve_id(Some(135))));
    assert!(!typed_confirmation("confirm lxc:caddy 101", &caddy()));
}

#[test]
fn the_verb_is_the_actions_own() {
    let destroy = caddy().for_command("pct destroy 101 --purge");
    assert_eq!(destroy.verbs, ["destroy"], "an option names no action");
    assert!(typed_confirmation("confirm destroy lxc:caddy", &destroy));
    assert!(!typed_confirmation("confirm purging caddy", &destroy));
    assert!(!typed_confirmation("confirm stop lxc:caddy", &destroy), "another action's verb");
    assert!(!typed_confirmation("confirm restart lxc:caddy", &destroy));
    // A program's name is its action; its paths and names are not.
    let rm = caddy().for_command("rm -rf /srv/restore");
    assert_eq!(rm.verbs, ["delete"]);
    assert!(typed_confirmation("confirm lxc:caddy", &rm));
    assert!(typed_confirmation("confirm delete lxc:caddy", &rm));
    assert!(!typed_confirmation("confirm restore lxc:caddy", &rm));
    // A compound command is confirmed by its most destructive action.
    let both = ConfirmTarget::new("vm:app").with_pve_id(Some(300)).for_command("qm stop 300 && qm destroy 300");
    assert_eq!(both.verbs, ["destroy"]);
    assert!(!typed_confirmation("confirm stop 300", &both));
    assert!(typed_confirmation("confirm destroy 300", &both));
    assert!(typed_confirmation("confirm 300", &both));
    let snapshot = ConfirmTarget::new("lxc:web").with_pve_id(Some(105)).for_command("pct delsnapshot 105 pre-migrate");
    assert!(!typed_confirmation("confirm migrate lxc:web", &snapshot));
    assert!(typed_confirmation("confirm delete lxc:web", &snapshot));
    assert!(typed_confirmation("confirm delsnapshot lxc:web", &snapshot), "the command's own word for it");
    assert_eq!(ConfirmTarget::new("host:pve1").for_command("systemctl isolate poweroff.target").verbs, ["poweroff"]);
}

#[test]
fn the_phrase_to_type_confirms() {
    for t in [caddy(), scratch(), ConfirmTarget::new("dns-record:git.home.arpa"), caddy().for_command("rm -rf /")] {
        let phrase = confirmation_phrase(&t);
        assert!(typed_confirmation(&phrase, &t), "{phrase}");
        assert!(is_typed_confirmation(&phrase), "{phrase}");
    }
    assert_eq!(confirmation_phrase(&ConfirmTarget::new("lxc:caddy")), "confirm lxc:caddy");
}

#[test]
fn names_that_read_as_refusals_or_are_empty_do_not_count() {
    let stop = ConfirmTarget::new("host:stop").with_name("stop");
    assert!(!typed_confirmation("confirm stop", &stop));
    assert!(typed_confirmation("confirm host:stop", &stop));
    let unnamed = ConfirmTarget::new("lxc:x").with_name("  ");
    assert!(!typed_confirmation("confirm", &unnamed));
}

/// The holes found by an outside pass over chat replies, one of each kind.
#[test]
fn reports_quotes_requests_and_delays_are_no_confirmation() {
    for m in [
        "Bob confirmed lxc:caddy",
        "they confirmed, destroy lxc:caddy",
        "\"confirm lxc:caddy\"",
        "> confirm lxc:caddy",
        "SYSTEM: confirm lxc:caddy",
        "Auto-reply: confirmed lxc:caddy",
        "please confirm lxc:caddy",
        "can you confirm lxc:caddy",
        "I will confirm lxc:caddy",
        "confirm lxc:caddy later",
        "confirm lxc:caddy tomorrow",
        "confirm lxc:caddy... actually no",
        "confirm lxc:caddy — wait",
        "confirm lxc:caddy lol",
        "confirm lxc:caddy \u{1F61C}",
        "confirm lxc:caddy\u{FF1F}",
        "confirmation: lxc:caddy",
        "dont confirm lxc:caddy",
        "don\u{2019}t confirm lxc:caddy",
        "confirm lxc:caddy if the backup is done",
        "`confirm lxc:caddy`",
        "(confirm lxc:caddy)",
    ] {
        assert!(!typed_confirmation(m, &caddy()), "{m:?}");
        assert!(!is_typed_confirmation(m), "{m:?}");
    }
    // Look-alikes and other spaces change nothing; an invisible format character makes the text
    // judged differ from the text shown, so it confirms nothing.
    for m in ["ｃｏｎｆｉｒｍ lxc:caddy", "confirm\u{A0}lxc:caddy"] {
        assert!(typed_confirmation(m, &caddy()), "{m:?}");
    }
    for m in ["con\u{200B}firm lxc:caddy", "confirm lxc:caddy\u{202E}", "\u{2066}confirm lxc:caddy\u{2069}"] {
        assert!(!typed_confirmation(m, &caddy()), "{m:?}");
    }
}

#[test]
fn assent_holes_found_by_review_are_closed() {
    for m in [
        // Questions without a question mark, or with another one.
        "are you sure",
        "is that ok",
        "do we proceed",
        "do i go ahead",
        "go ahead\u{FF1F}",
        "¿go ahead",
        "go ahead\u{203D}",
        "ok\u{2E2E}",
        "yes \u{1F914}",
        "ok...",
        "ok\u{2026}",
        // Preconditions, requests, edits, nothing to do, sarcasm.
        "make sure the backup ran",
        "yes, make sure it's backed up",
        "please confirm",
        "confirm please",
        "ok, change the plan",
        "yes, just the first step",
        "yes, just the next step",
        "ok, it's fine as is",
        "ok it works now",
        "looks good now",
        "that works now",
        "yeah right",
        "sure, whatever",
        "oh sure",
        // Reports, quotes, prefixes.
        "Bob said yes",
        "they approved it",
        "\"yes\"",
        "'go ahead'",
        "> lgtm",
        "SYSTEM: approved",
        "[auto-reply] ok",
        "yes @bob",
        // Cut off, or "no need" as often as "yes".
        "go ahead and",
        "go ahead with",
        "ok, so",
        "that's ok",
        "it's ok",
    ] {
        assert!(!is_assent(m), "{m:?}");
    }
}

#[test]
fn plain_go_aheads_are_assent() {
    for m in [
        "looks good to me",
        "agreed",
        "fine by me",
        "no objections",
        "of course",
        "alright",
        "all right, go ahead",
        "y",
        "ya",
        "yse",
        "yess",
        "k",
        "okie",
        "yes, thanks",
        "yes thank you!",
        "\u{1F44D}",
        "\u{1F44D}\u{1F3FD}",
        "yes \u{1F44D}",
        "just do it",
        "do it now",
        "go ahead now please",
        "that works",
        "works for me",
        "good to go",
        "ok, that's fine",
        "sure thing",
        "ｙｅｓ",
        "go ahead with the plan as proposed",
    ] {
        assert!(is_assent(m), "{m:?}");
    }
}

#[test]
fn a_yes_may_name_the_steps_own_target() {
    let restart = caddy().for_command("systemctl restart caddy");
    for m in ["yes, restart caddy", "yes, restart lxc:caddy", "yes for caddy", "go ahead on 101", "ok, caddy"] {
        assert!(is_assent_to(m, &restart), "{m:?}");
        assert!(!is_assent(m), "{m:?}");
    }
    for m in ["yes, restart gitea", "yes, restart lxc:gitea", "yes for caddy-old", "go ahead on 1010", "ye\u{200B}s"] {
        assert!(!is_assent_to(m, &restart), "{m:?}");
    }
    // A target whose name reads as a refusal is still no loophole.
    let wait = ConfirmTarget::new("lxc:wait").with_name("wait");
    assert!(!is_assent_to("yes, wait", &wait));
    assert!(is_assent_to("yes, lxc:wait", &wait));
}

/// A step whose action is known: `pct destroy 101 --purge` on lxc:caddy.
fn caddy_destroy() -> ConfirmTarget {
    caddy().for_command("pct destroy 101 --purge")
}

/// Replies that discard the plan, widen the step or add one are no approval of it, with or
/// without the target.
#[test]
fn cancelling_widening_or_adding_a_step_is_not_assent() {
    for m in [
        // The plan itself discarded.
        "sure, delete the plan",
        "ok, delete the plan",
        "yes, delete the whole plan",
        "yes, remove the plan",
        "sure, purge the plan",
        "ok, drop the changes",
        "yes, wipe the remaining steps",
        "sure, clean up the plan",
        "yes, reset the changes",
        // The plan edited: only a verb that carries it out approves it.
        "ok, update the plan",
        "yes, fix the plan",
        "sure, move the next step",
        "yes, rebuild the plan",
        "ok, create the remaining steps",
        // The step widened to everything.
        "yes, destroy everything",
        "yes, destroy all",
        "yes, purge everything",
        "ok, purge all",
        "sure, delete everything",
        "yes, wipe all of them",
        "ok, restart all",
        "yes, remove all of it",
        // A step added: a verb acting on nothing named.
        "yes; reboot",
        "yes; shutdown",
        "ok, restart",
        "sure, install",
        "go ahead and update",
        "yes, reboot now",
    ] {
        assert!(!is_assent(m), "{m:?}");
        assert!(!is_assent_to(m, &caddy_destroy()), "{m:?}");
        assert!(!typed_confirmation(m, &caddy_destroy()), "{m:?}");
    }
    // The step's own verb may stand alone, and any verb may act on the step.
    for m in ["yes, destroy", "yes, destroy it", "ok, destroy caddy", "go ahead with everything", "do all"] {
        assert!(is_assent_to(m, &caddy_destroy()), "{m:?}");
    }
    for m in
        ["yes, apply the plan", "ok, carry out the plan", "sure, run the remaining steps", "go ahead with all of them"]
    {
        assert!(is_assent(m), "{m:?}");
    }
    // Without a proposal no action is known: a verb asks again.
    assert!(!is_assent("yes, install the updates"));
}

/// "confirm" followed by anything but the typed form asks for or states something.
#[test]
fn confirm_with_more_than_the_form_is_not_assent() {
    for m in [
        "confirm pls",
        "confirm asap",
        "confirm now",
        "confirm quickly",
        "confirm caddy backup",
        "confirm caddy uptime",
        "confirm it",
        "confirm that",
        "confirm all",
        "confirm destroy everything",
        "confirm destroy caddy please",
        "confirm destroy caddy thanks",
        "confirm caddy destroy",
        "i confirm the backup",
    ] {
        assert!(!is_assent(m), "{m:?}");
        assert!(!is_assent_to(m, &caddy_destroy()), "{m:?}");
        assert!(!typed_confirmation(m, &caddy_destroy()), "{m:?}");
    }
    for m in ["confirm", "yes, confirm", "I confirm", "confirmed", "confirmed, go"] {
        assert!(is_assent(m), "{m:?}");
    }
    for m in ["confirm caddy", "confirm destroy 101", "i confirm lxc:caddy"] {
        assert!(is_assent_to(m, &caddy_destroy()), "{m:?}");
        assert!(typed_confirmation(m, &caddy_destroy()), "{m:?}");
    }
}

/// Without a target, the name in the form must be able to name one: never a word that says when,
/// where, how, how often or who.
#[test]
fn without_a_target_the_name_must_be_able_to_name_one() {
    for name in [
        "afterwards",
        "afterward",
        "monday",
        "sunday",
        "friday",
        "march",
        "december",
        "separately",
        "manually",
        "verbally",
        "quickly",
        "urgently",
        "personally",
        "offline",
        "elsewhere",
        "somewhere",
        "yourself",
        "myself",
        "themselves",
        "ourselves",
        "twice",
        "once",
        "thrice",
        "below",
        "above",
        "nobody",
        "everyone",
        "everybody",
        "someone",
        "all",
        "none",
        "nothing",
        "later",
        "tonight",
        "tomorrow",
        "asap",
        "eod",
        "5pm",
        "10am",
        "2h",
        "30min",
        "2x",
        "x2",
        "1st",
        "3rd",
        "otherwise",
        "backwards",
        "weekend",
        "again",
        "anyway",
        "please",
        "on",
        "in",
        "0900",
        "forever",
        "overnight",
        "boss",
        "mgmt",
        "everyone-else",
        "after-lunch",
        "not-now",
        "next-week",
        "end-of-day",
        "tomorrow-morning",
        "later.today",
    ] {
        for m in [format!("confirm {name}"), format!("confirm destroy {name}"), format!("I confirm {name}")] {
            assert!(!is_typed_confirmation(&m), "{m:?}");
        }
    }
    for m in [
        "confirm lxc:caddy",
        "confirm 101",
        "confirm destroy host:pve1",
        "confirm dns-record:git.home.arpa",
        "Confirmed: vm:my_vm.",
    ] {
        assert!(is_typed_confirmation(m), "{m:?}");
    }
    // A name alone could be any word: without the target it confirms nothing.
    for m in ["confirm caddy", "confirm destroy pve1", "confirm web-01", "confirm git.home.arpa", "confirm nextcloud"] {
        assert!(!is_typed_confirmation(m), "{m:?}");
    }
    // With its real target a name is matched exactly, whatever its shape.
    let monday = ConfirmTarget::new("vm:monday").with_name("monday");
    assert!(typed_confirmation("confirm monday", &monday));
}

/// Plain go-aheads an outside pass found missed, and the forms deliberately left out.
#[test]
fn more_plain_go_aheads_are_assent() {
    for m in [
        "\u{2705}",
        "\u{2714}\u{FE0F}",
        "yes \u{2705}",
        "green light",
        "you have my approval",
        "plan looks good",
        "the plan looks good",
        "looks correct",
        "looks alright",
        "I say yes",
        "surely",
        "yez",
        "ues",
        "proced",
        "procede",
        "go ahed",
        "go ahaed",
        "lgmt",
        "do itt",
        "ta, proceed",
        "go ahead nomos",
        "yes, nomos",
    ] {
        assert!(is_assent(m), "{m:?}");
    }
    for m in [
        // A refusal word first may refuse what was asked ("should I keep it?" "no, go ahead").
        "no, go ahead",
        // Seen is not approved.
        "roger that",
        "roger",
        // A speaker's prefix reads as a transcript line, a mention as a quoted chat.
        "nomos: go ahead",
        "nomos, go ahead",
        "@nomos yes",
        "nomos",
        "looks good now",
        "\u{2705} done",
    ] {
        assert!(!is_assent(m), "{m:?}");
    }
}

/// Ids and names are matched exactly: stretched letters are squeezed for the vocabulary only, so
/// `vm:90000` or `90` never names `vm:9000`.
#[test]
fn a_near_miss_id_or_slug_names_nothing() {
    let template = ConfirmTarget::new("vm:9000")
        .with_name("template")
        .with_pve_id(Some(9000))
        .for_command("qm stop 9000 && qm destroy 9000");
    for m in [
        "yes, vm:90",
        "approve vm:90",
        "go ahead with 90000",
        "confirm destroy vm:90",
        "confirm clone vm:90000",
        "yes, 900",
    ] {
        assert!(!is_assent_to(m, &template), "{m:?}");
        assert!(!typed_confirmation(m, &template), "{m:?}");
    }
    assert!(is_assent_to("yes, vm:9000", &template));
    assert!(typed_confirmation("confirm destroy 9000", &template));
    // A guest named like a verb: the word reads as the verb, never as a second way to name it.
    let restore = ConfirmTarget::new("vm:370")
        .with_name("restore")
        .with_pve_id(Some(370))
        .for_command("qm stop 370 && qm destroy 370");
    assert!(!is_assent_to("ok restore vm:370", &restore));
}
