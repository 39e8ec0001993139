//! The `nomos` command line against real database files: output contracts, `--json`, exit codes.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::Path;
use std::process::{Command, Output, Stdio};

use serde_json::Value;

const DEMO: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../seeds/demo-inventory.yaml");

fn nomos(db: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_nomos"))
        .arg("--db")
        .arg(db)
        .args(args)
        .env_remove("OIKOS_DB")
        .stdin(Stdio::null())
        .output()
        .unwrap()
}

fn ok_json(db: &Path, args: &[&str]) -> Value {
    let mut with_json = args.to_vec();
    with_json.push("--json");
    let out = nomos(db, &with_json);
    assert!(out.status.success(), "{args:?}: {}", String::from_utf8_lossy(&out.stderr));
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{args:?}: not JSON ({e})"))
}

fn one_line_error(out: &Output) -> String {
    assert_eq!(out.status.code(), Some(1), "stdout: {}", String::from_utf8_lossy(&out.stdout));
    let err = String::from_utf8_lossy(&out.stderr).to_string();
    assert_eq!(err.trim_end().lines().count(), 1, "one line on stderr: {err:?}");
    assert!(err.starts_with("nomos: "), "{err}");
    err
}

#[test]
fn import_list_show_and_blast_radius() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("oikos.db");

    let migrated = ok_json(&db, &["db", "migrate"]);
    assert_eq!(migrated["entities"], 0);
    assert_eq!(migrated["schema_version"], nomos::store::latest_schema_version());

    let first = ok_json(&db, &["inventory", "import", DEMO]);
    let created = first["entities"]["created"].as_u64().unwrap();
    assert!(created >= 30);
    let second = ok_json(&db, &["inventory", "import", DEMO]);
    assert_eq!(second["entities"]["created"], 0);
    assert_eq!(second["entities"]["updated"], 0);
    assert_eq!(second["entities"]["unchanged"].as_u64(), Some(created));

    let page = ok_json(&db, &["entity", "list", "--limit", "5"]);
    assert_eq!(page["total"].as_u64(), Some(created), "the total counts every entity, not the page");
    assert_eq!(page["items"].as_array().unwrap().len(), 5);

    let lxcs = ok_json(&db, &["entity", "list", "--type", "lxc", "--filter", "CAD"]);
    assert_eq!(lxcs["total"], 1);
    assert_eq!(lxcs["items"][0]["slug"], "lxc:caddy");
    assert_eq!(lxcs["items"][0]["status"]["health"], "unknown");

    let text = nomos(&db, &["entity", "list", "--limit", "3"]);
    let text = String::from_utf8(text.stdout).unwrap();
    assert!(text.contains(&format!("showing 1–3 of {created}")), "{text}");
    let past = nomos(&db, &["entity", "list", "--offset", "1000"]);
    let past = String::from_utf8(past.stdout).unwrap();
    assert!(past.contains(&format!("offset 1000 is past the end ({created} entities)")), "{past}");

    let shown = ok_json(&db, &["entity", "show", "lxc:caddy"]);
    assert_eq!(shown["entity"]["attributes"]["pve_id"], 101);
    assert!(shown["relations"].as_array().unwrap().iter().any(|r| r["label"] == "hosted-by"));

    let rels = ok_json(&db, &["graph", "relations", "host:strong"]);
    assert!(rels.as_array().unwrap().iter().any(|r| r["label"] == "hosts" && r["other"]["slug"] == "lxc:caddy"));

    let blast = ok_json(&db, &["graph", "blast-radius", "lxc:postgres", "--depth", "2"]);
    assert_eq!(blast["depth"], 2);
    let hits: Vec<&str> =
        blast["hits"].as_array().unwrap().iter().map(|h| h["entity"]["slug"].as_str().unwrap()).collect();
    assert!(hits.contains(&"service:postgres") && hits.contains(&"service:gitea"), "{hits:?}");
    let gitea = blast["hits"].as_array().unwrap().iter().find(|h| h["entity"]["slug"] == "service:gitea").unwrap();
    assert_eq!(gitea["path"].as_array().unwrap().len(), 2);
}

