//! A one-line outcome of an action (done, with what; or failed, with why), and reading an
//! inventory file chosen in the window: shared by Settings and the first run.

use leptos::prelude::*;
use nomos_types::ImportReport;

/// A one-line outcome of an action: done (with what) or failed (with why).
pub type Outcome = RwSignal<Option<Result<String, String>>>;

pub fn outcome_view(outcome: Outcome, testid: &'static str) -> impl IntoView {
    move || {
        outcome.get().map(|o| match o {
            Ok(text) => view! { <p class="ok" role="status" data-testid=testid>{text}</p> }.into_any(),
            Err(text) => view! { <p class="error" role="alert" data-testid=testid>{text}</p> }.into_any(),
        })
    }
}

/// What an import did, in a sentence.
pub fn report_line(r: &ImportReport) -> String {
    format!(
        "Imported: {} entities created, {} updated, {} unchanged; {} relations created, {} ended.",
        r.entities.created, r.entities.updated, r.entities.unchanged, r.relationships.created, r.relationships_ended
    )
}

/// The text of the file chosen in a file input, and its name.
pub async fn read_chosen_file(input: web_sys::HtmlInputElement) -> Result<(String, String), String> {
    let file = input.files().and_then(|f| f.get(0)).ok_or("Choose a file first.")?;
    let text = wasm_bindgen_futures::JsFuture::from(file.text())
        .await
        .map_err(|_| format!("{} could not be read.", file.name()))?
        .as_string()
        .ok_or("The file is not text.")?;
    Ok((text, file.name()))
}
