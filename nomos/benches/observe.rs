#![allow(clippy::expect_used, clippy::panic)] // A measurement harness: a failed setup step should stop it loudly.

//! Observe, measured:
//! - the database after 30 simulated days of 60 guests (8 metrics each at a 30 s cycle): per
//!   guest per day of long-term history (the 1-hour tier) and per guest at steady state. Days 1–28
//!   are written at the hourly tier (what rollup leaves of them); the last 50 h are simulated cycle
//!   by cycle with rollup and pruning, so the raw and 1-minute tiers hold what they would;
//! - what monitoring the 60-guest lab costs the app's process: CPU time over a span of cycles
//!   every 30 s, side by side with the same span idle (OIKOS_BENCH_OBSERVE_SECS, default 600);
//! - signal latency: a unit fails in the lab (`nomos lab fault`), cycles until its signal is
//!   raised, 20 trials (median and max, in cycles).
//!
//! Run with `make bench` (or `cargo bench -p nomos --bench observe`).

use std::time::{Duration, Instant};

use nomos::clock::ManualClock;
use nomos::discovery::{ApplyBy, DiscoverOptions};
use nomos::graph::entities::NewEntity;
use nomos::observe::series::Sample;
use nomos::observe::Observer;
use nomos::{Engine, PolicySource, Runtime, RuntimeConfig};
use nomos_lab::{Fault, Lab, LabConfig};

const GUESTS: usize = 60;
const METRICS: [&str; 8] =
    ["up", "cpu_percent", "memory_percent", "disk_percent", "net_in", "net_out", "disk_read", "disk_write"];

/// The process's CPU time (user + system), from /proc.
fn cpu_time() -> Duration {
    let stat = std::fs::read_to_string("/proc/self/stat").expect("/proc/self/stat");
    // Fields after the command name (which may hold spaces) start after the last ')'.
    let rest = &stat[stat.rfind(')').expect("stat") + 2..];
    let f: Vec<&str> = rest.split_whitespace().collect();
    let ticks: u64 = f[11].parse::<u64>().expect("utime") + f[12].parse::<u64>().expect("stime");
    // Linux reports in clock ticks of 1/100 s (USER_HZ) on every platform this runs on.
    Duration::from_millis(ticks * 10)
}

async fn db_bytes(engine: &Engine) -> i64 {
    sqlx::query("VACUUM").execute(engine.store().pool()).await.expect("vacuum");
    let pages: i64 = sqlx::query_scalar("PRAGMA page_count").fetch_one(engine.store().pool()).await.expect("pages");
    let size: i64 = sqlx::query_scalar("PRAGMA page_size").fetch_one(engine.store().pool()).await.expect("size");
    pages * size
}

async fn table_bytes(engine: &Engine, table: &str) -> Option<i64> {
    sqlx::query_scalar("SELECT sum(pgsize) FROM dbstat WHERE name = ?")
        .bind(table)
        .fetch_one(engine.store().pool())
        .await
        .ok()
}

