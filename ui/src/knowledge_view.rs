//! The knowledge page's logic without a DOM: a search snippet cut into marked and plain pieces,
//! the note form turned into what the engine writes, and moving through a list by key.

use nomos_types::{Author, KnowledgeInput, KnowledgeKind};

/// The snippet's text in pieces, each marked (a match) or not, from character ranges. Ranges out
/// of order, overlapping or past the end are clipped, never a panic.
pub fn split_marked(text: &str, marks: &[[u32; 2]]) -> Vec<(String, bool)> {
    let chars: Vec<char> = text.chars().collect();
    let mut out: Vec<(String, bool)> = Vec::new();
    let mut at = 0usize;
    let push = |piece: &[char], marked: bool, out: &mut Vec<(String, bool)>| {
        if !piece.is_empty() {
            out.push((piece.iter().collect(), marked));
        }
    };
    for [start, end] in marks {
        let start = (*start as usize).clamp(at, chars.len());
        let end = (*end as usize).clamp(start, chars.len());
        push(&chars[at..start], false, &mut out);
        push(&chars[start..end], true, &mut out);
        at = end;
    }
    push(&chars[at..], false, &mut out);
    out
}

/// The note form: kind, title, body, and the entities it documents as slugs separated by commas
/// or spaces.
pub fn note_input(kind: &str, title: &str, content: &str, about: &str) -> Result<KnowledgeInput, String> {
    let kind: KnowledgeKind = kind.parse().map_err(|_| format!("Unknown kind of note: {kind}"))?;
    let title = title.trim();
    if title.is_empty() {
        return Err("Give the note a title.".into());
    }
    if content.trim().is_empty() {
        return Err("Write something in the note.".into());
    }
    let mut slugs: Vec<String> = Vec::new();
    for slug in about.split(|c: char| c == ',' || c.is_whitespace()).filter(|s| !s.is_empty()) {
        if !slug.contains(':') {
            return Err(format!("`{slug}` is not an entity slug (type:name, e.g. lxc:caddy)."));
        }
        if !slugs.iter().any(|s| s == slug) {
            slugs.push(slug.to_string());
        }
    }
    Ok(KnowledgeInput {
        kind,
        title: title.to_string(),
        content: content.to_string(),
        source: "desktop".into(),
        author: Author::Operator,
        tags: Vec::new(),
        about: slugs,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pieces(text: &str, marks: &[[u32; 2]]) -> Vec<(String, bool)> {
        split_marked(text, marks)
    }

    #[test]
    fn snippets_split_at_the_marks_by_character() {
        assert_eq!(
            pieces("é caddy renews é", &[[2, 7]]),
            [("é ".into(), false), ("caddy".into(), true), (" renews é".into(), false)]
        );
        assert_eq!(pieces("ab", &[]), [("ab".into(), false)]);
        assert_eq!(pieces("abc", &[[0, 1], [2, 3]]), [("a".into(), true), ("b".into(), false), ("c".into(), true)]);
        // Overlapping, reversed and out-of-range marks are clipped.
        assert_eq!(pieces("abc", &[[1, 9], [0, 2]]), [("a".into(), false), ("bc".into(), true)]);
        assert_eq!(pieces("", &[[0, 3]]), Vec::<(String, bool)>::new());
    }

    #[test]
    fn the_note_form_becomes_what_the_engine_writes() {
        let n = note_input("runbook", " Restart caddy ", "systemctl restart caddy", "lxc:caddy, host:strong lxc:caddy")
            .unwrap();
        assert_eq!(n.kind, KnowledgeKind::Runbook);
        assert_eq!(n.title, "Restart caddy");
        assert_eq!(n.about, ["lxc:caddy", "host:strong"]);
        assert_eq!(n.author, Author::Operator);
        assert!(note_input("runbook", " ", "x", "").unwrap_err().contains("title"));
        assert!(note_input("runbook", "t", "  ", "").unwrap_err().contains("Write"));
        assert!(note_input("runbook", "t", "x", "caddy").unwrap_err().contains("not an entity slug"));
        assert!(note_input("poem", "t", "x", "").is_err());
    }
}
