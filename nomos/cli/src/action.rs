//! `nomos action ACTION TARGET -p KEY=VALUE…`: a curated action through the gate.

use clap::Args;
use nomos::actuate::{ActionRequest, RunOutcome};
use nomos::types::actions::ActionSchema;
use nomos::types::{Action, ExecutionStatus, Json};
use nomos::Runtime;
use serde_json::json;

use crate::exit::Outcome;
use crate::out::Out;
use crate::report::{follow, operator, report, until_interrupted};

#[derive(Args, Debug)]
#[command(after_help = help())]
pub struct ActionArgs {
    /// The action's name (listed below)
    action: String,
    /// `host:<slug>` or `lxc:<slug>`
    target: String,
    /// Parameters as key=value (repeatable); numbers and booleans may be written as text
    #[arg(long = "param", short = 'p', value_name = "KEY=VALUE")]
    params: Vec<String>,
    /// The task this belongs to (its windows apply)
    #[arg(long)]
    task: Option<String>,
    /// Why, in one sentence (shown on the approval)
    #[arg(long, default_value = "")]
    purpose: String,
}

pub async fn action(rt: &Runtime, args: ActionArgs, out: Out) -> Outcome {
    let mut params = serde_json::Map::new();
    for p in &args.params {
        let Some((k, v)) = p.split_once('=') else {
            return Err(format!("--param `{p}`: expected KEY=VALUE").into());
        };
        params.insert(k.trim().to_string(), json!(v));
    }
    let action = Action::parse(&args.action, &params).map_err(|e| e.to_string())?;
    let req = ActionRequest {
        target: args.target,
        action,
        purpose: args.purpose,
        task_id: args.task,
        requested_by: operator(None).actor,
    };
    let done = until_interrupted(rt, rt.actuator().action(req)).await?;
    let mut outcome = done.outcome;
    // A background action (create, upgrade) is followed to its end here: a terminal has nowhere
    // else to show the result.
    if let RunOutcome::Ran(x) = &outcome {
        if x.status == ExecutionStatus::Running {
            outcome = RunOutcome::Ran(follow(rt, &x.id).await?);
        }
    }
    report(rt.actuator(), &outcome, &done.notes, out).await
}

/// The list of actions and their parameters after `nomos action --help`, written from the
/// actions' schema (the same the agent is given).
fn help() -> String {
    let mut s =
        String::from("Actions and their parameters (-p KEY=VALUE; numbers and booleans may be written as text):\n");
    for a in ActionSchema::all() {
        s.push_str(&wrap(&format!("  {:<12}", a.name), a.description, 15));
        for name in a.parameters() {
            let p = a.properties.get(name).unwrap_or(&Json::Null);
            let mut line = String::new();
            let mut lead = format!("      {name}");
            if a.is_required(name) {
                lead.push_str(" (required)");
            }
            lead.push(':');
            if let Some(values) = p.get("enum").and_then(Json::as_array) {
                let values: Vec<&str> = values.iter().filter_map(Json::as_str).collect();
                line.push_str(&values.join("|"));
            } else if let Some(d) = p.get("description").and_then(Json::as_str) {
                line.push_str(d);
            }
            if let (Some(min), Some(max)) = (p.get("minimum"), p.get("maximum")) {
                line.push_str(&format!(" ({min}–{max})"));
            }
            if let Some(default) = p.get("default") {
                line.push_str(&format!(" [default: {}]", default.as_str().map_or(default.to_string(), str::to_string)));
            }
            s.push_str(&wrap(&lead, &line, 8));
        }
    }
    s
}

/// `lead` then `text`'s words, as lines of at most 110 columns; continuation lines are indented
/// by `indent`.
fn wrap(lead: &str, text: &str, indent: usize) -> String {
    const WIDTH: usize = 110;
    let mut out = String::new();
    let mut line = lead.to_string();
    let mut fresh = true;
    for word in text.split_whitespace() {
        if !fresh && line.chars().count() + 1 + word.chars().count() > WIDTH {
            out.push_str(&line);
            out.push('\n');
            line = " ".repeat(indent);
            fresh = true;
        }
        if !fresh || !line.trim().is_empty() {
            line.push(' ');
        }
        line.push_str(word);
        fresh = false;
    }
    out.push_str(&line);
    out.push('\n');
    out
}
