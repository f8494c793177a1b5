"""Our rank resolution against honestboard 0.6.1 (a peer, numpy and scipy only), as
pytrec_eval is for trec_eval (issue 34, item 4).

Same method, same answer: studentized by the sample's se, on the same resamples (both draw
``rng.multinomial(T, 1/T, size=B)`` from ``default_rng(seed)``), our confidence set of the
best is honestboard's ``confidence_set_best(method="mcb")`` and our P(first) its
``p_best``. Where the methods differ, the difference is the one the methods predict:
- our default studentizes each resample by its own se (up to T K^2 = 2e7), floors the se of a
  difference at 1/4 of the median pair's, and joins to the set every system whose
  simultaneous rank interval starts at 1 (calibrated: bench/bench_ranks.py); its set
  holds honestboard's and more (run its way: ``studentize="sample", se_floor=0,
  consistent=False``);
- honestboard's rank intervals (``rank_summary``) are each system's 2.5-97.5% percentiles
  of its bootstrap rank, marginal; ours are simultaneous for all systems at once (Mogstad
  et al. 2024), so each of ours holds honestboard's interval.
The sets honestboard gives (issue 34): 2 runs on TREC-6 AP, 9 on TREC-7, 26 on Web 2010,
4 on Robust 2004, 3 models on BEIR-13.
"""

from __future__ import annotations

import numpy as np
import pytest

from litaudit.stats.ranks import resolve_ranks
from tests.kept_oracle import kept

hb = pytest.importorskip("honestboard", reason="honestboard (test extra) not installed")

B = 4000
KEPT = ("name", "p_best", "rank_lo", "rank_hi")  # what of rank_summary's rows is compared
ISSUE_SETS = {"adhoc6_ap": 2, "adhoc7_ap": 9, "web2010_ap": 26, "robust2004_ap": 4}


def _matrix(shared_data, name: str) -> tuple[list[str], np.ndarray]:
    from litaudit.runs.pertopic import read_pertopic_csv

    m = read_pertopic_csv(shared_data / "pertopic" / f"{name}.csv")
    y = np.asarray(m.scores, dtype=np.float64)
    return list(m.runs), y[:, np.all(np.isfinite(y), axis=0)]


def _honestboard(names: list[str], y: np.ndarray) -> dict:
    """honestboard's set of the best and rank summary (JSON: kept across runs)."""
    board = hb.Board(names, y)
    theirs = board.confidence_set_best(B=B, seed=0)
    return {
        "members": [str(n) for n in theirs["members"]],
        "critical_value": float(theirs["critical_value"]),
        "summary": [
            {k: (str(v) if k == "name" else float(v)) for k, v in r.items() if k in KEPT}
            for r in board.rank_summary(B=B, seed=0)
        ],
    }


def _compare(config, names: list[str], y: np.ndarray, expected: int) -> None:
    # honestboard's answer depends on honestboard, numpy and the matrix alone: it is kept
    # across runs under their digest (tests/kept_oracle.py); ours is computed every run
    theirs = kept(
        config, "honestboard", f"confidence_set_best+rank_summary B={B} seed=0",
        (names, y), lambda: _honestboard(names, y),
    )  # fmt: skip
    same = resolve_ranks(
        y, resamples=B, seed=0, studentize="sample", se_floor=0.0, consistent=False
    )
    assert sorted(names[i] for i in same.best_set) == sorted(theirs["members"])
    assert len(same.best_set) == expected
    assert same.critical == pytest.approx(theirs["critical_value"], rel=1e-9)
    summary = {r["name"]: r for r in theirs["summary"]}
    p_best = np.array([summary[n]["p_best"] for n in names])
    assert np.allclose(same.p_first, p_best, atol=1e-12)
    for i, n in enumerate(names):  # simultaneous intervals hold the marginal ones
        assert same.rank_low[i] <= summary[n]["rank_lo"]
        assert same.rank_high[i] >= summary[n]["rank_hi"]
    # our default (the bootstrap-t, the floored se, the set joined with the
    # systems whose rank interval starts at 1): a set holding theirs
    ours = resolve_ranks(y, resamples=B, seed=0)
    assert set(theirs["members"]) <= {names[i] for i in ours.best_set}


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(ISSUE_SETS))
def test_sets_equal_honestboards_on_the_shared_matrices(pytestconfig, shared_data, name):
    names, y = _matrix(shared_data, name)
    _compare(pytestconfig, names, y, ISSUE_SETS[name])


@pytest.mark.slow
def test_sets_equal_honestboards_on_beir13(pytestconfig, seeded_db_file):
    from litaudit.analyses.extreme.ranks_input import from_datasets
    from litaudit.curation.filters import Filters
    from litaudit.store.db import open_store

    # MTEB's and Pyserini's rows (source official): the population the issue ran honestboard on
    with open_store(seeded_db_file, read_only=True) as store:  # a read: no copy
        inp = from_datasets(store.con, "beir/13", "nDCG@10", Filters(source="official"), "none")
    assert inp is not None and inp.scores.shape == (225, 13)
    _compare(pytestconfig, list(inp.systems), inp.scores, 3)
