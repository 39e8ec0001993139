//! One waiting approval, with everything needed to decide: task, target, risk and the
//! classifier's reasons, the exact command, purpose, blast radius and time left; Approve / Deny.
//! A destructive one needs the typed confirmation, checked as it is typed by the gate's own rule
//! (`check_confirmation`). Used on the approvals page and inline in a task's view; a card
//! decided elsewhere disappears when its list re-reads on the `approval.decided` event.

use leptos::prelude::*;
use leptos::task::spawn_local;
use leptos_router::components::A;
use nomos_types::{Approval, Json};

use crate::components::Countdown;
use crate::{ipc, routes};

/// The blast radius the gate recorded: its summary line and the entities it names.
fn blast(approval: &Approval) -> (String, Vec<String>) {
    let summary = approval.blast_radius.get("summary").and_then(Json::as_str).unwrap_or("blast radius unknown");
    let entities: Vec<String> = approval
        .blast_radius
        .get("entities")
        .and_then(Json::as_array)
        .map(|list| list.iter().filter_map(Json::as_str).map(str::to_string).collect())
        .unwrap_or_default();
    // "affects 3: a, b, c" → "affects 3:", the entities follow as links.
    let head = match summary.split_once(':') {
        Some((head, _)) if !entities.is_empty() => format!("{head}:"),
        _ => summary.to_string(),
    };
    (head, entities)
}

