"""The reusability analyses read a stored archive a range of topics at a time
(:mod:`litaudit.analyses.reuse.archive_ranges`): the same results, to the digit, as from the
whole archive in memory (issue 24).

Both sides on robust03 are made once and kept across runs for as long as nothing they
are made from changes, as the session's databases are (tests/conftest.py
``_built_once``: the package, schema, seeds, the robust03 archive, the libraries; here
also the source of the functions that make them, in the kept file's name): the ranged
analyses (:func:`_by_ranges`) and the whole-archive references (:func:`_on_whole`)."""

from __future__ import annotations

import inspect
from pathlib import Path

import numpy as np
import pytest

from litaudit.analyses.reuse import lou, overlap
from litaudit.analyses.reuse.archive_ranges import load_ranged
from litaudit.analyses.reuse.holdout_pools import pool_scores

CID = "trec-robust-2003"
RANGE_SIZES = (1, 400_000)  # one topic a range (100 ranges), then a few ranges
ONE_PASS_DEPTHS = (10, 50, 100)
# the references the module's tests compare with, (analysis, depth)
WHOLE = (
    *(("rao", d) for d in (10, 100)),
    *(("lou", d) for d in (10, 50, 100)),
    *(("pool_scores", d) for d in (10, 20, 50, 100)),
)


def _on_whole(whole) -> dict:
    """Every analysis of :data:`WHOLE` of the whole archive ``whole`` in memory."""
    out: dict = {}
    for what, depth in WHOLE:
        if what == "rao":
            out[what, depth] = overlap.rao_of_archive(whole, depth=depth)
        elif what == "lou":
            out[what, depth] = lou.lou_of_archive(whole, depth=depth)
        else:
            out[what, depth] = pool_scores(whole, whole.participant_of_run, k=2, depth=depth)
    return out


def _by_ranges(db: Path) -> dict:
    """The analyses of robust03 read by ranges from the database ``db``, at each range
    size of :data:`RANGE_SIZES` (what the ranged archive holds, RAO and LOU at depths 10
    and 100, the pool table at depth 20, the progress ticks), and the verdict's single
    passes over the 400k-line ranges (the pool shifts at :data:`ONE_PASS_DEPTHS` with the
    table kept at 50, LOU at every depth from one reading)."""
    from litaudit.analyses.reuse.decision import pool_shifts
    from litaudit.store.db import open_store

    out: dict = {}
    with open_store(db, read_only=True) as store:
        for range_lines in RANGE_SIZES:
            ticks: list[int] = []
            cid, ranged = load_ranged(store.con, "robust03", range_lines=range_lines)
            got: dict = {
                "cid": cid,
                "held": (ranged.topic_names, ranged.tags, ranged.participant_names),
                "participant_of_run": ranged.participant_of_run,
                "n_lines": ranged.n_lines,
                "n_ranges": len(ranged.ranges),
            }
            for depth in (10, 100):
                got["rao", depth] = overlap.rao_of_archive(
                    ranged, depth=depth, progress=ticks.append
                )
                got["lou", depth] = lou.lou_of_archive(ranged, depth=depth)
            got["ticks"] = sum(ticks)
            got["pool_scores", 20] = pool_scores(ranged, ranged.participant_of_run, k=2, depth=20)
            out[range_lines] = got
        ticks.clear()
        design, rows, kept = pool_shifts(
            ranged, ONE_PASS_DEPTHS, [], ticks.append, margin_pct=1.0, alpha=0.05, keep=50
        )
        shift_ticks = sum(ticks)
        ticks.clear()
        lou_at = lou.lou_depths_of_archive(ranged, ONE_PASS_DEPTHS, progress=ticks.append)
        out["one pass"] = {
            "n_ranges": len(ranged.ranges),
            "shift_ticks": shift_ticks,
            "has_design": design is not None,
            "rows": rows,
            "kept": kept,
            "lou": lou_at,
            "lou_ticks": sum(ticks),
        }
    return out


