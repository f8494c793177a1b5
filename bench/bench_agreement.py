"""Timing of the Carterette et al. (SIGIR 2010) agreement analysis.

- exact chi-square enumeration against the table size (Tables 3-4 of the paper are the
  largest tables the 'auto' rule enumerates);
- the Section 4.2 check on robust2004_ap.csv (110 runs, 14 pseudo-sites, 249 topics):
  within-site only and all three analyses (11,234 participant-comparison pairs);
- the Section 4.3 pooling simulation on the robust03 archive (17 runs, depth 100).

Run: .venv/bin/python bench/bench_agreement.py
"""

from __future__ import annotations

import time
from pathlib import Path

import numpy as np

from litaudit.analyses.agreement import analysis as ag
from litaudit.analyses.agreement import input as agin
from litaudit.stats.agreement_chisq import chisq_gof
from litaudit.stats.design import assign_holdouts

DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data"


def timed(label, fn, repeat=1):
    best = float("inf")
    for _ in range(repeat):
        t = time.perf_counter()
        out = fn()
        best = min(best, time.perf_counter() - t)
    print(f"{label:<58} {best:8.3f} s")
    return out, best


def main() -> None:
    print("exact chi-square (multinomial enumeration, 4 cells)")
    for n, table in [
        (10, ([6, 3, 0, 1], [7.098, 2.043, 0.073, 0.786])),
        (300, ([196, 57, 2, 45], [189.5, 62.1, 4.3, 44.1])),
        (380, ([200, 100, 5, 75], [195.0, 105.0, 4.5, 75.5])),
    ]:
        fit, t = timed(
            f"  n = {n:4d} ({chisq_gof(*table, method='exact').outcomes:>9,} outcomes)",
            lambda table=table: chisq_gof(*table, method="exact"),
            repeat=3,
        )
        asym, ta = timed(
            f"  n = {n:4d} asymptotic",
            lambda table=table: chisq_gof(*table, method="asymptotic"),
            repeat=3,
        )
        print(
            f"    p exact {fit.p_value:.4f} vs asymptotic {asym.p_value:.4f}; "
            f"exact/asymptotic time ratio {t / max(ta, 1e-9):,.0f}"
        )
    path = DATA / "pertopic/robust2004_ap.csv"
    if path.is_file():
        print("Section 4.2 on robust2004_ap.csv")
        runs, topics, scores = agin.read_score_matrix(path)
        sites = agin.pseudo_sites(runs, 14)
        a = assign_holdouts(topics, sorted(set(sites)), 2, 0)
        d = agin.design_from_scores(
            runs, sites, topics, scores, dict(zip(a.topics, a.held_out, strict=True))
        )
        r, _ = timed("  within-site (378 pairs)", lambda: ag.analyze(d, which=("within-site",)))
        print(f"    p = {r.analyses[0].aggregate.fit.p_value:.4f}")
        r, t = timed("  all three analyses", lambda: ag.analyze(d))
        n = sum(x.pairs_tested for x in r.analyses)
        print(f"    {n:,} pairs, {1e6 * t / n:.0f} us per pair")
        for seed in range(5):
            a = assign_holdouts(topics, sorted(set(sites)), 2, 0, rng=np.random.default_rng(seed))
            d = agin.design_from_scores(
                runs, sites, topics, scores, dict(zip(a.topics, a.held_out, strict=True))
            )
            r = ag.analyze(d)
            print(
                f"    seed {seed}: p within {r.analyses[0].aggregate.fit.p_value:.4f}, "
                f"participant {r.analyses[2].aggregate.fit.p_value:.4f}"
            )
    qrels = DATA / "trec/qrels/qrels.robust03.txt"
    if qrels.is_file():
        from litaudit.runs.trec_io import read_qrels, read_run

        print("Section 4.3 pooling simulation on robust03 (17 runs, k = 2)")
        q, _ = timed("  read qrels", lambda: read_qrels(qrels))
        runs, _ = timed(
            "  read 17 runs",
            lambda: [read_run(p) for p in sorted((DATA / "trec/runs/robust03").glob("input.*"))],
        )
        for depth in (10, 100):
            sim, _ = timed(
                f"  simulate depth {depth}",
                lambda depth=depth: agin.simulate_pooling(
                    q, runs, [r.tag for r in runs], k=2, depth=depth
                ),
            )
            r, _ = timed(
                "  analyze", lambda sim=sim: ag.analyze(sim.design, true_scores=sim.true_scores)
            )
            fit = r.analysis("participant-comparison").aggregate.fit
            print(
                f"    kept {sim.judged_kept:,}/{sim.judged_total:,} judgments; participant "
                f"p = {fit.p_value:.4f}; tau base/reuse {r.tau.tau:.3f}; "
                f"tau reuse/full {r.true_tau.tau:.3f}"
            )


if __name__ == "__main__":
    main()
