//! The tray icon: what needs the operator — pending approvals and open critical signals (a badge drawn into the icon, or the icon's
//! title on macOS, and the tooltip) and a menu — Open Oikos, Pending approvals (N), Pause or
//! Resume autonomy, Check for updates, Quit. It follows the engine's events, including changes made by the `nomos`
//! command line on the same database (the runtime's watcher relays them), and acts only through
//! the engine's own calls.
//!
//! Linux: the StatusNotifierItem backend (tray-icon's `ksni` feature, switched on in Cargo.toml,
//! as tauri 2.12 offers no choice of its own) rather than libappindicator, because it reports a
//! left click on the icon (here: show the window) and needs no appindicator library at run time.
//! Both export the menu over D-Bus (`com.canonical.dbusmenu`), so the menu works in every tray
//! host. With no tray host running (`org.kde.StatusNotifierWatcher` absent) there is no icon: the
//! app says so in the log, tries again for a while (a login session's panel may start after
//! Oikos), and closing the window quits instead of hiding it (see [`crate::window`]).

mod badge;

use std::sync::Mutex;
use std::time::Duration;

use nomos::actuate::{Actuator, Decision};
use nomos::Runtime;
use nomos_types::events::Event;
use nomos_types::{Channel, Destination};
use tauri::image::Image;
use tauri::menu::{Menu, MenuItem, PredefinedMenuItem};
use tauri::tray::{MouseButton, MouseButtonState, TrayIcon, TrayIconBuilder, TrayIconEvent};
use tauri::{AppHandle, Manager, Wry};
use tokio::sync::broadcast::error::RecvError;

use crate::{window, AppState};

/// The tray icon's id (one icon per app).
pub const TRAY_ID: &str = "oikos";

/// How often, and how many times, a tray that could not be shown is tried again.
const RETRY_EVERY: Duration = Duration::from_secs(10);
const RETRIES: u32 = 30;

/// The icon, before any badge.
const ICON_PNG: &[u8] = include_bytes!("../../../icons/128x128.png");

/// What the tray shows: everything else (labels, badge, tooltip) is derived from it.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct TrayView {
    /// Approvals waiting for the operator.
    pub pending: usize,
    /// Whether autonomy is paused.
    pub paused: bool,
    /// Open critical signals that are neither acknowledged, muted, suppressed nor in maintenance.
    pub critical: usize,
}

impl TrayView {
    pub fn pending_label(&self) -> String {
        format!("Pending approvals ({})", self.pending)
    }

    pub fn autonomy_label(&self) -> String {
        if self.paused { "Resume autonomy" } else { "Pause autonomy" }.into()
    }

    pub fn tooltip(&self) -> String {
        let pending = match self.pending {
            0 => "no pending approvals".to_string(),
            1 => "1 pending approval".to_string(),
            n => format!("{n} pending approvals"),
        };
        let critical = match self.critical {
            0 => String::new(),
            1 => " · 1 critical signal".to_string(),
            n => format!(" · {n} critical signals"),
        };
        if self.paused {
            format!("Oikos — {pending}{critical} · autonomy paused")
        } else {
            format!("Oikos — {pending}{critical}")
        }
    }

    /// What needs the operator: approvals waiting and open critical signals (the badge's count).
    pub fn needs_you(&self) -> usize {
        self.pending + self.critical
    }

    /// The text beside the icon where the platform shows one (macOS): the count, or nothing.
    pub fn title(&self) -> Option<String> {
        (self.needs_you() > 0).then(|| self.needs_you().to_string())
    }
}

/// One menu item: its id, its label for what the tray shows, and what choosing it does.
struct Item {
    id: &'static str,
    label: fn(&TrayView) -> String,
    run: fn(&AppHandle),
}

/// The menu, top to bottom; Quit follows after a separator. A new item is one line here.
const ITEMS: &[Item] = &[
    Item { id: "open", label: |_| "Open Oikos".into(), run: window::show },
    Item { id: "approvals", label: TrayView::pending_label, run: |app| window::open(app, Destination::Approvals) },
    Item { id: "autonomy", label: TrayView::autonomy_label, run: toggle_autonomy },
    Item { id: "updates", label: |_| "Check for updates…".into(), run: crate::updates::check_now },
];

