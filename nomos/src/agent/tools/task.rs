//! The task tools: how Nomos states the goal, proposes its one plan, moves its steps, asks the
//! operator, and ends the task — honestly: `complete_task` with a success must cite evidence that
//! holds (a call that completed without error, an execution that succeeded), and is refused while a
//! cited call failed or its outcome is unknown, or a step is still open.

use nomos_types::{ExecutionStatus, TaskOutcome, WaitingFor};
use schemars::JsonSchema;
use serde::Deserialize;

use super::args::schema_of;
use super::{Next, Tool, ToolContext, ToolFuture, ToolResult};
use crate::agent::chat::{ToolCall, ToolSpec};
use crate::agent::transcript::{CallState, Transcript};
use crate::plan::{NewStep, StepStatus};
use crate::Engine;

pub const SET_GOAL: &str = "set_goal";
pub const PROPOSE_PLAN: &str = "propose_plan";
pub const UPDATE_PLAN_STEP: &str = "update_plan_step";
pub const ASK_OPERATOR: &str = "ask_operator";
pub const COMPLETE_TASK: &str = "complete_task";

/// The task tools' names.
pub const NAMES: &[&str] = &[SET_GOAL, PROPOSE_PLAN, UPDATE_PLAN_STEP, ASK_OPERATOR, COMPLETE_TASK];

/// The arguments of `set_goal`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct SetGoal {
    /// One sentence: what done looks like.
    goal: String,
}

/// One step of a proposed plan.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct StepArg {
    title: String,
    /// The commands or actions, briefly.
    #[serde(default)]
    detail: Option<String>,
    /// The entity slug it changes, e.g. `lxc:web`.
    #[serde(default)]
    target: Option<String>,
    /// The shell command it runs, exactly as it will be run (the operator's go-ahead is judged
    /// against it); omit for a step that runs none.
    #[serde(default)]
    command: Option<String>,
}

/// The arguments of `propose_plan`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct ProposePlan {
    #[schemars(length(min = 1))]
    steps: Vec<StepArg>,
}

/// The arguments of `update_plan_step`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct UpdateStep {
    /// The step's number, from 1.
    #[schemars(range(min = 1))]
    seq: i64,
    status: StepStatus,
    /// The execution that did it.
    #[serde(default)]
    execution_id: Option<String>,
}

/// The arguments of `ask_operator`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct AskOperator {
    prompt: String,
    /// Answers to choose from, if the question has a few.
    #[serde(default)]
    options: Vec<String>,
}

/// The arguments of `complete_task`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct CompleteTask {
    outcome: TaskOutcome,
    /// What was done and found.
    summary: String,
    /// Ids of tool calls that succeeded or executions that completed with exit code 0.
    #[serde(default)]
    evidence: Vec<String>,
}

/// One task tool as the registry holds it: its spec, and [`call`] to run it.
struct TaskTool {
    name: &'static str,
    description: &'static str,
    parameters: serde_json::Value,
}

impl Tool for TaskTool {
    fn name(&self) -> &'static str {
        self.name
    }

    fn description(&self) -> &'static str {
        self.description
    }

    fn parameters(&self) -> serde_json::Value {
        self.parameters.clone()
    }

    fn is_read_only(&self, _: &serde_json::Value) -> bool {
        false
    }

    fn call<'a>(&'a self, ctx: &'a ToolContext<'a>, args: serde_json::Value) -> ToolFuture<'a> {
        Box::pin(async move {
            let call =
                ToolCall { id: ctx.call_id.to_string(), name: self.name.to_string(), arguments: args.to_string() };
            match self::call(ctx.engine, ctx.task_id, &call).await {
                Some(result) => result,
                None => ToolResult::error(format!("`{}` is not a task tool", self.name)),
            }
        })
    }
}

/// The task-lifecycle tools, in the order offered.
pub(super) fn tools() -> Vec<Box<dyn Tool>> {
    specs()
        .into_iter()
        .filter_map(|spec| {
            let name = NAMES.iter().copied().find(|n| *n == spec.name)?;
            let description = DESCRIPTIONS.iter().find(|(n, _)| *n == name).map(|(_, d)| *d)?;
            Some(Box::new(TaskTool { name, description, parameters: spec.parameters }) as Box<dyn Tool>)
        })
        .collect()
}

