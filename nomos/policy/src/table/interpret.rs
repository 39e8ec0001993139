//! Judges one invocation of a program by its table entry: reads the arguments by the entry's
//! options (with their arities), applies what each option, value and subcommand does, and gives
//! the program's verdict as a whole.

use nomos_types::Risk;

use super::{glob_matches, Arity, Effect, Entry, Operand, OptionSpec};
use crate::paths::is_block_device;
use crate::rules::{reader, script_arg, Args};
use crate::shell::{Analysis, Arg, Stdin};

/// An option as given on the command line.
pub(super) struct Given<'e> {
    /// As written, without a value (`-o`, `--outp`).
    pub(super) word: String,
    /// What it may stand for (several for an ambiguous abbreviation); empty when unknown.
    pub(super) specs: Vec<&'e OptionSpec>,
    pub(super) value: Option<Arg>,
}

pub(super) struct Parsed<'e, 'a> {
    pub(super) options: Vec<Given<'e>>,
    pub(super) operands: Vec<&'a Arg>,
    /// A command given to an option that takes the rest of the words (`pidstat -e CMD …`).
    command: Vec<Arg>,
}

impl Given<'_> {
    fn takes_command(&self) -> bool {
        self.specs.iter().any(|s| s.effects.contains(&Effect::Command))
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
    word.len() > 1 && word[1..].bytes().all(|b| b.is_ascii_digit())
}

