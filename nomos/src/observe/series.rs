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

/// Recent raw values of every series since `since` (seconds), oldest first: what the signal rules
/// replay. Read series by series (the primary key), never by scanning the tier.
pub(crate) async fn recent(
    conn: &mut SqliteConnection,
    since: i64,
) -> Result<HashMap<(String, String), Vec<(i64, f64)>>> {
    let rows: Vec<(String, String, i64, i64)> = sqlx::query_as(
        "SELECT s.entity_id, s.name, r.at, r.v FROM series s JOIN samples_raw r ON r.series_id = s.id AND r.at >= ?
          ORDER BY s.id, r.at",
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

async fn mark(conn: &mut SqliteConnection, tier: &str) -> Result<Option<i64>> {
    Ok(sqlx::query_scalar("SELECT upto FROM rollup_marks WHERE tier = ?").bind(tier).fetch_optional(&mut *conn).await?)
}

async fn set_mark(conn: &mut SqliteConnection, tier: &str, upto: i64) -> Result<()> {
    sqlx::query("INSERT INTO rollup_marks (tier, upto) VALUES (?1, ?2) ON CONFLICT (tier) DO UPDATE SET upto = ?2")
        .bind(tier)
        .bind(upto)
        .execute(&mut *conn)
        .await?;
    Ok(())
}

/// Rolls the buckets that ended since the last rollup into the next tier and drops what is past
/// each tier's keep. Every query walks the series' primary keys (series, time), so a rollup reads
/// only the rows it rolls up. Returns the rows written and removed.
pub(crate) async fn rollup(conn: &mut SqliteConnection, now: i64) -> Result<(u64, u64)> {
    let minute_end = now - now.rem_euclid(60);
    let hour_end = now - now.rem_euclid(3600);
    // Raw → 1 minute, from where the last rollup stopped (no further back than raw is kept).
    let from = mark(conn, "1m").await?.unwrap_or(i64::MIN).max(minute_end - RAW_KEEP_S);
    let mut written = 0;
    if from < minute_end {
        written += sqlx::query(
            "INSERT OR IGNORE INTO samples_1m (series_id, at, avg, max)
             SELECT r.series_id, r.at - (r.at % 60) AS m, CAST(round(avg(r.v)) AS INTEGER), max(r.v)
               FROM series s JOIN samples_raw r ON r.series_id = s.id AND r.at >= ?1 AND r.at < ?2
              GROUP BY r.series_id, m",
        )
        .bind(from)
        .bind(minute_end)
        .execute(&mut *conn)
        .await?
        .rows_affected();
        set_mark(conn, "1m", minute_end).await?;
    }
    // 1 minute → 1 hour (the minimum is the smallest of the minutes' averages).
    let from = mark(conn, "1h").await?.unwrap_or(i64::MIN).max(hour_end - MINUTE_KEEP_S);
    if from < hour_end {
        written += sqlx::query(
            "INSERT OR IGNORE INTO samples_1h (series_id, at, min, avg, max)
             SELECT m.series_id, m.at - (m.at % 3600) AS h, min(m.avg), CAST(round(avg(m.avg)) AS INTEGER), max(m.max)
               FROM series s JOIN samples_1m m ON m.series_id = s.id AND m.at >= ?1 AND m.at < ?2
              GROUP BY m.series_id, h",
        )
        .bind(from)
        .bind(hour_end)
        .execute(&mut *conn)
        .await?
        .rows_affected();
        set_mark(conn, "1h", hour_end).await?;
    }
    let mut removed = 0;
    for (table, keep) in [("samples_raw", RAW_KEEP_S), ("samples_1m", MINUTE_KEEP_S), ("samples_1h", HOUR_KEEP_S)] {
        removed += sqlx::query(&format!("DELETE FROM {table} WHERE series_id IN (SELECT id FROM series) AND at < ?"))
            .bind(now - keep)
            .execute(&mut *conn)
            .await?
            .rows_affected();
    }
    Ok((written, removed))
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

    #[tokio::test]
    async fn tiers_roll_up_once_each_and_are_pruned_past_their_keep() {
        let (_dir, eng) = crate::testing::engine().await;
        let e = eng.create_entity(crate::graph::entities::NewEntity::new("lxc", "web")).await.unwrap();
        let start: i64 = 1_800_000_000; // on the hour
        let sample = |v: f64| vec![Sample { entity_id: e.id.clone(), metric: "cpu_percent", unit: "%", value: v }];
        // Three hours at 30 s: 10 % in even minutes, 30 % in odd ones; rolled up every 5 minutes.
        let mut t = start;
        while t < start + 3 * 3600 {
            eng.record_samples(t, &sample(if (t / 60) % 2 == 0 { 10.0 } else { 30.0 })).await.unwrap();
            if t % 300 == 0 {
                eng.rollup_metrics(t).await.unwrap();
            }
            t += 30;
        }
        eng.rollup_metrics(t).await.unwrap();
        let rows = |sql: &'static str| {
            let eng = eng.clone();
            async move { sqlx::query_scalar::<_, i64>(sql).fetch_one(eng.store().pool()).await.unwrap() }
        };
        // Raw is kept 2 h; every ended minute once; the ended hours once, each min 10 avg 20 max 30.
        assert_eq!(rows("SELECT min(at) FROM samples_raw").await, t - RAW_KEEP_S);
        assert_eq!(rows("SELECT count(*) FROM samples_1m").await, 180);
        assert_eq!(rows("SELECT count(*) FROM samples_1h").await, 3);
        let (min, avg, max): (i64, i64, i64) =
            sqlx::query_as("SELECT min, avg, max FROM samples_1h ORDER BY at LIMIT 1")
                .fetch_one(eng.store().pool())
                .await
                .unwrap();
        assert_eq!((min, avg, max), (1000, 2000, 3000));
        // Queried from the tier of each range.
        let day = eng.query_metrics("lxc:web", Some("cpu_percent"), MetricRange::Day).await.unwrap();
        assert_eq!(day[0].tier, "1m");
        assert_eq!(day[0].max, Some(30.0));
        // Long after: everything but the hourly tier is gone.
        eng.rollup_metrics(t + 3 * 86_400).await.unwrap();
        assert_eq!(rows("SELECT count(*) FROM samples_raw").await, 0);
        assert_eq!(rows("SELECT count(*) FROM samples_1m").await, 0);
        assert_eq!(rows("SELECT count(*) FROM samples_1h").await, 3);
    }

    #[test]
    fn stored_values_round_trip_in_hundredths() {
        assert_eq!(to_stored(93.254), 9325);
        assert_eq!(from_stored(9325), 93.25);
        assert_eq!(to_stored(f64::NAN), 0);
        assert_eq!(to_stored(-1.5), -150);
    }
}
