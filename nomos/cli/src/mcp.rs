//! `nomos mcp serve`: Oikos for another agent (Claude Code, Codex, Goose, Cursor …) over MCP on
//! stdin/stdout, with the official Rust SDK. The engine's side — the session's task, the tools
//! and the gate — is `nomos::mcp`; this is the protocol around it. `nomos mcp sessions` lists the
//! clients connected now.

use std::sync::Arc;
use std::time::Duration;

use clap::Subcommand;
use nomos::mcp::{Hands, HEARTBEAT, WAIT};
use nomos::Runtime;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, Implementation, InitializeRequestParams,
    InitializeResult, ListResourceTemplatesResult, ListResourcesResult, ListToolsResult, PaginatedRequestParams,
    ProgressNotificationParam, ReadResourceRequestParams, ReadResourceResponse, ReadResourceResult, Resource,
    ResourceContents, ResourceTemplate, ServerCapabilities, ServerConfig, Tool, ToolAnnotations,
};
use rmcp::service::{RequestContext, RoleServer};
use rmcp::{ErrorData, ServerHandler, ServiceExt};
use serde_json::{json, Value as Json};
use tokio::sync::OnceCell;
use tokio_util::sync::CancellationToken;

use crate::exit::{Exit, Outcome};
use crate::out::Out;

#[derive(Subcommand, Debug)]
pub enum McpCommand {
    /// Serve Oikos's tools over MCP on stdin/stdout (what an agent's MCP configuration runs)
    Serve,
    /// MCP clients connected now (--all: the recent ones too)
    Sessions {
        #[arg(long)]
        all: bool,
    },
}

/// What a client is told when it connects.
const INSTRUCTIONS: &str = "Oikos knows this homelab: its hosts, guests, services and how they depend on \
     each other (list_entities, get_entity, get_relations, get_blast_radius), its notes (search_knowledge), its \
     health (list_signals, query_metrics, get_health_summary). Run shell commands only through `run` (or a curated \
     action through `request_execution`): what only reads runs at once; a change waits for the operator, who \
     decides in Oikos (once they approve one, this session's further non-destructive changes run for a while \
     without asking). You cannot approve anything, not even through your own shell; tell the operator what you \
     asked for and why, then use wait_for_approval or get_execution_status.";

/// How many entities `resources/list` offers (the templates reach every one).
const LISTED_RESOURCES: u32 = 500;

/// How long a disconnect waits for the session's running commands to be recorded as cancelled.
const STOP_WAIT: Duration = Duration::from_secs(20);

pub async fn mcp(rt: &Runtime, command: McpCommand, out: Out) -> Outcome {
    match command {
        McpCommand::Serve => serve(rt).await,
        McpCommand::Sessions { all } => {
            let sessions = nomos::mcp::sessions(rt.engine(), !all, 100).await?;
            out.print(&sessions, |list| {
                if list.is_empty() {
                    return if all { "no MCP sessions yet".into() } else { "no MCP client is connected".into() };
                }
                list.iter()
                    .map(|s| {
                        let state =
                            s.ended_at.as_deref().map_or_else(|| "connected".to_string(), |t| format!("ended {t}"));
                        format!(
                            "{}  {} {}  {}  task {}  since {}",
                            s.id,
                            s.title,
                            s.version,
                            state,
                            s.task_id.as_deref().unwrap_or("-"),
                            s.started_at
                        )
                    })
                    .collect::<Vec<_>>()
                    .join("\n")
            })
        }
    }
}

#[derive(Clone)]
struct Server {
    rt: Runtime,
    /// The session, opened when the client introduces itself.
    hands: Arc<OnceCell<Hands>>,
    /// Cancelled when the client is gone (its stdin closed, or this process is told to stop): what
    /// its calls run is stopped.
    gone: CancellationToken,
    /// Calls still being answered: the session ends only after them.
    calls: Arc<tokio::sync::watch::Sender<usize>>,
}

impl Server {
    fn hands(&self) -> Result<&Hands, ErrorData> {
        self.hands.get().ok_or_else(|| ErrorData::invalid_request("initialize first", None))
    }
}

