//! The OS keychain in the desktop tests. The app starts behind a small script, inside the D-Bus
//! session the driver gives it, with either a fresh unlocked gnome-keyring there (a real Secret
//! Service) or a private bus of its own with no Secret Service on it and none to activate. The
//! script also keeps the app's log (at debug level) in `$HOME/oikos.log` and writes the session
//! bus's address to `$HOME/session-bus`, so a test can read the keychain the app wrote to.

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::Command;

/// What the app finds on its session bus.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Keychain {
    /// gnome-keyring's Secret Service, unlocked with a throwaway password.
    GnomeKeyring,
    /// Nothing: a bus without service directories, so nothing is activated on demand either.
    Absent,
}

/// A bus configuration without `<standard_session_servicedirs/>`.
const BARE_BUS: &str = r#"<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig>
  <type>session</type>
  <listen>unix:tmpdir=/tmp</listen>
  <policy context="default">
    <allow send_destination="*" eavesdrop="true"/>
    <allow eavesdrop="true"/>
    <allow own="*"/>
  </policy>
</busconfig>
"#;

/// Writes the script that starts the app with `keychain` into `dir`, and returns its path.
pub fn app_behind(dir: &Path, keychain: Keychain) -> PathBuf {
    let bus = match keychain {
        Keychain::GnomeKeyring => {
            "printf 'throwaway-password' | gnome-keyring-daemon --unlock --components=secrets >/dev/null 2>&1\n"
                .to_string()
        }
        Keychain::Absent => {
            let conf = dir.join("bare-bus.conf");
            std::fs::write(&conf, BARE_BUS).unwrap();
            // Not forked: the daemon stays in the app's process group and goes with it.
            format!(
                "dbus-daemon --config-file='{}' --nofork --print-address=1 > \"$HOME/bare-bus\" &\n\
                 while [ ! -s \"$HOME/bare-bus\" ]; do sleep 0.05; done\n\
                 export DBUS_SESSION_BUS_ADDRESS=\"$(head -n1 \"$HOME/bare-bus\")\"\n",
                conf.display()
            )
        }
    };
    let script = dir.join("oikos-with-keychain");
    let body = format!(
        "#!/bin/sh\nexport XDG_RUNTIME_DIR=\"$HOME/run\"\nmkdir -p \"$XDG_RUNTIME_DIR\"\n{bus}\
         printf '%s' \"$DBUS_SESSION_BUS_ADDRESS\" > \"$HOME/session-bus\"\n\
         export OIKOS_LOG=debug\n\
         exec '{}' \"$@\" 2>>\"$HOME/oikos.log\"\n",
        env!("CARGO_BIN_EXE_oikos")
    );
    std::fs::write(&script, body).unwrap();
    std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
    script
}

/// The API key the app stored, read with `secret-tool` on the app's session bus.
pub fn stored_api_key(home: &Path) -> Option<String> {
    let bus = std::fs::read_to_string(home.join("session-bus")).unwrap();
    let out = Command::new("secret-tool")
        .args(["lookup", "service", "oikos-nomos", "username", "llm-api-key"])
        .env("DBUS_SESSION_BUS_ADDRESS", bus.trim())
        .output()
        .unwrap();
    out.status.success().then(|| String::from_utf8_lossy(&out.stdout).to_string())
}

#[path = "../../../nomos/tests/support/secrets.rs"]
mod secrets;
// Not every desktop test looks for a secret.
#[allow(unused_imports)]
pub use secrets::files_containing;
