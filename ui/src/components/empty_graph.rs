//! An empty graph: what Oikos keeps, and the import of the demo homelab.

use leptos::prelude::*;
use leptos::task::spawn_local;

use crate::ipc;

#[component]
pub fn EmptyGraph() -> impl IntoView {
    let busy = RwSignal::new(false);
    let error = RwSignal::new(None::<String>);
    let import = move |_| {
        busy.set(true);
        error.set(None);
        spawn_local(async move {
            // On success the engine's events switch the page to the graph.
            if let Err(e) = ipc::import_demo_inventory().await {
                error.try_set(Some(e.message));
            }
            busy.try_set(false);
        });
    };
    view! {
        <section class="empty">
            <h1>"Your homelab graph is empty"</h1>
            <p>
                "Oikos keeps a graph of your Proxmox hosts, containers, VMs and services and of how they depend on each other. "
                "Start with the demo homelab, or import your own inventory with "
                <code>"nomos inventory import FILE"</code> "."
            </p>
            <button class="primary" data-testid="import-demo" disabled=move || busy.get() on:click=import>
                {move || if busy.get() { "Importing…" } else { "Import demo inventory" }}
            </button>
            {move || error.get().map(|e| view! { <p class="error" role="alert">{e}</p> })}
        </section>
    }
}
