//! Oikos as the hands of other agents (MCP): what a client connected through `nomos mcp serve`
//! may call, with the same gate as everything else. The protocol itself is the command line's
//! (`nomos mcp serve`); this is the engine's side of it.
//!
//! - A session is its own task (created when the client connects, driven by `mcp:<client>`), so
//!   a window the operator opened for one client never lets another's change run, and Nomos never
//!   takes a turn in it.
//! - Reads are Nomos's own read tools, unchanged. `run` and `request_execution` are its gated
//!   tools: a command that only reads runs and returns its result; anything else returns
//!   `pending_approval` and waits for the operator in Oikos, its notification or `nomos
//!   approvals`. No tool approves, and no text a client sends is read as a go-ahead.

use std::time::Duration;

use nomos_types::mcp::{actor_for, client_title, McpSession};
use nomos_types::tasks::ToolCall;
use nomos_types::{Approval, ApprovalStatus, Execution, ExecutionStatus, TaskStatus};
use serde_json::{json, Value as Json};
use sqlx::Row;
use tokio::sync::mpsc::UnboundedSender;
use tokio_util::sync::CancellationToken;

use crate::actuate::Actuator;
use crate::agent::tools::{cap_with, Registry, RegistryConfig, ToolContext};
use crate::graph::new_id;
use crate::tasks::StatusChange;
use crate::{Engine, Error, Result};

/// Nomos's read tools a client is offered, as they are.
pub const READ_TOOLS: &[&str] = &[
    "list_entities",
    "get_entity",
    "get_relations",
    "get_blast_radius",
    "search_knowledge",
    "get_knowledge",
    "list_signals",
    "get_signal",
    "query_metrics",
    "get_health_summary",
    "get_execution_status",
    "read_output",
];

/// The gated tools: the one way a client's command runs.
pub const GATED_TOOLS: &[&str] = &["run", "request_execution"];

/// The session's own requests still waiting for the operator.
pub const LIST_PENDING: &str = "list_pending_approvals";

/// Waits for the operator's decision on a request, and for the run it leads to.
pub const WAIT: &str = "wait_for_approval";

/// How often a serving process says it is alive; a session not heard from for [`ALIVE_WITHIN`]
/// is not shown as connected.
pub const HEARTBEAT: Duration = Duration::from_secs(10);
const ALIVE_WITHIN: Duration = Duration::from_secs(45);

/// How much of each output stream a result carries (the rest through `read_output`).
const STREAM_CAP: usize = 8000;

/// The most of one read tool's answer a client gets (an agent's context is larger than the
/// model's share of one of Nomos's turns).
const RESULT_CAP: usize = 32 * 1024;

/// Tools that read one execution: a session reads its own only.
const OWN_EXECUTION_TOOLS: &[&str] = &["get_execution_status", "read_output", WAIT];

/// The longest `wait_for_approval` and its default.
const WAIT_MAX_SECS: u64 = 3600;
const WAIT_DEFAULT_SECS: u64 = 300;

/// A tool as a client sees it.
#[derive(Debug, Clone)]
pub struct ToolInfo {
    pub name: String,
    pub description: String,
    /// JSON Schema of the arguments (an object).
    pub schema: Json,
    /// Changes nothing (annotated read-only); the gated tools are annotated destructive.
    pub read_only: bool,
}

/// A tool's answer.
#[derive(Debug, Clone, PartialEq)]
pub struct Reply {
    pub text: String,
    /// The same answer as JSON, for the gated tools and the approvals.
    pub structured: Option<Json>,
    pub is_error: bool,
}

impl Reply {
    fn text(text: impl Into<String>, is_error: bool) -> Reply {
        Reply { text: text.into(), structured: None, is_error }
    }

    fn json(value: Json, is_error: bool) -> Reply {
        Reply { text: value.to_string(), structured: Some(value), is_error }
    }
}

