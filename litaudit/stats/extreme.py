"""Extreme-value reference distributions for published results (Carterette, SIGIR 2015).

Carterette, "The Best Published Result is Random: Sequential Testing and its Effect on
Reported Effectiveness", SIGIR 2015.

Model (Sec. 3.1): the N published means of one collection and measure are treated as N
draws from one normal distribution centred at their mean ``mu`` with the standard error
``se = sd / sqrt(n)`` (``sd`` the sample standard deviation of the N means, ddof=1, ``n``
the number of topics). Write ``Phi`` for the standard normal CDF and ``z = (x - mu) / se``.

* Max-value distribution (MxVD) of N draws: ``P(max <= x) = Phi(z)**N``.
* Min-value distribution (MnVD): ``P(min <= x) = 1 - (1 - Phi(z))**N``.
* Quantiles in closed form: ``q``-quantile of the max is ``mu + se * Phi^-1(q**(1/N))``,
  of the min ``mu - se * Phi^-1((1 - q)**(1/N))``.
* Expected max ``mu + se * E[Z_(N)]`` with ``E[Z_(N)] = int z N phi(z) Phi(z)**(N-1) dz``,
  by numerical integration (see ``std_max_moments``).
* Gumbel (Sec. 2, "Its cumulative density function is ..."): the paper frames the MxVD as
  a Gumbel with ``E[max] = location + gamma * scale``; we report the Gumbel matched to the
  exact mean and variance (``scale = sd_max * sqrt(6) / pi``,
  ``location = E[max] - gamma * scale``). The paper's remark that the location "is
  equivalent to mu" is not literally true (the location grows with N); the moment fit is
  the Gumbel closest to what its Figures 1-2 show.
* Beyond-chance threshold (Sec. 3.1): the value the max exceeds with probability alpha,
  ``max_quantile(1 - alpha)``; for the min ``min_quantile(alpha)``. The paper counts the
  results above it and calls alpha times that count the expected false positives.
* Intrinsic-effectiveness interval of a value v (Sec. 3.1 and Table 3): ``mu0`` is the
  lowest population mean whose max of N reaches v with probability p:
  ``P(max >= v | mu0) = p`` gives ``mu0 = v - se * Phi^-1((1 - p)**(1/N))``; the lower
  bound is the p-quantile of the MnVD centred at mu0: ``lower = mu0 - se *
  Phi^-1((1 - p)**(1/N))``. The interval [lower, v] holds non-extreme values with
  probability ``1 - 2p`` (60% for p = 0.2). The paper found mu0 by a linear search over
  simulated MxVDs; here it is the closed form (the Monte Carlo method inverts the
  simulated quantile instead, which is what the linear search converges to).
* Candidate best systems (Table 3, last column): every result at or above the lower bound.
* Claim p-value: a new value V judged as the max of N + 1 draws,
  ``p = 1 - Phi(z_V)**(N+1)``; ``N*`` is the number of draws at which V stops being beyond
  chance: the least M with ``1 - Phi(z_V)**M >= alpha`` (in ``litaudit.stats.claim``).

Methods: ``exact`` (default: the closed forms and quadrature above) and ``montecarlo``
(the paper's procedure: draw N values from Normal(mu, se) ``trials`` times with a seeded
``numpy.random.Generator``, take max and min; estimates carry a standard error). All
functions are pure: arrays in, frozen dataclasses out. The audits built on these
distributions (thresholds, intrinsic-effectiveness interval, the best-result audit) are in
:mod:`litaudit.stats.intervals`. The exact distributions are in
:mod:`litaudit.stats.extreme_exact`, the parameter checks in
:mod:`litaudit.stats.extreme_checks`; this module holds the reference distribution, the
Monte Carlo simulation and the result types.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy.special import log_ndtr

from litaudit import defaults
from litaudit.defaults import MAX_TRIALS
from litaudit.errors import ParameterError
from litaudit.stats.extreme_checks import (
    check_method,
    check_mu,
    check_n_draws,
    check_prob,
    check_se,
)
from litaudit.stats.extreme_exact import (
    std_max_moments,
    std_max_quantile,
    std_min_quantile,
)

EULER_GAMMA = float(np.euler_gamma)
DEFAULT_TRIALS = defaults.MONTECARLO_TRIALS
DEFAULT_SEED = defaults.MONTECARLO_SEED
_CHUNK = 2_000_000  # draws per simulation chunk (bounds memory at ~16 MB)


@dataclass(frozen=True, kw_only=True)
class Sampling:
    """How the distribution of the max and min of N draws is computed: ``method`` 'exact'
    (closed form) or 'montecarlo' (``trials`` simulations from ``seed``: the paper's
    procedure). The Monte Carlo defaults are filled in here, the one place:
    ``defaults.MONTECARLO_TRIALS`` and ``MONTECARLO_SEED`` when not given; any other
    method keeps neither (the method itself is checked where it is used)."""

    method: str = "exact"
    trials: int | None = None
    seed: int | None = None

    def __post_init__(self) -> None:
        montecarlo = self.method == "montecarlo"
        trials = (DEFAULT_TRIALS if self.trials is None else self.trials) if montecarlo else None
        seed = (DEFAULT_SEED if self.seed is None else self.seed) if montecarlo else None
        object.__setattr__(self, "trials", trials)  # (frozen: set once, here)
        object.__setattr__(self, "seed", seed)


# ------------------------------------------------------------------ reference distribution
@dataclass(frozen=True, kw_only=True)
class Reference:
    """The normal reference distribution of one published mean (Carterette 2015, Sec. 3.1).

    ``n_results`` (N) published means with mean ``mu`` and sample standard deviation ``sd``
    (ddof=1) over ``n_topics`` topics; each mean is modelled as Normal(mu, se) with
    ``se = sd / sqrt(n_topics)`` (the model's) or a standard error known otherwise. ``minimum``/``maximum`` are the extreme observed values.
    """

    n_results: int
    n_topics: int
    mu: float
    sd: float
    se: float
    minimum: float
    maximum: float


def reference(values, n_topics: int, se: float | None = None) -> Reference:
    """Reference distribution of N published means over ``n_topics`` topics.

    ``se``: the standard error of one mean when it is known otherwise (measured from
    per-topic scores, or given); default the model's ``sd / sqrt(n_topics)``.

    Independent of the order of ``values`` (they are sorted before summing). Raises
    ParameterError for N < 2, sd = 0, non-finite values or n_topics < 1.
    """
    v = np.sort(np.asarray(values, dtype=np.float64).ravel())
    if v.size < 2:
        raise ParameterError(f"need at least 2 results to estimate a spread, got N = {v.size}")
    if not np.all(np.isfinite(v)):
        raise ParameterError("values must be finite numbers")
    if isinstance(n_topics, bool) or not isinstance(n_topics, (int, np.integer)) or n_topics < 1:
        raise ParameterError(f"number of topics n must be an integer >= 1, got {n_topics!r}")
    sd = float(np.std(v, ddof=1))
    if v[0] == v[-1] or not sd > 0:
        raise ParameterError(
            f"all {v.size} results are equal ({v[0]!r}): standard deviation "
            "is 0, so no reference distribution exists"
        )
    return Reference(
        n_results=int(v.size),
        n_topics=int(n_topics),
        mu=float(np.mean(v)),
        sd=sd,
        se=sd / math.sqrt(int(n_topics)) if se is None else check_se(se),
        minimum=float(v[0]),
        maximum=float(v[-1]),
    )


# ------------------------------------------------------------------------ Monte Carlo
def simulate_std_extremes(N: int, trials: int, seed: int | None) -> tuple[np.ndarray, np.ndarray]:
    """The paper's sampling procedure on the standard scale (Sec. 2).

    ``trials`` times, draw N standard normal values (the N sample means, already reduced
    to their sampling distribution as the paper does for Figures 1-2) and keep their max
    and min. Returns (sorted maxima, sorted minima). ``seed`` seeds a
    ``numpy.random.default_rng``; the same seed gives the same arrays.
    """
    N = check_n_draws(N)
    trials = _check_trials(trials)
    seed = _check_seed(seed)
    rng = np.random.default_rng(seed)
    zmax = np.empty(trials)
    zmin = np.empty(trials)
    rows = max(1, _CHUNK // N)
    for start in range(0, trials, rows):
        stop = min(trials, start + rows)
        if N <= _CHUNK:
            z = rng.standard_normal((stop - start, N))
            zmax[start:stop] = z.max(axis=1)
            zmin[start:stop] = z.min(axis=1)
        else:  # a single trial larger than a chunk: stream it
            for i in range(start, stop):
                hi, lo = -np.inf, np.inf
                for s in range(0, N, _CHUNK):
                    z = rng.standard_normal(min(_CHUNK, N - s))
                    hi, lo = max(hi, z.max()), min(lo, z.min())
                zmax[i], zmin[i] = hi, lo
    zmax.sort()
    zmin.sort()
    return zmax, zmin


def _check_trials(trials) -> int:

    if isinstance(trials, bool) or not isinstance(trials, (int, np.integer)) or trials < 100:
        raise ParameterError(f"trials must be an integer >= 100, got {trials!r}")
    if trials > MAX_TRIALS:
        raise ParameterError(f"trials must be at most {MAX_TRIALS}, got {trials}")
    return int(trials)


def _check_seed(seed) -> int:
    if (
        seed is None
        or isinstance(seed, bool)
        or not isinstance(seed, (int, np.integer))
        or seed < 0
    ):
        raise ParameterError(f"the Monte Carlo method needs an integer seed >= 0, got {seed!r}")
    return int(seed)


def sample_quantile(sorted_sample: np.ndarray, q: float) -> tuple[float, float]:
    """Empirical q-quantile of a sorted sample and its standard error.

    The standard error is distribution-free, from the order statistics at ranks
    ``T*q -+ sqrt(T*q*(1-q))`` (one binomial standard deviation): half their distance.
    """
    x = np.asarray(sorted_sample)
    T = x.size
    est = float(np.quantile(x, q))
    half = math.sqrt(T * q * (1 - q))
    lo = int(min(T - 1, max(0, math.floor(T * q - half))))
    hi = int(min(T - 1, max(0, math.ceil(T * q + half))))
    return est, float((x[hi] - x[lo]) / 2.0)


@dataclass(frozen=True)
class StdExtremes:
    """Max/min of N standard normals, exact or simulated (internal helper)."""

    N: int
    method: str
    zmax: np.ndarray | None = None
    zmin: np.ndarray | None = None

    @classmethod
    def make(cls, N: int, method: str, trials: int | None, seed: int | None) -> StdExtremes:
        N, method = check_n_draws(N), check_method(method)
        if method == "exact":
            return cls(N, method)
        zmax, zmin = simulate_std_extremes(
            N, trials if trials is not None else DEFAULT_TRIALS, seed
        )
        return cls(N, method, zmax, zmin)

    def max_q(self, q: float) -> tuple[float, float]:
        if self.zmax is None:
            return std_max_quantile(q, self.N), 0.0
        return sample_quantile(self.zmax, check_prob("quantile level", q))

    def min_q(self, q: float) -> tuple[float, float]:
        if self.zmin is None:
            return std_min_quantile(q, self.N), 0.0
        return sample_quantile(self.zmin, check_prob("quantile level", q))

    def moments(self) -> tuple[float, float, float]:
        """(mean of max, sd of max, standard error of the mean)."""
        if self.zmax is None:
            m, s = std_max_moments(self.N)
            return m, s, 0.0
        s = float(np.std(self.zmax, ddof=1))
        return float(np.mean(self.zmax)), s, s / math.sqrt(self.zmax.size)

    def max_sf(self, z: float) -> tuple[float, float]:
        """P(max >= z) and its standard error; simulated p-values use the +1 rule."""
        if self.zmax is None:
            return float(-np.expm1(self.N * log_ndtr(z))), 0.0
        T = self.zmax.size
        k = T - int(np.searchsorted(self.zmax, z, side="left"))
        p = (k + 1) / (T + 1)
        return p, math.sqrt(p * (1 - p) / T)

    @property
    def trials(self) -> int | None:
        return None if self.zmax is None else int(self.zmax.size)


# ------------------------------------------------------------------------ result types
@dataclass(frozen=True)
class Gumbel:
    """Gumbel (type I extreme value) approximation of the MxVD (Sec. 2).

    CDF ``exp(-exp(-(x - location) / scale))``; matched to the mean and standard deviation
    of the max, so ``expected max = location + EULER_GAMMA * scale``.
    """

    location: float
    scale: float


def gumbel_from_moments(mean: float, sd: float) -> Gumbel:
    """The Gumbel with this mean and standard deviation (method of moments)."""
    scale = float(sd) * math.sqrt(6.0) / math.pi
    return Gumbel(float(mean) - EULER_GAMMA * scale, scale)


@dataclass(frozen=True)
class MaxValueDistribution:
    """Summary of the MxVD and MnVD of N draws from Normal(mu, se) (Sec. 2, Figs. 1-3).

    ``expected_max``/``sd_max`` are the mean and standard deviation of the max (with
    ``expected_max_se`` the Monte Carlo standard error, 0 when exact); ``expected_min`` is
    ``2 * mu - expected_max`` by symmetry; ``gumbel`` the moment-matched Gumbel.
    ``lift`` is ``expected_max / mu - 1`` (Figure 1: "a 34% improvement over the mean").
    """

    mu: float
    se: float
    N: int
    expected_max: float
    expected_max_se: float
    sd_max: float
    expected_min: float
    gumbel: Gumbel
    lift: float
    method: str
    trials: int | None
    seed: int | None


def max_value_distribution(
    mu: float,
    se: float,
    N: int,
    *,
    method: str = "exact",
    trials: int | None = None,
    seed: int | None = None,
) -> MaxValueDistribution:
    """The MxVD of N draws from Normal(mu, se): expected max, spread and Gumbel fit.

    Figure 1 of the paper: ``max_value_distribution(0.20, 0.027, 100).expected_max`` is
    0.2677 (the paper prints 0.267 from a simulation).
    """
    mu, se = check_mu(mu), check_se(se)
    ext = StdExtremes.make(N, method, trials, seed)
    return mvd_from_extremes(mu, se, ext, seed)


def mvd_from_extremes(
    mu: float, se: float, ext: StdExtremes, seed: int | None
) -> MaxValueDistribution:
    m, s, m_se = ext.moments()
    emax = mu + se * m
    return MaxValueDistribution(
        mu=mu,
        se=se,
        N=ext.N,
        expected_max=emax,
        expected_max_se=se * m_se,
        sd_max=se * s,
        expected_min=2 * mu - emax,
        gumbel=gumbel_from_moments(emax, se * s),
        lift=(emax / mu - 1.0) if mu != 0 else math.nan,
        method=ext.method,
        trials=ext.trials,
        seed=seed if ext.trials else None,
    )
