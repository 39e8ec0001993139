//! Which notifications the engine's events produce, as plain data: what to show (one line each),
//! what to close, when many waiting approvals become one summary, and what a button does. The
//! desktop glue in [`super`] only carries these out.

use std::collections::HashMap;

use nomos_types::{Destination, Risk, TaskStatus};

/// Above this many waiting approvals the individual notifications give way to one summary.
pub const GROUP_ABOVE: usize = 3;

/// The buttons a notification carries (registered once as the plugin's action types).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Buttons {
    /// Approve and Deny: a request that needs no typed confirmation.
    Decide,
    /// Open: a destructive request (its confirmation is typed in the window), or anything else
    /// that is read in the window.
    Open,
    /// Ack and Open: a signal.
    Signal,
}

impl Buttons {
    /// The action type's id in the plugin.
    pub fn type_id(self) -> &'static str {
        match self {
            Buttons::Decide => "oikos-decide",
            Buttons::Open => "oikos-open",
            Buttons::Signal => "oikos-signal",
        }
    }
}

/// The action ids of the buttons; a click on the body arrives as [`TAP`].
pub const APPROVE: &str = "approve";
pub const DENY: &str = "deny";
pub const OPEN: &str = "open";
pub const ACK: &str = "ack";
pub const INVESTIGATE: &str = "investigate";
pub const TAP: &str = "tap";

/// One notification to show.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Note {
    pub id: i32,
    pub title: String,
    /// One line.
    pub body: String,
    pub buttons: Buttons,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Effect {
    Show(Note),
    Close(i32),
}

/// What a button (or a click on the body) asks for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Command {
    Approve(String),
    Deny(String),
    Open(Destination),
    /// Acknowledge these signals (the reason says it came from the notification).
    Ack(Vec<String>),
    /// Open a researched task on this signal and show it.
    Investigate(String),
}

/// What the notification of a waiting approval says.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ApprovalFacts {
    pub id: String,
    /// The task's title, if the request belongs to one.
    pub task: Option<String>,
    pub target: String,
    pub command: String,
    pub risk: Risk,
    /// "affects N: a, b" as the gate summarised it.
    pub blast: String,
    /// Needs the typed confirmation: never approved from a notification.
    pub destructive: bool,
    /// Another agent asks (an MCP client, "Claude Code"); `None` for Nomos and the operator.
    pub asker: Option<String>,
}

/// What a shown notification is about.
#[derive(Debug, Clone, PartialEq, Eq)]
enum About {
    Approval {
        id: String,
        destructive: bool,
    },
    Summary,
    Question {
        id: String,
        task: String,
    },
    Task(String),
    /// One signal (with its entity, and the task investigating it when Nomos is on it), or
    /// several in a summary.
    Signal {
        ids: Vec<String>,
        entity: Option<String>,
        task: Option<String>,
    },
}

/// The notifications shown now, and the next id. Owned by one task; every method answers with
/// the effects to carry out, in order.
#[derive(Debug, Default)]
pub struct Planner {
    next_id: i32,
    shown: HashMap<i32, About>,
    /// Waiting approvals that were notified, oldest first (individually or in the summary).
    waiting: Vec<String>,
    /// The summary's id while waiting approvals are grouped.
    summary: Option<i32>,
}

impl Planner {
    fn take_id(&mut self) -> i32 {
        // Ids only need to be unique among what this process shows; wrapping after 2³¹ is fine.
        self.next_id = self.next_id.checked_add(1).unwrap_or(1);
        self.next_id
    }

    fn show(&mut self, about: About, title: String, body: String, buttons: Buttons) -> Effect {
        let id = self.take_id();
        self.shown.insert(id, about);
        Effect::Show(Note { id, title: one_line(&title, 80), body: one_line(&body, 240), buttons })
    }

    fn close(&mut self, id: i32) -> Effect {
        self.shown.remove(&id);
        Effect::Close(id)
    }

    fn note_of(&self, approval: &str) -> Option<i32> {
        self.shown.iter().find(|(_, a)| matches!(a, About::Approval { id, .. } if id == approval)).map(|(n, _)| *n)
    }

    fn summary_note(&mut self) -> Effect {
        let n = self.waiting.len();
        self.show(
            About::Summary,
            format!("{n} requests wait for your approval"),
            "Open Oikos to review and decide them.".into(),
            Buttons::Open,
        )
    }

