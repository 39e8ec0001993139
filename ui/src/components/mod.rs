//! Parts that pages are made of.

mod approval_card;
mod blast_radius;
mod chart;
mod context_panel;
mod countdown;
mod discovery_review;
mod empty_graph;
mod entity_facts;
mod entity_list;
mod first_run;
mod host_checks;
mod host_key;
mod ipc_error;
mod markdown;
mod outcome;
mod signal_row;
mod status;
mod update;

pub use approval_card::ApprovalCard;
pub use blast_radius::BlastRadiusView;
pub use chart::{MetricChart, Sparkline};
pub use context_panel::{ContextPanel, OperatorInput};
pub use countdown::Countdown;
pub use discovery_review::DiscoveryReview;
pub use empty_graph::EmptyGraph;
pub use entity_facts::EntityFacts;
pub use entity_list::EntityList;
pub use first_run::{stored_skips, FirstRun};
pub use host_checks::HostChecks;
pub use host_key::KeyToCompare;
pub use ipc_error::IpcErrorView;
pub use markdown::Markdown;
pub use outcome::{outcome_view, read_chosen_file, report_line, Outcome};
pub use signal_row::SignalRow;
pub use status::{answer, Unavailable};
pub use update::{provide_updates, UpdateBanner, UpdateSection};
