//! Operations: executions live (running ones with their output streaming and Cancel; finished
//! ones with exit status, duration and output), the audit ledger filtered by task, target, actor
//! and risk, and autonomy (open windows with time left, Pause / Resume).

use leptos::prelude::*;
use leptos::task::spawn_local;
use leptos_router::components::A;
use nomos_types::{AuditEntry, AuditQuery, Autonomy, Execution, ExecutionQuery, ExecutionStatus, Page, Risk};
use wasm_bindgen::JsCast;

use crate::clock::format_duration;
use crate::components::{answer, Countdown};
use crate::events::Topic;
use crate::exec_feed::use_exec_feed;
use crate::keys::KeyTarget;
use crate::live::use_live;
use crate::output::{Folded, Stream};
use crate::steady::steady;
use crate::{ipc, routes};

const LEDGER_PAGE: u32 = 50;

/// The statuses the executions can be filtered by, in the order offered (`approved` lasts only a
/// moment before `running`).
const FILTERED_STATUSES: [ExecutionStatus; 7] = [
    ExecutionStatus::Running,
    ExecutionStatus::PendingApproval,
    ExecutionStatus::Completed,
    ExecutionStatus::Failed,
    ExecutionStatus::Cancelled,
    ExecutionStatus::Denied,
    ExecutionStatus::Expired,
];

/// A filter field's value, `None` when blank.
fn filter_value(s: String) -> Option<String> {
    Some(s.trim().to_string()).filter(|s| !s.is_empty())
}

#[component]
pub fn OperationsPage() -> impl IntoView {
    // `/` goes to the executions' filters.
    let on_key = move |ev: leptos::ev::KeyboardEvent| {
        if ev.key() != "/" || KeyTarget::of(&ev) == KeyTarget::Field {
            return;
        }
        let field = document().query_selector("[data-testid=exec-filter-task]").ok().flatten();
        if let Some(field) = field.and_then(|f| f.dyn_into::<web_sys::HtmlElement>().ok()) {
            ev.prevent_default();
            let _ = field.focus();
        }
    };
    view! {
        <section class="page operations" data-testid="operations-page" on:keydown=on_key>
            <h1>"Operations"</h1>
            <AutonomySection />
            <Executions />
            <Ledger />
        </section>
    }
}

#[component]
fn Executions() -> impl IntoView {
    let live = use_live();
    let task = RwSignal::new(String::new());
    let target = RwSignal::new(String::new());
    let status = RwSignal::new(String::new());
    let query = Memo::new(move |_| ExecutionQuery {
        task_id: filter_value(task.get()),
        target: filter_value(target.get()),
        status: status.get().parse::<ExecutionStatus>().ok(),
        limit: Some(50),
    });
    let list = steady(LocalResource::new(move || {
        live.track(Topic::Executions);
        let query = query.get();
        async move { (query.clone(), ipc::executions(query).await) }
    }));
    // Changes only between loading, failed, empty and not: the rows below update on their own.
    let shape = Memo::new(move |_| list.get().map(|r| r.map(|l| l.is_empty())));
    view! {
        <h2>"Executions"</h2>
        <div class="filters-row">
            <input type="search" placeholder="Task id" aria-label="Filter executions by task"
                data-testid="exec-filter-task" on:change=move |ev| task.set(event_target_value(&ev)) />
            <input type="search" placeholder="Target (lxc:caddy)" aria-label="Filter executions by target"
                data-testid="exec-filter-target" on:change=move |ev| target.set(event_target_value(&ev)) />
            <select aria-label="Filter executions by status" data-testid="exec-filter-status"
                on:change=move |ev| status.set(event_target_value(&ev))>
                <option value="">"Any status"</option>
                {FILTERED_STATUSES.map(|s| view! { <option value=s.as_str()>{s.as_str()}</option> })}
            </select>
        </div>
        {move || answer(shape.get(), "Reading executions…", move |empty: bool| {
            if empty {
                return view! { <p class="muted" data-testid="executions-empty">"No executions match."</p> }.into_any();
            }
            // Keyed by id and status: a row stays as it is (its output, its buttons) while other
            // executions come and go, and is rebuilt when its own state changes.
            view! {
                <For
                    each=move || list.get().and_then(Result::ok).unwrap_or_default()
                    key=|x: &Execution| (x.id.clone(), x.status)
                    children=|x| view! { <ExecutionRow execution=x /> }
                />
            }
            .into_any()
        })}
    }
}

