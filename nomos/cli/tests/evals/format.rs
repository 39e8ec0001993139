//! The golden conversation file format (`nomos/evals/*.yaml`).
//!
//! A scenario names the lab hosts it needs and plays steps: each step is one operator action on a
//! task (by label: `main` unless it says otherwise) with the model's replies scripted for it, and
//! may check where things stand after it; the scenario ends with the final expectations per task.
//! Every request each task's provider received is checked as well (see `play.rs`).
//!
//! ```yaml
//! description: what it shows
//! hosts: 1                  # lab hosts (pve1, pve2, …)
//! budget_tokens: 16000      # the loop's context window; every request's bytes / 4 stays within it
//! setup: ["mkdir -p {{tmp}}/victim"]          # shell lines run here before the steps
//! steps:
//!   - say: "append a line on pve1"            # the operator's message; runs the turn
//!     replies:                                # the scripted provider's steps for it
//!       - {kind: tool_calls, calls: [{id: c1, name: run, arguments: {target: host:pve1, command: "…", purpose: "…"}}]}
//!       - {kind: text, content: "Done."}
//!     expect: {status: waiting, waiting_for: approval}
//! expect:
//!   main: {status: done, executions: [{command: "echo one*", status: completed}]}
//! real:                                       # checked when run against a real model
//!   main: {status: [done, waiting]}
//! ```
//!
//! Operator actions (one per step): `say`, `approve_plan` (the button), `approve: N` / `deny: N`
//! (the task's Nth waiting approval, oldest first; `confirm:` gives the typed words), `turn` (the
//! task's next turn, as after a decision), `wait_executions` (until the task's executions ended),
//! `continue` (then the engine continues the task by itself, as its background work does),
//! `parallel` (these steps at once), `fault` (a lab fault), `observe` (collection cycles; with
//! automatic investigation turned on when asked, and the count of tasks it opened checked),
//! `investigate` (the task opens on a signal, researched, and runs its first turn). A `say` may carry `kill_at: <pause point>` (played by the
//! `nomos ask` binary, killed with SIGKILL there) or `cancel_after_ms`.
//!
//! Templates, resolved when the step starts: `{{execution:N}}` (the task's Nth execution, oldest
//! first), `{{execution:ACTION}}` (its latest `pct_create`, `apt_upgrade`, …), `{{approval:N}}` (its
//! Nth waiting approval), `{{task}}`, `{{marks:NAME}}` (a file commands append to, quoted), `{{tmp}}`.

use std::collections::BTreeMap;

use serde::Deserialize;
use serde_json::Value as Json;

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Scenario {
    pub description: String,
    #[serde(default = "one")]
    pub hosts: usize,
    #[serde(default = "default_budget")]
    pub budget_tokens: usize,
    #[serde(default)]
    pub max_iterations: Option<usize>,
    /// It tests the provider or the process (HTTP errors, cut streams, kills): played only with the
    /// scripted provider.
    #[serde(default)]
    pub scripted_only: bool,
    /// The same command may legitimately run more than once.
    #[serde(default)]
    pub allow_repeats: bool,
    #[serde(default)]
    pub setup: Vec<String>,
    pub steps: Vec<OpStep>,
    /// Per task label, after the last step.
    #[serde(default)]
    pub expect: BTreeMap<String, Expect>,
    /// Per task label: what must hold whatever the model says (checked against a real model).
    #[serde(default)]
    pub real: BTreeMap<String, Expect>,
}

fn one() -> usize {
    1
}

fn default_budget() -> usize {
    32_768
}

pub const MAIN: &str = "main";

fn main_label() -> String {
    MAIN.into()
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct OpStep {
    #[serde(default = "main_label")]
    pub task: String,
    #[serde(default)]
    pub say: Option<String>,
    #[serde(default)]
    pub approve_plan: bool,
    #[serde(default)]
    pub approve: Option<usize>,
    #[serde(default)]
    pub deny: Option<usize>,
    /// The typed confirmation sent with `approve`.
    #[serde(default)]
    pub confirm: Option<String>,
    #[serde(default)]
    pub turn: bool,
    #[serde(default)]
    pub wait_executions: bool,
    /// The engine continues the task once its executions ended, as its background work does (the
    /// runtime's agent, on the task's provider).
    #[serde(default, rename = "continue")]
    pub continue_task: bool,
    #[serde(default)]
    pub parallel: Vec<OpStep>,
    /// A lab fault, as `nomos lab fault` takes it: `pve1 stop-service pveproxy`, `pve1 fill-disk 96`,
    /// `pve1 clear`.
    #[serde(default)]
    pub fault: Option<String>,
    /// Observe's collection cycles now (the hosts are discovered first, once).
    #[serde(default)]
    pub observe: Option<ObserveStep>,
    /// Opens the investigation of the open signal `KIND [ENTITY]` (`failed-units host:pve1`) as this
    /// task and runs its first turn.
    #[serde(default)]
    pub investigate: Option<String>,
    #[serde(default)]
    pub kill_at: Option<String>,
    #[serde(default)]
    pub cancel_after_ms: Option<u64>,
    /// The scripted provider's replies for this step (its `Step` format), queued before it starts.
    #[serde(default)]
    pub replies: Vec<Json>,
    #[serde(default)]
    pub expect: Option<Expect>,
}

impl OpStep {
    /// What the step does, for messages; an error when it names no action or more than one.
    pub fn action(&self) -> Result<&'static str, String> {
        let named: Vec<&'static str> = [
            ("say", self.say.is_some()),
            ("approve_plan", self.approve_plan),
            ("approve", self.approve.is_some()),
            ("deny", self.deny.is_some()),
            ("turn", self.turn),
            ("wait_executions", self.wait_executions),
            ("continue", self.continue_task),
            ("parallel", !self.parallel.is_empty()),
            ("fault", self.fault.is_some()),
            ("observe", self.observe.is_some()),
            ("investigate", self.investigate.is_some()),
        ]
        .into_iter()
        .filter_map(|(n, on)| on.then_some(n))
        .collect();
        match named[..] {
            [one] => Ok(one),
            [] => Err("the step names no operator action".into()),
            _ => Err(format!("the step names more than one operator action: {named:?}")),
        }
    }
}

