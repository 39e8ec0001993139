//! The task board (`/tasks`): tasks by where they stand, with counted filters, each with its goal,
//! summary and how long ago it was active; "New task" starts one from a message and opens it;
//! delete asks for a second click. Live from task events. Keys, anywhere on the board but in a
//! field: j/k or arrows move the selection, Enter opens the selected task. On a first run (no
//! tasks, and no provider or an empty graph) a three-step walkthrough stands in for the board.

use leptos::prelude::*;
use leptos_router::components::A;
use leptos_router::hooks::use_navigate;
use nomos_types::tasks::{BoardColumn, TaskBoard};
use nomos_types::{IpcError, Task};

use crate::components::{answer, stored_skips, FirstRun, IpcErrorView};
use crate::events::Topic;
use crate::first_run::{shows_walkthrough, step_states, Facts, StepState};
use crate::keys::{movement, step, KeyTarget};
use crate::live::use_live;
use crate::steady::steady;
use crate::task_feed::use_task_feed;
use crate::tasks::board::{column_label, DeleteArm, Filter};
use crate::tasks::time::ago;
use crate::{ipc, routes};

/// What the board shows.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Mode {
    Loading,
    /// The first run's walkthrough, in place of an empty board.
    Walkthrough,
    Board,
}

#[component]
pub fn TasksPage() -> impl IntoView {
    let live = use_live();
    let board = steady(LocalResource::new(move || {
        live.track(Topic::Tasks);
        async move { ((), ipc::list_tasks().await) }
    }));
    // What the first run needs to know: a provider in use, anything in the graph.
    let provider_read = RwSignal::new(0u32);
    let provider = LocalResource::new(move || {
        provider_read.track();
        ipc::provider_status()
    });
    let store = LocalResource::new(move || {
        live.track(Topic::Graph);
        ipc::store_info()
    });
    let skipped = RwSignal::new(stored_skips());
    // `None` until all three are known (then kept while one is read again).
    let facts = Memo::new(move |before: Option<&Option<Option<Facts>>>| {
        let known = || {
            let tasks = board.get()?.ok()?.tasks.len();
            let provider = provider.get()?.map(|p| p.in_use.is_some());
            let entities = store.get()?.map(|s| s.entities);
            Some(match (provider, entities) {
                (Ok(provider), Ok(entities)) => Some(Facts { tasks, provider, entities }),
                // Not knowing is no reason to stand in the way: the plain board.
                _ => None,
            })
        };
        known().or_else(|| before.cloned().flatten())
    });
    let mode = Memo::new(move |_| match (board.get(), facts.get()) {
        (None, _) => Mode::Loading,
        (Some(Ok(b)), None) if b.tasks.is_empty() => Mode::Loading,
        (_, Some(Some(f))) if shows_walkthrough(f) => {
            let states = skipped.with(|s| step_states(f, s));
            let open = states.iter().any(|(_, st)| matches!(st, StepState::Current | StepState::Todo));
            if open {
                Mode::Walkthrough
            } else {
                Mode::Board
            }
        }
        _ => Mode::Board,
    });
    let facts_now = Signal::derive(move || facts.get().flatten().unwrap_or_default());
    let filter = RwSignal::new(Filter::All);
    view! {
        <div class="board" data-testid="task-board">
            {move || match mode.get() {
                Mode::Loading => view! { <p class="muted pad" aria-busy="true">"Loading tasks…"</p> }.into_any(),
                Mode::Walkthrough => view! {
                    <FirstRun facts=facts_now skipped=skipped provider_read=provider_read>
                        <NewTask />
                    </FirstRun>
                }
                .into_any(),
                Mode::Board => view! { <Board board=board filter=filter /> }.into_any(),
            }}
        </div>
    }
}

