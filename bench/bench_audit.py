"""Extreme-value audits of every seeded collection and measure (target: exact < 1 s total).

Builds a database from seeds/ in a temporary folder, then times `audit summary` (exact
method): computing only, and computing plus storing every audit in one transaction
(median of repeats). Then checks the exact method against the paper's Monte Carlo method
(Carterette, SIGIR 2015: repeated sampling) on every group: the difference in the
max threshold, mu0 and the lower bound, in units of the Monte Carlo standard error.
"""

from __future__ import annotations

import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from litaudit.analyses.extreme import best as B  # noqa: E402
from litaudit.analyses.extreme import population  # noqa: E402
from litaudit.analyses.extreme import summary as S  # noqa: E402
from litaudit.curation.seed import load_seeds  # noqa: E402
from litaudit.stats import intervals  # noqa: E402
from litaudit.store.db import open_store  # noqa: E402

REPEATS = 5
TARGET_S = 1.0
TRIALS = 10_000
SEED = 2015


def main() -> int:
    with tempfile.TemporaryDirectory() as d:
        with open_store(Path(d) / "bench.duckdb") as store:
            load_seeds(store)
            con = store.con
            S.run_summary(con, save=False)  # warm caches
            compute, stored = [], []
            for _ in range(REPEATS):
                t = time.perf_counter()
                s = S.run_summary(con, save=False)
                compute.append(time.perf_counter() - t)
                with store.transaction():
                    t = time.perf_counter()
                    S.run_summary(con, save=True)
                    stored.append(time.perf_counter() - t)
            n_rows = sum(r.N for r in s.rows)
            tc, ts = statistics.median(compute), statistics.median(stored)
            print(
                f"exact audits: {len(s.rows)} collection/measure/source groups, "
                f"{n_rows} results ({len(s.skipped)} groups skipped)"
            )
            print(
                f"  compute only:         {tc * 1000:7.1f} ms  "
                f"({tc / TARGET_S:.2f}x of the {TARGET_S:.0f} s target)"
            )
            print(
                f"  compute + store all:  {ts * 1000:7.1f} ms  ({ts / TARGET_S:.2f}x of the target)"
            )

            # exact vs Monte Carlo, group by group, from the same populations
            t = time.perf_counter()
            z_all, within2, n_q = [], 0, 0
            for r in s.rows:
                f = B.Filters(source=r.source)
                vals = [
                    x.value
                    for x in population.load_results(con, r.collection_id, r.measure, f)
                    if x.n_topics == r.n_topics
                ]
                ex = intervals.audit_best(vals, r.n_topics)
                mc = intervals.audit_best(
                    vals, r.n_topics, method="montecarlo", trials=TRIALS, seed=SEED
                )
                for a, b, se in (
                    (
                        mc.thresholds.max_threshold,
                        ex.thresholds.max_threshold,
                        mc.thresholds.max_threshold_se,
                    ),
                    (mc.interval.mu0, ex.interval.mu0, mc.interval.mu0_se),
                    (mc.interval.lower, ex.interval.lower, mc.interval.lower_se),
                    (mc.mxvd.expected_max, ex.mxvd.expected_max, mc.mxvd.expected_max_se),
                ):
                    z = abs(a - b) / se
                    z_all.append(z)
                    within2 += z <= 2
                    n_q += 1
            tm = time.perf_counter() - t
            print(
                f"Monte Carlo ({TRIALS} trials, seed {SEED}) vs exact on {len(s.rows)} groups, "
                f"{n_q} quantities, {tm:.2f} s ({tm / max(tc, 1e-9):.0f}x the exact time):"
            )
            print(
                f"  |MC - exact| / MC standard error: median {statistics.median(z_all):.2f}, "
                f"max {max(z_all):.2f}; within 2 SE: {within2}/{n_q} "
                f"({100 * within2 / n_q:.1f}%, ~95% expected)"
            )
            ok = tc < TARGET_S
            print("PASS" if ok else "FAIL", f"exact audits in {tc:.3f} s (target < {TARGET_S} s)")
            return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
