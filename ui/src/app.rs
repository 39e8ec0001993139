//! The shell: the top bar (navigation, the open database, the newest engine event) and the
//! routes. The database's state decides whether pages can show at all.

use leptos::prelude::*;
use leptos_router::components::{ParentRoute, Redirect, Route, Router, Routes, A};
use leptos_router::{path, NavigateOptions};
use nomos_types::{IpcError, StoreInfo};

use crate::components::{provide_updates, Unavailable, UpdateBanner};
use crate::events::Topic;
use crate::exec_feed::provide_exec_feed;
use crate::live::{provide_live, use_live};
use crate::navigation::FollowShell;
use crate::pages::{
    ApprovalsPage, CriticalCount, EntitiesPage, EntityPage, GraphPage, KnowledgePage, LearningPage, NoSelection,
    NotFound, OperationsPage, OverviewPage, PendingCount, SettingsPage, SignalsPage, TaskPage, TasksPage,
};
use crate::routes::pattern;
use crate::steady::steady;
use crate::task_feed::provide_task_feed;
use crate::{ipc, routes};

#[derive(Clone, PartialEq)]
enum Screen {
    Opening,
    Unavailable(String),
    Ready,
}

#[component]
pub fn App() -> impl IntoView {
    provide_live();
    provide_task_feed();
    provide_exec_feed();
    provide_updates();
    let live = use_live();
    let store = steady(LocalResource::new(move || {
        live.track(Topic::Graph);
        async move { ((), ipc::store_info().await) }
    }));
    // Changes only between these states, so the pages are not rebuilt on every refresh.
    let screen = Memo::new(move |_| match store.get() {
        None => Screen::Opening,
        // Passing failures after the first answer keep it (see `steady`); this is a database
        // that could not be opened or read at all.
        Some(Err(e)) => Screen::Unavailable(e.message),
        Some(Ok(_)) => Screen::Ready,
    });
    let store_line =
        move || store.get().and_then(Result::ok).map(|i: StoreInfo| format!("{} entities · {}", i.entities, i.path));
    let last_event =
        move || live.last_event().map(|(id, kind)| format!("#{id} {kind}")).unwrap_or_else(|| "live".into());

    view! {
        <Router>
            <FollowShell />
            <div class="shell">
                <header class="topbar">
                    <div class="brand">
                        <img src="/icon.png" alt="" class="logo" />
                        <span>"Oikos"</span>
                    </div>
                    <nav class="nav" aria-label="Pages">
                        // ── observe ──
                        <A href=routes::OVERVIEW attr:data-testid="nav-overview">"Overview"</A>
                        <A href=routes::SIGNALS attr:data-testid="nav-signals">"Signals" <CriticalCount /></A>
                        // ── tasks ──
                        <A href=routes::TASKS attr:data-testid="nav-tasks">"Tasks"</A>
                        // ── approvals, operations ──
                        <A href=routes::APPROVALS attr:data-testid="nav-approvals">"Approvals" <PendingCount /></A>
                        <A href=routes::OPERATIONS attr:data-testid="nav-operations">"Operations"</A>
                        // ── graph, knowledge ──
                        <A href=routes::GRAPH attr:data-testid="nav-graph">"Graph"</A>
                        <A href=routes::ENTITIES attr:data-testid="nav-entities">"Entities"</A>
                        <A href=routes::KNOWLEDGE attr:data-testid="nav-knowledge">"Knowledge"</A>
                        <A href=routes::LEARNING attr:data-testid="nav-learning">"Learning"</A>
                        // ── settings ──
                        <A href=routes::SETTINGS attr:data-testid="nav-settings">"Settings"</A>
                    </nav>
                    <div class="store muted" data-testid="store-info">{store_line}</div>
                    <div class="live" title="Latest engine event">
                        // Re-created for each event so its one-shot ping plays once: an endless
                        // animation would repaint the window all day while nothing happens.
                        {move || {
                            let fresh = live.last_event().is_some();
                            view! { <span class="pulse" class:ping=fresh></span> }
                        }}
                        {last_event}
                    </div>
                </header>
                <UpdateBanner />
                <main class="content">
                    {move || match screen.get() {
                        // Said only if opening takes a while: the first frame shows the shell
                        // before the first read, and a database opened at once never flashes it.
                        Screen::Opening => {
                            view! { <div class="centered muted shown-late">"Opening the database…"</div> }.into_any()
                        }
                        Screen::Unavailable(message) => view! { <Unavailable message=message /> }.into_any(),
                        Screen::Ready => view! { <Pages store=store /> }.into_any(),
                    }}
                </main>
            </div>
        </Router>
    }
}

#[component]
fn Pages(store: Signal<Option<Result<StoreInfo, IpcError>>>) -> impl IntoView {
    // Replaces the history entry: going back from the board does not land on the redirect.
    let home = || NavigateOptions { replace: true, ..Default::default() };
    view! {
        <Routes fallback=|| view! { <NotFound /> }>
            <Route path=path!("/") view=move || view! { <Redirect path=routes::TASKS options=home() /> } />
            // ── observe ──
            <Route path=pattern::OVERVIEW view=OverviewPage />
            <Route path=pattern::SIGNALS view=SignalsPage />
            // ── tasks ──
            <Route path=pattern::TASKS view=TasksPage />
            <Route path=pattern::TASK view=TaskPage />
            // ── approvals, operations ──
            <Route path=pattern::APPROVALS view=ApprovalsPage />
            <Route path=pattern::OPERATIONS view=OperationsPage />
            // ── graph, knowledge, settings ──
            <Route path=pattern::GRAPH view=GraphPage />
            <Route path=pattern::KNOWLEDGE view=KnowledgePage />
            <Route path=pattern::LEARNING view=LearningPage />
            <Route path=pattern::SETTINGS view=SettingsPage />
            <ParentRoute path=pattern::ENTITIES view=move || view! { <EntitiesPage store=store /> }>
                <Route path=path!("") view=NoSelection />
                <Route path=pattern::ENTITY view=EntityPage />
            </ParentRoute>
        </Routes>
    }
}
