-- Observe: metrics in tiers with integer series ids, signals with their lifecycle, and the last
-- result of every probe (so polling does not grow the ledger).

-- The narrow table (a row per value, text keys and times) goes: nothing ever wrote it.
DROP TABLE metrics;

-- One row per (entity, metric); samples refer to it by its integer id.
CREATE TABLE series (
    id        INTEGER PRIMARY KEY,
    entity_id TEXT NOT NULL REFERENCES entities (id) ON DELETE CASCADE,
    name      TEXT NOT NULL,
    unit      TEXT NOT NULL DEFAULT '',
    UNIQUE (entity_id, name)
);

-- Values are stored as integers in hundredths (a percentage 93.25 is 9325): SQLite keeps small
-- integers in one to three bytes where a REAL always takes eight. Times are seconds since the epoch.
-- Raw samples at the collection cycle, kept 2 h.
CREATE TABLE samples_raw (
    series_id INTEGER NOT NULL REFERENCES series (id) ON DELETE CASCADE,
    at        INTEGER NOT NULL,
    v         INTEGER NOT NULL,
    PRIMARY KEY (series_id, at)
) WITHOUT ROWID;

-- 1-minute average and maximum, kept 48 h.
CREATE TABLE samples_1m (
    series_id INTEGER NOT NULL REFERENCES series (id) ON DELETE CASCADE,
    at        INTEGER NOT NULL,
    avg       INTEGER NOT NULL,
    max       INTEGER NOT NULL,
    PRIMARY KEY (series_id, at)
) WITHOUT ROWID;

-- 1-hour minimum, average and maximum, kept 400 days.
CREATE TABLE samples_1h (
    series_id INTEGER NOT NULL REFERENCES series (id) ON DELETE CASCADE,
    at        INTEGER NOT NULL,
    min       INTEGER NOT NULL,
    avg       INTEGER NOT NULL,
    max       INTEGER NOT NULL,
    PRIMARY KEY (series_id, at)
) WITHOUT ROWID;

-- How far each tier has been rolled up (seconds): the next rollup starts there, so it reads only
-- what is new, and a gap (the app was off) is filled as far as the tier below still reaches.
CREATE TABLE rollup_marks (
    tier TEXT PRIMARY KEY CHECK (tier IN ('1m', '1h')),
    upto INTEGER NOT NULL
);

-- Signals with the states the operator works with. Nothing wrote the old table; it is made anew.
DROP TABLE signals;
CREATE TABLE signals (
    id            TEXT PRIMARY KEY,
    entity_id     TEXT REFERENCES entities (id) ON DELETE CASCADE,
    kind          TEXT NOT NULL,
    severity      TEXT NOT NULL CHECK (severity IN ('info', 'warning', 'critical')),
    state         TEXT NOT NULL DEFAULT 'open' CHECK (state IN ('open', 'acked', 'muted', 'resolved')),
    flapping      INTEGER NOT NULL DEFAULT 0 CHECK (flapping IN (0, 1)),
    message       TEXT NOT NULL DEFAULT '',
    value         REAL,
    -- "The same problem": a repeat updates one signal instead of opening another.
    fingerprint   TEXT NOT NULL,
    occurrences   INTEGER NOT NULL DEFAULT 1,
    raised_at     TEXT NOT NULL,
    last_seen_at  TEXT NOT NULL,
    -- The condition cleared (the signal stays open a moment for a re-fire to rejoin it).
    cleared_at    TEXT,
    acked_at      TEXT,
    acked_by      TEXT,
    ack_reason    TEXT,
    muted_until   TEXT,
    resolved_at   TEXT,
    resolved_by   TEXT,
    suppressed_by TEXT,
    maintenance   TEXT,
    -- When a notification last went out for it (at most one per 30 min; a reminder after 4 h).
    notified_at   TEXT
);
CREATE UNIQUE INDEX signals_open_fingerprint ON signals (fingerprint) WHERE state <> 'resolved';
CREATE INDEX signals_by_entity ON signals (entity_id, raised_at);
CREATE INDEX signals_by_fingerprint ON signals (fingerprint, resolved_at);

-- The last result of each probe: a poll that ends as the one before it writes only here.
CREATE TABLE probe_results (
    key          TEXT PRIMARY KEY,
    target       TEXT NOT NULL,
    command      TEXT NOT NULL,
    status       TEXT NOT NULL,
    exit_code    INTEGER,
    error        TEXT,
    output       TEXT NOT NULL DEFAULT '',
    runs         INTEGER NOT NULL DEFAULT 1,
    failures     INTEGER NOT NULL DEFAULT 0,
    last_run_at  TEXT NOT NULL,
    changed_at   TEXT NOT NULL,
    -- The execution that recorded the last change (a failure, a recovery).
    execution_id TEXT
);

-- Checks say what they look at; the command is derived from it and judged by the gate.
DROP TABLE checks;
CREATE TABLE checks (
    id              TEXT PRIMARY KEY,
    entity_id       TEXT NOT NULL REFERENCES entities (id) ON DELETE CASCADE,
    name            TEXT NOT NULL,
    spec            TEXT NOT NULL CHECK (json_valid(spec)),
    interval_s      INTEGER NOT NULL DEFAULT 60 CHECK (interval_s >= 30),
    enabled         INTEGER NOT NULL DEFAULT 1 CHECK (enabled IN (0, 1)),
    last_run_at     TEXT,
    last_status     TEXT,
    last_detail     TEXT,
    last_latency_ms REAL,
    -- Failed runs in a row (0 after a success).
    failures        INTEGER NOT NULL DEFAULT 0,
    created_at      TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
    UNIQUE (entity_id, name)
);
