-- litaudit schema 006: `results reinstate` (a retracted result made a draft again, with a
-- reason) recorded as its own history action. DuckDB cannot alter a CHECK constraint, so
-- the history table is built again with the wider one; its rows and ids are kept.

CREATE TABLE history_006 (
    id        INTEGER PRIMARY KEY DEFAULT nextval('history_id_seq'),
    entity    VARCHAR NOT NULL CHECK (entity IN ('result', 'paper')),
    entity_id INTEGER NOT NULL,
    action    VARCHAR NOT NULL
        CHECK (action IN ('create', 'edit', 'verify', 'retract', 'reinstate', 'import')),
    field     VARCHAR,
    old_value VARCHAR,
    new_value VARCHAR,
    reason    VARCHAR,
    who       VARCHAR NOT NULL,
    changed_at TIMESTAMP NOT NULL DEFAULT current_timestamp
);
INSERT INTO history_006 SELECT id, entity, entity_id, action, field, old_value, new_value,
    reason, who, changed_at FROM history ORDER BY id;
DROP TABLE history;
ALTER TABLE history_006 RENAME TO history;