/// Observe's cycles in a step, with automatic investigation as the settings would have it.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ObserveStep {
    #[serde(default = "one")]
    pub cycles: usize,
    /// Seconds to wait before each cycle (a signal's dwell, a cooldown).
    #[serde(default)]
    pub wait_s: u64,
    /// Automatic investigation of new critical / warning signals (off unless named).
    #[serde(default)]
    pub investigate_critical: bool,
    #[serde(default)]
    pub investigate_warnings: bool,
    /// How many tasks automatic investigation opened over these cycles, exactly.
    #[serde(default)]
    pub investigations: Option<usize>,
    /// Open signals of these kinds after the cycles.
    #[serde(default)]
    pub signals: Vec<String>,
}

/// A value or any of several (`status: done` or `status: [done, waiting]`).
#[derive(Debug, Clone, Deserialize)]
#[serde(untagged)]
pub enum OneOf {
    One(String),
    Any(Vec<String>),
}

impl OneOf {
    pub fn admits(&self, v: &str) -> bool {
        match self {
            OneOf::One(s) => s == v,
            OneOf::Any(list) => list.iter().any(|s| s == v),
        }
    }
}

impl std::fmt::Display for OneOf {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            OneOf::One(s) => write!(f, "{s}"),
            OneOf::Any(list) => write!(f, "one of {}", list.join(", ")),
        }
    }
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Expect {
    #[serde(default)]
    pub status: Option<OneOf>,
    /// `none` when the task waits for nothing.
    #[serde(default)]
    pub waiting_for: Option<OneOf>,
    #[serde(default)]
    pub outcome: Option<OneOf>,
    #[serde(default)]
    pub summary_contains: Option<String>,
    /// Exactly these executions of the task, oldest first.
    #[serde(default)]
    pub executions: Option<Vec<ExecExpect>>,
    /// No execution of the task that started (queued ones never did) has a command matching one of these.
    #[serde(default)]
    pub never_ran: Vec<String>,
    #[serde(default)]
    pub pending_approvals: Option<usize>,
    #[serde(default)]
    pub calls: Vec<CallExpect>,
    #[serde(default)]
    pub question_contains: Option<String>,
    /// A transcript message (any role) contains it.
    #[serde(default)]
    pub transcript_contains: Vec<String>,
    /// No transcript message contains it.
    #[serde(default)]
    pub transcript_lacks: Vec<String>,
    /// The lines of a marks file, exactly.
    #[serde(default)]
    pub marks: BTreeMap<String, Vec<String>>,
    /// Files under the lab directory and texts each must contain.
    #[serde(default)]
    pub lab_file_contains: BTreeMap<String, Vec<String>>,
    /// Paths (templates allowed) that must exist / must not.
    #[serde(default)]
    pub exists: Vec<String>,
    #[serde(default)]
    pub absent: Vec<String>,
    /// The task reached its state before any execution of this other task ended: a slow command of
    /// one task does not hold another up.
    #[serde(default)]
    pub ended_before_executions_of: Option<String>,
    /// How many requests the task's provider received so far.
    #[serde(default)]
    pub requests: Option<usize>,
    /// Texts the last request to the task's provider contains.
    #[serde(default)]
    pub last_request_contains: Vec<String>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ExecExpect {
    /// A pattern (`*` matches anything) for the command.
    #[serde(default)]
    pub command: Option<String>,
    /// The curated action's name (`run` for a plain command).
    #[serde(default)]
    pub action: Option<String>,
    #[serde(default)]
    pub status: Option<OneOf>,
    #[serde(default)]
    pub target: Option<String>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CallExpect {
    pub id: String,
    #[serde(default)]
    pub state: Option<OneOf>,
    #[serde(default)]
    pub error: Option<bool>,
    #[serde(default)]
    pub result_contains: Option<String>,
    /// It made an execution (true) or none (false).
    #[serde(default)]
    pub execution: Option<bool>,
}

/// `*` matches any run of characters; everything else matches itself.
pub fn glob(pattern: &str, text: &str) -> bool {
    let parts: Vec<&str> = pattern.split('*').collect();
    if parts.len() == 1 {
        return pattern == text;
    }
    let (first, last) = (parts[0], parts[parts.len() - 1]);
    if !text.starts_with(first) || text.len() < first.len() + last.len() || !text.ends_with(last) {
        return false;
    }
    let mut rest = &text[first.len()..text.len() - last.len()];
    for part in &parts[1..parts.len() - 1] {
        match rest.find(part) {
            Some(at) => rest = &rest[at + part.len()..],
            None => return false,
        }
    }
    true
}

#[test]
fn glob_matches_like_a_shell_pattern() {
    assert!(glob("echo one*", "echo one >> '/tmp/x'"));
    assert!(glob("*pct create*--hostname web*", "pct create 105 local:vztmpl/d.tar --hostname web --memory 512"));
    assert!(!glob("pct create*", "echo pct create"));
    assert!(glob("exact", "exact") && !glob("exact", "exactly"));
    assert!(glob("a*b*a", "aba") && !glob("a*b*a", "ab"));
}
