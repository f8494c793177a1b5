"""Thresholds of the max, and the F test, calibrated by resampling a per-topic matrix.

Issue 30: where per-topic scores exist, the Normal threshold of the max (Carterette, SIGIR
2015, Sec. 3.1) with the measured interaction se, and the F test of a two-way ANOVA
without replication (Tague-Sutcliffe and Blustein, TREC-3 1995), both assume that every
run is equally noisy. Runs are not (their residual sds differ by up to 2x,
:func:`litaudit.stats.noise.residual_sds`), and the max picks the noisiest: on the shared
TREC matrices both reject 6-22% of equal-means nulls at a nominal 5%
(bench/bench_calibration.py). Here both are calibrated on the matrix's own residuals:

* the null of equal means is the residual matrix R (double-centred: every system's and
  every topic's mean 0), and a replication resamples its topics (columns) with
  replacement (the bootstrap of Efron and Tibshirani, *An Introduction to the Bootstrap*,
  1993, Ch. 16, "hypothesis testing": resample from the null-shifted data), keeping each
  run's own noise and the runs' correlation within a topic;
* **threshold of the max**: the (1 - alpha) quantile of ``sqrt(n / (n - 1)) max_i mean_j
  R*_ij`` over the replications (R* the resampled matrix; the factor undoes the
  bootstrap's (n - 1) / n shrinkage of a mean's variance), added to the grand mean; the observed best mean
  is tested against it (p = (1 + #{T* >= T}) / (B + 1));
* **F by resampling**: the same replications' F statistics; and **F by permutation**
  (scores permuted among the systems within each topic: exact when runs are exchangeable
  within a topic, which unequal noise breaks: 21-27% false alarms on TREC-7 and
  Robust04). Both are shown as measured;
* **the studentized max-t** (:func:`max_t_test`), the test of equal means the audit
  reports: ``max_i |m_i - m| / se_i`` with each run's own se, by the bootstrap-t on the
  same replications (3.2-5.6% false alarms on the 20 shared matrices, every 95% interval
  reaching 5%; bench_calibration, README).

A replication's row means are ``W R^T / n`` with W the multinomial counts of the resampled
topics, so B replications cost one B x n by n x k product. Randomness only through the
``seed``. Pure: arrays in, frozen dataclasses out.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from litaudit.errors import ParameterError
from litaudit.stats.extreme_checks import check_prob
from litaudit.stats.noise import residuals

CHUNK = 256  # replications computed at once (memory: CHUNK x n counts, CHUNK x k means)


@dataclass(frozen=True, kw_only=True)
class ResampledNull:
    """The equal-means null of a systems x topics matrix by resampling its topics.

    ``n_systems`` x ``n_topics``; ``grand_mean``; ``best_mean`` and ``t_max`` = best mean -
    grand mean (the observed statistic); ``f`` the observed F; ``max_threshold`` = grand
    mean + the (1 - alpha) quantile of the replications' max (``max_offset``), with its
    Monte Carlo se (``max_offset_se``, from the binomial order statistics of the quantile);
    ``p_max`` and ``p_f`` the +1 p-values of the observed max and F among ``trials``
    replications (``seed``); ``f_threshold`` the (1 - alpha) quantile of the replications' F
    (measured, not calibrated when runs differ in noise); ``max_t`` the calibrated test of
    equal means, the studentized max on the same replications (:func:`max_t_test`; None in
    audits stored before it).
    """

    n_systems: int
    n_topics: int
    alpha: float
    trials: int
    seed: int
    grand_mean: float
    best_mean: float
    t_max: float
    f: float
    max_offset: float
    max_offset_se: float
    max_threshold: float
    f_threshold: float
    p_max: float
    p_f: float
    max_t: MaxTTest | None = None  # the calibrated test of equal means (None: before #30's F)


def clean_scores(scores) -> np.ndarray:
    """A systems x topics table as floats, the topics some system lacks (NaN) left out;
    ParameterError when it is not one, holds an infinity, or has under 2 x 2 left."""
    x = np.asarray(scores, dtype=np.float64)
    if x.ndim != 2:
        raise ParameterError(f"per-topic scores must be a systems x topics table, got {x.ndim}-d")
    if np.isinf(x).any():
        raise ParameterError("per-topic scores must be finite numbers")
    x = x[:, ~np.isnan(x).any(axis=0)]
    if x.shape[0] < 2 or x.shape[1] < 2:
        raise ParameterError(
            f"resampling needs at least 2 systems and 2 complete topics, got {x.shape[0]} x "
            f"{x.shape[1]}"
        )
    return x


def f_statistic(scores) -> float:
    """MS_systems / MS_interaction of a complete systems x topics table."""
    x = clean_scores(scores)
    k, n = x.shape
    r = residuals(x)
    m = x.mean(axis=1)
    ms_s = n * float(np.sum((m - m.mean()) ** 2)) / (k - 1)
    ms_i = float(np.sum(r * r)) / ((k - 1) * (n - 1))
    return ms_s / ms_i if ms_i > 0 else math.inf


def resampled_stats(resid: np.ndarray, trials: int, rng: np.random.Generator):
    """(max of the row means, F) of ``trials`` replications of the double-centred ``resid``
    with its topics resampled (see the module doc)."""
    k, n = resid.shape
    col_ss = np.sum(resid * resid, axis=0)
    t_max = np.empty(trials)
    f = np.empty(trials)
    done = 0
    while done < trials:
        b = min(CHUNK, trials - done)
        w = rng.multinomial(n, np.full(n, 1.0 / n), size=b).astype(np.float64)
        means = w @ resid.T / n  # b x k; each row sums to 0 (resid's columns do)
        ss_s = n * np.sum(means * means, axis=1)
        ss_r = w @ col_ss - ss_s
        # x sqrt(n / (n - 1)): a resampled mean's variance is (n - 1) / n of the unbiased
        # one (Efron and Tibshirani 1993, Sec. 5.2); without it the max's quantile is low
        t_max[done : done + b] = means.max(axis=1) * math.sqrt(n / (n - 1))
        with np.errstate(divide="ignore", invalid="ignore"):
            # the same n / (n - 1) for the F's numerator (its denominator is not shrunk)
            f[done : done + b] = (ss_s / (k - 1)) / (ss_r / ((k - 1) * (n - 1))) * (n / (n - 1))
        done += b
    return t_max, f


def _max_t(means: np.ndarray, var: np.ndarray) -> np.ndarray:
    """``max_i |m_i| / sqrt(v_i)`` of each row of ``means`` (b x k, topic-centred means)
    with the squared ses ``var`` (floored at 1e-12 of the row's mean, so that a run
    without noise counts as very precise rather than dividing by 0)."""
    floor = 1e-12 * var.mean(axis=1, keepdims=True) + 1e-300
    return np.max(np.abs(means) / np.sqrt(np.maximum(var, floor)), axis=1)


def resampled_max_t(resid: np.ndarray, trials: int, rng: np.random.Generator) -> np.ndarray:
    """The studentized max of ``trials`` replications of the double-centred ``resid`` with
    its topics resampled, every run's se recomputed in each replication (the bootstrap-t;
    see :func:`max_t_test`)."""
    k, n = resid.shape
    sq = (resid * resid).T
    out = np.empty(trials)
    done = 0
    while done < trials:
        b = min(CHUNK, trials - done)
        w = rng.multinomial(n, np.full(n, 1.0 / n), size=b).astype(np.float64)
        means = w @ resid.T / n  # b x k; each row sums to 0 (resid's columns do)
        ss = w @ sq  # b x k: each run's sum of squared resampled residuals
        var = np.maximum(ss - n * means * means, 0.0) / (n * (n - 1))
        out[done : done + b] = _max_t(means, var)
        done += b
    return out


@dataclass(frozen=True, kw_only=True)
class MaxTTest:
    """Equal means of a systems x topics table tested by the studentized max
    (:func:`max_t_test`): ``statistic`` observed (``max_i |m_i - m| / se_i``) and the run
    it comes from (``row``, 0-based), its (1 - ``alpha``) ``threshold`` among ``trials``
    replications (``seed``) and the +1 ``p``."""

    n_systems: int
    n_topics: int
    alpha: float
    trials: int
    seed: int
    statistic: float
    row: int
    threshold: float
    p: float


def max_t_test(scores, *, alpha: float = 0.05, trials: int, seed: int) -> MaxTTest:
    """Test that all systems of ``scores`` (systems in rows) have equal means by the
    studentized max ``max_i |m_i - m| / se_i``, each run with its own se, referred to its
    resampled equal-means null: the topics of the residual matrix resampled, each run's se
    recomputed in every replication.

    This is the bootstrap-t (Hall and Wilson, "Two guidelines for bootstrap hypothesis
    testing", Biometrics 47, 1991: resample so that the null holds and studentize every
    replication) applied to the max-T statistic of resampling-based multiple testing
    (Westfall and Young, *Resampling-Based Multiple Testing*, 1993, Sec. 2.6; Romano and
    Wolf, Econometrica 73, 2005, for the studentized version). It replaces the F as the
    test of equal means the audit reports: runs differ in residual noise, and a sum of
    squares over all runs (the F, resampled or permuted, or Welch's heteroscedastic F)
    picks up a whole matrix's worth of small shifts that an unseen outlying topic leaves
    behind (Web 2012 AP, one topic carrying 24.5% of the residual sum of squares: in the
    resamples without it the resampled F rejects 13%, Welch's 20%; over 400 cases the
    resampled F 7.2% [5.1, 10.2], Welch's 9.5% [7.0, 12.8], this test 6.0% [4.1, 8.8];
    over 1,000, the F 5.2% [4.0, 6.8] and this test 4.1% [3.0, 5.5], bench_calibration).
    Its calibration is measured on those matrices, not proved: where one topic carries a
    large share of the residuals *and* sits on a few runs (synthetic, 30 runs x 40 topics,
    three runs 1.2 above the rest on one topic: 23% of the residual sum of squares), it
    rejects 22% of resampled nulls, and the resampled F 2%."""
    alpha = check_prob("alpha", alpha)
    if trials < 19:
        raise ParameterError(f"need at least 19 replications, got {trials}")
    x = clean_scores(scores)
    k, n = x.shape
    r = residuals(x)
    m = x.mean(axis=1) - x.mean()
    v = np.sum(r * r, axis=1) / (n * (n - 1))
    floor = 1e-12 * v.mean() + 1e-300
    t = np.abs(m) / np.sqrt(np.maximum(v, floor))
    obs = float(t.max())
    star = resampled_max_t(r, trials, np.random.default_rng(seed))
    return MaxTTest(
        n_systems=k,
        n_topics=n,
        alpha=alpha,
        trials=int(trials),
        seed=int(seed),
        statistic=obs,
        row=int(np.argmax(t)),
        threshold=float(np.quantile(star, 1 - alpha)),
        p=float((1 + np.sum(star >= obs)) / (trials + 1)),
    )


def quantile_se(sorted_x: np.ndarray, q: float) -> float:
    """Monte Carlo se of the q-quantile of B draws: half the spread between the order
    statistics B q -+ sqrt(B q (1 - q)) (the binomial count's sd)."""
    b = sorted_x.size
    h = math.sqrt(b * q * (1 - q))
    lo = sorted_x[max(0, int(math.floor(b * q - h)))]
    hi = sorted_x[min(b - 1, int(math.ceil(b * q + h)))]
    return float(hi - lo) / 2.0


def resampled_null(scores, *, alpha: float = 0.05, trials: int, seed: int) -> ResampledNull:
    """The resampled equal-means null of ``scores`` (systems in rows; see the module doc)."""
    alpha = check_prob("alpha", alpha)
    if trials < 19:
        raise ParameterError(f"need at least 19 replications, got {trials}")
    x = clean_scores(scores)
    k, n = x.shape
    r = residuals(x)
    grand = float(x.mean())
    best = float(x.mean(axis=1).max())
    f_obs = f_statistic(x)
    t_star, f_star = resampled_stats(r, trials, np.random.default_rng(seed))
    t_sorted = np.sort(t_star)
    q = float(np.quantile(t_star, 1 - alpha))
    return ResampledNull(
        n_systems=k,
        n_topics=n,
        alpha=alpha,
        trials=int(trials),
        seed=int(seed),
        grand_mean=grand,
        best_mean=best,
        t_max=best - grand,
        f=f_obs,
        max_offset=q,
        max_offset_se=quantile_se(t_sorted, 1 - alpha),
        max_threshold=grand + q,
        f_threshold=float(np.quantile(f_star, 1 - alpha)),
        p_max=float((1 + np.sum(t_star >= best - grand)) / (trials + 1)),
        p_f=float((1 + np.sum(f_star >= f_obs)) / (trials + 1)),
        max_t=max_t_test(x, alpha=alpha, trials=trials, seed=seed),
    )


def permutation_f(scores, *, trials: int, seed: int) -> float:
    """The +1 p-value of the F statistic among ``trials`` permutations of the scores among
    the systems within each topic."""
    if trials < 19:
        raise ParameterError(f"need at least 19 permutations, got {trials}")
    x = clean_scores(scores)
    k, n = x.shape
    rng = np.random.default_rng(seed)
    xc = x - x.mean(axis=0)  # topic effects out: a permutation within a topic keeps them
    total_ss = float(np.sum(xc * xc))  # invariant under permutations within topics
    obs = _f_from_means(xc.mean(axis=1), total_ss, k, n)
    hits = 0
    cols = np.arange(n)[None, :]
    for _ in range(trials):
        perm = np.argsort(rng.random((k, n)), axis=0)
        m = xc[perm, cols].mean(axis=1)
        if _f_from_means(m, total_ss, k, n) >= obs:
            hits += 1
    return (1 + hits) / (trials + 1)


def _f_from_means(m: np.ndarray, total_ss: float, k: int, n: int) -> float:
    """F of a table whose topic means are 0 from its row means and total sum of squares."""
    ss_s = n * float(np.sum(m * m))
    ss_r = total_ss - ss_s
    return (ss_s / (k - 1)) / (ss_r / ((k - 1) * (n - 1))) if ss_r > 0 else math.inf
