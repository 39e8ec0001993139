-- Discovery: a guest, node or storage that Proxmox no longer lists is `gone`, not destroyed — kept
-- with its history, and it continues that history if it comes back. SQLite cannot change a CHECK
-- constraint in place, so the table is rebuilt (foreign keys are off while migrations run; the
-- store checks every reference afterwards) and its index and triggers are made again.
CREATE TABLE entities_new (
    id         TEXT PRIMARY KEY,
    slug       TEXT NOT NULL UNIQUE,
    type       TEXT NOT NULL REFERENCES entity_types (name),
    name       TEXT NOT NULL,
    attributes TEXT NOT NULL DEFAULT '{}'
               CHECK (json_valid(attributes) AND json_type(attributes) = 'object'),
    -- Lifecycle, not health: 'destroyed' (by an action) and 'gone' (no longer seen by discovery)
    -- entities are kept for history and refused as targets.
    state      TEXT NOT NULL DEFAULT 'active'
               CHECK (state IN ('active', 'provisioning', 'stopped', 'destroyed', 'gone')),
    search     TEXT NOT NULL DEFAULT '',
    created_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
    updated_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
);
INSERT INTO entities_new (id, slug, type, name, attributes, state, search, created_at, updated_at)
    SELECT id, slug, type, name, attributes, state, search, created_at, updated_at FROM entities;
DROP TABLE entities;
ALTER TABLE entities_new RENAME TO entities;
CREATE INDEX entities_by_type ON entities (type, slug);

CREATE TRIGGER graph_version_entity_insert AFTER INSERT ON entities BEGIN
    UPDATE graph_version SET version = version + 1;
END;
CREATE TRIGGER graph_version_entity_update AFTER UPDATE OF id, slug, type, name, state ON entities
WHEN old.id IS NOT new.id OR old.slug IS NOT new.slug OR old.type IS NOT new.type OR old.name IS NOT new.name
  OR old.state IS NOT new.state
BEGIN
    UPDATE graph_version SET version = version + 1;
END;
CREATE TRIGGER graph_version_entity_delete AFTER DELETE ON entities BEGIN
    UPDATE graph_version SET version = version + 1;
END;
