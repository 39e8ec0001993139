//! `nomos run TARGET -- COMMAND`: one shell command through the gate.

use std::time::Duration;

use clap::Args;
use nomos::actuate::RunRequest;
use nomos::types::Risk;
use nomos::Runtime;

use crate::exit::Outcome;
use crate::out::{parse_enum, Out};
use crate::report::{operator, report, until_interrupted};

#[derive(Args, Debug)]
pub struct RunArgs {
    /// `host:<slug>` or `lxc:<slug>`
    target: String,
    /// The task this belongs to (its windows apply)
    #[arg(long)]
    task: Option<String>,
    /// Why, in one sentence (shown on the approval)
    #[arg(long, default_value = "")]
    purpose: String,
    /// Your own view of the risk; can only raise the classifier's
    #[arg(long, value_parser = parse_enum::<Risk>)]
    declared: Option<Risk>,
    /// Seconds before the command is killed [default: 600]
    #[arg(long)]
    timeout: Option<u64>,
    /// The command (words are joined with spaces)
    #[arg(last = true, required = true)]
    command: Vec<String>,
}

pub async fn run(rt: &Runtime, args: RunArgs, out: Out) -> Outcome {
    let req = RunRequest {
        target: args.target,
        command: args.command.join(" "),
        purpose: args.purpose,
        declared_risk: args.declared,
        task_id: args.task,
        requested_by: operator(None).actor,
        timeout: args.timeout.map(Duration::from_secs),
        background: false,
        read_only: false,
        compact: false,
    };
    let outcome = until_interrupted(rt, rt.actuator().run(req)).await?;
    report(rt.actuator(), &outcome, &[], out).await
}
