//! A running execution's output as it arrives, published as transient `execution.output`
//! events. Small pieces are merged and sent at most every [`FLUSH_EVERY`] (or once
//! [`FLUSH_AT`] bytes wait), so a chatty command does not flood the bus. Text is cut on UTF-8
//! boundaries: a character split across two pieces is sent whole with the later one.

use std::time::Duration;

use nomos_types::events::ExecutionOutput;

use crate::actuate::ssh::OutputKind;
use crate::events::EventDraft;
use crate::Engine;

/// How often waiting output is sent.
pub(super) const FLUSH_EVERY: Duration = Duration::from_millis(150);
/// Waiting output of this many bytes is sent at once.
const FLUSH_AT: usize = 16 * 1024;

/// Gathers one execution's output and publishes it.
pub(super) struct OutputStream {
    engine: Engine,
    execution_id: String,
    /// Bytes not sent yet, per stream, in the order the streams were written.
    waiting: Vec<(OutputKind, Vec<u8>)>,
}

impl OutputStream {
    pub(super) fn new(engine: Engine, execution_id: &str) -> OutputStream {
        OutputStream { engine, execution_id: execution_id.to_string(), waiting: Vec::new() }
    }

    /// Adds a piece; sends what waits when it has grown large.
    pub(super) fn push(&mut self, kind: OutputKind, bytes: &[u8]) {
        match self.waiting.last_mut() {
            Some((last, buf)) if *last == kind => buf.extend_from_slice(bytes),
            _ => self.waiting.push((kind, bytes.to_vec())),
        }
        if self.waiting.iter().map(|(_, b)| b.len()).sum::<usize>() >= FLUSH_AT {
            self.flush(false);
        }
    }

    /// Sends what waits. Unless `end`, an incomplete character at the end of a stream waits for
    /// its remaining bytes.
    pub(super) fn flush(&mut self, end: bool) {
        let waiting = std::mem::take(&mut self.waiting);
        let count = waiting.len();
        for (i, (kind, mut bytes)) in waiting.into_iter().enumerate() {
            // Only the newest piece can still be continued by the next bytes of its stream.
            let text = take_text(&mut bytes, end || i + 1 < count);
            if !bytes.is_empty() {
                self.waiting.push((kind, bytes));
            }
            if text.is_empty() {
                continue;
            }
            let event =
                ExecutionOutput { execution_id: self.execution_id.clone(), stream: kind.as_str().to_string(), text };
            self.engine.publish_transient(EventDraft::new(event).correlation(&self.execution_id));
        }
    }
}

/// Takes the text out of `bytes`: invalid sequences become U+FFFD; an incomplete character at
/// the end stays in `bytes` unless `end`.
pub(super) fn take_text(bytes: &mut Vec<u8>, end: bool) -> String {
    let mut text = String::new();
    let mut rest: &[u8] = bytes;
    loop {
        match std::str::from_utf8(rest) {
            Ok(s) => {
                text.push_str(s);
                rest = &[];
                break;
            }
            Err(e) => {
                let (valid, after) = rest.split_at(e.valid_up_to());
                text.push_str(&String::from_utf8_lossy(valid));
                match e.error_len() {
                    Some(n) => {
                        text.push(char::REPLACEMENT_CHARACTER);
                        rest = &after[n..];
                    }
                    None if end => {
                        text.push(char::REPLACEMENT_CHARACTER);
                        rest = &[];
                        break;
                    }
                    None => {
                        rest = after;
                        break;
                    }
                }
            }
        }
    }
    *bytes = rest.to_vec();
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_character_split_across_pieces_waits_for_its_end() {
        let euro = "€".as_bytes();
        let mut bytes = [b"price: ".as_slice(), &euro[..2]].concat();
        assert_eq!(take_text(&mut bytes, false), "price: ");
        assert_eq!(bytes, &euro[..2]);
        bytes.extend_from_slice(&euro[2..]);
        assert_eq!(take_text(&mut bytes, false), "€");
        assert!(bytes.is_empty());
    }

    #[test]
    fn invalid_bytes_are_replaced_and_an_unfinished_end_is_flushed_at_the_end() {
        let mut bytes = b"a\xffb\xe2\x82".to_vec();
        assert_eq!(take_text(&mut bytes, false), "a\u{fffd}b");
        assert_eq!(bytes, b"\xe2\x82");
        assert_eq!(take_text(&mut bytes, true), "\u{fffd}");
        assert!(bytes.is_empty());
    }
}
