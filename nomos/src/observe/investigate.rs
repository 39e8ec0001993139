//! From a signal to a researched task: everything Nomos needs to diagnose it is gathered first,
//! read-only — the signal, its metrics, what it affects, the journal where it broke, what changed
//! on the entity before (the ledger and discovery), and what was learned the last time the same
//! problem was fixed — and handed over as the task's first message. The task then goes the way
//! every task goes: one plan, one approval, and a verify step (`verify_signal`) before success.
//!
//! Automatic investigation (an opt-in per severity) opens the same task by itself, at most
//! [`AUTO_MAX_RUNNING`] at once and once per problem per [`AUTO_COOLDOWN_S`].

use nomos_types::observe::Severity;
use nomos_types::{ExecutionQuery, Investigation, MetricRange, Signal, SignalState};

use crate::actuate::{Actuator, RunRequest};
use crate::agent::chat::Role;
use crate::agent::transcript::Transcript;
use crate::{Error, Result};

/// Automatic investigations running at once, at most.
pub const AUTO_MAX_RUNNING: i64 = 3;
/// A problem (fingerprint) is investigated automatically at most once in this time.
pub const AUTO_COOLDOWN_S: i64 = 3600;
/// Journal lines the briefing carries.
const JOURNAL_LINES: u32 = 30;
/// How far back "what changed before it broke" looks.
const CHANGES_BEFORE_S: i64 = 24 * 3600;

/// Task states that are over: a new investigation may start.
const ENDED: &str = "('done', 'failed', 'cancelled')";

/// The section text when a read found nothing.
fn or_none(lines: Vec<String>, none: &str) -> String {
    if lines.is_empty() {
        format!("- {none}\n")
    } else {
        lines.into_iter().map(|l| format!("- {l}\n")).collect()
    }
}

/// The first `n` characters of `text` (never cut inside a character).
fn clip(text: &str, n: usize) -> String {
    let mut out: String = text.chars().take(n).collect();
    if text.chars().count() > n {
        out.push('…');
    }
    out
}

impl Actuator {
    /// Opens (or returns the running) investigation of a signal: a task whose first message is
    /// the research. Nothing here changes the homelab: every command is a read-only probe.
    pub async fn investigate(&self, signal_id: &str, auto: bool) -> Result<Investigation> {
        let engine = self.engine();
        let signal = engine.signal(signal_id).await?;
        if let Some(task) = self.running_investigation(signal_id).await? {
            let briefing = Transcript::new(engine, &task)
                .messages()
                .await?
                .into_iter()
                .find(|m| m.role == Role::User)
                .map(|m| m.content)
                .unwrap_or_default();
            return Ok(Investigation { task_id: task, signal, created: false, auto, briefing });
        }
        if signal.state == SignalState::Resolved {
            return Err(Error::Invalid(format!(
                "signal {signal_id} is resolved{}: there is nothing to investigate",
                signal.resolved_at.as_deref().map(|t| format!(" (at {t})")).unwrap_or_default()
            )));
        }
        let (briefing, recalled) = self.briefing(&signal).await?;
        let title = clip(&format!("Investigate: {}", signal.message), 80);
        let goal = format!(
            "Find why {} ({}) and fix it with one approved plan; the signal must clear.",
            signal.message, signal.fingerprint
        );
        let task = engine.create_task(&title, &goal).await?;
        let now = self.clock().now();
        sqlx::query(
            "INSERT INTO investigations (task_id, signal_id, fingerprint, entity_slug, auto, started_at)
             VALUES (?, ?, ?, ?, ?, ?)",
        )
        .bind(&task.id)
        .bind(&signal.id)
        .bind(&signal.fingerprint)
        .bind(&signal.entity)
        .bind(auto)
        .bind(&now)
        .execute(engine.store().pool())
        .await?;
        crate::agent::add_operator_message(engine, Some(&task.id), &briefing).await?;
        for knowledge in recalled {
            engine.record_recall(&knowledge, &task.id).await?;
        }
        tracing::info!(signal = %signal.id, task = %task.id, auto, "investigation opened");
        let signal = engine.signal(signal_id).await?;
        Ok(Investigation { task_id: task.id, signal, created: true, auto, briefing })
    }

