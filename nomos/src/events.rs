//! The event bus: every state change writes an `events` row in the same transaction as the change
//! (see [`crate::store::WriteTx::emit`]) and, once committed, is broadcast in-process. The desktop
//! forwards the bus to the webview; the CLI can print it.

use nomos_types::{EngineEvent, Json};
use sqlx::SqliteConnection;
use tokio::sync::broadcast;

use crate::store::now_sql;

/// Slow subscribers that fall this far behind miss events (and are told so by `Lagged`); they can
/// catch up from the `events` table by id.
const BUS_CAPACITY: usize = 1024;

#[derive(Clone, Debug)]
pub struct EventBus {
    tx: broadcast::Sender<EngineEvent>,
}

impl Default for EventBus {
    fn default() -> Self {
        let (tx, _) = broadcast::channel(BUS_CAPACITY);
        EventBus { tx }
    }
}

impl EventBus {
    pub fn subscribe(&self) -> broadcast::Receiver<EngineEvent> {
        self.tx.subscribe()
    }

    pub(crate) fn publish(&self, event: EngineEvent) {
        // No subscribers is normal (the CLI); the row is already stored.
        let _ = self.tx.send(event);
    }
}

/// An event about to be written.
#[derive(Debug, Clone)]
pub struct EventDraft {
    pub kind: &'static str,
    pub correlation_id: Option<String>,
    pub entity_slug: Option<String>,
    pub payload: Json,
}

impl EventDraft {
    pub fn new(kind: &'static str) -> Self {
        EventDraft { kind, correlation_id: None, entity_slug: None, payload: Json::Object(Default::default()) }
    }

    pub fn entity(mut self, slug: impl Into<String>) -> Self {
        self.entity_slug = Some(slug.into());
        self
    }

    pub fn correlation(mut self, id: impl Into<String>) -> Self {
        self.correlation_id = Some(id.into());
        self
    }

    pub fn payload(mut self, payload: Json) -> Self {
        self.payload = payload;
        self
    }
}

pub(crate) async fn insert(conn: &mut SqliteConnection, draft: EventDraft) -> Result<EngineEvent, sqlx::Error> {
    let (id, created_at): (i64, String) = sqlx::query_as(concat!(
        "INSERT INTO events (type, correlation_id, entity_slug, payload, created_at) VALUES (?, ?, ?, ?, ",
        now_sql!(),
        ") RETURNING id, created_at"
    ))
    .bind(draft.kind)
    .bind(&draft.correlation_id)
    .bind(&draft.entity_slug)
    .bind(draft.payload.to_string())
    .fetch_one(conn)
    .await?;
    Ok(EngineEvent {
        id,
        kind: draft.kind.to_string(),
        correlation_id: draft.correlation_id,
        entity_slug: draft.entity_slug,
        payload: draft.payload,
        created_at,
    })
}

/// Events after `after_id`, oldest first, for consumers catching up (at most `limit`).
pub async fn since(pool: &sqlx::SqlitePool, after_id: i64, limit: u32) -> Result<Vec<EngineEvent>, sqlx::Error> {
    type Row = (i64, String, Option<String>, Option<String>, String, String);
    let rows: Vec<Row> = sqlx::query_as(
        "SELECT id, type, correlation_id, entity_slug, payload, created_at FROM events WHERE id > ? ORDER BY id LIMIT ?",
    )
    .bind(after_id)
    .bind(limit)
    .fetch_all(pool)
    .await?;
    Ok(rows
        .into_iter()
        .map(|(id, kind, correlation_id, entity_slug, payload, created_at)| EngineEvent {
            id,
            kind,
            correlation_id,
            entity_slug,
            payload: serde_json::from_str(&payload).unwrap_or(Json::Null),
            created_at,
        })
        .collect())
}
