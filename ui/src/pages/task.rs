//! A task (`/tasks/:id`): the conversation with Nomos, its answer streaming as it is written, tool
//! calls grouped per answer, Stop and the reply box; beside it the live context panel. Re-read when
//! task events arrive; the stream is this task's own (see `tasks::stream`).

use leptos::prelude::*;
use leptos_router::hooks::use_params_map;
use nomos_types::tasks::{CallRecord, Role, TaskDetail};
use nomos_types::TaskStatus;

use crate::components::{answer, ContextPanel, IpcErrorView, Markdown, OperatorInput};
use crate::events::Topic;
use crate::live::use_live;
use crate::pages::approvals::TaskApprovals;
use crate::steady::steady;
use crate::task_feed::use_task_feed;
use crate::tasks::calls::{header, is_running, label, result_line, COLLAPSE_OVER};
use crate::{ipc, routes};

#[component]
pub fn TaskPage() -> impl IntoView {
    let live = use_live();
    let params = use_params_map();
    let id = Memo::new(move |_| params.read().get(routes::TASK_ID).unwrap_or_default());
    let detail = steady(LocalResource::new(move || {
        live.track(Topic::Tasks);
        // The knowledge it writes.
        live.track(Topic::Graph);
        let id = id.get();
        async move { (id.clone(), ipc::task_detail(id).await) }
    }));
    // What the operator types outlives re-reads of the task, not a switch to another task.
    let input = Memo::new(move |_| {
        id.track();
        OperatorInput::default()
    });
    view! {
        <div class="task-view" data-testid="task-view">
            {move || {
                answer(
                    detail.get(),
                    "Loading the task…",
                    move |d| view! { <TaskBody detail=d input=input.get_untracked() /> }.into_any(),
                )
            }}
        </div>
    }
}

#[component]
fn TaskBody(detail: TaskDetail, input: OperatorInput) -> impl IntoView {
    let id = detail.task.id.clone();
    let working = detail.task.status == TaskStatus::Working;
    view! {
        <section class="conversation" aria-label="Conversation">
            <header class="task-head">
                <h2 data-testid="task-title">{detail.task.title.clone()}</h2>
                <span class="badge" data-testid="task-view-status">
                    {match (detail.task.waiting_for, detail.task.outcome) {
                        (Some(w), _) => format!("waiting: {w}"),
                        (None, Some(o)) => format!("{}: {o}", detail.task.status),
                        (None, None) => detail.task.status.to_string(),
                    }}
                </span>
                {working.then(|| view! { <StopButton id=id.clone() input=input /> })}
            </header>
            <Messages detail=detail.clone() />
            <div class="approval-slot" data-testid="approval-cards" data-task-id=id.clone()>
                <TaskApprovals task=id.clone() />
            </div>
            {move || input.error.get().map(|e| view! { <IpcErrorView error=e /> })}
            {match detail.task.driver.as_deref().map(|d| nomos_types::mcp::asker(d).unwrap_or_else(|| d.to_string())) {
                // Another agent's session (MCP): it asks, the operator decides; Nomos does not act here.
                Some(who) => view! {
                    <p class="muted driven" data-testid="task-driven">
                        {format!(
                            "{who}'s session over MCP. Its reads ran at once; each change it asks for waits above                              and in Approvals for your decision. Nomos does not act in this task."
                        )}
                    </p>
                }
                .into_any(),
                None => view! { <ReplyBox id=id.clone() input=input /> }.into_any(),
            }}
        </section>
        <ContextPanel detail=detail input=input />
    }
}

