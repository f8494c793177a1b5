"""How noisy one system's mean is: measured from per-topic scores, or assumed by a model.

Carterette (SIGIR 2015, Sec. 3.1) gives every published mean the standard error
``sd / sqrt(n)`` of its reference model, ``sd`` being the spread *between* the N published
systems. Where per-topic scores exist, the noise among equally good systems can be
measured instead: a systems x topics table of scores, analysed as a two-way analysis of
variance without replication (Tague-Sutcliffe and Blustein, "A statistical analysis of the
TREC-3 data", TREC-3 1995; Banks, Over and Zhang, "Blind men and elephants", Information
Retrieval 1, 1999), gives

* ``MS_interaction``, the residual mean square: the system x topic interaction, the part
  of a score that neither the system's level nor the topic's difficulty explains;
* the standard error of one system's mean over the n topics, ``sqrt(MS_interaction / n)``;
* the F test of system differences, ``MS_systems / MS_interaction`` on (k - 1) and
  (k - 1)(n - 1) degrees of freedom: a check that fails when the systems cannot be told
  apart at all.

Also here: the effective number of queries of an equal-weight mean of sub-collections
(``n_eff = K**2 / sum(1 / n_i)``, the count whose ``sigma / sqrt(n_eff)`` is the standard
error of the mean of K parts with the same per-query variance), the robust spread
``1.4826 * MAD`` (the normal-consistent median absolute deviation), and the
random-effects (empirical Bayes) shrinkage of a result towards the population mean.

Pure: arrays in, frozen dataclasses out.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy.special import chdtrc  # the chi-square upper tail (scipy.stats is slow to import)

from litaudit.errors import ParameterError
from litaudit.stats.extreme_checks import check_prob, floor_p
from litaudit.stats.memo import Memo

MAD_SCALE = 1.4826  # 1 / Phi^-1(3/4): 1.4826 * MAD estimates sd for a Normal sample


@dataclass(frozen=True, kw_only=True)
class TopicInteraction:
    """Two-way ANOVA without replication of a systems x topics score table.

    ``n_systems`` (k) x ``n_topics`` (n) complete cells (``n_topics_dropped`` topics left
    out because some system has no score on them); ``ms_*`` the mean squares with their
    degrees of freedom; ``se = sqrt(ms_interaction / n_topics)``, the standard error of one
    system's mean measured from the interaction; ``f_systems = ms_systems /
    ms_interaction`` and its upper-tail ``p_systems`` (floored at ``p_floor``:
    ``p_below_floor``); ``systems_differ``: p < ``alpha``.
    """

    n_systems: int
    n_topics: int
    n_topics_dropped: int
    grand_mean: float
    ms_systems: float
    ms_topics: float
    ms_interaction: float
    df_systems: int
    df_topics: int
    df_interaction: int
    se: float
    f_systems: float
    p_systems: float
    p_below_floor: bool
    p_floor: float | None
    alpha: float
    systems_differ: bool


def topic_interaction(
    scores, *, alpha: float = 0.05, p_floor: float | None = None
) -> TopicInteraction:
    """The ANOVA of ``scores`` (systems in rows, topics in columns; NaN = no score: such
    topics are left out). Needs at least 2 systems and 2 complete topics."""

    alpha = check_prob("alpha", alpha)
    x = np.asarray(scores, dtype=np.float64)
    if x.ndim != 2:
        raise ParameterError(f"per-topic scores must be a systems x topics table, got {x.ndim}-d")
    if np.isinf(x).any():
        raise ParameterError("per-topic scores must be finite numbers")
    keep = ~np.isnan(x).any(axis=0)
    dropped = int(x.shape[1] - keep.sum())
    x = x[:, keep]
    k, n = x.shape
    if k < 2 or n < 2:
        raise ParameterError(
            f"the interaction needs at least 2 systems and 2 topics scored by every system, "
            f"got {k} x {n}"
        )
    grand = float(x.mean())
    row = x.mean(axis=1)
    col = x.mean(axis=0)
    resid = x - row[:, None] - col[None, :] + grand
    df_s, df_t, df_i = k - 1, n - 1, (k - 1) * (n - 1)
    ms_s = n * float(np.sum((row - grand) ** 2)) / df_s
    ms_t = k * float(np.sum((col - grand) ** 2)) / df_t
    ms_i = float(np.sum(resid * resid)) / df_i
    if not ms_i > 0:
        raise ParameterError("the per-topic scores have no system x topic interaction (all 0)")
    f = ms_s / ms_i
    # start-up: scipy.stats (0.9 s; an audit without per-topic scores never needs it)
    from scipy import stats as sps

    p_raw = float(sps.f.sf(f, df_s, df_i))
    p, low = floor_p(p_raw, p_floor)
    return TopicInteraction(
        n_systems=k,
        n_topics=n,
        n_topics_dropped=dropped,
        grand_mean=grand,
        ms_systems=ms_s,
        ms_topics=ms_t,
        ms_interaction=ms_i,
        df_systems=df_s,
        df_topics=df_t,
        df_interaction=df_i,
        se=math.sqrt(ms_i / n),
        f_systems=f,
        p_systems=p,
        p_below_floor=low,
        p_floor=p_floor,
        alpha=alpha,
        systems_differ=p_raw < alpha,
    )


def effective_n(counts) -> float:
    """Queries of an equal-weight mean of K parts with ``counts`` queries each:
    ``K**2 / sum(1 / n_i)`` (the harmonic mean of the counts times K)."""
    c = np.asarray(counts, dtype=np.float64).ravel()
    if c.size == 0 or not np.all(np.isfinite(c)) or np.any(c <= 0):
        raise ParameterError("query counts must be positive numbers")
    return float(c.size**2 / np.sum(1.0 / c))


def robust_spread(values) -> float:
    """``1.4826 * median(|x - median(x)|)``: the spread of the bulk of the values, which a
    tail of weak or broken systems does not widen (equals the sd for Normal samples)."""
    v = np.asarray(values, dtype=np.float64).ravel()
    if v.size == 0:
        raise ParameterError("no values")
    return MAD_SCALE * float(np.median(np.abs(v - np.median(v))))


@dataclass(frozen=True, kw_only=True)
class Shrinkage:
    """Random-effects estimate of one result's true mean (docs/STATISTICS.md, "How much
    of the best is luck").

    Model: an observed mean x = theta + e, e ~ Normal(0, ``se``); the true means theta of
    the population ~ Normal(``mu``, ``tau``) with ``tau**2 = max(0, sd**2 - se**2)``
    (method of moments: the observed means spread by ``sd``). ``weight`` B =
    ``tau**2 / (tau**2 + se**2)``; ``estimate`` = ``mu + B (value - mu)``, the posterior
    mean of theta given x; ``posterior_sd`` = ``sqrt(B) * se``; ``luck`` = ``value -
    estimate`` = ``(1 - B)(value - mu)``, the part of the value's distance from the mean
    that the noise explains.
    """

    value: float
    mu: float
    sd: float
    se: float
    tau: float
    weight: float
    estimate: float
    posterior_sd: float
    luck: float


def shrink(value: float, mu: float, sd: float, se: float) -> Shrinkage:
    """The random-effects estimate of ``value``'s true mean (see :class:`Shrinkage`)."""
    value, mu, sd, se = float(value), float(mu), float(sd), float(se)
    if not (math.isfinite(se) and se > 0 and math.isfinite(sd) and sd >= 0):
        raise ParameterError(f"need sd >= 0 and se > 0, got sd {sd!r}, se {se!r}")
    tau2 = max(0.0, sd * sd - se * se)
    b = tau2 / (tau2 + se * se)
    est = mu + b * (value - mu)
    return Shrinkage(
        value=value,
        mu=mu,
        sd=sd,
        se=se,
        tau=math.sqrt(tau2),
        weight=b,
        estimate=est,
        posterior_sd=math.sqrt(b) * se,
        luck=value - est,
    )


