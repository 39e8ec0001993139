//! What the desktop end-to-end tests share: the app in its real webview (WebKitGTK) on a virtual
//! display, driven over WebDriver (tauri-driver in front of WebKitWebDriver).
//!
//! Needs Xvfb, dbus-run-session, tauri-driver and WebKitWebDriver (`make test` installs them).
//! tauri-driver has no macOS backend: [`Desktop::start`] says so and returns `None` there.
#![allow(dead_code, clippy::unwrap_used, clippy::expect_used, clippy::panic)]

pub mod keychain;

use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use nomos::actuate::{Decision, RunOutcome, RunRequest};
use nomos::types::{Channel, Risk};
use nomos::Runtime;
use serde_json::{json, Value};

const ELEMENT_KEY: &str = "element-6066-11e4-a52e-4f735466cecf";
pub const STARTUP: Duration = Duration::from_secs(90);
pub const STEP: Duration = Duration::from_secs(20);

/// A child started in its own process group; dropping it stops the whole group (WebKit spawns
/// helpers that would otherwise outlive it), by PID, never by name.
pub struct Group {
    child: Child,
}

impl Group {
    pub fn spawn(cmd: &mut Command) -> Group {
        use std::os::unix::process::CommandExt;
        let child =
            cmd.process_group(0).stdin(Stdio::null()).spawn().unwrap_or_else(|e| panic!("cannot start {cmd:?}: {e}"));
        Group { child }
    }
}

impl Drop for Group {
    fn drop(&mut self) {
        let group = format!("-{}", self.child.id());
        let _ = Command::new("kill").args(["-TERM", "--", &group]).stderr(Stdio::null()).status();
        let deadline = Instant::now() + Duration::from_secs(5);
        while Instant::now() < deadline {
            if let Ok(Some(_)) = self.child.try_wait() {
                break;
            }
            std::thread::sleep(Duration::from_millis(100));
        }
        let _ = Command::new("kill").args(["-KILL", "--", &group]).stderr(Stdio::null()).status();
        let _ = self.child.wait();
    }
}

pub fn on_path(tool: &str) -> bool {
    std::env::var_os("PATH")
        .map(|paths| std::env::split_paths(&paths).any(|dir| dir.join(tool).is_file()))
        .unwrap_or(false)
}

pub fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port()
}

/// Starts Xvfb on a display number nothing else uses.
pub fn virtual_display() -> (Group, String) {
    for n in 90..190 {
        if Path::new(&format!("/tmp/.X11-unix/X{n}")).exists() || Path::new(&format!("/tmp/.X{n}-lock")).exists() {
            continue;
        }
        let display = format!(":{n}");
        let xvfb = Group::spawn(
            Command::new("Xvfb")
                .args([display.as_str(), "-screen", "0", "1280x800x24", "-nolisten", "tcp"])
                .stdout(Stdio::null())
                .stderr(Stdio::null()),
        );
        let deadline = Instant::now() + Duration::from_secs(10);
        while Instant::now() < deadline {
            if Path::new(&format!("/tmp/.X11-unix/X{n}")).exists() {
                return (xvfb, display);
            }
            std::thread::sleep(Duration::from_millis(50));
        }
    }
    panic!("could not start Xvfb on any display :90..:189");
}

/// A minimal W3C WebDriver client: just the calls this test makes.
pub struct Driver {
    http: reqwest::blocking::Client,
    base: String,
    session: String,
}

impl Driver {
    pub fn request(http: &reqwest::blocking::Client, method: &str, url: &str, body: Option<Value>) -> Value {
        Self::try_request(http, method, url, body).unwrap_or_else(|e| panic!("{e}"))
    }

    /// One WebDriver call; a refusal comes back as its message.
    fn try_request(
        http: &reqwest::blocking::Client,
        method: &str,
        url: &str,
        body: Option<Value>,
    ) -> Result<Value, String> {
        let req = match method {
            "GET" => http.get(url),
            "DELETE" => http.delete(url),
            _ => http.post(url).json(&body.unwrap_or_else(|| json!({}))),
        };
        let resp = req.send().unwrap_or_else(|e| panic!("{method} {url}: {e}"));
        let status = resp.status();
        let v: Value = resp.json().unwrap_or(Value::Null);
        if !status.is_success() {
            return Err(format!("{method} {url}: {status}: {v}"));
        }
        Ok(v.get("value").cloned().unwrap_or(Value::Null))
    }