const QUIT: &str = "quit";

/// The tray's handles and the last view shown, kept in the app's state.
#[derive(Default)]
struct Shown {
    view: TrayView,
    items: Vec<(&'static str, MenuItem<Wry>)>,
}

#[derive(Default)]
struct TrayState(Mutex<Shown>);

/// Builds the tray (its counts follow once the engine is open: [`follow_engine`]). Failing to show
/// a tray is logged, never fatal.
pub fn setup(app: &AppHandle) {
    app.manage(TrayState::default());
    if let Err(e) = build(app) {
        tracing::warn!("no tray icon ({e}); trying again every {}s", RETRY_EVERY.as_secs());
        retry_later(app.clone());
    }
}

fn build(app: &AppHandle) -> tauri::Result<()> {
    let view = current_view(app);
    let mut items = Vec::with_capacity(ITEMS.len());
    for item in ITEMS {
        items.push((item.id, MenuItem::with_id(app, item.id, (item.label)(&view), true, None::<&str>)?));
    }
    let separator = PredefinedMenuItem::separator(app)?;
    let quit = MenuItem::with_id(app, QUIT, "Quit", true, None::<&str>)?;
    let mut entries: Vec<&dyn tauri::menu::IsMenuItem<Wry>> =
        items.iter().map(|(_, i)| i as &dyn tauri::menu::IsMenuItem<Wry>).collect();
    entries.push(&separator);
    entries.push(&quit);
    let menu = Menu::with_items(app, &entries)?;
    let tray = TrayIconBuilder::with_id(TRAY_ID)
        .icon(icon(&view)?)
        .tooltip(view.tooltip())
        .menu(&menu)
        // The menu opens on a right click; a left click shows the window (where clicks are reported).
        .show_menu_on_left_click(false)
        .on_menu_event(|app, event| on_menu(app, event.id().as_ref()))
        .on_tray_icon_event(|tray, event| {
            if let TrayIconEvent::Click { button: MouseButton::Left, button_state: MouseButtonState::Up, .. } = event {
                window::show(tray.app_handle());
            }
        })
        .build(app)?;
    if cfg!(target_os = "macos") {
        tray.set_title(view.title())?;
    }
    if let Some(state) = app.try_state::<TrayState>() {
        if let Ok(mut shown) = state.0.lock() {
            shown.items = items.clone();
        }
    }
    // The engine may have moved on while the tray was being built.
    let now = current_view(app);
    if now != view {
        apply(&tray, &items, view, now)?;
    }
    tracing::info!("tray icon shown");
    Ok(())
}

fn retry_later(app: AppHandle) {
    tauri::async_runtime::spawn(async move {
        for _ in 0..RETRIES {
            tokio::time::sleep(RETRY_EVERY).await;
            let (tx, rx) = tokio::sync::oneshot::channel();
            let on_main = app.clone();
            // Menus and tray icons are made on the main thread.
            if app.run_on_main_thread(move || drop(tx.send(build(&on_main)))).is_err() {
                return;
            }
            match rx.await {
                Ok(Ok(())) => return,
                Ok(Err(e)) => tracing::debug!("still no tray icon: {e}"),
                Err(_) => return,
            }
        }
        tracing::warn!("no tray host appeared; the window stays the way in");
    });
}

/// Whether the tray icon is shown (closing the window hides it only then).
pub fn is_shown(app: &AppHandle) -> bool {
    app.tray_by_id(TRAY_ID).is_some()
}

fn current_view(app: &AppHandle) -> TrayView {
    app.try_state::<TrayState>().and_then(|s| s.0.lock().ok().map(|shown| shown.view)).unwrap_or_default()
}

fn icon(view: &TrayView) -> tauri::Result<Image<'static>> {
    let base = Image::from_bytes(ICON_PNG)?;
    if cfg!(target_os = "macos") {
        return Ok(base);
    }
    let rgba = badge::draw(base.rgba(), base.width(), base.height(), view.needs_you());
    Ok(Image::new_owned(rgba, base.width(), base.height()))
}

