//! The only place the UI talks to the desktop shell: typed wrappers over Tauri's `invoke` and
//! `listen`. Every wasm-bindgen extern of the app lives here.

use nomos_types::{
    BlastRadius, EngineEvent, EntityListItem, EntityQuery, Explain, ImportReport, IpcError, Page, StoreInfo, TypeCount,
    EVENT_CHANNEL,
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

fn local_error(code: &str, message: impl std::fmt::Display) -> IpcError {
    IpcError { code: code.into(), message: message.to_string() }
}

async fn call<A: Serialize, R: DeserializeOwned>(cmd: &str, args: &A) -> Result<R, IpcError> {
    // Plain JS objects (not Maps), as the shell's serde expects.
    let serializer = serde_wasm_bindgen::Serializer::json_compatible();
    let args = args.serialize(&serializer).map_err(|e| local_error("ipc", e))?;
    match tauri_invoke(cmd, args).await {
        Ok(value) => serde_wasm_bindgen::from_value(value).map_err(|e| local_error("ipc", format!("{cmd}: {e}"))),
        Err(err) => Err(serde_wasm_bindgen::from_value::<IpcError>(err.clone())
            .unwrap_or_else(|_| local_error("ipc", err.as_string().unwrap_or_else(|| format!("{cmd} failed"))))),
    }
}

#[derive(Serialize)]
struct NoArgs {}

#[derive(Serialize)]
struct QueryArgs<'a> {
    query: &'a EntityQuery,
}

#[derive(Serialize)]
struct SlugArgs<'a> {
    slug: &'a str,
}

#[derive(Serialize)]
struct BlastArgs<'a> {
    slug: &'a str,
    depth: Option<u32>,
}

pub async fn store_info() -> Result<StoreInfo, IpcError> {
    call("store_info", &NoArgs {}).await
}

pub async fn entity_types() -> Result<Vec<TypeCount>, IpcError> {
    call("entity_types", &NoArgs {}).await
}

pub async fn list_entities(query: &EntityQuery) -> Result<Page<EntityListItem>, IpcError> {
    call("list_entities", &QueryArgs { query }).await
}

pub async fn explain_entity(slug: &str) -> Result<Explain, IpcError> {
    call("explain_entity", &SlugArgs { slug }).await
}

pub async fn blast_radius(slug: &str, depth: Option<u32>) -> Result<BlastRadius, IpcError> {
    call("blast_radius", &BlastArgs { slug, depth }).await
}

pub async fn import_demo_inventory() -> Result<ImportReport, IpcError> {
    call("import_demo_inventory", &NoArgs {}).await
}

/// Calls `handler` with every engine event for as long as the page lives.
pub fn on_engine_event(handler: impl Fn(EngineEvent) + 'static) {
    let closure = Closure::<dyn Fn(JsValue)>::new(move |raw: JsValue| {
        let payload = js_sys::Reflect::get(&raw, &JsValue::from_str("payload")).unwrap_or(JsValue::NULL);
        match serde_wasm_bindgen::from_value::<EngineEvent>(payload) {
            Ok(event) => handler(event),
            Err(e) => web_sys::console::warn_1(&format!("unreadable engine event: {e}").into()),
        }
    });
    let function: js_sys::Function = closure.as_ref().unchecked_ref::<js_sys::Function>().clone();
    // The listener is registered once for the page's lifetime; nothing ever needs to free it.
    closure.forget();
    wasm_bindgen_futures::spawn_local(async move {
        if let Err(e) = tauri_listen(EVENT_CHANNEL, &function).await {
            web_sys::console::error_1(&e);
        }
    });
}
