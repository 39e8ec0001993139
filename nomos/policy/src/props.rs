//! Property tests: the verdict only ever rises (with a declaration, with more commands around it,
//! inside substitutions and shells), and classification never panics, whatever the input.

use nomos_types::Risk;
use proptest::prelude::*;

use super::classify;
use super::corpus::all_cases;

fn risk() -> impl Strategy<Value = Risk> {
    prop::sample::select(Risk::ALL.to_vec())
}

/// Shell-flavoured text: words, operators, quotes and substitutions in any order.
fn shellish() -> impl Strategy<Value = String> {
    let vocab = prop::sample::select(vec![
        "rm",
        "-rf",
        "/",
        "ls",
        "cat",
        "/etc/shadow",
        "|",
        ";",
        "&&",
        "||",
        "&",
        "$(",
        ")",
        "`",
        "'",
        "\"",
        "bash",
        "sh",
        "-c",
        "sudo",
        "env",
        "reboot",
        "echo",
        ">",
        ">>",
        "<",
        "/dev/sda",
        "/dev/null",
        "2>&1",
        "{",
        "}",
        "(",
        "<<<",
        "<<EOF",
        "EOF",
        "\n",
        "$X",
        "X=rm",
        "\\",
        "$'\\x72m'",
        "for",
        "in",
        "do",
        "done",
        "if",
        "then",
        "fi",
        "xargs",
        "tee",
        "find",
        "-delete",
        "-exec",
        "\\;",
        "pct",
        "exec",
        "101",
        "--",
        "systemctl",
        "restart",
        "status",
        "ssh",
        "host",
        "eval",
        "#",
        "*",
        "~/.ssh/id_rsa",
        "dd",
        "of=/dev/sda",
        "mkfs",
        ":(){",
        ":|:&",
        "};:",
    ]);
    prop::collection::vec(vocab, 0..24).prop_map(|words| words.join(" "))
}

fn case() -> impl Strategy<Value = (String, Risk)> {
    prop::sample::select(all_cases())
}

/// Commands that bash parses on their own and that run something.
fn complete(c: &str) -> bool {
    !crate::Policy::builtin().analyse(c).unparsed()
        && c.lines().any(|l| !l.trim().is_empty() && !l.trim_start().starts_with('#'))
}

/// Gated commands that can be put inside single quotes.
fn hideable() -> impl Strategy<Value = (String, Risk)> {
    let cases: Vec<_> = all_cases()
        .into_iter()
        .filter(|(c, want)| *want >= Risk::ConfigMutation && !c.contains('\'') && !c.contains('\n') && complete(c))
        .collect();
    prop::sample::select(cases)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: std::env::var("PROPTEST_CASES").ok().and_then(|v| v.parse().ok()).unwrap_or(512), ..ProptestConfig::default() })]

    #[test]
    fn declared_risk_only_raises(command in shellish(), declared in risk()) {
        let plain = classify(&command, None).risk;
        let with = classify(&command, Some(declared)).risk;
        prop_assert!(with >= declared);
        prop_assert!(with >= plain);
        prop_assert_eq!(with, plain.max(declared));
    }

    #[test]
    fn arbitrary_text_never_panics(bytes in prop::collection::vec(any::<u8>(), 0..512)) {
        let text = String::from_utf8_lossy(&bytes);
        let v = classify(&text, None);
        prop_assert!(!v.reasons.is_empty());
    }

    #[test]
    fn classification_is_deterministic(command in shellish()) {
        prop_assert_eq!(classify(&command, None), classify(&command, None));
    }

    #[test]
    fn more_commands_never_lower_the_verdict((a, _) in case(), (b, _) in case()) {
        // A comment or blank alone is "nothing to run" (gated); next to a command it is nothing. An
        // unterminated quote swallows what follows, for bash too.
        prop_assume!(complete(&a) && complete(&b));
        let joined = format!("{a}\n{b}");
        let both = classify(&joined, None).risk;
        let alone = classify(&a, None).risk.max(classify(&b, None).risk);
        prop_assert!(both >= alone, "{joined:?}: {both} < {alone}");
    }

    #[test]
    fn hiding_places_do_not_lower_the_verdict((c, want) in hideable()) {
        for hidden in [format!("bash -c '{c}'"), format!("sudo sh -c '{c}'"), format!("echo $({c})"), format!("true && {c}"), format!("ssh host '{c}'")] {
            let got = classify(&hidden, None).risk;
            prop_assert!(got >= want.min(Risk::ConfigMutation), "{hidden:?}: {got}");
            if want == Risk::Destructive {
                prop_assert_eq!(got, Risk::Destructive, "{:?}", hidden);
            }
        }
    }
}

