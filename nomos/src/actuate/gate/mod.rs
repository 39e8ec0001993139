//! The gate: classify → run now, run inside a window, or queue for the operator; and the
//! operator's side: approve, deny, cancel, expire, windows, pause, host keys.
//!
//! - [`request`]: a request comes in (checked, classified, joined to the same one running or
//!   waiting, queued or let through);
//! - [`decide`]: the rules every decision follows (what grants a command, who may decide, what a
//!   decision message must say);
//! - [`execute`]: running a granted execution and recording its end — the only caller of the SSH
//!   executor — plus the heartbeat and the sweep of interrupted executions;
//! - [`probe`]: routine read-only probes, keeping their last result instead of a row per poll;
//! - [`stream`]: a running execution's output as transient events while it arrives;
//! - [`cancel`]: stopping a waiting or running execution, here or in another process;
//! - [`approvals`], [`windows`], [`host_keys`]: the operator's decisions;
//! - [`queries`]: reading it all back.
//!
//! Decisions are taken inside one write transaction together with the rows they create, so two
//! requests cannot both slip through one check. Commands run outside any transaction. The SQL is
//! in [`super::db`].

mod approvals;
mod cancel;
mod decide;
mod execute;
mod host_keys;
mod probe;
mod queries;
mod request;
mod stream;
mod windows;

use std::time::Duration;

pub(crate) use approvals::withdraw_task_requests;
pub use execute::WITHHELD;
pub use probe::ProbeResult;

fn ms(d: Duration) -> i64 {
    i64::try_from(d.as_millis()).unwrap_or(i64::MAX)
}
