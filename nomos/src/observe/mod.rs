//! Observe: what Oikos watches on the homelab and when it speaks up.
//!
//! - [`rules`]: signal rules as data (`seeds/signals.yaml`), each checked against its examples at
//!   load, and the tracker that follows one rule on one entity (dwell, hysteresis, unknown on
//!   missing data, flapping).

pub mod rules;
