//! Judges one invocation of a program by its table entry: reads the arguments by the entry's
//! options (with their arities), applies what each option, value and subcommand does, judges the
//! command a wrapper runs, and gives the program's verdict as a whole.

use nomos_types::Risk;

use super::{glob_matches, Arity, Effect, Entry, Operand, OptionSpec, ANY_LATER};
use crate::paths::is_block_device;
use crate::rules::{reader, script_arg, Args};
use crate::shell::{Analysis, Arg, Stdin};

/// Other readings of one invocation (an option whose arity is not known) tried at most.
const MAX_READINGS: usize = 3;

/// An option as given on the command line.
pub(super) struct Given<'e> {
    /// As written, without a value (`-o`, `--outp`).
    pub(super) word: String,
    /// What it may stand for (several for an ambiguous abbreviation); empty when unknown.
    pub(super) specs: Vec<&'e OptionSpec>,
    pub(super) value: Option<Arg>,
    /// The index of the word it is in.
    at: usize,
    /// Where in its word it starts: the letters of a cluster before it (`-i` of `-iS'…'`) end
    /// there. An offset, not a copy, so that a long cluster costs no more than its length.
    prefix: usize,
    /// The index of the first word after it and its value.
    end: usize,
}

pub(super) struct Parsed<'e, 'a> {
    pub(super) options: Vec<Given<'e>>,
    /// Operands before what the program runs.
    pub(super) operands: Vec<&'a Arg>,
    /// A command given to an option that takes the rest of the words (`pidstat -e CMD …`).
    command: Vec<Arg>,
    /// What the operands make it run: a command, shell text or a shell's arguments, with its words.
    pub(super) payload: Option<(Operand, Vec<Arg>)>,
    /// Words another reading of the line leaves out: the value an unknown option may take, an
    /// ambiguous option's value, a word computed at run time that may expand to nothing.
    pub(super) unsure: Vec<usize>,
}

impl Given<'_> {
    fn has(&self, effect: Effect) -> bool {
        self.specs.iter().any(|s| s.effects.contains(&effect))
    }
}

/// The next word, as an option's value.
fn take(args: &[Arg], i: &mut usize) -> Option<Arg> {
    let value = args.get(*i).cloned();
    *i += 1;
    value
}

/// A word that is a number (`-5` for `head`, `-1` for `journalctl -b`): not an option anyone lists.
fn numeric(word: &str) -> bool {
    word.len() > 1 && word.as_bytes().get(1..).is_some_and(|rest| rest.iter().all(u8::is_ascii_digit))
}

/// The kind of the operand at position `k` (the last kind applies to the rest).
fn kind_at(kinds: &[Operand], k: usize) -> Operand {
    kinds.get(k).or(kinds.last()).copied().unwrap_or(Operand::Plain)
}

/// Values that turn a boolean option off (`--dry-run=false`, `--simulate no`).
fn is_off(value: &str) -> bool {
    matches!(
        value.to_ascii_lowercase().as_str(),
        "false" | "no" | "0" | "off" | "disable" | "disabled" | "without" | "n"
    )
}

/// Values that leave a dry run on (`--dry-run=true`, `--dry-run=client`).
fn is_on(value: &str) -> bool {
    matches!(
        value.to_ascii_lowercase().as_str(),
        "" | "true" | "yes" | "1" | "on" | "enable" | "enabled" | "with" | "y" | "client" | "server" | "all"
    )
}

impl Entry {
    /// Reads the arguments as getopt would: options anywhere before `--` (before the first operand
    /// when `ordered`), clusters of short options, values attached or in the next word; a command
    /// operand takes every word after it.
    pub(super) fn read_args<'e, 'a>(&'e self, args: &'a [Arg]) -> Parsed<'e, 'a> {
        self.read_args_as(args, self.ordered)
    }

