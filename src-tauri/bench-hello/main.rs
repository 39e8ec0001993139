//! A hello-world Tauri app built the same way as Oikos (same package, profile, Tauri version and
//! features): the baseline `make bench-desktop` compares Oikos's start-up and memory with. Built
//! only with the `bench-hello` feature.

use std::sync::LazyLock;
use std::time::Instant;

// The same choice of how the webview draws as Oikos makes.
#[path = "../src/rendering.rs"]
mod rendering;

static STARTED: LazyLock<Instant> = LazyLock::new(Instant::now);

/// The page's first frame is on screen; the same line Oikos logs.
#[tauri::command]
fn painted() {
    eprintln!("first paint ms={}", STARTED.elapsed().as_millis());
}

fn main() {
    LazyLock::force(&STARTED);
    eprintln!("{}", rendering::apply());
    let result = tauri::Builder::default()
        .invoke_handler(tauri::generate_handler![painted])
        .run(tauri::generate_context!("bench-hello/tauri.conf.json"));
    if let Err(e) = result {
        eprintln!("hello stopped: {e}");
        std::process::exit(1);
    }
}