#[test]
fn knowledge_round_trip() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("oikos.db");
    ok_json(&db, &["inventory", "import", DEMO]);
    let added = ok_json(
        &db,
        &[
            "knowledge",
            "add",
            "--kind",
            "runbook",
            "--title",
            "Restart caddy",
            "--about",
            "lxc:caddy",
            "--tag",
            "caddy",
            "--content",
            "Run `systemctl restart caddy`; check <b>journalctl -u caddy</b>.",
        ],
    );
    assert_eq!(added["created"], true);
    // Markup in a note comes back escaped; only the match is bold.
    let hits = ok_json(&db, &["knowledge", "search", "journalctl"]);
    let snippet = hits[0]["snippet"].as_str().unwrap();
    assert!(snippet.contains("&lt;b&gt;<b>journalctl</b>"), "{snippet}");
    let again = ok_json(
        &db,
        &["knowledge", "add", "--kind", "runbook", "--title", "restart CADDY", "--content", "systemctl reload caddy"],
    );
    assert_eq!(again["created"], false, "same kind and title updates");

    // Content can come from stdin.
    let mut child = Command::new(env!("CARGO_BIN_EXE_nomos"))
        .args(["--db"])
        .arg(&db)
        .args(["knowledge", "add", "--kind", "investigation", "--title", "Why gitea was slow"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    use std::io::Write;
    child.stdin.take().unwrap().write_all(b"postgres autovacuum was starved").unwrap();
    assert!(child.wait_with_output().unwrap().status.success());

    let hits = ok_json(&db, &["knowledge", "search", "autovacuum"]);
    assert_eq!(hits.as_array().unwrap().len(), 1);
    assert!(hits[0]["snippet"].as_str().unwrap().contains("<b>autovacuum</b>"));
    let hits = ok_json(&db, &["knowledge", "search", "reload"]);
    assert_eq!(hits[0]["title"], "restart CADDY");

    let recent = ok_json(&db, &["knowledge", "recent", "--limit", "1"]);
    assert_eq!(recent.as_array().unwrap().len(), 1);
    assert_eq!(recent[0]["title"], "Why gitea was slow");
    let stats = ok_json(&db, &["knowledge", "stats"]);
    assert_eq!(stats["total"], 2);
    let shown = ok_json(&db, &["entity", "show", "lxc:caddy"]);
    assert_eq!(shown["knowledge"][0]["title"], "restart CADDY");
}

#[test]
fn errors_are_one_line_and_usage_is_exit_2() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("oikos.db");

    let err = one_line_error(&nomos(&db, &["entity", "show", "host:nope"]));
    assert_eq!(err.trim_end(), "nomos: entity `host:nope` not found");

    let err = one_line_error(&nomos(&db, &["entity", "list", "--type", "toaster"]));
    assert!(err.contains("unknown entity type `toaster` (allowed:"), "{err}");

    let bad = dir.path().join("bad.yaml");
    std::fs::write(&bad, "lxcs:\n  - { name: x, pve_id: 1, host: nowhere }\n").unwrap();
    let err = one_line_error(&nomos(&db, &["inventory", "import", bad.to_str().unwrap()]));
    assert!(err.contains("lxcs[0] (x)"), "{err}");

    let err = one_line_error(&nomos(&db, &["knowledge", "add", "--title", "x"]));
    assert_eq!(err.trim_end(), "nomos: the note is empty: give its content with --content, --file or on stdin");

    let corrupt = dir.path().join("corrupt.db");
    std::fs::write(&corrupt, vec![b'x'; 4096]).unwrap();
    let err = one_line_error(&nomos(&corrupt, &["entity", "list"]));
    assert!(err.contains("is not an Oikos database"), "{err}");

    for usage in [&["entity"][..], &["entity", "list", "--limit", "many"], &["frobnicate"], &["graph", "blast-radius"]]
    {
        let out = nomos(&db, usage);
        assert_eq!(out.status.code(), Some(2), "{usage:?}");
    }
}

fn nomos_stdin(args: &[&str], input: &[u8]) -> Output {
    use std::io::Write;
    let mut child = Command::new(env!("CARGO_BIN_EXE_nomos"))
        .args(args)
        .env_remove("OIKOS_POLICY")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(input).unwrap();
    child.wait_with_output().unwrap()
}

