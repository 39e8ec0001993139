//! `nomos observe run-once|serve`, `nomos signals list|ack|mute|resolve`, `nomos metrics SLUG`:
//! Observe from the command line, with the same contracts as the desktop's pages (`--json`: the
//! wire types `ObserveReport`, `SignalList`, `Signal`, `MetricSeries`).

use clap::{Args, Subcommand};
use nomos::observe::rules::parse_secs;
use nomos::observe::Observer;
use nomos::types::observe::Severity;
use nomos::types::{
    Check, CheckKind, CheckSpec, MetricRange, MetricSeries, ObserveReport, Signal, SignalList, SignalQuery, SignalState,
};
use nomos::Runtime;

use crate::exit::{Exit, Outcome};
use crate::out::{line, parse_enum, Out};
use crate::report::operator;

#[derive(Subcommand, Debug)]
pub enum ObserveCommand {
    /// Run one collection cycle now (read-only probes through the gate) and report it
    RunOnce,
    /// Collect every cycle until Ctrl-C (without the window, like `nomos agent serve`)
    Serve,
}

#[derive(Subcommand, Debug)]
pub enum SignalsCommand {
    /// Signals (by default everything not resolved), worst and newest first
    List {
        /// open, acked, muted or resolved
        #[arg(long, value_parser = parse_enum::<SignalState>)]
        state: Option<SignalState>,
        /// info, warning or critical
        #[arg(long, value_parser = parse_enum::<Severity>)]
        severity: Option<Severity>,
        /// Only the signals of this entity
        #[arg(long)]
        entity: Option<String>,
    },
    /// Acknowledge a signal: someone is on it (kept if it fires again within 30 min)
    Ack {
        id: String,
        /// What is being done about it (required)
        #[arg(long)]
        reason: String,
    },
    /// Mute a signal for a while: shown, never notified
    Mute {
        id: String,
        /// How long: 30m, 1h, 8h, 1d … (at most 30d)
        #[arg(long = "for", value_name = "DURATION", value_parser = duration)]
        duration: u64,
    },
    /// Resolve a signal by hand (it opens again if its condition still holds)
    Resolve { id: String },
    /// Open a task on a signal, researched read-only (metrics, blast radius, journal, recent
    /// changes, what fixed it before), and — with a provider — run Nomos's first turn: a diagnosis
    /// and one plan ending in a verify step. A signal with a task still going returns that task.
    #[command(after_help = "Exit status: without a provider, 0 once the task is open. With one, as `nomos ask`: \
0 done, 3 it waits for you (the plan's approval, an answer), 1 failed.

With --json the first line is {\"kind\": \"investigation.opened\", \"task\": TASK_ID, \"payload\": INVESTIGATION} \
(task_id, signal, created, auto, briefing); the turn's lines follow as with `nomos ask --json`.")]
    Investigate { id: String },
}

#[derive(Subcommand, Debug)]
pub enum ChecksCommand {
    /// Add a check to an entity (or replace the one of that name); give exactly one of
    /// --service, --tcp, --http, --dns, --certificate
    #[command(group(clap::ArgGroup::new("kind").required(true).args(["service", "tcp", "http", "dns", "certificate"])))]
    Add {
        /// The entity (lxc:caddy, host:pve1 …)
        slug: String,
        /// The check's name on that entity
        name: String,
        /// A systemd unit that must be active (on a host, or inside a container)
        #[arg(long, value_name = "UNIT")]
        service: Option<String>,
        /// ADDRESS:PORT that must accept connections, seen from the host
        #[arg(long, value_name = "ADDRESS:PORT")]
        tcp: Option<String>,
        /// A URL that must answer with --expect (200), seen from the host
        #[arg(long, value_name = "URL")]
        http: Option<String>,
        /// A name that must resolve (to --expect, when given)
        #[arg(long, value_name = "NAME")]
        dns: Option<String>,
        /// An https URL whose certificate must be valid for 14 more days
        #[arg(long, value_name = "URL")]
        certificate: Option<String>,
        /// The HTTP status (for --http) or the address (for --dns) expected
        #[arg(long)]
        expect: Option<String>,
        /// How often it runs: 30s … 1d [default: 60s]
        #[arg(long, value_name = "DURATION", value_parser = duration)]
        every: Option<u64>,
    },
    /// The checks of an entity (or all) with how they last went
    List { slug: Option<String> },
    /// Remove a check (its open signal is resolved)
    Rm { id: String },
    /// Pause a check: it stops running and its open signal is resolved (kept, with its history)
    Disable { id: String },
    /// Run a paused check again on its interval
    Enable { id: String },
    /// Run a check now (exit 0 when it passes, 1 when it fails)
    Run { id: String },
}

