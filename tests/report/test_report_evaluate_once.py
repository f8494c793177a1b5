"""The report evaluates a stored run archive once for all its measures
(:func:`litaudit.analyses.report_audits.evaluate_once`), and each audit then reads back the
same per-topic matrix it would have evaluated on its own."""

from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np
import pytest

from litaudit.analyses.report_audits import evaluate_once
from litaudit.runs import archive_eval
from litaudit.store.collections import resolve_collection
from litaudit.store.db import open_store
from tests.report.test_report import COLLECTION, make_fixture_db

MEASURES = ("AP", "P@10", "Rprec")


@pytest.fixture(scope="module")
def runs_db_file(tmp_path_factory) -> Path:
    """The report fixture's database with its 4 runs (read-only: copy it to write)."""
    return make_fixture_db(tmp_path_factory.mktemp("once") / "once.duckdb")


def _matrices(path: Path, warm: bool, monkeypatch) -> tuple[int, list]:
    """(calls of the archive evaluator, each measure's archive_matrix) on ``path``."""
    calls = []
    real = archive_eval.evaluate_stored

    def counted(*a, **k):
        calls.append(tuple(k.get("measures", a[2] if len(a) > 2 else ())))
        return real(*a, **k)

    monkeypatch.setattr(archive_eval, "evaluate_stored", counted)
    monkeypatch.setattr(archive_eval, "_MATRICES", {})  # no matrix of an earlier test
    with open_store(path) as store:
        cid = resolve_collection(store.con, COLLECTION).id
        if warm:
            evaluate_once(store.con, cid, MEASURES)
        got = [archive_eval.archive_matrix(store.con, cid, m) for m in MEASURES]
    return len(calls), got


@pytest.mark.slow  # the archive evaluated four times (0.5 s of CPU with its fixture)
def test_one_evaluation_for_every_measure_and_the_same_matrices(
    runs_db_file, tmp_path, monkeypatch
):
    cold, warm = tmp_path / "cold.duckdb", tmp_path / "warm.duckdb"
    shutil.copy(runs_db_file, cold)
    shutil.copy(runs_db_file, warm)
    n_cold, by_measure = _matrices(cold, False, monkeypatch)
    n_warm, read_back = _matrices(warm, True, monkeypatch)
    assert n_cold == len(MEASURES)  # one pass over the archive per measure, before
    assert n_warm == 1
    for a, b in zip(by_measure, read_back, strict=True):
        assert a is not None and b is not None
        assert (a.runs, a.topics, a.complete, a.fingerprint) == (
            b.runs,
            b.topics,
            b.complete,
            b.fingerprint,
        )
        np.testing.assert_array_equal(a.x, b.x)  # the same numbers, NaN where NaN
    # asked again, the values kept are read back: nothing evaluated
    n_again, _ = _matrices(warm, True, monkeypatch)
    assert n_again == 0


def test_nothing_to_evaluate_without_runs(tmp_path, monkeypatch):
    path = make_fixture_db(tmp_path / "lit.duckdb", runs=False)
    n, got = _matrices(path, True, monkeypatch)
    assert n == 0 and got == [None] * len(MEASURES)
