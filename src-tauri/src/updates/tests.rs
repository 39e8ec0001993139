//! The update path end to end, short of installing: a release manifest written by the release
//! script (`scripts/update-manifest.py`) and an artifact signed with a throwaway minisign key are
//! served over HTTP on 127.0.0.1; the app's updater finds the release, downloads it and checks its
//! signature. A tampered artifact, a foreign key, a manifest announcing another version than the
//! one signed, an unreadable manifest and an unreachable server are refused, and the refusal is in
//! the status, not a crash.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::net::TcpListener;
use std::path::Path;

use base64::Engine;
use tauri::test::{mock_builder, mock_context, noop_assets, MockRuntime};
use tauri::App;

use super::*;

#[path = "../../tests/support/release.rs"]
mod release;
use release::{key, manifest_script, serve, sign, sign_with_comment, write_manifest};

const VERSION: &str = "9.9.9";
const NOTES: &str = "Faster graph; fixes the approval countdown.";
const ARTIFACT: &str = "Oikos_9.9.9_amd64.AppImage";

/// The app under test: the real updater plugin, configured with the release key and endpoint
/// from `tauri.conf.json`, on Tauri's mock runtime (no window needed).
fn app() -> App<MockRuntime> {
    let conf: serde_json::Value =
        serde_json::from_str(include_str!(concat!(env!("CARGO_MANIFEST_DIR"), "/tauri.conf.json"))).unwrap();
    let mut context = mock_context(noop_assets());
    context.config_mut().plugins.0.insert("updater".into(), conf["plugins"]["updater"].clone());
    mock_builder().plugin(tauri_plugin_updater::Builder::new().build()).build(context).unwrap()
}

/// A release directory with the artifact, its signature (by `sk`) and the manifest the release
/// script writes for it, served over HTTP: the manifest's URL.
fn release(dir: &Path, sk: &minisign::SecretKey) -> Url {
    let base = serve(dir);
    let artifact = dir.join(ARTIFACT);
    std::fs::write(&artifact, b"\x7fELF the new Oikos").unwrap();
    sign(sk, &artifact, VERSION);
    write_manifest(dir, &artifact, VERSION, Some(NOTES), &base);
    Url::parse(&format!("{base}latest.json")).unwrap()
}

#[tokio::test]
async fn finds_a_signed_release_and_verifies_it() {
    let dir = tempfile::tempdir().unwrap();
    let (pubkey, sk) = key();
    let url = release(dir.path(), &sk);
    let app = app();
    let updates = Updates::with_test_key(app.handle(), url, pubkey);

    let status = updates.check().await;
    assert_eq!(status.last_error, None);
    assert!(!status.checking);
    assert!(status.checked_at.is_some());
    let offer = status.offer.expect("the newer release is offered");
    assert_eq!(offer.version, VERSION);
    assert_eq!(offer.notes.as_deref(), Some(NOTES));
    assert!(offer.date.is_some(), "the manifest carries its publication date");

    let (update, bytes) = updates.download_offered().await.expect("a correctly signed artifact is accepted");
    assert_eq!(bytes, std::fs::read(dir.path().join(ARTIFACT)).unwrap());
    assert_eq!(update.version, VERSION);
    assert_eq!(updates.status().last_error, None);
    assert!(!updates.status().installing);
}

#[tokio::test]
async fn a_tampered_artifact_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let (pubkey, sk) = key();
    let url = release(dir.path(), &sk);
    // One byte changed after signing, as a compromised mirror would serve it.
    let artifact = dir.path().join(ARTIFACT);
    let mut bytes = std::fs::read(&artifact).unwrap();
    bytes[5] ^= 0x20;
    std::fs::write(&artifact, bytes).unwrap();
    let app = app();
    let updates = Updates::with_test_key(app.handle(), url, pubkey);

    assert_eq!(updates.check().await.offer.map(|o| o.version).as_deref(), Some(VERSION));
    let err = updates.download_offered().await.err().expect("a tampered artifact is refused");
    assert!(matches!(err, UpdateError::Updater(tauri_plugin_updater::Error::Minisign(_))), "{err:?}");
    let status = updates.status();
    let line = status.last_error.expect("the refusal is in the status");
    assert!(line.contains(VERSION) && line.contains("not installed"), "{line}");
    assert!(!status.installing);
}

#[tokio::test]
async fn a_manifest_announcing_another_version_than_signed_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let (pubkey, sk) = key();
    let url = release(dir.path(), &sk);
    // The manifest is not signed: an attacker can announce 9.9.10 with 9.9.9's artifact and
    // signature. The signature names its version (`requireSignedVersion` in tauri.conf.json).
    let manifest = std::fs::read_to_string(dir.path().join("latest.json")).unwrap();
    let forged = manifest.replace("\"version\": \"9.9.9\"", "\"version\": \"9.9.10\"");
    assert_ne!(forged, manifest);
    std::fs::write(dir.path().join("latest.json"), forged).unwrap();
    let app = app();
    let updates = Updates::with_test_key(app.handle(), url, pubkey);

    assert_eq!(updates.check().await.offer.map(|o| o.version).as_deref(), Some("9.9.10"));
    let err = updates.download_offered().await.err().expect("a version the signature does not name is refused");
    assert!(matches!(err, UpdateError::Updater(tauri_plugin_updater::Error::SignedVersionMismatch { .. })), "{err:?}");
}

