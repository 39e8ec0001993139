//! What depends on an entity: each affected entity (a link to its page), how many hops away and
//! the path of relationships that reaches it.

use leptos::prelude::*;
use leptos_router::components::A;
use nomos_types::{BlastHit, BlastRadius};

use crate::routes;

/// "caddy runs-on strong · …": the edges from the root to a hit.
fn path_text(hit: &BlastHit) -> String {
    hit.path.iter().map(|e| format!("{} {} {}", e.source, e.rel_type, e.target)).collect::<Vec<_>>().join(" · ")
}

#[component]
pub fn BlastRadiusView(blast: BlastRadius) -> impl IntoView {
    if blast.hits.is_empty() {
        return view! {
            <p class="muted" data-testid="blast-radius">
                {format!("Nothing depends on {} (within {} hops).", blast.root.slug, blast.depth)}
            </p>
        }
        .into_any();
    }
    let head = format!("Affects {} within {} hops", blast.hits.len(), blast.depth);
    let hits = blast
        .hits
        .into_iter()
        .map(|hit| {
            let path = path_text(&hit);
            view! {
                <li>
                    <span class="depth" title="hops">{hit.depth}</span>
                    <A href=routes::entity(&hit.entity.slug) attr:class="link">{hit.entity.slug}</A>
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
