//! "3 min ago": how long ago a stored timestamp was, for lists that update as time passes.

/// Milliseconds since the epoch of an engine timestamp (`2026-01-31T12:00:00.000Z`, fraction and
/// zone optional but UTC). `None` for anything else.
pub fn parse_ms(ts: &str) -> Option<i64> {
    let b = ts.as_bytes();
    if b.len() < 19 || b[4] != b'-' || b[7] != b'-' || !matches!(b[10], b'T' | b' ') || b[13] != b':' || b[16] != b':' {
        return None;
    }
    let num = |r: std::ops::Range<usize>| ts.get(r)?.parse::<i64>().ok();
    let (y, mo, d) = (num(0..4)?, num(5..7)?, num(8..10)?);
    let (h, mi, s) = (num(11..13)?, num(14..16)?, num(17..19)?);
    if !(1..=12).contains(&mo) || !(1..=31).contains(&d) || h > 23 || mi > 59 || s > 60 {
        return None;
    }
    let rest = &ts[19..];
    let (frac, zone) = match rest.strip_prefix('.') {
        Some(r) => {
            let digits = r.bytes().take_while(u8::is_ascii_digit).count();
            (&r[..digits], &r[digits..])
        }
        None => ("", rest),
    };
    if !matches!(zone, "" | "Z") {
        return None;
    }
    let ms = frac.chars().chain("000".chars()).take(3).collect::<String>().parse::<i64>().ok()?;
    // Days since the epoch of a civil date (proleptic Gregorian).
    let y = if mo <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let doy = (153 * (if mo > 2 { mo - 3 } else { mo + 9 }) + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    let days = era * 146_097 + doe - 719_468;
    Some(((days * 24 + h) * 60 + mi) * 60_000 + s * 1000 + ms)
}

/// How long before `now_ms` the timestamp was, in words; the timestamp itself if unreadable.
pub fn ago(now_ms: i64, ts: &str) -> String {
    let Some(then) = parse_ms(ts) else { return ts.to_string() };
    let secs = (now_ms - then).max(0) / 1000;
    match secs {
        0..=44 => "just now".into(),
        45..=89 => "1 min ago".into(),
        90..=3_599 => format!("{} min ago", (secs + 30) / 60),
        3_600..=86_399 => format!("{} h ago", secs / 3_600),
        86_400..=172_799 => "yesterday".into(),
        _ => format!("{} days ago", secs / 86_400),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn engine_timestamps_are_read_as_utc() {
        assert_eq!(parse_ms("1970-01-01T00:00:00Z"), Some(0));
        assert_eq!(parse_ms("1970-01-01T00:00:01.5Z"), Some(1_500));
        assert_eq!(parse_ms("2000-03-01T00:00:00.000Z"), Some(951_868_800_000));
        assert_eq!(parse_ms("2026-01-31T12:00:00.123Z"), Some(1_769_860_800_123));
        assert_eq!(parse_ms("2026-01-31T12:00:00+02:00"), None);
        assert_eq!(parse_ms("yesterday"), None);
        assert_eq!(parse_ms("2026-13-01T00:00:00Z"), None);
    }

    #[test]
    fn ages_read_like_a_person_would_say_them() {
        let t = "2026-01-31T12:00:00.000Z";
        let at = |secs: i64| ago(parse_ms(t).unwrap() + secs * 1000, t);
        assert_eq!(at(-5), "just now", "a clock slightly behind is not the future");
        assert_eq!(at(10), "just now");
        assert_eq!(at(60), "1 min ago");
        assert_eq!(at(180), "3 min ago");
        assert_eq!(at(7_300), "2 h ago");
        assert_eq!(at(90_000), "yesterday");
        assert_eq!(at(5 * 86_400), "5 days ago");
        assert_eq!(ago(0, "garbage"), "garbage");
    }
}
