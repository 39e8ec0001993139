//! `nomos-scripted-provider --script FILE [--port N] [--record FILE]`: serve a script until
//! killed. Prints the API root (`http://127.0.0.1:PORT/v1`) as its first line on stdout.

use std::path::PathBuf;

use clap::Parser;
use nomos_scripted_provider::{Script, ScriptedProvider};

/// A stand-in for the model (development and tests only): an OpenAI-compatible server that
/// replays a script.
#[derive(Debug, Parser)]
#[command(name = "nomos-scripted-provider", version)]
struct Args {
    /// The script: YAML or JSON with `model` and `replies`.
    #[arg(long)]
    script: PathBuf,
    /// The port on 127.0.0.1 (0: a free one).
    #[arg(long, default_value_t = 0)]
    port: u16,
    /// Append every request body to this file, one JSON line each.
    #[arg(long)]
    record: Option<PathBuf>,
}

#[tokio::main(flavor = "current_thread")]
async fn main() -> std::process::ExitCode {
    let args = Args::parse();
    let script = match Script::from_file(&args.script) {
        Ok(script) => script,
        Err(e) => {
            eprintln!("nomos-scripted-provider: {e}");
            return std::process::ExitCode::from(2);
        }
    };
    let server = match ScriptedProvider::start_on(script, args.port, args.record).await {
        Ok(server) => server,
        Err(e) => {
            eprintln!("nomos-scripted-provider: cannot listen: {e}");
            return std::process::ExitCode::from(1);
        }
    };
    println!("{}", server.base_url());
    let _ = tokio::signal::ctrl_c().await;
    std::process::ExitCode::SUCCESS
}
