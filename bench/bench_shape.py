"""False warnings of the population shape check on truly Normal samples, by N (issue 19).

The check (litaudit.analyses.extreme.population_summary.shape_warning, stats.shape.far_from_normal) warns
when the sample skewness or excess kurtosis exceeds litaudit.defaults NORMAL_FIT_MAX_SKEW /
NORMAL_FIT_MAX_KURTOSIS *and* Shapiro-Wilk rejects normality at NORMAL_FIT_ALPHA. Printed
for each N: the rate of the sizes alone (the rule before issue 19), of Shapiro-Wilk alone,
and of the rule, each over REPS Normal samples drawn with default_rng([SEED, N]), with its
Monte Carlo standard error sqrt(r (1 - r) / REPS). Target: the rule at most 5% at every
N >= 5.

Run: .venv/bin/python bench/bench_shape.py
"""

from __future__ import annotations

import math
import time

import numpy as np

from litaudit import defaults as D
from litaudit.stats.shape import far_from_normal, normal_shape

SEED = 19
REPS = 4000
NS = (5, 6, 7, 8, 10, 12, 15, 20, 30, 50, 100, 200, 500)


def rates(N: int) -> tuple[float, float, float]:
    rng = np.random.default_rng([SEED, N])
    sizes = sw = rule = 0
    for _ in range(REPS):
        sh = normal_shape(rng.standard_normal(N))
        big = (sh.skewness is not None and abs(sh.skewness) > D.NORMAL_FIT_MAX_SKEW) or (
            sh.excess_kurtosis is not None and abs(sh.excess_kurtosis) > D.NORMAL_FIT_MAX_KURTOSIS
        )
        sizes += big
        sw += sh.shapiro_p is not None and sh.shapiro_p < D.NORMAL_FIT_ALPHA
        rule += far_from_normal(
            sh, D.NORMAL_FIT_MAX_SKEW, D.NORMAL_FIT_MAX_KURTOSIS, D.NORMAL_FIT_ALPHA
        )
    return sizes / REPS, sw / REPS, rule / REPS


def _pct(r: float) -> str:
    return f"{100 * r:5.2f}% +- {100 * math.sqrt(r * (1 - r) / REPS):4.2f}"


def main() -> None:
    t0 = time.perf_counter()
    print(f"false warnings on Normal samples ({REPS} samples per N, seed {SEED})")
    print(f"{'N':>5}  {'sizes alone':>16}  {'Shapiro-Wilk':>16}  {'rule':>16}")
    worst = 0.0
    for N in NS:
        a, b, c = rates(N)
        worst = max(worst, c)
        print(f"{N:>5}  {_pct(a):>16}  {_pct(b):>16}  {_pct(c):>16}")
    print(f"largest rate of the rule: {100 * worst:.2f}% ({time.perf_counter() - t0:.1f} s)")


if __name__ == "__main__":
    main()
