//! Task records: a task and its own `task:` entity are written together; deleting a task removes
//! the task, its transcript, plan and questions, and its entity with that entity's edges — never the
//! knowledge it produced, which stays in the knowledge base for later tasks.
//!
//! A task's status moves only through [`set_status_in`] (which emits `task.updated`):
//!
//! - `working` is held by a lease ([`Engine::claim_task`]) that the turn renews; the sweep
//!   ([`Engine::sweep_task_leases`]) turns an expired lease, or one whose process is gone (see
//!   [`crate::process`]), into `waiting` for the operator's next message, with a note in the
//!   transcript saying so — nothing is re-run; a claim takes such a lease over at once;
//! - `waiting` names what for (an answer, the plan, an approval, a message);
//! - `done`, `failed`, `cancelled` end it, with an outcome and a summary. An operator's message may
//!   reopen an ended task (a new claim).

use nomos_types::events::{EntityDeleted, TaskCreated, TaskDeleted, TaskUpdated};
use nomos_types::{Task, TaskOutcome, TaskStatus, WaitingFor};
use sqlx::sqlite::SqliteRow;
use sqlx::{Row, SqliteConnection};

use crate::events::EventDraft;
use crate::graph::entities::{upsert_entity_in, IfExists, NewEntity};
use crate::graph::new_id;
use crate::store::WriteTx;
use crate::{Engine, Error, Result};

/// How long a claim on a task lasts unless renewed. The turn renews it well before (every third of
/// it), so only a process that stopped lets it expire.
pub const LEASE_TTL_MS: i64 = 60_000;

/// The note the sweep leaves in the transcript of a task whose worker stopped.
pub const INTERRUPTED_NOTE: &str =
    "interrupted: the process working on this task stopped; nothing is re-run — send a message to continue";

const TASK_SELECT: &str = "SELECT t.id, t.title, t.goal, t.status, t.waiting_for, t.outcome, t.summary,
        e.slug AS entity_slug, t.completion_nudges, t.created_at, t.updated_at, t.last_active_at, t.driver
   FROM tasks t LEFT JOIN entities e ON e.id = t.entity_id";

fn task_from_row(row: &SqliteRow) -> Result<Task> {
    let status: String = row.try_get("status")?;
    let waiting_for: Option<String> = row.try_get("waiting_for")?;
    let outcome: Option<String> = row.try_get("outcome")?;
    let nudges: i64 = row.try_get("completion_nudges")?;
    Ok(Task {
        id: row.try_get("id")?,
        title: row.try_get("title")?,
        goal: row.try_get("goal")?,
        status: status.parse::<TaskStatus>().map_err(|e| Error::Invalid(e.to_string()))?,
        waiting_for: waiting_for
            .map(|w| w.parse::<WaitingFor>())
            .transpose()
            .map_err(|e| Error::Invalid(e.to_string()))?,
        outcome: outcome.as_deref().map(nomos_types::TaskOutcome::lenient),
        summary: row.try_get("summary")?,
        entity_slug: row.try_get("entity_slug")?,
        completion_nudges: nudges.clamp(0, i64::from(u32::MAX)) as u32,
        created_at: row.try_get("created_at")?,
        updated_at: row.try_get("updated_at")?,
        last_active_at: row.try_get("last_active_at")?,
        driver: row.try_get("driver")?,
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
        self.create_task_driven(title, goal, None).await
    }

    /// [`Engine::create_task`] for a task another agent drives (`mcp:<client>`), set in the same
    /// transaction so Nomos never sees it without its driver.
    pub async fn create_task_driven(&self, title: &str, goal: &str, driver: Option<&str>) -> Result<Task> {
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
            "INSERT INTO tasks (id, title, goal, status, waiting_for, entity_id, created_at, updated_at,
                                last_active_at, driver)
             VALUES (?, ?, ?, 'waiting', 'message', ?, ?, ?, ?, ?)",
        )
        .bind(&id)
        .bind(title.trim())
        .bind(goal.trim())
        .bind(&entity.id)
        .bind(&now)
        .bind(&now)
        .bind(&now)
        .bind(driver)
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

/// A task's status as [`set_status_in`] writes it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum StatusChange {
    /// Claimed by `owner` until `expires_at`.
    Working {
        owner: String,
        expires_at: String,
    },
    Waiting(WaitingFor),
    /// Done, failed or cancelled, with how it ended.
    Ended {
        status: TaskStatus,
        outcome: Option<TaskOutcome>,
        summary: String,
    },
}

