//! The gate's judgement: a shell-aware, escalate-only command classifier and chat-assent detection.
//!
//! [`classify`] parses a command with a real bash grammar and judges every program it would run —
//! inside lists, pipelines, substitutions, wrappers (`sudo`, `env`, `timeout`, `pct exec`, `ssh`, …)
//! and nested scripts (`bash -c`). Read-only is an allowlist of program, subcommand and flags;
//! anything unknown, computed at run time or unparseable is at least `config_mutation`; irreversible
//! loss or outage is `destructive` however it is spelled. A declared risk can only raise the result.
//! The classifier is a pure function: no I/O, the same answer for the same input.
//!
//! Operators extend it in `seeds/policy.yaml` and their own `policy.yaml`: programs that are
//! read-only at their site, and patterns that are destructive there. Additions never lower a
//! built-in verdict.

#![cfg_attr(not(test), deny(clippy::string_slice, clippy::indexing_slicing))]

pub mod assent;
mod finding;
mod paths;
mod rules;
mod secrets;
mod shell;
mod table;

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

pub use assent::{
    actions_of, confirmation_phrase, is_assent, is_assent_to, is_typed_confirmation, judge as judge_reply,
    typed_confirmation, Action, ConfirmTarget, Judgement, Proposal, Step,
};
pub use nomos_types::{Risk, Verdict};
pub use rules::percent_decode_bytes;
use serde::Deserialize;

use shell::{Analysis, Arg};

/// The operator additions shipped with Oikos.
pub const BUILTIN_POLICY_YAML: &str = include_str!(concat!(env!("CARGO_MANIFEST_DIR"), "/../../seeds/policy.yaml"));

/// Environment variable naming an operator policy file (default: `<config dir>/oikos/policy.yaml`).
pub const POLICY_ENV: &str = "OIKOS_POLICY";

/// The classifier could not judge a command (it failed on it): the command is refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("the risk classifier failed on this command, so it is refused: {0}")]
pub struct ClassifierFailure(pub String);

#[derive(Debug, thiserror::Error)]
pub enum PolicyError {
    #[error("policy {source_name}: {message}")]
    Invalid { source_name: String, message: String },
    #[error("policy {path}: {source}")]
    Read { path: PathBuf, source: std::io::Error },
}

/// A program that is read-only at this site (a tool the built-in rules do not know).
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ReadOnlyProgram {
    pub program: String,
    /// When given, only these first arguments are read-only (`mytool show`, `mytool list`).
    #[serde(default)]
    pub subcommands: Vec<String>,
}

/// Words that make a command destructive at this site: the program, then its leading operands;
/// `*` matches any one word.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DestructivePattern {
    pub words: Vec<String>,
    #[serde(default)]
    pub reason: String,
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Policy {
    #[serde(default)]
    read_only: Vec<ReadOnlyProgram>,
    #[serde(default)]
    destructive: Vec<DestructivePattern>,
}

