use nomos_types::Risk;

use super::*;
use crate::classify;
use crate::rules::code_rule;

#[test]
fn the_table_parses() {
    let table = Table::parse(FILES).unwrap();
    assert!(table.entries().len() > 100, "{} entries", table.entries().len());
    assert_eq!(table.entries().len(), super::table().entries().len(), "the shipped table is the one in use");
}

#[test]
fn the_code_rules_options_parse() {
    let options = Table::parse(CODE_FILES).unwrap();
    assert!(options.entries().len() > 20, "{} entries", options.entries().len());
    assert_eq!(options.entries().len(), code_options().entries().len(), "the shipped lists are the ones in use");
    for entry in options.entries() {
        assert_eq!(entry.default, Risk::ReadOnly, "{:?}: option lists are for read-only forms", entry.programs);
        let program = entry.programs.first().map(|p| p.split(' ').next().unwrap_or(p)).unwrap();
        assert!(code_rule(program).is_some(), "{program} is not judged by code");
        // A mode entry names modes of one program (its program's options are found by its first).
        if program.len() < entry.programs[0].len() {
            assert!(entry.programs.iter().all(|p| p.split(' ').next() == Some(program)), "{:?}", entry.programs);
        }
    }
}

/// Every example of the option lists is read-only (and runs its program).
#[test]
fn every_option_list_example_is_read_only() {
    let mut failures = Vec::new();
    for entry in code_options().entries() {
        for (want, command) in &entry.examples {
            let got = classify(command, None);
            if got.risk != *want || *want != Risk::ReadOnly {
                failures.push(format!(
                    "{:?}: {command:?}: want {want}, got {} {:?}",
                    entry.programs, got.risk, got.reasons
                ));
            }
        }
    }
    assert!(failures.is_empty(), "{} examples misjudged:\n{}", failures.len(), failures.join("\n"));
}

/// Every example of every entry gets exactly its stated verdict: read-only examples run at once,
/// and every other one is gated at its level.
#[test]
fn every_example_gets_its_verdict() {
    let mut failures = Vec::new();
    let mut count = 0;
    for entry in table().entries() {
        for (want, command) in &entry.examples {
            count += 1;
            // An example shows this entry at work: it runs one of the entry's programs.
            // (A subcommand's entry, `docker exec`, by its last word.)
            let runs_it = command
                .split_whitespace()
                .any(|w| entry.programs.iter().any(|p| glob_matches(p.rsplit(' ').next().unwrap_or(p), w)));
            if !runs_it {
                failures.push(format!("{}: example {command:?} does not run it", entry.programs[0]));
            }
            let got = classify(command, None);
            if got.risk != *want {
                failures.push(format!(
                    "{}: {command:?}: want {want}, got {} {:?}",
                    entry.programs[0], got.risk, got.reasons
                ));
            }
        }
    }
    assert!(count > 300, "{count} examples");
    assert!(failures.is_empty(), "{} examples misjudged:\n{}", failures.len(), failures.join("\n"));
}

/// Each program has one rule: its entry, or its code.
#[test]
fn no_program_is_both_in_the_table_and_in_code() {
    for entry in table().entries() {
        for p in &entry.programs {
            assert!(code_rule(p).is_none(), "`{p}` has a table entry and code");
        }
    }
}

#[test]
fn malformed_entries_are_rejected() {
    for (yaml, expect) in [
        ("- {program: x, default: read_only}", "missing field `examples`"),
        ("- {program: x, default: read_only, examples: {}}", "needs examples"),
        ("- {program: x, default: maybe, examples: {read_only: [x]}}", "unknown Risk `maybe`"),
        ("- {program: x, default: read_only, colour: red, examples: {read_only: [x]}}", "unknown field"),
        ("- {program: /bin/x, default: read_only, examples: {read_only: [x]}}", "bare programs"),
        ("- {program: x, default: read_only, options: {plain: [o]}, examples: {read_only: [x]}}", "not an option name"),
        ("- {program: x, default: read_only, options: {plain: [-o, '-o=']}, examples: {read_only: [x]}}", "two arities"),
        ("- {program: x, default: read_only, says: {maybe: y}, examples: {read_only: [x]}}", "unknown key"),
        ("- {program: x, default: read_only, subcommands: {sometimes: [y]}, examples: {read_only: [x]}}", "unknown Risk"),
        (
            "- {program: x, default: read_only, options: {plain: [-o]}, values: [{options: [-o], match: [y], mode: destructive}], examples: {read_only: [x]}}",
            "not listed as taking a value",
        ),
        (
            "- {program: x, default: read_only, examples: {read_only: [x]}}\n- {program: x, default: read_only, examples: {read_only: [x]}}",
            "two entries",
        ),
        ("- {program: x, default: read_only, operands: [command, plain], examples: {read_only: [x]}}", "come last"),
        ("- {program: x, default: read_only, assignments: true, examples: {read_only: [x]}}", "needs a command operand"),
        ("- {program: ' x', default: read_only, examples: {read_only: [x]}}", "bare programs"),
    ] {
        let err = Table::parse(&[("t.yaml", yaml)]).unwrap_err().to_string();
        assert!(err.starts_with("rules/t.yaml: ") && err.contains(expect), "{yaml}: {err}");
    }
}