#[test]
fn classify_writes_one_json_object_per_line_in_order() {
    let input = b"ls -la\nrm -rf /\n\ntee /etc/motd\nbad \xff byte\r\nsystemctl restart caddy";
    let out = nomos_stdin(&["classify"], input);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let text = String::from_utf8(out.stdout).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 6, "{text}");
    let parsed: Vec<Value> = lines.iter().map(|l| serde_json::from_str(l).unwrap()).collect();
    let got: Vec<(&str, &str)> =
        parsed.iter().map(|v| (v["command"].as_str().unwrap(), v["risk"].as_str().unwrap())).collect();
    assert_eq!(
        got,
        [
            ("ls -la", "read_only"),
            ("rm -rf /", "destructive"),
            ("", "config_mutation"),
            ("tee /etc/motd", "config_mutation"),
            ("bad \u{fffd} byte", "config_mutation"),
            ("systemctl restart caddy", "reversible_low"),
        ]
    );
    for v in &parsed {
        assert!(!v["reasons"].as_array().unwrap().is_empty());
        assert_eq!(v.as_object().unwrap().len(), 3);
    }
    // The documented field order.
    assert!(lines[0].starts_with(r#"{"command":"ls -la","risk":"read_only","reasons":["#), "{}", lines[0]);
}

#[test]
fn classify_one_command_and_declared_risk() {
    let out = nomos_stdin(&["classify", "--", "bash -c 'reboot'"], b"");
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["risk"], "destructive");
    let out = nomos_stdin(&["classify", "--declared", "config_mutation", "--", "cat", "/etc/hostname"], b"");
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!((v["command"].as_str(), v["risk"].as_str()), (Some("cat /etc/hostname"), Some("config_mutation")));
    let out = nomos_stdin(&["classify", "--declared", "read_only", "--", "rm -rf /srv"], b"");
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["risk"], "destructive", "a declaration cannot lower the verdict");
    let out = nomos_stdin(&["classify", "--declared", "harmless", "--", "ls"], b"");
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn classify_reads_the_operator_policy_file() {
    let dir = tempfile::tempdir().unwrap();
    let policy = dir.path().join("policy.yaml");
    std::fs::write(&policy, "read_only:\n  - program: labtool\ndestructive:\n  - words: [labtool, wipe]\n").unwrap();
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_nomos"));
    let out = cmd.args(["classify", "--", "labtool status"]).env("OIKOS_POLICY", &policy).output().unwrap();
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["risk"], "read_only");
    let out = Command::new(env!("CARGO_BIN_EXE_nomos"))
        .args(["classify", "--", "sudo labtool wipe"])
        .env("OIKOS_POLICY", &policy)
        .output()
        .unwrap();
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["risk"], "destructive");
    std::fs::write(&policy, "read_only: [{program: /x}]").unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_nomos"))
        .args(["classify", "--", "ls"])
        .env("OIKOS_POLICY", &policy)
        .output()
        .unwrap();
    let err = one_line_error(&out);
    assert!(err.contains("bare program name"), "{err}");
}

