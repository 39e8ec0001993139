//! What the loop has learned (`/learning`): execution outcomes of the last 30 days (a bar per day,
//! succeeded over failed), the capability timeline (per action: first success, successes / total,
//! how often it achieved its plan step), incidents by kind (time to resolve, repeats, resolved by
//! a task) and the knowledge tasks recalled, with how those tasks ended. Live: task, execution and
//! signal events re-read it.

use leptos::prelude::*;
use leptos_router::components::A;
use nomos_types::{DayOutcomes, LearningReport};

use crate::components::answer;
use crate::events::Topic;
use crate::live::use_live;
use crate::steady::steady;
use crate::{ipc, routes};

#[component]
pub fn LearningPage() -> impl IntoView {
    let live = use_live();
    let report = steady(LocalResource::new(move || {
        live.track(Topic::Tasks);
        live.track(Topic::Executions);
        live.track(Topic::Signals);
        async move { ((), ipc::learning_report().await) }
    }));
    view! {
        <section class="page learning" data-testid="learning-page">
            <h1>"Learning"</h1>
            {move || answer(report.get(), "Reading what was learned…", |r: LearningReport| {
                view! {
                    <h2>"Execution outcomes — last 30 days"</h2>
                    <p class="muted">"Every gated action by the day it ran: succeeded, or failed (including a step it did not achieve)."</p>
                    <OutcomesChart days=r.outcomes.clone() />
                    <h2>"Capabilities"</h2>
                    <Capabilities report=r.clone() />
                    <h2>"Incidents"</h2>
                    <Incidents report=r.clone() />
                    <h2>"Knowledge recalled"</h2>
                    <Recalls report=r />
                }
                .into_any()
            })}
        </section>
    }
}

/// The chart's geometry: a bar per day, succeeded stacked over failed, scaled to the busiest day.
pub fn bars(days: &[DayOutcomes], height: f64) -> Vec<(f64, f64)> {
    let top = days.iter().map(|d| d.succeeded + d.failed).max().unwrap_or(0).max(1) as f64;
    days.iter().map(|d| (d.succeeded as f64 / top * height, d.failed as f64 / top * height)).collect()
}

#[component]
fn OutcomesChart(days: Vec<DayOutcomes>) -> impl IntoView {
    const W: f64 = 600.0;
    const H: f64 = 140.0;
    let total: i64 = days.iter().map(|d| d.succeeded + d.failed).sum();
    if total == 0 {
        return view! { <p class="muted" data-testid="learning-no-outcomes">"No executions in the last 30 days yet."</p> }
            .into_any();
    }
    let step = W / days.len().max(1) as f64;
    let bars = bars(&days, H - 16.0);
    let rects = days
        .iter()
        .zip(bars)
        .enumerate()
        .map(|(i, (d, (ok, failed)))| {
            let x = i as f64 * step + 1.0;
            let w = (step - 2.0).max(1.0);
            let title = format!("{}: {} succeeded, {} failed", d.day, d.succeeded, d.failed);
            view! {
                <g>
                    <title>{title}</title>
                    <rect class="bar-ok" x=x y=H - ok width=w height=ok />
                    <rect class="bar-failed" x=x y=H - ok - failed width=w height=failed />
                </g>
            }
        })
        .collect_view();
    let first = days.first().map(|d| d.day.clone()).unwrap_or_default();
    let last = days.last().map(|d| d.day.clone()).unwrap_or_default();
    let (ok, failed) = days.iter().fold((0, 0), |(a, b), d| (a + d.succeeded, b + d.failed));
    view! {
        <figure class="chart outcomes" data-testid="learning-outcomes">
            <svg viewBox=format!("0 0 {W} {H}") role="img" aria-label=format!("{ok} succeeded, {failed} failed in 30 days")>
                {rects}
            </svg>
            <figcaption class="muted">
                <span>{first}</span>
                <span class="legend"><i class="bar-ok"></i>{format!("{ok} succeeded")}<i class="bar-failed"></i>{format!("{failed} failed")}</span>
                <span>{last}</span>
            </figcaption>
        </figure>
    }
    .into_any()
}

