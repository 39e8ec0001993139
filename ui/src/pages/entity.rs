//! One entity (`/entities/:slug`): what is known about it and its blast radius, re-read when the
//! graph changes.

use leptos::prelude::*;
use leptos_router::hooks::use_params_map;

use crate::components::{answer, BlastRadiusView, EntityFacts};
use crate::events::Topic;
use crate::live::use_live;
use crate::steady::steady;
use crate::{ipc, routes};

#[component]
pub fn EntityPage() -> impl IntoView {
    let live = use_live();
    let params = use_params_map();
    let slug = Memo::new(move |_| params.read().get(routes::ENTITY_SLUG).unwrap_or_default());
    let explain = steady(LocalResource::new(move || {
        live.track(Topic::Graph);
        let slug = slug.get();
        async move { (slug.clone(), ipc::explain_entity(slug).await) }
    }));
    let blast = steady(LocalResource::new(move || {
        live.track(Topic::Graph);
        let slug = slug.get();
        async move { (slug.clone(), ipc::blast_radius(slug, None).await) }
    }));
    view! {
        <article class="detail">
            {move || answer(explain.get(), "Loading…", |x| view! { <EntityFacts explain=x /> }.into_any())}
            <h3>"Blast radius"</h3>
            {move || answer(blast.get(), "Computing…", |b| view! { <BlastRadiusView blast=b /> }.into_any())}
        </article>
    }
}
