//! The task lifecycle: `set_goal`, `propose_plan`, `update_plan_step`, `ask_operator`,
//! `complete_task`. They register through the same [`super::Registry`] as every other tool: each
//! is a [`super::Tool`] returned by [`tools`].

use super::Tool;

/// The task-lifecycle tools, in the order offered.
pub(super) fn tools() -> Vec<Box<dyn Tool>> {
    Vec::new()
}
