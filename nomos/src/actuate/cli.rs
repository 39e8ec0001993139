//! The `nomos hosts|run|action|approvals|executions|autonomy` commands: the operator's side of the
//! gate from a terminal. Everything goes through [`Actuator`]; this only parses and prints.

use std::io::Write;
use std::time::Duration;

use clap::{Args, Subcommand};
use nomos_types::{Approval, Channel, EntityQuery, Execution, ExecutionStatus, HostKey, Risk, WindowKind};
use serde::Serialize;
use serde_json::json;

use super::curated::ActionRequest;
use super::{Actuator, Decision, RunOutcome, RunRequest};

/// `nomos hosts …`
#[derive(Subcommand, Debug)]
pub enum HostsCommand {
    /// Hosts with their SSH endpoint and pinned key
    List,
    /// Pin the key the host presents as trusted. Without --fingerprint only a first sighting is
    /// trusted (the key shown in the "not trusted" error); a changed key needs --fingerprint.
    Trust {
        slug: String,
        /// The fingerprint checked on the host (`ssh-keygen -lf /etc/ssh/ssh_host_ed25519_key.pub`)
        #[arg(long, value_name = "SHA256:…")]
        fingerprint: Option<String>,
    },
}

/// `nomos run …`
#[derive(Args, Debug)]
pub struct RunArgs {
    /// `host:<slug>` or `lxc:<slug>`
    pub target: String,
    /// The task this belongs to (its windows apply)
    #[arg(long)]
    pub task: Option<String>,
    /// Why, in one sentence (shown on the approval)
    #[arg(long, default_value = "")]
    pub purpose: String,
    /// Your own view of the risk; can only raise the classifier's
    #[arg(long, value_parser = parse_risk)]
    pub declared: Option<Risk>,
    /// Seconds before the command is killed [default: 600]
    #[arg(long)]
    pub timeout: Option<u64>,
    /// The command (words are joined with spaces)
    #[arg(last = true, required = true)]
    pub command: Vec<String>,
}

/// `nomos action …`
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
    pub action: String,
    /// `host:<slug>` or `lxc:<slug>`
    pub target: String,
    /// Parameters as key=value (repeatable); numbers and booleans may be written as text
    #[arg(long = "param", short = 'p', value_name = "KEY=VALUE")]
    pub params: Vec<String>,
    /// The task this belongs to (its windows apply)
    #[arg(long)]
    pub task: Option<String>,
    /// Why, in one sentence (shown on the approval)
    #[arg(long, default_value = "")]
    pub purpose: String,
}

/// `nomos approvals …`
#[derive(Subcommand, Debug)]
pub enum ApprovalsCommand {
    /// Approvals waiting for a decision
    List,
    /// Approve and run (ID of the approval or its execution)
    Approve {
        id: String,
        /// Typed confirmation for a destructive command; must name the target
        #[arg(long)]
        confirm: Option<String>,
    },
    /// Refuse; it never runs
    Deny {
        id: String,
        #[arg(long)]
        reason: Option<String>,
    },
}

/// `nomos executions …`
#[derive(Subcommand, Debug)]
pub enum ExecutionsCommand {
    /// Recent executions, newest first
    List {
        #[arg(long)]
        task: Option<String>,
        #[arg(long, value_parser = parse_status)]
        status: Option<ExecutionStatus>,
        #[arg(long, default_value_t = 30)]
        limit: u32,
    },
    /// One execution with its output
    Show { id: String },
    /// Withdraw a waiting request, or stop a running command (also one another process runs)
    Cancel { id: String },
}

/// `nomos autonomy …`
#[derive(Subcommand, Debug)]
pub enum AutonomyCommand {
    /// Windows open now and whether autonomy is paused
    Status,
    /// Revoke every open window; none opens until resumed
    Pause,
    Resume,
    /// Open a task's assent window (or, with --target, its destructive window on that target)
    Open {
        task: String,
        #[arg(long)]
        target: Option<String>,
    },
    /// Revoke the open windows (of one task with --task)
    Revoke {
        #[arg(long)]
        task: Option<String>,
    },
}

fn parse_risk(s: &str) -> Result<Risk, String> {
    s.parse().map_err(|e: nomos_types::UnknownValue| e.to_string())
}

