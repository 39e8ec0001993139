//! An entity's checks: how each last went, Run now (its answer in the row) and Remove; and the
//! form that adds one of each kind. Checks send no events of their own: the list re-reads after
//! each change made here and on signal events (a failing check raises one).

use leptos::prelude::*;
use leptos::task::spawn_local;
use nomos_types::Check;

use crate::events::Topic;
use crate::live::use_live;
use crate::observe_view::{check_spec, check_target, CheckForm, CHECK_KINDS};
use crate::steady::steady;
use crate::task_feed::use_task_feed;
use crate::tasks::time::ago;
use crate::{components::answer, ipc};

#[component]
pub fn EntityChecks(slug: Signal<String>) -> impl IntoView {
    let live = use_live();
    // Bumped after a change made here: checks send no events.
    let revision = RwSignal::new(0u32);
    // The last Run now's answer, kept here: the re-read that follows it rebuilds the rows.
    let ran = RwSignal::new(None::<LastRun>);
    let checks = steady(LocalResource::new(move || {
        live.track(Topic::Signals);
        revision.track();
        let slug = slug.get();
        async move { (slug.clone(), ipc::entity_checks(slug).await) }
    }));
    view! {
        {move || answer(checks.get(), "Reading checks…", move |list: Vec<Check>| {
            if list.is_empty() {
                return view! { <p class="muted" data-testid="checks-empty">"No checks yet."</p> }.into_any();
            }
            let rows = list.into_iter().map(|c| view! { <CheckRow check=c reload=revision ran=ran /> }).collect_view();
            view! { <ul class="obs-checks" data-testid="checks">{rows}</ul> }.into_any()
        })}
        <AddCheck slug=slug reload=revision />
    }
}

/// A check run from the page: its id, whether it passed, what it said.
type LastRun = (String, bool, String);

#[component]
fn CheckRow(check: Check, reload: RwSignal<u32>, ran: RwSignal<Option<LastRun>>) -> impl IntoView {
    let now = use_task_feed().now_ms;
    let busy = RwSignal::new(false);
    let error = RwSignal::new(None::<String>);
    let armed = RwSignal::new(false);
    let Check {
        id,
        name,
        kind,
        interval_s,
        enabled,
        command,
        last_run_at,
        last_status,
        last_detail,
        last_latency_ms,
        ..
    } = check;
    let status = last_status.unwrap_or_else(|| "never run".into());
    let pill = match status.as_str() {
        "ok" => "pill health-healthy",
        "failing" => "pill health-down",
        _ => "pill",
    };
    let last = move || {
        let latency = last_latency_ms.map(|ms| format!(" · {ms:.0} ms")).unwrap_or_default();
        last_run_at.as_deref().map(|at| format!("{}{latency}", ago(now.get(), at))).unwrap_or_default()
    };
    let (run_id, ran_id, toggle_id) = (id.clone(), id.clone(), id.clone());
    // Pause (its open signal is resolved) or run it again on its interval.
    let toggle = move |_| {
        let id = toggle_id.clone();
        busy.set(true);
        error.set(None);
        spawn_local(async move {
            match ipc::set_check_enabled(id, !enabled).await {
                Ok(_) => {
                    reload.try_update(|r| *r += 1);
                }
                Err(e) => {
                    error.try_set(Some(e.message));
                }
            }
            busy.try_set(false);
        });
    };
    let run = move |_| {
        let id = run_id.clone();
        busy.set(true);
        error.set(None);
        spawn_local(async move {
            match ipc::run_check(id.clone()).await {
                Ok(run) => {
                    ran.try_set(Some((id, run.ok, run.detail)));
                    reload.try_update(|r| *r += 1);
                }
                Err(e) => {
                    error.try_set(Some(e.message));
                }
            }
            busy.try_set(false);
        });
    };
    let remove = move |_| {
        if !armed.get_untracked() {
            armed.set(true);
            return;
        }
        let id = id.clone();
        busy.set(true);
        spawn_local(async move {
            match ipc::remove_check(id).await {
                Ok(()) => {
                    reload.try_update(|r| *r += 1);
                }
                Err(e) => {
                    error.try_set(Some(e.message));
                    busy.try_set(false);
                }
            }
        });
    };
    let data_status = status.clone();
    view! {
        <li class="obs-check" data-testid="check" data-status=data_status>
            <div class="check-line">
                <span class=pill>{status}</span>
                <strong>{name}</strong>
                <span class="badge">{kind.label()}</span>
                <span class="muted">{check_target(&kind)}</span>
                <span class="muted">{format!("every {interval_s} s")}</span>
                {(!enabled).then(|| view! { <span class="badge outline" data-testid="check-paused">"paused"</span> })}
                <span class="spacer"></span>
                <span class="muted when">{last}</span>
            </div>
            {last_detail.map(|d| view! { <p class="muted check-detail">{d}</p> })}
            <div class="host-actions">
                <button class="small" data-testid="check-run" prop:disabled=move || busy.get() on:click=run title=command>
                    {move || if busy.get() { "Running…" } else { "Run now" }}
                </button>
                <button class="small" data-testid="check-toggle" prop:disabled=move || busy.get() on:click=toggle>
                    {if enabled { "Pause" } else { "Resume" }}
                </button>
                <button class="small delete" class:armed=move || armed.get() data-testid="check-remove"
                    prop:disabled=move || busy.get() on:click=remove>
                    {move || if armed.get() { "Remove for good" } else { "Remove" }}
                </button>
                {move || ran.get().filter(|(id, _, _)| *id == ran_id).map(|(_, ok, detail)| view! {
                    <span class=if ok { "ok" } else { "error" } data-testid="check-result">
                        {if ok { "ok" } else { "failing" }} ": " {detail}
                    </span>
                })}
            </div>
            {move || error.get().map(|e| view! { <p class="error" role="alert" data-testid="check-error">{e}</p> })}
        </li>
    }
}

