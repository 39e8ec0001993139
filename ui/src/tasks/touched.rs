//! The entities Nomos touches as it works, per task, from `entity.touched` events: the live graph
//! of the task view highlights those of its latest tool call, so the highlight moves with the work.

use std::collections::HashMap;

use nomos_types::events::Event;
use nomos_types::EngineEvent;

#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Touches {
    /// Per task, slugs oldest first, each once (a touch again moves it to the end).
    by_task: HashMap<String, Vec<String>>,
    /// Per task, its latest call that touched anything and the slugs it touched.
    latest: HashMap<String, (String, Vec<String>)>,
}

impl Touches {
    /// Folds an event in; true when it was a touch.
    pub fn apply(&mut self, event: &EngineEvent) -> bool {
        let (Event::EntityTouched(t), Some(slug)) = (&event.event, &event.entity_slug) else { return false };
        let Some(task) = t.task_id.as_ref().or(event.correlation_id.as_ref()) else { return false };
        let slugs = self.by_task.entry(task.clone()).or_default();
        slugs.retain(|s| s != slug);
        slugs.push(slug.clone());
        let latest = self.latest.entry(task.clone()).or_default();
        if latest.0 != t.call_id {
            *latest = (t.call_id.clone(), Vec::new());
        }
        if !latest.1.contains(slug) {
            latest.1.push(slug.clone());
        }
        true
    }

    /// The task's touched entities, oldest first.
    pub fn of(&self, task: &str) -> &[String] {
        self.by_task.get(task).map_or(&[], Vec::as_slice)
    }

    /// Whether the task's latest call touched `slug`.
    pub fn is_hot(&self, task: &str, slug: &str) -> bool {
        self.latest.get(task).is_some_and(|(_, slugs)| slugs.iter().any(|s| s == slug))
    }
}

#[cfg(test)]
mod tests {
    use nomos_types::events::EntityTouched;

    use super::*;

    fn touch(task: &str, call: &str, slug: &str) -> EngineEvent {
        EngineEvent {
            id: 1,
            created_at: "t".into(),
            correlation_id: Some(task.into()),
            entity_slug: Some(slug.into()),
            event: EntityTouched {
                task_id: Some(task.into()),
                tool: "get_entity".into(),
                call_id: call.into(),
                success: true,
            }
            .into(),
        }
    }

    #[test]
    fn the_touches_of_the_latest_call_are_hot() {
        let mut t = Touches::default();
        // One call touching two, then one call per entity.
        assert!(t.apply(&touch("a", "c1", "host:pve1")));
        assert!(t.apply(&touch("a", "c1", "host:pve2")));
        assert!(t.is_hot("a", "host:pve1") && t.is_hot("a", "host:pve2"));
        t.apply(&touch("a", "c2", "lxc:caddy"));
        assert!(t.is_hot("a", "lxc:caddy"));
        assert!(!t.is_hot("a", "host:pve1") && !t.is_hot("a", "host:pve2"), "the highlight moved on");
        t.apply(&touch("b", "c3", "host:pve2"));
        assert!(!t.is_hot("a", "host:pve2"), "another task's touch");
        assert!(t.is_hot("b", "host:pve2"));
        t.apply(&touch("a", "c4", "host:pve1"));
        assert_eq!(t.of("a"), ["host:pve2", "lxc:caddy", "host:pve1"], "each entity once, newest last");
        assert!(t.is_hot("a", "host:pve1") && !t.is_hot("a", "lxc:caddy"));
        assert_eq!(t.of("c"), [] as [String; 0]);
        assert!(!t.is_hot("c", "host:pve1"));
    }
}
