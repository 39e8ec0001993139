//! The gate's tables. Every statement on `executions` (with its `task_executions` links),
//! `approvals`, `autonomy_windows`, `host_keys`, `audit_log` and `settings` is in this module, one
//! file per table; the gate's logic (in [`super::gate`]) calls these and never writes SQL itself.
//!
//! Statuses, channels, kinds and risks are bound from their enums' spellings, never written as
//! text in a statement.

pub(crate) mod approvals;
pub(crate) mod audit;
pub(crate) mod executions;
pub(crate) mod host_keys;
pub(crate) mod settings;
pub(crate) mod windows;

use serde_json::Value as Json;
use sqlx::sqlite::SqliteRow;
use sqlx::Row;

use crate::{Error, Result};

fn parse<T: std::str::FromStr>(row: &SqliteRow, col: &str) -> Result<T>
where
    T::Err: std::fmt::Display,
{
    let s: String = row.try_get(col)?;
    s.parse::<T>().map_err(|e| Error::Invalid(format!("{col}: {e}")))
}

fn parse_opt<T: std::str::FromStr>(row: &SqliteRow, col: &str) -> Result<Option<T>>
where
    T::Err: std::fmt::Display,
{
    let s: Option<String> = row.try_get(col)?;
    s.map(|s| s.parse::<T>().map_err(|e| Error::Invalid(format!("{col}: {e}")))).transpose()
}

fn json(row: &SqliteRow, col: &str) -> Result<Json> {
    let s: String = row.try_get(col)?;
    serde_json::from_str(&s).map_err(|e| Error::Invalid(format!("{col}: {e}")))
}

fn flag(row: &SqliteRow, col: &str) -> Result<bool> {
    let v: i64 = row.try_get(col)?;
    Ok(v != 0)
}
