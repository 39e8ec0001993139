//! Native notifications: a waiting approval (Approve/Deny, or Open for a destructive one), a
//! question from Nomos, a task that finished or failed. Driven by the engine's events, including
//! those other processes (the CLI, another window) write to the same database, which the
//! runtime's background work relays; so a request decided anywhere closes its notification.
//!
//! [`plan`] decides what to show and close; this module carries it out with the notification
//! plugin (which shows, closes and reports buttons on Linux and macOS) and decides through the
//! gate, on the channel "notification". Nothing depends on a notification being seen: the
//! approvals page shows every waiting request either way.

mod plan;

use nomos::actuate::Decision;
use nomos::Runtime;
use nomos_types::events::{EngineEvent, Event};
use nomos_types::{Channel, NotificationSettings};
use tauri::{AppHandle, Manager};
use tauri_plugin_notification::{Action, ActionType, NotificationExt};
use tokio::sync::broadcast::error::RecvError;
use tokio::sync::mpsc;

use plan::{ApprovalFacts, Buttons, Command, Effect, Note, Planner, ACK, APPROVE, DENY, INVESTIGATE, OPEN};

/// Registers the buttons and starts following the engine's events. The action handler is in
/// place before the first notification, as the plugin needs.
pub fn setup(app: &AppHandle, rt: &Runtime) {
    let notifications = app.notification();
    let types = vec![
        ActionType::builder(Buttons::Decide.type_id())
            .actions(vec![Action::builder(APPROVE, "Approve").build(), Action::builder(DENY, "Deny").build()])
            .build(),
        ActionType::builder(Buttons::Open.type_id()).actions(vec![Action::builder(OPEN, "Open").build()]).build(),
        ActionType::builder(Buttons::Signal.type_id())
            .actions(vec![
                Action::builder(ACK, "Ack").build(),
                Action::builder(INVESTIGATE, "Investigate").build(),
                Action::builder(OPEN, "Open").build(),
            ])
            .build(),
    ];
    if let Err(e) = notifications.register_action_types(types) {
        tracing::warn!("notification buttons unavailable: {e}");
    }
    let (actions_tx, actions_rx) = mpsc::unbounded_channel();
    let handler = notifications.on_action(move |performed| {
        if let Some(note) = performed.notification() {
            let _ = actions_tx.send((note.id(), performed.action_id().to_string()));
        }
    });
    if let Err(e) = handler {
        tracing::warn!("notification buttons unavailable: {e}");
    }
    tauri::async_runtime::spawn(follow(app.clone(), rt.clone(), actions_rx));
}

/// The one owner of the [`Planner`]: engine events and button presses, in arrival order.
async fn follow(app: AppHandle, rt: Runtime, mut actions: mpsc::UnboundedReceiver<(i32, String)>) {
    let mut events = rt.subscribe();
    let mut planner = Planner::default();
    service_check().await;
    loop {
        tokio::select! {
            event = events.recv() => match event {
                Ok(event) => {
                    let effects = on_event(&rt, &mut planner, &event).await;
                    apply(&app, effects).await;
                }
                Err(RecvError::Lagged(n)) => {
                    tracing::warn!("notifications skipped {n} events; catching up from the waiting requests");
                    match rt.actuator().pending_approvals().await {
                        Ok(waiting) => {
                            let ids: Vec<String> = waiting.into_iter().map(|a| a.id).collect();
                            let effects = planner.still_waiting(&ids);
                            apply(&app, effects).await;
                        }
                        Err(e) => tracing::warn!("cannot read the waiting requests: {e}"),
                    }
                }
                Err(RecvError::Closed) => break,
            },
            Some((note, action)) = actions.recv() => match planner.command(note, &action) {
                Some(command) => run(&app, &rt, command),
                None => tracing::info!("notification {note}: `{action}` does nothing now (already decided?)"),
            },
        }
    }
}

