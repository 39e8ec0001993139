-- Bounded context: the older part of a task's conversation, summarised. A request is built from
-- the system prompt, the task's state, the newest summary, and the messages after the last one it
-- covers. The newest wins, so a restart continues from the same point; every rewrite by the model
-- is kept, and of the folds that only added to the digest, the newest.
CREATE TABLE context_summaries (
    id              INTEGER PRIMARY KEY AUTOINCREMENT,
    task_id         TEXT NOT NULL REFERENCES tasks (id) ON DELETE CASCADE,
    -- Covers every message of the task up to and including this one (and those messages' calls).
    upto_message_id INTEGER NOT NULL,
    -- The model's summary of the messages up to model_upto_message_id.
    narrative       TEXT NOT NULL,
    model_upto_message_id INTEGER NOT NULL DEFAULT 0,
    -- The deterministic digest of the messages after that, up to upto_message_id: one line each,
    -- with call ids, execution ids and the first line of each result.
    recent          TEXT NOT NULL DEFAULT '',
    -- The summarised calls that ran something: tool, call id, execution id, ok or error; one a line.
    record          TEXT NOT NULL DEFAULT '',
    -- model: this fold rewrote the narrative; digest: it only added to recent.
    method          TEXT NOT NULL CHECK (method IN ('model', 'digest')),
    created_at      TEXT NOT NULL
);
CREATE INDEX context_summaries_by_task ON context_summaries (task_id, id DESC);
