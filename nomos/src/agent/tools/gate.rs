//! The gate tools: `run` (the one gated path for a shell command), `request_execution` (the
//! curated actions), `get_execution_status` and `read_output`. Both ways of acting go through
//! [`Actuator::run`]; nothing here runs anything itself.

use std::time::Duration;

use nomos_types::actions::{self, Action};
use nomos_types::{Execution, ExecutionStatus, Risk, WaitingFor};
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{json, Value as Json};

use super::args::{self, schema_of};
use super::cap::cap_with;
use super::{Next, Tool, ToolContext, ToolFuture, ToolResult, AGENT};
use crate::actuate::{ActionRequest, Actuator, Decision, RunOutcome, RunRequest};

/// How much of each stream a result shows.
const STREAM_CAP: usize = 1600;
/// The default and largest page `read_output` returns.
const PAGE: usize = 3000;

pub(super) fn tools() -> Vec<Box<dyn Tool>> {
    vec![Box::new(Run), Box::new(RequestExecution), Box::new(ExecutionStatusTool), Box::new(ReadOutput)]
}

/// The arguments of `run`.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct RunArgs {
    /// `host:<name>` or `lxc:<name>`.
    target: String,
    /// The shell command, exactly as it should run (several lines allowed).
    command: String,
    /// One sentence for the operator: why it runs.
    purpose: String,
    /// Your own view of its risk; it can only raise the gate's.
    declared_risk: Option<Risk>,
    /// Time limit in seconds (default 600).
    #[schemars(range(min = 1, max = 86400))]
    timeout_secs: Option<u64>,
}

struct Run;

impl Tool for Run {
    fn name(&self) -> &'static str {
        "run"
    }

    fn description(&self) -> &'static str {
        "Run a shell command on a host (`host:<name>`) or inside a container (`lxc:<name>`). The only way to \
         run a command. A command that only reads runs at once; a change runs inside an approved plan, else \
         it waits for the operator (the turn ends and the task resumes when they decide); a destructive one \
         needs the operator to type a confirmation. Returns the execution id, status, exit code and the \
         output (long output shows its head and tail; read the rest with read_output). Prefer one command \
         that gathers everything (`systemctl status a b; df -h; ip -br a`) over many small runs."
    }

    fn parameters(&self) -> Json {
        schema_of::<RunArgs>()
    }

    fn is_read_only(&self, _args: &Json) -> bool {
        // Only the gate's classifier knows: see `GatedTools::is_read_only`.
        false
    }

    fn call<'a>(&'a self, ctx: &'a ToolContext<'a>, args: Json) -> ToolFuture<'a> {
        Box::pin(async move {
            let a: RunArgs = parsed!(args);
            let req = RunRequest {
                target: a.target,
                command: a.command,
                purpose: a.purpose,
                declared_risk: a.declared_risk,
                task_id: Some(ctx.task_id.to_string()),
                requested_by: ctx.actor.into(),
                timeout: a.timeout_secs.map(Duration::from_secs),
                background: false,
                read_only: false,
                compact: false,
            };
            let command = req.command.clone();
            let run = ctx.actuator.run(req);
            match cancellable(ctx, run, |x| x.command == command).await {
                Ok(outcome) => outcome_result(ctx.actuator, outcome, &[]).await,
                Err(e) => e.into(),
            }
        })
    }
}

