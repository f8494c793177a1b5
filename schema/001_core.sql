-- litaudit schema 001: reference data, papers, published results, history, audits.
-- Applied by litaudit.store.migrations in one transaction and recorded in _migrations.

CREATE TABLE collections (
    id           VARCHAR PRIMARY KEY,          -- ir_datasets id where one exists, else a local id
    name         VARCHAR NOT NULL UNIQUE,      -- short name, e.g. robust04
    title        VARCHAR NOT NULL,
    documents    VARCHAR NOT NULL,             -- e.g. 'TREC disks 4 and 5 minus CR'
    ir_datasets  BOOLEAN NOT NULL DEFAULT FALSE,
    notes        VARCHAR
);

CREATE TABLE collection_aliases (
    alias         VARCHAR PRIMARY KEY,         -- stored lower-case; lookups are case-insensitive
    collection_id VARCHAR NOT NULL REFERENCES collections(id)
);

CREATE TABLE topic_sets (
    collection_id VARCHAR NOT NULL REFERENCES collections(id),
    name          VARCHAR NOT NULL,            -- e.g. '351-400' or 'judged'
    n_topics      INTEGER NOT NULL CHECK (n_topics > 0),
    is_default    BOOLEAN NOT NULL DEFAULT FALSE,
    description   VARCHAR,
    PRIMARY KEY (collection_id, name)
);

CREATE TABLE measures (
    name        VARCHAR PRIMARY KEY,           -- ir_measures syntax: AP, P@10, nDCG@20, Rprec
    family      VARCHAR NOT NULL,              -- AP, P, nDCG, R, RR, Rprec, bpref
    cutoff      INTEGER,
    min_value   DOUBLE NOT NULL,
    max_value   DOUBLE NOT NULL,
    description VARCHAR NOT NULL
);

CREATE TABLE measure_aliases (
    alias   VARCHAR PRIMARY KEY,               -- lower-case; MAP, map, P_10, ndcg_cut_20 ...
    measure VARCHAR NOT NULL REFERENCES measures(name)
);

CREATE SEQUENCE papers_id_seq START 1;
CREATE TABLE papers (
    id        INTEGER PRIMARY KEY DEFAULT nextval('papers_id_seq'),
    bibkey    VARCHAR NOT NULL UNIQUE,
    citation  VARCHAR NOT NULL,               -- short citation, e.g. 'Liu et al. (CIKM 2005)'
    title     VARCHAR,
    authors   VARCHAR,
    venue     VARCHAR,
    year      INTEGER CHECK (year IS NULL OR year BETWEEN 1950 AND 2100),
    doi       VARCHAR,
    url       VARCHAR,
    tags      VARCHAR,                        -- comma-separated, e.g. 'neural'
    notes     VARCHAR,
    created_at TIMESTAMP NOT NULL DEFAULT current_timestamp
);

CREATE SEQUENCE results_id_seq START 1;
CREATE TABLE results (
    id             INTEGER PRIMARY KEY DEFAULT nextval('results_id_seq'),
    source         VARCHAR NOT NULL CHECK (source IN ('paper', 'official')),
    paper_id       INTEGER REFERENCES papers(id),
    track          VARCHAR,                   -- official results: TREC edition/track/task, e.g. trec7/adhoc
    collection_id  VARCHAR NOT NULL REFERENCES collections(id),
    topic_set      VARCHAR,
    n_topics       INTEGER NOT NULL CHECK (n_topics > 0),
    measure        VARCHAR NOT NULL REFERENCES measures(name),
    value          DOUBLE NOT NULL,           -- numeric value (DOUBLE: never float32)
    value_text     VARCHAR NOT NULL,          -- exactly as printed: '0.2531', '0.30'
    system         VARCHAR NOT NULL,          -- system label or TREC run id
    participant    VARCHAR,                   -- TREC group / site
    role           VARCHAR NOT NULL CHECK (role IN ('proposed', 'baseline', 'official', 'reproduction')),
    run_type       VARCHAR CHECK (run_type IS NULL OR run_type IN ('automatic', 'manual')),
    year           INTEGER NOT NULL CHECK (year BETWEEN 1950 AND 2100),
    standard       BOOLEAN NOT NULL DEFAULT TRUE,   -- standard experimental setting for the collection
    location       VARCHAR,                   -- table / figure / page in the source
    transcribed_by VARCHAR NOT NULL,
    transcribed_at DATE NOT NULL,
    status         VARCHAR NOT NULL DEFAULT 'draft' CHECK (status IN ('draft', 'verified', 'retracted')),
    notes          VARCHAR,
    created_at     TIMESTAMP NOT NULL DEFAULT current_timestamp,
    updated_at     TIMESTAMP NOT NULL DEFAULT current_timestamp,
    CHECK ((source = 'paper' AND paper_id IS NOT NULL) OR (source = 'official' AND track IS NOT NULL))
);
CREATE UNIQUE INDEX results_natural_key
    ON results (source, COALESCE(paper_id, -1), COALESCE(track, ''), collection_id, n_topics, measure, system, role);

CREATE SEQUENCE history_id_seq START 1;
CREATE TABLE history (
    id        INTEGER PRIMARY KEY DEFAULT nextval('history_id_seq'),
    entity    VARCHAR NOT NULL CHECK (entity IN ('result', 'paper')),
    entity_id INTEGER NOT NULL,
    action    VARCHAR NOT NULL CHECK (action IN ('create', 'edit', 'verify', 'retract', 'import')),
    field     VARCHAR,
    old_value VARCHAR,
    new_value VARCHAR,
    reason    VARCHAR,
    who       VARCHAR NOT NULL,
    changed_at TIMESTAMP NOT NULL DEFAULT current_timestamp
);

CREATE SEQUENCE audits_id_seq START 1;
CREATE TABLE audits (
    id                INTEGER PRIMARY KEY DEFAULT nextval('audits_id_seq'),
    kind              VARCHAR NOT NULL,       -- best, claim, history, reuse-rao, reuse-lou, ...
    collection_id     VARCHAR NOT NULL REFERENCES collections(id),
    measure           VARCHAR,
    params            VARCHAR NOT NULL,       -- canonical JSON of the parameters
    method            VARCHAR NOT NULL,       -- exact, montecarlo, ...
    seed              BIGINT,
    trials            INTEGER,
    input_fingerprint VARCHAR NOT NULL,       -- sha256 of the canonical input rows
    software_version  VARCHAR NOT NULL,
    result            VARCHAR NOT NULL,       -- canonical JSON of the result
    created_at        TIMESTAMP NOT NULL DEFAULT current_timestamp
);
