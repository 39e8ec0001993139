//! A failed command, said in a line; a missing model provider points to Settings.

use leptos::prelude::*;
use leptos_router::components::A;
use nomos_types::{IpcError, IpcErrorCode};

use crate::routes;

#[component]
pub fn IpcErrorView(error: IpcError) -> impl IntoView {
    let settings = (error.code == IpcErrorCode::NoProvider).then(|| {
        view! { " " <A href=routes::SETTINGS attr:data-testid="to-settings">"Configure a provider in Settings"</A> }
    });
    view! {
        <p class="error pad" role="alert" data-testid="command-error" data-code=error.code.as_str()>
            {error.message}
            {settings}
        </p>
    }
}
