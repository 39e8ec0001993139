//! The table's files as written (see `rules/README.md` for the format).

use std::collections::{BTreeMap, HashMap};

use nomos_types::Risk;
use serde::Deserialize;

use super::Operand;

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct EntryFile {
    pub(super) program: OneOrMany,
    /// A level, or `secret`: what it prints is secret material unless a mode says otherwise.
    pub(super) default: String,
    #[serde(default)]
    pub(super) bare: Option<Risk>,
    #[serde(default)]
    pub(super) unknown: Option<Risk>,
    #[serde(default)]
    pub(super) idle: Option<Risk>,
    #[serde(default)]
    pub(super) inert: bool,
    /// Options end at the first operand (getopt's `+`): later words are operands.
    #[serde(default)]
    pub(super) ordered: bool,
    /// Subcommand words match whatever their case (`redis-cli get`).
    #[serde(default)]
    pub(super) case_insensitive: bool,
    /// Where a command starts, leading `NAME=value` words set its environment (`env`, `sudo`).
    #[serde(default)]
    pub(super) assignments: bool,
    /// Its standard input is shell text it runs (`at`, `batch`).
    #[serde(default)]
    pub(super) stdin_script: bool,
    /// Its standard input's words are arguments of its command (`xargs`).
    #[serde(default)]
    pub(super) stdin_args: bool,
    /// Given no operands, each line of its standard input is a command it runs (`redis-cli`).
    #[serde(default)]
    pub(super) stdin_commands: bool,
    #[serde(default)]
    pub(super) operands: Option<OperandsFile>,
    #[serde(default)]
    pub(super) options: OptionsFile,
    #[serde(default)]
    pub(super) modes: BTreeMap<Risk, Vec<String>>,
    #[serde(default)]
    pub(super) values: Vec<ValueRuleFile>,
    /// By level (`read_only` …) or `secret`: the paths that do so.
    #[serde(default)]
    pub(super) subcommands: BTreeMap<String, Vec<String>>,
    #[serde(default)]
    pub(super) change_words: Vec<String>,
    /// Subcommands that do their work even given a dry-run option (`apt-get -s update`).
    #[serde(default)]
    pub(super) dry_run_ignored_by: Vec<String>,
    #[serde(default)]
    pub(super) says: HashMap<String, String>,
    /// A mode option that only asks about a running process when nothing sets a value.
    #[serde(default)]
    pub(super) queries: Option<QueriesFile>,
    pub(super) examples: BTreeMap<Risk, Vec<String>>,
}

/// `taskset -p PID` asks, `taskset -p MASK PID` sets: with one of `mode`, exactly `operands`
/// operands (any number when absent) and none of `setters` (an optional-valued one with a value),
/// the invocation only reports.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct QueriesFile {
    pub(crate) mode: Vec<String>,
    #[serde(default)]
    pub(crate) setters: Vec<String>,
    #[serde(default)]
    pub(crate) operands: Option<usize>,
}

#[derive(Debug, Deserialize)]
#[serde(untagged)]
pub(super) enum OneOrMany {
    One(String),
    Many(Vec<String>),
}

impl OneOrMany {
    pub(super) fn into_vec(self) -> Vec<String> {
        match self {
            OneOrMany::One(s) => vec![s],
            OneOrMany::Many(v) => v,
        }
    }
}

#[derive(Debug, Deserialize)]
#[serde(untagged)]
pub(super) enum OperandsFile {
    One(OperandFile),
    ByPosition(Vec<OperandFile>),
}

#[derive(Debug, Clone, Copy, Deserialize)]
#[serde(rename_all = "snake_case")]
pub(super) enum OperandFile {
    Plain,
    Read,
    Write,
    Lock,
    Command,
    Script,
    ShellArgs,
}

impl From<OperandFile> for Operand {
    fn from(o: OperandFile) -> Operand {
        match o {
            OperandFile::Plain => Operand::Plain,
            OperandFile::Read => Operand::Read,
            OperandFile::Write => Operand::Write,
            OperandFile::Lock => Operand::Lock,
            OperandFile::Command => Operand::Command,
            OperandFile::Script => Operand::Script,
            OperandFile::ShellArgs => Operand::ShellArgs,
        }
    }
}

/// Options by what giving them does.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct OptionsFile {
    #[serde(default)]
    pub(super) plain: Vec<String>,
    #[serde(default)]
    pub(super) command: Vec<String>,
    #[serde(default)]
    pub(super) payload: Vec<String>,
    #[serde(default)]
    pub(super) chdir: Vec<String>,
    #[serde(default)]
    pub(super) env: Vec<String>,
    #[serde(default)]
    pub(super) split: Vec<String>,
    #[serde(default)]
    pub(super) as_command: Vec<String>,
    #[serde(default)]
    pub(super) as_script: Vec<String>,
    #[serde(default)]
    pub(super) as_plain: Vec<String>,
    #[serde(default)]
    pub(super) lock: Vec<String>,
    #[serde(default)]
    pub(super) writes: Vec<String>,
    #[serde(default)]
    pub(super) reads: Vec<String>,
    #[serde(default)]
    pub(super) runs: Vec<String>,
    #[serde(default)]
    pub(super) script: Vec<String>,
    #[serde(default)]
    pub(super) network: Vec<String>,
    #[serde(default)]
    pub(super) loads: Vec<String>,
    #[serde(default)]
    pub(super) secret: Vec<String>,
    #[serde(default)]
    pub(super) dry_run: Vec<String>,
    #[serde(default)]
    pub(super) no_dry_run: Vec<String>,
    #[serde(default)]
    pub(super) reversible_low: Vec<String>,
    #[serde(default)]
    pub(super) config_mutation: Vec<String>,
    #[serde(default)]
    pub(super) destructive: Vec<String>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct ValueRuleFile {
    pub(super) options: Vec<String>,
    #[serde(rename = "match")]
    pub(super) matches: Vec<String>,
    #[serde(default)]
    pub(super) mode: Option<Risk>,
    #[serde(default)]
    pub(super) effect: Option<String>,
}
