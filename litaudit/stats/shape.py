"""How far a population of published values is from the Normal model of the extreme-value
audits (Carterette, SIGIR 2015, Sec. 3: the N results are treated as N draws from one
Normal distribution).

The sample skewness G1 and excess kurtosis G2 with their small-sample corrections (Joanes
and Gill, "Comparing measures of sample skewness and kurtosis", The Statistician 47,
1998, eqs. for G1 and G2; the same as scipy.stats.skew/kurtosis with ``bias=False``).
Both are 0 for a Normal distribution. A description of the sample, not a verdict: the
caller decides what is "far" (litaudit.defaults).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class Shape:
    """``n`` values; ``skewness`` (G1) and ``excess_kurtosis`` (G2), None for n < 4 or
    values without spread."""

    n: int
    skewness: float | None
    excess_kurtosis: float | None


def normal_shape(values) -> Shape:
    v = np.asarray(values, dtype=np.float64).ravel()
    n = int(v.size)
    if n < 4:
        return Shape(n, None, None)
    d = v - v.mean()
    m2 = float(np.mean(d * d))
    if m2 == 0.0:
        return Shape(n, None, None)
    m3, m4 = float(np.mean(d**3)), float(np.mean(d**4))
    g1, g2 = m3 / m2**1.5, m4 / (m2 * m2) - 3.0
    skew = math.sqrt(n * (n - 1)) / (n - 2) * g1
    kurt = (n - 1) / ((n - 2) * (n - 3)) * ((n + 1) * g2 + 6.0)
    return Shape(n, skew, kurt)