fn parse_status(s: &str) -> Result<ExecutionStatus, String> {
    s.parse().map_err(|e: nomos_types::UnknownValue| e.to_string())
}

/// The operator at this terminal.
fn operator(message: Option<String>) -> Decision {
    let user = std::env::var("USER").ok().filter(|u| !u.is_empty()).unwrap_or_else(|| "operator".into());
    Decision { actor: format!("operator:{user}"), channel: Channel::Cli, message }
}

fn print<T: Serialize>(json_out: bool, value: &T, human: impl FnOnce(&T) -> String) -> Result<(), String> {
    let text = if json_out { serde_json::to_string_pretty(value).map_err(|e| e.to_string())? } else { human(value) };
    // A closed pipe (`| head`) is not an error worth reporting.
    let _ = writeln!(std::io::stdout().lock(), "{}", text.trim_end());
    Ok(())
}

pub async fn hosts(act: &Actuator, cmd: HostsCommand, json_out: bool) -> Result<(), String> {
    let e = |err: crate::Error| err.to_string();
    match cmd {
        HostsCommand::List => {
            let q = EntityQuery { entity_type: Some("host".into()), limit: Some(1000), ..Default::default() };
            let hosts = act.engine().list_entities(&q).await.map_err(e)?;
            let keys = act.host_keys().await.map_err(e)?;
            #[derive(Serialize)]
            struct Row {
                host: String,
                endpoint: String,
                key: Option<HostKey>,
            }
            let rows: Vec<Row> = hosts
                .items
                .into_iter()
                .map(|h| {
                    let a = &h.entity.attributes;
                    let endpoint = format!(
                        "{}@{}:{}",
                        a.get("ssh_user").and_then(|v| v.as_str()).unwrap_or("root"),
                        a.get("address").and_then(|v| v.as_str()).unwrap_or("?"),
                        a.get("ssh_port").and_then(|v| v.as_u64()).unwrap_or(22)
                    );
                    let key = keys.iter().find(|k| k.host == h.entity.slug).cloned();
                    Row { host: h.entity.slug, endpoint, key }
                })
                .collect();
            print(json_out, &rows, |rows| {
                let mut s = String::new();
                for r in rows {
                    let key = match &r.key {
                        None => "no key seen yet".to_string(),
                        Some(k) if k.trusted => format!("trusted {}", k.fingerprint),
                        Some(k) => format!("NOT trusted {} (nomos hosts trust {})", k.fingerprint, r.host),
                    };
                    s.push_str(&format!("{:<20} {:<32} {key}\n", r.host, r.endpoint));
                }
                if s.is_empty() {
                    s = "no hosts; import an inventory first (nomos inventory import FILE)".into();
                }
                s
            })
        }
        HostsCommand::Trust { slug, fingerprint } => {
            let key = act.trust_host(&slug, fingerprint.as_deref(), &operator(None)).await.map_err(e)?;
            print(json_out, &key, |k| format!("{} trusted: {} {}", k.host, k.algorithm, k.fingerprint))
        }
    }
}

pub async fn run(act: &Actuator, args: RunArgs, json_out: bool) -> Result<Ended, String> {
    let req = RunRequest {
        target: args.target,
        command: args.command.join(" "),
        purpose: args.purpose,
        declared_risk: args.declared,
        task_id: args.task,
        requested_by: operator(None).actor,
        timeout: args.timeout.map(Duration::from_secs),
        background: false,
    };
    let outcome = until_interrupted(act.run(req)).await.map_err(|e| e.to_string())?;
    report(act, &outcome, &[], json_out).await
}

