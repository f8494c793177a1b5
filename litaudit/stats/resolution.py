"""What a collection can resolve: the smallest difference between systems like its top ones
that a paired t-test detects with the stated power, and the topics a given gap would need.

Topic set size design (Sakai, "Topic set size design", Information Retrieval Journal
19(3), 2016, the paired t-test case): with sigma_d the standard deviation of the per-topic
differences of two systems, a difference delta over n topics has the effect size
d = delta / sigma_d, and the two-sided paired t-test at level alpha detects it with power

    P(|T| > t_{1-alpha/2, n-1}),   T ~ noncentral t(n - 1, d sqrt(n))

(:func:`litaudit.stats.power.paired_t_power`). Sakai's closed-form start,
n ~ ((z_{1-alpha/2} + z_{power}) / d)^2 + z_{1-alpha/2}^2 / 2, is refined here to the
smallest n whose exact power reaches the target; the minimum detectable difference at n
topics is the delta whose exact power is the target. The normal approximations
(delta = (z_{1-alpha/2} + z_{power}) sigma_d / sqrt(n), n = ((z + z) sigma_d / delta)^2,
what honestboard 0.6.1's ``Board.resolution`` reports) are given beside.

sigma_d is that of systems *like the top ones*: the median, over the neighbours in the
ranking of the ``top`` best systems by mean, of the sd of their paired differences (the
comparisons a new record is judged by; honestboard takes the same median). The units may
be topics or, for a benchmark that averages datasets, the datasets.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from litaudit.errors import ParameterError
from litaudit.stats.power import paired_t_power

MAX_UNITS = 10_000_000


@dataclass(frozen=True, kw_only=True)
class Resolution:
    """``n_units`` shared units (topics or datasets) of ``n_systems`` systems; ``top``
    systems by mean used, ``pair_sds`` the sd of each neighbouring pair's differences
    (best first) and ``paired_sd`` their median. ``mdd``: the smallest difference the
    two-sided paired t-test at ``alpha`` detects with ``power`` over ``n_units``
    (``mdd_normal``: the normal approximation). With ``gap``: ``units_needed`` (exact:
    the smallest n reaching ``power``), ``units_sakai`` (Sakai's closed form) and
    ``units_normal``; ``power_at_n``: the power for ``gap`` over the ``n_units`` there are.
    """

    n_units: int
    n_systems: int
    top: int
    pair_sds: tuple[float, ...]
    paired_sd: float
    alpha: float
    power: float
    mdd: float
    mdd_normal: float
    gap: float | None = None
    units_needed: int | None = None
    units_sakai: float | None = None
    units_normal: float | None = None
    power_at_n: float | None = None


def _check(alpha: float, power: float) -> None:
    if not (0.0 < alpha < 1.0):
        raise ParameterError(f"alpha must be in (0, 1), got {alpha}")
    if not (alpha < power < 1.0):
        raise ParameterError(f"power must be in (alpha, 1), got {power}")


def _z(alpha: float, power: float) -> tuple[float, float]:
    # start-up: scipy.stats (0.9 s; `audit best` imports this module)
    from scipy.stats import norm

    return float(norm.isf(alpha / 2)), float(norm.ppf(power))


def min_detectable_effect(n: int, alpha: float = 0.05, power: float = 0.8) -> float:
    """The effect size d = delta / sigma_d the two-sided paired t-test over ``n`` units
    detects with ``power`` (exact, noncentral t)."""

    _check(alpha, power)
    if n < 2:
        raise ParameterError("the paired t-test needs at least 2 units")
    za, zb = _z(alpha, power)
    hi = 4 * (za + zb) / math.sqrt(n - 1) + 10.0
    # start-up: scipy.optimize (0.1 s; `audit best` imports this module)
    from scipy.optimize import brentq

    return float(brentq(lambda d: paired_t_power(d, n, alpha) - power, 0.0, hi, xtol=1e-12))


def units_needed(effect: float, alpha: float = 0.05, power: float = 0.8) -> tuple[int, float]:
    """(the smallest n whose exact power for ``effect`` reaches ``power``, Sakai's closed
    form ((z_{1-alpha/2} + z_power) / d)^2 + z_{1-alpha/2}^2 / 2)."""
    _check(alpha, power)
    d = abs(float(effect))
    if not (d > 0 and math.isfinite(d)):
        raise ParameterError(f"the effect size must be finite and > 0, got {effect!r}")
    za, zb = _z(alpha, power)
    sakai = ((za + zb) / d) ** 2 + za**2 / 2
    n = max(2, math.ceil(sakai) - 2)
    while n > 2 and paired_t_power(d, n - 1, alpha) >= power:
        n -= 1
    while paired_t_power(d, n, alpha) < power:
        n += 1
        if n > MAX_UNITS:
            raise ParameterError(f"effect {d:g}: more than {MAX_UNITS:,} units needed")
    return n, float(sakai)


def paired_sds(scores, top: int = 10) -> tuple[np.ndarray, np.ndarray]:
    """(the ``top`` systems' indices best first, the sd (ddof 1) of the per-unit
    differences of each neighbouring pair). ``scores``: systems x units, complete."""
    x = np.asarray(scores, dtype=np.float64)
    if x.ndim != 2 or x.shape[0] < 2 or x.shape[1] < 2:
        raise ParameterError("the resolution needs at least 2 systems on at least 2 units")
    if not np.all(np.isfinite(x)):
        raise ParameterError("the resolution needs every system's score on every unit")
    if top < 2:
        raise ParameterError(f"--top must be at least 2, got {top}")
    order = np.argsort(-x.mean(axis=1), kind="stable")[:top]
    sds = np.array(
        [np.std(x[b] - x[a], ddof=1) for a, b in zip(order[:-1], order[1:], strict=True)]
    )
    return order, sds


def resolution(
    scores, *, top: int = 10, alpha: float = 0.05, power: float = 0.8, gap: float | None = None
) -> Resolution:
    """What the units of ``scores`` (systems x units) resolve between systems like its
    ``top`` ones (see the module doc); with ``gap``, the units it would need."""
    _check(alpha, power)
    order, sds = paired_sds(scores, top)
    n = int(np.asarray(scores).shape[1])
    sd = float(np.median(sds))
    if not sd > 0:
        raise ParameterError("the top systems' paired differences have no spread")
    za, zb = _z(alpha, power)
    extra: dict = {}
    if gap is not None:
        if not (math.isfinite(gap) and gap > 0):
            raise ParameterError(f"--gap must be a difference > 0, got {gap!r}")
        needed, sakai = units_needed(gap / sd, alpha, power)
        extra = dict(
            gap=float(gap),
            units_needed=needed,
            units_sakai=sakai,
            units_normal=float(((za + zb) * sd / gap) ** 2),
            power_at_n=float(paired_t_power(gap / sd, n, alpha)),
        )
    return Resolution(
        n_units=n,
        n_systems=int(np.asarray(scores).shape[0]),
        top=len(order),
        pair_sds=tuple(float(s) for s in sds),
        paired_sd=sd,
        alpha=alpha,
        power=power,
        mdd=min_detectable_effect(n, alpha, power) * sd,
        mdd_normal=(za + zb) * sd / math.sqrt(n),
        **extra,
    )
