//! Parts that pages are made of.

mod blast_radius;
mod empty_graph;
mod entity_facts;
mod entity_list;
mod status;

pub use blast_radius::BlastRadiusView;
pub use empty_graph::EmptyGraph;
pub use entity_facts::EntityFacts;
pub use entity_list::EntityList;
pub use status::{answer, Unavailable};
