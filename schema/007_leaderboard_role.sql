-- litaudit schema 007: the role `leaderboard`, a submission to a leaderboard that anyone
-- may enter (MTEB), kept apart from `official`, a track's evaluation of submitted runs
-- (issue 21, item 5). DuckDB cannot alter a CHECK constraint, so the results table is
-- built again with the wider one; its rows, ids and natural-key index are kept. No other
-- table references results (history names rows by id).

CREATE TABLE results_007 (
    id             INTEGER PRIMARY KEY DEFAULT nextval('results_id_seq'),
    source         VARCHAR NOT NULL CHECK (source IN ('paper', 'official')),
    paper_id       INTEGER REFERENCES papers(id),
    track          VARCHAR,
    collection_id  VARCHAR NOT NULL REFERENCES collections(id),
    topic_set      VARCHAR,
    n_topics       INTEGER NOT NULL CHECK (n_topics > 0),
    measure        VARCHAR NOT NULL REFERENCES measures(name),
    value          DOUBLE NOT NULL,
    value_text     VARCHAR NOT NULL,
    system         VARCHAR NOT NULL,
    participant    VARCHAR,
    role           VARCHAR NOT NULL
        CHECK (role IN ('proposed', 'baseline', 'official', 'reproduction', 'leaderboard')),
    run_type       VARCHAR CHECK (run_type IS NULL OR run_type IN ('automatic', 'manual')),
    year           INTEGER NOT NULL CHECK (year BETWEEN 1950 AND 2100),
    standard       BOOLEAN NOT NULL DEFAULT TRUE,
    location       VARCHAR,
    transcribed_by VARCHAR NOT NULL,
    transcribed_at DATE NOT NULL,
    status         VARCHAR NOT NULL DEFAULT 'draft' CHECK (status IN ('draft', 'verified', 'retracted')),
    notes          VARCHAR,
    created_at     TIMESTAMP NOT NULL DEFAULT current_timestamp,
    updated_at     TIMESTAMP NOT NULL DEFAULT current_timestamp,
    date           DATE,
    reporter       VARCHAR,
    url            VARCHAR,
    code_url       VARCHAR,
    CHECK ((source = 'paper' AND paper_id IS NOT NULL) OR (source = 'official' AND track IS NOT NULL))
);
INSERT INTO results_007 SELECT id, source, paper_id, track, collection_id, topic_set, n_topics,
    measure, value, value_text, system, participant, role, run_type, year, standard, location,
    transcribed_by, transcribed_at, status, notes, created_at, updated_at, date, reporter, url,
    code_url FROM results ORDER BY id;
DROP INDEX results_natural_key;
DROP TABLE results;
ALTER TABLE results_007 RENAME TO results;
CREATE UNIQUE INDEX results_natural_key
    ON results (source, COALESCE(paper_id, -1), COALESCE(track, ''), collection_id, n_topics, measure, system, role);

-- Whether a leaderboard model was trained on a collection's data, as the model's own
-- metadata declares it (MTEB's model registry, read once by seeds/mteb_models.py): one row
-- per model (results.system) and collection; no row: not declared (unknown). Reference
-- data: `litaudit init` replaces the rows with those of seeds/zero_shot.csv.gz.
CREATE TABLE zero_shot (
    system        VARCHAR NOT NULL,
    collection_id VARCHAR NOT NULL,
    zero_shot     BOOLEAN NOT NULL,          -- false: its training data hold this collection's task
    trained_on    VARCHAR,                   -- the tasks of the collection it declares (space-separated)
    source        VARCHAR NOT NULL           -- where the declaration was read
);
