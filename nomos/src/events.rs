//! The event bus: every state change writes an `events` row in the same transaction as the change
//! (see [`crate::store::WriteTx::emit`]) and, once committed, is broadcast in-process. The desktop
//! forwards the bus to the webview; the CLI can print it.

use std::collections::BTreeSet;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use nomos_types::{EngineEvent, Event, Json, TransientEvent};
use sqlx::SqliteConnection;
use tokio::sync::broadcast;

use crate::store::Store;

/// Slow subscribers that fall this far behind miss events (and are told so by `Lagged`); they can
/// catch up from the `events` table by id.
const BUS_CAPACITY: usize = 1024;

/// How many of its own recent event ids a bus remembers, so a watcher following the `events` table
/// can tell them from other processes' events. Far more than can commit between two polls.
const OWN_IDS_KEPT: usize = 4096;

#[derive(Clone, Debug)]
pub struct EventBus {
    tx: broadcast::Sender<EngineEvent>,
    /// Events that are never stored (streamed output): a channel of their own, so a burst of them
    /// cannot push stored events out of a slow subscriber's queue.
    transient: broadcast::Sender<TransientEvent>,
    /// Ids of events this process committed, claimed before the commit so a watcher can never see
    /// one committed but unclaimed; bounded, and pruned as the watcher passes them.
    own: Arc<Mutex<BTreeSet<i64>>>,
}

impl Default for EventBus {
    fn default() -> Self {
        let (tx, _) = broadcast::channel(BUS_CAPACITY);
        let (transient, _) = broadcast::channel(BUS_CAPACITY);
        EventBus { tx, transient, own: Arc::default() }
    }
}

impl EventBus {
    /// Stored events, from now on (older ones are in the `events` table, see [`since`]).
    pub fn subscribe(&self) -> broadcast::Receiver<EngineEvent> {
        self.tx.subscribe()
    }

    /// Transient events, from now on; they are never stored, so a subscriber that was not
    /// listening (or lagged) does not get them.
    pub fn subscribe_transient(&self) -> broadcast::Receiver<TransientEvent> {
        self.transient.subscribe()
    }

    /// Broadcasts an event to this process's transient subscribers without storing it.
    pub fn publish_transient(&self, event: TransientEvent) {
        // Nobody listening is normal; the event is simply gone.
        let _ = self.transient.send(event);
    }

    fn own_ids(&self) -> MutexGuard<'_, BTreeSet<i64>> {
        // A panic while holding this lock cannot leave the set inconsistent; keep using it.
        self.own.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// Marks ids as this process's own just before their transaction commits.
    pub(crate) fn claim(&self, ids: impl IntoIterator<Item = i64>) {
        let mut own = self.own_ids();
        own.extend(ids);
        while own.len() > OWN_IDS_KEPT {
            own.pop_first();
        }
    }

    /// Gives back the claims of a transaction that failed to commit (its ids may be reused).
    pub(crate) fn release(&self, ids: impl IntoIterator<Item = i64>) {
        let mut own = self.own_ids();
        for id in ids {
            own.remove(&id);
        }
    }

    pub(crate) fn publish(&self, event: EngineEvent) {
        // No subscribers is normal (the CLI); the row is already stored.
        let _ = self.tx.send(event);
    }
}

/// Announces on this process's bus the events that other processes (the `nomos` CLI, a second
/// window) wrote to the same database, by following the `events` table from where it stood when
/// the store was opened: whatever another process writes after that is announced, however late
/// this starts. The returned future runs until dropped; spawn it on the runtime that owns the store.
pub fn watch_other_writers(store: Store, every: Duration) -> impl std::future::Future<Output = ()> + Send {
    let bus = store.events().clone();
    async move {
        let mut cursor = store.events_at_open();
        let mut tick = tokio::time::interval(every);
        tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        loop {
            tick.tick().await;
            let batch = match since(store.pool(), cursor, 500).await {
                Ok(batch) => batch,
                Err(e) => {
                    tracing::warn!("reading new events failed: {e}");
                    continue;
                }
            };
            for event in batch {
                cursor = cursor.max(event.id);
                let ours = bus.own_ids().remove(&event.id);
                if !ours {
                    let _ = bus.tx.send(event);
                }
            }
            // Ids at or below the cursor can never be seen again.
            let mut own = bus.own_ids();
            *own = own.split_off(&(cursor + 1));
        }
    }
}

/// An event about to be written.
#[derive(Debug, Clone)]
pub struct EventDraft {
    pub event: Event,
    pub correlation_id: Option<String>,
    pub entity_slug: Option<String>,
}

impl EventDraft {
    pub fn new(event: impl Into<Event>) -> Self {
        EventDraft { event: event.into(), correlation_id: None, entity_slug: None }
    }

    pub fn entity(mut self, slug: impl Into<String>) -> Self {
        self.entity_slug = Some(slug.into());
        self
    }

    pub fn correlation(mut self, id: impl Into<String>) -> Self {
        self.correlation_id = Some(id.into());
        self
    }
}

/// The stored columns of an event: its kind (`events.type`) and payload (`events.payload`).
fn columns(event: &Event) -> Result<(String, String), sqlx::Error> {
    let encode = |e: serde_json::Error| sqlx::Error::Encode(Box::new(e));
    let mut value = serde_json::to_value(event).map_err(encode)?;
    let payload = value.get_mut("payload").map(Json::take).unwrap_or_else(|| Json::Object(Default::default()));
    Ok((event.kind().to_string(), payload.to_string()))
}

