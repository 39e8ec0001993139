//! What the chat corpora's tests share.

/// `\u{…}` is a Unicode character, `\\` a backslash.
pub fn unescape(text: &str) -> Result<String, String> {
    let mut out = String::new();
    let mut rest = text;
    while let Some(at) = rest.find('\\') {
        out.push_str(&rest[..at]);
        rest = &rest[at..];
        if let Some(after) = rest.strip_prefix("\\\\") {
            out.push('\\');
            rest = after;
        } else if let Some(after) = rest.strip_prefix("\\u{") {
            let end = after.find('}').ok_or("unclosed \\u{")?;
            let code = u32::from_str_radix(&after[..end], 16).map_err(|e| e.to_string())?;
            out.push(char::from_u32(code).ok_or("not a character")?);
            rest = &after[end + 1..];
        } else {
            return Err(format!("unknown escape in {text:?}"));
        }
    }
    out.push_str(rest);
    Ok(out)
}
