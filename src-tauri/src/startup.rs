//! When the process started, and the moments its page reports (first frames) measured from it.
//! Shared with the hello-world app `make bench-desktop` compares against, so both count alike.

use std::sync::LazyLock;
use std::time::{Instant, SystemTime, UNIX_EPOCH};

/// The start, by the monotonic clock and by the wall clock (what the page's times are read
/// against). Forced first thing in `main`.
static STARTED: LazyLock<(Instant, SystemTime)> = LazyLock::new(|| (Instant::now(), SystemTime::now()));

/// Marks the process's start.
pub fn begin() {
    LazyLock::force(&STARTED);
}

/// Milliseconds since the start.
pub fn elapsed_ms() -> u64 {
    u64::try_from(STARTED.0.elapsed().as_millis()).unwrap_or(u64::MAX)
}

/// A moment the page reports, `at` ms since the Unix epoch by its clock (the same machine's), as
/// (ms since the start, `at` rounded). The report can arrive later than the moment it tells of:
/// its call may queue behind the page's first requests. Without `at`, or with one the clocks
/// cannot place (before the start, not a number), the report's arrival counts.
pub fn page_moment(at: Option<f64>) -> (u64, u64) {
    let start_ms = start_ms();
    match page_ms(at) {
        Some(ms) => (ms, (start_ms + ms as f64) as u64),
        None => {
            let ms = elapsed_ms();
            (ms, (start_ms + ms as f64) as u64)
        }
    }
}

/// A moment the page reports, in ms since the start; `None` when the clocks cannot place it.
pub fn page_ms(at: Option<f64>) -> Option<u64> {
    let start_ms = start_ms();
    // Both are finite and `at - start_ms` is non-negative; `as` saturates at the far end.
    at.filter(|at| at.is_finite() && *at >= start_ms).map(|at| (at - start_ms) as u64)
}

/// The start by the wall clock, in ms since the Unix epoch.
fn start_ms() -> f64 {
    STARTED.1.duration_since(UNIX_EPOCH).map(|d| d.as_secs_f64() * 1000.0).unwrap_or(0.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_page_moment_is_measured_from_the_start() {
        begin();
        let start_ms = STARTED.1.duration_since(UNIX_EPOCH).unwrap().as_secs_f64() * 1000.0;
        assert_eq!(page_moment(Some(start_ms + 420.0)).0, 420);
        assert_eq!(page_moment(Some(start_ms + 420.0)).1, (start_ms + 420.0) as u64);
        // Unplaceable moments fall back to now, never a huge or negative number.
        for at in [None, Some(f64::NAN), Some(f64::INFINITY), Some(-1.0), Some(start_ms - 5_000.0)] {
            let (ms, _) = page_moment(at);
            assert!(ms < 60_000, "{at:?} → {ms}");
            assert_eq!(page_ms(at), None);
        }
        assert_eq!(page_ms(Some(start_ms + 99.6)), Some(99));
    }
}
