//! Every approval waiting for the operator, as cards (oldest first). Live: a request or a
//! decision anywhere (here, the CLI, chat, another window) re-reads the list. `?focus=<id>` (a
//! notification clicked) brings that card into view, focused and marked.

use leptos::prelude::*;
use leptos_router::hooks::use_query_map;
use wasm_bindgen::JsCast;

use crate::components::{answer, ApprovalCard};
use crate::events::Topic;
use crate::ipc;
use crate::keys::{movement, step, KeyTarget};
use crate::live::use_live;
use crate::routes;
use crate::steady::steady;

#[component]
pub fn ApprovalsPage() -> impl IntoView {
    let live = use_live();
    let pending = steady(LocalResource::new(move || {
        live.track(Topic::Approvals);
        async move { ((), ipc::pending_approvals().await) }
    }));
    let cards = Memo::new(move |_| {
        pending
            .get()
            .and_then(Result::ok)
            .map(|p| p.approvals.into_iter().map(|a| (a, p.now.clone())).collect::<Vec<_>>())
            .unwrap_or_default()
    });
    // The card asked for, once it is drawn (after the cards change, the next frame has it).
    // Once per request: later changes of the list leave the operator's scrolling alone.
    let query = use_query_map();
    let brought = StoredValue::new(None::<String>);
    Effect::new(move |_| {
        let focus = query.with(|q| q.get(routes::FOCUS));
        cards.track();
        let Some(id) = focus.filter(|id| brought.with_value(|b| b.as_ref() != Some(id))) else { return };
        request_animation_frame(move || {
            if focus_card(&id) {
                brought.set_value(Some(id));
            }
        });
    });
    // Changes only between loading, failed, empty and not: the cards update on their own.
    let shape = Memo::new(move |_| pending.get().map(|r| r.map(|p| p.approvals.is_empty())));
    // j/k or arrows move between cards (focused, so Tab reaches their field and buttons, and
    // Enter presses the focused button).
    let selected = RwSignal::new(None::<usize>);
    let on_key = move |ev: leptos::ev::KeyboardEvent| {
        let Some(delta) = movement(&ev.key()).filter(|_| KeyTarget::of(&ev) != KeyTarget::Field) else { return };
        ev.prevent_default();
        let index = step(selected.get_untracked(), cards.with_untracked(Vec::len), delta);
        selected.set(index);
        let card = index.and_then(|i| {
            document().query_selector(&format!("[data-testid=approval-card]:nth-of-type({})", i + 1)).ok().flatten()
        });
        if let Some(card) = card.and_then(|c| c.dyn_into::<web_sys::HtmlElement>().ok()) {
            let _ = card.focus();
        }
    };
    view! {
        <section class="page approvals" data-testid="approvals-page" on:keydown=on_key>
            <h1>"Approvals"</h1>
            {move || answer(shape.get(), "Reading the approvals…", move |empty: bool| {
                if empty {
                    return view! {
                        <p class="muted pad" data-testid="approvals-empty">
                            "Nothing waits for your approval. Requests Nomos or a command makes appear here."
                        </p>
                    }
                    .into_any();
                }
                view! {
                    // Keyed: a card being typed into stays as it is while others come and go.
                    <For
                        each=move || cards.get()
                        key=|(a, _)| a.id.clone()
                        children=|(a, now)| view! { <ApprovalCard approval=a engine_now=now /> }
                    />
                }
                .into_any()
            })}
        </section>
    }
}

/// Marks, scrolls to and focuses the card of approval `id`, unmarking any other; false while it
/// is not drawn.
fn focus_card(id: &str) -> bool {
    let doc = document();
    if let Some(marked) = doc.query_selector(".approval-card.focused").ok().flatten() {
        let _ = marked.class_list().remove_1("focused");
    }
    // Ids are the engine's (uuid-like); quotes are escaped so any id is one attribute value.
    let selector = format!("[data-approval-id=\"{}\"]", id.replace('\\', "\\\\").replace('"', "\\\""));
    let Some(card) = doc.query_selector(&selector).ok().flatten() else { return false };
    let _ = card.class_list().add_1("focused");
    card.scroll_into_view();
    if let Ok(card) = card.dyn_into::<web_sys::HtmlElement>() {
        let _ = card.focus();
    }
    true
}

/// The count of waiting approvals for the navigation, live.
#[component]
pub fn PendingCount() -> impl IntoView {
    let live = use_live();
    let pending = steady(LocalResource::new(move || {
        live.track(Topic::Approvals);
        async move { ((), ipc::pending_approvals().await) }
    }));
    move || {
        let n = pending.get().and_then(Result::ok).map_or(0, |p| p.approvals.len());
        (n > 0).then(|| view! { <span class="nav-count" data-testid="pending-count">{n}</span> })
    }
}

/// This task's waiting approvals, inline in its view: the same cards as the Approvals page, live
/// from the same events, so a card decided elsewhere (CLI, chat, the Approvals page) clears here.
#[component]
pub fn TaskApprovals(task: String) -> impl IntoView {
    let live = use_live();
    let pending = steady(LocalResource::new(move || {
        live.track(Topic::Approvals);
        async move { ((), ipc::pending_approvals().await) }
    }));
    let cards = Memo::new(move |_| {
        pending
            .get()
            .and_then(Result::ok)
            .map(|p| {
                let now = p.now.clone();
                p.approvals
                    .into_iter()
                    .filter(|a| a.task_id.as_deref() == Some(task.as_str()))
                    .map(|a| (a, now.clone()))
                    .collect::<Vec<_>>()
            })
            .unwrap_or_default()
    });
    view! {
        <For
            each=move || cards.get()
            key=|(a, _)| a.id.clone()
            children=|(a, now)| view! { <ApprovalCard approval=a engine_now=now /> }
        />
    }
}
