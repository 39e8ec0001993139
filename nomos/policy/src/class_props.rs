//! Property tests per bypass class, driven by the program table so that a new entry is covered:
//! every wrapper with every one of its options in every form runs a destructive payload and is
//! destructive; every option of a read-only program that writes, loads code, runs a program or
//! reaches another service raises it to at least `config_mutation`, however it is written; a dry
//! run undone later on the line never lowers the verdict; signals and data-modifying SQL are never
//! read-only however they are spelled.

use nomos_types::Risk::{self, ConfigMutation as CM, Destructive as DE, ReadOnly as RO};
use proptest::prelude::*;

use crate::classify;
use crate::table::{table, Arity, Effect, Entry, Operand, OptionSpec};

/// Destructive payloads, as command words.
const PAYLOADS: &[&[&str]] =
    &[&["reboot"], &["rm", "-rf", "/srv"], &["systemctl", "poweroff"], &["mkfs.ext4", "/dev/sda1"]];

/// A word as the shell would need it written.
fn quote(word: &str) -> String {
    if !word.is_empty() && word.chars().all(|c| c.is_ascii_alphanumeric() || "-_./=:,%+@".contains(c)) {
        word.to_string()
    } else {
        format!("'{}'", word.replace('\'', r"'\''"))
    }
}

/// How an entry is invoked: its program, or for a subcommand's entry the command that reaches it.
fn invocation(entry: &Entry) -> Option<String> {
    let name = entry.programs.first()?;
    if name.contains('*') {
        return None;
    }
    Some(match name.as_str() {
        "compose exec" => "docker compose exec".to_string(),
        other => other.to_string(),
    })
}

/// A benign value for an option, by what it does.
fn value_for(spec: &OptionSpec, payload: &str) -> String {
    match spec.effects.first() {
        Some(Effect::Chdir) => "/tmp".into(),
        Some(Effect::Env) => "X=1".into(),
        Some(Effect::Split) => "-i".into(),
        Some(Effect::Payload) => payload.into(),
        Some(Effect::Writes | Effect::Reads) => "/dev/null".into(),
        Some(Effect::Runs | Effect::Script) => "true".into(),
        Some(Effect::Lock) => "/tmp/lock".into(),
        _ => "1".into(),
    }
}

/// Every way of writing an option (with `value` where it takes one): alone, attached, separate,
/// `--name=value`, a unique abbreviation of a long name, in a cluster after a flag of the entry.
fn forms(entry: &Entry, spec: &OptionSpec, value: &str) -> Vec<Vec<String>> {
    let name = spec.name.as_str();
    if name.ends_with('*') {
        return Vec::new();
    }
    let long = name.starts_with("--");
    let short = !long && name.len() == 2 && name != "==";
    // A flag to bundle it with: one with no effect on what runs (`command -v` would make it a lookup).
    let flag = entry
        .options
        .iter()
        .find(|o| {
            o.arity == Arity::None
                && o.name.len() == 2
                && o.name != name
                && o.name.starts_with('-')
                && o.name != "--"
                && o.effects.iter().all(|e| *e == Effect::Plain)
        })
        .map(|o| o.name[1..].to_string());
    let v = value.to_string();
    let mut out: Vec<Vec<String>> = match spec.arity {
        Arity::None => vec![vec![name.into()]],
        Arity::Required if long => vec![vec![name.into(), v.clone()], vec![format!("{name}={v}")]],
        Arity::Required if short => vec![vec![name.into(), v.clone()], vec![format!("{name}{v}")]],
        Arity::Required => vec![vec![name.into(), v.clone()], vec![format!("{name}={v}")]],
        Arity::Optional if long => vec![vec![name.into()], vec![format!("{name}={v}")]],
        Arity::Optional => vec![vec![name.into()], vec![format!("{name}{v}")]],
    };
    if short {
        if let Some(f) = flag {
            let mut bundled = vec![format!("-{f}{}", &name[1..])];
            if spec.arity == Arity::Required {
                bundled.push(v.clone());
            }
            out.push(bundled);
        }
    }
    // An abbreviation getopt takes for the long name, unless it is an option of its own.
    if long && name.len() > 6 {
        let abbreviation = &name[..name.len() - 2];
        if entry.exact_option(abbreviation).is_none() {
            let mut abbreviated = vec![abbreviation.to_string()];
            if spec.arity == Arity::Required {
                abbreviated.push(v);
            }
            out.push(abbreviated);
        }
    }
    out
}

