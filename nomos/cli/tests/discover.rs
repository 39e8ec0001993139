//! `nomos hosts add|test|trust` and `nomos discover` as an operator meets them: a lab started by the
//! CLI, a host added by hand (no inventory), its key shown before it is trusted, the permission test,
//! the diff reviewed, applied, and followed after a change behind Oikos's back. Real sshd, the real
//! binary, its JSON contracts and exit statuses.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::Path;
use std::process::{Command, Output, Stdio};

use serde_json::Value;

fn nomos(db: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_nomos")).arg("--db").arg(db).args(args).stdin(Stdio::null()).output().unwrap()
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

fn json_line(out: &Output) -> Value {
    assert!(out.status.success(), "{}{}", text(&out.stdout), text(&out.stderr));
    let s = text(&out.stdout);
    assert_eq!(s.trim().lines().count(), 1, "one JSON object per line: {s}");
    serde_json::from_str(s.trim()).unwrap()
}

struct Down<'a>(&'a Path);

impl Drop for Down<'_> {
    fn drop(&mut self) {
        let _ = Command::new(env!("CARGO_BIN_EXE_nomos"))
            .args(["lab", "down", "--purge", "--dir", self.0.to_str().unwrap()])
            .output();
    }
}

#[test]
fn a_host_added_by_hand_is_tested_discovered_and_followed() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("lab");
    let d = dir.to_str().unwrap();
    let _down = Down(&dir);
    let db = tmp.path().join("oikos.db");
    let up = nomos(&db, &["lab", "up", "--dir", d, "--hosts", "2", "--guests", "10", "--json"]);
    let up: Value = serde_json::from_slice(&up.stdout).unwrap();
    let port = up["hosts"][0]["port"].as_u64().unwrap().to_string();
    let key = up["client_key"].as_str().unwrap().to_string();
    let user = nomos_lab::current_user();

    let added = nomos(
        &db,
        &["hosts", "add", "pve1", "--address", "127.0.0.1", "--port", &port, "--user", &user, "--key", &key, "--json"],
    );
    let added: Value = serde_json::from_slice(&added.stdout).unwrap_or_else(|e| panic!("{e}: {}", text(&added.stderr)));
    assert_eq!(added["host"], "host:pve1");
    assert_eq!(added["trusted"], false);
    // The fingerprint shown is the host's own key's.
    let pubkey = dir.canonicalize().unwrap().join("hosts/pve1/ssh_host_ed25519_key.pub");
    let lf = Command::new("ssh-keygen").arg("-lf").arg(&pubkey).output().unwrap();
    let expected = text(&lf.stdout).split_whitespace().nth(1).unwrap().to_string();
    assert_eq!(added["fingerprint"], expected.as_str());
    let twice = nomos(&db, &["hosts", "add", "pve1", "--address", "127.0.0.1"]);
    assert_eq!(twice.status.code(), Some(1));
    assert!(text(&twice.stderr).contains("exists already"), "{}", text(&twice.stderr));

    // Not trusted yet: the test says so, with the fingerprint and the way to trust it; exit 1.
    let untrusted = nomos(&db, &["hosts", "test", "pve1", "--json"]);
    assert_eq!(untrusted.status.code(), Some(1));
    let t: Value = serde_json::from_slice(&untrusted.stdout).unwrap();
    assert_eq!(t["checks"][0]["check"], "host_key");
    assert_eq!(t["checks"][0]["ok"], false);
    assert!(t["checks"][0]["fix"].as_str().unwrap().contains("nomos hosts trust host:pve1"));
    let discover_untrusted = nomos(&db, &["discover", "pve1"]);
    assert_eq!(discover_untrusted.status.code(), Some(1), "nothing runs on an untrusted host");

    let trust = nomos(&db, &["hosts", "trust", "pve1", "--fingerprint", &expected]);
    assert!(trust.status.success(), "{}", text(&trust.stderr));
    let ok = nomos(&db, &["hosts", "test", "pve1"]);
    assert!(ok.status.success(), "{}", text(&ok.stdout));
    assert!(text(&ok.stdout).contains("ready for discovery"), "{}", text(&ok.stdout));

    // Review (no HOST: the host added for discovery), then apply.
    let review = json_line(&nomos(&db, &["discover", "--json"]));
    assert_eq!(review["cluster"], "oikos-lab");
    assert_eq!(review["applied"], false);
    assert!(review["counts"]["new"].as_u64().unwrap() >= 10 + 2, "{review}");
    let n: Value = serde_json::from_slice(&nomos(&db, &["entity", "list", "--type", "lxc", "--json"]).stdout).unwrap();
    assert_eq!(n["total"], 0, "a review writes nothing");
    let applied = json_line(&nomos(&db, &["discover", "pve1", "--apply", "--json"]));
    assert_eq!(applied["applied"], true);
    assert_eq!(applied["counts"], review["counts"]);
    let quiet = json_line(&nomos(&db, &["discover", "pve1", "--apply", "--json"]));
    assert_eq!(quiet["changes"].as_array().unwrap().len(), 0, "{quiet}");
    assert_eq!(quiet["commands"], 2);

    // Behind Oikos's back: a guest destroyed.
    let destroyed = nomos(&db, &["lab", "guest", "destroy", "--dir", d, "101"]);
    assert!(destroyed.status.success(), "{}", text(&destroyed.stderr));
    let human = nomos(&db, &["discover", "pve1"]);
    let h = text(&human.stdout);
    assert!(h.contains("1 gone") && h.contains("not applied"), "{h}");
    let gone = json_line(&nomos(&db, &["discover", "pve1", "--apply", "--json"]));
    let item = gone["changes"].as_array().unwrap().iter().find(|c| c["vmid"] == 101).unwrap().clone();
    assert_eq!(item["kind"], "gone");
    let e: Value =
        serde_json::from_slice(&nomos(&db, &["entity", "show", item["slug"].as_str().unwrap(), "--json"]).stdout)
            .unwrap();
    assert_eq!(e["entity"]["state"], "gone", "{e}");

    // A host nobody answers on: added (its key could not be read, and it says so), never discovered.
    let closed = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let closed_port = closed.local_addr().unwrap().port().to_string();
    drop(closed);
    let away: Value = serde_json::from_slice(
        &nomos(&db, &["hosts", "add", "away", "--address", "127.0.0.1", "--port", &closed_port, "--json"]).stdout,
    )
    .unwrap();
    assert!(away["fingerprint"].is_null() && away["unreachable"].is_string(), "{away}");
    let unreachable = nomos(&db, &["discover", "away"]);
    assert_eq!(unreachable.status.code(), Some(1));
    assert_eq!(text(&unreachable.stderr).trim().lines().count(), 1, "{}", text(&unreachable.stderr));
    let removed = nomos(&db, &["hosts", "rm", "away", "--json"]);
    let removed: Value = serde_json::from_slice(&removed.stdout).unwrap();
    assert_eq!(removed["outcome"], "gone", "the failed read is history: kept");
    let fresh = nomos(&db, &["hosts", "add", "spare", "--address", "127.0.0.1", "--port", &closed_port]);
    assert!(fresh.status.success());
    let removed: Value = serde_json::from_slice(&nomos(&db, &["hosts", "rm", "spare", "--json"]).stdout).unwrap();
    assert_eq!(removed["outcome"], "deleted", "nothing ever ran on it");

    // Bad input: one line, exit 1.
    let nosuch = nomos(&db, &["discover", "host:nosuch"]);
    assert_eq!(nosuch.status.code(), Some(1));
    assert_eq!(text(&nosuch.stderr).trim().lines().count(), 1);
}