#[tokio::test]
async fn the_release_key_refuses_an_artifact_signed_by_another() {
    let dir = tempfile::tempdir().unwrap();
    let (_, sk) = key();
    let url = release(dir.path(), &sk);
    let app = app();
    // The endpoint is replaced, the key is not: the one from tauri.conf.json checks the signature.
    let updates = Updates::with_source(app.handle(), Ok(Some(Source { endpoint: Some(url), pubkey: None })));

    assert!(updates.check().await.offer.is_some());
    let err = updates.download_offered().await.err().expect("a foreign signature is refused");
    assert!(matches!(err, UpdateError::Updater(tauri_plugin_updater::Error::Minisign(_))), "{err:?}");
}

#[tokio::test]
async fn an_unreadable_manifest_or_no_server_is_a_quiet_error() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("latest.json"), "<html>not a manifest</html>").unwrap();
    let base = serve(dir.path());
    let (pubkey, _) = key();
    let app = app();

    let updates = Updates::with_test_key(app.handle(), Url::parse(&format!("{base}latest.json")).unwrap(), pubkey);
    let status = updates.check().await;
    assert_eq!(status.offer, None);
    assert!(status.last_error.is_some() && status.checked_at.is_some(), "{status:?}");

    // Nothing listens on this port any more.
    let port = TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let (pubkey, _) = key();
    let offline = Updates::with_test_key(
        app.handle(),
        Url::parse(&format!("http://127.0.0.1:{port}/latest.json")).unwrap(),
        pubkey,
    );
    let status = offline.check().await;
    assert_eq!(status.offer, None);
    assert!(status.last_error.is_some(), "{status:?}");
    assert!(matches!(offline.download_offered().await, Err(UpdateError::NothingOffered)));
}

#[tokio::test]
async fn later_hides_the_offer_until_a_newer_release() {
    let dir = tempfile::tempdir().unwrap();
    let (pubkey, sk) = key();
    let url = release(dir.path(), &sk);
    let app = app();
    let updates = Updates::with_test_key(app.handle(), url, pubkey);

    assert!(updates.check().await.offer.is_some());
    let status = updates.postpone();
    assert_eq!((status.offer, status.postponed.as_deref()), (None, Some(VERSION)));
    let status = updates.check().await;
    assert_eq!(status.offer, None, "the same release is not offered again");
    assert_eq!(status.postponed.as_deref(), Some(VERSION));
    assert!(matches!(updates.download_offered().await, Err(UpdateError::NothingOffered)));

    // A newer release is published: it is offered.
    let artifact = dir.path().join(ARTIFACT);
    sign(&sk, &artifact, "10.0.0");
    write_manifest(dir.path(), &artifact, "10.0.0", None, "http://127.0.0.1:1/");
    let status = updates.check().await;
    assert_eq!(status.offer.map(|o| o.version).as_deref(), Some("10.0.0"));
    assert_eq!(status.postponed, None);
}

#[test]
fn the_release_script_refuses_a_signature_of_another_version() {
    let dir = tempfile::tempdir().unwrap();
    let (_, sk) = key();
    let artifact = dir.path().join(ARTIFACT);
    let output = dir.path().join("latest.json");
    std::fs::write(&artifact, b"old build").unwrap();
    // The release script run for `version`: its stderr on failure.
    let release = |version: &str| {
        let out = manifest_script(&[
            "--version",
            version,
            "--base-url",
            "https://example.invalid/",
            "--asset",
            &format!("linux-x86_64={}", artifact.display()),
            "--output",
            output.to_str().unwrap(),
        ]);
        assert!(!out.status.success(), "the release script accepted it");
        String::from_utf8_lossy(&out.stderr).to_string()
    };

    sign(&sk, &artifact, "1.0.0");
    let stderr = release(VERSION);
    assert!(stderr.contains("1.0.0"), "{stderr}");
    assert!(!output.exists(), "no manifest is written for a mismatched signature");

    // So is a signature that names no version: every installed app would refuse it.
    sign_with_comment(&sk, &artifact, "timestamp:1767225600\tfile:old");
    let stderr = release("1.0.0");
    assert!(stderr.contains("without a version"), "{stderr}");

    // An artifact without its .sig is refused too.
    std::fs::remove_file(format!("{}.sig", artifact.display())).unwrap();
    release("1.0.0");
    assert!(!output.exists());
}

#[test]
fn the_configured_release_key_and_endpoint_are_real() {
    let conf: serde_json::Value =
        serde_json::from_str(include_str!(concat!(env!("CARGO_MANIFEST_DIR"), "/tauri.conf.json"))).unwrap();
    let updater = &conf["plugins"]["updater"];
    let key = base64::engine::general_purpose::STANDARD.decode(updater["pubkey"].as_str().unwrap()).unwrap();
    let key = String::from_utf8(key).unwrap();
    minisign::PublicKeyBox::from_string(&key).unwrap().into_public_key().expect("a minisign public key");
    let endpoint = Url::parse(updater["endpoints"][0].as_str().unwrap()).unwrap();
    assert_eq!(endpoint.scheme(), "https");
    assert_eq!(updater["requireSignedVersion"], true);
}

#[tokio::test]
async fn checks_turned_off_or_a_bad_url_say_so_quietly() {
    let app = app();
    let off = Updates::with_source(app.handle(), Ok(None));
    assert!(!off.automatic(), "no timer when checks are off");
    let line = off.check().await.last_error.unwrap();
    assert!(line.contains("turned off") && line.contains(URL_ENV), "{line}");

    let bad = Updates::with_source(app.handle(), Err("relative URL without a base".into()));
    assert!(!bad.automatic());
    let line = bad.check().await.last_error.unwrap();
    assert_eq!(line, format!("{URL_ENV} is not a URL (relative URL without a base)"));
}