    /// A request waits (or waits again, raised to a higher risk: its notification is replaced).
    pub fn requested(&mut self, facts: &ApprovalFacts) -> Vec<Effect> {
        let mut effects = Vec::new();
        if let Some(old) = self.note_of(&facts.id) {
            effects.push(self.close(old));
        }
        if !self.waiting.contains(&facts.id) {
            self.waiting.push(facts.id.clone());
        }
        if let Some(summary) = self.summary {
            effects.push(self.close(summary));
            let shown = self.summary_note();
            self.summary = shown_id(&shown);
            effects.push(shown);
        } else if self.waiting.len() > GROUP_ABOVE {
            let individual: Vec<i32> =
                self.shown.iter().filter(|(_, a)| matches!(a, About::Approval { .. })).map(|(n, _)| *n).collect();
            for id in sorted(individual) {
                effects.push(self.close(id));
            }
            let shown = self.summary_note();
            self.summary = shown_id(&shown);
            effects.push(shown);
        } else {
            let (title, buttons) = match (&facts.asker, facts.destructive) {
                (None, true) => (format!("Destructive, confirm in Oikos: {}", facts.command), Buttons::Open),
                (None, false) => (format!("Approve? {}", facts.command), Buttons::Decide),
                (Some(who), true) => {
                    (format!("{who} asks to run (destructive, confirm in Oikos): {}", facts.command), Buttons::Open)
                }
                (Some(who), false) => (format!("{who} asks to run: {}", facts.command), Buttons::Decide),
            };
            let about = About::Approval { id: facts.id.clone(), destructive: facts.destructive };
            effects.push(self.show(about, title, approval_line(facts), buttons));
        }
        effects
    }

    /// A request was decided anywhere (here, the window, the CLI, chat) or expired.
    pub fn decided(&mut self, approval: &str) -> Vec<Effect> {
        let mut effects = Vec::new();
        let before = self.waiting.len();
        self.waiting.retain(|id| id != approval);
        if let Some(note) = self.note_of(approval) {
            effects.push(self.close(note));
        }
        if let Some(summary) = self.summary.filter(|_| self.waiting.len() != before) {
            effects.push(self.close(summary));
            self.summary = None;
            if !self.waiting.is_empty() {
                let shown = self.summary_note();
                self.summary = shown_id(&shown);
                effects.push(shown);
            }
        }
        effects
    }

    /// Every notified request that no longer waits is decided (after missed events).
    pub fn still_waiting(&mut self, waiting: &[String]) -> Vec<Effect> {
        let gone: Vec<String> = self.waiting.iter().filter(|id| !waiting.contains(id)).cloned().collect();
        gone.iter().flat_map(|id| self.decided(id)).collect()
    }

    /// Nomos asks the operator a question in a task.
    pub fn question(&mut self, question: &str, task: &str, task_title: &str, prompt: &str) -> Vec<Effect> {
        let about = About::Question { id: question.into(), task: task.into() };
        vec![self.show(about, format!("Nomos asks: {task_title}"), prompt.into(), Buttons::Open)]
    }

    /// The question was answered: its notification goes.
    pub fn answered(&mut self, question: &str) -> Vec<Effect> {
        let notes: Vec<i32> = self
            .shown
            .iter()
            .filter(|(_, a)| matches!(a, About::Question { id, .. } if id == question))
            .map(|(n, _)| *n)
            .collect();
        notes.into_iter().map(|n| self.close(n)).collect()
    }

    /// The engine says a signal (or a summary of several) is worth a notification: it decided
    /// which, and how often (see the engine's Observe).
    pub fn signal(
        &mut self,
        title: &str,
        body: &str,
        ids: &[String],
        entity: Option<&str>,
        task: Option<&str>,
    ) -> Vec<Effect> {
        let about =
            About::Signal { ids: ids.to_vec(), entity: entity.map(str::to_string), task: task.map(str::to_string) };
        vec![self.show(about, title.to_string(), body.to_string(), Buttons::Signal)]
    }

    /// A signal was acknowledged, muted or resolved: a notification about it alone goes.
    pub fn signal_settled(&mut self, signal: &str) -> Vec<Effect> {
        let notes: Vec<i32> = self
            .shown
            .iter()
            .filter(|(_, a)| matches!(a, About::Signal { ids, .. } if ids.len() == 1 && ids[0] == signal))
            .map(|(n, _)| *n)
            .collect();
        notes.into_iter().map(|n| self.close(n)).collect()
    }