/// One connected client: its session, its task, and the tools it may call.
pub struct Hands {
    engine: Engine,
    actuator: Actuator,
    registry: Registry,
    session: McpSession,
}

impl Hands {
    /// Opens a session for the client that introduced itself as `client` (`title` and `version`
    /// as it gave them): a task of its own, driven by `mcp:<client>`, and the session's row.
    pub async fn open(
        engine: Engine,
        actuator: Actuator,
        client: &str,
        title: Option<&str>,
        version: &str,
    ) -> Result<Hands> {
        let shown = client_title(client, title);
        let actor = actor_for(client);
        let client: String = client.chars().filter(|c| !c.is_control()).take(100).collect();
        let version: String = version.chars().filter(|c| !c.is_control()).take(40).collect();
        let task = engine
            .create_task_driven(
                &format!("{shown} (MCP session)"),
                &format!(
                    "Requests from {shown} over MCP. What only reads runs at once; a change waits here for your \
                     approval, and only you can give it (approving one opens this session's window, as for any \
                     task)."
                ),
                Some(&actor),
            )
            .await?;
        let id = new_id();
        let now = engine.clock().now();
        let pid = std::process::id();
        // The client that started this process: what it runs itself (its shell) is not the operator.
        let client_pid = client_process();
        let inserted = sqlx::query(
            "INSERT INTO mcp_sessions (id, task_id, client, title, version, actor, pid, client_pid, started_at, seen_at)
             VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        )
        .bind(&id)
        .bind(&task.id)
        .bind(&client)
        .bind(&shown)
        .bind(&version)
        .bind(&actor)
        .bind(i64::from(pid))
        .bind(client_pid.map(i64::from))
        .bind(&now)
        .bind(&now)
        .execute(engine.store().pool())
        .await;
        if let Err(e) = inserted {
            // No task without its session.
            if let Err(d) = engine.delete_task(&task.id).await {
                tracing::warn!(task = %task.id, "cannot remove the task of a session that did not open: {d}");
            }
            return Err(e.into());
        }
        tracing::info!(session = %id, client, task = %task.id, "MCP session opened");
        let session = McpSession {
            id,
            task_id: Some(task.id),
            client,
            title: shown,
            version,
            actor,
            pid,
            client_pid,
            started_at: now.clone(),
            seen_at: now,
            ended_at: None,
        };
        let mut names: Vec<&str> = READ_TOOLS.to_vec();
        names.extend(GATED_TOOLS);
        let config = RegistryConfig { result_cap: RESULT_CAP, ..RegistryConfig::default() };
        let registry = Registry::new(config).only(&names);
        Ok(Hands { engine, actuator, registry, session })
    }

    pub fn session(&self) -> &McpSession {
        &self.session
    }

    fn task(&self) -> &str {
        self.session.task_id.as_deref().unwrap_or_default()
    }

    /// Every tool, read tools first.
    pub fn tools(&self) -> Vec<ToolInfo> {
        let mut tools: Vec<ToolInfo> = self
            .registry
            .specs()
            .into_iter()
            .map(|spec| {
                let gated = GATED_TOOLS.contains(&spec.name.as_str());
                let description = match spec.name.as_str() {
                    "run" => format!("{RUN_DESCRIPTION} {GATED_NOTE}"),
                    "request_execution" => format!("{} {GATED_NOTE}", spec.description),
                    _ => spec.description,
                };
                ToolInfo { name: spec.name, description, schema: spec.parameters, read_only: !gated }
            })
            .collect();
        tools.push(ToolInfo {
            name: LIST_PENDING.into(),
            description: "This session's requests that wait for the operator: approval id, execution, command, \
                          target, risk, reasons, blast radius, expiry and, for a destructive one, the words the \
                          operator must type in Oikos."
                .into(),
            schema: json!({"type": "object", "properties": {}, "additionalProperties": false}),
            read_only: true,
        });
        tools.push(ToolInfo {
            name: WAIT.into(),
            description: "Wait for the operator's decision on a request `run` or `request_execution` returned as \
                          pending_approval, and for its run: returns the execution as it stands when decided and \
                          finished, or still pending when `timeout_secs` (default 300, at most 3600) pass. Sends \
                          progress while it waits. It cannot approve anything."
                .into(),
            schema: json!({
                "type": "object",
                "properties": {
                    "execution_id": {"type": "string", "description": "The execution id the request returned."},
                    "timeout_secs": {"type": "integer", "minimum": 1, "maximum": WAIT_MAX_SECS},
                },
                "required": ["execution_id"],
                "additionalProperties": false,
            }),
            read_only: true,
        });
        tools
    }

