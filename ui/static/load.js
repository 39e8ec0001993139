// A classic script at the top of the page, so it runs before the styles and modules load: the
// UI's code is fetched and compiled while the outline is parsed and drawn, instead of after the
// module scripts have loaded. boot.js hands the compiled module to wasm-bindgen. Should compiling
// here fail, the promise gives undefined and wasm-bindgen fetches the file itself (and reports).
window.__oikosUiModule =
  typeof WebAssembly === "object" && typeof WebAssembly.compileStreaming === "function"
    ? WebAssembly.compileStreaming(fetch("/oikos_ui_bg.wasm")).catch((e) => {
        console.warn("compiling the UI's code early failed; loading it again", e);
        return undefined;
      })
    : undefined;
