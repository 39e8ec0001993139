//! A host's key shown before it is trusted: its fingerprint, where to compare it on the host, and
//! *Trust this key*, which trusts exactly the fingerprint shown (the host must still present it).

use leptos::prelude::*;
use leptos::task::spawn_local;

use super::Outcome;
use crate::discovery_view::COMPARE_ON_HOST;
use crate::ipc;

/// `outcome` (kept by the caller, which shows it) says how trusting went; the button goes once
/// the key is trusted.
#[component]
pub fn KeyToCompare(host: String, fingerprint: String, outcome: Outcome) -> impl IntoView {
    let busy = RwSignal::new(false);
    let (h, fp) = (host.clone(), fingerprint.clone());
    let trust = move |_| {
        let (host, fingerprint) = (h.clone(), fp.clone());
        busy.set(true);
        outcome.set(None);
        spawn_local(async move {
            let r = ipc::trust_host(host, Some(fingerprint)).await;
            outcome
                .try_set(Some(r.map(|k| format!("Trusted {} for {}", k.fingerprint, k.host)).map_err(|e| e.message)));
            busy.try_set(false);
        });
    };
    let trusted = move || matches!(outcome.get(), Some(Ok(_)));
    view! {
        <div class="key-check" data-testid="key-to-compare">
            <p>
                {host.clone()} " presents " <code class="fingerprint" data-testid="fingerprint">{fingerprint}</code>
            </p>
            <p class="muted">
                "Before trusting it, compare it with what " <code>{COMPARE_ON_HOST}</code>
                " prints on the host itself."
            </p>
            <Show when=move || !trusted()>
                <button class="small" data-testid="trust-host" disabled=move || busy.get() on:click=trust.clone()>
                    "Trust this key"
                </button>
            </Show>
        </div>
    }
}