/// Waits for `run`; when the turn is cancelled meanwhile, stops the execution it started (the
/// task's running one that `started` picks out) through the executor's kill path, and waits for it
/// to be recorded as cancelled. The run itself is never dropped half-way, so its record always
/// reaches its end.
async fn cancellable<F, T>(ctx: &ToolContext<'_>, run: F, started: impl Fn(&Execution) -> bool) -> crate::Result<T>
where
    F: std::future::Future<Output = crate::Result<T>>,
{
    tokio::pin!(run);
    tokio::select! {
        r = &mut run => return r,
        () = ctx.cancel.cancelled() => {}
    }
    let message =
        if ctx.actor == AGENT { "the operator stopped the task's turn" } else { "the caller stopped waiting" };
    let stop =
        Decision { actor: ctx.actor.into(), channel: nomos_types::Channel::System, message: Some(message.into()) };
    loop {
        // On a read error, still let the run reach its end rather than dropping it.
        let running =
            ctx.actuator.executions(Some(ctx.task_id), Some(ExecutionStatus::Running), 20).await.unwrap_or_default();
        if let Some(x) = running.iter().find(|x| x.requested_by == ctx.actor && started(x)) {
            if let Err(e) = ctx.actuator.cancel(&x.id, &stop).await {
                tracing::warn!(execution = %x.id, error = %e, "could not cancel the turn's command");
            }
            return run.await;
        }
        // Not started yet (still connecting, or queued): look again shortly, or take its end.
        tokio::select! {
            r = &mut run => return r,
            () = tokio::time::sleep(Duration::from_millis(100)) => {}
        }
    }
}

/// What the model sees of a gate outcome.
async fn outcome_result(act: &Actuator, outcome: RunOutcome, notes: &[String]) -> ToolResult {
    let mut text = String::new();
    for n in notes {
        text.push_str(&format!("note: {n}\n"));
    }
    match outcome {
        RunOutcome::Queued { execution, approval, existing } => {
            let how = match &approval.confirmation {
                Some(words) => {
                    format!("It is destructive: the operator must approve it by typing exactly \"{words}\".")
                }
                None => "The operator must approve it (or approve the plan that includes it).".into(),
            };
            let same = if existing { " An identical request was already waiting; this is that one." } else { "" };
            text.push_str(&format!(
                "waiting for the operator: execution {} (approval {}), risk {}: {}.{same} {how} The turn ends \
                 here; the task resumes when the operator decides. Do not ask for it again.",
                execution.id,
                approval.id,
                execution.risk,
                execution.reasons.join("; "),
            ));
            ToolResult::ok(text).with_execution(execution.id).with_next(Next::Wait(WaitingFor::Approval))
        }
        RunOutcome::Ran(x) if !x.status.is_final() => {
            text.push_str(&format!(
                "started in the background: execution {} ({}). The task resumes by itself when it ends; \
                 get_execution_status shows how it is going.",
                x.id, x.action
            ));
            ToolResult::ok(text).with_execution(x.id)
        }
        RunOutcome::Ran(x) => {
            // The record as stored: what the model reads is what the ledger has.
            let x = act.execution(&x.id).await.unwrap_or(x);
            text.push_str(&describe(&x));
            let failed = x.status != ExecutionStatus::Completed || x.exit_code != Some(0);
            let mut r = if failed { ToolResult::error(text) } else { ToolResult::ok(text) };
            r.execution_id = Some(x.id);
            r
        }
    }
}

/// An execution's status and its output, each stream capped with where to read the rest.
fn describe(x: &Execution) -> String {
    let mut text = format!("execution {}: {}", x.id, x.status);
    if let Some(code) = x.exit_code {
        text.push_str(&format!(", exit {code}"));
    }
    if let Some(ms) = x.duration_ms {
        text.push_str(&format!(", {ms} ms"));
    }
    text.push_str(&format!("; {} on {}, risk {}", x.action, x.target, x.risk));
    if let Some(g) = &x.granted_by {
        text.push_str(&format!(", granted by {g}"));
    }
    text.push('\n');
    if let Some(e) = &x.error {
        text.push_str(&format!("error: {e}\n"));
    }
    for (name, out) in [("stdout", &x.stdout), ("stderr", &x.stderr)] {
        if out.is_empty() {
            continue;
        }
        text.push_str(&format!("{name} ({} bytes):\n", out.len()));
        text.push_str(&cap_with(out, STREAM_CAP, |from, len| {
            format!(
                "[… {len} bytes left out; read_output execution_id={} stream={name} offset={from} length={len} …]",
                x.id
            )
        }));
        if !text.ends_with('\n') {
            text.push('\n');
        }
    }
    if x.output_truncated {
        text.push_str("(the command printed more than the store keeps; the end of its output is lost)\n");
    }
    text
}

/// The arguments of `request_execution`.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RequestArgs {
    target: String,
    action: Json,
    #[serde(default)]
    purpose: Option<String>,
}

struct RequestExecution;

