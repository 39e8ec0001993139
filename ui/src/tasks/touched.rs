//! The entities Nomos touches as it works, per task, from `entity.touched` events: the live graph
//! of the task view highlights the newest ones.

use std::collections::HashMap;

use nomos_types::events::Event;
use nomos_types::EngineEvent;

/// How many of a task's newest touches stay highlighted.
pub const HIGHLIGHTED: usize = 3;

#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Touches {
    /// Per task, slugs oldest first, each once (a touch again moves it to the end).
    by_task: HashMap<String, Vec<String>>,
}

impl Touches {
    /// Folds an event in; true when it was a touch.
    pub fn apply(&mut self, event: &EngineEvent) -> bool {
        let (Event::EntityTouched(t), Some(slug)) = (&event.event, &event.entity_slug) else { return false };
        let Some(task) = t.task_id.as_ref().or(event.correlation_id.as_ref()) else { return false };
        let slugs = self.by_task.entry(task.clone()).or_default();
        slugs.retain(|s| s != slug);
        slugs.push(slug.clone());
        true
    }

    /// The task's touched entities, oldest first.
    pub fn of(&self, task: &str) -> &[String] {
        self.by_task.get(task).map_or(&[], Vec::as_slice)
    }

    /// Whether `slug` is among the task's newest touches.
    pub fn is_hot(&self, task: &str, slug: &str) -> bool {
        self.of(task).iter().rev().take(HIGHLIGHTED).any(|s| s == slug)
    }
}

#[cfg(test)]
mod tests {
    use nomos_types::events::EntityTouched;

    use super::*;

    fn touch(task: &str, slug: &str) -> EngineEvent {
        EngineEvent {
            id: 1,
            created_at: "t".into(),
            correlation_id: Some(task.into()),
            entity_slug: Some(slug.into()),
            event: EntityTouched {
                task_id: Some(task.into()),
                tool: "get_entity".into(),
                call_id: "c".into(),
                success: true,
            }
            .into(),
        }
    }

    #[test]
    fn the_newest_touches_of_a_task_are_hot() {
        let mut t = Touches::default();
        for slug in ["host:pve1", "lxc:caddy", "lxc:db", "lxc:web"] {
            assert!(t.apply(&touch("a", slug)));
        }
        t.apply(&touch("b", "host:pve2"));
        assert_eq!(t.of("a"), ["host:pve1", "lxc:caddy", "lxc:db", "lxc:web"]);
        assert!(!t.is_hot("a", "host:pve1"));
        assert!(t.is_hot("a", "lxc:web"));
        assert!(!t.is_hot("a", "host:pve2"), "another task's touch");
        t.apply(&touch("a", "host:pve1"));
        assert!(t.is_hot("a", "host:pve1"));
        assert_eq!(t.of("a").len(), 4, "each entity once");
        assert_eq!(t.of("c"), [] as [String; 0]);
    }
}
