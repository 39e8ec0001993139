//! End to end, the first run and discovery in the real webview, against the lab: a fresh database
//! shows the walkthrough; Settings → *Add host* with the lab's address, port, user and key shows
//! the fingerprint the host presents (the lab host's own key), trusted with one click; the
//! connection test is green; *Discover* reviews the cluster and its guests as new, *Apply* writes
//! them and the graph draws them; then a guest destroyed and another migrated behind Oikos's back
//! show as gone and moved at the next discovery. Screenshots of the walkthrough, the review and
//! the graph.
//!
//! See `support` for what it needs.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod support;

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;

use nomos::types::EntityState;
use nomos::Engine;
use nomos_lab::{current_user, destroy_guest, migrate_guest, Lab, LabConfig};
use serde_json::{json, Value};
use support::{artifacts_dir, Desktop, STARTUP, STEP};

/// The discovery of a cluster reads a few hosts over SSH: more than a click's time.
const DISCOVERY: std::time::Duration = std::time::Duration::from_secs(60);

/// The `attr` of every element `css` finds, in document order.
fn attrs(d: &support::Driver, css: &str, attr: &str) -> Vec<String> {
    let script = format!(
        "return Array.from(document.querySelectorAll({})).map(e => e.getAttribute({}) || '')",
        json!(css),
        json!(attr)
    );
    d.execute(&script).as_array().unwrap().iter().filter_map(Value::as_str).map(String::from).collect()
}

/// Brings the element `css` finds into view (for a screenshot).
fn scroll_to(d: &support::Driver, css: &str) {
    d.execute(&format!("document.querySelector({}).scrollIntoView({{block: 'start'}}); return null", json!(css)));
}

