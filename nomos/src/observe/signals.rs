//! Signals in the store: one open signal per problem (its fingerprint), raised, updated, resolved
//! on recovery or by hand, acknowledged with a reason, muted until a time; marked as suppressed
//! (explained by a signal of what the entity depends on) or in maintenance (an approved plan is
//! changing it), and notified sparingly.

use std::collections::{HashMap, HashSet};

use nomos_types::events::{
    SignalAcked, SignalMuted, SignalNotified, SignalRaised, SignalResolved, SignalSuppressed, SignalUpdated,
};
use nomos_types::observe::Severity;
use nomos_types::{Event, Signal, SignalCounts, SignalList, SignalQuery, SignalState};
use sqlx::{Row, SqliteConnection};

use crate::clock::format_ms;
use crate::events::EventDraft;
use crate::graph::new_id;
use crate::store::WriteTx;
use crate::{Engine, Error, Result};

/// A signal that fires again this soon after it was resolved re-opens as it was (acked stays acked).
pub const REOPEN_WITHIN_S: i64 = 30 * 60;
/// At most one notification per fingerprint in this time …
pub const NOTIFY_EVERY_S: i64 = 30 * 60;
/// … and a reminder of an open critical nobody acknowledged after this.
pub const REMIND_AFTER_S: i64 = 4 * 3600;
/// More notifications than this at once become one summary.
pub const SUMMARY_OVER: usize = 3;
/// Rules whose signal on an entity explains the signals of what depends on it.
pub const ROOT_KINDS: [&str; 3] = ["down", "unreachable", "quorum"];

/// What a rule says of one entity this cycle.
#[derive(Debug, Clone)]
pub(crate) struct Firing {
    pub entity_id: String,
    pub slug: String,
    pub kind: String,
    pub severity: Severity,
    pub flapping: bool,
    pub value: Option<f64>,
    pub message: String,
}

pub(crate) fn fingerprint(kind: &str, slug: &str) -> String {
    format!("{kind}:{slug}")
}

/// What one cycle changed, by signal id.
#[derive(Debug, Clone, Default)]
pub(crate) struct Changes {
    pub raised: Vec<String>,
    pub updated: Vec<String>,
    pub resolved: Vec<String>,
}

const SIGNAL_COLUMNS: &str =
    "s.id, e.slug AS entity, e.name AS entity_name, e.type AS entity_type, s.kind, s.severity, \
     s.state, s.flapping, s.message, s.fingerprint, s.occurrences, s.value, s.raised_at, s.last_seen_at, s.acked_at, \
     s.ack_reason, s.acked_by, s.muted_until, s.resolved_at, s.resolved_by, s.suppressed_by, s.maintenance, \
     (SELECT i.task_id FROM investigations i JOIN tasks t ON t.id = i.task_id WHERE i.signal_id = s.id \
       AND t.status NOT IN ('done', 'failed', 'cancelled') ORDER BY i.started_at DESC LIMIT 1) AS investigation, \
     (SELECT json_array(ke.slug, k.title, k.updated_at) FROM knowledge k JOIN entities ke ON ke.id = k.entity_id \
       WHERE EXISTS (SELECT 1 FROM json_each(k.tags) t WHERE t.value = 'fingerprint:' || s.fingerprint) \
       ORDER BY k.updated_at DESC LIMIT 1) AS seen_before";

fn secs_between(from: &str, to: &str) -> Option<i64> {
    let parse = |t: &str| chrono_like(t);
    Some(parse(to)? - parse(from)?)
}

/// Seconds since the epoch of the store's `YYYY-MM-DDTHH:MM:SS.mmmZ` times.
pub(crate) fn chrono_like(t: &str) -> Option<i64> {
    crate::clock::parse_ms(t).map(|ms| ms / 1000)
}

