"""The reads of ``results`` (litaudit.store.results): the listings in every sort order,
the fields of a result, and an audit's population in its order (sorted in Python where
a population is one collection's in one measure)."""

from __future__ import annotations

import json
import math

import pytest

from litaudit.curation.filters import Filters
from litaudit.store import results as result_store
from litaudit.store.db import open_store


@pytest.fixture(scope="module")
def small_con(small_seeded_db_file):
    with open_store(small_seeded_db_file, read_only=True) as store:
        yield store.con


def test_a_result_records_fields_are_the_columns_of_its_query(small_con):
    got = small_con.execute(result_store.LIST_SQL + " LIMIT 0").description
    assert [d[0] for d in got] == list(result_store.ResultRecord._fields)


def test_every_sort_key_lists_the_table_and_the_json_in_one_order(small_con):
    """`results list --sort KEY` as a table and as --json: the same rows, in the same
    order (`--sort source`, whose key is a call with a comma in it, was a syntax error)."""
    f = Filters()
    for key, desc in [(k, False) for k in result_store.SORT_KEYS] + [("source", True)]:
        rows, total = result_store.list_table(small_con, f, sort=key, desc=desc, limit=40)
        listed = result_store.list_json(small_con, f, sort=key, desc=desc, limit=40)
        assert [r[0] for r in rows] == [r["id"] for r in json.loads("".join(listed))], key
        assert len(rows) == 40 and total > 40
        if key == "source":
            sources = [r[1] for r in rows]
            assert sources == sorted(sources, reverse=desc)


def test_a_population_comes_best_first_as_duckdb_sorts_it(small_con):
    """Every (collection, measure) population of the small seeded store, sorted in
    Python, is in the order of the SQL ``ORDER BY`` it replaced (ties included)."""
    order = " ORDER BY r.value DESC, provenance, r.system, r.id"
    pairs = small_con.execute(
        "SELECT DISTINCT collection_id, measure FROM results ORDER BY ALL"
    ).fetchall()
    assert len(pairs) > 5
    tied = 0
    for cid, measure in pairs:
        f = Filters(collection_id=cid, measure=measure)
        cond, args = result_store.where(f)
        want = small_con.execute(f"{result_store._POPULATION} WHERE {cond}{order}", args).fetchall()
        got = result_store.population(small_con, f)
        assert got == want, (cid, measure)
        tied += len({r[4] for r in got}) < len(got)
    assert tied  # some populations hold equal values: the ties' order was checked too


def test_the_python_order_of_a_population_is_duckdbs_for_nan_zeros_and_ties(small_con):
    values = [1.0, float("nan"), 0.0, -0.0, math.inf, 1.0, -math.inf, 0.5, float("nan"), 1.0]
    rows = [(i, float(v), f"p{i % 3}", f"s{i % 2}") for i, v in enumerate(values)]
    duck = small_con.execute(
        "SELECT i FROM (SELECT unnest(?::INTEGER[]) AS i, unnest(?::DOUBLE[]) AS v, "
        "unnest(?::VARCHAR[]) AS p, unnest(?::VARCHAR[]) AS s) ORDER BY v DESC, p, s, i",
        [list(c) for c in zip(*rows, strict=True)],
    ).fetchall()
    # a population row: id at 0, system at 2, value at 4, provenance at 21
    as_rows = [(i, None, s, None, v, *([None] * 16), p) for i, v, p, s in rows]
    assert [r[0] for r in sorted(as_rows, key=result_store._best_first)] == [i for (i,) in duck]


def test_a_collections_results_read_through_the_semi_join_are_the_filters(small_con):
    """A filter of a collection without a measure is read as a semi-join on rowids
    (DuckDB reads such a filter's rows slowly): the rows are those the plain WHERE keeps,
    with a paper's filter and the zero-shot one too; and an import's natural keys."""
    got = small_con.execute("SELECT DISTINCT collection_id FROM results ORDER BY 1").fetchall()
    cids = [c for (c,) in got]
    bibkey = small_con.execute(
        "SELECT p.bibkey FROM results r JOIN papers p ON p.id = r.paper_id LIMIT 1"
    ).fetchall()[0][0]
    order = " ORDER BY r.collection_id, r.measure, r.year, r.id"
    for f in [Filters(collection_id=c) for c in cids] + [
        Filters(collection_id=cids[0], paper=bibkey),
        Filters(collection_id=cids[0], zero_shot=True, include_retracted=True),
    ]:
        cond, args = result_store.where(f)
        assert "rowid" in result_store._kept(f, cond)
        want = small_con.execute(f"{result_store.LIST_SQL} WHERE {cond}{order}", args).fetchall()
        assert [tuple(r) for r in result_store.query(small_con, f)] == want
    keys = result_store.natural_keys(small_con, cids[:2])
    plain = small_con.execute(
        "SELECT count(*) FROM results WHERE collection_id IN (?, ?)", cids[:2]
    ).fetchall()[0][0]
    assert len(keys) == plain > 0
    assert {k[3] for k in keys} == set(cids[:2])


def test_natural_keys_come_in_id_order_on_the_seeded_store(seeded_db_file):
    """In id order, as a plain scan gave them (`reuse change` takes a row's first match):
    on the whole seeded store the semi-join's rows come in another order."""
    with open_store(seeded_db_file, read_only=True) as store:
        cids = ["disks45/nocr/trec-robust-2004", "beir/nfcorpus/test", "beir/scifact/test"]
        for some in ([c] for c in cids):
            ids = [rid for rid, _ in result_store.natural_keys(store.con, some).values()]
            assert len(ids) > 100 and ids == sorted(ids)
