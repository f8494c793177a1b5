"""What a collection can resolve (litaudit.stats.resolution; issue 34, item 3): the paired
t-test's minimum detectable difference and topic set size design (Sakai, IRJ 2016),
against closed forms, R's power.t.test and honestboard 0.6.1's Board.resolution."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats as sps

from litaudit.errors import ParameterError
from litaudit.stats.power import paired_t_power
from litaudit.stats.resolution import (
    min_detectable_effect,
    paired_sds,
    resolution,
    units_needed,
)
from tests.conftest import SHARED_DATA
from tests.typed import some

PERTOPIC = SHARED_DATA / "pertopic"


def test_units_needed_against_power_t_test():
    # R: power.t.test(delta = 0.5, sd = 1, power = 0.8, type = "paired") gives n = 33.37
    # pairs -> 34; delta = 0.2: n = 198.15 -> 199
    n, sakai = units_needed(0.5)
    assert n == 34 and paired_t_power(0.5, 34) >= 0.8 > paired_t_power(0.5, 33)
    z = sps.norm.isf(0.025) + sps.norm.ppf(0.8)
    assert sakai == pytest.approx((z / 0.5) ** 2 + sps.norm.isf(0.025) ** 2 / 2)
    assert units_needed(0.2)[0] == 199


def test_min_detectable_effect_inverts_the_power():
    d = min_detectable_effect(50)
    assert paired_t_power(d, 50) == pytest.approx(0.8, abs=1e-9)
    # slightly above the normal approximation (the t's heavier tails)
    z = sps.norm.isf(0.025) + sps.norm.ppf(0.8)
    assert z / math.sqrt(50) < d < 1.03 * z / math.sqrt(50)


def test_resolution_of_a_constructed_matrix():
    # 3 systems, differences to the next with sd exactly 0.1 and 0.3 -> median 0.2
    base = np.zeros(8)
    e = np.array([1, -1, 1, -1, 1, -1, 1, -1], dtype=float)
    e1 = 0.1 * e / np.std(e, ddof=1)
    e2 = 0.3 * e / np.std(e, ddof=1)
    x = np.vstack([base + 0.6 + e1 + e2, base + 0.5 + e2, base + 0.4])
    order, sds = paired_sds(x, top=3)
    assert list(order) == [0, 1, 2] and sds == pytest.approx([0.1, 0.3])
    r = resolution(x, top=3, gap=0.05)
    assert r.paired_sd == pytest.approx(0.2)
    assert r.mdd == pytest.approx(min_detectable_effect(8) * 0.2)
    assert r.units_needed == units_needed(0.25)[0]
    assert r.power_at_n == pytest.approx(paired_t_power(0.25, 8))


def test_bad_inputs():
    x = np.random.default_rng(1).random((4, 10))
    with pytest.raises(ParameterError, match="--gap"):
        resolution(x, gap=-0.01)
    with pytest.raises(ParameterError, match="every system's score"):
        resolution(np.where(x > 0.9, np.nan, x))
    with pytest.raises(ParameterError, match="power"):
        resolution(x, power=0.01)
    with pytest.raises(ParameterError, match="--top"):
        resolution(x, top=1)


@pytest.mark.slow
def test_resolution_equals_honestboard_on_the_20_shared_matrices():
    """honestboard's resolution (normal approximation, the same median of neighbours'
    paired sd) equals ours: paired sd, mdd_normal, and tasks_for_1pt as our units_normal
    for a gap of 0.01; our exact t values lie a little above (heavier tails)."""
    hb = pytest.importorskip("honestboard")
    from litaudit.runs.pertopic import read_pertopic_csv

    files = sorted(PERTOPIC.glob("*.csv"))
    if len(files) != 20:
        pytest.skip(f"the 20 shared matrices are not at {PERTOPIC}")
    for path in files:
        x = np.asarray(read_pertopic_csv(path).scores, dtype=np.float64)
        x = x[:, np.isfinite(x).all(axis=0)]
        ours = resolution(x, gap=0.01)
        theirs = hb.Board([f"r{i}" for i in range(x.shape[0])], x).resolution()
        assert ours.paired_sd == pytest.approx(theirs["paired_sd"], rel=1e-9), path.name
        assert ours.mdd_normal == pytest.approx(theirs["mdd"], rel=1e-9)
        assert ours.units_normal == pytest.approx(theirs["tasks_for_1pt"], rel=1e-9)
        assert ours.mdd > ours.mdd_normal and some(ours.units_needed) >= some(ours.units_normal)
