"""Rank resolution (`audit ranks`, issue 30 item 4): speed and calibration.

Speed: `litaudit.stats.ranks.resolve_ranks` at the default resamples on the largest
shared shapes: adhoc8_ap.csv (129 runs x 50 topics) and BEIR-13 nDCG@10 from the seeded
store (228 systems x 13 datasets, each dataset's bound se added); target <= 2 s each.

Calibration, on whole matrices: a family per shared per-topic matrix (20) and BEIR-13
nDCG@10, each under two nulls drawn from its real residuals (each system's scores minus
its mean; the units resampled with replacement; for BEIR-13 each drawn cell also gets a
Normal error of its dataset's bound se, and the method is given those se):
- ``equal``: all means equal, so every system is a true best: per system, the share of
  cases in which it is left out of the 95% set (reported: the largest over systems, and
  the mean), and the share of cases in which some rank interval misses (every system's
  true rank is 1);
- ``best``: the top system's residuals raised by 3 times its median se of a difference
  (one clear best), the others tied: the share of cases in which the best is left out of
  the set, and in which some rank interval misses (the best's true rank 1, the others' 2).
Requirement: <= 5% within two Monte Carlo se (sqrt(p(1-p)/n) at p = 5%).
``--method before`` runs the method as it was (no floor on the se of a difference, a
resample's se floored at half the sample's, the set not joined with the rank intervals).

Run: .venv/bin/python bench/bench_ranks.py [--samples 400] [--resamples 200]
[--only adhoc6_ap,BEIR-13] [--null equal|best] [--method before] [--no-speed]
"""

from __future__ import annotations

import argparse
import math
import sys
import time
from pathlib import Path

import numpy as np

from litaudit.stats.ranks import resolve_ranks

DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data"
SEED = 30_2026  # the bench's own seed (sample i of matrix f: [SEED + f, i])


def load(name: str) -> np.ndarray:
    from litaudit.runs.pertopic import read_pertopic_csv

    m = read_pertopic_csv(DATA / "pertopic" / f"{name}.csv")
    y = np.asarray(m.scores, dtype=np.float64)
    return y[:, np.all(np.isfinite(y), axis=0)]


def beir13(noise: str):
    """BEIR-13 nDCG@10 of every model with all 13 datasets, from a fresh seeded store."""
    import shutil
    import tempfile

    from litaudit.analyses.extreme.ranks_input import from_datasets
    from litaudit.curation.filters import Filters
    from litaudit.curation.seed import load_seeds
    from litaudit.store.db import open_store

    tmp = Path(tempfile.mkdtemp())
    with open_store(tmp / "bench.duckdb") as store:
        load_seeds(store)
        inp = from_datasets(store.con, "beir/13", "nDCG@10", Filters(), noise)
    shutil.rmtree(tmp)
    assert inp is not None
    return inp


def speed(resamples: int | None) -> None:
    from litaudit import defaults

    b = resamples or defaults.RANKS_RESAMPLES
    y = load("adhoc8_ap")
    t = time.process_time()
    r = resolve_ranks(y, resamples=b)
    print(
        f"speed: adhoc8_ap {y.shape[0]} x {y.shape[1]}, {b} resamples: "
        f"{time.process_time() - t:.2f} s CPU, set of the best {len(r.best_set)}"
    )
    inp = beir13("bound")
    t = time.process_time()
    r = resolve_ranks(inp.scores, resamples=b, unit_se=inp.unit_se, units="datasets")
    print(
        f"speed: BEIR-13 nDCG@10 {r.n_systems} x {r.n_units}, {b} resamples: "
        f"{time.process_time() - t:.2f} s CPU, set of the best {len(r.best_set)}"
    )


def _null(y: np.ndarray, null: str) -> tuple[np.ndarray, int | None]:
    """The residuals of the null and its true best (None: all equal)."""
    from litaudit.stats.rank_resamples import mean_covariance

    res = y - y.mean(axis=1, keepdims=True)
    if null == "equal":
        return res, None
    best = int(np.argmax(y.mean(axis=1)))
    sig = mean_covariance(y)
    d = np.diag(sig)
    se = np.sqrt(np.maximum(d[:, None] + d[None, :] - 2.0 * sig, 0.0))
    res[best] += 3.0 * float(np.median(np.delete(se[best], best)))
    return res, best


def calibrate(
    name: str,
    f: int,
    null: str,
    samples: int,
    resamples: int,
    y: np.ndarray,
    unit_se: np.ndarray | None = None,
    method: str = "after",
) -> bool:
    import litaudit.stats.ranks as ranks

    res, best = _null(y, null)
    k, t = res.shape
    kw: dict = {}
    if method == "before":  # the method as it was (issue 30's first turn)
        ranks.SE_FLOOR = 0.5
        kw = {"se_floor": 0.0, "consistent": False}
    truth = np.ones(k, dtype=np.int64) if best is None else np.full(k, 2, dtype=np.int64)
    if best is not None:
        truth[best] = 1
    rng = np.random.default_rng([SEED + f, 0 if null == "equal" else 1])
    out = np.zeros(k)
    missed = 0
    size = 0
    start = time.process_time()
    for i in range(samples):
        cols = rng.integers(0, t, t)
        x, s = res[:, cols], None
        if unit_se is not None:
            s = unit_se[:, cols]
            x = x + rng.standard_normal(x.shape) * s
        r = resolve_ranks(x, resamples=resamples, seed=i, unit_se=s, **kw)
        inn = np.asarray(r.in_best_set)
        out += ~inn
        size += int(inn.sum())
        lo, hi = np.asarray(r.rank_low), np.asarray(r.rank_high)
        missed += bool(np.any((lo > truth) | (hi < truth)))
    mc = 2 * math.sqrt(0.05 * 0.95 / samples)
    left = out.max() / samples if best is None else out[best] / samples
    miss = missed / samples
    good = left <= 0.05 + mc and miss <= 0.05 + mc
    what = "a true best left out max" if best is None else "the best left out"
    extra = f" (mean {out.mean() / samples:.4f})" if best is None else ""
    print(
        f"ranks {name} {k} x {t} {null} [{method}]: {what} {left:.3f}{extra}, some rank "
        f"interval missed {miss:.3f}, mean set {size / samples:.1f}; {samples} cases, "
        f"2 MC se {mc:.3f}: {'ok' if good else 'OVER'} [{time.process_time() - start:.0f} s]",
        flush=True,
    )
    if method == "before":
        ranks.SE_FLOOR = 0.25
    return good


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--samples", type=int, default=400)
    ap.add_argument("--resamples", type=int, default=200)
    ap.add_argument("--only", default="", help="comma-separated families (matrix names)")
    ap.add_argument("--null", choices=("equal", "best", "both"), default="both")
    ap.add_argument("--method", choices=("after", "before"), default="after")
    ap.add_argument("--no-speed", action="store_true")
    a = ap.parse_args(argv)
    if not DATA.is_dir():
        print(f"skipped: no shared data at {DATA}")
        return 0
    if not a.no_speed:
        speed(None)
    names = [p.stem for p in sorted((DATA / "pertopic").glob("*.csv"))] + ["BEIR-13"]
    nulls = ("equal", "best") if a.null == "both" else (a.null,)
    ok = True
    for f, name in enumerate(names):  # f: the family's seed, the same with --only
        if a.only and name not in a.only.split(","):
            continue
        if name == "BEIR-13":
            inp = beir13("bound")
            y, se = inp.scores, inp.unit_se
        else:
            y, se = load(name), None
        for null in nulls:
            ok &= calibrate(name, f, null, a.samples, a.resamples, y, se, a.method)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
