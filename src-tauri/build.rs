fn main() {
    // The UI is embedded at compile time; rebuild whenever `make ui` replaces it.
    println!("cargo:rerun-if-changed=../ui/dist");
    tauri_build::build()
}