/// The effects of one engine event; kinds the operator turned off produce none.
async fn on_event(rt: &Runtime, planner: &mut Planner, event: &EngineEvent) -> Vec<Effect> {
    let engine = rt.engine();
    let wanted = || async {
        engine.notification_settings().await.unwrap_or_else(|e| {
            tracing::warn!("notification settings unreadable, all kinds on: {e}");
            NotificationSettings::default()
        })
    };
    let task_title = |id: Option<String>| async move {
        match id {
            Some(id) => engine.task(&id).await.map(|t| t.title).ok(),
            None => None,
        }
    };
    match &event.event {
        Event::ApprovalRequested(requested) if wanted().await.approvals => {
            match rt.actuator().approval(&requested.approval_id).await {
                // Decided already (a window covered it, or someone was quicker): nothing to ask.
                Ok(a) if a.status != nomos_types::ApprovalStatus::Pending => Vec::new(),
                Ok(a) => {
                    let facts = ApprovalFacts {
                        // Another agent asking (an MCP client) is named.
                        asker: nomos_types::mcp::asker(&a.requested_by),
                        task: task_title(a.task_id.clone()).await,
                        blast: a.blast_radius["summary"].as_str().unwrap_or("blast radius unknown").to_string(),
                        destructive: a.requires_confirmation,
                        id: a.id,
                        target: a.target,
                        command: a.command,
                        risk: a.risk,
                    };
                    planner.requested(&facts)
                }
                Err(e) => {
                    tracing::warn!("no notification for request {}: {e}", requested.approval_id);
                    Vec::new()
                }
            }
        }
        // Always followed, whatever the settings: a shown notification must go when it is decided.
        Event::ApprovalDecided(decided) => planner.decided(&decided.approval_id),
        Event::QuestionAsked(q) if wanted().await.questions => {
            let Some(task) = event.correlation_id.clone() else { return Vec::new() };
            let title = task_title(Some(task.clone())).await.unwrap_or_else(|| "a task".into());
            planner.question(&q.question_id, &task, &title, &q.prompt)
        }
        Event::QuestionAnswered(a) => planner.answered(&a.question_id),
        // Observe decided it is worth a notification (critical, not suppressed, not in
        // maintenance, not notified in the last 30 min); it follows the approvals switch's
        // sibling for signals.
        Event::SignalNotified(n) if wanted().await.signals => {
            planner.signal(&n.title, &n.body, &n.signals, n.entity.as_deref(), n.task.as_deref())
        }
        Event::SignalAcked(s) => planner.signal_settled(&s.id),
        Event::SignalMuted(s) => planner.signal_settled(&s.id),
        Event::SignalResolved(s) => planner.signal_settled(&s.id),
        Event::TaskUpdated(u) if u.status.is_end() && wanted().await.task_ends => {
            let Some(task) = event.correlation_id.clone() else { return Vec::new() };
            let title = task_title(Some(task.clone())).await.unwrap_or_else(|| "a task".into());
            planner.task_updated(&task, &title, u.status, &u.summary)
        }
        _ => Vec::new(),
    }
}

async fn apply(app: &AppHandle, effects: Vec<Effect>) {
    for effect in effects {
        match effect {
            Effect::Show(note) => show(app, note).await,
            Effect::Close(id) => {
                close(app, id);
                // The plugin sends on a thread of its own and can close only what it has sent: a
                // notification decided right after it was shown is closed once more a moment later
                // (closing a closed one does nothing).
                let app = app.clone();
                tauri::async_runtime::spawn(async move {
                    tokio::time::sleep(std::time::Duration::from_secs(1)).await;
                    close(&app, id);
                });
            }
        }
    }
}

/// A plain notice, without buttons (e.g. the first close to the tray). Logged too: it may not
/// appear, and then the log is where it is read.
pub fn notice(app: &AppHandle, title: &str, body: &str) {
    tracing::info!("{title}: {body}");
    let (app, title, body) = (app.clone(), title.to_string(), body.to_string());
    tauri::async_runtime::spawn(async move {
        if let Err(why) = service_available().await {
            tracing::debug!("no notice “{title}”: {why}");
            return;
        }
        if let Err(e) = app.notification().builder().title(&title).body(&body).show() {
            tracing::warn!("no notice “{title}”: {e}");
        }
    });
}

fn close(app: &AppHandle, id: i32) {
    if let Err(e) = app.notification().remove_active(vec![id]) {
        tracing::warn!("cannot close notification {id}: {e}");
    }
}

