//! `nomos mcp serve` driven by a client nobody here wrote: the official Python MCP SDK
//! (`tests/mcp/client.py`, over stdio), against a lab host (real sshd). It lists the tools, reads,
//! runs a read-only command, asks for a change (pending), tries every route to approving its own
//! request (all refused), and sees the change run once the operator approves it with the CLI.
//! Two clients at once never share a window; a client that dies mid-command has the command
//! killed on the host and recorded.
//!
//! The Python SDK lives in a virtual environment `make setup-test` prepares
//! (`$OIKOS_MCP_PYTHON`, else `~/.cache/oikos-mcp-venv/bin/python`).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;

const NOMOS: &str = env!("CARGO_BIN_EXE_nomos");

fn nomos(db: &Path, args: &[&str]) -> Output {
    Command::new(NOMOS).arg("--db").arg(db).args(args).stdin(Stdio::null()).output().unwrap()
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

fn ok(out: &Output) -> Value {
    assert!(out.status.success(), "{}{}", text(&out.stdout), text(&out.stderr));
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{e}: {}", text(&out.stdout)))
}

fn python() -> PathBuf {
    let path = std::env::var_os("OIKOS_MCP_PYTHON")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(std::env::var_os("HOME").unwrap()).join(".cache/oikos-mcp-venv/bin/python"));
    assert!(path.exists(), "no Python with the MCP SDK at {}: run `make setup-test`", path.display());
    path
}

/// Runs a scenario of the Python client; its steps by name.
fn client(scenario: &str, db: &Path, mark: &Path) -> Vec<Value> {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/mcp/client.py");
    let out = Command::new(python())
        .arg(script)
        .args([scenario, NOMOS])
        .arg(db)
        .arg(mark)
        .env("NOMOS_LOG", "warn")
        .stdin(Stdio::null())
        .output()
        .unwrap();
    let steps: Vec<Value> =
        text(&out.stdout).lines().map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}"))).collect();
    assert!(out.status.success(), "scenario {scenario} failed:\n{}\n{}", text(&out.stdout), text(&out.stderr));
    steps
}

/// The operator at their own terminal (this test, outside the client's processes): approves with
/// the command line each request the client leaves in the marks directory (`approve-<id>`).
struct Operator {
    stop: std::sync::Arc<std::sync::atomic::AtomicBool>,
    thread: Option<std::thread::JoinHandle<Vec<Output>>>,
}

impl Operator {
    fn at_terminal(db: &Path, marks: &Path) -> Operator {
        let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
        let (db, marks, flag) = (db.to_path_buf(), marks.to_path_buf(), stop.clone());
        let thread = std::thread::spawn(move || {
            let mut done: Vec<String> = Vec::new();
            let mut outputs = Vec::new();
            while !flag.load(std::sync::atomic::Ordering::SeqCst) {
                for entry in std::fs::read_dir(&marks).unwrap().flatten() {
                    let name = entry.file_name().to_string_lossy().to_string();
                    if let Some(id) = name.strip_prefix("approve-") {
                        if !done.contains(&name) {
                            outputs.push(nomos(&db, &["approvals", "approve", id, "--json"]));
                            done.push(name);
                        }
                    }
                }
                std::thread::sleep(Duration::from_millis(100));
            }
            outputs
        });
        Operator { stop, thread: Some(thread) }
    }

    /// What each approval printed, in order.
    fn decided(mut self) -> Vec<Output> {
        self.stop.store(true, std::sync::atomic::Ordering::SeqCst);
        self.thread.take().unwrap().join().unwrap()
    }
}

fn step<'a>(steps: &'a [Value], name: &str) -> &'a Value {
    steps.iter().find(|s| s["step"] == name).unwrap_or_else(|| panic!("no step {name} in {steps:#?}"))
}

struct Lab {
    _tmp: tempfile::TempDir,
    dir: PathBuf,
    db: PathBuf,
    mark: PathBuf,
}

impl Drop for Lab {
    fn drop(&mut self) {
        let _ = Command::new(NOMOS).args(["lab", "down", "--purge", "--dir", self.dir.to_str().unwrap()]).output();
    }
}

