-- Bounded context: the older part of a task's conversation, summarised. A request is built from
-- the system prompt, the task's state, the newest summary, and the messages after the last one it
-- covers. Kept for every compaction (the newest wins), so a restart continues from the same point.
CREATE TABLE context_summaries (
    id              INTEGER PRIMARY KEY AUTOINCREMENT,
    task_id         TEXT NOT NULL REFERENCES tasks (id) ON DELETE CASCADE,
    -- Covers every message of the task up to and including this one (and those messages' calls).
    upto_message_id INTEGER NOT NULL,
    -- What the model (or, when it could not, the deterministic digest) made of it.
    narrative       TEXT NOT NULL,
    -- The summarised calls that ran something: tool, call id, execution id, ok or error; one a line.
    record          TEXT NOT NULL DEFAULT '',
    method          TEXT NOT NULL CHECK (method IN ('model', 'digest')),
    created_at      TEXT NOT NULL
);
CREATE INDEX context_summaries_by_task ON context_summaries (task_id, id DESC);