/// The operands up to the command and the command itself, for operand kinds `kinds`.
fn operands_with(kinds: &[Operand], payload: &[&str]) -> Vec<String> {
    let mut out = Vec::new();
    for kind in kinds {
        match kind {
            Operand::Command => {
                out.extend(payload.iter().map(|w| quote(w)));
                break;
            }
            Operand::Script => {
                out.push(quote(&payload.join(" ")));
                break;
            }
            Operand::ShellArgs => {
                out.push("-c".into());
                out.push(quote(&payload.join(" ")));
                break;
            }
            Operand::Lock => out.push("/tmp/lock".into()),
            _ => out.push("1".into()),
        }
    }
    out
}

/// Every wrapper, with every one of its options in every form, running each destructive payload.
fn wrapper_lines() -> Vec<String> {
    let mut lines = Vec::new();
    for entry in table().entries().iter().filter(|e| e.runs_commands()) {
        let Some(program) = invocation(entry) else { continue };
        // Without a command operand, the payload goes to the option that takes it, or after the
        // option that makes the operands a command (`gdb --args`).
        let payload_option = entry.options.iter().find(|o| {
            o.effects.contains(&Effect::Payload)
                || o.effects.contains(&Effect::Command)
                || o.effects.contains(&Effect::Operands(Operand::Command))
        });
        for (n, spec) in entry.options.iter().enumerate() {
            // Options that make the operands names, not a command (`command -v`), run nothing.
            if spec.effects.contains(&Effect::Operands(Operand::Plain)) {
                continue;
            }
            let payload = PAYLOADS[n % PAYLOADS.len()];
            let text = payload.join(" ");
            let kinds = match spec.effects.iter().find_map(|e| match e {
                Effect::Operands(kind) => Some(*kind),
                _ => None,
            }) {
                Some(kind) => vec![kind],
                None => entry.operands.clone(),
            };
            let has_operand = kinds.iter().any(|o| o.is_payload());
            // An option whose value starts the command takes the payload's words after it.
            let command_option = spec.effects.contains(&Effect::Command);
            let value = if command_option { payload[0].to_string() } else { value_for(spec, &text) };
            for form in forms(entry, spec, &value) {
                // `--` ends the options before the operands; a shell's arguments need it when the
                // wrapper has no `-c` of its own (`capsh -- -c …`).
                let shell_args = kinds.contains(&Operand::ShellArgs) && entry.exact_option("-c").is_none();
                for dashes in [false, true] {
                    if (dashes && (!has_operand || command_option)) || (!dashes && shell_args) {
                        continue;
                    }
                    let mut words = vec![program.clone()];
                    words.extend(form.iter().map(|w| quote(w)));
                    if dashes {
                        words.push("--".into());
                    }
                    if command_option {
                        if form.len() == 1 && spec.arity == Arity::Required && form[0] == spec.name {
                            continue;
                        }
                        words.extend(payload[1..].iter().map(|w| quote(w)));
                    } else if has_operand {
                        words.extend(operands_with(&kinds, payload));
                    } else if let Some(p) = payload_option.filter(|p| p.name != spec.name) {
                        words.push(p.name.clone());
                        if p.effects.contains(&Effect::Command)
                            || p.effects.contains(&Effect::Operands(Operand::Command))
                        {
                            words.extend(payload.iter().map(|w| quote(w)));
                        } else {
                            words.push(quote(&text));
                        }
                    }
                    lines.push(words.join(" "));
                }
            }
        }
    }
    lines
}

#[test]
fn every_wrapper_option_form_runs_its_destructive_payload() {
    let lines = wrapper_lines();
    assert!(lines.len() > 2_000, "{} lines", lines.len());
    let failures: Vec<String> = lines
        .iter()
        .filter_map(|line| {
            let v = classify(line, None);
            (v.risk != DE).then(|| format!("{line:?}: {} {:?}", v.risk, v.reasons))
        })
        .collect();
    assert!(failures.is_empty(), "{} of {} not destructive:\n{}", failures.len(), lines.len(), failures.join("\n"));
}

/// A value for an option that makes it do what it is listed for, the least it must raise to, and
/// whether that needs the value (a value rule).
fn risky(entry: &Entry, spec: &OptionSpec) -> Option<(String, Risk, bool)> {
    let mut worst: Option<Risk> = None;
    let mut value = "/tmp/nomos-out".to_string();
    for effect in &spec.effects {
        let (risk, v) = match effect {
            Effect::Writes | Effect::Loads | Effect::Network | Effect::Lock => (CM, "/tmp/nomos-out"),
            Effect::Runs | Effect::Script => (CM, "true"),
            Effect::Env => (CM, "LD_PRELOAD=/tmp/x.so"),
            Effect::Secret => (DE, "1"),
            Effect::Raise(r) | Effect::Mode(r) if *r >= CM => (*r, "1"),
            _ => continue,
        };
        if worst.is_none_or(|w| risk > w) {
            worst = Some(risk);
            value = v.to_string();
        }
    }
    // A value rule that makes the option raise.
    let by_value = worst.is_none();
    if by_value {
        for rule in entry.values.iter().filter(|r| r.options.contains(&spec.name)) {
            let risk = match rule.effect {
                Effect::Raise(r) if r >= CM => r,
                Effect::Loads | Effect::Network | Effect::Writes | Effect::Runs | Effect::Script | Effect::Pipe => CM,
                _ => continue,
            };
            let pattern = rule.matches.first()?;
            value = if pattern.starts_with('|') { "|touch /tmp/x".into() } else { pattern.replace(['*', '?'], "x") };
            worst = Some(risk);
        }
    }
    Some((value, worst?, by_value))
}

