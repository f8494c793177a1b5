"""Paired comparisons on the same topics (litaudit.stats.paired, .randomization, .holm,
.noise's interaction), cross-checked against scipy and brute force."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats as sps

from litaudit.errors import ParameterError
from litaudit.stats.holm import holm
from litaudit.stats.noise import topic_interaction
from litaudit.stats.paired import paired_t
from litaudit.stats.randomization import randomization_test
from tests.conftest import examples


def _scores(seed: int, n: int):
    rng = np.random.default_rng(seed)
    a = rng.uniform(0, 1, n).round(4)
    b = np.clip(a - rng.normal(0.02, 0.1, n), 0, 1).round(4)
    return a, b


def test_paired_t_equals_scipy_ttest_rel():
    a, b = _scores(1, 50)
    pt = paired_t(a, b)
    ref = sps.ttest_rel(a, b)
    assert pt.t == pytest.approx(ref.statistic, rel=1e-12)
    assert pt.p_value == pytest.approx(ref.pvalue, rel=1e-10)
    ci = ref.confidence_interval(0.95)
    assert (pt.low, pt.high) == (
        pytest.approx(ci.low, rel=1e-10),
        pytest.approx(ci.high, rel=1e-10),
    )
    d = a - b
    assert (pt.wins, pt.ties, pt.losses) == (
        int(np.sum(d > 0)),
        int(np.sum(d == 0)),
        int(np.sum(d < 0)),
    )
    assert pt.wins + pt.ties + pt.losses == 50


def test_paired_t_without_variance_has_no_test():
    pt = paired_t([0.5, 0.6, 0.7], [0.4, 0.5, 0.6])
    assert pt.t is None and pt.p_value is None
    assert pt.low == pytest.approx(0.1) and pt.high == pytest.approx(0.1)
    with pytest.raises(ParameterError, match="same topics"):
        paired_t([1, 2], [1, 2, 3])


def _brute(d) -> float:
    obs = abs(sum(d))
    k = sum(
        abs(sum(s * x for s, x in zip(signs, d, strict=True))) >= obs - 1e-9
        for signs in itertools.product((1, -1), repeat=len(d))
    )
    return k / 2 ** len(d)


@pytest.mark.parametrize("seed", [0, 1, 2, 3])
def test_exact_randomization_equals_brute_force_enumeration(seed):
    a, b = _scores(seed, 12)
    d = a - b
    d[3] = 0.0  # a tie: flipping it changes nothing
    r = randomization_test(d)
    m = int(np.sum(d != 0))
    assert r.method == "exact" and r.n_nonzero == m <= 11 and r.n_assignments == 2**m
    assert r.p_value == pytest.approx(_brute(d), abs=1e-15)


def test_exact_randomization_counts_equal_sums_as_extreme():
    # d = (1, 1, 1): the sums are +-3 (2 of 8) and +-1: p = 2/8 exactly
    r = randomization_test([0.1, 0.1, 0.1])
    assert r.p_value == pytest.approx(0.25, abs=1e-15) and r.n_extreme == 2
    assert randomization_test([0.0, 0.0]).p_value == 1.0


def test_montecarlo_randomization_has_the_plus_one_and_its_seed():
    a, b = _scores(5, 40)
    d = a - b
    exact = randomization_test(d)  # 2^40: still exact by meet-in-the-middle
    assert exact.method == "exact"
    mc = randomization_test(d, exact_max=10, permutations=20_000, seed=7)
    assert (mc.method, mc.permutations, mc.seed) == ("montecarlo", 20_000, 7)
    assert mc.p_value == (1 + mc.n_extreme) / (1 + 20_000)
    assert abs(mc.p_value - exact.p_value) < 4 * mc.p_value_se + 1e-4
    again = randomization_test(d, exact_max=10, permutations=20_000, seed=7)
    assert again == mc
    # an observed mean no assignment beats: p is 1 / (B + 1), never 0
    big = randomization_test(np.full(40, 0.1), exact_max=10, permutations=999, seed=1)
    assert big.p_value == pytest.approx(1 / 1000)


@settings(max_examples=examples(30), deadline=None)
@given(st.lists(st.integers(-5, 5), min_size=2, max_size=9))
def test_exact_randomization_matches_enumeration_on_integers(xs):
    d = [x / 10 for x in xs]
    assert randomization_test(d).p_value == pytest.approx(_brute(d), abs=1e-12)


def test_holm_by_hand_and_monotone():
    # m = 3: sorted 0.01, 0.03, 0.04 -> 0.03, max(0.03, 0.06), max(0.06, 0.04) = 0.06
    assert holm([0.04, 0.01, 0.03]) == pytest.approx((0.06, 0.03, 0.06))
    assert holm([0.5, 0.9]) == (1.0, 1.0)
    assert holm([]) == ()
    with pytest.raises(ParameterError):
        holm([1.2])


def test_interaction_se_equals_the_anova_residual_mean_square():
    rng = np.random.default_rng(3)
    x = rng.uniform(0, 1, (6, 20))
    got = topic_interaction(x)
    # the two-way ANOVA without replication, by its sums of squares
    g = x.mean()
    ss_total = np.sum((x - g) ** 2)
    ss_sys = 20 * np.sum((x.mean(axis=1) - g) ** 2)
    ss_top = 6 * np.sum((x.mean(axis=0) - g) ** 2)
    ms = (ss_total - ss_sys - ss_top) / (5 * 19)
    assert got.df_interaction == 95 and got.ms_interaction == pytest.approx(ms, rel=1e-12)
    assert got.se == pytest.approx(math.sqrt(ms / 20), rel=1e-12)
    # adding a constant to a system or a topic changes nothing
    y = x + np.arange(6)[:, None] * 0.1 + np.arange(20)[None, :] * 0.01
    assert topic_interaction(y).se == pytest.approx(got.se, rel=1e-9)