impl Entry {
    /// Reads the arguments as getopt would: options anywhere before `--`, clusters of short
    /// options, values attached or in the next word.
    pub(super) fn read_args<'e, 'a>(&'e self, args: &'a [Arg]) -> Parsed<'e, 'a> {
        let mut parsed = Parsed { options: Vec::new(), operands: Vec::new(), command: Vec::new() };
        let mut i = 0;
        let mut after_dashes = false;
        while i < args.len() {
            let arg = &args[i];
            i += 1;
            let word = match arg.as_static() {
                Some(w) if !after_dashes => w,
                _ => {
                    parsed.operands.push(arg);
                    continue;
                }
            };
            let before = parsed.options.len();
            if word == "--" {
                after_dashes = true;
            } else if word.starts_with("--") && word.len() > 2 {
                let (key, inline) = match word.split_once('=') {
                    Some((k, v)) => (k, Some(v)),
                    None => (word, None),
                };
                let specs = self.long_options(key);
                let value = match inline {
                    Some(v) => Some(Arg::Static(v.to_string())),
                    None if specs.iter().any(|s| s.arity == Arity::Required) => take(args, &mut i),
                    None => None,
                };
                parsed.options.push(Given { word: key.to_string(), specs, value });
            } else if let Some(spec) = self.exact_option(word).filter(|_| word.starts_with('-')) {
                // A single short option, or a whole word (`-dump`, `-out`, `-1`).
                let value = if spec.arity == Arity::Required { take(args, &mut i) } else { None };
                parsed.options.push(Given { word: word.to_string(), specs: vec![spec], value });
            } else if let Some((spec, value)) = self.word_option_with_value(word) {
                // A whole word with its value attached (`-out=plan`, `-chdir=/srv`).
                let value = Some(Arg::Static(value.to_string()));
                parsed.options.push(Given { word: spec.name.clone(), specs: vec![spec], value });
            } else if word.starts_with('-') && word.len() > 1 && numeric(word) {
                // A count or a number given as an option (`head -20`); nothing to judge.
            } else if word.starts_with('-') && word.len() > 1 {
                // A cluster: `-rf`, `-uo FILE`, `-oFILE`, `-n10`.
                for (k, c) in word.char_indices().skip(1) {
                    let short = format!("-{c}");
                    let Some(spec) = self.exact_option(&short) else {
                        parsed.options.push(Given { word: short, specs: Vec::new(), value: None });
                        continue;
                    };
                    let rest = &word[k + c.len_utf8()..];
                    let value = match spec.arity {
                        Arity::None => None,
                        _ if !rest.is_empty() => Some(Arg::Static(rest.to_string())),
                        Arity::Required => take(args, &mut i),
                        Arity::Optional => None,
                    };
                    let takes_value = spec.arity != Arity::None;
                    parsed.options.push(Given { word: short, specs: vec![spec], value });
                    if takes_value {
                        break;
                    }
                }
            } else {
                parsed.operands.push(arg);
            }
            // An option whose value starts a command takes every word after it too.
            if let Some(given) = parsed.options[before..].last_mut().filter(|g| g.takes_command()) {
                parsed.command.extend(given.value.take());
                parsed.command.extend(args[i..].iter().cloned());
                break;
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

    /// The longest subcommand path the operands start with (the riskiest of equally long ones).
    pub(super) fn subcommand(&self, operands: &[&Arg]) -> Option<(usize, Risk, bool)> {
        let words: Vec<Option<&str>> = operands.iter().map(|o| o.as_static()).collect();
        self.subcommands
            .iter()
            .filter(|s| {
                s.path.len() <= words.len()
                    && s.path.iter().zip(&words).all(|(p, w)| w.is_some_and(|w| p == "*" || glob_matches(p, w)))
            })
            .map(|s| (s.path.len(), s.risk, s.secret))
            .max()
    }

    fn say<'s>(&'s self, key: &str, fallback: &'s str) -> &'s str {
        self.says.get(key).map_or(fallback, String::as_str)
    }

    /// What the reasons say of a program doing this as a whole.
    fn says_level(&self, risk: Risk) -> &str {
        let fallback = match risk {
            Risk::ReadOnly if self.operands.contains(&Operand::Read) => "only reads",
            Risk::ReadOnly => "only reports",
            Risk::ReversibleLow => "starts, stops or restarts something",
            Risk::ConfigMutation => "changes the system",
            Risk::Destructive => "destroys data or takes something down",
        };
        self.say(risk.as_str(), fallback)
    }
}

/// Judges one invocation of `base` by its entry.
pub(crate) fn interpret(an: &mut Analysis<'_>, base: &str, entry: &Entry, args: &[Arg]) {
    let parsed = entry.read_args(args);
    let mut modes: Vec<(Risk, String)> = Vec::new();
    let mut dry_run = false;
    for given in &parsed.options {
        if given.specs.is_empty() {
            if let Some(risk) = entry.unknown {
                let says = entry.say("unknown", "is not an option known to be read-only");
                an.raise(risk, format!("`{base} {}` {says}", given.word));
            }
            continue;
        }
        let plain = given.specs.iter().all(|s| s.effects.iter().all(|e| matches!(e, Effect::Plain | Effect::Command)));
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
                Effect::Plain | Effect::Command => {}
                Effect::Mode(risk) => modes.push((risk, what.clone())),
                Effect::DryRun => dry_run = true,
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
                }
                Effect::Runs => {
                    an.raise(Risk::ConfigMutation, format!("{what} {}", entry.say("runs", "runs another program")));
                    if let Some(v) = &given.value {
                        an.run(std::slice::from_ref(v), &Stdin::default());
                    }
                }
                Effect::Script => {
                    an.raise(Risk::ConfigMutation, format!("{what} {}", entry.say("script", "runs a script")));
                    script_arg(an, &what, given.value.as_ref());
                }
            }
        }
    }
    if !parsed.command.is_empty() {
        an.run(&parsed.command, &Stdin::default());
    }
    let sub = entry.subcommand(&parsed.operands);
    let sub_len = sub.map_or(0, |(len, _, _)| len);
    // Operands after the subcommand path, by position.
    for (k, op) in parsed.operands.iter().skip(sub_len).enumerate() {
        match entry.operands.get(k).or(entry.operands.last()).copied().unwrap_or(Operand::Plain) {
            Operand::Plain | Operand::Read => {}
            Operand::Write => an.write_target(op, &format!("`{base}`")),
        }
    }
    if entry.operands.contains(&Operand::Read) {
        let read: Vec<&Arg> = parsed
            .operands
            .iter()
            .skip(sub_len)
            .enumerate()
            .filter(|(k, _)| entry.operands.get(*k).or(entry.operands.last()) == Some(&Operand::Read))
            .map(|(_, op)| *op)
            .collect();
        reader(an, base, &Args::new(args), &read);
    }
    let path: Vec<&str> = parsed.operands.iter().take(sub_len).map(|o| o.shown()).collect();
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
    } else if let Some(risk) = entry.bare.filter(|_| parsed.operands.is_empty()) {
        (risk, format!("`{base}` {}", entry.says_level(risk)))
    } else {
        (entry.default, format!("`{base}` {}", entry.says_level(entry.default)))
    };
    an.raise(risk, reason);
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
