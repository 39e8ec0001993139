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
    for f in findings.into_iter().filter(|f| f.risk == found) {
        let reason = shown_on_one_line(f.reason);
        if !reasons.contains(&reason) && reasons.len() < MAX_REASONS {
            reasons.push(reason);
        }
    }
    Verdict { risk, reasons, secret }
}

/// A reason shown on one line: line breaks and carriage returns from the command are written as
/// `\n` and `\r`, so a reason cannot hide or fake a line of its own.
pub(crate) fn shown_on_one_line(reason: String) -> String {
    if reason.contains(['\n', '\r']) {
        reason.replace('\n', "\\n").replace('\r', "\\r")
    } else {
        reason
    }
}
