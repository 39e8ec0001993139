-- Other agents connected over MCP (`nomos mcp serve`): each session is its own task, so a window
-- opened for one client never lets another client's change run.

-- Who drives a task: NULL for Nomos, `mcp:<client>` for an agent connected over MCP. Nomos never
-- takes a turn in a task another agent drives.
ALTER TABLE tasks ADD COLUMN driver TEXT;

CREATE TABLE mcp_sessions (
    id             TEXT PRIMARY KEY,
    task_id        TEXT REFERENCES tasks (id) ON DELETE SET NULL,
    -- The client's own name (`clientInfo.name`), the name shown for it, and its version.
    client         TEXT NOT NULL,
    title          TEXT NOT NULL,
    version        TEXT NOT NULL DEFAULT '',
    -- `mcp:<client>`: the requester of its executions and approvals.
    actor          TEXT NOT NULL,
    -- The serving process, and when it last said it is alive (every few seconds).
    pid            INTEGER NOT NULL,
    -- The client's process (the server's parent): decisions made from below it are the client's,
    -- not the operator's, and are refused.
    client_pid     INTEGER,
    started_at     TEXT NOT NULL,
    seen_at        TEXT NOT NULL,
    ended_at       TEXT
);
CREATE INDEX mcp_sessions_open ON mcp_sessions (seen_at) WHERE ended_at IS NULL;
