//! `nomos`, the engine's command line.
//!
//! Exit status: 0 ok, 1 error (one line on stderr) or a command that failed on its host, 2 usage,
//! 3 queued for approval. Every read command takes `--json`.

use std::io::{IsTerminal, Read, Write};
use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Args, Parser, Subcommand};
use nomos::actuate::{cli, ActuateConfig, Actuator};
use nomos::policy::{self, Policy, Risk};
use nomos::types::{
    Author, BlastRadius, Direction, Entity, EntityListItem, EntityQuery, Health, KnowledgeInput, KnowledgeKind,
    KnowledgeSummary, Page, Relation,
};
use nomos::{store, Engine};
use serde::Serialize;

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
    Db(DbCommand),
    /// Import a homelab description
    #[command(subcommand)]
    Inventory(InventoryCommand),
    /// Entities of the knowledge graph
    #[command(subcommand)]
    Entity(EntityCommand),
    /// Relationships and impact
    #[command(subcommand)]
    Graph(GraphCommand),
    /// The knowledge base
    #[command(subcommand)]
    Knowledge(KnowledgeCommand),
    /// Classify shell commands by risk: one per line on stdin, or one after `--`. Writes one JSON
    /// object per command: {"command", "risk", "reasons"}.
    Classify {
        /// What the caller declares the command to be; can only raise the result
        #[arg(long, value_parser = parse_risk)]
        declared: Option<Risk>,
        /// The command (words are joined with spaces); without it, commands are read from stdin
        #[arg(last = true)]
        command: Vec<String>,
    },
    /// Judge operator chat messages, one per line on stdin. Writes one JSON object per message:
    /// {"message", "assent", "typed_confirmation"}.
    Assent,
    /// Tasks: what the agent (or you) works on; their windows let their changes run
    #[command(subcommand)]
    Tasks(TasksCommand),
    /// Hosts and their SSH host keys
    #[command(subcommand)]
    Hosts(cli::HostsCommand),
    /// Run a shell command on a target through the risk gate
    Run(cli::RunArgs),
    /// Run a curated action (restart, systemctl, apt_upgrade, pct_exec, pct_create) through the gate
    Action(cli::ActionArgs),
    /// Pending approvals: list, approve, deny
    #[command(subcommand)]
    Approvals(cli::ApprovalsCommand),
    /// What ran, is running or waits
    #[command(subcommand)]
    Executions(cli::ExecutionsCommand),
    /// Windows that let a task act without asking again; pause and resume
    #[command(subcommand)]
    Autonomy(cli::AutonomyCommand),
    /// Simulated Proxmox hosts on this machine (real sshd, stand-in Proxmox tools)
    #[command(subcommand)]
    Lab(nomos::lab::cli::LabCommand),
}

#[derive(Subcommand)]
enum TasksCommand {
    /// Start a task; prints its id (for `run --task`, `autonomy open`)
    Create {
        #[arg(long)]
        title: String,
        #[arg(long, default_value = "")]
        goal: String,
    },
    /// Tasks, most recently active first
    List {
        #[arg(long, default_value_t = 30)]
        limit: u32,
    },
    /// One task
    Show { id: String },
    /// Delete a task (its knowledge stays; its waiting requests are withdrawn)
    Delete { id: String },
}

#[derive(Subcommand)]
enum DbCommand {
    /// Create the database if needed and apply pending migrations
    Migrate,
}

#[derive(Subcommand)]
enum InventoryCommand {
    /// Import an inventory YAML file (idempotent)
    Import { file: PathBuf },
}

#[derive(Subcommand)]
enum EntityCommand {
    /// List entities (true total always shown)
    List(ListArgs),
    /// Show one entity with its status, relations and knowledge
    Show { slug: String },
}

#[derive(Args)]
struct ListArgs {
    /// Only this type (types below it included)
    #[arg(long = "type", value_name = "TYPE")]
    entity_type: Option<String>,
    /// Case-insensitive text in slug or name
    #[arg(long)]
    filter: Option<String>,
    /// Only entities with this health
    #[arg(long, value_parser = parse_health)]
    health: Option<Health>,
    #[arg(long, default_value_t = 50)]
    limit: u32,
    #[arg(long, default_value_t = 0)]
    offset: u32,
}

