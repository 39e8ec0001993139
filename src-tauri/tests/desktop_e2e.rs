//! End to end: the built desktop app in its real webview (WebKitGTK) on a virtual display, driven
//! over WebDriver (tauri-driver in front of WebKitWebDriver). It imports the demo inventory through
//! the UI, sees the entity list, sees a change written by another process arrive live, filters,
//! opens an entity, follows a relation to another entity's page, reloads that page, goes back to
//! the list through the navigation, and saves a screenshot.
//!
//! See `support` for what it needs.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod support;

use std::path::PathBuf;

use nomos::types::EntityQuery;
use nomos::Engine;
use support::{artifacts_dir, Desktop, STARTUP, STEP};

#[test]
fn imports_the_demo_inventory_through_the_ui_and_updates_live() {
    let app = PathBuf::from(env!("CARGO_BIN_EXE_oikos"));
    let Some(desktop) = Desktop::start(&app, &[]) else { return };
    let (d, db) = (&desktop.d, desktop.db.clone());

    // The task board is the home page; the entities are one click away.
    let nav = d.wait_until("[data-testid=nav-entities]", STARTUP, |t| t[0] == "Entities");
    d.click(&nav[0].0);
    // An empty database offers the demo import.
    let button = d.wait_until("[data-testid=import-demo]", STARTUP, |t| t[0].contains("Import demo inventory"));
    d.click(&button[0].0);

    // The list appears because the engine announced the import; it shows every entity.
    let count = d.wait_until("[data-testid=entity-count]", STEP, |t| {
        t[0].ends_with(" entities") && t[0].split(' ').next().is_some_and(|n| n.parse::<u64>().is_ok())
    });
    let shown: u64 = count[0].1.split(' ').next().unwrap().parse().unwrap();
    let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    let engine = rt.block_on(Engine::open(&db)).unwrap();
    let total = rt.block_on(engine.list_entities(&EntityQuery::default())).unwrap().total;
    assert!(total >= 30, "the demo inventory has {total} entities");
    assert_eq!(shown, total, "the window counts what the database holds");
    let rows = d.wait_until("[data-testid=entity-row]", STEP, |t| t.len() as u64 == total);
    assert_eq!(rows.len() as u64, total);

    // A change written by another process (this test, through the engine library) shows up live.
    let report =
        rt.block_on(engine.import_inventory("hosts:\n  - { name: edge, address: 192.168.178.13 }\n", "e2e")).unwrap();
    assert_eq!(report.entities.created, 1);
    d.wait_until("[data-testid=entity-row]", STEP, |t| t.iter().any(|r| r.contains("host:edge")));
    d.wait_until("[data-testid=entity-count]", STEP, |t| t[0] == format!("{} entities", total + 1));

    // The filter ignores case and matches slug or name.
    let expected: Vec<String> = rt
        .block_on(engine.list_entities(&EntityQuery { text: Some("CADDY".into()), ..Default::default() }))
        .unwrap()
        .items
        .into_iter()
        .map(|i| i.entity.slug)
        .collect();
    assert!(expected.len() >= 2, "{expected:?}");
    let filter = d.wait_until("[data-testid=entity-filter]", STEP, |_| true);
    d.type_into(&filter[0].0, "CADDY");
    let rows = d.wait_until("[data-testid=entity-row]", STEP, |t| {
        t.len() == expected.len() && t.iter().all(|r| r.to_lowercase().contains("caddy"))
    });

    // Opening an entity shows its relations and blast radius.
    let lxc = rows.iter().find(|(_, t)| t.contains("lxc:caddy")).expect("lxc:caddy row");
    d.click(&lxc.0);
    d.wait_until("[data-testid=detail-title]", STEP, |t| t[0] == "lxc:caddy");
    d.wait_until("[data-testid=relations]", STEP, |t| t[0].contains("host:strong"));
    let blast = d.wait_until("[data-testid=blast-radius]", STEP, |t| t[0].contains("Affects"));
    assert!(blast[0].1.contains("service:caddy"), "{}", blast[0].1);

    assert_eq!(d.path(), "/entities/lxc:caddy", "an entity is a page of its own");

    let shot = artifacts_dir().join("oikos-entities.png");
    d.screenshot(&shot);
    eprintln!("screenshot: {}", shot.display());

    // A relation is a link to the related entity's page.
    let strong = d.wait_until("[data-testid=relations] a", STEP, |t| t.iter().any(|r| r == "host:strong"));
    let strong = strong.iter().find(|(_, t)| t == "host:strong").unwrap();
    d.click(&strong.0);
    d.wait_until("[data-testid=detail-title]", STEP, |t| t[0] == "host:strong");
    assert_eq!(d.path(), "/entities/host:strong");

    // Reloading a page below the root serves the app again, on the same page.
    d.execute("location.reload()");
    d.wait_until("[data-testid=detail-title]", STARTUP, |t| t[0] == "host:strong");
    d.wait_until("[data-testid=entity-count]", STEP, |t| t[0] == format!("{} entities", total + 1));

    // The navigation leads back to the list, with no entity open.
    let nav = d.wait_until("[data-testid=nav-entities]", STEP, |t| t[0] == "Entities");
    d.click(&nav[0].0);
    d.wait_until("[data-testid=no-selection]", STEP, |_| true);
    assert_eq!(d.path(), "/entities");
    assert!(d.find_all("[data-testid=detail-title]").is_empty(), "no entity is open after going back to the list");
    let rows = d.wait_until("[data-testid=entity-row]", STEP, |t| t.len() as u64 == total + 1);
    assert_eq!(rows.len() as u64, total + 1);
    rt.block_on(engine.store().close());
}
