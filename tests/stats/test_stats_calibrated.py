"""litaudit.stats.calibrated: the threshold of the max and the F test by resampling a
per-topic matrix's residuals (issue 30, item 3)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from litaudit.errors import ParameterError
from litaudit.stats import calibrated as C
from litaudit.stats import calibrated_max
from litaudit.stats.extreme import StdExtremes
from litaudit.stats.noise import residuals, topic_interaction


def _noise(k: int, n: int, seed: int, sds=None) -> np.ndarray:
    rng = np.random.default_rng(seed)
    s = np.full((k, 1), 0.1) if sds is None else np.asarray(sds, dtype=float)[:, None]
    return 0.3 + rng.normal(0, 0.1, size=(1, n)) + rng.standard_normal((k, n)) * s


def test_f_statistic_is_the_anovas():
    x = _noise(8, 30, 1)
    assert C.f_statistic(x) == pytest.approx(topic_interaction(x).f_systems, rel=1e-12)


def test_equal_noise_gives_the_normal_threshold():
    # homoscedastic Normal noise: the resampled threshold of the max of k means is the
    # Normal one, se * z_k(0.95), within the bootstrap's error (a few percent at n = 200)
    x = _noise(20, 200, 2)
    rn = C.resampled_null(x, trials=4000, seed=3)
    se = topic_interaction(x).se
    zq = StdExtremes.make(20, "exact", None, None).max_q(0.95)[0]
    assert rn.max_offset == pytest.approx(se * zq, rel=0.08)
    assert rn.max_offset_se > 0 and rn.max_threshold == pytest.approx(rn.grand_mean + rn.max_offset)
    # the F's resampled 95% point is near the F distribution's
    from scipy import stats as sps

    assert rn.f_threshold == pytest.approx(float(sps.f.isf(0.05, 19, 19 * 199)), rel=0.15)


def test_a_clear_best_is_found_and_p_has_the_plus_one_floor():
    x = _noise(10, 50, 4)
    x[3] += 0.3
    rn = C.resampled_null(x, trials=999, seed=5)
    assert rn.best_mean == pytest.approx(x[3].mean())
    assert rn.best_mean > rn.max_threshold
    assert rn.p_max == pytest.approx(1 / 1000) and rn.p_f == pytest.approx(1 / 1000)
    assert C.permutation_f(x, trials=99, seed=6) == pytest.approx(1 / 100)


def test_one_noisy_run_raises_the_threshold_above_the_normal():
    # runs differ in noise: the max picks the noisy one, and the pooled Normal threshold
    # is too low; the resampled one sees it
    sds = [0.05] * 19 + [0.25]
    x = _noise(20, 50, 7, sds)
    rn = C.resampled_null(x, trials=4000, seed=8)
    normal = topic_interaction(x).se * StdExtremes.make(20, "exact", None, None).max_q(0.95)[0]
    assert rn.max_offset > 1.3 * normal


def test_resampled_means_follow_the_counts():
    # a replication's row means are W R^T / n: check against resampling columns directly
    x = _noise(6, 12, 9)
    r = residuals(x)
    t_max, f = C.resampled_stats(r, 3, np.random.default_rng(10))
    rng = np.random.default_rng(10)
    for b in range(3):
        w = rng.multinomial(12, np.full(12, 1 / 12))
        cols = np.repeat(np.arange(12), w)
        y = r[:, cols]
        assert t_max[b] == pytest.approx(y.mean(axis=1).max() * math.sqrt(12 / 11), rel=1e-10)
        assert f[b] == pytest.approx(C.f_statistic(y) * 12 / 11, rel=1e-9)


def test_bad_input():
    with pytest.raises(ParameterError, match="19 replications"):
        C.resampled_null(_noise(3, 5, 1), trials=10, seed=1)
    with pytest.raises(ParameterError, match="2 complete topics"):
        C.resampled_null(np.ones((3, 1)), trials=100, seed=1)
    with pytest.raises(ParameterError, match="finite"):
        C.f_statistic(np.array([[1.0, np.inf], [0.0, 1.0]]))


@pytest.mark.slow
def test_false_alarms_before_and_after_on_a_heteroscedastic_family():
    # a small version of bench/bench_calibration.py's chance families on a synthetic
    # matrix whose runs differ 3x in noise: the Normal threshold with the pooled se rejects
    # far more than 5% of equal-means nulls; the resampled threshold stays near 5%
    sds = np.linspace(0.05, 0.15, 30)
    r = residuals(_noise(30, 40, 11, sds))
    k, n = r.shape
    zq = StdExtremes.make(k, "exact", None, None).max_q(0.95)[0]
    rng = np.random.default_rng(12)
    normal = resampled = 0
    cases = 120
    for i in range(cases):
        y = r[:, rng.integers(0, n, size=n)]
        t = float(y.mean(axis=1).max() - y.mean())
        normal += t > zq * topic_interaction(y).se
        resampled += C.resampled_null(y, trials=300, seed=1000 + i).p_max <= 0.05
    assert normal / cases > 0.09
    assert resampled / cases < 0.09 and resampled < normal


def test_mixed_noise_max_with_one_se_is_the_normal_max():
    zq = StdExtremes.make(50, "exact", None, None).max_q(0.95)[0]
    m = calibrated_max.mixed_noise_max(0.3, 0.2, 50, [0.02], alpha=0.05, trials=20_000, seed=1)
    assert m.threshold == pytest.approx(0.2 + 0.02 * zq, abs=3 * m.threshold_se + 1e-4)
    from litaudit.stats.extreme_exact import max_sf

    # value 0.3 is 5 se above the mean: P(max of 50 >= it) = 1.4e-5, below the +1 floor
    assert float(max_sf(0.3, 0.2, 0.02, 50)) < 1 / 20_001
    assert 1 / 20_001 <= m.p_value <= 5 / 20_001
    near = calibrated_max.mixed_noise_max(0.245, 0.2, 50, [0.02], alpha=0.05, trials=20_000, seed=2)
    assert near.p_value == pytest.approx(float(max_sf(0.245, 0.2, 0.02, 50)), abs=0.01)
    # unequal noise with the same mean square: a higher threshold
    het = calibrated_max.mixed_noise_max(
        0.3, 0.2, 50, [0.01, 0.0265], alpha=0.05, trials=20_000, seed=1
    )
    assert het.threshold > m.threshold
    with pytest.raises(ParameterError, match="> 0"):
        calibrated_max.mixed_noise_max(0.3, 0.2, 5, [0.0], alpha=0.05, trials=100, seed=1)


def test_max_t_replications_follow_the_counts():
    # a replication's studentized max from W R^T and W R^2: check against resampling the
    # residual matrix's columns directly and studentizing each run by its own sd
    x = _noise(6, 12, 9, sds=[0.05, 0.1, 0.1, 0.2, 0.1, 0.3])
    r = residuals(x)
    got = C.resampled_max_t(r, 3, np.random.default_rng(10))
    rng = np.random.default_rng(10)
    for b in range(3):
        y = r[:, np.repeat(np.arange(12), rng.multinomial(12, np.full(12, 1 / 12)))]
        t = np.abs(y.mean(axis=1)) / (y.std(axis=1, ddof=1) / math.sqrt(12))
        assert got[b] == pytest.approx(t.max(), rel=1e-9)


def test_max_t_finds_a_shifted_run_and_is_scale_free():
    x = _noise(12, 40, 21, sds=np.linspace(0.05, 0.2, 12))
    x[2] += 0.08  # 0.08 is 5.7 of run 2's se (sd 0.064 / sqrt(40))
    mt = C.max_t_test(x, trials=999, seed=22)
    assert mt.row == 2 and mt.p == pytest.approx(1 / 1000) and mt.statistic > mt.threshold
    # studentized: the statistic and its null do not change when scores are rescaled
    scaled = C.max_t_test(3 * x + 1, trials=999, seed=22)
    assert scaled.statistic == pytest.approx(mt.statistic, rel=1e-9)
    assert scaled.threshold == pytest.approx(mt.threshold, rel=1e-9)
    # and resampled_null carries it on the same seed
    assert C.resampled_null(x, trials=999, seed=22).max_t == mt


def test_max_t_holds_its_level_where_the_f_does_not():
    # runs differ 3x in noise: equal-means nulls resampled from the matrix, as in
    # bench_calibration; the studentized max-t rejects about 5% (8 of 150), the F on its
    # df 16 of 150
    from scipy import stats as sps

    x = _noise(30, 40, 31, np.linspace(0.05, 0.15, 30))
    r = residuals(x)
    k, n = r.shape
    f_crit = float(sps.f.isf(0.05, k - 1, (k - 1) * (n - 1)))
    rng = np.random.default_rng(33)
    f_test = max_t = 0
    cases = 150
    for i in range(cases):
        y = r[:, rng.integers(0, n, size=n)]
        f_test += topic_interaction(y).f_systems > f_crit
        max_t += C.max_t_test(y, trials=200, seed=2000 + i).p <= 0.05
    assert f_test / cases > 0.10
    assert max_t / cases <= 0.07 and max_t < f_test


@pytest.mark.slow
def test_resampled_max_of_equal_normal_runs_is_the_normal_max():
    # 30 runs with the same Normal noise on 400 topics: each draw's resampled mean is
    # Normal with the run's se, so the threshold of the max of 50 independent draws is
    # mu + se z_50(0.95) within the bootstrap's error
    x = _noise(30, 400, 41)
    m = calibrated_max.resampled_max(0.35, 0.3, 50, x, alpha=0.05, trials=8000, seed=42)
    se = float(np.mean(np.std(residuals(x), axis=1, ddof=1))) / math.sqrt(400)
    zq = StdExtremes.make(50, "exact", None, None).max_q(0.95)[0]
    assert m.threshold == pytest.approx(0.3 + se * zq, rel=0.01)
    assert (m.method, m.n_runs, m.n_topics, m.n_draws) == ("resampled", 30, 400, 50)
    assert m.p_value == pytest.approx(1 / 8001)  # 0.05 is 10 se above the mean
    # one noisy run among quiet ones raises it, as with mixed_noise_max
    y = _noise(30, 400, 41, sds=[0.1] * 29 + [0.3])
    assert calibrated_max.resampled_max(
        0.35, 0.3, 50, y, alpha=0.05, trials=8000, seed=42
    ).threshold > (m.threshold + 5 * m.threshold_se)
    with pytest.raises(ParameterError, match="19 trials"):
        calibrated_max.resampled_max(0.35, 0.3, 50, x, alpha=0.05, trials=10, seed=1)
