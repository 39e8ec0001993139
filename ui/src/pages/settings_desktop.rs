//! Settings: the desktop's life — whether Oikos starts, in the tray, when the operator logs in
//! (off unless turned on here).

use leptos::prelude::*;
use leptos::task::spawn_local;

use crate::components::answer;
use crate::ipc;

#[component]
pub fn DesktopSection() -> impl IntoView {
    let at_login = LocalResource::new(ipc::autostart);
    let failed: RwSignal<Option<String>> = RwSignal::new(None);
    let toggle = move |enabled: bool| {
        spawn_local(async move {
            match ipc::set_autostart(enabled).await {
                Ok(_) => failed.try_set(None),
                Err(e) => failed.try_set(Some(e.message)),
            };
            at_login.refetch();
        });
    };
    view! {
        <section class="card" aria-labelledby="desktop-title">
            <h2 id="desktop-title">"Desktop"</h2>
            <p class="muted">
                "Closing the window keeps Oikos in the tray; Quit in the tray menu ends it."
            </p>
            {move || {
                answer(
                    at_login.get(),
                    "Loading…",
                    |on| {
                        view! {
                            <label class="check">
                                <input
                                    type="checkbox"
                                    data-testid="autostart-toggle"
                                    prop:checked=on
                                    on:change=move |ev| toggle(event_target_checked(&ev))
                                />
                                " Start Oikos in the tray when I log in"
                            </label>
                        }
                        .into_any()
                    },
                )
            }}
            {move || failed.get().map(|e| view! { <p class="error" role="alert" data-testid="autostart-error">{e}</p> })}
        </section>
    }
}