fn row_to_signal(r: &sqlx::sqlite::SqliteRow) -> Result<Signal> {
    let severity: String = r.try_get("severity")?;
    let state: String = r.try_get("state")?;
    let raised_at: String = r.try_get("raised_at")?;
    let resolved_at: Option<String> = r.try_get("resolved_at")?;
    Ok(Signal {
        id: r.try_get("id")?,
        entity: r.try_get("entity")?,
        entity_name: r.try_get("entity_name")?,
        entity_type: r.try_get("entity_type")?,
        kind: r.try_get("kind")?,
        severity: severity.parse().map_err(|e| Error::Invalid(format!("{e}")))?,
        state: state.parse().map_err(|e| Error::Invalid(format!("{e}")))?,
        flapping: r.try_get::<i64, _>("flapping")? == 1,
        message: r.try_get("message")?,
        fingerprint: r.try_get("fingerprint")?,
        occurrences: r.try_get("occurrences")?,
        value: r.try_get("value")?,
        down_secs: resolved_at.as_deref().and_then(|to| secs_between(&raised_at, to)),
        raised_at,
        last_seen_at: r.try_get("last_seen_at")?,
        acked_at: r.try_get("acked_at")?,
        ack_reason: r.try_get("ack_reason")?,
        acked_by: r.try_get("acked_by")?,
        muted_until: r.try_get("muted_until")?,
        resolved_at,
        resolved_by: r.try_get("resolved_by")?,
        suppressed_by: r.try_get("suppressed_by")?,
        maintenance: r.try_get("maintenance")?,
        affects: 0,
        affects_names: Vec::new(),
        investigation: r.try_get("investigation")?,
        seen_before: r
            .try_get::<Option<String>, _>("seen_before")?
            .and_then(|j| serde_json::from_str::<(String, String, String)>(&j).ok())
            .map(|(knowledge, title, written_at)| nomos_types::SeenBefore { knowledge, title, written_at }),
    })
}

pub(crate) async fn get(conn: &mut SqliteConnection, id: &str) -> Result<Signal> {
    let row = sqlx::query(&format!(
        "SELECT {SIGNAL_COLUMNS} FROM signals s LEFT JOIN entities e ON e.id = s.entity_id WHERE s.id = ?"
    ))
    .bind(id)
    .fetch_optional(&mut *conn)
    .await?
    .ok_or_else(|| Error::NotFound { what: "signal", key: id.to_string() })?;
    row_to_signal(&row)
}

macro_rules! payload {
    ($ty:ident, $s:expr) => {
        $ty {
            id: $s.id.clone(),
            entity: $s.entity.clone(),
            kind: $s.kind.clone(),
            severity: $s.severity,
            state: $s.state,
            message: $s.message.clone(),
            suppressed_by: $s.suppressed_by.clone(),
            maintenance: $s.maintenance.clone(),
            flapping: $s.flapping,
        }
    };
}

async fn emit(tx: &mut WriteTx, s: &Signal, event: Event) -> Result<()> {
    let mut draft = EventDraft::new(event);
    if let Some(e) = &s.entity {
        draft = draft.entity(e.clone());
    }
    tx.emit(draft).await?;
    Ok(())
}

