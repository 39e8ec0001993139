//! Nomos, the agent: it takes an operator's goal, researches the graph and the knowledge base,
//! proposes one plan, and carries it out through the gate once the operator approves.
//!
//! - [`chat`]: the conversation as a provider sees it (shared types);
//! - [`provider`]: the OpenAI-compatible chat-completions client;
//! - [`secrets`]: the API key in the OS keychain;
//! - [`tools`]: what Nomos may call, checked against each tool's schema;
//! - [`transcript`]: the conversation, written ahead of every side effect;
//! - [`turn`]: one turn of a task, its guards, and the state it always ends in;
//! - [`context`]: what one request may hold, and the summaries that keep it there;
//! - [`assent`]: the operator's message as the one plan approval;
//! - [`continuation`]: a task resumes when an execution it waits on ends.

pub mod assent;
pub mod chat;
pub mod context;
pub mod continuation;
pub mod provider;
pub mod secrets;
pub mod tools;
pub mod transcript;
pub mod turn;

/// The system prompt: who Nomos is and how it works.
pub const SOUL: &str = include_str!("../../SOUL.md");

/// Adds an operator message to a task (a new one when `task` is `None`, titled by the message),
/// answering its open questions; returns the task's id.
pub async fn add_operator_message(engine: &crate::Engine, task: Option<&str>, message: &str) -> crate::Result<String> {
    let message = message.trim();
    if message.is_empty() {
        return Err(crate::Error::Invalid("the message is empty".into()));
    }
    let id = match task {
        Some(id) => {
            let t = engine.task(id).await?;
            if let Some(driver) = &t.driver {
                // Nobody would read it: the session's agent talks over MCP, and Nomos does not act here.
                let who = nomos_types::mcp::asker(driver).unwrap_or_else(|| driver.clone());
                return Err(crate::Error::Invalid(format!(
                    "task {id} is {who}'s session over MCP: nobody reads messages there; decide its requests in \
                     Approvals"
                )));
            }
            if t.waiting_for == Some(nomos_types::WaitingFor::Answer) {
                engine.answer_questions(id, message).await?;
            }
            t.id
        }
        None => {
            let title: String = message.lines().next().unwrap_or_default().chars().take(80).collect();
            engine.create_task(&title, "").await?.id
        }
    };
    transcript::Transcript::new(engine, &id).add(chat::Role::User, message, None).await?;
    Ok(id)
}

/// Adds an operator message (see [`add_operator_message`]) and, when the task waits for its plan
/// or an approval, reads it as a decision through the gate (see [`assent`]). Without an actuator
/// (a conversation that touches nothing) the message is only a message.
pub async fn receive_operator_message(
    engine: &crate::Engine,
    actuator: Option<&crate::actuate::Actuator>,
    task: Option<&str>,
    message: &str,
) -> crate::Result<String> {
    let id = add_operator_message(engine, task, message).await?;
    if let Some(actuator) = actuator {
        assent::on_operator_message(engine, actuator, &id, message.trim()).await?;
    }
    Ok(id)
}

/// Runs one operator message to the end of its turn (see [`add_operator_message`]). Returns the
/// task as the turn left it, never `working`. The loop's test entry point.
pub async fn send_message<M: turn::Model, T: turn::Tools>(
    engine: &crate::Engine,
    model: &M,
    tools: &T,
    config: &turn::TurnConfig,
    task: Option<&str>,
    message: &str,
    cancel: &tokio_util::sync::CancellationToken,
) -> crate::Result<(nomos_types::Task, turn::TurnEnd)> {
    let id = receive_operator_message(engine, tools.actuator(), task, message).await?;
    let end = turn::run_turn(engine, model, tools, config, &id, cancel).await?;
    Ok((engine.task(&id).await?, end))
}

/// A task that resumed by itself, as its turn left it.
#[derive(Debug, Clone)]
pub struct Continued {
    pub task: nomos_types::Task,
    pub end: turn::TurnEnd,
}

/// The provider an [`Agent`] uses and where it comes from.
#[derive(Default)]
struct ProviderSlot {
    /// The operator's settings from the database.
    stored: Option<nomos_types::ProviderSettings>,
    /// Built from the environment or `stored` on first use, or given with [`Agent::use_provider`].
    in_use: Option<provider::Provider>,
    /// Given with [`Agent::use_provider`]: settings do not replace it.
    fixed: bool,
}

/// Nomos as the runtime owns it: the provider (configured on first use — a missing one is an
/// error only then), every tool through the gate, and the turns running now, to cancel them.
pub struct Agent {
    engine: crate::Engine,
    tools: turn::GatedTools,
    provider: std::sync::RwLock<ProviderSlot>,
    config: turn::TurnConfig,
    running: std::sync::Mutex<std::collections::HashMap<String, tokio_util::sync::CancellationToken>>,
    /// Each task that resumed by itself (see [`Agent::follow_continued`]).
    continued: tokio::sync::broadcast::Sender<Continued>,
    /// Whether "no provider" was logged already (continuations wait for one).
    said_no_provider: std::sync::atomic::AtomicBool,
}

