//! A hello-world Tauri app built the same way as Oikos (same package, profile, Tauri version and
//! features): the baseline `make bench-desktop` compares Oikos's start-up and memory with. Built
//! only with the `bench-hello` feature.

// The same choice of how the webview draws as Oikos makes, and the same clock for start-up.
#[path = "../src/rendering.rs"]
mod rendering;
#[path = "../src/startup.rs"]
mod startup;

/// The page's first frame is on screen (`at`, ms since the epoch); the same line Oikos logs.
#[tauri::command]
fn painted(at: Option<f64>) {
    let (ms, at) = startup::page_moment(at);
    eprintln!("first paint ms={ms} at={at}");
}

fn main() {
    startup::begin();
    eprintln!("{}", rendering::apply());
    let result = tauri::Builder::default()
        .invoke_handler(tauri::generate_handler![painted])
        .run(tauri::generate_context!("bench-hello/tauri.conf.json"));
    if let Err(e) = result {
        eprintln!("hello stopped: {e}");
        std::process::exit(1);
    }
}