fn output_view(pieces: Vec<(Stream, String)>) -> impl IntoView {
    pieces
        .into_iter()
        .map(|(stream, text)| {
            let class = if stream == Stream::Stderr { "stderr" } else { "stdout" };
            view! { <span class=class>{text}</span> }
        })
        .collect_view()
}

#[component]
fn ExecutionRow(execution: Execution) -> impl IntoView {
    let feed = use_exec_feed();
    let error = RwSignal::new(None::<String>);
    let Execution { id, task_id, target, command, risk, status, exit_code, duration_ms, stdout, stderr, .. } =
        execution;
    let running = status == ExecutionStatus::Running;
    let task = task_id.map(|t| view! { <A href=routes::task(&t) attr:class="link">{t.clone()}</A> });
    let body = if running {
        let stream_id = id.clone();
        let cancel_id = id.clone();
        let streamed = move || {
            let folded: Option<Folded> = feed.output.with(|o| o.of(&stream_id).cloned());
            match folded {
                Some(f) => {
                    let dropped = f.dropped.then_some("… (earlier output not shown)\n");
                    view! { {dropped} {output_view(f.pieces)} }.into_any()
                }
                // Output written before this window opened is in the record.
                None => view! { {stdout.clone()} <span class="stderr">{stderr.clone()}</span> }.into_any(),
            }
        };
        let cancel = move |_| {
            let id = cancel_id.clone();
            spawn_local(async move {
                if let Err(e) = ipc::cancel_execution(id).await {
                    error.try_set(Some(e.message));
                }
            });
        };
        view! {
            <pre class="output" data-testid="exec-output">{streamed}</pre>
            <button class="secondary" data-testid="exec-cancel" on:click=cancel>"Cancel"</button>
        }
        .into_any()
    } else {
        let summary = format!(
            "{}{}{}",
            status,
            exit_code.map(|c| format!(" · exit {c}")).unwrap_or_default(),
            duration_ms.map(|d| format!(" · {}", format_duration(d))).unwrap_or_default()
        );
        let has_output = !stdout.is_empty() || !stderr.is_empty();
        view! {
            <p class="muted" data-testid="exec-summary">{summary}</p>
            {has_output.then(|| view! {
                <details>
                    <summary>"Output"</summary>
                    <pre class="output" data-testid="exec-output">{stdout} <span class="stderr">{stderr}</span></pre>
                </details>
            })}
        }
        .into_any()
    };
    let shown_id = id.clone();
    view! {
        <article class="exec" data-testid="execution" data-execution-id=id data-status=status.to_string()>
            <header class="exec-head">
                <span class=format!("risk risk-{risk}")>{risk.to_string()}</span>
                <A href=routes::entity(&target) attr:class="link">{target.clone()}</A>
                {task}
                <span class="spacer"></span>
                <code class="muted">{shown_id}</code>
            </header>
            <pre class="command"><code>{command}</code></pre>
            {body}
            {move || error.get().map(|e| view! { <p class="error" role="alert">{e}</p> })}
        </article>
    }
}

