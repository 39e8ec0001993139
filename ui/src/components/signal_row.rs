//! One signal: severity, state, flapping, its entity, the message, how often and since when, what
//! it affects and why it is not notified (suppressed, maintenance), the task investigating it and
//! the fix seen before. With actions (the Signals and entity pages): Investigate (opens a
//! researched task and goes there), Ack with a reason, Mute for a span, Resolve; a failure is said
//! in the row. The list re-reads on the signal event the action causes.

use leptos::prelude::*;
use leptos::task::spawn_local;
use leptos_router::components::A;
use nomos_types::{Signal as SignalItem, SignalState};

use crate::clock::format_left;
use crate::observe_view::{ack_reason, affects_line, mute_seconds, CUSTOM, MUTE_SPANS};
use crate::task_feed::use_task_feed;
use crate::tasks::time::{ago, parse_ms};
use crate::{ipc, routes};

/// Which action's form is open.
#[derive(Clone, Copy, PartialEq)]
enum Open {
    None,
    Ack,
    Mute,
}

#[component]
pub fn SignalRow(signal: SignalItem, #[prop(optional)] actions: bool) -> impl IntoView {
    let now = use_task_feed().now_ms;
    let SignalItem {
        id,
        entity,
        entity_name,
        severity,
        state,
        flapping,
        message,
        occurrences,
        raised_at,
        last_seen_at,
        ack_reason: acked_because,
        acked_by,
        muted_until,
        suppressed_by,
        maintenance,
        affects,
        affects_names,
        investigation,
        seen_before,
        ..
    } = signal;
    let entity_link = entity.map(|slug| {
        let name = entity_name.filter(|n| !slug.ends_with(n.as_str()));
        view! {
            <A href=routes::entity(&slug) attr:class="link" attr:data-testid="signal-entity">{slug.clone()}</A>
            {name.map(|n| view! { <span class="muted">{n}</span> })}
        }
    });
    let when = move || {
        let n = now.get();
        let count = if occurrences > 1 { format!("×{occurrences} · ") } else { String::new() };
        format!("{count}raised {} · last seen {}", ago(n, &raised_at), ago(n, &last_seen_at))
    };
    let affects =
        affects_line(affects, &affects_names).map(|line| view! { <p class="muted signal-affects">{line}</p> });
    let suppressed = suppressed_by.map(|by| {
        view! {
            <span class="badge outline" data-testid="signal-suppressed">
                "suppressed by " <A href=routes::entity(&by) attr:class="link">{by.clone()}</A>
            </span>
        }
    });
    let maintenance = maintenance.map(|task| {
        view! {
            <span class="badge outline" data-testid="signal-maintenance">
                "in maintenance (task " <A href=routes::task(&task) attr:class="link">{task.clone()}</A> ")"
            </span>
        }
    });
    let acked = acked_because.map(|reason| {
        let by = acked_by.map(|b| format!(" by {b}")).unwrap_or_default();
        view! { <p class="muted signal-note">{format!("Acked{by}: {reason}")}</p> }
    });
    let muted = (state == SignalState::Muted).then_some(muted_until).flatten().map(|until| {
        // Counted by the webview's clock, which is the engine's on the same machine.
        let left = move || match parse_ms(&until) {
            Some(end) => format!("Muted, {} left", format_left(end - now.get())),
            None => format!("Muted until {until}"),
        };
        view! { <p class="muted signal-note" data-testid="signal-muted">{left}</p> }
    });
    // The fix that worked last time, written when a task resolved the same problem.
    let seen = seen_before.map(|note| {
        view! {
            <p class="muted signal-note" data-testid="signal-seen-before">
                "Seen before: " <A href=routes::entity(&note.knowledge) attr:class="link">{note.title.clone()}</A>
            </p>
        }
    });
    let investigating = investigation.clone().map(|task| {
        view! {
            <span class="badge outline" data-testid="signal-investigating">
                "Nomos is investigating (" <A href=routes::task(&task) attr:class="link">"task"</A> ")"
            </span>
        }
    });
    let actions = (actions && state != SignalState::Resolved)
        .then(|| view! { <SignalActions id=id.clone() state=state investigating=investigation.is_some() /> });
    view! {
        <article class=format!("signal sev-{severity}") data-testid="signal" data-signal-id=id data-state=state.as_str()>
            <header class="signal-head">
                <span class=format!("sev sev-{severity}") data-testid="signal-severity">{severity.as_str()}</span>
                <span class="badge outline" data-testid="signal-state">{state.as_str()}</span>
                {flapping.then(|| view! { <span class="badge" data-testid="signal-flapping">"flapping"</span> })}
                {entity_link}
                {suppressed}
                {maintenance}
                {investigating}
                <span class="spacer"></span>
                <span class="muted when">{when}</span>
            </header>
            <p class="signal-message" data-testid="signal-message">{message}</p>
            {affects}
            {seen}
            {acked}
            {muted}
            {actions}
        </article>
    }
}

