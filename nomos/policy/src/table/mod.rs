//! The program table: programs whose rule is "these options and subcommands only read, these
//! write, run another program, open a network service or destroy, and otherwise it does this",
//! written as data in `rules/*.yaml` and judged by one interpreter (`interpret.rs`). Each entry
//! carries example commands per verdict, checked against the classifier by the tests.
//!
//! The files are embedded and parsed once, then looked up by program name.

mod interpret;
mod known;
pub(crate) mod schema;

use std::collections::HashMap;
use std::sync::OnceLock;

use nomos_types::Risk;

pub(crate) use interpret::interpret;
pub(crate) use known::{check_options, OWN_GRAMMAR};
use schema::{EntryFile, OperandsFile, OptionsFile};

/// The table's files, in the order they are read.
const FILES: &[(&str, &str)] = &[
    ("coreutils.yaml", include_str!("../../rules/coreutils.yaml")),
    ("text.yaml", include_str!("../../rules/text.yaml")),
    ("system.yaml", include_str!("../../rules/system.yaml")),
    ("storage.yaml", include_str!("../../rules/storage.yaml")),
    ("network.yaml", include_str!("../../rules/network.yaml")),
    ("services.yaml", include_str!("../../rules/services.yaml")),
    ("packages.yaml", include_str!("../../rules/packages.yaml")),
    ("proxmox.yaml", include_str!("../../rules/proxmox.yaml")),
    ("containers.yaml", include_str!("../../rules/containers.yaml")),
    ("databases.yaml", include_str!("../../rules/databases.yaml")),
    ("wrappers.yaml", include_str!("../../rules/wrappers.yaml")),
    ("runners.yaml", include_str!("../../rules/runners.yaml")),
    ("admin.yaml", include_str!("../../rules/admin.yaml")),
    ("tools.yaml", include_str!("../../rules/tools.yaml")),
];

/// The options of the programs judged by code, by program and by mode (`git`, `git log`): a code
/// rule's read-only verdict stands only when every option given is listed here (see `known.rs`).
const CODE_FILES: &[(&str, &str)] = &[
    ("code/builtins.yaml", include_str!("../../rules/code/builtins.yaml")),
    ("code/containers.yaml", include_str!("../../rules/code/containers.yaml")),
    ("code/coreutils.yaml", include_str!("../../rules/code/coreutils.yaml")),
    ("code/databases.yaml", include_str!("../../rules/code/databases.yaml")),
    ("code/firewall.yaml", include_str!("../../rules/code/firewall.yaml")),
    ("code/hardware.yaml", include_str!("../../rules/code/hardware.yaml")),
    ("code/network.yaml", include_str!("../../rules/code/network.yaml")),
    ("code/proxmox.yaml", include_str!("../../rules/code/proxmox.yaml")),
    ("code/signals.yaml", include_str!("../../rules/code/signals.yaml")),
    ("code/storage.yaml", include_str!("../../rules/code/storage.yaml")),
    ("code/systemd.yaml", include_str!("../../rules/code/systemd.yaml")),
    ("code/vcs.yaml", include_str!("../../rules/code/vcs.yaml")),
    ("code/wrappers.yaml", include_str!("../../rules/code/wrappers.yaml")),
];

/// What giving an option does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Effect {
    /// No bearing on the verdict (format, verbosity); listed so its value is skipped.
    Plain,
    /// Selects what the program does as a whole (`fdisk -l` only lists).
    Mode(Risk),
    /// Simulates: the program changes nothing it would otherwise change.
    DryRun,
    /// Raises the verdict to at least this level.
    Raise(Risk),
    /// Prints secret material.
    Secret,
    /// Its value is a file the program writes.
    Writes,
    /// Its value is a file the program reads.
    Reads,
    /// Its value is a program the program runs.
    Runs,
    /// Its value is shell text the program runs.
    Script,
    /// Opens a network service or sends data to another machine.
    Network,
    /// Loads code, or a configuration that can run commands.
    Loads,
    /// Its value and every word after it are a command the program runs (`jobs -x CMD …`).
    Command,
    /// Its value is the shell text the program runs as its work (`su -c`, `flock -c`).
    Payload,
    /// Its value is the directory the command runs in (`env -C`, `sudo -D`).
    Chdir,
    /// Its value is `NAME=value`, set for the command (`strace -E`, `docker exec -e`).
    Env,
    /// Its value is split into words that take its place on the command line (`env -S`).
    Split,
    /// The operands are this instead (`watch -x`: a command; `command -v`: names).
    Operands(Operand),
    /// Its value is a file the program creates if missing and locks.
    Lock,
    /// Undoes a dry run given before it.
    NoDryRun,
    /// (A value rule) the value, after its leading `|` or `!`, is a command the output is piped to.
    Pipe,
    /// (A value rule) the value is `Name=command line` (a unit's `ExecStart=`): the command runs.
    ExecLine,
}