const DESCRIPTIONS: &[(&str, &str)] = &[
    (SET_GOAL, "State the task's goal in one sentence (what done looks like)."),
    (
        PROPOSE_PLAN,
        "Propose the whole plan in one call, after researching. The task then waits for the operator to approve \
         it. Proposing again later appends steps; it never replaces the plan.",
    ),
    (UPDATE_PLAN_STEP, "Move a plan step to a new status, citing the execution that did it."),
    (ASK_OPERATOR, "Ask the operator a question only they can answer; the task waits for the answer."),
    (
        COMPLETE_TASK,
        "End the task. A success must cite evidence: ids of tool calls that succeeded or executions that completed \
         with exit code 0. Every plan step must be done, skipped or failed first.",
    ),
];

fn describe(name: &str) -> &'static str {
    DESCRIPTIONS.iter().find(|(n, _)| *n == name).map(|(_, d)| *d).unwrap_or_default()
}

/// The task tools as offered to the model; each schema is derived from its argument struct.
pub fn specs() -> Vec<ToolSpec> {
    let schemas = [
        (SET_GOAL, schema_of::<SetGoal>()),
        (PROPOSE_PLAN, schema_of::<ProposePlan>()),
        (UPDATE_PLAN_STEP, schema_of::<UpdateStep>()),
        (ASK_OPERATOR, schema_of::<AskOperator>()),
        (COMPLETE_TASK, schema_of::<CompleteTask>()),
    ];
    schemas
        .into_iter()
        .map(|(name, parameters)| ToolSpec { name: name.into(), description: describe(name).into(), parameters })
        .collect()
}

fn parse<T: for<'de> Deserialize<'de>>(call: &ToolCall) -> Result<T, ToolResult> {
    let text = if call.arguments.trim().is_empty() { "{}" } else { call.arguments.as_str() };
    serde_json::from_str(text)
        .map_err(|e| ToolResult::error(format!("{}: the arguments do not fit its schema: {e}", call.name)))
}

/// Runs a task tool; `None` when `call` is not one.
pub async fn call(engine: &Engine, task: &str, call: &ToolCall) -> Option<ToolResult> {
    let result = match call.name.as_str() {
        SET_GOAL => set_goal(engine, task, call).await,
        PROPOSE_PLAN => propose_plan(engine, task, call).await,
        UPDATE_PLAN_STEP => update_step(engine, task, call).await,
        ASK_OPERATOR => ask(engine, task, call).await,
        COMPLETE_TASK => complete(engine, task, call).await,
        _ => return None,
    };
    Some(result.unwrap_or_else(|e| e))
}

/// How a `complete_task` call ends the task: its outcome and summary (the call already passed).
pub fn completion_of(call: &ToolCall) -> Option<(TaskOutcome, String)> {
    if call.name != COMPLETE_TASK {
        return None;
    }
    let args: CompleteTask = parse(call).ok()?;
    Some((args.outcome, args.summary.trim().to_string()))
}

fn engine_error(e: crate::Error) -> ToolResult {
    ToolResult::error(e.to_string())
}

async fn set_goal(engine: &Engine, task: &str, call: &ToolCall) -> Result<ToolResult, ToolResult> {
    let args: SetGoal = parse(call)?;
    if args.goal.trim().is_empty() {
        return Err(ToolResult::error("set_goal: the goal is empty"));
    }
    engine.set_task_goal(task, args.goal.trim()).await.map_err(engine_error)?;
    Ok(ToolResult::ok(format!("goal set: {}", args.goal.trim())))
}

async fn propose_plan(engine: &Engine, task: &str, call: &ToolCall) -> Result<ToolResult, ToolResult> {
    let args: ProposePlan = parse(call)?;
    let steps: Vec<NewStep> = args
        .steps
        .into_iter()
        .map(|s| NewStep { title: s.title, detail: s.detail.unwrap_or_default(), target: s.target, command: s.command })
        .collect();
    let before = engine.plan(task).await.map_err(engine_error)?.len();
    let plan = engine.append_plan(task, &steps).await.map_err(engine_error)?;
    let mut text = if before == 0 {
        String::from("plan proposed; the task waits for the operator's approval:\n")
    } else {
        format!(
            "{} step(s) appended after the existing {before}; the task waits for the operator's approval:\n",
            steps.len()
        )
    };
    for s in &plan {
        text.push_str(&format!("{}. [{}] {}\n", s.seq, s.status, s.title));
    }
    Ok(ToolResult { next: Next::Wait(WaitingFor::Plan), ..ToolResult::ok(text) })
}

async fn update_step(engine: &Engine, task: &str, call: &ToolCall) -> Result<ToolResult, ToolResult> {
    let args: UpdateStep = parse(call)?;
    if args.status == StepStatus::Done {
        if let Some(exec) = &args.execution_id {
            if let Some(why) = execution_problem(engine, task, exec).await.map_err(unchecked(exec))? {
                return Err(ToolResult::error(format!("step {} cannot be done on {exec}: {why}", args.seq)));
            }
        }
    }
    let step = engine
        .update_plan_step(task, args.seq, args.status, args.execution_id.as_deref())
        .await
        .map_err(engine_error)?;
    Ok(ToolResult::ok(format!("step {}: {} — {}", step.seq, step.status, step.title)))
}

