//! `nomos action ACTION TARGET -p KEY=VALUE…`: a curated action through the gate.

use clap::Args;
use nomos::actuate::{ActionRequest, RunOutcome};
use nomos::types::ExecutionStatus;
use nomos::Runtime;
use serde_json::json;

use crate::exit::Outcome;
use crate::out::Out;
use crate::report::{follow, operator, report, until_interrupted};

#[derive(Args, Debug)]
#[command(after_help = "Actions and their parameters (-p KEY=VALUE):
  restart      unit                                  (target: host or lxc)
  systemctl    verb (start|stop|restart|reload|try-restart|reload-or-restart|enable|disable|status|is-active), unit
  apt_upgrade  mode (audit: list upgradable, read-only | upgrade: gated, in the background)
  pct_exec     command                               (target: lxc)
  pct_create   hostname, and optionally vmid, template, cores, memory, swap, disk_gb, storage,
               ip (dhcp | CIDR), gw, bridge, unprivileged, nesting, start   (target: the Proxmox host)")]
pub struct ActionArgs {
    /// restart, systemctl, apt_upgrade, pct_exec or pct_create
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
    let req = ActionRequest {
        target: args.target,
        action: args.action,
        params: serde_json::Value::Object(params),
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
