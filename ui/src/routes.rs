//! Where each page lives. The router's patterns and the links are both built here, so a page's
//! path is written once.

use leptos_router::{ParamSegment, StaticSegment};

/// What needs the operator now: approvals, open signals, running tasks, fleet health.
pub const OVERVIEW: &str = "/overview";

/// Observe's signals: open problems and past ones, with ack, mute and resolve.
pub const SIGNALS: &str = "/signals";

/// The query parameters of [`ENTITIES`] that set its type and health filters.
pub const TYPE: &str = "type";
pub const HEALTH: &str = "health";

/// The entity list filtered by type and, if given, health (a fleet health number clicked).
pub fn entities_filtered(entity_type: &str, health: Option<nomos_types::Health>) -> String {
    let health = health.map(|h| format!("&{HEALTH}={}", h.as_str())).unwrap_or_default();
    format!("{ENTITIES}?{TYPE}={}{health}", encode_segment(entity_type))
}

/// The task board (the home page).
pub const TASKS: &str = "/tasks";

/// A task's conversation and context.
pub fn task(id: &str) -> String {
    format!("{TASKS}/{}", encode_segment(id))
}

/// The entity list; an entity's detail is below it.
pub const ENTITIES: &str = "/entities";

/// The homelab graph drawn as a picture.
pub const GRAPH: &str = "/graph";

/// The knowledge base: search, recent notes, a note.
pub const KNOWLEDGE: &str = "/knowledge";

/// What the loop has learned: outcomes, capabilities, incidents, recalled knowledge.
pub const LEARNING: &str = "/learning";

/// Provider, API key, hosts and their keys, inventory, policy.
pub const SETTINGS: &str = "/settings";

/// The detail page of an entity.
pub fn entity(slug: &str) -> String {
    format!("{ENTITIES}/{}", encode_segment(slug))
}

/// Every approval waiting for the operator.
pub const APPROVALS: &str = "/approvals";

/// The query parameter of [`APPROVALS`] naming the approval to bring into view.
pub const FOCUS: &str = "focus";

/// The approvals page with one approval brought into view (a notification clicked).
pub fn approval(id: &str) -> String {
    format!("{APPROVALS}?{FOCUS}={}", encode_segment(id))
}

/// Where the shell's [`Destination`](nomos_types::Destination) is.
pub fn destination(to: &nomos_types::Destination) -> String {
    match to {
        nomos_types::Destination::Approvals => APPROVALS.to_string(),
        nomos_types::Destination::Approval { id } => approval(id),
        nomos_types::Destination::Task { id } => task(id),
        nomos_types::Destination::Signals => SIGNALS.to_string(),
        nomos_types::Destination::Entity { slug } => entity(slug),
    }
}

/// Executions, the audit ledger and autonomy.
pub const OPERATIONS: &str = "/operations";

/// The parameter naming the task on its page ([`task`]).
pub const TASK_ID: &str = "id";

/// The parameter naming the entity on its page ([`entity`]).
pub const ENTITY_SLUG: &str = "slug";