    /// The task investigating the signal now, if one is still going.
    async fn running_investigation(&self, signal_id: &str) -> Result<Option<String>> {
        Ok(sqlx::query_scalar(&format!(
            "SELECT i.task_id FROM investigations i JOIN tasks t ON t.id = i.task_id
              WHERE i.signal_id = ? AND t.status NOT IN {ENDED} ORDER BY i.started_at DESC LIMIT 1"
        ))
        .bind(signal_id)
        .fetch_optional(self.engine().store().pool())
        .await?)
    }

    /// Which of these newly raised signals Observe investigates by itself: the severities turned
    /// on, nothing suppressed or under maintenance, the cooldown per fingerprint, and the cap.
    pub async fn auto_investigate(&self, raised: &[String]) -> Result<Vec<Investigation>> {
        let settings = self.engine().observe_settings().await?;
        if !settings.investigate_critical && !settings.investigate_warnings {
            return Ok(Vec::new());
        }
        // Counted once; each task opened here adds one.
        let mut running: i64 = sqlx::query_scalar(&format!(
            "SELECT count(*) FROM investigations i JOIN tasks t ON t.id = i.task_id
              WHERE i.auto = 1 AND t.status NOT IN {ENDED}"
        ))
        .fetch_one(self.engine().store().pool())
        .await?;
        let mut opened = Vec::new();
        for id in raised {
            let s = self.engine().signal(id).await?;
            let wanted = match s.severity {
                Severity::Critical => settings.investigate_critical,
                Severity::Warning => settings.investigate_warnings,
                Severity::Info => false,
            };
            if !wanted || s.suppressed_by.is_some() || s.maintenance.is_some() || s.state != SignalState::Open {
                continue;
            }
            if running >= AUTO_MAX_RUNNING {
                tracing::info!(signal = %s.id, running, "not investigated automatically: {AUTO_MAX_RUNNING} already run");
                break;
            }
            let since = crate::clock::format_ms(self.clock().now_ms() - AUTO_COOLDOWN_S * 1000);
            let recent: Option<i64> =
                sqlx::query_scalar("SELECT 1 FROM investigations WHERE fingerprint = ? AND started_at > ? LIMIT 1")
                    .bind(&s.fingerprint)
                    .bind(&since)
                    .fetch_optional(self.engine().store().pool())
                    .await?;
            if recent.is_some() {
                tracing::info!(signal = %s.id, "not investigated automatically: the same problem was, within the hour");
                continue;
            }
            // A task already on it (a re-opened signal the operator investigated) is left alone:
            // only a task opened here gets its first turn.
            let inv = self.investigate(&s.id, true).await?;
            if inv.created {
                running += 1;
                opened.push(inv);
            }
        }
        Ok(opened)
    }

