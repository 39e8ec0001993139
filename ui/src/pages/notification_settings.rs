//! The Notifications section of Settings: which kinds of desktop notification are on (kept in the
//! engine's settings, read by the shell for every event).

use leptos::prelude::*;
use leptos::task::spawn_local;
use nomos_types::NotificationSettings;

use crate::components::answer;
use crate::ipc;

/// The kinds, as (label, test id, field).
type Field = fn(&mut NotificationSettings) -> &mut bool;
const KINDS: [(&str, &str, Field); 4] = [
    ("A request waits for your approval", "notify-approvals", |s| &mut s.approvals),
    ("Nomos asks you a question", "notify-questions", |s| &mut s.questions),
    ("A task finished or failed", "notify-task-ends", |s| &mut s.task_ends),
    ("A critical signal (at most once per problem per 30 minutes)", "notify-signals", |s| &mut s.signals),
];

#[component]
pub fn NotificationsSection() -> impl IntoView {
    let version = RwSignal::new(0u32);
    let stored = LocalResource::new(move || {
        version.track();
        ipc::notification_settings()
    });
    let failed = RwSignal::new(None::<String>);
    let toggle = move |field: Field, on: bool, current: NotificationSettings| {
        let mut next = current;
        *field(&mut next) = on;
        spawn_local(async move {
            match ipc::save_notification_settings(next).await {
                Ok(_) => failed.set(None),
                Err(e) => failed.set(Some(e.message)),
            }
            version.update(|v| *v += 1);
        });
    };
    view! {
        <section class="card" aria-labelledby="notifications-title">
            <h2 id="notifications-title">"Notifications"</h2>
            <p class="muted">
                "Desktop notifications for what needs you. Whatever is off still shows in the window."
            </p>
            {move || {
                answer(
                    stored.get(),
                    "Loading…",
                    move |settings: NotificationSettings| {
                        KINDS
                            .into_iter()
                            .map(|(label, testid, field)| {
                                let mut copy = settings;
                                let on = *field(&mut copy);
                                view! {
                                    <label class="toggle">
                                        <input
                                            type="checkbox"
                                            prop:checked=on
                                            data-testid=testid
                                            on:change=move |ev| toggle(field, event_target_checked(&ev), settings)
                                        />
                                        {label}
                                    </label>
                                }
                            })
                            .collect_view()
                            .into_any()
                    },
                )
            }}
            {move || failed.get().map(|e| view! { <p class="error" role="alert">{e}</p> })}
        </section>
    }
}
