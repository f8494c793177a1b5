"""The reference noise of issue 30 (litaudit.stats.noise): residual sds, the [0, 1] bound,
the spread check that makes the null of equally good systems false by inspection, and the
winner's bias by resampling."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from litaudit import defaults
from litaudit.errors import ParameterError
from litaudit.stats.noise import (
    bounded_se,
    residual_sds,
    residuals,
    spread_check,
    topic_interaction,
    winners_bias,
)


def _table(k: int, n: int, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    sys_ = rng.normal(0.25, 0.05, size=(k, 1))
    top = rng.normal(0.0, 0.1, size=(1, n))
    noise = rng.normal(0.0, 1.0, size=(k, n)) * rng.uniform(0.05, 0.15, size=(k, 1))
    return sys_ + top + noise


def test_residuals_are_double_centred_and_their_sds_pool_to_ms_interaction():
    x = _table(7, 20, 1)
    r = residuals(x)
    np.testing.assert_allclose(r.mean(axis=0), 0, atol=1e-12)
    np.testing.assert_allclose(r.mean(axis=1), 0, atol=1e-12)
    it = topic_interaction(x)
    sds = residual_sds(x)
    # the mean of the squared per-run sds is MS_interaction (the pooled variance)
    assert float(np.mean(sds**2)) == pytest.approx(it.ms_interaction, rel=1e-12)
    # a run with 3 times the noise of the others has the largest residual sd
    y = x.copy()
    y[2] = y[2].mean() + 3 * (y[2] - y[2].mean())
    assert int(np.argmax(residual_sds(y))) == 2


def test_bounded_se_is_the_bernoulli_se():
    # a score in {0, 1} with mean m has variance exactly m (1 - m): the bound is attained
    s = np.array([1.0] * 30 + [0.0] * 20)
    assert bounded_se(s.mean(), s.size) == pytest.approx(s.std() / math.sqrt(s.size), rel=1e-12)
    assert bounded_se(0.5, 43) == pytest.approx(0.5 / math.sqrt(43))
    assert bounded_se(0.0, 10) == 0.0
    with pytest.raises(ParameterError, match="mean in"):
        bounded_se(1.2, 10)
    with pytest.raises(ParameterError, match="n >= 1"):
        bounded_se(0.3, 0)


def test_two_populations_with_the_same_n_and_topics_are_answered_differently():
    # issue 30: the 0.25-sd rule was a function of N and n alone. Two populations of N =
    # 103 results on 50 topics under TREC-7's measured noise (the noisiest run's se
    # 0.0273): spread 0.0806 (TREC-7's own) is 2.95 se_max, the null stands and gets a p;
    # spread 0.12 is 4.4 se_max, the null is false by inspection
    rng = np.random.default_rng(7)
    z = rng.standard_normal(103)
    z = (z - z.mean()) / z.std(ddof=1)
    narrow, wide = 0.1992 + 0.0806 * z, 0.1992 + 0.12 * z
    a = spread_check(narrow, 0.0273, min_ratio=defaults.BY_INSPECTION_RATIO)
    b = spread_check(wide, 0.0273, min_ratio=defaults.BY_INSPECTION_RATIO)
    assert a.n_results == b.n_results == 103
    assert round(a.ratio, 2) == 2.95 and not a.false_by_inspection
    assert round(b.ratio, 1) == 4.4 and b.false_by_inspection


def test_the_ratio_three_is_below_the_p_floor_at_the_smallest_population():
    # P(chi2_4 >= 4 * 3^2) = exp(-18) (1 + 18), closed form of the chi-square on 4 df
    v = np.array([-1.0, -0.5, 0.0, 0.5, 1.0])
    sd = float(np.std(v, ddof=1))
    c = spread_check(v, sd / 3.0, min_ratio=3.0)
    assert c.ratio == pytest.approx(3.0)
    assert c.p_upper == pytest.approx(math.exp(-18) * 19, rel=1e-9)
    assert c.p_upper < defaults.P_FLOOR and c.false_by_inspection


@settings(max_examples=30, deadline=None)
@given(st.floats(0.001, 0.1), st.integers(5, 200))
def test_p_upper_falls_as_the_spread_grows(se_max, n):
    v = np.linspace(-1.0, 1.0, n)
    lo = spread_check(v * 0.01, se_max, min_ratio=3.0)
    hi = spread_check(v * 0.02, se_max, min_ratio=3.0)
    assert hi.ratio == pytest.approx(2 * lo.ratio)
    assert hi.p_upper <= lo.p_upper


def test_winners_bias_of_equal_systems_is_the_expected_max():
    # all true means equal (B = 0) and Normal noise with se s: the best of 2 exceeds its
    # true mean by s E[max(Z1, Z2)] = s / sqrt(pi)
    w = winners_bias([0.3, 0.3], 0.02, weight=0.0, trials=200_000, seed=1)
    assert w.bias == pytest.approx(0.02 / math.sqrt(math.pi), abs=4 * w.bias_se)
    assert not w.heteroscedastic and "200,000 replications (seed 1)" in w.method
    # far-apart systems (B = 1, spread >> se): the winner is always the same, no bias
    far = winners_bias([0.1, 0.9], 0.01, weight=1.0, trials=20_000, seed=2)
    assert abs(far.bias) < 4 * far.bias_se + 1e-4
    # noisier runs make a larger winner's bias than one pooled se of the same mean square
    vals = [0.3] * 20
    pooled = winners_bias(vals, 0.02, weight=0.0, trials=20_000, seed=3)
    het = winners_bias(
        vals, 0.02, weight=0.0, run_ses=[0.01, 0.0265], trials=20_000, seed=3
    )  # mean square 0.02^2 (about)
    assert het.heteroscedastic and het.bias > pooled.bias