/// Serves until the client closes stdin or this process is told to stop (SIGTERM, SIGINT,
/// SIGHUP: how clients end their servers); then stops what its calls still run (killed on the
/// host and recorded as cancelled), waits for the calls to answer, and ends the session.
async fn serve(rt: &Runtime) -> Outcome {
    let gone = CancellationToken::new();
    let server = Server {
        rt: rt.clone(),
        hands: Arc::new(OnceCell::new()),
        gone: gone.clone(),
        calls: Arc::new(tokio::sync::watch::channel(0).0),
    };
    let stdin = EofWatch { inner: tokio::io::stdin(), gone: gone.clone() };
    let running = server
        .clone()
        .serve((stdin, tokio::io::stdout()))
        .await
        .map_err(|e| format!("the MCP client did not connect: {e}"))?;
    let stop = running.cancellation_token();
    let signals = tokio::spawn({
        let gone = gone.clone();
        async move {
            stopped().await;
            gone.cancel();
            stop.cancel();
        }
    });
    let hands = server.hands.clone();
    let heartbeat = tokio::spawn(async move {
        loop {
            tokio::time::sleep(HEARTBEAT).await;
            if let Some(h) = hands.get() {
                h.touch().await;
            }
        }
    });
    let ended = running.waiting().await;
    heartbeat.abort();
    signals.abort();
    server.gone.cancel();
    if let Err(e) = ended {
        tracing::warn!("the MCP connection ended with an error: {e}");
    }
    // The calls still answering were told to stop; their commands are recorded before the end.
    let mut calls = server.calls.subscribe();
    if tokio::time::timeout(STOP_WAIT, calls.wait_for(|n| *n == 0)).await.is_err() {
        tracing::warn!("calls of the closed session did not end in time");
    }
    if let Some(h) = server.hands.get() {
        let stopped = h.stop_running(STOP_WAIT).await;
        if stopped > 0 {
            tracing::info!(stopped, "the client went away: its running commands were cancelled");
        }
        h.close().await?;
    }
    Ok(Exit::Ok)
}

impl ServerHandler for Server {
    fn get_info(&self) -> ServerConfig {
        let caps = ServerCapabilities::builder().enable_tools().enable_resources().build();
        ServerConfig::new(caps)
            .with_server_info(Implementation::new("oikos", env!("CARGO_PKG_VERSION")).with_title("Oikos"))
            .with_instructions(INSTRUCTIONS)
    }

