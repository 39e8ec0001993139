//! End to end, the app's life in the tray, driven through its real tray menu: a StatusNotifierItem
//! watcher (`support/sni.py`, on the app's private D-Bus session) takes the app's tray icon the
//! way a desktop panel does, and this test reads and clicks its menu over D-Bus
//! (`com.canonical.dbusmenu`). The pending count follows an approval queued and then decided by
//! another process on the app's database; "Pause autonomy" revokes the open windows (checked in
//! the engine); "Pending approvals" shows the approvals page; closing the window hides it, a left
//! click on the icon and a second start of the app (which exits 0) bring it back; starting at
//! login is turned on and off in Settings (the session's autostart entry written and removed);
//! Quit ends the app through its orderly exit (the window's size and position saved, and restored
//! at the next start).
//!
//! See `support` for what it needs; Debian's python3-dbus and python3-gi besides.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod support;

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use nomos::types::{AuditQuery, Channel, Risk, WindowKind};
use nomos::{PolicySource, Runtime, RuntimeConfig};
use serde_json::Value;
use support::{on_path, operator_elsewhere, queue, Desktop, STARTUP, STEP};

const PYTHON: &str = "/usr/bin/python3";

fn sni_script() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/support/sni.py")
}

/// The app behind a script that first starts the tray watcher in the app's D-Bus session (where a
/// desktop panel would run), and says where the session and display are.
fn app_with_tray_host(dir: &Path) -> PathBuf {
    let script = dir.join("oikos-with-tray-host");
    let body = format!(
        "#!/bin/sh\nexport XDG_CONFIG_HOME=\"$HOME/config\"\nprintf '%s' \"$DISPLAY\" > '{dir}/display'\n\
         '{python}' '{sni}' watch '{dir}' >'{dir}/watcher.log' 2>&1 &\n\
         for i in $(seq 1 100); do [ -e '{dir}/bus' ] && break; sleep 0.1; done\n\
         exec '{app}' \"$@\"\n",
        dir = dir.display(),
        python = PYTHON,
        sni = sni_script().display(),
        app = env!("CARGO_BIN_EXE_oikos"),
    );
    std::fs::write(&script, body).unwrap();
    std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
    script
}

/// The app's tray icon as the watcher saw it register.
struct TrayItem {
    service: String,
    path: String,
    pid: u32,
    bus: String,
}

impl TrayItem {
    /// The `n`th icon registered (from 1), once it is.
    fn wait(dir: &Path, n: usize) -> TrayItem {
        let deadline = Instant::now() + STARTUP;
        loop {
            let items = std::fs::read_to_string(dir.join("items")).unwrap_or_default();
            if let Some(line) = items.lines().nth(n - 1) {
                let v: Value = serde_json::from_str(line).unwrap();
                let bus = std::fs::read_to_string(dir.join("bus")).unwrap();
                return TrayItem {
                    service: v["service"].as_str().unwrap().into(),
                    path: v["path"].as_str().unwrap().into(),
                    pid: v["pid"].as_u64().unwrap() as u32,
                    bus,
                };
            }
            let log = std::fs::read_to_string(dir.join("watcher.log")).unwrap_or_default();
            assert!(Instant::now() < deadline, "the app registered no tray icon; watcher log: {log}");
            std::thread::sleep(Duration::from_millis(200));
        }
    }

    fn call(&self, args: &[&str]) -> String {
        let out = Command::new(PYTHON)
            .arg(sni_script())
            .args(&args[..1])
            .args([&self.service, &self.path])
            .args(&args[1..])
            .env("DBUS_SESSION_BUS_ADDRESS", &self.bus)
            .output()
            .unwrap();
        assert!(out.status.success(), "sni.py {args:?}: {}", String::from_utf8_lossy(&out.stderr));
        String::from_utf8(out.stdout).unwrap()
    }

    /// The menu's items: (dbusmenu id, label).
    fn menu(&self) -> Vec<(i64, String)> {
        let v: Value = serde_json::from_str(&self.call(&["layout"])).unwrap();
        v.as_array()
            .unwrap()
            .iter()
            .map(|i| (i["id"].as_i64().unwrap(), i["label"].as_str().unwrap().to_string()))
            .collect()
    }

    fn labels(&self) -> Vec<String> {
        self.menu().into_iter().map(|(_, l)| l).collect()
    }

    /// Waits until the menu has an item labelled `label`.
    fn wait_label(&self, label: &str) -> Vec<String> {
        let deadline = Instant::now() + STEP;
        loop {
            let labels = self.labels();
            if labels.iter().any(|l| l == label) {
                return labels;
            }
            assert!(Instant::now() < deadline, "the tray menu never said `{label}`: {labels:?}");
            std::thread::sleep(Duration::from_millis(150));
        }
    }

