//! End to end, the graph, knowledge and settings pages in the real webview: the lab's inventory
//! imported with one click (lab hosts started by the test where the app looks for them) and a
//! host's key trusted; the provider saved (a bad form refused first) and an API key saved to a
//! real gnome-keyring in the app's private D-Bus session — the key then in no file under the
//! app's HOME and not in the database; the graph showing the lab's hosts and guests, filtered by
//! type, a node's detail on click; a note written and found by search. Screenshots of each page.
//!
//! See `support` for what it needs; gnome-keyring-daemon besides.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod support;

use std::collections::BTreeSet;

use nomos::types::EntityQuery;
use nomos::Engine;
use nomos_lab::{Lab, LabConfig};
use serde_json::Value;
use support::keychain::{self, files_containing, Keychain};
use support::{artifacts_dir, on_path, Desktop, STARTUP, STEP};

const KEY: &str = "sk-oikos-e2e-7d3b9c1f55";

/// The `data-slug` of every node drawn.
fn drawn_slugs(d: &support::Driver) -> BTreeSet<String> {
    let v = d.execute(
        "return Array.from(document.querySelectorAll('[data-testid=graph-node]')).map(e => e.getAttribute('data-slug'))",
    );
    v.as_array().unwrap().iter().filter_map(Value::as_str).map(String::from).collect()
}

