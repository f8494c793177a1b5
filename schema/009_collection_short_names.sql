-- litaudit schema 009: one naming rule for short names (README "Collection names"): every BEIR
-- collection answers to beir-<its dataset in the ir_datasets id> (beir-scifact,
-- beir-cqadupstack-android). A new database gets these as the collections' short names
-- (seeds/collections.json); here a database seeded before gets them as aliases, and keeps
-- its old short names (scifact, arguana, ...), which stay aliases in users' files. (The
-- short name itself is not updated: DuckDB refuses an UPDATE of a row that other tables
-- reference.) On a database without these collections nothing is added.
INSERT INTO collection_aliases (alias, collection_id)
SELECT v.alias, v.collection_id
FROM (VALUES
    ('beir-arguana', 'beir/arguana'),
    ('beir-climate-fever', 'beir/climate-fever'),
    ('beir-dbpedia-entity', 'beir/dbpedia-entity/test'),
    ('beir-fever', 'beir/fever/test'),
    ('beir-fiqa', 'beir/fiqa/test'),
    ('beir-hotpotqa', 'beir/hotpotqa/test'),
    ('beir-nq', 'beir/nq'),
    ('beir-quora', 'beir/quora/test'),
    ('beir-scidocs', 'beir/scidocs'),
    ('beir-scifact', 'beir/scifact/test'),
    ('beir-webis-touche2020', 'beir/webis-touche2020/v2'),
    ('beir-cqadupstack-android', 'beir/cqadupstack/android'),
    ('beir-cqadupstack-english', 'beir/cqadupstack/english'),
    ('beir-cqadupstack-gaming', 'beir/cqadupstack/gaming'),
    ('beir-cqadupstack-gis', 'beir/cqadupstack/gis'),
    ('beir-cqadupstack-mathematica', 'beir/cqadupstack/mathematica'),
    ('beir-cqadupstack-physics', 'beir/cqadupstack/physics'),
    ('beir-cqadupstack-programmers', 'beir/cqadupstack/programmers'),
    ('beir-cqadupstack-stats', 'beir/cqadupstack/stats'),
    ('beir-cqadupstack-tex', 'beir/cqadupstack/tex'),
    ('beir-cqadupstack-unix', 'beir/cqadupstack/unix'),
    ('beir-cqadupstack-webmasters', 'beir/cqadupstack/webmasters'),
    ('beir-cqadupstack-wordpress', 'beir/cqadupstack/wordpress'),
    ('beir-cqadupstack', 'beir/cqadupstack')
) AS v(alias, collection_id)
JOIN collections c ON c.id = v.collection_id
ON CONFLICT DO NOTHING;