/// A text field of the form, bound to one of its fields.
fn field(
    form: RwSignal<CheckForm>,
    label: &'static str,
    placeholder: &'static str,
    get: fn(&CheckForm) -> String,
    set: fn(&mut CheckForm, String),
) -> impl IntoView {
    view! {
        <label>
            {label}
            <input
                type="text"
                placeholder=placeholder
                prop:value=move || form.with(get)
                on:input=move |ev| form.update(|f| set(f, event_target_value(&ev)))
            />
        </label>
    }
}

#[component]
fn AddCheck(slug: Signal<String>, reload: RwSignal<u32>) -> impl IntoView {
    let form = RwSignal::new(CheckForm::default());
    let error = RwSignal::new(None::<String>);
    let busy = RwSignal::new(false);
    let add = move |ev: leptos::ev::SubmitEvent| {
        ev.prevent_default();
        let spec = match check_spec(&slug.get_untracked(), &form.get_untracked()) {
            Ok(spec) => spec,
            Err(e) => {
                error.set(Some(e));
                return;
            }
        };
        busy.set(true);
        error.set(None);
        spawn_local(async move {
            match ipc::add_check(spec).await {
                Ok(_) => {
                    form.try_set(CheckForm::default());
                    reload.try_update(|r| *r += 1);
                }
                Err(e) => {
                    error.try_set(Some(e.message));
                }
            }
            busy.try_set(false);
        });
    };
    // The kind alone decides the fields: typing into one must not rebuild them.
    let kind = Memo::new(move |_| form.with(|f| f.kind.clone()));
    let fields = move || match kind.get().as_str() {
        "service" => field(form, "Unit", "caddy.service", |f| f.unit.clone(), |f, v| f.unit = v).into_any(),
        "tcp" => view! {
            {field(form, "Address", "10.0.0.5", |f| f.address.clone(), |f, v| f.address = v)}
            {field(form, "Port", "443", |f| f.port.clone(), |f, v| f.port = v)}
        }
        .into_any(),
        "http" => view! {
            {field(form, "URL", "https://cloud.lan/", |f| f.url.clone(), |f, v| f.url = v)}
            {field(form, "Expected status", "200", |f| f.expect_status.clone(), |f, v| f.expect_status = v)}
        }
        .into_any(),
        "dns" => view! {
            {field(form, "Name", "nas.lan", |f| f.dns_name.clone(), |f, v| f.dns_name = v)}
            {field(form, "Expected address (optional)", "10.0.0.7", |f| f.dns_expect.clone(), |f, v| f.dns_expect = v)}
        }
        .into_any(),
        _ => field(form, "URL", "https://cloud.lan/", |f| f.url.clone(), |f, v| f.url = v).into_any(),
    };
    view! {
        <details class="add-check">
            <summary data-testid="check-add-open">"Add a check"</summary>
            <form class="form" data-testid="check-form" on:submit=add>
                <div class="form-row">
                    <label class="narrow">
                        "Kind"
                        <select data-testid="check-kind" on:change=move |ev| form.update(|f| f.kind = event_target_value(&ev))>
                            {CHECK_KINDS.map(|k| view! { <option value=k selected=move || form.with(|f| f.kind == k)>{k}</option> })}
                        </select>
                    </label>
                    {field(form, "Name (optional)", "what it checks", |f| f.name.clone(), |f, v| f.name = v)}
                    {field(form, "Every (seconds)", "60", |f| f.interval.clone(), |f, v| f.interval = v)}
                </div>
                <div class="form-row">{fields}</div>
                <div class="actions">
                    <button class="primary" type="submit" data-testid="check-add" prop:disabled=move || busy.get()>"Add check"</button>
                </div>
                {move || error.get().map(|e| view! { <p class="error" role="alert" data-testid="check-form-error">{e}</p> })}
            </form>
        </details>
    }
}
