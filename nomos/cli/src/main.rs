//! `nomos`, the Oikos engine's command line. One module per subcommand; each parses its
//! arguments, calls the engine and prints (text, or JSON with `--json`). Exit statuses are
//! [`exit::Exit`]: 0 ok, 1 failed or refused (one line on stderr), 2 usage, 3 waiting for an
//! approval or the operator.

mod action;
mod agent;
mod approvals;
mod ask;
mod auth;
mod autonomy;
mod classify;
mod db;
mod discover;
mod entity;
mod executions;
mod exit;
mod graph;
mod hosts;
mod inventory;
mod knowledge;
mod lab;
mod mcp;
mod observe;
mod out;
mod report;
mod run;
mod tasks;

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand};
use nomos::{store, Runtime, RuntimeConfig};

use exit::{Exit, Outcome};
use out::Out;

#[derive(Parser)]
#[command(name = "nomos", version, about = "The Oikos engine: homelab knowledge graph, knowledge base and agent")]
struct Cli {
    /// Database file [default: $OIKOS_DB, else the OS data directory]
    #[arg(long, global = true, value_name = "PATH")]
    db: Option<PathBuf>,
    /// Print JSON instead of text
    #[arg(long, global = true)]
    json: bool,
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Database maintenance
    #[command(subcommand)]
    Db(db::DbCommand),
    /// Import a homelab description
    #[command(subcommand)]
    Inventory(inventory::InventoryCommand),
    /// Entities of the knowledge graph
    #[command(subcommand)]
    Entity(entity::EntityCommand),
    /// Relationships and impact
    #[command(subcommand)]
    Graph(graph::GraphCommand),
    /// The knowledge base
    #[command(subcommand)]
    Knowledge(knowledge::KnowledgeCommand),
    /// Classify shell commands by risk: one per line on stdin, or one after `--`. Writes one JSON
    /// object per command: {"command", "risk", "reasons"}.
    Classify(classify::ClassifyArgs),
    /// Judge operator chat messages, one per line on stdin, against the proposal given (--target,
    /// --command: one step each). Writes one JSON object per message: {"message", "assent",
    /// "typed_confirmation", "covers"}; covers lists the steps approved ({"step", "target",
    /// "command"}); --name and --id describe the targets in order. A typed confirmation is
    /// `confirm [VERB] TARGET` and nothing else (CONFIRM:
    /// confirm, confirmed or "i confirm"; VERB: the step's most destructive action; TARGET: slug,
    /// name or id)
    Assent(classify::AssentArgs),
    /// Ask Nomos: a new task, or the next message to one (--task); runs in the foreground
    Ask(ask::AskArgs),
    /// Nomos as a service: continue tasks by themselves (`nomos agent serve`)
    #[command(subcommand)]
    Agent(agent::AgentCommand),
    /// Tasks: what the agent (or you) works on; their windows let their changes run
    #[command(subcommand)]
    Tasks(tasks::TasksCommand),
    /// Hosts: add, edit, remove, test, and their SSH host keys
    #[command(subcommand)]
    Hosts(hosts::HostsCommand),
    /// Read a Proxmox cluster through the gate and show how the graph differs (--apply writes it)
    Discover(discover::DiscoverArgs),
    /// Run a shell command on a target through the risk gate
    Run(run::RunArgs),
    /// Run a curated action through the gate (`nomos action --help` lists them)
    Action(action::ActionArgs),
    /// Pending approvals: list, approve, deny
    #[command(subcommand)]
    Approvals(approvals::ApprovalsCommand),
    /// What ran, is running or waits
    #[command(subcommand)]
    Executions(executions::ExecutionsCommand),
    /// Windows that let a task act without asking again; pause and resume
    #[command(subcommand)]
    Autonomy(autonomy::AutonomyCommand),
    /// Simulated Proxmox hosts on this machine (real sshd, stand-in Proxmox tools)
    #[command(subcommand)]
    Lab(lab::LabCommand),
    /// Observe: collect metrics and signals now, or every cycle
    #[command(subcommand)]
    Observe(observe::ObserveCommand),
    /// Signals: list, acknowledge, mute, resolve, investigate
    #[command(subcommand)]
    Signals(observe::SignalsCommand),
    /// An entity's metrics over 1h, 24h or 30d
    Metrics(observe::MetricsArgs),
    /// What the loop has learned: execution outcomes, capabilities, incidents, recalled knowledge
    Learning,
    /// Checks per entity: a service, a port, a URL, a DNS name, a certificate
    #[command(subcommand)]
    Checks(observe::ChecksCommand),
    /// Oikos for other agents over MCP: `nomos mcp serve` (stdio), and the clients connected now
    #[command(subcommand)]
    Mcp(mcp::McpCommand),
    /// The model provider's API key (OS keychain) and settings
    #[command(subcommand)]
    Auth(auth::AuthCommand),
}

fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => {
            // Help and version go to stdout with status 0; anything else is a usage error.
            let _ = e.print();
            return if e.use_stderr() { Exit::Usage } else { Exit::Ok }.into();
        }
    };
    nomos::init_logging("NOMOS_LOG", "warn");
    let runtime = match tokio::runtime::Builder::new_multi_thread().enable_all().build() {
        Ok(rt) => rt,
        Err(e) => {
            eprintln!("nomos: cannot start the runtime: {e}");
            return Exit::Failed.into();
        }
    };
    match runtime.block_on(run(cli)) {
        Ok(exit) => exit.into(),
        Err(failure) => {
            // One line, whatever the error carried (nothing when it was reported already).
            if !failure.0.is_empty() {
                eprintln!("nomos: {}", failure.0.replace('\n', " "));
            }
            Exit::Failed.into()
        }
    }
}

async fn run(cli: Cli) -> Outcome {
    let out = Out { json: cli.json };
    // The gate's judgement, the lab and the key need no database.
    let command = match cli.command {
        Command::Classify(args) => return classify::classify(args),
        Command::Assent(args) => return classify::assent(args),
        Command::Lab(command) => return lab::lab(command, cli.json),
        Command::Auth(command) => return auth::auth(command, cli.db.as_deref(), out).await,
        other => other,
    };
    let path = store::resolve_path(cli.db.as_deref()).map_err(|e| e.to_string())?;
    // The process's one runtime; no background work: the gate's commands sweep once instead.
    let rt = Runtime::open(RuntimeConfig::new(path)).await?;
    let result = dispatch(&rt, command, out).await;
    rt.close().await;
    result
}

/// The gate's runtime for this command; first it expires overdue approvals and fails executions
/// whose process died, so what is listed or decided is current.
async fn swept(rt: &Runtime) -> Result<&Runtime, exit::Failure> {
    rt.sweep().await?;
    Ok(rt)
}

async fn dispatch(rt: &Runtime, command: Command, out: Out) -> Outcome {
    let engine = rt.engine();
    match command {
        Command::Db(c) => db::db(engine, c, out).await,
        Command::Inventory(c) => inventory::inventory(engine, c, out).await,
        Command::Entity(c) => entity::entity(engine, c, out).await,
        Command::Graph(c) => graph::graph(engine, c, out).await,
        Command::Knowledge(c) => knowledge::knowledge(engine, c, out).await,
        Command::Tasks(c) => tasks::tasks(engine, c, out).await,
        Command::Ask(args) => ask::ask(swept(rt).await?, args, out).await,
        Command::Agent(c) => agent::agent(swept(rt).await?, c, out).await,
        Command::Hosts(c) => hosts::hosts(swept(rt).await?.actuator(), c, out).await,
        Command::Discover(a) => discover::discover(swept(rt).await?, a, out).await,
        Command::Observe(c) => observe::observe(swept(rt).await?, c, out).await,
        Command::Signals(c @ observe::SignalsCommand::Investigate { .. }) => {
            observe::signals(swept(rt).await?, c, out).await
        }
        Command::Signals(c) => observe::signals(rt, c, out).await,
        Command::Learning => observe::learning(rt, out).await,
        Command::Metrics(a) => observe::metrics(rt, a, out).await,
        Command::Checks(c) => observe::checks(swept(rt).await?, c, out).await,
        Command::Mcp(c) => mcp::mcp(swept(rt).await?, c, out).await,
        Command::Run(a) => run::run(swept(rt).await?, a, out).await,
        Command::Action(a) => action::action(swept(rt).await?, a, out).await,
        Command::Approvals(c) => approvals::approvals(swept(rt).await?, c, out).await,
        Command::Executions(c) => executions::executions(swept(rt).await?.actuator(), c, out).await,
        Command::Autonomy(c) => autonomy::autonomy(swept(rt).await?.actuator(), c, out).await,
        Command::Classify(_) | Command::Assent(_) | Command::Lab(_) | Command::Auth(_) => Ok(Exit::Ok),
    }
}
