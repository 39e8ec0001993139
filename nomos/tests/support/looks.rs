//! Stand-in for the tools in the context tests and the context benchmark: the task tools and a
//! read-only `look {n}` whose output is a few hundred bytes of command output; every tenth look
//! reports an execution ([`exec_id`]). Counts the looks it ran.

use std::sync::atomic::{AtomicUsize, Ordering};

use nomos::agent::chat::{ToolCall, ToolSpec};
use nomos::agent::tools::ToolResult;
use nomos::agent::turn::{TaskToolsOnly, Tools};
use nomos::Engine;
use tokio_util::sync::CancellationToken;

/// The execution a look reports, for every tenth one.
pub fn exec_id(n: usize) -> Option<String> {
    (n % 10 == 0).then(|| format!("0193f3a1-7c2e-7000-8000-{n:012}"))
}

#[derive(Default)]
pub struct Looks {
    runs: AtomicUsize,
}

impl Looks {
    /// How many looks ran.
    pub fn runs(&self) -> usize {
        self.runs.load(Ordering::SeqCst)
    }
}

impl Tools for Looks {
    fn specs(&self) -> Vec<ToolSpec> {
        let mut specs = TaskToolsOnly.specs();
        specs.push(ToolSpec {
            name: "look".into(),
            description: "look at one item".into(),
            parameters: serde_json::json!({"type": "object", "properties": {"n": {"type": "integer"}}}),
        });
        specs
    }

    fn is_read_only(&self, name: &str, _: &serde_json::Value) -> bool {
        name == "look"
    }

    async fn call(
        &self,
        engine: &Engine,
        task: &str,
        turn: &str,
        call: &ToolCall,
        c: &CancellationToken,
    ) -> ToolResult {
        if call.name != "look" {
            return TaskToolsOnly.call(engine, task, turn, call, c).await;
        }
        self.runs.fetch_add(1, Ordering::SeqCst);
        let args = serde_json::from_str::<serde_json::Value>(&call.arguments).unwrap_or_default();
        let n = args["n"].as_u64().unwrap_or_default() as usize;
        let out = format!(
            "item {n}: ok\n{}",
            (0..6).map(|l| format!("  /dev/sda{l}  20G  {n}G used  mounted on /srv/{n}/{l}\n")).collect::<String>()
        );
        match exec_id(n) {
            Some(id) => ToolResult::ok(out).with_execution(id),
            None => ToolResult::ok(out),
        }
    }
}