    pub fn connect(port: u16, application: &Path, db: &Path) -> Driver {
        let http = reqwest::blocking::Client::builder().timeout(Duration::from_secs(120)).build().unwrap();
        let base = format!("http://127.0.0.1:{port}");
        let deadline = Instant::now() + Duration::from_secs(30);
        while http.get(format!("{base}/status")).send().is_err() {
            assert!(Instant::now() < deadline, "tauri-driver did not come up on {base}");
            std::thread::sleep(Duration::from_millis(200));
        }
        let caps = json!({"capabilities": {"alwaysMatch": {"tauri:options": {
            "application": application,
            "args": ["--db", db],
        }}}});
        let v = Self::request(&http, "POST", &format!("{base}/session"), Some(caps));
        let session = v["sessionId"].as_str().expect("session id").to_string();
        Driver { http, base, session }
    }

    pub fn call(&self, method: &str, path: &str, body: Option<Value>) -> Value {
        Self::request(&self.http, method, &format!("{}/session/{}{path}", self.base, self.session), body)
    }

    /// The elements matching `css` and their text content, read in one script so the two agree
    /// even while the list re-renders. (WebDriver's "rendered text" is empty for rows scrolled out
    /// of view, which is not what these assertions are about.)
    pub fn find_all(&self, css: &str) -> Vec<(String, String)> {
        let script = "return Array.from(document.querySelectorAll(arguments[0])).map(e => [e, e.textContent.trim()])";
        // An element the list drops while the answer is serialised is "stale": read again.
        let url = format!("{}/session/{}/execute/sync", self.base, self.session);
        let mut tries = 0;
        let v = loop {
            match Self::try_request(&self.http, "POST", &url, Some(json!({"script": script, "args": [css]}))) {
                Ok(v) => break v,
                Err(e) if e.contains("stale element") && tries < 20 => {
                    tries += 1;
                    std::thread::sleep(Duration::from_millis(100));
                }
                Err(e) => panic!("{e}"),
            }
        };
        v.as_array()
            .map(|a| {
                a.iter()
                    .filter_map(|pair| {
                        Some((pair[0][ELEMENT_KEY].as_str()?.to_string(), pair[1].as_str()?.to_string()))
                    })
                    .collect()
            })
            .unwrap_or_default()
    }

    /// Waits until `css` matches at least one element and `ready` accepts the texts of all matches.
    pub fn wait_until(&self, css: &str, timeout: Duration, ready: impl Fn(&[String]) -> bool) -> Vec<(String, String)> {
        let deadline = Instant::now() + timeout;
        let mut last = Vec::new();
        loop {
            let found = self.find_all(css);
            if !found.is_empty() {
                last = found.iter().map(|(_, t)| t.clone()).collect();
                if ready(&last) {
                    return found;
                }
            }
            if Instant::now() > deadline {
                panic!("timed out waiting for `{css}`; last texts: {last:?}");
            }
            std::thread::sleep(Duration::from_millis(150));
        }
    }

    pub fn execute(&self, script: &str) -> Value {
        self.call("POST", "/execute/sync", Some(json!({"script": script, "args": []})))
    }

    /// The path of the page shown (the route).
    pub fn path(&self) -> String {
        self.execute("return location.pathname").as_str().expect("a path").to_string()
    }

    /// Presses `keys` one after the other wherever the focus is, as the keyboard does (WebDriver
    /// key codes for the special keys: `\u{E007}` Enter, `\u{E015}` down, `\u{E013}` up).
    pub fn press(&self, keys: &str) {
        let actions: Vec<Value> = keys
            .chars()
            .flat_map(|c| {
                [json!({"type": "keyDown", "value": c.to_string()}), json!({"type": "keyUp", "value": c.to_string()})]
            })
            .collect();
        self.call(
            "POST",
            "/actions",
            Some(json!({"actions": [{"type": "key", "id": "keyboard", "actions": actions}]})),
        );
    }

    pub fn click(&self, el: &str) {
        self.call("POST", &format!("/element/{el}/click"), None);
    }

    pub fn type_into(&self, el: &str, text: &str) {
        self.call("POST", &format!("/element/{el}/value"), Some(json!({"text": text})));
    }

    /// Saves what the window shows. WebKit takes the picture at the page's next paint, and a page
    /// drawn without compositing (as on a machine without a GPU) that has nothing left to change
    /// never paints again: the screenshot would wait forever. So a 1-pixel element, invisible,
    /// changes at every frame until the picture is taken. Two frames pass first: the DOM can be
    /// ahead of the last painted frame on a busy machine, and the picture is of the painted one.
    pub fn screenshot(&self, path: &Path) {
        let pulse = "const done = arguments[arguments.length - 1]; \
                     const e = document.createElement('div'); e.id = 'screenshot-pulse'; \
                     e.style.cssText = 'position:fixed;left:0;top:0;width:1px;height:1px;pointer-events:none;opacity:0'; \
                     document.body.appendChild(e); let n = 0; \
                     const tick = () => { if (!e.isConnected) return; e.style.opacity = n++ % 2 ? '0' : '0.01'; \
                                          requestAnimationFrame(tick); }; \
                     requestAnimationFrame(tick); \
                     requestAnimationFrame(() => requestAnimationFrame(() => done(null)))";
        self.call("POST", "/execute/async", Some(json!({"script": pulse, "args": []})));
        let b64 = self.call("GET", "/screenshot", None);
        self.execute("document.getElementById('screenshot-pulse')?.remove(); return null");
        let bytes = decode_base64(b64.as_str().expect("screenshot data"));
        assert!(bytes.starts_with(b"\x89PNG"), "the screenshot is not a PNG");
        std::fs::write(path, bytes).unwrap();
    }
}