#[test]
fn huge_inputs_are_judged() {
    // Up to the limit, every part is judged.
    let big = "cat /etc/hosts | grep -v '^#' | sort -u; ".repeat(crate::MAX_COMMAND_BYTES / 41 - 1);
    assert!(big.len() >= 15_000 && big.len() < crate::MAX_COMMAND_BYTES);
    assert_eq!(classify(&big, None).risk, Risk::ReadOnly);
    let with_tail = format!("{big}rm -rf /srv");
    assert_eq!(classify(&with_tail, None).risk, Risk::Destructive);
    // Beyond it, nothing runs without a typed confirmation.
    let huge = "cat /etc/hosts; ".repeat(1_048_576 / 16);
    assert_eq!(classify(&huge, None).risk, Risk::Destructive);
    let operators = format!("ls {}", "| cat ".repeat(2_500));
    assert!(operators.len() < crate::MAX_COMMAND_BYTES);
    assert_eq!(classify(&operators, None).risk, Risk::Destructive);
}

#[test]
fn deep_nesting_is_judged_without_overflowing() {
    for depth in [10, 100, 1_000, 20_000] {
        let nested = format!("{}id{}", "$(echo ".repeat(depth), ")".repeat(depth));
        let v = classify(&nested, None);
        assert!(v.risk >= Risk::ReadOnly, "{depth}");
        if depth > 150 {
            assert_eq!(v.risk, Risk::Destructive, "adversarial nesting is not waved through");
        }
        let quoted = format!("{}reboot{}", "bash -c \"".repeat(depth.min(50)), "\"".repeat(depth.min(50)));
        assert!(classify(&quoted, None).risk >= Risk::ConfigMutation);
        let subshells = format!("{}ls{}", "(".repeat(depth), ")".repeat(depth));
        assert!(classify(&subshells, None).risk >= Risk::ReadOnly);
    }
}

#[test]
fn junk_never_reads_as_read_only() {
    for junk in [
        "\u{0}",
        "\u{0}ls",
        "ls\u{0}",
        "$((",
        "`",
        "'",
        "\"",
        "((",
        "))",
        "}{",
        "<<",
        ">>>",
        "|||",
        "&&&",
        ";;",
        "\u{feff}ls",
    ] {
        let v = classify(junk, None);
        assert!(v.risk >= Risk::ConfigMutation || junk.trim_matches('\u{feff}') == "ls", "{junk:?}: {v:?}");
    }
}

/// Regression: the grammar's scanner called C `isdigit()` on a code point beyond ASCII (here after
/// a `{`), which read outside its table and crashed the process.
#[test]
fn non_ascii_input_does_not_crash_the_parser() {
    for text in [
        "echo {\u{FFFD}..2}",
        "{\u{10FFFF}",
        "ls {\u{663}..\u{665}}",
        "cat /srv/caf\u{e9}/menü",
        "echo ${\u{FFFD}}",
        "x=\u{1F600}; $x",
    ] {
        let v = classify(text, None);
        assert!(!v.reasons.is_empty(), "{text:?}");
    }
    // Non-ASCII text stays part of its word, as it does for bash.
    assert_eq!(classify("cat /srv/café/menü.txt", None).risk, Risk::ReadOnly);
    assert_eq!(
        classify("r\u{43c} -rf /srv", None).risk,
        Risk::ConfigMutation,
        "a look-alike name is not `rm`, and not known"
    );
}

/// Shapes that once made the analysis repeat itself exponentially (each nesting level evaluated
/// twice, every glued separator re-reading the rest). They must finish; a hang fails the run.
#[test]
fn pathological_shapes_finish() {
    let shapes = [
        format!("{}id{}", "$(cat <<< $(echo ".repeat(300), "))".repeat(300)),
        format!("{}id{}", "`echo \\`".repeat(8), "\\``".repeat(8)),
        "ls\n\\".repeat(2_000),
        "a | b\nc < d\n".repeat(2_000),
        format!("{}x{}", "$((".repeat(500), "))".repeat(500)),
        format!("{}reboot{}", "bash -c '".repeat(20), "'".repeat(20)),
        "echo $( ( ( ( ls ) ) ) ); ".repeat(1_000),
        "{ a; } | { b; } && ( c ) || d & ".repeat(2_000),
        // Long words: globs compared with secret paths, option clusters.
        format!("cat {}", "x".repeat(15_000)),
        format!("grep -{}", "x".repeat(15_000)),
        format!("ls -{}", "é".repeat(8_000)),
        format!("cat /{}", "a/".repeat(7_000)),
        format!("cat {}", "[a]".repeat(5_000)),
        // Substitutions folded into values, one inside another, bare and quoted.
        format!("echo {}ls{}", "$(".repeat(40), ")".repeat(40)),
        format!("echo \"{}ls{}\"", "$(echo \"".repeat(40), "\")".repeat(40)),
        format!("{}ls{}", "$(".repeat(40), ")".repeat(40)),
        // Brace lists that would expand to millions of words.
        format!("echo {}", "{a,b}".repeat(60)),
        // Text on which the shell grammar's error recovery is slow.
        ")".repeat(16_000),
        format!("grep -e {} x", "a|".repeat(1_990)),
    ];
    for shape in &shapes {
        let v = classify(shape, None);
        assert!(!v.reasons.is_empty());
    }
}
