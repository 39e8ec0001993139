//! End to end, the keychain when there is none: the app on a session bus with no Secret Service
//! (and none to activate). Settings says the keychain cannot be read; saving a key is refused with
//! the reason, and the key lands nowhere — no plaintext fallback in the database, the log or any
//! other file under the app's HOME. (The saved-and-read-back case is in `desktop_library.rs`.)
//!
//! See `support` for what it needs.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod support;

use serde_json::Value;
use support::keychain::{self, files_containing, Keychain};
use support::{artifacts_dir, on_path, Desktop, STARTUP, STEP};

const KEY: &str = "sk-oikos-nokeychain-41c2e8a09b";

#[test]
fn without_a_secret_service_settings_says_so_and_the_key_is_kept_nowhere() {
    assert!(on_path("dbus-daemon"), "dbus-daemon is needed: run `make test`, which installs it");
    let wrapper_dir = tempfile::tempdir().unwrap();
    let app = keychain::app_behind(wrapper_dir.path(), Keychain::Absent);
    let Some(desktop) = Desktop::start(&app, &[]) else { return };
    let (d, home) = (&desktop.d, desktop.home.path().to_path_buf());

    let nav = d.wait_until("[data-testid=nav-settings]", STARTUP, |_| true);
    d.click(&nav[0].0);
    d.wait_until("[data-testid=key-status]", STEP, |t| t[0].starts_with("The OS keychain cannot be read:"));

    let key = d.wait_until("[data-testid=api-key]", STEP, |_| true);
    d.type_into(&key[0].0, KEY);
    let save = d.wait_until("[data-testid=api-key-save]", STEP, |_| true);
    d.click(&save[0].0);
    let outcome = d.wait_until("[data-testid=api-key-outcome]", STEP, |t| !t[0].is_empty());
    assert!(outcome[0].1.contains("no OS keychain is available"), "{outcome:?}");
    assert!(outcome[0].1.contains("Secret Service"), "names what to run: {outcome:?}");
    assert_eq!(d.execute("return document.querySelector('[data-testid=api-key]').value"), Value::from(""));
    d.screenshot(&artifacts_dir().join("oikos-settings-no-keychain.png"));

    // Nothing to read back, and the key is in no file: database, log, nothing.
    assert_eq!(keychain::stored_api_key(&home), None);
    let page = d.execute("return document.documentElement.outerHTML");
    assert!(!page.as_str().unwrap().contains(KEY));
    assert!(std::fs::metadata(home.join("oikos.log")).unwrap().len() > 0, "the app logged nothing");
    assert_eq!(files_containing(&home, KEY.as_bytes()), Vec::<String>::new());
}
