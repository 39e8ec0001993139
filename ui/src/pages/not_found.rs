//! A path no page answers to (an old link, a typo).

use leptos::prelude::*;
use leptos_router::components::A;

use crate::routes;

#[component]
pub fn NotFound() -> impl IntoView {
    view! {
        <section class="empty" data-testid="not-found">
            <h1>"Nothing here"</h1>
            <p>"This page does not exist."</p>
            <A href=routes::ENTITIES>"Go to the entities"</A>
        </section>
    }
}
