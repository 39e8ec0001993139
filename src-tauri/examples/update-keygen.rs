//! Makes the release signing key pair for the app's updates, in the format `tauri build` signs
//! with: the public key goes into `tauri.conf.json` (`plugins.updater.pubkey`), the private key
//! and its password into the CI secrets `TAURI_SIGNING_PRIVATE_KEY` and
//! `TAURI_SIGNING_PRIVATE_KEY_PASSWORD`, and nowhere else (never into the repository).
//!
//! `OIKOS_SIGNING_KEY_PASSWORD=… cargo run -p oikos --example update-keygen -- DIR`
//! writes `DIR/oikos-updater.key` (mode 0600) and `DIR/oikos-updater.key.pub`, and prints the
//! public key. It refuses to overwrite an existing key.
//!
//! `OIKOS_SIGNING_KEY_PASSWORD=… cargo run -p oikos --example update-keygen -- --check DIR`
//! checks that the private key in DIR opens with the password and signs what the app's configured
//! public key (`src-tauri/tauri.conf.json`) accepts: the pair CI signs with is the one the app
//! trusts.

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use base64::Engine;

fn main() -> ExitCode {
    match run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("update-keygen: {e}");
            ExitCode::FAILURE
        }
    }
}

type Error = Box<dyn std::error::Error>;

fn run() -> Result<(), Error> {
    let args: Vec<_> = std::env::args_os().skip(1).collect();
    let password = std::env::var("OIKOS_SIGNING_KEY_PASSWORD")
        .map_err(|_| "set OIKOS_SIGNING_KEY_PASSWORD (the password of the private key)")?;
    match args.as_slice() {
        [flag, dir] if flag == "--check" => check(&PathBuf::from(dir), password),
        [dir] => generate(&PathBuf::from(dir), password),
        _ => Err("usage: update-keygen [--check] DIR".into()),
    }
}

fn check(dir: &std::path::Path, password: String) -> Result<(), Error> {
    let b64 = base64::engine::general_purpose::STANDARD;
    let secret = String::from_utf8(b64.decode(std::fs::read_to_string(dir.join("oikos-updater.key"))?.trim())?)?;
    let sk = minisign::SecretKeyBox::from_string(&secret)?.into_secret_key(Some(password))?;
    let conf: serde_json::Value =
        serde_json::from_str(include_str!(concat!(env!("CARGO_MANIFEST_DIR"), "/tauri.conf.json")))?;
    let configured = conf["plugins"]["updater"]["pubkey"].as_str().ok_or("tauri.conf.json has no updater pubkey")?;
    let pk = minisign::PublicKeyBox::from_string(&String::from_utf8(b64.decode(configured)?)?)?.into_public_key()?;
    let message = b"oikos update key check";
    let signature = minisign::sign(None, &sk, std::io::Cursor::new(message), None, None)?;
    minisign::verify(&pk, &signature, std::io::Cursor::new(message), true, false, false)
        .map_err(|e| format!("the private key does not match tauri.conf.json's public key: {e}"))?;
    println!("the private key in {} signs for the configured public key", dir.display());
    Ok(())
}

fn generate(dir: &std::path::Path, password: String) -> Result<(), Error> {
    if password.is_empty() {
        return Err("the password must not be empty".into());
    }
    let secret_path = dir.join("oikos-updater.key");
    let public_path = dir.join("oikos-updater.key.pub");
    if secret_path.exists() || public_path.exists() {
        return Err(format!("{} already holds a key; not overwriting it", dir.display()).into());
    }
    std::fs::create_dir_all(dir)?;

    let pair = minisign::KeyPair::generate_encrypted_keypair(Some(password))?;
    let b64 = base64::engine::general_purpose::STANDARD;
    let secret = b64.encode(pair.sk.to_box(None)?.to_string());
    let public = b64.encode(pair.pk.to_box()?.to_string());

    let mut file = {
        use std::os::unix::fs::OpenOptionsExt;
        std::fs::OpenOptions::new().write(true).create_new(true).mode(0o600).open(&secret_path)?
    };
    file.write_all(secret.as_bytes())?;
    std::fs::write(&public_path, &public)?;
    println!("private key: {} (store it and its password as CI secrets)", secret_path.display());
    println!("public key (plugins.updater.pubkey):\n{public}");
    Ok(())
}
