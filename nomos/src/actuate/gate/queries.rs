//! Reading the gate's records back: executions, their output, approvals, windows.

use nomos_types::{Approval, AuditEntry, AuditQuery, AutonomyWindow, Execution, ExecutionQuery, ExecutionStatus, Page};
use serde_json::{json, Value as Json};

use super::decide::confirms;
use crate::actuate::db::{approvals, audit, executions, windows};
use crate::actuate::target::target_entity;
use crate::actuate::Actuator;
use crate::Result;

impl Actuator {
    pub async fn execution(&self, id: &str) -> Result<Execution> {
        executions::get(&mut *self.engine.store().pool().acquire().await?, id).await
    }

    /// The exact bytes an execution printed.
    pub async fn execution_output(&self, id: &str) -> Result<(Vec<u8>, Vec<u8>)> {
        executions::output(&mut *self.engine.store().pool().acquire().await?, id).await
    }

    /// Executions, newest first; optionally only one task's or one status.
    pub async fn executions(
        &self,
        task_id: Option<&str>,
        status: Option<ExecutionStatus>,
        limit: u32,
    ) -> Result<Vec<Execution>> {
        let query = ExecutionQuery { task_id: task_id.map(str::to_string), target: None, status, limit: Some(limit) };
        self.executions_matching(&query).await
    }

    /// Executions matching a query (task, target, status), newest first.
    pub async fn executions_matching(&self, query: &ExecutionQuery) -> Result<Vec<Execution>> {
        executions::list(self.engine.store().pool(), query).await
    }

    /// One page of the audit ledger, newest first, filtered by task, target, actor and risk.
    pub async fn audit(&self, query: &AuditQuery) -> Result<Page<AuditEntry>> {
        audit::list(self.engine.store().pool(), query).await
    }

    /// Whether `text` is the typed confirmation a pending destructive approval needs — the rule
    /// approving applies, so a form can check as the operator types.
    pub async fn check_confirmation(&self, approval_id: &str, text: &str) -> Result<bool> {
        let mut conn = self.engine.store().pool().acquire().await?;
        let approval = approvals::get(&mut conn, approval_id).await?;
        let entity = target_entity(&mut conn, &approval.target).await?;
        Ok(confirms(&approval, &entity, text))
    }

    /// Approvals waiting for the operator (expired ones are swept first).
    pub async fn pending_approvals(&self) -> Result<Vec<Approval>> {
        self.expire_due().await?;
        approvals::all_pending(self.engine.store().pool()).await
    }

    pub async fn approval(&self, id: &str) -> Result<Approval> {
        approvals::get(&mut *self.engine.store().pool().acquire().await?, id).await
    }

    /// The operator's words that let an execution run: the chat message (or typed confirmation)
    /// of the approval that granted it, or the one that opened the window it ran in. `None` when
    /// it only read, or its grant was a button or a command without words.
    pub async fn grant_message(&self, execution: &Execution) -> Result<Option<String>> {
        let Some(grant) = execution.granted_by.as_deref() else { return Ok(None) };
        if grant == "read_only" {
            return Ok(None);
        }
        let pool = self.engine.store().pool();
        if let Some(window) = grant.strip_prefix("window:") {
            let message: Option<Option<String>> = sqlx::query_scalar(
                "SELECT json_extract(detail, '$.message') FROM audit_log
                  WHERE action = 'window.opened' AND json_extract(detail, '$.window') = ? ORDER BY id LIMIT 1",
            )
            .bind(window)
            .fetch_optional(pool)
            .await?;
            return Ok(message.flatten());
        }
        Ok(self.approval(grant).await?.grant_message)
    }

    /// Windows open now.
    pub async fn open_windows(&self) -> Result<Vec<AutonomyWindow>> {
        windows::open_at(self.engine.store().pool(), &self.clock.now()).await
    }

    /// "affects N: a, b, c" for an approval card.
    pub(super) async fn blast_summary(&self, slug: &str) -> Json {
        match self.engine.blast_radius(slug, None).await {
            Ok(b) => {
                let slugs: Vec<&str> = b.hits.iter().map(|h| &*h.entity.slug).collect();
                let shown: Vec<&str> = slugs.iter().take(8).copied().collect();
                let more = slugs.len().saturating_sub(shown.len());
                let summary = if slugs.is_empty() {
                    "affects nothing else known".to_string()
                } else if more > 0 {
                    format!("affects {}: {} and {more} more", slugs.len(), shown.join(", "))
                } else {
                    format!("affects {}: {}", slugs.len(), shown.join(", "))
                };
                json!({"count": slugs.len(), "summary": summary, "entities": slugs})
            }
            Err(e) => json!({"count": null, "summary": format!("blast radius unknown: {e}")}),
        }
    }
}
