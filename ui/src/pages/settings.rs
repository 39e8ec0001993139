//! Settings (`/settings`): the model provider and "test connection", the API key (sent once to
//! the OS keychain, never shown again), hosts with their pinned SSH keys and "trust", inventory
//! import from a file or the lab, the policy files in use, the app's updates, which notifications
//! are on, and starting at login.

use leptos::prelude::*;
use leptos::task::spawn_local;
use nomos_types::{ImportReport, IpcError, KeySource, ProviderStatus};
use wasm_bindgen::JsCast;

use super::settings_desktop::DesktopSection;
use super::settings_hosts::HostsSection;
use crate::components::{answer, outcome_view, read_chosen_file, report_line, Outcome, UpdateSection};
use crate::events::Topic;
use crate::ipc;
use crate::live::use_live;
use crate::settings_form::check_provider_form;

#[component]
pub fn SettingsPage() -> impl IntoView {
    view! {
        <div class="settings" data-testid="settings">
            <ProviderSection />
            <HostsSection />
            <InventorySection />
            <PolicySection />
            <UpdateSection />
            <super::notification_settings::NotificationsSection />
            <super::observe_settings::ObserveSection />
            <super::connect_agent::ConnectAgentSection />
            <DesktopSection />
        </div>
    }
}

fn key_line(status: &ProviderStatus) -> String {
    match status.key.source {
        KeySource::Env => "An API key is set in NOMOS_API_KEY (it wins over the keychain).".into(),
        KeySource::Keychain => "An API key is stored in the OS keychain.".into(),
        KeySource::None => "No API key is stored (fine for a local model server).".into(),
        KeySource::Unavailable => {
            format!("The OS keychain cannot be read: {}", status.key.detail.clone().unwrap_or_default())
        }
    }
}

#[component]
fn ProviderSection() -> impl IntoView {
    // Re-read after each change made here; nothing else changes these settings.
    let version = RwSignal::new(0u32);
    let status = LocalResource::new(move || {
        version.track();
        ipc::provider_status()
    });
    let base_url = RwSignal::new(String::new());
    let model = RwSignal::new(String::new());
    let context = RwSignal::new(String::new());
    // The form starts from the stored settings once they arrive.
    Effect::new(move |filled: Option<bool>| {
        if filled == Some(true) {
            return true;
        }
        match status.get() {
            Some(Ok(s)) => {
                if let Some(stored) = s.stored.or(s.in_use) {
                    base_url.set(stored.base_url);
                    model.set(stored.model);
                    context.set(stored.context_tokens.map(|t| t.to_string()).unwrap_or_default());
                }
                true
            }
            _ => false,
        }
    });
    let errors = RwSignal::new(Default::default());
    let saved: Outcome = RwSignal::new(None);
    let tested: Outcome = RwSignal::new(None);
    let busy = RwSignal::new(false);
    let save = move |ev: leptos::ev::SubmitEvent| {
        ev.prevent_default();
        saved.set(None);
        match check_provider_form(&base_url.get(), &model.get(), &context.get()) {
            Err(e) => errors.set(e),
            Ok(settings) => {
                errors.set(Default::default());
                busy.set(true);
                spawn_local(async move {
                    let r = ipc::save_provider(settings).await;
                    saved.try_set(Some(
                        r.map(|_| "Saved. The next turn uses these settings.".into()).map_err(|e| e.message),
                    ));
                    version.try_update(|v| *v += 1);
                    busy.try_set(false);
                });
            }
        }
    };
    let test = move |_| {
        tested.set(Some(Ok("Asking the model…".into())));
        spawn_local(async move {
            tested.try_set(Some(ipc::test_provider().await.map_err(|e| e.message)));
        });
    };
    let field_error = move |pick: fn(&crate::settings_form::FormErrors) -> Option<String>| {
        move || errors.with(pick).map(|m| view! { <span class="field-error">{m}</span> })
    };

    let key = RwSignal::new(String::new());
    let key_outcome: Outcome = RwSignal::new(None);
    let save_key = move |ev: leptos::ev::SubmitEvent| {
        ev.prevent_default();
        let value = key.get_untracked();
        if value.trim().is_empty() {
            key_outcome.set(Some(Err("Paste the API key first.".into())));
            return;
        }
        // The field is emptied at once: the key is not kept in the window.
        key.set(String::new());
        spawn_local(async move {
            let r = ipc::set_api_key(value).await;
            key_outcome.try_set(Some(r.map(|_| "Stored in the OS keychain.".into()).map_err(|e| e.message)));
            version.try_update(|v| *v += 1);
        });
    };
    let delete_key = move |_| {
        spawn_local(async move {
            let r = ipc::delete_api_key().await;
            key_outcome.try_set(Some(r.map(|_| "Removed from the OS keychain.".into()).map_err(|e| e.message)));
            version.try_update(|v| *v += 1);
        });
    };

    view! {
        <section class="card" aria-labelledby="provider-title">
            <h2 id="provider-title">"Model provider"</h2>
            <p class="muted">
                "Any OpenAI-compatible API: a hosted one, or a local server such as Ollama or llama.cpp."
            </p>
            {move || {
                answer(
                    status.get(),
                    "Reading the settings…",
                    |s| {
                        let env = s.env_overrides.then(|| view! {
                            <p class="notice" data-testid="env-overrides">
                                "NOMOS_LLM_BASE_URL is set in the environment: it wins over what is saved here."
                            </p>
                        });
                        let in_use = match (&s.in_use, &s.problem) {
                            (Some(p), _) => format!(
                                "In use: {} at {} ({} tokens of context).",
                                p.model,
                                p.base_url,
                                p.context_tokens.unwrap_or_default()
                            ),
                            (None, Some(problem)) => format!("No provider in use: {problem}"),
                            (None, None) => "No provider in use.".into(),
                        };
                        view! {
                            {env}
                            <p data-testid="provider-in-use">{in_use}</p>
                            <p class="muted" data-testid="key-status">{key_line(&s)}</p>
                        }
                        .into_any()
                    },
                )
            }}
            <form class="form" on:submit=save novalidate>
                <label>
                    "Base URL"
                    <input
                        type="url"
                        placeholder="https://api.openai.com/v1"
                        data-testid="provider-url"
                        bind:value=base_url
                    />
                    {field_error(|e| e.base_url.clone())}
                </label>
                <label>
                    "Model"
                    <input
                        type="text"
                        placeholder="gpt-4o-mini"
                        data-testid="provider-model"
                        bind:value=model
                    />
                    {field_error(|e| e.model.clone())}
                </label>
                <label>
                    "Context tokens (optional)"
                    <input
                        type="text"
                        inputmode="numeric"
                        placeholder="known models: automatic"
                        data-testid="provider-context"
                        bind:value=context
                    />
                    {field_error(|e| e.context_tokens.clone())}
                </label>
                <div class="actions">
                    <button type="submit" class="primary" data-testid="provider-save" disabled=move || busy.get()>
                        "Save"
                    </button>
                    <button type="button" data-testid="provider-test" on:click=test>"Test connection"</button>
                </div>
            </form>
            {outcome_view(saved, "provider-saved")}
            {outcome_view(tested, "provider-tested")}
            <h3>"API key"</h3>
            <p class="muted">
                "Kept in the OS keychain, never in the database or the logs, and never shown again."
            </p>
            <form class="form inline" on:submit=save_key>
                <input
                    type="password"
                    autocomplete="off"
                    placeholder="Paste the API key"
                    aria-label="API key"
                    data-testid="api-key"
                    bind:value=key
                />
                <button type="submit" class="primary" data-testid="api-key-save">"Save key"</button>
                <button type="button" data-testid="api-key-delete" on:click=delete_key>"Remove key"</button>
            </form>
            {outcome_view(key_outcome, "api-key-outcome")}
        </section>
    }
}