async fn size_after_30_days() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let engine = Engine::open(&tmp.path().join("size.db")).await.expect("db");
    let mut ids = Vec::new();
    for i in 0..GUESTS {
        let e = engine.create_entity(NewEntity::new("lxc", &format!("guest{i}"))).await.expect("entity");
        ids.push(e.id);
    }
    let day = 86_400_i64;
    let start = 1_790_000_000_i64 - 1_790_000_000_i64 % day;
    let end = start + 30 * day;
    let value = |g: usize, m: usize, t: i64| ((g * 7 + m * 13) as f64 + (t / 30 % 97) as f64 * 0.37) % 100.0;
    // Days 1–28 (up to 50 h before the end) at the hourly tier, as rollup leaves them.
    let detailed_from = end - 50 * 3600;
    let mut tx_rows = Vec::new();
    let mut t = start;
    while t < detailed_from {
        for (g, id) in ids.iter().enumerate() {
            for (m, _) in METRICS.iter().enumerate() {
                let v = (value(g, m, t) * 100.0) as i64;
                tx_rows.push((id.clone(), m, t, v));
            }
        }
        t += 3600;
    }
    let series: Vec<i64> = {
        let mut out = Vec::new();
        for id in &ids {
            for name in METRICS {
                let sid: i64 =
                    sqlx::query_scalar("INSERT INTO series (entity_id, name, unit) VALUES (?, ?, '') RETURNING id")
                        .bind(id)
                        .bind(name)
                        .fetch_one(engine.store().pool())
                        .await
                        .expect("series");
                out.push(sid);
            }
        }
        out
    };
    let mut tx = engine.store().pool().begin().await.expect("tx");
    for (g, (_, m, t, v)) in tx_rows.iter().enumerate() {
        let sid = series[(g / METRICS.len()) % GUESTS * METRICS.len() + m];
        sqlx::query("INSERT OR IGNORE INTO samples_1h (series_id, at, min, avg, max) VALUES (?, ?, ?, ?, ?)")
            .bind(sid)
            .bind(t)
            .bind(v - 150)
            .bind(v)
            .bind(v + 150)
            .execute(&mut *tx)
            .await
            .expect("hour");
    }
    tx.commit().await.expect("commit");
    // The last 50 h cycle by cycle, rolled up every 5 minutes.
    let started = Instant::now();
    let mut t = detailed_from;
    while t < end {
        let samples: Vec<Sample> = ids
            .iter()
            .enumerate()
            .flat_map(|(g, id)| {
                METRICS.iter().enumerate().map(move |(m, name)| Sample {
                    entity_id: id.clone(),
                    metric: name,
                    unit: "",
                    value: value(g, m, t),
                })
            })
            .collect();
        engine.record_samples(t, &samples).await.expect("record");
        if t % 300 == 0 {
            engine.rollup_metrics(t).await.expect("rollup");
        }
        t += 30;
    }
    engine.rollup_metrics(end).await.expect("rollup");
    let simulated = started.elapsed();
    let count = |table: &'static str| {
        let engine = engine.clone();
        async move {
            sqlx::query_scalar::<_, i64>(&format!("SELECT count(*) FROM {table}"))
                .fetch_one(engine.store().pool())
                .await
                .expect("count")
        }
    };
    let (raw, minute, hour) = (count("samples_raw").await, count("samples_1m").await, count("samples_1h").await);
    let total = db_bytes(&engine).await;
    println!("database after 30 simulated days of {GUESTS} guests × {} metrics (30 s cycle):", METRICS.len());
    println!(
        "  rows: raw {raw}, 1-minute {minute}, 1-hour {hour}  (last 50 h simulated in {:.1} s)",
        simulated.as_secs_f64()
    );
    println!(
        "  whole database: {:.2} MB → {:.1} KB per guest at steady state (goal ≤ 3 MB)",
        total as f64 / 1e6,
        total as f64 / GUESTS as f64 / 1e3
    );
    match table_bytes(&engine, "samples_1h").await {
        Some(b) => {
            let per_day = b as f64 / GUESTS as f64 / 30.0;
            println!("  long-term (1-hour tier): {:.2} KB per guest per day (goal ≤ 5 KB)", per_day / 1e3);
        }
        None => println!("  long-term tier size not available (no dbstat)"),
    }
}

async fn lab_runtime(lab: &Lab, db: &std::path::Path, clock: Option<std::sync::Arc<ManualClock>>) -> Runtime {
    let mut rc = RuntimeConfig { policy: PolicySource::Builtin, ..RuntimeConfig::new(db) };
    if let Some(c) = clock {
        rc.clock = c;
    }
    let rt = Runtime::open(rc).await.expect("runtime");
    rt.engine().import_inventory_file(&lab.inventory_path()).await.expect("inventory");
    let me =
        nomos::actuate::Decision { actor: "operator:bench".into(), channel: nomos::types::Channel::Cli, message: None };
    for h in lab.hosts() {
        rt.actuator().present_key(&format!("host:{}", h.name)).await.expect("key");
        rt.actuator().trust_host(&format!("host:{}", h.name), None, &me).await.expect("trust");
    }
    rt.actuator()
        .discover("host:pve1", DiscoverOptions { apply: Some(ApplyBy::Operator("operator:bench".into())) })
        .await
        .expect("discover");
    rt
}