#[component]
fn Ledger() -> impl IntoView {
    let live = use_live();
    let task = RwSignal::new(String::new());
    let target = RwSignal::new(String::new());
    let actor = RwSignal::new(String::new());
    let risk = RwSignal::new(String::new());
    let offset = RwSignal::new(0u32);
    let query = Memo::new(move |_| AuditQuery {
        task_id: filter_value(task.get()),
        target: filter_value(target.get()),
        actor: filter_value(actor.get()),
        risk: risk.get().parse::<Risk>().ok(),
        limit: Some(LEDGER_PAGE),
        offset: Some(offset.get()),
    });
    let page = steady(LocalResource::new(move || {
        // Ledger lines are written with the events of these areas.
        live.track(Topic::Executions);
        live.track(Topic::Approvals);
        live.track(Topic::Windows);
        let query = query.get();
        async move { (query.clone(), ipc::audit(query).await) }
    }));
    let set = move |field: RwSignal<String>| {
        move |ev| {
            field.set(event_target_value(&ev));
            offset.set(0);
        }
    };
    view! {
        <h2>"Audit ledger"</h2>
        <div class="filters-row">
            <input type="search" placeholder="Task id" aria-label="Filter the ledger by task"
                data-testid="audit-filter-task" on:change=set(task) />
            <input type="search" placeholder="Target" aria-label="Filter the ledger by target"
                data-testid="audit-filter-target" on:change=set(target) />
            <input type="search" placeholder="Actor (operator, agent, system…)" aria-label="Filter the ledger by actor"
                data-testid="audit-filter-actor" on:change=set(actor) />
            <select aria-label="Filter the ledger by risk" data-testid="audit-filter-risk" on:change=set(risk)>
                <option value="">"Any risk"</option>
                {["read_only", "reversible_low", "config_mutation", "destructive"]
                    .map(|r| view! { <option value=r>{r}</option> })}
            </select>
        </div>
        {move || answer(page.get(), "Reading the ledger…", move |page: Page<AuditEntry>| {
            if page.items.is_empty() {
                return view! { <p class="muted" data-testid="audit-empty">"No ledger lines match."</p> }.into_any();
            }
            let count = u32::try_from(page.items.len()).unwrap_or(u32::MAX);
            let rows = page
                .items
                .into_iter()
                .map(|e| {
                    view! {
                        <tr data-testid="audit-row">
                            <td class="muted">{e.at}</td>
                            <td>{e.actor}</td>
                            <td>{e.action}</td>
                            <td>{e.target.unwrap_or_default()}</td>
                            <td>{e.risk.map(|r| r.to_string()).unwrap_or_default()}</td>
                            <td class="muted">{e.task_id.unwrap_or_default()}</td>
                        </tr>
                    }
                })
                .collect_view();
            let shown_to = page.offset + count;
            let more = u64::from(shown_to) < page.total;
            view! {
                <table class="ledger">
                    <thead><tr><th>"When"</th><th>"Actor"</th><th>"Action"</th><th>"Target"</th><th>"Risk"</th><th>"Task"</th></tr></thead>
                    <tbody>{rows}</tbody>
                </table>
                <div class="pager">
                    <button disabled=page.offset == 0
                        on:click=move |_| offset.update(|o| *o = o.saturating_sub(LEDGER_PAGE))>"Newer"</button>
                    <span class="muted">{format!("{}–{} of {}", page.offset + 1, shown_to, page.total)}</span>
                    <button disabled=!more on:click=move |_| offset.update(|o| *o += LEDGER_PAGE)>"Older"</button>
                </div>
            }
            .into_any()
        })}
    }
}

#[component]
fn AutonomySection() -> impl IntoView {
    let live = use_live();
    let error = RwSignal::new(None::<String>);
    let state = steady(LocalResource::new(move || {
        live.track(Topic::Windows);
        async move { ((), ipc::autonomy().await) }
    }));
    let toggle = move |paused: bool| {
        spawn_local(async move {
            match ipc::set_autonomy_paused(paused).await {
                Ok(_) => error.try_set(None),
                Err(e) => error.try_set(Some(e.message)),
            };
        });
    };
    view! {
        <h2>"Autonomy"</h2>
        {move || answer(state.get(), "Reading autonomy…", move |a: Autonomy| {
            let Autonomy { paused, windows, now } = a;
            let line = if paused {
                "Paused: no window opens until you resume; every change asks you."
            } else {
                "On: approving a change opens its task's window for the next ones."
            };
            let windows = if windows.is_empty() {
                view! { <p class="muted" data-testid="windows-empty">"No window is open."</p> }.into_any()
            } else {
                windows
                    .into_iter()
                    .map(|w| {
                        let on = w.target.clone().unwrap_or_else(|| "any target".into());
                        view! {
                            <li data-testid="window">
                                {format!("{} · task ", w.kind)}
                                <A href=routes::task(&w.task_id) attr:class="link">{w.task_id.clone()}</A>
                                {format!(" · {on} · ")}
                                <Countdown expires_at=w.expires_at engine_now=now.clone() />
                                " left"
                            </li>
                        }
                    })
                    .collect_view()
                    .into_any()
            };
            view! {
                <p data-testid="autonomy-state">{line}</p>
                <ul class="windows">{windows}</ul>
                {if paused {
                    view! { <button class="primary" data-testid="autonomy-resume" on:click=move |_| toggle(false)>"Resume"</button> }.into_any()
                } else {
                    view! { <button class="secondary" data-testid="autonomy-pause" on:click=move |_| toggle(true)>"Pause"</button> }.into_any()
                }}
            }
            .into_any()
        })}
        {move || error.get().map(|e| view! { <p class="error" role="alert">{e}</p> })}
    }
}