    /// Calls tool `name` with `args`. `cancel` stops a command the call runs (the client gave up or
    /// went away): it is killed on its host and recorded as cancelled before this returns.
    pub async fn call(&self, name: &str, args: Json, call_id: &str, cancel: &CancellationToken) -> Reply {
        if name == LIST_PENDING {
            if let Err(e) = no_arguments(&args) {
                return Reply::text(format!("invalid arguments for `{name}`: {e}. Nothing was run."), true);
            }
            return self.pending().await;
        }
        if name == WAIT {
            return self.wait(args, cancel, None).await;
        }
        if !READ_TOOLS.contains(&name) && !GATED_TOOLS.contains(&name) {
            let mut known: Vec<String> = self.tools().into_iter().map(|t| t.name).collect();
            known.sort();
            return Reply::text(
                format!(
                    "unknown tool `{name}`; the tools are: {}. Nothing was run. Approving is the operator's alone \
                     (in Oikos, its notification or `nomos approvals`): no tool approves.",
                    known.join(", ")
                ),
                true,
            );
        }
        if let Err(why) = self.may_call(name, &args).await {
            return Reply::text(format!("{why}. Nothing was run."), true);
        }
        let ctx = ToolContext {
            engine: &self.engine,
            actuator: &self.actuator,
            task_id: self.task(),
            actor: &self.session.actor,
            turn_id: &self.session.id,
            call_id,
            cancel,
        };
        let call = ToolCall { id: call_id.to_string(), name: name.to_string(), arguments: args.to_string() };
        let result = self.registry.call(&ctx, &call).await;
        self.touch().await;
        match (GATED_TOOLS.contains(&name), result.execution_id) {
            (true, Some(id)) => match self.outcome(&id).await {
                Ok(outcome) => {
                    let failed = is_failure(&outcome);
                    Reply::json(outcome, failed)
                }
                Err(e) => Reply::text(e.to_string(), true),
            },
            _ => Reply::text(result.content, result.is_error),
        }
    }

    /// What this session may not call now: a gated tool once the operator ended its task, another
    /// session's (or Nomos's) execution.
    async fn may_call(&self, name: &str, args: &Json) -> std::result::Result<(), String> {
        if GATED_TOOLS.contains(&name) {
            let task = self.engine.task(self.task()).await.map_err(|e| e.to_string())?;
            if task.status.is_end() {
                return Err(format!(
                    "the operator has ended this session's task ({}): nothing more runs in it; reconnect to ask again",
                    task.status
                ));
            }
        }
        if OWN_EXECUTION_TOOLS.contains(&name) {
            if let Some(id) = args.get("execution_id").and_then(Json::as_str) {
                let x = self.actuator.execution(id).await.map_err(|e| e.to_string())?;
                if x.task_id.as_deref() != Some(self.task()) {
                    return Err(format!("execution {id} was not requested in this session"));
                }
            }
        }
        Ok(())
    }

