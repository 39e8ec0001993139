//! What the model sees of a long text: its head and tail, with a line in between saying how much
//! was left out and how to read it.

/// The most bytes of one tool result the model sees.
pub const RESULT_CAP: usize = 4096;

/// The hint for a result that has no pages to read.
pub(super) const GENERIC_HINT: &str = "ask for less (a narrower filter or a smaller limit)";

/// Room kept for the line that says what was left out.
const MARKER_ROOM: usize = 200;

/// `text` if it fits in `max` bytes; else its head and tail with a line between them saying how
/// many bytes were left out and `hint`.
pub fn cap_text(text: &str, max: usize, hint: &str) -> String {
    cap_with(text, max, |_, omitted| format!("[… {omitted} bytes left out; {hint} …]"))
}

/// [`cap_text`] with the marker built from where the left-out part starts (a byte offset into
/// `text`) and how long it is — so it can say which page to read.
pub(crate) fn cap_with(text: &str, max: usize, marker: impl Fn(usize, usize) -> String) -> String {
    if text.len() <= max {
        return text.to_string();
    }
    let room = max.saturating_sub(MARKER_ROOM);
    // The head says what happened first; the tail how it ended (errors, exit summaries).
    let head_end = cut_back(text, room * 2 / 3);
    let tail_start = cut_forward(text, text.len() - (room - head_end.min(room)).min(text.len()), head_end);
    let omitted = tail_start - head_end;
    let mut out = String::with_capacity(max);
    out.push_str(&text[..head_end]);
    if !out.ends_with('\n') && !out.is_empty() {
        out.push('\n');
    }
    out.push_str(&marker(head_end, omitted));
    out.push('\n');
    out.push_str(&text[tail_start..]);
    out
}

/// The last char boundary at or before `at`, preferring the end of a line close to it.
fn cut_back(text: &str, at: usize) -> usize {
    let at = (0..=at.min(text.len())).rev().find(|i| text.is_char_boundary(*i)).unwrap_or(0);
    match text[..at].rfind('\n') {
        Some(nl) if at - nl < 200 => nl + 1,
        _ => at,
    }
}

/// The first char boundary at or after `at` (and not before `floor`), preferring the start of a
/// line close to it.
fn cut_forward(text: &str, at: usize, floor: usize) -> usize {
    let at = (at.max(floor)..=text.len()).find(|i| text.is_char_boundary(*i)).unwrap_or(text.len());
    match text[at..].find('\n') {
        Some(nl) if nl < 200 => at + nl + 1,
        _ => at,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn short_text_is_untouched() {
        assert_eq!(cap_text("hello", 100, "x"), "hello");
    }

    #[test]
    fn long_text_keeps_head_and_tail_and_says_what_was_left_out() {
        let text: String = (0..2000).map(|i| format!("line {i}\n")).collect();
        let capped = cap_text(&text, 4096, "read the rest");
        assert!(capped.len() <= 4096, "{}", capped.len());
        assert!(capped.starts_with("line 0\nline 1\n"));
        assert!(capped.ends_with("line 1999\n"));
        let marker = capped.lines().find(|l| l.starts_with("[…")).unwrap();
        let omitted: usize = marker.split_whitespace().nth(1).unwrap().parse().unwrap();
        assert_eq!(capped.len() - marker.len() - 1, text.len() - omitted, "kept + left out = all");
        assert!(marker.contains("read the rest"));
    }

    #[test]
    fn cuts_fall_on_char_boundaries() {
        let text = "é".repeat(5000) + "end";
        let capped = cap_text(&text, 1000, "x");
        assert!(capped.len() <= 1000 + 4);
        assert!(capped.ends_with("end"));
    }

    #[test]
    fn the_marker_knows_where_the_gap_starts() {
        let text = "a".repeat(3000) + &"b".repeat(3000);
        let capped = cap_with(&text, 1000, |from, len| format!("[gap {from}+{len}]"));
        let marker = capped.lines().find(|l| l.starts_with("[gap")).unwrap();
        let nums: Vec<usize> = marker
            .trim_matches(|c| c == '[' || c == ']')
            .trim_start_matches("gap ")
            .split('+')
            .map(|n| n.parse().unwrap())
            .collect();
        let head = capped.split('\n').next().unwrap();
        assert_eq!(nums[0], head.len());
        assert_eq!(&text[nums[0] + nums[1]..], capped.rsplit('\n').next().unwrap());
    }
}
