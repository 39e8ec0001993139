//! The knowledge base (`/knowledge`): search (`/` focuses it) with the matches marked, the recent
//! notes while nothing is searched, a note with the entities it documents, and writing notes.
//! Re-read when knowledge changes.

use std::time::Duration;

use leptos::ev;
use leptos::html;
use leptos::prelude::*;
use leptos::task::spawn_local;
use leptos_router::components::A;
use nomos_types::{KnowledgeDoc, KnowledgeKind};

use crate::components::answer;
use crate::events::Topic;
use crate::keys::{step as step_index, KeyTarget};
use crate::knowledge_view::{note_input, split_marked};
use crate::live::use_live;
use crate::steady::steady;
use crate::{ipc, routes};

/// Typing pauses this long before the search runs.
const SEARCH_DEBOUNCE: Duration = Duration::from_millis(250);

/// One row of the list: a search hit or a recent note.
#[derive(Debug, Clone, PartialEq)]
struct Row {
    id: String,
    title: String,
    kind: KnowledgeKind,
    updated_at: String,
    /// The snippet in pieces (marked or not), for a search hit.
    snippet: Option<Vec<(String, bool)>>,
}

/// What the right side shows.
#[derive(Debug, Clone, PartialEq)]
enum Pane {
    Note(String),
    Edit(Option<KnowledgeDoc>),
    Nothing,
}

