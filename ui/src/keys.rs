//! Keyboard movement in lists (j/k or the arrow keys), as a plain function tested natively.

/// How a key moves the selection: +1, -1, or not at all.
pub fn movement(key: &str) -> Option<isize> {
    match key {
        "j" | "ArrowDown" => Some(1),
        "k" | "ArrowUp" => Some(-1),
        _ => None,
    }
}

/// The selection after moving by `delta` in a list of `len`, clamped to its ends; from nothing
/// selected, down lands on the first item and up on the last. Every list of the app moves so.
pub fn step(current: Option<usize>, len: usize, delta: isize) -> Option<usize> {
    if len == 0 {
        return None;
    }
    Some(match current {
        None if delta >= 0 => 0,
        None => len - 1,
        Some(i) => i.saturating_add_signed(delta).min(len - 1),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn moves_within_the_list() {
        assert_eq!(step(None, 3, 1), Some(0));
        assert_eq!(step(None, 3, -1), Some(2), "up from nothing: the last");
        assert_eq!(step(Some(0), 3, 1), Some(1));
        assert_eq!(step(Some(2), 3, 1), Some(2));
        assert_eq!(step(Some(0), 3, -1), Some(0));
        assert_eq!(step(Some(5), 3, -1), Some(2), "a list that shrank");
        assert_eq!(step(Some(1), 0, 1), None);
        assert_eq!(movement("j"), Some(1));
        assert_eq!(movement("ArrowUp"), Some(-1));
        assert_eq!(movement("x"), None);
    }
}
