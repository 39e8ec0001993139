//! `nomos auth` against the real Secret Service: a private D-Bus session with gnome-keyring under
//! a throwaway HOME. The key goes in through stdin, is reported as stored, never appears in
//! stdout, stderr, logs or the keyring's database file, and is removed again. A locked keyring
//! and a missing Secret Service each get a clear error.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::Path;
use std::process::{Command, Output, Stdio};

#[path = "../../tests/support/secrets.rs"]
mod secrets;
use secrets::files_containing;

const KEY: &str = "sk-oikos-test-4f1c9a7e2b";

/// Runs `script` with `sh` inside `dbus-run-session` under `home`; `$NOMOS` is the binary.
fn in_session(home: &Path, script: &str) -> Output {
    Command::new("dbus-run-session")
        .arg("--")
        .arg("sh")
        .arg("-c")
        .arg(script)
        .env_clear()
        .env("PATH", std::env::var("PATH").unwrap_or_default())
        .env("HOME", home)
        .env("XDG_DATA_HOME", home.join(".local/share"))
        .env("XDG_RUNTIME_DIR", home.join("run"))
        .env("NOMOS", env!("CARGO_BIN_EXE_nomos"))
        .env("NOMOS_LOG", "debug")
        .env("KEY", KEY)
        .stdin(Stdio::null())
        .output()
        .unwrap()
}

fn read(dir: &Path, name: &str) -> String {
    std::fs::read_to_string(dir.join(name)).unwrap_or_default()
}

#[test]
fn set_status_and_delete_a_key_in_the_real_secret_service() {
    let home = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(home.path().join("run")).unwrap();
    let out = home.path().join("out");
    std::fs::create_dir_all(&out).unwrap();
    let script = format!(
        r#"
        set -u
        O={out}
        printf 'throwaway-password' | gnome-keyring-daemon --unlock --components=secrets >/dev/null 2>&1
        export NOMOS_LLM_BASE_URL=https://api.example.com/v1 NOMOS_MODEL=gpt-4o-mini
        "$NOMOS" --json auth status >$O/before.json 2>>$O/stderr
        printf '%s\n' "$KEY" | "$NOMOS" auth set-key >>$O/stdout 2>>$O/stderr; echo $? >$O/set.rc
        "$NOMOS" --json auth status >$O/stored.json 2>>$O/stderr
        "$NOMOS" auth status >>$O/stdout 2>>$O/stderr
        NOMOS_API_KEY=sk-from-env "$NOMOS" --json auth status >$O/env.json 2>>$O/stderr
        "$NOMOS" auth delete-key >>$O/stdout 2>>$O/stderr; echo $? >$O/delete.rc
        "$NOMOS" --json auth status >$O/after.json 2>>$O/stderr
        "#,
        out = out.display()
    );
    let run = in_session(home.path(), &script);
    assert!(run.status.success(), "{run:?}");
    let json = |name: &str| -> serde_json::Value {
        serde_json::from_str(&read(&out, name)).unwrap_or_else(|e| panic!("{name}: {e}: {}", read(&out, "stderr")))
    };
    assert_eq!(json("before.json")["keychain"]["state"], "empty", "{}", read(&out, "stderr"));
    assert_eq!(read(&out, "set.rc").trim(), "0", "{}", read(&out, "stderr"));
    let stored = json("stored.json");
    assert_eq!(stored["keychain"]["state"], "stored");
    assert_eq!(stored["key_source"], "keychain");
    assert_eq!(stored["base_url"], "https://api.example.com/v1");
    assert_eq!(stored["context_tokens"], 128_000);
    assert_eq!(json("env.json")["key_source"], "env");
    assert_eq!(read(&out, "delete.rc").trim(), "0");
    assert_eq!(json("after.json")["keychain"]["state"], "empty");
    assert!(read(&out, "stdout").contains("API key stored in the OS keychain"));
    assert!(read(&out, "stdout").contains("API key removed"));
    // The key is nowhere on disk: not in our outputs or logs, not in the keyring's database.
    assert!(home.path().join(".local/share/keyrings").exists(), "gnome-keyring wrote its database");
    assert_eq!(files_containing(home.path(), KEY.as_bytes()), Vec::<String>::new());
    assert!(!String::from_utf8_lossy(&run.stdout).contains(KEY) && !String::from_utf8_lossy(&run.stderr).contains(KEY));
}

