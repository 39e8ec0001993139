//! The first window: the homelab graph. An entity list with a filter, one entity's attributes,
//! relations, knowledge and blast radius, and an import of the demo homelab when the graph is empty.
//! Everything refreshes from engine events; nothing polls.

use std::cell::Cell;
use std::rc::Rc;
use std::time::Duration;

use leptos::prelude::*;
use leptos::task::spawn_local;
use nomos_types::{
    event_kind, BlastRadius, EngineEvent, EntityListItem, EntityQuery, Explain, IpcError, IpcErrorCode, Json, Page,
    StoreInfo, TypeCount,
};

use crate::ipc;

const PAGE_SIZE: u32 = 100;
/// Typing pauses this long before the filter applies.
const FILTER_DEBOUNCE: Duration = Duration::from_millis(300);
/// An import emits an event per entity; refresh once per burst.
const REFRESH_COALESCE: Duration = Duration::from_millis(120);

/// Events after which the graph views re-read what they show.
fn touches_graph(kind: &str) -> bool {
    kind.starts_with("entity.")
        || kind.starts_with("relationship.")
        || kind.starts_with("knowledge.")
        || kind == event_kind::INVENTORY_IMPORTED
        || kind == event_kind::HEALTH_CHANGED
}

#[derive(Clone, PartialEq)]
enum Screen {
    Loading,
    Unavailable(String),
    Empty,
    Graph,
}

#[component]
pub fn App() -> impl IntoView {
    // Bumped after engine events; everything that shows engine state re-reads when it changes.
    let revision = RwSignal::new(0u64);
    let info = RwSignal::new(None::<Result<StoreInfo, IpcError>>);
    let last_event = RwSignal::new(None::<EngineEvent>);

    let scheduled = Rc::new(Cell::new(false));
    ipc::on_engine_event(move |event| {
        let relevant = touches_graph(&event.kind);
        last_event.set(Some(event));
        if relevant && !scheduled.get() {
            scheduled.set(true);
            let scheduled = scheduled.clone();
            set_timeout(
                move || {
                    scheduled.set(false);
                    revision.update(|r| *r += 1);
                },
                REFRESH_COALESCE,
            );
        }
    });

    let latest_info = Rc::new(Cell::new(0u64));
    Effect::new(move |_| {
        revision.track();
        let n = latest_info.get() + 1;
        latest_info.set(n);
        let latest_info = latest_info.clone();
        spawn_local(async move {
            let result = ipc::store_info().await;
            if latest_info.get() != n {
                return;
            }
            match result {
                // A passing error (the database busy under a long import) must not replace a working
                // view with "could not be opened"; only a store that never opened does that.
                Err(e) if e.code != IpcErrorCode::StoreUnavailable && matches!(info.get_untracked(), Some(Ok(_))) => {
                    web_sys::console::warn_1(&format!("store_info: {}", e.message).into());
                }
                result => info.set(Some(result)),
            }
        });
    });

    let screen = Memo::new(move |_| match info.get() {
        None => Screen::Loading,
        Some(Err(e)) => Screen::Unavailable(e.message),
        Some(Ok(i)) if i.entities == 0 => Screen::Empty,
        Some(Ok(_)) => Screen::Graph,
    });

    view! {
        <div class="shell">
            <header class="topbar">
                <div class="brand">
                    <img src="icon.png" alt="" class="logo" />
                    <span>"Oikos"</span>
                </div>
                <div class="store muted" data-testid="store-info">
                    {move || {
                        info.get()
                            .and_then(Result::ok)
                            .map(|i| format!("{} entities · {}", i.entities, i.path))
                    }}
                </div>
                <div class="live" title="Latest engine event">
                    <span class="pulse"></span>
                    {move || {
                        last_event.get().map(|e| format!("#{} {}", e.id, e.kind)).unwrap_or_else(|| "live".into())
                    }}
                </div>
            </header>
            <main class="content">
                {move || match screen.get() {
                    Screen::Loading => view! { <div class="centered muted">"Opening the database…"</div> }.into_any(),
                    Screen::Unavailable(message) => view! { <Unavailable message=message /> }.into_any(),
                    Screen::Empty => view! { <EmptyState /> }.into_any(),
                    Screen::Graph => view! { <Explorer revision=revision /> }.into_any(),
                }}
            </main>
        </div>
    }
}

