//! The tools Nomos may call. Each tool is an argument struct (serde + JSON Schema) and a handler;
//! the [`Registry`] offers their specs to the model, checks every call's arguments against the
//! schema before anything runs (arguments that do not parse are a tool error, never defaults),
//! caps what the model sees of a result, and records which entities each call concerned.
//!
//! Text that arrives in a result (command output, web pages, knowledge) is data: whatever it says,
//! the gate decides what runs.
//!
//! - [`args`]: the schema of an argument struct and the check of a call against it; the macros
//!   `parsed!` and `engine!` below end a tool's call early with its error;
//! - `cap`: head-and-tail capping of what the model sees;
//! - `activity`: the `agent_activity` rows and `entity.touched` events of each call;
//! - the groups of tools: `graph`, `knowledge`, `gate`, `observe` (signals, metrics, health, checks),
//!   [`web`], and `task` (the task lifecycle).

/// In a tool's `call`: the checked arguments as their struct, or return the tool error.
macro_rules! parsed {
    ($args:expr) => {
        match $crate::agent::tools::args::parse($args) {
            Ok(a) => a,
            Err(e) => return e,
        }
    };
}

/// In a tool's `call`: an engine result's value, or return its error as the tool error.
macro_rules! engine {
    ($result:expr) => {
        match $result {
            Ok(v) => v,
            Err(e) => return $crate::agent::tools::ToolResult::from(e),
        }
    };
}

mod activity;
pub mod args;
mod cap;
mod gate;
mod graph;
mod knowledge;
mod observe;
pub mod task;
#[cfg(test)]
mod tests;
pub mod web;

use std::future::Future;
use std::pin::Pin;

use nomos_types::WaitingFor;
use serde::{Deserialize, Serialize};
use serde_json::Value as Json;
use tokio_util::sync::CancellationToken;

use super::chat::{ToolCall, ToolSpec};
use crate::actuate::Actuator;
use crate::Engine;

pub(crate) use cap::cap_with;
pub use cap::{cap_text, RESULT_CAP};

/// Who the agent is in requests, approvals and activity rows.
pub const AGENT: &str = "agent:nomos";

/// What a tool call leads to for the task.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Next {
    /// The loop goes on.
    Continue,
    /// The turn ends: the task waits for the operator (a tool asks for an answer, the plan's
    /// approval or an execution's).
    Wait(WaitingFor),
    /// The task reached its end (`complete_task`).
    Finish,
}

/// The result of one tool call as recorded and as the model sees it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolResult {
    /// What the model sees (capped: head and tail kept, with a line saying how much was left out).
    pub content: String,
    /// The call failed (bad arguments, unknown tool, refused, the command failed): the model is
    /// told so and the loop counts it.
    pub is_error: bool,
    /// The execution the call created or joined, if any (evidence for `complete_task`).
    pub execution_id: Option<String>,
    pub next: Next,
}

impl ToolResult {
    pub fn ok(content: impl Into<String>) -> ToolResult {
        ToolResult { content: content.into(), is_error: false, execution_id: None, next: Next::Continue }
    }

    pub fn error(content: impl Into<String>) -> ToolResult {
        ToolResult { content: content.into(), is_error: true, execution_id: None, next: Next::Continue }
    }

    /// A JSON value as the model sees it (compact: every byte counts against the cap).
    pub fn json(value: &impl Serialize) -> ToolResult {
        match serde_json::to_string(value) {
            Ok(text) => ToolResult::ok(text),
            Err(e) => ToolResult::error(format!("could not encode the result: {e}")),
        }
    }

    pub fn with_execution(mut self, id: impl Into<String>) -> ToolResult {
        self.execution_id = Some(id.into());
        self
    }

    pub fn with_next(mut self, next: Next) -> ToolResult {
        self.next = next;
        self
    }
}

/// An engine error as a tool error: its one-line message, which names what was wrong.
impl From<crate::Error> for ToolResult {
    fn from(e: crate::Error) -> ToolResult {
        ToolResult::error(e.to_string())
    }
}

/// What a tool call runs with: the engine, the gate, and which task, turn and call it belongs to.
pub struct ToolContext<'a> {
    pub engine: &'a Engine,
    /// The one gated path; `run` and `request_execution` go through it.
    pub actuator: &'a Actuator,
    pub task_id: &'a str,
    /// Who calls: [`AGENT`], or an MCP client's `mcp:<client>`. It is the requester of what the
    /// call asks the gate for, and the agent named in the activity rows.
    pub actor: &'a str,
    pub turn_id: &'a str,
    /// The provider's id of this call (recorded with its activity).
    pub call_id: &'a str,
    /// Fires when the operator cancels the turn: a long call stops (a running command is killed
    /// through the executor's cancel path).
    pub cancel: &'a CancellationToken,
}

/// A tool's work, borrowed from its context.
pub type ToolFuture<'a> = Pin<Box<dyn Future<Output = ToolResult> + Send + 'a>>;

/// One tool. The registry checks the arguments against [`Tool::parameters`] (through
/// [`Tool::check`]) before [`Tool::call`] sees them, so `call` parses already-checked JSON.
pub trait Tool: Send + Sync {
    /// The wire name (`get_entity`).
    fn name(&self) -> &'static str;
    /// For the model: when to use it, what it returns, and which bulk call saves many small ones.
    fn description(&self) -> &'static str;
    /// The JSON Schema of the arguments (an object; unknown fields refused).
    fn parameters(&self) -> Json;
    /// Checks a call's arguments against `schema` (this tool's [`Tool::parameters`]); the message
    /// names the field and what was expected. Tools with a typed check of their own (the curated
    /// actions) add it here.
    fn check(&self, schema: &Json, args: &Json) -> Result<(), String> {
        args::check(schema, args)
    }
    /// Whether an identical call gives the same answer until the agent itself changes something:
    /// the loop answers a repeated one from the first result. Calls whose answer changes by
    /// itself (a command's output, an execution's status) are not.
    fn is_read_only(&self, args: &Json) -> bool;
    fn call<'a>(&'a self, ctx: &'a ToolContext<'a>, args: Json) -> ToolFuture<'a>;
}

