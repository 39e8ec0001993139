//! End to end, native notifications: the app runs with a test notification service on its private
//! session bus (`support/notification_service.py`: it owns `org.freedesktop.Notifications`, records
//! every call and presses buttons when asked). Requests are queued by another process (this test,
//! through the engine library, on the app's database) against a lab host (a real sshd on loopback):
//! a change gets a notification with Approve and Deny in one line (task, target, risk, blast
//! radius), and Approve runs it on the host, recorded with the channel "notification"; a
//! destructive one offers Open, never Approve, and a click on it shows that approval in the window;
//! a request decided in another process closes its notification; approval notifications turned off
//! in Settings raise none.
//!
//! See `support` for what it needs; Debian's /usr/bin/python3 with python3-dbus and python3-gi
//! besides.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod support;

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use nomos::types::{ApprovalStatus, Channel, ExecutionStatus, Risk};
use nomos::{PolicySource, Runtime, RuntimeConfig};
use nomos_lab::{Lab, LabConfig};
use serde_json::Value;
use support::{operator_elsewhere, queue, Desktop, STARTUP, STEP};

const PYTHON: &str = "/usr/bin/python3";

/// The app behind a script that first starts the test notification service in the D-Bus session
/// the driver runs in (the app's session) and waits until it owns its name.
fn app_with_notifications(dir: &Path) -> PathBuf {
    let service = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/support/notification_service.py");
    let script = dir.join("oikos-with-notifications");
    let body = format!(
        "#!/bin/sh\n\
         rm -f \"$HOME/notifications.ready\"\n\
         '{PYTHON}' '{}' \"$HOME/notifications.jsonl\" \"$HOME/notifications.commands\" \"$HOME/notifications.ready\" \
         >\"$HOME/notifications.log\" 2>&1 &\n\
         i=0; while [ ! -f \"$HOME/notifications.ready\" ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i+1)); done\n\
         exec '{}' \"$@\"\n",
        service.display(),
        env!("CARGO_BIN_EXE_oikos")
    );
    std::fs::write(&script, body).unwrap();
    std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
    script
}

