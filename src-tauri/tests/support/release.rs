//! A release as the release workflow makes one, for the update tests: a throwaway minisign key,
//! artifacts signed the way `tauri build` signs them, the manifest written by the release script
//! (`scripts/update-manifest.py`), and a small HTTP server on 127.0.0.1 to serve them.
//! Shared by the updater's own tests (`src/updates/tests.rs`) and the desktop end-to-end test.
#![allow(dead_code, clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::io::{BufRead, BufReader, Cursor, Write};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use base64::Engine;

fn b64(text: &str) -> String {
    base64::engine::general_purpose::STANDARD.encode(text)
}

/// A throwaway key pair: (the public key as the app's config holds it, the secret key).
pub fn key() -> (String, minisign::SecretKey) {
    let pair = minisign::KeyPair::generate_unencrypted_keypair().unwrap();
    (b64(&pair.pk.to_box().unwrap().to_string()), pair.sk)
}

/// Signs the artifact the way `tauri build` does (the version in the trusted comment) and writes
/// the `.sig` file beside it: base64 of the minisign signature.
pub fn sign(sk: &minisign::SecretKey, artifact: &Path, version: &str) {
    let name = artifact.file_name().unwrap().to_string_lossy();
    sign_with_comment(sk, artifact, &format!("timestamp:1767225600\tfile:{name}\tversion:{version}"));
}

/// Signs the artifact with `trusted` as the signature's trusted comment.
pub fn sign_with_comment(sk: &minisign::SecretKey, artifact: &Path, trusted: &str) {
    let bytes = std::fs::read(artifact).unwrap();
    let sig =
        minisign::sign(None, sk, Cursor::new(bytes), Some(trusted), Some("signature from tauri secret key")).unwrap();
    std::fs::write(format!("{}.sig", artifact.display()), b64(&sig.to_string())).unwrap();
}

/// Runs the release script, as the release workflow does.
pub fn manifest_script(args: &[&str]) -> Output {
    let script = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../scripts/update-manifest.py");
    Command::new("python3").arg(script).args(args).output().expect("python3 runs the release script")
}

/// Writes `dir/latest.json` for `artifact` (signed beside it) as release `version`, downloadable
/// from `base` (a URL ending in `/`), for every Linux and macOS target.
pub fn write_manifest(dir: &Path, artifact: &Path, version: &str, notes: Option<&str>, base: &str) {
    let notes_file = dir.join("notes.md");
    let mut args = vec!["--version".to_string(), version.to_string(), "--base-url".into(), base.into()];
    if let Some(notes) = notes {
        std::fs::write(&notes_file, notes).unwrap();
        args.extend(["--notes-file".to_string(), notes_file.display().to_string()]);
    }
    args.extend([
        "--asset".to_string(),
        format!("linux-x86_64,linux-aarch64,darwin-x86_64,darwin-aarch64={}", artifact.display()),
        "--output".into(),
        dir.join("latest.json").display().to_string(),
    ]);
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let out = manifest_script(&args);
    assert!(out.status.success(), "release script failed: {}", String::from_utf8_lossy(&out.stderr));
}

/// Serves the files of `dir` over HTTP/1.0 on 127.0.0.1 (GET only) until the process ends; the
/// base URL, ending in `/`.
pub fn serve(dir: &Path) -> String {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let base = format!("http://{}/", listener.local_addr().unwrap());
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
    if reader.read_line(&mut request).is_err() {
        return;
    }
    let mut line = String::new();
    while reader.read_line(&mut line).map(|n| n > 2).unwrap_or(false) {
        line.clear();
    }
    let path = request.split_whitespace().nth(1).unwrap_or("/").trim_start_matches('/').to_string();
    let _ = match std::fs::read(dir.join(&path)) {
        Ok(body) if !path.contains("..") && !path.is_empty() => {
            let head = format!("HTTP/1.0 200 OK\r\nContent-Length: {}\r\nConnection: close\r\n\r\n", body.len());
            stream.write_all(head.as_bytes()).and_then(|()| stream.write_all(&body))
        }
        _ => stream.write_all(b"HTTP/1.0 404 Not Found\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"),
    };
}