fn entry(yaml: &str) -> Entry {
    let mut table = Table::parse(&[("t.yaml", yaml)]).unwrap();
    table.entries.remove(0)
}

fn words(s: &str) -> Vec<crate::shell::Arg> {
    s.split_whitespace().map(|w| crate::shell::Arg::Static(w.to_string())).collect()
}

#[test]
fn options_are_read_as_getopt_reads_them() {
    let e = entry(
        "- program: t\n  default: read_only\n  options: {plain: [-n=, -v, '--color[=]', --lines=], writes: [-o, --output]}\n  examples: {read_only: [t]}",
    );
    let shown = |line: &str| {
        let args = words(line);
        let p = e.read_args(&args);
        let opts: Vec<String> = p
            .options
            .iter()
            .map(|g| {
                format!(
                    "{}{}{}",
                    g.word,
                    if g.specs.is_empty() { "?" } else { "" },
                    g.value.as_ref().map(|v| format!("={}", v.shown())).unwrap_or_default()
                )
            })
            .collect();
        let ops: Vec<&str> = p.operands.iter().map(|o| o.shown()).collect();
        format!("{} | {}", opts.join(" "), ops.join(" "))
    };
    assert_eq!(shown("-vn5 a -o out b"), "-v -n=5 -o=out | a b");
    assert_eq!(shown("-vo out a"), "-v -o=out | a");
    assert_eq!(shown("--outp=x --lines 3 --color a"), "--outp=x --lines=3 --color | a");
    assert_eq!(shown("--color=always -x -- -o b"), "--color=always -x? | -o b");
    assert_eq!(shown("-20 a"), " | a");
}

#[test]
fn subcommands_match_the_longest_path() {
    let e = entry(
        "- program: t\n  default: config_mutation\n  subcommands: {read_only: [osd, 'pool ls', 'list*'], destructive: ['osd purge', 'pg * lost']}\n  examples: {read_only: [t osd]}",
    );
    let sub = |line: &str| {
        let args = words(line);
        let ops: Vec<&crate::shell::Arg> = args.iter().collect();
        e.subcommand(&ops).map(|(len, risk, _)| (len, risk))
    };
    assert_eq!(sub("osd tree"), Some((1, Risk::ReadOnly)));
    assert_eq!(sub("osd purge 3"), Some((2, Risk::Destructive)));
    assert_eq!(sub("pg 1.0 lost"), Some((3, Risk::Destructive)));
    assert_eq!(sub("list-units"), Some((1, Risk::ReadOnly)));
    assert_eq!(sub("pool rm"), None);
}

#[test]
fn a_command_operand_takes_the_rest_of_the_line() {
    let e = entry(
        "- program: t\n  default: read_only\n  operands: [plain, command]\n  options: {plain: [-k=, -v], as_plain: [-p], payload: [-c]}\n  examples: {read_only: [t]}",
    );
    let shown = |line: &str| {
        let args = words(line);
        let p = e.read_args(&args);
        let ops: Vec<&str> = p.operands.iter().map(|o| o.shown()).collect();
        let payload = p
            .payload
            .map(|(kind, w)| format!("{kind:?}: {}", w.iter().map(|a| a.shown()).collect::<Vec<_>>().join(" ")));
        format!("{} | {}", ops.join(" "), payload.unwrap_or_default())
    };
    // Options after the command are the command's.
    assert_eq!(shown("-k 1 5 ls -k -v"), "5 | Command: ls -k -v");
    // Options may come between leading operands; `--` ends them.
    assert_eq!(shown("5 -v -- -k x"), "5 | Command: -k x");
    // A switch makes the operands names: nothing runs.
    assert_eq!(shown("-p 5 4242"), "5 4242 | ");
    // An unknown option may take the next word: that reading leaves it out.
    let args = words("-z 5 ls");
    assert_eq!(e.read_args(&args).unsure, vec![1]);
}
