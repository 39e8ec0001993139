//! Keyboard movement in lists (j/k or the arrow keys), as a plain function tested natively, and
//! where a key was pressed (a page's keys leave text fields and buttons alone).

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

/// Where a key was pressed, as far as a page's own keys care.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum KeyTarget {
    /// A text field or a select: the key is the operator's text.
    Field,
    /// A button or a link: Enter presses it.
    Control,
    /// Anywhere else.
    Page,
}

impl KeyTarget {
    /// Classifies an element by its tag name.
    pub fn of_tag(tag: &str) -> KeyTarget {
        match tag.to_ascii_uppercase().as_str() {
            "INPUT" | "TEXTAREA" | "SELECT" => KeyTarget::Field,
            "BUTTON" | "A" | "SUMMARY" => KeyTarget::Control,
            _ => KeyTarget::Page,
        }
    }

    /// Where `ev` was pressed.
    pub fn of(ev: &web_sys::KeyboardEvent) -> KeyTarget {
        use wasm_bindgen::JsCast;
        ev.target()
            .and_then(|t| t.dyn_into::<web_sys::Element>().ok())
            .map_or(KeyTarget::Page, |el| KeyTarget::of_tag(&el.tag_name()))
    }
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

    #[test]
    fn keys_in_fields_are_text_and_enter_on_a_control_presses_it() {
        assert_eq!(KeyTarget::of_tag("INPUT"), KeyTarget::Field);
        assert_eq!(KeyTarget::of_tag("textarea"), KeyTarget::Field);
        assert_eq!(KeyTarget::of_tag("BUTTON"), KeyTarget::Control);
        assert_eq!(KeyTarget::of_tag("A"), KeyTarget::Control);
        assert_eq!(KeyTarget::of_tag("UL"), KeyTarget::Page);
        assert_eq!(KeyTarget::of_tag("BODY"), KeyTarget::Page);
    }
}
