"""The paired randomization (permutation) test of a difference in mean effectiveness.

Smucker, Allan, Carterette, "A Comparison of Statistical Significance Tests for
Information Retrieval Evaluation", CIKM 2007, Sec. 3.1 (Fisher's randomization test):
under the null hypothesis that systems A and B are identical, the labels A and B of each
topic's pair of scores are exchangeable, so each per-topic difference d_i keeps or flips
its sign with probability 1/2, and the 2^n sign assignments are equally likely. The test
statistic is the mean difference; the two-sided p-value is the share of assignments
whose |mean| is at least the observed |mean|.

Exact when the assignments can be enumerated: zero differences do not change the
statistic, so only the m non-zero ones are flipped; their 2^m sums are counted by
meet-in-the-middle (the sums of each half's 2^(m/2) assignments, one half sorted and
searched), exact up to ``exact_max`` non-zero differences. Beyond that, ``permutations``
random assignments drawn from ``numpy.random.default_rng(seed)``, and the p-value with
the +1 correction (the observed assignment counts as one of them; Phipson & Smyth,
"Permutation P-values Should Never Be Zero", SAGMB 2010): p = (1 + k) / (1 + B), with its
Monte Carlo standard error sqrt(p (1 - p) / B).

Pure: arrays in, frozen dataclasses out.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from litaudit.errors import ParameterError

EXACT_MAX = 40  # ours: up to 2^40 assignments counted exactly (two halves of 2^20 sums,
# 8 MB each, about 0.3 s)
CHUNK = 2_000  # ours: random assignments drawn per block (memory: CHUNK x n bytes)


@dataclass(frozen=True)
class Randomization:
    """The paired randomization test of mean(d) = 0.

    ``method``: ``exact`` (every one of the ``n_assignments`` = 2^m sign assignments of the
    ``n_nonzero`` non-zero differences) or ``montecarlo`` (``permutations`` random
    assignments from ``seed``, p with the +1 correction and its standard error
    ``p_value_se``). ``n_extreme``: assignments (the observed one included when exact) at
    least as extreme as the observed mean ``statistic``."""

    n: int
    n_nonzero: int
    statistic: float
    method: str
    n_assignments: float
    permutations: int | None
    seed: int | None
    n_extreme: int
    p_value: float
    p_value_se: float


def _half_sums(x: np.ndarray) -> np.ndarray:
    """The 2^len(x) sums of +-x_i (every sign assignment)."""
    sums = np.zeros(1)
    for v in x:
        sums = np.concatenate([sums + v, sums - v])
    return sums


def randomization_test(
    d,
    *,
    permutations: int = 100_000,
    seed: int = 0,
    exact_max: int = EXACT_MAX,
    tol: float = 1e-9,
) -> Randomization:
    """Two-sided paired randomization test of the differences ``d`` (see the module).

    ``tol``: sums within tol * max(1, |observed sum|) of the observed |sum| count as at
    least as extreme (float noise of equal sums)."""
    x = np.asarray(d, dtype=np.float64).ravel()
    if x.size < 1 or not np.all(np.isfinite(x)):
        raise ParameterError("a randomization test needs at least one finite difference")
    if isinstance(permutations, bool) or int(permutations) < 1:
        raise ParameterError(f"permutations must be an integer >= 1, got {permutations!r}")
    nz = x[x != 0.0]
    obs = float(x.sum())
    m = nz.size
    eps = tol * max(1.0, abs(obs))
    cut = abs(obs) - eps
    if m <= exact_max:
        total = 2**m
        if m == 0 or cut <= 0.0:
            k = total
        else:
            # both halves sorted: the counts are a sum over ``left``, so its order changes
            # nothing, and sorted queries search ``right`` in order (2^40 assignments:
            # 0.39 -> 0.19 s of CPU)
            left, right = np.sort(_half_sums(nz[: m // 2])), np.sort(_half_sums(nz[m // 2 :]))
            # |l + r| >= cut  <=>  r >= cut - l  or  r <= -cut - l
            hi = right.size - np.searchsorted(right, cut - left, side="left")
            lo = np.searchsorted(right, -cut - left, side="right")
            k = int(np.sum(hi) + np.sum(lo))
        return Randomization(
            n=x.size,
            n_nonzero=m,
            statistic=obs / x.size,
            method="exact",
            n_assignments=float(total),
            permutations=None,
            seed=None,
            n_extreme=k,
            p_value=k / total,
            p_value_se=0.0,
        )
    b = int(permutations)
    rng = np.random.default_rng(seed)
    k = 0
    done = 0
    while done < b:
        step = min(CHUNK, b - done)
        signs = rng.integers(0, 2, size=(step, m), dtype=np.int8) * 2 - 1
        k += int(np.sum(np.abs(signs @ nz) >= cut))
        done += step
    p = (1 + k) / (1 + b)
    return Randomization(
        n=x.size,
        n_nonzero=m,
        statistic=obs / x.size,
        method="montecarlo",
        n_assignments=float(2.0**m),
        permutations=b,
        seed=int(seed),
        n_extreme=k,
        p_value=p,
        p_value_se=math.sqrt(p * (1.0 - p) / b),
    )
