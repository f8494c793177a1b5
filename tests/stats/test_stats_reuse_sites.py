"""A new site's interval and decision with few, skewed sites (litaudit/stats/reuse_sites.py,
issue 31)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from scipy import stats

from litaudit.stats.holdout_intervals import (
    INCONCLUSIVE,
    LOSE,
    REUSABLE,
    Bootstrap,
    Interval,
    site_sample_interval,
)
from litaudit.stats.reuse_sites import (
    FEW_SITES,
    SKEW_SAFE,
    TWO_WAY_T,
    canonical_columns,
    hall_t,
    new_site_interval,
    new_site_outcome,
    pigeonhole_t,
)


def _sites_only(c, n_t=30, mean=0.25):
    """zs[t, s] = c_s: sites differ, topics do not (the two-way variance is var_s / m)."""
    b = np.full(n_t, mean)
    return np.tile(np.asarray(c, dtype=float), (n_t, 1)), b


def test_hall_without_skew_is_the_t_interval_over_sites():
    """Symmetric site effects: g = 0, f is the identity, Hall's interval is the t interval
    over sites with m - 1 df (the two-way t's with site effects only)."""
    zs, b = _sites_only([-0.006, -0.003, -0.001, 0.001, 0.003, 0.006])
    lo, hi = hall_t(zs, b, 0.9)
    two = site_sample_interval(zs, b, 0.25, 0.9)
    assert (lo, hi) == pytest.approx((two.low, two.high))


def test_hall_with_a_left_tail_reaches_further_down():
    """One site far below the others (robust03's shape): the skewness is negative and
    Hall's interval moves down against the t interval (Hall 1992: the mean of a
    left-skewed sample lies above the truth more often than below)."""
    c = np.array([-0.0136, -0.0066, -0.0051, -0.0043, 0.0, 0.0003, -0.0015, -0.0012])
    zs, b = _sites_only(c)
    lo, hi = hall_t(zs, b, 0.9)
    two = site_sample_interval(zs, b, 0.25, 0.9)
    assert stats.skew(c, bias=False) < 0
    assert lo < two.low and hi < two.high
    # at the closed form: f(T) = T + a T^2/3 + a^2 T^3/27 + a/6, a = g / sqrt(m)
    g, m = stats.skew(c, bias=False), c.size
    a, q = g / np.sqrt(m), stats.t.ppf(0.95, m - 1)
    se = c.std(ddof=1) / np.sqrt(m) / 0.25
    r = 100 * c.mean() / 0.25

    def f(t):
        return t + a * t**2 / 3 + a**2 * t**3 / 27 + a / 6

    t_lo, t_hi = (r - lo) / (100 * se), (r - hi) / (100 * se)  # f(t_lo) = q, f(t_hi) = -q
    assert f(t_lo) == pytest.approx(q) and f(t_hi) == pytest.approx(-q)


@given(st.lists(st.floats(-0.02, 0.02), min_size=4, max_size=12, unique=True))
def test_hall_interval_holds_its_estimate(c):
    """Whatever the effects, the interval is ordered and holds the estimate."""
    zs, b = _sites_only(c)
    if np.std(c) < 1e-9:
        return
    lo, hi = hall_t(zs, b, 0.9)
    r = 100 * np.mean(c) / 0.25
    assert lo <= r + 1e-9 and r - 1e-9 <= hi


def _crossed(seed, n_t=60, m=10, skew=False):
    rng = np.random.default_rng(seed)
    b = rng.uniform(0.2, 0.4, size=n_t)
    site = rng.exponential(0.004, size=m) * -1 if skew else rng.normal(0, 0.002, size=m)
    zs = -0.01 * b[:, None] + site[None, :] + rng.normal(0, 0.003, size=(n_t, m))
    return zs, b


def test_pigeonhole_bootstrap_is_order_free_and_seeded():
    zs, b = _crossed(1)
    boot = Bootstrap(resamples=299, seed=4)
    a = pigeonhole_t(zs, b, 0.9, boot)
    perm = np.random.default_rng(9).permutation(zs.shape[1])
    assert pigeonhole_t(zs[:, perm], b, 0.9, boot) == a  # to the digit
    assert pigeonhole_t(zs, b, 0.9, Bootstrap(resamples=299, seed=5)) != a


def test_pigeonhole_bootstrap_near_the_t_interval_with_normal_effects():
    """Normal site and topic effects, many of both: the bootstrap-t interval is close to
    the two-way t interval (both second-order right there)."""
    zs, b = _crossed(2, n_t=200, m=40)
    lo, hi = pigeonhole_t(zs, b, 0.9, Bootstrap(resamples=999, seed=1))
    two = site_sample_interval(zs, b, float(b.mean()), 0.9)
    half = (two.high - two.low) / 2
    assert abs(lo - two.low) < 0.25 * half and abs(hi - two.high) < 0.25 * half


def test_new_site_interval_is_the_wider_of_both():
    zs, b = _crossed(3, skew=True)
    zs = canonical_columns(zs)  # the order new_site_interval sums in
    boot = Bootstrap(resamples=199, seed=2)
    ci, how = new_site_interval(zs, b, float(b.mean()), 0.9, boot)
    p, h = pigeonhole_t(zs, b, 0.9, boot), hall_t(zs, b, 0.9)
    two = site_sample_interval(zs, b, float(b.mean()), 0.9)
    assert how == SKEW_SAFE
    assert (ci.low, ci.high) == (min(p[0], h[0]), max(p[1], h[1]))
    assert (ci.estimate, ci.df) == (two.estimate, two.df)
    assert new_site_interval(zs, b, float(b.mean()), 0.9, None) == (two, TWO_WAY_T)


def test_new_site_outcome_floor():
    inside = Interval(-0.2, -0.5, 0.1, 20)
    assert new_site_outcome(inside, 16, 1.0, 32) == (FEW_SITES, 32)
    assert new_site_outcome(inside, 32, 1.0, 32) == (REUSABLE, None)
    assert new_site_outcome(inside, 4, 1.0, None) == (REUSABLE, None)
    # "lose" needs no floor
    assert new_site_outcome(Interval(-3.0, -4.0, -2.0, 20), 4, 1.0, 32) == (LOSE, None)
    # inconclusive: the sites that would narrow the interval enough, at least the floor
    # when the estimate lies inside the margin
    out, need = new_site_outcome(Interval(-0.5, -1.5, 0.5, 20), 16, 1.0, 32)
    assert out == INCONCLUSIVE and need == 64  # 16 (1.0 / 0.5)^2
    out, need = new_site_outcome(Interval(-0.2, -1.1, 0.7, 20), 16, 1.0, 32)
    assert out == INCONCLUSIVE and need == 32  # 16 (0.9 / 0.8)^2 = 20.25 -> the floor
    assert new_site_outcome(Interval(-1.0, -2.0, 0.0, 20), 16, 1.0, 32) == (INCONCLUSIVE, None)
