//! `nomos inventory import`.

use std::path::PathBuf;

use clap::Subcommand;
use nomos::Engine;

use crate::exit::Outcome;
use crate::out::Out;

#[derive(Subcommand, Debug)]
pub enum InventoryCommand {
    /// Import an inventory YAML file (idempotent)
    Import { file: PathBuf },
}

pub async fn inventory(engine: &Engine, command: InventoryCommand, out: Out) -> Outcome {
    match command {
        InventoryCommand::Import { file } => {
            let report = engine.import_inventory_file(&file).await?;
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
    }
}
