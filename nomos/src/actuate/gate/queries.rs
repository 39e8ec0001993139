//! Reading the gate's records back: executions, their output, approvals, windows.

use nomos_types::{Approval, AutonomyWindow, Execution, ExecutionStatus};
use serde_json::{json, Value as Json};

use crate::actuate::db::{approvals, executions, windows};
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
        executions::list(self.engine.store().pool(), task_id, status, limit).await
    }

    /// Approvals waiting for the operator (expired ones are swept first).
    pub async fn pending_approvals(&self) -> Result<Vec<Approval>> {
        self.expire_due().await?;
        approvals::all_pending(self.engine.store().pool()).await
    }

    pub async fn approval(&self, id: &str) -> Result<Approval> {
        approvals::get(&mut *self.engine.store().pool().acquire().await?, id).await
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