    /// A task changed status: finished or failed is worth a notification.
    pub fn task_updated(&mut self, task: &str, title: &str, status: TaskStatus, summary: &str) -> Vec<Effect> {
        let head = match status {
            TaskStatus::Done => "Task finished",
            TaskStatus::Failed => "Task failed",
            _ => return Vec::new(),
        };
        vec![self.show(About::Task(task.into()), format!("{head}: {title}"), summary.into(), Buttons::Open)]
    }

    /// What the button `action` of the notification `note` does. A destructive request is never
    /// approved (nor denied) from a notification: the only way is the window, where its
    /// confirmation is typed.
    pub fn command(&self, note: i32, action: &str) -> Option<Command> {
        let about = self.shown.get(&note)?;
        let open = matches!(action, OPEN | TAP);
        match about {
            About::Approval { id, destructive: false } if action == APPROVE => Some(Command::Approve(id.clone())),
            About::Approval { id, destructive: false } if action == DENY => Some(Command::Deny(id.clone())),
            About::Approval { id, .. } if open => Some(Command::Open(Destination::Approval { id: id.clone() })),
            About::Summary if open => Some(Command::Open(Destination::Approvals)),
            About::Question { task, .. } | About::Task(task) if open => {
                Some(Command::Open(Destination::Task { id: task.clone() }))
            }
            About::Signal { ids, .. } if action == ACK => Some(Command::Ack(ids.clone())),
            // Nomos already on it: its task; otherwise a new investigation (one signal only).
            About::Signal { task: Some(task), ids, .. } if action == INVESTIGATE && ids.len() == 1 => {
                Some(Command::Open(Destination::Task { id: task.clone() }))
            }
            About::Signal { ids, .. } if action == INVESTIGATE && ids.len() == 1 => {
                Some(Command::Investigate(ids[0].clone()))
            }
            // Nomos is on it: Open goes to its task.
            About::Signal { task: Some(task), ids, .. } if open && ids.len() == 1 => {
                Some(Command::Open(Destination::Task { id: task.clone() }))
            }
            About::Signal { entity: Some(slug), ids, .. } if open && ids.len() == 1 => {
                Some(Command::Open(Destination::Entity { slug: slug.clone() }))
            }
            About::Signal { .. } if open => Some(Command::Open(Destination::Signals)),
            _ => None,
        }
    }
}

fn shown_id(effect: &Effect) -> Option<i32> {
    match effect {
        Effect::Show(note) => Some(note.id),
        Effect::Close(_) => None,
    }
}

fn sorted(mut ids: Vec<i32>) -> Vec<i32> {
    ids.sort_unstable();
    ids
}

/// "task “Upgrade web” · host:pve1 · config mutation · affects 2: lxc:web, lxc:db".
pub fn approval_line(facts: &ApprovalFacts) -> String {
    let task = facts.task.as_deref().map_or_else(|| "no task".to_string(), |t| format!("task “{t}”"));
    format!("{task} · {} · {} · {}", facts.target, facts.risk.as_str().replace('_', " "), facts.blast)
}

/// Whitespace collapsed to single spaces and cut at `max` characters (with an ellipsis).
pub fn one_line(text: &str, max: usize) -> String {
    let line = text.split_whitespace().collect::<Vec<_>>().join(" ");
    if line.chars().count() <= max {
        return line;
    }
    let mut cut: String = line.chars().take(max.saturating_sub(1)).collect();
    cut.push('…');
    cut
}

#[cfg(test)]
mod tests {
    use super::*;

    fn facts(id: &str, destructive: bool) -> ApprovalFacts {
        ApprovalFacts {
            id: id.into(),
            task: Some("Upgrade web".into()),
            target: "host:pve1".into(),
            command: format!("apt-get upgrade -y # {id}"),
            risk: if destructive { Risk::Destructive } else { Risk::ConfigMutation },
            blast: "affects 2: lxc:web, lxc:db".into(),
            destructive,
            asker: None,
        }
    }

    fn shows(effects: &[Effect]) -> Vec<&Note> {
        effects
            .iter()
            .filter_map(|e| match e {
                Effect::Show(n) => Some(n),
                Effect::Close(_) => None,
            })
            .collect()
    }

    fn closes(effects: &[Effect]) -> Vec<i32> {
        effects
            .iter()
            .filter_map(|e| match e {
                Effect::Close(id) => Some(*id),
                Effect::Show(_) => None,
            })
            .collect()
    }