/// Applies one cycle's verdicts: `firing` signals are raised or updated; the fingerprints in
/// `clear` (their condition is over) are resolved on recovery. Anything else stays as it is —
/// missing data never resolves.
pub(crate) async fn apply(tx: &mut WriteTx, firing: &[Firing], clear: &[String]) -> Result<Changes> {
    let now = tx.now().to_string();
    let now_s = chrono_like(&now).unwrap_or(0);
    let mut changes = Changes::default();
    for f in firing {
        let fp = fingerprint(&f.kind, &f.slug);
        let open: Option<(String, String, i64)> =
            sqlx::query_as("SELECT id, severity, flapping FROM signals WHERE fingerprint = ? AND state <> 'resolved'")
                .bind(&fp)
                .fetch_optional(&mut **tx)
                .await?;
        if let Some((id, severity, flapping)) = open {
            let changed = severity != f.severity.as_str() || (flapping == 1) != f.flapping;
            sqlx::query(
                "UPDATE signals SET severity = ?, flapping = ?, value = ?, message = ?, last_seen_at = ?, cleared_at = NULL
                  WHERE id = ?",
            )
            .bind(f.severity.as_str())
            .bind(i64::from(f.flapping))
            .bind(f.value)
            .bind(&f.message)
            .bind(&now)
            .bind(&id)
            .execute(&mut **tx)
            .await?;
            if changed {
                let s = get(tx, &id).await?;
                emit(tx, &s, Event::SignalUpdated(payload!(SignalUpdated, s))).await?;
                changes.updated.push(id);
            }
            continue;
        }
        // The same problem back soon after it was resolved: the same signal, as it was.
        let recent: Option<(String, Option<String>, Option<String>)> = sqlx::query_as(
            "SELECT id, acked_at, muted_until FROM signals WHERE fingerprint = ? AND state = 'resolved'
               AND resolved_at >= ? ORDER BY resolved_at DESC LIMIT 1",
        )
        .bind(&fp)
        .bind(format_ms((now_s - REOPEN_WITHIN_S) * 1000))
        .fetch_optional(&mut **tx)
        .await?;
        let id = match recent {
            Some((id, acked_at, muted_until)) => {
                let state = if muted_until.as_deref().is_some_and(|m| m > now.as_str()) {
                    SignalState::Muted
                } else if acked_at.is_some() {
                    SignalState::Acked
                } else {
                    SignalState::Open
                };
                sqlx::query(
                    "UPDATE signals SET state = ?, severity = ?, flapping = ?, value = ?, message = ?, last_seen_at = ?,
                            occurrences = occurrences + 1, resolved_at = NULL, resolved_by = NULL, cleared_at = NULL
                      WHERE id = ?",
                )
                .bind(state.as_str())
                .bind(f.severity.as_str())
                .bind(i64::from(f.flapping))
                .bind(f.value)
                .bind(&f.message)
                .bind(&now)
                .bind(&id)
                .execute(&mut **tx)
                .await?;
                id
            }
            None => {
                let id = new_id();
                sqlx::query(
                    "INSERT INTO signals (id, entity_id, kind, severity, state, flapping, message, value, fingerprint,
                                          raised_at, last_seen_at)
                     VALUES (?, ?, ?, ?, 'open', ?, ?, ?, ?, ?, ?)",
                )
                .bind(&id)
                .bind(&f.entity_id)
                .bind(&f.kind)
                .bind(f.severity.as_str())
                .bind(i64::from(f.flapping))
                .bind(&f.message)
                .bind(f.value)
                .bind(&fp)
                .bind(&now)
                .bind(&now)
                .execute(&mut **tx)
                .await?;
                id
            }
        };
        let s = get(tx, &id).await?;
        emit(tx, &s, Event::SignalRaised(payload!(SignalRaised, s))).await?;
        changes.raised.push(id);
    }
    for fp in clear {
        let open: Option<String> =
            sqlx::query_scalar("SELECT id FROM signals WHERE fingerprint = ? AND state <> 'resolved'")
                .bind(fp)
                .fetch_optional(&mut **tx)
                .await?;
        if let Some(id) = open {
            resolve_in(tx, &id, "recovery").await?;
            changes.resolved.push(id);
        }
    }
    Ok(changes)
}

async fn resolve_in(tx: &mut WriteTx, id: &str, by: &str) -> Result<Signal> {
    let now = tx.now().to_string();
    sqlx::query(
        "UPDATE signals SET state = 'resolved', resolved_at = ?, resolved_by = ? WHERE id = ? AND state <> 'resolved'",
    )
    .bind(&now)
    .bind(by)
    .bind(id)
    .execute(&mut **tx)
    .await?;
    let s = get(tx, id).await?;
    emit(tx, &s, Event::SignalResolved(payload!(SignalResolved, s))).await?;
    Ok(s)
}

