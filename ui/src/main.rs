//! The Oikos desktop UI: a Leptos (CSR) app compiled to wasm32 and served by the Tauri shell.

mod app;
mod ipc;

fn main() {
    console_error_panic_hook::set_once();
    leptos::mount::mount_to_body(app::App);
}
