//! `nomos graph relations|blast-radius`.

use clap::Subcommand;
use nomos::types::{BlastRadius, Direction, Relation};
use nomos::Engine;

use crate::exit::Outcome;
use crate::out::Out;

#[derive(Subcommand, Debug)]
pub enum GraphCommand {
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

pub async fn graph(engine: &Engine, command: GraphCommand, out: Out) -> Outcome {
    match command {
        GraphCommand::Relations { slug, history } => {
            let rels = engine.relations(&slug, history).await?;
            out.print(&rels, |r| {
                if r.is_empty() {
                    format!("{slug} has no {}relations", if history { "" } else { "current " })
                } else {
                    render_relations(r)
                }
            })
        }
        GraphCommand::BlastRadius { slug, depth } => {
            let b = engine.blast_radius(&slug, Some(depth)).await?;
            out.print(&b, render_blast)
        }
    }
}

pub fn render_relations(rels: &[Relation]) -> String {
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
