//! Agents connected over MCP (`nomos mcp serve`): their sessions, the names they are shown by, and
//! the snippets that connect them.

use serde::{Deserialize, Serialize};

/// The prefix of an MCP client's actor (`mcp:claude-code`).
pub const ACTOR_PREFIX: &str = "mcp:";

/// A client's connection: one `nomos mcp serve` process and the task its requests belong to.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct McpSession {
    pub id: String,
    /// The session's task (its windows, approvals and executions).
    pub task_id: Option<String>,
    /// The name the client gave (`clientInfo.name`).
    pub client: String,
    /// The name shown ("Claude Code").
    pub title: String,
    pub version: String,
    /// `mcp:<client>`, the requester of what it asks.
    pub actor: String,
    pub pid: u32,
    /// The client's own process (the serving process's parent), where known: what it runs — its
    /// shell — is not the operator.
    #[serde(default)]
    pub client_pid: Option<u32>,
    pub started_at: String,
    /// When its process last said it is alive.
    pub seen_at: String,
    /// When it disconnected; `None` while connected (a process that was killed leaves it `None`:
    /// it is not listed as connected once `seen_at` is old).
    pub ended_at: Option<String>,
}

/// Known clients by the names they send, and how they are shown.
const KNOWN: &[(&str, &str)] = &[
    ("claude-code", "Claude Code"),
    ("claude-ai", "Claude"),
    ("codex", "Codex"),
    ("codex-mcp-client", "Codex"),
    ("goose", "Goose"),
    ("cursor", "Cursor"),
    ("cursor-vscode", "Cursor"),
    ("vscode", "VS Code"),
    ("visual-studio-code", "VS Code"),
    ("zed", "Zed"),
];

/// The client's name as an actor id: lower case, letters, digits and `-._` (anything else `-`),
/// at most 64 characters; `unknown` when nothing is left.
pub fn client_key(name: &str) -> String {
    let key: String = name
        .trim()
        .chars()
        .map(|c| c.to_ascii_lowercase())
        .map(|c| if c.is_ascii_alphanumeric() || matches!(c, '-' | '.' | '_') { c } else { '-' })
        .take(64)
        .collect();
    let key = key.trim_matches('-').to_string();
    if key.is_empty() {
        "unknown".into()
    } else {
        key
    }
}

/// `mcp:<client key>`.
pub fn actor_for(name: &str) -> String {
    format!("{ACTOR_PREFIX}{}", client_key(name))
}

/// How a client is shown: a known client by its product name, else the title it gave, else its
/// name (control characters dropped, at most 60 characters).
pub fn client_title(name: &str, title: Option<&str>) -> String {
    let key = client_key(name);
    if let Some((_, shown)) = KNOWN.iter().find(|(k, _)| *k == key) {
        return (*shown).to_string();
    }
    let raw = title.map(str::trim).filter(|t| !t.is_empty()).unwrap_or(name.trim());
    let clean: String = raw.chars().filter(|c| !c.is_control()).take(60).collect();
    if clean.trim().is_empty() {
        "an MCP client".into()
    } else {
        clean.trim().to_string()
    }
}

/// Who asked, for a requester that is an MCP client (`mcp:claude-code` → "Claude Code").
pub fn asker(requested_by: &str) -> Option<String> {
    let key = requested_by.strip_prefix(ACTOR_PREFIX)?;
    Some(client_title(key, None))
}

/// Settings → Connect an agent: how to connect each client, and the sessions connected now.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct McpConnect {
    pub snippets: Vec<ConnectSnippet>,
    pub sessions: Vec<McpSession>,
}

/// One way to connect a client.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ConnectSnippet {
    pub client: String,
    /// Where it goes: a command to run, or a file to edit.
    pub place: String,
    pub text: String,
}