/// One lab host, added, trusted and discovered.
fn lab() -> Lab {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("lab");
    let db = tmp.path().join("oikos.db");
    let mark = tmp.path().join("marks");
    std::fs::create_dir_all(&mark).unwrap();
    let lab = Lab { dir: dir.clone(), db: db.clone(), mark, _tmp: tmp };
    let up = ok(&nomos(&db, &["lab", "up", "--dir", dir.to_str().unwrap(), "--hosts", "1", "--json"]));
    let port = up["hosts"][0]["port"].as_u64().unwrap().to_string();
    let key = up["client_key"].as_str().unwrap().to_string();
    let user = nomos_lab::current_user();
    let added = ok(&nomos(
        &db,
        &["hosts", "add", "pve1", "--address", "127.0.0.1", "--port", &port, "--user", &user, "--key", &key, "--json"],
    ));
    let fingerprint = added["fingerprint"].as_str().unwrap().to_string();
    ok(&nomos(&db, &["hosts", "trust", "pve1", "--fingerprint", &fingerprint, "--json"]));
    ok(&nomos(&db, &["discover", "pve1", "--apply", "--json"]));
    let note = "systemctl restart pveproxy — then check that port 8006 answers (ünïcode kept)";
    let args = ["knowledge", "add", "--kind", "runbook", "--title", "Restart pveproxy", "--about", "host:pve1"];
    ok(&nomos(&db, &[&args[..], &["--content", note, "--json"]].concat()));
    lab
}

fn execution(db: &Path, id: &str) -> Value {
    ok(&nomos(db, &["executions", "show", id, "--json"]))
}

