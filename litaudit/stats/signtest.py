"""The exact two-sided sign test of paired differences (ties left out).

Under the null that a positive and a negative difference are equally likely, the number of
wins among the n = wins + losses non-tied pairs is Binomial(n, 1/2); the two-sided p is
min(1, 2 P(X >= max(wins, losses))) (Conover, *Practical Nonparametric Statistics*, 3rd
ed., 1999, Sec. 3.4; the same as ``scipy.stats.binomtest(wins, n, 0.5)`` for p = 1/2).
It asks only in how many units one system is better, not by how much: with a handful of
datasets (a benchmark's 13) it cannot reach 0.05 below 9 wins of 10, or 10 of 12.

Pure: counts in, a frozen dataclass out.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from litaudit.errors import ParameterError


@dataclass(frozen=True, kw_only=True)
class SignTest:
    """``wins`` and ``losses`` (ties left out), ``n`` = wins + losses, the exact two-sided
    ``p_value`` (None when n = 0: nothing to test)."""

    wins: int
    losses: int
    n: int
    p_value: float | None


def sign_test(wins: int, losses: int) -> SignTest:
    """The exact two-sided sign test of ``wins`` against ``losses``."""
    if wins < 0 or losses < 0:
        raise ParameterError(f"wins and losses must be >= 0, got {wins} and {losses}")
    n = wins + losses
    if n == 0:
        return SignTest(wins=wins, losses=losses, n=0, p_value=None)
    k = max(wins, losses)
    tail = sum(math.comb(n, j) for j in range(k, n + 1)) / 2.0**n
    return SignTest(wins=wins, losses=losses, n=n, p_value=min(1.0, 2.0 * tail))