    /// `wait_for_approval`: polls the execution every second until it is decided and its run has
    /// ended (or the time is up, or the caller gives up); `progress` hears the elapsed seconds and
    /// the status while it waits.
    pub async fn wait(
        &self,
        args: Json,
        cancel: &CancellationToken,
        progress: Option<&UnboundedSender<(u64, String)>>,
    ) -> Reply {
        let (id, secs) = match wait_args(&args) {
            Ok(v) => v,
            Err(e) => return Reply::text(format!("invalid arguments for `{WAIT}`: {e}. Nothing was run."), true),
        };
        if let Err(why) = self.may_call(WAIT, &args).await {
            return Reply::text(format!("{why}. Nothing was run."), true);
        }
        let started = tokio::time::Instant::now();
        let deadline = started + Duration::from_secs(secs);
        loop {
            let x = match self.actuator.execution(&id).await {
                Ok(x) => x,
                Err(e) => return Reply::text(e.to_string(), true),
            };
            if x.status.is_final() || tokio::time::Instant::now() >= deadline || cancel.is_cancelled() {
                return match self.outcome(&id).await {
                    Ok(mut outcome) => {
                        if !x.status.is_final() {
                            outcome["timed_out"] = json!(!cancel.is_cancelled());
                        }
                        let failed = is_failure(&outcome);
                        Reply::json(outcome, failed)
                    }
                    Err(e) => Reply::text(e.to_string(), true),
                };
            }
            if let Some(p) = progress {
                let _ = p.send((started.elapsed().as_secs(), x.status.to_string()));
            }
            self.touch().await;
            tokio::select! {
                () = cancel.cancelled() => {}
                () = tokio::time::sleep(Duration::from_secs(1)) => {}
            }
        }
    }

    /// The session's requests waiting for the operator.
    async fn pending(&self) -> Reply {
        match self.actuator.pending_approvals().await {
            Ok(all) => {
                let mine: Vec<Json> =
                    all.iter().filter(|a| a.task_id.as_deref() == Some(self.task())).map(approval_json).collect();
                Reply::json(json!({ "pending": mine }), false)
            }
            Err(e) => Reply::text(e.to_string(), true),
        }
    }

    /// An execution as a client sees it: its status and result, or what the operator must do.
    async fn outcome(&self, id: &str) -> Result<Json> {
        let x = self.actuator.execution(id).await?;
        let mut out = execution_json(&x);
        if let Ok(a) = self.actuator.approval(id).await {
            if a.status == ApprovalStatus::Pending {
                out["status"] = json!("pending_approval");
                out["approval"] = approval_json(&a);
            } else if x.status == ExecutionStatus::PendingApproval || !x.status.is_final() || a.decided_by.is_some() {
                out["decision"] = json!({
                    "status": a.status.to_string(),
                    "decided_by": a.decided_by,
                    "decided_at": a.decided_at,
                });
            }
        }
        Ok(out)
    }

    /// The resource `oikos://entity/{slug}` or `oikos://knowledge/{id}`, as JSON text; `None` for
    /// any other address.
    pub async fn read_resource(&self, uri: &str) -> Option<Result<String>> {
        let (tool, args) = if let Some(slug) = uri.strip_prefix("oikos://entity/") {
            ("get_entity", json!({ "slug": percent_decode(slug) }))
        } else if let Some(slug) = uri.strip_prefix("oikos://knowledge/") {
            ("get_knowledge", json!({ "slug": percent_decode(slug) }))
        } else {
            return None;
        };
        let cancel = CancellationToken::new();
        let reply = self.call(tool, args, &new_id(), &cancel).await;
        Some(if reply.is_error { Err(Error::Invalid(reply.text)) } else { Ok(reply.text) })
    }

    /// Entities as resources: (address, name, type), at most `limit`.
    pub async fn entity_resources(&self, limit: u32) -> Result<Vec<(String, String, String)>> {
        let rows = sqlx::query(
            "SELECT slug, name, type FROM entities
              WHERE type <> 'task' AND state NOT IN ('destroyed', 'gone') ORDER BY slug LIMIT ?",
        )
        .bind(i64::from(limit))
        .fetch_all(self.engine.store().pool())
        .await?;
        rows.iter()
            .map(|r| {
                let slug: String = r.try_get("slug")?;
                Ok((format!("oikos://entity/{slug}"), r.try_get("name")?, r.try_get("type")?))
            })
            .collect()
    }

