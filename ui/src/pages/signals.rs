//! Observe's signals (`/signals`): filtered by state (by default everything not resolved),
//! severity and entity; a row per signal with Ack, Mute and Resolve. Live: any signal event
//! re-reads the list.

use leptos::prelude::*;
use nomos_types::observe::Severity;
use nomos_types::{Signal as SignalItem, SignalCounts, SignalState};

use crate::components::{answer, SignalRow};
use crate::events::Topic;
use crate::ipc;
use crate::live::use_live;
use crate::observe_view::signal_query;
use crate::steady::steady;

#[component]
pub fn SignalsPage() -> impl IntoView {
    let live = use_live();
    let state = RwSignal::new(String::new());
    let severity = RwSignal::new(String::new());
    let entity = RwSignal::new(String::new());
    let query = Memo::new(move |_| signal_query(&state.get(), &severity.get(), &entity.get()));
    let list = steady(LocalResource::new(move || {
        live.track(Topic::Signals);
        // A task opened on a signal, or ending, changes its "investigating" mark.
        live.track(Topic::Tasks);
        let query = query.get();
        async move { (query.clone(), ipc::list_signals(query).await) }
    }));
    let counts = move || list.get().and_then(Result::ok).map(|l| counts_line(&l.counts));
    // Changes only between loading, failed, empty and not: the rows below update on their own.
    let shape = Memo::new(move |_| list.get().map(|r| r.map(|l| l.signals.is_empty())));
    view! {
        <section class="page signals" data-testid="signals-page">
            <h1>"Signals"</h1>
            <div class="filters-row">
                <select aria-label="Filter signals by state" data-testid="signal-filter-state"
                    on:change=move |ev| state.set(event_target_value(&ev))>
                    <option value="">"Not resolved"</option>
                    {SignalState::ALL.iter().map(|s| view! { <option value=s.as_str()>{s.as_str()}</option> }).collect_view()}
                </select>
                <select aria-label="Filter signals by severity" data-testid="signal-filter-severity"
                    on:change=move |ev| severity.set(event_target_value(&ev))>
                    <option value="">"Any severity"</option>
                    {Severity::ALL.iter().rev().map(|s| view! { <option value=s.as_str()>{s.as_str()}</option> }).collect_view()}
                </select>
                <input type="search" placeholder="Entity (lxc:caddy)" aria-label="Filter signals by entity"
                    data-testid="signal-filter-entity" on:change=move |ev| entity.set(event_target_value(&ev)) />
            </div>
            <p class="muted" data-testid="signal-counts">{counts}</p>
            {move || answer(shape.get(), "Reading signals…", move |empty: bool| {
                if empty {
                    return view! { <p class="muted" data-testid="signals-empty">"No signals match."</p> }.into_any();
                }
                view! { <SignalList signals=Signal::derive(move || list.get().and_then(Result::ok).map(|l| l.signals).unwrap_or_default()) actions=true /> }
                    .into_any()
            })}
        </section>
    }
}

/// Rows of signals, keyed so a row being typed into stays while others change; a row is rebuilt
/// when its own signal changes.
#[component]
pub fn SignalList(signals: Signal<Vec<SignalItem>>, #[prop(optional)] actions: bool) -> impl IntoView {
    view! {
        <div class="signal-list">
            <For
                each=move || signals.get()
                key=row_key
                children=move |s| view! { <SignalRow signal=s actions=actions /> }
            />
        </div>
    }
}

/// What a row shows that can change: a signal whose key is unchanged keeps its row (and what is
/// typed into it), any change rebuilds it.
fn row_key(s: &SignalItem) -> String {
    format!(
        "{}|{}|{}|{}|{}|{}|{:?}|{:?}|{:?}|{:?}|{}|{}",
        s.id,
        s.state,
        s.severity,
        s.last_seen_at,
        s.occurrences,
        s.flapping,
        s.suppressed_by,
        s.maintenance,
        s.muted_until,
        s.acked_at,
        s.affects,
        s.message
    )
}

/// "2 critical · 3 warning · 1 acked · 1 suppressed": the open signals counted.
fn counts_line(c: &SignalCounts) -> String {
    let parts: Vec<String> = [
        (c.critical, "critical"),
        (c.warning, "warning"),
        (c.acked, "acked"),
        (c.muted, "muted"),
        (c.suppressed, "suppressed"),
    ]
    .iter()
    .filter(|(n, _)| *n > 0)
    .map(|(n, what)| format!("{n} {what}"))
    .collect();
    if parts.is_empty() {
        "Nothing open.".into()
    } else {
        parts.join(" · ")
    }
}

/// Open critical signals for the navigation, live (hidden at zero).
#[component]
pub fn CriticalCount() -> impl IntoView {
    let live = use_live();
    let summary = steady(LocalResource::new(move || {
        live.track(Topic::Signals);
        async move { ((), ipc::health_summary().await) }
    }));
    move || {
        let n = summary.get().and_then(Result::ok).map_or(0, |s| s.counts.critical);
        (n > 0).then(|| view! { <span class="nav-count critical" data-testid="critical-count">{n}</span> })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_name_only_what_is_there() {
        assert_eq!(counts_line(&SignalCounts::default()), "Nothing open.");
        let c = SignalCounts { critical: 2, warning: 0, acked: 1, muted: 0, suppressed: 3 };
        assert_eq!(counts_line(&c), "2 critical · 1 acked · 3 suppressed");
    }
}