#[derive(Subcommand)]
enum GraphCommand {
    /// Relationships of an entity, both directions
    Relations {
        slug: String,
        /// Include ended relationships
        #[arg(long)]
        history: bool,
    },
    /// Everything affected if this entity fails or changes
    BlastRadius {
        slug: String,
        #[arg(long, default_value_t = nomos::graph::blast::DEFAULT_DEPTH)]
        depth: u32,
    },
}

#[derive(Subcommand)]
enum KnowledgeCommand {
    /// Add or update a note (same kind and title updates). Content from --content, --file or stdin.
    Add {
        #[arg(long, value_parser = parse_kind, default_value = "document")]
        kind: KnowledgeKind,
        #[arg(long)]
        title: String,
        #[arg(long, conflicts_with = "file")]
        content: Option<String>,
        #[arg(long)]
        file: Option<PathBuf>,
        #[arg(long = "tag")]
        tags: Vec<String>,
        /// Slug of an entity this note documents (repeatable)
        #[arg(long = "about")]
        about: Vec<String>,
        #[arg(long, default_value = "")]
        source: String,
    },
    /// Full-text search
    Search {
        query: String,
        #[arg(long, default_value_t = 20)]
        limit: u32,
    },
    /// Most recently written notes
    Recent {
        #[arg(long, default_value_t = 20)]
        limit: u32,
    },
    /// Totals by kind
    Stats,
    /// One note with its body
    Show { slug: String },
}

fn parse_risk(s: &str) -> Result<Risk, String> {
    s.parse().map_err(|e: nomos::types::UnknownValue| e.to_string())
}

fn parse_health(s: &str) -> Result<Health, String> {
    s.parse().map_err(|e: nomos::types::UnknownValue| e.to_string())
}

fn parse_kind(s: &str) -> Result<KnowledgeKind, String> {
    s.parse().map_err(|e: nomos::types::UnknownValue| e.to_string())
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    nomos::init_logging("NOMOS_LOG", "warn");
    let runtime = match tokio::runtime::Builder::new_multi_thread().enable_all().build() {
        Ok(rt) => rt,
        Err(e) => {
            eprintln!("nomos: cannot start the runtime: {e}");
            return ExitCode::FAILURE;
        }
    };
    match runtime.block_on(run(cli)) {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) if message == QUEUED => ExitCode::from(3),
        Err(message) => {
            // One line, whatever the error carried (nothing when the command reported already).
            if !message.is_empty() {
                eprintln!("nomos: {}", message.replace('\n', " "));
            }
            ExitCode::FAILURE
        }
    }
}

async fn run(cli: Cli) -> Result<(), String> {
    // The gate's judgement and the lab need no database.
    match cli.command {
        Command::Classify { declared, command } => return classify(declared, &command),
        Command::Assent => return assent(),
        Command::Lab(lab) => return nomos::lab::cli::run(lab, cli.json),
        _ => {}
    }
    let path = store::resolve_path(cli.db.as_deref()).map_err(|e| e.to_string())?;
    let engine = Engine::open(&path).await.map_err(|e| e.to_string())?;
    let out = Out { json: cli.json };
    let result = dispatch(&engine, cli.command, &out).await;
    engine.store().close().await;
    result
}

struct Out {
    json: bool,
}

/// Calls `each` with every line of stdin (bytes that are not UTF-8 are replaced, never fatal), and
/// writes its JSON result as one line.
fn per_line<T: Serialize>(mut each: impl FnMut(&str) -> T) -> Result<(), String> {
    use std::io::BufRead;
    let stdin = std::io::stdin();
    let mut stdout = std::io::stdout().lock();
    let mut line = Vec::new();
    let mut reader = stdin.lock();
    loop {
        line.clear();
        let n = reader.read_until(b'\n', &mut line).map_err(|e| format!("reading stdin: {e}"))?;
        if n == 0 {
            return Ok(());
        }
        let text = String::from_utf8_lossy(&line);
        let text = text.strip_suffix('\n').unwrap_or(&text);
        let text = text.strip_suffix('\r').unwrap_or(text);
        let json = serde_json::to_string(&each(text)).map_err(|e| e.to_string())?;
        if writeln!(stdout, "{json}").is_err() {
            // The reader went away (`| head`): stop quietly.
            return Ok(());
        }
    }
}

