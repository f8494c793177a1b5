-- litaudit schema 002: TREC run archives (qrels, runs, rankings) per collection.
-- Written by litaudit.runs.archive; rankings and qrels hold integer topic and document ids
-- (run_topics, run_docs) so that an archive of millions of lines stays compact and loads
-- without string work.

CREATE TABLE run_topics (                    -- the topics of a collection's runs and qrels
    collection_id VARCHAR NOT NULL,
    topic_id      INTEGER NOT NULL,          -- dense, 0-based, in order of first import
    topic         VARCHAR NOT NULL           -- unique per collection (kept so by the importer)
);

CREATE TABLE run_docs (                      -- the docnos seen in a collection's runs and qrels
    collection_id VARCHAR NOT NULL,
    doc_id        INTEGER NOT NULL,          -- dense, 0-based; a first import numbers its
                                             -- docnos in byte (strcmp) order, later ones append
    docno         VARCHAR NOT NULL           -- unique per collection (kept so by the importer;
        USING COMPRESSION uncompressed       -- no index, and no compression analysis: bulk
);                                           -- inserts stay fast, 2x the bytes of FSST)

CREATE TABLE run_qrels_files (               -- the qrels file a collection's qrels came from
    collection_id VARCHAR PRIMARY KEY REFERENCES collections(id),
    path          VARCHAR NOT NULL,
    sha256        VARCHAR NOT NULL,          -- of the file's bytes as read (compressed or not)
    n_judgments   INTEGER NOT NULL,
    n_topics      INTEGER NOT NULL,
    imported_at   TIMESTAMP NOT NULL DEFAULT current_timestamp
);

CREATE TABLE run_qrels (                     -- one row per judgment
    collection_id VARCHAR NOT NULL,
    topic_id      INTEGER NOT NULL,
    doc_id        INTEGER NOT NULL,
    rel           INTEGER NOT NULL
);

CREATE SEQUENCE runs_id_seq START 1;
CREATE TABLE runs (
    id            INTEGER PRIMARY KEY DEFAULT nextval('runs_id_seq'),
    collection_id VARCHAR NOT NULL REFERENCES collections(id),
    tag           VARCHAR NOT NULL,          -- the run tag (last column of the run file)
    participant   VARCHAR,                   -- site / group
    run_type      VARCHAR CHECK (run_type IS NULL OR run_type IN ('automatic', 'manual')),
    pooled        BOOLEAN,                   -- contributed to the judgment pool (NULL = unknown)
    path          VARCHAR NOT NULL,
    sha256        VARCHAR NOT NULL,          -- of the file's bytes as read
    n_lines       INTEGER NOT NULL,          -- ranking lines stored
    n_skipped     INTEGER NOT NULL DEFAULT 0, -- bad lines skipped under --lenient
    n_topics      INTEGER NOT NULL,
    imported_at   TIMESTAMP NOT NULL DEFAULT current_timestamp,
    UNIQUE (collection_id, tag)
);

CREATE TABLE run_rankings (                  -- one row per retrieved document (rank column dropped),
    run_id   INTEGER NOT NULL,                 -- each run's rows stored in trec_eval order: topic,
    topic_id INTEGER NOT NULL,                 -- score (as float32) descending, docno descending
    doc_id   INTEGER NOT NULL,
    score    DOUBLE NOT NULL
);
