//! Tauri's `invoke` and `listen`, as wasm-bindgen externs (`app.withGlobalTauri` exposes them on
//! `window.__TAURI__`). Every extern of the app lives here.

use nomos_types::{
    Destination, EngineEvent, IpcError, IpcErrorCode, TransientEvent, UpdateStatus, EVENT_CHANNEL, NAVIGATE_CHANNEL,
    TRANSIENT_CHANNEL, UPDATE_CHANNEL,
};
use serde::de::DeserializeOwned;
use serde::Serialize;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

#[wasm_bindgen]
extern "C" {
    #[wasm_bindgen(js_namespace = ["window", "__TAURI__", "core"], js_name = invoke, catch)]
    async fn tauri_invoke(cmd: &str, args: JsValue) -> Result<JsValue, JsValue>;

    #[wasm_bindgen(js_namespace = ["window", "__TAURI__", "event"], js_name = listen, catch)]
    async fn tauri_listen(event: &str, handler: &js_sys::Function) -> Result<JsValue, JsValue>;
}

/// Calls a command of the shell. Only the generated callers in [`super`] use it, with the
/// command's name and `Args` from the command table.
pub(super) async fn invoke<A: Serialize, R: DeserializeOwned>(cmd: &str, args: &A) -> Result<R, IpcError> {
    super::gate::opened().await;
    // Plain JS objects (not Maps), as the shell's serde expects.
    let serializer = serde_wasm_bindgen::Serializer::json_compatible();
    let args = args.serialize(&serializer).map_err(|e| IpcError::new(IpcErrorCode::Ipc, format!("{cmd}: {e}")))?;
    match tauri_invoke(cmd, args).await {
        Ok(value) => {
            serde_wasm_bindgen::from_value(value).map_err(|e| IpcError::new(IpcErrorCode::Ipc, format!("{cmd}: {e}")))
        }
        // The shell answers with an `IpcError`; anything else is the bridge failing (a string).
        Err(err) => Err(serde_wasm_bindgen::from_value::<IpcError>(err.clone()).unwrap_or_else(|_| {
            IpcError::new(IpcErrorCode::Ipc, err.as_string().unwrap_or_else(|| format!("{cmd} failed")))
        })),
    }
}

/// Calls `handler` with every engine event for as long as the page lives.
pub fn on_engine_event(handler: impl Fn(EngineEvent) + 'static) {
    listen(EVENT_CHANNEL, handler);
}

/// Calls `handler` with every transient event (an answer being written) for as long as the page
/// lives. They are never stored: whoever shows them keeps nothing once the stored event arrives.
pub fn on_transient_event(handler: impl Fn(TransientEvent) + 'static) {
    listen(TRANSIENT_CHANNEL, handler);
}

/// Calls `handler` with every page the shell asks the window to show (a notification or the tray
/// menu clicked).
pub fn on_navigate(handler: impl Fn(Destination) + 'static) {
    listen(NAVIGATE_CHANNEL, handler);
}

/// Calls `handler` with the app's update status each time the shell sends it (after every change).
pub fn on_update_status(handler: impl Fn(UpdateStatus) + 'static) {
    listen(UPDATE_CHANNEL, handler);
}

fn listen<E: DeserializeOwned>(channel: &'static str, handler: impl Fn(E) + 'static) {
    let closure = Closure::<dyn Fn(JsValue)>::new(move |raw: JsValue| {
        let payload = js_sys::Reflect::get(&raw, &JsValue::from_str("payload")).unwrap_or(JsValue::NULL);
        match serde_wasm_bindgen::from_value::<E>(payload) {
            Ok(event) => handler(event),
            Err(e) => web_sys::console::warn_1(&format!("unreadable event on {channel}: {e}").into()),
        }
    });
    let function: js_sys::Function = closure.as_ref().unchecked_ref::<js_sys::Function>().clone();
    // The listener is registered once for the page's lifetime; nothing ever needs to free it.
    closure.forget();
    wasm_bindgen_futures::spawn_local(async move {
        if let Err(e) = tauri_listen(channel, &function).await {
            web_sys::console::error_1(&e);
        }
    });
}
