//! Printing results: JSON with `--json`, text otherwise, and stdin read a line at a time.

use std::io::{BufRead, Write};

use serde::Serialize;

use crate::exit::{Exit, Outcome};

/// Where results go and in which form.
#[derive(Debug, Clone, Copy)]
pub struct Out {
    pub json: bool,
}

impl Out {
    /// Prints `value` as JSON, or the text `human` renders.
    pub fn print<T: Serialize>(&self, value: &T, human: impl FnOnce(&T) -> String) -> Outcome {
        let text = if self.json { serde_json::to_string_pretty(value)? } else { human(value) };
        line(text.trim_end());
        Ok(Exit::Ok)
    }
}

/// Writes one line to stdout; a closed pipe (`| head`) is not an error worth reporting.
pub fn line(text: &str) {
    let mut stdout = std::io::stdout().lock();
    let _ = writeln!(stdout, "{text}");
}

/// Calls `each` with every line of stdin (bytes that are not UTF-8 are replaced, never fatal), and
/// writes its JSON result as one line.
pub fn per_line<T: Serialize>(mut each: impl FnMut(&str) -> T) -> Outcome {
    let stdin = std::io::stdin();
    let mut stdout = std::io::stdout().lock();
    let mut line = Vec::new();
    let mut reader = stdin.lock();
    loop {
        line.clear();
        let n = reader.read_until(b'\n', &mut line).map_err(|e| format!("reading stdin: {e}"))?;
        if n == 0 {
            return Ok(Exit::Ok);
        }
        let text = String::from_utf8_lossy(&line);
        let text = text.strip_suffix('\n').unwrap_or(&text);
        let text = text.strip_suffix('\r').unwrap_or(text);
        let json = serde_json::to_string(&each(text))?;
        if writeln!(stdout, "{json}").is_err() {
            // The reader went away (`| head`): stop quietly.
            return Ok(Exit::Ok);
        }
    }
}

/// Parses an enum spelled as in the database and on the wire (`read_only`, `pending_approval`).
pub fn parse_enum<T: std::str::FromStr<Err = nomos::types::UnknownValue>>(s: &str) -> Result<T, String> {
    s.parse().map_err(|e: nomos::types::UnknownValue| e.to_string())
}
