//! The entity list: a filter on slug or name (applied when typing pauses), type (with counts) and
//! health filters, the matching entities as links to their pages, and paging. `?type=` and
//! `?health=` set the filters (the overview's fleet health links here).

use std::time::Duration;

use leptos::prelude::*;
use leptos_router::components::A;
use leptos_router::hooks::use_query_map;
use nomos_types::{EntityListItem, EntityQuery, Health, Page};

use crate::components::answer;
use crate::events::Topic;
use crate::live::use_live;
use crate::steady::steady;
use crate::{ipc, routes};

const PAGE_SIZE: u32 = 100;
/// Typing pauses this long before the filter applies.
const FILTER_DEBOUNCE: Duration = Duration::from_millis(300);

#[component]
pub fn EntityList() -> impl IntoView {
    let live = use_live();
    let typed = RwSignal::new(String::new());
    let filter = RwSignal::new(String::new());
    // A link that names a filter sets both; opening an entity (no query) keeps the filters in use.
    // Read once before the first request so a filtered link does not read the whole list first.
    let url = use_query_map();
    let (ty, h) = url.with_untracked(|q| (q.get(routes::TYPE), q.get(routes::HEALTH)));
    let entity_type = RwSignal::new(ty.unwrap_or_default());
    let health = RwSignal::new(h.unwrap_or_default());
    let offset = RwSignal::new(0u32);
    Effect::new(move |_| {
        let (ty, h) = url.with(|q| (q.get(routes::TYPE), q.get(routes::HEALTH)));
        if ty.is_some() || h.is_some() {
            entity_type.set(ty.unwrap_or_default());
            health.set(h.unwrap_or_default());
            offset.set(0);
        }
    });

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

    let query = Memo::new(move |_| EntityQuery {
        entity_type: Some(entity_type.get()).filter(|t| !t.is_empty()),
        text: Some(filter.get()).filter(|t| !t.trim().is_empty()),
        health: health.get().parse::<Health>().ok(),
        limit: Some(PAGE_SIZE),
        offset: offset.get(),
    });
    let page = steady(LocalResource::new(move || {
        live.track(Topic::Graph);
        let query = query.get();
        async move { (query.clone(), ipc::list_entities(query).await) }
    }));
    // The type counts change only with the data, not with the filter.
    let types = LocalResource::new(move || {
        live.track(Topic::Graph);
        ipc::entity_types()
    });

    view! {
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
                        .and_then(Result::ok)
                        .unwrap_or_default()
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
            <select
                aria-label="Health"
                data-testid="health-filter"
                prop:value=move || health.get()
                on:change=move |ev| {
                    health.set(event_target_value(&ev));
                    offset.set(0);
                }
            >
                <option value="">"Any health"</option>
                {Health::ALL
                    .iter()
                    .map(|h| {
                        let h = *h;
                        view! { <option value=h.as_str() selected=move || health.get() == h.as_str()>{h.as_str()}</option> }
                    })
                    .collect_view()}
            </select>
        </div>
        {move || answer(page.get(), "Loading…", |p| view! { <Rows page=p offset=offset /> }.into_any())}
    }
}

/// "12 entities", "1–100 of 230 entities", …
fn summary(page: &Page<EntityListItem>) -> String {
    let total = page.total;
    let start = u64::from(page.offset);
    let shown = page.items.len() as u64;
    if total == 0 {
        "No entities match.".to_string()
    } else if shown == 0 {
        format!("Nothing on this page ({total} entities).")
    } else if shown < total {
        format!("{}–{} of {} entities", start + 1, start + shown, total)
    } else {
        format!("{total} entities")
    }
}

#[component]
fn Rows(page: Page<EntityListItem>, offset: RwSignal<u32>) -> impl IntoView {
    let summary = summary(&page);
    let has_prev = page.offset > 0;
    let has_next = u64::from(page.offset) + (page.items.len() as u64) < page.total;
    let step = page.limit;
    let rows = page
        .items
        .into_iter()
        .map(|item| {
            let health = format!("dot health-{}", item.status.health);
            let health_title = format!("{} ({})", item.status.health, item.status.freshness);
            view! {
                <li>
                    <A href=routes::entity(&item.entity.slug) exact=true attr:class="row" attr:data-testid="entity-row">
                        <span class=health title=health_title></span>
                        <span class="slug">{item.entity.slug}</span>
                        <span class="name muted">{item.entity.name}</span>
                    </A>
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

#[cfg(test)]
mod tests {
    use super::*;

    fn page(shown: usize, total: u64, offset: u32) -> Page<EntityListItem> {
        let item: EntityListItem = serde_json::from_value(serde_json::json!({
            "id": "1", "slug": "host:a", "type": "host", "name": "a", "attributes": {}, "state": "active",
            "created_at": "t", "updated_at": "t",
            "status": {"health": "unknown", "freshness": "never", "last_check_at": null, "detail": ""}
        }))
        .unwrap();
        Page { items: vec![item; shown], total, limit: 100, offset }
    }

    #[test]
    fn the_summary_tells_the_true_total() {
        assert_eq!(summary(&page(0, 0, 0)), "No entities match.");
        assert_eq!(summary(&page(31, 31, 0)), "31 entities");
        assert_eq!(summary(&page(100, 230, 100)), "101–200 of 230 entities");
        assert_eq!(summary(&page(0, 230, 300)), "Nothing on this page (230 entities).");
    }
}