#[test]
fn a_real_mcp_client_reads_asks_and_waits_for_the_operator() {
    let lab = lab();
    let operator = Operator::at_terminal(&lab.db, &lab.mark);
    let steps = client("main", &lab.db, &lab.mark);
    let decided = operator.decided();
    assert_eq!(decided.len(), 1);
    assert!(decided[0].status.success(), "{}", text(&decided[0].stderr));

    // The tools: reads annotated read-only, the two gated ones destructive, none that approves.
    let tools = step(&steps, "tools")["tools"].as_array().unwrap().clone();
    let names: Vec<&str> = tools.iter().map(|t| t["name"].as_str().unwrap()).collect();
    for name in nomos::mcp::READ_TOOLS.iter().chain(["list_pending_approvals", "wait_for_approval"].iter()) {
        let t = tools.iter().find(|t| t["name"] == *name).unwrap_or_else(|| panic!("no tool {name}: {names:?}"));
        assert_eq!((t["read_only"].clone(), t["destructive"].clone()), (Value::Bool(true), Value::Bool(false)), "{t}");
    }
    for name in ["run", "request_execution"] {
        let t = tools.iter().find(|t| t["name"] == name).unwrap();
        assert_eq!((t["read_only"].clone(), t["destructive"].clone()), (Value::Bool(false), Value::Bool(true)), "{t}");
    }
    assert_eq!(tools.len(), nomos::mcp::READ_TOOLS.len() + 4, "{names:?}");
    assert!(!names.iter().any(|n| n.starts_with("approve") || n.starts_with("deny") || n.contains("decide")));

    // Reads: a tool and a resource.
    assert!(step(&steps, "list_entities")["text"].as_str().unwrap().contains("host:pve1"));
    let templates = &step(&steps, "templates")["uris"];
    assert_eq!(templates, &serde_json::json!(["oikos://entity/{slug}", "oikos://knowledge/{id}"]));
    let resource: Value = serde_json::from_str(step(&steps, "resource")["text"].as_str().unwrap()).unwrap();
    assert_eq!(resource["name"], "pve1");
    let listed = step(&steps, "resources")["uris"].as_array().unwrap().clone();
    assert!(listed.iter().any(|u| u == "oikos://entity/host:pve1"), "{listed:?}");
    assert!(!listed.iter().any(|u| u.as_str().unwrap().contains("task:")), "tasks are not resources");
    let note = step(&steps, "note")["text"].as_str().unwrap();
    assert!(note.contains("port 8006 answers (ünïcode kept)"), "{note}");

    // A read-only command runs at once, as the client.
    let read = &step(&steps, "read_only_run")["structured"];
    assert_eq!((read["status"].as_str(), read["exit_code"].as_i64()), (Some("completed"), Some(0)), "{read}");
    assert_eq!(read["requested_by"], "mcp:claude-code");
    assert_eq!(read["granted_by"], "read_only");
    assert!(read["stdout"].as_str().unwrap().contains("load average"), "{read}");

    // Long output comes capped, with where to read the rest; read_output pages it.
    let big = &step(&steps, "big_output")["structured"];
    assert_eq!(big["stdout_bytes"], 168_894, "{}", big["stdout_bytes"]);
    let shown = big["stdout"].as_str().unwrap();
    assert!(
        shown.len() < 10_000 && shown.starts_with("1\n2\n") && shown.ends_with("29999\n30000\n"),
        "{}",
        shown.len()
    );
    assert!(shown.contains("read_output execution_id="), "the cap says where the rest is");
    let page = step(&steps, "read_page")["text"].as_str().unwrap();
    assert!(page.contains("bytes 100000–100050 of 168894"), "{page}");

    // A destructive change names the words only the operator can type.
    let destructive = &step(&steps, "destructive")["structured"];
    assert_eq!(
        (destructive["status"].as_str(), destructive["risk"].as_str()),
        (Some("pending_approval"), Some("destructive"))
    );
    let words = destructive["approval"]["confirmation"].as_str().unwrap();
    assert!(words.starts_with("confirm") && words.ends_with("pve1"), "{words}");
    assert!(destructive["approval"]["how_it_is_decided"].as_str().unwrap().contains(words));

    // A change waits, with everything the client needs to tell the operator.
    let change = &step(&steps, "change")["structured"];
    assert_eq!(change["status"], "pending_approval", "{change}");
    let approval = change["approval"]["approval_id"].as_str().unwrap().to_string();
    let change_id = change["execution_id"].as_str().unwrap().to_string();
    assert_eq!(change["risk"], "config_mutation");
    assert!(!change["reasons"].as_array().unwrap().is_empty());
    assert!(change["approval"]["expires_at"].as_str().unwrap() > "2026");
    assert!(change["approval"]["blast_radius"]["count"].as_u64().unwrap() >= 1, "{change}");
    assert!(change["approval"]["confirmation"].is_null());

    // Every route to approving its own request is refused; nothing of it ran meanwhile.
    let attempts = step(&steps, "attempts");
    for refused in ["approve_tool", "approve_execution_tool", "extra_field", "curated_approve"] {
        assert_eq!(attempts[refused]["is_error"], true, "{refused}: {}", attempts[refused]);
        assert!(attempts[refused]["text"].as_str().unwrap().contains("Nothing was run"), "{}", attempts[refused]);
    }
    let on_host = &attempts["cli_on_host"]["structured"];
    assert_eq!(on_host["status"], "pending_approval", "running `nomos approvals approve` is itself a change");
    assert_ne!(on_host["execution_id"], change["execution_id"]);
    let assent = &attempts["assent_in_purpose"]["structured"];
    assert_eq!(assent["status"], "pending_approval", "words in the purpose and a declared risk approve nothing");
    assert_eq!(assent["execution_id"], change["execution_id"], "the same request is the one waiting");
    // Its own shell running the operator's command line is still the client, never the operator.
    for (attempt, what) in
        [("shell_approve", "approve"), ("shell_window", "open a window"), ("shell_message", "answer")]
    {
        let a = &attempts[attempt];
        assert_eq!(a["code"], 1, "{attempt} ({what}): {a}");
        assert!(a["stderr"].as_str().unwrap().contains("runs under Claude Code (connected over MCP)"), "{a}");
    }
    let short = &attempts["wait_short"]["structured"];
    assert_eq!((short["status"].as_str(), short["timed_out"].as_bool()), (Some("pending_approval"), Some(true)));
    let before = step(&steps, "pending_before")["structured"]["pending"].as_array().unwrap().clone();
    assert!(before.iter().any(|p| p["approval_id"] == approval.as_str()), "{before:?}");

    // The operator approved at the terminal; the client's wait saw it run, with progress.
    let waited = step(&steps, "waited");
    assert_eq!(waited["structured"]["status"], "completed", "{waited}");
    assert!(waited["progress"].as_u64().unwrap() >= 1, "{waited}");
    let decided_by = waited["structured"]["decision"]["decided_by"].as_str().unwrap();
    assert!(decided_by.starts_with("operator"), "{decided_by}");
    assert!(step(&steps, "status")["text"].as_str().unwrap().contains(": completed, exit 0"));
    assert!(lab.mark.join("change").exists(), "the approved change ran on the host");
    let bad = step(&steps, "bad_arguments");
    assert_eq!(bad["is_error"], true);
    assert!(bad["text"].as_str().unwrap().contains("unknown field `id`"), "{bad}");

    // What it asked on its own behalf still waits; the ledger names the operator for the one decision.
    let after = step(&steps, "pending_after")["structured"]["pending"].as_array().unwrap().clone();
    assert_eq!(after.len(), 2, "{after:?}");
    assert!(after.iter().any(|p| p["execution_id"] == on_host["execution_id"]), "{after:?}");
    assert!(after.iter().any(|p| p["execution_id"] == destructive["execution_id"]), "{after:?}");
    let x = execution(&lab.db, &change_id);
    assert_eq!((x["status"].as_str(), x["requested_by"].as_str()), (Some("completed"), Some("mcp:claude-code")));
    let waiting = execution(&lab.db, on_host["execution_id"].as_str().unwrap());
    assert_eq!(waiting["status"], "pending_approval");

    // The session was its own task, driven by the client; it ended when the client left, and
    // Nomos never took a turn in it.
    let sessions = ok(&nomos(&lab.db, &["mcp", "sessions", "--all", "--json"]));
    let s = &sessions[0];
    assert_eq!((s["client"].as_str(), s["title"].as_str()), (Some("claude-code"), Some("Claude Code")));
    assert!(s["ended_at"].is_string(), "{s}");
    let task = ok(&nomos(&lab.db, &["tasks", "show", s["task_id"].as_str().unwrap(), "--json"]));
    assert_eq!(task["driver"], "mcp:claude-code", "{task}");
    assert_eq!(task["status"], "waiting", "a request of it still waits for the operator: {task}");
    assert!(ok(&nomos(&lab.db, &["mcp", "sessions", "--json"])).as_array().unwrap().is_empty());
}