    #[test]
    fn a_waiting_request_is_one_line_with_task_target_risk_and_blast_radius() {
        let mut p = Planner::default();
        let effects = p.requested(&facts("a1", false));
        let notes = shows(&effects);
        assert_eq!(notes.len(), 1);
        assert_eq!(notes[0].body, "task “Upgrade web” · host:pve1 · config mutation · affects 2: lxc:web, lxc:db");
        assert_eq!(notes[0].title, "Approve? apt-get upgrade -y # a1");
        assert_eq!(notes[0].buttons, Buttons::Decide);
        let no_task = ApprovalFacts { task: None, ..facts("a2", false) };
        assert!(approval_line(&no_task).starts_with("no task · host:pve1"));
    }

    #[test]
    fn another_agent_asking_is_named() {
        let mut p = Planner::default();
        let asked = ApprovalFacts { asker: Some("Claude Code".into()), ..facts("a1", false) };
        let notes = p.requested(&asked);
        assert_eq!(shows(&notes)[0].title, "Claude Code asks to run: apt-get upgrade -y # a1");
        assert_eq!(shows(&notes)[0].buttons, Buttons::Decide);
        let destructive = ApprovalFacts { asker: Some("Codex".into()), ..facts("a2", true) };
        let notes = p.requested(&destructive);
        let note = shows(&notes)[0];
        assert_eq!(note.title, "Codex asks to run (destructive, confirm in Oikos): apt-get upgrade -y # a2");
        assert_eq!(note.buttons, Buttons::Open, "a destructive request is never approved from a notification");
    }

    #[test]
    fn a_signal_opens_its_entity_or_the_task_investigating_it_and_acks_from_the_button() {
        let mut p = Planner::default();
        let plain = shows(&p.signal("caddy is down", "critical", &["s1".into()], Some("lxc:caddy"), None))[0].id;
        assert_eq!(p.command(plain, OPEN), Some(Command::Open(Destination::Entity { slug: "lxc:caddy".into() })));
        assert_eq!(p.command(plain, ACK), Some(Command::Ack(vec!["s1".into()])));
        let on_it =
            p.signal("disk full", "critical · Nomos is investigating", &["s2".into()], Some("host:pve1"), Some("t1"));
        let on_it = shows(&on_it)[0].id;
        assert_eq!(p.command(on_it, TAP), Some(Command::Open(Destination::Task { id: "t1".into() })));
        assert_eq!(p.command(plain, INVESTIGATE), Some(Command::Investigate("s1".into())));
        assert_eq!(p.command(on_it, INVESTIGATE), Some(Command::Open(Destination::Task { id: "t1".into() })));
        let summary = shows(&p.signal("4 signals", "…", &["a".into(), "b".into()], None, None))[0].id;
        assert_eq!(p.command(summary, OPEN), Some(Command::Open(Destination::Signals)));
        assert_eq!(p.command(summary, INVESTIGATE), None, "a summary has no one signal to investigate");
    }

    #[test]
    fn buttons_decide_through_the_approval_and_a_destructive_one_only_opens() {
        let mut p = Planner::default();
        let plain = shows(&p.requested(&facts("a1", false)))[0].id;
        let destructive = p.requested(&facts("a2", true));
        let destructive = shows(&destructive)[0];
        assert_eq!(destructive.buttons, Buttons::Open);
        assert!(destructive.title.starts_with("Destructive"), "{}", destructive.title);
        let d = destructive.id;
        assert_eq!(p.command(plain, APPROVE), Some(Command::Approve("a1".into())));
        assert_eq!(p.command(plain, DENY), Some(Command::Deny("a1".into())));
        assert_eq!(p.command(plain, TAP), Some(Command::Open(Destination::Approval { id: "a1".into() })));
        assert_eq!(p.command(d, APPROVE), None, "a destructive request is never approved from a notification");
        assert_eq!(p.command(d, DENY), None);
        assert_eq!(p.command(d, OPEN), Some(Command::Open(Destination::Approval { id: "a2".into() })));
        assert_eq!(p.command(d, TAP), Some(Command::Open(Destination::Approval { id: "a2".into() })));
        assert_eq!(p.command(999, TAP), None, "an unknown notification does nothing");
    }

    #[test]
    fn a_decision_elsewhere_closes_the_notification_and_its_buttons_go_dead() {
        let mut p = Planner::default();
        let id = shows(&p.requested(&facts("a1", false)))[0].id;
        assert_eq!(p.decided("a1"), vec![Effect::Close(id)]);
        assert_eq!(p.command(id, APPROVE), None);
        assert!(p.decided("a1").is_empty(), "twice decided closes nothing more");
        assert!(p.decided("never-notified").is_empty());
    }

