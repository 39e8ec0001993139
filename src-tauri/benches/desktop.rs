//! The desktop app's own costs, measured on a virtual display (Xvfb: software rendering, as on many
//! Linux VMs and remote desktops), side by side with a hello-world Tauri app built the same way
//! (`bench-hello/`):
//! - cold start to first paint: from spawning the process to the moment its page's first frame
//!   was drawn, as the page reports it (Oikos's page outline calls `ui_painted`, the hello page its
//!   `painted`, both with the frame's time), and for Oikos also to the UI itself drawn
//!   (`ui_ready`: its wasm loaded and mounted); medians of the runs. Each run
//!   starts an app twice: first with an empty home (Oikos creates its database, WebKit its
//!   caches), then again in that home — the start an operator sees every day;
//! - memory 5 s after the second start's first paint: RSS and PSS summed over the app and its
//!   WebKit processes;
//! - idle cost (Oikos only): CPU seconds of the app and of its web process over a quiet minute,
//!   with the window shown on the task board and with the window hidden (unmapped, as when it sits
//!   in the tray).
//!
//! `make bench-desktop` runs it; `BENCH_RUNS` (default 11: single starts of either app spread by a
//! few hundred ms on a busy machine, and the median of five moved the ratio by a tenth from run to
//! run) and `BENCH_IDLE_SECS` (default 60, 0 to skip) tune it. Linux only (it reads /proc).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::io::{BufRead, BufReader, Read};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

const OIKOS: &str = env!("CARGO_BIN_EXE_oikos");
const HELLO: &str = env!("CARGO_BIN_EXE_oikos-hello");

fn env_num(name: &str, default: u64) -> u64 {
    std::env::var(name).ok().and_then(|v| v.parse().ok()).unwrap_or(default)
}

/// A process group killed when dropped.
struct Group(Child);

impl Group {
    fn spawn(cmd: &mut Command) -> Group {
        Group(cmd.process_group(0).spawn().unwrap_or_else(|e| panic!("cannot start {cmd:?}: {e}")))
    }
    fn pid(&self) -> u32 {
        self.0.id()
    }
}

