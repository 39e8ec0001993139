//! Signal rules as data (`seeds/signals.yaml`): when an observation becomes a signal and when it
//! stops being one, with the examples of every rule run at load.
//!
//! A rule watches one metric of some entity types through one or more levels (a severity, a
//! threshold held for a dwell time, and a separate clear threshold). [`Tracker`] follows one rule on
//! one entity through its observations: missing data makes it `unknown` — never ok — and never
//! resolves an open signal; opening and closing more than the rule allows within its window makes
//! it `flapping`, one state instead of a signal per swing.

use std::collections::VecDeque;
use std::fmt;

use serde::Deserialize;

/// The built-in rules.
pub const BUILTIN_RULES: &str = include_str!(concat!(env!("CARGO_MANIFEST_DIR"), "/../seeds/signals.yaml"));

pub use nomos_types::observe::Severity;

/// Where a rule stands on one entity after its observations so far.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RuleState {
    Ok,
    /// The condition holds, not yet for the dwell time.
    Pending,
    /// Nothing observed (and nothing open): neither ok nor firing.
    Unknown,
    Firing(Severity),
    /// Opened and closed too often within the rule's window.
    Flapping,
}

impl fmt::Display for RuleState {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RuleState::Ok => f.write_str("ok"),
            RuleState::Pending => f.write_str("pending"),
            RuleState::Unknown => f.write_str("unknown"),
            RuleState::Firing(s) => f.write_str(s.as_str()),
            RuleState::Flapping => f.write_str("flapping"),
        }
    }
}

/// Why the rules could not be loaded: the rule and what is wrong with it.
#[derive(Debug, thiserror::Error)]
pub enum RulesError {
    #[error("signal rules: {0}")]
    Parse(String),
    #[error("signal rule `{rule}`: {message}")]
    Rule { rule: String, message: String },
}

/// A duration in the rules' spelling: `90s`, `5m`, `2h`, `1d` (or a bare number of seconds).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Secs(pub u64);

impl<'de> Deserialize<'de> for Secs {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Secs, D::Error> {
        #[derive(Deserialize)]
        #[serde(untagged)]
        enum Raw {
            N(u64),
            S(String),
        }
        match Raw::deserialize(d)? {
            Raw::N(n) => Ok(Secs(n)),
            Raw::S(s) => parse_secs(&s)
                .map(Secs)
                .ok_or_else(|| serde::de::Error::custom(format!("`{s}` is not a duration (like 90s, 5m, 2h, 1d)"))),
        }
    }
}

/// `90s`, `5m`, `2h`, `1d` or a bare number of seconds.
pub fn parse_secs(s: &str) -> Option<u64> {
    let s = s.trim();
    let (digits, unit) = match s.char_indices().find(|(_, c)| !c.is_ascii_digit()) {
        Some((i, _)) => s.split_at(i),
        None => (s, "s"),
    };
    let n: u64 = digits.parse().ok()?;
    let mult = match unit.trim() {
        "s" => 1,
        "m" => 60,
        "h" => 3600,
        "d" => 86_400,
        _ => return None,
    };
    n.checked_mul(mult)
}

/// One threshold of a rule.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Level {
    pub severity: Severity,
    #[serde(default)]
    pub above: Option<f64>,
    #[serde(default)]
    pub below: Option<f64>,
    #[serde(rename = "for")]
    pub dwell: Secs,
    /// Past this (at or below it for `above`, at or above it for `below`) the level clears.
    pub clear: f64,
}

impl Level {
    fn breached(&self, v: f64) -> bool {
        match (self.above, self.below) {
            (Some(a), _) => v > a,
            (_, Some(b)) => v < b,
            _ => false,
        }
    }

    fn cleared(&self, v: f64) -> bool {
        if self.above.is_some() {
            v <= self.clear
        } else {
            v >= self.clear
        }
    }
}

#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Flapping {
    /// More openings and closings than this within `within` …
    pub changes: usize,
    pub within: Secs,
}

#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Example {
    /// `[seconds, value]`; a null value is nothing observed.
    pub series: Vec<(u64, Option<f64>)>,
    pub expect: String,
}

#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Rule {
    pub name: String,
    #[serde(default)]
    pub description: String,
    pub applies_to: Vec<String>,
    pub metric: String,
    pub levels: Vec<Level>,
    #[serde(default)]
    pub flapping: Option<Flapping>,
    #[serde(default)]
    pub examples: Vec<Example>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RulesFile {
    rules: Vec<Rule>,
}

