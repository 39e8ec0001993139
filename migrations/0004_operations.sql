-- Gated execution: executions, their approvals, task-scoped autonomy windows, pinned host keys,
-- settings, and the append-only audit ledger.

CREATE TABLE executions (
    id               TEXT PRIMARY KEY,
    -- Executions outlive a deleted task: the history of what ran on the lab is never erased.
    task_id          TEXT REFERENCES tasks (id) ON DELETE SET NULL,
    target_slug      TEXT NOT NULL,
    target_id        TEXT REFERENCES entities (id) ON DELETE SET NULL,
    -- 'run' for a shell command, or the curated action's name (restart, pct_create, ...).
    action           TEXT NOT NULL DEFAULT 'run',
    params           TEXT NOT NULL DEFAULT '{}' CHECK (json_valid(params)),
    command          TEXT NOT NULL,
    purpose          TEXT NOT NULL DEFAULT '',
    declared_risk    TEXT CHECK (declared_risk IS NULL OR declared_risk IN
                                 ('read_only', 'reversible_low', 'config_mutation', 'destructive')),
    risk             TEXT NOT NULL CHECK (risk IN ('read_only', 'reversible_low', 'config_mutation', 'destructive')),
    reasons          TEXT NOT NULL DEFAULT '[]' CHECK (json_valid(reasons)),
    status           TEXT NOT NULL
                     CHECK (status IN ('pending_approval', 'approved', 'running', 'completed', 'failed',
                                       'denied', 'expired', 'cancelled')),
    requested_by     TEXT NOT NULL DEFAULT '',
    -- Which decision let it run: an approval id, or the window that covered it.
    granted_by       TEXT,
    exit_code        INTEGER,
    -- Raw bytes: output may hold NUL or invalid UTF-8 and must round-trip.
    stdout           BLOB,
    stderr           BLOB,
    output_truncated INTEGER NOT NULL DEFAULT 0 CHECK (output_truncated IN (0, 1)),
    error            TEXT,
    created_at       TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
    started_at       TEXT,
    finished_at      TEXT,
    duration_ms      INTEGER
);
CREATE INDEX executions_by_task ON executions (task_id, created_at);
CREATE INDEX executions_by_status ON executions (status, created_at);
CREATE INDEX executions_by_target ON executions (target_slug, created_at);
-- The same request (task, target, command) while one is still pending is the same execution.
CREATE UNIQUE INDEX executions_pending_identity
    ON executions (ifnull(task_id, ''), target_slug, command) WHERE status = 'pending_approval';

-- Links an execution to the task that asked for it so the task resumes when it ends.
CREATE TABLE task_executions (
    execution_id TEXT PRIMARY KEY REFERENCES executions (id) ON DELETE CASCADE,
    task_id      TEXT NOT NULL REFERENCES tasks (id) ON DELETE CASCADE,
    continued_at TEXT,
    created_at   TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
);
CREATE INDEX task_executions_pending ON task_executions (created_at) WHERE continued_at IS NULL;

CREATE TABLE approvals (
    id                    TEXT PRIMARY KEY,
    execution_id          TEXT NOT NULL UNIQUE REFERENCES executions (id) ON DELETE CASCADE,
    task_id               TEXT REFERENCES tasks (id) ON DELETE SET NULL,
    status                TEXT NOT NULL DEFAULT 'pending'
                          CHECK (status IN ('pending', 'approved', 'denied', 'expired', 'cancelled')),
    -- Destructive requests need a typed confirmation that names the target.
    requires_confirmation INTEGER NOT NULL DEFAULT 0 CHECK (requires_confirmation IN (0, 1)),
    -- Snapshot of the target's blast radius when the request was made.
    blast_radius          TEXT NOT NULL DEFAULT '{}' CHECK (json_valid(blast_radius)),
    expires_at            TEXT NOT NULL,
    decided_at            TEXT,
    decided_by            TEXT,
    channel               TEXT CHECK (channel IS NULL OR channel IN ('ui', 'chat', 'tray', 'cli', 'system')),
    -- For chat decisions, the operator's exact words.
    grant_message         TEXT,
    created_at            TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
);
CREATE INDEX approvals_pending ON approvals (expires_at) WHERE status = 'pending';

-- Approval windows are always scoped to one task (and one target for destructive ones); a missing
-- task means no window.
CREATE TABLE autonomy_windows (
    id          TEXT PRIMARY KEY,
    kind        TEXT NOT NULL CHECK (kind IN ('assent', 'destructive')),
    task_id     TEXT NOT NULL REFERENCES tasks (id) ON DELETE CASCADE,
    target_slug TEXT,
    approval_id TEXT REFERENCES approvals (id) ON DELETE SET NULL,
    opened_by   TEXT NOT NULL,
    channel     TEXT NOT NULL CHECK (channel IN ('ui', 'chat', 'tray', 'cli', 'system')),
    opened_at   TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
    expires_at  TEXT NOT NULL,
    revoked_at  TEXT,
    CHECK ((kind = 'destructive') = (target_slug IS NOT NULL))
);
CREATE INDEX autonomy_windows_open ON autonomy_windows (task_id, kind, target_slug) WHERE revoked_at IS NULL;

-- Pinned SSH host keys. A key seen for the first time is recorded untrusted; only an operator's
-- trust makes connections to that host possible.
CREATE TABLE host_keys (
    host_slug     TEXT PRIMARY KEY,
    algorithm     TEXT NOT NULL,
    fingerprint   TEXT NOT NULL,
    public_key    TEXT NOT NULL,
    trusted       INTEGER NOT NULL DEFAULT 0 CHECK (trusted IN (0, 1)),
    first_seen_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
    trusted_at    TEXT,
    trusted_by    TEXT
);

-- Small switches (e.g. autonomy paused). Values are JSON.
CREATE TABLE settings (
    key        TEXT PRIMARY KEY,
    value      TEXT NOT NULL CHECK (json_valid(value)),
    updated_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
);

-- Every decision and execution, in order. Rows name what they concern by id/slug without foreign
-- keys: the ledger must outlive anything it mentions.
CREATE TABLE audit_log (
    id           INTEGER PRIMARY KEY AUTOINCREMENT,
    at           TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
    actor_type   TEXT NOT NULL CHECK (actor_type IN ('operator', 'agent', 'system')),
    actor        TEXT NOT NULL,
    channel      TEXT,
    action       TEXT NOT NULL,
    entity_slug  TEXT,
    task_id      TEXT,
    execution_id TEXT,
    detail       TEXT NOT NULL DEFAULT '{}' CHECK (json_valid(detail))
);
CREATE INDEX audit_log_by_entity ON audit_log (entity_slug, id);
CREATE INDEX audit_log_by_task ON audit_log (task_id, id);
CREATE TRIGGER audit_log_no_update BEFORE UPDATE ON audit_log
BEGIN
    SELECT RAISE(ABORT, 'audit_log is append-only');
END;
CREATE TRIGGER audit_log_no_delete BEFORE DELETE ON audit_log
BEGIN
    SELECT RAISE(ABORT, 'audit_log is append-only');
END;
