//! Migration 0013 rebuilds `approvals` and `autonomy_windows` to accept the channel
//! "notification": a database made before it keeps every row, reference and index, and accepts the
//! new channel afterwards.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use nomos::Engine;

async fn exec(pool: &sqlx::SqlitePool, sql: &str) {
    sqlx::query(sql).execute(pool).await.unwrap();
}

#[tokio::test]
async fn the_rebuild_keeps_rows_references_and_indexes_and_accepts_the_notification_channel() {
    let dir = tempfile::tempdir().unwrap();
    let old = dir.path().join("old-migrations");
    std::fs::create_dir(&old).unwrap();
    let all = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../migrations");
    for entry in std::fs::read_dir(&all).unwrap() {
        let entry = entry.unwrap();
        let name = entry.file_name().into_string().unwrap();
        if name.as_str() < "0013" {
            std::fs::copy(entry.path(), old.join(&name)).unwrap();
        }
    }
    let path = dir.path().join("oikos.db");
    {
        let opts = sqlx::sqlite::SqliteConnectOptions::new().filename(&path).create_if_missing(true).foreign_keys(true);
        let pool = sqlx::SqlitePool::connect_with(opts).await.unwrap();
        sqlx::migrate::Migrator::new(old.as_path()).await.unwrap().run(&pool).await.unwrap();
        exec(&pool, "INSERT INTO tasks (id, title, status, waiting_for) VALUES ('t1', 't1', 'waiting', 'approval')")
            .await;
        for (exec_id, status) in [("e1", "pending_approval"), ("e2", "completed"), ("e3", "denied")] {
            exec(
                &pool,
                &format!(
                    "INSERT INTO executions (id, task_id, target_slug, command, risk, status)
                     VALUES ('{exec_id}', 't1', 'host:pve1', 'echo {exec_id}', 'config_mutation', '{status}')"
                ),
            )
            .await;
        }
        exec(
            &pool,
            "INSERT INTO approvals (id, execution_id, task_id, status, requires_confirmation, blast_radius, expires_at)
             VALUES ('a1', 'e1', 't1', 'pending', 1, '{\"affects\": 2}', '9999-01-01T00:00:00.000Z')",
        )
        .await;
        exec(
            &pool,
            "INSERT INTO approvals (id, execution_id, task_id, status, expires_at, decided_at, decided_by, channel,
                                    grant_message, created_at)
             VALUES ('a2', 'e2', 't1', 'approved', '9999', '2026-01-01T00:00:00.000Z', 'operator:me', 'chat',
                     'yes go', '2025-12-31T00:00:00.000Z')",
        )
        .await;
        exec(
            &pool,
            "INSERT INTO approvals (id, execution_id, task_id, status, expires_at, decided_by, channel)
             VALUES ('a3', 'e3', 't1', 'denied', '9999', 'operator:me', 'tray')",
        )
        .await;
        exec(
            &pool,
            "INSERT INTO autonomy_windows (id, kind, task_id, target_slug, approval_id, opened_by, channel, expires_at)
             VALUES ('w1', 'assent', 't1', NULL, 'a2', 'operator:me', 'chat', '9999')",
        )
        .await;
        pool.close().await;
    }

    let eng = Engine::open(&path).await.unwrap();
    let pool = eng.store().pool();
    let count = |sql: &'static str| async move { sqlx::query_scalar::<_, i64>(sql).fetch_one(pool).await.unwrap() };
    assert_eq!(count("SELECT count(*) FROM approvals").await, 3);
    assert_eq!(count("SELECT count(*) FROM autonomy_windows").await, 1);
    assert_eq!(count("SELECT count(*) FROM executions").await, 3);
    assert_eq!(count("SELECT count(*) FROM pragma_foreign_key_check").await, 0);
    assert_eq!(count("PRAGMA foreign_keys").await, 1, "foreign keys are back on");
    let a2: (String, String, Option<String>, Option<String>, Option<String>, String) = sqlx::query_as(
        "SELECT status, expires_at, decided_by, channel, grant_message, created_at FROM approvals WHERE id = 'a2'",
    )
    .fetch_one(pool)
    .await
    .unwrap();
    assert_eq!(
        a2,
        (
            "approved".into(),
            "9999".into(),
            Some("operator:me".into()),
            Some("chat".into()),
            Some("yes go".into()),
            "2025-12-31T00:00:00.000Z".into()
        )
    );
    let a1: (i64, String) = sqlx::query_as("SELECT requires_confirmation, blast_radius FROM approvals WHERE id = 'a1'")
        .fetch_one(pool)
        .await
        .unwrap();
    assert_eq!(a1, (1, "{\"affects\": 2}".into()));
    let w1: Option<String> =
        sqlx::query_scalar("SELECT approval_id FROM autonomy_windows WHERE id = 'w1'").fetch_one(pool).await.unwrap();
    assert_eq!(w1.as_deref(), Some("a2"));

    // The indexes are back, and the partial one is what a pending lookup uses.
    let indexes: Vec<String> = sqlx::query_scalar(
        "SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name IN ('approvals', 'autonomy_windows')
         AND name NOT LIKE 'sqlite_%' ORDER BY name",
    )
    .fetch_all(pool)
    .await
    .unwrap();
    assert_eq!(indexes, ["approvals_pending", "autonomy_windows_open"]);
    let unique: i64 =
        count("SELECT count(*) FROM pragma_index_list('approvals') WHERE \"unique\" = 1 AND origin = 'u'").await;
    assert_eq!(unique, 1, "execution_id stays unique");

    // The references still act: deleting the task clears the approvals' task and drops its windows;
    // deleting an execution drops its approval.
    exec(pool, "UPDATE approvals SET channel = 'notification', status = 'approved' WHERE id = 'a1'").await;
    exec(
        pool,
        "INSERT INTO autonomy_windows (id, kind, task_id, target_slug, approval_id, opened_by, channel, expires_at)
         VALUES ('w2', 'destructive', 't1', 'host:pve1', 'a1', 'operator:me', 'notification', '9999')",
    )
    .await;
    let bad = sqlx::query("UPDATE approvals SET channel = 'pager' WHERE id = 'a3'").execute(pool).await;
    assert!(bad.is_err(), "an unknown channel is still refused");
    exec(pool, "DELETE FROM executions WHERE id = 'e3'").await;
    assert_eq!(count("SELECT count(*) FROM approvals WHERE id = 'a3'").await, 0);
    exec(pool, "DELETE FROM tasks WHERE id = 't1'").await;
    assert_eq!(count("SELECT count(*) FROM autonomy_windows").await, 0);
    assert_eq!(count("SELECT count(*) FROM approvals WHERE task_id IS NULL").await, 2);
}
