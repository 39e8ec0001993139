-- The task loop: a task is working (held by a live lease), waiting for the operator (and for what),
-- or ended (done, failed, cancelled). The tasks table is rebuilt to change its status CHECK, the
-- way SQLite documents it: with foreign keys off, so dropping the old table deletes none of the
-- rows that reference it (messages, plan steps, questions, executions, approvals, windows).
-- `PRAGMA foreign_keys` has no effect inside a transaction, and each migration runs in one, so
-- `Store::migrate` turns them off on its connection before migrating, checks every reference
-- afterwards (`PRAGMA foreign_key_check`) and turns them back on.

CREATE TABLE tasks_new (
    id                TEXT PRIMARY KEY,
    title             TEXT NOT NULL DEFAULT '',
    goal              TEXT NOT NULL DEFAULT '',
    status            TEXT NOT NULL DEFAULT 'waiting'
                      CHECK (status IN ('working', 'waiting', 'done', 'failed', 'cancelled')),
    -- What a waiting task waits for: an answer to a question, approval of its plan, a decision on
    -- a queued execution, or simply the operator's next message.
    waiting_for       TEXT CHECK (waiting_for IS NULL OR waiting_for IN ('answer', 'plan', 'approval', 'message')),
    -- NULL until the task ends; anything else the model invents is stored as 'partial'.
    outcome           TEXT CHECK (outcome IS NULL OR outcome IN ('success', 'failure', 'partial')),
    summary           TEXT NOT NULL DEFAULT '',
    entity_id         TEXT REFERENCES entities (id) ON DELETE SET NULL,
    completion_nudges INTEGER NOT NULL DEFAULT 0,
    -- "working" is only true while its holder renews the lease; the sweep turns an expired lease
    -- into waiting (the process stopped), so no task is ever left working by a dead process.
    lease_owner       TEXT,
    lease_expires_at  TEXT,
    created_at        TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
    updated_at        TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
    last_active_at    TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
    CHECK ((status = 'waiting') = (waiting_for IS NOT NULL)),
    CHECK (status = 'working' OR (lease_owner IS NULL AND lease_expires_at IS NULL))
);

-- Old statuses: the three busy ones become working without a lease (the next sweep says the work
-- was interrupted); awaiting_approval waits on a queued execution if the task has one, else on
-- its plan; awaiting_input waits for an answer; abandoned is cancelled.
INSERT INTO tasks_new (id, title, goal, status, waiting_for, outcome, summary, entity_id, completion_nudges,
                       created_at, updated_at, last_active_at)
SELECT t.id, t.title, t.goal,
       CASE t.status
           WHEN 'active' THEN 'working'
           WHEN 'planning' THEN 'working'
           WHEN 'executing' THEN 'working'
           WHEN 'awaiting_approval' THEN 'waiting'
           WHEN 'awaiting_input' THEN 'waiting'
           WHEN 'abandoned' THEN 'cancelled'
           ELSE t.status
       END,
       CASE t.status
           WHEN 'awaiting_approval' THEN
               CASE WHEN EXISTS (SELECT 1 FROM approvals a WHERE a.task_id = t.id AND a.status = 'pending')
                    THEN 'approval' ELSE 'plan' END
           WHEN 'awaiting_input' THEN 'answer'
           ELSE NULL
       END,
       t.outcome, t.summary, t.entity_id, t.completion_nudges, t.created_at, t.updated_at, t.last_active_at
  FROM tasks t;

DROP TABLE tasks;
ALTER TABLE tasks_new RENAME TO tasks;
CREATE INDEX tasks_by_activity ON tasks (last_active_at DESC);
CREATE INDEX tasks_by_status ON tasks (status, last_active_at DESC);
CREATE INDEX tasks_leased ON tasks (lease_expires_at) WHERE status = 'working';

-- The tool calls of an assistant message, written ahead: the message and its calls (pending) are
-- committed before any tool runs; a call is marked started in its own commit before its side
-- effect and completed with its result after. A call found started without a result after a
-- restart is interrupted (its outcome unknown) and never run again; a pending one was never
-- started and is skipped.
CREATE TABLE tool_calls (
    id           INTEGER PRIMARY KEY AUTOINCREMENT,
    task_id      TEXT NOT NULL REFERENCES tasks (id) ON DELETE CASCADE,
    message_id   INTEGER NOT NULL REFERENCES messages (id) ON DELETE CASCADE,
    seq          INTEGER NOT NULL CHECK (seq >= 0),
    -- The id the model knows the call by; unique within the task's history.
    call_id      TEXT NOT NULL,
    name         TEXT NOT NULL,
    -- The arguments exactly as the model wrote them (not necessarily valid JSON).
    arguments    TEXT NOT NULL,
    state        TEXT NOT NULL DEFAULT 'pending'
                 CHECK (state IN ('pending', 'started', 'completed', 'interrupted', 'skipped')),
    result       TEXT,
    is_error     INTEGER NOT NULL DEFAULT 0 CHECK (is_error IN (0, 1)),
    execution_id TEXT,
    created_at   TEXT NOT NULL,
    started_at   TEXT,
    finished_at  TEXT,
    UNIQUE (message_id, seq),
    UNIQUE (task_id, call_id),
    CHECK ((state IN ('pending', 'started')) = (result IS NULL))
);
CREATE INDEX tool_calls_by_task ON tool_calls (task_id, message_id, seq);
CREATE INDEX tool_calls_unfinished ON tool_calls (task_id) WHERE state IN ('pending', 'started');
