//! The dark theme covers the stylesheet: every rule that writes a colour of its own (rather than
//! a palette variable, which the dark theme redefines) is restyled in a dark block, unless it is
//! white text on a colour that is the same in both themes.

/// Rules as (selector, declarations, inside a dark block), comments removed.
fn rules(css: &str) -> Vec<(String, String, bool)> {
    let mut text = String::new();
    let mut rest = css;
    while let Some(start) = rest.find("/*") {
        text.push_str(&rest[..start]);
        rest = rest[start..].find("*/").map_or("", |end| &rest[start + end + 2..]);
    }
    text.push_str(rest);

    let mut out = Vec::new();
    // The enclosing at-rules, innermost last: (prelude, is dark).
    let mut stack: Vec<bool> = Vec::new();
    let mut selector = String::new();
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '{' => {
                let prelude = selector.trim().to_string();
                selector.clear();
                if prelude.starts_with('@') {
                    stack.push(prelude.contains("prefers-color-scheme: dark"));
                    continue;
                }
                let mut body = String::new();
                for b in chars.by_ref() {
                    if b == '}' {
                        break;
                    }
                    body.push(b);
                }
                out.push((prelude, body, stack.iter().any(|d| *d)));
            }
            '}' => {
                stack.pop();
                selector.clear();
            }
            _ => selector.push(c),
        }
    }
    out
}

/// Whether declarations write a colour literally.
fn literal_colour(body: &str) -> bool {
    body.split(';').any(|decl| {
        let Some((prop, value)) = decl.split_once(':') else { return false };
        let prop = prop.trim();
        let colour_prop = prop.contains("color") || prop == "background" || prop == "fill" || prop == "stroke";
        colour_prop
            && !prop.starts_with("--")
            && (value.contains('#') || value.contains("rgb") || value.contains("white"))
    })
}

/// White text on a background the dark theme keeps (status colours), or a light-independent
/// effect: fine in both themes.
const BOTH_THEMES: &[&str] = &[
    ".pulse",
    "0%",
    "70%",
    "100%",
    ".pill",
    ".depth",
    "button.delete.armed",
    "button.stop",
    ".nav-count",
    ".risk",
    ".sev",
];

#[test]
fn every_literal_colour_has_its_dark_counterpart() {
    let css = include_str!("../static/style.css");
    let all = rules(css);
    assert!(all.len() > 100, "the stylesheet parsed into {} rules", all.len());
    let dark: Vec<&str> = all.iter().filter(|r| r.2).flat_map(|r| r.0.split(',')).map(str::trim).collect();
    assert!(dark.contains(&":root"), "the dark theme redefines the palette");
    let literal: Vec<&str> = all
        .iter()
        .filter(|(_, body, in_dark)| !in_dark && literal_colour(body))
        .flat_map(|(sel, _, _)| sel.split(','))
        .map(str::trim)
        .collect();
    for known in ["button.primary", ".bubble.user", ".snippet mark", ".badge.col-failed"] {
        assert!(literal.contains(&known), "{known} writes its colour: {literal:?}");
    }
    let missing: Vec<&&str> =
        literal.iter().filter(|sel| **sel != ":root" && !BOTH_THEMES.contains(sel) && !dark.contains(sel)).collect();
    assert!(missing.is_empty(), "colours without a dark counterpart: {missing:?}");
}

#[test]
fn the_parser_sees_dark_blocks_and_comments() {
    let css = "/* a { color: red } */ a { color: #fff; }\n@media (prefers-color-scheme: dark) { a { color: #000; } }\nb { margin: 0; }";
    let r = rules(css);
    assert_eq!(r.len(), 3, "{r:?}");
    assert_eq!((r[0].0.as_str(), r[0].2), ("a", false));
    assert_eq!((r[1].0.as_str(), r[1].2), ("a", true));
    assert_eq!((r[2].0.as_str(), r[2].2), ("b", false));
    assert!(literal_colour(" color: #fff; ") && !literal_colour(" color: var(--ink); margin: 0 "));
}