    /// [`Entry::read_args`], with options ending at the first operand or not.
    pub(super) fn read_args_as<'e, 'a>(&'e self, args: &'a [Arg], ordered: bool) -> Parsed<'e, 'a> {
        let mut parsed = Parsed {
            options: Vec::new(),
            operands: Vec::new(),
            command: Vec::new(),
            payload: None,
            unsure: Vec::new(),
        };
        let wrapper = self.runs_commands();
        let mut kinds = self.operands.clone();
        let mut i = 0;
        let mut after_dashes = false;
        while let Some(arg) = args.get(i) {
            let at = i;
            i += 1;
            let options_over = after_dashes || (ordered && !parsed.operands.is_empty());
            let word = match arg.as_static() {
                Some(w) if !options_over => w,
                _ => {
                    if wrapper && arg.as_static().is_none() {
                        // `sudo $OPTS reboot`: the word may be options, or nothing at all.
                        parsed.unsure.push(at);
                    }
                    let kind = kind_at(&kinds, parsed.operands.len());
                    if matches!(kind, Operand::Command | Operand::Script) {
                        parsed.payload = Some((kind, args.iter().skip(at).cloned().collect()));
                        break;
                    }
                    parsed.operands.push(arg);
                    continue;
                }
            };
            let before = parsed.options.len();
            let given = |word: &str, specs, value, prefix: usize, end| Given {
                word: word.to_string(),
                specs,
                value,
                at,
                prefix,
                end,
            };
            if word == "--" {
                after_dashes = true;
            } else if word.starts_with("--") && word.len() > 2 {
                let (key, inline) = match word.split_once('=') {
                    Some((k, v)) => (k, Some(v)),
                    None => (word, None),
                };
                let mut specs = self.long_options(key);
                // `--no-dry-run` for a dry-run option `--dry-run` undoes it.
                if specs.is_empty() {
                    let negated = key.strip_prefix("--no-").map(|n| format!("--{n}"));
                    if negated
                        .is_some_and(|n| self.long_options(&n).iter().any(|s| s.effects.contains(&Effect::DryRun)))
                    {
                        specs = vec![&self.negated_dry_run];
                    }
                }
                let required = specs.iter().filter(|s| s.arity == Arity::Required).count();
                let value = match inline {
                    Some(v) => Some(Arg::Static(v.to_string())),
                    None if required > 0 => take(args, &mut i),
                    None => None,
                };
                if wrapper && inline.is_none() {
                    if specs.is_empty() && i < args.len() {
                        parsed.unsure.push(i);
                    } else if required > 0 && required < specs.len() {
                        parsed.unsure.push(at);
                    }
                }
                parsed.options.push(given(key, specs, value, 0, i));
            } else if let Some(spec) = self.exact_option(word).filter(|_| word.starts_with('-') || word == "==") {
                // A single short option, or a whole word (`-dump`, `-out`, `-1`, `-`).
                let value = if spec.arity == Arity::Required { take(args, &mut i) } else { None };
                parsed.options.push(given(word, vec![spec], value, 0, i));
            } else if let Some((spec, value)) = self.word_option_with_value(word) {
                // A whole word with its value attached (`-out=plan`, `-chdir=/srv`).
                let value = Some(Arg::Static(value.to_string()));
                parsed.options.push(given(&spec.name, vec![spec], value, 0, i));
            } else if word.starts_with('-') && word.len() > 1 && numeric(word) {
                // A count or a number given as an option (`head -20`); nothing to judge.
            } else if word.starts_with('-') && word.len() > 1 && word != "==" {
                // A cluster: `-rf`, `-uo FILE`, `-oFILE`, `-n10`.
                let mut letters = word.char_indices();
                letters.next(); // The `-`.
                while let Some((k, c)) = letters.next() {
                    let short = format!("-{c}");
                    // `k` is where `c` starts: `get` always finds what comes before it.
                    let prefix = k;
                    let rest = letters.as_str();
                    let Some(spec) = self.exact_option(&short) else {
                        if wrapper && rest.is_empty() && i < args.len() {
                            parsed.unsure.push(i);
                        }
                        parsed.options.push(given(&short, Vec::new(), None, prefix, i));
                        continue;
                    };
                    let value = match spec.arity {
                        Arity::None => None,
                        _ if !rest.is_empty() => Some(Arg::Static(rest.to_string())),
                        Arity::Required => take(args, &mut i),
                        Arity::Optional => None,
                    };
                    let takes_value = spec.arity != Arity::None;
                    parsed.options.push(given(&short, vec![spec], value, prefix, i));
                    if takes_value {
                        break;
                    }
                }
            } else {
                let kind = kind_at(&kinds, parsed.operands.len());
                if matches!(kind, Operand::Command | Operand::Script) {
                    parsed.payload = Some((kind, args.iter().skip(at).cloned().collect()));
                    break;
                }
                parsed.operands.push(arg);
            }
            // An option that changes what the operands are (`watch -x`, `command -v`).
            for g in parsed.options.iter().skip(before) {
                for e in g.specs.iter().flat_map(|s| s.effects.iter()) {
                    if let Effect::Operands(kind) = e {
                        kinds = vec![*kind];
                    }
                }
            }
            // An option whose value starts a command takes every word after it too.
            if let Some(given) = parsed.options.iter_mut().skip(before).last().filter(|g| g.has(Effect::Command)) {
                parsed.command.extend(given.value.take());
                parsed.command.extend(args.get(i..).unwrap_or(&[]).iter().cloned());
                break;
            }
        }
        // Operands read before an option made them a command (`runuser reboot -u root`), and a
        // shell's arguments, which may sit among options (`su root -- -c reboot`).
        if parsed.payload.is_none() {
            if let Some(k) = (0..parsed.operands.len()).find(|&k| kind_at(&kinds, k).is_payload()) {
                let words = parsed.operands.split_off(k).into_iter().cloned().collect();
                parsed.payload = Some((kind_at(&kinds, k), words));
            }
        }
        parsed
    }