/// Whether an option takes a value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Arity {
    None,
    /// `-o FILE`, `-oFILE`, `--out FILE`, `--out=FILE`.
    Required,
    /// Only attached: `-dFILE`, `--dump=FILE`.
    Optional,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct OptionSpec {
    /// As written in the table, without the arity marker (`-o`, `--output`, `-dump`, `--vacuum-*`).
    pub(crate) name: String,
    pub(crate) arity: Arity,
    pub(crate) effects: Vec<Effect>,
}

/// A rule on an option's value (`smartctl -l scterc,70,70` sets what `-l scterc` reads).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ValueRule {
    pub(crate) options: Vec<String>,
    /// Glob patterns (`*`, `?`) for the whole value.
    pub(crate) matches: Vec<String>,
    pub(crate) effect: Effect,
}

/// What the program does with its operands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Operand {
    /// Nothing the verdict depends on (names, ids, patterns).
    Plain,
    /// Files it reads.
    Read,
    /// Files it writes.
    Write,
    /// A file it creates if missing and locks (`flock FILE`).
    Lock,
    /// This operand and every word after it are the command the program runs.
    Command,
    /// This operand and every word after it, joined by spaces, are shell text it runs (`watch`).
    Script,
    /// This operand and every operand after it are arguments to a shell it starts (`su USER ARGS`).
    ShellArgs,
}

impl Operand {
    /// The operand starts what the program runs; operands after it are its too.
    pub(crate) fn is_payload(self) -> bool {
        matches!(self, Operand::Command | Operand::Script | Operand::ShellArgs)
    }
}

/// What a subcommand path does.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Subcommand {
    /// Words; `*` stands for any one word, and a word may be a glob (`list*`). `...` before the
    /// last word: that word may be any of the words from there on (`config get ... *pass*`).
    pub(crate) path: Vec<String>,
    pub(crate) risk: Risk,
    pub(crate) secret: bool,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Entry {
    pub(crate) programs: Vec<String>,
    pub(crate) default: Risk,
    /// `default: secret`: what it prints by default is secret material (`pg_dumpall`'s role
    /// password hashes).
    pub(crate) default_secret: bool,
    /// With no operands (and no option selecting a mode).
    pub(crate) bare: Option<Risk>,
    /// An option the entry does not list raises the verdict to this (at least `config_mutation`:
    /// an option not listed is not known to be inert).
    pub(crate) unknown: Risk,
    /// A wrapper given no command to run (an interactive shell, a usage message).
    pub(crate) idle: Option<Risk>,
    /// No argument can make it do anything else: a word computed at run time does not matter.
    pub(crate) inert: bool,
    /// Options end at the first operand (getopt's `+`).
    pub(crate) ordered: bool,
    /// Subcommand words match whatever their case.
    pub(crate) case_insensitive: bool,
    /// Where a command starts, leading `NAME=value` words set its environment.
    pub(crate) assignments: bool,
    /// Its standard input is shell text it runs.
    pub(crate) stdin_script: bool,
    /// Its standard input's words are arguments of its command (`xargs`): known input is judged
    /// in place (`xargs cat <<< /etc/shadow` reads `/etc/shadow`).
    pub(crate) stdin_args: bool,
    /// Given no operands, it runs each line of its standard input as if its words were its
    /// operands (`echo FLUSHALL | redis-cli`).
    pub(crate) stdin_commands: bool,
    /// By position; the last applies to the rest.
    pub(crate) operands: Vec<Operand>,
    pub(crate) options: Vec<OptionSpec>,
    pub(crate) values: Vec<ValueRule>,
    pub(crate) subcommands: Vec<Subcommand>,
    /// Words that, right after a read-only subcommand path, make it a change (`ceph health mute`).
    pub(crate) change_words: Vec<String>,
    /// Subcommands that do their work even given a dry-run option.
    pub(crate) dry_run_ignored_by: Vec<String>,
    /// What the reasons say, by level or effect name.
    pub(crate) says: HashMap<String, String>,
    /// When a mode option only asks (`taskset -p PID`).
    pub(crate) queries: Option<schema::QueriesFile>,
    pub(crate) examples: Vec<(Risk, String)>,
    /// Option names to their specs, for the exact look-up; globs and long options are also
    /// scanned by prefix.
    index: HashMap<String, usize>,
    /// `--no-NAME` for a dry-run option `--NAME`: undoes it.
    pub(crate) negated_dry_run: OptionSpec,
    /// It runs a command of its own.
    wrapper: bool,
}

