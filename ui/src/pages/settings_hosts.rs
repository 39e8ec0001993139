//! Settings → Hosts: adding a host (its key shown, then trusted), each host's key, connection
//! test, discovery (review, then apply), edit and remove; and how often discovery runs by itself.
//! A host's key is always shown before it can be trusted, and what is trusted is what was shown.

use leptos::prelude::*;
use leptos::task::spawn_local;
use leptos_router::components::A;
use nomos_types::{AddedHost, DiscoveryDiff, DiscoverySettings, HostEntry, HostTest};

use crate::components::{outcome_view, DiscoveryReview, HostChecks, KeyToCompare, Outcome};
use crate::discovery_view::{
    applied_line, check_host_form, edit_spec, interval_choices, parse_endpoint, HostForm, COMPARE_ON_HOST,
};
use crate::events::Topic;
use crate::live::use_live;
use crate::steady::steady;
use crate::{ipc, routes};

#[component]
pub fn HostsSection() -> impl IntoView {
    let live = use_live();
    // Bumped after a change made here, besides the engine's events.
    let version = RwSignal::new(0u32);
    let hosts = steady(LocalResource::new(move || {
        live.track(Topic::HostKeys);
        live.track(Topic::Graph);
        version.track();
        async move { ((), ipc::host_entries().await) }
    }));
    let entries = Memo::new(move |_| hosts.get().and_then(Result::ok).unwrap_or_default());
    // What happened to a host whose row is gone (removed).
    let removed: Outcome = RwSignal::new(None);
    // Only when the state changes: the rows below live on across refreshes (keyed by host), so
    // a review or a test result stays while the graph changes under it.
    let status = Memo::new(move |_| match hosts.get() {
        None => Some(("muted", "Loading the hosts…".to_string())),
        Some(Err(e)) => Some(("error", e.message)),
        Some(Ok(list)) if list.is_empty() => {
            Some(("muted", "No hosts yet: add one above, or import an inventory below.".to_string()))
        }
        Some(Ok(_)) => None,
    });
    view! {
        <section class="card" aria-labelledby="hosts-title" data-testid="hosts-section">
            <h2 id="hosts-title">"Hosts"</h2>
            <p class="muted">
                "Oikos reaches your hosts over SSH and pins each host's key once you trust it; a host presenting "
                "another key is refused. Discovery reads a Proxmox cluster through one of its nodes."
            </p>
            <AddHost version=version />
            {move || {
                status.get().map(|(class, text)| view! { <p class=class data-testid="hosts-empty">{text}</p> })
            }}
            <ul class="hosts" data-testid="hosts">
                <For each=move || entries.get() key=|e| e.host.clone() let:entry>
                    <HostRow slug=entry.host entries=entries version=version removed=removed />
                </For>
            </ul>
            {outcome_view(removed, "hosts-outcome")}
            <DiscoveryInterval />
        </section>
    }
}

