//! A task's plan and its questions to the operator: what `nomos tasks show` and the task tools
//! read and write. A plan is proposed once; proposing again while it runs appends steps, never
//! replaces the ones already there (their states and executions are history).

use nomos_types::events::{PlanUpdated, QuestionAnswered, QuestionAsked};
use sqlx::Row;

use crate::events::EventDraft;
use crate::graph::new_id;
use crate::store::WriteTx;
use crate::{Engine, Error, Result};

pub use nomos_types::tasks::{PlanStep, Question, QuestionStatus, StepStatus, TaskDetail, TaskExecution};

/// A status column read back through its enum.
fn parse<T: std::str::FromStr>(row: &sqlx::sqlite::SqliteRow, col: &str) -> Result<T>
where
    T::Err: std::fmt::Display,
{
    let s: String = row.try_get(col)?;
    s.parse::<T>().map_err(|e| Error::Invalid(format!("{col}: {e}")))
}

/// A step as the agent proposes it.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct NewStep {
    pub title: String,
    pub detail: String,
    pub target: Option<String>,
    /// The shell command it runs, when it runs one.
    pub command: Option<String>,
}

async fn plan_updated(tx: &mut WriteTx, task: &str) -> Result<()> {
    let steps: i64 =
        sqlx::query_scalar("SELECT count(*) FROM plan_steps WHERE task_id = ?").bind(task).fetch_one(&mut **tx).await?;
    let steps = u32::try_from(steps.max(0)).unwrap_or(u32::MAX);
    tx.emit(EventDraft::new(PlanUpdated { steps }).correlation(task)).await?;
    Ok(())
}

impl Engine {
    pub async fn task_detail(&self, id: &str) -> Result<TaskDetail> {
        let task = self.task(id).await?;
        let transcript = crate::agent::transcript::Transcript::new(self, id);
        Ok(TaskDetail {
            plan: self.plan(id).await?,
            questions: self.questions(id).await?,
            messages: transcript.messages().await?,
            tool_calls: transcript.calls().await?,
            executions: self.task_executions(id).await?,
            knowledge: match task.entity_slug.as_deref() {
                Some(slug) => self.entity_knowledge(slug).await?,
                None => Vec::new(),
            },
            entities: self.entities_touched(id).await?,
            task,
        })
    }

    /// The entities Nomos named in the task's tool calls, each once, first touched first.
    pub async fn entities_touched(&self, task: &str) -> Result<Vec<nomos_types::EntityRef>> {
        let rows: Vec<(String, String, String, String)> = sqlx::query_as(
            "SELECT e.id, e.slug, e.type, e.name FROM agent_activity a JOIN entities e ON e.id = a.entity_id
              WHERE a.task_id = ? GROUP BY e.id ORDER BY min(a.id)",
        )
        .bind(task)
        .fetch_all(self.store().pool())
        .await?;
        Ok(rows
            .into_iter()
            .map(|(id, slug, entity_type, name)| nomos_types::EntityRef {
                id: id.into(),
                slug: slug.into(),
                entity_type: entity_type.into(),
                name: name.into(),
            })
            .collect())
    }

    pub async fn plan(&self, task: &str) -> Result<Vec<PlanStep>> {
        let rows = sqlx::query(
            "SELECT seq, title, detail, status, execution_id, target_slug, command FROM plan_steps
              WHERE task_id = ? ORDER BY seq",
        )
        .bind(task)
        .fetch_all(self.store().pool())
        .await?;
        rows.iter()
            .map(|r| {
                Ok(PlanStep {
                    seq: r.try_get("seq")?,
                    title: r.try_get("title")?,
                    detail: r.try_get("detail")?,
                    status: parse(r, "status")?,
                    execution_id: r.try_get("execution_id")?,
                    target: r.try_get("target_slug")?,
                    command: r.try_get("command")?,
                })
            })
            .collect()
    }

    /// Appends steps after the last one; returns the plan as it is now.
    pub async fn append_plan(&self, task: &str, steps: &[NewStep]) -> Result<Vec<PlanStep>> {
        if steps.is_empty() {
            return Err(Error::Invalid("a plan needs at least one step".into()));
        }
        let mut tx = self.store().begin_write().await?;
        crate::tasks::require_task(&mut tx, task).await?;
        let last: i64 = sqlx::query_scalar("SELECT coalesce(max(seq), 0) FROM plan_steps WHERE task_id = ?")
            .bind(task)
            .fetch_one(&mut *tx)
            .await?;
        let now = tx.now().to_string();
        for (i, step) in steps.iter().enumerate() {
            if step.title.trim().is_empty() {
                return Err(Error::Invalid(format!("step {} has no title", i + 1)));
            }
            sqlx::query(
                "INSERT INTO plan_steps (id, task_id, seq, title, detail, target_slug, command, created_at)
                 VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            )
            .bind(new_id())
            .bind(task)
            .bind(last + 1 + i as i64)
            .bind(step.title.trim())
            .bind(step.detail.trim())
            .bind(step.target.as_deref())
            .bind(step.command.as_deref().map(str::trim).filter(|c| !c.is_empty()))
            .bind(&now)
            .execute(&mut *tx)
            .await?;
        }
        plan_updated(&mut tx, task).await?;
        tx.commit().await?;
        self.plan(task).await
    }

