"""The audits of Carterette (SIGIR 2015) built on the extreme-value distributions of
:mod:`litaudit.stats.extreme`: the beyond-chance thresholds of the max and the min of N
results (Sec. 3.1), the intrinsic-effectiveness interval of a value (Sec. 3.1, Table 3),
and the audit of a collection's best result with its candidate best systems (Tables 2-3).
Pure: arrays in, frozen dataclasses out.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy.special import log_ndtr

from litaudit.stats.extreme import (
    MaxValueDistribution,
    Reference,
    StdExtremes,
    mvd_from_extremes,
    reference,
)
from litaudit.stats.extreme_checks import check_interval_p, check_mu, check_prob, check_se


@dataclass(frozen=True)
class Thresholds:
    """Beyond-chance thresholds at level alpha (Sec. 3.1, the TREC-7 example).

    ``max_threshold``: the value the max of N exceeds with probability alpha (0.2375 for
    TREC-7); ``min_threshold``: the value the min falls below with probability alpha
    (0.1625). ``n_above``/``n_below`` count published results strictly above/below them
    and ``n_within`` the rest. ``expected_above_under_null`` is ``N * P(one draw >
    max_threshold)``, the number of the N expected above it if all N were draws from the
    reference distribution (``N * (1 - (1 - alpha)**(1/N))``, about 0.051 at alpha 0.05),
    and ``expected_below_under_null`` the same below ``min_threshold``. The paper's aside
    "33 (95% of 35, since we expect 5% to be false positives)", alpha times the count
    above, is not computed: nothing in the model makes 5% of the runs above the threshold
    false positives (docs/STATISTICS.md). ``*_se`` are Monte Carlo standard errors (0 when
    exact). ``gap_sd``: (max_threshold - mu) / sd, how far the threshold lies above the
    mean in between-system standard deviations (descriptive: no rule is built on it;
    docs/STATISTICS.md, "Against chance").
    """

    alpha: float
    max_threshold: float
    max_threshold_se: float
    min_threshold: float
    min_threshold_se: float
    n_above: int
    n_below: int
    n_within: int
    expected_above_under_null: float
    expected_below_under_null: float
    gap_sd: float = math.nan  # (default: audits stored before issue 19 have none)


def gap_in_sd(threshold: float, mu: float, sd: float) -> float:
    """How far ``threshold`` lies above ``mu`` in between-system sd (descriptive)."""
    return (threshold - mu) / sd


def _thresholds(values: np.ndarray, ref: Reference, ext: StdExtremes, alpha: float) -> Thresholds:
    zq, zq_se = ext.max_q(1.0 - alpha)
    wq, wq_se = ext.min_q(alpha)
    hi = ref.mu + ref.se * zq
    lo = ref.mu + ref.se * wq
    above = int(np.sum(values > hi))
    below = int(np.sum(values < lo))
    null_above = ref.n_results * float(np.exp(log_ndtr(-zq)))
    null_below = ref.n_results * float(np.exp(log_ndtr(wq)))
    return Thresholds(
        alpha,
        hi,
        ref.se * zq_se,
        lo,
        ref.se * wq_se,
        above,
        below,
        ref.n_results - above - below,
        null_above,
        null_below,
        gap_in_sd(hi, ref.mu, ref.sd),
    )


def thresholds(
    values,
    n_topics: int,
    *,
    alpha: float = 0.05,
    method: str = "exact",
    trials: int | None = None,
    seed: int | None = None,
    se: float | None = None,
) -> Thresholds:
    """Beyond-chance thresholds of the max and min of the N ``values`` at level alpha
    (``se``: a standard error known otherwise; default the model's)."""
    alpha = check_prob("alpha", alpha)
    ref = reference(values, n_topics, se)
    ext = StdExtremes.make(ref.n_results, method, trials, seed)
    return _thresholds(np.asarray(values, dtype=np.float64), ref, ext, alpha)


@dataclass(frozen=True)
class IntrinsicInterval:
    """Intrinsic-effectiveness interval of an observed value (Sec. 3.1, Fig. 3, Table 3).

    ``mu0``: the lowest population mean whose max of ``N`` draws (standard error ``se``)
    reaches ``value`` with probability ``p``; ``lower``: the p-quantile of the MnVD
    centred at mu0; ``upper`` equals ``value``. Values in [lower, upper] are
    non-extreme draws from Normal(mu0, se) with probability ``coverage = 1 - 2p``.
    ``drop`` = ``1 - mu0 / value`` ("0.2705, which is 11% lower than 0.303");
    ``width`` = ``upper / lower - 1`` ("the upper bound up to 20% higher than the lower").
    ``*_se`` are Monte Carlo standard errors (0 when exact).
    """

    value: float
    p: float
    N: int
    se: float
    mu0: float
    mu0_se: float
    lower: float
    lower_se: float
    upper: float
    coverage: float
    drop: float
    width: float


def interval_from_extremes(
    value: float, se: float, ext: StdExtremes, p: float
) -> IntrinsicInterval:
    zq, zq_se = ext.max_q(1.0 - p)
    wq, wq_se = ext.min_q(p)
    mu0 = value - se * zq
    lower = mu0 + se * wq
    return IntrinsicInterval(
        value=value,
        p=p,
        N=ext.N,
        se=se,
        mu0=mu0,
        mu0_se=se * zq_se,
        lower=lower,
        lower_se=se * math.hypot(zq_se, wq_se),
        upper=value,
        coverage=1.0 - 2.0 * p,
        drop=(1.0 - mu0 / value) if value != 0 else math.nan,
        width=(value / lower - 1.0) if lower > 0 else math.nan,
    )


def intrinsic_interval(
    value: float,
    se: float,
    N: int,
    *,
    p: float = 0.2,
    method: str = "exact",
    trials: int | None = None,
    seed: int | None = None,
) -> IntrinsicInterval:
    """mu0 and the lower bound for an observed ``value`` as the max of N (Table 3)."""
    value, se, p = check_mu(value), check_se(se), check_interval_p(p)
    return interval_from_extremes(value, se, StdExtremes.make(N, method, trials, seed), p)


@dataclass(frozen=True, kw_only=True)
class BestAudit:
    """Everything the paper's Tables 2 and 3 report for one collection and measure.

    ``reference`` is Table 2 (N, mean, sd, max, plus n and the standard error);
    ``mxvd`` the max-value distribution of N draws (expected max, Gumbel);
    ``thresholds`` the beyond-chance thresholds and counts at ``alpha``;
    ``interval`` Table 3 (mu0 and the 1-2p interval) for ``value`` (default: the max);
    ``candidates`` the indices (into the input order) of every result >= interval.lower,
    best first (ties by input order): the last column of Table 3 is ``len(candidates)``.
    ``values`` are the input values sorted ascending (for plots).
    """

    reference: Reference
    mxvd: MaxValueDistribution
    thresholds: Thresholds
    interval: IntrinsicInterval
    candidates: tuple[int, ...]
    n_candidates: int
    values: tuple[float, ...]
    alpha: float
    p: float
    method: str
    trials: int | None
    seed: int | None


def audit_best(
    values,
    n_topics: int,
    *,
    alpha: float = 0.05,
    p: float = 0.2,
    value: float | None = None,
    method: str = "exact",
    trials: int | None = None,
    seed: int | None = None,
    se: float | None = None,
) -> BestAudit:
    """Extreme-value audit of the best of N published results (Sec. 3.1, Tables 2-3).

    ``values``: the N mean effectiveness values; ``n_topics``: topics per mean; ``alpha``:
    level of the beyond-chance thresholds; ``p``: the probability defining mu0 and the
    lower bound; ``value``: the value whose interval is wanted (default: the max).
    ``method='montecarlo'`` needs an integer ``seed`` and uses ``trials`` simulations
    (default 10,000) of N draws for every quantity. ``se``: the standard error of one
    mean when it is known otherwise (measured from per-topic scores, or given); default
    the model's ``sd / sqrt(n_topics)``.
    """
    v = np.asarray(values, dtype=np.float64).ravel()
    alpha, p = check_prob("alpha", alpha), check_interval_p(p)
    ref = reference(v, n_topics, se)
    target = ref.maximum if value is None else check_mu(value)
    ext = StdExtremes.make(ref.n_results, method, trials, seed)
    th = _thresholds(v, ref, ext, alpha)
    iv = interval_from_extremes(target, ref.se, ext, p)
    order = sorted(range(v.size), key=lambda i: (-v[i], i))
    cands = tuple(i for i in order if v[i] >= iv.lower)
    return BestAudit(
        reference=ref,
        mxvd=mvd_from_extremes(ref.mu, ref.se, ext, seed),
        thresholds=th,
        interval=iv,
        candidates=cands,
        n_candidates=len(cands),
        values=tuple(float(x) for x in np.sort(v)),
        alpha=alpha,
        p=p,
        method=ext.method,
        trials=ext.trials,
        seed=seed if ext.trials else None,
    )
