-- The knowledge base. Every note is also an entity (type document | investigation | runbook) so it
-- can be linked into the graph (`documents`, `produced-by`); this table holds its body.
CREATE TABLE knowledge (
    -- An explicit INTEGER PRIMARY KEY: the FTS index refers to rows by rowid, and an implicit
    -- rowid may be renumbered by VACUUM.
    id         INTEGER PRIMARY KEY,
    entity_id  TEXT NOT NULL UNIQUE REFERENCES entities (id) ON DELETE CASCADE,
    kind       TEXT NOT NULL CHECK (kind IN ('investigation', 'document', 'runbook')),
    title      TEXT NOT NULL CHECK (length(trim(title)) > 0),
    content    TEXT NOT NULL DEFAULT '',
    -- Where it came from: a URL, a task slug, "inventory", free text.
    source     TEXT NOT NULL DEFAULT '',
    author     TEXT NOT NULL DEFAULT 'operator' CHECK (author IN ('operator', 'agent', 'system')),
    tags       TEXT NOT NULL DEFAULT '[]' CHECK (json_valid(tags) AND json_type(tags) = 'array'),
    created_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
    updated_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
);
-- (kind, title) identifies a note: writing the same title again updates it instead of adding a
-- near-duplicate. Case does not make a different note.
CREATE UNIQUE INDEX knowledge_identity ON knowledge (kind, title COLLATE NOCASE);
CREATE INDEX knowledge_by_updated ON knowledge (updated_at DESC);

CREATE VIRTUAL TABLE knowledge_fts USING fts5 (
    title, content, tags,
    content = 'knowledge', content_rowid = 'id',
    tokenize = 'porter unicode61 remove_diacritics 2'
);

CREATE TRIGGER knowledge_fts_insert AFTER INSERT ON knowledge BEGIN
    INSERT INTO knowledge_fts (rowid, title, content, tags) VALUES (new.id, new.title, new.content, new.tags);
END;
CREATE TRIGGER knowledge_fts_delete AFTER DELETE ON knowledge BEGIN
    INSERT INTO knowledge_fts (knowledge_fts, rowid, title, content, tags)
    VALUES ('delete', old.id, old.title, old.content, old.tags);
END;
CREATE TRIGGER knowledge_fts_update AFTER UPDATE OF title, content, tags ON knowledge BEGIN
    INSERT INTO knowledge_fts (knowledge_fts, rowid, title, content, tags)
    VALUES ('delete', old.id, old.title, old.content, old.tags);
    INSERT INTO knowledge_fts (rowid, title, content, tags) VALUES (new.id, new.title, new.content, new.tags);
END;