impl Policy {
    /// The built-in rules with the additions shipped in `seeds/policy.yaml`.
    pub fn builtin() -> &'static Policy {
        static BUILTIN: OnceLock<Policy> = OnceLock::new();
        // The shipped file is checked by a test; were it ever unreadable, no additions is the safe
        // fallback (additions only widen read-only at sites and add destructive patterns).
        BUILTIN.get_or_init(|| Policy::from_yaml(BUILTIN_POLICY_YAML, "seeds/policy.yaml").unwrap_or_default())
    }

    pub fn from_yaml(text: &str, source_name: &str) -> Result<Policy, PolicyError> {
        let invalid = |message: String| PolicyError::Invalid { source_name: source_name.to_string(), message };
        if text.trim().is_empty() {
            return Ok(Policy::default());
        }
        let policy: Policy = serde_yaml_ng::from_str(text).map_err(|e| invalid(e.to_string()))?;
        for p in &policy.read_only {
            if p.program.is_empty() || p.program.contains('/') {
                return Err(invalid(format!("read_only program `{}` must be a bare program name", p.program)));
            }
        }
        for d in &policy.destructive {
            if d.words.first().is_none_or(|w| w.is_empty() || w == "*") {
                return Err(invalid("a destructive pattern must start with a program name".into()));
            }
        }
        Ok(policy)
    }

    /// The built-in policy plus the operator's file: `$OIKOS_POLICY`, else
    /// `<config dir>/oikos/policy.yaml` when it exists.
    pub fn load() -> Result<Policy, PolicyError> {
        match Policy::operator_file() {
            Some(p) => Policy::with_file(&p),
            None => Ok(Policy::builtin().clone()),
        }
    }

    /// The operator's file [`Policy::load`] reads: `$OIKOS_POLICY` (named, so it must exist), else
    /// `<config dir>/oikos/policy.yaml` when it exists; `None` for the built-in policy alone.
    pub fn operator_file() -> Option<PathBuf> {
        let explicit = std::env::var_os(POLICY_ENV).filter(|v| !v.is_empty()).map(PathBuf::from);
        let path = explicit.clone().or_else(Policy::default_operator_file)?;
        (explicit.is_some() || path.exists()).then_some(path)
    }

    /// `<config dir>/oikos/policy.yaml`: where the operator's additions are read from unless
    /// `$OIKOS_POLICY` names another file.
    pub fn default_operator_file() -> Option<PathBuf> {
        dirs::config_dir().map(|d| d.join("oikos").join("policy.yaml"))
    }

    /// The built-in policy plus the additions in `path`.
    pub fn with_file(path: &Path) -> Result<Policy, PolicyError> {
        let text =
            std::fs::read_to_string(path).map_err(|source| PolicyError::Read { path: path.to_path_buf(), source })?;
        let extra = Policy::from_yaml(&text, &path.display().to_string())?;
        let mut merged = Policy::builtin().clone();
        merged.read_only.extend(extra.read_only);
        merged.destructive.extend(extra.destructive);
        Ok(merged)
    }

    /// Classifies a command (see [`classify`]) with this policy's additions. Should the
    /// classifier fail on it, the verdict is destructive and says so (see [`Policy::judge`]).
    pub fn classify(&self, command: &str, declared: Option<Risk>) -> Verdict {
        self.judge(command, declared).unwrap_or_else(|failure| Verdict {
            risk: Risk::Destructive,
            reasons: vec![finding::shown_on_one_line(failure.to_string())],
            secret: true,
        })
    }

    /// Classifies a command, or says the classifier failed on it: a failure is caught, never
    /// passed on, and the gate refuses such a command outright.
    pub fn judge(&self, command: &str, declared: Option<Risk>) -> Result<Verdict, ClassifierFailure> {
        std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            finding::verdict(self.analyse(command).into_findings(), declared)
        }))
        .map_err(|panic| {
            let why = panic
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| panic.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "an internal error".into());
            ClassifierFailure(why)
        })
    }

    /// Everything found about a command, before it is made a verdict.
    pub(crate) fn analyse(&self, command: &str) -> Analysis<'_> {
        self.analyse_in(Analysis::new(self), command)
    }

    /// The programs a command runs, each with the level it was judged at; empty when the
    /// classifier fails on it.
    pub(crate) fn invocations(&self, command: &str) -> Vec<shell::Invocation> {
        std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            self.analyse_in(Analysis::new(self).recording(), command).invocations().to_vec()
        }))
        .unwrap_or_default()
    }

    fn analyse_in<'p>(&'p self, mut analysis: Analysis<'p>, command: &str) -> Analysis<'p> {
        let operators = command.bytes().filter(|b| b"|&;<>()".contains(b)).count();
        if command.trim().is_empty() {
            analysis.raise(Risk::ConfigMutation, "empty command");
        } else if command.len() > MAX_COMMAND_BYTES {
            // The shell grammar's parser is superlinear in time and memory on some long texts;
            // nothing an operator reads before approving is this long either.
            analysis.raise(
                Risk::Destructive,
                format!("the command is longer than {} KiB and is not judged", MAX_COMMAND_BYTES / 1024),
            );
        } else if operators > MAX_OPERATORS {
            analysis.raise(
                Risk::Destructive,
                format!("the command has more than {MAX_OPERATORS} shell operators and is not judged"),
            );
        } else {
            // Bash reads a carriage return as a character of the word it is in, where the grammar
            // may read a blank: the words bash would run are not the words judged.
            if command.contains('\r') {
                analysis.raise(
                    Risk::ConfigMutation,
                    "a carriage return in the command is part of a word to bash, which then runs other words",
                );
            }
            analysis.script(command);
            analysis.finish();
        }
        if analysis.max_risk().is_none() {
            // Comments only, or only shell variable assignments.
            if command.lines().all(|l| l.trim().is_empty() || l.trim_start().starts_with('#')) {
                analysis.raise(Risk::ConfigMutation, "nothing to run");
            } else {
                analysis.raise(Risk::ReadOnly, "runs no programs");
            }
        }
        analysis
    }

    pub(crate) fn destructive_matches(&self, program: &str, args: &[Arg]) -> Vec<String> {
        let operands: Vec<&str> = args.iter().filter_map(Arg::as_static).filter(|w| !w.starts_with('-')).collect();
        self.destructive
            .iter()
            .filter(|d| {
                // Anywhere among the operands: options' values sit between them
                // (`ipmitool -I lanplus -H bmc chassis power off`).
                let Some((first, rest)) = d.words.split_first() else {
                    return false;
                };
                first == program
                    && (rest.is_empty()
                        || operands.windows(rest.len()).any(|w| w.iter().zip(rest).all(|(o, p)| p == "*" || p == o)))
            })
            .map(|d| {
                if d.reason.is_empty() {
                    format!("`{}` is destructive at this site", d.words.join(" "))
                } else {
                    d.reason.clone()
                }
            })
            .collect()
    }

    pub(crate) fn extra_read_only(&self, program: &str, args: &[Arg]) -> Option<String> {
        let first = args.iter().filter_map(Arg::as_static).find(|w| !w.starts_with('-'));
        self.read_only
            .iter()
            .find(|p| {
                p.program == program
                    && (p.subcommands.is_empty() || first.is_some_and(|f| p.subcommands.iter().any(|s| s == f)))
            })
            .map(|_| format!("`{program}` is read-only at this site"))
    }
}

