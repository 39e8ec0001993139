//! Plays one scenario: the lab and a runtime on a temporary SQLite file, one provider per task
//! (the scripted one over HTTP, or the real model), the operator's actions in order; then checks
//! the expectations and what every request carried.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::path::Path;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use nomos::actuate::{ActuateConfig, Decision};
use nomos::agent::chat::{ChatRequest, ChatResponse, Delta};
use nomos::agent::provider::{Provider, ProviderConfig, RetryPolicy};
use nomos::agent::tools::{Registry, RegistryConfig};
use nomos::agent::transcript::Transcript;
use nomos::agent::turn::{run_turn, GatedTools, Model, ModelError, TurnConfig};
#[cfg(debug_assertions)]
use nomos::testing_hooks::{PAUSE_AT_ENV, PAUSE_FILE_ENV};
use nomos::types::{Channel, Execution, TaskStatus};
use nomos_scripted_provider::{Script, ScriptedProvider, Step};
use serde_json::Value as Json;
use tokio_util::sync::CancellationToken;

use super::format::{glob, Expect, OpStep, Scenario, MAIN};
use crate::support::agent::pairing_problem;
use crate::support::{operator, q, World};

/// How a scenario is played.
#[derive(Clone)]
pub enum Mode {
    /// The scripted provider plays the model; everything is checked.
    Scripted,
    /// A real model: the scripted replies are ignored, only the `real` expectations are checked.
    Real(Provider),
}

/// One task of the scenario: its provider, its id once it exists, what the operator said to it.
struct Lane {
    server: Option<ScriptedProvider>,
    model: Recorded,
    id: Mutex<Option<String>>,
    /// (requests the provider had received when it was said, the message).
    said: Mutex<Vec<(usize, String)>>,
}

struct Play<'a> {
    sc: &'a Scenario,
    mode: Mode,
    w: World,
    tools: GatedTools,
    config: TurnConfig,
    lanes: BTreeMap<String, Lane>,
    /// The first `observe` step discovers the lab first.
    discovered: std::sync::atomic::AtomicBool,
}

/// `HOST KIND [ARG]` as `nomos lab fault` takes it (the kinds the scenarios use).
fn parse_fault(line: &str) -> Result<(String, nomos_lab::Fault), String> {
    use nomos_lab::Fault;
    let words: Vec<&str> = line.split_whitespace().collect();
    let num =
        |w: Option<&&str>| w.and_then(|w| w.parse::<u32>().ok()).ok_or(format!("fault {line:?}: a number is missing"));
    let fault = match words.get(1).copied() {
        Some("stop-service") => Fault::StopService {
            unit: words.get(2).ok_or(format!("fault {line:?}: which unit?"))?.to_string(),
            guest: None,
        },
        Some("fill-disk") => Fault::FillDisk { percent: num(words.get(2))?, guest: None },
        Some("stop-guest") => Fault::StopGuest { vmid: num(words.get(2))?, backup: false },
        Some("clear") => Fault::Clear,
        _ => {
            return Err(format!(
                "fault {line:?}: expected HOST stop-service UNIT | fill-disk PCT | stop-guest ID | clear"
            ))
        }
    };
    Ok((words[0].to_string(), fault))
}