async fn ask(engine: &Engine, task: &str, call: &ToolCall) -> Result<ToolResult, ToolResult> {
    let args: AskOperator = parse(call)?;
    if args.prompt.trim().is_empty() {
        return Err(ToolResult::error("ask_operator: the question is empty"));
    }
    engine.ask_question(task, &args.prompt, &args.options).await.map_err(engine_error)?;
    Ok(ToolResult { next: Next::Wait(WaitingFor::Answer), ..ToolResult::ok("asked; the task waits for the answer") })
}

/// Why an execution is no evidence of success, if it is not. An execution that cannot be read is
/// an error, never taken as evidence.
async fn execution_problem(engine: &Engine, task: &str, id: &str) -> crate::Result<Option<String>> {
    let row: Option<(Option<String>, String, Option<i64>)> =
        sqlx::query_as("SELECT task_id, status, exit_code FROM executions WHERE id = ?")
            .bind(id)
            .fetch_optional(engine.store().pool())
            .await?;
    let row = row
        .map(|(owner, status, code)| status.parse::<ExecutionStatus>().map(|status| (owner, status, code)))
        .transpose()
        .map_err(|e| crate::Error::Invalid(e.to_string()))?;
    Ok(match row {
        None => Some("no such execution".into()),
        Some((owner, _, _)) if owner.as_deref() != Some(task) => Some("it belongs to another task".into()),
        Some((_, ExecutionStatus::Completed, Some(0))) => None,
        Some((_, status, code)) => {
            Some(format!("it is {status}{}", code.map(|c| format!(" with exit code {c}")).unwrap_or_default()))
        }
    })
}

/// The refusal when evidence could not be checked: the store failed, so nothing is taken as done.
fn unchecked(evidence: &str) -> impl FnOnce(crate::Error) -> ToolResult + '_ {
    move |e| {
        tracing::error!(evidence, error = %e, "could not check the agent's evidence; refusing");
        ToolResult::error(format!(
            "refused: {evidence} could not be checked against the database ({e}); unchecked evidence counts for \
             nothing — try again"
        ))
    }
}