#[component]
fn InventorySection() -> impl IntoView {
    let live = use_live();
    let lab = LocalResource::new(move || {
        live.track(Topic::Graph);
        ipc::lab_inventory()
    });
    let outcome: Outcome = RwSignal::new(None);
    let import_result = move |r: Result<ImportReport, IpcError>| {
        outcome.try_set(Some(r.map(|r| report_line(&r)).map_err(|e| e.message)));
    };
    let on_file = move |ev: leptos::ev::Event| {
        let Some(input) = ev.target().and_then(|t| t.dyn_into::<web_sys::HtmlInputElement>().ok()) else {
            return;
        };
        outcome.set(Some(Ok("Importing…".into())));
        spawn_local(async move {
            match read_chosen_file(input).await {
                Ok((text, name)) => import_result(ipc::import_inventory(text, name).await),
                Err(e) => {
                    outcome.try_set(Some(Err(e)));
                }
            }
        });
    };
    let import_demo = move |_| {
        outcome.set(Some(Ok("Importing the demo homelab…".into())));
        spawn_local(async move { import_result(ipc::import_demo_inventory().await) });
    };
    let import_lab = move |_| {
        outcome.set(Some(Ok("Importing the lab…".into())));
        spawn_local(async move { import_result(ipc::import_lab_inventory().await) });
    };
    view! {
        <section class="card" aria-labelledby="inventory-title">
            <h2 id="inventory-title">"Inventory"</h2>
            <p class="muted">"A YAML file describing your hosts, guests and services. Importing again updates the graph."</p>
            <label class="file">
                "Import a file "
                <input type="file" accept=".yaml,.yml,text/yaml" data-testid="inventory-file" on:change=on_file />
            </label>
            <p>
                <button data-testid="import-demo-settings" on:click=import_demo>"Import the demo homelab"</button>
                <span class="muted">" a made-up homelab to try Oikos with"</span>
            </p>
            {move || {
                lab.get()
                    .and_then(Result::ok)
                    .map(|l| {
                        if l.exists {
                            view! {
                                <p>
                                    <button class="primary" data-testid="import-lab" on:click=import_lab>
                                        "Import the lab's inventory"
                                    </button>
                                    <span class="muted">" " {l.path}</span>
                                </p>
                            }
                            .into_any()
                        } else {
                            view! {
                                <p class="muted" data-testid="no-lab">
                                    "No lab is running (" <code>"nomos lab up"</code> " starts one)."
                                </p>
                            }
                            .into_any()
                        }
                    })
            }}
            {outcome_view(outcome, "import-outcome")}
        </section>
    }
}

#[component]
fn PolicySection() -> impl IntoView {
    let files = LocalResource::new(ipc::policy_files);
    view! {
        <section class="card" aria-labelledby="policy-title">
            <h2 id="policy-title">"Command policy"</h2>
            {move || {
                answer(
                    files.get(),
                    "Loading…",
                    |p| {
                        let operator = match (p.operator_file, p.from_env) {
                            (Some(f), true) => format!("Your additions: {f} (named by OIKOS_POLICY)."),
                            (Some(f), false) => format!("Your additions: {f}."),
                            (None, _) => format!(
                                "No additions of yours; put them in {}.",
                                p.default_path.unwrap_or_else(|| "<config dir>/oikos/policy.yaml".into())
                            ),
                        };
                        view! {
                            <p>"The built-in rules classify every command (read-only, change, destructive)."</p>
                            <p data-testid="policy-files">{operator}</p>
                        }
                        .into_any()
                    },
                )
            }}
        </section>
    }
}
