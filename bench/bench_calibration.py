"""Calibration and power of the reusability verdict (issue 11, item 4).

Families (litaudit/analyses/reuse_calibration.py says how each case is drawn):
- reusable by construction, robust2004_ap.csv (110 runs x 249 topics, full judgments):
  runs in 14 random pseudo-sites (the paper's Robust 2004 set-up), random hold-outs;
- reusable by construction, robust03 archive (17 runs, full qrels on both sides):
  runs in 4 to 8 random sites, a random 50 of the 100 topics;
- non-reusable by construction, robust03 archive: the same draws, but every topic
  scored with the depth-10 or depth-20 pool of the sites not held out (the held-out
  sites' documents unjudged), as in Carterette et al. (2010) Section 4.3;
- reusable, plus independent judging noise (sd 0.02 AP) on every (topic, hold-out,
  run) score: scores that depend on the hold-outs without bias, where the test's size
  is its nominal 5% (on noise-free full scores its statistic is exactly 0);
- with --full, also depths 50 and 100 (milder; reported, no requirement).
For each family: the verdict test's rejection rate (false alarms or power) at alpha 0.05
with its Monte Carlo standard error, and, beside it, the rate of the paper's chi-square
with the pairs taken as independent (one random assignment per case).

Run: .venv/bin/python bench/bench_calibration.py [--quick | --full]
(--quick, the default: 200 cases per family; --full: 1,000.) Then the verdict's
stability: 20 seeds on robust03 and on robust04 (10 assignments each; --full: 100).
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

from litaudit.analyses import reuse_calibration as cal

DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data"
SEED = 11_2026  # the bench's own seed (case i of a family: [SEED + f, i])


def load_robust03() -> tuple:
    from litaudit.analyses.coded_archive import load_coded
    from litaudit.curation.seed import load_seeds
    from litaudit.runs.ingest import import_archive
    from litaudit.store.db import open_store

    tmp = Path(tempfile.mkdtemp()) / "bench.duckdb"
    with open_store(tmp) as store:
        load_seeds(store)
        import_archive(
            store,
            "trec-robust-2003",
            [DATA / "trec" / "runs" / "robust03"],
            qrels_path=DATA / "trec" / "qrels" / "qrels.robust03.txt",
        )
        return tmp, load_coded(store.con, "trec-robust-2003")[1]


def show(r: cal.FamilyResult, seconds: float) -> None:
    bound = f" (95% upper bound {100 * r.upper95:.1f}%)" if r.rejections == 0 else ""
    print(
        f"{r.family:<58} {r.rejections:>4}/{r.cases:<5} {100 * r.rate:5.1f}% "
        f"+- {100 * r.se:3.1f}{bound}; paper's chi-square {100 * r.paper_rate:5.1f}% "
        f"+- {100 * r.paper_se:3.1f}; mean shift {r.mean_shift_pct:+.2f}%  [{seconds:.0f} s]"
    )


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    g = ap.add_mutually_exclusive_group()
    g.add_argument("--quick", action="store_true", help="200 cases per family (default)")
    g.add_argument("--full", action="store_true", help="1,000 cases per family")
    args = ap.parse_args()
    n = 1000 if args.full else 200
    if not DATA.is_dir():
        print(f"skipped: {DATA} is absent")
        return 0
    from litaudit.analyses.agreement_input import read_score_matrix

    r04_tags, _, r04 = read_score_matrix(DATA / "pertopic" / "robust2004_ap.csv")
    coded_path, coded = load_robust03()
    print(
        f"alpha 0.05, {n} cases per family (Monte Carlo standard errors; 2-core machine "
        "shared with other jobs)"
    )
    families = [
        (
            "reusable: robust04 per-topic, 14 random sites",
            lambda rng: cal.matrix_case(r04, rng, sites=14),
        ),
        (
            "reusable + unbiased noise (sd 0.02): robust04, 14 sites",
            lambda rng: cal.matrix_case(r04, rng, sites=14, noise=0.02),
        ),
        (
            "reusable: robust03 full qrels, 4-8 random sites, 50 topics",
            lambda rng: cal.archive_case(
                coded, rng, depth=None, sites=int(rng.integers(4, 9)), topics=50
            ),
        ),
        (
            "non-reusable: robust03 depth 10/20 pools, 4-8 sites, 50 topics",
            lambda rng: cal.archive_case(
                coded,
                rng,
                depth=int(rng.choice([10, 20])),
                sites=int(rng.integers(4, 9)),
                topics=50,
            ),
        ),
    ]
    milder = [
        (
            "milder: robust03 depth 50 pools, 4-8 sites, 50 topics",
            lambda rng: cal.archive_case(
                coded, rng, depth=50, sites=int(rng.integers(4, 9)), topics=50
            ),
        ),
        (
            "milder: robust03 depth 100 pools, 4-8 sites, 50 topics",
            lambda rng: cal.archive_case(
                coded, rng, depth=100, sites=int(rng.integers(4, 9)), topics=50
            ),
        ),
    ]
    if args.full:
        families += milder
    ok = True
    for f, (name, make) in enumerate(families):
        t = time.perf_counter()
        r = cal.run_family(name, n, make, seed=SEED + f)
        show(r, time.perf_counter() - t)
        if name.startswith("reusable") and r.rate - 2 * r.se > 0.05:
            ok = False
        if name.startswith("non-reusable") and r.rate + 2 * r.se < 0.80:
            ok = False
    print(
        "calibrated (<= 5%) and powered (>= 80%) within Monte Carlo error:", "yes" if ok else "NO"
    )
    ok = stability(coded_path, r04_tags, r04, 100 if args.full else 10) and ok
    return 0 if ok else 1


def stability(db_path, tags, r04, assignments: int) -> bool:
    """The verdict for 20 seeds of its random assignments, on robust03 and robust04."""
    from litaudit.analyses import verdict as V
    from litaudit.analyses.agreement_input import pseudo_sites
    from litaudit.store.db import open_store

    t = time.perf_counter()
    with open_store(db_path) as store:
        r03 = [
            V.run_verdict(
                store.con, "trec-robust-2003", seed=s, assignments=assignments, save=False
            ).result.outcome
            for s in range(20)
        ]
    sites = pseudo_sites(tags, 14)
    r04v = [
        V.matrix_verdict(r04, sites, seed=s, assignments=assignments).outcome for s in range(20)
    ]
    for name, outs in (("robust03 archive", r03), ("robust04 per-topic, 14 sites", r04v)):
        print(
            f"stability, {name}, 20 seeds ({assignments} assignments each): "
            + "; ".join(f"{o!r} x {outs.count(o)}" for o in sorted(set(outs)))
        )
    print(f"[{time.perf_counter() - t:.0f} s]")
    return len(set(r03)) == 1 and len(set(r04v)) == 1


if __name__ == "__main__":
    sys.exit(main())
