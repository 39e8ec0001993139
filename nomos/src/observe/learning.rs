//! What the loop learns: a signal resolved by a task becomes a note (symptom, cause and fix, the
//! commands that worked) tagged with the problem's fingerprint, which the next investigation of
//! the same problem reads first; which notes tasks recalled; and the counts the Learning page
//! shows (execution outcomes, capabilities per action, incidents, recalls).

use std::collections::HashMap;

use nomos_types::{
    Author, Capability, DayOutcomes, IncidentKind, KnowledgeInput, KnowledgeKind, LearningReport, Recall, SignalState,
};

use crate::{Engine, Result};

/// The days the outcomes chart covers.
pub const OUTCOME_DAYS: i64 = 30;

/// A task's investigation: the signal, its fingerprint and entity.
#[derive(Debug, Clone)]
pub struct Investigated {
    pub signal_id: String,
    pub fingerprint: String,
    pub entity: Option<String>,
}

impl Engine {
    /// The signal a task investigates, if it was opened on one.
    pub async fn investigation_of(&self, task: &str) -> Result<Option<Investigated>> {
        let row: Option<(String, String, Option<String>)> =
            sqlx::query_as("SELECT signal_id, fingerprint, entity_slug FROM investigations WHERE task_id = ?")
                .bind(task)
                .fetch_optional(self.store().pool())
                .await?;
        Ok(row.map(|(signal_id, fingerprint, entity)| Investigated { signal_id, fingerprint, entity }))
    }

    /// Notes that a task read a note (once per pair).
    pub async fn record_recall(&self, knowledge: &str, task: &str) -> Result<()> {
        let now = self.clock().now();
        sqlx::query(
            "INSERT INTO knowledge_recalls (knowledge_id, task_id, recalled_at)
             SELECT k.id, ?1, ?2 FROM knowledge k JOIN entities e ON e.id = k.entity_id
              WHERE (e.slug = ?3 OR CAST(k.id AS TEXT) = ?3) AND EXISTS (SELECT 1 FROM tasks WHERE id = ?1)
             ON CONFLICT DO NOTHING",
        )
        .bind(task)
        .bind(&now)
        .bind(knowledge)
        .execute(self.store().pool())
        .await?;
        Ok(())
    }

    /// The verify step saw the task's signal resolved.
    pub async fn mark_verified(&self, task: &str) -> Result<()> {
        let now = self.clock().now();
        sqlx::query("UPDATE investigations SET verified_at = ? WHERE task_id = ?")
            .bind(&now)
            .bind(task)
            .execute(self.store().pool())
            .await?;
        Ok(())
    }