def residuals(scores) -> np.ndarray:
    """The double-centred residual matrix ``x_ij - xbar_i. - xbar_.j + xbar_..`` of a
    systems x topics table (topics some system lacks left out): the system x topic
    interaction of :func:`topic_interaction`, whose row and column means are all 0."""
    x = np.asarray(scores, dtype=np.float64)
    if x.ndim != 2:
        raise ParameterError(f"per-topic scores must be a systems x topics table, got {x.ndim}-d")
    x = x[:, ~np.isnan(x).any(axis=0)]
    if x.shape[0] < 2 or x.shape[1] < 2:
        raise ParameterError(
            f"residuals need at least 2 systems and 2 complete topics, got {x.shape[0]} x "
            f"{x.shape[1]}"
        )
    return x - x.mean(axis=1)[:, None] - x.mean(axis=0)[None, :] + x.mean()


def residual_sds(scores) -> np.ndarray:
    """Each system's residual sd: ``sqrt(k / ((k - 1)(n - 1)) * sum_j r_ij**2)``, scaled so
    that the mean of their squares is ``MS_interaction`` (the pooled variance of
    :func:`topic_interaction`). Runs differ in noise: on the shared TREC matrices the
    largest is up to 2.1 times the smallest of the middle half's (issue 30); a Normal
    threshold with one pooled se ignores it (:mod:`litaudit.stats.calibrated`)."""
    r = residuals(scores)
    k, n = r.shape
    return np.sqrt(k / ((k - 1) * (n - 1)) * np.sum(r * r, axis=1))


