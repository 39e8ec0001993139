// The page's outline is on screen once the frame after next begins: say so (the shell logs the
// start-up time), then start the UI with the module load.js compiled; its start function mounts
// the app, which reports when it is ready.
requestAnimationFrame(() => requestAnimationFrame(() => window.__TAURI__?.core.invoke("ui_painted", { at: Date.now() })));
import init from "./oikos_ui.js";
init({ module_or_path: await window.__oikosUiModule }).catch((e) => console.error("the UI could not start", e));