    /// Moves a step to `status`, with the execution that did it.
    pub async fn update_plan_step(
        &self,
        task: &str,
        seq: i64,
        status: StepStatus,
        execution: Option<&str>,
    ) -> Result<PlanStep> {
        let mut tx = self.store().begin_write().await?;
        let now = tx.now().to_string();
        let done = sqlx::query(
            // A step that ends without naming its execution gets the task's newest run of the
            // step's own command on its target, when there is one.
            "UPDATE plan_steps SET status = ?1,
                    execution_id = coalesce(?2, execution_id, CASE WHEN ?5 AND command IS NOT NULL THEN
                        (SELECT x.id FROM executions x WHERE x.task_id = plan_steps.task_id
                            AND x.command = plan_steps.command
                            AND (plan_steps.target_slug IS NULL OR x.target_slug = plan_steps.target_slug)
                          ORDER BY x.created_at DESC LIMIT 1) END),
                    started_at = CASE WHEN ?3 THEN coalesce(started_at, ?4) ELSE started_at END,
                    finished_at = CASE WHEN ?5 THEN ?4 ELSE NULL END
              WHERE task_id = ?6 AND seq = ?7",
        )
        .bind(status.as_str())
        .bind(execution)
        .bind(status == StepStatus::Running)
        .bind(&now)
        .bind(status.is_end())
        .bind(task)
        .bind(seq)
        .execute(&mut *tx)
        .await?;
        if done.rows_affected() == 0 {
            return Err(Error::not_found("plan step", seq.to_string()));
        }
        // The step's execution achieved it or not: what the Learning page counts per action.
        if matches!(status, StepStatus::Done | StepStatus::Failed) {
            sqlx::query(
                "UPDATE executions SET achieved = ? WHERE task_id = ?
                    AND id = (SELECT execution_id FROM plan_steps WHERE task_id = ? AND seq = ?)",
            )
            .bind(status == StepStatus::Done)
            .bind(task)
            .bind(task)
            .bind(seq)
            .execute(&mut *tx)
            .await?;
        }
        plan_updated(&mut tx, task).await?;
        tx.commit().await?;
        self.plan(task)
            .await?
            .into_iter()
            .find(|s| s.seq == seq)
            .ok_or_else(|| Error::not_found("plan step", seq.to_string()))
    }

    pub async fn ask_question(&self, task: &str, prompt: &str, options: &[String]) -> Result<Question> {
        let mut tx = self.store().begin_write().await?;
        crate::tasks::require_task(&mut tx, task).await?;
        let id = new_id();
        let now = tx.now().to_string();
        let context = serde_json::json!({ "options": options }).to_string();
        sqlx::query("INSERT INTO questions (id, task_id, prompt, context, created_at) VALUES (?, ?, ?, ?, ?)")
            .bind(&id)
            .bind(task)
            .bind(prompt.trim())
            .bind(&context)
            .bind(&now)
            .execute(&mut *tx)
            .await?;
        tx.emit(
            EventDraft::new(QuestionAsked { question_id: id.clone(), prompt: prompt.trim().into() }).correlation(task),
        )
        .await?;
        tx.commit().await?;
        Ok(Question {
            id,
            prompt: prompt.trim().into(),
            options: options.to_vec(),
            status: QuestionStatus::Open,
            answer: None,
            created_at: now,
        })
    }

    /// The operator's message answers every open question of the task. Returns how many.
    pub async fn answer_questions(&self, task: &str, answer: &str) -> Result<usize> {
        let mut tx = self.store().begin_write().await?;
        let now = tx.now().to_string();
        let ids: Vec<String> = sqlx::query_scalar(
            "UPDATE questions SET status = ?, answer = ?, answered_at = ?
              WHERE task_id = ? AND status = ? RETURNING id",
        )
        .bind(QuestionStatus::Answered.as_str())
        .bind(answer)
        .bind(&now)
        .bind(task)
        .bind(QuestionStatus::Open.as_str())
        .fetch_all(&mut *tx)
        .await?;
        for id in &ids {
            tx.emit(EventDraft::new(QuestionAnswered { question_id: id.clone() }).correlation(task)).await?;
        }
        tx.commit().await?;
        Ok(ids.len())
    }

    pub async fn questions(&self, task: &str) -> Result<Vec<Question>> {
        let rows = sqlx::query(
            "SELECT id, prompt, context, status, answer, created_at FROM questions WHERE task_id = ? ORDER BY created_at, id",
        )
        .bind(task)
        .fetch_all(self.store().pool())
        .await?;
        rows.iter()
            .map(|r| {
                let context: String = r.try_get("context")?;
                let options = serde_json::from_str::<serde_json::Value>(&context)
                    .ok()
                    .and_then(|v| v.get("options").cloned())
                    .and_then(|o| serde_json::from_value::<Vec<String>>(o).ok())
                    .unwrap_or_default();
                Ok(Question {
                    id: r.try_get("id")?,
                    prompt: r.try_get("prompt")?,
                    options,
                    status: parse(r, "status")?,
                    answer: r.try_get("answer")?,
                    created_at: r.try_get("created_at")?,
                })
            })
            .collect()
    }

    /// The executions a task asked for, oldest first.
    pub async fn task_executions(&self, task: &str) -> Result<Vec<TaskExecution>> {
        let rows = sqlx::query(
            "SELECT id, target_slug, command, status, exit_code FROM executions WHERE task_id = ? ORDER BY created_at, id",
        )
        .bind(task)
        .fetch_all(self.store().pool())
        .await?;
        rows.iter()
            .map(|r| {
                Ok(TaskExecution {
                    id: r.try_get("id")?,
                    target: r.try_get("target_slug")?,
                    command: r.try_get("command")?,
                    status: parse(r, "status")?,
                    exit_code: r.try_get("exit_code")?,
                })
            })
            .collect()
    }
}