/// The *Add host* form, and what the host presented once added.
#[component]
fn AddHost(version: RwSignal<u32>) -> impl IntoView {
    let open = RwSignal::new(false);
    let form = RwSignal::new(HostForm::new());
    let error = RwSignal::new(None::<String>);
    let busy = RwSignal::new(false);
    let added = RwSignal::new(None::<AddedHost>);
    let field = move |get: fn(&HostForm) -> &String, set: fn(&mut HostForm, String)| {
        (
            move || form.with(|f| get(f).clone()),
            move |ev: leptos::ev::Event| form.update(|f| set(f, event_target_value(&ev))),
        )
    };
    let (name, on_name) = field(|f| &f.name, |f, v| f.name = v);
    let (address, on_address) = field(|f| &f.address, |f, v| f.address = v);
    let (port, on_port) = field(|f| &f.port, |f, v| f.port = v);
    let (user, on_user) = field(|f| &f.user, |f, v| f.user = v);
    let (key, on_key) = field(|f| &f.key, |f, v| f.key = v);
    let submit = move |ev: leptos::ev::SubmitEvent| {
        ev.prevent_default();
        let spec = match check_host_form(&form.get_untracked()) {
            Ok(spec) => spec,
            Err(e) => {
                error.set(Some(e));
                return;
            }
        };
        error.set(None);
        added.set(None);
        busy.set(true);
        spawn_local(async move {
            match ipc::add_host(spec).await {
                Ok(a) => {
                    added.try_set(Some(a));
                    form.try_set(HostForm::new());
                    open.try_set(false);
                    version.try_update(|v| *v += 1);
                }
                // The form stays as it was, to be corrected.
                Err(e) => {
                    error.try_set(Some(e.message));
                }
            }
            busy.try_set(false);
        });
    };
    view! {
        <div class="add-host">
            <Show
                when=move || open.get()
                fallback=move || {
                    view! {
                        <button class="primary slim" data-testid="add-host" on:click=move |_| open.set(true)>
                            "Add host"
                        </button>
                    }
                }
            >
                <form class="form host-form" on:submit=submit novalidate data-testid="add-host-form">
                    <div class="form-row">
                        <label>
                            "Name"
                            <input type="text" placeholder="pve1" data-testid="host-name" prop:value=name on:input=on_name />
                        </label>
                        <label class="grow">
                            "Address"
                            <input type="text" placeholder="192.168.1.10 or pve1.lan" data-testid="host-address" prop:value=address on:input=on_address />
                        </label>
                        <label class="narrow">
                            "Port"
                            <input type="text" inputmode="numeric" data-testid="host-port" prop:value=port on:input=on_port />
                        </label>
                        <label class="narrow">
                            "User"
                            <input type="text" data-testid="host-user" prop:value=user on:input=on_user />
                        </label>
                    </div>
                    <label>
                        "Key file (optional)"
                        <input
                            type="text"
                            placeholder="empty: the ssh-agent and ~/.ssh keys"
                            data-testid="host-key"
                            prop:value=key
                            on:input=on_key
                        />
                    </label>
                    <div class="actions">
                        <button type="submit" class="primary" data-testid="add-host-submit" disabled=move || busy.get()>
                            {move || if busy.get() { "Adding…" } else { "Add and show its key" }}
                        </button>
                        <button type="button" on:click=move |_| open.set(false)>"Cancel"</button>
                    </div>
                    {move || error.get().map(|e| view! { <p class="error" role="alert" data-testid="add-host-error">{e}</p> })}
                </form>
            </Show>
            {move || added.get().map(|a| view! { <Added added=a /> })}
        </div>
    }
}

/// A host just added: the key it presents, to compare and trust, or why it could not be read.
#[component]
fn Added(added: AddedHost) -> impl IntoView {
    let trust: Outcome = RwSignal::new(None);
    let body = match (added.fingerprint.clone(), added.unreachable.clone()) {
        (Some(fp), _) => view! {
            <KeyToCompare host=added.host.clone() fingerprint=fp outcome=trust />
            {outcome_view(trust, "trust-outcome")}
        }
        .into_any(),
        (None, reason) => view! {
            <p class="error" role="alert" data-testid="added-unreachable">
                "Its key could not be read: " {reason.unwrap_or_default()}
            </p>
            <p class="muted">{added.next.clone()}</p>
        }
        .into_any(),
    };
    view! {
        <div class="added" data-testid="added-host" data-host=added.host.clone()>
            <p>"Added " <strong>{added.host.clone()}</strong> " " <span class="muted">{added.endpoint.clone()}</span></p>
            {body}
        </div>
    }
}

/// What a row shows of the host's key.
#[derive(Clone, PartialEq)]
enum KeyView {
    Trusted(String),
    /// A fingerprint shown, to compare and trust.
    Compare(String),
    /// Never seen: *Show its key* first.
    Unseen,
}

/// What a row is busy with, if anything.
#[derive(Clone, Copy, PartialEq)]
enum Busy {
    Idle,
    Showing,
    Testing,
    Discovering,
    Applying,
}

