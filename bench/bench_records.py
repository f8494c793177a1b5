"""Calibration of the winner's corrected score (issue 34, item 2) on the shared per-topic
matrices, where the truth is known.

For each matrix (../shared/data/pertopic: rows topics, columns runs; topics some run lacks
left out), the truth is the run means of the whole matrix. A trial resamples the topics
with replacement (the same number), takes the winner of the resampled means and asks each
method for the winner's true mean, i.e. that run's mean in the whole matrix:
- observed: the winner's resampled mean, with the naive interval +- 1.96 se;
- Carterette's mu0 (SIGIR 2015, Sec. 3.1): the estimate mu0 and the interval
  [lower, value] (nominal 60%: p = 0.2) with the interaction se of the resampled matrix
  and N = its runs;
- shrinkage (litaudit.stats.noise.shrink): the random-effects estimate, +- 1.96 posterior
  sd;
- conditional, hybrid, bootstrap (litaudit.stats.winner; 95%).
Printed per method, over every trial of every matrix: the mean bias (estimate - truth)
with its Monte Carlo standard error, the mean absolute error, the coverage of its
interval (nominal level beside it) with its standard error, and the trials where the
estimate is undefined (the conditional one at a near-tie: its interval is then unbounded,
which covers); then the bias per matrix.

`--peer`: instead, the record audit of every matrix (runs dated in threes, in column
order) against honestboard 0.6.1's Board.record_audit: the chain, each step's selective
p-value (the same sign patterns), the date groups and Holm's verdicts, counted unequal.

Run: .venv/bin/python bench/bench_records.py [--trials 100] [--matrices adhoc7_ap,...]
(the default: 100 trials of each of the 20 matrices; --quick: 25 trials of 8 matrices).
The hybrid's simultaneous quantile uses 5,000 draws here (20,000 in the audits).
"""

from __future__ import annotations

import argparse
import math
import time
from pathlib import Path

import numpy as np

from litaudit.stats.intervals import intrinsic_interval
from litaudit.stats.noise import shrink, topic_interaction
from litaudit.stats.winner import correct_winner, mean_covariance

DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data" / "pertopic"
SEED = 34_2026
QUICK = (
    "adhoc5_ap",
    "adhoc7_ap",
    "adhoc8_p10",
    "robust2004_ap",
    "web2010_ndcg20",
    "web2011_ap",
    "web2013_ndcg20",
    "web2014_ap",
)
METHODS = ("observed", "mu0", "shrinkage", "conditional", "hybrid", "bootstrap")
NOMINAL = {"mu0": 0.60}


def load(name: str) -> np.ndarray:
    from litaudit.runs.pertopic import read_pertopic_csv

    x = np.asarray(read_pertopic_csv(DATA / f"{name}.csv").scores, dtype=np.float64)
    return x[:, np.isfinite(x).all(axis=0)]


def trial(y: np.ndarray, truth: np.ndarray, rng: np.random.Generator, seed: int) -> dict:
    t = y.shape[1]
    ys = y[:, rng.integers(0, t, t)]
    p, s = mean_covariance(ys)
    w = int(np.argmax(p))
    se = topic_interaction(ys).se
    out: dict[str, tuple[float, float | None, float | None]] = {}
    x = float(p[w])
    sd_w = math.sqrt(s[w, w])
    out["observed"] = (x, x - 1.96 * sd_w, x + 1.96 * sd_w)
    ii = intrinsic_interval(x, se, p.size, p=0.2)
    out["mu0"] = (ii.mu0, ii.lower, ii.upper)
    sh = shrink(x, float(p.mean()), float(p.std(ddof=1)), se)
    out["shrinkage"] = (
        sh.estimate,
        sh.estimate - 1.96 * sh.posterior_sd,
        sh.estimate + 1.96 * sh.posterior_sd,
    )
    wc = correct_winner(p, s, scores=ys, seed=seed, draws=5000, resamples=500)
    for e in wc.estimates:
        out[e.method] = (
            math.nan if e.estimate is None else e.estimate,
            -math.inf if e.lower is None else e.lower,
            math.inf if e.upper is None else e.upper,
        )
    return {m: (est - truth[w], lo <= truth[w] <= hi) for m, (est, lo, hi) in out.items()}