    /// Clicks the item labelled `label`, as a tray host does.
    fn click(&self, label: &str) {
        self.call(&["click", &self.item_id(label)]);
    }

    /// Clicks an item that ends the app, which may end before it answers the click.
    fn click_ending(&self, label: &str) {
        self.call(&["click", &self.item_id(label), "--may-end"]);
    }

    fn item_id(&self, label: &str) -> String {
        let id = self.menu().into_iter().find(|(_, l)| l == label).unwrap_or_else(|| panic!("no `{label}` item")).0;
        id.to_string()
    }

    fn props(&self) -> Value {
        serde_json::from_str(&self.call(&["props"])).unwrap()
    }

    /// Waits until the item's properties (title, tooltip, icons) satisfy `ready`.
    fn wait_props(&self, what: &str, ready: impl Fn(&Value) -> bool) {
        let deadline = Instant::now() + STEP;
        loop {
            let props = self.props();
            if ready(&props) {
                return;
            }
            assert!(Instant::now() < deadline, "{what}: never; last {props}");
            std::thread::sleep(Duration::from_millis(150));
        }
    }

    /// Whether the app's process is alive (an ended one waiting for its parent counts as ended).
    fn running(&self) -> bool {
        let stat = std::fs::read_to_string(format!("/proc/{}/stat", self.pid)).unwrap_or_default();
        stat.rsplit_once(") ").is_some_and(|(_, rest)| !rest.starts_with('Z') && !rest.starts_with('X'))
    }
}

/// Whether the app's window is mapped on the display.
fn window_visible(display: &str) -> bool {
    let out = Command::new("xdotool")
        .args(["search", "--onlyvisible", "--name", "^Oikos$"])
        .env("DISPLAY", display)
        .output()
        .unwrap();
    !out.stdout.is_empty()
}

fn wait_visible(display: &str, visible: bool, what: &str) {
    let deadline = Instant::now() + STEP;
    while window_visible(display) != visible {
        assert!(Instant::now() < deadline, "{what}: the window is still {}", if visible { "hidden" } else { "shown" });
        std::thread::sleep(Duration::from_millis(150));
    }
}

/// Asks the window to close, as a window manager does when its close button is clicked
/// (`WM_DELETE_WINDOW`).
fn close_window(display: &str) {
    let script = r#"
import ctypes, subprocess, sys
x = ctypes.CDLL("libX11.so.6")
x.XOpenDisplay.restype = ctypes.c_void_p
x.XInternAtom.restype = ctypes.c_ulong
x.XInternAtom.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_int]
x.XSendEvent.argtypes = [ctypes.c_void_p, ctypes.c_ulong, ctypes.c_int, ctypes.c_long, ctypes.c_void_p]
x.XFlush.argtypes = [ctypes.c_void_p]
class ClientMessage(ctypes.Structure):
    _fields_ = [("type", ctypes.c_int), ("serial", ctypes.c_ulong), ("send_event", ctypes.c_int),
                ("display", ctypes.c_void_p), ("window", ctypes.c_ulong), ("message_type", ctypes.c_ulong),
                ("format", ctypes.c_int), ("data", ctypes.c_long * 5)]
class Event(ctypes.Union):
    _fields_ = [("xclient", ClientMessage), ("pad", ctypes.c_long * 24)]
d = x.XOpenDisplay(None)
ids = subprocess.run(["xdotool", "search", "--onlyvisible", "--name", "^Oikos$"], capture_output=True, text=True).stdout.split()
for wid in ids:
    e = Event()
    e.xclient.type = 33
    e.xclient.window = int(wid)
    e.xclient.message_type = x.XInternAtom(d, b"WM_PROTOCOLS", 0)
    e.xclient.format = 32
    e.xclient.data[0] = x.XInternAtom(d, b"WM_DELETE_WINDOW", 0)
    x.XSendEvent(d, int(wid), 0, 0, ctypes.byref(e))
x.XFlush(d)
sys.exit(0 if ids else 1)
"#;
    let status = Command::new(PYTHON).args(["-c", script]).env("DISPLAY", display).status().unwrap();
    assert!(status.success(), "no Oikos window to close");
}

/// Closes the window and waits until it is hidden and stays so. A close that arrives while the
/// window is still being shown (mapped, not yet focused) is undone by the focusing; a person
/// clicks again, and so does this.
fn close_to_tray(display: &str, what: &str) {
    let deadline = Instant::now() + STEP;
    loop {
        close_window(display);
        let settle = Instant::now() + Duration::from_secs(1);
        while window_visible(display) && Instant::now() < settle {
            std::thread::sleep(Duration::from_millis(100));
        }
        std::thread::sleep(Duration::from_millis(400));
        if !window_visible(display) {
            return;
        }
        assert!(Instant::now() < deadline, "{what}: the window is still shown");
    }
}