    /// The research, as the task's first message, and the notes it recalled.
    async fn briefing(&self, s: &Signal) -> Result<(String, Vec<String>)> {
        let engine = self.engine();
        let mut text = format!(
            "Investigate signal {id}: {sev} `{kind}` on {entity} — \"{msg}\" (fingerprint {fp}, fired {n}×, raised \
             {raised}, last seen {seen}).\n\
             Research read-only first and state a diagnosis with its evidence. Then propose ONE plan that fixes \
             it; its last step verifies the fix with verify_signal (the signal must clear within a stated time). \
             If it does not clear, say so: the task is not a success.\n",
            id = s.id,
            sev = s.severity,
            kind = s.kind,
            entity = s.entity.as_deref().unwrap_or("-"),
            msg = s.message,
            fp = s.fingerprint,
            n = s.occurrences,
            raised = s.raised_at,
            seen = s.last_seen_at,
        );
        let mut recalled = Vec::new();

        // What was learned the last time: first, so it is read first.
        let notes: Vec<(String, String, String)> = sqlx::query_as(
            "SELECT ke.slug, k.title, k.content FROM knowledge k JOIN entities ke ON ke.id = k.entity_id
              WHERE EXISTS (SELECT 1 FROM json_each(k.tags) t WHERE t.value = ?)
              ORDER BY k.updated_at DESC LIMIT 2",
        )
        .bind(format!("fingerprint:{}", s.fingerprint))
        .fetch_all(engine.store().pool())
        .await?;
        if !notes.is_empty() {
            text.push_str("\n## Seen before — read this first\n");
            for (slug, title, content) in &notes {
                text.push_str(&format!("### {title} ({slug})\n{}\n", clip(content.trim(), 1500)));
                recalled.push(slug.clone());
            }
        }

        let Some(slug) = s.entity.clone() else {
            return Ok((text, recalled));
        };

        // Metrics over the last hour (the signal is fresh; older ones: the 24 h tier).
        let raised_s = super::signals::chrono_like(&s.raised_at).unwrap_or(0);
        let age = self.clock().now_ms() / 1000 - raised_s;
        let range = if age < 1800 { MetricRange::Hour } else { MetricRange::Day };
        let series = engine.query_metrics(&slug, None, range).await.unwrap_or_default();
        let lines: Vec<String> = series
            .iter()
            .filter(|m| m.last.is_some())
            .map(|m| {
                let f = |v: Option<f64>| v.map(|v| format!("{v:.1}")).unwrap_or_else(|| "-".into());
                format!(
                    "{}: last {} {}, min {}, avg {}, max {} over {}",
                    m.metric,
                    f(m.last),
                    m.unit,
                    f(m.min),
                    f(m.avg),
                    f(m.max),
                    range
                )
            })
            .collect();
        text.push_str(&format!("\n## Metrics of {slug}\n{}", or_none(lines, "no samples")));

        // What it affects.
        match engine.blast_radius(&slug, Some(3)).await {
            Ok(b) => {
                let names: Vec<String> = b.hits.iter().take(10).map(|h| h.entity.slug.to_string()).collect();
                text.push_str(&format!(
                    "\n## Blast radius\n- affects {}{}\n",
                    b.hits.len(),
                    if names.is_empty() { String::new() } else { format!(": {}", names.join(", ")) }
                ));
            }
            Err(e) => text.push_str(&format!("\n## Blast radius\n- unknown: {e}\n")),
        }

        // The journal where it broke, read through the gate like every probe.
        let unit = match s.kind.strip_prefix("check:") {
            Some(name) => {
                engine.entity_checks(&slug).await?.into_iter().find(|c| c.name == name).and_then(|c| match c.kind {
                    nomos_types::CheckKind::Service { unit } => Some(unit),
                    _ => None,
                })
            }
            None => None,
        };
        if let Some(command) = journal_command(&slug, unit.as_deref()) {
            let req = RunRequest {
                target: slug.clone(),
                command: command.clone(),
                purpose: format!("investigate {}: the journal", s.fingerprint),
                requested_by: super::ACTOR.to_string(),
                timeout: Some(std::time::Duration::from_secs(20)),
                ..RunRequest::default()
            };
            let journal = match self.probe(&format!("investigate:{}", s.id), req).await {
                Ok(r) if r.ok() => {
                    let mut out = clip(r.stdout.trim(), 3000);
                    if !r.stderr.trim().is_empty() {
                        out.push_str(&format!("\n(stderr) {}", clip(r.stderr.trim(), 500)));
                    }
                    out
                }
                Ok(r) => format!(
                    "(could not read it: {})",
                    r.error.clone().unwrap_or_else(|| format!("exit {}", r.exit_code.unwrap_or(-1)))
                ),
                Err(e) => format!("(could not read it: {e})"),
            };
            text.push_str(&format!("\n## Journal (`{command}`)\n```\n{journal}\n```\n"));
        }

        // What changed on it before it broke: the ledger and discovery.
        let since = crate::clock::format_ms((raised_s - CHANGES_BEFORE_S) * 1000);
        let execs = self
            .executions_matching(&ExecutionQuery {
                target: Some(slug.clone()),
                limit: Some(50),
                ..ExecutionQuery::default()
            })
            .await?;
        let lines: Vec<String> = execs
            .iter()
            .filter(|e| e.created_at >= since && e.risk != nomos_types::Risk::ReadOnly)
            .take(8)
            .map(|e| {
                format!(
                    "{} execution {} `{}` ({}, {}, by {}{})",
                    e.created_at,
                    e.id,
                    clip(&e.command, 160),
                    e.risk,
                    e.status,
                    e.requested_by,
                    e.task_id.as_deref().map(|t| format!(", task {t}")).unwrap_or_default()
                )
            })
            .collect();
        text.push_str(&format!("\n## Changes made on {slug} in the 24 h before\n{}", or_none(lines, "none recorded")));
        let events: Vec<(String, String, String)> = sqlx::query_as(
            "SELECT type, payload, created_at FROM events
              WHERE entity_slug = ? AND created_at >= ? AND type NOT LIKE 'signal.%' AND type NOT LIKE 'execution.%'
                AND type NOT IN ('entity.touched', 'task.created')
              ORDER BY id DESC LIMIT 8",
        )
        .bind(&slug)
        .bind(&since)
        .fetch_all(engine.store().pool())
        .await?;
        let lines: Vec<String> =
            events.into_iter().map(|(kind, payload, at)| format!("{at} {kind} {}", clip(&payload, 200))).collect();
        text.push_str(&format!("\n## What discovery and the graph saw change\n{}", or_none(lines, "nothing")));

        // Notes about the entity.
        let notes = engine.entity_knowledge(&slug).await.unwrap_or_default();
        let lines: Vec<String> =
            notes.iter().take(5).map(|k| format!("{} ({}, {})", k.title, k.slug, k.kind)).collect();
        text.push_str(&format!("\n## Knowledge about {slug}\n{}", or_none(lines, "none")));
        Ok((text, recalled))
    }
}