/// The one place a task's status changes: writes it and emits `task.updated`. `summary` says why
/// (kept as the task's summary only for an end).
pub(crate) async fn set_status_in(tx: &mut WriteTx, task: &str, change: &StatusChange, why: &str) -> Result<()> {
    let now = tx.now().to_string();
    let (status, waiting_for, owner, expires, outcome, summary) = match change {
        StatusChange::Working { owner, expires_at } => {
            (TaskStatus::Working, None, Some(owner.as_str()), Some(expires_at.as_str()), None, None)
        }
        StatusChange::Waiting(w) => (TaskStatus::Waiting, Some(*w), None, None, None, None),
        StatusChange::Ended { status, outcome, summary } => {
            if !status.is_end() {
                return Err(Error::Invalid(format!("`{status}` is not an end of a task")));
            }
            (*status, None, None, None, *outcome, Some(summary.as_str()))
        }
    };
    let done = sqlx::query(
        "UPDATE tasks SET status = ?, waiting_for = ?, lease_owner = ?, lease_expires_at = ?,
                outcome = ?,
                summary = coalesce(?, summary), updated_at = ?, last_active_at = ?
          WHERE id = ?",
    )
    .bind(status.as_str())
    .bind(waiting_for.map(WaitingFor::as_str))
    .bind(owner)
    .bind(expires)
    .bind(outcome.map(TaskOutcome::as_str))
    .bind(summary)
    .bind(&now)
    .bind(&now)
    .bind(task)
    .execute(&mut **tx)
    .await?;
    if done.rows_affected() == 0 {
        return Err(Error::not_found("task", task));
    }
    let event = TaskUpdated { status, waiting_for, outcome, summary: summary.unwrap_or(why).to_string() };
    tx.emit(EventDraft::new(event).correlation(task)).await?;
    Ok(())
}

/// The note a claim leaves in the transcript when it takes over the lease of a process that is gone.
pub const TAKEN_OVER_NOTE: &str = "interrupted: the process working on this task stopped; its calls that had \
started are marked outcome unknown, the ones that had not are marked not run — nothing is re-run";

/// Who holds a `working` task's lease, and whether that lease is over (see [`lease_is_over`]);
/// `None` for a task that is not working.
async fn lease_of(tx: &mut WriteTx, task: &str) -> Result<Option<(String, bool)>> {
    let now = tx.now().to_string();
    let row: Option<(String, Option<String>, Option<String>)> =
        sqlx::query_as("SELECT status, lease_owner, lease_expires_at FROM tasks WHERE id = ?")
            .bind(task)
            .fetch_optional(&mut **tx)
            .await?;
    let Some((status, owner, expires)) = row else {
        return Err(Error::not_found("task", task));
    };
    if status != "working" {
        return Ok(None);
    }
    let over = lease_is_over(owner.as_deref(), expires.as_deref(), &now);
    Ok(Some((owner.unwrap_or_default(), over)))
}

/// Whether a `working` task's lease is over: expired (or never set), or held by a process that is
/// gone.
fn lease_is_over(owner: Option<&str>, expires: Option<&str>, now: &str) -> bool {
    match (owner, expires) {
        (Some(owner), Some(expires)) => expires <= now || crate::process::owner_is_dead(owner),
        _ => true,
    }
}

