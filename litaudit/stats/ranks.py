"""Rank resolution of systems scored on the same units (topics, or a benchmark's datasets):
the confidence set of the best, simultaneous rank intervals, and the share of resamples
in which each system is first.

Input: a K x T matrix ``y`` of K systems' scores on T shared units (paired), optionally
with ``unit_se`` (K x T), each cell's own sampling error (a dataset's score is itself a
mean over its queries). Units are the resampling unit.

* **Paired bootstrap over units** (Efron and Tibshirani, *An Introduction to the
  Bootstrap*, 1993, Ch. 6): B multinomial resamples of the T units, the same for every
  system, give the K x B resampled means S*. With ``unit_se``, each resample adds to
  system k's mean a Normal error of variance sum_d w_d se_kd^2 / T^2 (w_d: how often unit
  d was drawn), so a mean over datasets carries each dataset's own noise besides the
  choice of datasets. The covariance of the K means is
  Sigma = R R' / (T (T - 1)) + diag(sum_d se_kd^2 / T^2) (R: the scores centred by
  system); the se of a difference is se_ij = sqrt(Sigma_ii + Sigma_jj - 2 Sigma_ij).
  The noise is added independently per system, which ignores that systems of one dataset
  share its queries: the se of a difference is then too large, never too small.
* **Confidence set of the best**: multiple comparisons with the best (Hsu, *Multiple
  Comparisons: Theory and Methods*, 1996, Sec. 4.1: the constrained MCB set of systems
  not significantly worse than the best of the others), with a studentized paired
  bootstrap in place of the equal-variance t: M_i = max_{j != i}
  [(S*_j - S*_i) - (m_j - m_i)] / se_ij, c = max_i q_{1-alpha}(M_i), and the set
  {i : m_j - m_i <= c se_ij for every j}. The truly best system b is in it whenever
  M_b <= c, which has probability >= 1 - alpha (asymptotically in T; the same
  construction as Mogstad, Romano, Shaikh and Wilhelm's confidence set for the best,
  "Inference for Ranks with Applications to Mobility across Neighbourhoods and Academic
  Achievement across Countries", Review of Economic Studies 91(1), 2024, Sec. 4, with the
  largest of the K one-sided quantiles since b is unknown). This is honestboard's
  ``Board.confidence_set_best(method="mcb")`` when studentized by the sample's se.
* **Simultaneous rank intervals**: Mogstad et al. (2024), Sec. 3 (simultaneous confidence
  sets for all ranks): every ordered pair (i, j) is a hypothesis theta_i <= theta_j,
  rejected when (m_i - m_j) / se_ij exceeds the 1 - alpha quantile of the bootstrap max
  over the pairs still in play of [(S*_i - S*_j) - (m_i - m_j)] / se*_ij, stepwise (the
  step-down of Romano and Wolf, Econometrica 73(4), 2005, their Sec. 3.3 refinement):
  rejected pairs leave, the quantile is recomputed, until nothing more is rejected. The
  rank interval of i (1 = best) is [1 + #{j rejected better than i}, K - #{j rejected
  worse than i}]; all K intervals hold at once with probability >= 1 - alpha.
* **P(first)**: the share of resamples in which a system has the largest mean, a resample
  tied at the top split among the tied (honestboard's ``p_best``); its Monte Carlo se is
  sqrt(p (1 - p) / B).

Studentization (``studentize``): 'sample' divides every resample's deviation by the
sample's se_ij (honestboard's choice; equal results on the same resamples); 'resample' is
the bootstrap-t (Hall, *The Bootstrap and Edgeworth Expansion*, 1992, Sec. 3.5): each
resample's deviation by that resample's own se of the difference. 'auto' (the default) is
the bootstrap-t wherever T K^2 <= 2e7 (the resample se costs K^2 T per resample; it is
computed in single precision: a quantile to 1e-3 needs no more), else 'sample'.

Two floors (ours), both named in ``method``:
* **The se of a difference** is at least ``se_floor`` (1/4) of the median pair's, in the
  sample and in every resample. A pair of near-identical runs (TREC-7's runs 20 and 21:
  equal on 22 topics, within 0.01 on 27, 0.08 apart on one) has a near-zero se; a sample
  without the one topic where they differ shows a consistent offset that a studentized
  test takes for a real one (left out of the set in 25% of equal-means samples). Floored,
  such a pair weighs as an unstudentized difference of its size.
* **A resample's own se** is at least 1/4 of the sample's (``SE_FLOOR``): the
  bootstrap-t's heavy upper tail (resamples with a small se) is what widens its critical
  value over a small number of units (BEIR-13's 13 datasets); at half the sample's the
  step-down separated some pair of equally good systems in 10-20% of samples.

Consistency (``consistent``, default): a system whose simultaneous rank interval starts at
1 joins the set, and every system of the set has its rank interval start at 1. Both only
widen (a set holding the MCB set, intervals holding the step-down's), so both guarantees
hold and the two never contradict each other; the set is then larger than MCB's alone.

Calibration on whole matrices (bench/bench_ranks.py, docs/STATISTICS.md): every one of the
20 shared per-topic matrices and BEIR-13 nDCG@10 (each dataset's bound se), under
equal-means nulls and a one-clear-best-plus-ties null resampled from their real residuals.

Monte Carlo error of the set: the critical value c is a bootstrap quantile; its 95%
order-statistic interval [c_lo, c_hi] (the quantile's binomial interval) is stated, and
systems whose membership differs between c_lo and c_hi are listed as ``unsure``.

Pure: arrays in, a frozen dataclass out.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from litaudit.errors import ParameterError
from litaudit.stats.rank_resamples import (
    Resamples,
    column_max,
    difference_se,
    first_pass,
    mean_covariance,
    p_first,
)

SE_FLOOR = 0.25  # ours: a resample's se of a difference is at least 1/4 of the sample's
SE_FLOOR_SHARE = 0.25  # ours: no se of a difference below 1/4 of the median pair's
BOOTSTRAP_T_MAX_CELLS = 20_000_000  # ours: "auto" is the bootstrap-t while T K^2 <= this
# (the units' outer products, 80 MB in single precision; robust04's 110 x 249: 3.0e6)
STUDENTIZE = {
    "resample": "bootstrap-t: each resample studentized by its own se (at least 1/4 of the sample's)",
    "sample": "studentized by the sample's se",
}
METHOD = (
    "paired bootstrap over {units} ({B} resamples, seed {seed}{noise}; {t}{floor}); "
    "confidence set of the best: multiple comparisons with the best (Hsu 1996); rank "
    "intervals: simultaneous, step-down (Mogstad, Romano, Shaikh and Wilhelm 2024){joint}"
)
FLOOR_WORDS = "; no se of a difference below {share:g} of the median pair's"
JOINT_WORDS = "; a system is in the set exactly when its rank interval starts at 1"


@dataclass(frozen=True, kw_only=True)
class RankResolution:
    """How well a K x T paired score matrix resolves its systems' ranks.

    Per system, in input order: ``means`` (over the T units), ``se`` (sqrt(Sigma_ii)),
    ``rank`` (observed, 1 = best, ties sharing the better rank), ``rank_low``/``rank_high``
    (simultaneous 1 - alpha rank interval), ``p_first`` (share of resamples first),
    ``in_best_set``. ``best_set``: the indices of the confidence set of the best, best
    first; ``critical``: its critical value c, with the 95% Monte Carlo interval
    [``critical_low``, ``critical_high``]; ``unsure``: systems in the set at one end of
    that interval and not at the other. ``rank_critical``: the first step's critical value
    of the rank intervals, ``rank_steps``: the steps taken. ``noise_added``: each unit's
    own se was added to the resamples. ``method``: the methods in words."""

    n_systems: int
    n_units: int
    units: str
    alpha: float
    resamples: int
    seed: int
    means: tuple[float, ...]
    se: tuple[float, ...]
    rank: tuple[int, ...]
    rank_low: tuple[int, ...]
    rank_high: tuple[int, ...]
    p_first: tuple[float, ...]
    in_best_set: tuple[bool, ...]
    best_set: tuple[int, ...]
    critical: float
    critical_low: float
    critical_high: float
    unsure: tuple[int, ...]
    rank_critical: float
    rank_steps: int
    noise_added: bool
    method: str

    @property
    def p_first_mc_se(self) -> float:
        """The largest Monte Carlo se of a P(first): max sqrt(p (1 - p) / B)."""
        return max(math.sqrt(p * (1.0 - p) / self.resamples) for p in self.p_first)

    @property
    def order(self) -> tuple[int, ...]:
        """System indices by mean, best first (ties in input order)."""
        return tuple(int(i) for i in np.argsort(-np.asarray(self.means), kind="stable"))


def _checked(y, unit_se, alpha: float, resamples: int) -> tuple[np.ndarray, np.ndarray | None]:
    x = np.asarray(y, dtype=np.float64)
    if x.ndim != 2:
        raise ParameterError(f"scores must be a systems x units matrix, got {x.ndim} dimensions")
    k, t = x.shape
    if k < 2:
        raise ParameterError(f"ranks need at least 2 systems, got {k}")
    if t < 2:
        raise ParameterError(f"ranks need at least 2 shared units (topics or datasets), got {t}")
    if not np.all(np.isfinite(x)):
        raise ParameterError("scores must be finite (a system without a score on a unit?)")
    if not (0.0 < alpha < 0.5):
        raise ParameterError(f"alpha must be in (0, 0.5), got {alpha!r}")
    if resamples < 100:
        raise ParameterError(f"at least 100 resamples, got {resamples}")
    if unit_se is None:
        return x, None
    s = np.asarray(unit_se, dtype=np.float64)
    if s.shape != x.shape:
        raise ParameterError(f"unit_se must be {k} x {t} like the scores, got {s.shape}")
    if not (np.all(np.isfinite(s)) and np.all(s >= 0.0)):
        raise ParameterError("unit_se must be finite and >= 0")
    return x, s


def _mcb(m: np.ndarray, alpha: float) -> tuple[float, float, float]:
    """(c, c_lo, c_hi) of the MCB set from its statistics ``m`` (K x B): c the largest
    of the K (1 - alpha) quantiles, [c_lo, c_hi] its 95% order-statistic interval."""
    b = m.shape[1]
    crit = float(np.max(np.quantile(m, 1.0 - alpha, axis=1)))
    half = 1.96 * math.sqrt(b * alpha * (1.0 - alpha))
    lo_k = max(0, int(math.floor(b * (1.0 - alpha) - half)) - 1)
    hi_k = min(b - 1, int(math.ceil(b * (1.0 - alpha) + half)))
    srt = np.sort(m, axis=1)
    c_lo, c_hi = float(np.max(srt[:, lo_k])), float(np.max(srt[:, hi_k]))
    return crit, min(c_lo, crit), max(c_hi, crit)


def _members(means: np.ndarray, se: np.ndarray, crit: float) -> np.ndarray:
    """Systems i with m_j - m_i <= crit * se_ij for every j."""
    gap = means[None, :] - means[:, None]  # [i, j] = m_j - m_i
    ok = gap <= crit * se + 1e-15
    np.fill_diagonal(ok, True)
    return np.all(ok, axis=1)


def _stepdown(r, gap, se, inv_se, top, arg, alpha: float, floor) -> tuple[np.ndarray, float, int]:
    """(rejected[i, j]: system i is better than j, first-step c, steps) of Mogstad et al.'s
    simultaneous pairwise comparisons, step-down; ``top``/``arg``: the first pass's max
    over all pairs per resample and its pair; ``floor``: the resample se's floor."""
    k = gap.shape[0]
    t_obs = gap / se
    active = ~np.eye(k, dtype=bool)
    rejected = np.zeros((k, k), dtype=bool)
    first = None
    steps = 0
    while True:
        steps += 1
        crit = float(np.quantile(top, 1.0 - alpha))
        first = crit if first is None else first
        new = active & (t_obs > crit)
        if not new.any():
            return rejected, float(first), steps
        rejected |= new
        active &= ~new
        if not active.any():
            return rejected, float(first), steps
        stale = ~active.reshape(-1)[arg]
        if stale.any():
            top[stale], arg[stale] = column_max(
                r, gap, inv_se, floor, active, np.flatnonzero(stale)
            )