impl Entry {
    /// The options a word given as `--name` may stand for: the exact one, or (as getopt accepts
    /// unique prefixes) every long option it is a prefix of, or a glob it matches. Treating every
    /// prefix as a match never misses the option that takes effect.
    pub(crate) fn long_options(&self, key: &str) -> Vec<&OptionSpec> {
        if let Some(exact) = self.exact_option(key) {
            return vec![exact];
        }
        self.options
            .iter()
            .filter(|o| {
                o.name.starts_with("--")
                    && match o.name.strip_suffix('*') {
                        // `--vacuum-size` or an abbreviation of some `--vacuum-…` (`--vac`).
                        Some(prefix) => key.starts_with(prefix) || (key.len() >= 3 && prefix.starts_with(key)),
                        None => key.len() >= 3 && o.name.starts_with(key),
                    }
            })
            .collect()
    }

    /// A reporting tool that reads no files of its operands (`uptime`, `ps`, `file`): what it does
    /// with each file `find -exec` gives it reads nothing of it.
    pub(crate) fn only_reports(&self) -> bool {
        self.default == Risk::ReadOnly && !self.operands.contains(&Operand::Read)
    }

    /// An option spelled exactly so (`-o`, `-dump`).
    pub(crate) fn exact_option(&self, word: &str) -> Option<&OptionSpec> {
        self.index.get(word).and_then(|&i| self.options.get(i))
    }

    /// Whether it runs a command of its own (a wrapper): then where that command starts matters.
    pub(crate) fn runs_commands(&self) -> bool {
        self.wrapper
    }

    fn is_wrapper(&self) -> bool {
        self.operands.iter().any(|o| o.is_payload())
            || self.options.iter().any(|o| {
                o.effects.iter().any(|e| match e {
                    Effect::Command | Effect::Payload => true,
                    Effect::Operands(kind) => kind.is_payload(),
                    _ => false,
                })
            })
    }
}

#[derive(Debug, Default)]
pub(crate) struct Table {
    entries: Vec<Entry>,
    by_name: HashMap<String, usize>,
    /// Entries named by a glob (`mkfs.*`), tried after the exact names.
    globbed: Vec<(String, usize)>,
    /// Programs some of whose entries are modes (`git` for `git log`).
    moded: std::collections::HashSet<String>,
}

#[derive(Debug, thiserror::Error)]
#[error("rules/{file}: {message}")]
pub(crate) struct TableError {
    file: String,
    message: String,
}

impl Table {
    /// The entry for a program, if the table has one.
    pub(crate) fn get(&self, program: &str) -> Option<&Entry> {
        if program.contains(' ') {
            return None;
        }
        self.sub(program)
    }

    /// The entry for a program or for a subcommand its code hands on (`docker exec`).
    pub(crate) fn sub(&self, program: &str) -> Option<&Entry> {
        if let Some(&i) = self.by_name.get(program) {
            return self.entries.get(i);
        }
        self.globbed.iter().find(|(glob, _)| glob_matches(glob, program)).and_then(|(_, i)| self.entries.get(*i))
    }

    /// Every program named in the table (not modes, not globs).
    pub(crate) fn program_names(&self) -> impl Iterator<Item = &str> {
        self.by_name.keys().map(String::as_str).filter(|n| !n.contains(' '))
    }

    /// Whether some entry is a mode of `program` (`git log` for `git`).
    pub(crate) fn has_modes(&self, program: &str) -> bool {
        self.moded.contains(program)
    }

