-- What the engine observes and announces: events, agent activity, signals, checks and metrics.

-- Every state change writes one row here in the same transaction as the change; the id is the
-- order consumers apply events in.
CREATE TABLE events (
    id             INTEGER PRIMARY KEY AUTOINCREMENT,
    type           TEXT NOT NULL,
    -- The task an event belongs to, when it belongs to one.
    correlation_id TEXT,
    entity_slug    TEXT,
    payload        TEXT NOT NULL DEFAULT '{}' CHECK (json_valid(payload)),
    created_at     TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
);
CREATE INDEX events_by_correlation ON events (correlation_id, id) WHERE correlation_id IS NOT NULL;
CREATE INDEX events_by_entity ON events (entity_slug, id) WHERE entity_slug IS NOT NULL;

-- One row per agent tool call, tagged with the entity it concerned (resolved at insert).
CREATE TABLE agent_activity (
    id            INTEGER PRIMARY KEY AUTOINCREMENT,
    task_id       TEXT REFERENCES tasks (id) ON DELETE SET NULL,
    agent_slug    TEXT NOT NULL,
    activity_type TEXT NOT NULL,
    tool_name     TEXT,
    entity_id     TEXT REFERENCES entities (id) ON DELETE SET NULL,
    success       INTEGER CHECK (success IS NULL OR success IN (0, 1)),
    detail        TEXT NOT NULL DEFAULT '{}' CHECK (json_valid(detail)),
    created_at    TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
);
CREATE INDEX agent_activity_by_entity ON agent_activity (entity_id, id);
CREATE INDEX agent_activity_by_task ON agent_activity (task_id, id);

CREATE TABLE signals (
    id              TEXT PRIMARY KEY,
    entity_id       TEXT REFERENCES entities (id) ON DELETE CASCADE,
    kind            TEXT NOT NULL,
    severity        TEXT NOT NULL CHECK (severity IN ('info', 'warning', 'critical')),
    state           TEXT NOT NULL DEFAULT 'raised'
                    CHECK (state IN ('raised', 'acknowledged', 'acting', 'resolved', 'muted')),
    message         TEXT NOT NULL DEFAULT '',
    detail          TEXT NOT NULL DEFAULT '{}' CHECK (json_valid(detail)),
    -- Identifies "the same problem" so a repeating check updates one signal instead of flooding.
    fingerprint     TEXT NOT NULL,
    occurrences     INTEGER NOT NULL DEFAULT 1,
    muted_until     TEXT,
    raised_at       TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
    last_seen_at    TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
    acknowledged_at TEXT,
    resolved_at     TEXT
);
CREATE UNIQUE INDEX signals_open_fingerprint ON signals (fingerprint) WHERE state <> 'resolved';
CREATE INDEX signals_by_entity ON signals (entity_id, raised_at);

-- Scheduled read-only health checks; their commands pass the same gate as everything else.
CREATE TABLE checks (
    id          TEXT PRIMARY KEY,
    target_slug TEXT NOT NULL,
    name        TEXT NOT NULL,
    command     TEXT NOT NULL,
    interval_s  INTEGER NOT NULL DEFAULT 300 CHECK (interval_s >= 10),
    enabled     INTEGER NOT NULL DEFAULT 1 CHECK (enabled IN (0, 1)),
    last_run_at TEXT,
    last_status TEXT,
    created_at  TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
    UNIQUE (target_slug, name)
);

CREATE TABLE metrics (
    id        INTEGER PRIMARY KEY,
    entity_id TEXT NOT NULL REFERENCES entities (id) ON DELETE CASCADE,
    name      TEXT NOT NULL,
    value     REAL NOT NULL,
    unit      TEXT NOT NULL DEFAULT '',
    at        TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
);
CREATE INDEX metrics_by_series ON metrics (entity_id, name, at);
