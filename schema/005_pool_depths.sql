-- litaudit schema 005: the pool depth of a collection's judgments, with where it is stated
-- (a track overview or a paper's table). A collection without a row has no recorded depth:
-- `reuse verdict` then shows the shift at every depth and decides nothing.
-- Rows come from seeds/collections.json ("pool_depth"), loaded by `litaudit init`.

CREATE TABLE pool_depths (
    collection_id VARCHAR PRIMARY KEY,        -- collections.id
    depth         INTEGER NOT NULL CHECK (depth >= 1),
    source        VARCHAR NOT NULL            -- citation with table or section
);