/// A line on which a program only reads: its read-only mode or subcommand, and an operand.
fn read_only_line(entry: &Entry, program: &str) -> Option<Vec<String>> {
    let mut words = vec![program.to_string()];
    if entry.default != RO && entry.bare != Some(RO) {
        if let Some(mode) = entry.options.iter().find(|o| o.effects.contains(&Effect::Mode(RO))) {
            words.push(mode.name.clone());
            if mode.arity == Arity::Required {
                words.push("1".into());
            }
        } else if let Some(sub) = entry.subcommands.iter().find(|s| s.risk == RO && !s.secret) {
            words.extend(sub.path.iter().map(|p| if p == "*" { "x".to_string() } else { p.replace('*', "") }));
        } else {
            return None;
        }
    }
    if entry.operands.iter().any(|o| o.is_payload()) {
        // A wrapper running a command that only reads.
        if entry.operands.contains(&Operand::ShellArgs) && entry.exact_option("-c").is_none() {
            words.push("--".into());
        }
        words.extend(operands_with(&entry.operands, &["true"]));
    } else if entry.default == RO || entry.bare != Some(RO) {
        match entry.operands.first() {
            Some(Operand::Read) => words.push("/etc/hostname".into()),
            Some(Operand::Lock) => return None,
            _ => {}
        }
    }
    Some(words)
}

#[test]
fn every_option_that_writes_loads_runs_or_reaches_out_raises_a_read_only_program() {
    let mut failures = Vec::new();
    let mut checked = 0;
    for entry in table().entries() {
        let Some(program) = invocation(entry) else { continue };
        let Some(base) = read_only_line(entry, &program) else { continue };
        if classify(&base.join(" "), None).risk != RO {
            continue;
        }
        for spec in &entry.options {
            let Some((value, least, by_value)) = risky(entry, spec) else { continue };
            for form in forms(entry, spec, &value) {
                if by_value && !form.iter().any(|w| w.contains(value.as_str())) {
                    continue;
                }
                // Right after the program: options come first for every program.
                let mut words = vec![base[0].clone()];
                words.extend(form.iter().map(|w| quote(w)));
                words.extend(base[1..].iter().cloned());
                let line = words.join(" ");
                checked += 1;
                let got = classify(&line, None).risk;
                if got < least {
                    failures.push(format!("{line:?}: {got}, want at least {least}"));
                }
            }
        }
    }
    assert!(checked > 500, "{checked} lines");
    assert!(failures.is_empty(), "{} of {checked}:\n{}", failures.len(), failures.join("\n"));
}

/// Entries with a dry-run option, their long dry-run names, and their gated examples.
fn dry_runs() -> Vec<(String, String, Risk, String)> {
    let mut out = Vec::new();
    for entry in table().entries() {
        for spec in entry.options.iter().filter(|o| o.effects.contains(&Effect::DryRun) && o.name.starts_with("--")) {
            for (risk, example) in entry.examples.iter().filter(|(r, _)| *r > RO) {
                let (first, rest) = example.split_once(' ').unwrap_or((example, ""));
                if entry.programs.iter().any(|p| p == first) {
                    out.push((first.to_string(), spec.name.clone(), *risk, format!(" {rest}")));
                }
            }
        }
    }
    out
}

