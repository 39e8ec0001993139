//! What the gate's commands share: the operator at this terminal, Ctrl-C handling, and how the
//! outcome of a request is printed and turned into an exit status.

use std::io::Write;

use nomos::actuate::{Actuator, Decision, RunOutcome};
use nomos::types::{Approval, Channel, Execution, ExecutionStatus};
use nomos::{Engine, Runtime};
use serde_json::json;

use crate::exit::{Exit, Failure, Outcome};
use crate::out::Out;

/// The operator at this terminal.
pub fn operator(message: Option<String>) -> Decision {
    Decision::by_operator(Channel::Cli, message)
}

/// The operator at this terminal, deciding (approving or denying, opening a window, trusting a
/// host key, answering a task). Refused when this process runs under an agent connected over MCP
/// (it is that agent's shell: `nomos approvals approve` from there would be the agent approving its
/// own request) or inside a coding agent's shell that says so in its environment.
pub async fn deciding(engine: &Engine, message: Option<String>) -> Result<Decision, Failure> {
    if let Some(session) = nomos::mcp::client_above(engine).await? {
        return Err(format!(
            "this runs under {} (connected over MCP): only the operator decides, in Oikos or their own terminal",
            session.title
        )
        .into());
    }
    if let Some(agent) = agent_shell() {
        return Err(
            format!("this runs in {agent}'s shell: only the operator decides, in Oikos or their own terminal").into()
        );
    }
    Ok(operator(message))
}

/// The coding agent whose shell this is, by the variable it sets for the commands it runs.
fn agent_shell() -> Option<&'static str> {
    const MARKERS: [(&str, &str); 3] =
        [("CLAUDECODE", "Claude Code"), ("CODEX_SANDBOX", "Codex"), ("CODEX_SANDBOX_NETWORK_DISABLED", "Codex")];
    MARKERS.into_iter().find(|(var, _)| std::env::var_os(var).is_some_and(|v| !v.is_empty())).map(|(_, who)| who)
}

/// Runs `work`; on Ctrl-C, stops what this process runs on the hosts (killed there, recorded as
/// cancelled) and lets `work` finish with that, instead of leaving commands behind.
pub async fn until_interrupted<T>(rt: &Runtime, work: impl std::future::Future<Output = T>) -> T {
    tokio::pin!(work);
    tokio::select! {
        r = &mut work => r,
        _ = tokio::signal::ctrl_c() => {
            eprintln!("interrupted: stopping the command on the host…");
            rt.cancel_running();
            work.await
        }
    }
}

/// Waits for an execution's end, stopping it on Ctrl-C.
pub async fn follow(rt: &Runtime, id: &str) -> Result<Execution, Failure> {
    Ok(until_interrupted(rt, rt.actuator().wait_final(id)).await?)
}

/// Prints what became of a request: 0 it ran and succeeded, 1 it failed, 3 it waits for approval.
pub async fn report(act: &Actuator, outcome: &RunOutcome, notes: &[String], out: Out) -> Outcome {
    match outcome {
        RunOutcome::Ran(x) => {
            let (stdout, stderr) = act.execution_output(&x.id).await?;
            if out.json {
                out.print(&json!({"outcome": "ran", "execution": x, "notes": notes}), |_| String::new())?;
            } else {
                for n in notes {
                    eprintln!("note: {n}");
                }
                eprintln!("risk: {} ({})", x.risk, x.reasons.join("; "));
                // The exact bytes, as the host printed them.
                let _ = std::io::stdout().lock().write_all(&stdout);
                let _ = std::io::stderr().lock().write_all(&stderr);
                if x.output_truncated {
                    eprintln!("(output was cut at the storage cap)");
                }
                let how = x.error.as_deref().map(|e| format!(": {e}")).unwrap_or_default();
                eprintln!("execution {} {}{how}", x.id, x.status);
                if let Some(host) = x.error.as_deref().and_then(untrusted_host) {
                    eprintln!("check the fingerprint on the host, then: nomos hosts trust {host}");
                }
            }
            Ok(if x.status == ExecutionStatus::Completed { Exit::Ok } else { Exit::Failed })
        }
        RunOutcome::Queued { execution, approval, existing } => {
            out.print(
                &json!({"outcome": "queued", "execution": execution, "approval": approval,
                        "existing": existing, "notes": notes}),
                |_| {
                    let mut s: String = notes.iter().map(|n| format!("note: {n}\n")).collect();
                    s.push_str(&format!(
                        "execution {} queued (risk: {}){}\n  {}\n  {}\n",
                        execution.id,
                        execution.risk,
                        if *existing { " — the same request was already waiting" } else { "" },
                        execution.reasons.join("; "),
                        blast_line(approval),
                    ));
                    if approval.requires_confirmation {
                        s.push_str(&format!(
                            "approve with: nomos approvals approve {} --confirm \"{}\"",
                            approval.id,
                            approval.confirmation.as_deref().unwrap_or_default()
                        ));
                    } else {
                        s.push_str(&format!("approve with: nomos approvals approve {}", approval.id));
                    }
                    s
                },
            )?;
            Ok(Exit::Waiting)
        }
    }
}

/// The host named in a "host key … not trusted" error.
fn untrusted_host(error: &str) -> Option<&str> {
    error.strip_prefix("host key for ")?.split_once(" not trusted:").map(|(h, _)| h)
}

pub fn blast_line(a: &Approval) -> String {
    a.blast_radius.get("summary").and_then(|v| v.as_str()).unwrap_or("blast radius unknown").to_string()
}