    async fn initialize(
        &self,
        request: InitializeRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<InitializeResult, ErrorData> {
        context.peer.set_peer_info(request.clone());
        let client = &request.client_info;
        let (engine, actuator) = (self.rt.engine().clone(), self.rt.actuator().clone());
        self.hands
            .get_or_try_init(|| Hands::open(engine, actuator, &client.name, client.title.as_deref(), &client.version))
            .await
            .map_err(|e| ErrorData::internal_error(format!("cannot open the session: {e}"), None))?;
        self.negotiate_initialize(&request)
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        let tools = self.hands()?.tools().into_iter().map(to_tool).collect();
        Ok(ListToolsResult::with_all_items(tools))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let hands = self.hands()?;
        let _call = InFlight::new(&self.calls);
        let args = request.arguments.map_or_else(|| json!({}), Json::Object);
        // The call stops when the client cancels it or goes away.
        let cancel = self.gone.child_token();
        let watch = {
            let (ct, cancel) = (context.ct.clone(), cancel.clone());
            tokio::spawn(async move {
                ct.cancelled().await;
                cancel.cancel();
            })
        };
        let call_id = format!("mcp-{}", context.id);
        let reply = if request.name == WAIT {
            let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel::<(u64, String)>();
            let forward = context.meta.get_progress_token().map(|token| {
                let peer = context.peer.clone();
                tokio::spawn(async move {
                    while let Some((secs, status)) = rx.recv().await {
                        let mut p = ProgressNotificationParam::new(token.clone(), secs as f64);
                        p.message = Some(format!("{status} after {secs} s"));
                        if peer.notify_progress(p).await.is_err() {
                            break;
                        }
                    }
                })
            });
            let reply = hands.wait(args, &cancel, forward.as_ref().map(|_| &tx)).await;
            drop(tx);
            if let Some(f) = forward {
                let _ = f.await;
            }
            reply
        } else {
            hands.call(&request.name, args, &call_id, &cancel).await
        };
        watch.abort();
        let content = vec![ContentBlock::text(reply.text)];
        let mut result = if reply.is_error { CallToolResult::error(content) } else { CallToolResult::success(content) };
        result.structured_content = reply.structured;
        Ok(result.into())
    }

    async fn list_resources(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, ErrorData> {
        let listed = self
            .hands()?
            .entity_resources(LISTED_RESOURCES)
            .await
            .map_err(|e| ErrorData::internal_error(e.to_string(), None))?;
        let resources = listed
            .into_iter()
            .map(|(uri, name, kind)| {
                Resource::new(uri, name.clone())
                    .with_description(format!("{kind} {name}: its facts, relations and notes"))
                    .with_mime_type("application/json")
            })
            .collect();
        Ok(ListResourcesResult::with_all_items(resources))
    }

    async fn list_resource_templates(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourceTemplatesResult, ErrorData> {
        let templates = vec![
            ResourceTemplate::new("oikos://entity/{slug}", "entity")
                .with_description("An entity of the homelab (host:pve1, lxc:caddy …): facts, relations, notes")
                .with_mime_type("application/json"),
            ResourceTemplate::new("oikos://knowledge/{id}", "knowledge")
                .with_description("A note of the knowledge base, in full")
                .with_mime_type("application/json"),
        ];
        Ok(ListResourceTemplatesResult::with_all_items(templates))
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, ErrorData> {
        match self.hands()?.read_resource(&request.uri).await {
            None => Err(ErrorData::resource_not_found(
                format!(
                    "no resource `{}`: the addresses are oikos://entity/{{slug}} and oikos://knowledge/{{id}}",
                    request.uri
                ),
                None,
            )),
            Some(Err(e)) => Err(ErrorData::resource_not_found(e.to_string(), None)),
            Some(Ok(text)) => {
                let contents = ResourceContents::TextResourceContents {
                    uri: request.uri.clone(),
                    mime_type: Some("application/json".into()),
                    text,
                    meta: None,
                };
                Ok(ReadResourceResult::new(vec![contents]).into())
            }
        }
    }
}

/// Counts a call as answering while it lives.
struct InFlight<'a>(&'a tokio::sync::watch::Sender<usize>);

impl<'a> InFlight<'a> {
    fn new(calls: &'a tokio::sync::watch::Sender<usize>) -> InFlight<'a> {
        calls.send_modify(|n| *n += 1);
        InFlight(calls)
    }
}

impl Drop for InFlight<'_> {
    fn drop(&mut self) {
        self.0.send_modify(|n| *n = n.saturating_sub(1));
    }
}

/// Stdin, saying when it ends: the client is gone at once, not after the protocol's wait for
/// answers still in flight (their commands are stopped instead).
struct EofWatch<R> {
    inner: R,
    gone: CancellationToken,
}

impl<R: tokio::io::AsyncRead + Unpin> tokio::io::AsyncRead for EofWatch<R> {
    fn poll_read(
        mut self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
        buf: &mut tokio::io::ReadBuf<'_>,
    ) -> std::task::Poll<std::io::Result<()>> {
        let before = buf.filled().len();
        let polled = std::pin::Pin::new(&mut self.inner).poll_read(cx, buf);
        if let std::task::Poll::Ready(result) = &polled {
            if result.is_err() || (buf.filled().len() == before && buf.remaining() > 0) {
                self.gone.cancel();
            }
        }
        polled
    }
}

/// Resolves when this process is told to stop (SIGTERM, SIGINT or SIGHUP on Unix; Ctrl-C
/// elsewhere).
async fn stopped() {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{signal, SignalKind};
        let kinds = [SignalKind::terminate(), SignalKind::interrupt(), SignalKind::hangup()];
        let mut streams: Vec<_> = kinds.into_iter().filter_map(|k| signal(k).ok()).collect();
        if streams.is_empty() {
            return std::future::pending().await;
        }
        let waits = streams.iter_mut().map(|s| Box::pin(s.recv()));
        futures_util::future::select_all(waits).await;
    }
    #[cfg(not(unix))]
    {
        if tokio::signal::ctrl_c().await.is_err() {
            std::future::pending::<()>().await;
        }
    }
}

/// A tool as MCP declares it: the read tools annotated read-only, the gated ones destructive
/// (hints only: the gate decides either way).
fn to_tool(t: nomos::mcp::ToolInfo) -> Tool {
    let schema = match t.schema {
        Json::Object(map) => map,
        _ => serde_json::Map::new(),
    };
    let annotations = if t.read_only {
        ToolAnnotations::new().read_only(true).destructive(false).open_world(false)
    } else {
        ToolAnnotations::new().read_only(false).destructive(true).idempotent(false).open_world(true)
    };
    let mut tool = Tool::new(t.name, t.description, Arc::new(schema));
    tool.annotations = Some(annotations);
    tool
}
