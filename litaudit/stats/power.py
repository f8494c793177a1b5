"""Effect size and power of the two-sided paired t-test, for the expected agreement table
of Carterette, Kanoulas, Pavlu and Fang, SIGIR 2010, Section 3.2.1.

The effect size of a pair of systems is the mean of their per-topic differences divided by
the standard deviation of those differences (Cohen's d_z), estimated on the baseline
topics. The power of a two-sided paired t-test with n topics at level alpha is

    P(|T| > t_{1-alpha/2, n-1}),   T ~ noncentral t(df = n - 1, ncp = d sqrt(n)),

both tails counted (R's ``power.t.test(..., type = "paired", strict = TRUE)``). The paper's
worked example: APL runs rsTs and rsDw, d = 0.046 / 0.176 = 0.260, power 0.964 over 210
topics and 0.354 over 39.
"""

from __future__ import annotations

import numpy as np

from litaudit.errors import ParameterError


def effect_size(differences) -> float:
    """mean / sd (ddof 1) of paired differences; +-inf if they are constant and non-zero.

    Zero differences throughout give 0 (no effect).
    """
    d = np.asarray(differences, dtype=float)
    if d.ndim != 1 or d.size < 2:
        raise ParameterError("the effect size needs at least 2 paired differences")
    if not np.all(np.isfinite(d)):
        raise ParameterError("paired differences must be finite")
    mean = float(d.mean())
    sd = float(d.std(ddof=1))
    if sd == 0.0 or sd < 1e-12 * max(1.0, abs(mean)):
        return 0.0 if mean == 0.0 else float(np.copysign(np.inf, mean))
    return mean / sd


def paired_t_power(effect, n, alpha: float | np.ndarray = 0.05):
    """Power of the two-sided paired t-test for effect size(s) ``effect`` over ``n`` topics.

    Vectorised over ``effect``, ``n`` and ``alpha`` (broadcast); returns a float for scalar
    input. Infinite effects have power 1; a zero effect has power alpha.
    """
    d = np.asarray(effect, dtype=float)
    n_arr = np.asarray(n)
    a = np.asarray(alpha, dtype=float)
    if np.any(np.isnan(d)):
        raise ParameterError("effect size must not be NaN")
    if np.any(n_arr < 2) or np.any(np.asarray(n_arr, dtype=float) != np.floor(n_arr)):
        raise ParameterError("the paired t-test needs an integer number of topics >= 2")
    if np.any((a <= 0) | (a >= 1)):
        raise ParameterError(f"alpha must be in (0, 1), got {alpha}")
    # start-up: scipy.stats (0.9 s; `audit best` imports this module through resolution)
    from scipy import stats

    d, nf, a = np.broadcast_arrays(d, n_arr.astype(float), a)
    df = nf - 1.0
    crit = stats.t.isf(a / 2.0, df)
    finite = np.isfinite(d)
    ncp = np.where(finite, np.abs(d) * np.sqrt(nf), 0.0)
    # by symmetry use |d|: upper tail plus lower tail of the noncentral t; the lower tail
    # P(T_ncp < -c) is computed as P(T_-ncp > c), because scipy's nct.cdf returns NaN far
    # in the left tail for large ncp (scipy 1.17)
    upper = stats.nct.sf(crit, df, ncp)
    lower = stats.nct.sf(crit, df, -ncp)
    power = np.where(finite, np.clip(upper + lower, 0.0, 1.0), 1.0)
    if np.any(np.isnan(power)):
        raise ParameterError("power could not be computed (noncentral t evaluation failed)")
    return float(power) if power.ndim == 0 else power
