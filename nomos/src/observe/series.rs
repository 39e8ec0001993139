//! Metrics in tiers: raw samples at the collection cycle for 2 h, 1-minute avg/max for 48 h,
//! 1-hour min/avg/max for 400 days. Series have integer ids; values are kept in hundredths as
//! integers (small on disk). Rollup and pruning run in the background, idempotently: a bucket is
//! written once it has ended, from the tier below.

use std::collections::HashMap;

use nomos_types::observe::MetricPoint;
use nomos_types::{MetricRange, MetricSeries};
use sqlx::SqliteConnection;

use crate::{Engine, Error, Result};

pub const RAW_KEEP_S: i64 = 2 * 3600;
pub const MINUTE_KEEP_S: i64 = 48 * 3600;
pub const HOUR_KEEP_S: i64 = 400 * 86_400;

/// One observed value of one metric of one entity.
#[derive(Debug, Clone, PartialEq)]
pub struct Sample {
    pub entity_id: String,
    pub metric: &'static str,
    pub unit: &'static str,
    pub value: f64,
}

fn to_stored(v: f64) -> i64 {
    if v.is_finite() {
        (v * 100.0).round().clamp(i64::MIN as f64, i64::MAX as f64) as i64
    } else {
        0
    }
}

fn from_stored(v: i64) -> f64 {
    v as f64 / 100.0
}

/// The series id of (entity, metric), created on first use.
async fn series_id(conn: &mut SqliteConnection, entity_id: &str, name: &str, unit: &str) -> Result<i64> {
    let id: Option<i64> = sqlx::query_scalar("SELECT id FROM series WHERE entity_id = ? AND name = ?")
        .bind(entity_id)
        .bind(name)
        .fetch_optional(&mut *conn)
        .await?;
    if let Some(id) = id {
        return Ok(id);
    }
    let id = sqlx::query_scalar("INSERT INTO series (entity_id, name, unit) VALUES (?, ?, ?) RETURNING id")
        .bind(entity_id)
        .bind(name)
        .bind(unit)
        .fetch_one(&mut *conn)
        .await?;
    Ok(id)
}

