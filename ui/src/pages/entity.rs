//! One entity (`/entities/:slug`): what is known about it, its health, open signals, metric charts,
//! checks and blast radius, re-read when the graph or its signals change.

use leptos::prelude::*;
use leptos_router::hooks::use_params_map;
use nomos_types::{EntityStatus, MetricRange, MetricSeries, SignalQuery};

use crate::components::{answer, BlastRadiusView, EntityChecks, EntityFacts, MetricChart};
use crate::events::Topic;
use crate::live::use_live;
use crate::pages::signals::SignalList;
use crate::steady::steady;
use crate::task_feed::use_task_feed;
use crate::tasks::time::ago;
use crate::{ipc, routes};

#[component]
pub fn EntityPage() -> impl IntoView {
    let live = use_live();
    let params = use_params_map();
    let slug = Memo::new(move |_| params.read().get(routes::ENTITY_SLUG).unwrap_or_default());
    let explain = steady(LocalResource::new(move || {
        live.track(Topic::Graph);
        let slug = slug.get();
        async move { (slug.clone(), ipc::explain_entity(slug).await) }
    }));
    let blast = steady(LocalResource::new(move || {
        live.track(Topic::Graph);
        let slug = slug.get();
        async move { (slug.clone(), ipc::blast_radius(slug, None).await) }
    }));
    let signals = steady(LocalResource::new(move || {
        live.track(Topic::Signals);
        let query = SignalQuery { entity: Some(slug.get()), ..SignalQuery::default() };
        async move { (query.clone(), ipc::list_signals(query).await) }
    }));
    let signal_rows = Signal::derive(move || signals.get().and_then(Result::ok).map(|l| l.signals).unwrap_or_default());
    let no_signals = Memo::new(move |_| signals.get().map(|r| r.map(|l| l.signals.is_empty())));
    let slug = Signal::from(slug);
    view! {
        <article class="detail">
            {move || answer(explain.get(), "Loading…", |x| {
                let status = x.status.clone();
                view! {
                    <EntityFacts explain=x />
                    <h3>"Health"</h3>
                    <HealthLine status=status />
                }
                .into_any()
            })}
            <h3>"Signals"</h3>
            {move || answer(no_signals.get(), "Reading signals…", move |empty: bool| {
                if empty {
                    view! { <p class="muted" data-testid="entity-no-signals">"Nothing open."</p> }.into_any()
                } else {
                    view! { <SignalList signals=signal_rows actions=true /> }.into_any()
                }
            })}
            <h3>"Metrics"</h3>
            <Metrics slug=slug />
            <h3>"Checks"</h3>
            <EntityChecks slug=slug />
            <h3>"Blast radius"</h3>
            {move || answer(blast.get(), "Computing…", |b| view! { <BlastRadiusView blast=b /> }.into_any())}
        </article>
    }
}

/// The entity's health as the engine last judged it: how, how fresh, when and why.
#[component]
fn HealthLine(status: EntityStatus) -> impl IntoView {
    let now = use_task_feed().now_ms;
    let EntityStatus { health, freshness, last_check_at, detail } = status;
    let checked = move || {
        last_check_at
            .as_deref()
            .map_or_else(|| "never checked".to_string(), |at| format!("checked {}", ago(now.get(), at)))
    };
    view! {
        <p class="health-line" data-testid="entity-health">
            <span class=format!("pill health-{health}")>{health.as_str()}</span>
            <span class="badge outline">{freshness.as_str()}</span>
            <span class="muted">{checked}</span>
            {(!detail.is_empty()).then(|| view! { <span>{detail}</span> })}
        </p>
    }
}

/// One chart per metric of the entity over the chosen range.
#[component]
fn Metrics(slug: Signal<String>) -> impl IntoView {
    let live = use_live();
    let range = RwSignal::new(MetricRange::Hour);
    let series = steady(LocalResource::new(move || {
        // Samples arrive with each collection cycle, which announces itself through health and
        // signal events; nothing else says new points exist.
        live.track(Topic::Signals);
        live.track(Topic::Graph);
        let key = (slug.get(), range.get());
        async move { (key.clone(), ipc::query_metrics(key.0, None, key.1).await) }
    }));
    let tabs = MetricRange::ALL
        .iter()
        .map(|r| {
            let r = *r;
            view! {
                <button class="tab" role="tab" aria-selected=move || (range.get() == r).to_string()
                    data-testid="metric-range" on:click=move |_| range.set(r)>
                    {range_label(r)}
                </button>
            }
        })
        .collect_view();
    view! {
        <div class="tabs" role="tablist" aria-label="Metric range">{tabs}</div>
        {move || answer(series.get(), "Reading metrics…", |list: Vec<MetricSeries>| {
            if list.is_empty() {
                return view! { <p class="muted" data-testid="metrics-empty">"no data yet"</p> }.into_any();
            }
            let charts = list.into_iter().map(|s| view! { <MetricChart series=s /> }).collect_view();
            view! { <div class="charts">{charts}</div> }.into_any()
        })}
    }
}

fn range_label(range: MetricRange) -> &'static str {
    match range {
        MetricRange::Hour => "1 h",
        MetricRange::Day => "24 h",
        MetricRange::Month => "30 d",
    }
}