    /// `-name=value` for a whole-word option that takes a value.
    fn word_option_with_value<'w>(&self, word: &'w str) -> Option<(&OptionSpec, &'w str)> {
        let (name, value) = word.split_once('=')?;
        let spec = self.exact_option(name).filter(|_| name.len() > 2 && !name.starts_with("--"))?;
        (spec.arity != Arity::None).then_some((spec, value))
    }

    /// The longest subcommand path the operands start with (the riskiest of equally long ones). A
    /// path with `...` matches up to the last operand.
    pub(super) fn subcommand(&self, operands: &[&Arg]) -> Option<(usize, Risk, bool)> {
        let words: Vec<Option<String>> = operands
            .iter()
            .map(|o| o.as_static().map(|w| if self.case_insensitive { w.to_lowercase() } else { w.to_string() }))
            .collect();
        let word_matches = |p: &String, w: &Option<String>| {
            w.as_deref().is_some_and(|w| {
                p == "*" || if self.case_insensitive { glob_matches(&p.to_lowercase(), w) } else { glob_matches(p, w) }
            })
        };
        let starts =
            |path: &[String]| path.len() <= words.len() && path.iter().zip(&words).all(|(p, w)| word_matches(p, w));
        self.subcommands
            .iter()
            .filter_map(|s| {
                match s.path.iter().position(|w| w == ANY_LATER) {
                    None => starts(&s.path).then_some(s.path.len()),
                    // `k` is the index of `...` in the path: the words before it always exist.
                    Some(k) => (s.path.get(..k).is_some_and(starts)
                        && s.path.last().is_some_and(|last| words.iter().skip(k).any(|w| word_matches(last, w))))
                    .then_some(words.len()),
                }
                .map(|len| (len, s.risk, s.secret))
            })
            .max()
    }

    fn say<'s>(&'s self, key: &str, fallback: &'s str) -> &'s str {
        self.says.get(key).map_or(fallback, String::as_str)
    }

    /// What the reasons say of a program doing this as a whole.
    fn says_level(&self, risk: Risk) -> &str {
        let fallback = match risk {
            Risk::ReadOnly if self.runs_commands() => "runs what it is given, judged on its own",
            Risk::ReadOnly if self.operands.contains(&Operand::Read) => "only reads",
            Risk::ReadOnly => "only reports",
            Risk::ReversibleLow => "starts, stops or restarts something",
            Risk::ConfigMutation => "changes the system",
            Risk::Destructive => "destroys data or takes something down",
        };
        self.say(risk.as_str(), fallback)
    }
}

impl Entry {
    /// The level the entry gives this invocation's subcommand, when it lists one.
    pub(crate) fn subcommand_level(&self, args: &[Arg]) -> Option<Risk> {
        let parsed = self.read_args(args);
        self.subcommand(&parsed.operands).map(|(_, risk, secret)| if secret { Risk::Destructive } else { risk })
    }
}

/// Judges one invocation of `base` by its entry.
pub(crate) fn interpret(an: &mut Analysis<'_>, base: &str, entry: &Entry, args: &[Arg], stdin: &Stdin) {
    judge(an, base, entry, args, stdin);
}

