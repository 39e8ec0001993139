//! `nomos lab`: a lab that outlives the command, one lab per directory, and stopping it ends its
//! sessions. Real sshd processes, the real OpenSSH client.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::net::TcpListener;
use std::path::Path;
use std::process::{Command, Output, Stdio};

use serde_json::Value;

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// Runs `nomos lab down --purge` for the directory when dropped, so a failing check leaves no
/// detached sshd behind.
struct Down<'a>(&'a Path);

impl Drop for Down<'_> {
    fn drop(&mut self) {
        let _ = nomos_cli(&["lab", "down", "--purge", "--dir", self.0.to_str().unwrap()]);
    }
}

fn nomos_cli(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_nomos")).args(args).stdin(Stdio::null()).output().unwrap()
}

#[test]
fn cli_lab_outlives_the_command() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("lab");
    let d = dir.to_str().unwrap();
    let _down = Down(&dir);

    let up = nomos_cli(&["lab", "up", "--dir", d, "--hosts", "1"]);
    assert!(up.status.success(), "{}", stderr(&up));
    let text = String::from_utf8_lossy(&up.stdout);
    // The lab prints its directory canonical.
    let canonical = dir.canonicalize().unwrap();
    let c = canonical.to_str().unwrap();
    assert!(text.contains(&format!("nomos inventory import {c}/inventory.yaml")), "{text}");
    assert!(text.contains("nomos hosts trust pve1"), "{text}");
    assert!(text.contains(&format!("stop it with: nomos lab down --dir {c}")), "{text}");
    let again = nomos_cli(&["lab", "up", "--dir", d]);
    assert!(stderr(&again).contains("already running"), "{}", stderr(&again));
    let none = nomos_cli(&["lab", "up", "--dir", d, "--hosts", "0"]);
    assert_eq!(none.status.code(), Some(2), "a usage error: {}", stderr(&none));

    let status = nomos_cli(&["lab", "status", "--dir", d, "--json"]);
    let status: Value = serde_json::from_slice(&status.stdout).unwrap();
    assert_eq!(status["running"], true);
    assert_eq!(status["hosts"][0]["serving"], true, "the sshd survived `lab up`");
    let port = status["hosts"][0]["port"].as_u64().unwrap() as u16;

    let down = nomos_cli(&["lab", "down", "--dir", d]);
    assert!(down.status.success(), "{}", stderr(&down));
    TcpListener::bind(("127.0.0.1", port)).expect("`lab down` freed the port");
    let status = nomos_cli(&["lab", "status", "--dir", d, "--json"]);
    let status: Value = serde_json::from_slice(&status.stdout).unwrap();
    assert_eq!(status["running"], false);

    let refused = nomos_cli(&["lab", "down", "--purge", "--dir", tmp.path().to_str().unwrap()]);
    assert!(!refused.status.success() && dir.exists(), "only lab directories are removed");
    assert!(nomos_cli(&["lab", "down", "--purge", "--dir", d]).status.success());
    assert!(!dir.exists());
}

/// Pids of the processes whose command line matches `pattern` (a `pgrep -f` regex).
fn pgrep(pattern: &str) -> Vec<u32> {
    let out = Command::new("pgrep").args(["-f", pattern]).stdin(Stdio::null()).output().expect("pgrep runs");
    String::from_utf8_lossy(&out.stdout).lines().filter_map(|l| l.trim().parse().ok()).collect()
}

fn pids(hosts: &Value) -> Vec<u32> {
    let mut pids: Vec<u32> =
        hosts.as_array().unwrap().iter().map(|h| u32::try_from(h["pid"].as_u64().unwrap()).unwrap()).collect();
    pids.sort_unstable();
    pids
}

#[test]
fn concurrent_starts_leave_one_lab_and_stopping_ends_its_sessions() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("lab");
    let d = dir.to_str().unwrap();
    let _down = Down(&dir);

    // Two starts at once on one directory: one lab, the other start refused with a clear message.
    let racers: Vec<_> = (0..2)
        .map(|_| {
            Command::new(env!("CARGO_BIN_EXE_nomos"))
                .args(["--json", "lab", "up", "--dir", d, "--hosts", "2"])
                .stdin(Stdio::null())
                .stdout(Stdio::piped())
                .stderr(Stdio::piped())
                .spawn()
                .unwrap()
        })
        .collect();
    let (won, lost): (Vec<Output>, Vec<Output>) =
        racers.into_iter().map(|c| c.wait_with_output().unwrap()).partition(|o| o.status.success());
    assert_eq!((won.len(), lost.len()), (1, 1), "{:?}", lost.iter().map(stderr).collect::<Vec<_>>());
    let refusal = stderr(&lost[0]);
    assert!(refusal.contains("a lab is starting or running in") || refusal.contains("already running"), "{refusal}");
    let started: Value = serde_json::from_slice(&won[0].stdout).unwrap();
    let canonical = dir.canonicalize().unwrap();
    let c = canonical.to_str().unwrap();
    assert_eq!(started["dir"], c);
    assert_eq!(started["inventory"], format!("{c}/inventory.yaml"));
    assert_eq!(started["client_key"], format!("{c}/client_ed25519"));
    let state: Value = serde_json::from_str(&std::fs::read_to_string(dir.join("lab.json")).unwrap()).unwrap();
    assert_eq!(pids(&started["hosts"]), pids(&state["hosts"]));
    let mut running = pgrep(&format!("sshd.*{c}/hosts/.*/sshd_config"));
    running.sort_unstable();
    assert_eq!(running, pids(&state["hosts"]), "every sshd of the lab is in lab.json");
    assert!(!dir.join("lab.lock").exists(), "the lock is gone with the start");

    // A command running over the lab's ssh ends with the lab.
    let text = std::fs::read_to_string(dir.join("inventory.yaml")).unwrap();
    let user = nomos::inventory::Inventory::parse(&text, "lab").unwrap().hosts[0].ssh_user.clone();
    let port = started["hosts"][0]["port"].as_u64().unwrap().to_string();
    let marker = format!("sleep 4711.{}", std::process::id());
    let mut session = Command::new("ssh")
        .arg("-i")
        .arg(canonical.join("client_ed25519"))
        .args(["-p", &port, "-o", "StrictHostKeyChecking=no", "-o", "UserKnownHostsFile=/dev/null"])
        .args(["-o", "BatchMode=yes", "-o", "LogLevel=ERROR", &format!("{user}@127.0.0.1"), &marker])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(5);
    while pgrep(&format!("^{marker}")).is_empty() {
        assert!(std::time::Instant::now() < deadline, "the session command never ran");
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    let down = nomos_cli(&["lab", "down", "--purge", "--dir", d]);
    assert!(down.status.success(), "{}", stderr(&down));
    assert!(!dir.exists());
    assert_eq!(pgrep(&format!("^{marker}")), Vec::<u32>::new(), "the session command outlived the lab");
    assert_eq!(pgrep(&format!("sshd.*{c}/hosts/")), Vec::<u32>::new());
    let _ = session.kill();
    let _ = session.wait();
}