/// Everything the service recorded so far.
fn calls(home: &Path) -> Vec<Value> {
    std::fs::read_to_string(home.join("notifications.jsonl"))
        .unwrap_or_default()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

/// Waits for a recorded call that `matches`.
fn wait_call(home: &Path, what: &str, matches: impl Fn(&Value) -> bool) -> Value {
    let deadline = Instant::now() + STEP;
    loop {
        let all = calls(home);
        if let Some(found) = all.iter().find(|c| matches(c)) {
            return found.clone();
        }
        assert!(Instant::now() < deadline, "no {what}; the service recorded: {all:#?}");
        std::thread::sleep(Duration::from_millis(100));
    }
}

/// The Notify call whose title names `command`.
fn notification_of(home: &Path, command: &str) -> Value {
    wait_call(home, &format!("notification for `{command}`"), |c| {
        c["call"] == "Notify" && c["summary"].as_str().is_some_and(|s| s.contains(command))
    })
}

/// The action keys a notification offers (the specification's list is key, label, key, label…).
fn action_keys(note: &Value) -> Vec<String> {
    note["actions"].as_array().unwrap().iter().step_by(2).map(|k| k.as_str().unwrap().to_string()).collect()
}

/// Presses a notification's button (or, with `default`, clicks its body) in the service.
fn press(home: &Path, note: &Value, action: &str) {
    use std::io::Write;
    let mut commands =
        std::fs::OpenOptions::new().append(true).create(true).open(home.join("notifications.commands")).unwrap();
    writeln!(commands, "invoke {} {action}", note["id"]).unwrap();
}

#[test]
fn approvals_as_notifications_with_buttons_that_decide() {
    assert!(Path::new(PYTHON).is_file(), "{PYTHON} is needed: run `make test`, which installs it");
    let wrapper_dir = tempfile::tempdir().unwrap();
    let app = app_with_notifications(wrapper_dir.path());
    let Some(desktop) = Desktop::start(&app, &[("OIKOS_LOG", "info")]) else { return };
    let (d, db, home) = (&desktop.d, desktop.db.clone(), desktop.home.path().to_path_buf());
    d.wait_until("[data-testid=nav-tasks]", STARTUP, |_| true);
    assert!(
        home.join("notifications.ready").is_file(),
        "the test notification service did not start: {}",
        std::fs::read_to_string(home.join("notifications.log")).unwrap_or_default()
    );

    // The lab host, its inventory and its trusted key, written by another process on the app's
    // database.
    let lab = Lab::start(LabConfig { hosts: 1, ..LabConfig::new(home.join("lab")) }).unwrap();
    let rt = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().unwrap();
    let config = RuntimeConfig { policy: PolicySource::Builtin, ..RuntimeConfig::new(&db) };
    let nomos = rt.block_on(Runtime::open(config)).unwrap();
    rt.block_on(nomos.engine().import_inventory_file(&lab.inventory_path())).unwrap();
    for h in lab.hosts() {
        rt.block_on(nomos.actuator().present_key(&format!("host:{}", h.name))).unwrap();
        rt.block_on(nomos.actuator().trust_host(&format!("host:{}", h.name), None, &operator_elsewhere(None))).unwrap();
    }

    // A change: one line with target, risk and blast radius; Approve and Deny.
    let mark = home.join("approved-mark");
    let change = format!("touch '{}'", mark.display());
    let (change_approval, change_x) = queue(&rt, &nomos, "host:pve1", &change, Some(Risk::ConfigMutation));
    let note = notification_of(&home, &change);
    let body = note["body"].as_str().unwrap();
    assert!(body.starts_with("no task · host:pve1 · config mutation · affects"), "{body}");
    assert!(!body.contains('\n'), "one line: {body}");
    let keys = action_keys(&note);
    assert!(keys.contains(&"approve".into()) && keys.contains(&"deny".into()), "{note}");

    // Approve in the notification runs it on the host, decided on the channel "notification".
    press(&home, &note, "approve");
    let x = rt.block_on(async {
        tokio::time::timeout(STEP, nomos.actuator().wait_final(&change_x)).await.expect("Approve runs the change")
    });
    let x = x.unwrap();
    assert_eq!(x.status, ExecutionStatus::Completed, "{x:?}");
    assert!(mark.exists(), "the change approved from the notification ran on the lab host");
    let approval = rt.block_on(nomos.actuator().approval(&change_approval)).unwrap();
    assert_eq!((approval.status, approval.channel), (ApprovalStatus::Approved, Some(Channel::Notification)));

    // A destructive one offers Open, never Approve; a click on it shows that approval.
    let victim = home.join("victim");
    std::fs::create_dir_all(&victim).unwrap();
    let destroy = format!("rm -rf '{}'", victim.display());
    let (destroy_approval, _) = queue(&rt, &nomos, "host:pve1", &destroy, None);
    let note = notification_of(&home, &destroy);
    let keys = action_keys(&note);
    assert!(keys.contains(&"open".into()), "{note}");
    assert!(!keys.contains(&"approve".into()) && !keys.contains(&"deny".into()), "{note}");
    assert!(note["body"].as_str().unwrap().contains("destructive"), "{note}");
    press(&home, &note, "default");
    let card = format!("[data-approval-id='{destroy_approval}'].focused");
    d.wait_until(&card, STEP, |_| true);
    assert_eq!(d.path(), "/approvals");
    assert!(victim.exists(), "nothing destructive ran");

    // Decided in another process, its notification closes.
    let (other_approval, _) =
        queue(&rt, &nomos, "host:pve1", &format!("touch '{}'", home.join("never").display()), None);
    let other = notification_of(&home, &home.join("never").display().to_string());
    rt.block_on(nomos.actuator().deny(&other_approval, &operator_elsewhere(None))).unwrap();
    wait_call(&home, "CloseNotification of the request denied elsewhere", |c| {
        c["call"] == "CloseNotification" && c["id"] == other["id"]
    });
    rt.block_on(nomos.actuator().deny(&destroy_approval, &operator_elsewhere(None))).unwrap();
    assert!(!home.join("never").exists());

    // Turned off in Settings, a waiting request raises no notification (it still waits in the
    // window).
    let nav = d.wait_until("[data-testid=nav-settings]", STEP, |_| true);
    d.click(&nav[0].0);
    let toggle = d.wait_until("[data-testid=notify-approvals]", STEP, |_| true);
    d.click(&toggle[0].0);
    let deadline = Instant::now() + STEP;
    while rt.block_on(nomos.engine().notification_settings()).unwrap().approvals {
        assert!(Instant::now() < deadline, "the Settings toggle did not turn approval notifications off");
        std::thread::sleep(Duration::from_millis(100));
    }
    let quiet = home.join("quiet").display().to_string();
    let (quiet_approval, _) = queue(&rt, &nomos, "host:pve1", &format!("touch '{quiet}'"), Some(Risk::ConfigMutation));
    let nav = d.wait_until("[data-testid=nav-approvals]", STEP, |_| true);
    d.click(&nav[0].0);
    d.wait_until(&format!("[data-approval-id='{quiet_approval}']"), STEP, |_| true);
    // The window has it, so the app has had the event: no notification came of it.
    std::thread::sleep(Duration::from_secs(1));
    let all = calls(&home);
    assert!(!all.iter().any(|c| c["summary"].as_str().is_some_and(|s| s.contains(&quiet))), "{all:#?}");
    eprintln!("notification service calls: {all:#?}");
    rt.block_on(nomos.close());
    drop(lab);
}
