//! The Observe section of Settings: how often the homelab is read, and whether warnings notify
//! too (critical signals always may; see Notifications).

use leptos::prelude::*;
use leptos::task::spawn_local;
use nomos_types::ObserveSettings;

use crate::components::answer;
use crate::ipc;

/// The intervals offered, as (seconds, label); 0 turns collection off.
const INTERVALS: [(u32, &str); 5] =
    [(10, "every 10 s"), (30, "every 30 s"), (60, "every minute"), (300, "every 5 minutes"), (0, "off")];

#[component]
pub fn ObserveSection() -> impl IntoView {
    let version = RwSignal::new(0u32);
    let stored = LocalResource::new(move || {
        version.track();
        ipc::observe_settings()
    });
    let failed = RwSignal::new(None::<String>);
    let save = move |next: ObserveSettings| {
        spawn_local(async move {
            match ipc::save_observe_settings(next).await {
                Ok(_) => failed.set(None),
                Err(e) => failed.set(Some(e.message)),
            }
            version.update(|v| *v += 1);
        });
    };
    view! {
        <section class="card" aria-labelledby="observe-title">
            <h2 id="observe-title">"Observe"</h2>
            <p class="muted">
                "How often Oikos reads the discovered clusters and hosts (read-only, through the gate)."
            </p>
            {move || {
                answer(
                    stored.get(),
                    "Loading…",
                    move |settings: ObserveSettings| {
                        let current = settings.clone();
                        view! {
                            <label>
                                "Collect "
                                <select
                                    data-testid="observe-interval"
                                    on:change=move |ev| {
                                        let secs = event_target_value(&ev).parse().unwrap_or(30);
                                        save(ObserveSettings { interval_s: secs, ..current.clone() });
                                    }
                                >
                                    {INTERVALS
                                        .into_iter()
                                        .map(|(secs, label)| {
                                            view! {
                                                <option value=secs.to_string() selected=secs == settings.interval_s>
                                                    {label}
                                                </option>
                                            }
                                        })
                                        .collect_view()}
                                </select>
                            </label>
                            {switch(&settings, save, "observe-notify-warnings",
                                "Warnings notify too (otherwise only critical signals do)",
                                |s| s.notify_warnings, |s, on| s.notify_warnings = on)}
                            {switch(&settings, save, "observe-investigate-critical",
                                "Nomos investigates new critical signals by itself",
                                |s| s.investigate_critical, |s, on| s.investigate_critical = on)}
                            {switch(&settings, save, "observe-investigate-warnings", "… and new warnings",
                                |s| s.investigate_warnings, |s, on| s.investigate_warnings = on)}
                            <p class="muted">
                                "Read-only research and a proposed plan; nothing changes until you approve it. At most 3 at \
                                 once, once an hour per problem; needs a model provider."
                            </p>
                        }
                            .into_any()
                    },
                )
            }}
            {move || failed.get().map(|e| view! { <p class="error" role="alert">{e}</p> })}
        </section>
    }
}

/// One on/off setting: a checkbox that saves the settings with `set` applied.
fn switch(
    settings: &ObserveSettings,
    save: impl Fn(ObserveSettings) + Copy + 'static,
    testid: &'static str,
    label: &'static str,
    get: fn(&ObserveSettings) -> bool,
    set: fn(&mut ObserveSettings, bool),
) -> impl IntoView {
    let base = settings.clone();
    view! {
        <label class="toggle">
            <input
                type="checkbox"
                data-testid=testid
                prop:checked=get(settings)
                on:change=move |ev| {
                    let mut next = base.clone();
                    set(&mut next, event_target_checked(&ev));
                    save(next);
                }
            />
            {label}
        </label>
    }
}