/// The journal read for a signal: the unit's when a service check names one, the host's or
/// container's warnings and failed units otherwise; nothing for what has no shell (a VM, a storage).
fn journal_command(slug: &str, unit: Option<&str>) -> Option<String> {
    let shell = slug.starts_with("host:") || slug.starts_with("lxc:");
    if !shell {
        return None;
    }
    let unit = unit.filter(|u| !u.is_empty() && u.chars().all(|c| c.is_ascii_alphanumeric() || "@._-".contains(c)));
    Some(match unit {
        Some(u) => format!("journalctl -u '{u}' -n {JOURNAL_LINES} --no-pager -o short-iso"),
        None => format!(
            "systemctl list-units --state=failed --no-legend --plain; journalctl -p warning -n {JOURNAL_LINES} \
             --no-pager -o short-iso"
        ),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clipping_counts_characters_not_bytes() {
        assert_eq!(clip("äöü€", 2), "äö…");
        assert_eq!(clip("ok", 5), "ok");
    }

    #[test]
    fn the_journal_is_read_only_where_there_is_a_shell() {
        let read_only = |cmd: &str| nomos_policy::classify(cmd, None).risk == nomos_types::Risk::ReadOnly;
        let cmd = journal_command("lxc:caddy", Some("caddy")).unwrap();
        assert!(cmd.starts_with("journalctl -u 'caddy'"), "{cmd}");
        assert!(read_only(&cmd), "{cmd}");
        let cmd = journal_command("host:pve1", None).unwrap();
        assert!(read_only(&cmd), "{cmd}");
        let cmd = journal_command("lxc:caddy", Some("$(reboot)")).unwrap();
        assert!(!cmd.contains("reboot") && read_only(&cmd), "{cmd}");
        assert_eq!(journal_command("vm:win", None), None);
    }
}