/// The rules in force, each checked against its examples.
#[derive(Debug, Clone)]
pub struct Rules {
    pub rules: Vec<Rule>,
}

impl Rules {
    pub fn builtin() -> Result<Rules, RulesError> {
        Rules::from_yaml(BUILTIN_RULES)
    }

    /// Parses and checks rules: unique names, sane levels, and every example giving what it says.
    pub fn from_yaml(text: &str) -> Result<Rules, RulesError> {
        let file: RulesFile = serde_yaml_ng::from_str(text).map_err(|e| RulesError::Parse(e.to_string()))?;
        let mut names = std::collections::HashSet::new();
        for rule in &file.rules {
            let fail = |message: String| RulesError::Rule { rule: rule.name.clone(), message };
            if !names.insert(rule.name.as_str()) {
                return Err(fail("is defined twice".into()));
            }
            check_rule(rule).map_err(fail)?;
            for (i, ex) in rule.examples.iter().enumerate() {
                let got = run_example(rule, &ex.series);
                if got.to_string() != ex.expect {
                    return Err(fail(format!("example {} gives {got}, not {}", i + 1, ex.expect)));
                }
            }
        }
        Ok(Rules { rules: file.rules })
    }

    pub fn get(&self, name: &str) -> Option<&Rule> {
        self.rules.iter().find(|r| r.name == name)
    }
}

fn check_rule(rule: &Rule) -> Result<(), String> {
    if rule.levels.is_empty() {
        return Err("has no levels".into());
    }
    if rule.applies_to.is_empty() {
        return Err("applies to no entity type".into());
    }
    for l in &rule.levels {
        match (l.above, l.below) {
            (Some(a), None) if l.clear <= a => {}
            (None, Some(b)) if l.clear >= b => {}
            (Some(_), None) | (None, Some(_)) => {
                return Err(format!("a {} level must clear on its safe side of the threshold", l.severity.as_str()))
            }
            _ => return Err(format!("a {} level needs exactly one of above or below", l.severity.as_str())),
        }
    }
    if let Some(f) = &rule.flapping {
        if f.changes == 0 || f.within.0 == 0 {
            return Err("flapping needs changes and a window above zero".into());
        }
    }
    Ok(())
}

fn run_example(rule: &Rule, series: &[(u64, Option<f64>)]) -> RuleState {
    let mut t = Tracker::default();
    let mut state = RuleState::Unknown;
    for (at, value) in series {
        state = t.observe(rule, *at, *value);
    }
    state
}

/// One rule followed on one entity: what each level has seen, and when the signal opened and closed.
#[derive(Debug, Clone, Default)]
pub struct Tracker {
    /// Per level: since when its condition holds, and whether it fires.
    levels: Vec<LevelState>,
    /// When the signal opened or closed, newest last (only within the flapping window).
    changes: VecDeque<u64>,
    open: bool,
    flapping: bool,
}

#[derive(Debug, Clone, Copy, Default)]
struct LevelState {
    since: Option<u64>,
    firing: bool,
}