#[derive(Args, Debug)]
pub struct MetricsArgs {
    /// The entity (host:pve1, lxc:caddy …)
    slug: String,
    /// One metric (cpu_percent, memory_percent, disk_percent, up …) [default: all]
    #[arg(long)]
    metric: Option<String>,
    /// 1h (raw samples), 24h (1-minute), 30d (1-hour)
    #[arg(long, default_value = "1h", value_parser = parse_enum::<MetricRange>)]
    range: MetricRange,
}

pub async fn observe(rt: &Runtime, command: ObserveCommand, out: Out) -> Outcome {
    let observer = Observer::new()?;
    match command {
        ObserveCommand::RunOnce => {
            let report = rt.actuator().observe_once(&observer).await?;
            out.print(&report, human_report)?;
            Ok(Exit::Ok)
        }
        ObserveCommand::Serve => {
            let settings = rt.engine().observe_settings().await?;
            let every = std::time::Duration::from_secs(u64::from(settings.interval_s.max(10)));
            eprintln!(
                "nomos observe serve: collecting every {} s into {}; Ctrl-C to stop",
                every.as_secs(),
                rt.engine().store().path().display()
            );
            let mut term = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate())
                .map_err(|e| format!("cannot listen for SIGTERM: {e}"))?;
            let mut tick = tokio::time::interval(every);
            tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Skip);
            loop {
                tokio::select! {
                    _ = tick.tick() => match rt.actuator().observe_once(&observer).await {
                        Ok(r) if out.json => line(&serde_json::to_string(&r)?),
                        Ok(r) => line(human_report(&r).trim_end()),
                        Err(e) => eprintln!("nomos: observe cycle failed: {e}"),
                    },
                    _ = tokio::signal::ctrl_c() => break,
                    _ = term.recv() => break,
                }
            }
            Ok(Exit::Ok)
        }
    }
}

/// A duration on the command line (`90s`, `5m`, `8h`, `1d`); a bad one is a usage error.
fn duration(s: &str) -> Result<u64, String> {
    parse_secs(s).filter(|n| *n > 0).ok_or_else(|| format!("`{s}` is not a duration (like 30s, 5m, 8h, 1d)"))
}

fn human_report(r: &ObserveReport) -> String {
    let mut s = format!(
        "{} cluster(s), {} host(s): {} command(s), {} sample(s) in {} ms — {} raised, {} updated, {} resolved\n",
        r.clusters,
        r.hosts,
        r.commands,
        r.samples,
        r.duration_ms,
        r.raised.len(),
        r.updated.len(),
        r.resolved.len()
    );
    for w in &r.warnings {
        s.push_str(&format!("warning: {w}\n"));
    }
    s
}

pub async fn signals(rt: &Runtime, command: SignalsCommand, out: Out) -> Outcome {
    let engine = rt.engine();
    let by = operator(None).actor;
    let one = |s: &Signal| human_signal(s);
    match command {
        SignalsCommand::List { state, severity, entity } => {
            let list = engine.list_signals(&SignalQuery { state, severity, entity, limit: None }).await?;
            out.print(&list, human_list)
        }
        SignalsCommand::Ack { id, reason } => out.print(&engine.ack_signal(&id, &reason, &by).await?, one),
        SignalsCommand::Mute { id, duration } => out.print(&engine.mute_signal(&id, duration, &by).await?, one),
        SignalsCommand::Resolve { id } => out.print(&engine.resolve_signal(&id, &by).await?, one),
        SignalsCommand::Investigate { id } => investigate(rt, &id, out).await,
    }
}

