//! What is known about one entity: its type, state and health, attributes, current relations
//! (as links to the related entities) and the knowledge about it.

use leptos::prelude::*;
use leptos_router::components::A;
use nomos_types::{Direction, Explain, Json};

use crate::routes;

fn show_value(v: &Json) -> String {
    match v {
        Json::String(s) => s.clone(),
        other => other.to_string(),
    }
}

#[component]
pub fn EntityFacts(explain: Explain) -> impl IntoView {
    let Explain { entity, status, relations, knowledge } = explain;
    let attributes = match &entity.attributes {
        Json::Object(m) if !m.is_empty() => view! {
            <dl class="attrs">
                {m.iter().map(|(k, v)| view! { <dt>{k.clone()}</dt><dd>{show_value(v)}</dd> }).collect_view()}
            </dl>
        }
        .into_any(),
        _ => view! { <p class="muted">"No attributes."</p> }.into_any(),
    };
    let relations = if relations.is_empty() {
        view! { <p class="muted">"No current relations."</p> }.into_any()
    } else {
        relations
            .into_iter()
            .map(|r| {
                let arrow = if r.direction == Direction::Outgoing { "→" } else { "←" };
                view! {
                    <li>
                        <span class="rel-label">{format!("{arrow} {}", r.label)}</span>
                        <A href=routes::entity(&r.other.slug) attr:class="link">{r.other.slug}</A>
                    </li>
                }
            })
            .collect_view()
            .into_any()
    };
    let knowledge = if knowledge.is_empty() {
        view! { <p class="muted">"No notes about this yet."</p> }.into_any()
    } else {
        knowledge
            .into_iter()
            .map(|k| view! { <li><span class="badge">{k.kind.as_str()}</span>{k.title}</li> })
            .collect_view()
            .into_any()
    };
    view! {
        <header class="detail-head">
            <h2 data-testid="detail-title">{entity.slug}</h2>
            <span class="badge">{entity.entity_type}</span>
            <span class="badge outline">{entity.state.as_str()}</span>
            <span class=format!("pill health-{}", status.health)>
                {format!("{} · {}", status.health, status.freshness)}
            </span>
        </header>
        <p class="muted">{format!("{} · updated {}", entity.name, entity.updated_at)}</p>
        <h3>"Attributes"</h3>
        {attributes}
        <h3>"Relations"</h3>
        <ul class="relations" data-testid="relations">{relations}</ul>
        <h3>"Knowledge"</h3>
        <ul class="knowledge">{knowledge}</ul>
    }
}
