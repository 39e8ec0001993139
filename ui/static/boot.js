// Loads the wasm module produced by wasm-bindgen; its start function mounts the app.
import init from "./oikos_ui.js";
init();