async fn investigate(rt: &Runtime, id: &str, out: Out) -> Outcome {
    let events = crate::ask::Events::subscribe(rt);
    let inv = rt.actuator().investigate(id, false).await?;
    if out.json {
        let payload = serde_json::to_value(&inv)?;
        line(&serde_json::json!({"kind": "investigation.opened", "task": inv.task_id, "payload": payload}).to_string());
    } else {
        line(&format!(
            "task {}: {} signal {} ({})",
            inv.task_id,
            if inv.created { "investigates" } else { "already investigates" },
            inv.signal.id,
            inv.signal.message
        ));
        if inv.created {
            line(inv.briefing.trim_end());
        }
    }
    if !inv.created {
        return Ok(Exit::Ok);
    }
    let agent = rt.agent();
    if let Err(e) = agent.provider() {
        if !out.json {
            line(&format!(
                "Nomos has no provider, so the task waits ({e}); continue it with `nomos ask --task {}`",
                inv.task_id
            ));
        }
        return Ok(Exit::Ok);
    }
    let task = inv.task_id.clone();
    let exit = crate::ask::in_foreground(rt, &task, events, async { agent.run(&task).await.map(Some) }, out).await?;
    Ok(exit.unwrap_or(Exit::Failed))
}

/// `nomos learning`: what the loop has learned (the Learning page's numbers).
pub async fn learning(rt: &Runtime, out: Out) -> Outcome {
    let report = rt.engine().learning_report().await?;
    out.print(&report, human_learning)
}

fn human_learning(r: &nomos::types::LearningReport) -> String {
    let (ok, failed) = r.outcomes.iter().fold((0, 0), |(a, b), d| (a + d.succeeded, b + d.failed));
    let mut s = format!("last {} days: {ok} execution(s) succeeded, {failed} failed\n", r.outcomes.len());
    s.push_str("\ncapabilities (first success, successes/total):\n");
    for c in &r.capabilities {
        s.push_str(&format!(
            "  {:<24} {:<26} {}/{}{}\n",
            c.action,
            c.first_success.as_deref().unwrap_or("no success yet"),
            c.successes,
            c.total,
            if c.judged > 0 { format!("  (achieved its step {}/{})", c.achieved, c.judged) } else { String::new() }
        ));
    }
    s.push_str("\nincidents by kind:\n");
    for k in &r.incidents {
        s.push_str(&format!(
            "  {:<20} {} signal(s), {} resolved ({} by a task), median {} , {} repeat(s)\n",
            k.kind,
            k.signals,
            k.resolved,
            k.by_tasks,
            k.median_resolve_s.map(|v| format!("{v} s")).unwrap_or_else(|| "-".into()),
            k.repeats
        ));
    }
    s.push_str(&format!(
        "\nknowledge recalled: {} (of {} ended tasks, {} succeeded)\n",
        r.recalls.len(),
        r.recalls_ended,
        r.recalls_helped
    ));
    for c in &r.recalls {
        s.push_str(&format!(
            "  {} → task {} ({}, {} tool call(s))\n",
            c.title,
            c.task_id,
            c.outcome.as_deref().unwrap_or("running"),
            c.tool_calls
        ));
    }
    s
}

fn human_signal(s: &Signal) -> String {
    let mut marks = Vec::new();
    if s.flapping {
        marks.push("flapping".to_string());
    }
    if let Some(by) = &s.suppressed_by {
        marks.push(format!("suppressed by {by}"));
    }
    if let Some(t) = &s.maintenance {
        marks.push(format!("maintenance (task {t})"));
    }
    if let Some(r) = &s.ack_reason {
        marks.push(format!("acked: {r}"));
    }
    if let Some(m) = &s.muted_until {
        marks.push(format!("muted until {m}"));
    }
    if let Some(d) = s.down_secs {
        marks.push(format!("lasted {d} s"));
    }
    if s.affects > 0 {
        marks.push(format!("affects {}: {}", s.affects, s.affects_names.join(", ")));
    }
    format!(
        "{}  {:<8} {:<8} {}{}  ×{}  since {}{}",
        s.id,
        s.severity,
        s.state,
        s.entity.as_deref().map(|e| format!("{e}: ")).unwrap_or_default(),
        s.message,
        s.occurrences,
        s.raised_at,
        if marks.is_empty() { String::new() } else { format!("  [{}]", marks.join("; ")) }
    )
}