pub async fn action(act: &Actuator, args: ActionArgs, json_out: bool) -> Result<Ended, String> {
    let mut params = serde_json::Map::new();
    for p in &args.params {
        let Some((k, v)) = p.split_once('=') else {
            return Err(format!("--param `{p}`: expected KEY=VALUE"));
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
    let done = until_interrupted(act.action(req)).await.map_err(|e| e.to_string())?;
    let mut outcome = done.outcome;
    // A background action (create, upgrade) is followed to its end here: a terminal has nowhere
    // else to show the result.
    if let RunOutcome::Ran(x) = &outcome {
        if x.status == ExecutionStatus::Running {
            outcome = RunOutcome::Ran(until_interrupted(wait_for(act, &x.id)).await?);
        }
    }
    report(act, &outcome, &done.notes, json_out).await
}

/// Runs `work`; on Ctrl-C, stops what this process runs on the hosts (killed there, recorded as
/// cancelled) and lets `work` finish with that, instead of leaving commands behind.
async fn until_interrupted<T>(work: impl std::future::Future<Output = T>) -> T {
    tokio::pin!(work);
    tokio::select! {
        r = &mut work => r,
        _ = tokio::signal::ctrl_c() => {
            eprintln!("interrupted: stopping the command on the host…");
            super::cancel_running_here();
            work.await
        }
    }
}

async fn wait_for(act: &Actuator, id: &str) -> Result<Execution, String> {
    act.wait_final(id).await.map_err(|e| e.to_string())
}

/// How a command-line request ended, for the exit status: 0 ran and succeeded, 1 failed,
/// 3 waits for approval.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ended {
    Succeeded,
    Failed,
    Queued,
}

/// Prints what became of a request.
async fn report(act: &Actuator, outcome: &RunOutcome, notes: &[String], json_out: bool) -> Result<Ended, String> {
    match outcome {
        RunOutcome::Ran(x) => {
            let (stdout, stderr) = act.execution_output(&x.id).await.map_err(|e| e.to_string())?;
            if json_out {
                print(true, &json!({"outcome": "ran", "execution": x, "notes": notes}), |_| String::new())?;
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
            Ok(if x.status == ExecutionStatus::Completed { Ended::Succeeded } else { Ended::Failed })
        }
        RunOutcome::Queued { execution, approval, existing } => {
            print(
                json_out,
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
                        let name = approval.target.split_once(':').map_or(approval.target.as_str(), |(_, n)| n);
                        s.push_str(&format!(
                            "approve with: nomos approvals approve {} --confirm \"confirm {name}\"",
                            approval.id
                        ));
                    } else {
                        s.push_str(&format!("approve with: nomos approvals approve {}", approval.id));
                    }
                    s
                },
            )?;
            Ok(Ended::Queued)
        }
    }
}

/// The host named in a "host key … not trusted" error.
fn untrusted_host(error: &str) -> Option<&str> {
    error.strip_prefix("host key for ")?.split_once(" not trusted:").map(|(h, _)| h)
}

fn blast_line(a: &Approval) -> String {
    a.blast_radius.get("summary").and_then(|v| v.as_str()).unwrap_or("blast radius unknown").to_string()
}

pub async fn approvals(act: &Actuator, cmd: ApprovalsCommand, json_out: bool) -> Result<Ended, String> {
    let e = |err: crate::Error| err.to_string();
    match cmd {
        ApprovalsCommand::List => {
            let list = act.pending_approvals().await.map_err(e)?;
            print(json_out, &list, |list| {
                if list.is_empty() {
                    return "nothing waits for approval".into();
                }
                list.iter()
                    .map(|a| {
                        format!(
                            "{}  {}  {}  expires {}\n  $ {}\n  {}{}\n",
                            a.id,
                            a.risk,
                            a.target,
                            a.expires_at,
                            a.command,
                            blast_line(a),
                            if a.requires_confirmation {
                                "\n  needs a typed confirmation naming the target"
                            } else {
                                ""
                            }
                        )
                    })
                    .collect()
            })?;
            Ok(Ended::Succeeded)
        }
        ApprovalsCommand::Approve { id, confirm } => {
            let x = until_interrupted(act.approve(&id, &operator(confirm))).await.map_err(e)?;
            let x = if x.status.is_final() { x } else { until_interrupted(wait_for(act, &x.id)).await? };
            report(act, &RunOutcome::Ran(x), &[], json_out).await
        }
        ApprovalsCommand::Deny { id, reason } => {
            let a = act.deny(&id, &operator(reason)).await.map_err(e)?;
            print(json_out, &a, |a| format!("approval {} denied; execution {} will not run", a.id, a.execution_id))?;
            Ok(Ended::Succeeded)
        }
    }
}