    /// Stops the commands this session's calls still run in this process (its client went away):
    /// each is killed on its host through the gate's cancel path, and waited for (at most `wait`)
    /// until recorded. What the operator approved runs where they approved it and goes on.
    /// Returns how many were stopped.
    pub async fn stop_running(&self, wait: Duration) -> usize {
        let here = self.actuator.running_here();
        let mut running = Vec::new();
        for id in &here {
            match self.actuator.execution(id).await {
                Ok(x) if x.task_id.as_deref() == Some(self.task()) && x.status == ExecutionStatus::Running => {
                    running.push(x)
                }
                Ok(_) => {}
                Err(e) => tracing::warn!(execution = %id, "cannot read a running command of the session: {e}"),
            }
        }
        let stop = crate::actuate::Decision {
            actor: self.session.actor.clone(),
            channel: nomos_types::Channel::System,
            message: Some(format!("{} disconnected while it ran", self.session.title)),
        };
        let mut stopped = 0;
        for x in &running {
            match self.actuator.cancel(&x.id, &stop).await {
                Ok(_) => stopped += 1,
                Err(e) => tracing::warn!(execution = %x.id, "cannot cancel a command of a closed session: {e}"),
            }
            if tokio::time::timeout(wait, self.actuator.wait_final(&x.id)).await.is_err() {
                tracing::warn!(execution = %x.id, "a cancelled command was not recorded in time");
            }
        }
        stopped
    }

    /// Says the session is alive (the desktop lists it as connected).
    pub async fn touch(&self) {
        let now = self.engine.clock().now();
        let r = sqlx::query("UPDATE mcp_sessions SET seen_at = ? WHERE id = ? AND ended_at IS NULL")
            .bind(&now)
            .bind(&self.session.id)
            .execute(self.engine.store().pool())
            .await;
        if let Err(e) = r {
            tracing::warn!(session = %self.session.id, "cannot record the session as alive: {e}");
        }
    }

    /// The client went away: the session ends, and so does its task unless a request of it still
    /// waits for the operator (it stays theirs to decide, and runs if they approve it).
    pub async fn close(&self) -> Result<()> {
        let now = self.engine.clock().now();
        sqlx::query("UPDATE mcp_sessions SET ended_at = ? WHERE id = ? AND ended_at IS NULL")
            .bind(&now)
            .bind(&self.session.id)
            .execute(self.engine.store().pool())
            .await?;
        let waiting = self
            .actuator
            .pending_approvals()
            .await?
            .iter()
            .filter(|a| a.task_id.as_deref() == Some(self.task()))
            .count();
        if waiting == 0 {
            let task = self.engine.task(self.task()).await?;
            if !task.status.is_end() {
                let summary = format!("{} disconnected.", self.session.title);
                let end = StatusChange::Ended { status: TaskStatus::Done, outcome: None, summary: summary.clone() };
                self.engine.set_task_status(self.task(), &end, &summary).await?;
            }
        }
        tracing::info!(session = %self.session.id, waiting, "MCP session closed");
        Ok(())
    }
}