async fn complete(engine: &Engine, task: &str, call: &ToolCall) -> Result<ToolResult, ToolResult> {
    let args: CompleteTask = parse(call)?;
    let outcome = args.outcome;
    if args.summary.trim().is_empty() {
        return Err(ToolResult::error("complete_task: the summary is empty; say what was done and found"));
    }
    if outcome == TaskOutcome::Success {
        let mut problems = Vec::new();
        if args.evidence.is_empty() {
            problems.push("a success must cite evidence (tool call ids or execution ids)".to_string());
        }
        let calls = Transcript::new(engine, task).calls().await.map_err(engine_error)?;
        for item in &args.evidence {
            if let Some(c) = calls.iter().find(|c| &c.call.id == item) {
                match c.state {
                    CallState::Completed if !c.is_error => {}
                    CallState::Completed => problems.push(format!("{item} ({}) failed", c.call.name)),
                    CallState::Interrupted => {
                        problems.push(format!("{item} ({}) was interrupted: its outcome is unknown", c.call.name))
                    }
                    other => problems.push(format!("{item} ({}) is {}", c.call.name, other.as_str())),
                }
            } else if let Some(why) = execution_problem(engine, task, item).await.map_err(unchecked(item))? {
                problems.push(format!("{item}: {why}"));
            }
        }
        for step in engine.plan(task).await.map_err(engine_error)? {
            match step.status {
                StepStatus::Done | StepStatus::Skipped => {}
                other => problems.push(format!("step {} ({}) is {other}", step.seq, step.title)),
            }
            if let (Some(exec), StepStatus::Done) = (&step.execution_id, step.status) {
                if let Some(why) = execution_problem(engine, task, exec).await.map_err(unchecked(exec))? {
                    problems.push(format!("step {} cites {exec}: {why}", step.seq));
                }
            }
        }
        // A task opened on a signal succeeds only when the signal cleared.
        if let Some(inv) = engine.investigation_of(task).await.map_err(engine_error)? {
            let signal = engine.signal(&inv.signal_id).await.map_err(engine_error)?;
            if signal.state != nomos_types::SignalState::Resolved {
                problems.push(format!(
                    "signal {} ({}) is still {}: verify the fix with verify_signal",
                    signal.id, signal.message, signal.state
                ));
            }
        }
        if !problems.is_empty() {
            return Err(ToolResult::error(format!(
                "complete_task refused — not a verified success yet:\n- {}\nVerify (re-check, or finish the \
                 steps), or report outcome partial or failure.",
                problems.join("\n- ")
            )));
        }
        // What worked is remembered for the next time the same problem shows up.
        match engine.remember_fix(task, args.summary.trim()).await {
            Ok(Some(note)) => tracing::info!(task, note, "fix remembered"),
            Ok(None) => {}
            Err(e) => tracing::warn!(task, "the fix could not be remembered: {e}"),
        }
    }
    Ok(ToolResult {
        next: Next::Finish,
        ..ToolResult::ok(format!("task {}: {}", outcome.as_str(), args.summary.trim()))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn schema(name: &str) -> serde_json::Value {
        specs().into_iter().find(|s| s.name == name).map(|s| s.parameters).unwrap_or_default()
    }

    #[test]
    fn the_schemas_are_derived_from_the_argument_structs() {
        let names: Vec<String> = specs().into_iter().map(|s| s.name).collect();
        assert_eq!(names, NAMES);
        for name in NAMES {
            let s = schema(name);
            assert_eq!(s["type"], "object", "{name}");
            assert_eq!(s["additionalProperties"], false, "{name}: unknown fields are refused");
            assert!(!describe(name).is_empty(), "{name} has a description");
        }
        let update = schema(UPDATE_PLAN_STEP);
        let states: Vec<&str> = StepStatus::ALL.iter().map(|s| s.as_str()).collect();
        assert_eq!(update["properties"]["status"]["enum"], serde_json::json!(states));
        assert_eq!(update["properties"]["seq"]["minimum"], 1);
        assert_eq!(update["required"], serde_json::json!(["seq", "status"]));
        let complete = schema(COMPLETE_TASK);
        assert_eq!(complete["properties"]["outcome"]["enum"], serde_json::json!(["success", "failure", "partial"]));
        assert_eq!(complete["required"], serde_json::json!(["outcome", "summary"]));
        let plan = schema(PROPOSE_PLAN);
        assert_eq!(plan["properties"]["steps"]["minItems"], 1);
        assert_eq!(plan["properties"]["steps"]["items"]["required"], serde_json::json!(["title"]));
    }

    #[test]
    fn every_call_is_checked_against_its_schema() {
        let bad = [
            (UPDATE_PLAN_STEP, serde_json::json!({"seq": 1, "status": "finished"})),
            (UPDATE_PLAN_STEP, serde_json::json!({"seq": 0, "status": "done"})),
            (COMPLETE_TASK, serde_json::json!({"outcome": "great", "summary": "x"})),
            (PROPOSE_PLAN, serde_json::json!({"steps": []})),
            (SET_GOAL, serde_json::json!({"goal": "x", "extra": 1})),
        ];
        for (name, args) in bad {
            assert!(super::super::args::check(&schema(name), &args).is_err(), "{name} {args}");
        }
        let good = serde_json::json!({"outcome": "partial", "summary": "half", "evidence": ["c1"]});
        assert!(super::super::args::check(&schema(COMPLETE_TASK), &good).is_ok());
    }

    #[tokio::test]
    async fn evidence_that_cannot_be_read_refuses_the_completion() {
        let (_dir, engine) = crate::testing::engine().await;
        let task = engine.create_task("check", "").await.unwrap().id;
        // The executions table is gone: every look-up of an execution fails.
        sqlx::query("ALTER TABLE executions RENAME TO executions_elsewhere")
            .execute(engine.store().pool())
            .await
            .unwrap();
        let tool = |name: &str, args: serde_json::Value| ToolCall {
            id: "c1".into(),
            name: name.into(),
            arguments: args.to_string(),
        };
        let done = tool(COMPLETE_TASK, serde_json::json!({"outcome": "success", "summary": "ok", "evidence": ["x1"]}));
        let r = call(&engine, &task, &done).await.unwrap();
        assert!(r.is_error, "an unreadable execution is no evidence: {}", r.content);
        assert_eq!(r.next, Next::Continue, "the task does not end");
        assert!(r.content.contains("x1 could not be checked"), "{}", r.content);

        engine.append_plan(&task, &[NewStep { title: "restart".into(), ..NewStep::default() }]).await.unwrap();
        let step = tool(UPDATE_PLAN_STEP, serde_json::json!({"seq": 1, "status": "done", "execution_id": "x1"}));
        let r = call(&engine, &task, &step).await.unwrap();
        assert!(r.is_error && r.content.contains("x1 could not be checked"), "{}", r.content);
        assert_eq!(engine.plan(&task).await.unwrap()[0].status, StepStatus::Pending, "the step did not move");
    }
}