def _kept(tmp_path_factory, make, *args):
    """``make(*args)`` made once and kept across runs (module doc)."""
    import hashlib
    import pickle

    from tests.conftest import _built_once

    made_from = repr((inspect.getsource(make), RANGE_SIZES, ONE_PASS_DEPTHS, WHOLE))
    digest = hashlib.sha256(made_from.encode()).hexdigest()[:12]
    name = f"ranges{make.__name__.replace('_', '-')}-{digest}.pickle"

    def build(part: Path) -> None:
        part.write_bytes(pickle.dumps(make(*args)))

    return pickle.loads(_built_once(tmp_path_factory, name, build).read_bytes())


@pytest.fixture(scope="module")
def on_whole(robust03_coded, tmp_path_factory):
    """The analyses of the whole archive in memory, the reference every ranged one must
    equal (``on_whole("lou", 100)``), each of :data:`WHOLE` (kept across runs)."""
    kept = _kept(tmp_path_factory, _on_whole, robust03_coded[1])

    def compute(what: str, depth: int):
        return kept[what, depth]

    return compute


@pytest.fixture(scope="module")
def by_ranges(robust03_db_file, tmp_path_factory) -> dict:
    """:func:`_by_ranges` of the session's robust03 database (kept across runs)."""
    return _kept(tmp_path_factory, _by_ranges, robust03_db_file)


@pytest.mark.slow(reason="the module's analyses, kept across runs (3 s of CPU when made)")
@pytest.mark.parametrize("range_lines", RANGE_SIZES)
def test_ranged_analyses_equal_the_whole_archive_robust03(
    robust03_coded, on_whole, by_ranges, range_lines
):
    # one topic a range (range_lines=1: 100 ranges), then a few ranges of many topics
    whole = robust03_coded[1]
    got = by_ranges[range_lines]
    assert got["cid"] == CID and got["held"][0] == whole.topic_names
    assert got["held"][1:] == (whole.tags, whole.participant_names)
    np.testing.assert_array_equal(got["participant_of_run"], whole.participant_of_run)
    assert got["n_lines"] >= whole.run.size
    if range_lines == 1:
        assert got["n_ranges"] >= len(whole.topic_names)
    for depth in (10, 100):
        assert got["rao", depth] == on_whole("rao", depth)
        assert got["lou", depth] == on_whole("lou", depth)
    assert got["ticks"] == 2 * got["n_ranges"]
    a = got["pool_scores", 20]
    b = on_whole("pool_scores", 20)
    assert a.subsets == b.subsets and (a.k, a.depth, a.n_sites) == (b.k, b.depth, b.n_sites)
    np.testing.assert_array_equal(a.ap, b.ap)
    np.testing.assert_array_equal(a.full, b.full)


@pytest.mark.slow(reason="the module's analyses, kept across runs (3 s of CPU when made)")
def test_one_pass_over_the_ranges_gives_each_depths_shift_and_lou(
    robust03_coded, on_whole, by_ranges
):
    # the verdict's single passes (issue 24): every depth's shift from its table's
    # per-topic sums gathered range by range, LOU at every depth from one reading; both
    # as computed depth by depth on the whole archive
    from litaudit.stats.holdout_shift import holdout_shift

    whole = robust03_coded[1]
    got = by_ranges["one pass"]
    depths = ONE_PASS_DEPTHS
    assert got["shift_ticks"] == got["n_ranges"] and got["has_design"]
    site, names = whole.participant_of_run, whole.participant_names
    kept = got["kept"]
    for d, row in zip(depths, got["rows"], strict=True):
        ps = on_whole("pool_scores", d)
        assert row.depth == d
        assert row.result == holdout_shift(ps.ap, site, ps.subsets, names=names)
        if d == 50:
            np.testing.assert_array_equal(kept.ap, ps.ap)
            np.testing.assert_array_equal(kept.full, ps.full)
    assert got["lou_ticks"] == got["n_ranges"]
    for d in depths:
        assert got["lou"][d] == on_whole("lou", d)


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