fn judge(an: &mut Analysis<'_>, base: &str, entry: &Entry, args: &[Arg], stdin: &Stdin) {
    let parsed = entry.read_args(args);
    // `env -S 'A B' C`: the words of the string take its place, and the line is read again.
    if let Some(g) = parsed.options.iter().find(|g| g.has(Effect::Split)) {
        let words = g.value.as_ref().and_then(Arg::as_static).and_then(split_words);
        match words {
            Some(words) => {
                let mut again: Vec<Arg> = args.iter().take(g.at).cloned().collect();
                let before = args.get(g.at).and_then(Arg::as_static).and_then(|w| w.get(..g.prefix));
                if let Some(before) = before.filter(|b| b.len() > 1) {
                    again.push(Arg::Static(before.to_string()));
                }
                again.extend(words);
                again.extend_from_slice(args.get(g.end..).unwrap_or(&[]));
                return judge(an, base, entry, &again, stdin);
            }
            None => an.raise(
                Risk::ConfigMutation,
                format!("`{base} {}` splits a string that cannot be read before it runs", g.word),
            ),
        }
    }
    let mut modes: Vec<(Risk, String)> = Vec::new();
    let mut dry_run = false;
    let mut dir: Option<Arg> = None;
    let mut has_command = false;
    let mut inert_command = false;
    // A fan-out's argument file (`xargs -a FILE`) takes the place of its input.
    let mut arg_file = false;
    for given in &parsed.options {
        if given.specs.is_empty() {
            // Read-only is proven option by option: one the entry does not list could do anything.
            let says = entry.say("unknown", "is not an option known to be read-only");
            an.raise(entry.unknown, format!("`{base} {}` {says}", given.word));
            continue;
        }
        let plain = given
            .specs
            .iter()
            .all(|s| s.effects.iter().all(|e| matches!(e, Effect::Plain | Effect::Command | Effect::Operands(_))));
        if plain && entry.values.is_empty() {
            continue;
        }
        let what = format!("`{base} {}`", given.word);
        let mut effects: Vec<Effect> = given.specs.iter().flat_map(|s| s.effects.iter().copied()).collect();
        if let Some(value) = given.value.as_ref().and_then(Arg::as_static) {
            effects.extend(
                entry
                    .values
                    .iter()
                    .filter(|r| given.specs.iter().any(|s| r.options.contains(&s.name)))
                    .filter(|r| r.matches.iter().any(|m| glob_matches(m, value)))
                    .map(|r| r.effect),
            );
        }
        for effect in effects {
            match effect {
                Effect::Plain | Effect::Command | Effect::Operands(_) | Effect::Split => {}
                Effect::Mode(risk) => modes.push((risk, what.clone())),
                Effect::DryRun => {
                    // `--dry-run=false` undoes it, as does an off word after it (`-s no`).
                    let value = given.value.as_ref().map(|v| v.as_static().unwrap_or("?"));
                    let next_off =
                        given.value.is_none() && args.get(given.end).and_then(Arg::as_static).is_some_and(is_off);
                    dry_run = value.is_none_or(is_on) && !next_off;
                }
                Effect::NoDryRun => dry_run = false,
                Effect::Raise(risk) => an.raise(risk, format!("{what} {}", entry.says_level(risk))),
                Effect::Secret => an.raise_secret(
                    Risk::Destructive,
                    format!("{what} {}", entry.say("secret", "prints secret material")),
                ),
                Effect::Network => an.raise(
                    Risk::ConfigMutation,
                    format!(
                        "{what} {}",
                        entry.say("network", "opens a network service or sends data to another machine")
                    ),
                ),
                Effect::Loads => an.raise(
                    Risk::ConfigMutation,
                    format!("{what} {}", entry.say("loads", "loads code, or a configuration that can run commands")),
                ),
                Effect::Writes => match &given.value {
                    Some(v) => an.write_target(v, &what),
                    None => an.raise(Risk::ConfigMutation, format!("{what} {}", entry.say("writes", "writes a file"))),
                },
                Effect::Reads => {
                    if let Some(v) = &given.value {
                        read_file(an, &what, v);
                    }
                    arg_file |= entry.stdin_args;
                }
                Effect::Runs => {
                    an.raise(Risk::ConfigMutation, format!("{what} {}", entry.say("runs", "runs another program")));
                    if let Some(v) = &given.value {
                        an.run(std::slice::from_ref(v), &Stdin::default());
                        // A value with blanks may reach a shell; a program that cannot be seen
                        // into is rated at the worst it could do.
                        if let Some(text) = v.as_static() {
                            crate::rules::run_given(an, &what, text);
                        }
                    }
                }
                Effect::Script => {
                    an.raise(Risk::ConfigMutation, format!("{what} {}", entry.say("script", "runs a script")));
                    script_arg(an, &what, given.value.as_ref());
                }
                Effect::Payload => {
                    has_command = true;
                    script_arg(an, &what, given.value.as_ref());
                }
                Effect::Chdir => dir = given.value.clone(),
                Effect::Env => match &given.value {
                    Some(Arg::Static(v)) => assignment(an, &what, v),
                    _ => an.raise(Risk::ConfigMutation, format!("{what} sets a variable built at run time")),
                },
                Effect::Lock => {
                    let file = given.value.as_ref().map_or("a file", Arg::shown);
                    an.raise(
                        Risk::ConfigMutation,
                        format!("{what} {} {file}", entry.say("lock", "takes a lock on, creating if missing,")),
                    );
                }
                Effect::Pipe => {
                    if let Some(command) = given.value.as_ref().and_then(Arg::as_static).and_then(|v| v.get(1..)) {
                        an.raise(Risk::ConfigMutation, format!("{what} pipes its output to a command"));
                        an.script(command);
                    }
                }
                Effect::ExecLine => {
                    let line = given.value.as_ref().and_then(Arg::as_static).and_then(|v| v.split_once('='));
                    if let Some((_, command)) = line {
                        an.script(command.trim_start_matches(['-', '@', ':', '+', '!', '|']));
                    }
                }
            }
        }
    }
    if !parsed.command.is_empty() {
        has_command = true;
        an.run(&parsed.command, stdin);
        // `fd … -x CMD` runs CMD on every file it finds, as `xargs` does on its input's names.
        if matches!(base, "fd" | "fdfind") {
            mass_action(an, base, &parsed.command, true);
        }
    }
    // What an argument file holds is not seen here (a pipe another command fills included).
    let fed = Stdin { texts: Vec::new(), unknown: true };
    let stdin = if arg_file { &fed } else { stdin };
    if let Some((kind, words)) = &parsed.payload {
        let mut words = words.as_slice();
        if entry.assignments && *kind == Operand::Command {
            // `env NAME=value … cmd`, `sudo NAME=value cmd`.
            while let Some((w, after)) = words.split_first() {
                let Some(w) = w.as_static().filter(|w| is_assignment(w)) else { break };
                assignment(an, &format!("`{base}`"), w);
                words = after;
            }
        }
        if !words.is_empty() {
            has_command = true;
            an.in_dir(dir.as_ref(), |an| match kind {
                Operand::Script => {
                    // What is piped to the wrapper is its script's input (`pdsh … 'bash -s' <<< …`).
                    an.script_fed(&words.iter().map(Arg::shown).collect::<Vec<_>>().join(" "), stdin);
                    // A wrapper that takes a command and was switched to hand it to a shell
                    // (`sudo -i`, `sudo -s`) escapes each word first: the shell gets the same
                    // words, so `sudo -i bash -c 'a b'` runs `a b`. Both readings are judged.
                    if entry.operands.contains(&Operand::Command) {
                        an.run(words, stdin);
                    }
                }
                Operand::ShellArgs => {
                    let mut argv = vec![Arg::Static("sh".into())];
                    argv.extend_from_slice(words);
                    an.run(&argv, stdin);
                }
                _ => {
                    an.run(words, stdin);
                    // `lxc-attach 101 -- cmd`: a name given without its option; what follows
                    // `--` is the command.
                    if let Some(k) = words.iter().position(|w| w.as_static() == Some("--")).filter(|k| *k > 0) {
                        an.run(words.get(k + 1..).unwrap_or(&[]), stdin);
                    }
                    // The same command run on every name its input gives (`… | xargs qm stop`):
                    // stopping, killing or destroying each of them can take them all down.
                    if entry.stdin_args {
                        mass_action(an, base, words, stdin.unknown || stdin.texts.is_empty());
                    }
                    // A program no argument can change (`xargs echo`) does the same whatever
                    // words the input adds.
                    inert_command = entry.stdin_args
                        && words.first().and_then(Arg::as_static).is_some_and(|w| {
                            let (name, trusted) = crate::rules::identity(w);
                            trusted && super::table().get(name).is_some_and(|e| e.inert)
                        });
                    if entry.stdin_args && (stdin.unknown || stdin.texts.is_empty()) {
                        unseen_code(an, words);
                    }
                    if entry.stdin_args {
                        for text in &stdin.texts {
                            let mut argv = words.to_vec();
                            argv.extend(text.split_whitespace().map(|w| Arg::Static(w.to_string())));
                            an.run(&argv, &Stdin::default());
                        }
                    }
                }
            });
        }
    }
    if entry.stdin_commands && parsed.operands.is_empty() {
        for line in stdin.texts.iter().flat_map(|t| t.lines()) {
            let words: Vec<Arg> = line.split_whitespace().map(|w| Arg::Static(w.to_string())).collect();
            if words.is_empty() {
                continue;
            }
            let mut argv = vec![Arg::Static(base.to_string())];
            argv.extend_from_slice(args);
            argv.extend(words);
            an.run(&argv, &Stdin::default());
        }
    }
    if entry.stdin_script {
        for text in &stdin.texts {
            an.script(text);
        }
    }
    // Another reading of the line for each option whose arity is not known (and each word that
    // may expand to nothing): what that reading runs is judged too.
    for &skip in parsed.unsure.iter().take(MAX_READINGS) {
        let other: Vec<Arg> = args.iter().enumerate().filter(|(k, _)| *k != skip).map(|(_, a)| a.clone()).collect();
        an.another_reading(|an| judge(an, base, entry, &other, stdin));
    }
    let sub = entry.subcommand(&parsed.operands);
    let sub_len = sub.map_or(0, |(len, _, _)| len);
    // Operands after the subcommand path, by position.
    for (k, op) in parsed.operands.iter().skip(sub_len).enumerate() {
        match kind_at(&entry.operands, k) {
            Operand::Write => {
                // `tee -a` adds to the file rather than replacing it.
                let append =
                    base == "tee" && parsed.options.iter().any(|g| g.word == "-a" || g.word.starts_with("--app"));
                an.write_target_as(op, &format!("`{base}`"), append);
                // What `tee` is fed is what lands in the file.
                if base == "tee" && !stdin.unknown && !stdin.texts.is_empty() {
                    if let Some(path) = op.as_static() {
                        an.written_text(path, &stdin.texts);
                    }
                }
            }
            Operand::Lock => an.raise(
                Risk::ConfigMutation,
                format!("`{base}` {} {}", entry.say("lock", "takes a lock on, creating if missing,"), op.shown()),
            ),
            _ => {}
        }
    }
    if entry.operands.contains(&Operand::Read) {
        let read: Vec<&Arg> = parsed
            .operands
            .iter()
            .skip(sub_len)
            .enumerate()
            .filter(|(k, _)| kind_at(&entry.operands, *k) == Operand::Read)
            .map(|(_, op)| *op)
            .collect();
        reader(an, base, &Args::new(args), &read);
    }
    let path: Vec<&str> = parsed.operands.iter().take(sub_len).map(|o| o.shown()).collect();
    // Some subcommands ignore a dry run (`apt-get -s update` updates the lists).
    let dry_run = dry_run
        && !parsed
            .operands
            .first()
            .and_then(|o| o.as_static())
            .is_some_and(|w| entry.dry_run_ignored_by.iter().any(|d| d == w));
    // `taskset -p PID`, `ionice -p PID`, `prlimit --pid PID`: asking, not setting.
    if let Some(q) = &entry.queries {
        let given = |names: &[String]| {
            parsed.options.iter().any(|g| {
                g.specs.iter().any(|s| names.contains(&s.name) && (s.arity != Arity::Optional || g.value.is_some()))
            })
        };
        let payload = parsed.payload.as_ref().map_or(0, |(_, words)| words.len());
        let operands = parsed.operands.len() + payload;
        if given(&q.mode) && !given(&q.setters) && q.operands.is_none_or(|n| n == operands) {
            modes.retain(|(r, _)| *r != Risk::ReversibleLow);
            modes.push((Risk::ReadOnly, format!("`{base}` asking about a process")));
        }
    }
    let (risk, reason) = if dry_run {
        (Risk::ReadOnly, format!("`{base}` with a dry-run option only reports"))
    } else if let Some((risk, what)) = modes.iter().max_by_key(|(r, _)| *r) {
        (*risk, format!("{what} {}", entry.says_level(*risk)))
    } else if let Some((len, risk, secret)) = sub {
        let path = path.join(" ");
        let next = parsed.operands.get(len).and_then(|o| o.as_static());
        if secret {
            an.raise_secret(
                Risk::Destructive,
                format!("`{base} {path}` {}", entry.say("secret", "prints secret material")),
            );
            return;
        }
        match next {
            Some(w) if risk == Risk::ReadOnly && entry.change_words.iter().any(|c| c == w) => {
                (Risk::ConfigMutation, format!("`{base} {path} {w}` {}", entry.says_level(Risk::ConfigMutation)))
            }
            _ => (risk, format!("`{base} {path}` {}", entry.says_level(risk))),
        }
    } else if inert_command {
        (Risk::ReadOnly, format!("`{base}` hands its input to a command that only prints it"))
    } else if let Some(risk) = entry.idle.filter(|_| !has_command) {
        (risk, format!("`{base}` {}", entry.say("idle", "runs no command")))
    } else if let Some(risk) = entry.bare.filter(|_| parsed.operands.is_empty() && !has_command) {
        (risk, format!("`{base}` {}", entry.says_level(risk)))
    } else if entry.default_secret {
        an.raise_secret(Risk::Destructive, format!("`{base}` {}", entry.say("secret", "prints secret material")));
        return;
    } else {
        (entry.default, format!("`{base}` {}", entry.says_level(entry.default)))
    };
    an.raise(risk, reason);
}