    #[cfg(test)]
    pub(crate) fn entries(&self) -> &[Entry] {
        &self.entries
    }

    pub(crate) fn parse(files: &[(&str, &str)]) -> Result<Table, TableError> {
        let mut table = Table::default();
        for (file, text) in files {
            let err = |message: String| TableError { file: file.to_string(), message };
            // A file with comments only holds no entries.
            let entries: Option<Vec<EntryFile>> = serde_yaml_ng::from_str(text).map_err(|e| err(e.to_string()))?;
            let entries = entries.unwrap_or_default();
            for raw in entries {
                let entry = compile(raw).map_err(err)?;
                let i = table.entries.len();
                for name in &entry.programs {
                    let slot = if name.contains('*') {
                        table.globbed.push((name.clone(), i));
                        None
                    } else {
                        table.by_name.insert(name.clone(), i)
                    };
                    if slot.is_some() {
                        return Err(err(format!("`{name}` has two entries")));
                    }
                }
                table.entries.push(entry);
            }
        }
        Ok(table)
    }
}

/// The table, parsed once. The files are checked by the tests; were they ever unreadable, the
/// table is empty and every program in it is judged unknown (never read-only).
pub(crate) fn table() -> &'static Table {
    static TABLE: OnceLock<Table> = OnceLock::new();
    TABLE.get_or_init(|| Table::parse(FILES).unwrap_or_default())
}

/// The options of the programs judged by code, parsed once; a mode's entry (`git log`) also takes
/// its program's options (`git -C`). Were the files ever unreadable, no code rule's read-only
/// verdict would stand.
pub(crate) fn code_options() -> &'static Table {
    static TABLE: OnceLock<Table> = OnceLock::new();
    TABLE.get_or_init(|| Table::parse(CODE_FILES).map(Table::with_program_options).unwrap_or_default())
}

impl Table {
    /// Gives each mode's entry (`git log`) the options of its program's entry (`git`) it does not
    /// list itself.
    fn with_program_options(mut self) -> Table {
        let programs: Vec<(String, Vec<OptionSpec>)> = self
            .entries
            .iter()
            .flat_map(|e| e.programs.iter().filter(|p| !p.contains(' ')).map(|p| (p.clone(), e.options.clone())))
            .collect();
        for entry in &mut self.entries {
            let Some(program) = entry.programs.first().and_then(|p| p.split_once(' ')).map(|(p, _)| p.to_string())
            else {
                continue;
            };
            self.moded.insert(program.clone());
            for (_, options) in programs.iter().filter(|(p, _)| *p == program) {
                for o in options {
                    if !entry.options.iter().any(|mine| mine.name == o.name) {
                        entry.options.push(o.clone());
                    }
                }
            }
            entry.index = entry
                .options
                .iter()
                .enumerate()
                .filter(|(_, o)| !o.name.ends_with('*'))
                .map(|(i, o)| (o.name.clone(), i))
                .collect();
        }
        self
    }
}

/// `*` matches any run of characters, `?` any one.
pub(crate) fn glob_matches(glob: &str, text: &str) -> bool {
    fn go(g: &[u8], t: &[u8]) -> bool {
        match g.split_first() {
            None => t.is_empty(),
            Some((b'*', rest)) => (0..=t.len()).filter_map(|i| t.get(i..)).any(|tail| go(rest, tail)),
            Some((b'?', rest)) => t.split_first().is_some_and(|(_, tail)| go(rest, tail)),
            // `\*` is a literal `*` (a word that is itself a pattern, `CONFIG GET *`).
            Some((b'\\', [c, rest @ ..])) => matches!(t.split_first(), Some((d, tail)) if d == c && go(rest, tail)),
            Some((c, rest)) => matches!(t.split_first(), Some((d, tail)) if d == c && go(rest, tail)),
        }
    }
    go(glob.as_bytes(), text.as_bytes())
}

/// In a subcommand path, before its last word: the last word matches any word from there on.
pub(crate) const ANY_LATER: &str = "...";

/// Effect names that `says` may use besides the levels.
const SAYABLE: &[&str] =
    &["secret", "network", "loads", "runs", "script", "writes", "reads", "unknown", "lock", "idle"];