/// The board itself: the message box, the filters and the tasks.
#[component]
fn Board(board: Signal<Option<Result<TaskBoard, IpcError>>>, filter: RwSignal<Filter>) -> impl IntoView {
    let selected = RwSignal::new(None::<String>);
    let arm = RwSignal::new(DeleteArm::default());
    // An armed delete is disarmed by a press or a focus anywhere but on a delete button: its row
    // may have been redrawn since it was armed (a reload), and the new button never had the focus
    // whose loss (`blur`) would disarm it.
    let elsewhere = move |target: Option<web_sys::EventTarget>| {
        use wasm_bindgen::JsCast;
        let on_delete = target
            .and_then(|t| t.dyn_into::<web_sys::Element>().ok())
            .and_then(|el| el.closest("[data-testid=task-delete]").ok().flatten())
            .is_some();
        if !on_delete && arm.with_untracked(DeleteArm::any_armed) {
            arm.update(DeleteArm::disarm);
        }
    };
    let presses = window_event_listener(leptos::ev::pointerdown, move |ev| elsewhere(ev.target()));
    let focuses = window_event_listener(leptos::ev::focusin, move |ev| elsewhere(ev.target()));
    on_cleanup(move || {
        presses.remove();
        focuses.remove();
    });
    view! {
        <NewTask />
        <div class="tabs" role="tablist" aria-label="Filter tasks">
            {Filter::ALL
                .into_iter()
                .map(|f| {
                    let count = move || {
                        board.get().and_then(Result::ok).map(|b| f.count(&b).to_string()).unwrap_or_default()
                    };
                    view! {
                        <button
                            role="tab"
                            class="tab"
                            aria-selected=move || (filter.get() == f).to_string()
                            data-testid=format!("filter-{}", f.key())
                            on:click=move |_| filter.set(f)
                        >
                            {f.label()}
                            " "
                            <span class="tab-count" data-testid=format!("count-{}", f.key())>{count}</span>
                        </button>
                    }
                })
                .collect_view()}
        </div>
        {move || {
            answer(
                board.get(),
                "Loading tasks…",
                move |b| view! { <TaskRows board=b filter=filter selected=selected arm=arm /> }.into_any(),
            )
        }}
    }
}

/// The message box that starts a task.
#[component]
fn NewTask() -> impl IntoView {
    let navigate = use_navigate();
    let text = RwSignal::new(String::new());
    let busy = RwSignal::new(false);
    let error = RwSignal::new(None::<IpcError>);
    let submit = move || {
        let message = text.get_untracked().trim().to_string();
        if message.is_empty() || busy.get_untracked() {
            return;
        }
        busy.set(true);
        error.set(None);
        let navigate = navigate.clone();
        leptos::task::spawn_local(async move {
            match ipc::create_task(message).await {
                Ok(started) => {
                    text.set(String::new());
                    navigate(&routes::task(&started.task_id), Default::default());
                }
                Err(e) => error.set(Some(e)),
            }
            busy.set(false);
        });
    };
    let submit_key = submit.clone();
    view! {
        <form class="new-task" on:submit=move |ev| {
            ev.prevent_default();
            submit();
        }>
            <textarea
                rows="2"
                placeholder="New task: tell Nomos what you want done (Ctrl+Enter to start)"
                aria-label="New task"
                data-testid="new-task-input"
                bind:value=text
                on:keydown=move |ev| {
                    if ev.key() == "Enter" && (ev.ctrl_key() || ev.meta_key()) {
                        ev.prevent_default();
                        submit_key();
                    }
                }
            ></textarea>
            <button
                type="submit"
                class="primary"
                data-testid="new-task-submit"
                disabled=move || busy.get() || text.get().trim().is_empty()
            >
                {move || if busy.get() { "Starting…" } else { "New task" }}
            </button>
        </form>
        {move || error.get().map(|e| view! { <IpcErrorView error=e /> })}
    }
}

