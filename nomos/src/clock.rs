//! Time as the engine sees it. Expiry of approvals and windows is decided against a [`Clock`] so
//! tests can move time forward instead of sleeping; production uses the system clock.
//!
//! Every timestamp the engine writes comes from its clock (the store's, see
//! [`crate::store::Store::clock`]); none from SQL's `now`.
//!
//! Timestamps are stored as `YYYY-MM-DDTHH:MM:SS.mmmZ` (UTC, milliseconds) — the format the schema's
//! `strftime('%Y-%m-%dT%H:%M:%fZ', 'now')` defaults produce — so they compare correctly as text
//! (for years 0000–9999).

use std::sync::atomic::{AtomicI64, Ordering};
use std::sync::Arc;
use std::time::{SystemTime, UNIX_EPOCH};

pub trait Clock: Send + Sync + std::fmt::Debug {
    /// Milliseconds since the Unix epoch.
    fn now_ms(&self) -> i64;

    fn now(&self) -> String {
        format_ms(self.now_ms())
    }

    /// The timestamp `ms` milliseconds from now.
    fn after_ms(&self, ms: i64) -> String {
        format_ms(self.now_ms().saturating_add(ms))
    }
}

#[derive(Debug, Default)]
pub struct SystemClock;

impl Clock for SystemClock {
    fn now_ms(&self) -> i64 {
        SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX))
    }
}

/// A clock that only moves when told to (tests, simulations).
#[derive(Debug)]
pub struct ManualClock(AtomicI64);

impl ManualClock {
    /// Starts at the current system time.
    pub fn new() -> Arc<ManualClock> {
        ManualClock::at(SystemClock.now_ms())
    }

    /// Starts at `ms` milliseconds since the Unix epoch (negative: before it).
    pub fn at(ms: i64) -> Arc<ManualClock> {
        Arc::new(ManualClock(AtomicI64::new(ms)))
    }

    pub fn advance_ms(&self, ms: i64) {
        self.0.fetch_add(ms, Ordering::SeqCst);
    }
}

impl Clock for ManualClock {
    fn now_ms(&self) -> i64 {
        self.0.load(Ordering::SeqCst)
    }
}

/// Formats Unix milliseconds as `YYYY-MM-DDTHH:MM:SS.mmmZ`.
pub fn format_ms(ms: i64) -> String {
    let secs = ms.div_euclid(1000);
    let millis = ms.rem_euclid(1000);
    let days = secs.div_euclid(86_400);
    let rem = secs.rem_euclid(86_400);
    let (y, m, d) = civil_from_days(days);
    format!("{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}.{millis:03}Z", rem / 3600, rem % 3600 / 60, rem % 60)
}

/// Parses `YYYY-MM-DDTHH:MM:SS[.mmm]Z` (the store's times) back to Unix milliseconds.
pub fn parse_ms(t: &str) -> Option<i64> {
    let t = t.strip_suffix('Z')?;
    let (date, time) = t.split_once('T')?;
    let mut d = date.splitn(3, '-').map(|p| p.parse::<i64>().ok());
    let (y, m, day) = (d.next()??, d.next()??, d.next()??);
    let (hms, frac) = time.split_once('.').unwrap_or((time, "0"));
    let mut h = hms.splitn(3, ':').map(|p| p.parse::<i64>().ok());
    let (hh, mm, ss) = (h.next()??, h.next()??, h.next()??);
    if !(1..=12).contains(&m) || !(1..=31).contains(&day) || hh > 23 || mm > 59 || ss > 60 {
        return None;
    }
    let millis: i64 = frac.get(..frac.len().min(3))?.parse().ok()?;
    let millis = millis * 10_i64.pow(3 - u32::try_from(frac.len().min(3)).ok()?);
    let days = days_from_civil(y, m, day);
    Some(((days * 86_400 + hh * 3600 + mm * 60 + ss) * 1000) + millis)
}

/// A proleptic Gregorian date to days since 1970-01-01 (the inverse of `civil_from_days`).
fn days_from_civil(y: i64, m: i64, d: i64) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y.rem_euclid(400);
    let mp = if m > 2 { m - 3 } else { m + 9 };
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

/// Days since 1970-01-01 to a proleptic Gregorian date (Howard Hinnant's algorithm).
fn civil_from_days(z: i64) -> (i64, i64, i64) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let y = yoe + era * 400;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    (if m <= 2 { y + 1 } else { y }, m, d)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats_like_the_schema() {
        assert_eq!(format_ms(0), "1970-01-01T00:00:00.000Z");
        assert_eq!(format_ms(951_782_400_123), "2000-02-29T00:00:00.123Z");
        assert_eq!(format_ms(1_798_761_599_999), "2026-12-31T23:59:59.999Z");
        assert_eq!(format_ms(-1), "1969-12-31T23:59:59.999Z");
        for ms in [0, 951_782_400_123, 1_798_761_599_999, -1, 1_700_000_000_000] {
            assert_eq!(parse_ms(&format_ms(ms)), Some(ms));
        }
        assert_eq!(parse_ms("2026-12-02T13:00:00Z"), Some(1_796_216_400_000));
        assert_eq!(parse_ms("2026-13-02T13:00:00Z"), None);
        assert_eq!(parse_ms("yesterday"), None);
        assert_eq!(parse_ms("2026-12-02T13:00:00.5Z"), Some(1_796_216_400_500));
    }

    #[test]
    fn manual_clock_moves_only_when_told() {
        let c = ManualClock::new();
        let a = c.now();
        c.advance_ms(30 * 60 * 1000);
        assert!(c.now() > a);
        assert_eq!(c.after_ms(0), c.now());
    }
}
