//! How the Linux webview draws when there is no GPU.
//!
//! WebKitGTK composites with OpenGL. Without a GPU (most VMs, containers, Xvfb) Mesa emulates the
//! GL in software (llvmpipe), and the first frames then wait for llvmpipe to compile WebKit's
//! shaders through LLVM: measured on Xvfb, the UI drew 1.5 s after start instead of 0.65 s.
//! Painting without compositing costs nothing of the sort there, so that is what the app asks
//! for when it can tell that the GL would be software. With a GPU nothing changes.
//!
//! The operator's own WebKit settings win: if any of the variables below is set, this module
//! leaves the environment alone (`WEBKIT_DISABLE_COMPOSITING_MODE=0` keeps compositing on).
//! Shared with the hello-world app `make bench-desktop` compares against, so both draw alike.

/// WebKit's switches that decide how it draws; any of them set is the operator's choice.
const WEBKIT_SWITCHES: [&str; 3] =
    ["WEBKIT_DISABLE_COMPOSITING_MODE", "WEBKIT_FORCE_COMPOSITING_MODE", "WEBKIT_SKIA_ENABLE_CPU_RENDERING"];

/// What was decided, for the log.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Rendering {
    /// Not Linux, or a GPU is there: WebKit's defaults.
    Default,
    /// The operator set one of WebKit's switches (named here).
    Operator(&'static str),
    /// No GPU: compositing turned off, for this reason.
    Software(&'static str),
}

impl std::fmt::Display for Rendering {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Rendering::Default => f.write_str("webview draws with its defaults"),
            Rendering::Operator(var) => write!(f, "webview draws as {var} says"),
            Rendering::Software(why) => write!(f, "webview draws without compositing: {why}"),
        }
    }
}

/// The decision from the environment (`var` reads a variable) and whether a GPU render node
/// (`/dev/dri/renderD*`) exists.
pub fn decide(var: impl Fn(&str) -> Option<String>, has_render_node: bool) -> Rendering {
    if let Some(set) = WEBKIT_SWITCHES.into_iter().find(|v| var(v).is_some()) {
        return Rendering::Operator(set);
    }
    let on = |v: &str| var(v).is_some_and(|s| !matches!(s.trim(), "" | "0" | "false" | "no"));
    if on("LIBGL_ALWAYS_SOFTWARE") {
        return Rendering::Software("LIBGL_ALWAYS_SOFTWARE is set");
    }
    if var("GALLIUM_DRIVER").is_some_and(|d| matches!(d.trim(), "llvmpipe" | "softpipe" | "swrast")) {
        return Rendering::Software("GALLIUM_DRIVER names a software renderer");
    }
    if !has_render_node {
        return Rendering::Software("no GPU render node in /dev/dri");
    }
    Rendering::Default
}

/// Decides and applies it to this process's environment (which WebKit's processes inherit).
/// Call first thing in `main`, while the process has a single thread.
pub fn apply() -> Rendering {
    if !cfg!(target_os = "linux") {
        return Rendering::Default;
    }
    let has_render_node = std::fs::read_dir("/dev/dri")
        .is_ok_and(|entries| entries.flatten().any(|e| e.file_name().to_string_lossy().starts_with("renderD")));
    let decision = decide(|v| std::env::var(v).ok(), has_render_node);
    if let Rendering::Software(_) = decision {
        // Single-threaded still (see above), so changing the environment races with nothing.
        std::env::set_var("WEBKIT_DISABLE_COMPOSITING_MODE", "1");
    }
    decision
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env<'a>(pairs: &'a [(&'a str, &'a str)]) -> impl Fn(&str) -> Option<String> + 'a {
        move |name| pairs.iter().find(|(k, _)| *k == name).map(|(_, v)| v.to_string())
    }

    #[test]
    fn a_gpu_keeps_webkit_defaults() {
        assert_eq!(decide(env(&[]), true), Rendering::Default);
        assert_eq!(
            decide(env(&[("LIBGL_ALWAYS_SOFTWARE", "0"), ("GALLIUM_DRIVER", "iris")]), true),
            Rendering::Default
        );
    }

    #[test]
    fn no_gpu_or_software_gl_turns_compositing_off() {
        assert_eq!(decide(env(&[]), false), Rendering::Software("no GPU render node in /dev/dri"));
        assert_eq!(
            decide(env(&[("LIBGL_ALWAYS_SOFTWARE", "1")]), true),
            Rendering::Software("LIBGL_ALWAYS_SOFTWARE is set")
        );
        assert_eq!(
            decide(env(&[("GALLIUM_DRIVER", "llvmpipe")]), true),
            Rendering::Software("GALLIUM_DRIVER names a software renderer")
        );
    }

    #[test]
    fn the_operators_webkit_switches_win() {
        for var in WEBKIT_SWITCHES {
            // Even "0": compositing kept on by choice on a machine without a GPU.
            assert_eq!(decide(env(&[(var, "0")]), false), Rendering::Operator(var));
            assert_eq!(decide(env(&[(var, "1"), ("LIBGL_ALWAYS_SOFTWARE", "1")]), true), Rendering::Operator(var));
        }
    }

    #[test]
    fn the_log_line_says_why() {
        assert_eq!(
            Rendering::Software("no GPU render node in /dev/dri").to_string(),
            "webview draws without compositing: no GPU render node in /dev/dri"
        );
    }
}