/// `NAME=value`, as a word where a command may start: `env` and `sudo` take any name before the
/// `=` (`BASH_FUNC_ls%%=…` too).
fn is_assignment(word: &str) -> bool {
    word.split_once('=').is_some_and(|(name, _)| !name.is_empty() && !name.starts_with('-'))
}

/// A variable set in the command's environment: only an inert one leaves it read-only.
fn assignment(an: &mut Analysis<'_>, what: &str, word: &str) {
    let (name, value) = word.split_once('=').map_or((word, None), |(n, v)| (n, Some(v)));
    let before = an.mark();
    an.environment(name, value);
    if an.max_since(before).is_some() {
        an.raise(Risk::ConfigMutation, format!("{what} sets `{name}` for what it runs"));
    }
}

/// Splits a string into words as `env -S` does: blanks separate, quotes and backslashes escape,
/// `${NAME}` is a variable's value (not known here). `None` when it cannot be read.
fn split_words(text: &str) -> Option<Vec<Arg>> {
    let mut words: Vec<Arg> = Vec::new();
    let mut current = String::new();
    let mut started = false;
    let mut dynamic = false;
    let mut chars = text.chars().peekable();
    let mut finish = |current: &mut String, started: &mut bool, dynamic: &mut bool| {
        if *started {
            words.push(if *dynamic {
                Arg::unknown(std::mem::take(current), Vec::new())
            } else {
                Arg::Static(std::mem::take(current))
            });
        }
        *started = false;
        *dynamic = false;
    };
    while let Some(c) = chars.next() {
        match c {
            ' ' | '\t' | '\n' | '\x0b' | '\x0c' | '\r' => finish(&mut current, &mut started, &mut dynamic),
            '#' if !started => break,
            '\'' => {
                started = true;
                loop {
                    match chars.next()? {
                        '\'' => break,
                        ch => current.push(ch),
                    }
                }
            }
            '"' => {
                started = true;
                loop {
                    match chars.next()? {
                        '"' => break,
                        '\\' => current.push(chars.next()?),
                        '$' => {
                            dynamic = true;
                            current.push('$');
                        }
                        ch => current.push(ch),
                    }
                }
            }
            '\\' => {
                started = true;
                match chars.next()? {
                    '_' => current.push(' '),
                    'c' => break,
                    'n' => current.push('\n'),
                    't' => current.push('\t'),
                    ch => current.push(ch),
                }
            }
            '$' => {
                started = true;
                dynamic = true;
                current.push('$');
            }
            ch => {
                started = true;
                current.push(ch);
            }
        }
    }
    finish(&mut current, &mut started, &mut dynamic);
    Some(words)
}

