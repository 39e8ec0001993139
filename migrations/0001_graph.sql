-- The knowledge graph: ontology tables, entities, temporal relationships and observed status.
--
-- Conventions for every table in this schema:
--   * ids are UUID strings, except append-only logs, which use INTEGER AUTOINCREMENT for a
--     monotonic order;
--   * timestamps are UTC text `YYYY-MM-DDTHH:MM:SS.sssZ`, one format everywhere, so they sort and
--     compare as strings;
--   * JSON columns are checked with json_valid so a bad write fails at the statement, not later.

-- Mirrors seeds/ontology.yaml; rewritten (upserted) at every start.
CREATE TABLE entity_types (
    name        TEXT PRIMARY KEY,
    parent      TEXT,
    abstract    INTEGER NOT NULL DEFAULT 0 CHECK (abstract IN (0, 1)),
    domain      TEXT NOT NULL DEFAULT '',
    description TEXT NOT NULL DEFAULT ''
);

CREATE TABLE relationship_types (
    name         TEXT PRIMARY KEY,
    inverse      TEXT NOT NULL,
    source_types TEXT NOT NULL CHECK (json_valid(source_types)),
    target_types TEXT NOT NULL CHECK (json_valid(target_types)),
    cardinality  TEXT NOT NULL CHECK (cardinality IN ('one-to-one', 'one-to-many', 'many-to-one', 'many-to-many')),
    impact       TEXT NOT NULL CHECK (impact IN ('source-to-target', 'target-to-source', 'none')),
    description  TEXT NOT NULL DEFAULT ''
);

CREATE TABLE entities (
    id         TEXT PRIMARY KEY,
    slug       TEXT NOT NULL UNIQUE,
    type       TEXT NOT NULL REFERENCES entity_types (name),
    name       TEXT NOT NULL,
    attributes TEXT NOT NULL DEFAULT '{}'
               CHECK (json_valid(attributes) AND json_type(attributes) = 'object'),
    -- Lifecycle, not health: 'destroyed' entities are kept for history and refused as targets.
    state      TEXT NOT NULL DEFAULT 'active'
               CHECK (state IN ('active', 'provisioning', 'stopped', 'destroyed')),
    -- Slug and name case-folded by the engine (SQLite's lower() folds ASCII only), for the
    -- case-insensitive text filter.
    search     TEXT NOT NULL DEFAULT '',
    created_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
    updated_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
);
CREATE INDEX entities_by_type ON entities (type, slug);

-- Temporal edges: a relationship is current while valid_to IS NULL. Ending one sets valid_to and
-- keeps the row, so the graph's history stays queryable.
CREATE TABLE relationships (
    id         TEXT PRIMARY KEY,
    type       TEXT NOT NULL REFERENCES relationship_types (name),
    source_id  TEXT NOT NULL REFERENCES entities (id) ON DELETE CASCADE,
    target_id  TEXT NOT NULL REFERENCES entities (id) ON DELETE CASCADE,
    properties TEXT NOT NULL DEFAULT '{}'
               CHECK (json_valid(properties) AND json_type(properties) = 'object'),
    valid_from TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
    valid_to   TEXT,
    CHECK (source_id <> target_id),
    CHECK (valid_to IS NULL OR valid_to >= valid_from)
);
-- At most one current edge per (type, source, target): creating it again is a no-op.
CREATE UNIQUE INDEX relationships_current ON relationships (type, source_id, target_id) WHERE valid_to IS NULL;
CREATE INDEX relationships_by_source ON relationships (source_id, valid_to);
CREATE INDEX relationships_by_target ON relationships (target_id, valid_to);

-- Latest observed health per entity. Freshness is derived at read time from last_check_at and
-- stale_after_s, so it can never be stale itself.
CREATE TABLE entity_status (
    entity_id      TEXT PRIMARY KEY REFERENCES entities (id) ON DELETE CASCADE,
    health         TEXT NOT NULL DEFAULT 'unknown'
                   CHECK (health IN ('healthy', 'degraded', 'down', 'unknown')),
    detail         TEXT NOT NULL DEFAULT '',
    last_check_at  TEXT,
    last_change_at TEXT,
    stale_after_s  INTEGER NOT NULL DEFAULT 900 CHECK (stale_after_s > 0)
);
CREATE INDEX entity_status_by_health ON entity_status (health);
