//! `nomos db migrate`.

use clap::Subcommand;
use nomos::Engine;

use crate::exit::Outcome;
use crate::out::Out;

#[derive(Subcommand, Debug)]
pub enum DbCommand {
    /// Create the database if needed and apply pending migrations
    Migrate,
}

pub async fn db(engine: &Engine, command: DbCommand, out: Out) -> Outcome {
    match command {
        DbCommand::Migrate => {
            let info = engine.info().await?;
            out.print(&info, |i| format!("{} is at schema version {}", i.path, i.schema_version))
        }
    }
}