/// Shows `view`: icon, tooltip, title and labels; nothing when it is what is shown already.
fn show_view(app: &AppHandle, view: TrayView) {
    let Some(state) = app.try_state::<TrayState>() else { return };
    // The handles are copied out: updating them waits for the main thread, which may itself be
    // waiting for this lock (building the tray).
    let (before, items) = {
        let Ok(mut shown) = state.0.lock() else { return };
        let before = std::mem::replace(&mut shown.view, view);
        (before, shown.items.clone())
    };
    let Some(tray) = app.tray_by_id(TRAY_ID) else { return };
    if before == view {
        return;
    }
    if let Err(e) = apply(&tray, &items, before, view) {
        tracing::warn!("cannot update the tray: {e}");
    }
}

/// Changes what `tray` shows from `before` to `view`: icon or title, tooltip, then the labels.
fn apply(
    tray: &TrayIcon,
    items: &[(&'static str, MenuItem<Wry>)],
    before: TrayView,
    view: TrayView,
) -> tauri::Result<()> {
    if cfg!(target_os = "macos") {
        tray.set_title(view.title())?;
    } else if before.pending != view.pending {
        tray.set_icon(Some(icon(&view)?))?;
    }
    tray.set_tooltip(Some(view.tooltip()))?;
    for (id, menu_item) in items {
        if let Some(item) = ITEMS.iter().find(|i| i.id == *id) {
            menu_item.set_text((item.label)(&view))?;
        }
    }
    Ok(())
}

/// What the engine says now: pending approvals, open critical signals, whether autonomy is paused.
async fn read_view(actuator: &Actuator) -> nomos::Result<TrayView> {
    let pending = actuator.pending_approvals().await?.len();
    let paused = actuator.is_paused().await?;
    let critical = usize::try_from(actuator.engine().signal_counts().await?.critical).unwrap_or(0);
    Ok(TrayView { pending, paused, critical })
}

/// Whether an event can change what the tray shows.
fn concerns_tray(event: &Event) -> bool {
    matches!(
        event,
        Event::ApprovalRequested(_)
            | Event::ApprovalDecided(_)
            | Event::AutonomyChanged(_)
            | Event::SignalRaised(_)
            | Event::SignalUpdated(_)
            | Event::SignalAcked(_)
            | Event::SignalMuted(_)
            | Event::SignalResolved(_)
            | Event::SignalSuppressed(_)
    )
}

/// Keeps the tray's counts and tooltip current from the engine's events.
pub fn follow_engine(app: AppHandle, rt: &Runtime) {
    let mut events = rt.subscribe();
    let actuator = rt.actuator().clone();
    tauri::async_runtime::spawn(async move {
        let refresh = |app: &AppHandle, actuator: &Actuator| {
            let (app, actuator) = (app.clone(), actuator.clone());
            async move {
                match read_view(&actuator).await {
                    Ok(view) => show_view(&app, view),
                    Err(e) => tracing::warn!("cannot read what the tray shows: {e}"),
                }
            }
        };
        refresh(&app, &actuator).await;
        loop {
            match events.recv().await {
                Ok(event) if concerns_tray(&event.event) => refresh(&app, &actuator).await,
                Ok(_) => {}
                // Missed events: read the state again.
                Err(RecvError::Lagged(_)) => refresh(&app, &actuator).await,
                Err(RecvError::Closed) => break,
            }
        }
    });
}

fn on_menu(app: &AppHandle, id: &str) {
    if id == QUIT {
        // Ends the event loop; `RunEvent::Exit` then closes the runtime cleanly.
        app.exit(0);
        return;
    }
    match ITEMS.iter().find(|item| item.id == id) {
        Some(item) => (item.run)(app),
        None => tracing::warn!("unknown tray menu item {id}"),
    }
}

/// Pauses autonomy (every window revoked) or resumes it, through the engine, as the operator on
/// the tray channel. The tray follows from the engine's event.
fn toggle_autonomy(app: &AppHandle) {
    let app = app.clone();
    tauri::async_runtime::spawn(async move {
        let Some(state) = app.try_state::<AppState>() else { return };
        let Ok(rt) = state.runtime().await else {
            tracing::warn!("autonomy unchanged: the database is not open");
            return;
        };
        let actuator = rt.actuator();
        let result = async {
            let paused = actuator.is_paused().await?;
            actuator.set_paused(!paused, &Decision::by_operator(Channel::Tray, None)).await?;
            Ok::<bool, nomos::Error>(!paused)
        }
        .await;
        match result {
            Ok(paused) => tracing::info!(paused, "autonomy changed from the tray"),
            Err(e) => tracing::warn!("cannot change autonomy: {e}"),
        }
    });
}

/// Says, the first time only, that closing the window leaves Oikos running in the tray: a
/// notification (and the log). A marker in the app's data directory remembers it was said.
pub fn closed_to_tray_notice(app: &AppHandle) {
    let marker = app.path().app_data_dir().map(|dir| dir.join("closed-to-tray-noticed"));
    if let Ok(marker) = &marker {
        if marker.exists() {
            return;
        }
    }
    crate::notify::notice(
        app,
        "Oikos is still running",
        "It stays in the tray to tell you when Nomos needs you. Quit from the tray menu to end it.",
    );
    if let Ok(marker) = marker {
        let written =
            marker.parent().map_or(Ok(()), std::fs::create_dir_all).and_then(|()| std::fs::write(&marker, b""));
        if let Err(e) = written {
            tracing::debug!("cannot remember the tray notice: {e}");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The labels of the menu for `view`, in order (Quit last): what a tray host shows.
    fn menu_labels(view: &TrayView) -> Vec<String> {
        ITEMS.iter().map(|item| (item.label)(view)).chain(["Quit".to_string()]).collect()
    }

    #[test]
    fn the_menu_follows_the_pending_count_and_autonomy() {
        let idle = TrayView::default();
        assert_eq!(
            menu_labels(&idle),
            ["Open Oikos", "Pending approvals (0)", "Pause autonomy", "Check for updates…", "Quit"]
        );
        let busy = TrayView { pending: 3, paused: true, critical: 0 };
        assert_eq!(
            menu_labels(&busy),
            ["Open Oikos", "Pending approvals (3)", "Resume autonomy", "Check for updates…", "Quit"]
        );
    }

    #[test]
    fn tooltip_and_title_say_the_count() {
        assert_eq!(TrayView::default().tooltip(), "Oikos — no pending approvals");
        assert_eq!(TrayView { pending: 1, paused: false, critical: 0 }.tooltip(), "Oikos — 1 pending approval");
        let alarm = TrayView { pending: 1, paused: false, critical: 2 };
        assert_eq!(alarm.tooltip(), "Oikos — 1 pending approval · 2 critical signals");
        assert_eq!(alarm.title().as_deref(), Some("3"));
        assert_eq!(
            TrayView { pending: 2, paused: true, critical: 0 }.tooltip(),
            "Oikos — 2 pending approvals · autonomy paused"
        );
        assert_eq!(TrayView::default().title(), None);
        assert_eq!(TrayView { pending: 4, paused: false, critical: 0 }.title().as_deref(), Some("4"));
    }

    #[test]
    fn menu_ids_are_unique() {
        let mut ids: Vec<&str> = ITEMS.iter().map(|i| i.id).chain([QUIT]).collect();
        ids.sort_unstable();
        ids.dedup();
        assert_eq!(ids.len(), ITEMS.len() + 1);
    }

    #[test]
    fn the_icon_decodes_and_takes_a_badge() {
        let plain = icon(&TrayView::default()).unwrap();
        let badged = icon(&TrayView { pending: 2, paused: false, critical: 0 }).unwrap();
        assert_eq!((plain.width(), plain.height()), (badged.width(), badged.height()));
        assert_ne!(plain.rgba(), badged.rgba());
    }
}