#[test]
fn assent_writes_one_json_object_per_line() {
    let input = "yes\n\ngo ahead, this is not risky\nI haven’t confirmed anything yet, let me think\nI confirm destroy 135 in strong\nI confirm destroy 135\nnot sure, maybe yesterday's logs show something useful\n";
    let out = nomos_stdin(&["assent"], input.as_bytes());
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    let got: Vec<(String, bool, bool)> = text
        .lines()
        .map(|l| {
            let v: Value = serde_json::from_str(l).unwrap();
            (
                v["message"].as_str().unwrap().to_string(),
                v["assent"].as_bool().unwrap(),
                v["typed_confirmation"].as_bool().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        got,
        [
            ("yes".to_string(), true, false),
            ("".to_string(), false, false),
            ("go ahead, this is not risky".to_string(), false, false),
            ("I haven’t confirmed anything yet, let me think".to_string(), false, false),
            // A typed confirmation is a form: words beyond it ("in strong") make it none.
            ("I confirm destroy 135 in strong".to_string(), false, false),
            // It is not plain assent either: without a target, an id is a word outside the
            // assent vocabulary.
            ("I confirm destroy 135".to_string(), false, true),
            ("not sure, maybe yesterday's logs show something useful".to_string(), false, false),
        ]
    );
    assert_eq!(
        text.lines().next().unwrap(),
        r#"{"message":"yes","assent":true,"typed_confirmation":false,"covers":[]}"#
    );
}

fn judged(out: &Output) -> Vec<(String, bool, bool)> {
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout.clone())
        .unwrap()
        .lines()
        .map(|l| {
            let v: Value = serde_json::from_str(l).unwrap();
            let at = |f: &str| l.find(&format!("\"{f}\":")).unwrap();
            assert!(at("message") < at("assent") && at("assent") < at("typed_confirmation"), "{l}");
            (v["message"].as_str().unwrap().into(), v["assent"] == true, v["typed_confirmation"] == true)
        })
        .collect()
}

#[test]
fn assent_judges_against_a_target_when_given_one() {
    let input = "confirm destroy caddy\nconfirm 101\nconfirm wipe lxc:caddy\nconfirm lxc:gitea\nyes, caddy\nyes, restart caddy\n";
    let target = ["assent", "--target", "lxc:caddy", "--name", "caddy", "--id", "101"];
    let row = |m: &str, a: bool, t: bool| (m.to_string(), a, t);
    // Without the command its action is not known: the target alone confirms, a verb names
    // something unknown.
    assert_eq!(
        judged(&nomos_stdin(&target, input.as_bytes())),
        [
            row("confirm destroy caddy", false, false),
            row("confirm 101", true, true),
            row("confirm wipe lxc:caddy", false, false),
            row("confirm lxc:gitea", false, false),
            row("yes, caddy", true, false),
            row("yes, restart caddy", false, false),
        ]
    );
    // With the command, only its verbs.
    let with_command = [&target[..], &["--command", "pct destroy 101"]].concat();
    assert_eq!(
        judged(&nomos_stdin(&with_command, input.as_bytes())),
        [
            row("confirm destroy caddy", true, true),
            row("confirm 101", true, true),
            row("confirm wipe lxc:caddy", false, false),
            row("confirm lxc:gitea", false, false),
            row("yes, caddy", true, false),
            row("yes, restart caddy", false, false),
        ]
    );
    // Without a target: the same words judged on their own; a free word names no target.
    assert_eq!(
        judged(&nomos_stdin(&["assent"], input.as_bytes())),
        [
            row("confirm destroy caddy", false, false),
            row("confirm 101", false, true),
            row("confirm wipe lxc:caddy", false, true),
            row("confirm lxc:gitea", false, true),
            row("yes, caddy", false, false),
            row("yes, restart caddy", false, false),
        ]
    );
    // The target's details need the target; the flags are documented.
    assert_eq!(nomos_stdin(&["assent", "--name", "caddy"], b"").status.code(), Some(2));
    let help = String::from_utf8(nomos_stdin(&["assent", "--help"], b"").stdout).unwrap();
    for flag in ["--target <SLUG>", "--name <NAME>", "--id <N>", "--command <CMD>", "confirm [VERB] TARGET"] {
        assert!(help.contains(flag), "{flag} in {help}");
    }
}

#[test]
fn assent_judges_a_proposal_of_several_steps_and_says_what_a_reply_covers() {
    let args = [
        "assent",
        "--target",
        "lxc:caddy",
        "--name",
        "caddy",
        "--id",
        "101",
        "--command",
        "systemctl restart caddy",
        "--target",
        "vm:app",
        "--name",
        "app",
        "--id",
        "300",
        "--command",
        "qm stop 300 && qm destroy 300",
    ];
    let input =
        "yes\nyes, restart caddy\nconfirm destroy 300\nconfirm stop app\nok, restart and destroy them\ngo ahead and\n";
    let out = nomos_stdin(&args, input.as_bytes());
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let lines: Vec<Value> =
        String::from_utf8(out.stdout).unwrap().lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    let covers = |v: &Value| -> Vec<u64> {
        v["covers"].as_array().unwrap().iter().map(|c| c["step"].as_u64().unwrap()).collect()
    };
    assert_eq!((lines[0]["assent"].as_bool(), covers(&lines[0])), (Some(true), vec![1, 2]));
    assert_eq!(
        lines[0]["covers"][1],
        serde_json::json!({"step": 2, "target": "vm:app", "command": "qm stop 300 && qm destroy 300"})
    );
    // One target of two, and a lesser action of a compound command, approve nothing.
    assert_eq!((lines[1]["assent"].as_bool(), covers(&lines[1])), (Some(false), vec![]));
    assert_eq!((lines[2]["typed_confirmation"].as_bool(), covers(&lines[2])), (Some(true), vec![2]));
    assert_eq!((lines[3]["typed_confirmation"].as_bool(), covers(&lines[3])), (Some(false), vec![]));
    assert_eq!((lines[4]["assent"].as_bool(), covers(&lines[4])), (Some(true), vec![1, 2]));
    assert_eq!(lines[5]["assent"].as_bool(), Some(false));
    // Targets and commands that do not pair are a usage error.
    let unpaired =
        ["assent", "--target", "a:b", "--target", "c:d", "--command", "x", "--command", "y", "--command", "z"];
    assert_eq!(nomos_stdin(&unpaired, b"yes\n").status.code(), Some(2));
    let unnamed = ["assent", "--target", "a:b", "--target", "c:d", "--name", "b"];
    assert_eq!(nomos_stdin(&unnamed, b"yes\n").status.code(), Some(2), "one name for two targets");
}

#[test]
fn action_help_lists_every_action_and_its_parameters_from_the_schema() {
    let out = Command::new(env!("CARGO_BIN_EXE_nomos")).args(["action", "--help"]).output().unwrap();
    assert!(out.status.success());
    let help = String::from_utf8_lossy(&out.stdout);
    for action in ["restart", "systemctl", "apt_upgrade", "pct_exec", "pct_create"] {
        assert!(help.contains(&format!("\n  {action} ")), "{action} missing:\n{help}");
    }
    for line in [
        "      unit (required)",
        "      verb (required): start|stop|restart|reload|try-restart|reload-or-restart|enable|disable|status|is-active",
        "      mode: audit|upgrade [default: audit]",
        "      hostname (required): Its hostname",
        "      cores: CPU cores. (1–512) [default: 1]",
        "      vmid: Its Proxmox id",
        "      ip: `dhcp`, or a static IPv4 address with its prefix (`10.0.0.50/24`). [default: dhcp]",
    ] {
        assert!(help.contains(line), "{line:?} missing:\n{help}");
    }
    // Bad parameters are one clear line, before anything runs.
    let dir = tempfile::tempdir().unwrap();
    let out =
        nomos(&dir.path().join("oikos.db"), &["action", "pct_create", "pve1", "-p", "hostname=a", "-p", "cores=0"]);
    let err = one_line_error(&out);
    assert!(err.contains("pct_create: `cores` must be between 1 and 512, got 0"), "{err}");
}

#[test]
fn observe_signals_metrics_and_checks_keep_their_contracts() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("oikos.db");
    ok_json(&db, &["inventory", "import", DEMO]);

    // Nothing observed yet: empty lists, the counts, a cycle with nothing to read.
    let list = ok_json(&db, &["signals", "list"]);
    assert_eq!(list["signals"], serde_json::json!([]));
    assert_eq!(list["counts"]["critical"], 0);
    let open = ok_json(&db, &["signals", "list", "--state", "open", "--severity", "critical", "--entity", "lxc:caddy"]);
    assert_eq!(open["signals"], serde_json::json!([]));
    let metrics = ok_json(&db, &["metrics", "lxc:caddy", "--range", "24h"]);
    assert_eq!(metrics, serde_json::json!([]));

    // A check: added, listed, its command the gate will judge; replaced by name; removed.
    let check = ok_json(&db, &["checks", "add", "lxc:caddy", "caddy", "--service", "caddy", "--every", "2m"]);
    assert_eq!(check["kind"], "service");
    assert_eq!(check["unit"], "caddy");
    assert_eq!(check["interval_s"], 120);
    assert_eq!(check["command"], "systemctl is-active 'caddy'");
    let http = ok_json(&db, &["checks", "add", "lxc:caddy", "web", "--http", "http://10.0.0.21/", "--expect", "204"]);
    assert_eq!(http["expect_status"], 204);
    let all = ok_json(&db, &["checks", "list", "lxc:caddy"]);
    assert_eq!(all.as_array().unwrap().len(), 2);
    // Paused and resumed: kept, with its definition.
    let web = http["id"].as_str().unwrap();
    let paused = ok_json(&db, &["checks", "disable", web]);
    assert_eq!((paused["enabled"].as_bool(), paused["expect_status"].as_i64()), (Some(false), Some(204)));
    assert_eq!(ok_json(&db, &["checks", "enable", web])["enabled"], true);
    one_line_error(&nomos(&db, &["checks", "disable", "no-such-check"]));
    let id = check["id"].as_str().unwrap();
    let removed = ok_json(&db, &["checks", "rm", id]);
    assert_eq!(removed["removed"], id);
    assert_eq!(ok_json(&db, &["checks", "list"]).as_array().unwrap().len(), 1);

    // Failures: one line, exit 1; usage errors exit 2.
    one_line_error(&nomos(&db, &["signals", "ack", "no-such-signal", "--reason", "looking"]));
    one_line_error(&nomos(&db, &["metrics", "lxc:nowhere"]));
    one_line_error(&nomos(&db, &["metrics", "lxc:caddy", "--metric", "cpu_percent"]));
    one_line_error(&nomos(&db, &["checks", "add", "lxc:caddy", "bad", "--service", "caddy; reboot"]));
    one_line_error(&nomos(&db, &["checks", "add", "vm:haos", "svc", "--service", "ssh"]));
    one_line_error(&nomos(&db, &["checks", "rm", "no-such-check"]));
    for usage in [
        &["signals", "mute", "x", "--for", "soon"][..],
        &["signals", "list", "--state", "sleeping"],
        &["metrics", "lxc:caddy", "--range", "7d"],
        &["checks", "add", "lxc:caddy", "nothing"],
        &["checks", "add", "lxc:caddy", "two", "--service", "a", "--dns", "b"],
    ] {
        assert_eq!(nomos(&db, usage).status.code(), Some(2), "{usage:?}");
    }
}
