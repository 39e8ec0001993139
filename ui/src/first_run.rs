//! The first run's walkthrough: when it shows, and where each of its three steps stands. Pure,
//! tested natively; `components::first_run` draws it on the task board.

/// The walkthrough's steps, in order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Step {
    /// Connect a model provider.
    Provider,
    /// Add a Proxmox host and discover it, or import an inventory.
    Homelab,
    /// Give Nomos a first goal.
    Goal,
}

impl Step {
    pub const ALL: [Step; 3] = [Step::Provider, Step::Homelab, Step::Goal];

    pub fn key(self) -> &'static str {
        match self {
            Step::Provider => "provider",
            Step::Homelab => "homelab",
            Step::Goal => "goal",
        }
    }

    pub fn number(self) -> usize {
        match self {
            Step::Provider => 1,
            Step::Homelab => 2,
            Step::Goal => 3,
        }
    }

    pub fn title(self) -> &'static str {
        match self {
            Step::Provider => "Connect a model provider",
            Step::Homelab => "Add your homelab",
            Step::Goal => "Give Nomos a first goal",
        }
    }
}

/// Where a step stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StepState {
    Done,
    /// Put off by the operator; it stays reachable in Settings.
    Skipped,
    /// The first step neither done nor skipped: the one open.
    Current,
    Todo,
}

impl StepState {
    pub fn as_str(self) -> &'static str {
        match self {
            StepState::Done => "done",
            StepState::Skipped => "skipped",
            StepState::Current => "current",
            StepState::Todo => "todo",
        }
    }

    /// The word next to the step's title.
    pub fn label(self) -> &'static str {
        match self {
            StepState::Done => "✓ done",
            StepState::Skipped => "later",
            StepState::Current | StepState::Todo => "not done",
        }
    }
}

/// What the board knows when it decides.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Facts {
    pub tasks: usize,
    pub provider: bool,
    pub entities: u64,
}

/// Whether the board shows the walkthrough instead of "No tasks yet": no tasks, and something
/// else missing too (a provider or anything in the graph).
pub fn shows_walkthrough(f: Facts) -> bool {
    f.tasks == 0 && (!f.provider || f.entities == 0)
}

/// Whether a step is done from the facts alone.
pub fn is_done(step: Step, f: Facts) -> bool {
    match step {
        Step::Provider => f.provider,
        Step::Homelab => f.entities > 0,
        Step::Goal => f.tasks > 0,
    }
}

/// Every step's state; `skipped` holds the steps put off.
pub fn step_states(f: Facts, skipped: &[Step]) -> [(Step, StepState); 3] {
    let mut current_given = false;
    Step::ALL.map(|step| {
        let state = if is_done(step, f) {
            StepState::Done
        } else if skipped.contains(&step) {
            StepState::Skipped
        } else if !current_given {
            current_given = true;
            StepState::Current
        } else {
            StepState::Todo
        };
        (step, state)
    })
}

/// The skipped steps as stored (`provider,homelab`), and back; unknown words are ignored.
pub fn skipped_to_text(skipped: &[Step]) -> String {
    skipped.iter().map(|s| s.key()).collect::<Vec<_>>().join(",")
}

pub fn skipped_from_text(text: &str) -> Vec<Step> {
    Step::ALL.into_iter().filter(|s| text.split(',').any(|w| w.trim() == s.key())).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn facts(tasks: usize, provider: bool, entities: u64) -> Facts {
        Facts { tasks, provider, entities }
    }

    #[test]
    fn the_walkthrough_shows_on_an_empty_start_only() {
        assert!(shows_walkthrough(facts(0, false, 0)));
        assert!(shows_walkthrough(facts(0, true, 0)));
        assert!(shows_walkthrough(facts(0, false, 12)));
        assert!(!shows_walkthrough(facts(0, true, 12)), "set up: the plain empty board");
        assert!(!shows_walkthrough(facts(1, false, 0)), "a task exists: the board");
    }

    #[test]
    fn the_first_open_step_is_current() {
        let s = step_states(facts(0, false, 0), &[]);
        assert_eq!(s.map(|x| x.1), [StepState::Current, StepState::Todo, StepState::Todo]);
        let s = step_states(facts(0, true, 0), &[]);
        assert_eq!(s.map(|x| x.1), [StepState::Done, StepState::Current, StepState::Todo]);
        let s = step_states(facts(0, false, 0), &[Step::Provider]);
        assert_eq!(s.map(|x| x.1), [StepState::Skipped, StepState::Current, StepState::Todo]);
        let s = step_states(facts(0, false, 3), &[Step::Provider]);
        assert_eq!(s.map(|x| x.1), [StepState::Skipped, StepState::Done, StepState::Current]);
        // Done wins over skipped: a provider set later in Settings counts.
        let s = step_states(facts(0, true, 0), &[Step::Provider, Step::Homelab]);
        assert_eq!(s.map(|x| x.1), [StepState::Done, StepState::Skipped, StepState::Current]);
    }

    #[test]
    fn skipped_steps_round_trip() {
        let text = skipped_to_text(&[Step::Provider, Step::Homelab]);
        assert_eq!(text, "provider,homelab");
        assert_eq!(skipped_from_text(&text), [Step::Provider, Step::Homelab]);
        assert_eq!(skipped_from_text(" goal ,nonsense"), [Step::Goal]);
        assert!(skipped_from_text("").is_empty());
    }
}