/// The app started by the test itself (not the driver) in the first one's display, session bus,
/// home and database: a second start, or a start after Quit.
fn oikos_beside(display: &str, bus: &str, home: &Path, db: &Path) -> Command {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_oikos"));
    cmd.arg("--db")
        .arg(db)
        .env("DISPLAY", display)
        .env("DBUS_SESSION_BUS_ADDRESS", bus)
        .env("HOME", home)
        .env("XDG_CONFIG_HOME", home.join("config"))
        .env("XDG_DATA_HOME", home.join("data"))
        .env("NO_AT_BRIDGE", "1")
        .env("OIKOS_UPDATE_URL", "off");
    cmd
}

#[test]
fn the_app_in_the_tray() {
    assert!(Path::new(PYTHON).is_file(), "{PYTHON} is needed (Debian's python3): run `make test`");
    assert!(on_path("xdotool"), "xdotool is needed: run `make test`, which installs it");
    let dir = tempfile::tempdir().unwrap();
    let app = app_with_tray_host(dir.path());
    let Some(desktop) = Desktop::start(&app, &[]) else { return };
    let (d, db, home) = (&desktop.d, desktop.db.clone(), desktop.home.path().to_path_buf());
    d.wait_until("[data-testid=nav-tasks]", STARTUP, |_| true);
    let display = std::fs::read_to_string(dir.path().join("display")).unwrap();

    // The icon registers with the panel, its menu as the tray module builds it.
    let tray = TrayItem::wait(dir.path(), 1);
    assert_eq!(
        tray.wait_label("Pending approvals (0)"),
        ["Open Oikos", "Pending approvals (0)", "Pause autonomy", "Check for updates…", "Quit"]
    );
    let props = tray.props();
    assert!(props["tooltip"][1].as_str().unwrap().contains("no pending approvals"), "{props}");
    let plain_icon = props["icons"].clone();
    assert!(!plain_icon.as_array().unwrap().is_empty(), "the item has an icon: {props}");

    // Another process on the app's database: an approval queued shows as (1); decided, (0).
    let rt = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().unwrap();
    let config = RuntimeConfig { policy: PolicySource::Builtin, ..RuntimeConfig::new(&db) };
    let nomos = rt.block_on(Runtime::open(config)).unwrap();
    rt.block_on(nomos.engine().import_inventory(nomos::inventory::DEMO_INVENTORY, "demo")).unwrap();
    let (approval, _) = queue(&rt, &nomos, "host:strong", "touch /tmp/oikos-tray-e2e", Some(Risk::ConfigMutation));
    tray.wait_label("Pending approvals (1)");
    // The tooltip says it, and the icon carries a badge; decided, the plain icon is back.
    tray.wait_props("the tooltip and badge say 1", |p| {
        p["tooltip"][1].as_str().unwrap().contains("1 pending approval") && p["icons"] != plain_icon
    });
    rt.block_on(nomos.actuator().deny(&approval, &operator_elsewhere(None))).unwrap();
    tray.wait_label("Pending approvals (0)");
    tray.wait_props("the plain icon is back", |p| p["icons"] == plain_icon);

    // "Pause autonomy" from the menu revokes every open window, in the engine.
    let task = rt.block_on(nomos.engine().create_task("tray check", "keep the homelab tidy")).unwrap();
    rt.block_on(nomos.actuator().open_window(&task.id, WindowKind::Assent, None, &operator_elsewhere(None))).unwrap();
    assert_eq!(rt.block_on(nomos.actuator().open_windows()).unwrap().len(), 1);
    tray.click("Pause autonomy");
    tray.wait_label("Resume autonomy");
    assert!(rt.block_on(nomos.actuator().is_paused()).unwrap(), "autonomy is paused in the engine");
    assert!(rt.block_on(nomos.actuator().open_windows()).unwrap().is_empty(), "the open window is revoked");
    let audit = rt.block_on(nomos.actuator().audit(&AuditQuery::default())).unwrap();
    let paused = audit.items.iter().find(|e| e.action == "autonomy.paused").expect("the pause is in the ledger");
    assert_eq!(paused.channel, Some(Channel::Tray), "{paused:?}");
    tray.click("Resume autonomy");
    tray.wait_label("Pause autonomy");
    assert!(!rt.block_on(nomos.actuator().is_paused()).unwrap(), "autonomy resumed in the engine");

    // "Pending approvals" shows the approvals page.
    assert_ne!(d.path(), "/approvals");
    tray.click("Pending approvals (0)");
    let deadline = Instant::now() + STEP;
    while d.path() != "/approvals" {
        assert!(Instant::now() < deadline, "the window did not go to the approvals page: {}", d.path());
        std::thread::sleep(Duration::from_millis(150));
    }
    d.wait_until("[data-testid=approvals-empty]", STEP, |_| true);

    // Closing the window hides it (the app keeps running); a left click on the icon shows it.
    assert!(window_visible(&display), "the window shows");
    close_to_tray(&display, "closed to the tray");
    assert!(tray.running(), "closing the window does not end the app");
    let noticed = home.join("data").join("app.oikos.desktop").join("closed-to-tray-noticed");
    assert!(noticed.exists(), "the notice that the app stays in the tray was given once");
    tray.call(&["activate"]);
    wait_visible(&display, true, "a left click on the icon");

    // A second start hands over to the first and exits 0; the hidden window shows again.
    close_to_tray(&display, "closed to the tray again");
    let second = oikos_beside(&display, &tray.bus, &home, &db).output().unwrap();
    assert_eq!(second.status.code(), Some(0), "{}", String::from_utf8_lossy(&second.stderr));
    wait_visible(&display, true, "a second start");
    assert!(tray.running(), "the first instance keeps running");

    // Starting at login: off by default; turned on in Settings it is the session's autostart
    // entry (starting in the tray), turned off it is gone.
    // (The autostart library writes to `~/.config/autostart` whatever XDG_CONFIG_HOME says.)
    let autostart = home.join(".config").join("autostart");
    let entries = || -> Vec<PathBuf> {
        std::fs::read_dir(&autostart).map(|r| r.flatten().map(|e| e.path()).collect()).unwrap_or_default()
    };
    assert!(entries().is_empty(), "no autostart entry by default: {:?}", entries());
    let nav = d.wait_until("[data-testid=nav-settings]", STEP, |_| true);
    d.click(&nav[0].0);
    let toggle = d.wait_until("[data-testid=autostart-toggle]", STEP, |_| true);
    assert_eq!(
        d.execute("return document.querySelector('[data-testid=autostart-toggle]').checked"),
        Value::Bool(false)
    );
    d.click(&toggle[0].0);
    // The entry starts this app, in the tray (read once it is written in full).
    let deadline = Instant::now() + STEP;
    loop {
        let entry = entries().first().map(|e| std::fs::read_to_string(e).unwrap()).unwrap_or_default();
        if entry.contains("Exec=") && entry.contains(env!("CARGO_BIN_EXE_oikos")) && entry.contains("--hidden") {
            break;
        }
        assert!(Instant::now() < deadline, "no autostart entry under {}: {entry:?}", autostart.display());
        std::thread::sleep(Duration::from_millis(150));
    }
    let toggle = d.wait_until("[data-testid=autostart-toggle]", STEP, |_| true);
    d.click(&toggle[0].0);
    let deadline = Instant::now() + STEP;
    while !entries().is_empty() {
        assert!(Instant::now() < deadline, "the autostart entry is still there: {:?}", entries());
        std::thread::sleep(Duration::from_millis(150));
    }

    // Quit really quits, through the app's orderly exit: the window's size and position are
    // written then (for the next start).
    let window_state = home.join("config").join("app.oikos.desktop").join(".window-state.json");
    let _ = std::fs::remove_file(&window_state);
    tray.click_ending("Quit");
    let deadline = Instant::now() + STEP;
    while tray.running() {
        assert!(Instant::now() < deadline, "the app still runs after Quit");
        std::thread::sleep(Duration::from_millis(150));
    }
    let mut saved: Value = serde_json::from_str(&std::fs::read_to_string(&window_state).unwrap()).unwrap();
    assert!(saved["main"]["width"].as_u64().unwrap() > 0, "{saved}");

    // Started again, the window takes the size saved (here one set by hand).
    saved["main"]["width"] = 1000.into();
    saved["main"]["height"] = 700.into();
    std::fs::write(&window_state, saved.to_string()).unwrap();
    let _again = support::Group::spawn(oikos_beside(&display, &tray.bus, &home, &db).env("OIKOS_LOG", "warn"));
    let again = TrayItem::wait(dir.path(), 2);
    wait_visible(&display, true, "started again");
    let geometry = Command::new("xdotool")
        .args(["search", "--onlyvisible", "--name", "^Oikos$", "getwindowgeometry"])
        .env("DISPLAY", &display)
        .output()
        .unwrap();
    let geometry = String::from_utf8_lossy(&geometry.stdout).to_string();
    assert!(geometry.contains("Geometry: 1000x700"), "{geometry}");
    again.click_ending("Quit");
    let deadline = Instant::now() + STEP;
    while again.running() {
        assert!(Instant::now() < deadline, "the app started again still runs after Quit");
        std::thread::sleep(Duration::from_millis(150));
    }
    rt.block_on(nomos.close());
}
