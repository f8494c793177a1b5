"""The threshold of the max of N equally good systems whose noise differs as measured runs'
does (issue 30; the Normal threshold of the max: Carterette, SIGIR 2015, Sec. 3.1).

The pooled Normal threshold takes one se for every system, and the max picks the noisy
ones. :func:`mixed_noise_max` simulates each draw Normal(mu, se_i) with se_i one of the
measured runs' se drawn at random; :func:`resampled_max` draws each system as one of a
stored archive's runs and resamples its residuals over the topics
(:mod:`litaudit.stats.calibrated`, which resamples a matrix's residuals for the matrix's
own best). Either gives the (1 - alpha) quantile of the simulated maxima with its Monte
Carlo se, and the +1 p-value of a value (:class:`MixedNoiseMax`). Randomness only through
the ``seed``. Pure: arrays in, frozen dataclasses out.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from litaudit.errors import ParameterError
from litaudit.stats.calibrated import CHUNK, clean_scores, quantile_se
from litaudit.stats.extreme_checks import check_prob
from litaudit.stats.memo import Memo
from litaudit.stats.noise import residuals


@dataclass(frozen=True, kw_only=True)
class MixedNoiseMax:
    """The max of ``n_draws`` equally good systems whose noise differs as measured runs'
    does: each draw Normal(``mu``, se_i) with se_i one of ``run_ses`` drawn at random (the
    pooled Normal threshold takes one se for all, and the max picks the noisy ones).
    ``threshold``: the (1 - alpha) quantile over ``trials`` simulations (``seed``), with
    its Monte Carlo se; ``p_value``: the +1 share of simulated maxima >= ``value``."""

    n_draws: int
    mu: float
    alpha: float
    trials: int
    seed: int
    threshold: float
    threshold_se: float
    value: float
    p_value: float
    # 'normal' (each draw Normal with a run's se) or 'resampled' (:func:`resampled_max`;
    # then ``n_runs`` x ``n_topics`` is the residual matrix the draws come from)
    method: str = "normal"
    n_runs: int | None = None
    n_topics: int | None = None


def _max_of(
    mx: np.ndarray, *, value: float, mu: float, n_draws: int, alpha: float, seed: int, **how
) -> MixedNoiseMax:
    """The threshold, its Monte Carlo se and the p-value of ``value`` from ``mx``, the
    simulated maxima of ``n_draws`` draws around ``mu`` (one a replication)."""
    trials = mx.size
    return MixedNoiseMax(
        n_draws=int(n_draws),
        mu=float(mu),
        alpha=alpha,
        trials=int(trials),
        seed=int(seed),
        threshold=float(mu) + float(np.quantile(mx, 1 - alpha)),
        threshold_se=quantile_se(np.sort(mx), 1 - alpha),
        value=float(value),
        p_value=float((1 + np.sum(mx >= float(value) - float(mu))) / (trials + 1)),
        **how,
    )


def mixed_noise_max(
    value: float, mu: float, n_draws: int, run_ses, *, alpha: float, trials: int, seed: int
) -> MixedNoiseMax:
    """See :class:`MixedNoiseMax`."""
    alpha = check_prob("alpha", alpha)
    ses = np.asarray(run_ses, dtype=np.float64).ravel()
    if ses.size == 0 or not np.all(np.isfinite(ses)) or np.any(ses <= 0):
        raise ParameterError("run standard errors must be finite numbers > 0")
    if trials < 19 or n_draws < 1:
        raise ParameterError(f"need >= 19 trials and >= 1 draw, got {trials} and {n_draws}")
    if type(trials) is int and type(seed) is int and type(n_draws) is int:
        key = (ses.tobytes(), n_draws, trials, seed)
        mx = _MAXIMA_KEPT.get(key, lambda: _mixed_maxima(ses, n_draws, trials, seed))
    else:
        mx = _mixed_maxima(ses, n_draws, trials, seed)
    return _max_of(mx, value=value, mu=mu, n_draws=n_draws, alpha=alpha, seed=seed)


def _mixed_maxima(ses: np.ndarray, n_draws: int, trials: int, seed: int) -> np.ndarray:
    """The ``trials`` simulated maxima of :func:`mixed_noise_max` (around 0; read-only).
    They depend on the run ses, the draws, the trials and the seed only, not on the value
    or the mean: audits of one collection ask for the same ones, and a repeated call finds
    them in :data:`_MAXIMA_KEPT` (21.8 ms for 330 draws x 4,000 trials, then ~0.3 ms)."""
    rng = np.random.default_rng(seed)
    mx = np.empty(trials)
    step = max(1, 2_000_000 // n_draws)
    for start in range(0, trials, step):
        b = min(step, trials - start)
        se = ses[rng.integers(0, ses.size, size=(b, n_draws))]
        mx[start : start + b] = (rng.standard_normal((b, n_draws)) * se).max(axis=1)
    mx.flags.writeable = False
    return mx


_MAXIMA_KEPT: Memo[np.ndarray] = Memo(32)


def resampled_max(
    value: float, mu: float, n_draws: int, scores, *, alpha: float, trials: int, seed: int
) -> MixedNoiseMax:
    """The threshold of the max of ``n_draws`` equally good systems resampled from the
    residuals of a per-topic matrix (``scores``, systems in rows; a run archive): each
    draw is a run of the matrix drawn at random, its mean over the topics of its residual
    row resampled with replacement (times sqrt(n / (n - 1)), as in :func:`resampled_stats`),
    around ``mu``. So every draw has a real run's noise, shape included, and the draws are
    independent, as the N systems of Carterette's model are (the matrix's own runs are
    correlated within a topic; independent draws have the larger max). With the matrix's
    runs as the draws and their correlation kept, the threshold is
    :func:`resampled_null`'s. ``trials`` replications (``seed``): a table of ``trials``
    resampled means per run (one B x n by n x k product), then ``n_draws`` (run,
    replication) cells picked at random per replication."""
    alpha = check_prob("alpha", alpha)
    if trials < 19 or n_draws < 1:
        raise ParameterError(f"need >= 19 trials and >= 1 draw, got {trials} and {n_draws}")
    x = clean_scores(scores)
    k, n = x.shape
    r = residuals(x)
    rng = np.random.default_rng(seed)
    table = np.empty((trials, k))
    for start in range(0, trials, CHUNK):
        b = min(CHUNK, trials - start)
        w = rng.multinomial(n, np.full(n, 1.0 / n), size=b).astype(np.float64)
        table[start : start + b] = w @ r.T / n
    table *= math.sqrt(n / (n - 1))
    flat = table.ravel()
    mx = np.empty(trials)
    step = max(1, 2_000_000 // n_draws)
    for start in range(0, trials, step):
        b = min(step, trials - start)
        mx[start : start + b] = flat[rng.integers(0, flat.size, size=(b, n_draws))].max(axis=1)
    return _max_of(
        mx,
        value=value,
        mu=mu,
        n_draws=n_draws,
        alpha=alpha,
        seed=seed,
        method="resampled",
        n_runs=k,
        n_topics=n,
    )
