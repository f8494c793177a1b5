-- litaudit schema 003: dated results, who reported them, their links; collections'
-- provenance. Applied by litaudit.store.migrations in one transaction. Rows stored before
-- this migration keep their year and have no date (NULL = not known).

ALTER TABLE results ADD COLUMN date DATE;          -- publication or submission date, where known
ALTER TABLE results ADD COLUMN reporter VARCHAR;   -- who produced the number: authors, nist, leaderboard, mteb, unknown
ALTER TABLE results ADD COLUMN url VARCHAR;        -- the result's own source (paper, leaderboard entry), http(s)
ALTER TABLE results ADD COLUMN code_url VARCHAR;   -- its code, http(s)
ALTER TABLE collections ADD COLUMN provenance VARCHAR;  -- where the id, title and query count were read