def bounded_se(mean: float, n: float) -> float:
    """The largest standard error of a mean over ``n`` topics of a score bounded in [0, 1]
    whose mean is ``mean``: ``sqrt(m (1 - m) / n)``. A variable in [0, 1] with mean m has
    variance at most m (1 - m) (Bhatia and Davis, "A better bound on the variance", Amer.
    Math. Monthly 107, 2000: Var <= (M - m)(m - L) with L = 0, M = 1); the per-topic
    variance it bounds includes the topics' difficulty, which the interaction excludes,
    so the bound is loose (TREC-7 AP: 0.055 against the measured 0.0155)."""
    m, n = float(mean), float(n)
    if not (math.isfinite(m) and 0.0 <= m <= 1.0):
        raise ParameterError(f"the bound needs a mean in [0, 1], got {mean!r}")
    if not (math.isfinite(n) and n >= 1):
        raise ParameterError(f"the bound needs n >= 1 topics, got {n!r}")
    return math.sqrt(m * (1.0 - m) / n)


@dataclass(frozen=True, kw_only=True)
class SpreadCheck:
    """Whether the N published results spread too widely to be N equally good systems.

    ``sd``: their sample sd; ``se_max``: the largest standard error one result can have
    under the audit's noise (the noisiest measured run's, or the [0, 1] bound's largest);
    ``ratio`` = sd / se_max. Under the null of N equally good systems each result's
    variance is at most ``se_max**2``, so ``(N - 1) sd**2 / se_max**2`` lies
    stochastically below a chi-square on N - 1 df (the centred sum of squares of
    independent Normals with variances <= se_max**2 is a sum of N - 1 weighted chi-square
    variables with weights <= se_max**2). ``p_upper`` = P(chi2_{N-1} >= (N - 1)
    ratio**2), an upper bound on the null's chance of such a spread. ``false_by_inspection``:
    ratio >= ``min_ratio`` (defaults.BY_INSPECTION_RATIO, chosen so that p_upper < 1e-6 at
    every N >= 5: the answer prints no p and no N*).
    """

    n_results: int
    sd: float
    se_max: float
    ratio: float
    min_ratio: float
    p_upper: float
    false_by_inspection: bool