/// The transcript, each answer followed by its tool calls, then the answer being written.
#[component]
fn Messages(detail: TaskDetail) -> impl IntoView {
    let feed = use_task_feed();
    let id = detail.task.id.clone();
    let calls = detail.tool_calls;
    let messages = detail
        .messages
        .into_iter()
        .filter(|m| m.role != Role::Tool)
        .map(|m| {
            let own: Vec<CallRecord> = calls.iter().filter(|c| c.message_id == m.id).cloned().collect();
            let body = match m.role {
                Role::User => view! { <div class="bubble user" data-testid="msg-user">{m.content}</div> }.into_any(),
                Role::Assistant if m.content.trim().is_empty() => ().into_any(),
                Role::Assistant => view! {
                    <div class="bubble nomos" data-testid="msg-nomos">
                        <Markdown source=m.content />
                    </div>
                }
                .into_any(),
                Role::System | Role::Tool => {
                    view! { <div class="note muted" data-testid="msg-note">{m.content}</div> }.into_any()
                }
            };
            view! {
                {body}
                {(!own.is_empty()).then(|| view! { <ToolCalls calls=own /> })}
            }
        })
        .collect_view();
    let streaming = move || {
        feed.streams.with(|s| s.of(&id).map(|s| s.text.clone())).map(|text| {
            view! {
                <div class="bubble nomos streaming" data-testid="msg-streaming">
                    <Markdown source=text />
                </div>
            }
        })
    };
    view! { <div class="messages" data-testid="messages">{messages}{streaming}</div> }
}

/// One answer's tool calls: a header saying what runs, the calls collapsed when there are many.
#[component]
fn ToolCalls(calls: Vec<CallRecord>) -> impl IntoView {
    let open = calls.len() <= COLLAPSE_OVER || calls.iter().any(is_running);
    let head = header(&calls);
    let rows = calls
        .into_iter()
        .map(|c| {
            let state = if c.is_error { "error" } else { c.state.as_str() };
            view! {
                <li class=format!("call call-{state}") data-testid="tool-call">
                    <span class="call-name">{label(&c)}</span>
                    <span class="call-state">{state}</span>
                    <span class="call-result muted">{result_line(&c)}</span>
                </li>
            }
        })
        .collect_view();
    view! {
        <details class="tool-calls" open=open data-testid="tool-calls">
            <summary data-testid="tool-calls-header">{head}</summary>
            <ul>{rows}</ul>
        </details>
    }
}

#[component]
fn StopButton(id: String, input: OperatorInput) -> impl IntoView {
    let stopping = RwSignal::new(false);
    let stop = move |_| {
        stopping.set(true);
        let id = id.clone();
        leptos::task::spawn_local(async move {
            if let Err(e) = ipc::stop_task(id).await {
                input.error.set(Some(e));
            }
        });
    };
    view! {
        <button class="stop" data-testid="task-stop" disabled=move || stopping.get() on:click=stop>
            {move || if stopping.get() { "Stopping…" } else { "Stop" }}
        </button>
    }
}

/// The operator's reply: Enter sends, Shift+Enter is a new line.
#[component]
fn ReplyBox(id: String, input: OperatorInput) -> impl IntoView {
    let text = input.reply;
    let busy = RwSignal::new(false);
    let send = move || {
        let message = text.get_untracked().trim().to_string();
        if message.is_empty() || busy.get_untracked() {
            return;
        }
        busy.set(true);
        input.error.set(None);
        let id = id.clone();
        leptos::task::spawn_local(async move {
            match ipc::send_task_message(id, message).await {
                Ok(_) => text.set(String::new()),
                Err(e) => input.error.set(Some(e)),
            }
            busy.set(false);
        });
    };
    let send_key = send.clone();
    view! {
        <form class="reply" on:submit=move |ev| {
            ev.prevent_default();
            send();
        }>
            <textarea
                rows="2"
                placeholder="Reply to Nomos (Enter to send, Shift+Enter for a new line)"
                aria-label="Reply"
                data-testid="reply-input"
                bind:value=text
                on:keydown=move |ev| {
                    if ev.key() == "Enter" && !ev.shift_key() {
                        ev.prevent_default();
                        send_key();
                    }
                }
            ></textarea>
            <button type="submit" class="primary" data-testid="reply-send" disabled=move || busy.get()>
                "Send"
            </button>
        </form>
    }
}