/// The snippets that connect Claude Code, Codex, Goose and Cursor to `nomos mcp serve`: `nomos`
/// is the command's path, `db` the database when it is not the default one.
pub fn connect_snippets(nomos: &str, db: Option<&str>) -> Vec<ConnectSnippet> {
    let mut args: Vec<String> = Vec::new();
    if let Some(db) = db {
        args.push("--db".into());
        args.push(db.into());
    }
    args.push("mcp".into());
    args.push("serve".into());
    let quoted = |s: &str| serde_json::Value::String(s.to_string()).to_string();
    let shell = |s: &str| {
        if !s.is_empty() && s.chars().all(|c| c.is_ascii_alphanumeric() || "-_./:=@".contains(c)) {
            s.to_string()
        } else {
            format!("'{}'", s.replace('\'', r"'\''"))
        }
    };
    let argv_shell = args.iter().map(|a| shell(a)).collect::<Vec<_>>().join(" ");
    let argv_json = args.iter().map(|a| quoted(a)).collect::<Vec<_>>().join(", ");
    let argv_yaml = args.iter().map(|a| format!("      - {}", quoted(a))).collect::<Vec<_>>().join("\n");
    vec![
        ConnectSnippet {
            client: "Claude Code".into(),
            place: "run in a terminal".into(),
            text: format!("claude mcp add oikos -- {} {argv_shell}", shell(nomos)),
        },
        ConnectSnippet {
            client: "Codex".into(),
            place: "~/.codex/config.toml".into(),
            text: format!("[mcp_servers.oikos]\ncommand = {}\nargs = [{argv_json}]", quoted(nomos)),
        },
        ConnectSnippet {
            client: "Goose".into(),
            place: "~/.config/goose/config.yaml, under extensions:".into(),
            text: format!(
                "  oikos:\n    name: oikos\n    type: stdio\n    enabled: true\n    cmd: {}\n    args:\n{argv_yaml}\n    timeout: 300",
                quoted(nomos)
            ),
        },
        ConnectSnippet {
            client: "Cursor".into(),
            place: "~/.cursor/mcp.json".into(),
            text: format!(
                "{{\n  \"mcpServers\": {{\n    \"oikos\": {{\n      \"command\": {},\n      \"args\": [{argv_json}]\n    }}\n  }}\n}}",
                quoted(nomos)
            ),
        },
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clients_are_named_and_keyed_safely() {
        assert_eq!(actor_for("claude-code"), "mcp:claude-code");
        assert_eq!(actor_for(" Weird Client/1 "), "mcp:weird-client-1");
        assert_eq!(actor_for("ünï"), "mcp:n");
        assert_eq!(actor_for("ÄÖÜ"), "mcp:unknown");
        assert_eq!(client_title("claude-code", None), "Claude Code");
        assert_eq!(client_title("my-agent", Some("My Ägent")), "My Ägent");
        assert_eq!(client_title("x\u{7}y", None), "xy");
        assert_eq!(asker("mcp:codex-mcp-client").as_deref(), Some("Codex"));
        assert_eq!(asker("agent:nomos"), None);
    }

    #[test]
    fn snippets_name_the_command_and_a_database_that_is_not_the_default() {
        let s = connect_snippets("/usr/bin/nomos", Some("/home/me/lab db/oikos.db"));
        assert_eq!(s.len(), 4);
        assert_eq!(s[0].text, "claude mcp add oikos -- /usr/bin/nomos --db '/home/me/lab db/oikos.db' mcp serve");
        assert!(s[1].text.contains(r#"args = ["--db", "/home/me/lab db/oikos.db", "mcp", "serve"]"#), "{}", s[1].text);
        let cursor: serde_json::Value = serde_json::from_str(&s[3].text).unwrap();
        assert_eq!(cursor["mcpServers"]["oikos"]["args"][3], "serve");
        let plain = connect_snippets("nomos", None);
        assert_eq!(plain[0].text, "claude mcp add oikos -- nomos mcp serve");
    }
}