impl Drop for Driver {
    fn drop(&mut self) {
        let _ = self.http.delete(format!("{}/session/{}", self.base, self.session)).send();
    }
}

pub fn decode_base64(s: &str) -> Vec<u8> {
    let value = |c: u8| -> Option<u32> {
        Some(match c {
            b'A'..=b'Z' => c - b'A',
            b'a'..=b'z' => c - b'a' + 26,
            b'0'..=b'9' => c - b'0' + 52,
            b'+' => 62,
            b'/' => 63,
            _ => return None,
        } as u32)
    };
    let digits: Vec<u32> = s.bytes().filter_map(value).collect();
    let mut out = Vec::with_capacity(digits.len() * 3 / 4);
    for chunk in digits.chunks(4) {
        let n = chunk.iter().enumerate().fold(0u32, |acc, (i, d)| acc | (d << (18 - 6 * i)));
        let bytes = [(n >> 16) as u8, (n >> 8) as u8, n as u8];
        out.extend_from_slice(&bytes[..chunk.len().saturating_sub(1)]);
    }
    out
}

pub fn artifacts_dir() -> PathBuf {
    let dir = std::env::var_os("OIKOS_ARTIFACTS")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("e2e"));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// The app running on its own database under a private HOME, with its driver. Dropping it closes
/// the session, then stops the driver and the display (fields drop in this order).
pub struct Desktop {
    pub d: Driver,
    _driver: Group,
    _xvfb: Group,
    pub db: PathBuf,
    pub home: tempfile::TempDir,
}

impl Desktop {
    /// Starts the app (`app`: `env!("CARGO_BIN_EXE_oikos")`) on a new database, with `env` set for
    /// it (a provider's URL, for instance). `None` where the desktop cannot be driven (macOS).
    pub fn start(app: &Path, env: &[(&str, &str)]) -> Option<Desktop> {
        if !cfg!(target_os = "linux") {
            eprintln!("desktop end-to-end test not run: tauri-driver supports Linux (WebKitGTK) only");
            return None;
        }
        let missing: Vec<&str> = ["Xvfb", "dbus-run-session", "tauri-driver", "WebKitWebDriver"]
            .into_iter()
            .filter(|t| !on_path(t))
            .collect();
        assert!(missing.is_empty(), "missing {missing:?}: run `make test`, which installs them");

        let home = tempfile::tempdir().unwrap();
        let db = home.path().join("oikos.db");
        let (xvfb, display) = virtual_display();
        let port = free_port();
        let native_port = free_port();
        let mut cmd = Command::new("dbus-run-session");
        cmd.args(["--", "tauri-driver", "--port", &port.to_string(), "--native-port", &native_port.to_string()])
            .env("DISPLAY", &display)
            .env("HOME", home.path())
            .env("XDG_CACHE_HOME", home.path().join("cache"))
            .env("XDG_DATA_HOME", home.path().join("data"))
            // No accessibility bus: it only adds helper processes in a headless run.
            .env("NO_AT_BRIDGE", "1")
            .env("OIKOS_LOG", "warn")
            // No update checks against the real release server; the update test sets its own.
            .env("OIKOS_UPDATE_URL", "off")
            .stdout(Stdio::null());
        for (k, v) in env {
            cmd.env(k, v);
        }
        let driver = Group::spawn(&mut cmd);
        let d = Driver::connect(port, app, &db);
        Some(Desktop { d, _driver: driver, _xvfb: xvfb, db, home })
    }
}

/// Whether the button `css` finds is disabled.
pub fn is_disabled(d: &Driver, css: &str) -> bool {
    let script = format!("return document.querySelector(\"{css}\").disabled");
    d.execute(&script).as_bool().expect("a button")
}

/// Waits until `css` matches nothing.
pub fn gone(d: &Driver, css: &str, timeout: Duration) {
    let deadline = Instant::now() + timeout;
    while !d.find_all(css).is_empty() {
        assert!(Instant::now() < deadline, "`{css}` is still shown");
        std::thread::sleep(Duration::from_millis(150));
    }
}