impl Tool for RequestExecution {
    fn name(&self) -> &'static str {
        "request_execution"
    }

    fn description(&self) -> &'static str {
        "Run a curated action on a target: `action` is an object naming the action in its `action` field \
         with its parameters beside it, e.g. {\"target\": \"host:pve1\", \"action\": {\"action\": \"restart\", \
         \"unit\": \"nginx\"}}. Actions: restart, systemctl, apt_upgrade (audit reads; upgrade runs in the \
         background), pct_exec (a command inside a container), pct_create (create and start a container, in \
         the background; target the Proxmox host). The gate decides as for `run`. Returns the execution id \
         and its result; a background action returns at once and the task resumes when it ends."
    }

    fn parameters(&self) -> Json {
        json!({
            "type": "object",
            "properties": {
                "target": {"type": "string", "description": "`host:<name>` or `lxc:<name>` (pct_create: the Proxmox host)."},
                "action": action_schema(),
                "purpose": {"type": "string", "description": "One sentence for the operator: why it runs."},
            },
            "required": ["target", "action"],
            "additionalProperties": false,
        })
    }

    fn check(&self, schema: &Json, args: &Json) -> Result<(), String> {
        // The envelope by the schema; the action by its own typed check, the one place actions
        // are validated.
        let mut envelope = schema.clone();
        envelope["properties"]["action"] = json!({"type": "object"});
        args::check(&envelope, args)?;
        Action::from_json(&args["action"]).map(|_| ()).map_err(|e| format!("`action`: {e}"))
    }

    fn is_read_only(&self, _args: &Json) -> bool {
        false
    }

    fn call<'a>(&'a self, ctx: &'a ToolContext<'a>, args: Json) -> ToolFuture<'a> {
        Box::pin(async move {
            let a: RequestArgs = parsed!(args);
            let action = match Action::from_json(&a.action) {
                Ok(action) => action,
                Err(e) => return ToolResult::error(format!("invalid arguments: `action`: {e}. Nothing was run.")),
            };
            let purpose = a.purpose.unwrap_or_else(|| format!("{} on {}", action.name(), a.target));
            let req = ActionRequest {
                target: a.target,
                action,
                purpose,
                task_id: Some(ctx.task_id.to_string()),
                requested_by: ctx.actor.into(),
            };
            let name = req.action.name();
            let result = cancellable(ctx, ctx.actuator.action(req), |x| x.action == name).await;
            match result {
                Ok(o) => outcome_result(ctx.actuator, o.outcome, &o.notes).await,
                Err(e) => e.into(),
            }
        })
    }
}

/// The curated actions' schema, exactly as `nomos_types::actions` declares it (without the
/// root-only keys).
fn action_schema() -> Json {
    let mut schema = actions::schema().clone();
    if let Some(map) = schema.as_object_mut() {
        map.remove("$schema");
        map.remove("title");
    }
    schema
}

/// The arguments of `get_execution_status`.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct StatusArgs {
    /// The id a `run` or `request_execution` returned.
    execution_id: String,
}

struct ExecutionStatusTool;

impl Tool for ExecutionStatusTool {
    fn name(&self) -> &'static str {
        "get_execution_status"
    }

    fn description(&self) -> &'static str {
        "How an execution stands: waiting for approval (and what the operator must do), running, or how it \
         ended (exit code, duration, the head and tail of its output). Use it for a background action or a \
         request that waited for approval."
    }

    fn parameters(&self) -> Json {
        schema_of::<StatusArgs>()
    }

    fn is_read_only(&self, _args: &Json) -> bool {
        // It changes by itself while the execution runs or waits.
        false
    }

    fn call<'a>(&'a self, ctx: &'a ToolContext<'a>, args: Json) -> ToolFuture<'a> {
        Box::pin(async move {
            let a: StatusArgs = parsed!(args);
            let x = match ctx.actuator.execution(&a.execution_id).await {
                Ok(x) => x,
                Err(e) => return e.into(),
            };
            let mut text = describe(&x);
            if x.status == ExecutionStatus::PendingApproval {
                if let Ok(pending) = ctx.actuator.pending_approvals().await {
                    if let Some(ap) = pending.iter().find(|ap| ap.execution_id == x.id) {
                        text.push_str(&match &ap.confirmation {
                            Some(words) => {
                                format!("waiting for the operator to type \"{words}\" (approval {})\n", ap.id)
                            }
                            None => format!("waiting for the operator's approval (approval {})\n", ap.id),
                        });
                    }
                }
            }
            ToolResult::ok(text).with_execution(x.id)
        })
    }
}

/// Which stream to read.
#[derive(Debug, Clone, Copy, Default, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
enum Stream {
    #[default]
    Stdout,
    Stderr,
}