pub async fn executions(act: &Actuator, cmd: ExecutionsCommand, json_out: bool) -> Result<(), String> {
    let e = |err: crate::Error| err.to_string();
    match cmd {
        ExecutionsCommand::List { task, status, limit } => {
            let list = act.executions(task.as_deref(), status, limit).await.map_err(e)?;
            print(json_out, &list, |list| {
                if list.is_empty() {
                    return "no executions".into();
                }
                list.iter()
                    .map(|x| {
                        let exit = x.exit_code.map(|c| format!(" exit {c}")).unwrap_or_default();
                        format!(
                            "{}  {:<16} {:<16} {:<20} {}{exit}\n  $ {}\n",
                            x.id, x.status, x.risk, x.target, x.created_at, x.command
                        )
                    })
                    .collect()
            })
        }
        ExecutionsCommand::Cancel { id } => {
            let x = act.cancel(&id, &operator(None)).await.map_err(e)?;
            print(json_out, &x, |x| match x.status {
                ExecutionStatus::Running => format!("execution {} asked to stop; it ends within seconds", x.id),
                other => format!("execution {} {other}", x.id),
            })
        }
        ExecutionsCommand::Show { id } => {
            let x = act.execution(&id).await.map_err(e)?;
            print(json_out, &x, |x| {
                let mut s = format!(
                    "execution {}\n  target   {}\n  action   {} {}\n  command  {}\n  purpose  {}\n  risk     {} ({})\n  status   {}\n",
                    x.id,
                    x.target,
                    x.action,
                    x.params,
                    x.command,
                    x.purpose,
                    x.risk,
                    x.reasons.join("; "),
                    x.status
                );
                for (k, v) in [
                    ("task", x.task_id.clone()),
                    ("granted", x.granted_by.clone()),
                    ("exit", x.exit_code.map(|c| c.to_string())),
                    ("error", x.error.clone()),
                    ("created", Some(x.created_at.clone())),
                    ("finished", x.finished_at.clone()),
                    ("took", x.duration_ms.map(|d| format!("{d} ms"))),
                ] {
                    if let Some(v) = v {
                        s.push_str(&format!("  {k:<8} {v}\n"));
                    }
                }
                if !x.stdout.is_empty() {
                    s.push_str(&format!("--- stdout\n{}\n", x.stdout.trim_end()));
                }
                if !x.stderr.is_empty() {
                    s.push_str(&format!("--- stderr\n{}\n", x.stderr.trim_end()));
                }
                if x.output_truncated {
                    s.push_str("(output was cut at the storage cap)\n");
                }
                s
            })
        }
    }
}

pub async fn autonomy(act: &Actuator, cmd: AutonomyCommand, json_out: bool) -> Result<(), String> {
    let e = |err: crate::Error| err.to_string();
    let me = operator(None);
    match cmd {
        AutonomyCommand::Status => {
            let paused = act.is_paused().await.map_err(e)?;
            let windows = act.open_windows().await.map_err(e)?;
            print(json_out, &json!({"paused": paused, "windows": windows}), |_| {
                let mut s = format!("autonomy {}\n", if paused { "PAUSED" } else { "on" });
                for w in &windows {
                    s.push_str(&format!(
                        "{} window of task {}{} until {}\n",
                        w.kind,
                        w.task_id,
                        w.target.as_deref().map(|t| format!(" on {t}")).unwrap_or_default(),
                        w.expires_at
                    ));
                }
                s
            })
        }
        AutonomyCommand::Pause => {
            act.set_paused(true, &me).await.map_err(e)?;
            print(json_out, &json!({"paused": true}), |_| "autonomy paused: every window revoked".into())
        }
        AutonomyCommand::Resume => {
            act.set_paused(false, &me).await.map_err(e)?;
            print(json_out, &json!({"paused": false}), |_| "autonomy resumed".into())
        }
        AutonomyCommand::Open { task, target } => {
            let kind = if target.is_some() { WindowKind::Destructive } else { WindowKind::Assent };
            let w = act.open_window(&task, kind, target.as_deref(), &me).await.map_err(e)?;
            print(json_out, &w, |w| format!("{} window {} open until {}", w.kind, w.id, w.expires_at))
        }
        AutonomyCommand::Revoke { task } => {
            let n = act.revoke_windows(task.as_deref(), &me).await.map_err(e)?;
            print(json_out, &json!({"revoked": n}), |_| format!("{n} window(s) revoked"))
        }
    }
}
