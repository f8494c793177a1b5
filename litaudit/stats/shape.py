"""How far a population of published values is from the Normal model of the extreme-value
audits (Carterette, SIGIR 2015, Sec. 3: the N results are treated as N draws from one
Normal distribution).

Sample skewness and excess kurtosis (bias-corrected, as scipy.stats.skew/kurtosis with
``bias=False``) and the Shapiro-Wilk test of normality (Shapiro and Wilk, Biometrika 1965;
scipy.stats.shapiro). A description of the sample, not a verdict on the audit: the caller
decides what is "far" (litaudit.defaults).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class Shape:
    """``n`` values; ``skewness`` and ``excess_kurtosis`` (None for n < 4 or no spread);
    ``shapiro_w``/``shapiro_p``: the Shapiro-Wilk statistic and p-value (None outside
    3 <= n <= 5000 or with no spread)."""

    n: int
    skewness: float | None
    excess_kurtosis: float | None
    shapiro_w: float | None
    shapiro_p: float | None


def normal_shape(values) -> Shape:
    from scipy import stats

    v = np.asarray(values, dtype=np.float64).ravel()
    n = int(v.size)
    if n < 3 or float(np.ptp(v)) == 0.0:
        return Shape(n, None, None, None, None)
    skew = kurt = None
    if n >= 4:
        skew = float(stats.skew(v, bias=False))
        kurt = float(stats.kurtosis(v, bias=False))
    w = p = None
    if n <= 5000:
        res = stats.shapiro(v)
        w, p = float(res.statistic), float(res.pvalue)
        if not math.isfinite(p):
            w = p = None
    return Shape(n, skew, kurt, w, p)