#[component]
pub fn KnowledgePage() -> impl IntoView {
    let live = use_live();
    let typed = RwSignal::new(String::new());
    let query = RwSignal::new(String::new());
    let pane = RwSignal::new(Pane::Nothing);
    let cursor = RwSignal::new(None::<usize>);
    let search_ref = NodeRef::<html::Input>::new();

    let rows = steady(LocalResource::new(move || {
        live.track(Topic::Graph);
        let q = query.get();
        async move {
            let rows = if q.trim().is_empty() {
                ipc::recent_knowledge(None).await.map(|notes| {
                    notes
                        .into_iter()
                        .map(|n| Row {
                            id: n.id,
                            title: n.title,
                            kind: n.kind,
                            updated_at: n.updated_at,
                            snippet: None,
                        })
                        .collect::<Vec<_>>()
                })
            } else {
                ipc::search_knowledge(q.clone(), None).await.map(|hits| {
                    hits.into_iter()
                        .map(|h| Row {
                            snippet: Some(split_marked(&h.text, &h.marks)),
                            id: h.summary.id,
                            title: h.summary.title,
                            kind: h.summary.kind,
                            updated_at: h.summary.updated_at,
                        })
                        .collect()
                })
            };
            (q, rows)
        }
    }));

    let on_input = move |ev| {
        let value = event_target_value(&ev);
        typed.set(value.clone());
        set_timeout(
            move || {
                if typed.try_get_untracked().as_deref() == Some(value.as_str()) {
                    query.try_set(value);
                    cursor.try_set(None);
                }
            },
            SEARCH_DEBOUNCE,
        );
    };

    // `/` focuses the search from anywhere on the page (but not while typing elsewhere).
    let slash = window_event_listener(ev::keydown, move |e| {
        if e.key() == "/" && KeyTarget::of(&e) != KeyTarget::Field {
            if let Some(input) = search_ref.get_untracked() {
                e.prevent_default();
                let _ = input.focus();
            }
        }
    });
    on_cleanup(move || slash.remove());

    // j/k or arrows move through the list, Enter opens.
    let on_list_key = move |e: ev::KeyboardEvent| {
        let len = rows.with_untracked(|r| r.as_ref().and_then(|r| r.as_ref().ok()).map_or(0, Vec::len));
        let step = match e.key().as_str() {
            "j" | "ArrowDown" => 1,
            "k" | "ArrowUp" => -1,
            "Enter" => {
                let id = rows.with_untracked(|r| {
                    let list = r.as_ref()?.as_ref().ok()?;
                    list.get(cursor.get_untracked()?).map(|row| row.id.clone())
                });
                if let Some(id) = id {
                    pane.set(Pane::Note(id));
                }
                return;
            }
            _ => return,
        };
        e.prevent_default();
        cursor.set(step_index(cursor.get_untracked(), len, step));
    };

    let list = move |list: Vec<Row>| {
        if list.is_empty() {
            let empty = if query.with(|q| q.trim().is_empty()) {
                "No notes yet. Nomos writes what it learns here; add your own with New note."
            } else {
                "Nothing matches."
            };
            return view! { <p class="muted pad" data-testid="knowledge-empty">{empty}</p> }.into_any();
        }
        list.into_iter()
            .enumerate()
            .map(|(i, row)| {
                let id = row.id.clone();
                let open = move |_| {
                    cursor.set(Some(i));
                    pane.set(Pane::Note(id.clone()));
                };
                let snippet = row.snippet.map(|pieces| {
                    let pieces = pieces
                        .into_iter()
                        .map(|(text, marked)| {
                            if marked {
                                view! { <mark>{text}</mark> }.into_any()
                            } else {
                                view! { <span>{text}</span> }.into_any()
                            }
                        })
                        .collect_view();
                    view! { <p class="snippet" data-testid="snippet">{pieces}</p> }
                });
                let this = row.id.clone();
                view! {
                    <li>
                        <button
                            class="note-row"
                            class:cursor=move || cursor.get() == Some(i)
                            class:open=move || pane.with(|p| matches!(p, Pane::Note(n) if *n == this))
                            data-testid="knowledge-row"
                            on:click=open
                        >
                            <span class="note-title">{row.title}</span>
                            <span class="badge">{row.kind.as_str()}</span>
                            <span class="muted when">{row.updated_at}</span>
                            {snippet}
                        </button>
                    </li>
                }
            })
            .collect_view()
            .into_any()
    };

    view! {
        <div class="explorer knowledge">
            <aside class="list-pane" aria-label="Notes">
                <div class="filters">
                    <input
                        type="search"
                        node_ref=search_ref
                        placeholder="Search notes  ( / )"
                        aria-label="Search notes"
                        data-testid="knowledge-search"
                        prop:value=move || typed.get()
                        on:input=on_input
                    />
                    <button class="primary slim" data-testid="new-note" on:click=move |_| pane.set(Pane::Edit(None))>
                        "New note"
                    </button>
                </div>
                <p class="count muted">
                    {move || if query.with(|q| q.trim().is_empty()) { "Recent notes" } else { "Best matches" }}
                </p>
                <ul class="rows" tabindex="0" on:keydown=on_list_key data-testid="knowledge-list">
                    {move || answer(rows.get(), "Loading…", list)}
                </ul>
            </aside>
            <section class="detail-pane">
                {move || match pane.get() {
                    Pane::Nothing => {
                        view! { <div class="centered muted">"Open a note, or write a new one."</div> }.into_any()
                    }
                    Pane::Note(id) => view! { <NoteView id=id pane=pane /> }.into_any(),
                    Pane::Edit(doc) => view! { <NoteForm doc=doc pane=pane /> }.into_any(),
                }}
            </section>
        </div>
    }
}

/// A note's body as shown: its markdown rendered by the safe renderer (notes are untrusted text —
/// the model writes them — and raw HTML in them stays text).
fn note_body(content: String) -> AnyView {
    view! { <div class="note-body" data-testid="note-body"><crate::components::Markdown source=content /></div> }
        .into_any()
}

