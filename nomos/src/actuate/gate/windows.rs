//! Windows — a task's permission to run changes without asking again — and pausing autonomy,
//! which closes them all and opens none until resumed.

use nomos_types::events::{AutonomyChanged, WindowOpened, WindowRevoked};
use nomos_types::{AutonomyWindow, WindowKind};
use serde_json::json;

use super::decide::operator_only;
use super::ms;
use crate::actuate::db::audit::Audit;
use crate::actuate::db::settings;
use crate::actuate::db::windows::{self, NewWindow};
use crate::actuate::target::resolve;
use crate::actuate::{Actuator, Decision};
use crate::events::EventDraft;
use crate::graph::new_id;
use crate::store::WriteTx;
use crate::{Error, Result};

impl Actuator {
    /// Opens a window explicitly (the operator approved a plan in chat, or from the UI). Refused
    /// while autonomy is paused.
    pub async fn open_window(
        &self,
        task_id: &str,
        kind: WindowKind,
        target: Option<&str>,
        decision: &Decision,
    ) -> Result<AutonomyWindow> {
        operator_only(decision, "open a window")?;
        if (kind == WindowKind::Destructive) != target.is_some() {
            return Err(Error::Invalid("a destructive window names one target; an assent window none".into()));
        }
        let mut tx = self.engine.store().begin_write().await?;
        if settings::paused(&mut tx).await? {
            return Err(Error::Conflict("autonomy is paused: resume it before opening windows".into()));
        }
        crate::tasks::require_task(&mut tx, task_id).await?;
        // The window is for the target as the gate will see it (`pve1` is `host:pve1`).
        let target = match target {
            Some(t) => Some(resolve(&mut tx, t).await?.entity.slug),
            None => None,
        };
        let id = self.open_window_in(&mut tx, task_id, kind, target.as_deref(), None, decision).await?;
        let window = windows::get(&mut tx, &id).await?;
        tx.commit().await?;
        Ok(window)
    }

    /// Opens a window of `kind` for `task_id` (on `target`) inside `tx`; returns its id.
    pub(super) async fn open_window_in(
        &self,
        tx: &mut WriteTx,
        task_id: &str,
        kind: WindowKind,
        target: Option<&str>,
        approval: Option<&str>,
        decision: &Decision,
    ) -> Result<String> {
        let length = match kind {
            WindowKind::Assent => self.config.assent_window,
            WindowKind::Destructive => self.config.destructive_window,
        };
        let id = new_id();
        let expires = self.clock.after_ms(ms(length));
        let now = tx.now().to_string();
        let new = NewWindow {
            id: &id,
            kind,
            task_id,
            target,
            approval_id: approval,
            opened_by: &decision.actor,
            channel: decision.channel,
            expires_at: &expires,
        };
        windows::insert(tx, &new, &now).await?;
        // The operator's words are kept: every execution the window lets run is granted by them.
        let detail = json!({
            "window": id, "kind": kind, "expires_at": expires, "approval": approval, "message": decision.message,
        });
        let opened = WindowOpened {
            window_id: id.clone(),
            kind,
            task_id: task_id.to_string(),
            target: target.map(str::to_string),
            expires_at: expires,
        };
        Audit::by(&decision.actor, "window.opened", detail)
            .channel(decision.channel)
            .entity(target)
            .task(task_id)
            .record(tx, EventDraft::new(opened).correlation(task_id))
            .await?;
        Ok(id)
    }

    /// Closes open windows: all of them, or one task's. Returns how many.
    pub async fn revoke_windows(&self, task_id: Option<&str>, decision: &Decision) -> Result<usize> {
        let mut tx = self.engine.store().begin_write().await?;
        let n = revoke_in(&mut tx, task_id, decision).await?;
        tx.commit().await?;
        Ok(n)
    }

    /// "Pause autonomy": revokes every open window and opens none until resumed.
    pub async fn set_paused(&self, paused: bool, decision: &Decision) -> Result<()> {
        if !paused {
            operator_only(decision, "resume autonomy")?;
        }
        let mut tx = self.engine.store().begin_write().await?;
        let now = tx.now().to_string();
        settings::set_paused(&mut tx, paused, &now).await?;
        if paused {
            revoke_in(&mut tx, None, decision).await?;
        }
        let action = if paused { "autonomy.paused" } else { "autonomy.resumed" };
        Audit::by(&decision.actor, action, json!({}))
            .channel(decision.channel)
            .record(&mut tx, EventDraft::new(AutonomyChanged { paused }))
            .await?;
        tx.commit().await?;
        Ok(())
    }

    pub async fn is_paused(&self) -> Result<bool> {
        settings::paused(&mut *self.engine.store().pool().acquire().await?).await
    }
}

async fn revoke_in(tx: &mut WriteTx, task_id: Option<&str>, decision: &Decision) -> Result<usize> {
    let now = tx.now().to_string();
    let ids = windows::open_ids(tx, task_id, &now).await?;
    for id in &ids {
        windows::revoke(tx, id, &now).await?;
        Audit::by(&decision.actor, "window.revoked", json!({"window": id}))
            .channel(decision.channel)
            .task(task_id)
            .record(tx, EventDraft::new(WindowRevoked { window_id: id.clone() }))
            .await?;
    }
    Ok(ids.len())
}
