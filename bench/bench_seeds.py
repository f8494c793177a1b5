"""Every seed in, and every seeded population audited (issue 13 targets).

1. `litaudit init` with every seed (robust04 literature, TREC official runs, MS MARCO
   leaderboards, MTEB's BEIR results and the derived averages: 31,435 results) in a
   fresh process on a fresh database: wall time, median of repeats. Target <= 5 s.
2. `litaudit audit summary` (exact `audit best` of every seeded collection, measure and
   source, stored) in a fresh process: wall time, median of repeats. Target <= 2 s.
3. Each exact audit, in process, not stored: as `audit summary` runs it (Tables 2-3 and
   the population description on a population already read), and on its own (`run_best`
   by name: resolve, read the population, audit): the median and the slowest. Target
   <= 10 ms each.

The machine is shared: figures vary by tens of percent from run to run; the report
gives the median and the range.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
LITAUDIT = [sys.executable, "-m", "litaudit"]
INIT_TARGET_S, SUMMARY_TARGET_S, AUDIT_TARGET_MS = 5.0, 2.0, 10.0


CPU: dict[str, list[float]] = {}


def _wall(args: list[str], what: str) -> float:
    """Wall time of a fresh process; its CPU time (user + system) goes to CPU[what]."""
    import resource

    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t = time.perf_counter()
    subprocess.run(args, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    wall = time.perf_counter() - t
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    CPU.setdefault(what, []).append(
        after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime
    )
    return wall


def _line(what: str, times: list[float], target: float, unit: str = "s") -> str:
    k = 1000.0 if unit == "ms" else 1.0
    med = statistics.median(times) * k
    return (
        f"  {what:<34} {med:8.2f} {unit}  (range {min(times) * k:.2f}-{max(times) * k:.2f}; "
        f"{med / target:.2f}x of the {target:g} {unit} target)"
    )


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeats", type=int, default=5)
    args = ap.parse_args(argv)
    from litaudit.analyses.extreme import best as B
    from litaudit.store.db import open_store

    with tempfile.TemporaryDirectory() as d:
        inits = []
        for i in range(args.repeats):
            db = Path(d) / f"init{i}.duckdb"
            inits.append(_wall([*LITAUDIT, "--db", str(db), "init"], "init"))
        db = Path(d) / "init0.duckdb"
        with open_store(db, read_only=True) as store:
            n = store.con.execute("SELECT count(*) FROM results").fetchone()[0]
        summaries = [
            _wall([*LITAUDIT, "--db", str(db), "audit", "summary"], "summary")
            for _ in range(args.repeats)
        ]
        with open_store(db, read_only=True) as store:
            con = store.con
            groups = con.execute(
                "SELECT DISTINCT c.name, r.measure, r.source FROM results r "
                "JOIN collections c ON c.id = r.collection_id "
                "ORDER BY 1, 2, 3"
            ).fetchall()
            # as the summary runs them: one read of every population, then each audit
            from litaudit.analyses.extreme.population import load_population, select_population

            colls = {
                r[0]: (r[1], r[2])
                for r in con.execute(
                    "SELECT c.id, c.name, t.n_topics FROM collections c LEFT JOIN topic_sets t "
                    "ON t.collection_id = c.id AND t.is_default"
                ).fetchall()
            }
            pops: dict = {}
            for x in load_population(con, None, None, B.Filters()):
                pops.setdefault((x.collection_id, x.measure, x.row.source), []).append(x.row)
            inner, inner_slowest = [], (0.0, None)
            for (cid, measure, source), rows in pops.items():
                f = B.Filters(source=source)
                try:
                    pop = select_population(
                        cid, colls[cid][0], colls[cid][1], measure, rows, f, B.SUMMARY_MIN_N
                    )
                except Exception:
                    continue
                reps = []
                for _ in range(3):
                    t = time.perf_counter()
                    B.compute_best(con, pop, f, B.AuditModel())
                    reps.append(time.perf_counter() - t)
                inner.append(min(reps))
                if min(reps) > inner_slowest[0]:
                    inner_slowest = (min(reps), f"{colls[cid][0]} {measure} ({source})")
            per, slowest = [], (0.0, None)
            for name, measure, source in groups:
                f = B.Filters(source=source)
                try:
                    B.run_best(con, name, measure, filters=f, save=False)  # warm
                except Exception:  # fewer than 2 results after the topic rule
                    continue
                reps = []
                for _ in range(3):
                    t = time.perf_counter()
                    B.run_best(con, name, measure, filters=f, save=False)
                    reps.append(time.perf_counter() - t)
                best_of = min(reps)
                per.append(best_of)
                if best_of > slowest[0]:
                    slowest = (best_of, f"{name} {measure} ({source})")
    print(f"every seed: {n} results; {len(per)} collection/measure/source populations")
    print(_line("litaudit init (fresh process)", inits, INIT_TARGET_S))
    print(_line("  its CPU time (user + system)", CPU["init"], INIT_TARGET_S))
    print(_line("litaudit audit summary (stored)", summaries, SUMMARY_TARGET_S))
    print(_line("  its CPU time (user + system)", CPU["summary"], SUMMARY_TARGET_S))
    print(_line("audit within the summary, median", inner, AUDIT_TARGET_MS, "ms"))
    print(
        f"  {'audit within the summary, slowest':<34} {inner_slowest[0] * 1000:8.2f} ms  "
        f"({inner_slowest[1]}; {inner_slowest[0] * 1000 / AUDIT_TARGET_MS:.2f}x of the "
        f"{AUDIT_TARGET_MS:g} ms target)"
    )
    print(_line("one exact audit, median", per, AUDIT_TARGET_MS, "ms"))
    print(
        f"  {'one exact audit, slowest':<34} {slowest[0] * 1000:8.2f} ms  ({slowest[1]}; "
        f"{slowest[0] * 1000 / AUDIT_TARGET_MS:.2f}x of the {AUDIT_TARGET_MS:g} ms target)"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
