//! `audit_log`, the append-only ledger, and the one helper that records a ledger line together
//! with the event announcing it.

use nomos_types::Channel;
use serde_json::Value as Json;

use crate::events::EventDraft;
use crate::store::WriteTx;
use crate::Result;

/// One line of the audit ledger; its time is the transaction's.
pub(crate) struct Audit<'a> {
    /// `operator`, `agent` or `system`.
    pub actor_type: &'a str,
    pub actor: &'a str,
    pub channel: Option<Channel>,
    pub action: &'a str,
    pub entity: Option<&'a str>,
    pub task: Option<&'a str>,
    pub execution: Option<&'a str>,
    pub detail: Json,
}

impl<'a> Audit<'a> {
    /// A line by `actor` (`agent:nomos`, `operator:cli`, `system:…`), typed from its prefix.
    pub(crate) fn by(actor: &'a str, action: &'a str, detail: Json) -> Audit<'a> {
        Audit {
            actor_type: actor_type(actor),
            actor,
            channel: None,
            action,
            entity: None,
            task: None,
            execution: None,
            detail,
        }
    }

    /// A line by the executor (the system running commands).
    pub(crate) fn executor(action: &'a str, detail: Json) -> Audit<'a> {
        Audit { actor_type: "system", actor: "executor", ..Audit::by("", action, detail) }
    }

    pub(crate) fn channel(mut self, channel: Channel) -> Self {
        self.channel = Some(channel);
        self
    }

    pub(crate) fn entity(mut self, slug: impl Into<Option<&'a str>>) -> Self {
        self.entity = slug.into();
        self
    }

    pub(crate) fn task(mut self, task: impl Into<Option<&'a str>>) -> Self {
        self.task = task.into();
        self
    }

    pub(crate) fn execution(mut self, id: &'a str) -> Self {
        self.execution = Some(id);
        self
    }

    /// Writes the line and, when given, the event that announces it, in the same transaction.
    pub(crate) async fn record(self, tx: &mut WriteTx, event: impl Into<Option<EventDraft>>) -> Result<()> {
        let at = tx.now().to_string();
        sqlx::query(
            "INSERT INTO audit_log (at, actor_type, actor, channel, action, entity_slug, task_id, execution_id, detail)
             VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
        )
        .bind(at)
        .bind(self.actor_type)
        .bind(self.actor)
        .bind(self.channel.map(Channel::as_str))
        .bind(self.action)
        .bind(self.entity)
        .bind(self.task)
        .bind(self.execution)
        .bind(self.detail.to_string())
        .execute(&mut **tx)
        .await?;
        if let Some(event) = event.into() {
            tx.emit(event).await?;
        }
        Ok(())
    }
}

/// `operator`, `agent` or `system`, from who asked (`agent:nomos`, `operator:cli`, `system:…`).
fn actor_type(who: &str) -> &'static str {
    match who.split(':').next().unwrap_or("") {
        "agent" => "agent",
        "system" => "system",
        _ => "operator",
    }
}
