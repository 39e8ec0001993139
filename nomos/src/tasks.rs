//! Task records: a task and its own `task:` entity are written together; deleting a task removes
//! the task, its transcript, plan and questions, and its entity with that entity's edges — never the
//! knowledge it produced, which stays in the knowledge base for later tasks.

use nomos_types::events::{EntityDeleted, TaskCreated, TaskDeleted};
use nomos_types::{Task, TaskStatus};
use sqlx::sqlite::SqliteRow;
use sqlx::{Row, SqliteConnection};

use crate::events::EventDraft;
use crate::graph::entities::{upsert_entity_in, IfExists, NewEntity};
use crate::graph::new_id;
use crate::{Engine, Error, Result};

const TASK_SELECT: &str = "SELECT t.id, t.title, t.goal, t.status, t.outcome, t.summary, e.slug AS entity_slug,
        t.completion_nudges, t.created_at, t.updated_at, t.last_active_at
   FROM tasks t LEFT JOIN entities e ON e.id = t.entity_id";

fn task_from_row(row: &SqliteRow) -> Result<Task> {
    let status: String = row.try_get("status")?;
    let outcome: Option<String> = row.try_get("outcome")?;
    let nudges: i64 = row.try_get("completion_nudges")?;
    Ok(Task {
        id: row.try_get("id")?,
        title: row.try_get("title")?,
        goal: row.try_get("goal")?,
        status: status.parse::<TaskStatus>().map_err(|e| Error::Invalid(e.to_string()))?,
        outcome: outcome.as_deref().map(nomos_types::TaskOutcome::lenient),
        summary: row.try_get("summary")?,
        entity_slug: row.try_get("entity_slug")?,
        completion_nudges: nudges.clamp(0, i64::from(u32::MAX)) as u32,
        created_at: row.try_get("created_at")?,
        updated_at: row.try_get("updated_at")?,
        last_active_at: row.try_get("last_active_at")?,
    })
}

/// Fails unless the task exists: a request or window for a task nobody knows is refused, not
/// silently treated as having none.
pub(crate) async fn require_task(conn: &mut SqliteConnection, task: &str) -> Result<()> {
    let exists: Option<i64> =
        sqlx::query_scalar("SELECT 1 FROM tasks WHERE id = ?").bind(task).fetch_optional(conn).await?;
    match exists {
        Some(_) => Ok(()),
        None => Err(Error::Invalid(format!("unknown task `{task}`"))),
    }
}

impl Engine {
    /// Creates a task with its `task:<short id>` entity.
    pub async fn create_task(&self, title: &str, goal: &str) -> Result<Task> {
        let id = new_id();
        let mut tx = self.store().begin_write().await?;
        // The first 8 hex digits name the task in the graph; longer if that is ever taken.
        let mut short = 8;
        let slug = loop {
            let candidate = format!("task:{}", &id.replace('-', "")[..short]);
            let taken: Option<i64> = sqlx::query_scalar("SELECT 1 FROM entities WHERE slug = ?")
                .bind(&candidate)
                .fetch_optional(&mut *tx)
                .await?;
            if taken.is_none() || short >= 32 {
                break candidate;
            }
            short += 4;
        };
        let name = if title.trim().is_empty() { goal } else { title };
        let name = if name.trim().is_empty() { "untitled task" } else { name };
        let (entity, _) =
            upsert_entity_in(&mut tx, self.ontology(), &NewEntity::new("task", name).slug(&slug), IfExists::Fail)
                .await?;
        let now = tx.now().to_string();
        sqlx::query(
            "INSERT INTO tasks (id, title, goal, entity_id, created_at, updated_at, last_active_at)
             VALUES (?, ?, ?, ?, ?, ?, ?)",
        )
        .bind(&id)
        .bind(title.trim())
        .bind(goal.trim())
        .bind(&entity.id)
        .bind(&now)
        .bind(&now)
        .bind(&now)
        .execute(&mut *tx)
        .await?;
        let created = TaskCreated { title: title.trim().to_string(), goal: goal.trim().to_string() };
        tx.emit(EventDraft::new(created).correlation(&id).entity(&slug)).await?;
        tx.commit().await?;
        self.task(&id).await
    }

    /// Tasks, most recently active first.
    pub async fn tasks(&self, limit: u32) -> Result<Vec<Task>> {
        let rows = sqlx::query(&format!("{TASK_SELECT} ORDER BY t.last_active_at DESC, t.id LIMIT ?"))
            .bind(i64::from(limit))
            .fetch_all(self.store().pool())
            .await?;
        rows.iter().map(task_from_row).collect()
    }

