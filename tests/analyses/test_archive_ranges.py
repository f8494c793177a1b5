"""The reusability analyses read a stored archive a range of topics at a time
(:mod:`litaudit.analyses.archive_ranges`): the same results, to the digit, as from the
whole archive in memory (issue 24)."""

from __future__ import annotations

import numpy as np
import pytest

from litaudit.analyses import reuse
from litaudit.analyses.archive_ranges import load_ranged
from litaudit.analyses.coded_archive import load_coded
from litaudit.analyses.holdout_pools import pool_scores

CID = "trec-robust-2003"


@pytest.fixture(scope="module")
def robust03_store(robust03_db_file, tmp_path_factory):
    """A copy of the session's database with the robust03 archive (conftest.py)."""
    import shutil

    from litaudit.store.db import open_store

    path = tmp_path_factory.mktemp("r") / "r.duckdb"
    shutil.copy(robust03_db_file, path)
    store = open_store(path)
    whole = load_coded(store.con, "robust03")[1]
    yield store, whole
    store.close()


@pytest.mark.slow
@pytest.mark.parametrize("range_lines", [1, 400_000])
def test_ranged_analyses_equal_the_whole_archive_robust03(robust03_store, range_lines):
    # one topic a range (range_lines=1: 100 ranges), then a few ranges of many topics
    store, whole = robust03_store
    ticks: list[int] = []
    cid, ranged = load_ranged(store.con, "robust03", range_lines=range_lines)
    assert cid == CID and ranged.topic_names == whole.topic_names
    assert ranged.tags == whole.tags and ranged.participant_names == whole.participant_names
    np.testing.assert_array_equal(ranged.participant_of_run, whole.participant_of_run)
    assert ranged.n_lines >= whole.run.size
    if range_lines == 1:
        assert len(ranged.ranges) >= len(whole.topic_names)
    for depth in (10, 100):
        assert reuse.rao_of_archive(ranged, depth=depth, progress=ticks.append) == (
            reuse.rao_of_archive(whole, depth=depth)
        )
        assert reuse.lou_of_archive(ranged, depth=depth) == reuse.lou_of_archive(whole, depth=depth)
    assert sum(ticks) == 2 * len(ranged.ranges)
    site = whole.participant_of_run
    a = pool_scores(ranged, site, k=2, depth=20)
    b = pool_scores(whole, site, k=2, depth=20)
    assert a.subsets == b.subsets and (a.k, a.depth, a.n_sites) == (b.k, b.depth, b.n_sites)
    np.testing.assert_array_equal(a.ap, b.ap)
    np.testing.assert_array_equal(a.full, b.full)
