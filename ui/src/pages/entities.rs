//! The homelab graph: the entity list beside the selected entity (a child route), or the demo
//! import while the graph is empty.

use leptos::prelude::*;
use leptos_router::components::Outlet;
use nomos_types::{IpcError, StoreInfo};

use crate::components::{EmptyGraph, EntityList};

#[component]
pub fn EntitiesPage(store: Signal<Option<Result<StoreInfo, IpcError>>>) -> impl IntoView {
    // Switches only when the graph becomes empty or not, not on every refresh.
    let empty = Memo::new(move |_| matches!(store.get(), Some(Ok(info)) if info.entities == 0));
    move || {
        if empty.get() {
            view! { <EmptyGraph /> }.into_any()
        } else {
            view! {
                <div class="explorer">
                    <aside class="list-pane" aria-label="Entities">
                        <EntityList />
                    </aside>
                    <section class="detail-pane">
                        <Outlet />
                    </section>
                </div>
            }
            .into_any()
        }
    }
}

/// The detail pane while no entity is open.
#[component]
pub fn NoSelection() -> impl IntoView {
    view! {
        <div class="centered muted" data-testid="no-selection">
            "Select an entity to see its attributes, relations and blast radius."
        </div>
    }
}
