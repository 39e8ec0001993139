//! What Observe knows, for Nomos: `list_signals`, `get_signal`, `query_metrics` (a series
//! summarised, not dumped), `get_health_summary`; and `add_check`, which watches something Nomos
//! deployed — a change to what Oikos watches, so it runs only inside the task's approved plan.

use nomos_types::observe::Severity;
use nomos_types::{CheckKind, CheckSpec, MetricRange, SignalQuery, SignalState};
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{json, Value as Json};

use super::args::schema_of;
use super::{Tool, ToolContext, ToolFuture, ToolResult};

pub(super) fn tools() -> Vec<Box<dyn Tool>> {
    vec![
        Box::new(ListSignals),
        Box::new(GetSignal),
        Box::new(QueryMetrics),
        Box::new(HealthSummary),
        Box::new(AddCheck),
        Box::new(VerifySignal),
    ]
}

/// How long `verify_signal` may wait, at most, and how often it looks again.
const VERIFY_MAX_S: u64 = 900;
const VERIFY_EVERY_S: u64 = 10;

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct VerifyArgs {
    /// The signal the fix should clear (default: the one this task investigates).
    id: Option<String>,
    /// How long to wait for it to clear, in seconds (10–900; default 120).
    #[schemars(range(min = 10, max = 900))]
    within_secs: Option<u64>,
}

struct VerifySignal;

impl Tool for VerifySignal {
    fn name(&self) -> &'static str {
        "verify_signal"
    }

    fn description(&self) -> &'static str {
        "The verify step of a fix: observes the signal's entity again now and every 10 s until the signal is          resolved or `within_secs` pass. Succeeds only when it cleared; otherwise the error says it is still open          — then the fix did not work and the task must not claim success."
    }

    fn parameters(&self) -> Json {
        schema_of::<VerifyArgs>()
    }

    fn is_read_only(&self, _args: &Json) -> bool {
        false
    }

    fn call<'a>(&'a self, ctx: &'a ToolContext<'a>, args: Json) -> ToolFuture<'a> {
        Box::pin(async move {
            let a: VerifyArgs = parsed!(args);
            let id = match a.id {
                Some(id) => id,
                None => match engine!(ctx.engine.investigation_of(ctx.task_id).await) {
                    Some(inv) => inv.signal_id,
                    None => return ToolResult::error("verify_signal: this task investigates no signal; give its id"),
                },
            };
            let within = a.within_secs.unwrap_or(120).clamp(10, VERIFY_MAX_S);
            let observer = engine!(crate::observe::Observer::quick());
            let started = std::time::Instant::now();
            loop {
                // A fresh look, through the same probes and rules as the background cycle.
                if let Err(e) = ctx.actuator.observe_once(&observer).await {
                    tracing::warn!("verify_signal: observe failed: {e}");
                }
                let s = engine!(ctx.engine.signal(&id).await);
                if s.state == SignalState::Resolved {
                    if engine!(ctx.engine.investigation_of(ctx.task_id).await).is_some_and(|i| i.signal_id == id) {
                        engine!(ctx.engine.mark_verified(ctx.task_id).await);
                    }
                    return ToolResult::ok(format!(
                        "verified: signal {id} ({}) resolved at {} after {} s of waiting",
                        s.message,
                        s.resolved_at.as_deref().unwrap_or("-"),
                        started.elapsed().as_secs()
                    ));
                }
                if started.elapsed().as_secs() >= within {
                    return ToolResult::error(format!(
                        "not verified: signal {id} is still {} after {within} s — \"{}\" (last seen {}). The fix did \
                         not clear it: say so; do not report success.",
                        s.state, s.message, s.last_seen_at
                    ));
                }
                tokio::select! {
                    () = ctx.cancel.cancelled() => return ToolResult::error("verify_signal: cancelled"),
                    () = tokio::time::sleep(std::time::Duration::from_secs(VERIFY_EVERY_S)) => {}
                }
            }
        })
    }
}

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct ListArgs {
    /// `open`, `acked`, `muted` or `resolved` (default: everything not resolved).
    state: Option<SignalState>,
    /// `info`, `warning` or `critical`.
    severity: Option<Severity>,
    /// Only the signals of this entity (`lxc:caddy`).
    entity: Option<String>,
}