impl Engine {
    /// Claims a task for `owner` (a turn; see [`crate::process::lease_owner`]): it becomes
    /// `working` with a lease of `ttl_ms`. Refused while another owner holds a live lease; one that
    /// expired or whose process is gone is taken over at once, with [`TAKEN_OVER_NOTE`] in the
    /// transcript
    /// (the turn then closes that process's open calls, see
    /// [`crate::agent::transcript::Transcript::recover`]).
    pub async fn claim_task(&self, task: &str, owner: &str, ttl_ms: i64) -> Result<()> {
        let mut tx = self.store().begin_write().await?;
        // Another agent's session (MCP) is that agent's to drive: Nomos never takes a turn in it.
        let driver: Option<Option<String>> =
            sqlx::query_scalar("SELECT driver FROM tasks WHERE id = ?").bind(task).fetch_optional(&mut *tx).await?;
        if let Some(Some(driver)) = driver {
            let who = nomos_types::mcp::asker(&driver).unwrap_or(driver);
            return Err(Error::Invalid(format!(
                "task {task} is {who}'s session over MCP: Nomos does not act in it (message {who} instead)"
            )));
        }
        if let Some((other, over)) = lease_of(&mut tx, task).await? {
            if other != owner {
                if !over {
                    let by = crate::process::describe(&other);
                    return Err(Error::Conflict(format!("task {task} is already being worked on ({by})")));
                }
                tracing::info!(task, previous = other, "taking over the lease of a process that stopped");
                crate::agent::transcript::add_message_in(
                    &mut tx,
                    task,
                    crate::agent::chat::Role::System,
                    TAKEN_OVER_NOTE,
                    None,
                )
                .await?;
            }
        }
        let expires_at = self.clock().after_ms(ttl_ms);
        set_status_in(&mut tx, task, &StatusChange::Working { owner: owner.into(), expires_at }, "working").await?;
        tx.commit().await?;
        Ok(())
    }

    /// Extends `owner`'s lease. False when it no longer holds the task (the sweep or a cancel took
    /// it): the turn must stop.
    pub async fn renew_task_lease(&self, task: &str, owner: &str, ttl_ms: i64) -> Result<bool> {
        let mut tx = self.store().begin_write().await?;
        if lease_of(&mut tx, task).await? != Some((owner.to_string(), false)) {
            return Ok(false);
        }
        let expires_at = self.clock().after_ms(ttl_ms);
        sqlx::query("UPDATE tasks SET lease_expires_at = ? WHERE id = ?")
            .bind(&expires_at)
            .bind(task)
            .execute(&mut *tx)
            .await?;
        tx.commit().await?;
        Ok(true)
    }

    /// Releases `owner`'s claim with the task's next status (waiting or an end). When `owner` no
    /// longer holds it (it was cancelled meanwhile), nothing changes and false is returned.
    pub async fn release_task(&self, task: &str, owner: &str, next: &StatusChange, why: &str) -> Result<bool> {
        let mut tx = self.store().begin_write().await?;
        let holder: Option<(String, Option<String>)> =
            sqlx::query_as("SELECT status, lease_owner FROM tasks WHERE id = ?")
                .bind(task)
                .fetch_optional(&mut *tx)
                .await?;
        let Some((status, holder)) = holder else {
            return Err(Error::not_found("task", task));
        };
        // An expired lease still counts as ours until the sweep took it: the work did finish.
        if status != "working" || holder.as_deref() != Some(owner) {
            return Ok(false);
        }
        set_status_in(&mut tx, task, next, why).await?;
        tx.commit().await?;
        Ok(true)
    }

    /// Sets a task's status whoever holds it (the operator cancelling it, an answer arriving).
    pub async fn set_task_status(&self, task: &str, change: &StatusChange, why: &str) -> Result<()> {
        let mut tx = self.store().begin_write().await?;
        set_status_in(&mut tx, task, change, why).await?;
        tx.commit().await?;
        Ok(())
    }

    /// States the task's goal (the agent's `set_goal`).
    pub async fn set_task_goal(&self, task: &str, goal: &str) -> Result<()> {
        let mut tx = self.store().begin_write().await?;
        let now = tx.now().to_string();
        let done = sqlx::query("UPDATE tasks SET goal = ?, updated_at = ? WHERE id = ?")
            .bind(goal)
            .bind(&now)
            .bind(task)
            .execute(&mut *tx)
            .await?;
        if done.rows_affected() == 0 {
            return Err(Error::not_found("task", task));
        }
        tx.commit().await?;
        Ok(())
    }