/// Marks every unresolved signal as suppressed (explained by a root signal of something it runs
/// on: a guest's node, a service's guest) or in maintenance (an approved plan of a task that has
/// not ended changes its entity), and ends mutes that ran out. Announces newly suppressed ones.
pub(crate) async fn mark(tx: &mut WriteTx) -> Result<()> {
    let now = tx.now().to_string();
    sqlx::query(
        "UPDATE signals SET state = CASE WHEN acked_at IS NOT NULL THEN 'acked' ELSE 'open' END, muted_until = NULL
          WHERE state = 'muted' AND muted_until <= ?",
    )
    .bind(&now)
    .execute(&mut **tx)
    .await?;
    // Entities with an open root signal.
    let roots: HashSet<String> = sqlx::query_scalar(&format!(
        "SELECT entity_id FROM signals WHERE state <> 'resolved' AND entity_id IS NOT NULL AND kind IN ({})",
        ROOT_KINDS.iter().map(|k| format!("'{k}'")).collect::<Vec<_>>().join(", ")
    ))
    .fetch_all(&mut **tx)
    .await?
    .into_iter()
    .collect();
    type Open = (String, Option<String>, String, Option<String>, Option<String>);
    let open: Vec<Open> =
        sqlx::query_as("SELECT id, entity_id, kind, suppressed_by, maintenance FROM signals WHERE state <> 'resolved'")
            .fetch_all(&mut **tx)
            .await?;
    // Entities that are down: their other signals (unreachable, no metrics) follow from it.
    let down: HashSet<String> = sqlx::query_scalar(
        "SELECT entity_id FROM signals WHERE state <> 'resolved' AND entity_id IS NOT NULL AND kind = 'down'",
    )
    .fetch_all(&mut **tx)
    .await?
    .into_iter()
    .collect();
    for (id, entity, kind, was_suppressed, was_maintenance) in open {
        let Some(entity) = entity else { continue };
        let suppressed = if kind != "down" && down.contains(&entity) {
            sqlx::query_scalar("SELECT slug FROM entities WHERE id = ?").bind(&entity).fetch_optional(&mut **tx).await?
        } else if roots.is_empty() {
            None
        } else {
            explained_by(tx, &entity, &roots).await?
        };
        let maintenance = in_maintenance(tx, &entity, &now).await?;
        if suppressed == was_suppressed && maintenance == was_maintenance {
            continue;
        }
        sqlx::query("UPDATE signals SET suppressed_by = ?, maintenance = ? WHERE id = ?")
            .bind(&suppressed)
            .bind(&maintenance)
            .bind(&id)
            .execute(&mut **tx)
            .await?;
        if suppressed.is_some() && was_suppressed.is_none() {
            let s = get(tx, &id).await?;
            emit(tx, &s, Event::SignalSuppressed(payload!(SignalSuppressed, s))).await?;
        }
    }
    Ok(())
}

/// What an entity runs on, up to three levels: a guest's node (`hosts`), a service's machine
/// (`runs-on`), nearest first.
async fn parents(conn: &mut SqliteConnection, entity_id: &str) -> Result<Vec<String>> {
    let mut out = Vec::new();
    let mut frontier = vec![entity_id.to_string()];
    for _ in 0..3 {
        let mut next = Vec::new();
        for e in &frontier {
            let ups: Vec<String> = sqlx::query_scalar(
                "SELECT source_id FROM relationships WHERE type = 'hosts' AND target_id = ?1 AND valid_to IS NULL
                 UNION SELECT target_id FROM relationships WHERE type = 'runs-on' AND source_id = ?1 AND valid_to IS NULL",
            )
            .bind(e)
            .fetch_all(&mut *conn)
            .await?;
            for u in ups {
                if !out.contains(&u) && u != entity_id {
                    out.push(u.clone());
                    next.push(u);
                }
            }
        }
        frontier = next;
    }
    Ok(out)
}