/// The arguments of `read_output`.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct ReadArgs {
    execution_id: String,
    /// Byte offset to start at (default 0).
    offset: Option<u64>,
    /// How many bytes (default and at most 3000).
    #[schemars(range(min = 1))]
    length: Option<u64>,
    /// `stdout` (default) or `stderr`.
    stream: Option<Stream>,
}

struct ReadOutput;

impl Tool for ReadOutput {
    fn name(&self) -> &'static str {
        "read_output"
    }

    fn description(&self) -> &'static str {
        "Read a page of an execution's full output (results show only the head and tail of long output; \
         the line between them gives the offset and length to ask for). Returns up to 3000 bytes from \
         `offset` of `stream` and how many bytes there are in all."
    }

    fn parameters(&self) -> Json {
        schema_of::<ReadArgs>()
    }

    fn is_read_only(&self, _args: &Json) -> bool {
        true
    }

    fn call<'a>(&'a self, ctx: &'a ToolContext<'a>, args: Json) -> ToolFuture<'a> {
        Box::pin(async move {
            let a: ReadArgs = parsed!(args);
            let x = match ctx.actuator.execution(&a.execution_id).await {
                Ok(x) => x,
                Err(e) => return e.into(),
            };
            let stream = a.stream.unwrap_or_default();
            let text = match stream {
                Stream::Stdout => &x.stdout,
                Stream::Stderr => &x.stderr,
            };
            let (from, to) = page(text, a.offset.unwrap_or(0), a.length.unwrap_or(PAGE as u64));
            let name = match stream {
                Stream::Stdout => "stdout",
                Stream::Stderr => "stderr",
            };
            let more = if to < text.len() { format!("; next: offset={to}") } else { "; that is the end".into() };
            let mut out = format!("{name} of execution {}, bytes {from}–{to} of {}{more}\n", x.id, text.len());
            out.push_str(&text[from..to]);
            ToolResult::ok(out).with_execution(x.id)
        })
    }
}

/// The byte range of a page: at most [`PAGE`] bytes from `offset`, on char boundaries.
fn page(text: &str, offset: u64, length: u64) -> (usize, usize) {
    let len = text.len();
    let start = usize::try_from(offset).unwrap_or(len).min(len);
    let start = (start..=len).find(|i| text.is_char_boundary(*i)).unwrap_or(len);
    let want = usize::try_from(length).unwrap_or(PAGE).min(PAGE);
    let end = start.saturating_add(want).min(len);
    let end = (start..=end).rev().find(|i| text.is_char_boundary(*i)).unwrap_or(start);
    (start, end)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pages_stay_on_char_boundaries_and_within_the_text() {
        let text = "aé".repeat(10);
        assert_eq!(page(&text, 0, 3), (0, 3));
        assert_eq!(page(&text, 2, 2), (3, 4), "inside a char: start moves forward");
        assert_eq!(page(&text, 100, 5), (30, 30));
        assert_eq!(page(&text, 0, 1_000_000), (0, 30));
        let long = "x".repeat(10_000);
        assert_eq!(page(&long, 0, 1_000_000), (0, PAGE));
    }

    #[test]
    fn the_action_property_is_the_action_schema() {
        let spec = RequestExecution.parameters();
        let mut expected = actions::schema().clone();
        expected.as_object_mut().unwrap().remove("$schema");
        expected.as_object_mut().unwrap().remove("title");
        assert_eq!(spec["properties"]["action"], expected);
        assert!(spec["properties"]["action"]["oneOf"].as_array().unwrap().len() >= 5);
    }

    #[test]
    fn actions_are_checked_by_their_own_typed_check() {
        let t = RequestExecution;
        let s = t.parameters();
        t.check(&s, &json!({"target": "host:pve1", "action": {"action": "restart", "unit": "nginx"}})).unwrap();
        let e = t.check(&s, &json!({"target": "host:pve1", "action": {"action": "reboot"}})).unwrap_err();
        assert!(e.starts_with("`action`: unknown action `reboot`; known: restart"), "{e}");
        let e = t.check(&s, &json!({"target": "host:pve1", "action": {"action": "restart"}})).unwrap_err();
        assert_eq!(e, "`action`: restart: `unit` is required");
        let e = t.check(&s, &json!({"target": "host:pve1", "action": "restart", "params": {}})).unwrap_err();
        assert!(e.starts_with("unknown field `params`"), "{e}");
        let e = t.check(&s, &json!({"action": {"action": "restart", "unit": "x"}})).unwrap_err();
        assert_eq!(e, "missing required field `target` (string)");
    }
}