def _floor_of(se: np.ndarray, share: float) -> float:
    """The least se of a difference: ``share`` times the median pair's (ours: a pair of
    near-identical systems has a near-zero se, and the studentized difference of such a
    pair is unstable: a sample without the one topic where they differ shows a consistent
    offset that any studentized test takes for a real one); 0 with ``share`` 0."""
    if share <= 0.0:
        return 0.0
    k = se.shape[0]
    return share * float(np.median(se[~np.eye(k, dtype=bool)]))


def _observed_rank(means: np.ndarray) -> np.ndarray:
    return 1 + (means[None, :] > means[:, None]).sum(axis=1)


def resolve_ranks(
    y,
    *,
    alpha: float = 0.05,
    resamples: int = 2000,
    seed: int = 0,
    unit_se=None,
    units: str = "topics",
    studentize: str = "auto",
    se_floor: float = SE_FLOOR_SHARE,
    consistent: bool = True,
) -> RankResolution:
    """The confidence set of the best, simultaneous rank intervals and P(first) of the K
    systems of the K x T matrix ``y`` (module doc); ``unit_se``: each cell's own se, added
    to the resamples; ``units``: what the columns are ('topics', 'datasets')."""
    x, use = _checked(y, unit_se, alpha, resamples)
    if studentize not in (*STUDENTIZE, "auto"):
        raise ParameterError(f"studentize: {studentize!r} is not auto, resample or sample")
    if not (0.0 <= se_floor < 1.0):
        raise ParameterError(f"se_floor must be in [0, 1), got {se_floor!r}")
    k, t = x.shape
    r = Resamples.draw(x, resamples, np.random.default_rng(seed), use)
    s = r.means(slice(None)).T
    means = x.mean(axis=1)
    sig = mean_covariance(x, use)
    se = difference_se(sig)
    phi = _floor_of(se, se_floor)
    se = np.maximum(se, phi)
    gap = means[:, None] - means[None, :]
    if studentize == "auto":
        studentize = "resample" if t * k * k <= BOOTSTRAP_T_MAX_CELLS else "sample"
    inv_se = 1.0 / se if studentize == "sample" else None
    m, top, arg = first_pass(r, gap, inv_se, np.maximum(SE_FLOOR * se, phi))
    crit, c_lo, c_hi = _mcb(m, alpha)
    keep = _members(means, se, crit)
    at_lo, at_hi = _members(means, se, c_lo), _members(means, se, c_hi)
    rejected, rank_crit, steps = _stepdown(
        r, gap, se, inv_se, top, arg, alpha, np.maximum(SE_FLOOR * se, phi)
    )
    low = 1 + rejected.sum(axis=0)
    if consistent:  # both only widen, so both guarantees hold
        keep, at_lo, at_hi = (v | (low == 1) for v in (keep, at_lo, at_hi))
        low[keep] = 1
    order = np.argsort(-means, kind="stable")
    noise = "" if use is None else ", each unit's own se added"
    return RankResolution(
        n_systems=k,
        n_units=t,
        units=units,
        alpha=alpha,
        resamples=resamples,
        seed=seed,
        means=tuple(float(v) for v in means),
        se=tuple(float(math.sqrt(max(v, 0.0))) for v in np.diag(sig)),
        rank=tuple(int(r) for r in _observed_rank(means)),
        rank_low=tuple(int(v) for v in low),
        rank_high=tuple(int(k - v) for v in rejected.sum(axis=1)),
        p_first=tuple(float(v) for v in p_first(s)),
        in_best_set=tuple(bool(v) for v in keep),
        best_set=tuple(int(i) for i in order if keep[i]),
        critical=crit,
        critical_low=c_lo,
        critical_high=c_hi,
        unsure=tuple(int(i) for i in order if at_lo[i] != at_hi[i]),
        rank_critical=rank_crit,
        rank_steps=steps,
        noise_added=use is not None,
        method=METHOD.format(
            units=units,
            B=resamples,
            seed=seed,
            noise=noise,
            t=STUDENTIZE[studentize],
            floor=FLOOR_WORDS.format(share=se_floor) if se_floor > 0 else "",
            joint=JOINT_WORDS if consistent else "",
        ),
    )
