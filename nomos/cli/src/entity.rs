//! `nomos entity list|show`.

use clap::{Args, Subcommand};
use nomos::types::{Entity, EntityListItem, EntityQuery, Health, Page};
use nomos::Engine;

use crate::exit::Outcome;
use crate::graph::render_relations;
use crate::knowledge::render_knowledge;
use crate::out::{parse_enum, Out};

#[derive(Subcommand, Debug)]
pub enum EntityCommand {
    /// List entities (true total always shown)
    List(ListArgs),
    /// Show one entity with its status, relations and knowledge
    Show { slug: String },
}

#[derive(Args, Debug)]
pub struct ListArgs {
    /// Only this type (types below it included)
    #[arg(long = "type", value_name = "TYPE")]
    entity_type: Option<String>,
    /// Case-insensitive text in slug or name
    #[arg(long)]
    filter: Option<String>,
    /// Only entities with this health
    #[arg(long, value_parser = parse_enum::<Health>)]
    health: Option<Health>,
    #[arg(long, default_value_t = 50)]
    limit: u32,
    #[arg(long, default_value_t = 0)]
    offset: u32,
}

pub async fn entity(engine: &Engine, command: EntityCommand, out: Out) -> Outcome {
    match command {
        EntityCommand::List(a) => {
            let page = engine
                .list_entities(&EntityQuery {
                    entity_type: a.entity_type,
                    text: a.filter,
                    health: a.health,
                    limit: Some(a.limit),
                    offset: a.offset,
                })
                .await?;
            out.print(&page, render_page)
        }
        EntityCommand::Show { slug } => {
            let x = engine.explain(&slug).await?;
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
    }
}

fn render_page(page: &Page<EntityListItem>) -> String {
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
