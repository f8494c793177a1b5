"""An audit's answer does not depend on what ran before it in the store (issue 30's bug):
where a run archive of the collection is stored, the measured se, the band and the
threshold come from its per-topic scores whether `runs eval` stored them before or not
(the audit evaluates and keeps them when missing)."""

from __future__ import annotations

import json
import shutil

import numpy as np
import pytest


@pytest.fixture(autouse=True)
def _forget_matrices():
    """Each test starts with no archive matrix in this process's memory (an earlier test's
    copy of the same archive would answer from it)."""
    from litaudit.runs import archive_eval

    archive_eval._MATRICES.clear()


CLAIM = ("audit", "claim", "-c", "robust03", "-m", "AP", "--value", "0.31", "--json")


def _answer(out: str) -> dict:
    r = json.loads(out)["result"]
    return {
        "noise": r["noise"],
        "mixed": r["mixed"],
        "stats": r["stats"],
        "answers": r["answers"],
    }


@pytest.mark.slow
def test_claim_is_the_same_on_a_fresh_import_and_after_runs_eval(cli, robust03_db_file, tmp_path):
    db = tmp_path / "copy.duckdb"
    shutil.copy(robust03_db_file, db)
    # saved: the audit keeps the evaluations it made beside its own transaction
    first = cli(*CLAIM, db=db)
    assert first.exit_code == 0, first.output
    # a subset of the runs, and every topic scored (-c's cache): neither is the audit's
    for extra in (("--run-tag", "InexpC2"), ("--complete",)):
        assert cli("runs", "eval", "-c", "robust03", "-m", "AP", *extra, db=db).exit_code == 0
    again = cli(*CLAIM, "--no-save", db=db)
    assert again.exit_code == 0, again.output
    a, b = _answer(first.stdout), _answer(again.stdout)
    assert a["noise"]["source"] == "interaction" and a["noise"]["kind"] == "measured"
    assert a == b


@pytest.mark.slow
def test_best_is_the_same_on_a_fresh_import_and_after_runs_eval(cli, robust03_db_file, tmp_path):
    db = tmp_path / "copy.duckdb"
    shutil.copy(robust03_db_file, db)
    best = ("audit", "best", "-c", "robust03", "-m", "AP", "--json", "--no-save")
    first = json.loads(cli(*best, db=db).stdout)["result"]
    assert cli("runs", "eval", "-c", "robust03", "-m", "AP", db=db).exit_code == 0
    again = json.loads(cli(*best, db=db).stdout)["result"]
    assert first["noise"]["source"] == "interaction"
    assert first["ranks"] is not None
    for key in ("noise", "resampled_max", "stats", "ranks"):
        assert first[key] == again[key]


class _Bars:
    """A progress factory that records the bars asked for and their advances."""

    def __init__(self):
        self.totals: list[int] = []
        self.runs = 0

    def __call__(self, n_runs: int):
        from contextlib import contextmanager

        self.totals.append(n_runs)

        @contextmanager
        def bar():
            yield self

        return bar()

    def advance(self, n: int, lines: int = 0) -> None:
        self.runs += n


@pytest.mark.slow
def test_the_audit_evaluates_the_archive_once_with_a_progress_bar(robust03_db_file, tmp_path):
    from litaudit.analyses.extreme import best as B
    from litaudit.runs import archive_eval
    from litaudit.runs.archive_eval import evaluation_progress
    from litaudit.store.db import open_store

    db = tmp_path / "copy.duckdb"
    shutil.copy(robust03_db_file, db)
    bars = _Bars()
    with open_store(db) as store, evaluation_progress(bars):
        first = B.run_best(store.con, "robust03", "AP", save=False).result
        assert bars.totals == [17] and bars.runs == 17  # evaluated: the 17 runs
        archive_eval._MATRICES.clear()  # not this process's memory: the store's
        again = B.run_best(store.con, "robust03", "AP", save=False).result
        assert bars.totals == [17]  # kept, read back: no second evaluation
    assert first.noise == again.noise and first.noise is not None
    assert first.noise.source == "interaction"


@pytest.mark.slow
def test_a_claim_with_its_run_evaluates_the_archive_once(
    cli, robust03_db_file, shared_data, tmp_path, monkeypatch
):
    # the chance check's se, the claim's resolution, its same-topic comparisons and the
    # search for a copy each read the archive's per-topic AP: on a store that holds no
    # evaluation of it, one evaluation of the 17 runs serves them all
    from litaudit.runs import archive_eval

    db = tmp_path / "copy.duckdb"
    shutil.copy(robust03_db_file, db)
    evaluated: list[int] = []
    real = archive_eval.evaluate_stored

    def counted(*args, **kw):
        ev = real(*args, **kw)
        evaluated.append(len(ev.runs))
        return ev

    monkeypatch.setattr(archive_eval, "evaluate_stored", counted)
    run = shared_data / "trec" / "runs" / "robust03" / "input.pircRBa1.gz"
    res = cli(*CLAIM[:-3], "--system", "pircRBa1", "--run", str(run), "--json", db=db)
    assert res.exit_code == 0, res.output
    ev = json.loads(res.stdout)["result"]["evidence"]
    assert ev["same_topic"]["comparisons"] and ev["run"]["identical"] == []
    assert evaluated == [17]
    # the claim's evidence (issue 21; once test_claim_evidence.py's own claim of it)
    run = ev["run"]
    assert (run["claimed_text"], run["rounded"], run["reproduces"]) == ("0.3101", "0.3101", True)
    assert run["value"] == pytest.approx(0.310052, abs=1e-6)
    # default comparison: the record holder (pircRBa2) is not in the archive; the
    # archive's best run other than the claim's own is aplrob03a (0.2998)
    (c,) = ev["same_topic"]["comparisons"]
    assert (c["tag"], c["why"]) == ("aplrob03a", "best run")
    assert c["holm_t"] == pytest.approx(c["paired"]["p_value"])  # one comparison
    # the run is the archive's pircRBa1, the published result audited: not a copy to flag
    assert "reproduces the claimed 0.3101" in ev["sentences"][0]


def test_a_kept_rank_resolution_is_the_one_computed():
    # `audit best` and `audit claim` of a collection rank the same shared scores: the
    # process computes the resolution once per input (litaudit.analyses.extreme.ranks)
    from litaudit.analyses.extreme import ranks
    from litaudit.analyses.extreme.ranks_input import RankInput
    from litaudit.stats.ranks import resolve_ranks

    y = np.random.default_rng(4).normal(0.3, 0.05, (6, 20))

    def inp(scores):
        return RankInput(
            tuple(f"r{i}" for i in range(6)), tuple(f"t{j}" for j in range(20)), "topics",
            scores, None, "archive", "six runs", 0, "x",
        )  # fmt: skip

    settings = ranks.RankSettings(resamples=200)
    ranks._RESOLVED.clear()
    first = ranks.resolved(inp(y), settings)
    assert first == resolve_ranks(y, resamples=200, seed=settings.seed)  # as computed
    assert ranks.resolved(inp(y.copy()), settings) is first  # the same numbers: kept
    other = y.copy()
    other[0, 0] += 1e-9  # any other number is another input
    assert ranks.resolved(inp(other), settings) is not first
    assert ranks.resolved(inp(y), ranks.RankSettings(resamples=200, seed=1)) is not first
    assert len(ranks._RESOLVED) == 3