#[test]
fn the_key_never_comes_from_the_command_line() {
    let out = Command::new(env!("CARGO_BIN_EXE_nomos")).args(["auth", "set-key", KEY]).output().unwrap();
    assert_eq!(out.status.code(), Some(2), "an argument is a usage error");
}

#[test]
fn a_locked_keychain_and_a_missing_one_say_so() {
    let home = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(home.path().join("run")).unwrap();
    // A session bus whose keyring is started on demand by D-Bus but never unlocked.
    let run = in_session(home.path(), r#"printf '%s\n' "$KEY" | "$NOMOS" auth set-key"#);
    assert_eq!(run.status.code(), Some(1));
    let err = String::from_utf8_lossy(&run.stderr);
    assert!(err.contains("nomos: the OS keychain is locked or refused access") && err.contains("unlock it"), "{err}");
    assert!(!err.contains(KEY));
    // No session bus at all.
    let out = Command::new(env!("CARGO_BIN_EXE_nomos"))
        .args(["auth", "status"])
        .env("HOME", home.path())
        .env("DBUS_SESSION_BUS_ADDRESS", format!("unix:path={}/no-bus", home.path().display()))
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "status still reports: {out:?}");
    assert!(text.contains("keychain: unavailable — no OS keychain is available"), "{text}");
}

/// What the app's Settings saved is what `auth status` reports, unless the environment names a
/// provider; an absent database is reported as nothing stored and is not created.
#[test]
fn status_reports_the_provider_saved_in_settings() {
    let home = tempfile::tempdir().unwrap();
    let db = home.path().join("oikos.db");
    let status = |env: &[(&str, &str)]| {
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_nomos"));
        cmd.args(["--json", "--db"]).arg(&db).args(["auth", "status"]).env_clear();
        cmd.env("PATH", std::env::var("PATH").unwrap_or_default()).env("HOME", home.path());
        for (k, v) in env {
            cmd.env(k, v);
        }
        let out = cmd.output().unwrap();
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        serde_json::from_slice::<serde_json::Value>(&out.stdout).unwrap()
    };

    let none = status(&[]);
    assert_eq!(none["provider_from"], "none", "{none}");
    assert!(none["problem"].as_str().unwrap().contains("no provider configured"), "{none}");
    assert!(!db.exists(), "auth status created the database");

    let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    rt.block_on(async {
        let engine = nomos::Engine::open(&db).await.unwrap();
        let saved = nomos::types::ProviderSettings {
            base_url: "http://127.0.0.1:11434/v1".into(),
            model: "qwen3:8b".into(),
            context_tokens: Some(16000),
        };
        engine.save_provider_settings(&saved).await.unwrap();
        engine.store().close().await;
    });
    let stored = status(&[]);
    assert_eq!(stored["provider_from"], "settings", "{stored}");
    assert_eq!(stored["base_url"], "http://127.0.0.1:11434/v1");
    assert_eq!(stored["model"], "qwen3:8b");
    assert_eq!(stored["context_tokens"], 16000);
    assert!(stored["problem"].is_null(), "{stored}");

    let env = status(&[("NOMOS_LLM_BASE_URL", "https://api.example.com/v1"), ("NOMOS_MODEL", "gpt-4.1")]);
    assert_eq!(env["provider_from"], "env", "{env}");
    assert_eq!(env["base_url"], "https://api.example.com/v1");
    assert_eq!(env["model"], "gpt-4.1");
}
