"""The peer of the user's path in bench/bench_runs.py --cli: a pytrec_eval script that parses
a qrels file and a folder of run files (plain or gzip) in Python and evaluates them (MAP,
P@10, Rprec) in one process, printing each run's means, as a user would write it.

    python bench/pytrec_eval_script.py QRELS RUN_DIR
"""

from __future__ import annotations

import gzip
import sys
from pathlib import Path

import pytrec_eval


def main(qrels: Path, run_dir: Path) -> None:
    qd: dict = {}
    with open(qrels) as fh:
        for line in fh:
            t, _, d, r = line.split()
            qd.setdefault(t, {})[d] = int(r)
    ev = pytrec_eval.RelevanceEvaluator(qd, {"map", "P_10", "Rprec"})
    for f in sorted(run_dir.iterdir()):
        rd: dict = {}
        with gzip.open(f, "rt") if f.suffix == ".gz" else open(f) as fh:
            for line in fh:
                t, _, d, _, s, _ = line.split()
                rd.setdefault(t, {})[d] = float(s)
        res = ev.evaluate(rd)
        n = len(res)
        print(
            f.name,
            *(f"{sum(v[m] for v in res.values()) / n:.4f}" for m in ("map", "P_10", "Rprec")),
        )


if __name__ == "__main__":
    main(Path(sys.argv[1]), Path(sys.argv[2]))