proptest! {
    #![proptest_config(ProptestConfig { cases: std::env::var("PROPTEST_CASES").ok().and_then(|v| v.parse().ok()).unwrap_or(256), ..ProptestConfig::default() })]

    /// A dry run undone later on the line (`--no-X`, `--X=false`, `--X no`) is no dry run.
    #[test]
    fn a_dry_run_undone_later_does_not_lower_the_verdict(
        (program, option, risk, rest) in prop::sample::select(dry_runs()),
        undo in 0usize..4,
    ) {
        let undone = match undo {
            0 => format!("{option} --no-{}", &option[2..]),
            1 => format!("{option}=false"),
            2 => format!("{option}=no"),
            _ => format!("{option} --{}=0", &option[2..]),
        };
        let line = format!("{program} {undone}{rest}");
        let got = classify(&line, None).risk;
        prop_assert!(got >= risk, "{line:?}: {got} < {risk}");
    }

    /// A signal is sent however it is named; to init or every process it is destructive; the list
    /// option is never read into a signal name.
    #[test]
    fn signals_are_never_read_as_listing(
        name in prop::sample::select(vec!["KILL", "kill", "SIGKILL", "9", "TERM", "SIGALRM", "HUP", "LOST", "PWR", "USR1", "RTMIN+2"]),
        form in 0usize..3,
        target in prop::sample::select(vec!["1", "-1", "01", "-01", "4242"]),
        dashes in any::<bool>(),
    ) {
        let signal = match form {
            0 => format!("-{name}"),
            1 => format!("-s {name}"),
            _ => format!("--signal={name}"),
        };
        let line = format!("kill {signal} {}{target}", if dashes { "-- " } else { "" });
        let got = classify(&line, None).risk;
        let want = if matches!(target, "1" | "-1" | "01" | "-01") { DE } else { Risk::ReversibleLow };
        prop_assert_eq!(got, want, "{:?}", line);
    }

    /// SQL that changes data is never read-only, however it starts: a WITH around it, EXPLAIN
    /// ANALYZE over it, comments before it; a DELETE without its own WHERE destroys.
    #[test]
    fn data_modifying_sql_is_never_read_only(
        client in prop::sample::select(vec!["psql -c", "mysql -e", "sqlite3 x.db", "mariadb -e"]),
        statement in prop::sample::select(vec![
            "DELETE FROM users", "UPDATE users SET admin = true", "INSERT INTO users VALUES (1)",
            "delete from users where id = 1", "MERGE INTO t USING s ON t.id = s.id WHEN MATCHED THEN DELETE",
        ]),
        shape in 0usize..5,
        upper in any::<bool>(),
    ) {
        let sql = match shape {
            0 => format!("WITH x AS (SELECT 1) {statement}"),
            1 => format!("WITH x AS ({statement} RETURNING *) SELECT * FROM x"),
            2 => format!("EXPLAIN ANALYZE {statement}"),
            3 => format!("/* report */ {statement}"),
            _ => format!("SELECT 1; {statement}"),
        };
        let sql = if upper { sql.to_uppercase() } else { sql.to_lowercase() };
        let line = format!("{client} {}", quote(&sql));
        let got = classify(&line, None).risk;
        prop_assert!(got >= CM, "{:?}: {}", line, got);
        let unbounded = statement.to_lowercase().starts_with("delete") && !statement.to_lowercase().contains("where");
        if unbounded && shape != 2 {
            prop_assert_eq!(got, DE, "{:?}", line);
        }
    }

    /// A wrapper with several of its options, in any order, still runs its payload.
    #[test]
    fn wrappers_with_several_options_run_their_payload(line in prop::sample::select(stacked_wrapper_lines())) {
        let got = classify(&line, None).risk;
        prop_assert_eq!(got, DE, "{:?}", line);
    }
}

/// Wrappers with two or three of their options, and wrappers inside wrappers.
fn stacked_wrapper_lines() -> Vec<String> {
    let single = wrapper_lines();
    let mut out = Vec::new();
    for (k, line) in single.iter().enumerate().step_by(7) {
        // A wrapper inside another: `nice -n 1 timeout 5 … reboot`.
        let outer = &single[(k * 31 + 11) % single.len()];
        if let Some((head, _)) = outer.split_once(" reboot").filter(|(h, _)| !h.contains('\'')) {
            // An option right before the payload may take it as one word (`script --comma reboot`,
            // `env -S reboot`): nesting a whole command line there changes what runs.
            let payload_option = head.rsplit(' ').next().is_some_and(|w| w.starts_with('-'));
            if !head.contains(" -c") && !head.ends_with("-c") && !payload_option {
                out.push(format!("{head} {line}"));
            }
        }
        out.push(line.clone());
    }
    out
}

/// Every unknown option is read both ways; nested, the readings are bounded (two deep) and the
/// line is judged — at least `config_mutation`, as an unknown option makes it — never waved through.
#[test]
fn nested_ambiguous_wrappers_finish() {
    assert_eq!(classify("timeout --frob $T 5 reboot", None).risk, DE);
    assert_eq!(classify("sudo --x a sudo --y b reboot", None).risk, DE);
    for depth in [1, 5, 30, 200] {
        let line = format!("{}ls", "sudo --frobnicate $A ".repeat(depth));
        assert!(classify(&line, None).risk >= CM, "{depth}");
        let line = format!("{}reboot", "timeout --frob $T 5 ".repeat(depth));
        assert!(classify(&line, None).risk >= CM, "{depth}");
    }
}