struct ListSignals;

impl Tool for ListSignals {
    fn name(&self) -> &'static str {
        "list_signals"
    }

    fn description(&self) -> &'static str {
        "Signals Observe raised (down, disk, cpu, memory, failed units, checks …), worst first: one line each \
         with id, severity, state, entity, message, how often it fired, since when, and whether something it \
         runs on explains it (suppressed by) or a plan is changing it (maintenance)."
    }

    fn parameters(&self) -> Json {
        schema_of::<ListArgs>()
    }

    fn is_read_only(&self, _args: &Json) -> bool {
        true
    }

    fn call<'a>(&'a self, ctx: &'a ToolContext<'a>, args: Json) -> ToolFuture<'a> {
        Box::pin(async move {
            let a: ListArgs = parsed!(args);
            let q = SignalQuery { state: a.state, severity: a.severity, entity: a.entity, limit: Some(50) };
            let list = engine!(ctx.engine.list_signals(&q).await);
            let c = list.counts;
            let mut text = format!(
                "{} signal(s); open: {} critical, {} warning; {} acked, {} muted\n",
                list.signals.len(),
                c.critical,
                c.warning,
                c.acked,
                c.muted
            );
            for s in &list.signals {
                let mut marks = Vec::new();
                if let Some(by) = &s.suppressed_by {
                    marks.push(format!("suppressed by {by}"));
                }
                if let Some(t) = &s.maintenance {
                    marks.push(format!("maintenance by task {t}"));
                }
                if s.flapping {
                    marks.push("flapping".into());
                }
                text.push_str(&format!(
                    "{} {} {} {}: {} (×{}, since {}){}\n",
                    s.id,
                    s.severity,
                    s.state,
                    s.entity.as_deref().unwrap_or("-"),
                    s.message,
                    s.occurrences,
                    s.raised_at,
                    if marks.is_empty() { String::new() } else { format!(" [{}]", marks.join("; ")) }
                ));
            }
            ToolResult::ok(text)
        })
    }
}

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct IdArgs {
    /// The signal's id (from list_signals).
    id: String,
}

struct GetSignal;

impl Tool for GetSignal {
    fn name(&self) -> &'static str {
        "get_signal"
    }

    fn description(&self) -> &'static str {
        "One signal in full: its rule, value, occurrences, times (raised, last seen, acknowledged with the \
         operator's reason, muted until, resolved and how long it lasted) and what it affects."
    }

    fn parameters(&self) -> Json {
        schema_of::<IdArgs>()
    }

    fn is_read_only(&self, _args: &Json) -> bool {
        true
    }

    fn call<'a>(&'a self, ctx: &'a ToolContext<'a>, args: Json) -> ToolFuture<'a> {
        Box::pin(async move {
            let a: IdArgs = parsed!(args);
            ToolResult::json(&engine!(ctx.engine.signal(&a.id).await))
        })
    }
}

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct MetricArgs {
    /// The entity (`host:pve1`, `lxc:caddy`).
    slug: String,
    /// One metric (`cpu_percent`, `memory_percent`, `disk_percent`, `up`, `load1`, `failed_units`, `net_in` …);
    /// without it, every metric of the entity.
    metric: Option<String>,
    /// `1h`, `24h` or `30d` (default `1h`).
    range: Option<MetricRange>,
}

struct QueryMetrics;

/// At most this many points of a series are shown (evenly picked), with its summary.
const POINTS_SHOWN: usize = 12;