#[component]
fn Unavailable(message: String) -> impl IntoView {
    view! {
        <section class="empty" role="alert">
            <h1>"The database could not be opened"</h1>
            <p class="error">{message}</p>
            <p class="muted">
                "Start Oikos with " <code>"--db PATH"</code> " or set " <code>"OIKOS_DB"</code>
                " to use another database file."
            </p>
        </section>
    }
}

#[component]
fn EmptyState() -> impl IntoView {
    let busy = RwSignal::new(false);
    let error = RwSignal::new(None::<String>);
    let import = move |_| {
        busy.set(true);
        error.set(None);
        spawn_local(async move {
            // On success the engine's events switch the window to the graph.
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

#[component]
fn Explorer(revision: RwSignal<u64>) -> impl IntoView {
    let typed = RwSignal::new(String::new());
    let filter = RwSignal::new(String::new());
    let entity_type = RwSignal::new(String::new());
    let offset = RwSignal::new(0u32);
    let page = RwSignal::new(None::<Result<Page<EntityListItem>, IpcError>>);
    let types = RwSignal::new(Vec::<TypeCount>::new());
    let selected = RwSignal::new(None::<String>);

    let on_input = move |ev| {
        let value = event_target_value(&ev);
        typed.set(value.clone());
        set_timeout(
            move || {
                // Apply only if nothing was typed since.
                if typed.try_get_untracked().as_deref() == Some(value.as_str()) {
                    filter.try_set(value);
                    offset.try_set(0);
                }
            },
            FILTER_DEBOUNCE,
        );
    };

    // Responses can arrive out of order while typing; only the newest request may write.
    let latest = Rc::new(Cell::new(0u64));
    Effect::new(move |_| {
        revision.track();
        let query = EntityQuery {
            entity_type: Some(entity_type.get()).filter(|t| !t.is_empty()),
            text: Some(filter.get()).filter(|t| !t.trim().is_empty()),
            health: None,
            limit: Some(PAGE_SIZE),
            offset: offset.get(),
        };
        let n = latest.get() + 1;
        latest.set(n);
        let latest = latest.clone();
        spawn_local(async move {
            let result = ipc::list_entities(query).await;
            if latest.get() == n {
                page.try_set(Some(result));
            }
        });
    });
    // The type counts change only with the data, not with the filter.
    Effect::new(move |_| {
        revision.track();
        spawn_local(async move {
            if let Ok(t) = ipc::entity_types().await {
                types.try_set(t);
            }
        });
    });

    view! {
        <div class="explorer">
            <aside class="list-pane">
                <div class="filters">
                    <input
                        type="search"
                        placeholder="Filter by name or slug"
                        aria-label="Filter entities"
                        data-testid="entity-filter"
                        prop:value=move || typed.get()
                        on:input=on_input
                    />
                    <select
                        aria-label="Entity type"
                        data-testid="type-filter"
                        prop:value=move || entity_type.get()
                        on:change=move |ev| {
                            entity_type.set(event_target_value(&ev));
                            offset.set(0);
                        }
                    >
                        <option value="">"All types"</option>
                        {move || {
                            types
                                .get()
                                .into_iter()
                                .map(|t| {
                                    let label = format!("{} ({})", t.entity_type, t.count);
                                    let this = t.entity_type.clone();
                                    // Bound per option: re-rendered options keep showing the filter in use.
                                    let selected = move || entity_type.get() == this;
                                    view! { <option value=t.entity_type selected=selected>{label}</option> }
                                })
                                .collect_view()
                        }}
                    </select>
                </div>
                {move || match page.get() {
                    None => view! { <p class="muted pad">"Loading…"</p> }.into_any(),
                    Some(Err(e)) => view! { <p class="error pad" role="alert">{e.message}</p> }.into_any(),
                    Some(Ok(p)) => view! { <EntityList page=p selected=selected offset=offset /> }.into_any(),
                }}
            </aside>
            <section class="detail-pane">
                {move || match selected.get() {
                    None => {
                        view! {
                            <div class="centered muted">
                                "Select an entity to see its attributes, relations and blast radius."
                            </div>
                        }
                            .into_any()
                    }
                    Some(slug) => view! { <EntityDetail slug=slug revision=revision selected=selected /> }.into_any(),
                }}
            </section>
        </div>
    }
}

#[component]
fn EntityList(page: Page<EntityListItem>, selected: RwSignal<Option<String>>, offset: RwSignal<u32>) -> impl IntoView {
    let total = page.total;
    let start = u64::from(page.offset);
    let shown = page.items.len() as u64;
    let summary = if total == 0 {
        "No entities match.".to_string()
    } else if shown == 0 {
        format!("Nothing on this page ({total} entities).")
    } else if shown < total {
        format!("{}–{} of {} entities", start + 1, start + shown, total)
    } else {
        format!("{total} entities")
    };
    let has_prev = page.offset > 0;
    let has_next = start + shown < total;
    let step = page.limit;
    let rows = page
        .items
        .into_iter()
        .map(|item| {
            let slug = item.entity.slug.clone();
            let for_class = slug.clone();
            let for_click = slug.clone();
            let health = format!("dot health-{}", item.status.health);
            let health_title = format!("{} ({})", item.status.health, item.status.freshness);
            view! {
                <li>
                    <button
                        class="row"
                        data-testid="entity-row"
                        class:selected=move || selected.get().as_deref() == Some(for_class.as_str())
                        on:click=move |_| selected.set(Some(for_click.clone()))
                    >
                        <span class=health title=health_title></span>
                        <span class="slug">{slug}</span>
                        <span class="name muted">{item.entity.name}</span>
                    </button>
                </li>
            }
        })
        .collect_view();
    view! {
        <p class="count muted" data-testid="entity-count">{summary}</p>
        <ul class="rows">{rows}</ul>
        <div class="pager" class:hidden=!(has_prev || has_next)>
            <button disabled=!has_prev on:click=move |_| offset.update(|o| *o = o.saturating_sub(step))>
                "Previous"
            </button>
            <button disabled=!has_next on:click=move |_| offset.update(|o| *o += step)>
                "Next"
            </button>
        </div>
    }
}

fn show_value(v: &Json) -> String {
    match v {
        Json::String(s) => s.clone(),
        other => other.to_string(),
    }
}

#[component]
fn EntityDetail(slug: String, revision: RwSignal<u64>, selected: RwSignal<Option<String>>) -> impl IntoView {
    let explain = RwSignal::new(None::<Result<Explain, IpcError>>);
    let blast = RwSignal::new(None::<Result<BlastRadius, IpcError>>);
    let latest = Rc::new(Cell::new(0u64));
    Effect::new(move |_| {
        revision.track();
        let slug = slug.clone();
        let n = latest.get() + 1;
        latest.set(n);
        let latest = latest.clone();
        spawn_local(async move {
            let e = ipc::explain_entity(slug.clone()).await;
            if latest.get() != n {
                return;
            }
            explain.try_set(Some(e));
            let b = ipc::blast_radius(slug, None).await;
            if latest.get() == n {
                blast.try_set(Some(b));
            }
        });
    });

    let select = move |slug: String| move |_| selected.set(Some(slug.clone()));

    view! {
        <article class="detail">
            {move || match explain.get() {
                None => view! { <p class="muted">"Loading…"</p> }.into_any(),
                Some(Err(e)) => view! { <p class="error" role="alert">{e.message}</p> }.into_any(),
                Some(Ok(x)) => {
                    let attrs = match &x.entity.attributes {
                        Json::Object(m) if !m.is_empty() => {
                            m.iter()
                                .map(|(k, v)| view! { <dt>{k.clone()}</dt><dd>{show_value(v)}</dd> })
                                .collect_view()
                                .into_any()
                        }
                        _ => view! { <p class="muted">"No attributes."</p> }.into_any(),
                    };
                    let relations = if x.relations.is_empty() {
                        view! { <p class="muted">"No current relations."</p> }.into_any()
                    } else {
                        x.relations
                            .iter()
                            .map(|r| {
                                let arrow = if r.direction == nomos_types::Direction::Outgoing { "→" } else { "←" };
                                view! {
                                    <li>
                                        <span class="rel-label">{format!("{arrow} {}", r.label)}</span>
                                        <button class="link" on:click=select(r.other.slug.clone())>
                                            {r.other.slug.clone()}
                                        </button>
                                    </li>
                                }
                            })
                            .collect_view()
                            .into_any()
                    };
                    let knowledge = if x.knowledge.is_empty() {
                        view! { <p class="muted">"No notes about this yet."</p> }.into_any()
                    } else {
                        x.knowledge
                            .iter()
                            .map(|k| {
                                view! {
                                    <li>
                                        <span class="badge">{k.kind.as_str()}</span>
                                        {k.title.clone()}
                                    </li>
                                }
                            })
                            .collect_view()
                            .into_any()
                    };
                    view! {
                        <header class="detail-head">
                            <h2 data-testid="detail-title">{x.entity.slug.clone()}</h2>
                            <span class="badge">{x.entity.entity_type.clone()}</span>
                            <span class="badge outline">{x.entity.state.as_str()}</span>
                            <span class=format!("pill health-{}", x.status.health)>
                                {format!("{} · {}", x.status.health, x.status.freshness)}
                            </span>
                        </header>
                        <p class="muted">{format!("{} · updated {}", x.entity.name, x.entity.updated_at)}</p>
                        <h3>"Attributes"</h3>
                        <dl class="attrs">{attrs}</dl>
                        <h3>"Relations"</h3>
                        <ul class="relations" data-testid="relations">{relations}</ul>
                        <h3>"Knowledge"</h3>
                        <ul class="knowledge">{knowledge}</ul>
                    }
                        .into_any()
                }
            }}
            <h3>"Blast radius"</h3>
            {move || match blast.get() {
                None => view! { <p class="muted">"Computing…"</p> }.into_any(),
                Some(Err(e)) => view! { <p class="error" role="alert">{e.message}</p> }.into_any(),
                Some(Ok(b)) if b.hits.is_empty() => {
                    view! {
                        <p class="muted" data-testid="blast-radius">
                            {format!("Nothing depends on {} (within {} hops).", b.root.slug, b.depth)}
                        </p>
                    }
                        .into_any()
                }
                Some(Ok(b)) => {
                    let head = format!("Affects {} within {} hops", b.hits.len(), b.depth);
                    let hits = b
                        .hits
                        .into_iter()
                        .map(|h| {
                            let path = h
                                .path
                                .iter()
                                .map(|e| format!("{} {} {}", e.source, e.rel_type, e.target))
                                .collect::<Vec<_>>()
                                .join(" · ");
                            view! {
                                <li>
                                    <span class="depth" title="hops">{h.depth}</span>
                                    <button class="link" on:click=select(h.entity.slug.clone())>
                                        {h.entity.slug.clone()}
                                    </button>
                                    <span class="path muted">{path}</span>
                                </li>
                            }
                        })
                        .collect_view();
                    view! {
                        <div data-testid="blast-radius">
                            <p class="muted">{head}</p>
                            <ul class="blast">{hits}</ul>
                        </div>
                    }
                        .into_any()
                }
            }}
        </article>
    }
}
