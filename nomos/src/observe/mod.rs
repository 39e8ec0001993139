//! Observe: what Oikos watches on the homelab and when it speaks up.
//!
//! - [`rules`]: signal rules as data (`seeds/signals.yaml`), each checked against its examples at
//!   load, and the tracker that follows one rule on one entity (dwell, hysteresis, unknown on
//!   missing data, flapping);
//! - [`collect`]: what the probes read, turned into readings;
//! - [`series`]: metrics in tiers (raw 2 h, 1-minute 48 h, 1-hour 400 days), rollup and queries;
//! - [`signals`]: the signal lifecycle in the store, suppression, maintenance and notifications;
//! - [`cycle`]: one collection cycle, and the background loop;
//! - [`investigate`]: a signal turned into a researched task (by hand, or automatically);
//! - [`learning`]: what a resolved signal teaches, and the counts of the Learning page.

pub mod checks;
pub mod collect;
pub mod cycle;
pub mod investigate;
pub mod learning;
pub mod overview;
pub mod rules;
pub mod series;
pub mod signals;

pub use cycle::{Observer, ACTOR};
