//! `nomos knowledge add|search|recent|stats|show`.

use std::io::{IsTerminal, Read};
use std::path::PathBuf;

use clap::Subcommand;
use nomos::types::{Author, KnowledgeInput, KnowledgeKind, KnowledgeSummary};
use nomos::Engine;

use crate::exit::Outcome;
use crate::out::{parse_enum, Out};

#[derive(Subcommand, Debug)]
pub enum KnowledgeCommand {
    /// Add or update a note (same kind and title updates). Content from --content, --file or stdin.
    Add {
        #[arg(long, value_parser = parse_enum::<KnowledgeKind>, default_value = "document")]
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

pub async fn knowledge(engine: &Engine, command: KnowledgeCommand, out: Out) -> Outcome {
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
                .await?;
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
            let hits = engine.search_knowledge(&query, limit).await?;
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
            let recent = engine.recent_knowledge(limit).await?;
            out.print(&recent, |r| if r.is_empty() { "no knowledge yet".into() } else { render_knowledge(r) })
        }
        KnowledgeCommand::Stats => {
            let s = engine.knowledge_stats().await?;
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
            let doc = engine.knowledge(&slug).await?;
            out.print(&doc, |d| {
                let about: Vec<&str> = d.about.iter().map(|a| &*a.slug).collect();
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

/// Undoes the HTML escaping of search snippets for a terminal.
fn unescape(s: &str) -> String {
    s.replace("&lt;", "<").replace("&gt;", ">").replace("&quot;", "\"").replace("&#39;", "'").replace("&amp;", "&")
}

pub fn render_knowledge(items: &[KnowledgeSummary]) -> String {
    items.iter().map(|k| format!("  {}  [{}] {}  ({})\n", k.updated_at, k.kind, k.title, k.slug)).collect()
}