/// What the router matches for a page at one fixed path.
pub type Fixed = (StaticSegment<&'static str>,);

/// The router's patterns, one per page.
pub mod pattern {
    use super::*;

    pub const OVERVIEW: Fixed = (StaticSegment(super::OVERVIEW),);
    pub const SIGNALS: Fixed = (StaticSegment(super::SIGNALS),);
    pub const TASKS: Fixed = (StaticSegment(super::TASKS),);
    pub const TASK: (StaticSegment<&'static str>, ParamSegment) = (StaticSegment(super::TASKS), ParamSegment(TASK_ID));
    pub const APPROVALS: Fixed = (StaticSegment(super::APPROVALS),);
    pub const OPERATIONS: Fixed = (StaticSegment(super::OPERATIONS),);
    pub const GRAPH: Fixed = (StaticSegment(super::GRAPH),);
    pub const KNOWLEDGE: Fixed = (StaticSegment(super::KNOWLEDGE),);
    pub const LEARNING: Fixed = (StaticSegment(super::LEARNING),);
    pub const SETTINGS: Fixed = (StaticSegment(super::SETTINGS),);
    /// The entity list, the parent of [`ENTITY`].
    pub const ENTITIES: Fixed = (StaticSegment(super::ENTITIES),);
    /// An entity, below [`ENTITIES`].
    pub const ENTITY: (ParamSegment,) = (ParamSegment(ENTITY_SLUG),);
}

/// Percent-encodes a path segment. `:` stays readable (`lxc:caddy`); the router decodes the
/// parameter again.
fn encode_segment(segment: &str) -> String {
    let mut out = String::with_capacity(segment.len());
    for byte in segment.bytes() {
        if byte.is_ascii_alphanumeric() || matches!(byte, b'-' | b'.' | b'_' | b'~' | b':') {
            out.push(char::from(byte));
        } else {
            out.push_str(&format!("%{byte:02X}"));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slugs_become_one_path_segment() {
        assert_eq!(entity("lxc:caddy"), "/entities/lxc:caddy");
        assert_eq!(entity("service:a/b c"), "/entities/service:a%2Fb%20c");
        assert_eq!(entity("host:ü"), "/entities/host:%C3%BC");
        assert_eq!(task("0193-ab"), "/tasks/0193-ab");
    }

    /// The parameters `pattern` reads from `path` when it matches all of it.
    fn matched(pattern: &impl leptos_router::PossibleRouteMatch, path: &str) -> Option<Vec<(String, String)>> {
        let path = path.split('?').next().unwrap_or_default();
        let m = pattern.test(path).filter(|m| m.is_complete())?;
        Some(m.params().into_iter().map(|(k, v)| (k.to_string(), v)).collect())
    }

    #[test]
    fn every_link_is_matched_by_its_page_s_pattern() {
        let none = Some(Vec::new());
        for (p, link) in [
            (pattern::OVERVIEW, OVERVIEW),
            (pattern::SIGNALS, SIGNALS),
            (pattern::TASKS, TASKS),
            (pattern::APPROVALS, APPROVALS),
            (pattern::OPERATIONS, OPERATIONS),
            (pattern::GRAPH, GRAPH),
            (pattern::KNOWLEDGE, KNOWLEDGE),
            (pattern::LEARNING, LEARNING),
            (pattern::SETTINGS, SETTINGS),
            (pattern::ENTITIES, ENTITIES),
        ] {
            assert_eq!(matched(&p, link), none, "{link}");
        }
        assert_eq!(matched(&pattern::APPROVALS, &approval("a1")), none);
        let down = entities_filtered("lxc", Some(nomos_types::Health::Down));
        assert_eq!(down, "/entities?type=lxc&health=down");
        assert_eq!(matched(&pattern::ENTITIES, &down), none);
        assert_eq!(entities_filtered("a&b", None), "/entities?type=a%26b");
        assert_eq!(matched(&pattern::TASK, &task("0193-ab")), Some(vec![(TASK_ID.into(), "0193-ab".into())]));
        assert_eq!(matched(&pattern::TASKS, &task("0193-ab")), None, "the board is not a task");
        let entity_page = (pattern::ENTITIES.0, pattern::ENTITY.0);
        assert_eq!(matched(&entity_page, &entity("lxc:caddy")), Some(vec![(ENTITY_SLUG.into(), "lxc:caddy".into())]));
    }

    #[test]
    fn the_shell_s_destinations_are_pages() {
        use nomos_types::Destination;
        assert_eq!(destination(&Destination::Approvals), "/approvals");
        assert_eq!(destination(&Destination::Approval { id: "a b&c".into() }), "/approvals?focus=a%20b%26c");
        assert_eq!(destination(&Destination::Task { id: "t1".into() }), "/tasks/t1");
        assert_eq!(destination(&Destination::Signals), "/signals");
        assert_eq!(destination(&Destination::Entity { slug: "lxc:ca ddy".into() }), "/entities/lxc:ca%20ddy");
    }
}
