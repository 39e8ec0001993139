//! End to end, the app's own updates in the real window: a release made as the release workflow
//! makes it (an artifact signed with a throwaway key, the manifest written by the release script)
//! is served on 127.0.0.1 and named by `OIKOS_UPDATE_URL`. The check at start offers it with its
//! version and notes; Settings says so; "Later" puts it off, and checking again finds the same
//! release and keeps it hidden; a newer release is offered again; an unreadable manifest is a quiet
//! line in Settings, not a dialog. "Install and restart" is not pressed: the updater's own tests
//! (`src/updates/tests.rs`) download and verify the signature, accepting and refusing.
//!
//! See `support` for what it needs.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

#[path = "support/release.rs"]
mod release;
mod support;

use std::path::PathBuf;
use std::time::{Duration, Instant};

use support::{artifacts_dir, Desktop, Driver, STARTUP, STEP};

const NOTES: &str = "Faster graph; fixes the approval countdown.";

/// Waits until nothing matches `css`.
fn wait_gone(d: &Driver, css: &str, timeout: Duration) {
    let deadline = Instant::now() + timeout;
    while !d.find_all(css).is_empty() {
        assert!(Instant::now() < deadline, "{css} still shown after {timeout:?}");
        std::thread::sleep(Duration::from_millis(100));
    }
}

#[test]
fn a_newer_release_is_offered_and_later_puts_it_off() {
    let dir = tempfile::tempdir().unwrap();
    let base = release::serve(dir.path());
    let (_, sk) = release::key();
    let artifact = dir.path().join("Oikos_9.9.9_amd64.AppImage");
    std::fs::write(&artifact, b"\x7fELF the new Oikos").unwrap();
    release::sign(&sk, &artifact, "9.9.9");
    release::write_manifest(dir.path(), &artifact, "9.9.9", Some(NOTES), &base);

    let app = PathBuf::from(env!("CARGO_BIN_EXE_oikos"));
    let url = format!("{base}latest.json");
    let Some(desktop) = Desktop::start(&app, &[("OIKOS_UPDATE_URL", &url)]) else { return };
    let d = &desktop.d;

    // The check at start finds the release: the bar shows its version and notes.
    d.wait_until("[data-testid=update-version]", STARTUP, |t| t[0] == "Oikos 9.9.9 is available");
    d.wait_until("[data-testid=update-notes]", STEP, |t| t[0] == NOTES);
    let install = d.wait_until("[data-testid=update-install]", STEP, |t| t[0] == "Install and restart");
    assert_eq!(install.len(), 1);

    // Settings says so too, in its quiet line.
    let nav = d.wait_until("[data-testid=nav-settings]", STEP, |_| true);
    d.click(&nav[0].0);
    d.wait_until("[data-testid=update-line]", STEP, |t| t[0].contains("9.9.9 is available"));
    let shot = artifacts_dir().join("oikos-update.png");
    d.screenshot(&shot);
    eprintln!("screenshot: {}", shot.display());

    // "Later" hides it; checking again finds the same release and keeps it hidden.
    let later = d.wait_until("[data-testid=update-later]", STEP, |_| true);
    d.click(&later[0].0);
    wait_gone(d, "[data-testid=update-banner]", STEP);
    d.wait_until("[data-testid=update-line]", STEP, |t| t[0].contains("9.9.9 put off until a newer release"));
    let check = d.wait_until("[data-testid=update-check]", STEP, |_| true);
    d.click(&check[0].0);
    // The check against 127.0.0.1 ends within milliseconds; the bar must not come back meanwhile.
    let until = Instant::now() + Duration::from_secs(3);
    while Instant::now() < until {
        assert!(d.find_all("[data-testid=update-banner]").is_empty(), "the put-off release came back");
        std::thread::sleep(Duration::from_millis(100));
    }
    d.wait_until("[data-testid=update-line]", STEP, |t| t[0].contains("9.9.9 put off until a newer release"));

    // A newer release is published: the next check offers it.
    release::sign(&sk, &artifact, "9.10.0");
    release::write_manifest(dir.path(), &artifact, "9.10.0", Some(NOTES), &base);
    d.click(&check[0].0);
    d.wait_until("[data-testid=update-version]", STEP, |t| t[0] == "Oikos 9.10.0 is available");

    // An unreadable manifest: a quiet line in Settings; the offer already made stays.
    std::fs::write(dir.path().join("latest.json"), "<html>maintenance</html>").unwrap();
    d.click(&check[0].0);
    d.wait_until("[data-testid=update-line]", STEP, |t| t[0].contains("last update check failed"));
    d.wait_until("[data-testid=update-version]", STEP, |t| t[0] == "Oikos 9.10.0 is available");
}
