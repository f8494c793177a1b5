-- litaudit schema 004: evaluations of stored run archives, kept with the archive's fingerprint
-- (litaudit.runs.evalcache) so that a repeated `runs eval` does not compute them again.
-- Rows of another fingerprint are never read; importing or deleting runs or qrels deletes
-- a collection's rows.

CREATE TABLE run_eval_runs (                 -- a run evaluated on a measure
    collection_id VARCHAR NOT NULL,
    fingerprint   VARCHAR NOT NULL,          -- of the archive as it was evaluated
    measure       VARCHAR NOT NULL,          -- canonical name (litaudit.measures)
    rel_level     INTEGER NOT NULL,          -- trec_eval -l
    complete      BOOLEAN NOT NULL,          -- trec_eval -c
    run           VARCHAR NOT NULL,          -- run tag
    computed_at   TIMESTAMP NOT NULL DEFAULT current_timestamp
);

CREATE TABLE run_eval_topics (               -- its value on each topic evaluated for it
    collection_id VARCHAR NOT NULL,
    fingerprint   VARCHAR NOT NULL,
    measure       VARCHAR NOT NULL,
    rel_level     INTEGER NOT NULL,
    complete      BOOLEAN NOT NULL,
    run           VARCHAR NOT NULL,
    topic         VARCHAR NOT NULL,
    value         DOUBLE NOT NULL
);
