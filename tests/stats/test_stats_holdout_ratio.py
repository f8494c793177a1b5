"""The relative shift's interval with the mean score estimated (issue 31): the delta
method's se for a ratio estimator (Cochran 1977, eq. 6.9) against its closed form, the
studentized bootstrap's interval, :meth:`TopicSums.take` and the topic selection."""

from __future__ import annotations

from itertools import combinations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from litaudit.analyses.reuse.decision import topic_positions
from litaudit.errors import ParameterError
from litaudit.stats.holdout_intervals import Bootstrap, topic_means
from litaudit.stats.holdout_shift import BOOT_T, DELTA, holdout_shift, shift_of_sums
from litaudit.stats.holdout_sums import topic_run_shifts, topic_sums
from tests.conftest import examples


def _table(seed: int, m: int = 4, n_t: int = 30, loss: float = 0.05):
    rng = np.random.default_rng(seed)
    n_r = 2 * m
    site = np.arange(n_r) % m
    subsets = ((),) + tuple(combinations(range(m), 2))
    base = rng.uniform(0.05, 0.7, size=(n_t, 1, n_r))
    held = np.zeros((len(subsets), n_r), dtype=bool)
    for n, s in enumerate(subsets):
        held[n] = np.isin(site, s)
    # held-out runs lose a topic-dependent share of their score
    share = rng.exponential(loss, size=(n_t, 1, 1))
    ap = base * (1 - share * held[None])
    return ap, site, subsets


def test_delta_se_is_the_ratio_estimators_closed_form():
    ap, site, subsets = _table(3)
    r = holdout_shift(ap, site, subsets)
    sums = topic_sums(ap, site, subsets)
    zr, use = topic_run_shifts(sums, len(subsets))
    z = zr[:, use].mean(axis=1)
    b = ap[:, 0, :].mean(axis=1)  # every run scored: b_t is the topic's mean score
    n = z.size
    ratio = z.mean() / b.mean()
    se = (z - ratio * b).std(ddof=1) / np.sqrt(n) / b.mean()  # Cochran 1977, eq. 6.9
    assert r.interval == DELTA
    assert r.shift_pct == pytest.approx(100 * ratio, rel=1e-12)
    assert r.se_pct == pytest.approx(100 * se, rel=1e-10)
    assert r.se_known_mean_pct == pytest.approx(100 * z.std(ddof=1) / np.sqrt(n) / b.mean())
    assert r.se_pct != pytest.approx(r.se_known_mean_pct, rel=1e-3)  # the term counts
    q = 1.6991270265334972  # scipy.stats.t.ppf(0.95, 29)
    assert r.ci.low == pytest.approx(100 * (ratio - q * se), rel=1e-9)
    assert r.ci.high == pytest.approx(100 * (ratio + q * se), rel=1e-9)


def test_topic_means_average_to_the_mean_score_with_unscored_cells():
    rng = np.random.default_rng(5)
    base = rng.uniform(0.1, 0.5, size=(9, 6))
    base[rng.random(base.shape) < 0.3] = np.nan
    base[4] = np.nan
    assert topic_means(base).mean() == pytest.approx(np.nanmean(base), rel=1e-12)


@settings(max_examples=examples(25), deadline=None)
@given(st.integers(0, 2**32 - 1))
def test_bootstrap_interval_holds_the_estimate_and_is_seeded(seed):
    ap, site, subsets = _table(seed % 1000)
    boot = Bootstrap(resamples=199, seed=seed)
    a = holdout_shift(ap, site, subsets, bootstrap=boot)
    assert a == holdout_shift(ap, site, subsets, bootstrap=boot)
    assert a.interval == BOOT_T and (a.resamples, a.boot_seed) == (199, seed)
    assert a.ci.low <= a.shift_pct <= a.ci.high
    assert 0 < a.p_equivalence <= 1 and 0 < a.p_loss <= 1  # +1 correction: never 0


def test_bootstrap_decision_agrees_with_its_p_values():
    for seed in range(6):
        ap, site, subsets = _table(seed, loss=0.02 * (seed + 1))
        r = holdout_shift(ap, site, subsets, bootstrap=Bootstrap(resamples=999, seed=1))
        if r.ci.high < -1.0:
            assert r.outcome == "lose" and r.p_loss <= 0.06
        if r.outcome == "reusable":
            assert r.p_equivalence <= 0.06


