-- litaudit schema 012: the reference noise of a collection and measure, with its source.
-- Measured from a per-topic score matrix of runs on the collection (seeds/noise.py derives
-- the rows of seeds/reference_noise.json from Urbano's archives; `litaudit init` loads
-- them): the interaction se sqrt(MS_interaction / n) of one run's mean over n_topics
-- topics, and each run's residual sd (runs differ in noise). Extreme-value audits use it
-- by default where no run archive of the collection is stored
-- (litaudit.analyses.extreme.noise). collection_id is not a foreign key: a row may name a
-- collection the store does not hold yet (it applies once the collection is added).
-- Applied by litaudit.store.migrations in one transaction.

CREATE TABLE reference_noise (
    collection_id  VARCHAR NOT NULL,
    measure        VARCHAR NOT NULL,          -- canonical (ir_measures syntax)
    n_topics       INTEGER NOT NULL CHECK (n_topics >= 2),
    n_runs         INTEGER NOT NULL CHECK (n_runs >= 2),
    se             DOUBLE NOT NULL CHECK (se > 0),
    ms_interaction DOUBLE NOT NULL CHECK (ms_interaction > 0),
    mean           DOUBLE NOT NULL,           -- the matrix's grand mean
    residual_sds   DOUBLE[] NOT NULL,         -- one per run
    source         VARCHAR NOT NULL,          -- what was measured, on which file, whose
    PRIMARY KEY (collection_id, measure, n_topics)
);
