//! Pages the shell asks for: a notification or the tray menu clicked shows the window and names a
//! [`Destination`](nomos_types::Destination); the window goes there.

use leptos::prelude::*;
use leptos_router::hooks::use_navigate;

use crate::{ipc, routes};

/// Follows the shell's requests to show a page. Inside the router; renders nothing.
#[component]
pub fn FollowShell() -> impl IntoView {
    let navigate = use_navigate();
    ipc::on_navigate(move |to| navigate(&routes::destination(&to), Default::default()));
}