impl Tracker {
    /// Takes one observation (seconds, and the value or None when nothing was observed) and
    /// returns where the rule stands.
    pub fn observe(&mut self, rule: &Rule, at: u64, value: Option<f64>) -> RuleState {
        self.levels.resize(rule.levels.len(), LevelState::default());
        let mut pending = false;
        match value {
            // Nothing observed: open levels stay open (missing data never resolves); a dwell that
            // had begun starts over when data comes back.
            None => {
                for s in &mut self.levels {
                    s.since = None;
                }
            }
            Some(v) => {
                for (l, s) in rule.levels.iter().zip(self.levels.iter_mut()) {
                    if s.firing {
                        if l.cleared(v) {
                            s.firing = false;
                            s.since = None;
                        }
                    } else if l.breached(v) {
                        let since = *s.since.get_or_insert(at);
                        if at.saturating_sub(since) >= l.dwell.0 {
                            s.firing = true;
                        } else {
                            pending = true;
                        }
                    } else {
                        s.since = None;
                    }
                }
            }
        }
        let severity = rule.levels.iter().zip(&self.levels).filter(|(_, s)| s.firing).map(|(l, _)| l.severity).max();
        let open = severity.is_some();
        if open != self.open {
            self.open = open;
            self.changes.push_back(at);
        }
        if let Some(f) = &rule.flapping {
            while self.changes.front().is_some_and(|t| at.saturating_sub(*t) > f.within.0) {
                self.changes.pop_front();
            }
            if self.changes.len() > f.changes {
                self.flapping = true;
            } else if self.changes.is_empty() {
                // Still for a whole window: the swinging is over.
                self.flapping = false;
            }
        }
        match (self.flapping, severity, value) {
            (true, _, _) => RuleState::Flapping,
            (false, Some(s), _) => RuleState::Firing(s),
            (false, None, None) => RuleState::Unknown,
            (false, None, Some(_)) if pending => RuleState::Pending,
            (false, None, Some(_)) => RuleState::Ok,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_built_in_rules_load_and_their_examples_hold() {
        let rules = Rules::builtin().unwrap();
        for name in ["down", "cpu", "memory", "disk", "storage", "certificate", "backup", "failed-units", "quorum"] {
            assert!(rules.get(name).is_some(), "{name}");
        }
    }

    #[test]
    fn durations() {
        assert_eq!(parse_secs("90s"), Some(90));
        assert_eq!(parse_secs("5m"), Some(300));
        assert_eq!(parse_secs("2h"), Some(7200));
        assert_eq!(parse_secs("1d"), Some(86_400));
        assert_eq!(parse_secs("45"), Some(45));
        assert_eq!(parse_secs("5 m"), Some(300));
        assert_eq!(parse_secs("m"), None);
        assert_eq!(parse_secs("5w"), None);
        assert_eq!(parse_secs("99999999999999999999d"), None);
    }

    #[test]
    fn a_rule_whose_example_is_wrong_is_refused() {
        let bad = "rules:\n  - { name: x, applies_to: [host], metric: m, levels: [{ severity: warning, above: 5, for: 0s, clear: 4 }],\n      examples: [{ series: [[0, 6]], expect: ok }] }\n";
        let e = Rules::from_yaml(bad).unwrap_err().to_string();
        assert!(e.contains("signal rule `x`: example 1 gives warning, not ok"), "{e}");
        let cases = [
            ("levels: [{ severity: warning, above: 5, for: 0s, clear: 6 }]", "safe side"),
            ("levels: [{ severity: warning, for: 0s, clear: 6 }]", "exactly one of above or below"),
            ("levels: []", "no levels"),
            ("levels: [{ severity: loud, above: 5, for: 0s, clear: 4 }]", "unknown variant"),
            ("levels: [{ severity: warning, above: 5, for: soon, clear: 4 }]", "not a duration"),
        ];
        for (levels, msg) in cases {
            let y = format!("rules:\n  - {{ name: x, applies_to: [host], metric: m, {levels} }}\n");
            let e = Rules::from_yaml(&y).unwrap_err().to_string();
            assert!(e.contains(msg), "{levels}: {e}");
        }
        let twice = "rules:\n  - { name: x, applies_to: [host], metric: m, levels: [{ severity: warning, above: 5, for: 0s, clear: 4 }] }\n  - { name: x, applies_to: [host], metric: m, levels: [{ severity: warning, above: 5, for: 0s, clear: 4 }] }\n";
        assert!(Rules::from_yaml(twice).unwrap_err().to_string().contains("defined twice"));
    }

    #[test]
    fn a_signal_that_swings_for_ten_minutes_is_one_flapping_state_until_it_holds_still() {
        let rules = Rules::builtin().unwrap();
        let down = rules.get("down").unwrap();
        let mut t = Tracker::default();
        let mut opened = 0;
        let mut was_open = false;
        // Up and down every 90 s for ten minutes: without the flapping rule, several signals.
        for i in 0..40_u64 {
            let at = i * 15;
            let value = if (at / 90) % 2 == 0 { 0.0 } else { 1.0 };
            let s = t.observe(down, at, Some(value));
            let open = matches!(s, RuleState::Firing(_));
            if open && !was_open {
                opened += 1;
            }
            was_open = open;
        }
        assert!(opened <= 3, "opened {opened} times before it was called flapping");
        assert_eq!(t.observe(down, 615, Some(1.0)), RuleState::Flapping);
        // Up and quiet for a whole window: ok again.
        let mut last = RuleState::Flapping;
        for at in (630..=1300).step_by(30) {
            last = t.observe(down, at, Some(1.0));
        }
        assert_eq!(last, RuleState::Ok);
    }
}