/// The slug of the nearest thing `entity` runs on that has an open root signal.
async fn explained_by(conn: &mut SqliteConnection, entity: &str, roots: &HashSet<String>) -> Result<Option<String>> {
    for p in parents(conn, entity).await? {
        if roots.contains(&p) {
            let slug: Option<String> = sqlx::query_scalar("SELECT slug FROM entities WHERE id = ?")
                .bind(&p)
                .fetch_optional(&mut *conn)
                .await?;
            return Ok(slug);
        }
    }
    Ok(None)
}

/// The task whose approved plan is changing the entity now: an open window of a task that has not
/// ended, whose plan or executions name the entity.
async fn in_maintenance(conn: &mut SqliteConnection, entity_id: &str, now: &str) -> Result<Option<String>> {
    let task: Option<String> = sqlx::query_scalar(
        "SELECT w.task_id FROM autonomy_windows w JOIN tasks t ON t.id = w.task_id
          JOIN entities e ON e.id = ?1
          WHERE w.revoked_at IS NULL AND w.expires_at > ?2 AND t.status IN ('working', 'waiting')
            AND (EXISTS (SELECT 1 FROM plan_steps p WHERE p.task_id = t.id AND p.target_slug = e.slug)
                 OR EXISTS (SELECT 1 FROM executions x WHERE x.task_id = t.id AND x.target_slug = e.slug))
          ORDER BY w.opened_at DESC LIMIT 1",
    )
    .bind(entity_id)
    .bind(now)
    .fetch_optional(&mut *conn)
    .await?;
    Ok(task)
}

/// The notifications due now: open (not acked, not muted), critical (or warning when asked),
/// neither suppressed nor in maintenance, not notified for this fingerprint in 30 min — or a
/// reminder 4 h after the last one. More than three at once become one summary.
pub(crate) async fn notices(engine: &Engine, tx: &mut WriteTx, warnings: bool) -> Result<Vec<SignalNotified>> {
    let now = tx.now().to_string();
    let now_s = chrono_like(&now).unwrap_or(0);
    let quiet_since = format_ms((now_s - NOTIFY_EVERY_S) * 1000);
    let remind_before = format_ms((now_s - REMIND_AFTER_S) * 1000);
    let rows = sqlx::query(&format!(
        "SELECT {SIGNAL_COLUMNS}, s.notified_at FROM signals s LEFT JOIN entities e ON e.id = s.entity_id
          WHERE s.state = 'open' AND s.suppressed_by IS NULL AND s.maintenance IS NULL
            AND (s.severity = 'critical' OR (?1 AND s.severity = 'warning'))
            AND NOT EXISTS (SELECT 1 FROM signals o WHERE o.fingerprint = s.fingerprint AND o.id <> s.id
                            AND o.notified_at >= ?2)
            AND (s.notified_at IS NULL OR (s.notified_at < ?3 AND s.severity = 'critical'))
          ORDER BY s.severity DESC, s.raised_at"
    ))
    .bind(warnings)
    .bind(&quiet_since)
    .bind(&remind_before)
    .fetch_all(&mut **tx)
    .await?;
    let mut due = Vec::new();
    for r in &rows {
        let notified_at: Option<String> = r.try_get("notified_at")?;
        due.push((row_to_signal(r)?, notified_at.is_some()));
    }
    if due.is_empty() {
        return Ok(Vec::new());
    }
    for (s, _) in &due {
        sqlx::query("UPDATE signals SET notified_at = ? WHERE id = ?")
            .bind(&now)
            .bind(&s.id)
            .execute(&mut **tx)
            .await?;
    }
    let mut out = Vec::new();
    if due.len() > SUMMARY_OVER {
        let critical = due.iter().filter(|(s, _)| s.severity == Severity::Critical).count();
        let names: Vec<String> = due.iter().take(4).map(|(s, _)| s.message.clone()).collect();
        out.push(SignalNotified {
            title: format!("{} signals need you ({critical} critical)", due.len()),
            body: format!("{}{}", names.join("; "), if due.len() > 4 { "; …" } else { "" }),
            signals: due.iter().map(|(s, _)| s.id.clone()).collect(),
            entity: None,
            reminder: false,
            task: None,
        });
    } else {
        for (s, reminder) in due {
            let affects = match &s.entity {
                Some(slug) => match engine.blast_radius(slug, None).await {
                    Ok(b) => {
                        let names: Vec<String> = b.hits.iter().take(5).map(|h| h.entity.name.to_string()).collect();
                        if b.hits.is_empty() {
                            String::new()
                        } else {
                            format!(
                                " → affects {}: {}{}",
                                b.hits.len(),
                                names.join(", "),
                                if b.hits.len() > 5 { ", …" } else { "" }
                            )
                        }
                    }
                    Err(_) => String::new(),
                },
                None => String::new(),
            };
            // An investigation already running (opened automatically this cycle, or by hand).
            let on_it = if s.investigation.is_some() { " · Nomos is investigating" } else { "" };
            out.push(SignalNotified {
                title: format!("{}{}", if reminder { "Still: " } else { "" }, s.message),
                body: format!("{}{affects}{on_it}", s.severity),
                signals: vec![s.id.clone()],
                entity: s.entity.clone(),
                reminder,
                task: s.investigation.clone(),
            });
        }
    }
    for n in &out {
        tx.emit(EventDraft::new(n.clone())).await?;
    }
    Ok(out)
}