    pub async fn task(&self, id: &str) -> Result<Task> {
        let row = sqlx::query(&format!("{TASK_SELECT} WHERE t.id = ?"))
            .bind(id)
            .fetch_optional(self.store().pool())
            .await?
            .ok_or_else(|| Error::not_found("task", id))?;
        task_from_row(&row)
    }

    /// Deletes a task. Knowledge it produced is kept; returns how many notes that was.
    pub async fn delete_task(&self, id: &str) -> Result<u64> {
        let mut tx = self.store().begin_write().await?;
        let entity: Option<Option<String>> =
            sqlx::query_scalar("SELECT entity_id FROM tasks WHERE id = ?").bind(id).fetch_optional(&mut *tx).await?;
        let Some(entity_id) = entity else {
            return Err(Error::not_found("task", id));
        };
        let mut kept = 0;
        if let Some(entity_id) = &entity_id {
            kept = sqlx::query_scalar::<_, i64>(
                "SELECT count(DISTINCT k.id) FROM relationships r JOIN knowledge k ON k.entity_id = r.source_id
                  WHERE r.target_id = ? AND r.type = 'produced-by' AND r.valid_to IS NULL",
            )
            .bind(entity_id)
            .fetch_one(&mut *tx)
            .await?
            .max(0) as u64;
        }
        // Its waiting requests are withdrawn: nobody may approve what a deleted task asked for
        // (and, detached from it, they would collide with identical requests of no task).
        crate::actuate::withdraw_task_requests(&mut tx, id).await?;
        sqlx::query("DELETE FROM tasks WHERE id = ?").bind(id).execute(&mut *tx).await?;
        if let Some(entity_id) = &entity_id {
            // Only the task's own entity: its edges go with it, the notes at their other end stay.
            let slug: Option<String> =
                sqlx::query_scalar("DELETE FROM entities WHERE id = ? AND type = 'task' RETURNING slug")
                    .bind(entity_id)
                    .fetch_optional(&mut *tx)
                    .await?;
            if let Some(slug) = slug {
                tx.emit(EventDraft::new(EntityDeleted {}).entity(slug).correlation(id)).await?;
            }
        }
        tx.emit(EventDraft::new(TaskDeleted { knowledge_kept: kept }).correlation(id)).await?;
        tx.commit().await?;
        Ok(kept)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::graph::entities::NewEntity;
    use crate::testing::engine;
    use nomos_types::{Author, KnowledgeInput, KnowledgeKind};
    use serde_json::json;

    #[tokio::test]
    async fn deleting_a_task_never_deletes_knowledge() {
        let (_dir, eng) = engine().await;
        eng.create_entity(NewEntity::new("lxc", "typetype")).await.unwrap();
        let task = eng.create_task("Deploy TypeType", "deploy TypeType as an LXC").await.unwrap();
        let task_slug = task.entity_slug.clone().unwrap();
        assert!(task_slug.starts_with("task:") && task_slug.len() == "task:".len() + 8);
        assert_eq!(task.status, TaskStatus::Active);

        eng.create_relationship("involves", &task_slug, "lxc:typetype", &json!({})).await.unwrap();
        let note = eng
            .upsert_knowledge(&KnowledgeInput {
                kind: KnowledgeKind::Investigation,
                title: "TypeType deploy".into(),
                content: "docker.io lacks the CLI on trixie; used get.docker.com".into(),
                source: task_slug.clone(),
                author: Author::Agent,
                tags: vec![],
                about: vec!["lxc:typetype".into()],
            })
            .await
            .unwrap();
        eng.create_relationship("produced-by", &note.doc.summary.slug, &task_slug, &json!({"outcome": "success"}))
            .await
            .unwrap();
        assert_eq!(eng.entity_knowledge(&task_slug).await.unwrap().len(), 1);

        let mut rx = eng.subscribe();
        let kept = eng.delete_task(&task.id).await.unwrap();
        let kinds: Vec<String> = std::iter::from_fn(|| rx.try_recv().ok()).map(|e| e.kind().to_string()).collect();
        assert_eq!(kinds, ["entity.deleted", "task.deleted"]);
        assert_eq!(kept, 1);
        assert!(eng.task(&task.id).await.is_err());
        assert!(eng.entity(&task_slug).await.is_err());
        // The note and what it documents are still there, still linked.
        let doc = eng.knowledge(&note.doc.summary.slug).await.unwrap();
        assert_eq!(doc.about.len(), 1);
        assert_eq!(eng.entity_knowledge("lxc:typetype").await.unwrap().len(), 1);
        assert_eq!(eng.search_knowledge("trixie", 5).await.unwrap().len(), 1);
        assert!(eng.delete_task(&task.id).await.is_err());
    }
}