/// The longest command judged at all; a longer one is destructive (needs a typed confirmation).
pub const MAX_COMMAND_BYTES: usize = 16 * 1024;
/// The most shell operators (`|&;<>()`) in a command judged at all.
const MAX_OPERATORS: usize = 2_000;

/// Classifies a shell command with the built-in policy. `declared` (what the caller says the command
/// is) can only raise the result.
pub fn classify(command: &str, declared: Option<Risk>) -> Verdict {
    Policy::builtin().classify(command, declared)
}

#[cfg(test)]
mod class_props;
#[cfg(test)]
mod corpus;
#[cfg(test)]
mod no_panic;
#[cfg(test)]
mod props;
#[cfg(test)]
mod props_classes;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shipped_policy_file_parses() {
        let p = Policy::from_yaml(BUILTIN_POLICY_YAML, "seeds/policy.yaml").unwrap();
        assert!(!p.read_only.is_empty() && !p.destructive.is_empty());
        assert_eq!(Policy::builtin(), &p);
    }

    #[test]
    fn additions_widen_read_only_only_for_unknown_programs_and_never_lower_destructive() {
        let p = Policy::from_yaml(
            "read_only:\n  - program: labtool\n    subcommands: [show]\n  - program: rm\n  - program: systemctl\ndestructive:\n  - words: [labtool, wipe]\n    reason: labtool wipe erases the NAS\n  - words: [ceph, osd, '*', purge]\n",
            "test",
        )
        .unwrap();
        assert_eq!(p.classify("labtool show x", None).risk, Risk::ReadOnly);
        assert_eq!(p.classify("labtool set x", None).risk, Risk::ConfigMutation);
        let wipe = p.classify("labtool wipe --all", None);
        assert_eq!(wipe.risk, Risk::Destructive);
        assert_eq!(wipe.reasons, ["labtool wipe erases the NAS"]);
        assert_eq!(p.classify("ceph osd 3 purge", None).risk, Risk::Destructive);
        assert_eq!(p.classify("sudo labtool wipe", None).risk, Risk::Destructive, "patterns apply behind wrappers");
        // Declaring a built-in program read-only changes nothing.
        assert_eq!(p.classify("rm -rf /srv", None).risk, Risk::Destructive);
        assert_eq!(p.classify("rm /tmp/x", None).risk, Risk::ConfigMutation);
        assert_eq!(p.classify("systemctl restart caddy", None).risk, Risk::ReversibleLow);
    }

    #[test]
    fn malformed_additions_are_rejected() {
        for (yaml, expect) in [
            ("read_only: [{program: /bin/x}]", "bare program name"),
            ("destructive: [{words: []}]", "must start with a program"),
            ("destructive: [{words: ['*', x]}]", "must start with a program"),
            ("read_only: [{program: x, colour: red}]", "unknown field"),
        ] {
            let err = Policy::from_yaml(yaml, "bad.yaml").unwrap_err().to_string();
            assert!(err.starts_with("policy bad.yaml: ") && err.contains(expect), "{yaml}: {err}");
        }
    }

    #[test]
    fn declared_risk_only_raises() {
        let v = classify("cat /etc/hostname", Some(Risk::Destructive));
        assert_eq!(v.risk, Risk::Destructive);
        assert_eq!(v.reasons[0], "declared destructive");
        assert_eq!(classify("systemctl restart caddy", Some(Risk::ReadOnly)).risk, Risk::ReversibleLow);
        assert_eq!(classify("rm -rf /", Some(Risk::ReadOnly)).risk, Risk::Destructive);
    }

    #[test]
    fn reasons_explain_the_verdict() {
        let v = classify("echo hi | tee /etc/motd", None);
        assert_eq!(v.risk, Risk::ConfigMutation);
        assert_eq!(v.reasons, ["`tee` writes /etc/motd"]);
        let v = classify("bash -c 'rm -rf /tmp/x'", None);
        assert!(v.reasons.iter().any(|r| r.contains("rm -rf")), "{v:?}");
        let v = classify("systemctl status caddy", None);
        assert_eq!(v.reasons, ["`systemctl status` only reports"]);
    }

    #[test]
    fn commands_touching_secrets_are_flagged_so_their_output_is_withheld() {
        for c in [
            "cat /etc/shadow",
            "head -c 0 /etc/shadow; echo visible",
            "sudo cat /root/.ssh/id_ed25519",
            "cp /etc/pve/priv/authkey.key /tmp/k",
            "bash -c 'cat /etc/ssl/private/site.key'",
            // Printing keys, hashes or credentials, though no secret file is named.
            "getent shadow",
            "wg showconf wg0",
            "kubectl config view --raw",
            "ceph auth get client.admin",
            // Reading a whole tree that holds secrets.
            "grep -r . /etc",
        ] {
            assert!(classify(c, None).secret, "{c}");
        }
        // Whether a command touches secrets is what its rules found, not a word in a reason: a file
        // or program with "secret" in its name is not secret material.
        for c in [
            "cat /etc/hostname",
            "ls -la /etc/ssh",
            "uptime",
            "rm -rf /tmp/x",
            "ssh -i ~/.ssh/id_ed25519 pve1 uptime",
            "rm /tmp/secret-notes.txt",
            "secret-tool-x --run",
        ] {
            assert!(!classify(c, None).secret, "{c}");
        }
    }

    #[test]
    fn reasons_are_one_line_each() {
        for c in [
            "rm -rf '/srv/a\nb'",
            "cat \"/etc/shad\now\"",
            "tee \"/etc/motd\r\" < /dev/null",
            "echo x > '/etc/cron.d/a\r\nb'",
            "ls\r\nrm -rf /srv",
            "frobnicate 'a\nb'",
        ] {
            let v = classify(c, None);
            assert!(v.reasons.iter().all(|r| !r.contains(['\n', '\r'])), "{c:?}: {v:?}");
        }
    }

    #[test]
    fn a_carriage_return_is_not_a_blank() {
        // Bash runs `cat\r` (no such program) or `rm` with the operand `-rf\r/srv`: never the words
        // a grammar reading the return as a blank would see, so nothing here is read-only.
        for c in ["ls\r-la /etc", "cat\r/etc/hostname", "uptime\r", "echo hi\rrm -rf /srv", "df -h\r\n"] {
            let v = classify(c, None);
            assert!(v.risk >= Risk::ConfigMutation, "{c:?}: {v:?}");
            assert!(v.reasons.iter().all(|r| !r.contains('\r')), "{c:?}: {v:?}");
        }
        assert_eq!(classify("ls -la /etc\n", None).risk, Risk::ReadOnly);
    }
}