impl Engine {
    /// Signals matching the query (by default everything not resolved), worst and newest first,
    /// with the counts of what is open.
    pub async fn list_signals(&self, q: &SignalQuery) -> Result<SignalList> {
        let mut conn = self.store().pool().acquire().await?;
        let entity_id = match &q.entity {
            Some(slug) => Some(crate::graph::require_entity(&mut conn, slug).await?.id),
            None => None,
        };
        let limit = i64::from(q.limit.unwrap_or(200).clamp(1, 1000));
        let rows = sqlx::query(&format!(
            "SELECT {SIGNAL_COLUMNS} FROM signals s LEFT JOIN entities e ON e.id = s.entity_id
              WHERE (?1 IS NULL AND s.state <> 'resolved' OR s.state = ?1)
                AND (?2 IS NULL OR s.severity = ?2) AND (?3 IS NULL OR s.entity_id = ?3)
              ORDER BY s.state = 'resolved', CASE s.severity WHEN 'critical' THEN 0 WHEN 'warning' THEN 1 ELSE 2 END,
                       s.last_seen_at DESC
              LIMIT ?4"
        ))
        .bind(q.state.map(SignalState::as_str))
        .bind(q.severity.map(Severity::as_str))
        .bind(entity_id)
        .bind(limit)
        .fetch_all(&mut *conn)
        .await?;
        drop(conn);
        let mut signals = Vec::new();
        for r in &rows {
            let mut s = row_to_signal(r)?;
            self.fill_affects(&mut s).await;
            signals.push(s);
        }
        Ok(SignalList { signals, counts: self.signal_counts().await? })
    }

    /// Open signals counted (critical counts only what would be notified).
    pub async fn signal_counts(&self) -> Result<SignalCounts> {
        let (critical, warning, acked, muted, suppressed): (i64, i64, i64, i64, i64) = sqlx::query_as(
            "SELECT
               ifnull(sum(state = 'open' AND severity = 'critical' AND suppressed_by IS NULL AND maintenance IS NULL), 0),
               ifnull(sum(state = 'open' AND severity = 'warning' AND suppressed_by IS NULL AND maintenance IS NULL), 0),
               ifnull(sum(state = 'acked'), 0), ifnull(sum(state = 'muted'), 0),
               ifnull(sum(state <> 'resolved' AND (suppressed_by IS NOT NULL OR maintenance IS NOT NULL)), 0)
             FROM signals WHERE state <> 'resolved'",
        )
        .fetch_one(self.store().pool())
        .await?;
        Ok(SignalCounts { critical, warning, acked, muted, suppressed })
    }