impl Drop for Group {
    fn drop(&mut self) {
        let group = format!("-{}", self.0.id());
        let _ = Command::new("kill").args(["-TERM", "--", &group]).status();
        let deadline = Instant::now() + Duration::from_secs(5);
        while Instant::now() < deadline {
            if let Ok(Some(_)) = self.0.try_wait() {
                return;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        let _ = Command::new("kill").args(["-KILL", "--", &group]).status();
        let _ = self.0.wait();
    }
}

/// Xvfb on a display it picks itself.
fn virtual_display() -> (Group, String) {
    let mut xvfb = Group::spawn(
        Command::new("Xvfb")
            .args(["-displayfd", "1", "-screen", "0", "1280x820x24", "-nolisten", "tcp"])
            .stdout(Stdio::piped())
            .stderr(Stdio::null()),
    );
    let mut line = String::new();
    BufReader::new(xvfb.0.stdout.take().unwrap()).read_line(&mut line).unwrap();
    (xvfb, format!(":{}", line.trim()))
}

/// A session bus of the bench's own, as every desktop session has one. Without one, GLib
/// autolaunches a bus through X11 for each app, and a start right after a stopped one was slowed
/// by about 0.4 s every other time; the operator's own bus would let the app's single instance
/// hand over to an Oikos already running.
fn session_bus() -> (Group, String) {
    let mut bus = Group::spawn(
        Command::new("dbus-daemon")
            .args(["--session", "--nofork", "--print-address=1"])
            .stdout(Stdio::piped())
            .stderr(Stdio::null()),
    );
    let mut line = String::new();
    BufReader::new(bus.0.stdout.take().unwrap()).read_line(&mut line).unwrap();
    (bus, line.trim().to_string())
}

/// The processes an app runs: itself and its descendants (WebKit's web and network processes).
fn family(root: u32) -> Vec<u32> {
    let mut all = vec![root];
    let mut i = 0;
    while i < all.len() {
        let children = std::fs::read_to_string(format!("/proc/{0}/task/{0}/children", all[i])).unwrap_or_default();
        all.extend(children.split_whitespace().filter_map(|p| p.parse::<u32>().ok()));
        i += 1;
    }
    all
}

fn comm(pid: u32) -> String {
    std::fs::read_to_string(format!("/proc/{pid}/comm")).unwrap_or_default().trim().to_string()
}

/// Clock ticks per second (the unit of /proc/PID/stat's times), asked once.
static CLOCK_TICKS: std::sync::LazyLock<f64> = std::sync::LazyLock::new(|| {
    let out = Command::new("getconf").arg("CLK_TCK").output().ok();
    out.and_then(|o| String::from_utf8_lossy(&o.stdout).trim().parse::<f64>().ok()).unwrap_or(100.0)
});

/// utime + stime of a process, in seconds.
fn cpu_seconds(pid: u32) -> f64 {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
    // Fields after the command name, which is in parentheses and may hold spaces.
    let rest = stat.rsplit_once(')').map_or("", |(_, r)| r);
    let f: Vec<&str> = rest.split_whitespace().collect();
    let ticks: f64 = f.get(11).and_then(|v| v.parse::<f64>().ok()).unwrap_or(0.0)
        + f.get(12).and_then(|v| v.parse::<f64>().ok()).unwrap_or(0.0);
    ticks / *CLOCK_TICKS
}

/// (RSS, PSS) in MiB summed over `pids`.
fn memory(pids: &[u32]) -> (f64, f64) {
    let (mut rss, mut pss) = (0.0, 0.0);
    for pid in pids {
        let rollup = std::fs::read_to_string(format!("/proc/{pid}/smaps_rollup")).unwrap_or_default();
        for line in rollup.lines() {
            let kib = |l: &str| l.split_whitespace().nth(1).and_then(|v| v.parse::<f64>().ok()).unwrap_or(0.0);
            if line.starts_with("Rss:") {
                rss += kib(line) / 1024.0;
            } else if line.starts_with("Pss:") {
                pss += kib(line) / 1024.0;
            }
        }
    }
    (rss, pss)
}

/// One app started on `display`, until its first paint.
struct Running {
    group: Group,
    painted: Duration,
    /// Oikos only: the UI itself drawn.
    ready: Option<Duration>,
    /// Oikos only, by its own clock from its start: when the UI's code began to run and when its
    /// first mount returned (ms).
    loaded: Option<f64>,
    mounted: Option<f64>,
}

/// Starts `app` with `home` as its home: an empty one is a first start (Oikos creates its
/// database), one a previous start left behind is the everyday start.
fn start(app: &str, display: &str, bus: &str, home: &tempfile::TempDir) -> Running {
    let mut cmd = Command::new(app);
    if app == OIKOS {
        cmd.arg("--db").arg(home.path().join("oikos.db"));
    }
    cmd.env("DISPLAY", display)
        .env("HOME", home.path())
        .env("XDG_CONFIG_HOME", home.path().join("config"))
        .env("XDG_CACHE_HOME", home.path().join("cache"))
        .env("XDG_DATA_HOME", home.path().join("data"))
        .env("NO_AT_BRIDGE", "1")
        .env("OIKOS_LOG", "info")
        .env("DBUS_SESSION_BUS_ADDRESS", bus)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let began = SystemTime::now();
    let mut group = Group::spawn(&mut cmd);
    let (tx, rx) = mpsc::channel();
    let pipes: Vec<Box<dyn Read + Send>> =
        vec![Box::new(group.0.stdout.take().unwrap()), Box::new(group.0.stderr.take().unwrap())];
    for pipe in pipes {
        let tx = tx.clone();
        std::thread::spawn(move || {
            for line in BufReader::new(pipe).lines().map_while(Result::ok) {
                let at = frame_time(&line).unwrap_or_else(SystemTime::now);
                if line.contains("first paint") {
                    let _ = tx.send((false, at, None));
                } else if line.contains("UI ready") {
                    let marks = (field(&line, "loaded_ms"), field(&line, "mounted_ms"));
                    let _ = tx.send((true, at, Some(marks)));
                }
            }
        });
    }
    let (mut painted, mut ready, mut marks) = (None, None, None);
    while painted.is_none() || (app == OIKOS && ready.is_none()) {
        let (is_ready, at, m) =
            rx.recv_timeout(Duration::from_secs(90)).unwrap_or_else(|_| panic!("{app} never painted"));
        *(if is_ready { &mut ready } else { &mut painted }) = Some(at.duration_since(began).unwrap_or_default());
        marks = marks.or(m);
    }
    let (loaded, mounted) = marks.unwrap_or_default();
    Running { group, painted: painted.unwrap(), ready, loaded, mounted }
}

/// The moment a start-up line tells of: its `at=` (ms since the epoch, the page's clock when the
/// frame was drawn; both apps log it alike), not when the line arrived, which can wait behind the
/// page's other calls. Colours of the log (escape sequences) are skipped.
fn frame_time(line: &str) -> Option<SystemTime> {
    let ms = field(line, "at")?;
    UNIX_EPOCH.checked_add(Duration::from_millis(ms as u64))
}

/// A number logged as `key=value` in `line`, colours of the log (escape sequences) skipped.
fn field(line: &str, key: &str) -> Option<f64> {
    let plain: String = {
        let mut out = String::with_capacity(line.len());
        let mut chars = line.chars();
        while let Some(c) = chars.next() {
            if c == '\u{1b}' {
                // An SGR sequence: ESC [ … m.
                for c in chars.by_ref() {
                    if c == 'm' {
                        break;
                    }
                }
            } else {
                out.push(c);
            }
        }
        out
    };
    plain.split_whitespace().find_map(|w| w.strip_prefix(key)?.strip_prefix('='))?.parse().ok()
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    let n = v.len();
    if n % 2 == 1 {
        v[n / 2]
    } else {
        (v[n / 2 - 1] + v[n / 2]) / 2.0
    }
}

/// CPU seconds per process over `secs` of doing nothing.
fn idle(app: &Running, secs: u64) -> Vec<(String, f64)> {
    let pids = family(app.group.pid());
    let before: Vec<f64> = pids.iter().map(|p| cpu_seconds(*p)).collect();
    std::thread::sleep(Duration::from_secs(secs));
    pids.iter().zip(before).map(|(p, b)| (comm(*p), cpu_seconds(*p) - b)).collect()
}

fn unmap_windows(display: &str, pid: u32) {
    let out = Command::new("xdotool").env("DISPLAY", display).args(["search", "--pid", &pid.to_string()]).output();
    for w in out.map(|o| String::from_utf8_lossy(&o.stdout).to_string()).unwrap_or_default().split_whitespace() {
        let _ = Command::new("xdotool").env("DISPLAY", display).args(["windowunmap", w]).status();
    }
}

fn main() {
    if !cfg!(target_os = "linux") || !Path::new("/proc/self/smaps_rollup").exists() {
        eprintln!("bench-desktop: Linux only (reads /proc)");
        return;
    }
    // `cargo bench` passes `--bench`; nothing else to parse.
    let runs = env_num("BENCH_RUNS", 11).max(1);
    let idle_secs = env_num("BENCH_IDLE_SECS", 60);
    let (_xvfb, display) = virtual_display();
    let (_bus, bus) = session_bus();
    println!("display {display}; {runs} runs each, alternating; binaries: {OIKOS}, {HELLO}");

    // Per app (Oikos, hello): first starts, then starts again in the same home.
    let mut first = [Vec::new(), Vec::new()];
    let mut paint = [Vec::new(), Vec::new()];
    let mut ready = [Vec::new(), Vec::new()];
    let mut rss = [Vec::new(), Vec::new()];
    let mut pss = [Vec::new(), Vec::new()];
    // Oikos's everyday start, by its own clock: the UI's code running, its first mount returned.
    let (mut loaded, mut mounted) = (Vec::new(), Vec::new());
    for run in 0..runs {
        for (i, app) in [OIKOS, HELLO].into_iter().enumerate() {
            let name = PathBuf::from(app).file_name().map(|n| n.to_string_lossy().to_string()).unwrap_or_default();
            let home = tempfile::tempdir().unwrap();
            let r = start(app, &display, &bus, &home);
            let first_ms = r.ready.unwrap_or(r.painted).as_secs_f64() * 1000.0;
            std::thread::sleep(Duration::from_secs(3));
            drop(r);
            let r = start(app, &display, &bus, &home);
            std::thread::sleep(Duration::from_secs(5));
            let (m_rss, m_pss) = memory(&family(r.group.pid()));
            let ready_ms = r.ready.unwrap_or(r.painted).as_secs_f64() * 1000.0;
            println!(
                "run {run} {name:<12} first start: ready {first_ms:>5.0} ms   start: first paint {:>5.0} ms, ready {ready_ms:>5.0} ms   RSS {m_rss:>6.1} MiB   PSS {m_pss:>6.1} MiB",
                r.painted.as_secs_f64() * 1000.0
            );
            first[i].push(first_ms);
            paint[i].push(r.painted.as_secs_f64() * 1000.0);
            ready[i].push(ready_ms);
            loaded.extend(r.loaded);
            mounted.extend(r.mounted);
            rss[i].push(m_rss);
            pss[i].push(m_pss);
        }
    }
    let row = |what: &str, unit: &str, v: &[Vec<f64>; 2]| {
        let (o, h) = (median(v[0].clone()), median(v[1].clone()));
        println!("{what:<30} oikos {o:>8.1} {unit:<4} hello {h:>8.1} {unit:<4} ratio {:.2}x", o / h);
    };
    println!("medians of {runs} (the hello page is ready when it paints):");
    row("first start → UI ready", "ms", &first);
    row("start → first paint", "ms", &paint);
    row("start → UI ready", "ms", &ready);
    if !loaded.is_empty() && !mounted.is_empty() {
        println!(
            "oikos, by its own clock from its start: UI code running {:.0} ms, first mount returned {:.0} ms",
            median(loaded),
            median(mounted)
        );
    }
    row("memory (RSS, all procs)", "MiB", &rss);
    row("memory (PSS, all procs)", "MiB", &pss);

    if idle_secs > 0 {
        let home = tempfile::tempdir().unwrap();
        let r = start(OIKOS, &display, &bus, &home);
        std::thread::sleep(Duration::from_secs(10));
        for (state, secs) in [("shown", idle_secs), ("hidden", idle_secs)] {
            if state == "hidden" {
                unmap_windows(&display, r.group.pid());
                std::thread::sleep(Duration::from_secs(3));
            }
            for (name, cpu) in idle(&r, secs) {
                println!(
                    "idle {secs} s, window {state:<6} {name:<16} {cpu:>6.2} CPU s  ({:.3}% of one core)",
                    cpu / secs as f64 * 100.0
                );
            }
        }
    }
}