fn human_list(l: &SignalList) -> String {
    let c = &l.counts;
    let mut s = format!(
        "{} critical, {} warning open; {} acked, {} muted, {} suppressed or in maintenance\n",
        c.critical, c.warning, c.acked, c.muted, c.suppressed
    );
    for sig in &l.signals {
        s.push_str(&human_signal(sig));
        s.push('\n');
    }
    s
}

pub async fn metrics(rt: &Runtime, args: MetricsArgs, out: Out) -> Outcome {
    let series = rt.engine().query_metrics(&args.slug, args.metric.as_deref(), args.range).await?;
    out.print(&series, |all: &Vec<MetricSeries>| {
        if all.is_empty() {
            return format!("{}: no metrics yet (Observe has not read it)", args.slug);
        }
        let mut s = String::new();
        for m in all {
            let f = |v: Option<f64>| v.map_or("-".to_string(), |v| format!("{v:.2}"));
            s.push_str(&format!(
                "{:<16} {:>4} points ({})  last {} {}  min {}  avg {}  max {}\n",
                m.metric,
                m.points.len(),
                m.tier,
                f(m.last),
                m.unit,
                f(m.min),
                f(m.avg),
                f(m.max)
            ));
        }
        s
    })
}

fn human_check(c: &Check) -> String {
    format!(
        "{}  {:<16} {:<20} {:<11} every {} s  {}{}",
        c.id,
        c.entity,
        c.name,
        c.kind.label(),
        c.interval_s,
        if c.enabled { c.last_status.as_deref().unwrap_or("never run") } else { "paused" },
        c.last_detail.as_deref().map(|d| format!(": {d}")).unwrap_or_default()
    )
}

pub async fn checks(rt: &Runtime, command: ChecksCommand, out: Out) -> Outcome {
    let engine = rt.engine();
    match command {
        ChecksCommand::Add { slug, name, service, tcp, http, dns, certificate, expect, every } => {
            let kind = if let Some(unit) = service {
                CheckKind::Service { unit }
            } else if let Some(t) = tcp {
                let (address, port) = t
                    .rsplit_once(':')
                    .and_then(|(a, p)| Some((a.trim_matches(['[', ']']).to_string(), p.parse::<u16>().ok()?)))
                    .ok_or_else(|| format!("`{t}` is not ADDRESS:PORT"))?;
                CheckKind::Tcp { address, port }
            } else if let Some(url) = http {
                let expect_status = match expect.as_deref() {
                    None => 200,
                    Some(e) => e.parse().map_err(|_| format!("--expect `{e}` is not an HTTP status"))?,
                };
                CheckKind::Http { url, expect_status }
            } else if let Some(name) = dns {
                CheckKind::Dns { name, expect }
            } else if let Some(url) = certificate {
                CheckKind::Certificate { url }
            } else {
                return Err("give one of --service, --tcp, --http, --dns, --certificate".to_string().into());
            };
            let interval_s = every.map(|s| u32::try_from(s).unwrap_or(u32::MAX));
            let check = engine.add_check(&CheckSpec { entity: slug, name, kind, interval_s }).await?;
            out.print(&check, human_check)
        }
        ChecksCommand::List { slug } => {
            let all = engine.entity_checks(slug.as_deref().unwrap_or("")).await?;
            out.print(&all, |all: &Vec<Check>| {
                if all.is_empty() {
                    "no checks".to_string()
                } else {
                    all.iter().map(human_check).collect::<Vec<_>>().join("\n")
                }
            })
        }
        ChecksCommand::Rm { id } => {
            engine.remove_check(&id, &operator(None).actor).await?;
            out.print(&serde_json::json!({"removed": id}), |_| format!("removed check {id}"))
        }
        ChecksCommand::Disable { id } => {
            out.print(&engine.set_check_enabled(&id, false, &operator(None).actor).await?, human_check)
        }
        ChecksCommand::Enable { id } => {
            out.print(&engine.set_check_enabled(&id, true, &operator(None).actor).await?, human_check)
        }
        ChecksCommand::Run { id } => {
            let run = rt.actuator().run_check(&id).await?;
            out.print(&run, |r| format!("{}: {}", if r.ok { "ok" } else { "failing" }, r.detail))?;
            Ok(if run.ok { Exit::Ok } else { Exit::Failed })
        }
    }
}
