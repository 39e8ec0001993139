//! The gate and the executor against the lab: real sshd processes on this machine, real SQLite
//! files. Only `pct`/`pvesh`/`pveam`/`qm` on the lab hosts are stand-ins (see `nomos_lab`).
//!
//! Each test starts its own small lab (a few hundred milliseconds) so tests stay independent;
//! dropping the lab stops its sshds even when a test fails.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::{Path, PathBuf};

use std::time::{Duration, Instant};

use nomos::actuate::{ActuateConfig, Decision, RunOutcome, SshConfig};

use nomos::types::{ApprovalStatus, Channel, EntityState, ExecutionStatus, Risk, WindowKind};

mod support;

use support::*;

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn read_only_runs_mutations_wait_and_windows_stay_with_their_task() {
    let w = World::default(2).await;
    let marks = w.marks("a");

    // Read-only: at once, output recorded.
    let x = ran(w.run("host:pve1", "uptime", None).await);
    assert_eq!(x.status, ExecutionStatus::Completed);
    assert_eq!(x.granted_by.as_deref(), Some("read_only"));
    assert!(x.stdout.contains("load average"), "{x:?}");
    assert_eq!(w.act.execution(&x.id).await.unwrap().stdout, x.stdout);

    // A config mutation waits; approval runs it.
    let task_a = w.task("A").await;
    let task_b = w.task("B").await;
    let cmd1 = format!("echo one >> {}", q(&marks));
    let (x1, a1) = queued(w.run("host:pve1", &cmd1, Some(&task_a)).await);
    assert!(w.read_marks("a").is_empty(), "nothing runs before approval");
    let pending = w.act.pending_approvals().await.unwrap();
    assert_eq!(pending.len(), 1);
    assert_eq!(pending[0].risk, Risk::ConfigMutation);
    let blast = &pending[0].blast_radius;
    assert!(blast["count"].as_u64().unwrap() >= 3, "{blast:?}");
    assert!(blast["entities"].as_array().unwrap().iter().any(|e| e == "lxc:caddy"), "{blast:?}");
    assert!(blast["summary"].as_str().unwrap().contains("lxc:caddy"), "{blast:?}");
    // Asking again is the same request, not a second approval.
    let again = w.run("host:pve1", &cmd1, Some(&task_a)).await;
    assert!(matches!(&again, RunOutcome::Queued { existing: true, execution, .. } if execution.id == x1));
    let done = w.act.approve(&a1, &operator()).await.unwrap();
    assert_eq!(done.status, ExecutionStatus::Completed);
    assert_eq!(done.granted_by.as_deref(), Some(a1.as_str()));
    assert_eq!(w.read_marks("a"), ["one"]);

    // Approving opened task A's assent window: A's next mutation runs by itself …
    let cmd2 = format!("echo two >> {}", q(&marks));
    let x2 = ran(w.run("host:pve1", &cmd2, Some(&task_a)).await);
    assert!(x2.granted_by.as_deref().unwrap().starts_with("window:"), "{:?}", x2.granted_by);
    // … on another target too (assent is per task) …
    ran(w.run("host:pve2", &format!("echo two-b >> {}", q(&marks)), Some(&task_a)).await);
    // … while task B's identical request, and one with no task at all, wait.
    queued(w.run("host:pve1", &cmd2, Some(&task_b)).await);
    queued(w.run("host:pve1", &cmd2, None).await);
    assert_eq!(w.read_marks("a"), ["one", "two", "two-b"]);

    // A destructive command never rides on an assent window …
    let victim = w.tmp.path().join("victim");
    std::fs::create_dir_all(victim.join("sub")).unwrap();
    let destroy = format!("rm -rf {}; echo destroyed >> {}", q(&victim), q(&marks));
    let (_, d1) = queued(w.run("host:pve1", &destroy, Some(&task_a)).await);
    let approval = w.act.approval(&d1).await.unwrap();
    assert!(approval.requires_confirmation);
    // The approval carries the exact words that confirm it, for every surface to show.
    assert_eq!(approval.confirmation.as_deref(), Some("confirm host:pve1"));
    // … a confirmation must name the target …
    for wrong in [None, Some("yes"), Some("confirm pve2"), Some("confirm host:pve2")] {
        let d = Decision { message: wrong.map(str::to_string), ..operator() };
        let err = w.act.approve(&d1, &d).await.unwrap_err().to_string();
        assert!(err.contains("typed confirmation naming its target"), "{wrong:?}: {err}");
    }
    assert!(victim.exists());
    let x = w.act.approve(&d1, &confirm("confirm pve1")).await.unwrap();
    assert_eq!(x.status, ExecutionStatus::Completed, "{x:?}");
    assert!(!victim.exists());
    // … and opens A's destructive window on that target only.
    std::fs::create_dir_all(&victim).unwrap();
    ran(w.run("host:pve1", &destroy, Some(&task_a)).await);
    queued(w.run("host:pve2", &destroy, Some(&task_a)).await);
    queued(w.run("host:pve1", &destroy, Some(&task_b)).await);

    // Pausing autonomy closes every window.
    w.act.set_paused(true, &operator()).await.unwrap();
    assert!(w.act.open_windows().await.unwrap().is_empty());
    queued(w.run("host:pve1", &format!("echo three >> {}", q(&marks)), Some(&task_a)).await);
    let err = w.act.open_window(&task_a, WindowKind::Assent, None, &operator()).await.unwrap_err().to_string();
    assert!(err.contains("autonomy is paused"), "{err}");
    w.act.set_paused(false, &operator()).await.unwrap();

    // Every step left an audit record and an event.
    let audits: Vec<String> =
        sqlx::query_scalar("SELECT DISTINCT action FROM audit_log").fetch_all(w.engine.store().pool()).await.unwrap();
    for needed in [
        "approval.requested",
        "approval.approved",
        "execution.started",
        "execution.finished",
        "window.opened",
        "window.revoked",
        "autonomy.paused",
    ] {
        assert!(audits.iter().any(|a| a == needed), "no `{needed}` in the audit log: {audits:?}");
    }
    let kinds: Vec<String> =
        sqlx::query_scalar("SELECT DISTINCT type FROM events").fetch_all(w.engine.store().pool()).await.unwrap();
    for needed in ["execution.created", "execution.finished", "approval.requested", "approval.decided", "window.opened"]
    {
        assert!(kinds.iter().any(|k| k == needed), "no `{needed}` event: {kinds:?}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn expired_denied_and_cancelled_requests_never_run() {
    let w = World::start(1, true, ActuateConfig::default()).await;
    let clock = w.clock.clone().unwrap();
    let task = w.task("T").await;
    let m = q(&w.marks("x"));

    let (x1, a1) = queued(w.run("host:pve1", &format!("echo late >> {m}"), Some(&task)).await);
    clock.advance_ms(61 * 60 * 1000);
    let err = w.act.approve(&a1, &operator()).await.unwrap_err().to_string();
    assert!(err.contains("expired"), "{err}");
    assert_eq!(w.act.execution(&x1).await.unwrap().status, ExecutionStatus::Expired);
    assert_eq!(w.act.approval(&a1).await.unwrap().status, ApprovalStatus::Expired);

    let (x2, a2) = queued(w.run("host:pve1", &format!("echo denied >> {m}"), Some(&task)).await);
    let denied = w.act.deny(&a2, &Decision { message: Some("not now".into()), ..operator() }).await.unwrap();
    assert_eq!(denied.status, ApprovalStatus::Denied);
    assert_eq!(denied.decided_by.as_deref(), Some("operator:test"));
    let err = w.act.approve(&a2, &operator()).await.unwrap_err().to_string();
    assert!(err.contains("already denied"), "a denied approval cannot be approved later: {err}");
    let listed = w.act.executions(None, Some(ExecutionStatus::Denied), 10).await.unwrap();
    assert_eq!(listed.len(), 1);
    assert_eq!(listed[0].id, x2);

    let (x3, _) = queued(w.run("host:pve1", &format!("echo cancelled >> {m}"), Some(&task)).await);
    w.act.cancel(&x3, &operator()).await.unwrap();
    assert_eq!(w.act.execution(&x3).await.unwrap().status, ExecutionStatus::Cancelled);

    // The sweep expires what nobody decided on.
    let (x4, _) = queued(w.run("host:pve1", &format!("echo swept >> {m}"), None).await);
    clock.advance_ms(60 * 60 * 1000);
    assert_eq!(w.act.expire_due().await.unwrap(), 1);
    assert_eq!(w.act.execution(&x4).await.unwrap().status, ExecutionStatus::Expired);
    assert!(w.act.pending_approvals().await.unwrap().is_empty());

    // Windows end on time.
    w.act.open_window(&task, WindowKind::Assent, None, &operator()).await.unwrap();
    ran(w.run("host:pve1", &format!("echo inside >> {m}"), Some(&task)).await);
    clock.advance_ms(31 * 60 * 1000);
    queued(w.run("host:pve1", &format!("echo after >> {m}"), Some(&task)).await);

    assert_eq!(w.read_marks("x"), ["inside"]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn host_keys_unknown_trusted_changed() {
    let mut w = World::default(1).await;
    // A second database has trusted nothing yet.
    let other = runtime(&w.tmp.path().join("other.db"), ActuateConfig::default(), None).await;
    other.engine().import_inventory_file(&w.lab.inventory_path()).await.unwrap();
    let fresh = other.actuator();
    // Nothing is trusted blind: a key never shown is refused, and shown.
    let blind = fresh.trust_host("pve1", None, &operator()).await.unwrap_err().to_string();
    let shown = w.lab.host_fingerprint("pve1").unwrap();
    assert!(blind.contains("never shown before") && blind.contains(&format!("--fingerprint {shown}")), "{blind}");
    sqlx::query("DELETE FROM host_keys").execute(other.engine().store().pool()).await.unwrap();
    let x = ran(fresh.run(request("host:pve1", "uptime", None)).await.unwrap());
    assert_eq!(x.status, ExecutionStatus::Failed);
    let err = x.error.unwrap();
    assert!(err.starts_with("host key for host:pve1 not trusted: SHA256:"), "{err}");
    let keys = fresh.host_keys().await.unwrap();
    assert_eq!(keys.len(), 1);
    assert!(!keys[0].trusted);
    assert!(err.ends_with(&keys[0].fingerprint));
    // Trusting that sighting works: it is the key the error showed.
    let k = fresh.trust_host("pve1", None, &operator()).await.unwrap();
    assert_eq!(k.fingerprint, keys[0].fingerprint);
    assert_eq!(ran(fresh.run(request("host:pve1", "true", None)).await.unwrap()).status, ExecutionStatus::Completed);

    // Trusted (by the world's actuator at start): works.
    assert_eq!(ran(w.run("host:pve1", "true", None).await).status, ExecutionStatus::Completed);

    // The host's key changes: refused loudly, audited, the pin untouched. (A connection made
    // before the change stays valid; the next one — here, the app started again — is refused.)
    let before = w.act.host_keys().await.unwrap()[0].fingerprint.clone();
    w.lab.regenerate_host_key("pve1").unwrap();
    w.restart().await;
    let x = ran(w.run("host:pve1", "true", None).await);
    assert_eq!(x.status, ExecutionStatus::Failed);
    let err = x.error.unwrap();
    assert!(err.contains("CHANGED"), "{err}");
    assert_eq!(w.act.host_keys().await.unwrap()[0].fingerprint, before);
    let mismatches: i64 = sqlx::query_scalar("SELECT count(*) FROM audit_log WHERE action = 'host_key.mismatch'")
        .fetch_one(w.engine.store().pool())
        .await
        .unwrap();
    assert_eq!(mismatches, 1);
    // Re-trusting needs the new fingerprint, checked on the host itself.
    let err = w.act.trust_host("host:pve1", None, &operator()).await.unwrap_err().to_string();
    assert!(err.contains("different key"), "{err}");
    let err = w.act.trust_host("host:pve1", Some(&before), &operator()).await.unwrap_err().to_string();
    assert!(err.contains("not the fingerprint given"), "{err}");
    let new_key = russh::keys::PublicKey::from_openssh(&w.lab.host_public_key("pve1").unwrap()).unwrap();
    let checked = new_key.fingerprint(russh::keys::HashAlg::Sha256).to_string();
    let k = w.act.trust_host("host:pve1", Some(&checked), &operator()).await.unwrap();
    assert_eq!(k.fingerprint, checked);
    assert_ne!(k.fingerprint, before);
    assert_eq!(ran(w.run("host:pve1", "true", None).await).status, ExecutionStatus::Completed);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn unreachable_hosts_and_unknown_targets_fail_cleanly() {
    let config = ActuateConfig {
        ssh: SshConfig { connect_timeout: Duration::from_secs(2), ..SshConfig::default() },
        ..ActuateConfig::default()
    };
    let w = World::start(1, false, config).await;
    // A port nobody listens on, and an address nothing answers (TEST-NET-2).
    // Port 1 (tcpmux): privileged and unused on any machine this runs on, so nothing else can
    // take it while the test runs.
    let closed = 1;
    w.engine
        .import_inventory(
            &format!("hosts:\n  - {{ name: gone, address: 127.0.0.1, ssh_port: {closed} }}\n  - {{ name: void, address: 198.51.100.7 }}\n"),
            "test",
        )
        .await
        .unwrap();
    // And one that accepts the connection but never says a word (a hung sshd, a black hole).
    let mute = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let mute_port = mute.local_addr().unwrap().port();
    w.engine
        .import_inventory(&format!("hosts:\n  - {{ name: mute, address: 127.0.0.1, ssh_port: {mute_port} }}\n"), "test")
        .await
        .unwrap();
    for host in ["host:gone", "host:void", "host:mute"] {
        let started = Instant::now();
        let x = ran(w.run(host, "uptime", None).await);
        let took = started.elapsed();
        assert_eq!(x.status, ExecutionStatus::Failed);
        eprintln!("{host}: failed after {took:?}: {:?}", x.error);
        if host == "host:mute" {
            assert!(x.error.as_deref().unwrap().contains("did not answer within 2 s"), "{:?}", x.error);
        }
        assert!(took < Duration::from_secs(7), "{host} took {took:?} (connect timeout 2 s)");
        // Trusting cannot work either, and says why.
        assert!(w.act.trust_host(host, None, &operator()).await.is_err());
    }
    for bad in ["host:nope", "lxc:nope", "nope"] {
        let err = w.act.run(request(bad, "uptime", None)).await.unwrap_err().to_string();
        assert!(err.contains("unknown target"), "{bad}: {err}");
    }
    // A destroyed container is not a target.
    w.engine.set_entity_state("lxc:caddy", EntityState::Destroyed).await.unwrap();
    let err = w.act.run(request("lxc:caddy", "uptime", None)).await.unwrap_err().to_string();
    assert!(err.contains("destroyed"), "{err}");
    // An unknown task is refused rather than silently treated as none.
    let err = w.act.run(request("host:pve1", "uptime", Some("no-such-task"))).await.unwrap_err().to_string();
    assert!(err.contains("unknown task"), "{err}");
    assert_eq!(w.act.executions(None, None, 100).await.unwrap().iter().filter(|x| x.target == "lxc:caddy").count(), 0);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn hung_commands_are_killed_and_output_survives_intact() {
    let w = World::default(1).await;
    // A hung command: killed at its deadline, recorded as failed, gone from the host.
    let hung = unique_sleep(3600);
    let mut req = request("host:pve1", &format!("echo started; {hung}"), None);
    req.timeout = Some(Duration::from_secs(2));
    let started = Instant::now();
    let x = ran(w.act.run(req).await.unwrap());
    assert_eq!(x.status, ExecutionStatus::Failed);
    assert!(x.error.as_deref().unwrap().contains("timed out after 2 s"), "{:?}", x.error);
    assert_eq!(x.stdout, "started\n", "output before the kill is kept");
    assert!(started.elapsed() < Duration::from_secs(10));
    assert!(no_process(&hung), "the command still runs");

    // The same inside a container, where the host's `timeout` does not reach.
    let hung = unique_sleep(3600);
    let mut req = request("lxc:caddy", &hung, None);
    req.timeout = Some(Duration::from_secs(2));
    let x = ran(w.act.run(req).await.unwrap());
    assert_eq!(x.status, ExecutionStatus::Failed);
    assert!(x.error.as_deref().unwrap().contains("timed out"), "{:?}", x.error);
    assert!(no_process(&hung), "the container's command still runs");

    // Limits out of range are refused before anything runs.
    let mut req = request("host:pve1", "true", None);
    req.timeout = Some(Duration::from_secs(u64::MAX));
    assert!(w.act.run(req).await.unwrap_err().to_string().contains("timeout must be between"));

    // Quotes, newlines, NUL and invalid UTF-8, on a host and inside a container.
    let script = r#"printf 'a"b'"'"'c\n\n\0tail\377\n'; printf 'err\0\n' >&2"#;
    let expected: &[u8] = b"a\"b'c\n\n\0tail\xff\n";
    for target in ["host:pve1", "lxc:caddy"] {
        let x = ran(w.run(target, script, None).await);
        assert_eq!(x.status, ExecutionStatus::Completed, "{target}: {x:?}");
        let (out, err) = w.act.execution_output(&x.id).await.unwrap();
        assert_eq!(out, expected, "{target}");
        assert_eq!(err, b"err\0\n", "{target}");
    }
    // Inside a container, the command runs in the container's own directory.
    let x = ran(w.run("lxc:caddy", "pwd", None).await);
    assert!(x.stdout.trim_end().ends_with("/lxc/101/rootfs"), "{:?}", x.stdout);

    // A non-zero exit is a failure that keeps its output.
    let x = ran(w.run("host:pve1", "echo out; echo err >&2; exit 3", None).await);
    assert_eq!(x.status, ExecutionStatus::Failed);
    assert_eq!(x.exit_code, Some(3));
    assert_eq!(x.error.as_deref(), Some("exit status 3"));
    assert_eq!((x.stdout.as_str(), x.stderr.as_str()), ("out\n", "err\n"));

    // Output beyond the cap is cut, drained, and says so.
    let x = ran(w.run("host:pve1", "head -c 3000000 /dev/zero | tr '\\0' x", None).await);
    assert_eq!(x.status, ExecutionStatus::Completed);
    assert!(x.output_truncated);
    assert_eq!(w.act.execution_output(&x.id).await.unwrap().0.len(), 1 << 20);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_slow_command_of_one_task_does_not_delay_another() {
    let w = World::default(1).await;
    let a = w.task("A").await;
    let b = w.task("B").await;
    let slow = {
        let act = w.act.clone();
        let a = a.clone();
        let slow = unique_sleep(20);
        tokio::spawn(async move { act.run(request("host:pve1", &slow, Some(&a))).await })
    };
    // Wait until A's command is really running on the host.
    let slow_id = first_running(&w.act, Some(&a)).await;
    tokio::time::sleep(Duration::from_millis(300)).await;
    let started = Instant::now();
    let x = ran(w.run("host:pve1", "uptime", Some(&b)).await);
    let took = started.elapsed();
    eprintln!("task B's read-only command took {took:?} while task A's sleep 20 ran on the same host");
    assert_eq!(x.status, ExecutionStatus::Completed);
    assert!(took < Duration::from_secs(10), "B waited for A: {took:?}");
    // Cancelling A kills its command on the host.
    w.act.cancel(&slow_id, &operator()).await.unwrap();
    let x = ran(slow.await.unwrap().unwrap());
    assert_eq!(x.status, ExecutionStatus::Cancelled);
    assert!(no_process(&x.command), "the cancelled command still runs");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn pct_create_creates_and_registers_resolving_collisions_and_templates() {
    let w = World::default(2).await;
    let task = w.task("new container").await;
    let create =
        |params: serde_json::Value| curated(&w.act, "host:pve1", "pct_create", params, Some(&task), "a web container");
    // VMID 201 belongs to `dns` on pve2; the template is asked for by prefix; booleans as text.
    let done = create(serde_json::json!({
            "vmid": 201, "hostname": "web", "template": "debian-12", "storage": "local", "memory": "1024",
            "unprivileged": "yes", "nesting": 0, "start": "on"
    }))
    .await
    .unwrap();
    let notes = done.notes.join("\n");
    assert!(notes.contains("VMID 201 is taken"), "{notes}");
    assert!(notes.contains("debian-12-standard"), "{notes}");
    let (x, approval) = queued(done.outcome);
    let pending = w.act.execution(&x).await.unwrap();
    assert!(pending.command.starts_with("pct create "), "{}", pending.command);
    assert!(pending.command.contains("ip=dhcp"), "DHCP is the default: {}", pending.command);
    let vmid = pending.params["vmid"].as_u64().unwrap();
    assert_ne!(vmid, 201);
    // The pre-flights ran and were recorded as read-only executions of the same task.
    let preflights = w.act.executions(Some(&task), Some(ExecutionStatus::Completed), 10).await.unwrap();
    assert!(preflights.iter().all(|p| p.risk == Risk::ReadOnly));
    assert!(preflights.iter().any(|p| p.command.starts_with("pveam list")), "{preflights:?}");

    // Approved, it returns at once and finishes in the background, linked to its task.
    let started = w.act.approve(&approval, &operator()).await.unwrap();
    assert!(matches!(started.status, ExecutionStatus::Running | ExecutionStatus::Completed));
    let linked: i64 = sqlx::query_scalar("SELECT count(*) FROM task_executions WHERE execution_id = ? AND task_id = ?")
        .bind(&x)
        .bind(&task)
        .fetch_one(w.engine.store().pool())
        .await
        .unwrap();
    assert_eq!(linked, 1);
    let x = wait_final(&w.act, &x).await;
    assert_eq!(x.status, ExecutionStatus::Completed, "{x:?}");

    // Registered: lxc:web, provisioning, hosted by pve1, with its VMID — and reachable.
    let web = w.engine.entity("lxc:web").await.unwrap();
    assert_eq!(web.state, EntityState::Provisioning);
    assert_eq!(web.attributes["pve_id"].as_u64(), Some(vmid));
    let rels = w.engine.relations("lxc:web", false).await.unwrap();
    assert!(rels.iter().any(|r| r.rel_type == "hosts" && &*r.other.slug == "host:pve1"), "{rels:?}");
    let inside = ran(w.run("lxc:web", "cat /etc/hostname 2>/dev/null || hostname; pwd", Some(&task)).await);
    assert_eq!(inside.status, ExecutionStatus::Completed, "{inside:?}");
    assert!(inside.stdout.contains(&format!("/lxc/{vmid}/rootfs")), "{:?}", inside.stdout);

    // A second container with the same name is refused before anything runs.
    let err = create(serde_json::json!({"hostname": "web", "storage": "local"})).await.unwrap_err();
    assert!(err.to_string().contains("already exists"), "{err}");

    // A static address behind a gateway nobody answers: refused within seconds, with guidance.
    let before = w.act.executions(None, None, 1000).await.unwrap().len();
    let started = Instant::now();
    let err = create(
        serde_json::json!({"hostname": "static1", "storage": "local", "ip": "10.10.0.50/24", "gw": "198.51.100.7"}),
    )
    .await
    .unwrap_err()
    .to_string();
    let took = started.elapsed();
    eprintln!("bad gateway refused after {took:?}: {err}");
    assert!(err.contains("gateway 198.51.100.7 is unreachable from host:pve1"), "{err}");
    assert!(err.contains("DHCP"), "{err}");
    // The advice names what the neighbours really use, read from their configuration.
    assert!(err.contains("lxc:caddy (gw 127.0.0.1, bridge vmbr0)"), "{err}");
    assert!(took < Duration::from_secs(10), "{took:?}");
    let after = w.act.executions(None, None, 1000).await.unwrap();
    assert!(after.len() > before, "the ping ran");
    assert!(after.iter().all(|x| x.risk == Risk::ReadOnly || x.params["hostname"] != "static1"), "only reads ran");
    assert!(after.iter().all(|x| x.action != "pct_create" || x.params["hostname"] != "static1"));

    // A reachable gateway works (the lab's LAN gateway answers); a template nobody has is an error.
    let done = create(
        serde_json::json!({"hostname": "static2", "storage": "local", "ip": "10.10.0.51/24", "gw": "127.0.0.1"}),
    )
    .await
    .unwrap();
    // The task's assent window (opened by the approval above) lets it run without asking.
    let x = ran(done.outcome);
    assert_eq!(wait_final(&w.act, &x.id).await.status, ExecutionStatus::Completed);
    assert_eq!(w.engine.entity("lxc:static2").await.unwrap().attributes["ip"], "10.10.0.51");
    let err = create(serde_json::json!({"hostname": "x1", "template": "gentoo"})).await.unwrap_err();
    assert!(err.to_string().contains("no cached template matches `gentoo`"), "{err}");
    for (params, needle) in [
        (serde_json::json!({"hostname": "bad_name"}), "not a valid hostname"),
        (serde_json::json!({"hostname": "x2", "cores": 0}), "`cores` must be between"),
        (serde_json::json!({"hostname": "x3", "start": "maybe"}), "true/false"),
        (serde_json::json!({"hostname": "x4", "colour": "red"}), "unknown parameter `colour`"),
        (serde_json::json!({"hostname": "x5", "ip": "10.10.0.9/24"}), "needs its gateway"),
    ] {
        let err = create(params.clone()).await.unwrap_err().to_string();
        assert!(err.contains(needle), "{params}: {err}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn curated_actions_go_through_the_gate() {
    let w = World::default(1).await;
    let act = |action: &'static str, target: &'static str, params: serde_json::Value| {
        curated(&w.act, target, action, params, None, "test")
    };
    // restart and pct_exec are not free passes: they queue like any change.
    let done = act("restart", "lxc:caddy", serde_json::json!({"unit": "caddy"})).await.unwrap();
    let (x, _) = queued(done.outcome);
    assert_eq!(w.act.execution(&x).await.unwrap().command, "systemctl restart caddy");
    let m = q(&w.marks("p"));
    let done = act("pct_exec", "lxc:caddy", serde_json::json!({"command": format!("echo hi >> {m}")})).await.unwrap();
    queued(done.outcome);
    // A read-only curated action runs at once.
    let done = act("systemctl", "host:pve1", serde_json::json!({"verb": "is-active", "unit": "ssh"})).await.unwrap();
    let x = ran(done.outcome);
    assert_eq!(x.action, "systemctl");
    assert_eq!(x.risk, Risk::ReadOnly);
    let err = act("restart", "lxc:caddy", serde_json::json!({"unit": "caddy; reboot"})).await.unwrap_err();
    assert!(err.to_string().contains("not a systemd unit name"));
    let err = act("teleport", "lxc:caddy", serde_json::json!({})).await.unwrap_err();
    assert!(err.to_string().contains("unknown action"));
    assert!(w.read_marks("p").is_empty());
}

/// No code outside the executor opens an SSH channel, only the gate's execute step calls the
/// executor, only `actuate/ssh.rs` speaks SSH, and nothing outside the lab spawns a process: the
/// gate cannot be walked around.
#[test]
fn only_the_executor_opens_channels() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap().to_path_buf();
    let mut files = Vec::new();
    for dir in ["nomos/src", "nomos/cli/src", "nomos/policy/src", "nomos/lab/src", "src-tauri/src", "nomos/types/src"] {
        collect(&root.join(dir), &mut files);
    }
    assert!(files.len() > 10, "found only {files:?}");
    for f in &files {
        let rel = f.strip_prefix(&root).unwrap().to_string_lossy().replace('\\', "/");
        let text = std::fs::read_to_string(f).unwrap();
        for needle in ["channel_open_session", "client::connect", "channel_open_exec", ".exec(true"] {
            if text.contains(needle) {
                assert_eq!(rel, "nomos/src/actuate/ssh.rs", "`{needle}` in {rel}");
            }
        }
        // A file's unit-test module (at its end) is test code: it may start a process to have one.
        let code = text.split("#[cfg(test)]\nmod tests").next().unwrap_or(&text);
        for needle in ["Command::new", "process::Command", "tokio::process"] {
            if code.contains(needle) {
                // testing.rs is compiled for unit tests only (it mounts a read-only tmpfs).
                let allowed = rel.starts_with("nomos/lab/src/") || rel == "nomos/src/testing.rs";
                assert!(allowed, "`{needle}` in {rel}: only the lab starts processes");
            }
        }
        if text.contains("ssh.exec(") {
            assert_eq!(rel, "nomos/src/actuate/gate/execute.rs", "the executor is called from the gate only ({rel})");
        }
        // SSH itself is reachable from one module only.
        if text.contains("russh") {
            assert_eq!(rel, "nomos/src/actuate/ssh.rs", "russh used in {rel}");
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn decisions_cannot_be_doubled_stretched_or_taken_by_the_agent() {
    let w = World::default(1).await;
    let a = w.task("A").await;
    let m = q(&w.marks("d"));

    // A waiting request that a window later covers runs once, under the window; its approval is
    // closed and cannot run it a second time.
    let cmd = format!("echo once >> {m}");
    let (x1, a1) = queued(w.run("host:pve1", &cmd, Some(&a)).await);
    w.act.open_window(&a, WindowKind::Assent, None, &operator()).await.unwrap();
    let x = ran(w.run("host:pve1", &cmd, Some(&a)).await);
    assert_eq!(x.id, x1, "the waiting execution itself ran");
    assert_eq!(w.act.approval(&a1).await.unwrap().status, ApprovalStatus::Cancelled);
    let err = w.act.approve(&a1, &operator()).await.unwrap_err().to_string();
    assert!(err.contains("already cancelled"), "{err}");
    assert_eq!(w.read_marks("d"), ["once"]);
    w.act.revoke_windows(Some(&a), &operator()).await.unwrap();

    // Asked again as riskier, the waiting request is raised: now it needs a typed confirmation.
    let cmd = format!("echo raised >> {m}");
    let (_, a2) = queued(w.run("host:pve1", &cmd, Some(&a)).await);
    let mut req = request("host:pve1", &cmd, Some(&a));
    req.declared_risk = Some(Risk::Destructive);
    let again = w.act.run(req).await.unwrap();
    assert!(matches!(again, RunOutcome::Queued { existing: true, .. }));
    let approval = w.act.approval(&a2).await.unwrap();
    assert!(approval.requires_confirmation);
    assert_eq!(approval.confirmation.as_deref(), Some("confirm host:pve1"), "raised: now it needs the words");
    assert_eq!(approval.risk, Risk::Destructive);
    let err = w.act.approve(&a2, &operator()).await.unwrap_err().to_string();
    assert!(err.contains("typed confirmation"), "{err}");

    // Only an operator decides; the agent may not approve or deny.
    let agent = Decision { actor: "agent:nomos".into(), channel: Channel::Chat, message: Some("yes".into()) };
    let err = w.act.approve(&a2, &agent).await.unwrap_err().to_string();
    assert!(err.contains("only an operator"), "{err}");
    assert!(w.act.deny(&a2, &agent).await.unwrap_err().to_string().contains("only an operator"));
    // Nor may it grant itself room: windows, resuming and host keys are the operator's too.
    for err in [
        w.act.open_window(&a, WindowKind::Assent, None, &agent).await.unwrap_err(),
        w.act.set_paused(false, &agent).await.unwrap_err(),
        w.act.trust_host("pve1", None, &agent).await.unwrap_err(),
    ] {
        assert!(err.to_string().contains("only an operator"), "{err}");
    }
    let spoof = Decision { actor: "nomos".into(), ..operator() };
    assert!(w.act.approve(&a2, &spoof).await.unwrap_err().to_string().contains("only an operator"));
    // In chat, the operator's words must be assent, and they are recorded exactly.
    let (_, a3) = queued(w.run("host:pve1", &format!("echo chat >> {m}"), None).await);
    let chat =
        |text: &str| Decision { actor: "operator:me".into(), channel: Channel::Chat, message: Some(text.into()) };
    let err = w.act.approve(&a3, &chat("not yet")).await.unwrap_err().to_string();
    assert!(err.contains("does not approve"), "{err}");
    w.act.approve(&a3, &chat("yes, go ahead")).await.unwrap();
    assert_eq!(w.act.approval(&a3).await.unwrap().grant_message.as_deref(), Some("yes, go ahead"));

    // Two approvals of the same request at once: it runs exactly once.
    let (_, a4) = queued(w.run("host:pve1", &format!("echo twice >> {m}"), None).await);
    let (d1, d2) = (operator(), operator());
    let (r1, r2) = tokio::join!(w.act.approve(&a4, &d1), w.act.approve(&a4, &d2));
    assert_eq!(u8::from(r1.is_ok()) + u8::from(r2.is_ok()), 1, "{r1:?} / {r2:?}");
    assert_eq!(w.read_marks("d").iter().filter(|l| *l == "twice").count(), 1);

    // A container that moved after the request was made: approving refuses.
    let (_, a5) = queued(w.run("lxc:caddy", &format!("echo moved >> {m}"), None).await);
    w.engine.merge_attributes("lxc:caddy", &serde_json::json!({"pve_id": 102})).await.unwrap();
    let err = w.act.approve(&a5, &operator()).await.unwrap_err().to_string();
    assert!(err.contains("changed since this was asked"), "{err}");
    w.engine.merge_attributes("lxc:caddy", &serde_json::json!({"pve_id": 101})).await.unwrap();

    // Windows are opened for the target as the gate names it, and only for real tasks.
    let victim = w.tmp.path().join("victim2");
    std::fs::create_dir_all(&victim).unwrap();
    w.act.open_window(&a, WindowKind::Destructive, Some("pve1"), &operator()).await.unwrap();
    ran(w.run("host:pve1", &format!("rm -rf {}", q(&victim)), Some(&a)).await);
    assert!(!victim.exists());
    let err = w.act.open_window("no-such-task", WindowKind::Assent, None, &operator()).await.unwrap_err().to_string();
    assert!(err.contains("unknown task"), "{err}");

    // Deleting a task withdraws what it was waiting for.
    let b = w.task("B").await;
    let (xb, _) = queued(w.run("host:pve1", &format!("echo orphan >> {m}"), Some(&b)).await);
    w.engine.delete_task(&b).await.unwrap();
    assert_eq!(w.act.execution(&xb).await.unwrap().status, ExecutionStatus::Cancelled);
    assert_eq!(w.read_marks("d"), ["once", "chat", "twice"]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn output_of_commands_that_touch_secrets_is_never_stored() {
    let w = World::default(1).await;
    // Reads no secret byte (head -c 0) but is judged as touching /etc/shadow: nothing it prints
    // may be kept.
    let (_, a) = queued(w.run("host:pve1", "head -c 0 /etc/shadow; echo visible; echo also >&2", None).await);
    let x = w.act.approve(&a, &confirm("confirm pve1")).await.unwrap();
    assert_eq!(x.status, ExecutionStatus::Completed);
    let (out, err) = w.act.execution_output(&x.id).await.unwrap();
    assert_eq!(out, nomos::actuate::WITHHELD.as_bytes());
    assert!(err.is_empty());
    let anywhere: i64 = sqlx::query_scalar(
        "SELECT (SELECT count(*) FROM executions WHERE CAST(stdout AS TEXT) LIKE '%visible%')
              + (SELECT count(*) FROM audit_log WHERE detail LIKE '%visible\\n%')
              + (SELECT count(*) FROM events WHERE payload LIKE '%visible\\n%')",
    )
    .fetch_one(w.engine.store().pool())
    .await
    .unwrap();
    assert_eq!(anywhere, 0);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn more_commands_at_once_than_a_host_allows_sessions() {
    // The lab's sshd keeps OpenSSH's default of 10 sessions per connection.
    let w = World::default(1).await;
    let started = Instant::now();
    let mut set = tokio::task::JoinSet::new();
    for i in 0..14 {
        let act = w.act.clone();
        set.spawn(async move { act.run(request("host:pve1", &format!("sleep 1; echo {i}"), None)).await });
    }
    let mut done = 0;
    while let Some(r) = set.join_next().await {
        let x = ran(r.unwrap().unwrap());
        assert_eq!(x.status, ExecutionStatus::Completed, "{:?}", x.error);
        done += 1;
    }
    assert_eq!(done, 14);
    let took = started.elapsed();
    eprintln!("14 one-second commands on one host took {took:?}");
    // Serialised they would take 14 s; side by side (two connections) a little over one.
    assert!(took < Duration::from_secs(12), "{took:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn asking_again_for_a_change_that_is_running_joins_it() {
    let w = World::default(1).await;
    let a = w.task("A").await;
    // The change waits for a gate file, so it is surely still running when asked for again.
    let gate = w.tmp.path().join("gate");
    let cmd = format!("while [ ! -e {} ]; do sleep 0.05; done; echo ran >> {}", q(&gate), q(&w.marks("j")));
    let (_, approval) = queued(w.run("host:pve1", &cmd, Some(&a)).await);
    let approving = {
        let act = w.act.clone();
        tokio::spawn(async move { act.approve(&approval, &operator()).await })
    };
    let running = first_running(&w.act, Some(&a)).await;
    // The approval opened A's window, but the same change asked again is the running one.
    let mut again = request("host:pve1", &cmd, Some(&a));
    again.background = true;
    let again = ran(w.act.run(again).await.unwrap());
    assert_eq!(again.id, running);
    std::fs::write(&gate, b"").unwrap();
    let first = approving.await.unwrap().unwrap();
    assert_eq!(first.id, running);
    assert_eq!(first.status, ExecutionStatus::Completed);
    assert_eq!(w.read_marks("j"), ["ran"]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn cancelling_a_container_command_kills_it_inside_the_container() {
    let w = World::default(1).await;
    let hung = unique_sleep(3600);
    let running = {
        let act = w.act.clone();
        let hung = hung.clone();
        tokio::spawn(async move { act.run(request("lxc:caddy", &hung, None)).await })
    };
    let id = first_running(&w.act, None).await;
    // Give the command time to reach the container's own session.
    let deadline = Instant::now() + Duration::from_secs(10);
    while no_process_now(&hung) {
        assert!(Instant::now() < deadline, "the container command never appeared");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    w.act.cancel(&id, &operator()).await.unwrap();
    let x = ran(running.await.unwrap().unwrap());
    assert_eq!(x.status, ExecutionStatus::Cancelled);
    assert_eq!(x.error.as_deref(), Some("cancelled by the operator; the command was killed"));
    assert!(no_process(&hung), "the container's command survived the cancel");
}

fn collect(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    for e in entries.flatten() {
        let p = e.path();
        if p.is_dir() {
            collect(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}
