"""The chance families of bench/bench_calibration.py (issue 30, item 3): false alarms of
the threshold of the max and of the F test under equal-means nulls drawn from every shared
per-topic matrix.

A case: the matrix's residuals (double-centred: all system and topic means equal) with
its topics resampled with replacement, so each run keeps its own noise (runs differ by up
to 2x) and the runs' correlation within a topic. Each test sees only the case's scores:

* before: the Normal threshold of the max (Carterette, SIGIR 2015, Sec. 3.1) with the se
  measured from the case's interaction, sqrt(MS_interaction / n), exact quantile of the
  max of k Normals; the F test of the two-way ANOVA on (k - 1, (k - 1)(n - 1)) df;
* after: the threshold of the max and the F by resampling the case's own residual matrix
  (litaudit.stats.calibrated, ``inner`` replications each), the studentized max-t test of
  equal means (``max_i |m_i - m| / se_i``, each run's own se, by the bootstrap-t on the
  same residuals: the calibrated test of equal means since the F, resampled or permuted,
  is not calibrated when runs differ in noise), and the permutation F (``perms``
  permutations within topics).

The requirement (``AFTER``) is on the resampled max and the studentized max-t; the
resampled F and the permutation F are shown as measured.

A false alarm is a rejection at alpha = 0.05. Rates carry a 95% Wilson interval.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

ALPHA = 0.05
# the calibrated tests the requirement is on: the threshold of the max, and the test of
# equal means (the studentized max-t; the resampled and permutation F are shown beside it)
AFTER = ("resampled max", "studentized max-t")


@dataclass(frozen=True)
class Rates:
    name: str
    cases: int
    counts: dict[str, int]
    seconds: float


def wilson(k: int, n: int, z: float = 1.959964) -> tuple[float, float]:
    """95% Wilson interval of a binomial rate k / n."""
    p = k / n
    d = 1 + z * z / n
    c = (p + z * z / (2 * n)) / d
    h = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / d
    return max(0.0, c - h), min(1.0, c + h)


def read_matrix(path: Path) -> np.ndarray:
    """Runs x topics of a shared pertopic CSV."""
    import csv

    with path.open(newline="", encoding="utf-8") as fh:
        rows = list(csv.reader(fh))
    start = 1 if rows[0][0] == "topic" else 0
    return np.array([[float(v) for v in r[start:]] for r in rows[1:]]).T


def family(path: Path, cases: int, inner: int, perms: int, seed: int) -> Rates:
    from scipy import stats as sps

    from litaudit.stats import calibrated as C
    from litaudit.stats.extreme import StdExtremes
    from litaudit.stats.noise import residuals, topic_interaction

    t0 = time.perf_counter()
    x = read_matrix(path)
    r = residuals(x)
    k, n = r.shape
    zq = StdExtremes.make(k, "exact", None, None).max_q(1 - ALPHA)[0]
    f_crit = float(sps.f.isf(ALPHA, k - 1, (k - 1) * (n - 1)))
    rng = np.random.default_rng(seed)
    names = ("normal max", "F test", "resampled max", "resampled F", "studentized max-t", "perm F")
    counts = dict.fromkeys(names, 0)
    for i in range(cases):
        y = r[:, rng.integers(0, n, size=n)]
        it = topic_interaction(y)
        t_obs = float(y.mean(axis=1).max() - y.mean())
        counts["normal max"] += t_obs > zq * it.se
        counts["F test"] += it.f_systems > f_crit
        null = C.resampled_null(y, alpha=ALPHA, trials=inner, seed=seed * 100_003 + i)
        counts["resampled max"] += null.p_max <= ALPHA
        counts["resampled F"] += null.p_f <= ALPHA
        mt = C.max_t_test(y, alpha=ALPHA, trials=inner, seed=seed * 100_003 + i)
        counts["studentized max-t"] += mt.p <= ALPHA
        if perms:
            counts["perm F"] += C.permutation_f(y, trials=perms, seed=seed * 7_919 + i) <= ALPHA
    if not perms:
        del counts["perm F"]
    name = f"{path.stem} ({k} runs x {n} topics)"
    return Rates(name, cases, counts, time.perf_counter() - t0)


def show(rates: Rates) -> bool:
    """Print one family; True when every 'after' test's rate is <= 5% within its interval."""
    parts, ok = [], True
    for test, k in rates.counts.items():
        lo, hi = wilson(k, rates.cases)
        parts.append(f"{test} {100 * k / rates.cases:.1f}% [{100 * lo:.1f}, {100 * hi:.1f}]")
        if test in AFTER and lo > ALPHA:
            ok = False
    print(f"  {rates.name}, {rates.cases} cases [{rates.seconds:.0f} s]: " + "; ".join(parts))
    return ok


def run(data: Path, cases: int, inner: int, perms: int, seed: int) -> bool:
    """Every shared matrix's family; True when the calibrated tests hold 5%."""
    folder = data / "pertopic"
    print(
        f"chance: false alarms at alpha {ALPHA} under equal-means nulls resampled from each "
        f"matrix, {cases} cases per family, {inner} inner replications, {perms} permutations "
        "(95% Wilson intervals)"
    )
    ok = True
    for f, path in enumerate(sorted(folder.glob("*.csv"))):
        rates = family(path, cases, inner, perms, seed + 1000 + f)
        if any(rates.counts[t] > ALPHA * cases for t in AFTER):
            # above 5%: the same family with 2.5 times the cases (the first ``cases`` are
            # the same ones), so that its interval says whether it is over
            show(rates)
            rates = family(path, cases * 5 // 2, inner, perms, seed + 1000 + f)
        ok &= show(rates)
    return ok
