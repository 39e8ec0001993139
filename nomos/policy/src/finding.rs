//! What the analysis finds about the parts of a command, and the verdict made of those findings.

use nomos_types::{Risk, Verdict};

/// At most this many reasons are given with a verdict.
const MAX_REASONS: usize = 10;

/// One observation about one part of a command.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Finding {
    pub(crate) risk: Risk,
    pub(crate) reason: String,
    /// The part reads, copies, prints or overwrites secret material: the command's output must be
    /// withheld.
    pub(crate) touches_secrets: bool,
}

/// The verdict: the highest risk found (raised to `declared` if that is higher), with the reasons
/// given at that level (deduplicated, in order of discovery, at most ten). It touches secrets when
/// any finding does, whatever its level.
pub(crate) fn verdict(findings: Vec<Finding>, declared: Option<Risk>) -> Verdict {
    let found = findings.iter().map(|f| f.risk).max().unwrap_or(Risk::ConfigMutation);
    let secret = findings.iter().any(|f| f.touches_secrets);
    let risk = declared.map_or(found, |d| d.max(found));
    let mut reasons: Vec<String> = Vec::new();
    if risk > found {
        reasons.push(format!("declared {risk}"));
    }
    for f in findings {
        if f.risk == found && !reasons.contains(&f.reason) && reasons.len() < MAX_REASONS {
            reasons.push(f.reason);
        }
    }
    Verdict { risk, reasons, secret }
}
