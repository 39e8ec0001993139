#![allow(clippy::expect_used, clippy::panic)] // A measurement harness: a failed setup step should stop it loudly.

//! The agent's own time per tool iteration, against the SSH round trip it wraps. One task turn of
//! N iterations, each `run {target: host:pve1, command: "true"}` through the registry and the
//! gate, with a model that answers instantly (in process; no provider latency at all), side by
//! side with N direct `Actuator::run` of the same command on the same warm connection. An
//! iteration is the time between two consecutive model calls: history read, request built, the
//! model's (instant) reply, the assistant message committed, the call marked started, the tool
//! (classify, record, SSH, record), the result committed. The same loop with `list_entities`
//! instead (no SSH) shows the loop's cost alone.
//!
//! Reports medians and the ratio (agent overhead per iteration / SSH round trip; goal ≤ 0.1x).
//! Run with `make bench` (or `cargo bench -p nomos --bench agent`).

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use nomos::actuate::{ActuateConfig, Decision, RunOutcome, RunRequest};
use nomos::agent::chat::{ChatRequest, ChatResponse, Delta, FinishReason, ToolCall};
use nomos::agent::tools::{Registry, RegistryConfig};
use nomos::agent::turn::{run_turn, GatedTools, Model, ModelError, TurnConfig, TurnEnd};
use nomos::types::{Channel, ExecutionStatus, TaskStatus};
use nomos::{PolicySource, Runtime, RuntimeConfig};
use nomos_lab::{Lab, LabConfig};
use tokio_util::sync::CancellationToken;

const N: usize = 50;
const ROUNDS: usize = 3;

/// A model that answers at once: `n` times the same tool call (with `arguments(i)`), then a
/// plain-text answer. It notes when it was asked each time.
struct InstantModel {
    name: &'static str,
    arguments: fn(usize) -> serde_json::Value,
    n: usize,
    asked: AtomicUsize,
    stamps: Mutex<Vec<Instant>>,
}

impl InstantModel {
    fn new(name: &'static str, arguments: fn(usize) -> serde_json::Value, n: usize) -> InstantModel {
        InstantModel { name, arguments, n, asked: AtomicUsize::new(0), stamps: Mutex::default() }
    }

    /// The time of each iteration: from one model call to the next.
    fn iterations(&self) -> Vec<Duration> {
        let stamps = self.stamps.lock().expect("stamps");
        stamps.windows(2).map(|w| w[1] - w[0]).collect()
    }
}

impl Model for InstantModel {
    async fn complete(
        &self,
        _request: &ChatRequest,
        _on_delta: &(dyn Fn(Delta) + Send + Sync),
        _cancel: &CancellationToken,
    ) -> Result<ChatResponse, ModelError> {
        self.stamps.lock().expect("stamps").push(Instant::now());
        let i = self.asked.fetch_add(1, Ordering::SeqCst);
        let reply = ChatResponse {
            content: String::new(),
            reasoning: String::new(),
            tool_calls: Vec::new(),
            discarded_calls: 0,
            finish: FinishReason::Stop,
            usage: None,
        };
        if i >= self.n {
            return Ok(ChatResponse { content: "done".into(), ..reply });
        }
        let arguments = (self.arguments)(i).to_string();
        let call = ToolCall { id: format!("call_{i}"), name: self.name.into(), arguments };
        Ok(ChatResponse { tool_calls: vec![call], finish: FinishReason::ToolCalls, ..reply })
    }
}

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

/// One turn of a new task with `model`; the iterations it took.
async fn turn(rt: &Runtime, tools: &GatedTools, model: &InstantModel) -> Vec<Duration> {
    let config = TurnConfig { max_iterations: N + 2, ..TurnConfig::default() };
    let task = rt.engine().create_task("bench", "bench").await.expect("task").id;
    let end = run_turn(rt.engine(), model, tools, &config, &task, &CancellationToken::new()).await.expect("turn");
    assert_eq!(end, TurnEnd::Ended(TaskStatus::Done));
    model.iterations()
}

async fn direct(rt: &Runtime) -> Duration {
    let req = RunRequest {
        target: "host:pve1".into(),
        command: "true".into(),
        purpose: "bench".into(),
        requested_by: "bench".into(),
        ..Default::default()
    };
    let t = Instant::now();
    match rt.actuator().run(req).await.expect("run") {
        RunOutcome::Ran(x) => assert_eq!(x.status, ExecutionStatus::Completed, "{:?}", x.error),
        RunOutcome::Queued { .. } => panic!("`true` is read-only"),
    }
    t.elapsed()
}

fn main() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let mut config = LabConfig::new(tmp.path().join("lab"));
    config.hosts = 1;
    let lab = Lab::start(config).expect("the lab starts (needs openssh-server)");
    let rt = tokio::runtime::Builder::new_multi_thread().enable_all().build().expect("runtime");
    rt.block_on(async {
        let config = RuntimeConfig {
            policy: PolicySource::Builtin,
            actuate: ActuateConfig::default(),
            ..RuntimeConfig::new(tmp.path().join("bench.db"))
        };
        let rt = Runtime::open(config).await.expect("runtime");
        rt.engine().import_inventory_file(&lab.inventory_path()).await.expect("inventory");
        let me = Decision { actor: "operator:bench".into(), channel: Channel::Cli, message: None };
        rt.actuator().present_key("host:pve1").await.expect("key");
        rt.actuator().trust_host("host:pve1", None, &me).await.expect("trust");
        let tools = GatedTools { registry: Registry::new(RegistryConfig::default()), actuator: rt.actuator().clone() };
        // A command that differs each time (a repeated read-only command is answered from memory);
        // `true N` costs on the host what `true` does.
        let run = |i| serde_json::json!({"target": "host:pve1", "command": format!("true {i}"), "purpose": "bench"});
        // A read of the graph that differs each time (the loop answers a repeated read from memory).
        let lookup = |i| serde_json::json!({"offset": i, "limit": 1});
        // Warm the connection and the database.
        for _ in 0..5 {
            direct(&rt).await;
        }
        turn(&rt, &tools, &InstantModel::new("run", run, 5)).await;

        let (mut agent, mut ssh, mut loop_only) = (Vec::new(), Vec::new(), Vec::new());
        for _ in 0..ROUNDS {
            agent.extend(turn(&rt, &tools, &InstantModel::new("run", run, N)).await);
            for _ in 0..N {
                ssh.push(direct(&rt).await);
            }
            loop_only.extend(turn(&rt, &tools, &InstantModel::new("list_entities", lookup, N)).await);
        }
        let (agent, ssh, loop_only) = (median(agent), median(ssh), median(loop_only));
        // Signed: on a busy machine the two medians' noise can exceed the overhead itself.
        let overhead = ms(agent) - ms(ssh);
        println!("agent overhead per tool iteration ({ROUNDS} turns of {N} iterations, median):");
        println!("  agent iteration, run `true` on host:pve1:   {:8.3} ms", ms(agent));
        println!("  direct Actuator::run `true` (SSH trip):     {:8.3} ms", ms(ssh));
        println!("  agent overhead (difference):                {overhead:8.3} ms");
        println!("  agent iteration, list_entities (no SSH):    {:8.3} ms", ms(loop_only));
        println!(
            "  ratio overhead / SSH round trip: {:.3}x (goal <= 0.1x); list_entities iteration / SSH: {:.3}x",
            overhead / ms(ssh),
            ms(loop_only) / ms(ssh)
        );
        rt.close().await;
    });
}
