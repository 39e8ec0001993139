//! The update path end to end, short of installing: a release manifest written by the release
//! script (`scripts/update-manifest.py`) and an artifact signed with a throwaway minisign key are
//! served over HTTP on 127.0.0.1; the app's updater finds the release, downloads it and checks its
//! signature. A tampered artifact, a foreign key, an unreadable manifest and an unreachable server
//! are refused, and the refusal is in the status, not a crash.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::io::{BufRead, BufReader, Cursor, Write};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::Command;

use base64::Engine;
use tauri::test::{mock_builder, mock_context, noop_assets, MockRuntime};
use tauri::App;

use super::*;

const VERSION: &str = "9.9.9";
const NOTES: &str = "Faster graph; fixes the approval countdown.";
const ARTIFACT: &str = "Oikos_9.9.9_amd64.AppImage";

fn b64(text: &str) -> String {
    base64::engine::general_purpose::STANDARD.encode(text)
}

/// A throwaway key pair: (the key as the app's config holds it, the secret key).
fn key() -> (String, minisign::SecretKey) {
    let pair = minisign::KeyPair::generate_unencrypted_keypair().unwrap();
    (b64(&pair.pk.to_box().unwrap().to_string()), pair.sk)
}

/// Signs `bytes` the way `tauri build` does (the version in the trusted comment) and writes the
/// `.sig` file beside the artifact: base64 of the minisign signature.
fn sign(sk: &minisign::SecretKey, artifact: &Path, version: &str) {
    let bytes = std::fs::read(artifact).unwrap();
    let name = artifact.file_name().unwrap().to_string_lossy();
    let trusted = format!("timestamp:1767225600\tfile:{name}\tversion:{version}");
    let sig =
        minisign::sign(None, sk, Cursor::new(bytes), Some(&trusted), Some("signature from tauri secret key")).unwrap();
    std::fs::write(format!("{}.sig", artifact.display()), b64(&sig.to_string())).unwrap();
}

/// The release script, as the release workflow runs it.
fn manifest_script(args: &[&str]) -> std::process::Output {
    let script = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../scripts/update-manifest.py");
    Command::new("python3").arg(script).args(args).output().expect("python3 runs the release script")
}

/// Serves the files of `dir` over HTTP/1.0 on 127.0.0.1 (GET only) until the test ends.
fn serve(dir: &Path) -> String {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    let dir = dir.to_path_buf();
    std::thread::spawn(move || {
        for stream in listener.incoming().flatten() {
            answer(stream, &dir);
        }
    });
    base
}

fn answer(mut stream: TcpStream, dir: &Path) {
    let mut reader = BufReader::new(stream.try_clone().unwrap());
    let mut request = String::new();
    reader.read_line(&mut request).unwrap();
    let mut line = String::new();
    while reader.read_line(&mut line).map(|n| n > 2).unwrap_or(false) {
        line.clear();
    }
    let path = request.split_whitespace().nth(1).unwrap_or("/").trim_start_matches('/').to_string();
    let file = dir.join(path.replace("%20", " "));
    let _ = match std::fs::read(&file) {
        Ok(body) if !path.contains("..") => {
            let head = format!("HTTP/1.0 200 OK\r\nContent-Length: {}\r\nConnection: close\r\n\r\n", body.len());
            stream.write_all(head.as_bytes()).and_then(|()| stream.write_all(&body))
        }
        _ => stream.write_all(b"HTTP/1.0 404 Not Found\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"),
    };
}

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
    std::fs::write(dir.join("notes.md"), NOTES).unwrap();
    let out = manifest_script(&[
        "--version",
        VERSION,
        "--notes-file",
        dir.join("notes.md").to_str().unwrap(),
        "--base-url",
        &format!("{base}/"),
        "--asset",
        &format!("linux-x86_64,linux-aarch64,darwin-x86_64,darwin-aarch64={}", artifact.display()),
        "--output",
        dir.join("latest.json").to_str().unwrap(),
    ]);
    assert!(out.status.success(), "release script failed: {}", String::from_utf8_lossy(&out.stderr));
    Url::parse(&format!("{base}/latest.json")).unwrap()
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

    let updates = Updates::with_test_key(app.handle(), Url::parse(&format!("{base}/latest.json")).unwrap(), pubkey);
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
    assert_eq!(updates.postpone().offer, None);
    assert_eq!(updates.check().await.offer, None, "the same release is not offered again");
    assert!(matches!(updates.download_offered().await, Err(UpdateError::NothingOffered)));

    // A newer release is published: it is offered.
    let artifact = dir.path().join(ARTIFACT);
    sign(&sk, &artifact, "10.0.0");
    let out = manifest_script(&[
        "--version",
        "10.0.0",
        "--base-url",
        "http://127.0.0.1:1/",
        "--asset",
        &format!("linux-x86_64,linux-aarch64,darwin-x86_64,darwin-aarch64={}", artifact.display()),
        "--output",
        dir.path().join("latest.json").to_str().unwrap(),
    ]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(updates.check().await.offer.map(|o| o.version).as_deref(), Some("10.0.0"));
}

#[test]
fn the_release_script_refuses_a_signature_of_another_version() {
    let dir = tempfile::tempdir().unwrap();
    let (_, sk) = key();
    let artifact = dir.path().join(ARTIFACT);
    std::fs::write(&artifact, b"old build").unwrap();
    sign(&sk, &artifact, "1.0.0");
    let out = manifest_script(&[
        "--version",
        VERSION,
        "--base-url",
        "https://example.invalid/",
        "--asset",
        &format!("linux-x86_64={}", artifact.display()),
        "--output",
        dir.path().join("latest.json").to_str().unwrap(),
    ]);
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("1.0.0"), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(!dir.path().join("latest.json").exists(), "no manifest is written for a mismatched signature");

    // An artifact without its .sig is refused too.
    std::fs::remove_file(format!("{}.sig", artifact.display())).unwrap();
    let out = manifest_script(&[
        "--version",
        "1.0.0",
        "--base-url",
        "https://example.invalid/",
        "--asset",
        &format!("linux-x86_64={}", artifact.display()),
        "--output",
        dir.path().join("latest.json").to_str().unwrap(),
    ]);
    assert!(!out.status.success());
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
