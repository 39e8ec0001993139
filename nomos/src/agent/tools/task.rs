//! The task lifecycle: `set_goal`, `propose_plan`, `update_plan_step`, `ask_operator`,
//! `complete_task`. They register through the same [`super::Registry`] as every other tool: each
//! is a [`super::Tool`] returned by [`tools`] — an argument struct (`Deserialize + JsonSchema`,
//! `deny_unknown_fields`) whose schema is `args::schema_of::<Args>()`, and a `call` that starts
//! with `parsed!(args)` (see `graph.rs`). A call that ends the turn returns `Next::Wait(..)`;
//! `complete_task` returns `Next::Finish`.

use super::Tool;

/// The task-lifecycle tools, in the order offered.
pub(super) fn tools() -> Vec<Box<dyn Tool>> {
    Vec::new()
}
