-- From signal to fix: which task investigates which signal, what a step's execution achieved, and
-- which knowledge a task recalled — so the loop's outcomes can be counted (the Learning page).

-- A task opened on a signal (by the operator or automatically). One task per signal at a time;
-- the fingerprint is kept so the cooldown and "seen before" outlive the signal's row.
CREATE TABLE investigations (
    task_id      TEXT PRIMARY KEY REFERENCES tasks (id) ON DELETE CASCADE,
    signal_id    TEXT NOT NULL REFERENCES signals (id) ON DELETE CASCADE,
    fingerprint  TEXT NOT NULL,
    entity_slug  TEXT,
    auto         INTEGER NOT NULL DEFAULT 0 CHECK (auto IN (0, 1)),
    started_at   TEXT NOT NULL,
    -- The verify step saw the signal resolved (its time), or gave up waiting.
    verified_at  TEXT,
    -- The note written when the task resolved its signal (knowledge.id).
    knowledge_id INTEGER REFERENCES knowledge (id) ON DELETE SET NULL
);
CREATE INDEX investigations_by_signal ON investigations (signal_id);
CREATE INDEX investigations_by_fingerprint ON investigations (fingerprint, started_at);

-- Whether an execution achieved its plan step: 1 done, 0 failed, NULL not judged (not a step's).
ALTER TABLE executions ADD COLUMN achieved INTEGER CHECK (achieved IN (0, 1));

-- Knowledge a task read, once per (note, task).
CREATE TABLE knowledge_recalls (
    knowledge_id INTEGER NOT NULL REFERENCES knowledge (id) ON DELETE CASCADE,
    task_id      TEXT NOT NULL REFERENCES tasks (id) ON DELETE CASCADE,
    recalled_at  TEXT NOT NULL,
    PRIMARY KEY (knowledge_id, task_id)
) WITHOUT ROWID;
CREATE INDEX knowledge_recalls_by_task ON knowledge_recalls (task_id);
