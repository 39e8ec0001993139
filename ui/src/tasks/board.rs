//! The task board's logic: which tasks a filter shows, moving the selection with the keyboard and
//! the two-click delete.

use nomos_types::tasks::{BoardColumn, TaskBoard};
use nomos_types::Task;

/// The board's filter: every task, or one column.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Filter {
    #[default]
    All,
    Column(BoardColumn),
}

impl Filter {
    pub const ALL: [Filter; 5] = [
        Filter::All,
        Filter::Column(BoardColumn::NeedsYou),
        Filter::Column(BoardColumn::Working),
        Filter::Column(BoardColumn::Done),
        Filter::Column(BoardColumn::Failed),
    ];

    pub fn label(self) -> &'static str {
        match self {
            Filter::All => "All",
            Filter::Column(c) => column_label(c),
        }
    }

    pub fn key(self) -> &'static str {
        match self {
            Filter::All => "all",
            Filter::Column(c) => c.as_str(),
        }
    }

    pub fn count(self, board: &TaskBoard) -> u32 {
        match self {
            Filter::All => BoardColumn::ALL.iter().map(|c| board.counts.get(*c)).sum(),
            Filter::Column(c) => board.counts.get(c),
        }
    }

    pub fn shows(self, task: &Task) -> bool {
        match self {
            Filter::All => true,
            Filter::Column(c) => BoardColumn::of(task) == c,
        }
    }
}

pub fn column_label(c: BoardColumn) -> &'static str {
    match c {
        BoardColumn::Working => "Working",
        BoardColumn::NeedsYou => "Needs you",
        BoardColumn::Done => "Done",
        BoardColumn::Failed => "Failed",
    }
}

/// Delete asks twice: the first click arms the button of that task, the second deletes.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct DeleteArm {
    armed: Option<String>,
}

impl DeleteArm {
    /// True when this click confirms a delete of `id`.
    pub fn click(&mut self, id: &str) -> bool {
        if self.armed.as_deref() == Some(id) {
            self.armed = None;
            true
        } else {
            self.armed = Some(id.to_string());
            false
        }
    }

    pub fn is_armed(&self, id: &str) -> bool {
        self.armed.as_deref() == Some(id)
    }

    pub fn any_armed(&self) -> bool {
        self.armed.is_some()
    }

    pub fn disarm(&mut self) {
        self.armed = None;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn delete_needs_a_second_click_on_the_same_task() {
        let mut arm = DeleteArm::default();
        assert!(!arm.click("a"));
        assert!(arm.is_armed("a"));
        assert!(!arm.click("b"), "another task's button re-arms, it does not delete");
        assert!(!arm.is_armed("a"));
        assert!(arm.click("b"));
        assert!(!arm.is_armed("b"));
        assert!(!arm.click("b"));
        arm.disarm();
        assert!(!arm.is_armed("b"));
    }

    #[test]
    fn every_filter_has_a_distinct_key() {
        let keys: std::collections::BTreeSet<_> = Filter::ALL.iter().map(|f| f.key()).collect();
        assert_eq!(keys.len(), Filter::ALL.len());
        assert_eq!(Filter::Column(BoardColumn::NeedsYou).label(), "Needs you");
    }
}