/// Writes one cycle's samples at `at` (seconds), in the caller's transaction.
pub(crate) async fn record(conn: &mut SqliteConnection, at: i64, samples: &[Sample]) -> Result<()> {
    let mut ids: HashMap<(String, &'static str), i64> = HashMap::new();
    for s in samples {
        let key = (s.entity_id.clone(), s.metric);
        let id = match ids.get(&key) {
            Some(id) => *id,
            None => {
                let id = series_id(conn, &s.entity_id, s.metric, s.unit).await?;
                ids.insert(key, id);
                id
            }
        };
        sqlx::query("INSERT OR REPLACE INTO samples_raw (series_id, at, v) VALUES (?, ?, ?)")
            .bind(id)
            .bind(at)
            .bind(to_stored(s.value))
            .execute(&mut *conn)
            .await?;
    }
    Ok(())
}

/// Recent raw values of every series of the given entities since `since` (seconds), oldest first:
/// what the signal rules replay.
pub(crate) async fn recent(
    conn: &mut SqliteConnection,
    since: i64,
) -> Result<HashMap<(String, String), Vec<(i64, f64)>>> {
    let rows: Vec<(String, String, i64, i64)> = sqlx::query_as(
        "SELECT s.entity_id, s.name, r.at, r.v FROM samples_raw r JOIN series s ON s.id = r.series_id
          WHERE r.at >= ? ORDER BY r.series_id, r.at",
    )
    .bind(since)
    .fetch_all(&mut *conn)
    .await?;
    let mut out: HashMap<(String, String), Vec<(i64, f64)>> = HashMap::new();
    for (entity, name, at, v) in rows {
        out.entry((entity, name)).or_default().push((at, from_stored(v)));
    }
    Ok(out)
}

/// Rolls ended buckets up into the next tier and drops what is past each tier's keep. Returns
/// the rows written and removed.
pub(crate) async fn rollup(conn: &mut SqliteConnection, now: i64) -> Result<(u64, u64)> {
    let minute_end = now - now.rem_euclid(60);
    let hour_end = now - now.rem_euclid(3600);
    // Raw → 1 minute: only minutes that have ended and are not rolled up yet.
    let a = sqlx::query(
        "INSERT OR IGNORE INTO samples_1m (series_id, at, avg, max)
         SELECT series_id, at - (at % 60) AS m, CAST(round(avg(v)) AS INTEGER), max(v) FROM samples_raw
          WHERE at < ?1 AND at >= ?2 GROUP BY series_id, m",
    )
    .bind(minute_end)
    .bind(minute_end - 3 * 3600)
    .execute(&mut *conn)
    .await?
    .rows_affected();
    // 1 minute → 1 hour (the minimum is the smallest of the minutes' averages).
    let b = sqlx::query(
        "INSERT OR IGNORE INTO samples_1h (series_id, at, min, avg, max)
         SELECT series_id, at - (at % 3600) AS h, min(avg), CAST(round(avg(avg)) AS INTEGER), max(max) FROM samples_1m
          WHERE at < ?1 AND at >= ?2 GROUP BY series_id, h",
    )
    .bind(hour_end)
    .bind(hour_end - 49 * 3600)
    .execute(&mut *conn)
    .await?
    .rows_affected();
    let mut removed = 0;
    for (table, keep) in [("samples_raw", RAW_KEEP_S), ("samples_1m", MINUTE_KEEP_S), ("samples_1h", HOUR_KEEP_S)] {
        removed += sqlx::query(&format!("DELETE FROM {table} WHERE at < ?"))
            .bind(now - keep)
            .execute(&mut *conn)
            .await?
            .rows_affected();
    }
    Ok((a + b, removed))
}

impl Engine {
    /// Stores samples taken at `at` (seconds since the epoch) in one transaction, as a cycle does.
    pub async fn record_samples(&self, at: i64, samples: &[Sample]) -> Result<()> {
        let mut tx = self.store().begin_write().await?;
        record(&mut tx, at, samples).await?;
        tx.commit().await?;
        Ok(())
    }

    /// Rolls ended buckets up and prunes each tier past its keep, as of `now` (seconds).
    pub async fn rollup_metrics(&self, now: i64) -> Result<(u64, u64)> {
        let mut tx = self.store().begin_write().await?;
        let r = rollup(&mut tx, now).await?;
        tx.commit().await?;
        Ok(r)
    }

    /// An entity's metrics over `range`, from the tier that covers it (all of its series when
    /// `metric` is absent).
    pub async fn query_metrics(
        &self,
        slug: &str,
        metric: Option<&str>,
        range: MetricRange,
    ) -> Result<Vec<MetricSeries>> {
        let entity = {
            let mut conn = self.store().pool().acquire().await?;
            crate::graph::require_entity(&mut conn, slug).await?
        };
        let now = self.clock().now_ms() / 1000;
        let since = now - range.seconds();
        let series: Vec<(i64, String, String)> = sqlx::query_as(
            "SELECT id, name, unit FROM series WHERE entity_id = ? AND (?2 IS NULL OR name = ?2) ORDER BY name",
        )
        .bind(&entity.id)
        .bind(metric)
        .fetch_all(self.store().pool())
        .await?;
        if let (Some(m), true) = (metric, series.is_empty()) {
            return Err(Error::NotFound { what: "metric", key: format!("{slug} {m}") });
        }
        let (tier, sql) = match range {
            MetricRange::Hour => {
                ("raw", "SELECT at, v, v, v FROM samples_raw WHERE series_id = ? AND at >= ? ORDER BY at")
            }
            MetricRange::Day => {
                ("1m", "SELECT at, avg, avg, max FROM samples_1m WHERE series_id = ? AND at >= ? ORDER BY at")
            }
            MetricRange::Month => {
                ("1h", "SELECT at, avg, min, max FROM samples_1h WHERE series_id = ? AND at >= ? ORDER BY at")
            }
        };
        let mut out = Vec::new();
        for (id, name, unit) in series {
            let rows: Vec<(i64, i64, i64, i64)> =
                sqlx::query_as(sql).bind(id).bind(since).fetch_all(self.store().pool()).await?;
            let points: Vec<MetricPoint> = rows
                .into_iter()
                .map(|(at, avg, min, max)| MetricPoint {
                    at,
                    avg: from_stored(avg),
                    min: from_stored(min),
                    max: from_stored(max),
                })
                .collect();
            // The last value is the newest raw sample, whatever tier the range reads.
            let last: Option<i64> =
                sqlx::query_scalar("SELECT v FROM samples_raw WHERE series_id = ? ORDER BY at DESC LIMIT 1")
                    .bind(id)
                    .fetch_optional(self.store().pool())
                    .await?;
            let n = points.len() as f64;
            out.push(MetricSeries {
                entity: entity.slug.clone(),
                metric: name,
                unit,
                range,
                tier: tier.to_string(),
                last: last.map(from_stored).or_else(|| points.last().map(|p| p.avg)),
                min: points.iter().map(|p| p.min).reduce(f64::min),
                max: points.iter().map(|p| p.max).reduce(f64::max),
                avg: (n > 0.0).then(|| points.iter().map(|p| p.avg).sum::<f64>() / n),
                points,
            });
        }
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stored_values_round_trip_in_hundredths() {
        assert_eq!(to_stored(93.254), 9325);
        assert_eq!(from_stored(9325), 93.25);
        assert_eq!(to_stored(f64::NAN), 0);
        assert_eq!(to_stored(-1.5), -150);
    }
}