fn compile(raw: EntryFile) -> Result<Entry, String> {
    let programs = raw.program.into_vec();
    let who = programs.join(", ");
    let err = |m: String| format!("{who}: {m}");
    if programs.is_empty() || programs.iter().any(|p| p.is_empty() || p.contains('/') || p.trim() != p) {
        return Err(err("an entry names bare programs".into()));
    }
    let mut options: Vec<OptionSpec> = Vec::new();
    let mut add = |names: &[String], effect: Effect| -> Result<(), String> {
        for written in names {
            let (name, arity) = parse_option_name(written, effect).map_err(err)?;
            match options.iter_mut().find(|o| o.name == name) {
                Some(o) if o.arity != arity => return Err(err(format!("`{name}` is listed with two arities"))),
                Some(o) => o.effects.push(effect),
                None => options.push(OptionSpec { name, arity, effects: vec![effect] }),
            }
        }
        Ok(())
    };
    let OptionsFile {
        plain,
        command,
        payload,
        chdir,
        env,
        split,
        as_command,
        as_script,
        as_plain,
        lock,
        writes,
        reads,
        runs,
        script,
        network,
        loads,
        secret,
        dry_run,
        no_dry_run,
        reversible_low,
        config_mutation,
        destructive,
    } = raw.options;
    for (names, effect) in [
        (plain, Effect::Plain),
        (command, Effect::Command),
        (payload, Effect::Payload),
        (chdir, Effect::Chdir),
        (env, Effect::Env),
        (split, Effect::Split),
        (as_command, Effect::Operands(Operand::Command)),
        (as_script, Effect::Operands(Operand::Script)),
        (as_plain, Effect::Operands(Operand::Plain)),
        (lock, Effect::Lock),
        (writes, Effect::Writes),
        (reads, Effect::Reads),
        (runs, Effect::Runs),
        (script, Effect::Script),
        (network, Effect::Network),
        (loads, Effect::Loads),
        (secret, Effect::Secret),
        (dry_run, Effect::DryRun),
        (no_dry_run, Effect::NoDryRun),
        (reversible_low, Effect::Raise(Risk::ReversibleLow)),
        (config_mutation, Effect::Raise(Risk::ConfigMutation)),
        (destructive, Effect::Raise(Risk::Destructive)),
    ] {
        add(&names, effect)?;
    }
    for (risk, names) in raw.modes {
        add(&names, Effect::Mode(risk))?;
    }
    let mut values = Vec::new();
    for v in raw.values {
        let effect = match (v.mode, v.effect.as_deref()) {
            (Some(risk), None) => Effect::Mode(risk),
            (None, Some(name)) => effect_named(name).ok_or_else(|| err(format!("unknown value effect `{name}`")))?,
            _ => return Err(err("a value rule has either `mode` or `effect`".into())),
        };
        for o in &v.options {
            if !options.iter().any(|spec| spec.name == *o && spec.arity != Arity::None) {
                return Err(err(format!("value rule for `{o}`, which is not listed as taking a value")));
            }
        }
        values.push(ValueRule { options: v.options, matches: v.matches, effect });
    }
    let mut subcommands = Vec::new();
    for (what, paths) in raw.subcommands {
        let (risk, secret) = match what.as_str() {
            "secret" => (Risk::Destructive, true),
            level => (level.parse::<Risk>().map_err(|e| err(e.to_string()))?, false),
        };
        for p in paths {
            let path: Vec<String> = p.split_whitespace().map(str::to_string).collect();
            if path.is_empty() {
                return Err(err("an empty subcommand".into()));
            }
            if let Some(k) = path.iter().position(|w| w == ANY_LATER) {
                if k == 0 || k + 2 != path.len() {
                    return Err(err(format!("`{p}`: `{ANY_LATER}` comes after a word and before the last one")));
                }
            }
            subcommands.push(Subcommand { path, risk, secret });
        }
    }
    for key in raw.says.keys() {
        if key.parse::<Risk>().is_err() && !SAYABLE.contains(&key.as_str()) {
            return Err(err(format!("`says` has an unknown key `{key}`")));
        }
    }
    let operands: Vec<Operand> = match raw.operands {
        None => vec![Operand::Plain],
        Some(OperandsFile::One(o)) => vec![o.into()],
        Some(OperandsFile::ByPosition(list)) if !list.is_empty() => list.into_iter().map(Into::into).collect(),
        Some(OperandsFile::ByPosition(_)) => return Err(err("`operands` lists nothing".into())),
    };
    if operands.iter().rev().skip(1).any(|o| o.is_payload()) {
        return Err(err("a command, script or shell arguments take the rest: they come last in `operands`".into()));
    }
    if raw.assignments && !operands.contains(&Operand::Command) {
        return Err(err("`assignments` needs a command operand".into()));
    }
    if raw.unknown.is_some_and(|u| u < Risk::ConfigMutation) {
        return Err(err("`unknown` is at least config_mutation: an option not listed is not known to be inert".into()));
    }
    let examples: Vec<(Risk, String)> =
        raw.examples.into_iter().flat_map(|(risk, list)| list.into_iter().map(move |c| (risk, c))).collect();
    if examples.is_empty() {
        return Err(err("an entry needs examples".into()));
    }
    let index =
        options.iter().enumerate().filter(|(_, o)| !o.name.ends_with('*')).map(|(i, o)| (o.name.clone(), i)).collect();
    let (default, default_secret) = match raw.default.as_str() {
        "secret" => (Risk::Destructive, true),
        level => (level.parse::<Risk>().map_err(|e| err(e.to_string()))?, false),
    };
    let mut entry = Entry {
        programs,
        default,
        default_secret,
        bare: raw.bare,
        unknown: raw.unknown.unwrap_or(Risk::ConfigMutation),
        idle: raw.idle,
        inert: raw.inert,
        ordered: raw.ordered,
        case_insensitive: raw.case_insensitive,
        assignments: raw.assignments,
        stdin_script: raw.stdin_script,
        stdin_args: raw.stdin_args,
        stdin_commands: raw.stdin_commands,
        operands,
        options,
        values,
        subcommands,
        change_words: raw.change_words,
        dry_run_ignored_by: raw.dry_run_ignored_by,
        says: raw.says,
        queries: raw.queries,
        examples,
        index,
        negated_dry_run: OptionSpec { name: "--no-…".into(), arity: Arity::None, effects: vec![Effect::NoDryRun] },
        wrapper: false,
    };
    entry.wrapper = entry.is_wrapper();
    Ok(entry)
}