/// Limits of the tools.
#[derive(Debug, Clone)]
pub struct RegistryConfig {
    /// The most bytes of one result the model sees.
    pub result_cap: usize,
    pub web: web::WebConfig,
}

impl Default for RegistryConfig {
    fn default() -> RegistryConfig {
        RegistryConfig { result_cap: RESULT_CAP, web: web::WebConfig::default() }
    }
}

struct Entry {
    tool: Box<dyn Tool>,
    schema: Json,
}

/// Every tool Nomos may call, with their schemas computed once.
pub struct Registry {
    entries: Vec<Entry>,
    config: RegistryConfig,
}

impl Registry {
    /// Every tool: the graph, knowledge, gate and web tools and the task lifecycle. `http_get`
    /// resolves names with the system's resolver.
    pub fn new(config: RegistryConfig) -> Registry {
        let mut tools: Vec<Box<dyn Tool>> = Vec::new();
        tools.extend(graph::tools());
        tools.extend(knowledge::tools());
        tools.extend(gate::tools());
        tools.extend(observe::tools());
        let fetcher = web::Fetcher::new(std::sync::Arc::new(web::SystemResolver), config.web.clone());
        tools.push(Box::new(web::HttpGet::new(fetcher)));
        tools.extend(task::tools());
        Registry::with_tools(config, tools)
    }

    /// A registry of exactly these tools (a name given twice keeps the first).
    pub fn with_tools(config: RegistryConfig, tools: Vec<Box<dyn Tool>>) -> Registry {
        let mut entries: Vec<Entry> = Vec::with_capacity(tools.len());
        for tool in tools {
            if entries.iter().any(|e| e.tool.name() == tool.name()) {
                tracing::warn!(tool = tool.name(), "a tool registered twice; keeping the first");
                continue;
            }
            let schema = tool.parameters();
            entries.push(Entry { tool, schema });
        }
        Registry { entries, config }
    }

    /// These tools only, in the order of `names` (an MCP client is offered a part of them).
    pub fn only(self, names: &[&str]) -> Registry {
        let mut entries = self.entries;
        let mut kept = Vec::with_capacity(names.len());
        for name in names {
            if let Some(i) = entries.iter().position(|e| e.tool.name() == *name) {
                kept.push(entries.swap_remove(i));
            }
        }
        Registry { entries: kept, config: self.config }
    }

    /// The wire names, in the order offered.
    pub fn names(&self) -> Vec<&'static str> {
        self.entries.iter().map(|e| e.tool.name()).collect()
    }

    /// What the model is offered.
    pub fn specs(&self) -> Vec<ToolSpec> {
        self.entries
            .iter()
            .map(|e| ToolSpec {
                name: e.tool.name().to_string(),
                description: e.tool.description().to_string(),
                parameters: e.schema.clone(),
            })
            .collect()
    }

    fn entry(&self, name: &str) -> Option<&Entry> {
        self.entries.iter().find(|e| e.tool.name() == name)
    }

    /// Whether `args` passes the schema of tool `name` (false for an unknown tool).
    pub fn fits(&self, name: &str, args: &Json) -> bool {
        self.entry(name).is_some_and(|e| e.tool.check(&e.schema, args).is_ok())
    }

    /// For the loop's duplicate-call guard: whether an identical call may be answered from the
    /// first result (see [`Tool::is_read_only`]). Unknown tools and unchecked arguments are not.
    pub fn is_read_only(&self, name: &str, args: &Json) -> bool {
        self.entry(name).is_some_and(|e| e.tool.check(&e.schema, args).is_ok() && e.tool.is_read_only(args))
    }

    /// Runs one call: unknown tool → an error listing the tools; arguments that are not JSON or do
    /// not match the schema → an error saying what was wrong, and nothing runs. The result the
    /// model sees is capped; the call is recorded in `agent_activity` with the entities it named.
    pub async fn call(&self, ctx: &ToolContext<'_>, call: &ToolCall) -> ToolResult {
        let args = args::parse_arguments(&call.arguments);
        let mut result = match (&args, self.entry(&call.name)) {
            (_, None) => ToolResult::error(format!(
                "unknown tool `{}`; the tools are: {}. Nothing was run.",
                call.name,
                self.names().join(", ")
            )),
            (Err(why), Some(_)) => {
                ToolResult::error(format!("invalid arguments for `{}`: {why}. Nothing was run.", call.name))
            }
            (Ok(args), Some(e)) => match e.tool.check(&e.schema, args) {
                Err(why) => {
                    ToolResult::error(format!("invalid arguments for `{}`: {why}. Nothing was run.", call.name))
                }
                Ok(()) => e.tool.call(ctx, args.clone()).await,
            },
        };
        result.content = cap_text(&result.content, self.config.result_cap, cap::GENERIC_HINT);
        let named = args.as_ref().map(activity::named_entities).unwrap_or_default();
        if let Err(e) = activity::record(ctx, &call.name, &named, &result).await {
            // The call happened; a lost activity row only dims the UI's highlight.
            tracing::warn!(tool = %call.name, error = %e, "could not record the agent's activity");
        }
        result
    }
}
