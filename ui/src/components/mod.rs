//! Parts that pages are made of.

mod approval_card;
mod blast_radius;
mod countdown;
mod empty_graph;
mod entity_facts;
mod entity_list;
mod status;

pub use approval_card::ApprovalCard;
pub use blast_radius::BlastRadiusView;
pub use countdown::Countdown;
pub use empty_graph::EmptyGraph;
pub use entity_facts::EntityFacts;
pub use entity_list::EntityList;
pub use status::{answer, Unavailable};