    /// Turns every `working` task whose lease expired (or that has none, or whose process is gone)
    /// into `waiting` for the operator's message, with [`INTERRUPTED_NOTE`] in its transcript.
    /// Returns how many.
    pub async fn sweep_task_leases(&self) -> Result<usize> {
        let mut tx = self.store().begin_write().await?;
        let now = tx.now().to_string();
        let working: Vec<(String, Option<String>, Option<String>)> =
            sqlx::query_as("SELECT id, lease_owner, lease_expires_at FROM tasks WHERE status = ?")
                .bind(TaskStatus::Working.as_str())
                .fetch_all(&mut *tx)
                .await?;
        let stale: Vec<String> = working
            .into_iter()
            .filter(|(_, owner, expires)| lease_is_over(owner.as_deref(), expires.as_deref(), &now))
            .map(|(id, _, _)| id)
            .collect();
        for task in &stale {
            crate::agent::transcript::add_message_in(
                &mut tx,
                task,
                crate::agent::chat::Role::System,
                INTERRUPTED_NOTE,
                None,
            )
            .await?;
            set_status_in(&mut tx, task, &StatusChange::Waiting(WaitingFor::Message), INTERRUPTED_NOTE).await?;
        }
        tx.commit().await?;
        Ok(stale.len())
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
        assert_eq!((task.status, task.waiting_for), (TaskStatus::Waiting, Some(WaitingFor::Message)));

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

    #[tokio::test]
    async fn a_lease_holds_working_until_it_expires_and_the_sweep_says_so() {
        let dir = tempfile::tempdir().unwrap();
        let clock = crate::clock::ManualClock::at(1_000_000);
        let eng = Engine::open_with_clock(&dir.path().join("oikos.db"), clock.clone()).await.unwrap();
        let task = eng.create_task("t", "g").await.unwrap().id;
        let mut rx = eng.subscribe();

        eng.claim_task(&task, "turn-a", 30_000).await.unwrap();
        assert_eq!(eng.task(&task).await.unwrap().status, TaskStatus::Working);
        assert!(matches!(eng.claim_task(&task, "turn-b", 30_000).await, Err(Error::Conflict(_))));
        clock.advance_ms(20_000);
        assert!(eng.renew_task_lease(&task, "turn-a", 30_000).await.unwrap());
        assert!(!eng.renew_task_lease(&task, "turn-b", 30_000).await.unwrap());
        clock.advance_ms(20_000);
        assert_eq!(eng.sweep_task_leases().await.unwrap(), 0, "renewed: still live");

        clock.advance_ms(30_000);
        assert_eq!(eng.sweep_task_leases().await.unwrap(), 1);
        let t = eng.task(&task).await.unwrap();
        assert_eq!((t.status, t.waiting_for), (TaskStatus::Waiting, Some(WaitingFor::Message)));
        // The worker that stopped cannot come back and write over it.
        assert!(!eng.renew_task_lease(&task, "turn-a", 30_000).await.unwrap());
        let done =
            StatusChange::Ended { status: TaskStatus::Done, outcome: Some(TaskOutcome::Success), summary: "x".into() };
        assert!(!eng.release_task(&task, "turn-a", &done, "x").await.unwrap());
        let notes = crate::agent::transcript::Transcript::new(&eng, &task).messages().await.unwrap();
        assert_eq!(notes.len(), 1);
        assert_eq!(notes[0].content, INTERRUPTED_NOTE);

        let kinds: Vec<String> = std::iter::from_fn(|| rx.try_recv().ok()).map(|e| e.kind().to_string()).collect();
        assert_eq!(kinds, ["task.updated", "message.added", "task.updated"]);

        // Someone else may claim it now, and end it with an outcome.
        eng.claim_task(&task, "turn-b", 30_000).await.unwrap();
        assert!(eng.release_task(&task, "turn-b", &done, "x").await.unwrap());
        let t = eng.task(&task).await.unwrap();
        assert_eq!((t.status, t.waiting_for, t.outcome), (TaskStatus::Done, None, Some(TaskOutcome::Success)));
        assert_eq!(t.summary, "x");
        let bad = StatusChange::Ended { status: TaskStatus::Working, outcome: None, summary: String::new() };
        assert!(eng.set_task_status(&task, &bad, "x").await.is_err());
    }

    /// A process killed while it held a task: the next claim (another process on this machine)
    /// sees its pid is gone and takes the lease over at once, without waiting for it to expire; a
    /// live process's lease is never taken.
    #[tokio::test]
    async fn the_lease_of_a_process_that_is_gone_is_taken_over_at_once() {
        use crate::agent::chat::{Role, ToolCall};
        use crate::agent::transcript::{CallState, Transcript, INTERRUPTED_RESULT, SKIPPED_RESULT};

        let (_dir, eng) = engine().await;
        let task = eng.create_task("t", "g").await.unwrap().id;
        let mut other = std::process::Command::new("sleep").arg("30").spawn().unwrap();
        let theirs = crate::process::lease_owner_of("turn-a", other.id()).unwrap();
        eng.claim_task(&task, &theirs, LEASE_TTL_MS).await.unwrap();
        // Their turn committed two calls and started the first.
        let t = Transcript::new(&eng, &task);
        let call = |id: &str| ToolCall { id: id.into(), name: "run".into(), arguments: "{}".into() };
        t.commit_assistant("turn-a", "", &[call("a"), call("b")]).await.unwrap();
        t.mark_started("a", Some("turn-a")).await.unwrap();

        // Alive: its lease holds, whoever asks, and the sweep leaves it alone.
        let mine = crate::process::lease_owner("turn-b");
        assert!(matches!(eng.claim_task(&task, &mine, LEASE_TTL_MS).await, Err(Error::Conflict(_))));
        assert_eq!(eng.sweep_task_leases().await.unwrap(), 0);
        // Nor by an owner that names no process.
        assert!(matches!(eng.claim_task(&task, "turn-c", LEASE_TTL_MS).await, Err(Error::Conflict(_))));

        other.kill().unwrap();
        other.wait().unwrap();
        // Gone: well within its 60 s lease, the claim takes it over and says so.
        eng.claim_task(&task, &mine, LEASE_TTL_MS).await.unwrap();
        assert!(eng.renew_task_lease(&task, &mine, LEASE_TTL_MS).await.unwrap());
        assert!(!eng.renew_task_lease(&task, &theirs, LEASE_TTL_MS).await.unwrap());
        let notes = t.messages().await.unwrap();
        let notes: Vec<(Role, &str)> = notes.iter().map(|m| (m.role, m.content.as_str())).collect();
        assert_eq!(notes.last(), Some(&(Role::System, TAKEN_OVER_NOTE)));
        // The turn that claimed closes the open calls by the restart rule: nothing runs again.
        assert_eq!(t.recover().await.unwrap(), 2);
        let calls = t.calls().await.unwrap();
        let states: Vec<(CallState, Option<&str>)> = calls.iter().map(|c| (c.state, c.result.as_deref())).collect();
        assert_eq!(
            states,
            [(CallState::Interrupted, Some(INTERRUPTED_RESULT)), (CallState::Skipped, Some(SKIPPED_RESULT))]
        );
        // The process that is gone cannot come back and end it.
        let done = StatusChange::Waiting(WaitingFor::Message);
        assert!(!eng.release_task(&task, &theirs, &done, "x").await.unwrap());
        assert!(eng.release_task(&task, &mine, &done, "x").await.unwrap());
    }

    /// The sweep, too, frees a task whose process is gone, before its lease expires.
    #[tokio::test]
    async fn the_sweep_frees_a_task_whose_process_is_gone() {
        let (_dir, eng) = engine().await;
        let task = eng.create_task("t", "g").await.unwrap().id;
        let mut other = std::process::Command::new("sleep").arg("30").spawn().unwrap();
        let theirs = crate::process::lease_owner_of("turn-a", other.id()).unwrap();
        eng.claim_task(&task, &theirs, LEASE_TTL_MS).await.unwrap();
        assert_eq!(eng.sweep_task_leases().await.unwrap(), 0);
        other.kill().unwrap();
        other.wait().unwrap();
        assert_eq!(eng.sweep_task_leases().await.unwrap(), 1);
        let t = eng.task(&task).await.unwrap();
        assert_eq!((t.status, t.waiting_for), (TaskStatus::Waiting, Some(WaitingFor::Message)));
    }

    /// A database made before the task loop: its tasks keep their rows (messages, plan, questions,
    /// executions are not cascaded away by the rebuild) and their statuses map onto the new ones.
    #[tokio::test]
    async fn the_rebuild_maps_old_statuses_and_keeps_every_row_that_points_at_a_task() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("oikos.db");
        {
            let pool = crate::testing::database_before(&path, "0011").await;
            for (id, status) in [
                ("t-active", "active"),
                ("t-planning", "planning"),
                ("t-exec", "executing"),
                ("t-plan", "awaiting_approval"),
                ("t-appr", "awaiting_approval"),
                ("t-input", "awaiting_input"),
                ("t-done", "done"),
                ("t-gone", "abandoned"),
            ] {
                sqlx::query("INSERT INTO tasks (id, title, status) VALUES (?, ?, ?)")
                    .bind(id)
                    .bind(id)
                    .bind(status)
                    .execute(&pool)
                    .await
                    .unwrap();
                sqlx::query("INSERT INTO messages (task_id, role, content) VALUES (?, 'user', 'hello')")
                    .bind(id)
                    .execute(&pool)
                    .await
                    .unwrap();
                sqlx::query("INSERT INTO plan_steps (id, task_id, seq, title) VALUES (?, ?, 1, 'step')")
                    .bind(format!("{id}-s1"))
                    .bind(id)
                    .execute(&pool)
                    .await
                    .unwrap();
            }
            sqlx::query(
                "INSERT INTO executions (id, task_id, target_slug, command, risk, status)
                 VALUES ('e1', 't-appr', 'host:pve1', 'apt-get upgrade -y', 'config_mutation', 'pending_approval')",
            )
            .execute(&pool)
            .await
            .unwrap();
            sqlx::query(
                "INSERT INTO approvals (id, execution_id, task_id, expires_at) VALUES ('a1', 'e1', 't-appr', '9999')",
            )
            .execute(&pool)
            .await
            .unwrap();
            pool.close().await;
        }

        let eng = Engine::open(&path).await.unwrap();
        let status = |id: &'static str| {
            let eng = eng.clone();
            async move {
                let t = eng.task(id).await.unwrap();
                (t.status, t.waiting_for)
            }
        };
        assert_eq!(status("t-active").await, (TaskStatus::Working, None));
        assert_eq!(status("t-exec").await, (TaskStatus::Working, None));
        assert_eq!(status("t-plan").await, (TaskStatus::Waiting, Some(WaitingFor::Plan)));
        assert_eq!(status("t-appr").await, (TaskStatus::Waiting, Some(WaitingFor::Approval)));
        assert_eq!(status("t-input").await, (TaskStatus::Waiting, Some(WaitingFor::Answer)));
        assert_eq!(status("t-done").await, (TaskStatus::Done, None));
        assert_eq!(status("t-gone").await, (TaskStatus::Cancelled, None));
        let pool = eng.store().pool();
        let count = |sql: &'static str| async move { sqlx::query_scalar::<_, i64>(sql).fetch_one(pool).await.unwrap() };
        assert_eq!(count("SELECT count(*) FROM messages").await, 8);
        assert_eq!(count("SELECT count(*) FROM plan_steps").await, 8);
        assert_eq!(count("SELECT count(*) FROM executions WHERE task_id = 't-appr'").await, 1);
        assert_eq!(count("SELECT count(*) FROM approvals WHERE task_id = 't-appr'").await, 1);
        assert_eq!(count("SELECT count(*) FROM pragma_foreign_key_check").await, 0);
        assert_eq!(count("PRAGMA foreign_keys").await, 1, "foreign keys are back on");

        // The three busy ones had no lease: the first sweep says they were interrupted.
        assert_eq!(eng.sweep_task_leases().await.unwrap(), 3);
        assert_eq!(status("t-planning").await, (TaskStatus::Waiting, Some(WaitingFor::Message)));
        // And deleting a task still cascades as before.
        eng.delete_task("t-done").await.unwrap();
        assert_eq!(count("SELECT count(*) FROM messages WHERE task_id = 't-done'").await, 0);
    }
}