impl Tool for QueryMetrics {
    fn name(&self) -> &'static str {
        "query_metrics"
    }

    fn description(&self) -> &'static str {
        "An entity's metrics over 1h, 24h or 30d, summarised: per series the last value, min, average, max and \
         a dozen points across the range (time as seconds since the epoch, value)."
    }

    fn parameters(&self) -> Json {
        schema_of::<MetricArgs>()
    }

    fn is_read_only(&self, _args: &Json) -> bool {
        true
    }

    fn call<'a>(&'a self, ctx: &'a ToolContext<'a>, args: Json) -> ToolFuture<'a> {
        Box::pin(async move {
            let a: MetricArgs = parsed!(args);
            let range = a.range.unwrap_or(MetricRange::Hour);
            let all = engine!(ctx.engine.query_metrics(&a.slug, a.metric.as_deref(), range).await);
            if all.is_empty() {
                return ToolResult::ok(format!("{}: no metrics yet (Observe has not read it)", a.slug));
            }
            let round = |v: Option<f64>| v.map(|v| (v * 100.0).round() / 100.0);
            let series: Vec<Json> = all
                .iter()
                .map(|m| {
                    let step = m.points.len().div_ceil(POINTS_SHOWN).max(1);
                    let points: Vec<Json> =
                        m.points.iter().step_by(step).map(|p| json!([p.at, round(Some(p.avg))])).collect();
                    json!({"metric": m.metric, "unit": m.unit, "tier": m.tier, "samples": m.points.len(),
                           "last": round(m.last), "min": round(m.min), "avg": round(m.avg), "max": round(m.max),
                           "points": points})
                })
                .collect();
            ToolResult::json(&json!({"entity": a.slug, "range": range, "series": series}))
        })
    }
}

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct NoArgs {}

struct HealthSummary;

impl Tool for HealthSummary {
    fn name(&self) -> &'static str {
        "get_health_summary"
    }

    fn description(&self) -> &'static str {
        "The homelab at a glance: per entity type how many are ok, degraded, down, unknown or stale, and the \
         open signal counts."
    }

    fn parameters(&self) -> Json {
        schema_of::<NoArgs>()
    }

    fn is_read_only(&self, _args: &Json) -> bool {
        true
    }

    fn call<'a>(&'a self, ctx: &'a ToolContext<'a>, args: Json) -> ToolFuture<'a> {
        Box::pin(async move {
            let _: NoArgs = parsed!(args);
            ToolResult::json(&engine!(ctx.engine.health_summary().await))
        })
    }
}

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct AddCheckArgs {
    /// The entity to watch (`lxc:caddy`).
    entity: String,
    /// The check's name on it (`caddy`, `https`).
    name: String,
    /// What to check: `{"kind": "service", "unit": "caddy"}`, `{"kind": "tcp", "address": "10.0.0.5",
    /// "port": 443}`, `{"kind": "http", "url": "http://10.0.0.5/", "expect_status": 200}`,
    /// `{"kind": "dns", "name": "nas.lan", "expect": null}` or `{"kind": "certificate", "url": "https://…"}`.
    check: CheckKind,
    /// Seconds between runs (30 to 86400, default 60).
    #[schemars(range(min = 30, max = 86400))]
    interval_s: Option<u32>,
}

struct AddCheck;

impl Tool for AddCheck {
    fn name(&self) -> &'static str {
        "add_check"
    }

    fn description(&self) -> &'static str {
        "Watch something you deployed or fixed: a service active, a port open, a URL answering, a name \
         resolving, a certificate valid. Make it a step of your plan: it is added only while the task's plan \
         is approved. A failing check becomes a signal on the entity."
    }

    fn parameters(&self) -> Json {
        schema_of::<AddCheckArgs>()
    }

    fn is_read_only(&self, _args: &Json) -> bool {
        false
    }

    fn call<'a>(&'a self, ctx: &'a ToolContext<'a>, args: Json) -> ToolFuture<'a> {
        Box::pin(async move {
            let a: AddCheckArgs = parsed!(args);
            // What Oikos watches changes only with the operator's assent: the plan's window.
            let approved = {
                let mut conn = engine!(ctx.engine.store().pool().acquire().await.map_err(crate::Error::from));
                let now = ctx.engine.clock().now();
                engine!(crate::actuate::db::windows::open_ids(&mut conn, Some(ctx.task_id), &now).await)
            };
            if approved.is_empty() {
                return ToolResult::error(
                    "add_check changes what Oikos watches: propose it as a step of your plan; it can be added once \
                     the operator approved the plan",
                );
            }
            let spec = CheckSpec { entity: a.entity, name: a.name, kind: a.check, interval_s: a.interval_s };
            let check = engine!(ctx.engine.add_check(&spec).await);
            ToolResult::ok(format!(
                "check {} added on {} ({}, every {} s): {}",
                check.name,
                check.entity,
                check.kind.label(),
                check.interval_s,
                check.command
            ))
        })
    }
}
