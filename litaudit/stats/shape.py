"""How far a population of published values is from the Normal model of the extreme-value
audits (Carterette, SIGIR 2015, Sec. 3: the N results are treated as N draws from one
Normal distribution).

The sample skewness G1 and excess kurtosis G2 with their small-sample corrections (Joanes
and Gill, "Comparing measures of sample skewness and kurtosis", The Statistician 47,
1998, eqs. for G1 and G2; the same as scipy.stats.skew/kurtosis with ``bias=False``).
Both are 0 for a Normal distribution. Beside them, the Shapiro-Wilk test of normality
(Shapiro and Wilk, Biometrika 52, 1965; scipy's implementation of Royston's algorithm).

:func:`far_from_normal` says a sample is far from Normal when its skewness or excess
kurtosis exceeds a size (litaudit.defaults) *and* Shapiro-Wilk rejects normality at
``alpha``: sizes alone fire on 15% of Normal samples of 5 (the sample G1 and G2 are very
variable at small N); the test alone rejects nearly every large real population for small
departures. Together at most ``alpha`` of Normal samples are flagged at any N >= 5
(measured: bench/bench_shape.py, tests/test_stats_noise.py).
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class Shape:
    """``n`` values; ``skewness`` (G1) and ``excess_kurtosis`` (G2), None for n < 4 or
    values without spread; ``shapiro_w``/``shapiro_p``: the Shapiro-Wilk statistic and
    p-value (None for n < 3, without spread, or when not computed)."""

    n: int
    skewness: float | None
    excess_kurtosis: float | None
    shapiro_w: float | None = None
    shapiro_p: float | None = None


def normal_shape(values, *, shapiro: bool = True) -> Shape:
    """G1, G2 and (with ``shapiro``) the Shapiro-Wilk test of ``values``."""
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
    w = p = None
    if shapiro:
        # start-up: scipy
        from scipy import stats as sps  # imported here: 0.4 s a stored audit never needs

        with warnings.catch_warnings():  # N > 5000: scipy warns its p may be inaccurate
            warnings.simplefilter("ignore")
            res = sps.shapiro(v)
        w, p = float(res.statistic), float(res.pvalue)
        if not math.isfinite(p):
            w = p = None
    return Shape(n, skew, kurt, w, p)


def sample_sizes(samples) -> tuple[np.ndarray, np.ndarray]:
    """G1 and G2 of each row of ``samples`` (2-D, rows of n >= 4 values), as
    :func:`normal_shape` computes them for one sample, equal to ~1e-12 (the means are
    summed along the rows); NaN for a row without spread. For calibrations over many
    samples (tests/stats/test_stats_noise.py): one pass instead of a call a sample."""
    x = np.asarray(samples, dtype=np.float64)
    if x.ndim != 2 or x.shape[1] < 4:
        raise ValueError(f"need a 2-D array of rows of at least 4 values, got shape {x.shape}")
    n = x.shape[1]
    d = x - x.mean(axis=1, keepdims=True)
    m2 = np.mean(d * d, axis=1)
    with np.errstate(divide="ignore", invalid="ignore"):
        g1 = np.mean(d**3, axis=1) / m2**1.5
        g2 = np.mean(d**4, axis=1) / (m2 * m2) - 3.0
    flat = m2 == 0.0
    g1[flat] = g2[flat] = np.nan
    skew = math.sqrt(n * (n - 1)) / (n - 2) * g1
    kurt = (n - 1) / ((n - 2) * (n - 3)) * ((n + 1) * g2 + 6.0)
    return skew, kurt


def far_from_normal(shape: Shape, max_skew: float, max_kurtosis: float, alpha: float) -> bool:
    """|G1| > ``max_skew`` or |G2| > ``max_kurtosis``, and Shapiro-Wilk p < ``alpha``."""
    big = (shape.skewness is not None and abs(shape.skewness) > max_skew) or (
        shape.excess_kurtosis is not None and abs(shape.excess_kurtosis) > max_kurtosis
    )
    return bool(big and shape.shapiro_p is not None and shape.shapiro_p < alpha)
