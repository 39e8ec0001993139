//! What needs the operator now (the Overview page and `get_health_summary`): approvals waiting,
//! open signals, running tasks, entities by type and health, and a sparkline per host.

use nomos_types::observe::{HostSparkline, Severity, TypeHealth};
use nomos_types::{Health, HealthSummary, Overview, SignalQuery, SignalState};

use crate::{Engine, Result};

/// Points per sparkline (the last hour of raw samples at most).
const SPARK_POINTS: i64 = 60;

impl Engine {
    /// Entities by type and health (stale: not observed within their stale time), with the open
    /// signal counts.
    pub async fn health_summary(&self) -> Result<HealthSummary> {
        let now = self.clock().now();
        let rows: Vec<(String, String, i64, i64)> = sqlx::query_as(
            "SELECT e.type, ifnull(s.health, 'unknown') AS h, count(*),
                    sum(s.last_check_at IS NOT NULL
                        AND strftime('%s', ?1) - strftime('%s', s.last_check_at) > s.stale_after_s)
               FROM entities e LEFT JOIN entity_status s ON s.entity_id = e.id
              WHERE e.state NOT IN ('gone', 'destroyed') AND e.type NOT IN ('task', 'execution', 'agent', 'knowledge',
                    'document', 'investigation', 'runbook', 'signal')
              GROUP BY e.type, h ORDER BY e.type",
        )
        .bind(&now)
        .fetch_all(self.store().pool())
        .await?;
        let mut types: Vec<TypeHealth> = Vec::new();
        for (t, h, n, stale) in rows {
            if types.last().is_none_or(|x| x.entity_type != t) {
                types.push(TypeHealth { entity_type: t.clone(), ..TypeHealth::default() });
            }
            let Some(row) = types.last_mut() else { continue };
            match h.parse::<Health>().unwrap_or(Health::Unknown) {
                Health::Healthy => row.ok += n,
                Health::Degraded => row.degraded += n,
                Health::Down => row.down += n,
                Health::Unknown => row.unknown += n,
            }
            row.stale += stale;
        }
        Ok(HealthSummary { types, counts: self.signal_counts().await? })
    }

    /// The overview: what needs the operator now.
    pub async fn overview(&self) -> Result<Overview> {
        let pool = self.store().pool();
        let pending_approvals: i64 =
            sqlx::query_scalar("SELECT count(*) FROM approvals WHERE status = 'pending'").fetch_one(pool).await?;
        let running_tasks: i64 =
            sqlx::query_scalar("SELECT count(*) FROM tasks WHERE status = 'working'").fetch_one(pool).await?;
        let mut signals = Vec::new();
        for severity in [Severity::Critical, Severity::Warning] {
            let q =
                SignalQuery { state: Some(SignalState::Open), severity: Some(severity), entity: None, limit: Some(20) };
            signals.extend(self.list_signals(&q).await?.signals);
        }
        let hosts: Vec<(String, String, String, Option<String>)> = sqlx::query_as(
            "SELECT e.id, e.slug, e.name, s.health FROM entities e LEFT JOIN entity_status s ON s.entity_id = e.id
              WHERE e.type = 'host' AND e.state NOT IN ('gone', 'destroyed') ORDER BY e.slug LIMIT 64",
        )
        .fetch_all(pool)
        .await?;
        let mut sparks = Vec::new();
        for (id, slug, name, health) in hosts {
            let series = |metric: &'static str| {
                let id = id.clone();
                async move {
                    let mut v: Vec<i64> = sqlx::query_scalar(
                        "SELECT r.v FROM samples_raw r JOIN series s ON s.id = r.series_id
                          WHERE s.entity_id = ? AND s.name = ? ORDER BY r.at DESC LIMIT ?",
                    )
                    .bind(&id)
                    .bind(metric)
                    .bind(SPARK_POINTS)
                    .fetch_all(pool)
                    .await?;
                    v.reverse();
                    Ok::<Vec<f64>, crate::Error>(v.into_iter().map(|x| x as f64 / 100.0).collect())
                }
            };
            sparks.push(HostSparkline {
                slug,
                name,
                health: health.and_then(|h| h.parse().ok()).unwrap_or(Health::Unknown),
                cpu: series("cpu_percent").await?,
                memory: series("memory_percent").await?,
            });
        }
        let last_cycle_at: Option<String> =
            sqlx::query_scalar("SELECT max(last_run_at) FROM probe_results").fetch_one(pool).await?;
        Ok(Overview {
            pending_approvals,
            running_tasks,
            signals,
            health: self.health_summary().await?,
            hosts: sparks,
            last_cycle_at,
        })
    }
}
