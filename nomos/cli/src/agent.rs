//! `nomos agent serve`: the engine's background work and Nomos' continuations, for a machine
//! without the desktop app.

use clap::Subcommand;
use nomos::Runtime;
use serde_json::json;

use crate::ask::verdict;
use crate::exit::{Exit, Outcome};
use crate::out::{line, Out};

/// How long a stop waits for the running turns to leave their tasks waiting.
const STOP_GRACE: std::time::Duration = std::time::Duration::from_secs(15);

#[derive(Subcommand, Debug)]
pub enum AgentCommand {
    /// Run the background work and continue tasks until Ctrl-C
    #[command(after_help = "Continues each task by itself when an execution it waits on ends: an approval decided \
(here, in the desktop app or with `nomos approvals approve|deny` from another shell), or a background action \
(pct_create, apt_upgrade …) that finished. Also expires overdue approvals and recovers interrupted executions \
and tasks. Prints one line per continued task (`task ID: STATUS`; with --json one object \
{\"kind\": \"task.continued\", \"task\": ID, \"payload\": TASK}).

Ctrl-C (or SIGTERM) stops the turns running here: their commands on hosts are killed and recorded as \
cancelled, and their tasks are left waiting for your next message (not cancelled) — `nomos ask --task ID` \
goes on from there. Executions this process runs in the background are stopped the same way.

Needs a provider: NOMOS_LLM_BASE_URL, NOMOS_MODEL and the key (nomos auth set-key, or NOMOS_API_KEY).")]
    Serve,
}

pub async fn agent(rt: &Runtime, command: AgentCommand, out: Out) -> Outcome {
    match command {
        AgentCommand::Serve => serve(rt, out).await,
    }
}

async fn serve(rt: &Runtime, out: Out) -> Outcome {
    let agent = rt.agent();
    agent.provider()?;
    let mut continued = agent.follow_continued();
    rt.start_background();
    eprintln!("nomos agent serve: continuing tasks from {}; Ctrl-C to stop", rt.engine().store().path().display());
    let mut term = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate())
        .map_err(|e| format!("cannot listen for SIGTERM: {e}"))?;
    loop {
        tokio::select! {
            c = continued.recv() => match c {
                Ok(c) if out.json => {
                    let payload = serde_json::to_value(&c.task)?;
                    line(&json!({"kind": "task.continued", "task": c.task.id, "payload": payload}).to_string());
                }
                Ok(c) => line(&verdict(&c.task)),
                Err(tokio::sync::broadcast::error::RecvError::Lagged(n)) => {
                    eprintln!("note: {n} continued tasks were not printed");
                }
                Err(tokio::sync::broadcast::error::RecvError::Closed) => break,
            },
            _ = tokio::signal::ctrl_c() => break,
            _ = term.recv() => break,
        }
    }
    let stopping = agent.stop();
    if stopping > 0 {
        eprintln!("stopping {stopping} running turn(s); their tasks will wait for you…");
    }
    let deadline = tokio::time::Instant::now() + STOP_GRACE;
    while agent.running() > 0 && tokio::time::Instant::now() < deadline {
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    // Print the turns that ended while stopping.
    while let Ok(c) = continued.try_recv() {
        line(&verdict(&c.task));
    }
    let killed = rt.cancel_running();
    if killed > 0 {
        eprintln!("stopped {killed} command(s) on hosts");
    }
    Ok(Exit::Ok)
}