/// Whether a process whose command line contains `pattern` runs on this machine (where the lab's
/// hosts run their commands).
pub fn pgrep(pattern: &str) -> bool {
    !Command::new("pgrep").args(["-f", pattern]).output().unwrap().stdout.is_empty()
}

/// The app with Nomos thinking through the scripted provider, against lab hosts whose inventory
/// and pinned keys another process (this test, through the engine library) wrote into the app's
/// database. Fields drop in order: the engine handle, the app, the provider, its runtime, the lab.
pub struct TaskLab {
    /// The engine on the app's database, in this process.
    pub ours: nomos::Runtime,
    pub desktop: Desktop,
    pub server: nomos_scripted_provider::ScriptedProvider,
    pub rt: tokio::runtime::Runtime,
    pub lab: nomos_lab::Lab,
    /// Where the test keeps its files (the lab's directory is below it).
    pub tmp: tempfile::TempDir,
}

impl TaskLab {
    /// Starts `hosts` lab hosts, the scripted provider with the script `make` returns (given the
    /// test's directory and the lab's host slugs, `host:pve1` …), and the app. `None` where the
    /// desktop cannot be driven.
    pub fn start(
        hosts: usize,
        make: impl FnOnce(&Path, &[String]) -> nomos_scripted_provider::Script,
    ) -> Option<TaskLab> {
        let tmp = tempfile::tempdir().unwrap();
        let mut lab_config = nomos_lab::LabConfig::new(tmp.path().join("lab"));
        lab_config.hosts = hosts;
        let lab = nomos_lab::Lab::start(lab_config).unwrap();
        let targets: Vec<String> = lab.hosts().iter().map(|h| format!("host:{}", h.name)).collect();
        let rt = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().unwrap();
        let server = rt.block_on(nomos_scripted_provider::ScriptedProvider::start(make(tmp.path(), &targets))).unwrap();
        let url = server.base_url();
        let app = PathBuf::from(env!("CARGO_BIN_EXE_oikos"));
        let env = [("NOMOS_LLM_BASE_URL", url.as_str()), ("NOMOS_MODEL", "scripted"), ("NOMOS_API_KEY", "unused")];
        let desktop = Desktop::start(&app, &env)?;
        let ours = rt.block_on(nomos::Runtime::open(nomos::RuntimeConfig::new(&desktop.db))).unwrap();
        rt.block_on(ours.engine().import_inventory_file(&lab.inventory_path())).unwrap();
        let operator = nomos::actuate::Decision {
            actor: "operator:test".into(),
            channel: nomos::types::Channel::Ui,
            message: None,
        };
        for target in &targets {
            rt.block_on(ours.actuator().present_key(target)).unwrap();
            rt.block_on(ours.actuator().trust_host(target, None, &operator)).unwrap();
        }
        Some(TaskLab { ours, desktop, server, rt, lab, tmp })
    }

    /// Starts a task from the board with `goal` and returns its id once its page shows.
    pub fn new_task(&self, goal: &str) -> String {
        let d = &self.desktop.d;
        let input = d.wait_until("[data-testid=new-task-input]", STARTUP, |_| true);
        d.type_into(&input[0].0, goal);
        let start = d.wait_until("[data-testid=new-task-submit]", STEP, |t| t[0] == "New task");
        d.click(&start[0].0);
        d.wait_until("[data-testid=task-title]", STEP, |_| true);
        d.path().strip_prefix("/tasks/").expect("the task's page").to_string()
    }

    /// Closes the engine handle before the app and the lab go.
    pub fn close(self) {
        self.rt.block_on(self.ours.close());
    }
}

/// The operator deciding in another process on the app's database (as `nomos approvals …` does).
pub fn operator_elsewhere(message: Option<&str>) -> Decision {
    Decision { actor: "operator:e2e".into(), channel: Channel::Cli, message: message.map(str::to_string) }
}

/// Asks the gate, from the test process, to run `command` on `target`; it must wait for approval.
/// Returns the approval's and the execution's ids.
pub fn queue(
    rt: &tokio::runtime::Runtime,
    nomos: &Runtime,
    target: &str,
    command: &str,
    risk: Option<Risk>,
) -> (String, String) {
    let req = RunRequest {
        target: target.into(),
        command: command.into(),
        purpose: "end-to-end check".into(),
        declared_risk: risk,
        task_id: None,
        requested_by: "agent:nomos".into(),
        timeout: None,
        background: false,
        read_only: false,
        compact: false,
    };
    match rt.block_on(nomos.actuator().run(req)).unwrap() {
        RunOutcome::Queued { execution, approval, .. } => (approval.id.clone(), execution.id),
        RunOutcome::Ran(x) => panic!("expected `{command}` to wait for approval; it ran: {x:?}"),
    }
}
