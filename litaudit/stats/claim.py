"""Claim checks: is a new value beyond chance given N earlier experiments?

Carterette, "The Best Published Result is Random", SIGIR 2015, Sec. 3.1 and Sec. 5: the
claim is judged as the max of the N earlier results plus itself under the reference
distribution of ``litaudit.stats.extreme``; N* is the number of experiments at which it
would no longer be beyond chance (the published N is only a lower bound).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy.special import log_ndtr

from litaudit.errors import ParameterError
from litaudit.stats.extreme import _check_mu, _check_prob, _check_se, _StdExtremes
from litaudit.stats.intervals import IntrinsicInterval, _interval


@dataclass(frozen=True)
class ClaimTest:
    """Is a claimed value V beyond chance given N earlier experiments? (Sec. 3.1, Sec. 5)

    ``n_draws`` = N + 1: the claim judged as the max of the earlier experiments plus
    itself, where N = ``hidden_multiplier`` times the published count (published N is a
    lower bound on the experiments run). ``p_value`` = P(max of n_draws >= V);
    ``beyond_chance`` = p_value < alpha. ``interval`` is V's intrinsic-effectiveness
    interval for n_draws. ``n_star`` is the least number of draws at which V is no longer
    beyond chance (None if it exceeds 1e300, i.e. V is beyond chance for any feasible N);
    ``n_star_ratio`` = n_star / n_draws.
    """

    value: float
    mu: float
    se: float
    n_published: int
    hidden_multiplier: float
    n_draws: int
    alpha: float
    p_value: float
    p_value_se: float
    beyond_chance: bool
    interval: IntrinsicInterval
    n_star: int | None
    n_star_ratio: float | None
    method: str
    trials: int | None
    seed: int | None


def n_star(value: float, mu: float, se: float, alpha: float = 0.05) -> int | None:
    """Least number of draws M with P(max of M >= value) >= alpha (exact).

    ``M = ceil(log(1 - alpha) / log Phi(z))``, computed with log_ndtr so that values many
    standard errors above mu stay exact. None when M would exceed 1e300.
    """
    value, mu, se = _check_mu(value), _check_mu(mu), _check_se(se)
    alpha = _check_prob("alpha", alpha)
    lp = float(log_ndtr((value - mu) / se))
    if lp == 0.0:
        return None
    m = math.log1p(-alpha) / lp
    if m > 1e300:
        return None
    k = max(1, math.ceil(m))
    if k < 2**40:  # guard the ceiling against rounding in the last bit (where it can matter)
        while k > 1 and -math.expm1((k - 1) * lp) >= alpha:
            k -= 1
        while -math.expm1(k * lp) < alpha:
            k += 1
    return k


def claim_test(value: float, mu: float, se: float, n_published: int, *, alpha: float = 0.05,
               p: float = 0.2, hidden_multiplier: float = 1.0, method: str = "exact",
               trials: int | None = None, seed: int | None = None) -> ClaimTest:
    """Test a claimed value V against a reference Normal(mu, se) of ``n_published`` results.

    The claim is judged as the max of ``round(hidden_multiplier * n_published) + 1``
    draws. See ClaimTest for the fields.
    """
    value, mu, se = _check_mu(value), _check_mu(mu), _check_se(se)
    alpha, p = _check_prob("alpha", alpha), _check_prob("p", p)
    if isinstance(n_published, bool) or not isinstance(n_published, (int, np.integer)) \
            or n_published < 1:
        raise ParameterError(f"number of published results must be an integer >= 1, "
                             f"got {n_published!r}")
    k = float(hidden_multiplier)
    if not (math.isfinite(k) and k >= 1.0):
        raise ParameterError(f"hidden multiplier must be >= 1 (published N is a lower bound "
                             f"on experiments run), got {hidden_multiplier!r}")
    draws = int(round(k * int(n_published))) + 1
    ext = _StdExtremes.make(draws, method, trials, seed)
    pv, pv_se = ext.max_sf((value - mu) / se)
    ns = n_star(value, mu, se, alpha)
    return ClaimTest(value, mu, se, int(n_published), k, draws, alpha, pv, pv_se,
                     pv < alpha, _interval(value, se, ext, p), ns,
                     None if ns is None else ns / draws, ext.method, ext.trials,
                     seed if ext.trials else None)
