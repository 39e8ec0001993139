//! Bounded context on a real SQLite file, against a scripted model (a stand-in for the language
//! model that answers by a rule and records every request): a long task stays within its budget,
//! keeps its state and pairing, folds older turns into stored summaries, and recovers from a
//! provider that says the request was too long.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod support;

use std::collections::HashSet;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

use nomos::agent::chat::{ChatMessage, ChatRequest, ChatResponse, Delta, FinishReason, Role, ToolCall};
use nomos::agent::context::{estimate_messages, latest_summary, Budget};
use nomos::agent::turn::{run_turn, Model, ModelError, TaskToolsOnly, Tools, TurnConfig, TurnEnd};
use nomos::agent::{add_operator_message, send_message};
use nomos::plan::NewStep;
use nomos::types::{TaskStatus, WaitingFor};
use nomos::Engine;
use support::agent::text;
use support::looks::{exec_id, Looks};
use tokio_util::sync::CancellationToken;

type Rule = Box<dyn Fn(&ChatRequest, usize) -> Result<ChatResponse, ModelError> + Send + Sync>;
type SummaryRule = Box<dyn Fn(&ChatRequest) -> Result<ChatResponse, ModelError> + Send + Sync>;

/// Stand-in for the language model: `rule` gets each task request (with tools) and its index;
/// summary requests (no tools) get `summary`.
struct Scripted {
    rule: Rule,
    summary: SummaryRule,
    main: Mutex<Vec<ChatRequest>>,
    summaries: Mutex<Vec<ChatRequest>>,
}

impl Scripted {
    fn new(rule: Rule) -> Scripted {
        Scripted {
            rule,
            summary: Box::new(|_| Ok(text("Findings so far: pve1 is up; the web container answers on port 80."))),
            main: Mutex::default(),
            summaries: Mutex::default(),
        }
    }

    fn main(&self) -> Vec<ChatRequest> {
        self.main.lock().unwrap().clone()
    }

    fn summaries(&self) -> Vec<ChatRequest> {
        self.summaries.lock().unwrap().clone()
    }
}

impl Model for Scripted {
    async fn complete(
        &self,
        request: &ChatRequest,
        _: &(dyn Fn(Delta) + Send + Sync),
        _: &CancellationToken,
    ) -> Result<ChatResponse, ModelError> {
        if request.tools.is_empty() {
            self.summaries.lock().unwrap().push(request.clone());
            return (self.summary)(request);
        }
        let n = {
            let mut main = self.main.lock().unwrap();
            main.push(request.clone());
            main.len() - 1
        };
        (self.rule)(request, n)
    }
}