def test_take_is_the_table_of_those_topics():
    ap, site, subsets = _table(8, n_t=12)
    sums = topic_sums(ap, site, subsets)
    idx = np.array([0, 3, 3, 7, 11, 2])  # a resample, with a repeat
    assert shift_of_sums(sums.take(idx), site, len(subsets)) == holdout_shift(
        ap[idx], site, subsets
    )


def test_topic_positions():
    names = ("601", "602", "610", "650", "651", "303", "q1")
    assert topic_positions(names, "601-650").tolist() == [0, 1, 2, 3]
    assert topic_positions(names, "303, 651").tolist() == [4, 5]
    assert topic_positions(names, "q1,601").tolist() == [0, 6]
    for bad, why in (
        ("700-800", "'700-800' selects no topic"),
        ("650-601", "runs backwards"),
        ("601", "at least 2 topics"),
        ("601,,602", "an empty part"),
    ):
        with pytest.raises(ParameterError, match=why):
            topic_positions(names, bad)


def test_new_site_interval_without_site_effects_is_the_topics_one():
    """zs[t, s] the same for every site: MS_sites = MS_residual = 0, the two-way variance
    is MS_topics / (N m) = var_t / N, the delta method's over topics (Searle et al. 1992,
    Section 4.5)."""
    from litaudit.stats.holdout_intervals import ratio_interval, site_sample_interval

    rng = np.random.default_rng(2)
    b = rng.uniform(0.2, 0.4, size=40)
    a = -0.01 * b + rng.normal(0, 0.003, size=40)
    zs = np.repeat(a[:, None], 5, axis=1)
    two = site_sample_interval(zs, b, float(b.mean()), 0.9)
    one = ratio_interval(a, b, float(b.mean()), 0.9, None)[0]
    assert two.df == 39
    assert (two.estimate, two.low, two.high) == pytest.approx((one.estimate, one.low, one.high))


def test_new_site_interval_with_site_effects_only_is_the_sites_one():
    """zs[t, s] = c_s (sites differ, topics do not): the variance is MS_sites / (N m) =
    var_s(c) / m with m - 1 degrees of freedom, the t interval over sites."""
    from scipy import stats as st

    from litaudit.stats.holdout_intervals import site_sample_interval

    c = np.array([-0.004, -0.001, -0.0005, -0.002, -0.009, 0.0])
    b = np.full(30, 0.25)
    zs = np.tile(c, (30, 1))
    two = site_sample_interval(zs, b, 0.25, 0.9)
    se = c.std(ddof=1) / np.sqrt(c.size) / 0.25
    q = st.t.ppf(0.95, c.size - 1)
    assert two.df == c.size - 1
    assert two.estimate == pytest.approx(100 * c.mean() / 0.25)
    assert two.low == pytest.approx(100 * (c.mean() / 0.25 - q * se))


def test_a_shift_stored_before_issue_31_decodes_with_its_defaults():
    """The JSON of a HoldoutShift as the previous version stored it (no interval, se_pct,
    new-site fields): it decodes, says its interval took the mean score as known, and the
    sentence falls back to these sites' runs."""
    import json

    from litaudit.analyses.reuse.wording import depth_sentence, interval_sentence
    from litaudit.codec import decode
    from litaudit.stats.holdout_shift import KNOWN_MEAN, HoldoutShift

    old = json.loads(
        '{"topics": 100, "runs": 17, "mean_score": 0.28, "shift": -0.0034, '
        '"shift_pct": -1.22, "se": 0.00043, "level": 0.9, "margin_pct": 1.0, '
        '"ci": {"estimate": -1.22, "low": -1.48, "high": -0.97, "df": 99}, '
        '"outcome": "inconclusive", "p_equivalence": 0.9, "p_loss": 0.1, "sites": [], '
        '"site_ci": null, "per_run": []}'
    )
    r = decode(HoldoutShift, old)
    assert r.interval == KNOWN_MEAN and r.se_pct is None and r.new_site_ci is None
    assert r.ci.low == -1.48 and r.outcome == "inconclusive"
    assert interval_sentence(r).startswith("Interval: the mean score taken as known")
    assert depth_sentence(100, r) == (
        "At pool depth 100, runs of a site left out of judging score 1.22% lower (90% CI "
        "0.97-1.48%) on the topics it did not judge; evaluation noise is 1% (Voorhees et "
        "al. 2014): inconclusive."
    )
