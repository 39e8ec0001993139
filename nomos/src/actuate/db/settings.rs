//! `settings`: the gate's one, whether autonomy is paused.

use serde_json::json;
use sqlx::SqliteConnection;

use crate::Result;

/// While true no window applies and none is opened.
const AUTONOMY_PAUSED: &str = "autonomy_paused";

pub(crate) async fn paused(conn: &mut SqliteConnection) -> Result<bool> {
    let v: Option<String> = sqlx::query_scalar("SELECT value FROM settings WHERE key = ?")
        .bind(AUTONOMY_PAUSED)
        .fetch_optional(conn)
        .await?;
    Ok(v.as_deref() == Some("true"))
}

pub(crate) async fn set_paused(conn: &mut SqliteConnection, paused: bool, now: &str) -> Result<()> {
    sqlx::query(
        "INSERT INTO settings (key, value, updated_at) VALUES (?, ?, ?)
         ON CONFLICT (key) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at",
    )
    .bind(AUTONOMY_PAUSED)
    .bind(json!(paused).to_string())
    .bind(now)
    .execute(conn)
    .await?;
    Ok(())
}