    async fn fill_affects(&self, s: &mut Signal) {
        if let Some(slug) = &s.entity {
            if let Ok(b) = self.blast_radius(slug, None).await {
                s.affects = b.hits.len() as i64;
                s.affects_names = b.hits.iter().take(5).map(|h| h.entity.name.to_string()).collect();
            }
        }
    }

    pub async fn signal(&self, id: &str) -> Result<Signal> {
        let mut conn = self.store().pool().acquire().await?;
        let mut s = get(&mut conn, id).await?;
        drop(conn);
        self.fill_affects(&mut s).await;
        Ok(s)
    }

    /// Acknowledges a signal with a reason (someone is on it); it stays acked if it clears and
    /// fires again within 30 minutes.
    pub async fn ack_signal(&self, id: &str, reason: &str, by: &str) -> Result<Signal> {
        let reason = reason.trim();
        if reason.is_empty() {
            return Err(Error::Invalid("an acknowledgement needs a reason (what is being done about it)".into()));
        }
        let mut tx = self.store().begin_write().await?;
        let s = get(&mut tx, id).await?;
        if s.state == SignalState::Resolved {
            return Err(Error::Invalid(format!("signal {id} is resolved already")));
        }
        let now = tx.now().to_string();
        sqlx::query("UPDATE signals SET state = 'acked', acked_at = ?, acked_by = ?, ack_reason = ?, muted_until = NULL WHERE id = ?")
            .bind(&now)
            .bind(by)
            .bind(reason)
            .bind(id)
            .execute(&mut *tx)
            .await?;
        let s = get(&mut tx, id).await?;
        emit(&mut tx, &s, Event::SignalAcked(payload!(SignalAcked, s))).await?;
        tx.commit().await?;
        self.signal(id).await
    }

    /// Mutes a signal for `seconds` (at most 30 days): shown, never notified, until then.
    pub async fn mute_signal(&self, id: &str, seconds: u64, by: &str) -> Result<Signal> {
        if seconds == 0 || seconds > 30 * 86_400 {
            return Err(Error::Invalid("a mute lasts between 1 second and 30 days".into()));
        }
        let mut tx = self.store().begin_write().await?;
        let s = get(&mut tx, id).await?;
        if s.state == SignalState::Resolved {
            return Err(Error::Invalid(format!("signal {id} is resolved already")));
        }
        let until = format_ms(self.clock().now_ms() + i64::try_from(seconds).unwrap_or(0) * 1000);
        sqlx::query("UPDATE signals SET state = 'muted', muted_until = ?, acked_by = ifnull(acked_by, ?) WHERE id = ?")
            .bind(&until)
            .bind(by)
            .bind(id)
            .execute(&mut *tx)
            .await?;
        let s = get(&mut tx, id).await?;
        emit(&mut tx, &s, Event::SignalMuted(payload!(SignalMuted, s))).await?;
        tx.commit().await?;
        self.signal(id).await
    }

    /// Resolves a signal by hand (it opens again if its condition still holds at the next cycle).
    pub async fn resolve_signal(&self, id: &str, by: &str) -> Result<Signal> {
        let mut tx = self.store().begin_write().await?;
        let s = get(&mut tx, id).await?;
        if s.state == SignalState::Resolved {
            return Err(Error::Invalid(format!("signal {id} is resolved already")));
        }
        resolve_in(&mut tx, id, by).await?;
        tx.commit().await?;
        self.signal(id).await
    }

    /// Open signal kinds per entity id (for health).
    pub(crate) async fn open_signal_kinds(&self) -> Result<HashMap<String, Vec<(String, Severity)>>> {
        let rows: Vec<(String, String, String)> = sqlx::query_as(
            "SELECT entity_id, kind, severity FROM signals WHERE state <> 'resolved' AND entity_id IS NOT NULL",
        )
        .fetch_all(self.store().pool())
        .await?;
        let mut out: HashMap<String, Vec<(String, Severity)>> = HashMap::new();
        for (e, k, s) in rows {
            out.entry(e).or_default().push((k, s.parse().unwrap_or(Severity::Warning)));
        }
        Ok(out)
    }
}