#[component]
fn Capabilities(report: LearningReport) -> impl IntoView {
    if report.capabilities.is_empty() {
        return view! { <p class="muted">"No executions yet."</p> }.into_any();
    }
    let rows = report
        .capabilities
        .into_iter()
        .map(|c| {
            let badge = if c.successes == 0 {
                "badge bad"
            } else if c.successes == c.total {
                "badge good"
            } else {
                "badge"
            };
            let first = c
                .first_success
                .as_deref()
                .map(|t| format!("first succeeded {}", day(t)))
                .unwrap_or_else(|| "no success yet".into());
            let judged = (c.judged > 0).then(|| format!("achieved its step {}/{}", c.achieved, c.judged));
            view! {
                <tr data-testid="learning-capability">
                    <td class="mono">{c.action}</td>
                    <td class="muted">{first}</td>
                    <td><span class=badge>{format!("{}/{}", c.successes, c.total)}</span></td>
                    <td class="muted">{judged}</td>
                </tr>
            }
        })
        .collect_view();
    view! {
        <table class="table" data-testid="learning-capabilities">
            <thead><tr><th>"Action"</th><th>"Since"</th><th>"Succeeded"</th><th>"Plan steps"</th></tr></thead>
            <tbody>{rows}</tbody>
        </table>
    }
    .into_any()
}

#[component]
fn Incidents(report: LearningReport) -> impl IntoView {
    if report.incidents.is_empty() {
        return view! { <p class="muted">"No signals yet."</p> }.into_any();
    }
    let rows = report
        .incidents
        .into_iter()
        .map(|k| {
            view! {
                <tr data-testid="learning-incident">
                    <td class="mono">{k.kind}</td>
                    <td>{k.signals}</td>
                    <td>{format!("{} ({} by a task)", k.resolved, k.by_tasks)}</td>
                    <td>{k.median_resolve_s.map(duration).unwrap_or_else(|| "—".into())}</td>
                    <td>{k.repeats}</td>
                </tr>
            }
        })
        .collect_view();
    view! {
        <table class="table" data-testid="learning-incidents">
            <thead><tr><th>"Kind"</th><th>"Signals"</th><th>"Resolved"</th><th>"Median time to resolve"</th><th>"Came back"</th></tr></thead>
            <tbody>{rows}</tbody>
        </table>
    }
    .into_any()
}

#[component]
fn Recalls(report: LearningReport) -> impl IntoView {
    if report.recalls.is_empty() {
        return view! { <p class="muted">"No task has recalled a note yet — investigations read the fix of the same problem first once one is written."</p> }
            .into_any();
    }
    let summary = format!(
        "{} of {} tasks that recalled a note and ended succeeded.",
        report.recalls_helped, report.recalls_ended
    );
    let rows = report
        .recalls
        .into_iter()
        .map(|r| {
            let outcome = r.outcome.unwrap_or_else(|| "running".into());
            view! {
                <li data-testid="learning-recall">
                    <A href=routes::entity(&r.knowledge) attr:class="link">{r.title}</A>
                    " → "
                    <A href=routes::task(&r.task_id) attr:class="link">{r.task_title}</A>
                    <span class=format!("badge outcome-{outcome}")>{outcome.clone()}</span>
                    <span class="muted">{format!("{} tool calls", r.tool_calls)}</span>
                </li>
            }
        })
        .collect_view();
    view! {
        <p class="muted" data-testid="learning-recalls-summary">{summary}</p>
        <ul class="plain-list">{rows}</ul>
    }
    .into_any()
}

/// `2026-12-02T…` → `2026-12-02`.
fn day(t: &str) -> String {
    t.chars().take(10).collect()
}

/// Seconds as the page says them: `45 s`, `12 min`, `3.5 h`, `2.0 d`.
pub fn duration(secs: i64) -> String {
    match secs {
        s if s < 120 => format!("{s} s"),
        s if s < 7200 => format!("{} min", s / 60),
        s if s < 172_800 => format!("{:.1} h", s as f64 / 3600.0),
        s => format!("{:.1} d", s as f64 / 86_400.0),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bars_scale_to_the_busiest_day_and_survive_empty_days() {
        let d = |s, f| DayOutcomes { day: "2026-12-01".into(), succeeded: s, failed: f };
        let b = bars(&[d(2, 2), d(1, 0), d(0, 0)], 100.0);
        assert_eq!(b, [(50.0, 50.0), (25.0, 0.0), (0.0, 0.0)]);
        assert_eq!(bars(&[d(0, 0)], 100.0), [(0.0, 0.0)]);
        assert!(bars(&[], 100.0).is_empty());
    }

    #[test]
    fn durations_read_naturally() {
        assert_eq!(duration(45), "45 s");
        assert_eq!(duration(720), "12 min");
        assert_eq!(duration(3 * 3600 + 1800), "3.5 h");
        assert_eq!(duration(3 * 86_400), "3.0 d");
    }
}