fn effect_named(name: &str) -> Option<Effect> {
    Some(match name {
        "plain" => Effect::Plain,
        "writes" => Effect::Writes,
        "reads" => Effect::Reads,
        "runs" => Effect::Runs,
        "script" => Effect::Script,
        "network" => Effect::Network,
        "loads" => Effect::Loads,
        "secret" => Effect::Secret,
        "dry_run" => Effect::DryRun,
        "pipe" => Effect::Pipe,
        "exec_line" => Effect::ExecLine,
        level => Effect::Raise(level.parse().ok()?),
    })
}

/// `-o` (no value), `-o=` (a value), `-o[=]` (an attached value only), `--vacuum-*` (a family of
/// long options, values attached). Effects that act on a value take one unless marked otherwise.
fn parse_option_name(written: &str, effect: Effect) -> Result<(String, Arity), String> {
    let (name, arity) = if written == "==" {
        (written, Arity::None)
    } else if let Some(n) = written.strip_suffix("[=]") {
        (n, Arity::Optional)
    } else if let Some(n) = written.strip_suffix('=') {
        (n, Arity::Required)
    } else if matches!(
        effect,
        Effect::Writes
            | Effect::Reads
            | Effect::Runs
            | Effect::Script
            | Effect::Command
            | Effect::Payload
            | Effect::Chdir
            | Effect::Env
            | Effect::Split
            | Effect::Lock
    ) {
        (written, if written.ends_with('*') { Arity::Optional } else { Arity::Required })
    } else {
        (written, Arity::None)
    };
    // `-` (`su -`, `env -`) and `==` (`capsh ==`) are options of their own.
    let valid = matches!(name, "-" | "==")
        || (name.starts_with("--") && name.len() > 2)
        || (name.starts_with('-') && name.len() > 1 && !name.starts_with("--"))
        || (name.starts_with('+') && name.len() > 1);
    if !valid || name.contains(char::is_whitespace) || (name.contains('*') && !name.ends_with('*')) {
        return Err(format!("`{written}` is not an option name"));
    }
    Ok((name.to_string(), arity))
}

#[cfg(test)]
mod tests;
