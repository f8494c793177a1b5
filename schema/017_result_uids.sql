-- litaudit schema 017: a result's identity, the same in every clone of a store folder
-- (issue 33). The local id (results.id) is a number from this database's sequence: two
-- databases synced from one folder number their results differently. ``uid`` is 'r-' and
-- 16 hex digits of the SHA-256 of the result's natural key when it was created (source,
-- bibkey, track, collection, topics, measure, system, role, joined by U+001F): the same in
-- every database that creates or seeds the same result, kept when the key is edited since,
-- and carried by the store folder (a synced result takes the folder's).
-- litaudit.store.results.fill_uids gives new rows theirs with the same expression.
-- Applied by litaudit.store.migrations in one transaction.

ALTER TABLE results ADD COLUMN uid VARCHAR;  -- r-0123456789abcdef (NULL only before fill_uids)
UPDATE results SET uid = k.uid
FROM (
    SELECT r.id,
           'r-' || substr(sha256(concat_ws(chr(31), r.source, coalesce(p.bibkey, ''),
               coalesce(r.track, ''), r.collection_id, CAST(r.n_topics AS VARCHAR), r.measure,
               r.system, r.role)), 1, 16) AS uid
    FROM results r LEFT JOIN papers p ON p.id = r.paper_id
) k
WHERE results.id = k.id;
