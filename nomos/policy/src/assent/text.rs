//! From a chat message to words: Unicode folded to one spelling per sign, then split into words and
//! the signs that are not benign punctuation (quotes, brackets, emoji…), which no judgement accepts.

use super::lexicon::WITHHOLDING;

/// The signs read as a word ("yes"): a thumbs-up, whatever its skin tone, and check marks (✅ ✔ ☑).
pub(super) const GO_AHEAD_SIGNS: &[char] = &['\u{1F44D}', '\u{2705}', '\u{2714}', '\u{2611}'];

/// Punctuation that separates words without changing what they say.
const SEPARATORS: &[char] = &[',', '.', '!', ':', ';', '-', '\u{2012}', '\u{2013}', '\u{2014}', '\u{2015}'];

/// Characters that belong to a word when letters or digits stand on both sides (`don't`,
/// `okey-dokey`, `git.home.arpa`, `my_vm`).
const JOINERS: &[char] = &['\'', '-', '_', '.'];

/// One piece of a message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Token {
    Word(String),
    /// A sign that is neither a letter, a digit nor a separator: quotes, brackets, `>`, `@`, `/`,
    /// emoji. Its presence means the message is more than plain words.
    Sign(char),
}

/// Lowercase, with one spelling per sign: apostrophe and quote look-alikes become `'` and `"`,
/// every question mark `?`, an ellipsis `...`, full-width forms their ASCII letters, any space a
/// space; zero-width characters, soft hyphens, variation selectors and skin-tone modifiers are
/// dropped (they change how a message looks, never what it says).
pub(super) fn fold(message: &str) -> String {
    let mut out = String::with_capacity(message.len());
    for c in message.chars() {
        match c {
            '\u{200B}'..='\u{200F}'
            | '\u{202A}'..='\u{202E}'
            | '\u{2060}'..='\u{2064}'
            | '\u{2066}'..='\u{2069}'
            | '\u{FEFF}'
            | '\u{00AD}'
            | '\u{180E}'
            | '\u{034F}'
            | '\u{FE00}'..='\u{FE0F}'
            | '\u{1F3FB}'..='\u{1F3FF}' => {}
            '\u{2018}' | '\u{2019}' | '\u{201A}' | '\u{201B}' | '`' | '\u{B4}' | '\u{2032}' | '\u{2035}'
            | '\u{2B9}' | '\u{2BB}' | '\u{2BC}' | '\u{2BD}' | '\u{2C8}' | '\u{A78B}' | '\u{A78C}' | '\u{FF07}' => {
                out.push('\'')
            }
            '\u{201C}'
            | '\u{201D}'
            | '\u{201E}'
            | '\u{201F}'
            | '\u{2033}'
            | '\u{2036}'
            | '\u{AB}'
            | '\u{BB}'
            | '\u{2039}'
            | '\u{203A}'
            | '\u{300C}'..='\u{300F}'
            | '\u{301D}'..='\u{301F}'
            | '\u{FF02}' => out.push('"'),
            '\u{BF}' | '\u{37E}' | '\u{55E}' | '\u{61F}' | '\u{1367}' | '\u{1945}' | '\u{203D}' | '\u{2047}'
            | '\u{2048}' | '\u{2049}' | '\u{2753}' | '\u{2754}' | '\u{2E2E}' | '\u{A60F}' | '\u{FE16}' | '\u{FE56}'
            | '\u{FF1F}' | '\u{11143}' => out.push('?'),
            '\u{2026}' | '\u{22EF}' | '\u{FE19}' => out.push_str("..."),
            '\u{FF01}'..='\u{FF5E}' => {
                out.extend(char::from_u32(u32::from(c) - 0xFEE0).into_iter().flat_map(char::to_lowercase))
            }
            c if c.is_whitespace() => out.push(' '),
            c => out.extend(c.to_lowercase()),
        }
    }
    out
}

/// Whether the message holds an invisible format character: direction overrides and isolates,
/// zero-width spaces and joiners, word joiners, soft hyphens, invisible fillers, tags. They make
/// the text judged differ from the text shown (a right-to-left override turns `yes, on` into
/// what reads as another reply), so a message holding one decides nothing. Emoji variation
/// selectors and skin tones are not among them: they only change how a sign is drawn.
pub(super) fn has_format_characters(message: &str) -> bool {
    message.chars().any(|c| {
        matches!(c,
            '\u{00AD}' | '\u{034F}' | '\u{061C}' | '\u{115F}' | '\u{1160}' | '\u{17B4}' | '\u{17B5}'
            | '\u{180B}'..='\u{180F}' | '\u{200B}'..='\u{200F}' | '\u{202A}'..='\u{202E}'
            | '\u{2060}'..='\u{206F}' | '\u{3164}' | '\u{FEFF}' | '\u{FFA0}' | '\u{FFF9}'..='\u{FFFB}'
            | '\u{1BCA0}'..='\u{1BCA3}' | '\u{1D173}'..='\u{1D17A}' | '\u{E0000}'..='\u{E0FFF}')
    })
}

/// A question or a hesitation: any question mark, or an ellipsis (`...`, `..`).
pub(super) fn doubtful(folded: &str) -> bool {
    folded.contains('?') || folded.contains("..")
}

