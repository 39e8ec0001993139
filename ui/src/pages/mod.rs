//! One file per page; `app` routes to them. A new page is a file here, a route in `app` and, if it
//! needs new data, commands in the table of `nomos_types::ipc`.

mod connect_agent;
mod entities;
mod entity;
mod not_found;
// ── observe ──
mod overview;
mod signals;
pub use overview::OverviewPage;
pub use signals::{CriticalCount, SignalsPage};
// ── tasks ──
mod task;
mod tasks;

// ── approvals, operations ──
mod approvals;
mod operations;
pub use approvals::{ApprovalsPage, PendingCount};
pub use operations::OperationsPage;

// ── graph, knowledge, learning, settings ──
mod graph;
mod knowledge;
mod learning;
mod notification_settings;
mod observe_settings;
mod settings;
mod settings_desktop;
mod settings_hosts;
pub use graph::GraphPage;
pub use knowledge::KnowledgePage;
pub use learning::LearningPage;
pub use settings::SettingsPage;

pub use entities::{EntitiesPage, NoSelection};
pub use entity::EntityPage;
pub use not_found::NotFound;
pub use task::TaskPage;
pub use tasks::TasksPage;