#[test]
fn cli_lab_fault_makes_and_clears_faults_with_one_line_each() {
    let help = nomos_cli(&["lab", "fault", "--help"]);
    assert!(help.status.success());
    let help = String::from_utf8_lossy(&help.stdout);
    for fault in
        ["stop-service", "fill-disk", "stop-guest", "node-offline", "flap", "cert-expire", "no-backup", "clear"]
    {
        assert!(help.contains(fault), "{fault} in {help}");
    }

    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("lab");
    let d = dir.to_str().unwrap();
    let none = nomos_cli(&["lab", "fault", "--dir", d, "pve1", "clear"]);
    assert_eq!(none.status.code(), Some(1));
    assert!(stderr(&none).contains("no lab in"), "{}", stderr(&none));

    let _down = Down(&dir);
    let up = nomos_cli(&["lab", "up", "--dir", d, "--hosts", "1"]);
    assert!(up.status.success(), "{}", stderr(&up));

    let made = nomos_cli(&["lab", "fault", "pve1", "stop-service", "pveproxy.service", "--dir", d]);
    assert!(made.status.success(), "{}", stderr(&made));
    let said = String::from_utf8_lossy(&made.stdout);
    assert_eq!(said.lines().count(), 1, "{said}");
    assert!(said.contains("pveproxy.service on pve1 failed"), "{said}");
    let port = serde_json::from_slice::<Value>(&nomos_cli(&["--json", "lab", "status", "--dir", d]).stdout).unwrap()
        ["hosts"][0]["port"]
        .as_u64()
        .unwrap()
        .to_string();
    let is_active = || {
        Command::new("ssh")
            .arg("-i")
            .arg(dir.join("client_ed25519"))
            .args(["-p", &port, "-o", "StrictHostKeyChecking=no", "-o", "UserKnownHostsFile=/dev/null"])
            .args(["-o", "BatchMode=yes", "-o", "LogLevel=ERROR"])
            .arg(format!("{}@127.0.0.1", nomos_lab::current_user()))
            .arg("systemctl is-active pveproxy")
            .stdin(Stdio::null())
            .output()
            .unwrap()
    };
    let out = is_active();
    assert_eq!((out.status.code(), String::from_utf8_lossy(&out.stdout).trim()), (Some(3), "failed"));

    for args in [&["fill-disk", "90"][..], &["flap", "cron", "5"], &["cert-expire", "-3"], &["node-offline"]] {
        let out = nomos_cli(&[&["lab", "fault", "--dir", d, "pve1"][..], args].concat());
        assert!(out.status.success(), "{args:?}: {}", stderr(&out));
        assert_eq!(String::from_utf8_lossy(&out.stdout).lines().count(), 1, "{args:?}");
    }

    // Bad input: exit 1 and one line, as the other lab commands.
    for (args, message) in [
        (&["pve9", "clear"][..], "no lab host named `pve9`"),
        (&["pve1", "fill-disk", "101"], "101 is not a percentage"),
        (&["pve1", "flap", "cron", "0"], "at least 1 second"),
        (&["pve1", "stop-guest", "999"], "no guest with VMID 999"),
        (&["pve1", "no-backup", "999"], "no guest with VMID 999"),
    ] {
        let out = nomos_cli(&[&["lab", "fault", "--dir", d][..], args].concat());
        assert_eq!(out.status.code(), Some(1), "{args:?}");
        let err = stderr(&out);
        assert_eq!(err.lines().count(), 1, "{err}");
        assert!(err.starts_with("nomos: ") && err.contains(message), "{args:?}: {err}");
    }

    let cleared = nomos_cli(&["--json", "lab", "fault", "--dir", d, "pve1", "clear"]);
    assert!(cleared.status.success(), "{}", stderr(&cleared));
    let cleared: Value = serde_json::from_slice(&cleared.stdout).unwrap();
    assert_eq!((cleared["host"].as_str(), cleared["fault"].as_str()), (Some("pve1"), Some("clear")));
    assert!(cleared["done"].as_str().unwrap().contains("back online"), "{cleared}");
    let out = is_active();
    assert_eq!((out.status.code(), String::from_utf8_lossy(&out.stdout).trim()), (Some(0), "active"));
}