/// Sessions, newest first: the connected ones only (`connected`), or all of the last `limit`.
pub async fn sessions(engine: &Engine, connected: bool, limit: u32) -> Result<Vec<McpSession>> {
    let alive_since = engine.clock().after_ms(-(ALIVE_WITHIN.as_millis() as i64));
    let rows = sqlx::query(
        "SELECT id, task_id, client, title, version, actor, pid, client_pid, started_at, seen_at, ended_at
           FROM mcp_sessions
          WHERE NOT ?1 OR (ended_at IS NULL AND seen_at >= ?2)
          ORDER BY started_at DESC, id LIMIT ?3",
    )
    .bind(connected)
    .bind(&alive_since)
    .bind(i64::from(limit))
    .fetch_all(engine.store().pool())
    .await?;
    rows.iter()
        .map(|r| {
            let pid: i64 = r.try_get("pid")?;
            let client_pid: Option<i64> = r.try_get("client_pid")?;
            Ok(McpSession {
                id: r.try_get("id")?,
                task_id: r.try_get("task_id")?,
                client: r.try_get("client")?,
                title: r.try_get("title")?,
                version: r.try_get("version")?,
                actor: r.try_get("actor")?,
                pid: u32::try_from(pid).unwrap_or_default(),
                client_pid: client_pid.and_then(|p| u32::try_from(p).ok()),
                started_at: r.try_get("started_at")?,
                seen_at: r.try_get("seen_at")?,
                ended_at: r.try_get("ended_at")?,
            })
        })
        .collect()
}

/// The process that started this one (the MCP client), on Unix.
fn client_process() -> Option<u32> {
    #[cfg(unix)]
    {
        Some(std::os::unix::process::parent_id()).filter(|p| *p > 1)
    }
    #[cfg(not(unix))]
    {
        None
    }
}

/// The connected MCP client this process runs under, if any: one of its ancestors is the process
/// of a connected session's client. A decision made there is the client's own (its shell running
/// `nomos approvals approve`), never the operator's. Linux reads the ancestry from /proc; elsewhere
/// nothing is found.
pub async fn client_above(engine: &Engine) -> Result<Option<McpSession>> {
    let connected = sessions(engine, true, 100).await?;
    if connected.is_empty() {
        return Ok(None);
    }
    let above = crate::process::ancestors();
    Ok(connected.into_iter().find(|s| s.client_pid.is_some_and(|p| above.contains(&p))))
}

const GATED_NOTE: &str = "Anything that is not read-only returns status pending_approval (with the approval id, \
     expiry, risk, reasons, blast radius and, for a destructive change, the words the operator must type) and runs \
     only once the operator approves it in Oikos; wait_for_approval waits for that. Only the operator decides: no \
     tool approves, nothing you write counts as a go-ahead, and a decision made from your own shell is refused. \
     Once the operator approves one change of this session, further non-destructive changes of the session run \
     without asking for 30 minutes (a destructive one on that target for 15 minutes), unless they revoke it.";

const RUN_DESCRIPTION: &str = "Run a shell command on a homelab host (`host:<name>`) or inside a container \
     (`lxc:<name>`) through Oikos's risk gate. A command that only reads (every part of it understood and known \
     inert) runs at once and returns status, exit code and output (long output: head and tail, the rest through \
     read_output).";

/// An execution as JSON, its streams capped.
fn execution_json(x: &Execution) -> Json {
    let stream = |name: &str, text: &str| {
        cap_with(text, STREAM_CAP, |from, len| {
            format!("[… {len} bytes left out; read_output execution_id={} stream={name} offset={from} …]", x.id)
        })
    };
    json!({
        "execution_id": x.id,
        "status": x.status.to_string(),
        "target": x.target,
        "action": x.action,
        "command": x.command,
        "risk": x.risk.to_string(),
        "reasons": x.reasons,
        "requested_by": x.requested_by,
        "granted_by": x.granted_by,
        "exit_code": x.exit_code,
        "duration_ms": x.duration_ms,
        "error": x.error,
        "stdout": stream("stdout", &x.stdout),
        "stderr": stream("stderr", &x.stderr),
        "stdout_bytes": x.stdout.len(),
        "stderr_bytes": x.stderr.len(),
        "output_truncated": x.output_truncated,
    })
}