#[test]
fn graph_knowledge_and_settings_against_the_lab() {
    assert!(on_path("gnome-keyring-daemon"), "gnome-keyring-daemon is needed: run `make test`, which installs it");
    let wrapper_dir = tempfile::tempdir().unwrap();
    let app = keychain::app_behind(wrapper_dir.path(), Keychain::GnomeKeyring);
    let Some(desktop) = Desktop::start(&app, &[]) else { return };
    let (d, db, home) = (&desktop.d, desktop.db.clone(), desktop.home.path().to_path_buf());
    let shots = artifacts_dir();

    // The app is up (on its home page, the task board); the lab starts where the app looks for it.
    d.wait_until("[data-testid=nav-tasks]", STARTUP, |_| true);
    let lab_dir = home.join("data").join("oikos").join("lab");
    let lab = Lab::start(LabConfig { hosts: 2, ..LabConfig::new(&lab_dir) }).unwrap();

    // Settings: the lab's inventory one click away.
    let nav = d.wait_until("[data-testid=nav-settings]", STEP, |_| true);
    d.click(&nav[0].0);
    let import = d.wait_until("[data-testid=import-lab]", STEP, |t| t[0].contains("Import the lab"));
    d.click(&import[0].0);
    d.wait_until("[data-testid=import-outcome]", STEP, |t| t[0].starts_with("Imported:"));

    let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    let engine = rt.block_on(Engine::open(&db)).unwrap();
    let all = rt.block_on(engine.list_entities(&EntityQuery { limit: Some(1000), ..Default::default() })).unwrap();
    let slugs: BTreeSet<String> = all.items.iter().map(|i| i.entity.slug.clone()).collect();
    let hosts: Vec<&String> = slugs.iter().filter(|s| s.starts_with("host:")).collect();
    let guests: Vec<&String> = slugs.iter().filter(|s| s.starts_with("lxc:") || s.starts_with("vm:")).collect();
    assert_eq!(hosts.len(), lab.hosts().len(), "{slugs:?}");
    assert!(!guests.is_empty(), "the lab seeds guests: {slugs:?}");

    // Hosts with their keys: a key never seen is shown first; trusting the first host pins
    // exactly the fingerprint shown.
    let rows = d.wait_until("[data-testid=host-row]", STEP, |t| t.len() == hosts.len());
    assert!(rows[0].1.contains(hosts[0].as_str()), "{rows:?}");
    assert!(
        d.find_all("[data-testid=host-row] [data-testid=trust-host]").is_empty(),
        "no trust before the key is shown"
    );
    let show = d.wait_until("[data-testid=host-row] [data-testid=show-key]", STEP, |_| true);
    d.click(&show[0].0);
    let shown =
        d.wait_until("[data-testid=host-row] [data-testid=key-to-compare] [data-testid=fingerprint]", STEP, |_| true);
    let trust = d.wait_until("[data-testid=host-row] [data-testid=trust-host]", STEP, |_| true);
    d.click(&trust[0].0);
    d.wait_until("[data-testid=trust-outcome]", STEP, |t| {
        t[0].starts_with("Trusted SHA256:") && t[0].ends_with(hosts[0].as_str())
    });
    let trusted: Vec<(String, String)> = rt
        .block_on(
            sqlx::query_as("SELECT host_slug, fingerprint FROM host_keys WHERE trusted = 1")
                .fetch_all(engine.store().pool()),
        )
        .unwrap();
    assert_eq!(trusted.len(), 1, "{trusted:?}");
    assert_eq!(&trusted[0].0, hosts[0]);
    assert_eq!(trusted[0].1, shown[0].1, "what is trusted is what was shown");
    d.wait_until("[data-testid=host-key-state]", STEP, |t| t.iter().any(|s| s.starts_with("trusted")));
    d.wait_until("[data-testid=fingerprint]", STEP, |t| t.iter().any(|f| *f == trusted[0].1));

    // Provider: a bad form is refused field by field; a good one is saved and used.
    let url = d.wait_until("[data-testid=provider-url]", STEP, |_| true);
    d.type_into(&url[0].0, "api.example.com/v1");
    let save = d.wait_until("[data-testid=provider-save]", STEP, |_| true);
    d.click(&save[0].0);
    let errors = d.wait_until(".field-error", STEP, |t| t.len() == 2);
    assert!(errors[0].1.contains("http://") && errors[1].1.contains("Name the model"), "{errors:?}");
    d.execute("const u = document.querySelector('[data-testid=provider-url]'); u.value = ''; u.dispatchEvent(new Event('input'))");
    d.type_into(&url[0].0, "https://api.example.com/v1");
    let model = d.wait_until("[data-testid=provider-model]", STEP, |_| true);
    d.type_into(&model[0].0, "gpt-4o-mini");
    d.click(&save[0].0);
    d.wait_until("[data-testid=provider-saved]", STEP, |t| t[0].starts_with("Saved."));
    d.wait_until("[data-testid=provider-in-use]", STEP, |t| {
        t[0].contains("gpt-4o-mini") && t[0].contains("https://api.example.com/v1")
    });
    let stored = rt.block_on(engine.provider_settings()).unwrap().unwrap();
    assert_eq!((stored.base_url.as_str(), stored.model.as_str()), ("https://api.example.com/v1", "gpt-4o-mini"));

    // The API key goes to the keychain, and the field is emptied.
    let key = d.wait_until("[data-testid=api-key]", STEP, |_| true);
    d.type_into(&key[0].0, KEY);
    let save_key = d.wait_until("[data-testid=api-key-save]", STEP, |_| true);
    d.click(&save_key[0].0);
    d.wait_until("[data-testid=api-key-outcome]", STEP, |t| t[0] == "Stored in the OS keychain.");
    d.wait_until("[data-testid=key-status]", STEP, |t| t[0].contains("stored in the OS keychain"));
    assert_eq!(d.execute("return document.querySelector('[data-testid=api-key]').value"), Value::from(""));
    d.screenshot(&shots.join("oikos-settings.png"));

    // Graph: the lab's hosts and guests, by slug.
    let nav = d.wait_until("[data-testid=nav-graph]", STEP, |_| true);
    d.click(&nav[0].0);
    d.wait_until("[data-testid=graph-count]", STEP, |t| t[0] == format!("{} entities", slugs.len()));
    let drawn = drawn_slugs(d);
    assert_eq!(drawn, slugs, "every entity is drawn, by its slug");
    d.screenshot(&shots.join("oikos-graph.png"));

    // Filtering a type out removes its nodes and only those.
    let guest_type = guests[0].split(':').next().unwrap().to_string();
    let lxc = d.wait_until(&format!("[data-testid=graph-type-{guest_type}]"), STEP, |_| true);
    d.click(&lxc[0].0);
    let without: BTreeSet<String> =
        slugs.iter().filter(|s| !s.starts_with(&format!("{guest_type}:"))).cloned().collect();
    d.wait_until("[data-testid=graph-count]", STEP, |t| {
        t[0] == format!("{} of {} entities", without.len(), slugs.len())
    });
    assert_eq!(drawn_slugs(d), without);
    d.click(&lxc[0].0);
    d.wait_until("[data-testid=graph-count]", STEP, |t| t[0] == format!("{} entities", slugs.len()));

    // A click on a node opens its detail beside the graph.
    let host = hosts[0].clone();
    // The node's box: WebKit's driver does not click an SVG group itself.
    let node = d.wait_until(&format!("[data-testid=graph-node][data-slug='{host}'] rect"), STEP, |_| true);
    d.click(&node[0].0);
    d.wait_until("[data-testid=graph-detail] [data-testid=detail-title]", STEP, |t| t[0] == host);
    d.wait_until("[data-testid=graph-detail] [data-testid=relations]", STEP, |t| {
        guests.iter().any(|g| t[0].contains(g.as_str()))
    });
    d.wait_until("[data-testid=graph-detail] [data-testid=blast-radius]", STEP, |_| true);
    d.screenshot(&shots.join("oikos-graph-detail.png"));

    // Knowledge: a new note about the host, then found by a word in it.
    let nav = d.wait_until("[data-testid=nav-knowledge]", STEP, |_| true);
    d.click(&nav[0].0);
    let new = d.wait_until("[data-testid=new-note]", STEP, |_| true);
    d.click(&new[0].0);
    let title = d.wait_until("[data-testid=note-title-input]", STEP, |_| true);
    d.type_into(&title[0].0, "Backups on the lab");
    let content = d.wait_until("[data-testid=note-content]", STEP, |_| true);
    d.type_into(&content[0].0, "The nightly job writes to zanzibar storage.\nCheck it weekly.");
    let about = d.wait_until("[data-testid=note-about-input]", STEP, |_| true);
    d.type_into(&about[0].0, &host);
    let save = d.wait_until("[data-testid=save-note]", STEP, |_| true);
    d.click(&save[0].0);
    d.wait_until("[data-testid=note-title]", STEP, |t| t[0] == "Backups on the lab");
    d.wait_until("[data-testid=note-about] a", STEP, |t| t[0] == host);
    d.wait_until("[data-testid=note-body]", STEP, |t| t[0].contains("zanzibar storage"));

    let search = d.wait_until("[data-testid=knowledge-search]", STEP, |_| true);
    d.type_into(&search[0].0, "zanzibar");
    d.wait_until("[data-testid=knowledge-row]", STEP, |t| t.len() == 1 && t[0].contains("Backups on the lab"));
    d.wait_until("[data-testid=snippet] mark", STEP, |t| t.iter().all(|m| m.eq_ignore_ascii_case("zanzibar")));
    d.screenshot(&shots.join("oikos-knowledge.png"));
    eprintln!("screenshots: {}", shots.display());

    // The Secret Service holds it (read back with secret-tool on the app's session bus); it is in no
    // file under the app's HOME (the database and the app's debug log among them), not in the
    // settings table and not in the page.
    assert_eq!(keychain::stored_api_key(&home).as_deref(), Some(KEY));
    assert!(!d.execute("return document.documentElement.outerHTML").as_str().unwrap().contains(KEY));
    assert!(std::fs::metadata(home.join("oikos.log")).unwrap().len() > 0, "the app logged nothing");
    rt.block_on(engine.store().close());
    assert!(
        std::fs::read_dir(home.join("data").join("keyrings")).is_ok(),
        "gnome-keyring kept its database in the HOME"
    );
    assert_eq!(files_containing(&home, KEY.as_bytes()), Vec::<String>::new());
    let engine = rt.block_on(Engine::open(&db)).unwrap();
    let settings: Vec<String> = rt
        .block_on(sqlx::query_scalar::<_, String>("SELECT value FROM settings").fetch_all(engine.store().pool()))
        .unwrap();
    assert!(settings.iter().all(|v| !v.contains(KEY)), "{settings:?}");
    rt.block_on(engine.store().close());
    drop(lab);
}