fn classify(declared: Option<Risk>, command: &[String]) -> Result<(), String> {
    let policy = Policy::load().map_err(|e| e.to_string())?;
    let judge = |c: &str| {
        let v = policy.classify(c, declared);
        Classified { command: c.to_string(), risk: v.risk, reasons: v.reasons }
    };
    if command.is_empty() {
        per_line(judge)
    } else {
        println!("{}", serde_json::to_string(&judge(&command.join(" "))).map_err(|e| e.to_string())?);
        Ok(())
    }
}

/// `nomos classify` output, fields in the documented order.
#[derive(Serialize)]
struct Classified {
    command: String,
    risk: Risk,
    reasons: Vec<String>,
}

/// `nomos assent` output, fields in the documented order.
#[derive(Serialize)]
struct Judged {
    message: String,
    assent: bool,
    typed_confirmation: bool,
}

fn assent() -> Result<(), String> {
    per_line(|m| Judged {
        message: m.to_string(),
        assent: policy::is_assent(m),
        typed_confirmation: policy::is_typed_confirmation(m),
    })
}

impl Out {
    /// Prints `value` as JSON, or the text `human` renders.
    fn print<T: Serialize>(&self, value: &T, human: impl FnOnce(&T) -> String) -> Result<(), String> {
        let text =
            if self.json { serde_json::to_string_pretty(value).map_err(|e| e.to_string())? } else { human(value) };
        let mut stdout = std::io::stdout().lock();
        // A closed pipe (`| head`) is not an error worth reporting.
        let _ = writeln!(stdout, "{}", text.trim_end());
        Ok(())
    }
}

/// The gate for this command; first it expires overdue approvals and fails executions whose
/// process died, so what is listed or decided is current.
async fn actuator(engine: &Engine) -> Result<Actuator, String> {
    let policy = Policy::load().map_err(|e| e.to_string())?;
    let act = Actuator::new(engine.clone(), policy, ActuateConfig::default());
    act.sweep().await.map_err(|e| e.to_string())?;
    Ok(act)
}

/// A command that ran and failed has said why already; it only sets the exit status.
fn ok_or_failed(r: Result<cli::Ended, String>) -> Result<(), String> {
    match r? {
        cli::Ended::Succeeded => Ok(()),
        cli::Ended::Failed => Err(String::new()),
        cli::Ended::Queued => Err(QUEUED.into()),
    }
}

/// The error text that means "waits for approval" (exit status 3, nothing more to print).
const QUEUED: &str = "\u{0}queued";

async fn dispatch(engine: &Engine, command: Command, out: &Out) -> Result<(), String> {
    let e = |err: nomos::Error| err.to_string();
    match command {
        Command::Db(DbCommand::Migrate) => {
            let info = engine.info().await.map_err(e)?;
            out.print(&info, |i| format!("{} is at schema version {}", i.path, i.schema_version))
        }
        Command::Inventory(InventoryCommand::Import { file }) => {
            let report = engine.import_inventory_file(&file).await.map_err(e)?;
            out.print(&report, |r| {
                format!(
                    "entities: {} created, {} updated, {} unchanged\nrelationships: {} created, {} updated, {} unchanged, {} ended",
                    r.entities.created,
                    r.entities.updated,
                    r.entities.unchanged,
                    r.relationships.created,
                    r.relationships.updated,
                    r.relationships.unchanged,
                    r.relationships_ended
                )
            })
        }
        Command::Entity(EntityCommand::List(a)) => {
            let page = engine
                .list_entities(&EntityQuery {
                    entity_type: a.entity_type,
                    text: a.filter,
                    health: a.health,
                    limit: Some(a.limit),
                    offset: a.offset,
                })
                .await
                .map_err(e)?;
            out.print(&page, render_entity_page)
        }
        Command::Entity(EntityCommand::Show { slug }) => {
            let x = engine.explain(&slug).await.map_err(e)?;
            out.print(&x, |x| {
                let mut s = render_entity(&x.entity);
                s.push_str(&format!("health:     {} ({})\n", x.status.health, x.status.freshness));
                if !x.relations.is_empty() {
                    s.push_str("\nrelations:\n");
                    s.push_str(&render_relations(&x.relations));
                }
                if !x.knowledge.is_empty() {
                    s.push_str("\nknowledge:\n");
                    s.push_str(&render_knowledge(&x.knowledge));
                }
                s
            })
        }
        Command::Graph(GraphCommand::Relations { slug, history }) => {
            let rels = engine.relations(&slug, history).await.map_err(e)?;
            out.print(&rels, |r| {
                if r.is_empty() {
                    format!("{slug} has no {}relations", if history { "" } else { "current " })
                } else {
                    render_relations(r)
                }
            })
        }
        Command::Graph(GraphCommand::BlastRadius { slug, depth }) => {
            let b = engine.blast_radius(&slug, Some(depth)).await.map_err(e)?;
            out.print(&b, render_blast)
        }
        Command::Knowledge(k) => knowledge(engine, k, out).await,
        Command::Tasks(c) => tasks(engine, c, out).await,
        Command::Hosts(c) => cli::hosts(&actuator(engine).await?, c, out.json).await,
        Command::Run(a) => ok_or_failed(cli::run(&actuator(engine).await?, a, out.json).await),
        Command::Action(a) => ok_or_failed(cli::action(&actuator(engine).await?, a, out.json).await),
        Command::Approvals(c) => ok_or_failed(cli::approvals(&actuator(engine).await?, c, out.json).await),
        Command::Executions(c) => cli::executions(&actuator(engine).await?, c, out.json).await,
        Command::Autonomy(c) => cli::autonomy(&actuator(engine).await?, c, out.json).await,
        Command::Classify { .. } | Command::Assent | Command::Lab(_) => Ok(()),
    }
}

