//! `audit_log`, the append-only ledger, and the one helper that records a ledger line together
//! with the event announcing it.

use nomos_types::{AuditEntry, AuditQuery, Channel, Page, Risk};
use serde_json::Value as Json;
use sqlx::{Row, SqlitePool};

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

    /// Writes the line in a transaction of its own (a refusal, a failure: nothing else to write).
    pub(crate) async fn record_alone(self, engine: &crate::Engine) -> Result<()> {
        let mut tx = engine.store().begin_write().await?;
        self.record(&mut tx, None).await?;
        tx.commit().await?;
        Ok(())
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

/// `operator`, `agent` or `system`, from who asked (`agent:nomos`, `operator:cli`, `system:…`;
/// `discovery` is the system reading the cluster).
fn actor_type(who: &str) -> &'static str {
    match who.split(':').next().unwrap_or("") {
        "agent" => "agent",
        "system" | "discovery" => "system",
        _ => "operator",
    }
}

/// One page of the ledger, newest first. `actor` matches a whole actor (`operator:ann`) or a
/// kind of actor (`operator`, `agent`, `system`); `risk` the risk recorded with the line.
pub(crate) async fn list(pool: &SqlitePool, query: &AuditQuery) -> Result<Page<AuditEntry>> {
    const FILTER: &str = "(?1 IS NULL OR task_id = ?1) AND (?2 IS NULL OR entity_slug = ?2)
        AND (?3 IS NULL OR actor = ?3 OR actor_type = ?3) AND (?4 IS NULL OR json_extract(detail, '$.risk') = ?4)";
    let limit = query.limit.unwrap_or(50).clamp(1, 500);
    let offset = query.offset.unwrap_or(0);
    let risk = query.risk.map(Risk::as_str);
    let total: i64 = sqlx::query_scalar(&format!("SELECT count(*) FROM audit_log WHERE {FILTER}"))
        .bind(query.task_id.as_deref())
        .bind(query.target.as_deref())
        .bind(query.actor.as_deref())
        .bind(risk)
        .fetch_one(pool)
        .await?;
    let rows = sqlx::query(&format!(
        "SELECT id, at, actor_type, actor, channel, action, entity_slug, task_id, execution_id, detail,
                json_extract(detail, '$.risk') AS risk
           FROM audit_log WHERE {FILTER} ORDER BY id DESC LIMIT ?5 OFFSET ?6"
    ))
    .bind(query.task_id.as_deref())
    .bind(query.target.as_deref())
    .bind(query.actor.as_deref())
    .bind(risk)
    .bind(i64::from(limit))
    .bind(i64::from(offset))
    .fetch_all(pool)
    .await?;
    let items = rows
        .iter()
        .map(|row| -> Result<AuditEntry> {
            let channel: Option<String> = row.try_get("channel")?;
            let risk: Option<String> = row.try_get("risk")?;
            let detail: String = row.try_get("detail")?;
            Ok(AuditEntry {
                id: row.try_get("id")?,
                at: row.try_get("at")?,
                actor_type: row.try_get("actor_type")?,
                actor: row.try_get("actor")?,
                channel: channel.and_then(|c| c.parse().ok()),
                action: row.try_get("action")?,
                target: row.try_get("entity_slug")?,
                task_id: row.try_get("task_id")?,
                execution_id: row.try_get("execution_id")?,
                risk: risk.and_then(|r| r.parse().ok()),
                detail: serde_json::from_str(&detail).unwrap_or(Json::Null),
            })
        })
        .collect::<Result<Vec<_>>>()?;
    Ok(Page { items, total: u64::try_from(total).unwrap_or(0), limit, offset })
}
