-- litaudit schema 010: a topic set whose results are the equal-weight mean of other
-- collections' results (BEIR's average over its datasets, CQADupStack's over its forums)
-- names those parts, so that an audit can use the effective number of queries of such a
-- mean, K^2 / sum(1 / n_i), instead of the parts' queries summed (issue 19, item 7).
-- Applied by litaudit.store.migrations in one transaction.

ALTER TABLE topic_sets ADD COLUMN parts VARCHAR[];  -- collection ids averaged with equal weight (NULL: none)

UPDATE topic_sets SET parts = [
    'beir/cqadupstack/android', 'beir/cqadupstack/english', 'beir/cqadupstack/gaming',
    'beir/cqadupstack/gis', 'beir/cqadupstack/mathematica', 'beir/cqadupstack/physics',
    'beir/cqadupstack/programmers', 'beir/cqadupstack/stats', 'beir/cqadupstack/tex',
    'beir/cqadupstack/unix', 'beir/cqadupstack/webmasters', 'beir/cqadupstack/wordpress']
WHERE collection_id = 'beir/cqadupstack' AND name = '12-forums';

UPDATE topic_sets SET parts = [
    'beir/arguana', 'beir/climate-fever', 'beir/cqadupstack', 'beir/dbpedia-entity/test',
    'beir/fever/test', 'beir/fiqa/test', 'beir/hotpotqa/test', 'beir/msmarco/dev',
    'beir/nfcorpus/test', 'beir/nq', 'beir/quora/test', 'beir/scidocs', 'beir/scifact/test',
    'beir/webis-touche2020/v2', 'beir/trec-covid']
WHERE collection_id = 'beir/mean' AND name = '15-datasets';
