-- litaudit schema 015: the history of a collection's recorded pool depth (issue 31).
-- `litaudit collections depth` records a depth with its source; the value in force stays
-- in pool_depths (005), every recording is kept here, oldest first, with the value it
-- replaced (a seeded one included), who made it, when and why. The `history` table (001) keys its
-- entries by integer ids of results and papers; a collection's id is text.

CREATE SEQUENCE pool_depth_history_id_seq START 1;
CREATE TABLE pool_depth_history (
    id            INTEGER PRIMARY KEY DEFAULT nextval('pool_depth_history_id_seq'),
    collection_id VARCHAR NOT NULL,           -- collections.id
    old_depth     INTEGER,                    -- NULL: none was recorded
    old_source    VARCHAR,
    depth         INTEGER NOT NULL CHECK (depth >= 1),
    source        VARCHAR NOT NULL,
    reason        VARCHAR,
    who           VARCHAR NOT NULL,
    changed_at    TIMESTAMP NOT NULL
);
