"""The reusability analyses read a stored archive a range of topics at a time
(:mod:`litaudit.analyses.reuse.archive_ranges`): the same results, to the digit, as from the
whole archive in memory (issue 24)."""

from __future__ import annotations

import functools

import numpy as np
import pytest

from litaudit.analyses.reuse import lou, overlap
from litaudit.analyses.reuse.archive_ranges import load_ranged
from litaudit.analyses.reuse.holdout_pools import pool_scores

CID = "trec-robust-2003"


@pytest.fixture(scope="module")
def robust03_store(robust03_db_file, robust03_coded, tmp_path_factory):
    """A copy of the session's database with the robust03 archive (conftest.py)."""
    import shutil

    from litaudit.store.db import open_store

    path = tmp_path_factory.mktemp("r") / "r.duckdb"
    shutil.copy(robust03_db_file, path)
    store = open_store(path)
    yield store, robust03_coded[1]  # the whole archive, as the session's database holds it
    store.close()


# the references the module's tests compare with, (analysis, depth)
WHOLE = (
    *(("rao", d) for d in (10, 100)),
    *(("lou", d) for d in (10, 50, 100)),
    *(("pool_scores", d) for d in (10, 20, 50, 100)),
)


def _on_whole(whole, what: str, depth: int):
    if what == "rao":
        return overlap.rao_of_archive(whole, depth=depth)
    if what == "lou":
        return lou.lou_of_archive(whole, depth=depth)
    assert what == "pool_scores"
    return pool_scores(whole, whole.participant_of_run, k=2, depth=depth)


@pytest.fixture(scope="module")
def on_whole(robust03_store, tmp_path_factory):
    """The analyses of the whole archive in memory, the reference every ranged one must
    equal (``on_whole("lou", 100)``): each of :data:`WHOLE` computed once, and kept
    across runs for as long as nothing they are made from changes, as the session's
    databases are (tests/conftest.py ``_built_once``: the package, the robust03 archive,
    the libraries; here also the source of :func:`_on_whole` and :data:`WHOLE`)."""
    import hashlib
    import inspect
    import pickle

    from tests.conftest import _built_once

    _, whole = robust03_store

    def build(part) -> None:
        part.write_bytes(pickle.dumps({key: _on_whole(whole, *key) for key in WHOLE}))

    made_from = repr((inspect.getsource(_on_whole), WHOLE)).encode()
    name = f"r03whole-{hashlib.sha256(made_from).hexdigest()[:12]}.pickle"
    kept = pickle.loads(_built_once(tmp_path_factory, name, build).read_bytes())

    def compute(what: str, depth: int):
        return kept[what, depth]

    return compute


@pytest.fixture(scope="module")
def ranged_of(robust03_store):
    """``ranged_of(range_lines)``: the (collection id, ranged archive) of robust03 for
    the module's tests, one per range size (its ranges read from DuckDB on its first
    pass, by the first test that uses it)."""
    store, _ = robust03_store

    @functools.cache
    def load(range_lines: int):
        return load_ranged(store.con, "robust03", range_lines=range_lines)

    return load


@pytest.mark.slow
@pytest.mark.parametrize("range_lines", [1, 400_000])
def test_ranged_analyses_equal_the_whole_archive_robust03(
    robust03_store, on_whole, ranged_of, range_lines
):
    # one topic a range (range_lines=1: 100 ranges), then a few ranges of many topics
    store, whole = robust03_store
    ticks: list[int] = []
    cid, ranged = ranged_of(range_lines)
    assert cid == CID and ranged.topic_names == whole.topic_names
    assert ranged.tags == whole.tags and ranged.participant_names == whole.participant_names
    np.testing.assert_array_equal(ranged.participant_of_run, whole.participant_of_run)
    assert ranged.n_lines >= whole.run.size
    if range_lines == 1:
        assert len(ranged.ranges) >= len(whole.topic_names)
    for depth in (10, 100):
        rao = overlap.rao_of_archive(ranged, depth=depth, progress=ticks.append)
        assert rao == on_whole("rao", depth)
        assert lou.lou_of_archive(ranged, depth=depth) == on_whole("lou", depth)
    assert sum(ticks) == 2 * len(ranged.ranges)
    a = pool_scores(ranged, whole.participant_of_run, k=2, depth=20)
    b = on_whole("pool_scores", 20)
    assert a.subsets == b.subsets and (a.k, a.depth, a.n_sites) == (b.k, b.depth, b.n_sites)
    np.testing.assert_array_equal(a.ap, b.ap)
    np.testing.assert_array_equal(a.full, b.full)


@pytest.mark.slow
def test_one_pass_over_the_ranges_gives_each_depths_shift_and_lou(
    robust03_store, on_whole, ranged_of
):
    # the verdict's single passes (issue 24): every depth's shift from its table's
    # per-topic sums gathered range by range, LOU at every depth from one reading; both
    # as computed depth by depth on the whole archive
    from litaudit.analyses.reuse.decision import pool_shifts
    from litaudit.stats.holdout_shift import holdout_shift

    _, whole = robust03_store
    _, ranged = ranged_of(400_000)  # the other test's (its ranges read there)
    depths = (10, 50, 100)
    ticks: list[int] = []
    design, rows, kept = pool_shifts(
        ranged, depths, [], ticks.append, margin_pct=1.0, alpha=0.05, keep=50
    )
    assert sum(ticks) == len(ranged.ranges) and design is not None
    site, names = whole.participant_of_run, whole.participant_names
    for d, row in zip(depths, rows, strict=True):
        ps = on_whole("pool_scores", d)
        assert row.depth == d
        assert row.result == holdout_shift(ps.ap, site, ps.subsets, names=names)
        if d == 50:
            np.testing.assert_array_equal(kept.ap, ps.ap)
            np.testing.assert_array_equal(kept.full, ps.full)
    ticks.clear()
    got = lou.lou_depths_of_archive(ranged, depths, progress=ticks.append)
    assert sum(ticks) == len(ranged.ranges)
    for d in depths:
        assert got[d] == on_whole("lou", d)


@pytest.mark.parametrize("seed", range(20))
def test_find_sorted_dense_table_and_binary_search_agree(seed):
    from litaudit.analyses.reuse.coded_archive import find_sorted

    rng = np.random.default_rng(seed)
    span = int(rng.integers(1, 5000))
    keys = np.unique(rng.integers(0, span, size=int(rng.integers(0, 300))))
    wanted = rng.integers(0, span, size=int(rng.integers(0, 2000)))
    hit, at = find_sorted(keys, wanted, span)  # a table when the span is small enough
    big_hit, big_at = find_sorted(keys, wanted, 10**9)  # binary search
    np.testing.assert_array_equal(hit, big_hit)
    np.testing.assert_array_equal(at, big_at)
    np.testing.assert_array_equal(keys[at], wanted[hit])
    assert np.isin(np.delete(wanted, hit), keys).sum() == 0
