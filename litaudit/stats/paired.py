"""Paired comparison of two systems on the same topics: wins, ties and losses, the mean
difference with its t interval, and the paired t-test.

The per-topic differences d_i = a_i - b_i of two systems scored on the same n topics (the
topics are the experimental units; Hull, "Using Statistical Testing in the Evaluation of
Retrieval Experiments", SIGIR 1993): mean d, sample sd s (ddof = 1), se = s / sqrt(n),
t = mean / se on n - 1 degrees of freedom, two-sided p = 2 P(T > |t|), and the
1 - alpha interval mean +- t_{1-alpha/2, n-1} se (Student's paired t; the same statistic
as ``scipy.stats.ttest_rel``). A tie is |d_i| <= ``tie_tol`` (scores of measures on the
same judgments are rationals with small denominators; exact ties are common in P@k).
Which of several such comparisons survive a family-wise correction: :mod:`litaudit.stats.holm`;
the randomization test on the same differences: :mod:`litaudit.stats.randomization`.

Pure: arrays in, frozen dataclasses out.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from litaudit.errors import ParameterError

TIE_TOL = 1e-9  # ours: |difference| at or below this is a tie (float noise of a mean)


@dataclass(frozen=True)
class PairedT:
    """A versus B on ``n`` topics: ``wins`` (a > b), ``ties``, ``losses``; ``mean`` of the
    differences a - b, their ``sd``, ``se``; the ``level`` interval [``low``, ``high``];
    ``t`` on ``df`` degrees of freedom and its two-sided ``p_value`` (None, with t None,
    when every difference is equal: no variance to test against)."""

    n: int
    wins: int
    ties: int
    losses: int
    mean: float
    sd: float
    se: float
    level: float
    low: float
    high: float
    t: float | None
    df: int
    p_value: float | None


def differences(a, b) -> np.ndarray:
    """a - b over topics, checked: same length, at least 2, finite."""
    x = np.asarray(a, dtype=np.float64).ravel()
    y = np.asarray(b, dtype=np.float64).ravel()
    if x.shape != y.shape:
        raise ParameterError(f"paired scores need the same topics: {x.size} and {y.size} scores")
    if x.size < 2:
        raise ParameterError(f"a paired comparison needs at least 2 topics, got {x.size}")
    if not (np.all(np.isfinite(x)) and np.all(np.isfinite(y))):
        raise ParameterError("paired scores must be finite (a topic not evaluated?)")
    return x - y


def paired_t(a, b, *, level: float = 0.95, tie_tol: float = TIE_TOL) -> PairedT:
    """Wins, ties, losses, mean difference with its ``level`` t interval, paired t-test."""
    if not (0.0 < level < 1.0):
        raise ParameterError(f"interval level must be in (0, 1), got {level!r}")
    # start-up: scipy.stats (0.9 s; `audit best` and `audit claim` import this module)
    from scipy import stats as sps

    d = differences(a, b)
    n = d.size
    wins = int(np.sum(d > tie_tol))
    losses = int(np.sum(d < -tie_tol))
    mean = float(d.mean())
    sd = float(d.std(ddof=1))
    se = sd / math.sqrt(n)
    df = n - 1
    q = float(sps.t.ppf(0.5 + level / 2.0, df))
    t = p = None
    if se > 0.0:
        t = mean / se
        p = float(min(1.0, 2.0 * sps.t.sf(abs(t), df)))
    return PairedT(
        n=n,
        wins=wins,
        ties=n - wins - losses,
        losses=losses,
        mean=mean,
        sd=sd,
        se=se,
        level=level,
        low=mean - q * se,
        high=mean + q * se,
        t=t,
        df=df,
        p_value=p,
    )
