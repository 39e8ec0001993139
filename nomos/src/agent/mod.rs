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
//! - [`assent`]: the operator's message as the one plan approval.

pub mod assent;
pub mod chat;
pub mod context;
pub mod provider;
pub mod secrets;
pub mod tools;
pub mod transcript;
pub mod turn;

/// The system prompt: who Nomos is and how it works.
pub const SOUL: &str = include_str!("../../SOUL.md");

impl From<tools::WaitingFor> for nomos_types::WaitingFor {
    fn from(w: tools::WaitingFor) -> nomos_types::WaitingFor {
        match w {
            tools::WaitingFor::Answer => nomos_types::WaitingFor::Answer,
            tools::WaitingFor::Plan => nomos_types::WaitingFor::Plan,
            tools::WaitingFor::Approval => nomos_types::WaitingFor::Approval,
        }
    }
}

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

/// Nomos as the runtime owns it: the provider (configured on first use — a missing one is an
/// error only then), every tool through the gate, and the turns running now, to cancel them.
pub struct Agent {
    engine: crate::Engine,
    tools: turn::GatedTools,
    provider: std::sync::OnceLock<Result<provider::Provider, String>>,
    config: turn::TurnConfig,
    running: std::sync::Mutex<std::collections::HashMap<String, tokio_util::sync::CancellationToken>>,
}

impl std::fmt::Debug for Agent {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Agent").field("provider", &self.provider.get().map(|p| p.is_ok())).finish_non_exhaustive()
    }
}

impl Agent {
    pub fn new(engine: crate::Engine, actuator: crate::actuate::Actuator) -> Agent {
        let tools = turn::GatedTools { registry: tools::Registry::new(tools::RegistryConfig::default()), actuator };
        Agent {
            engine,
            tools,
            provider: std::sync::OnceLock::new(),
            config: turn::TurnConfig::default(),
            running: std::sync::Mutex::default(),
        }
    }

    /// The provider from `NOMOS_LLM_BASE_URL` and friends, read once.
    pub fn provider(&self) -> crate::Result<&provider::Provider> {
        let p = self.provider.get_or_init(|| {
            provider::ProviderConfig::from_env().and_then(provider::Provider::new).map_err(|e| e.to_string())
        });
        p.as_ref().map_err(|e| crate::Error::Invalid(e.clone()))
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
        self.provider()?;
        assent::approve_plan(&self.engine, &self.tools.actuator, task).await?;
        self.run(task).await
    }

    /// The second half of [`Agent::send`]: one turn of the task, to its end.
    pub async fn run(&self, id: &str) -> crate::Result<(nomos_types::Task, turn::TurnEnd)> {
        let provider = self.provider()?;
        // The context budget is the configured model's window.
        let config = turn::TurnConfig { context_tokens: provider.config().context_tokens, ..self.config.clone() };
        let cancel = tokio_util::sync::CancellationToken::new();
        self.lock_running().insert(id.to_string(), cancel.clone());
        let end = turn::run_turn(&self.engine, provider, &self.tools, &config, id, &cancel).await;
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

    fn lock_running(
        &self,
    ) -> std::sync::MutexGuard<'_, std::collections::HashMap<String, tokio_util::sync::CancellationToken>> {
        self.running.lock().unwrap_or_else(|e| e.into_inner())
    }
}
