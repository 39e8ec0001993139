#![allow(clippy::expect_used, clippy::unwrap_used)] // A measurement harness: a failed setup should stop it loudly.

//! Bounded context: one scripted task of 220 tool iterations against an instant stand-in model
//! with an 8000-token context window (as `NOMOS_CONTEXT_TOKENS=8000` sets it), on a real SQLite
//! file. Reports the request size at iteration 30 and at iteration 200 and their ratio (the goal is
//! at most 1.1x: the history is folded, not replayed), the spread of request sizes from 30 to 200,
//! what replaying the whole history would have sent instead, and the time to build one request.
//!
//! Run with `make bench` (or `cargo bench -p nomos --bench context`).

use std::sync::Mutex;
use std::time::{Duration, Instant};

use nomos::agent::chat::{ChatRequest, ChatResponse, Delta, FinishReason, ToolCall};
use nomos::agent::context::{Budget, Context};
use nomos::agent::transcript::Transcript;
use nomos::agent::turn::{run_turn, Model, ModelError, Tools, TurnConfig};
use nomos::agent::{add_operator_message, SOUL};
use nomos::plan::NewStep;
use nomos::Engine;
use tokio_util::sync::CancellationToken;

// The same stand-in for the tools as the context tests.
#[allow(dead_code)]
#[path = "../tests/support/looks.rs"]
mod looks;
use looks::Looks;

const ITERATIONS: usize = 220;
const CONTEXT_TOKENS: u32 = 8000;
const BUILDS: usize = 200;

/// Stand-in for the model: a `look` call per request, then an answer; summaries on request.
/// Records each task request's size in bytes (messages and tool schemas as JSON) and when it came.
#[derive(Default)]
struct InstantModel {
    sizes: Mutex<Vec<usize>>,
    summaries: Mutex<usize>,
    returned: Mutex<Option<Instant>>,
    gaps: Mutex<Vec<Duration>>,
}

fn reply(content: String, calls: Vec<ToolCall>) -> ChatResponse {
    ChatResponse {
        content,
        reasoning: String::new(),
        finish: if calls.is_empty() { FinishReason::Stop } else { FinishReason::ToolCalls },
        tool_calls: calls,
        discarded_calls: 0,
        usage: None,
    }
}

impl Model for InstantModel {
    async fn complete(
        &self,
        request: &ChatRequest,
        _: &(dyn Fn(Delta) + Send + Sync),
        _: &CancellationToken,
    ) -> Result<ChatResponse, ModelError> {
        if request.tools.is_empty() {
            *self.summaries.lock().unwrap() += 1;
            return Ok(reply(
                "Findings so far: the disks of pve1 were measured one by one; /srv grows fastest.".into(),
                vec![],
            ));
        }
        if let Some(at) = self.returned.lock().unwrap().take() {
            self.gaps.lock().unwrap().push(at.elapsed());
        }
        let bytes =
            serde_json::to_vec(&request.messages).unwrap().len() + serde_json::to_vec(&request.tools).unwrap().len();
        let n = {
            let mut sizes = self.sizes.lock().unwrap();
            sizes.push(bytes);
            sizes.len() - 1
        };
        let out = if n < ITERATIONS {
            let call = ToolCall { id: format!("c{n}"), name: "look".into(), arguments: format!(r#"{{"n":{n}}}"#) };
            reply(format!("Checking item {n} next."), vec![call])
        } else {
            reply("The fullest is /srv.".into(), vec![])
        };
        *self.returned.lock().unwrap() = Some(Instant::now());
        Ok(out)
    }
}

fn percentile(sorted: &[Duration], p: usize) -> Duration {
    sorted[(sorted.len() * p / 100).min(sorted.len() - 1)]
}

fn main() {
    let rt = tokio::runtime::Builder::new_multi_thread().enable_all().build().expect("runtime");
    rt.block_on(async {
        let dir = tempfile::tempdir().expect("tempdir");
        let engine = Engine::open(&dir.path().join("oikos.db")).await.expect("engine");
        let task = add_operator_message(&engine, None, "find which disk on pve1 fills up").await.expect("task");
        let steps = ["list the disks", "measure each one", "report the fullest"]
            .map(|t| NewStep { title: t.into(), ..NewStep::default() });
        engine.append_plan(&task, &steps).await.expect("plan");
        add_operator_message(&engine, Some(&task), "look at every item, one at a time").await.expect("message");

        let model = InstantModel::default();
        let config =
            TurnConfig { max_iterations: ITERATIONS + 10, context_tokens: CONTEXT_TOKENS, ..TurnConfig::default() };
        let started = Instant::now();
        run_turn(&engine, &model, &Looks::default(), &config, &task, &CancellationToken::new()).await.expect("turn");
        let whole = started.elapsed();

        let sizes = model.sizes.lock().unwrap().clone();
        let (at30, at200) = (sizes[29], sizes[199]);
        let window = &sizes[29..200];
        let (min, max) = (window.iter().min().unwrap(), window.iter().max().unwrap());
        let mean = window.iter().sum::<usize>() / window.len();
        let mut sorted = window.to_vec();
        sorted.sort_unstable();
        let (p10, p90) = (sorted[sorted.len() / 10], sorted[sorted.len() * 9 / 10]);
        let replay = {
            let mut all = vec![nomos::agent::chat::ChatMessage::system(SOUL)];
            all.extend(Transcript::new(&engine, &task).history().await.expect("history"));
            serde_json::to_vec(&all).unwrap().len() + serde_json::to_vec(&Looks::default().specs()).unwrap().len()
        };
        let budget = Budget::new(CONTEXT_TOKENS, None, &Looks::default().specs());

        // Building one request on the final state (no folding due: it was just folded or is below
        // the threshold; the rare fold would show in the 90th percentile).
        let mut builds = Vec::with_capacity(BUILDS);
        let cancel = CancellationToken::new();
        let mut context = Context::new(&engine, &task, SOUL, budget);
        for _ in 0..BUILDS {
            let t = Instant::now();
            let messages = context.messages(&model, None, &cancel).await.expect("build");
            builds.push(t.elapsed());
            assert!(!messages.is_empty());
        }
        builds.sort();
        let mut gaps = model.gaps.lock().unwrap().clone();
        gaps.sort();

        println!("bounded context: one task, {ITERATIONS} tool iterations, context window {CONTEXT_TOKENS} tokens");
        println!(
            "  input budget {} tokens (window - {} output reserve - {} tool schemas)",
            budget.input_tokens(),
            budget.output_reserve,
            budget.tools_tokens
        );
        println!("  request bytes at iteration  30: {at30}");
        println!("  request bytes at iteration 200: {at200}");
        println!("  ratio 200/30: {:.2}x (goal <= 1.1x)", at200 as f64 / at30 as f64);
        println!(
            "  iterations 30..200: min {min}, p10 {p10}, mean {mean}, p90 {p90}, max {max} bytes (p90/p10 {:.2}x, \
             max/min {:.2}x)",
            p90 as f64 / p10 as f64,
            *max as f64 / *min as f64
        );
        println!(
            "  replaying the whole history at the end would send {replay} bytes ({:.1}x)",
            replay as f64 / at200 as f64
        );
        println!("  summary requests: {}", model.summaries.lock().unwrap());
        println!(
            "  build one request (state from the database, summary, tail, fit): median {:?}, p90 {:?}",
            percentile(&builds, 50),
            percentile(&builds, 90)
        );
        println!(
            "  loop time per iteration outside the model (commit, tool, build): median {:?}, p90 {:?}; whole task {:?}",
            percentile(&gaps, 50),
            percentile(&gaps, 90),
            whole
        );
    });
}