/// The fingerprint `ssh-keygen -lf` prints for a public key file: what the operator compares.
fn fingerprint_of(public_key: &Path) -> String {
    let out = Command::new("ssh-keygen").arg("-lf").arg(public_key).output().unwrap();
    assert!(out.status.success(), "ssh-keygen -lf: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout).unwrap().split_whitespace().nth(1).unwrap().to_string()
}

/// The slugs of the review's items of `kind` in the row of `host`.
fn reviewed(d: &support::Driver, host: &str, kind: &str) -> BTreeSet<String> {
    let css = format!("[data-host='{host}'] [data-testid=review-item][data-kind={kind}]");
    attrs(d, &css, "data-slug").into_iter().collect()
}

/// The review item's slug for a guest's vmid.
fn slug_of_vmid(d: &support::Driver, host: &str, vmid: u32) -> String {
    let css = format!("[data-host='{host}'] [data-testid=review-item][data-vmid='{vmid}']");
    attrs(d, &css, "data-slug").into_iter().next().unwrap_or_else(|| panic!("no guest {vmid} in the review"))
}

fn click(d: &support::Driver, css: &str) {
    let found = d.wait_until(css, STEP, |_| true);
    d.click(&found[0].0);
}

#[test]
fn first_run_then_a_host_added_trusted_tested_discovered_and_followed() {
    let app = PathBuf::from(env!("CARGO_BIN_EXE_oikos"));
    let tmp = tempfile::tempdir().unwrap();
    let lab = Lab::start(LabConfig { hosts: 2, ..LabConfig::new(tmp.path().join("lab")) }).unwrap();
    let Some(desktop) = Desktop::start(&app, &[]) else { return };
    let (d, db) = (&desktop.d, desktop.db.clone());
    let shots = artifacts_dir();

    // A fresh database: no tasks, no provider, nothing in the graph. The board is a walkthrough.
    d.wait_until("[data-testid=first-run]", STARTUP, |_| true);
    let steps = d.wait_until("[data-testid=first-run-step]", STEP, |t| t.len() == 3);
    assert_eq!(steps.len(), 3);
    assert_eq!(attrs(d, "[data-testid=first-run-step]", "data-step"), ["provider", "homelab", "goal"]);
    assert_eq!(attrs(d, "[data-testid=first-run-step]", "data-state"), ["current", "todo", "todo"]);
    d.wait_until("[data-testid=first-run-url]", STEP, |_| true);
    assert!(d.find_all("[data-testid=no-tasks]").is_empty(), "the walkthrough stands in for the bare board");
    d.screenshot(&shots.join("oikos-first-run.png"));
    // "Later" puts a step off; the next one opens.
    click(d, "[data-testid=first-run-step][data-step=provider] [data-testid=skip-step]");
    d.wait_until("[data-testid=first-run-step][data-step=provider] [data-testid=step-state]", STEP, |t| {
        t[0] == "later"
    });
    assert_eq!(attrs(d, "[data-testid=first-run-step]", "data-state"), ["skipped", "current", "todo"]);

    // Settings → Add host, with what the lab says: 127.0.0.1, its port, this user, its client key.
    let pve1 = lab.host("pve1").unwrap().clone();
    click(d, "[data-testid=nav-settings]");
    click(d, "[data-testid=add-host]");
    let fill = |css: &str, text: &str| {
        let field = d.wait_until(css, STEP, |_| true);
        d.execute(&format!(
            "const e = document.querySelector({}); e.value = ''; e.dispatchEvent(new Event('input')); return null",
            json!(css)
        ));
        d.type_into(&field[0].0, text);
    };
    // An address missing: one line, the form stays filled.
    fill("[data-testid=host-name]", "pve1");
    click(d, "[data-testid=add-host-submit]");
    d.wait_until("[data-testid=add-host-error]", STEP, |t| t[0].contains("address"));
    assert_eq!(d.execute("return document.querySelector('[data-testid=host-name]').value"), json!("pve1"));
    fill("[data-testid=host-address]", "127.0.0.1");
    fill("[data-testid=host-port]", &pve1.port.to_string());
    fill("[data-testid=host-user]", &current_user());
    fill("[data-testid=host-key]", &lab.client_key().display().to_string());
    click(d, "[data-testid=add-host-submit]");

    // The fingerprint shown is the lab host's own key, with where to compare it; nothing trusted yet.
    let expected = fingerprint_of(&lab.dir().join("hosts").join("pve1").join("ssh_host_ed25519_key.pub"));
    let shown = d.wait_until("[data-testid=added-host] [data-testid=fingerprint]", STEP, |_| true);
    assert_eq!(shown[0].1, expected);
    let added = d.wait_until("[data-testid=added-host]", STEP, |_| true);
    assert!(added[0].1.contains("ssh-keygen -lf /etc/ssh/ssh_host_ed25519_key.pub"), "{added:?}");
    scroll_to(d, "[data-testid=hosts-section]");
    d.screenshot(&shots.join("oikos-add-host.png"));
    let row = "[data-testid=host-row][data-host='host:pve1']";
    d.wait_until(&format!("{row} [data-testid=host-key-state]"), STEP, |t| t[0].starts_with("not trusted"));
    click(d, "[data-testid=added-host] [data-testid=trust-host]");
    d.wait_until("[data-testid=added-host] [data-testid=trust-outcome]", STEP, |t| {
        t[0] == format!("Trusted {expected} for host:pve1")
    });
    d.wait_until(&format!("{row} [data-testid=host-key-state]"), STEP, |t| t[0].starts_with("trusted"));
    d.wait_until(&format!("{row} [data-testid=fingerprint]"), STEP, |t| t[0] == expected);

    // The connection test: every check green, in order.
    click(d, &format!("{row} [data-testid=test-host]"));
    d.wait_until(&format!("{row} [data-testid=host-check]"), DISCOVERY, |t| t.len() == 6);
    let checks = format!("{row} [data-testid=host-check]");
    assert_eq!(attrs(d, &checks, "data-check"), ["host_key", "ssh", "pvesh", "version", "cluster", "guests"]);
    assert_eq!(attrs(d, &checks, "data-ok"), ["true"; 6], "{:?}", d.find_all(&checks));
    d.wait_until(&format!("{row} [data-testid=host-test-summary]"), STEP, |t| t[0] == "Ready for discovery.");
    scroll_to(d, row);
    d.screenshot(&shots.join("oikos-hosts.png"));

    // Discover: the review names the cluster and lists it and the lab's guests as new.
    click(d, &format!("{row} [data-testid=discover-host]"));
    let review = format!("{row} [data-testid=discovery-review]");
    d.wait_until(&review, DISCOVERY, |_| true);
    assert_eq!(attrs(d, &review, "data-cluster"), ["oikos-lab"]);
    let new = reviewed(d, "host:pve1", "new");
    assert!(new.contains("cluster:oikos-lab"), "{new:?}");
    let guests: BTreeSet<String> =
        [101, 102, 201, 210].into_iter().map(|vmid| slug_of_vmid(d, "host:pve1", vmid)).collect();
    assert!(guests.is_subset(&new), "the lab's guests are new: {guests:?} in {new:?}");
    d.wait_until(&format!("{review} [data-testid=review-counts]"), STEP, |t| t[0].contains("new"));
    scroll_to(d, &review);
    d.screenshot(&shots.join("oikos-discovery-review.png"));

    // Apply, then the graph draws the cluster and the guests.
    click(d, &format!("{row} [data-testid=apply-discovery]"));
    d.wait_until(&format!("{row} [data-testid=discovery-applied]"), DISCOVERY, |t| t[0].starts_with("Applied:"));
    // Re-discovering by itself is switched off here so that the next cycle is the test's own.
    d.execute(
        "const s = document.querySelector('[data-testid=discovery-interval]'); s.value = '0'; \
         s.dispatchEvent(new Event('change')); return null",
    );
    d.wait_until("[data-testid=interval-outcome]", STEP, |t| t[0].contains("only when you ask"));
    click(d, &format!("{row} [data-testid=to-graph]"));
    d.wait_until("[data-testid=graph-count]", STEP, |_| true);
    let drawn = || -> BTreeSet<String> { attrs(d, "[data-testid=graph-node]", "data-slug").into_iter().collect() };
    let deadline = std::time::Instant::now() + STEP;
    while !(drawn().contains("cluster:oikos-lab") && guests.is_subset(&drawn())) {
        assert!(std::time::Instant::now() < deadline, "the graph lacks the discovery: {:?}", drawn());
        std::thread::sleep(std::time::Duration::from_millis(200));
    }
    d.screenshot(&shots.join("oikos-discovery-graph.png"));

    // Behind Oikos's back: guest 201 destroyed, 101 migrated to pve2.
    destroy_guest(lab.dir(), 201).unwrap();
    migrate_guest(lab.dir(), 101, "pve2").unwrap();
    let (dns, caddy) = (slug_of_known(&db, 201), slug_of_known(&db, 101));
    click(d, "[data-testid=nav-settings]");
    click(d, &format!("{row} [data-testid=discover-host]"));
    d.wait_until(&review, DISCOVERY, |_| true);
    assert_eq!(reviewed(d, "host:pve1", "gone"), BTreeSet::from([dns.clone()]));
    assert_eq!(reviewed(d, "host:pve1", "moved"), BTreeSet::from([caddy.clone()]));
    let moved = d.wait_until(&format!("{review} [data-testid=review-item][data-kind=moved]"), STEP, |_| true);
    assert!(moved[0].1.contains("pve1 → pve2"), "{moved:?}");
    click(d, &format!("{row} [data-testid=apply-discovery]"));
    d.wait_until(&format!("{row} [data-testid=discovery-applied]"), DISCOVERY, |t| {
        t[0].starts_with("Applied:") && t[0].contains("1 moved") && t[0].contains("1 gone")
    });

    // A host that does not answer: why, in a line; then removed, after a confirmation.
    click(d, "[data-testid=add-host]");
    fill("[data-testid=host-name]", "nas");
    fill("[data-testid=host-address]", "127.0.0.1");
    fill("[data-testid=host-port]", &support::free_port().to_string());
    click(d, "[data-testid=add-host-submit]");
    d.wait_until("[data-testid=added-host][data-host='host:nas'] [data-testid=added-unreachable]", STEP, |t| {
        t[0].starts_with("Its key could not be read:")
    });
    assert!(d.find_all("[data-testid=added-host] [data-testid=trust-host]").is_empty(), "nothing to trust");
    let nas = "[data-testid=host-row][data-host='host:nas']";
    d.wait_until(&format!("{nas} [data-testid=show-key]"), STEP, |_| true);
    assert!(d.find_all(&format!("{nas} [data-testid=trust-host]")).is_empty(), "no trust before a key is shown");
    click(d, &format!("{nas} [data-testid=remove-host]"));
    click(d, &format!("{nas} [data-testid=confirm-remove]"));
    d.wait_until("[data-testid=hosts-outcome]", STEP, |t| t[0] == "Removed host:nas: deleted.");
    support::gone(d, nas, STEP);

    let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    let engine = rt.block_on(Engine::open(&db)).unwrap();
    assert_eq!(rt.block_on(engine.entity(&dns)).unwrap().state, EntityState::Gone);
    assert_eq!(rt.block_on(engine.entity(&caddy)).unwrap().attributes["host"], "host:pve2");
    rt.block_on(engine.store().close());
    eprintln!("screenshots: {}", shots.display());
    drop(desktop);
    drop(lab);
}

/// The slug the graph gives the guest with this Proxmox id.
fn slug_of_known(db: &Path, vmid: u32) -> String {
    let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    let engine = rt.block_on(Engine::open(db)).unwrap();
    let slug: String = rt
        .block_on(
            sqlx::query_scalar("SELECT slug FROM entities WHERE json_extract(attributes, '$.pve_id') = ?1")
                .bind(i64::from(vmid))
                .fetch_one(engine.store().pool()),
        )
        .unwrap();
    rt.block_on(engine.store().close());
    slug
}
