"""The methods and parameter checks of the extreme-value distributions (Carterette, SIGIR
2015, Sec. 3.1: N draws, a standard error, a mean, probabilities and p-values in range):
each check returns its argument as a number or raises
:class:`~litaudit.errors.ParameterError` with a one-line reason. Used by
:mod:`litaudit.stats.extreme` and :mod:`litaudit.stats.extreme_exact`.
"""

from __future__ import annotations

import math

import numpy as np

from litaudit.errors import ParameterError

METHODS = ("exact", "montecarlo")


# ----------------------------------------------------------------------------- checks
def check_n_draws(N) -> int:
    if isinstance(N, bool) or not isinstance(N, (int, np.integer)) or N < 1:
        raise ParameterError(f"number of draws N must be an integer >= 1, got {N!r}")
    return int(N)


def check_prob(name: str, q) -> float:
    q = float(q)
    if not (0.0 < q < 1.0):
        raise ParameterError(f"{name} must be strictly between 0 and 1, got {q!r}")
    return q


def check_se(se) -> float:
    se = float(se)
    if not (math.isfinite(se) and se > 0):
        raise ParameterError(f"standard error must be finite and > 0, got {se!r}")
    return se


def check_mu(mu) -> float:
    mu = float(mu)
    if not math.isfinite(mu):
        raise ParameterError(f"mean must be finite, got {mu!r}")
    return mu


def check_interval_p(p) -> float:
    """p of the intrinsic-effectiveness interval: 0 < p < 0.5 (the interval covers 1 - 2p)."""
    p = float(p)
    if not (0.0 < p < 0.5):
        raise ParameterError(
            f"p must be strictly between 0 and 0.5 (the interval covers 1 - 2p), got {p!r}"
        )
    return p


def floor_p(p: float, floor: float | None) -> tuple[float, bool]:
    """(max(p, floor), whether p was below the floor); no floor when ``floor`` is None.

    A p-value below the floor is reported as "< floor": its digits come from the normal
    tail of the reference model, which the data cannot check (docs/STATISTICS.md).
    """
    p = float(p)
    if floor is None or p >= floor:
        return p, False
    return float(floor), True


def check_method(method: str) -> str:
    if method not in METHODS:
        raise ParameterError(f"unknown method {method!r}: choose one of {', '.join(METHODS)}")
    return method