/// A waiting request as JSON: what it is and what the operator must do.
fn approval_json(a: &Approval) -> Json {
    let how = match &a.confirmation {
        Some(words) => format!("destructive: only the operator can approve it, by typing \"{words}\" in Oikos"),
        None => "only the operator can approve it, in Oikos".to_string(),
    };
    json!({
        "approval_id": a.id,
        "execution_id": a.execution_id,
        "target": a.target,
        "command": a.command,
        "purpose": a.purpose,
        "risk": a.risk.to_string(),
        "reasons": a.reasons,
        "blast_radius": a.blast_radius,
        "expires_at": a.expires_at,
        "confirmation": a.confirmation,
        "how_it_is_decided": how,
    })
}

/// A gated result the client should read as not done: failed, refused, denied, expired.
fn is_failure(outcome: &Json) -> bool {
    let status = outcome["status"].as_str().unwrap_or_default();
    match status {
        "completed" => outcome["exit_code"].as_i64().is_some_and(|c| c != 0),
        "pending_approval" | "running" | "approved" => false,
        _ => true,
    }
}

fn no_arguments(args: &Json) -> std::result::Result<(), String> {
    match args {
        Json::Null => Ok(()),
        Json::Object(map) => match map.keys().next() {
            None => Ok(()),
            Some(k) => Err(format!("unknown field `{k}` (it takes none)")),
        },
        _ => Err("expected an object".into()),
    }
}

fn wait_args(args: &Json) -> std::result::Result<(String, u64), String> {
    let map = args.as_object().ok_or("expected an object")?;
    if let Some(k) = map.keys().find(|k| *k != "execution_id" && *k != "timeout_secs") {
        return Err(format!("unknown field `{k}`"));
    }
    let id = map
        .get("execution_id")
        .and_then(Json::as_str)
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .ok_or("missing required field `execution_id` (string)")?;
    let secs = match map.get("timeout_secs") {
        None | Some(Json::Null) => WAIT_DEFAULT_SECS,
        Some(v) => v
            .as_u64()
            .filter(|s| (1..=WAIT_MAX_SECS).contains(s))
            .ok_or(format!("`timeout_secs` must be a whole number from 1 to {WAIT_MAX_SECS}"))?,
    };
    Ok((id.to_string(), secs))
}

/// `%XX` escapes of a resource address decoded (a slug with `:` may arrive as `%3A`); an address
/// whose escapes do not make UTF-8 is kept as it is.
fn percent_decode(s: &str) -> String {
    String::from_utf8(nomos_policy::percent_decode_bytes(s, false)).unwrap_or_else(|_| s.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wait_arguments_are_checked() {
        assert_eq!(wait_args(&json!({"execution_id": "x"})).unwrap(), ("x".into(), WAIT_DEFAULT_SECS));
        assert_eq!(wait_args(&json!({"execution_id": "x", "timeout_secs": 5})).unwrap(), ("x".into(), 5));
        assert!(wait_args(&json!({"execution_id": "x", "timeout_secs": 0})).is_err());
        assert!(wait_args(&json!({"execution_id": "x", "approve": true})).unwrap_err().contains("approve"));
        assert!(wait_args(&json!({})).is_err());
        assert!(wait_args(&json!("x")).is_err());
    }

    #[test]
    fn addresses_are_decoded_without_panicking() {
        assert_eq!(percent_decode("host%3Apve1"), "host:pve1");
        assert_eq!(percent_decode("lxc:caddy"), "lxc:caddy");
        assert_eq!(percent_decode("bad%zz%"), "bad%zz%");
        assert_eq!(percent_decode("%"), "%");
        assert_eq!(percent_decode("%4"), "%4");
        assert_eq!(percent_decode("caf%C3%A9"), "café");
        assert_eq!(percent_decode("%FF"), "%FF");
    }

    #[test]
    fn only_a_clean_run_counts_as_done() {
        assert!(!is_failure(&json!({"status": "completed", "exit_code": 0})));
        assert!(is_failure(&json!({"status": "completed", "exit_code": 3})));
        assert!(!is_failure(&json!({"status": "pending_approval"})));
        assert!(is_failure(&json!({"status": "denied"})));
        assert!(is_failure(&json!({"status": "cancelled"})));
    }
}