fn look(n: usize) -> ChatResponse {
    ChatResponse {
        content: format!("Checking item {n} next."),
        tool_calls: vec![ToolCall { id: format!("c{n}"), name: "look".into(), arguments: format!(r#"{{"n":{n}}}"#) }],
        finish: FinishReason::ToolCalls,
        ..text("")
    }
}

/// The execution id the `look` of item `n` reports (every tenth one ran something).
async fn engine() -> (tempfile::TempDir, Engine) {
    let dir = tempfile::tempdir().unwrap();
    let engine = Engine::open(&dir.path().join("oikos.db")).await.unwrap();
    (dir, engine)
}

fn config(iterations: usize) -> TurnConfig {
    TurnConfig { max_iterations: iterations, context_tokens: 8000, ..TurnConfig::default() }
}

const GOAL: &str = "find which disk on pve1 fills up";
const QUESTION: &str = "May I clear the apt cache on pve1?";
const LATEST: &str = "look at every item, one at a time";

/// A task with a goal, a plan in several states and an open question, and the operator's message.
async fn long_task(eng: &Engine) -> String {
    let task = add_operator_message(eng, None, "start with the disks").await.unwrap();
    eng.set_task_goal(&task, GOAL).await.unwrap();
    let steps = ["list the disks", "measure each one", "report the fullest"]
        .map(|t| NewStep { title: t.into(), ..NewStep::default() });
    eng.append_plan(&task, &steps).await.unwrap();
    eng.update_plan_step(&task, 1, nomos::plan::StepStatus::Done, None).await.unwrap();
    eng.update_plan_step(&task, 2, nomos::plan::StepStatus::Running, None).await.unwrap();
    eng.ask_question(&task, QUESTION, &["yes".into(), "no".into()]).await.unwrap();
    add_operator_message(eng, Some(&task), LATEST).await.unwrap();
    task
}

/// Every call in the request is answered exactly once, right after its message, and every result
/// answers a call.
fn assert_paired(messages: &[ChatMessage], at: usize) {
    let mut open: Vec<String> = Vec::new();
    let mut seen = HashSet::new();
    for m in messages {
        match m.role {
            Role::Tool => {
                let id = m.tool_call_id.clone().unwrap();
                assert_eq!(open.first(), Some(&id), "request {at}: result {id} out of place");
                open.remove(0);
                assert!(seen.insert(id.clone()), "request {at}: {id} answered twice");
            }
            _ => {
                assert!(open.is_empty(), "request {at}: calls {open:?} without results");
                open = m.tool_calls.iter().map(|c| c.id.clone()).collect();
            }
        }
    }
    assert!(open.is_empty(), "request {at}: calls {open:?} without results");
}

#[tokio::test]
async fn a_long_task_stays_within_its_budget_and_keeps_what_matters() {
    let (dir, eng) = engine().await;
    let task = long_task(&eng).await;
    let tools = Looks::default();
    let model = Scripted::new(Box::new(|_, n| Ok(if n < 210 { look(n) } else { text("The fullest is /srv.") })));
    let config = config(230);
    let end = run_turn(&eng, &model, &tools, &config, &task, &CancellationToken::new()).await.unwrap();
    assert!(matches!(end, TurnEnd::Waiting(_)), "{end:?}");
    assert_eq!(tools.runs(), 210);

    let budget = Budget::new(8000, None, &tools.specs());
    let requests = model.main();
    assert_eq!(requests.len(), 211);
    for (i, r) in requests.iter().enumerate() {
        let tokens = estimate_messages(&r.messages);
        assert!(tokens <= budget.input_tokens(), "request {i}: {tokens} > {}", budget.input_tokens());
        let system = &r.messages[0];
        assert_eq!(system.role, Role::System);
        assert!(system.content.starts_with(nomos::agent::SOUL), "request {i}: the system prompt");
        for must in [GOAL, "1. [done] list the disks", "2. [running] measure each one", "3. [pending]", QUESTION] {
            assert!(system.content.contains(must), "request {i} lacks {must:?}");
        }
        assert!(r.messages.iter().any(|m| m.content.contains(LATEST)), "request {i}: the operator's latest message");
        assert_paired(&r.messages, i);
    }
    // The history was folded (not replayed): late requests are no larger than the budget allows
    // and much smaller than the whole transcript.
    let summaries = model.summaries();
    assert!(summaries.len() >= 3, "{} summaries", summaries.len());
    for (i, s) in summaries.iter().enumerate() {
        assert!(estimate_messages(&s.messages) <= budget.input_tokens(), "summary request {i} does not fit");
    }
    let last = requests.last().unwrap();
    assert!(!last.messages.iter().any(|m| m.content == "start with the disks"));

    // Every execution id of a folded turn is in the summary, and the summary is stored.
    let summary = latest_summary(&eng, &task).await.unwrap().unwrap();
    assert!(summary.model_upto_message_id > 0, "the model rewrote the narrative");
    let folded: Vec<String> = nomos::agent::transcript::Transcript::new(&eng, &task)
        .calls()
        .await
        .unwrap()
        .into_iter()
        .filter(|c| c.message_id <= summary.upto_message_id)
        .filter_map(|c| c.execution_id)
        .collect();
    assert!(folded.len() >= 15, "{folded:?}");
    for id in &folded {
        assert!(summary.record.contains(id.as_str()), "{id} not in the summary:\n{}", summary.record);
        assert!(last.messages[1].content.contains(id.as_str()), "{id} not in the request's summary");
    }
    assert!(last.messages[1].content.contains("Findings so far"));
    let rows: Vec<(String,)> = sqlx::query_as("SELECT method FROM context_summaries WHERE task_id = ? ORDER BY id")
        .bind(&task)
        .fetch_all(eng.store().pool())
        .await
        .unwrap();
    assert_eq!(rows.len(), summaries.len() + usize::from(summary.method == "digest"), "{rows:?}");

    // A restart (a new engine on the same file) continues from the stored summary.
    drop(eng);
    let eng = Engine::open(&dir.path().join("oikos.db")).await.unwrap();
    assert_eq!(latest_summary(&eng, &task).await.unwrap().as_ref(), Some(&summary));
    let model = Scripted::new(Box::new(|_, _| Ok(text("Still /srv."))));
    send_message(&eng, &model, &tools, &config, Some(&task), "and now?", &CancellationToken::new()).await.unwrap();
    let first = &model.main()[0];
    assert!(first.messages[1].content.contains("Findings so far") && first.messages[1].content.contains(&folded[0]));
    assert_eq!(first.messages.last().unwrap().content, "and now?");
    assert!(estimate_messages(&first.messages) <= budget.input_tokens());
}

#[tokio::test]
async fn a_model_that_cannot_summarise_leaves_a_digest_with_the_ids() {
    let (_dir, eng) = engine().await;
    let task = long_task(&eng).await;
    let tools = Looks::default();
    let mut model = Scripted::new(Box::new(|_, n| Ok(if n < 60 { look(n) } else { text("done") })));
    model.summary = Box::new(|_| Err(ModelError::Failed("HTTP 500".into())));
    run_turn(&eng, &model, &tools, &config(80), &task, &CancellationToken::new()).await.unwrap();
    let budget = Budget::new(8000, None, &tools.specs());
    assert!(!model.summaries().is_empty());
    for r in model.main() {
        assert!(estimate_messages(&r.messages) <= budget.input_tokens());
        assert_paired(&r.messages, 0);
    }
    let summary = latest_summary(&eng, &task).await.unwrap().unwrap();
    assert_eq!(summary.method, "digest");
    assert!(summary.record.contains(&exec_id(10).unwrap()), "{}", summary.record);
    // The digest names the calls it folded, with the first line of their results.
    assert_eq!(summary.model_upto_message_id, 0);
    let text = summary.message().content;
    assert!(text.contains("look({\"n\":"), "{text}");
    assert!(text.contains(": item "), "{text}");
}

#[tokio::test]
async fn a_context_length_error_folds_and_retries_once_then_stops_clearly() {
    let (_dir, eng) = engine().await;
    let task = long_task(&eng).await;
    let tools = Looks::default();
    // The provider's window is smaller than configured: it refuses the first request above 3000
    // estimated tokens, once.
    let refused = AtomicUsize::new(0);
    let refused = std::sync::Arc::new(refused);
    let r2 = refused.clone();
    let model = Scripted::new(Box::new(move |req, n| {
        if estimate_messages(&req.messages) > 3000 && r2.fetch_add(1, Ordering::SeqCst) == 0 {
            return Err(ModelError::ContextLength("maximum context length is 4096 tokens".into()));
        }
        Ok(if n < 40 { look(n) } else { text("done") })
    }));
    run_turn(&eng, &model, &tools, &config(60), &task, &CancellationToken::new()).await.unwrap();
    assert_eq!(refused.load(Ordering::SeqCst), 1);
    let main = model.main();
    let at = main.iter().position(|r| estimate_messages(&r.messages) > 3000).unwrap();
    let retry = &main[at + 1];
    assert!(
        estimate_messages(&retry.messages) < estimate_messages(&main[at].messages) * 3 / 4,
        "the retry is folded hard"
    );
    assert!(!model.summaries().is_empty());
    // Request `at` was refused (no answer, nothing run); every other one below 40 ran its look once.
    assert_eq!(tools.runs(), 39);
    let recorded = nomos::agent::transcript::Transcript::new(&eng, &task).calls().await.unwrap();
    assert_eq!(recorded.len(), 39);
    assert!(!recorded.iter().any(|c| c.call.id == format!("c{at}")));

    // A provider that refuses every request: one retry, then a clear stop.
    let (_dir, eng) = engine().await;
    let task = long_task(&eng).await;
    let model = Scripted::new(Box::new(|_, _| Err(ModelError::ContextLength("too long".into()))));
    let end = run_turn(&eng, &model, &tools, &config(60), &task, &CancellationToken::new()).await.unwrap();
    assert_eq!(end, TurnEnd::Waiting(WaitingFor::Message));
    assert_eq!(model.main().len(), 2);
    let t = eng.task(&task).await.unwrap();
    assert_eq!(t.status, TaskStatus::Waiting);
    let notes = nomos::agent::transcript::Transcript::new(&eng, &task).messages().await.unwrap();
    assert!(notes.last().unwrap().content.contains("NOMOS_CONTEXT_TOKENS"), "{}", notes.last().unwrap().content);
}

#[tokio::test]
async fn one_message_larger_than_the_budget_is_truncated_never_sent_whole() {
    let (_dir, eng) = engine().await;
    let huge = format!("here is the log:\n{}the end", "Dec 01 kernel: oom-killer invoked\n".repeat(2000));
    let model = Scripted::new(Box::new(|_, _| Ok(text("The kernel killed processes for memory."))));
    let (task, _) =
        send_message(&eng, &model, &TaskToolsOnly, &config(5), None, &huge, &CancellationToken::new()).await.unwrap();
    assert_eq!(task.status, TaskStatus::Done);
    let r = &model.main()[0];
    let budget = Budget::new(8000, None, &TaskToolsOnly.specs());
    assert!(estimate_messages(&r.messages) <= budget.input_tokens());
    let sent = &r.messages.last().unwrap().content;
    assert!(sent.starts_with("here is the log:") && sent.ends_with("the end") && sent.contains("bytes left out"));
    assert!(r.messages[0].content.starts_with(nomos::agent::SOUL));
}
