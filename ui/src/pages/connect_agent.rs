//! Settings → Connect an agent: the snippets that give Claude Code, Codex, Goose or Cursor Oikos as
//! their hands (`nomos mcp serve`), and the clients connected now.

use std::time::Duration;

use leptos::prelude::*;
use nomos_types::mcp::{ConnectSnippet, McpConnect};
use nomos_types::IpcError;

use crate::components::{answer, CodeBlock};
use crate::{ipc, routes, ticker};

#[component]
pub fn ConnectAgentSection() -> impl IntoView {
    // The sessions change by themselves (a client connects in another window): looked at again
    // every few seconds while the window shows.
    let look = RwSignal::new(0u32);
    let sessions = LocalResource::new(move || {
        look.track();
        ipc::mcp_connect()
    });
    ticker::every(Duration::from_secs(5), "connected agents", move || look.update(|n| *n += 1));
    // The snippets come with every look but hardly ever change: drawn again only when they do, so
    // a selection in them survives the next look; a look that fails keeps the ones shown.
    let snippets = Memo::new(move |shown: Option<&Option<Result<Vec<ConnectSnippet>, IpcError>>>| {
        match (sessions.get().map(|r| r.map(|c| c.snippets)), shown) {
            (Some(Err(_)), Some(Some(Ok(kept)))) => Some(Ok(kept.clone())),
            (now, _) => now,
        }
    });
    view! {
        <section class="card" aria-labelledby="connect-title" data-testid="connect-agent">
            <h2 id="connect-title">"Connect an agent"</h2>
            <p class="muted">
                "A coding agent can use Oikos as its hands: it reads the graph, the notes and the signals, and \
                 runs commands through the same gate as Nomos. What only reads runs at once; a change waits in \
                 Approvals for you, under the agent's name, and no agent can approve its own request. Each \
                 connection is its own task: approving one of its changes opens that session's window (further \
                 non-destructive changes for 30 minutes), never another agent's; Operations → Autonomy revokes it."
            </p>
            <h3>"Connected now"</h3>
            {move || {
                answer(
                    sessions.get(),
                    "Loading…",
                    |c: McpConnect| {
                        if c.sessions.is_empty() {
                            return view! { <p class="muted" data-testid="mcp-sessions-none">"No agent is connected."</p> }
                                .into_any();
                        }
                        view! {
                            <ul class="plain-list" data-testid="mcp-sessions">
                                {c
                                    .sessions
                                    .into_iter()
                                    .map(|s| {
                                        let task = s.task_id.clone().unwrap_or_default();
                                        view! {
                                            <li data-testid="mcp-session">
                                                <strong>{s.title.clone()}</strong>
                                                " "
                                                <span class="muted">{s.version.clone()}</span>
                                                " · since "
                                                <span title=s.started_at.clone()>{since(&s.started_at)}</span>
                                                " · "
                                                <a href=routes::task(&task)>"its requests"</a>
                                            </li>
                                        }
                                    })
                                    .collect_view()}
                            </ul>
                        }
                            .into_any()
                    },
                )
            }}
            <h3>"How to connect"</h3>
            {move || {
                answer(
                    snippets.get(),
                    "Loading…",
                    |snippets: Vec<ConnectSnippet>| {
                        snippets
                            .into_iter()
                            .map(|s| {
                                view! {
                                    <div class="snippet" data-testid="mcp-snippet">
                                        <p>
                                            <strong>{s.client.clone()}</strong>
                                            <span class="muted">{format!(" — {}", s.place)}</span>
                                        </p>
                                        <CodeBlock lang=None code=s.text.clone() />
                                    </div>
                                }
                            })
                            .collect_view()
                            .into_any()
                    },
                )
            }}
        </section>
    }
}

/// `2026-12-02T22:14:01.745Z` → `22:14 UTC` (by characters: never a byte index into text).
fn since(ts: &str) -> String {
    let hm: String = ts.chars().skip(11).take(5).collect();
    if hm.len() == 5 {
        format!("{hm} UTC")
    } else {
        ts.to_string()
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn since_is_the_hour_and_minute() {
        assert_eq!(super::since("2026-12-02T22:14:01.745Z"), "22:14 UTC");
        assert_eq!(super::since("ünï"), "ünï");
    }
}
