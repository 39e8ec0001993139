//! The graph tools.

use super::Tool;

pub(super) fn tools() -> Vec<Box<dyn Tool>> {
    Vec::new()
}