#[test]
fn two_clients_never_share_a_window() {
    let lab = lab();
    let operator = Operator::at_terminal(&lab.db, &lab.mark);
    let steps = client("two", &lab.db, &lab.mark);
    assert_eq!(operator.decided().len(), 1);
    assert_eq!(step(&steps, "a_first")["structured"]["status"], "pending_approval");
    assert_eq!(step(&steps, "a_first_waited")["structured"]["status"], "completed");
    // The operator's approval opened a window for the first client's session only.
    let second = &step(&steps, "a_second")["structured"];
    assert_eq!(second["status"], "completed", "{second}");
    assert!(second["granted_by"].as_str().unwrap().starts_with("window:"), "{second}");
    let other = &step(&steps, "b_first")["structured"];
    assert_eq!(other["status"], "pending_approval", "{other}");
    assert_eq!(other["requested_by"], "mcp:goose");
    assert!(lab.mark.join("a1").exists() && lab.mark.join("a2").exists());
    assert!(!lab.mark.join("b1").exists(), "the other client's change did not run");
    // Each sees its own requests.
    assert!(step(&steps, "a_pending")["structured"]["pending"].as_array().unwrap().is_empty());
    let reads = step(&steps, "b_reads_a");
    assert_eq!(reads["is_error"], true);
    assert!(reads["text"].as_str().unwrap().contains("was not requested in this session"), "{reads}");
    let b = step(&steps, "b_pending")["structured"]["pending"].as_array().unwrap().clone();
    assert_eq!(b.len(), 1);
    assert!(b[0]["command"].as_str().unwrap().ends_with("/b1"));
    let sessions = ok(&nomos(&lab.db, &["mcp", "sessions", "--all", "--json"]));
    let tasks: Vec<&str> = sessions.as_array().unwrap().iter().map(|s| s["task_id"].as_str().unwrap()).collect();
    assert_eq!(tasks.len(), 2);
    assert_ne!(tasks[0], tasks[1]);
}

#[test]
fn a_client_that_goes_away_mid_command_has_it_killed_and_recorded() {
    let lab = lab();
    // Killed outright, then leaving the SDK's normal way (stdin closed, then terminated).
    for (scenario, command) in [("disconnect", "sleep 37"), ("leave", "sleep 38")] {
        gone_mid_command(&lab, scenario, command);
    }
}

fn gone_mid_command(lab: &Lab, scenario: &str, command: &str) {
    let steps = client(scenario, &lab.db, &lab.mark);
    assert!(steps.iter().any(|s| s["step"] == "leaving"));
    // The server sees its stdin close and stops the command.
    let left_at = Instant::now();
    let deadline = left_at + Duration::from_secs(40);
    let x = loop {
        let list = ok(&nomos(&lab.db, &["executions", "list", "--json"]));
        let x = list.as_array().unwrap().iter().find(|x| x["command"] == command).cloned();
        if let Some(x) = x.filter(|x| x["status"] != "running") {
            break x;
        }
        assert!(Instant::now() < deadline, "the command of the dead client is still running");
        std::thread::sleep(Duration::from_millis(300));
    };
    assert_eq!(x["status"], "cancelled", "{x}");
    assert_eq!(x["requested_by"], "mcp:claude-code");
    eprintln!("{scenario}: recorded cancelled {} ms after the client was gone", left_at.elapsed().as_millis());
    let left = Command::new("pgrep").args(["-fx", command]).output().unwrap();
    assert!(text(&left.stdout).trim().is_empty(), "the command still runs on the host: {}", text(&left.stdout));
    // Its session ended.
    let deadline = Instant::now() + Duration::from_secs(20);
    while !ok(&nomos(&lab.db, &["mcp", "sessions", "--json"])).as_array().unwrap().is_empty() {
        assert!(Instant::now() < deadline, "the session is still shown as connected");
        std::thread::sleep(Duration::from_millis(300));
    }
}
