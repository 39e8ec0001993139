#![allow(clippy::expect_used)] // A measurement harness: a failed setup step should stop it loudly.

//! Blast radius on a generated homelab-shaped graph of 10,000 entities and 40,000 edges, depth 3,
//! against a breadth-first walk over the same graph held in memory. Both run on the same roots in
//! the same process; the report gives medians, 90th percentiles and their ratio, and what the first
//! blast radius after a change to the graph costs (the engine rebuilds its in-memory graph then).
//!
//! Run with `make bench` (or `cargo bench -p nomos --bench blast_radius`).

use std::collections::{HashMap, HashSet, VecDeque};
use std::time::{Duration, Instant};

use nomos::types::EntityState;
use nomos::Engine;

const ENTITIES: usize = 10_000;
const EDGES: usize = 40_000;
const HOSTS: usize = 50;
const GUESTS: usize = 3_000;
const ROOTS: usize = 300;
const DEPTH: u32 = 3;
const ROUNDS: usize = 3;
const REBUILDS: usize = 15;

/// xorshift64*: a fixed, dependency-free generator so every run measures the same graph.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

struct Graph {
    slugs: Vec<String>,
    /// (type, source index, target index)
    edges: Vec<(&'static str, usize, usize)>,
}

fn generate() -> Graph {
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    let mut slugs = Vec::with_capacity(ENTITIES);
    for i in 0..ENTITIES {
        slugs.push(if i < HOSTS {
            format!("host:h{i}")
        } else if i < HOSTS + GUESTS {
            format!("lxc:g{i}")
        } else {
            format!("service:s{i}")
        });
    }
    let mut seen = HashSet::new();
    let mut edges = Vec::with_capacity(EDGES);
    // Every guest on one host; every service on one guest.
    for g in HOSTS..HOSTS + GUESTS {
        let h = rng.below(HOSTS);
        seen.insert(("hosts", h, g));
        edges.push(("hosts", h, g));
    }
    for s in HOSTS + GUESTS..ENTITIES {
        let g = HOSTS + rng.below(GUESTS);
        seen.insert(("runs-on", s, g));
        edges.push(("runs-on", s, g));
    }
    // The rest: services depending on services, some routing.
    while edges.len() < EDGES {
        let a = HOSTS + GUESTS + rng.below(ENTITIES - HOSTS - GUESTS);
        let b = HOSTS + GUESTS + rng.below(ENTITIES - HOSTS - GUESTS);
        if a == b {
            continue;
        }
        let ty = if rng.below(10) == 0 { "routes-to" } else { "depends-on" };
        if seen.insert((ty, a, b)) {
            edges.push((ty, a, b));
        }
    }
    Graph { slugs, edges }
}

async fn load(engine: &Engine, g: &Graph) -> Vec<String> {
    let ids: Vec<String> = (0..ENTITIES).map(|i| format!("00000000-0000-4000-8000-{i:012}")).collect();
    let mut tx = engine.store().begin_write().await.expect("begin");
    for (i, slug) in g.slugs.iter().enumerate() {
        let (ty, name) = slug.split_once(':').expect("slug");
        sqlx::query("INSERT INTO entities (id, slug, type, name) VALUES (?, ?, ?, ?)")
            .bind(&ids[i])
            .bind(slug)
            .bind(ty)
            .bind(name)
            .execute(&mut *tx)
            .await
            .expect("entity");
    }
    for (n, (ty, s, t)) in g.edges.iter().enumerate() {
        sqlx::query("INSERT INTO relationships (id, type, source_id, target_id) VALUES (?, ?, ?, ?)")
            .bind(format!("10000000-0000-4000-8000-{n:012}"))
            .bind(ty)
            .bind(&ids[*s])
            .bind(&ids[*t])
            .execute(&mut *tx)
            .await
            .expect("edge");
    }
    tx.commit().await.expect("commit");
    sqlx::query("ANALYZE").execute(engine.store().pool()).await.expect("analyze");
    ids
}

/// The same walk in memory: adjacency in impact direction, read from the ontology like the engine.
fn in_memory(engine: &Engine, g: &Graph) -> HashMap<usize, Vec<usize>> {
    let (forward, backward) = engine.ontology().impact_types();
    let mut adj: HashMap<usize, Vec<usize>> = HashMap::new();
    for (ty, s, t) in &g.edges {
        if forward.iter().any(|f| f == ty) {
            adj.entry(*s).or_default().push(*t);
        } else if backward.iter().any(|b| b == ty) {
            adj.entry(*t).or_default().push(*s);
        }
    }
    adj
}

fn bfs(adj: &HashMap<usize, Vec<usize>>, root: usize, depth: u32) -> usize {
    let mut seen = HashSet::from([root]);
    let mut queue = VecDeque::from([(root, 0u32)]);
    let mut hits = 0;
    while let Some((n, d)) = queue.pop_front() {
        if d == depth {
            continue;
        }
        for &m in adj.get(&n).map(Vec::as_slice).unwrap_or(&[]) {
            if seen.insert(m) {
                hits += 1;
                queue.push_back((m, d + 1));
            }
        }
    }
    hits
}

fn stats(mut v: Vec<Duration>) -> (Duration, Duration) {
    v.sort();
    (v[v.len() / 2], v[v.len() * 9 / 10])
}

fn main() {
    let rt = tokio::runtime::Builder::new_multi_thread().enable_all().build().expect("runtime");
    rt.block_on(async {
        let dir = tempfile::tempdir().expect("tempdir");
        let engine = Engine::open(&dir.path().join("bench.db")).await.expect("open");
        let g = generate();
        let t = Instant::now();
        load(&engine, &g).await;
        println!("generated {} entities, {} edges in {:?}", ENTITIES, g.edges.len(), t.elapsed());
        let adj = in_memory(&engine, &g);

        let mut rng = Rng(42);
        // Roots across the layers: hosts have the widest radius, services the narrowest.
        let roots: Vec<usize> = (0..ROOTS)
            .map(|i| match i % 3 {
                0 => rng.below(HOSTS),
                1 => HOSTS + rng.below(GUESTS),
                _ => HOSTS + GUESTS + rng.below(ENTITIES - HOSTS - GUESTS),
            })
            .collect();

        // Warm up both, and check they agree on every root.
        for &r in &roots {
            let b = engine.blast_radius(&g.slugs[r], Some(DEPTH)).await.expect("blast");
            assert_eq!(b.hits.len(), bfs(&adj, r, DEPTH), "engine and reference disagree on {}", g.slugs[r]);
        }

        let mut engine_times = Vec::with_capacity(ROOTS * ROUNDS);
        let mut memory_times = Vec::with_capacity(ROOTS * ROUNDS);
        let mut total_hits = 0;
        for round in 0..ROUNDS {
            for &r in &roots {
                let t = Instant::now();
                let b = engine.blast_radius(&g.slugs[r], Some(DEPTH)).await.expect("blast");
                engine_times.push(t.elapsed());
                let t = Instant::now();
                let n = std::hint::black_box(bfs(&adj, r, DEPTH));
                memory_times.push(t.elapsed());
                if round == 0 {
                    total_hits += n;
                }
                std::hint::black_box(b);
            }
        }
        // On a busy machine a call is now and then descheduled; the best of the rounds per root
        // leaves that out (the same for both sides) and is reported beside the plain figures.
        let best = |times: &[Duration]| -> Vec<Duration> {
            (0..ROOTS).map(|i| (0..ROUNDS).map(|round| times[round * ROOTS + i]).min().unwrap_or_default()).collect()
        };
        let (ebm, eb90) = stats(best(&engine_times));
        let (mbm, mb90) = stats(best(&memory_times));
        let (em, e90) = stats(engine_times);
        let (mm, m90) = stats(memory_times);
        println!(
            "roots: {ROOTS} (hosts, guests, services), depth {DEPTH}, mean hits {:.1}",
            total_hits as f64 / ROOTS as f64
        );
        println!("engine (version check + in-memory walk): median {em:?}  p90 {e90:?}");
        println!("in-memory BFS (same graph):              median {mm:?}  p90 {m90:?}");
        println!(
            "ratio engine/in-memory: median {:.1}x  p90 {:.1}x",
            em.as_secs_f64() / mm.as_secs_f64().max(1e-9),
            e90.as_secs_f64() / m90.as_secs_f64().max(1e-9)
        );
        println!(
            "best of {ROUNDS} rounds per root: engine median {ebm:?}  p90 {eb90:?}; in-memory median {mbm:?}  p90 {mb90:?}; ratio median {:.1}x  p90 {:.1}x",
            ebm.as_secs_f64() / mbm.as_secs_f64().max(1e-9),
            eb90.as_secs_f64() / mb90.as_secs_f64().max(1e-9)
        );

        // The fixed cost of a call: the version check and the root lookup (a root nothing depends on).
        let lone = (0..ENTITIES).find(|&i| bfs(&adj, i, 1) == 0);
        if let Some(lone) = lone {
            let mut times = Vec::with_capacity(ROOTS);
            for _ in 0..ROOTS {
                let t = Instant::now();
                let b = engine.blast_radius(&g.slugs[lone], Some(DEPTH)).await.expect("blast");
                times.push(t.elapsed());
                std::hint::black_box(b);
            }
            let (fm, f90) = stats(times);
            println!("engine, root with nothing depending on it:  median {fm:?}  p90 {f90:?}");
        }

        // A change that matters to the blast radius (a service stops, then starts again), made
        // through a second engine on the same file as another process would, then the next blast
        // radius, which notices and rebuilds the engine's graph from the database first.
        let other = Engine::open(&dir.path().join("bench.db")).await.expect("second engine");
        let mut rebuild_times = Vec::with_capacity(REBUILDS * 2);
        for (&root, changed) in roots.iter().zip(g.slugs.iter().rev()).take(REBUILDS) {
            for state in [EntityState::Stopped, EntityState::Active] {
                other.set_entity_state(changed, state).await.expect("state");
                let t = Instant::now();
                let b = engine.blast_radius(&g.slugs[root], Some(DEPTH)).await.expect("blast");
                rebuild_times.push(t.elapsed());
                std::hint::black_box(b);
            }
        }
        let (rm, r90) = stats(rebuild_times);
        println!("first blast radius after a change elsewhere (rebuild included): median {rm:?}  p90 {r90:?}");
    });
}
