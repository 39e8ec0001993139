use super::*;
use crate::agent::chat::ToolCall;

fn record(id: i64, role: Role, content: &str) -> MessageRecord {
    MessageRecord { id, role, content: content.into(), turn_id: None, created_at: String::new() }
}

fn call(message_id: i64, seq: i64, id: &str, exec: Option<&str>, result: &str) -> CallRecord {
    CallRecord {
        message_id,
        turn_id: None,
        seq,
        call: ToolCall { id: id.into(), name: "run".into(), arguments: r#"{"command":"uptime"}"#.into() },
        state: CallState::Completed,
        result: Some(result.into()),
        is_error: false,
        execution_id: exec.map(str::to_string),
    }
}

#[test]
fn the_estimate_errs_high_and_counts_calls_and_ids() {
    assert_eq!(estimate_text(""), 0);
    assert_eq!(estimate_text("abc"), 1);
    assert_eq!(estimate_text("abcd"), 2);
    // English prose is about four bytes a token: the estimate is above that.
    let prose = "The container web runs Debian and serves the static site on port 80.";
    assert!(estimate_text(prose) * 4 >= prose.len());
    let plain = ChatMessage::assistant("", vec![]);
    let with_call = ChatMessage::assistant(
        "",
        vec![ToolCall { id: "c1".into(), name: "run".into(), arguments: r#"{"command":"df -h"}"#.into() }],
    );
    assert!(estimate_message(&with_call) > estimate_message(&plain) + 8);
    assert_eq!(estimate_message(&ChatMessage::tool("abc", "")), MESSAGE_OVERHEAD + 1);
    assert_eq!(estimate_messages(&[plain.clone(), plain.clone()]), 2 * estimate_message(&plain));
}

#[test]
fn the_budget_leaves_room_for_the_answer_and_the_tools() {
    let tools = vec![ToolSpec {
        name: "run".into(),
        description: "x".repeat(300),
        parameters: serde_json::json!({"type": "object"}),
    }];
    let b = Budget::new(8000, None, &tools);
    assert_eq!(b.output_reserve, 1000);
    assert!(b.tools_tokens > 100);
    assert_eq!(b.input_tokens(), 8000 - 1000 - b.tools_tokens);
    assert_eq!(Budget::new(8000, Some(2000), &[]).input_tokens(), 6000);
    assert_eq!(Budget::new(1_000_000, None, &[]).output_reserve, 4096);
    // Absurd schemas never leave nothing.
    assert_eq!(Budget::new(8000, Some(7999), &[]).input_tokens(), 2000);
}

#[test]
fn calibration_follows_the_provider_within_bounds() {
    let mut c = Calibration::default();
    assert_eq!(c.count(1000), 1000);
    c.observe(900, 100, None);
    assert_eq!(c.count(1000), 1000, "no usage, nothing learned");
    c.observe(900, 100, Some(Usage { prompt_tokens: 1500, completion_tokens: 1 }));
    assert_eq!(c.count(1000), 1500);
    c.observe(900, 100, Some(Usage { prompt_tokens: 100_000, completion_tokens: 1 }));
    assert_eq!(c.count(1000), 4000, "capped");
    c.observe(900, 100, Some(Usage { prompt_tokens: 10, completion_tokens: 1 }));
    assert_eq!(c.count(1000), 500, "floored");
    c.distrust();
    assert_eq!(c.count(1000), 1500);
}

#[test]
fn cuts_keep_the_newest_units_within_the_share_and_always_the_last() {
    assert_eq!(cut_point(&[], 100), 0);
    assert_eq!(cut_point(&[10, 10, 10], 100), 0, "everything fits: nothing folded");
    assert_eq!(cut_point(&[10, 10, 10], 20), 1);
    assert_eq!(cut_point(&[10, 10, 10], 19), 2);
    assert_eq!(cut_point(&[10, 10, 500], 20), 2, "the newest is kept even when it alone is too big");
    assert_eq!(cut_point(&[5, 50, 5], 20), 2, "no gap: what is kept is contiguous");
}

#[test]
fn a_unit_is_a_message_with_the_results_of_its_calls() {
    let messages = vec![
        record(1, Role::User, "check pve1"),
        record(2, Role::Assistant, ""),
        record(3, Role::System, "interrupted"),
        record(4, Role::Assistant, "done"),
    ];
    let calls = vec![call(2, 0, "a", Some("e-1"), "up 3 days"), call(2, 1, "b", None, "ok")];
    let u = units_of(messages, calls);
    assert_eq!(u.len(), 4);
    let roles: Vec<Role> = u[1].chat.iter().map(|m| m.role).collect();
    assert_eq!(roles, [Role::Assistant, Role::Tool, Role::Tool]);
    assert_eq!(u[1].chat[0].tool_calls.len(), 2);
    assert_eq!(u[1].tokens, estimate_messages(&u[1].chat));
    // Any cut between units keeps calls and results together.
    for cut in 0..=u.len() {
        let kept: Vec<ChatMessage> = u[cut..].iter().flat_map(|x| x.chat.clone()).collect();
        let called: Vec<String> = kept.iter().flat_map(|m| m.tool_calls.iter().map(|c| c.id.clone())).collect();
        let answered: Vec<String> = kept.iter().filter_map(|m| m.tool_call_id.clone()).collect();
        assert_eq!(called, answered, "cut at {cut}");
    }
}

#[test]
fn the_digest_and_record_keep_execution_ids() {
    let u = units_of(
        vec![record(1, Role::User, "restart caddy\nplease"), record(2, Role::Assistant, "restarting")],
        vec![call(2, 0, "a", Some("e-1"), "\nActive: active (running)\nmore"), call(2, 1, "b", None, "x")],
    );
    let d = digest(&u);
    assert!(d.contains("operator: restart caddy") && !d.contains("please"), "{d}");
    assert!(d.contains("a run({\"command\":\"uptime\"}) → ok [execution e-1]: Active: active (running)"), "{d}");
    assert!(!d.contains("more"));
    assert_eq!(record_lines(&u), ["run a → e-1: ok"]);
}

#[test]
fn truncation_keeps_head_and_tail_and_says_how_much_went() {
    let text = format!("{}{}", "a".repeat(1000), "z".repeat(1000));
    let t = truncate_middle(&text, 300);
    assert!(t.starts_with("aaaa") && t.ends_with("zzzz") && t.contains("bytes left out"));
    assert!(t.len() < 400);
    assert_eq!(truncate_middle("short", 300), "short");
    // Never splits a character.
    let t = truncate_middle(&"é".repeat(500), 101);
    assert!(t.contains("left out"));
    let lines = (0..100).map(|i| format!("line {i}")).collect::<Vec<_>>().join("\n");
    let kept = keep_newest_lines(&lines, 120, RECORD_MARKER);
    assert!(kept.starts_with(RECORD_MARKER) && kept.ends_with("line 99") && !kept.contains("line 1\n"));
    // Cutting again does not pile up markers.
    assert_eq!(keep_newest_lines(&format!("{kept}\nline 100"), 120, RECORD_MARKER).matches(RECORD_MARKER).count(), 1);
}

#[test]
fn fitting_truncates_the_largest_message_never_below_the_floor() {
    let c = Calibration::default();
    let mut m = vec![
        ChatMessage::system("soul ".repeat(100)),
        ChatMessage::user("what is on pve1?"),
        ChatMessage::tool("a", "x".repeat(30_000)),
    ];
    assert!(fit(&mut m, 1000, &c));
    assert!(c.count(estimate_messages(&m)) <= 1000);
    assert_eq!(m[1].content, "what is on pve1?");
    assert_eq!(m[0].content, "soul ".repeat(100), "the system prompt goes last");
    assert!(m[2].content.contains("left out"));
    let mut small = m.clone();
    assert!(!fit(&mut small, 1000, &c));
    assert_eq!(small, m);
}

#[test]
fn the_summary_request_fits_however_much_is_folded() {
    let messages: Vec<MessageRecord> = (1..=400)
        .map(|i| {
            if i % 2 == 1 {
                record(i, Role::User, &"tell me more ".repeat(50))
            } else {
                record(i, Role::Assistant, "")
            }
        })
        .collect();
    let calls: Vec<CallRecord> = (1..=200)
        .map(|i| call(i * 2, 0, &format!("c{i}"), Some(&format!("e-{i}")), &"output line\n".repeat(300)))
        .collect();
    let u = units_of(messages, calls);
    let previous = Summary {
        upto_message_id: 0,
        narrative: "earlier: pve1 has 4 containers".into(),
        model_upto_message_id: 0,
        recent: String::new(),
        record: String::new(),
        method: "model".into(),
    };
    for limit in [1500, 5000, 50_000] {
        let r = summary_request(Some(&previous), &u, limit, 500);
        assert!(estimate_messages(&r.messages) <= limit, "{limit}: {}", estimate_messages(&r.messages));
        assert!(r.tools.is_empty() && r.max_tokens == Some(500));
        assert!(r.messages[1].content.contains("pve1 has 4 containers"));
    }
    // Small enough: the full text, every call.
    let r = summary_request(None, &u[..4], 50_000, 500);
    assert!(r.messages[1].content.contains("call c1 run") && r.messages[1].content.contains("call c2 run"));
}