/// A file named by an option's value is read: one named at run time could be anything, and a raw
/// disk holds every secret on it. (Secret files themselves are found for every program.)
fn read_file(an: &mut Analysis<'_>, what: &str, value: &Arg) {
    if let Arg::Dynamic { text, .. } = value {
        an.raise(Risk::ConfigMutation, format!("{what} reads a file named at run time (`{text}`)"));
    }
    if value.values().into_iter().any(is_block_device) {
        an.raise_secret(Risk::ConfigMutation, format!("{what} reads a raw disk ({}), secrets and all", value.shown()));
    }
}

/// A fan-out whose command takes code from the words its unseen input adds (`xargs sh -c`,
/// `xargs -I{} bash -c '{}'`, `xargs perl -e`): that code is rated at the worst it could do.
fn unseen_code(an: &mut Analysis<'_>, words: &[Arg]) {
    let code_option = |w: Option<&Arg>| {
        w.and_then(Arg::as_static).is_some_and(|w| matches!(w, "-c" | "-e" | "-E" | "--eval" | "--command" | "-ec"))
    };
    let unseen = || Arg::unknown("<input>", Vec::new());
    let mut argv = words.to_vec();
    let mut changed = false;
    // The replacement string inside the code option's value.
    for k in 1..argv.len() {
        if code_option(argv.get(k - 1)) && argv.get(k).and_then(Arg::as_static).is_some_and(|w| w.contains("{}")) {
            if let Some(slot) = argv.get_mut(k) {
                *slot = unseen();
                changed = true;
            }
        }
    }
    // The code option last: the input's first word is the code.
    if code_option(argv.last()) {
        argv.push(unseen());
        changed = true;
    }
    if changed {
        let program = words.first().map_or("", Arg::shown);
        an.raise(Risk::Destructive, format!("`{program}` runs code its unseen input supplies"));
        an.run(&argv, &Stdin::default());
    }
}