#[component]
fn HostRow(slug: String, entries: Memo<Vec<HostEntry>>, version: RwSignal<u32>, removed: Outcome) -> impl IntoView {
    let host = StoredValue::new(slug.clone());
    let entry = Memo::new(move |_| entries.with(|l| l.iter().find(|e| e.host == host.get_value()).cloned()));
    let busy = RwSignal::new(Busy::Idle);
    // The key just shown (present_host_key), until the host list has it.
    let shown = RwSignal::new(None::<String>);
    let line: Outcome = RwSignal::new(None);
    // How trusting the key went: kept by the row, as the key part changes once it is trusted.
    let trust: Outcome = RwSignal::new(None);
    let test = RwSignal::new(None::<HostTest>);
    let review = RwSignal::new(None::<DiscoveryDiff>);
    let applied = RwSignal::new(None::<DiscoveryDiff>);
    let editing = RwSignal::new(false);
    let removing = RwSignal::new(false);

    let show_key = move |_| {
        busy.set(Busy::Showing);
        line.set(None);
        trust.set(None);
        spawn_local(async move {
            match ipc::present_host_key(host.get_value()).await {
                Ok(fp) => {
                    shown.try_set(Some(fp));
                }
                Err(e) => {
                    line.try_set(Some(Err(e.message)));
                }
            }
            busy.try_set(Busy::Idle);
        });
    };
    let run_test = move |_| {
        busy.set(Busy::Testing);
        line.set(None);
        test.set(None);
        spawn_local(async move {
            match ipc::test_host(host.get_value()).await {
                Ok(t) => {
                    test.try_set(Some(t));
                }
                Err(e) => {
                    line.try_set(Some(Err(e.message)));
                }
            }
            busy.try_set(Busy::Idle);
        });
    };
    let discover = move |_| {
        busy.set(Busy::Discovering);
        line.set(None);
        review.set(None);
        applied.set(None);
        spawn_local(async move {
            match ipc::discover(host.get_value(), false).await {
                Ok(d) => {
                    review.try_set(Some(d));
                }
                Err(e) => {
                    line.try_set(Some(Err(e.message)));
                }
            }
            busy.try_set(Busy::Idle);
        });
    };
    let apply = move |_| {
        busy.set(Busy::Applying);
        line.set(None);
        spawn_local(async move {
            match ipc::discover(host.get_value(), true).await {
                Ok(d) => {
                    review.try_set(None);
                    applied.try_set(Some(d));
                }
                Err(e) => {
                    line.try_set(Some(Err(e.message)));
                }
            }
            busy.try_set(Busy::Idle);
        });
    };
    let remove = move |_| {
        spawn_local(async move {
            match ipc::remove_host(host.get_value()).await {
                Ok(r) => {
                    let what = if r.outcome == "gone" { "kept as gone, for its history" } else { "deleted" };
                    removed.try_set(Some(Ok(format!("Removed {}: {what}.", r.host))));
                    version.try_update(|v| *v += 1);
                }
                Err(e) => {
                    line.try_set(Some(Err(e.message)));
                }
            }
            removing.try_set(false);
        });
    };
    let idle = move || busy.get() == Busy::Idle;

    // What the key part shows; a Memo, so that a refresh of the host list that changes nothing
    // here keeps the part (and a click on it) as it is.
    let key_view = Memo::new(move |_| {
        let e = entry.get()?;
        Some(match (&e.key, shown.get()) {
            (Some(k), _) if k.trusted => KeyView::Trusted(k.fingerprint.clone()),
            // Shown just now, or seen before and not trusted: compare, then trust that one.
            (_, Some(fp)) => KeyView::Compare(fp),
            (Some(k), None) => KeyView::Compare(k.fingerprint.clone()),
            (None, None) => KeyView::Unseen,
        })
    });
    let key_part = move || {
        let view = match key_view.get()? {
            KeyView::Trusted(fp) => view! {
                <div class="key-check">
                    <span class="muted">"Trusted key "</span>
                    <code class="fingerprint" data-testid="fingerprint">{fp}</code>
                </div>
            }
            .into_any(),
            KeyView::Compare(fp) => {
                view! { <KeyToCompare host=host.get_value() fingerprint=fp outcome=trust /> }.into_any()
            }
            KeyView::Unseen => view! {
                <p class="muted">
                    "Its key was never seen. Show it, compare it with " <code>{COMPARE_ON_HOST}</code>
                    " on the host, then trust it."
                </p>
                <button class="small" data-testid="show-key" disabled=move || !idle() on:click=show_key>
                    {move || if busy.get() == Busy::Showing { "Connecting…" } else { "Show its key" }}
                </button>
            }
            .into_any(),
        };
        Some(view)
    };
    let state = move || {
        entry.get().map(|e| match &e.key {
            None => ("key not seen yet".to_string(), false),
            Some(k) if k.trusted => (format!("trusted {}", k.algorithm), true),
            Some(k) => (format!("not trusted ({})", k.algorithm), false),
        })
    };
    let endpoint = move || entry.get().map(|e| e.endpoint).unwrap_or_default();

    view! {
        <li data-testid="host-row" data-host=slug.clone()>
            <div class="host-line">
                <span class="slug">{slug.clone()}</span>
                <span class="muted" data-testid="host-endpoint">{endpoint}</span>
                {move || {
                    state()
                        .map(|(text, trusted)| {
                            view! { <span class="badge" class:outline=!trusted data-testid="host-key-state">{text}</span> }
                        })
                }}
            </div>
            {key_part}
            {outcome_view(trust, "trust-outcome")}
            <div class="host-actions">
                <button class="small" data-testid="test-host" disabled=move || !idle() on:click=run_test>
                    {move || if busy.get() == Busy::Testing { "Testing…" } else { "Test connection" }}
                </button>
                <button class="small" data-testid="discover-host" disabled=move || !idle() on:click=discover>
                    {move || if busy.get() == Busy::Discovering { "Discovering…" } else { "Discover" }}
                </button>
                <button class="small" data-testid="edit-host" on:click=move |_| editing.update(|e| *e = !*e)>
                    "Edit"
                </button>
                <Show
                    when=move || removing.get()
                    fallback=move || view! {
                        <button class="small" data-testid="remove-host" on:click=move |_| removing.set(true)>"Remove"</button>
                    }
                >
                    <span class="confirm-inline">
                        {format!("Remove {}? ", host.get_value())}
                        <button class="small danger" data-testid="confirm-remove" on:click=remove>"Remove"</button>
                        <button class="small" on:click=move |_| removing.set(false)>"Keep"</button>
                    </span>
                </Show>
            </div>
            <Show when=move || editing.get()>
                <EditHost entry=entry version=version editing=editing line=line />
            </Show>
            {outcome_view(line, "host-outcome")}
            {move || test.get().map(|t| view! { <HostChecks test=t /> })}
            {move || {
                review.get().map(|d| {
                    let has_changes = !d.is_empty();
                    view! {
                        <DiscoveryReview diff=d />
                        <div class="actions">
                            <Show when=move || has_changes>
                                <button class="primary slim" data-testid="apply-discovery" disabled=move || !idle() on:click=apply>
                                    {move || if busy.get() == Busy::Applying { "Applying…" } else { "Apply" }}
                                </button>
                            </Show>
                            <button class="small" data-testid="discard-review" on:click=move |_| review.set(None)>
                                "Discard"
                            </button>
                        </div>
                    }
                })
            }}
            {move || {
                applied.get().map(|d| view! {
                    <p class="ok" role="status" data-testid="discovery-applied">
                        {applied_line(&d)} " "
                        <A href=routes::GRAPH attr:data-testid="to-graph">"See it in the graph"</A>
                    </p>
                })
            }}
        </li>
    }
}

