-- Tasks: one conversation with Nomos elevated to a goal with a plan, a lifecycle and an outcome.

CREATE TABLE tasks (
    id                TEXT PRIMARY KEY,
    title             TEXT NOT NULL DEFAULT '',
    goal              TEXT NOT NULL DEFAULT '',
    status            TEXT NOT NULL DEFAULT 'active'
                      CHECK (status IN ('active', 'planning', 'awaiting_approval', 'executing',
                                        'awaiting_input', 'done', 'failed', 'abandoned')),
    -- NULL until the task ends; anything else the model invents is stored as 'partial'.
    outcome           TEXT CHECK (outcome IS NULL OR outcome IN ('success', 'failure', 'partial')),
    summary           TEXT NOT NULL DEFAULT '',
    -- The task's own entity (type task, slug task:<short id>) that knowledge and `involves` edges
    -- hang off. A real foreign key here: task and entity are written in one transaction of one
    -- process, so the cross-process race that once argued against it cannot happen.
    entity_id         TEXT REFERENCES entities (id) ON DELETE SET NULL,
    -- How many times the idle sweep has nudged this task to call complete_task.
    completion_nudges INTEGER NOT NULL DEFAULT 0,
    created_at        TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
    updated_at        TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
    last_active_at    TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
);
CREATE INDEX tasks_by_activity ON tasks (last_active_at DESC);
CREATE INDEX tasks_by_status ON tasks (status, last_active_at DESC);

-- The transcript. A turn writes its assistant row first (complete = 0) and updates it after every
-- tool call, so a cancelled turn never loses what already ran.
CREATE TABLE messages (
    id           INTEGER PRIMARY KEY AUTOINCREMENT,
    task_id      TEXT NOT NULL REFERENCES tasks (id) ON DELETE CASCADE,
    role         TEXT NOT NULL CHECK (role IN ('user', 'assistant', 'tool', 'system')),
    content      TEXT NOT NULL DEFAULT '',
    tool_calls   TEXT CHECK (tool_calls IS NULL OR json_valid(tool_calls)),
    tool_call_id TEXT,
    -- Groups the rows of one agent turn; chat assent applies only to the turn just before it.
    turn_id      TEXT,
    complete     INTEGER NOT NULL DEFAULT 1 CHECK (complete IN (0, 1)),
    created_at   TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
    updated_at   TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
);
CREATE INDEX messages_by_task ON messages (task_id, id);

-- Ordered plan steps. No fixed step vocabulary: a step describes a unit of work.
CREATE TABLE plan_steps (
    id           TEXT PRIMARY KEY,
    task_id      TEXT NOT NULL REFERENCES tasks (id) ON DELETE CASCADE,
    seq          INTEGER NOT NULL CHECK (seq > 0),
    title        TEXT NOT NULL,
    detail       TEXT NOT NULL DEFAULT '',
    status       TEXT NOT NULL DEFAULT 'pending'
                 CHECK (status IN ('pending', 'running', 'done', 'failed', 'skipped', 'blocked')),
    execution_id TEXT,
    target_slug  TEXT,
    started_at   TEXT,
    finished_at  TEXT,
    created_at   TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
    UNIQUE (task_id, seq)
);

-- Questions the agent puts to the operator mid-task.
CREATE TABLE questions (
    id          TEXT PRIMARY KEY,
    task_id     TEXT NOT NULL REFERENCES tasks (id) ON DELETE CASCADE,
    prompt      TEXT NOT NULL,
    -- { "entities": [slug], "options": [text], "why": text }
    context     TEXT NOT NULL DEFAULT '{}' CHECK (json_valid(context)),
    status      TEXT NOT NULL DEFAULT 'open' CHECK (status IN ('open', 'answered', 'dismissed')),
    answer      TEXT,
    created_at  TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
    answered_at TEXT
);
CREATE INDEX questions_open ON questions (task_id) WHERE status = 'open';
