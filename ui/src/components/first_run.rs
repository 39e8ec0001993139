//! The first run, on the empty task board: three steps (a model provider, the homelab, a first
//! goal), each done or not, each one the operator can put off. Everything here stays in Settings.

use leptos::prelude::*;
use leptos::task::spawn_local;
use leptos_router::components::A;
use nomos_types::{ImportReport, IpcError};
use wasm_bindgen::JsCast;

use crate::components::{outcome_view, read_chosen_file, report_line, Outcome};
use crate::events::Topic;
use crate::first_run::{skipped_from_text, skipped_to_text, step_states, Facts, Step, StepState};
use crate::ipc;
use crate::live::use_live;
use crate::routes;
use crate::settings_form::check_provider_form;

/// Where the steps put off are kept between runs.
const SKIPPED_KEY: &str = "oikos.first-run.skipped";

fn storage() -> Option<web_sys::Storage> {
    web_sys::window().and_then(|w| w.local_storage().ok().flatten())
}

/// The steps put off, as kept by the window.
pub fn stored_skips() -> Vec<Step> {
    storage().and_then(|s| s.get_item(SKIPPED_KEY).ok().flatten()).map(|t| skipped_from_text(&t)).unwrap_or_default()
}

fn store_skips(skipped: &[Step]) {
    if let Some(s) = storage() {
        let _ = s.set_item(SKIPPED_KEY, &skipped_to_text(skipped));
    }
}

/// The walkthrough. `skipped` is shared with the board (all put off: the plain board shows);
/// `provider_read` is bumped after the provider is saved here; `children` is the goal field.
#[component]
pub fn FirstRun(
    facts: Signal<Facts>,
    skipped: RwSignal<Vec<Step>>,
    provider_read: RwSignal<u32>,
    children: Children,
) -> impl IntoView {
    let states = Memo::new(move |_| skipped.with(|s| step_states(facts.get(), s)));
    let state_of =
        move |step: Step| states.with(|s| s.iter().find(|(x, _)| *x == step).map(|x| x.1).unwrap_or(StepState::Todo));
    // The step whose body shows: the one the operator opened (or none, when closed), else the
    // current one.
    let opened = RwSignal::new(None::<Option<Step>>);
    let is_open = move |step: Step| match opened.get() {
        Some(o) => o == Some(step),
        None => state_of(step) == StepState::Current,
    };
    let skip = move |step: Step| {
        skipped.update(|s| {
            if !s.contains(&step) {
                s.push(step);
            }
            store_skips(s);
        });
        opened.set(None);
    };
    let step_view = move |step: Step, body: AnyView| {
        let later = if step == Step::Goal { "Skip" } else { "Later" };
        view! {
            <li
                class="step-card"
                class:open=move || is_open(step)
                data-testid="first-run-step"
                data-step=step.key()
                data-state=move || state_of(step).as_str()
            >
                <div class="step-head">
                    <span class=move || format!("step-num state-{}", state_of(step).as_str())>
                        {move || if state_of(step) == StepState::Done { "✓".to_string() } else { step.number().to_string() }}
                    </span>
                    <button
                        class="step-title"
                        data-testid="step-title"
                        aria-expanded=move || is_open(step).to_string()
                        on:click=move |_| opened.set(Some((!is_open(step)).then_some(step)))
                    >
                        {step.title()}
                    </button>
                    <span class="muted step-state" data-testid="step-state">{move || state_of(step).label()}</span>
                    <Show when=move || !matches!(state_of(step), StepState::Done | StepState::Skipped)>
                        <button class="small" data-testid="skip-step" on:click=move |_| skip(step)>{later}</button>
                    </Show>
                </div>
                <div class="step-body" class:hidden=move || !is_open(step)>{body}</div>
            </li>
        }
    };
    view! {
        <section class="first-run" data-testid="first-run" aria-labelledby="first-run-title">
            <h1 id="first-run-title">"Welcome to Oikos"</h1>
            <p class="muted">
                "Three steps and Nomos can look after your homelab. Each one can wait; all of them are in Settings later."
            </p>
            <ol class="steps">
                {step_view(Step::Provider, view! { <ProviderStep provider_read=provider_read /> }.into_any())}
                {step_view(Step::Homelab, view! { <HomelabStep /> }.into_any())}
                {step_view(
                    Step::Goal,
                    view! {
                        <p class="muted">
                            "Say what you want done, in your words: “check that every container is backed up”, "
                            "“why is the NAS slow?”. Nomos proposes; you approve."
                        </p>
                        {children()}
                    }
                        .into_any(),
                )}
            </ol>
        </section>
    }
}

