//! Tool calls as the conversation shows them: grouped per answer, collapsed when there are many,
//! with a header that says what runs now ("running get_entity (caddy)… 2/7").

use nomos_types::tasks::{CallRecord, CallState};

/// Above this many calls a group starts collapsed.
pub const COLLAPSE_OVER: usize = 3;

/// What a call is about, from its arguments: the entity or target it names, shortened to the
/// name (`lxc:caddy` → `caddy`), else a query. `None` when the arguments name nothing.
pub fn subject(arguments: &str) -> Option<String> {
    let value: serde_json::Value = serde_json::from_str(arguments).ok()?;
    let object = value.as_object()?;
    ["slug", "target", "entity", "key", "query", "title"].iter().find_map(|k| {
        let s = object.get(*k)?.as_str()?.trim();
        if s.is_empty() {
            return None;
        }
        let short = s.split_once(':').map_or(s, |(_, name)| name);
        Some(truncate(short, 40))
    })
}

fn truncate(s: &str, max: usize) -> String {
    match s.char_indices().nth(max) {
        Some((i, _)) => format!("{}…", &s[..i]),
        None => s.to_string(),
    }
}

/// Whether the call has not ended yet.
pub fn is_running(c: &CallRecord) -> bool {
    matches!(c.state, CallState::Pending | CallState::Started)
}

/// `name (subject)`.
pub fn label(c: &CallRecord) -> String {
    match subject(&c.call.arguments) {
        Some(s) => format!("{} ({s})", c.call.name),
        None => c.call.name.clone(),
    }
}

/// The group's header: the first call still running and where it stands, else how many ran and
/// how many failed.
pub fn header(calls: &[CallRecord]) -> String {
    let n = calls.len();
    if let Some((i, c)) = calls.iter().enumerate().find(|(_, c)| is_running(c)) {
        return format!("running {}… {}/{n}", label(c), i + 1);
    }
    let failed = calls.iter().filter(|c| c.is_error || c.state != CallState::Completed).count();
    let calls_word = if n == 1 { "tool call" } else { "tool calls" };
    match failed {
        0 => format!("{n} {calls_word}"),
        f => format!("{n} {calls_word}, {f} failed"),
    }
}

/// The first line of a call's result, shortened, for its row.
pub fn result_line(c: &CallRecord) -> String {
    match &c.result {
        Some(r) => truncate(r.lines().find(|l| !l.trim().is_empty()).unwrap_or(""), 120),
        None if is_running(c) => "running…".into(),
        None => String::new(),
    }
}

#[cfg(test)]
mod tests {
    use nomos_types::tasks::ToolCall;

    use super::*;

    fn call(name: &str, args: &str, state: CallState) -> CallRecord {
        CallRecord {
            message_id: 1,
            turn_id: Some("t1".into()),
            seq: 0,
            call: ToolCall { id: name.into(), name: name.into(), arguments: args.into() },
            state,
            result: (state == CallState::Completed).then(|| "ok\nmore".into()),
            is_error: false,
            execution_id: None,
        }
    }

    #[test]
    fn the_subject_is_the_entity_named() {
        assert_eq!(subject(r#"{"slug":"lxc:caddy"}"#).as_deref(), Some("caddy"));
        assert_eq!(subject(r#"{"target":"host:pve1","command":"uptime"}"#).as_deref(), Some("pve1"));
        assert_eq!(subject(r#"{"query":"backups"}"#).as_deref(), Some("backups"));
        assert_eq!(subject(r#"{"limit":3}"#), None);
        assert_eq!(subject("not json"), None);
    }

    #[test]
    fn the_header_says_what_runs_and_where_it_stands() {
        let mut calls: Vec<CallRecord> = (0..7).map(|_| call("list_entities", "{}", CallState::Completed)).collect();
        calls[1] = call("get_entity", r#"{"slug":"lxc:caddy"}"#, CallState::Started);
        assert_eq!(header(&calls), "running get_entity (caddy)… 2/7");
        calls[1] = call("get_entity", r#"{"slug":"lxc:caddy"}"#, CallState::Completed);
        assert_eq!(header(&calls), "7 tool calls");
        calls[6].is_error = true;
        calls[5] = call("run", "{}", CallState::Interrupted);
        assert_eq!(header(&calls), "7 tool calls, 2 failed");
        assert_eq!(header(&calls[..1]), "1 tool call");
        assert_eq!(result_line(&calls[0]), "ok");
        assert_eq!(result_line(&call("run", "{}", CallState::Pending)), "running…");
    }
}
