//! What needs the operator now (`/overview`): waiting approvals, open critical and warning
//! signals, running tasks, fleet health by entity type (each number opens the entity list
//! filtered), a sparkline per host and the engine's events as they arrive. Live: signal, approval,
//! task and graph events re-read it.

use leptos::prelude::*;
use leptos_router::components::A;
use nomos_types::observe::{HostSparkline, TypeHealth};
use nomos_types::{Health, Overview};

use crate::components::{answer, Sparkline};
use crate::events::Topic;
use crate::live::use_live;
use crate::pages::signals::SignalList;
use crate::steady::steady;
use crate::task_feed::use_task_feed;
use crate::tasks::time::ago;
use crate::{ipc, routes};

#[component]
pub fn OverviewPage() -> impl IntoView {
    let live = use_live();
    let overview = steady(LocalResource::new(move || {
        live.track(Topic::Signals);
        live.track(Topic::Approvals);
        live.track(Topic::Tasks);
        live.track(Topic::Graph);
        async move { ((), ipc::overview().await) }
    }));
    let signals = Signal::derive(move || overview.get().and_then(Result::ok).map(|o| o.signals).unwrap_or_default());
    view! {
        <section class="page overview" data-testid="overview-page">
            <h1>"Overview"</h1>
            {move || answer(overview.get(), "Reading the overview…", move |o: Overview| {
                view! {
                    <NeedsYou overview=o.clone() />
                    <h2>"Open signals"</h2>
                    {if o.signals.is_empty() {
                        view! { <p class="muted" data-testid="overview-no-signals">"No open critical or warning signals."</p> }.into_any()
                    } else {
                        view! {
                            <SignalList signals=signals />
                            <A href=routes::SIGNALS attr:class="link">"All signals →"</A>
                        }
                        .into_any()
                    }}
                    <h2>"Fleet health"</h2>
                    <FleetHealth types=o.health.types />
                    <h2>"Hosts"</h2>
                    <Hosts hosts=o.hosts />
                }
                .into_any()
            })}
            <h2>"Live events"</h2>
            <EventFeed />
        </section>
    }
}

/// Approvals waiting, critical signals, running tasks and when collection last ran.
#[component]
fn NeedsYou(overview: Overview) -> impl IntoView {
    let now = use_task_feed().now_ms;
    let Overview { pending_approvals, running_tasks, health, last_cycle_at, .. } = overview;
    let cycle = move || match &last_cycle_at {
        Some(at) => format!("Last collection {}", ago(now.get(), at)),
        None => "Nothing collected yet.".to_string(),
    };
    let (approvals_hot, critical_hot) = (pending_approvals > 0, health.counts.critical > 0);
    view! {
        <div class="tiles" data-testid="needs-you">
            <A href=routes::APPROVALS attr:class="tile" attr:data-testid="overview-approvals">
                <strong class:hot=approvals_hot>{pending_approvals}</strong>
                <span class="muted">"approvals waiting"</span>
            </A>
            <A href=routes::SIGNALS attr:class="tile" attr:data-testid="overview-critical">
                <strong class:hot=critical_hot>{health.counts.critical}</strong>
                <span class="muted">{format!("critical · {} warning", health.counts.warning)}</span>
            </A>
            <A href=routes::TASKS attr:class="tile" attr:data-testid="overview-running">
                <strong>{running_tasks}</strong>
                <span class="muted">"tasks running"</span>
            </A>
        </div>
        <p class="muted" data-testid="overview-cycle">{cycle}</p>
    }
}

/// One row per entity type; every number opens the entity list of that type and health. The
/// list cannot filter by freshness, so the stale number opens the whole type.
#[component]
fn FleetHealth(types: Vec<TypeHealth>) -> impl IntoView {
    if types.is_empty() {
        return view! { <p class="muted">"No entities yet."</p> }.into_any();
    }
    let cell = |entity_type: &str, n: i64, health: Option<Health>, class: &'static str| {
        let href = routes::entities_filtered(entity_type, health);
        view! {
            <td class=class>
                {if n > 0 {
                    view! { <A href=href attr:class="link">{n}</A> }.into_any()
                } else {
                    view! { <span class="muted">"0"</span> }.into_any()
                }}
            </td>
        }
    };
    let rows = types
        .into_iter()
        .map(|t| {
            let ty = t.entity_type.as_str();
            let (all, label, data_type) = (routes::entities_filtered(ty, None), ty.to_string(), ty.to_string());
            view! {
                <tr data-testid="fleet-row" data-type=data_type>
                    <td><A href=all attr:class="link">{label}</A></td>
                    {cell(ty, t.ok, Some(Health::Healthy), "n")}
                    {cell(ty, t.degraded, Some(Health::Degraded), "n health-degraded")}
                    {cell(ty, t.down, Some(Health::Down), "n health-down")}
                    {cell(ty, t.unknown, Some(Health::Unknown), "n")}
                    {cell(ty, t.stale, None, "n")}
                </tr>
            }
        })
        .collect_view();
    view! {
        <table class="ledger fleet" data-testid="fleet-health">
            <thead><tr><th>"Type"</th><th>"ok"</th><th>"degraded"</th><th>"down"</th><th>"unknown"</th><th>"stale"</th></tr></thead>
            <tbody>{rows}</tbody>
        </table>
    }
    .into_any()
}

#[component]
fn Hosts(hosts: Vec<HostSparkline>) -> impl IntoView {
    if hosts.is_empty() {
        return view! { <p class="muted">"No hosts observed yet."</p> }.into_any();
    }
    let rows = hosts
        .into_iter()
        .map(|h| {
            view! {
                <li class="host-spark" data-testid="host-sparkline">
                    <span class=format!("dot health-{}", h.health) title=h.health.as_str()></span>
                    <A href=routes::entity(&h.slug) attr:class="link">{h.name}</A>
                    <Sparkline cpu=h.cpu memory=h.memory />
                </li>
            }
        })
        .collect_view();
    view! {
        <p class="muted legend"><span class="key-cpu">"CPU"</span> " · " <span class="key-memory">"memory"</span></p>
        <ul class="host-sparks">{rows}</ul>
    }
    .into_any()
}

/// The engine's events since the window opened, newest first.
#[component]
fn EventFeed() -> impl IntoView {
    let live = use_live();
    let now = use_task_feed().now_ms;
    move || {
        let feed = live.feed();
        if feed.is_empty() {
            return view! { <p class="muted" data-testid="feed-empty">"Events appear here as they happen."</p> }
                .into_any();
        }
        let n = now.get();
        let lines = feed
            .into_iter()
            .map(|line| {
                let entity = line
                    .entity
                    .map(|slug| view! { <A href=routes::entity(&slug) attr:class="link">{slug.clone()}</A> });
                view! {
                    <li data-testid="feed-line">
                        <span class="muted when">{ago(n, &line.at)}</span>
                        <code>{line.kind}</code>
                        {entity}
                        <span>{line.text}</span>
                    </li>
                }
            })
            .collect_view();
        view! { <ul class="feed" data-testid="event-feed">{lines}</ul> }.into_any()
    }
}