impl std::fmt::Debug for Agent {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let in_use = self.lock_provider().in_use.is_some();
        f.debug_struct("Agent").field("provider_in_use", &in_use).finish_non_exhaustive()
    }
}

impl Agent {
    pub fn new(engine: crate::Engine, actuator: crate::actuate::Actuator) -> Agent {
        let tools = turn::GatedTools { registry: tools::Registry::new(tools::RegistryConfig::default()), actuator };
        Agent {
            engine,
            tools,
            provider: std::sync::RwLock::default(),
            config: turn::TurnConfig::default(),
            running: std::sync::Mutex::default(),
            continued: tokio::sync::broadcast::channel(64).0,
            said_no_provider: std::sync::atomic::AtomicBool::new(false),
        }
    }

    /// The provider: from `NOMOS_LLM_BASE_URL` and friends when set, else from the operator's
    /// stored settings (see [`Agent::use_settings`]); the key from `NOMOS_API_KEY` or the
    /// keychain. Built on first use and kept until the settings change; a missing or bad
    /// configuration is not kept, so the next call reads again.
    pub fn provider(&self) -> crate::Result<provider::Provider> {
        let stored = {
            let slot = self.lock_provider();
            if let Some(p) = &slot.in_use {
                return Ok(p.clone());
            }
            slot.stored.clone()
        };
        let built = provider::ProviderConfig::from_env_or_settings(stored.as_ref())
            .and_then(provider::Provider::new)
            .map_err(|e| crate::Error::Invalid(e.to_string()))?;
        let mut slot = self.write_provider();
        // Another caller may have built one (or settings changed) meanwhile: keep what is there.
        if slot.stored == stored {
            Ok(slot.in_use.get_or_insert(built).clone())
        } else {
            Ok(built)
        }
    }

    /// Uses `provider` instead of reading the environment or the settings (tests, embedders):
    /// later settings do not replace it. False when a provider was already in use.
    pub fn use_provider(&self, provider: provider::Provider) -> bool {
        let mut slot = self.write_provider();
        slot.fixed = true;
        slot.in_use.replace(provider).is_none()
    }

    /// The operator's stored provider settings (read from the database by the caller, at start and
    /// after each change). The next turn uses them, unless the environment names a provider.
    pub fn use_settings(&self, settings: Option<nomos_types::ProviderSettings>) {
        let mut slot = self.write_provider();
        if slot.stored != settings {
            slot.stored = settings;
            if !slot.fixed {
                slot.in_use = None;
            }
        }
    }

    /// Forgets the provider in use, so the next turn builds it again (a new API key in the
    /// keychain).
    pub fn reload_provider(&self) {
        let mut slot = self.write_provider();
        if !slot.fixed {
            slot.in_use = None;
        }
    }

    fn lock_provider(&self) -> std::sync::RwLockReadGuard<'_, ProviderSlot> {
        // The slot holds plain values; one left by a panicking thread is still consistent.
        self.provider.read().unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    fn write_provider(&self) -> std::sync::RwLockWriteGuard<'_, ProviderSlot> {
        self.provider.write().unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Runs the operator's message to the end of its turn (see [`send_message`]).
    pub async fn send(&self, task: Option<&str>, message: &str) -> crate::Result<(nomos_types::Task, turn::TurnEnd)> {
        let id = self.add_message(task, message).await?;
        self.run(&id).await
    }

    /// The first half of [`Agent::send`]: records the message (a new task for `None`) and returns
    /// the task's id, so the caller can follow its events before the turn starts. Fails before
    /// recording anything when no provider is configured.
    pub async fn add_message(&self, task: Option<&str>, message: &str) -> crate::Result<String> {
        self.provider()?;
        receive_operator_message(&self.engine, Some(&self.tools.actuator), task, message).await
    }

    /// The UI's "approve plan" button: opens the task's assent window and grants what its last
    /// turn queued (see [`assent::approve_plan`]), then runs the task's next turn.
    pub async fn approve_plan(&self, task: &str) -> crate::Result<(nomos_types::Task, turn::TurnEnd)> {
        self.grant_plan(task).await?;
        self.run(task).await
    }

    /// The first half of [`Agent::approve_plan`]: grants the plan without running the turn, so
    /// the caller can run it where it likes. Fails before granting anything without a provider.
    pub async fn grant_plan(&self, task: &str) -> crate::Result<assent::Granted> {
        self.provider()?;
        assent::approve_plan(&self.engine, &self.tools.actuator, task).await
    }