    /// Writes what a task that resolved its signal learned: one note per problem (fingerprint),
    /// updated when it is fixed again. Returns the note's slug; `None` when the task investigates
    /// nothing or its signal is not resolved (nothing was shown to work).
    pub async fn remember_fix(&self, task: &str, summary: &str) -> Result<Option<String>> {
        let Some(inv) = self.investigation_of(task).await? else { return Ok(None) };
        let signal = self.signal(&inv.signal_id).await?;
        if signal.state != SignalState::Resolved {
            return Ok(None);
        }
        let t = self.task(task).await?;
        // The commands that changed something and worked, in the order they ran.
        let commands: Vec<(String, String)> = sqlx::query_as(
            "SELECT target_slug, command FROM executions
              WHERE task_id = ? AND status = 'completed' AND exit_code = 0 AND risk <> 'read_only'
                AND coalesce(achieved, 1) = 1
              ORDER BY created_at",
        )
        .bind(task)
        .fetch_all(self.store().pool())
        .await?;
        let times: i64 = sqlx::query_scalar("SELECT count(*) FROM investigations WHERE fingerprint = ?")
            .bind(&inv.fingerprint)
            .fetch_one(self.store().pool())
            .await?;
        let entity = inv.entity.clone().unwrap_or_else(|| "-".into());
        let mut content = format!(
            "## Symptom\n{} — `{}` on {} ({}), raised {}.\n\n## Cause and fix\n{}\n\n## Commands that worked\n",
            signal.message,
            signal.kind,
            entity,
            signal.severity,
            signal.raised_at,
            summary.trim()
        );
        if commands.is_empty() {
            content.push_str("- none changed anything (it cleared after the read-only steps)\n");
        }
        for (target, command) in &commands {
            content.push_str(&format!("- on {target}: `{command}`\n"));
        }
        content.push_str(&format!(
            "\n## Verified\nThe signal resolved{}; investigated {times} time(s); task {} ({}).\n",
            signal.down_secs.map(|s| format!(" after {s} s down")).unwrap_or_default(),
            t.entity_slug.as_deref().unwrap_or(&t.id),
            t.title
        ));
        let mut about = Vec::new();
        if let Some(e) = &inv.entity {
            about.push(e.clone());
        }
        let input = KnowledgeInput {
            kind: KnowledgeKind::Investigation,
            title: format!("Fix: {} on {}", signal.kind, entity),
            content,
            source: t.entity_slug.clone().unwrap_or_else(|| format!("task {}", t.id)),
            author: Author::Agent,
            tags: vec![format!("fingerprint:{}", inv.fingerprint), format!("signal:{}", signal.kind), "fix".into()],
            about,
        };
        let written = self.upsert_knowledge(&input).await?;
        sqlx::query(
            "UPDATE investigations SET knowledge_id = (SELECT k.id FROM knowledge k JOIN entities e ON e.id = k.entity_id
                                                         WHERE e.slug = ?) WHERE task_id = ?",
        )
        .bind(written.doc.summary.slug.as_str())
        .bind(task)
        .execute(self.store().pool())
        .await?;
        Ok(Some(written.doc.summary.slug.to_string()))
    }

    /// Everything the Learning page shows.
    pub async fn learning_report(&self) -> Result<LearningReport> {
        let pool = self.store().pool();
        let now_ms = self.clock().now_ms();
        let since = crate::clock::format_ms(now_ms - (OUTCOME_DAYS - 1) * 86_400_000);
        let since_day: String = since.chars().take(10).collect();

        // Gated actions by day: Observe's probes and discovery's reads are Oikos watching, not acting.
        let rows: Vec<(String, i64, i64)> = sqlx::query_as(
            "SELECT substr(created_at, 1, 10) AS day,
                    sum(CASE WHEN status = 'completed' AND exit_code = 0 AND coalesce(achieved, 1) = 1 THEN 1 ELSE 0 END),
                    sum(CASE WHEN status = 'failed' OR (status = 'completed' AND exit_code <> 0)
                              OR achieved = 0 THEN 1 ELSE 0 END)
               FROM executions
              WHERE substr(created_at, 1, 10) >= ?1 AND requested_by NOT IN (?2, ?3)
              GROUP BY day",
        )
        .bind(&since_day)
        .bind(super::ACTOR)
        .bind(crate::discovery::ACTOR)
        .fetch_all(pool)
        .await?;
        let by_day: HashMap<String, (i64, i64)> = rows.into_iter().map(|(d, s, f)| (d, (s, f))).collect();
        let outcomes = (0..OUTCOME_DAYS)
            .rev()
            .map(|back| {
                let day: String = crate::clock::format_ms(now_ms - back * 86_400_000).chars().take(10).collect();
                let (succeeded, failed) = by_day.get(&day).copied().unwrap_or((0, 0));
                DayOutcomes { day, succeeded, failed }
            })
            .collect();

        let rows: Vec<(String, Option<String>, i64, i64, i64, i64)> = sqlx::query_as(
            "SELECT action,
                    min(CASE WHEN status = 'completed' AND exit_code = 0 THEN created_at END),
                    sum(CASE WHEN status = 'completed' AND exit_code = 0 THEN 1 ELSE 0 END),
                    count(*),
                    sum(CASE WHEN achieved IS NOT NULL THEN 1 ELSE 0 END),
                    sum(CASE WHEN achieved = 1 THEN 1 ELSE 0 END)
               FROM executions
              WHERE requested_by NOT IN (?1, ?2) AND status IN ('completed', 'failed')
              GROUP BY action",
        )
        .bind(super::ACTOR)
        .bind(crate::discovery::ACTOR)
        .fetch_all(pool)
        .await?;
        let mut capabilities: Vec<Capability> = rows
            .into_iter()
            .map(|(action, first_success, successes, total, judged, achieved)| Capability {
                action,
                first_success,
                successes,
                total,
                judged,
                achieved,
            })
            .collect();
        capabilities.sort_by(|a, b| match (&a.first_success, &b.first_success) {
            (Some(x), Some(y)) => x.cmp(y),
            (Some(_), None) => std::cmp::Ordering::Less,
            (None, Some(_)) => std::cmp::Ordering::Greater,
            (None, None) => a.action.cmp(&b.action),
        });

        let rows: Vec<(String, String, String, Option<String>, i64, bool)> = sqlx::query_as(
            "SELECT s.kind, s.fingerprint, s.raised_at, s.resolved_at, s.occurrences,
                    EXISTS (SELECT 1 FROM investigations i WHERE i.signal_id = s.id AND i.verified_at IS NOT NULL)
               FROM signals s ORDER BY s.raised_at",
        )
        .fetch_all(pool)
        .await?;
        let mut kinds: Vec<IncidentKind> = Vec::new();
        let mut times: HashMap<String, Vec<i64>> = HashMap::new();
        let mut seen: HashMap<(String, String), i64> = HashMap::new();
        for (kind, fp, raised, resolved, occurrences, by_task) in rows {
            let i = match kinds.iter().position(|k| k.kind == kind) {
                Some(i) => i,
                None => {
                    kinds.push(IncidentKind {
                        kind: kind.clone(),
                        signals: 0,
                        resolved: 0,
                        median_resolve_s: None,
                        repeats: 0,
                        by_tasks: 0,
                    });
                    kinds.len() - 1
                }
            };
            let k = &mut kinds[i];
            k.signals += 1;
            if let Some(r) = resolved {
                k.resolved += 1;
                if let (Some(a), Some(b)) = (super::signals::chrono_like(&raised), super::signals::chrono_like(&r)) {
                    times.entry(kind.clone()).or_default().push((b - a).max(0));
                }
            }
            if by_task {
                k.by_tasks += 1;
            }
            // Came back: re-opened within 30 min (occurrences), or a new signal of the same problem.
            k.repeats += (occurrences - 1).max(0);
            let n = seen.entry((kind.clone(), fp)).or_default();
            if *n > 0 {
                k.repeats += 1;
            }
            *n += 1;
        }
        for k in &mut kinds {
            if let Some(v) = times.get_mut(&k.kind) {
                v.sort_unstable();
                k.median_resolve_s = v.get(v.len() / 2).copied();
            }
        }
        kinds.sort_by(|a, b| b.signals.cmp(&a.signals).then(a.kind.cmp(&b.kind)));

        type RecallRow = (String, String, String, String, Option<String>, i64, String);
        let rows: Vec<RecallRow> = sqlx::query_as(
            "SELECT e.slug, k.title, t.id, t.title, t.outcome,
                    (SELECT count(*) FROM tool_calls c WHERE c.task_id = t.id), r.recalled_at
               FROM knowledge_recalls r
               JOIN knowledge k ON k.id = r.knowledge_id JOIN entities e ON e.id = k.entity_id
               JOIN tasks t ON t.id = r.task_id
              ORDER BY r.recalled_at DESC LIMIT 50",
        )
        .fetch_all(pool)
        .await?;
        let recalls: Vec<Recall> = rows
            .into_iter()
            .map(|(knowledge, title, task_id, task_title, outcome, tool_calls, recalled_at)| Recall {
                knowledge,
                title,
                task_id,
                task_title,
                outcome,
                tool_calls,
                recalled_at,
            })
            .collect();
        let recalls_ended = recalls.iter().filter(|r| r.outcome.is_some()).count() as i64;
        let recalls_helped = recalls.iter().filter(|r| r.outcome.as_deref() == Some("success")).count() as i64;
        Ok(LearningReport { outcomes, capabilities, incidents: kinds, recalls, recalls_helped, recalls_ended })
    }
}