async fn cpu_cost(lab: &Lab, dir: &std::path::Path) {
    let span = std::env::var("OIKOS_BENCH_OBSERVE_SECS").ok().and_then(|s| s.parse().ok()).unwrap_or(600_u64);
    let rt = lab_runtime(lab, &dir.join("cpu.db"), None).await;
    let observer = Observer::new().expect("rules");
    rt.actuator().observe_once(&observer).await.expect("warm");
    // Idle first: the app open, nothing collected.
    let c0 = cpu_time();
    tokio::time::sleep(Duration::from_secs(span)).await;
    let idle = cpu_time() - c0;
    let c1 = cpu_time();
    let t = Instant::now();
    let mut cycles = 0;
    let mut took = Vec::new();
    while t.elapsed() < Duration::from_secs(span) {
        let s = Instant::now();
        let r = rt.actuator().observe_once(&observer).await.expect("cycle");
        took.push(s.elapsed());
        assert!(r.warnings.is_empty(), "{:?}", r.warnings);
        cycles += 1;
        tokio::time::sleep(Duration::from_secs(30).saturating_sub(s.elapsed())).await;
    }
    let busy = cpu_time() - c1;
    took.sort();
    let pct = |d: Duration| d.as_secs_f64() / span as f64 * 100.0;
    println!("monitoring the lab (3 nodes, {GUESTS} guests) every 30 s for {span} s, the app's process:");
    println!(
        "  CPU {:.3} % of a core while observing vs {:.3} % idle → {:.3} % for Observe (goal < 1 %); {cycles} cycles, median {} ms each",
        pct(busy),
        pct(idle),
        pct(busy.saturating_sub(idle)),
        took[took.len() / 2].as_millis()
    );
    rt.close().await;
}

async fn latency(lab: &Lab, dir: &std::path::Path) {
    let clock = ManualClock::new();
    let rt = lab_runtime(lab, &dir.join("latency.db"), Some(clock.clone())).await;
    let observer = Observer::new().expect("rules");
    rt.actuator().observe_once(&observer).await.expect("warm");
    let mut cycles = Vec::new();
    for trial in 0..20 {
        nomos_lab::fault(lab.dir(), "pve2", &Fault::StopService { unit: "pvedaemon".into(), guest: None })
            .expect("fault");
        let mut n = 0;
        loop {
            clock.advance_ms(30_000);
            n += 1;
            let r = rt.actuator().observe_once(&observer).await.expect("cycle");
            if !r.raised.is_empty() || n > 10 {
                break;
            }
        }
        assert!(n <= 10, "trial {trial}: no signal after 10 cycles");
        cycles.push(n);
        nomos_lab::fault(lab.dir(), "pve2", &Fault::Clear).expect("clear");
        // Resolved before the next trial (and more than 30 min later, so it is a new signal).
        for _ in 0..3 {
            clock.advance_ms(30_000);
            rt.actuator().observe_once(&observer).await.expect("cycle");
        }
        clock.advance_ms(31 * 60_000);
    }
    cycles.sort_unstable();
    println!(
        "signal latency, a unit failed on a node (20 trials): median {} cycle(s), max {} (30 s cycles; hosts are probed every 60 s)",
        cycles[cycles.len() / 2],
        cycles[cycles.len() - 1]
    );
    rt.close().await;
}

fn main() {
    let rt = tokio::runtime::Builder::new_multi_thread().enable_all().build().expect("runtime");
    rt.block_on(size_after_30_days());
    let tmp = tempfile::tempdir().expect("tempdir");
    let mut config = LabConfig::new(tmp.path().join("lab"));
    config.hosts = 3;
    config.guests = Some(GUESTS);
    let lab = Lab::start(config).expect("the lab starts (needs openssh-server)");
    rt.block_on(latency(&lab, tmp.path()));
    rt.block_on(cpu_cost(&lab, tmp.path()));
}