async fn tasks(engine: &Engine, command: TasksCommand, out: &Out) -> Result<(), String> {
    let e = |err: nomos::Error| err.to_string();
    let line = |t: &nomos::types::Task| format!("{}  {:<10} {}", t.id, t.status.as_str(), t.title);
    match command {
        TasksCommand::Create { title, goal } => {
            let t = engine.create_task(&title, &goal).await.map_err(e)?;
            out.print(&t, |t| t.id.clone())
        }
        TasksCommand::List { limit } => {
            let list = engine.tasks(limit).await.map_err(e)?;
            out.print(&list, |list| {
                if list.is_empty() {
                    "no tasks".into()
                } else {
                    list.iter().map(|t| line(t) + "\n").collect()
                }
            })
        }
        TasksCommand::Show { id } => {
            let t = engine.task(&id).await.map_err(e)?;
            out.print(&t, |t| format!("{}\ngoal: {}\nsummary: {}", line(t), t.goal, t.summary))
        }
        TasksCommand::Delete { id } => {
            let kept = engine.delete_task(&id).await.map_err(e)?;
            out.print(&serde_json::json!({"deleted": id, "knowledge_kept": kept}), |_| {
                format!("task {id} deleted; {kept} note(s) it produced are kept")
            })
        }
    }
}

async fn knowledge(engine: &Engine, command: KnowledgeCommand, out: &Out) -> Result<(), String> {
    let e = |err: nomos::Error| err.to_string();
    match command {
        KnowledgeCommand::Add { kind, title, content, file, tags, about, source } => {
            let content = match (content, file) {
                (Some(c), _) => c,
                (None, Some(f)) => std::fs::read_to_string(&f).map_err(|err| format!("{}: {err}", f.display()))?,
                (None, None) => {
                    if std::io::stdin().is_terminal() {
                        return Err("give the note's content with --content, --file or on stdin".into());
                    }
                    let mut s = String::new();
                    std::io::stdin().read_to_string(&mut s).map_err(|err| format!("reading stdin: {err}"))?;
                    s
                }
            };
            if content.trim().is_empty() {
                return Err("the note is empty: give its content with --content, --file or on stdin".into());
            }
            let up = engine
                .upsert_knowledge(&KnowledgeInput {
                    kind,
                    title,
                    content,
                    source,
                    author: Author::Operator,
                    tags,
                    about,
                })
                .await
                .map_err(e)?;
            out.print(&up, |u| {
                format!(
                    "{} {} ({})",
                    if u.created { "created" } else { "updated" },
                    u.doc.summary.slug,
                    u.doc.summary.title
                )
            })
        }
        KnowledgeCommand::Search { query, limit } => {
            let hits = engine.search_knowledge(&query, limit).await.map_err(e)?;
            out.print(&hits, |hits| {
                if hits.is_empty() {
                    return format!("nothing matches `{query}`");
                }
                hits.iter()
                    .map(|h| {
                        let snippet = h.snippet.replace("<b>", "\x1b[1m").replace("</b>", "\x1b[0m");
                        format!(
                            "{}  [{}] {}\n    {}",
                            h.summary.slug,
                            h.summary.kind,
                            h.summary.title,
                            unescape(&snippet)
                        )
                    })
                    .collect::<Vec<_>>()
                    .join("\n")
            })
        }
        KnowledgeCommand::Recent { limit } => {
            let recent = engine.recent_knowledge(limit).await.map_err(e)?;
            out.print(&recent, |r| if r.is_empty() { "no knowledge yet".into() } else { render_knowledge(r) })
        }
        KnowledgeCommand::Stats => {
            let s = engine.knowledge_stats().await.map_err(e)?;
            out.print(&s, |s| {
                let kinds: Vec<String> = s.by_kind.iter().map(|(k, n)| format!("{k} {n}")).collect();
                format!(
                    "{} notes ({}); {} by the agent; {} changed in the last 7 days",
                    s.total,
                    kinds.join(", "),
                    s.agent_authored,
                    s.changed_last_7_days
                )
            })
        }
        KnowledgeCommand::Show { slug } => {
            let doc = engine.knowledge(&slug).await.map_err(e)?;
            out.print(&doc, |d| {
                let about: Vec<&str> = d.about.iter().map(|a| a.slug.as_str()).collect();
                format!(
                    "# {}\n[{}] {}  updated {}{}\n\n{}",
                    d.summary.title,
                    d.summary.kind,
                    d.summary.slug,
                    d.summary.updated_at,
                    if about.is_empty() { String::new() } else { format!("\nabout: {}", about.join(", ")) },
                    d.content
                )
            })
        }
    }
}

