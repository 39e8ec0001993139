-- Decisions can come from a desktop notification's buttons: the channel "notification" joins the
-- CHECK constraints of approvals and autonomy_windows. SQLite cannot alter a CHECK, so both tables
-- are rebuilt the way 0011 rebuilt tasks (foreign keys are off while migrating, so dropping the old
-- tables cascades nothing; `Store::migrate` checks every reference afterwards). Rows, indexes and
-- the references between the tables are kept as they were.

CREATE TABLE approvals_new (
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
    channel               TEXT CHECK (channel IS NULL OR
                                      channel IN ('ui', 'chat', 'tray', 'cli', 'system', 'notification')),
    -- For chat decisions, the operator's exact words.
    grant_message         TEXT,
    created_at            TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
);
INSERT INTO approvals_new (id, execution_id, task_id, status, requires_confirmation, blast_radius, expires_at,
                           decided_at, decided_by, channel, grant_message, created_at)
SELECT id, execution_id, task_id, status, requires_confirmation, blast_radius, expires_at,
       decided_at, decided_by, channel, grant_message, created_at
FROM approvals;
DROP TABLE approvals;
ALTER TABLE approvals_new RENAME TO approvals;
CREATE INDEX approvals_pending ON approvals (expires_at) WHERE status = 'pending';

CREATE TABLE autonomy_windows_new (
    id          TEXT PRIMARY KEY,
    kind        TEXT NOT NULL CHECK (kind IN ('assent', 'destructive')),
    task_id     TEXT NOT NULL REFERENCES tasks (id) ON DELETE CASCADE,
    target_slug TEXT,
    approval_id TEXT REFERENCES approvals (id) ON DELETE SET NULL,
    opened_by   TEXT NOT NULL,
    channel     TEXT NOT NULL CHECK (channel IN ('ui', 'chat', 'tray', 'cli', 'system', 'notification')),
    opened_at   TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
    expires_at  TEXT NOT NULL,
    revoked_at  TEXT,
    CHECK ((kind = 'destructive') = (target_slug IS NOT NULL))
);
INSERT INTO autonomy_windows_new (id, kind, task_id, target_slug, approval_id, opened_by, channel, opened_at,
                                  expires_at, revoked_at)
SELECT id, kind, task_id, target_slug, approval_id, opened_by, channel, opened_at, expires_at, revoked_at
FROM autonomy_windows;
DROP TABLE autonomy_windows;
ALTER TABLE autonomy_windows_new RENAME TO autonomy_windows;
CREATE INDEX autonomy_windows_open ON autonomy_windows (task_id, kind, target_slug) WHERE revoked_at IS NULL;
