-- litaudit schema 011: the code an audit was computed by. An identical call hands back a
-- stored audit only when the same code made it: a digest of litaudit's own source
-- (litaudit.analyses.audits.code_digest), since the version number alone (0.1.0) does not
-- change when what an audit computes or says does. Audits stored before have none and are
-- never handed back (they stay listed and shown).
-- Applied by litaudit.store.migrations in one transaction.

ALTER TABLE audits ADD COLUMN code_digest VARCHAR;  -- sha256 of the package's .py files (NULL: unknown)
