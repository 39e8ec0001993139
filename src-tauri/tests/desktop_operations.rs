//! End to end, approvals and operations: requests queued by another process (this test, through
//! the engine library, on the app's database) against a lab host (a real sshd on loopback) show as
//! cards in the app; a destructive one refuses a wrong typed confirmation and takes the right one;
//! one approved with the `nomos` command line on the app's database clears its card; a long command approved in the app streams its
//! output into Operations, and Cancel stops it on the host. Screenshots of both pages.
//!
//! See `support` for what it needs.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod support;

use std::path::PathBuf;
use std::time::{Duration, Instant};

use nomos::types::{ExecutionStatus, Risk};
use nomos::{PolicySource, Runtime, RuntimeConfig};
use nomos_lab::{Lab, LabConfig};
use support::{artifacts_dir, gone, is_disabled, operator_elsewhere, pgrep, queue, Desktop, STARTUP, STEP};

fn card(id: &str) -> String {
    format!("[data-approval-id='{id}']")
}

#[test]
fn approvals_and_operations_in_the_window() {
    let app = PathBuf::from(env!("CARGO_BIN_EXE_oikos"));
    let Some(desktop) = Desktop::start(&app, &[]) else { return };
    let (d, db) = (&desktop.d, desktop.db.clone());
    d.wait_until("[data-testid=store-info]", STARTUP, |t| !t[0].is_empty());

    // The lab host, its inventory and its trusted key, written by another process on the app's
    // database.
    let mut lab_config = LabConfig::new(desktop.home.path().join("lab"));
    lab_config.hosts = 1;
    let lab = Lab::start(lab_config).unwrap();
    let rt = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().unwrap();
    let config = RuntimeConfig { policy: PolicySource::Builtin, ..RuntimeConfig::new(&db) };
    let nomos = rt.block_on(Runtime::open(config)).unwrap();
    rt.block_on(nomos.engine().import_inventory_file(&lab.inventory_path())).unwrap();
    for h in lab.hosts() {
        rt.block_on(nomos.actuator().present_key(&format!("host:{}", h.name))).unwrap();
        rt.block_on(nomos.actuator().trust_host(&format!("host:{}", h.name), None, &operator_elsewhere(None))).unwrap();
    }

    // A queued change shows as a card, with its exact command, and the navigation counts it.
    let marker = format!("e2e-{}", std::process::id());
    let mark = desktop.home.path().join("config-mark");
    let change = format!("touch '{}'", mark.display());
    let (config_approval, _) = queue(&rt, &nomos, "host:pve1", &change, Some(Risk::ConfigMutation));
    let nav = d.wait_until("[data-testid=nav-approvals]", STEP, |_| true);
    d.click(&nav[0].0);
    let shown = d.wait_until(&format!("{} [data-testid=approval-command]", card(&config_approval)), STEP, |_| true);
    assert_eq!(shown[0].1, change);
    d.wait_until("[data-testid=pending-count]", STEP, |t| t[0] == "1");

    // A destructive one needs the typed confirmation: a wrong one leaves Approve disabled.
    let victim = desktop.home.path().join("victim");
    std::fs::create_dir_all(&victim).unwrap();
    let destroy = format!("rm -rf '{}'", victim.display());
    let (destroy_approval, destroy_x) = queue(&rt, &nomos, "host:pve1", &destroy, None);
    let phrase = rt.block_on(nomos.actuator().approval(&destroy_approval)).unwrap().confirmation.unwrap();
    let approve = format!("{} [data-testid=approval-approve]", card(&destroy_approval));
    let field = d.wait_until(&format!("{} [data-testid=approval-confirm]", card(&destroy_approval)), STEP, |_| true);
    d.wait_until("[data-testid=pending-count]", STEP, |t| t[0] == "2");
    let shot = artifacts_dir().join("oikos-approvals.png");
    d.screenshot(&shot);
    eprintln!("screenshot: {}", shot.display());
    assert!(is_disabled(d, &approve), "Approve is disabled before anything is typed");
    let wrong = "confirm host:pve2";
    d.type_into(&field[0].0, wrong);
    std::thread::sleep(Duration::from_millis(800));
    assert!(is_disabled(d, &approve), "a wrong confirmation does not enable Approve");
    d.type_into(&field[0].0, &"\u{E003}".repeat(wrong.len()));
    d.type_into(&field[0].0, &phrase);
    let deadline = Instant::now() + STEP;
    while is_disabled(d, &approve) {
        assert!(Instant::now() < deadline, "the right confirmation `{phrase}` did not enable Approve");
        std::thread::sleep(Duration::from_millis(150));
    }
    let button = d.wait_until(&approve, STEP, |_| true);
    d.click(&button[0].0);
    gone(d, &card(&destroy_approval), STEP);
    let x = rt.block_on(nomos.actuator().wait_final(&destroy_x)).unwrap();
    assert_eq!(x.status, ExecutionStatus::Completed, "{x:?}");
    assert!(!victim.exists(), "the approved destructive command ran");

    // Approved outside the app, with the command line on the app's database, the card clears
    // itself.
    let cli = app.with_file_name("nomos");
    assert!(
        cli.is_file(),
        "{} is missing: build the CLI first (`cargo build -p nomos-cli`; `make test` does)",
        cli.display()
    );
    let approved = std::process::Command::new(&cli)
        .arg("--db")
        .arg(&db)
        .args(["approvals", "approve", &config_approval, "--no-continue"])
        .env("HOME", desktop.home.path())
        // The ledger names who decided: `operator:<login>`.
        .env("USER", "e2e-cli")
        .output()
        .unwrap();
    assert!(approved.status.success(), "{}", String::from_utf8_lossy(&approved.stderr));
    assert!(mark.exists(), "the change approved from the command line ran");
    gone(d, &card(&config_approval), STEP);
    d.wait_until("[data-testid=approvals-empty]", STEP, |_| true);

    // A long command approved in the app streams its output into Operations; Cancel stops it.
    let long = format!("echo {marker}-start; for i in $(seq 1 600); do echo tick-$i; sleep 0.2; done");
    let (long_approval, long_x) = queue(&rt, &nomos, "host:pve1", &long, Some(Risk::ConfigMutation));
    let button = d.wait_until(&format!("{} [data-testid=approval-approve]", card(&long_approval)), STEP, |_| true);
    d.click(&button[0].0);
    gone(d, &card(&long_approval), STEP);
    let nav = d.wait_until("[data-testid=nav-operations]", STEP, |_| true);
    d.click(&nav[0].0);
    let running = format!("[data-execution-id='{long_x}']");
    let output = format!("{running} [data-testid=exec-output]");
    d.wait_until(&output, STEP, |t| t[0].contains("tick-3"));
    // It keeps streaming: later lines arrive without any reload.
    let seen = d.wait_until(&output, STEP, |t| t[0].contains("tick-12"));
    assert!(seen[0].1.contains(&format!("{marker}-start")), "{}", seen[0].1);
    assert!(pgrep(&format!("{marker}-start")), "the command runs on the host");
    let shot = artifacts_dir().join("oikos-operations.png");
    d.screenshot(&shot);
    eprintln!("screenshot: {}", shot.display());
    let cancel = d.wait_until(&format!("{running} [data-testid=exec-cancel]"), STEP, |_| true);
    d.click(&cancel[0].0);
    let x = rt.block_on(async {
        tokio::time::timeout(STEP, nomos.actuator().wait_final(&long_x)).await.expect("Cancel ends the execution")
    });
    let x = x.unwrap();
    assert_eq!(x.status, ExecutionStatus::Cancelled, "{x:?}");
    d.wait_until(&format!("{running} [data-testid=exec-summary]"), STEP, |t| t[0].starts_with("cancelled"));
    let deadline = Instant::now() + Duration::from_secs(10);
    while pgrep(&format!("{marker}-start")) {
        assert!(Instant::now() < deadline, "the cancelled command still runs on the host");
        std::thread::sleep(Duration::from_millis(200));
    }

    // The ledger has the decisions, filterable by actor and by risk.
    let actor = d.wait_until("[data-testid=audit-filter-actor]", STEP, |_| true);
    d.type_into(&actor[0].0, "operator:e2e-cli\u{E007}");
    let rows = d.wait_until("[data-testid=audit-row]", STEP, |t| t.iter().all(|r| r.contains("operator:e2e-cli")));
    assert!(rows.iter().any(|(_, r)| r.contains("approval.approved")), "{rows:?}");
    d.type_into(&actor[0].0, &format!("{}\u{E007}", "\u{E003}".repeat("operator:e2e-cli".len())));
    let risk = "return (() => { const s = document.querySelector('[data-testid=audit-filter-risk]'); \
                s.value = 'destructive'; s.dispatchEvent(new Event('change', { bubbles: true })); })()";
    d.execute(risk);
    let rows = d.wait_until("[data-testid=audit-row]", STEP, |t| t.iter().all(|r| r.contains("destructive")));
    assert!(rows.iter().any(|(_, r)| r.contains("approval.approved")), "{rows:?}");
    rt.block_on(nomos.close());
    drop(lab);
}
