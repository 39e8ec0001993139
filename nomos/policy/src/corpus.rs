//! The classifier's case corpus: every case of the original system's command corpus, the commands
//! its regular expressions got wrong, our own corpus across the categories of the rules, and the
//! red-team findings. The cases live in `tests/data/*.tsv` (expected risk, command, note); each
//! file is checked case for case against the exact expected risk.

use nomos_types::Risk::{self, ConfigMutation as CM, Destructive as DE, ReadOnly as RO, ReversibleLow as RL};

use super::classify;

/// A data file: its name and its text.
type File = (&'static str, &'static str);

macro_rules! data {
    ($name:literal) => {
        ($name, include_str!(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/", $name, ".tsv")))
    };
}

const ORIGINAL: File = data!("original");
const SQL_OUTSIDE_A_CLIENT: File = data!("sql-outside-a-client");
const REGEX_MISSES: File = data!("regex-misses");
const READ_ONLY: File = data!("read-only");
const WRITES: File = data!("writes");
const REVERSIBLE: File = data!("reversible");
const CONFIG: File = data!("config");
const DESTRUCTIVE: File = data!("destructive");
const SECRETS: File = data!("secrets");
const WRAPPERS: File = data!("wrappers");
const UNKNOWABLE: File = data!("unknowable");
const OBFUSCATION: File = data!("obfuscation");
const CORNERS: File = data!("corners");
const PROXMOX: File = data!("proxmox");
const AUDIT: File = data!("audit");
const RED_TEAM: File = data!("red-team");
const RED_TEAM_2: File = data!("red-team-2");
const RED_TEAM_3: File = data!("red-team-3");
const WRAPPERS_EXACT: File = data!("red-team-wrappers");
const UNDONE: File = data!("red-team-undone");
const OPTIONS: File = data!("red-team-options");
const EVAL_SINKS: File = data!("eval-sinks");
const SECRET_DISCLOSURE: File = data!("secret-disclosure");
const OUTAGE_ROUTES: File = data!("outage-routes");
const EVERYDAY: File = data!("everyday");

/// Adversarial cases by class, checked as minimums (see [`check_at_least`]).
const ATTACKS: &[File] = &[
    data!("attacks-interpreters"),
    data!("attacks-embedded"),
    data!("attacks-env"),
    data!("attacks-readtools"),
    data!("attacks-bash"),
    data!("attacks-proxmox"),
    data!("attacks-outages"),
    data!("attacks-secrets"),
    data!("attacks-tools"),
    data!("attacks-infra"),
    data!("attacks-indirect"),
    data!("attacks-routes"),
    data!("attacks-sql"),
    data!("attacks-proof"),
    data!("attacks-pve"),
    data!("attacks-storage"),
    data!("attacks-lockouts"),
    data!("attacks-shell"),
    data!("attacks-services"),
    data!("attacks-proof2"),
    data!("attacks-opaque"),
    data!("attacks-eval"),
    data!("attacks-targets"),
    data!("attacks-escapes"),
    data!("attacks-effects"),
    data!("attacks-disclosure"),
    data!("attacks-meaning"),
    data!("attacks-evaluation"),
    data!("attacks-neighbours"),
];

/// The files written for this classifier (the original system's corpus is kept beside them).
const OURS: &[File] = &[
    REGEX_MISSES,
    READ_ONLY,
    WRITES,
    REVERSIBLE,
    CONFIG,
    DESTRUCTIVE,
    SECRETS,
    WRAPPERS,
    UNKNOWABLE,
    OBFUSCATION,
    CORNERS,
    PROXMOX,
    AUDIT,
    WRAPPERS_EXACT,
    UNDONE,
    OPTIONS,
    EVAL_SINKS,
    SECRET_DISCLOSURE,
    OUTAGE_ROUTES,
];

/// One row of a data file.
struct Case {
    line: usize,
    command: String,
    risk: Risk,
    /// `open:LEVEL`: judged below LEVEL today (a known gap), never read-only.
    open: bool,
}

/// The rows of a data file: `risk<TAB>command[<TAB>note]`; `#` starts a comment line.
fn cases((name, text): File) -> Vec<Case> {
    let mut out = Vec::new();
    for (i, row) in text.lines().enumerate() {
        if row.trim().is_empty() || row.starts_with('#') {
            continue;
        }
        let mut columns = row.split('\t');
        let (Some(risk), Some(command)) = (columns.next(), columns.next()) else {
            panic!("{name}.tsv:{}: want `risk<TAB>command[<TAB>note]`", i + 1);
        };
        let (open, risk) = match risk.strip_prefix("open:") {
            Some(r) => (true, r),
            None => (false, risk),
        };
        let risk = risk.parse().unwrap_or_else(|e| panic!("{name}.tsv:{}: {e}", i + 1));
        out.push(Case {
            line: i + 1,
            command: unescape(command).unwrap_or_else(|e| panic!("{name}.tsv:{}: {e}", i + 1)),
            risk,
            open,
        });
    }
    out
}

/// `\n` is a newline, `\t` a tab, `\\` a backslash; any other backslash is a mistake in the file.
fn unescape(text: &str) -> Result<String, String> {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match chars.next() {
            Some('n') => out.push('\n'),
            Some('t') => out.push('\t'),
            Some('\\') => out.push('\\'),
            other => return Err(format!("unknown escape `\\{}`", other.map(String::from).unwrap_or_default())),
        }
    }
    Ok(out)
}

fn check(file: File) {
    let all = cases(file);
    assert!(!all.is_empty(), "{}.tsv has no cases", file.0);
    let mut failures = Vec::new();
    for case in &all {
        let got = classify(&case.command, None);
        if got.risk != case.risk {
            failures.push(format!(
                "{}.tsv:{}: {:?}: want {}, got {} {:?}",
                file.0, case.line, case.command, case.risk, got.risk, got.reasons
            ));
        }
        assert!(!got.reasons.is_empty(), "{:?} has no reasons", case.command);
    }
    assert!(failures.is_empty(), "{} misclassified:\n{}", failures.len(), failures.join("\n"));
}

/// An adversarial file: each command gets at least its level (`read_only` ones exactly); a case
/// marked `open:` is a known gap, judged below its level but never read-only. Returns how many
/// cases are open.
fn check_at_least(file: File) -> usize {
    let all = cases(file);
    let mut failures = Vec::new();
    let mut open = 0;
    for case in &all {
        let got = classify(&case.command, None).risk;
        let ok = match (case.open, case.risk) {
            (true, want) => {
                if got >= want {
                    failures.push(format!(
                        "{}.tsv:{}: {:?} is now {got}: drop its `open:`",
                        file.0, case.line, case.command
                    ));
                }
                open += 1;
                got > RO
            }
            (false, RO) => got == RO,
            (false, want) => got >= want,
        };
        if !ok {
            failures.push(format!("{}.tsv:{}: {:?}: want {}, got {got}", file.0, case.line, case.command, case.risk));
        }
    }
    assert!(failures.is_empty(), "{} cases:\n{}", failures.len(), failures.join("\n"));
    open
}

/// Every case of the original corpus and of ours, for the property tests.
pub(super) fn all_cases() -> Vec<(String, Risk)> {
    std::iter::once(&ORIGINAL).chain(OURS).flat_map(|f| cases(*f)).map(|c| (c.command, c.risk)).collect()
}

#[test]
fn original_corpus() {
    check(ORIGINAL);
    for case in cases(ORIGINAL).iter().filter(|c| c.risk == DE) {
        assert_eq!(classify(&case.command, Some(RO)).risk, DE, "{}: a declaration cannot lower it", case.command);
    }
    assert_eq!(classify("", None).risk, CM, "an empty command escalates");
    assert_eq!(classify("cat /etc/hostname", Some(DE)).risk, DE);
    assert_eq!(classify("systemctl restart caddy", Some(RO)).risk, RL);
}

#[test]
fn sql_outside_a_client_is_not_sql() {
    check(SQL_OUTSIDE_A_CLIENT);
}

#[test]
fn regex_misses_are_caught() {
    check(REGEX_MISSES);
}

#[test]
fn routine_inspection_auto_runs() {
    check(READ_ONLY);
}

#[test]
fn writes_need_approval() {
    check(WRITES);
}

#[test]
fn reversible_changes() {
    check(REVERSIBLE);
}

#[test]
fn configuration_changes() {
    check(CONFIG);
}

#[test]
fn destructive_commands() {
    check(DESTRUCTIVE);
}

#[test]
fn secrets_are_never_read_only() {
    check(SECRETS);
}

#[test]
fn wrappers_classify_what_they_run() {
    check(WRAPPERS);
}

#[test]
fn unknowable_commands_escalate() {
    check(UNKNOWABLE);
}

#[test]
fn obfuscation_does_not_hide_anything() {
    check(OBFUSCATION);
}

#[test]
fn more_corners() {
    check(CORNERS);
}

#[test]
fn red_team_findings() {
    check(RED_TEAM);
}

#[test]
fn second_red_team_findings() {
    check(RED_TEAM_2);
}

#[test]
fn third_red_team_findings() {
    check(RED_TEAM_3);
}

#[test]
fn proxmox_tools() {
    check(PROXMOX);
}

#[test]
fn options_that_run_write_or_serve_are_not_read_only() {
    check(AUDIT);
}

#[test]
fn wrapper_options_are_read_exactly() {
    check(WRAPPERS_EXACT);
}

#[test]
fn safe_flags_undone_later_are_undone() {
    check(UNDONE);
}

#[test]
fn options_that_write_load_or_reach_out_are_not_read_only() {
    check(OPTIONS);
}

#[test]
fn values_evaluated_by_bash_are_judged() {
    check(EVAL_SINKS);
}

#[test]
fn secrets_read_out_are_disclosures() {
    check(SECRET_DISCLOSURE);
    // Every disclosure is flagged, so the command's output is withheld.
    for case in cases(SECRET_DISCLOSURE).iter().filter(|c| c.risk == DE) {
        assert!(classify(&case.command, None).secret, "{}: not flagged as touching secrets", case.command);
    }
}

#[test]
fn outages_by_other_routes_are_rated_alike() {
    check(OUTAGE_ROUTES);
}

#[test]
fn adversarial_classes_are_not_read_only_and_mostly_at_their_level() {
    let mut total = 0;
    let mut open = 0;
    for file in ATTACKS {
        total += cases(*file).len();
        open += check_at_least(*file);
    }
    assert!(total >= 1500, "{total} adversarial cases");
    // What is still judged below its level is counted, not hidden.
    eprintln!("{open} of {total} adversarial cases are judged below their level (none read-only)");
}

/// Everyday inspection runs unasked: at most 2 % of it needs approval.
#[test]
fn everyday_reads_are_rarely_held_up() {
    let all = cases(EVERYDAY);
    assert!(all.len() >= 500, "{} everyday commands", all.len());
    let held: Vec<String> = all
        .iter()
        .filter(|c| classify(&c.command, None).risk != RO)
        .map(|c| format!("{}: {}", c.line, c.command))
        .collect();
    assert!(held.len() * 50 <= all.len(), "{} of {} held up:\n{}", held.len(), all.len(), held.join("\n"));
}

#[test]
fn corpus_is_large_enough() {
    let ours: usize = OURS.iter().map(|f| cases(*f).len()).sum();
    assert!(ours >= 300, "our own corpus has {ours} cases");
}

#[test]
fn data_files_escape_only_what_they_must() {
    assert_eq!(unescape(r"printf 'reboot\\n' | bash\nEOF\t1").as_deref(), Ok("printf 'reboot\\n' | bash\nEOF\t1"));
    assert!(unescape(r"echo \x").is_err());
}

/// Prints the verdict of each `risk<TAB>command` row of the file named by `NOMOS_PROBE` (a
/// developer's aid: `NOMOS_PROBE=f cargo test -p nomos-policy --lib probe -- --ignored --nocapture`).
#[test]
#[ignore = "a developer's aid, run by hand"]
fn probe() {
    let Ok(path) = std::env::var("NOMOS_PROBE") else { return };
    let text = std::fs::read_to_string(path).unwrap_or_default();
    for row in text.lines().filter(|r| !r.trim().is_empty() && !r.starts_with('#')) {
        let mut columns = row.split('\t');
        let (want, command) = (columns.next().unwrap_or("?"), columns.next().unwrap_or(""));
        let got = classify(&unescape(command).unwrap_or_default(), None);
        let mark = if got.risk.to_string() == want { "ok  " } else { "BAD " };
        println!("{mark}{want:>16} {:>16} {command}  {:?}", got.risk.to_string(), got.reasons);
    }
}
