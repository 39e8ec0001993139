//! Engine timestamps and time left, as plain functions (tested natively). The engine writes
//! `YYYY-MM-DDTHH:MM:SS.mmmZ` (UTC); views count down from the engine's `now` plus the time the
//! webview has seen pass since, so a skewed webview clock does not matter.

/// Milliseconds since the Unix epoch of an engine timestamp (`2026-03-01T12:00:00.000Z`; the
/// fraction and `Z` optional). `None` when it is not one.
pub fn parse_ms(ts: &str) -> Option<i64> {
    let ts = ts.trim().trim_end_matches('Z');
    let (date, time) = ts.split_once('T')?;
    let mut d = date.splitn(3, '-').map(|p| p.parse::<i64>().ok());
    let (y, m, day) = (d.next()??, d.next()??, d.next()??);
    let (hms, frac) = time.split_once('.').unwrap_or((time, "0"));
    let mut t = hms.splitn(3, ':').map(|p| p.parse::<i64>().ok());
    let (h, min, s) = (t.next()??, t.next()??, t.next()??);
    if !(1..=12).contains(&m) || !(1..=31).contains(&day) || h > 23 || min > 59 || s > 60 {
        return None;
    }
    let millis = format!("{:0<3}", frac.get(..3.min(frac.len()))?).parse::<i64>().ok()?;
    Some(((days_from_civil(y, m, day) * 24 + h) * 60 + min) * 60_000 + s * 1000 + millis)
}

/// Days from 1970-01-01 to a proleptic Gregorian date.
fn days_from_civil(y: i64, m: i64, d: i64) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (m + 9) % 12;
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

/// "1h 04m", "4m 09s", "42s"; "expired" at or below zero.
pub fn format_left(ms: i64) -> String {
    if ms <= 0 {
        return "expired".into();
    }
    let s = (ms + 999) / 1000;
    let (h, m, s) = (s / 3600, s % 3600 / 60, s % 60);
    if h > 0 {
        format!("{h}h {m:02}m")
    } else if m > 0 {
        format!("{m}m {s:02}s")
    } else {
        format!("{s}s")
    }
}

/// "850 ms", "12.4 s", "3m 05s": how long something took.
pub fn format_duration(ms: i64) -> String {
    if ms < 1000 {
        format!("{} ms", ms.max(0))
    } else if ms < 60_000 {
        format!("{:.1} s", ms as f64 / 1000.0)
    } else {
        format!("{}m {:02}s", ms / 60_000, ms % 60_000 / 1000)
    }
}

/// Time left until `expires_at`, given the engine's `now` when it was read and how long ago (by
/// the webview's clock) that was. `None` when a timestamp is unreadable.
pub fn left_ms(expires_at: &str, engine_now: &str, elapsed_ms: i64) -> Option<i64> {
    Some(parse_ms(expires_at)? - parse_ms(engine_now)? - elapsed_ms)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_engine_timestamps() {
        assert_eq!(parse_ms("1970-01-01T00:00:00.000Z"), Some(0));
        assert_eq!(parse_ms("1970-01-02T00:00:01.5Z"), Some(86_401_500));
        // 2026-03-01 is 20513 days after the epoch.
        assert_eq!(parse_ms("2026-03-01T12:00:00.250Z"), Some(20_513 * 86_400_000 + 12 * 3_600_000 + 250));
        assert_eq!(parse_ms("2024-02-29T00:00:00Z"), Some(19_782 * 86_400_000));
        assert_eq!(parse_ms("not a time"), None);
        assert_eq!(parse_ms("2026-13-01T00:00:00Z"), None);
        assert_eq!(parse_ms("2026-01-01T25:00:00Z"), None);
    }

    #[test]
    fn time_left_reads_at_a_glance() {
        assert_eq!(format_left(0), "expired");
        assert_eq!(format_left(-5), "expired");
        assert_eq!(format_left(1), "1s");
        assert_eq!(format_left(42_000), "42s");
        assert_eq!(format_left(249_000), "4m 09s");
        assert_eq!(format_left(3_840_000), "1h 04m");
    }

    #[test]
    fn time_left_counts_from_the_engine_clock() {
        let left = left_ms("2026-03-01T12:10:00.000Z", "2026-03-01T12:00:00.000Z", 60_000);
        assert_eq!(left, Some(540_000));
        assert_eq!(left_ms("?", "2026-03-01T12:00:00.000Z", 0), None);
    }

    #[test]
    fn durations() {
        assert_eq!(format_duration(850), "850 ms");
        assert_eq!(format_duration(12_400), "12.4 s");
        assert_eq!(format_duration(185_000), "3m 05s");
    }
}
