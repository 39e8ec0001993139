//! The app's own updates in the window: a banner offering a newer release ("Install and restart" /
//! "Later") and a quiet section in Settings (the version, the last check, why it failed, "Check
//! now"). The shell sends the status whenever it changes; nothing polls.

use leptos::prelude::*;
use leptos::task::spawn_local;
use nomos_types::{IpcError, UpdateStatus};

use crate::ipc;

/// The latest update status, shared by the banner and the Settings section.
#[derive(Clone, Copy)]
pub struct Updates(RwSignal<Option<UpdateStatus>>);

impl Updates {
    /// Shows the answer of a command (the status it returns), or keeps the last one when the call
    /// itself failed: the shell keeps update failures in the status.
    fn apply(self, answer: Result<UpdateStatus, IpcError>) {
        match answer {
            Ok(status) => self.0.set(Some(status)),
            Err(e) => web_sys::console::warn_1(&format!("update command failed: {}", e.message).into()),
        }
    }
}

/// Listens to the shell's update status and makes it available below (see [`UpdateBanner`],
/// [`UpdateSection`]).
pub fn provide_updates() {
    let updates = Updates(RwSignal::new(None));
    ipc::on_update_status(move |status| updates.0.set(Some(status)));
    spawn_local(async move {
        if let Ok(status) = ipc::update_status().await {
            // A status sent meanwhile is newer than this answer.
            updates.0.update(|current| {
                current.get_or_insert(status);
            });
        }
    });
    provide_context(updates);
}

/// The offer of a newer release, above every page, until it is installed or put off.
#[component]
pub fn UpdateBanner() -> impl IntoView {
    let updates = expect_context::<Updates>();
    let install = move |_| spawn_local(async move { updates.apply(ipc::install_update().await) });
    let later = move |_| spawn_local(async move { updates.apply(ipc::postpone_update().await) });
    move || {
        let status = updates.0.get()?;
        let offer = status.offer?;
        let installing = status.installing;
        let notes = offer.notes.filter(|n| !n.trim().is_empty());
        Some(view! {
            <div class="update-banner" role="status" data-testid="update-banner">
                <div class="update-text">
                    <strong data-testid="update-version">{format!("Oikos {} is available", offer.version)}</strong>
                    {notes.map(|n| view! { <p class="update-notes" data-testid="update-notes">{n}</p> })}
                </div>
                <button class="primary" data-testid="update-install" disabled=installing on:click=install>
                    {if installing { "Installing…" } else { "Install and restart" }}
                </button>
                <button class="secondary" data-testid="update-later" disabled=installing on:click=later>
                    "Later"
                </button>
            </div>
        })
    }
}

/// Settings: the version running, the last check and its outcome in one quiet line, "Check now".
#[component]
pub fn UpdateSection() -> impl IntoView {
    let updates = expect_context::<Updates>();
    let check = move |_| spawn_local(async move { updates.apply(ipc::check_for_update().await) });
    let checking = move || updates.0.get().is_some_and(|s| s.checking);
    let line = move || {
        let status = updates.0.get();
        let checked = status.as_ref().and_then(|s| s.checked_at).map(local_time);
        status_line(status.as_ref(), checked.as_deref())
    };
    view! {
        <section class="card" aria-labelledby="updates-title" data-testid="updates-section">
            <h2 id="updates-title">"Updates"</h2>
            <p class="muted" data-testid="update-line">{line}</p>
            <button class="secondary" data-testid="update-check" disabled=checking on:click=check>
                "Check now"
            </button>
        </section>
    }
}

fn local_time(unix_secs: i64) -> String {
    let date = js_sys::Date::new(&wasm_bindgen::JsValue::from_f64(unix_secs as f64 * 1000.0));
    String::from(date.to_locale_string("default", &wasm_bindgen::JsValue::UNDEFINED))
}

/// The Settings line: `checked` is the last check's time, already formatted.
fn status_line(status: Option<&UpdateStatus>, checked: Option<&str>) -> String {
    let Some(s) = status else { return "Reading the update status…".into() };
    let mut parts = vec![format!("Oikos {}", s.current_version)];
    if s.checking {
        parts.push("checking for updates…".into());
    } else if s.installing {
        parts.push("installing the update…".into());
    } else if let Some(e) = &s.last_error {
        parts.push(format!("last update check failed: {e}"));
    } else if let Some(offer) = &s.offer {
        parts.push(format!("{} is available", offer.version));
    } else if let Some(version) = &s.postponed {
        parts.push(format!("{version} put off until a newer release"));
    } else if checked.is_some() {
        parts.push("up to date".into());
    } else {
        parts.push("not checked yet".into());
    }
    if let Some(at) = checked {
        parts.push(format!("last checked {at}"));
    }
    parts.join(" · ")
}

#[cfg(test)]
mod tests {
    use nomos_types::UpdateOffer;

    use super::*;

    fn status() -> UpdateStatus {
        UpdateStatus { current_version: "0.1.0".into(), ..UpdateStatus::default() }
    }

    #[test]
    fn the_settings_line_says_what_the_last_check_found() {
        assert_eq!(status_line(None, None), "Reading the update status…");
        assert_eq!(status_line(Some(&status()), None), "Oikos 0.1.0 · not checked yet");
        assert_eq!(status_line(Some(&status()), Some("09:00")), "Oikos 0.1.0 · up to date · last checked 09:00");
        let checking = UpdateStatus { checking: true, ..status() };
        assert_eq!(status_line(Some(&checking), None), "Oikos 0.1.0 · checking for updates…");
        let offered =
            UpdateStatus { offer: Some(UpdateOffer { version: "0.2.0".into(), notes: None, date: None }), ..status() };
        assert_eq!(status_line(Some(&offered), Some("09:00")), "Oikos 0.1.0 · 0.2.0 is available · last checked 09:00");
        let later = UpdateStatus { postponed: Some("0.2.0".into()), ..status() };
        assert_eq!(
            status_line(Some(&later), Some("09:00")),
            "Oikos 0.1.0 · 0.2.0 put off until a newer release · last checked 09:00"
        );
        let failed = UpdateStatus { last_error: Some("error sending request".into()), ..offered };
        assert_eq!(
            status_line(Some(&failed), Some("09:00")),
            "Oikos 0.1.0 · last update check failed: error sending request · last checked 09:00"
        );
    }
}