/// Base URL, model and API key, saved and tested in one go.
#[component]
fn ProviderStep(provider_read: RwSignal<u32>) -> impl IntoView {
    let base_url = RwSignal::new(String::new());
    let model = RwSignal::new(String::new());
    let key = RwSignal::new(String::new());
    let outcome: Outcome = RwSignal::new(None);
    let busy = RwSignal::new(false);
    let test = move |ev: leptos::ev::SubmitEvent| {
        ev.prevent_default();
        let settings = match check_provider_form(&base_url.get_untracked(), &model.get_untracked(), "") {
            Ok(s) => s,
            Err(e) => {
                let first = e.base_url.or(e.model).or(e.context_tokens).unwrap_or_default();
                outcome.set(Some(Err(first)));
                return;
            }
        };
        let api_key = key.get_untracked();
        // Not kept in the window once sent.
        key.set(String::new());
        busy.set(true);
        outcome.set(Some(Ok("Saving, then asking the model…".into())));
        spawn_local(async move {
            let r: Result<String, IpcError> = async {
                ipc::save_provider(settings).await?;
                if !api_key.trim().is_empty() {
                    ipc::set_api_key(api_key).await?;
                }
                let answer = ipc::test_provider().await?;
                Ok(format!("Connected: the model answered “{answer}”."))
            }
            .await;
            outcome.try_set(Some(r.map_err(|e| e.message)));
            provider_read.try_update(|v| *v += 1);
            busy.try_set(false);
        });
    };
    view! {
        <p class="muted">"Any OpenAI-compatible API: a hosted one, or a local server such as Ollama or llama.cpp."</p>
        <form class="form" on:submit=test novalidate>
            <div class="form-row">
                <label class="grow">
                    "Base URL"
                    <input type="url" placeholder="https://api.openai.com/v1" data-testid="first-run-url" bind:value=base_url />
                </label>
                <label>
                    "Model"
                    <input type="text" placeholder="gpt-4o-mini" data-testid="first-run-model" bind:value=model />
                </label>
            </div>
            <label>
                "API key (kept in the OS keychain; empty for a local server)"
                <input type="password" autocomplete="off" data-testid="first-run-key" bind:value=key />
            </label>
            <div class="actions">
                <button type="submit" class="primary" data-testid="first-run-test" disabled=move || busy.get()>
                    "Save and test connection"
                </button>
            </div>
        </form>
        {outcome_view(outcome, "first-run-provider-outcome")}
    }
}

/// A Proxmox host to discover, or an inventory: a file, the demo homelab, the lab's.
#[component]
fn HomelabStep() -> impl IntoView {
    let live = use_live();
    let lab = LocalResource::new(move || {
        live.track(Topic::Graph);
        ipc::lab_inventory()
    });
    let outcome: Outcome = RwSignal::new(None);
    let done = move |r: Result<ImportReport, IpcError>| {
        outcome.try_set(Some(r.map(|r| report_line(&r)).map_err(|e| e.message)));
    };
    let demo = move |_| {
        outcome.set(Some(Ok("Importing the demo homelab…".into())));
        spawn_local(async move { done(ipc::import_demo_inventory().await) });
    };
    let import_lab = move |_| {
        outcome.set(Some(Ok("Importing the lab…".into())));
        spawn_local(async move { done(ipc::import_lab_inventory().await) });
    };
    let on_file = move |ev: leptos::ev::Event| {
        let Some(input) = ev.target().and_then(|t| t.dyn_into::<web_sys::HtmlInputElement>().ok()) else {
            return;
        };
        outcome.set(Some(Ok("Importing…".into())));
        spawn_local(async move {
            match read_chosen_file(input).await {
                Ok((text, name)) => done(ipc::import_inventory(text, name).await),
                Err(e) => {
                    outcome.try_set(Some(Err(e)));
                }
            }
        });
    };
    view! {
        <p class="muted">
            "Add a Proxmox host and discover it: Oikos reads its cluster (nodes, containers, VMs, storage, networks) "
            "and shows you what it found before writing anything."
        </p>
        <p>
            <A href=routes::SETTINGS attr:class="button-link" attr:data-testid="first-run-add-host">"Add a Proxmox host…"</A>
        </p>
        <p class="muted">"Or start from an inventory:"</p>
        <div class="step-actions">
            <button class="small" data-testid="first-run-demo" on:click=demo>"Import the demo homelab"</button>
            {move || {
                lab.get().and_then(Result::ok).filter(|l| l.exists).map(|_| {
                    view! { <button class="small" data-testid="first-run-lab" on:click=import_lab>"Import the lab's inventory"</button> }
                })
            }}
            <label class="file small-file">
                "Import a file "
                <input type="file" accept=".yaml,.yml,text/yaml" data-testid="first-run-file" on:change=on_file />
            </label>
        </div>
        {outcome_view(outcome, "first-run-import-outcome")}
    }
}