/// How a host is reached, changed in place; an empty key file leaves the key as it is.
#[component]
fn EditHost(
    entry: Memo<Option<HostEntry>>,
    version: RwSignal<u32>,
    editing: RwSignal<bool>,
    line: Outcome,
) -> impl IntoView {
    let start = entry.get_untracked().and_then(|e| parse_endpoint(&e.endpoint));
    let address = RwSignal::new(start.as_ref().map(|e| e.address.clone()).unwrap_or_default());
    let port = RwSignal::new(start.as_ref().map(|e| e.port.to_string()).unwrap_or_else(|| "22".into()));
    let user = RwSignal::new(start.map(|e| e.user).unwrap_or_else(|| "root".into()));
    let key = RwSignal::new(String::new());
    let save = move |ev: leptos::ev::SubmitEvent| {
        ev.prevent_default();
        let Some(e) = entry.get_untracked() else { return };
        let form = HostForm {
            name: String::new(),
            address: address.get_untracked(),
            port: port.get_untracked(),
            user: user.get_untracked(),
            key: key.get_untracked(),
        };
        match edit_spec(&e.host, &e.endpoint, &form) {
            Err(m) => line.set(Some(Err(m))),
            Ok(spec) => {
                spawn_local(async move {
                    match ipc::edit_host(spec).await {
                        Ok(h) => {
                            line.try_set(Some(Ok(format!("Saved: {} is reached as {}.", h.host, h.endpoint))));
                            editing.try_set(false);
                            version.try_update(|v| *v += 1);
                        }
                        Err(e) => {
                            line.try_set(Some(Err(e.message)));
                        }
                    }
                });
            }
        }
    };
    view! {
        <form class="form host-form" on:submit=save novalidate data-testid="edit-host-form">
            <div class="form-row">
                <label class="grow">"Address" <input type="text" data-testid="edit-address" bind:value=address /></label>
                <label class="narrow">"Port" <input type="text" inputmode="numeric" data-testid="edit-port" bind:value=port /></label>
                <label class="narrow">"User" <input type="text" data-testid="edit-user" bind:value=user /></label>
            </div>
            <label>
                "Key file"
                <input type="text" placeholder="empty: unchanged" data-testid="edit-key" bind:value=key />
            </label>
            <div class="actions">
                <button type="submit" class="primary" data-testid="edit-save">"Save"</button>
                <button type="button" on:click=move |_| editing.set(false)>"Cancel"</button>
            </div>
        </form>
    }
}

