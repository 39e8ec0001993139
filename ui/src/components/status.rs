//! Loading, failure and unavailable states, shown the same way everywhere.

use leptos::prelude::*;
use nomos_types::IpcError;

/// A view of an answer: `loading` until there is one, the error if it failed, else `ok(value)`.
pub fn answer<T>(answer: Option<Result<T, IpcError>>, loading: &'static str, ok: impl FnOnce(T) -> AnyView) -> AnyView {
    match answer {
        None => view! { <p class="muted pad" aria-busy="true">{loading}</p> }.into_any(),
        Some(Err(e)) => view! { <p class="error pad" role="alert">{e.message}</p> }.into_any(),
        Some(Ok(value)) => ok(value),
    }
}

/// The whole window when the database could not be opened.
#[component]
pub fn Unavailable(message: String) -> impl IntoView {
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