/// A command run on every name a fan-out reads (`xargs qm stop`, `xargs -I{} systemctl stop {}`)
/// that stops, kills or destroys what it names: for some input that is every guest, service or
/// process there is.
fn mass_action(an: &mut Analysis<'_>, base: &str, words: &[Arg], unseen: bool) {
    const ACTIONS: &[&str] = &[
        "stop", "shutdown", "suspend", "reset", "reboot", "poweroff", "halt", "destroy", "kill", "pause", "disable",
        "down",
    ];
    let plain: Vec<&str> = words.iter().filter_map(Arg::as_static).filter(|w| !w.starts_with('-')).take(3).collect();
    let program = plain.first().map(|p| p.rsplit('/').next().unwrap_or(p)).unwrap_or_default();
    if let Some(action) = plain.iter().skip(1).find(|w| ACTIONS.contains(w)) {
        an.raise(
            Risk::Destructive,
            format!("`{base} {program} {action}` acts on every name its input gives, which can be all of them"),
        );
    } else if matches!(program, "kill" | "pkill" | "killall") {
        an.raise(Risk::Destructive, format!("`{base} {program}` signals whatever its input names, PID 1 included"));
    } else if unseen && matches!(program, "rm" | "unlink" | "shred" | "truncate" | "wipefs") {
        an.raise(Risk::Destructive, format!("`{base} {program}` removes whatever files its unseen input names"));
    }
}

#[cfg(test)]
mod tests {
    use super::split_words;
    use crate::shell::Arg;

    #[test]
    fn strings_split_as_env_splits_them() {
        let shown = |t: &str| {
            split_words(t).map(|w| {
                w.iter()
                    .map(|a| format!("{}{}", a.shown(), if a.as_static().is_some() { "" } else { "?" }))
                    .collect::<Vec<_>>()
                    .join("|")
            })
        };
        assert_eq!(shown("sh -c 'rm -rf /'").as_deref(), Some("sh|-c|rm -rf /"));
        assert_eq!(shown(r#"a\_b "c d" ${X} # comment"#).as_deref(), Some("a b|c d|${X}?"));
        assert_eq!(shown("'open"), None);
        let _ = Arg::Static(String::new());
    }
}