/// An event read back from its stored columns; a kind or payload this build cannot read is kept
/// as [`Event::Other`].
fn from_columns(kind: String, payload: &str) -> Event {
    Event::from_parts(kind, serde_json::from_str(payload).unwrap_or(Json::Null))
}

pub(crate) async fn insert(
    conn: &mut SqliteConnection,
    draft: EventDraft,
    now: &str,
) -> Result<EngineEvent, sqlx::Error> {
    let (kind, payload) = columns(&draft.event)?;
    let id: i64 = sqlx::query_scalar(
        "INSERT INTO events (type, correlation_id, entity_slug, payload, created_at) VALUES (?, ?, ?, ?, ?)
         RETURNING id",
    )
    .bind(&kind)
    .bind(&draft.correlation_id)
    .bind(&draft.entity_slug)
    .bind(payload)
    .bind(now)
    .fetch_one(conn)
    .await?;
    Ok(EngineEvent {
        id,
        created_at: now.to_string(),
        correlation_id: draft.correlation_id,
        entity_slug: draft.entity_slug,
        event: draft.event,
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
            created_at,
            correlation_id,
            entity_slug,
            event: from_columns(kind, &payload),
        })
        .collect())
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::store::Store;
    use nomos_types::events::{OtherEvent, TaskCreated};

    /// An event for tests of the bus itself.
    pub(crate) fn test_event(title: &str) -> EventDraft {
        EventDraft::new(TaskCreated { title: title.into(), goal: String::new() })
    }

    #[tokio::test]
    async fn stored_events_read_back_typed_and_unknown_kinds_are_kept() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(&dir.path().join("oikos.db")).await.unwrap();
        let mut tx = store.begin_write().await.unwrap();
        tx.emit(test_event("typed").correlation("t1")).await.unwrap();
        tx.commit().await.unwrap();
        // A newer build wrote a kind this one does not know.
        sqlx::query("INSERT INTO events (type, payload) VALUES ('agent.token', '{\"text\":\"hi\"}')")
            .execute(store.pool())
            .await
            .unwrap();
        let events = since(store.pool(), 0, 10).await.unwrap();
        assert_eq!(events[0].event, test_event("typed").event);
        assert_eq!(events[0].correlation_id.as_deref(), Some("t1"));
        let stored: String = sqlx::query_scalar("SELECT payload FROM events WHERE id = ?")
            .bind(events[0].id)
            .fetch_one(store.pool())
            .await
            .unwrap();
        assert_eq!(serde_json::from_str::<Json>(&stored).unwrap(), serde_json::json!({"title": "typed", "goal": ""}));
        assert_eq!(
            events[1].event,
            Event::Other(OtherEvent { kind: "agent.token".into(), payload: serde_json::json!({"text": "hi"}) })
        );
    }

    #[tokio::test]
    async fn transient_events_are_broadcast_and_never_stored() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(&dir.path().join("oikos.db")).await.unwrap();
        let mut stored_rx = store.events().subscribe();
        let mut rx = store.events().subscribe_transient();
        let token =
            Event::Other(OtherEvent { kind: "agent.token".into(), payload: serde_json::json!({"text": "hel"}) });
        store.events().publish_transient(TransientEvent {
            created_at: "2026-01-01T00:00:00.000Z".into(),
            correlation_id: Some("task-1".into()),
            entity_slug: None,
            event: token.clone(),
        });
        let got = rx.try_recv().unwrap();
        assert_eq!(got.event, token);
        assert_eq!(got.correlation_id.as_deref(), Some("task-1"));
        assert!(stored_rx.try_recv().is_err(), "not on the stored events' channel");
        let n: i64 = sqlx::query_scalar("SELECT count(*) FROM events").fetch_one(store.pool()).await.unwrap();
        assert_eq!(n, 0, "never stored");
    }

    #[tokio::test]
    async fn events_written_by_another_process_are_announced_once() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("oikos.db");
        let here = Store::open(&path).await.unwrap();
        // A second, independent handle on the same file stands in for the CLI.
        let elsewhere = Store::open(&path).await.unwrap();
        let mut rx = here.events().subscribe();

        let mut tx = here.begin_write().await.unwrap();
        tx.emit(test_event("here")).await.unwrap();
        tx.commit().await.unwrap();
        let mut tx = elsewhere.begin_write().await.unwrap();
        tx.emit(test_event("elsewhere")).await.unwrap();
        tx.commit().await.unwrap();
        // Started after both writes: the other's still counts, being newer than `here`'s open.
        let watcher = tokio::spawn(watch_other_writers(here.clone(), Duration::from_millis(20)));

        let mut seen = Vec::new();
        let deadline = tokio::time::Instant::now() + Duration::from_secs(5);
        while seen.len() < 2 && tokio::time::Instant::now() < deadline {
            if let Ok(Ok(ev)) = tokio::time::timeout(Duration::from_millis(100), rx.recv()).await {
                seen.push(ev.event);
            }
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
        while let Ok(ev) = rx.try_recv() {
            seen.push(ev.event);
        }
        watcher.abort();
        assert_eq!(seen, [test_event("here").event, test_event("elsewhere").event], "each event exactly once");
        assert!(here.events().own_ids().is_empty(), "the watcher forgets ids it has passed");

        // The set of own ids stays bounded in a process that never watches (the CLI).
        let bus = EventBus::default();
        bus.claim(0..(OWN_IDS_KEPT as i64 + 100));
        assert_eq!(bus.own_ids().len(), OWN_IDS_KEPT);
        assert_eq!(bus.own_ids().first(), Some(&100));
    }
}