def peer() -> None:
    """The record audits of the 20 matrices against honestboard's (see the module doc)."""
    import honestboard as hb

    from litaudit.stats import records as R
    from litaudit.stats.holm import holm

    cpu = time.process_time()
    unequal = steps = 0
    for path in sorted(DATA.glob("*.csv")):
        x = load(path.stem)
        dates = [f"2020{i // 3:04d}" for i in range(x.shape[0])]
        theirs = hb.Board([f"r{i}" for i in range(x.shape[0])], x, dates).record_audit()["steps"]
        chain, groups = R.record_chain(x.mean(axis=1), dates)
        unequal += len(chain) - 1 != len(theirs)
        ours = []
        for a, b, g, t in zip(chain[:-1], chain[1:], groups[1:], theirs, strict=False):
            sf = R.selective_signflip(x[b] - x[a], rng=np.random.default_rng(7 * b + a))
            ours.append(R.step_adjusted(sf.p_selective, g))
            unequal += (sf.p_selective != t["p_selective"]) + (g != t["date_group"])
        unequal += [p <= 0.05 for p in holm(ours)] != [t["significant_holm"] for t in theirs]
        steps += len(ours)
    print(
        f"{steps} record steps of 20 matrices; {unequal} unequal; CPU {time.process_time() - cpu:.0f} s"
    )


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--trials", type=int, default=100)
    ap.add_argument("--matrices", default="")
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--peer", action="store_true")
    a = ap.parse_args()
    if a.peer:
        peer()
        return
    names = sorted(p.stem for p in DATA.glob("*.csv"))
    trials = a.trials
    if a.quick:
        names, trials = list(QUICK), 25
    if a.matrices:
        names = a.matrices.split(",")
    cpu = time.process_time()
    errs: dict[str, list[float]] = {m: [] for m in METHODS}
    cover: dict[str, list[bool]] = {m: [] for m in METHODS}
    per: list[tuple[str, int, int, dict[str, float]]] = []
    for i, name in enumerate(names):
        y = load(name)
        truth = y.mean(axis=1)
        rng = np.random.default_rng([SEED, i])
        rows = [trial(y, truth, rng, SEED + 1000 * i + j) for j in range(trials)]
        for m in METHODS:
            e = [r[m][0] for r in rows if math.isfinite(r[m][0])]
            errs[m] += e
            cover[m] += [r[m][1] for r in rows]
        per.append(
            (
                name,
                y.shape[0],
                y.shape[1],
                {m: float(np.nanmean([r[m][0] for r in rows])) for m in METHODS},
            )
        )
    print(f"{len(names)} matrices x {trials} trials; CPU {time.process_time() - cpu:.0f} s")
    print("| method | bias (mean error) | mean abs. error | coverage (nominal) | undefined |")
    print("|---|---|---|---|---|")
    for m in METHODS:
        e = np.asarray(errs[m])
        c = np.asarray(cover[m], dtype=float)
        nominal = NOMINAL.get(m, 0.95)
        print(
            f"| {m} | {e.mean():+.4f} +- {e.std(ddof=1) / math.sqrt(e.size):.4f} | "
            f"{np.abs(e).mean():.4f} | {c.mean():.1%} +- {c.std(ddof=1) / math.sqrt(c.size):.1%} "
            f"({nominal:.0%}) | {c.size - e.size} |"
        )
    print("\nbias per matrix (runs x topics):")
    print("| matrix | " + " | ".join(METHODS) + " |")
    print("|---|" + "---|" * len(METHODS))
    for name, k, t, b in per:
        print(f"| {name} ({k} x {t}) | " + " | ".join(f"{b[m]:+.4f}" for m in METHODS) + " |")


if __name__ == "__main__":
    main()