#[component]
fn NoteView(id: String, pane: RwSignal<Pane>) -> impl IntoView {
    let live = use_live();
    let id = StoredValue::new(id);
    let doc = steady(LocalResource::new(move || {
        live.track(Topic::Graph);
        let id = id.get_value();
        async move { (id.clone(), ipc::knowledge_note(id).await) }
    }));
    view! {
        <article class="detail" data-testid="note">
            {move || {
                answer(
                    doc.get(),
                    "Loading…",
                    |d| {
                        let edit = {
                            let d = d.clone();
                            move |_| pane.set(Pane::Edit(Some(d.clone())))
                        };
                        let about = if d.about.is_empty() {
                            view! { <p class="muted">"Not linked to any entity."</p> }.into_any()
                        } else {
                            d.about
                                .into_iter()
                                .map(|e| {
                                    view! {
                                        <A href=routes::entity(&e.slug) attr:class="link">{e.slug.to_string()}</A>
                                    }
                                })
                                .collect_view()
                                .into_any()
                        };
                        let s = d.summary;
                        view! {
                            <header class="detail-head">
                                <h2 class="note-heading" data-testid="note-title">{s.title}</h2>
                                <span class="badge">{s.kind.as_str()}</span>
                                <button class="small" data-testid="edit-note" on:click=edit>"Edit"</button>
                            </header>
                            <p class="muted">
                                {format!("by {} · updated {} · {}", s.author.as_str(), s.updated_at, s.source)}
                            </p>
                            <div class="about" data-testid="note-about">{about}</div>
                            {note_body(d.content)}
                        }
                        .into_any()
                    },
                )
            }}
        </article>
    }
}

#[component]
fn NoteForm(doc: Option<KnowledgeDoc>, pane: RwSignal<Pane>) -> impl IntoView {
    let editing = doc.is_some();
    let (kind, title, content, about) = match &doc {
        Some(d) => (
            d.summary.kind.as_str().to_string(),
            d.summary.title.clone(),
            d.content.clone(),
            d.about.iter().map(|e| e.slug.to_string()).collect::<Vec<_>>().join(", "),
        ),
        None => ("runbook".to_string(), String::new(), String::new(), String::new()),
    };
    let (kind, title, content, about) =
        (RwSignal::new(kind), RwSignal::new(title), RwSignal::new(content), RwSignal::new(about));
    let error = RwSignal::new(None::<String>);
    let busy = RwSignal::new(false);
    let save = move |e: ev::SubmitEvent| {
        e.prevent_default();
        match note_input(&kind.get(), &title.get(), &content.get(), &about.get()) {
            Err(m) => error.set(Some(m)),
            Ok(input) => {
                error.set(None);
                busy.set(true);
                spawn_local(async move {
                    match ipc::save_note(input).await {
                        Ok(up) => {
                            pane.try_set(Pane::Note(up.doc.summary.id));
                        }
                        Err(e) => {
                            error.try_set(Some(e.message));
                        }
                    }
                    busy.try_set(false);
                });
            }
        }
    };
    let cancel = move |_| pane.set(Pane::Nothing);
    view! {
        <article class="detail">
            <h2>{if editing { "Edit note" } else { "New note" }}</h2>
            <form class="form" on:submit=save novalidate data-testid="note-form">
                <label>
                    "Kind"
                    <select prop:value=move || kind.get() on:change=move |e| kind.set(event_target_value(&e)) disabled=editing>
                        {KnowledgeKind::ALL
                            .iter()
                            .map(|k| view! { <option value=k.as_str()>{k.as_str()}</option> })
                            .collect_view()}
                    </select>
                </label>
                <label>
                    "Title"
                    <input
                        type="text"
                        data-testid="note-title-input"
                        bind:value=title
                        readonly=editing
                    />
                </label>
                <label>
                    "Text"
                    <textarea
                        rows="12"
                        data-testid="note-content"
                        bind:value=content
                    ></textarea>
                </label>
                <label>
                    "About (entity slugs, e.g. lxc:caddy, host:strong)"
                    <input
                        type="text"
                        data-testid="note-about-input"
                        bind:value=about
                    />
                </label>
                {move || error.get().map(|m| view! { <p class="error" role="alert" data-testid="note-error">{m}</p> })}
                <div class="actions">
                    <button type="submit" class="primary" data-testid="save-note" disabled=move || busy.get()>
                        "Save note"
                    </button>
                    <button type="button" on:click=cancel>"Cancel"</button>
                </div>
            </form>
        </article>
    }
}