/// Plays `sc` and returns what went wrong (empty: it passed).
pub async fn play(sc: &Scenario, mode: Mode) -> Vec<String> {
    let w = World::start(sc.hosts.max(1), false, ActuateConfig::default()).await;
    let tools = GatedTools { registry: Registry::new(RegistryConfig::default()), actuator: w.act.clone() };
    // The scenario's budget is the context window the loop works within, and what each request is
    // held to.
    let config = TurnConfig {
        max_iterations: sc.max_iterations.unwrap_or(40),
        context_tokens: u32::try_from(sc.budget_tokens).unwrap_or(u32::MAX),
        ..TurnConfig::default()
    };
    let mut labels = BTreeSet::from([MAIN.to_string()]);
    collect_labels(&sc.steps, &mut labels);
    labels.extend(sc.expect.keys().chain(sc.real.keys()).cloned());
    let mut lanes = BTreeMap::new();
    for label in labels {
        let lane = match &mode {
            Mode::Scripted => {
                let server = ScriptedProvider::start(Script::new(vec![])).await.expect("the scripted provider starts");
                let mut config = ProviderConfig::new(server.base_url(), "scripted");
                // Quick retries: a scenario waits only where the server says so (Retry-After).
                config.retry = RetryPolicy { base: Duration::from_millis(20), ..RetryPolicy::default() };
                let provider = Provider::new(config).expect("the provider client is configured");
                Lane {
                    server: Some(server),
                    model: Recorded::new(provider),
                    id: Mutex::default(),
                    said: Mutex::default(),
                }
            }
            Mode::Real(provider) => {
                let model = Recorded::new(provider.clone());
                Lane { server: None, model, id: Mutex::default(), said: Mutex::default() }
            }
        };
        lanes.insert(label, lane);
    }
    let p = Play { sc, mode, w, tools, config, lanes, discovered: Default::default() };
    let mut failures = Vec::new();
    for line in &sc.setup {
        let line = p.resolve_text(line, MAIN).await.unwrap_or_else(|e| e);
        let ok = std::process::Command::new("bash").args(["-c", &line]).status().map(|s| s.success());
        if !matches!(ok, Ok(true)) {
            failures.push(format!("setup `{line}` failed"));
        }
    }
    if failures.is_empty() {
        for (i, step) in sc.steps.iter().enumerate() {
            if let Err(e) = p.step(step).await {
                failures.push(format!("step {}: {e}", i + 1));
                break;
            }
            if matches!(p.mode, Mode::Scripted) {
                let mut expects = Vec::new();
                step_expects(step, &mut expects);
                for (label, expect) in expects {
                    for f in p.check(label, expect).await {
                        failures.push(format!("step {} ({label}) expect: {f}", i + 1));
                    }
                }
            }
        }
    }
    let expectations = match p.mode {
        Mode::Scripted => &sc.expect,
        Mode::Real(_) => &sc.real,
    };
    for (label, expect) in expectations {
        for f in p.check(label, expect).await {
            failures.push(format!("expect ({label}): {f}"));
        }
    }
    failures.extend(p.invariants().await);
    if !failures.is_empty() {
        failures.extend(p.transcripts().await);
    }
    failures
}

/// A step's expectations and those of the steps it runs at once, with their tasks.
fn step_expects<'s>(step: &'s OpStep, out: &mut Vec<(&'s str, &'s Expect)>) {
    if let Some(e) = &step.expect {
        out.push((&step.task, e));
    }
    for s in &step.parallel {
        step_expects(s, out);
    }
}

fn collect_labels(steps: &[OpStep], out: &mut BTreeSet<String>) {
    for s in steps {
        out.insert(s.task.clone());
        collect_labels(&s.parallel, out);
    }
}