fn unescape(s: &str) -> String {
    s.replace("&lt;", "<").replace("&gt;", ">").replace("&quot;", "\"").replace("&#39;", "'").replace("&amp;", "&")
}

fn render_entity_page(page: &Page<EntityListItem>) -> String {
    let width = page.items.iter().map(|i| i.entity.slug.len()).max().unwrap_or(0);
    let mut s: String = page
        .items
        .iter()
        .map(|i| {
            format!(
                "{:width$}  {:<12} {:<9} {}\n",
                i.entity.slug,
                i.entity.state.as_str(),
                i.status.health.as_str(),
                i.entity.name
            )
        })
        .collect();
    let shown = page.items.len() as u64;
    if page.total == 0 {
        s.push_str("no entities match");
    } else if shown == 0 {
        s.push_str(&format!("offset {} is past the end ({} entities)", page.offset, page.total));
    } else if shown < page.total {
        s.push_str(&format!(
            "showing {}–{} of {} (use --offset/--limit for more)",
            u64::from(page.offset) + 1,
            u64::from(page.offset) + shown,
            page.total
        ));
    } else {
        s.push_str(&format!("{} entities", page.total));
    }
    s
}

fn render_entity(e: &Entity) -> String {
    let attrs = serde_json::to_string_pretty(&e.attributes).unwrap_or_default();
    format!(
        "{}  ({})\nname:       {}\nstate:      {}\nupdated:    {}\nattributes: {}\n",
        e.slug, e.entity_type, e.name, e.state, e.updated_at, attrs
    )
}

fn render_relations(rels: &[Relation]) -> String {
    rels.iter()
        .map(|r| {
            let arrow = match r.direction {
                Direction::Outgoing => "→",
                Direction::Incoming => "←",
            };
            let ended = r.valid_to.as_ref().map(|t| format!("  (ended {t})")).unwrap_or_default();
            format!("  {arrow} {:<16} {}{ended}\n", r.label, r.other.slug)
        })
        .collect()
}

fn render_blast(b: &BlastRadius) -> String {
    if b.hits.is_empty() {
        return format!("nothing depends on {} (depth {})", b.root.slug, b.depth);
    }
    let mut s = format!("{} affects {} (depth {}):\n", b.root.slug, b.hits.len(), b.depth);
    for h in &b.hits {
        let via: Vec<String> = h.path.iter().map(|e| format!("{} {} {}", e.source, e.rel_type, e.target)).collect();
        s.push_str(&format!("  {} {:<28} via {}\n", h.depth, h.entity.slug, via.join(" / ")));
    }
    s
}

fn render_knowledge(items: &[KnowledgeSummary]) -> String {
    items.iter().map(|k| format!("  {}  [{}] {}  ({})\n", k.updated_at, k.kind, k.title, k.slug)).collect()
}