/// "Re-discover every …", bound to the engine's setting.
#[component]
fn DiscoveryInterval() -> impl IntoView {
    let settings = LocalResource::new(ipc::discovery_settings);
    let current = RwSignal::new(None::<u64>);
    Effect::new(move |_| {
        if let Some(Ok(s)) = settings.get() {
            current.set(Some(s.interval_secs));
        }
    });
    let outcome: Outcome = RwSignal::new(None);
    let change = move |ev: leptos::ev::Event| {
        let Ok(secs) = event_target_value(&ev).parse::<u64>() else { return };
        spawn_local(async move {
            match ipc::save_discovery_settings(DiscoverySettings { interval_secs: secs }).await {
                Ok(s) => {
                    current.try_set(Some(s.interval_secs));
                    let text = if s.interval_secs == 0 {
                        "Saved: discovery runs only when you ask.".to_string()
                    } else {
                        format!("Saved: every {}.", crate::discovery_view::interval_label(s.interval_secs))
                    };
                    outcome.try_set(Some(Ok(text)));
                }
                Err(e) => {
                    outcome.try_set(Some(Err(e.message)));
                }
            }
        });
    };
    view! {
        <h3>"Discovery"</h3>
        {move || {
            current.get().map(|secs| {
                let options = interval_choices(secs)
                    .into_iter()
                    .map(|(s, label)| view! { <option value=s.to_string() selected=s == secs>{label}</option> })
                    .collect_view();
                view! {
                    <label class="inline-select">
                        "Re-discover every "
                        <select data-testid="discovery-interval" on:change=change>{options}</select>
                    </label>
                }
            })
        }}
        {move || settings.get().and_then(Result::err).map(|e| view! { <p class="error">{e.message}</p> })}
        <p class="muted">
            "After the first Apply, Oikos re-discovers by itself and applies what changed; each cycle shows in "
            "Operations and in the event feed."
        </p>
        {outcome_view(outcome, "interval-outcome")}
    }
}