#[component]
fn SignalActions(id: String, state: SignalState, investigating: bool) -> impl IntoView {
    let navigate = leptos_router::hooks::use_navigate();
    let open = RwSignal::new(Open::None);
    let busy = RwSignal::new(false);
    let error = RwSignal::new(None::<String>);
    let done = RwSignal::new(None::<&'static str>);
    let reason = RwSignal::new(String::new());
    let span = RwSignal::new(MUTE_SPANS[0].1.to_string());
    let hours = RwSignal::new(String::new());

    // Runs one action; the row shows what was done until the list re-reads.
    let run = move |action: Action, id: String| {
        let call = match action {
            Action::Ack => ack_reason(&reason.get_untracked()).map(Call::Ack).map_err(str::to_string),
            Action::Mute => mute_seconds(&span.get_untracked(), &hours.get_untracked()).map(Call::Mute),
            Action::Resolve => Ok(Call::Resolve),
        };
        let call = match call {
            Ok(call) => call,
            Err(e) => {
                error.set(Some(e));
                return;
            }
        };
        busy.set(true);
        error.set(None);
        spawn_local(async move {
            let result = match call {
                Call::Ack(reason) => ipc::ack_signal(id, reason).await.map(|_| "Acked"),
                Call::Mute(seconds) => ipc::mute_signal(id, seconds).await.map(|_| "Muted"),
                Call::Resolve => ipc::resolve_signal(id).await.map(|_| "Resolved"),
            };
            busy.try_set(false);
            match result {
                Ok(what) => {
                    done.try_set(Some(what));
                    open.try_set(Open::None);
                }
                Err(e) => {
                    error.try_set(Some(e.message));
                }
            }
        });
    };
    let button = move |label: &'static str, testid: &'static str, on: Open| {
        view! {
            <button
                class="small"
                data-testid=testid
                aria-expanded=move || (open.get() == on).to_string()
                prop:disabled=move || busy.get()
                on:click=move |_| {
                    error.set(None);
                    open.update(|o| *o = if *o == on { Open::None } else { on });
                }
            >
                {label}
            </button>
        }
    };
    // Opens a researched task on the signal and goes there (its first turn starts by itself
    // when Nomos has a provider).
    let investigate = {
        let id = id.clone();
        move |_| {
            let (id, navigate) = (id.clone(), navigate.clone());
            busy.set(true);
            error.set(None);
            spawn_local(async move {
                let result = ipc::investigate_signal(id).await;
                busy.try_set(false);
                match result {
                    Ok(inv) => navigate(&routes::task(&inv.task_id), Default::default()),
                    Err(e) => {
                        error.try_set(Some(e.message));
                    }
                }
            });
        }
    };
    let (ack_id, mute_id, resolve_id) = (id.clone(), id.clone(), id);
    let form = move || match open.get() {
        Open::None => None,
        Open::Ack => {
            let id = ack_id.clone();
            Some(
                view! {
                    <div class="signal-form">
                        <input
                            type="text"
                            placeholder="Why (kept with the signal)"
                            aria-label="Reason for the ack"
                            data-testid="signal-ack-reason"
                            prop:value=move || reason.get()
                            on:input=move |ev| reason.set(event_target_value(&ev))
                        />
                        <button
                            class="small"
                            data-testid="signal-ack-confirm"
                            prop:disabled=move || busy.get() || reason.with(|r| r.trim().is_empty())
                            on:click=move |_| run(Action::Ack, id.clone())
                        >
                            "Ack"
                        </button>
                    </div>
                }
                .into_any(),
            )
        }
        Open::Mute => {
            let id = mute_id.clone();
            Some(
                view! {
                    <div class="signal-form">
                        <select
                            aria-label="Mute for"
                            data-testid="signal-mute-span"
                            on:change=move |ev| span.set(event_target_value(&ev))
                        >
                            {MUTE_SPANS.map(|(label, secs)| {
                                let value = secs.to_string();
                                let selected = span.get_untracked() == value;
                                view! { <option value=value selected=selected>{label}</option> }
                            })}
                            <option value=CUSTOM>"hours…"</option>
                        </select>
                        {move || (span.get() == CUSTOM).then(|| view! {
                            <input
                                type="text"
                                inputmode="decimal"
                                placeholder="hours"
                                aria-label="Mute for how many hours"
                                data-testid="signal-mute-hours"
                                prop:value=move || hours.get()
                                on:input=move |ev| hours.set(event_target_value(&ev))
                            />
                        })}
                        <button
                            class="small"
                            data-testid="signal-mute-confirm"
                            prop:disabled=move || busy.get()
                            on:click=move |_| run(Action::Mute, id.clone())
                        >
                            "Mute"
                        </button>
                    </div>
                }
                .into_any(),
            )
        }
    };
    view! {
        <footer class="signal-actions">
            {move || match done.get() {
                Some(what) => view! { <span class="muted" data-testid="signal-done">{what}</span> }.into_any(),
                None => view! {
                    {(!investigating).then(|| view! {
                        <button
                            class="small"
                            data-testid="signal-investigate"
                            title="Nomos researches it read-only and proposes one plan"
                            prop:disabled=move || busy.get()
                            on:click=investigate.clone()
                        >
                            "Investigate"
                        </button>
                    })}
                    {(state == SignalState::Open).then(|| button("Ack…", "signal-ack", Open::Ack))}
                    {button("Mute…", "signal-mute", Open::Mute)}
                    <button
                        class="small"
                        data-testid="signal-resolve"
                        prop:disabled=move || busy.get()
                        on:click={
                            let id = resolve_id.clone();
                            move |_| run(Action::Resolve, id.clone())
                        }
                    >
                        "Resolve"
                    </button>
                }
                .into_any(),
            }}
        </footer>
        {form}
        {move || error.get().map(|e| view! { <p class="error" role="alert" data-testid="signal-error">{e}</p> })}
    }
}

#[derive(Clone, Copy)]
enum Action {
    Ack,
    Mute,
    Resolve,
}

enum Call {
    Ack(String),
    Mute(u64),
    Resolve,
}