impl Play<'_> {
    fn lane(&self, label: &str) -> &Lane {
        &self.lanes[label]
    }

    fn task_id(&self, label: &str) -> Option<String> {
        self.lane(label).id.lock().unwrap().clone()
    }

    fn need_task(&self, label: &str) -> Result<String, String> {
        self.task_id(label).ok_or_else(|| format!("task `{label}` does not exist yet"))
    }

    /// The task's executions, oldest first.
    async fn executions(&self, label: &str) -> Vec<Execution> {
        match self.task_id(label) {
            Some(id) => {
                let mut x = self.w.act.executions(Some(&id), None, 1000).await.unwrap();
                x.reverse();
                x
            }
            None => Vec::new(),
        }
    }

    /// Replaces the templates (see the format) in `text`.
    async fn resolve_text(&self, text: &str, label: &str) -> Result<String, String> {
        let mut out = String::new();
        let mut rest = text;
        while let Some(at) = rest.find("{{") {
            out.push_str(&rest[..at]);
            let end = rest[at..].find("}}").ok_or_else(|| format!("unclosed template in {text:?}"))? + at;
            let name = rest[at + 2..end].trim();
            let (kind, arg) = name.split_once(':').unwrap_or((name, ""));
            let value = match kind {
                "tmp" => self.w.tmp.path().display().to_string(),
                "marks" => q(&self.w.marks(arg)),
                "task" => self.need_task(if arg.is_empty() { label } else { arg })?,
                // The latest execution of a curated action, by its name.
                "execution" if arg.parse::<usize>().is_err() => {
                    let x = self.executions(label).await;
                    let x = x.iter().rev().find(|x| x.action == arg);
                    x.map(|x| x.id.clone()).ok_or_else(|| format!("no {arg} execution for {{{{{name}}}}}"))?
                }
                "execution" | "approval" => {
                    let n: usize = arg.parse().map_err(|_| format!("bad template {{{{{name}}}}}"))?;
                    let ids: Vec<String> = if kind == "execution" {
                        self.executions(label).await.into_iter().map(|x| x.id).collect()
                    } else {
                        self.approvals(label).await.into_iter().map(|a| a.id).collect()
                    };
                    ids.get(n.wrapping_sub(1)).cloned().ok_or_else(|| format!("no {kind} {n} for {{{{{name}}}}}"))?
                }
                _ => return Err(format!("unknown template {{{{{name}}}}}")),
            };
            out.push_str(&value);
            rest = &rest[end + 2..];
        }
        out.push_str(rest);
        Ok(out)
    }

    /// The task's approvals waiting for the operator, oldest first.
    async fn approvals(&self, label: &str) -> Vec<nomos::types::Approval> {
        let Some(id) = self.task_id(label) else { return Vec::new() };
        let all = self.w.act.pending_approvals().await.unwrap();
        all.into_iter().filter(|a| a.task_id.as_deref() == Some(id.as_str())).collect()
    }

    /// A template-resolved reply, every string in it.
    async fn resolve_json(&self, v: &Json, label: &str) -> Result<Json, String> {
        Ok(match v {
            Json::String(s) => Json::String(self.resolve_text(s, label).await?),
            Json::Array(a) => {
                let mut out = Vec::new();
                for x in a {
                    out.push(Box::pin(self.resolve_json(x, label)).await?);
                }
                Json::Array(out)
            }
            Json::Object(o) => {
                let mut out = serde_json::Map::new();
                for (k, x) in o {
                    out.insert(k.clone(), Box::pin(self.resolve_json(x, label)).await?);
                }
                Json::Object(out)
            }
            other => other.clone(),
        })
    }

    async fn step(&self, st: &OpStep) -> Result<(), String> {
        let action = st.action()?;
        if let Some(server) = &self.lane(&st.task).server {
            for r in &st.replies {
                let r = self.resolve_json(r, &st.task).await?;
                let step: Step = serde_json::from_value(r.clone()).map_err(|e| format!("bad reply {r}: {e}"))?;
                server.push(step);
            }
        }
        let label = st.task.as_str();
        let lane = self.lane(label);
        let cancel = CancellationToken::new();
        match action {
            "parallel" => {
                let runs = st.parallel.iter().map(|s| Box::pin(self.step(s)));
                let results = join_all(runs).await;
                results.into_iter().collect::<Result<Vec<()>, String>>()?;
            }
            "say" => {
                let message = self.resolve_text(st.say.as_deref().unwrap_or_default(), label).await?;
                let before = lane.requests().len();
                lane.said.lock().unwrap().push((before, message.clone()));
                if let Some(point) = &st.kill_at {
                    return self.killed_ask(label, &message, point).await;
                }
                if let Some(ms) = st.cancel_after_ms {
                    let c = cancel.clone();
                    tokio::spawn(async move {
                        tokio::time::sleep(Duration::from_millis(ms)).await;
                        c.cancel();
                    });
                }
                let id = self.task_id(label);
                let (task, _) = nomos::agent::send_message(
                    &self.w.engine,
                    &lane.model,
                    &self.tools,
                    &self.config,
                    id.as_deref(),
                    &message,
                    &cancel,
                )
                .await
                .map_err(|e| format!("say {message:?}: {e}"))?;
                *lane.id.lock().unwrap() = Some(task.id);
            }
            "approve_plan" => {
                let id = self.need_task(label)?;
                nomos::agent::assent::approve_plan(&self.w.engine, &self.w.act, &id)
                    .await
                    .map_err(|e| format!("approve_plan: {e}"))?;
                self.turn(label, &cancel).await?;
            }
            "approve" | "deny" => {
                let n = st.approve.or(st.deny).unwrap_or_default();
                let approvals = self.approvals(label).await;
                let a = approvals.get(n.wrapping_sub(1)).ok_or_else(|| format!("the task has no approval {n}"))?;
                let decision = Decision { actor: operator().actor, channel: Channel::Ui, message: st.confirm.clone() };
                let done = if action == "approve" {
                    self.w.act.approve(&a.id, &decision).await.map(|_| ())
                } else {
                    self.w.act.deny(&a.id, &decision).await.map(|_| ())
                };
                done.map_err(|e| format!("{action} {n}: {e}"))?;
            }
            "turn" => self.turn(label, &cancel).await?,
            "wait_executions" => self.wait_executions(label).await?,
            "continue" => {
                self.wait_executions(label).await?;
                let id = self.need_task(label)?;
                let agent = self.w.rt.agent();
                // The runtime's agent speaks to one provider: the first task that continues names it.
                agent.use_provider(lane.model.provider.clone());
                match agent.continue_task(&id).await.map_err(|e| format!("continue: {e}"))? {
                    Some(_) => {}
                    None => return Err("continue: nothing of the task was due to continue".into()),
                }
            }
            "fault" => {
                let line = st.fault.as_deref().unwrap_or_default();
                let (host, fault) = parse_fault(line)?;
                nomos_lab::fault(self.w.lab.dir(), &host, &fault).map_err(|e| format!("fault {line:?}: {e}"))?;
            }
            "observe" => {
                let o = st.observe.as_ref().ok_or("observe: no settings")?;
                self.observe(o).await?;
            }
            "investigate" => {
                let spec = st.investigate.as_deref().unwrap_or_default();
                let mut words = spec.split_whitespace();
                let kind = words.next().ok_or("investigate: name the signal's kind")?;
                let entity = words.next();
                let list = self.w.engine.list_signals(&Default::default()).await.map_err(|e| e.to_string())?;
                let signal = list
                    .signals
                    .iter()
                    .find(|s| s.kind == kind && entity.is_none_or(|e| s.entity.as_deref() == Some(e)))
                    .ok_or_else(|| format!("investigate: no open {spec} signal"))?;
                let inv = self.w.act.investigate(&signal.id, false).await.map_err(|e| format!("investigate: {e}"))?;
                *lane.id.lock().unwrap() = Some(inv.task_id.clone());
                self.turn(label, &cancel).await?;
            }
            other => return Err(format!("unknown action {other}")),
        }
        Ok(())
    }

    /// Observe's cycles as a step asks for them; discovery runs first, once.
    async fn observe(&self, o: &super::format::ObserveStep) -> Result<(), String> {
        if !self.discovered.swap(true, std::sync::atomic::Ordering::SeqCst) {
            let apply = Some(nomos::discovery::ApplyBy::Operator(operator().actor));
            self.w
                .act
                .discover("host:pve1", nomos::discovery::DiscoverOptions { apply })
                .await
                .map_err(|e| format!("discovery: {e}"))?;
        }
        // A quick look each step: every host read now (the background cycle reads them once a
        // minute); signals replay what is stored, so nothing is lost between steps.
        let observer = &nomos::observe::Observer::quick().map_err(|e| e.to_string())?;
        let mut settings = self.w.engine.observe_settings().await.map_err(|e| e.to_string())?;
        settings.investigate_critical = o.investigate_critical;
        settings.investigate_warnings = o.investigate_warnings;
        self.w.engine.save_observe_settings(&settings).await.map_err(|e| e.to_string())?;
        observer.set_investigates(o.investigate_critical || o.investigate_warnings);
        let mut opened = 0;
        for _ in 0..o.cycles {
            tokio::time::sleep(Duration::from_secs(o.wait_s)).await;
            let r = self.w.act.observe_once(observer).await.map_err(|e| format!("observe: {e}"))?;
            opened += r.investigations.len();
        }
        if let Some(want) = o.investigations {
            if opened != want {
                return Err(format!("automatic investigation opened {opened} task(s), expected {want}"));
            }
        }
        let open = self.w.engine.list_signals(&Default::default()).await.map_err(|e| e.to_string())?;
        for kind in &o.signals {
            if !open.signals.iter().any(|s| &s.kind == kind) {
                let kinds: Vec<&str> = open.signals.iter().map(|s| s.kind.as_str()).collect();
                return Err(format!("no open {kind} signal after observing (open: {kinds:?})"));
            }
        }
        Ok(())
    }

    async fn wait_executions(&self, label: &str) -> Result<(), String> {
        let deadline = Instant::now() + Duration::from_secs(60);
        while self.executions(label).await.iter().any(|x| !x.status.is_final()) {
            if Instant::now() > deadline {
                return Err("the task's executions did not end within 60 s".into());
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        Ok(())
    }

    async fn turn(&self, label: &str, cancel: &CancellationToken) -> Result<(), String> {
        let id = self.need_task(label)?;
        run_turn(&self.w.engine, &self.lane(label).model, &self.tools, &self.config, &id, cancel)
            .await
            .map(|_| ())
            .map_err(|e| format!("turn: {e}"))
    }

    /// `nomos ask` (the real binary, on the same database and provider) stopped at `point` and
    /// killed there with SIGKILL, as a crash would.
    async fn killed_ask(&self, label: &str, message: &str, point: &str) -> Result<(), String> {
        let lane = self.lane(label);
        let id = match self.task_id(label) {
            Some(id) => id,
            None => {
                let id = self.w.engine.create_task(message, "").await.map_err(|e| e.to_string())?.id;
                *lane.id.lock().unwrap() = Some(id.clone());
                id
            }
        };
        let url = lane.server.as_ref().map(|s| s.base_url()).ok_or("a kill needs the scripted provider")?;
        let pause_file = self.w.tmp.path().join(format!("paused-{point}"));
        let mut command = std::process::Command::new(env!("CARGO_BIN_EXE_nomos"));
        command
            .arg("--db")
            .arg(self.w.tmp.path().join("oikos.db"))
            .args(["ask", "--task", &id, message])
            .env("NOMOS_LLM_BASE_URL", url)
            .env("NOMOS_MODEL", "scripted")
            .env("NOMOS_API_KEY", "unused")
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null());
        // A release build has no pause points: the process then runs on and the kill is reported
        // as never reached.
        #[cfg(debug_assertions)]
        command.env(PAUSE_AT_ENV, point).env(PAUSE_FILE_ENV, &pause_file);
        let mut child = command.spawn().map_err(|e| format!("cannot start nomos: {e}"))?;
        let deadline = Instant::now() + Duration::from_secs(60);
        while !pause_file.exists() {
            if let Ok(Some(status)) = child.try_wait() {
                return Err(format!(
                    "nomos ask ended ({status}) before it reached {point} (pause points exist in debug builds only)"
                ));
            }
            if Instant::now() > deadline {
                let _ = child.kill();
                return Err(format!("nomos ask never reached {point}"));
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        child.kill().map_err(|e| e.to_string())?;
        child.wait().map_err(|e| e.to_string())?;
        Ok(())
    }

    /// What does not hold of `expect` for the task `label`.
    async fn check(&self, label: &str, e: &Expect) -> Vec<String> {
        let mut f = Vec::new();
        let Some(id) = self.task_id(label) else {
            return vec![format!("task `{label}` was never created")];
        };
        let task = self.w.engine.task(&id).await.unwrap();
        let status = word(&task.status);
        if let Some(want) = &e.status {
            if !want.admits(&status) {
                f.push(format!("status is {status}, expected {want} ({})", task.summary));
            }
        }
        if let Some(want) = &e.waiting_for {
            let got = task.waiting_for.map_or("none".to_string(), |w| word(&w));
            if !want.admits(&got) {
                f.push(format!("waiting_for is {got}, expected {want}"));
            }
        }
        if let Some(want) = &e.outcome {
            let got = task.outcome.map_or("none".to_string(), |o| word(&o));
            if !want.admits(&got) {
                f.push(format!("outcome is {got}, expected {want}"));
            }
        }
        if let Some(want) = &e.summary_contains {
            if !task.summary.contains(want.as_str()) {
                f.push(format!("summary {:?} lacks {want:?}", task.summary));
            }
        }
        let executions = self.executions(label).await;
        let shown =
            || executions.iter().map(|x| format!("[{} {} {}]", x.action, x.status, x.command)).collect::<Vec<_>>();
        if let Some(want) = &e.executions {
            let fits = want.len() == executions.len()
                && want.iter().zip(&executions).all(|(w, x)| {
                    w.command.as_ref().is_none_or(|c| glob(c, &x.command))
                        && w.action.as_ref().is_none_or(|a| a == &x.action)
                        && w.target.as_ref().is_none_or(|t| t == &x.target)
                        && w.status.as_ref().is_none_or(|s| s.admits(&word(&x.status)))
                });
            if !fits {
                f.push(format!("executions are {:?}, expected {want:?}", shown()));
            }
        }
        for pattern in &e.never_ran {
            if let Some(x) = executions.iter().find(|x| x.started_at.is_some() && glob(pattern, &x.command)) {
                f.push(format!("an execution that ran matches {pattern:?}: {} ({})", x.command, x.status));
            }
        }
        if let Some(n) = e.pending_approvals {
            let pending = self.approvals(label).await.len();
            if pending != n {
                f.push(format!("{pending} approvals wait, expected {n}"));
            }
        }
        let transcript = Transcript::new(&self.w.engine, &id);
        if !e.calls.is_empty() {
            let calls = transcript.calls().await.unwrap();
            for want in &e.calls {
                let Some(c) = calls.iter().find(|c| c.call.id == want.id) else {
                    f.push(format!("no tool call {}", want.id));
                    continue;
                };
                let result = c.result.clone().unwrap_or_default();
                if let Some(s) = &want.state {
                    if !s.admits(c.state.as_str()) {
                        f.push(format!("call {} is {}, expected {s}", want.id, c.state.as_str()));
                    }
                }
                if want.error.is_some_and(|err| err != c.is_error) {
                    f.push(format!("call {} is_error {}: {result}", want.id, c.is_error));
                }
                if let Some(text) = &want.result_contains {
                    if !result.contains(text.as_str()) {
                        f.push(format!("call {} result lacks {text:?}: {result}", want.id));
                    }
                }
                if want.execution.is_some_and(|x| x != c.execution_id.is_some()) {
                    f.push(format!("call {} execution is {:?}", want.id, c.execution_id));
                }
            }
        }
        if let Some(text) = &e.question_contains {
            let questions = self.w.engine.questions(&id).await.unwrap();
            if !questions.iter().any(|q| q.prompt.contains(text.as_str())) {
                f.push(format!("no question contains {text:?}"));
            }
        }
        if !e.transcript_contains.is_empty() || !e.transcript_lacks.is_empty() {
            let messages = transcript.messages().await.unwrap();
            for text in &e.transcript_contains {
                if !messages.iter().any(|m| m.content.contains(text.as_str())) {
                    f.push(format!("no transcript message contains {text:?}"));
                }
            }
            for text in &e.transcript_lacks {
                if messages.iter().any(|m| m.content.contains(text.as_str())) {
                    f.push(format!("a transcript message contains {text:?}"));
                }
            }
        }
        for (name, lines) in &e.marks {
            let got = self.w.read_marks(name);
            if &got != lines {
                f.push(format!("marks {name} are {got:?}, expected {lines:?}"));
            }
        }
        for (file, texts) in &e.lab_file_contains {
            let text = std::fs::read_to_string(self.w.lab.dir().join(file)).unwrap_or_default();
            for t in texts {
                if !text.contains(t.as_str()) {
                    f.push(format!("lab file {file} lacks {t:?}: {text:?}"));
                }
            }
        }
        for (paths, want) in [(&e.exists, true), (&e.absent, false)] {
            for p in paths {
                let p = self.resolve_text(p, label).await.unwrap_or_else(|e| e);
                if Path::new(&p).exists() != want {
                    f.push(format!("{p} {}", if want { "does not exist" } else { "exists" }));
                }
            }
        }
        if let Some(other) = &e.ended_before_executions_of {
            let others = self.executions(other).await;
            if others.is_empty() {
                f.push(format!("task {other} has no executions"));
            }
            for x in others {
                // Timestamps are fixed-width UTC text: their order is their time's.
                if let Some(end) = x.finished_at.as_ref().filter(|end| **end <= task.updated_at) {
                    f.push(format!(
                        "{other}'s `{}` ended at {end}, before this task did ({})",
                        x.command, task.updated_at
                    ));
                }
            }
        }
        if e.requests.is_some() || !e.last_request_contains.is_empty() {
            let requests = self.lane(label).requests();
            if let Some(n) = e.requests {
                if requests.len() != n {
                    f.push(format!("the provider received {} requests, expected {n}", requests.len()));
                }
            }
            let last = requests.last().map(|r| r.to_string()).unwrap_or_default();
            for text in &e.last_request_contains {
                if !last.contains(text.as_str()) {
                    f.push(format!("the last request lacks {text:?}"));
                }
            }
        }
        f
    }

    /// Each task's conversation in short, to read a failure by.
    async fn transcripts(&self) -> Vec<String> {
        let mut out = Vec::new();
        for label in self.lanes.keys() {
            let Some(id) = self.task_id(label) else { continue };
            let t = Transcript::new(&self.w.engine, &id);
            out.push(format!("-- {label}: the conversation"));
            for m in t.messages().await.unwrap() {
                let text: String = m.content.chars().take(200).collect();
                out.push(format!("   {}: {}", word(&m.role), text.replace('\n', " ")));
            }
            for c in t.calls().await.unwrap() {
                let result: String = c.result.unwrap_or_default().chars().take(200).collect();
                let error = if c.is_error { " error" } else { "" };
                out.push(format!(
                    "   call {} {} [{}{error}]: {}",
                    c.call.id,
                    c.call.name,
                    c.state.as_str(),
                    result.replace('\n', " ")
                ));
            }
        }
        out
    }

    /// What holds in every scenario, whatever the model: no task left working, no change ran twice,
    /// and every request well formed (system prompt first, each call paired with one result, the
    /// operator's latest message present, within the budget); with the scripted provider also that
    /// every scripted reply was asked for.
    async fn invariants(&self) -> Vec<String> {
        let mut f = Vec::new();
        for (label, lane) in &self.lanes {
            let Some(id) = self.task_id(label) else { continue };
            let task = self.w.engine.task(&id).await.unwrap();
            if task.status == TaskStatus::Working {
                f.push(format!("task {label} was left working"));
            }
            // Reads may repeat (a planner reads the host again); nothing that changes anything may.
            let mut ran: HashMap<(String, String), usize> = HashMap::new();
            for x in self.executions(label).await {
                if x.started_at.is_some() && word(&x.risk) != "read_only" {
                    *ran.entry((x.target.clone(), x.command.clone())).or_default() += 1;
                }
            }
            if !self.sc.allow_repeats {
                for ((target, command), n) in &ran {
                    if *n > 1 {
                        f.push(format!("task {label}: `{command}` ran {n} times on {target}"));
                    }
                }
            }
            if let Some(server) = &lane.server {
                if server.remaining() > 0 {
                    f.push(format!("task {label}: {} scripted replies were never asked for", server.remaining()));
                }
            }
            let said = lane.said.lock().unwrap().clone();
            for (i, r) in lane.requests().iter().enumerate() {
                let messages = r["messages"].as_array().cloned().unwrap_or_default();
                if messages.first().map(|m| m["role"] != "system").unwrap_or(true) {
                    f.push(format!("task {label}: request {} does not start with the system prompt", i + 1));
                }
                if let Some(p) = pairing_problem(r) {
                    f.push(format!("task {label}: request {}: {p}", i + 1));
                }
                let bytes = r.to_string().len();
                if bytes / 4 > self.sc.budget_tokens {
                    f.push(format!(
                        "task {label}: request {} is ~{} tokens ({bytes} bytes), over the budget of {}",
                        i + 1,
                        bytes / 4,
                        self.sc.budget_tokens
                    ));
                }
                if let Some((_, latest)) = said.iter().rev().find(|(before, _)| *before <= i) {
                    let present = messages.iter().any(|m| m["role"] == "user" && m["content"] == latest.as_str());
                    if !present {
                        f.push(format!(
                            "task {label}: request {} lacks the operator's latest message {latest:?}",
                            i + 1
                        ));
                    }
                }
            }
        }
        f
    }
}

impl Lane {
    /// Every request body the task's provider received: as the scripted server read them off the
    /// wire (retries included), or, against a real model, as the client built them.
    fn requests(&self) -> Vec<Json> {
        match &self.server {
            Some(s) => s.requests(),
            None => self.model.bodies.lock().unwrap().clone(),
        }
    }
}

/// The provider client, keeping the body of every request it is asked to send.
struct Recorded {
    provider: Provider,
    bodies: Mutex<Vec<Json>>,
}

impl Recorded {
    fn new(provider: Provider) -> Recorded {
        Recorded { provider, bodies: Mutex::default() }
    }
}

impl Model for Recorded {
    async fn complete(
        &self,
        request: &ChatRequest,
        on_delta: &(dyn Fn(Delta) + Send + Sync),
        cancel: &CancellationToken,
    ) -> Result<ChatResponse, ModelError> {
        self.bodies.lock().unwrap().push(self.provider.request_body(request));
        Model::complete(&self.provider, request, on_delta, cancel).await
    }
}

/// Runs the futures at once and returns their results in order.
pub async fn join_all<F: std::future::Future>(futures: impl Iterator<Item = F>) -> Vec<F::Output> {
    let mut pending: Vec<_> = futures.map(Box::pin).collect();
    let mut out: Vec<Option<F::Output>> = pending.iter().map(|_| None).collect();
    std::future::poll_fn(|cx| {
        let mut all = true;
        for (i, f) in pending.iter_mut().enumerate() {
            if out[i].is_none() {
                match f.as_mut().poll(cx) {
                    std::task::Poll::Ready(v) => out[i] = Some(v),
                    std::task::Poll::Pending => all = false,
                }
            }
        }
        if all {
            std::task::Poll::Ready(())
        } else {
            std::task::Poll::Pending
        }
    })
    .await;
    out.into_iter().map(|o| o.expect("every future finished")).collect()
}

/// The word a typed value serialises to (`done`, `approval`, `completed`, …).
fn word<T: serde::Serialize>(v: &T) -> String {
    match serde_json::to_value(v) {
        Ok(Json::String(s)) => s,
        Ok(other) => other.to_string(),
        Err(e) => format!("<{e}>"),
    }
}
