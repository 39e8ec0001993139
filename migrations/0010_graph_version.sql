-- A counter that moves whenever the part of the graph the blast radius reads changes: an entity's
-- identity, name or lifecycle state, or a relationship's type, endpoints or end. Triggers keep it,
-- so it moves in whichever process writes; a process holding the graph in memory compares it with
-- the version it built from and rebuilds when they differ. Attribute, property and health changes
-- leave it alone: they do not change who is affected.
CREATE TABLE graph_version (
    id      INTEGER PRIMARY KEY CHECK (id = 1),
    version INTEGER NOT NULL
);
INSERT INTO graph_version (id, version) VALUES (1, 0);

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

CREATE TRIGGER graph_version_relationship_insert AFTER INSERT ON relationships BEGIN
    UPDATE graph_version SET version = version + 1;
END;
CREATE TRIGGER graph_version_relationship_update AFTER UPDATE OF type, source_id, target_id, valid_to ON relationships
WHEN old.type IS NOT new.type OR old.source_id IS NOT new.source_id OR old.target_id IS NOT new.target_id
  OR old.valid_to IS NOT new.valid_to
BEGIN
    UPDATE graph_version SET version = version + 1;
END;
CREATE TRIGGER graph_version_relationship_delete AFTER DELETE ON relationships BEGIN
    UPDATE graph_version SET version = version + 1;
END;