#[derive(Clone, Debug, PartialEq)]
enum State {
    Waiting,
    Busy,
    /// Decided here; the list drops the card on its next read.
    Done(&'static str),
}

#[component]
pub fn ApprovalCard(
    approval: Approval,
    /// The engine's time when `approval` was read (its countdown starts from there).
    engine_now: String,
) -> impl IntoView {
    let id = approval.id.clone();
    let state = RwSignal::new(State::Waiting);
    let error = RwSignal::new(None::<String>);
    let typed = RwSignal::new(String::new());
    let confirmed = RwSignal::new(!approval.requires_confirmation);
    let needs_confirmation = approval.requires_confirmation;

    let on_type = {
        let id = id.clone();
        move |ev| {
            let text = event_target_value(&ev);
            typed.set(text.clone());
            confirmed.set(false);
            let id = id.clone();
            spawn_local(async move {
                let ok = ipc::check_confirmation(id, text.clone()).await;
                // Only the answer for what the field still holds counts.
                if typed.try_get_untracked().as_deref() == Some(text.as_str()) {
                    match ok {
                        Ok(ok) => {
                            confirmed.try_set(ok);
                        }
                        Err(e) => {
                            error.try_set(Some(e.message));
                        }
                    }
                }
            });
        }
    };
    let decide = move |approve: bool| {
        let id = id.clone();
        state.set(State::Busy);
        error.set(None);
        spawn_local(async move {
            let result = if approve {
                let confirmation = needs_confirmation.then(|| typed.get_untracked());
                ipc::approve(id, confirmation).await.map(|_| "Approved — running")
            } else {
                ipc::deny(id, None).await.map(|_| "Denied")
            };
            match result {
                Ok(done) => {
                    state.try_set(State::Done(done));
                }
                Err(e) => {
                    state.try_set(State::Waiting);
                    error.try_set(Some(e.message));
                }
            }
        });
    };
    let approve = {
        let decide = decide.clone();
        move |_| decide(true)
    };
    let deny = move |_| decide(false);

    let (blast_head, blast_entities) = blast(&approval);
    let Approval {
        id: approval_id,
        task_id,
        target,
        command,
        purpose,
        risk,
        reasons,
        expires_at,
        confirmation,
        requested_by,
        ..
    } = approval;
    // Another agent asking (an MCP client) is named on the card.
    let asker = nomos_types::mcp::asker(&requested_by).map(|who| {
        view! {
            <span
                class="asker"
                data-testid="approval-asker"
                title="Approving opens this agent's session window: its further non-destructive changes run for 30 minutes without asking"
            >
                {format!("{who} asks")}
            </span>
        }
    });
    let reasons = reasons
        .into_iter()
        .map(|r| {
            let parts = code_spans(&r)
                .into_iter()
                .map(|(code, text)| if code { view! { <code>{text}</code> }.into_any() } else { text.into_any() })
                .collect_view();
            view! { <li>{parts}</li> }
        })
        .collect_view();
    let blast_links = blast_entities
        .into_iter()
        .map(|slug| view! { <A href=routes::entity(&slug) attr:class="link">{slug.clone()}</A> })
        .collect_view();
    let task = task_id.map(|t| {
        view! {
            <span class="muted">"task "</span>
            <A href=routes::task(&t) attr:class="link" attr:data-testid="approval-task">{t.clone()}</A>
        }
    });
    let phrase = confirmation.unwrap_or_default();
    let confirm_field = needs_confirmation.then(|| {
        view! {
            <label class="confirm">
                <span>"Type " <code>{phrase.clone()}</code> " to approve"</span>
                <input
                    type="text"
                    autocomplete="off"
                    spellcheck="false"
                    placeholder=phrase.clone()
                    aria-label="Typed confirmation"
                    data-testid="approval-confirm"
                    class:matches=move || confirmed.get()
                    prop:value=move || typed.get()
                    on:input=on_type
                />
            </label>
        }
    });
    let waiting = move || state.get() == State::Waiting;

    view! {
        <article
            class=format!("approval-card risk-{risk}")
            tabindex="-1"
            data-testid="approval-card"
            data-approval-id=approval_id
        >
            <header class="approval-head">
                <span class=format!("risk risk-{risk}") data-testid="approval-risk">{risk.to_string()}</span>
                <A href=routes::entity(&target) attr:class="link" attr:data-testid="approval-target">
                    {target.clone()}
                </A>
                {task}
                {asker}
                <span class="spacer"></span>
                <span class="muted">"expires in "</span>
                <Countdown expires_at=expires_at engine_now=engine_now />
            </header>
            <pre class="command" data-testid="approval-command"><code>{command}</code></pre>
            <p class="purpose">{purpose}</p>
            <ul class="reasons" aria-label="Why this risk">{reasons}</ul>
            <p class="blast-line" data-testid="approval-blast">{blast_head} " " {blast_links}</p>
            {confirm_field}
            <footer class="approval-actions">
                {move || match state.get() {
                    State::Done(done) => view! { <span class="muted" data-testid="approval-done">{done}</span> }.into_any(),
                    _ => view! {
                        <button
                            class="primary"
                            data-testid="approval-approve"
                            prop:disabled=move || !waiting() || !confirmed.get()
                            on:click=approve.clone()
                        >
                            "Approve"
                        </button>
                        <button
                            class="secondary"
                            data-testid="approval-deny"
                            prop:disabled=move || !waiting()
                            on:click=deny.clone()
                        >
                            "Deny"
                        </button>
                    }
                    .into_any(),
                }}
                {move || error.get().map(|e| view! { <span class="error" role="alert" data-testid="approval-error">{e}</span> })}
            </footer>
        </article>
    }
}

/// A reason's text and its `code` spans (the classifier quotes commands and paths in backticks), as
/// (is code, text) in order. A backtick left unpaired is kept as it was written.
fn code_spans(reason: &str) -> Vec<(bool, String)> {
    let pieces: Vec<&str> = reason.split('`').collect();
    // An even number of pieces means an odd number of backticks: the last one has no pair.
    let unpaired = pieces.len() % 2 == 0;
    let mut out: Vec<(bool, String)> = Vec::new();
    for (i, piece) in pieces.iter().enumerate() {
        let code = i % 2 == 1 && !(unpaired && i == pieces.len() - 1);
        let text = if i % 2 == 1 && !code { format!("`{piece}") } else { (*piece).to_string() };
        match out.last_mut() {
            Some((false, last)) if !code => last.push_str(&text),
            _ if text.is_empty() => {}
            _ => out.push((code, text)),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use nomos_types::{ApprovalStatus, Risk};
    use serde_json::json;

    use super::*;

    fn approval(blast_radius: Json) -> Approval {
        Approval {
            id: "a".into(),
            execution_id: "x".into(),
            task_id: None,
            status: ApprovalStatus::Pending,
            requires_confirmation: false,
            confirmation: None,
            target: "lxc:caddy".into(),
            command: "systemctl restart caddy".into(),
            purpose: "p".into(),
            requested_by: "agent:nomos".into(),
            risk: Risk::ConfigMutation,
            reasons: vec![],
            blast_radius,
            expires_at: "2026-01-01T00:00:00.000Z".into(),
            decided_at: None,
            decided_by: None,
            channel: None,
            grant_message: None,
            created_at: "2026-01-01T00:00:00.000Z".into(),
        }
    }

    #[test]
    fn reasons_show_their_backticked_parts_as_code() {
        let t = |s: &str| s.to_string();
        assert_eq!(
            code_spans("`rm -rf` removes files under `/var/lib/vz`"),
            vec![(true, t("rm -rf")), (false, t(" removes files under ")), (true, t("/var/lib/vz"))]
        );
        assert_eq!(code_spans("plain words"), vec![(false, t("plain words"))]);
        assert_eq!(code_spans(""), vec![]);
        // An unpaired backtick stays as written; non-ASCII text is kept whole.
        assert_eq!(code_spans("`zfs` on größe `pool"), vec![(true, t("zfs")), (false, t(" on größe `pool"))]);
        assert_eq!(code_spans("a `` b"), vec![(false, t("a  b"))]);
    }

    #[test]
    fn blast_line_names_the_affected_entities() {
        let a = approval(json!({"count": 2, "summary": "affects 2: svc:a, svc:b", "entities": ["svc:a", "svc:b"]}));
        assert_eq!(blast(&a), ("affects 2:".to_string(), vec!["svc:a".to_string(), "svc:b".to_string()]));
        let none = approval(json!({"count": 0, "summary": "affects nothing else known", "entities": []}));
        assert_eq!(blast(&none), ("affects nothing else known".to_string(), vec![]));
        let unknown = approval(json!({"count": null, "summary": "blast radius unknown: x"}));
        assert_eq!(blast(&unknown).0, "blast radius unknown: x");
    }
}