    #[test]
    fn a_raised_request_replaces_its_notification() {
        let mut p = Planner::default();
        let first = shows(&p.requested(&facts("a1", false)))[0].id;
        let effects = p.requested(&facts("a1", true));
        assert_eq!(closes(&effects), vec![first]);
        let second = shows(&effects)[0];
        assert_eq!(second.buttons, Buttons::Open);
        assert_eq!(p.command(second.id, APPROVE), None);
    }

    #[test]
    fn many_at_once_become_one_summary_that_follows_the_count() {
        let mut p = Planner::default();
        let mut individual = Vec::new();
        for i in 0..GROUP_ABOVE {
            individual.push(shows(&p.requested(&facts(&format!("a{i}"), false)))[0].id);
        }
        let effects = p.requested(&facts("a-next", false));
        assert_eq!(closes(&effects), individual, "the individual ones go");
        let summary = shows(&effects);
        assert_eq!(summary.len(), 1);
        assert_eq!(summary[0].title, format!("{} requests wait for your approval", GROUP_ABOVE + 1));
        assert_eq!(p.command(summary[0].id, TAP), Some(Command::Open(Destination::Approvals)));
        assert_eq!(p.command(summary[0].id, APPROVE), None);

        // One more replaces the summary; a decision updates it; the last one closes it.
        let effects = p.requested(&facts("a-more", false));
        assert_eq!(closes(&effects), vec![summary[0].id]);
        let summary = shows(&effects)[0].id;
        let effects = p.decided("a0");
        assert_eq!(closes(&effects), vec![summary]);
        let mut summary = shows(&effects)[0].clone();
        assert_eq!(summary.title, format!("{} requests wait for your approval", GROUP_ABOVE + 1));
        for id in ["a1", "a2", "a-next"] {
            let effects = p.decided(id);
            assert_eq!(closes(&effects), vec![summary.id]);
            summary = shows(&effects)[0].clone();
        }
        assert_eq!(summary.title, "1 requests wait for your approval");
        assert_eq!(p.decided("a-more"), vec![Effect::Close(summary.id)]);
        // Back to individual notifications afterwards.
        assert_eq!(shows(&p.requested(&facts("b1", false)))[0].buttons, Buttons::Decide);
    }

    #[test]
    fn missed_decisions_are_caught_up_from_what_still_waits() {
        let mut p = Planner::default();
        let a = shows(&p.requested(&facts("a1", false)))[0].id;
        let _b = shows(&p.requested(&facts("a2", false)))[0].id;
        assert_eq!(p.still_waiting(&["a2".to_string()]), vec![Effect::Close(a)]);
    }

    #[test]
    fn questions_and_task_ends_open_their_task() {
        let mut p = Planner::default();
        let q = p.question("q1", "t1", "Upgrade web", "Which\n  container first?");
        let q = shows(&q)[0].clone();
        assert_eq!((q.title.as_str(), q.body.as_str()), ("Nomos asks: Upgrade web", "Which container first?"));
        assert_eq!(p.command(q.id, TAP), Some(Command::Open(Destination::Task { id: "t1".into() })));
        assert_eq!(p.answered("q1"), vec![Effect::Close(q.id)]);

        let done = p.task_updated("t1", "Upgrade web", TaskStatus::Done, "upgraded 3 packages");
        assert_eq!(shows(&done)[0].title, "Task finished: Upgrade web");
        let failed = p.task_updated("t1", "Upgrade web", TaskStatus::Failed, "ssh refused");
        assert_eq!(shows(&failed)[0].title, "Task failed: Upgrade web");
        assert_eq!(p.command(shows(&failed)[0].id, OPEN), Some(Command::Open(Destination::Task { id: "t1".into() })));
        for status in [TaskStatus::Working, TaskStatus::Waiting, TaskStatus::Cancelled] {
            assert!(p.task_updated("t1", "x", status, "").is_empty(), "{status:?}");
        }
    }

    #[test]
    fn text_is_one_line_and_bounded() {
        assert_eq!(one_line("a\n\tb   c", 10), "a b c");
        assert_eq!(one_line("abcdefghij", 5), "abcd…");
        let long = "x".repeat(500);
        let mut p = Planner::default();
        let effects = p.requested(&ApprovalFacts { command: long, ..facts("a1", false) });
        assert_eq!(shows(&effects)[0].title.chars().count(), 80);
    }
}
