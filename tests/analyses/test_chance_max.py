"""The threshold of the max that `audit best` and `audit claim` use where a run archive
of the collection is stored (issue 30, item 3): resampled from the archive's residuals
(litaudit.stats.calibrated_max.resampled_max), named in the answer with its Monte Carlo se;
the Normal one on the measured se beside it."""

from __future__ import annotations

import dataclasses
import json
import shutil

import numpy as np
import pytest

from litaudit import defaults
from litaudit.stats import calibrated as C
from litaudit.stats import calibrated_max
from tests.typed import some

ROBUST03 = "trec-robust-2003"


@pytest.fixture
def rcli(cli, robust03_db_file, tmp_path):
    """A copy of the seeded store with the robust03 archive, evaluated per topic for AP."""
    db = tmp_path / "copy.duckdb"
    shutil.copy(robust03_db_file, db)
    assert cli("runs", "eval", "-c", "robust03", "-m", "AP", db=db).exit_code == 0
    return lambda *a: cli(*a, db=db)


def _archive_ap(db) -> np.ndarray:
    from litaudit.runs import evalcache
    from litaudit.store.db import open_store

    with open_store(db, read_only=True) as store:
        return np.asarray(some(evalcache.topic_matrix(store.con, ROBUST03, "AP")).x)


@pytest.mark.slow
def test_robust03_best_and_claim_use_the_archive_resampled_threshold(rcli, cli, tmp_path):
    out = json.loads(rcli("audit", "best", "-c", "robust03", "-m", "AP", "--json").stdout)
    assert out["reused"] is False
    rep = out["result"]
    rm = rep["resampled_max"]
    ref = rep["stats"]["reference"]
    assert rep["noise"]["source"] == "interaction"
    # the same threshold as stats/calibrated.py's on the archive's matrix and seed
    x = _archive_ap(cli.db.parent / "copy.duckdb")
    assert x.shape == (17, 100)
    want = calibrated_max.resampled_max(
        ref["maximum"],
        ref["mu"],
        ref["n_results"],
        x,
        alpha=0.05,
        trials=defaults.RESAMPLED_NULL_TRIALS,
        seed=defaults.RESAMPLED_NULL_SEED,
    )
    assert rm["threshold"] == want.threshold and rm["threshold_se"] == want.threshold_se
    assert (rm["method"], rm["n_runs"], rm["n_topics"], rm["n_draws"]) == (
        "resampled",
        17,
        100,
        78,
    )
    # and not the Normal one on the measured se (0.2531): 0.2569, many Monte Carlo se away
    normal = rep["stats"]["thresholds"]["max_threshold"]
    assert round(normal, 4) == 0.2531 and round(rm["threshold"], 4) == 0.2569
    assert rm["threshold"] - normal > 10 * rm["threshold_se"]
    # the terminal: `audit show` of the stored audit prints what the command printed
    # (tests/cli/test_show_equals_command.py); the best audit is computed once
    text = rcli("audit", "show", str(out["audit_id"])).stdout
    assert "Threshold of the max used: the best 0.3111 is above 0.2569" in text
    assert "resampled from the stored run archive's residuals" in text
    assert "19 of the 78 published results pass the threshold of the max 0.2569" in text
    # the claim: one more draw (79), the same archive and seed; no p (false by inspection)
    c = json.loads(
        rcli("audit", "claim", "-c", "robust03", "-m", "AP", "--value", "0.31", "--json").stdout
    )["result"]
    mx = c["mixed"]
    want = calibrated_max.resampled_max(
        0.31,
        c["stats"]["chance"]["mu"],
        79,
        x,
        alpha=0.05,
        trials=defaults.RESAMPLED_NULL_TRIALS,
        seed=defaults.RESAMPLED_NULL_SEED,
    )
    assert mx["method"] == "resampled" and mx["threshold"] == want.threshold
    chance = next(a for a in c["answers"] if a.startswith("Against chance"))
    assert "Threshold used, resampled: 0.3100 is above 0.2569" in chance
    assert "p = " not in chance.split("Threshold used")[1]


# TREC-7's claim with its per-topic AP stored as an archive's evaluation (the resampled
# threshold leads the chance answer): checked in tests/analyses/test_claim_noise.py's
# test_trec7_uses_the_stored_interaction_by_default, on the same store and archive (its
# claim without the archive, in test_trec7_claim_uses_the_measured_se): the archive is
# stored and the best audit computed once for both.


def test_audits_stored_before_decode_with_the_normal_threshold():
    # a claim's `mixed` and a matrix audit's `resampled` as stored before this change:
    # no method (the Normal draws), no studentized max-t
    from litaudit.codec import decode

    old = dict(
        n_draws=104,
        mu=0.1992,
        alpha=0.05,
        trials=4000,
        seed=2018,
        threshold=0.2602,
        threshold_se=0.0006,
        value=0.245,
        p_value=0.3,
    )
    m = decode(calibrated_max.MixedNoiseMax, old)
    assert (m.method, m.n_runs, m.n_topics) == ("normal", None, None)
    rn = dict(
        n_systems=103,
        n_topics=50,
        alpha=0.05,
        trials=4000,
        seed=2018,
        grand_mean=0.1992,
        best_mean=0.3702,
        t_max=0.171,
        f=27.0,
        max_offset=0.061,
        max_offset_se=0.0006,
        max_threshold=0.2600,
        f_threshold=1.4,
        p_max=1 / 4001,
        p_f=1 / 4001,
    )
    assert decode(C.ResampledNull, rn).max_t is None
    from litaudit.analyses.extreme.best import BestReport

    (field,) = [f for f in dataclasses.fields(BestReport) if f.name == "resampled_max"]
    assert field.default is None  # a best audit stored before has none