/// The rows of one reading of the board. Which task is selected and which delete is armed live a
/// level up, by task id, so a reload (any task's event, from here or another process) keeps them.
#[component]
fn TaskRows(
    board: TaskBoard,
    filter: RwSignal<Filter>,
    selected: RwSignal<Option<String>>,
    arm: RwSignal<DeleteArm>,
) -> impl IntoView {
    let tasks = StoredValue::new(board.tasks);
    let shown = Memo::new(move |_| {
        let f = filter.get();
        tasks.with_value(|t| t.iter().filter(|t| f.shows(t)).cloned().collect::<Vec<Task>>())
    });
    let navigate = use_navigate();
    let position = move || {
        selected.with_untracked(|id| {
            id.as_ref().and_then(|id| shown.with_untracked(|s| s.iter().position(|t| &t.id == id)))
        })
    };
    // On the window: the board has the keys as soon as it shows, nothing needs focusing first.
    let keys = window_event_listener(leptos::ev::keydown, move |ev| {
        let at = KeyTarget::of(&ev);
        if ev.key() == "Enter" {
            if at != KeyTarget::Page {
                return;
            }
            if let Some(id) = position().and(selected.get_untracked()) {
                ev.prevent_default();
                navigate(&routes::task(&id), Default::default());
            }
            return;
        }
        let Some(delta) = movement(&ev.key()).filter(|_| at != KeyTarget::Field) else { return };
        ev.prevent_default();
        let index = step(position(), shown.with_untracked(Vec::len), delta);
        selected.set(index.and_then(|i| shown.with_untracked(|s| s.get(i).map(|t| t.id.clone()))));
        let row = index.and_then(|i| {
            document().query_selector(&format!("[data-testid=task-row]:nth-child({})", i + 1)).ok().flatten()
        });
        if let Some(row) = row {
            row.scroll_into_view_with_bool(false);
        }
    });
    on_cleanup(move || keys.remove());
    move || {
        let list = shown.get();
        if list.is_empty() {
            let empty = match filter.get() {
                Filter::All => "No tasks yet. Give Nomos a goal above.".to_string(),
                Filter::Column(c) => format!("Nothing in “{}”.", column_label(c)),
            };
            return view! { <p class="muted pad" data-testid="no-tasks">{empty}</p> }.into_any();
        }
        let rows = list.into_iter().map(|t| view! { <TaskRow task=t selected=selected arm=arm /> }).collect_view();
        view! {
            <ul class="task-rows" aria-label="Tasks" data-testid="task-rows">
                {rows}
            </ul>
        }
        .into_any()
    }
}

#[component]
fn TaskRow(task: Task, selected: RwSignal<Option<String>>, arm: RwSignal<DeleteArm>) -> impl IntoView {
    let feed = use_task_feed();
    let column = BoardColumn::of(&task);
    let badge = match (column, task.waiting_for) {
        (BoardColumn::NeedsYou, Some(w)) => format!("needs you: {w}"),
        (BoardColumn::Done, Some(_)) | (BoardColumn::Done, None) => {
            task.outcome.map(|o| format!("done: {o}")).unwrap_or_else(|| "done".into())
        }
        (BoardColumn::Failed, _) => task.status.to_string(),
        _ => column_label(column).to_lowercase(),
    };
    let last_active = task.last_active_at.clone();
    let when = move || ago(feed.now_ms.get(), &last_active);
    let id = task.id.clone();
    let id_armed = id.clone();
    let id_selected = id.clone();
    let armed = Signal::derive(move || arm.with(|a| a.is_armed(&id_armed)));
    let delete_error = RwSignal::new(None::<IpcError>);
    let on_delete = move |_| {
        if arm.try_update(|a| a.click(&id)).unwrap_or(false) {
            let id = id.clone();
            leptos::task::spawn_local(async move {
                if let Err(e) = ipc::delete_task(id).await {
                    delete_error.set(Some(e));
                }
            });
        }
    };
    let goal = if task.goal.is_empty() || task.goal == task.title { None } else { Some(task.goal.clone()) };
    view! {
        <li
            class="task-row"
            class:selected=move || selected.with(|s| s.as_ref() == Some(&id_selected))
            data-testid="task-row"
            data-task-id=task.id.clone()
            data-column=column.as_str()
        >
            <span class=format!("col-dot col-{}", column.as_str())></span>
            <div class="task-main">
                <A href=routes::task(&task.id) attr:class="task-title" attr:data-testid="task-link">{task.title.clone()}</A>
                {goal.map(|g| view! { <div class="task-goal muted">{g}</div> })}
                {(!task.summary.is_empty()).then(|| view! { <div class="task-summary" data-testid="task-summary">{task.summary.clone()}</div> })}
                {move || delete_error.get().map(|e| view! { <p class="error">{e.message}</p> })}
            </div>
            <span class=format!("badge col-{}", column.as_str()) data-testid="task-status">{badge}</span>
            <span class="when muted" title=task.last_active_at.clone()>{when}</span>
            <button
                class="delete"
                class:armed=armed
                data-testid="task-delete"
                title="Delete the task (its knowledge is kept)"
                on:click=on_delete
                on:blur=move |_| arm.update(DeleteArm::disarm)
            >
                {move || if armed.get() { "Click again to delete" } else { "Delete" }}
            </button>
        </li>
    }
}