    /// The second half of [`Agent::send`]: one turn of the task, to its end. Refused (a conflict)
    /// while a turn of the task runs, here or in another process.
    pub async fn run(&self, id: &str) -> crate::Result<(nomos_types::Task, turn::TurnEnd)> {
        let provider = self.provider()?;
        // A child of the engine's stop: stopping the engine stops every turn (see `stop`).
        if self.config.stop.is_cancelled() {
            return Err(crate::Error::Conflict("the engine is stopping: no new turn starts".into()));
        }
        let cancel = self.config.stop.child_token();
        {
            let mut running = self.lock_running();
            if running.contains_key(id) {
                return Err(crate::Error::Conflict(format!("task {id} is already being worked on (by this process)")));
            }
            running.insert(id.to_string(), cancel.clone());
        }
        // The context budget is the configured model's window.
        let config = turn::TurnConfig { context_tokens: provider.config().context_tokens, ..self.config.clone() };
        let end = turn::run_turn(&self.engine, &provider, &self.tools, &config, id, &cancel).await;
        self.lock_running().remove(id);
        Ok((self.engine.task(id).await?, end?))
    }

    /// Stops the task's running turn: the model's stream at once, a running command through the
    /// executor's kill path; the task ends `cancelled`. False when no turn of it runs here.
    pub fn cancel(&self, task: &str) -> bool {
        match self.lock_running().get(task) {
            Some(token) => {
                token.cancel();
                true
            }
            None => false,
        }
    }

    /// The engine is stopping: every turn running here stops (its running command killed through
    /// the executor), and its task waits for the operator's next message — it is not cancelled.
    /// Turns started afterwards stop at once. Returns how many were running.
    pub fn stop(&self) -> usize {
        self.config.stop.cancel();
        self.lock_running().len()
    }

    /// How many turns run in this process now.
    pub fn running(&self) -> usize {
        self.lock_running().len()
    }

    /// Resumes every task an ended execution is due to continue (see [`continuation`]): claims
    /// the links (each exactly once across processes), notes them in the transcripts, and runs
    /// one turn per task, the tasks concurrently. Returns the tasks that ran a turn and how it
    /// ended. Without a provider nothing is claimed: the links wait for one.
    pub async fn continue_ready(&self) -> crate::Result<Vec<(String, turn::TurnEnd)>> {
        let tasks = self.claim_continuations(None).await?;
        let turns = tasks.iter().map(|t| self.resume(t));
        let mut out = Vec::new();
        for (task, r) in tasks.iter().zip(futures_util::future::join_all(turns).await) {
            if let Some(c) = r? {
                out.push((task.clone(), c.end));
            }
        }
        Ok(out)
    }

    /// [`Agent::continue_ready`] for one task: `None` when nothing of it was due (or another
    /// process claimed it first, or it ended, or a turn of it runs now and reads the note).
    pub async fn continue_task(&self, task: &str) -> crate::Result<Option<Continued>> {
        if self.claim_continuations(Some(task)).await?.is_empty() {
            return Ok(None);
        }
        self.resume(task).await
    }

    /// The first half of a continuation: claims the due links (of `task`, or all) and notes them;
    /// returns the tasks to [`Agent::resume`]. Claims nothing without a provider, saying so once
    /// in the log.
    pub async fn claim_continuations(&self, task: Option<&str>) -> crate::Result<Vec<String>> {
        if self.config.stop.is_cancelled() {
            // Left for the next start (or another process) to continue.
            return Ok(Vec::new());
        }
        if let Err(e) = self.provider() {
            if !self.said_no_provider.swap(true, std::sync::atomic::Ordering::Relaxed) {
                tracing::warn!("tasks are not continued until a provider is configured: {e}");
            }
            return Ok(Vec::new());
        }
        continuation::claim_due(&self.engine, task).await
    }

    /// The second half: one turn of a task whose continuation was claimed. `None` when the task
    /// is being worked on (here or elsewhere: that turn reads the note) or has ended.
    pub async fn resume(&self, task: &str) -> crate::Result<Option<Continued>> {
        if self.engine.task(task).await?.status.is_end() {
            return Ok(None);
        }
        match self.run(task).await {
            Ok((task, end)) => {
                let c = Continued { task, end };
                // Nobody listening is fine.
                let _ = self.continued.send(c.clone());
                Ok(Some(c))
            }
            Err(crate::Error::Conflict(why)) => {
                tracing::info!(task, "not resumed: {why}; the running turn reads the note");
                Ok(None)
            }
            Err(e) => Err(e),
        }
    }

    /// Each task that resumes by itself from now on, as its turn left it.
    pub fn follow_continued(&self) -> tokio::sync::broadcast::Receiver<Continued> {
        self.continued.subscribe()
    }

    fn lock_running(
        &self,
    ) -> std::sync::MutexGuard<'_, std::collections::HashMap<String, tokio_util::sync::CancellationToken>> {
        self.running.lock().unwrap_or_else(|e| e.into_inner())
    }
}