/// The words and signs of a folded message. An entity's slug (`lxc:caddy`) is one word: it names a
/// target, whatever its parts mean.
pub(super) fn tokens(folded: &str) -> Vec<Token> {
    let mut out = Vec::new();
    for chunk in folded.split_whitespace() {
        let chunk = chunk.trim_matches(|c| SEPARATORS.contains(&c));
        if chunk.is_empty() {
            continue;
        }
        if is_slug(chunk) {
            out.push(Token::Word(chunk.to_string()));
            continue;
        }
        let chars: Vec<char> = chunk.chars().collect();
        let mut word = String::new();
        for (i, &c) in chars.iter().enumerate() {
            let between_letters = i.checked_sub(1).and_then(|p| chars.get(p)).is_some_and(|p| p.is_alphanumeric())
                && chars.get(i + 1).is_some_and(|n| n.is_alphanumeric());
            if c.is_alphanumeric() || (between_letters && JOINERS.contains(&c)) {
                word.push(c);
                continue;
            }
            if !word.is_empty() {
                out.push(Token::Word(std::mem::take(&mut word)));
            }
            if GO_AHEAD_SIGNS.contains(&c) {
                out.push(Token::Word(c.to_string()));
            } else if !SEPARATORS.contains(&c) {
                out.push(Token::Sign(c));
            }
        }
        if !word.is_empty() {
            out.push(Token::Word(word));
        }
    }
    out
}

/// The words of a folded message, or `None` when it holds any other sign.
pub(super) fn words_only(folded: &str) -> Option<Vec<String>> {
    tokens(folded)
        .into_iter()
        .map(|t| match t {
            Token::Word(w) => Some(w),
            Token::Sign(_) => None,
        })
        .collect()
}

/// `type:name` as entities are named (`lxc:caddy`, `dns-record:git.home.arpa`). A type that is
/// itself a refusal ("no:…") is not a slug.
pub(super) fn is_slug(word: &str) -> bool {
    let Some((kind, name)) = word.split_once(':') else { return false };
    let kind_ok = kind.starts_with(|c: char| c.is_ascii_lowercase())
        && kind.chars().all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-');
    let name_ok = name.starts_with(|c: char| c.is_ascii_alphanumeric())
        && name.chars().all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || matches!(c, '.' | '_' | '-'));
    kind_ok && name_ok && !WITHHOLDING.contains(&kind)
}

/// Letters repeated more than twice collapse to one ("yesss" is "yes", "noooo" is "no").
pub(super) fn squeeze(word: &str) -> String {
    let mut out = String::with_capacity(word.len());
    let mut chars = word.chars().peekable();
    while let Some(c) = chars.next() {
        let mut run = 1;
        while chars.next_if_eq(&c).is_some() {
            run += 1;
        }
        out.extend(std::iter::repeat_n(c, if run > 2 { 1 } else { run }));
    }
    out
}

/// Whether `phrase` (words separated by single spaces) occurs in `words` as consecutive whole words.
pub(super) fn contains_phrase(words: &[String], phrase: &str) -> bool {
    let parts: Vec<&str> = phrase.split(' ').collect();
    words.windows(parts.len()).any(|w| w.iter().zip(&parts).all(|(t, p)| t == p))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(m: &str) -> Option<Vec<String>> {
        words_only(&fold(m))
    }

    #[test]
    fn folding_gives_one_spelling_per_sign() {
        assert_eq!(fold("Don\u{2019}t"), "don't");
        assert_eq!(fold("ｙｅｓ！"), "yes!");
        assert_eq!(fold("go\u{200B}ahead"), "goahead");
        assert_eq!(fold("ok\u{FF1F}"), "ok?");
        assert_eq!(fold("¿sí?"), "?sí?");
        assert_eq!(fold("yes\u{2026}"), "yes...");
        assert_eq!(fold("\u{1F44D}\u{1F3FD}\u{FE0F}"), "\u{1F44D}");
        assert_eq!(fold("a\u{A0}b"), "a b");
        assert!(doubtful(&fold("yes\u{203D}")) && doubtful(&fold("ok..")) && !doubtful(&fold("ok.")));
    }

    #[test]
    fn words_keep_apostrophes_inside_and_signs_apart() {
        assert_eq!(words("Yes, don't!").unwrap(), ["yes", "don't"]);
        assert_eq!(words("Confirmed, wipe LXC:Scratch.").unwrap(), ["confirmed", "wipe", "lxc:scratch"]);
        assert_eq!(words("okey-dokey — go").unwrap(), ["okey-dokey", "go"]);
        assert_eq!(words("yes,go").unwrap(), ["yes", "go"]);
        for quoted in
            ["'yes'", "\"yes\"", "`yes`", "\u{201C}yes\u{201D}", "> yes", "(yes)", "yes \u{1F60F}", "@bob yes"]
        {
            assert_eq!(words(quoted), None, "{quoted}");
        }
        assert_eq!(tokens(&fold("\u{1F44D}")), [Token::Word("\u{1F44D}".into())]);
    }

    #[test]
    fn slugs_are_one_word_unless_their_type_refuses() {
        assert!(is_slug("lxc:caddy") && is_slug("dns-record:git.home.arpa"));
        assert!(!is_slug("no:way") && !is_slug("lxc:") && !is_slug(":x"));
        assert_eq!(squeeze("yesss"), "yes");
        assert_eq!(squeeze("yess"), "yess");
    }
}