def spread_check(values, se_max: float, *, min_ratio: float) -> SpreadCheck:
    """The spread of ``values`` against ``se_max`` (see :class:`SpreadCheck`)."""

    v = np.asarray(values, dtype=np.float64).ravel()
    if v.size < 2:
        raise ParameterError("the spread needs at least 2 results")
    se_max = float(se_max)
    if not (math.isfinite(se_max) and se_max > 0):
        raise ParameterError(f"se_max must be a finite number > 0, got {se_max!r}")
    sd = float(np.std(v, ddof=1))
    ratio = sd / se_max
    df = v.size - 1
    return SpreadCheck(
        n_results=int(v.size),
        sd=sd,
        se_max=se_max,
        ratio=ratio,
        min_ratio=float(min_ratio),
        p_upper=float(chdtrc(df, df * ratio * ratio)),
        false_by_inspection=bool(ratio >= min_ratio),
    )


@dataclass(frozen=True, kw_only=True)
class WinnersBias:
    """A resampling estimate of how far the best of N observed means lies above its own
    true mean (the winner's curse), beside the random-effects luck of :class:`Shrinkage`.

    Method (stated in ``method``): the N published results, shrunk to their random-effects
    estimates ``mu + B (x - mu)``, are taken as the true means; each replication adds to
    every one Normal noise with the se of a reference run drawn at random (``run_ses``,
    the measured runs' own se: runs differ in noise) or the audit's se when none are
    known, picks the observed best, and records its observed minus its true mean.
    ``bias`` is the mean over ``trials`` replications (``bias_se`` its Monte Carlo se),
    ``seed`` their seed.
    """

    bias: float
    bias_se: float
    trials: int
    seed: int
    heteroscedastic: bool
    method: str


def winners_bias(
    values, se: float, *, weight: float, run_ses=(), trials: int, seed: int
) -> WinnersBias:
    """The winner's bias of ``values`` by simulation (see :class:`WinnersBias`);
    ``weight``: the reliability B of the shrinkage. A repeated call with the same inputs
    is answered from :data:`_BIAS_KEPT` (the same result: the simulation is a pure function
    of them)."""
    v = np.asarray(values, dtype=np.float64).ravel()
    se = float(se)
    if not (math.isfinite(se) and se > 0):
        raise ParameterError(f"se must be a finite number > 0, got {se!r}")
    if trials < 2:
        raise ParameterError(f"need at least 2 trials, got {trials}")
    ses = np.asarray(run_ses, dtype=np.float64)
    weight = float(weight)
    if not (type(trials) is int and type(seed) is int):  # a key only of plain ints
        return _winners_bias(v, se, weight, ses, trials, seed)
    key = (v.tobytes(), se, weight, ses.shape, ses.tobytes(), trials, seed)
    return _BIAS_KEPT.get(key, lambda: _winners_bias(v, se, weight, ses, trials, seed))


_BIAS_KEPT: Memo[WinnersBias] = Memo()


def _winners_bias(
    v: np.ndarray, se: float, weight: float, ses: np.ndarray, trials: int, seed: int
) -> WinnersBias:
    """:func:`winners_bias` of checked inputs, computed (the draws scaled and shifted in
    place: the same numbers in two passes fewer, 4.6 -> 3.9 ms for 100 results)."""
    rng = np.random.default_rng(seed)
    mu = float(v.mean())
    theta = mu + weight * (v - mu)
    het = ses.size > 0
    noise_se = ses[rng.integers(0, ses.size, size=(trials, v.size))] if het else se
    x = rng.standard_normal((trials, v.size))
    x *= noise_se
    x += theta  # theta + z * se, as one expression computes it
    win = np.argmax(x, axis=1)
    d = x[np.arange(trials), win] - theta[win]
    how = (
        "each run's noise the se of a measured reference run drawn at random"
        if het
        else f"each run's noise Normal with se {se:.4f}"
    )
    return WinnersBias(
        bias=float(d.mean()),
        bias_se=float(d.std(ddof=1) / math.sqrt(trials)),
        trials=int(trials),
        seed=int(seed),
        heteroscedastic=het,
        method=f"simulation: the published results shrunk to their random-effects "
        f"estimates as true means, {how}, the observed best's excess over its true mean "
        f"averaged over {trials:,} replications (seed {seed})",
    )