async fn show(app: &AppHandle, note: Note) {
    // The plugin drops a failed send without a word on Linux; say here why nothing appeared.
    if let Err(why) = service_available().await {
        tracing::warn!("no notification “{}”: {why}; it waits in the window", note.title);
        return;
    }
    let shown = app
        .notification()
        .builder()
        .id(note.id)
        .title(&note.title)
        .body(&note.body)
        .action_type_id(note.buttons.type_id())
        .show();
    match shown {
        Ok(()) => tracing::debug!(id = note.id, "notification shown: {}", note.title),
        Err(e) => tracing::warn!("no notification “{}”: {e}", note.title),
    }
}

/// Carries out a button: a decision through the gate (as this machine's operator, on the
/// channel "notification"), or the window shown on a page.
fn run(app: &AppHandle, rt: &Runtime, command: Command) {
    let decision = || Decision::by_operator(Channel::Notification, None);
    match command {
        Command::Approve(id) => {
            let act = rt.actuator().clone();
            // Runs the execution to its end; its progress reaches the window as events.
            tauri::async_runtime::spawn(async move {
                match act.approve(&id, &decision()).await {
                    Ok(x) => tracing::info!("approved {id} from a notification: execution {} {}", x.id, x.status),
                    Err(e) => tracing::warn!("approving {id} from a notification failed: {e}"),
                }
            });
        }
        Command::Deny(id) => {
            let act = rt.actuator().clone();
            tauri::async_runtime::spawn(async move {
                match act.deny(&id, &decision()).await {
                    Ok(_) => tracing::info!("denied {id} from a notification"),
                    Err(e) => tracing::warn!("denying {id} from a notification failed: {e}"),
                }
            });
        }
        Command::Open(destination) => crate::window::open(app, destination),
        Command::Investigate(id) => {
            let app = app.clone();
            tauri::async_runtime::spawn(async move {
                let state = app.state::<crate::AppState>();
                // As the window's button: the task opens researched, its first turn starts when
                // Nomos has a provider; the window then shows it.
                match crate::commands::investigate(&state, id.clone()).await {
                    Ok(inv) => {
                        tracing::info!("signal {id} investigated from a notification: task {}", inv.task_id);
                        crate::window::open(&app, nomos_types::Destination::Task { id: inv.task_id });
                    }
                    Err(e) => tracing::warn!("investigating signal {id} from a notification failed: {}", e.message),
                }
            });
        }
        Command::Ack(ids) => {
            let engine = rt.engine().clone();
            tauri::async_runtime::spawn(async move {
                let by = decision().actor;
                for id in ids {
                    match engine.ack_signal(&id, "seen (acknowledged from the notification)", &by).await {
                        Ok(_) => tracing::info!("signal {id} acknowledged from a notification"),
                        Err(e) => tracing::warn!("acknowledging signal {id} from a notification failed: {e}"),
                    }
                }
            });
        }
    }
}

/// Logs once at start whether notifications can appear, and whether they can carry buttons.
async fn service_check() {
    match service_available().await {
        Ok(()) if buttons_shown().await => tracing::info!("desktop notifications on"),
        Ok(()) => tracing::info!("desktop notifications on, without buttons: requests are decided in the window"),
        Err(why) => tracing::warn!("desktop notifications will not appear: {why}"),
    }
}

/// Linux: asks the session bus for the notification service (the freedesktop one every desktop
/// provides).
#[cfg(target_os = "linux")]
async fn service_available() -> Result<(), String> {
    let asked = tauri::async_runtime::spawn_blocking(|| {
        notify_rust::get_server_information()
            .map(drop)
            .map_err(|e| format!("no notification service on the session bus ({e})"))
    })
    .await;
    asked.unwrap_or_else(|e| Err(format!("cannot ask for the notification service: {e}")))
}

/// Linux: whether the notification service shows buttons (the "actions" capability).
#[cfg(target_os = "linux")]
async fn buttons_shown() -> bool {
    let caps = tauri::async_runtime::spawn_blocking(notify_rust::get_capabilities).await;
    matches!(caps, Ok(Ok(caps)) if caps.iter().any(|c| c == "actions"))
}

#[cfg(not(target_os = "linux"))]
async fn buttons_shown() -> bool {
    true
}

/// macOS: the Notification Center is always there (whether the operator allowed Oikos is the
/// system's setting).
#[cfg(not(target_os = "linux"))]
async fn service_available() -> Result<(), String> {
    Ok(())
}
