"""Benchmark: `litaudit report -c robust03` after a fresh import (issue 15, item 4).

    .venv/bin/python bench/bench_report.py              # 3 repetitions
    .venv/bin/python bench/bench_report.py --repeat 5
    .venv/bin/python bench/bench_report.py --before DIR  # ... and older code, alternating

Builds one database with the commands a user types (``litaudit init``, then ``litaudit
runs import -c robust03 --qrels ...``), then for each repetition copies it (so every
report starts from a fresh import: no audit stored) and runs ``litaudit report -c
robust03 -o FILE.md`` as a child process. Prints its wall and CPU seconds and peak
resident memory (from wait4: that child's alone), the load average, and PASS/MISS of the
median against the issue's targets (15 s, 600 MB; the peak is printed in MiB and MB).
The bytecode is compiled first, as an installed wheel's is. ``--before DIR``: a folder
holding older code (its litaudit/, schema/ and seeds/, e.g. from ``git archive``), run
through PYTHONPATH, alternating with this tree's, each on its own copy of the same
database. The machine is shared: the figures vary with the load printed beside them.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
DATA = REPO.parent / "shared" / "data" / "trec"
RUNS = DATA / "runs" / "robust03"
QRELS = DATA / "qrels" / "qrels.robust03.txt"
LITAUDIT = Path(sys.executable).parent / "litaudit"
TARGET_S = 15.0
TARGET_MB = 600.0  # issue 15: "at most 15 s and 600 MB"


def run_child(cmd: list[str], env: dict[str, str] | None = None) -> tuple[float, float, float]:
    """(wall s, CPU s, peak RSS in KiB) of a child process (stdout and stderr discarded;
    CPU and peak from wait4, that child's alone)."""
    t0 = time.perf_counter()
    pid = os.fork()
    if pid == 0:
        fd = os.open(os.devnull, os.O_WRONLY)
        os.dup2(fd, 1)
        os.dup2(fd, 2)
        os.execve(cmd[0], cmd, env if env is not None else dict(os.environ))
    _, status, ru = os.wait4(pid, 0)
    wall = time.perf_counter() - t0
    if os.waitstatus_to_exitcode(status):
        sys.exit(f"failed: {' '.join(cmd)}")
    return wall, ru.ru_utime + ru.ru_stime, float(ru.ru_maxrss)


def build_database(path: Path) -> None:
    """``litaudit init`` and ``litaudit runs import`` of robust03, as a user types them."""
    for args in (
        ["init"],
        ["runs", "import", "-c", "robust03", "--qrels", str(QRELS), str(RUNS)],
    ):
        subprocess.run(
            [str(LITAUDIT), "--db", str(path), *args], check=True, stdout=subprocess.DEVNULL
        )


def _summary(label: str, rows: list[tuple[float, float, float]]) -> None:
    wall = statistics.median(r[0] for r in rows)
    cpu = statistics.median(r[1] for r in rows)
    mb = statistics.median(r[2] for r in rows) * 1024 / 1e6
    ok_t, ok_m = wall <= TARGET_S, mb <= TARGET_MB
    print(
        f"{label} median: {wall:.2f} s wall ({'PASS' if ok_t else 'MISS'} <= {TARGET_S:g} s), "
        f"{cpu:.2f} s CPU, peak {mb:.0f} MB ({'PASS' if ok_m else 'MISS'} <= "
        f"{TARGET_MB:g} MB); load average now {os.getloadavg()[0]:.2f}"
    )


def measure(repeat: int, before: Path | None = None) -> dict[str, list[tuple[float, float, float]]]:
    """(wall s, CPU s, peak KiB) of each repetition of ``report -c robust03`` on a fresh copy
    of one imported database, for this tree (and ``before``'s code, alternating)."""
    trees = {"this tree": None}
    if before is not None:
        trees["before"] = before.resolve()
    for tree in trees.values():
        src = (tree or REPO) / "litaudit"
        subprocess.run([sys.executable, "-m", "compileall", "-q", str(src)], check=True)
    print(f"cores {os.cpu_count()}; litaudit report -c robust03 after a fresh import")
    rows: dict[str, list] = {label: [] for label in trees}
    with tempfile.TemporaryDirectory() as tmp:
        base = Path(tmp) / "base.duckdb"
        build_database(base)
        for i in range(repeat):
            for label, tree in trees.items():
                env = dict(os.environ)
                if tree is not None:
                    env["PYTHONPATH"] = str(tree)
                db = Path(tmp) / f"r{i}.duckdb"
                shutil.copy(base, db)
                load = os.getloadavg()[0]
                cmd = [str(LITAUDIT), "--db", str(db), "report", "-c", "robust03"]
                wall, cpu, kib = run_child(cmd + ["-o", str(Path(tmp) / f"r{i}.md")], env)
                db.unlink()
                rows[label].append((wall, cpu, kib))
                print(
                    f"  {label}, run {i + 1}: {wall:.2f} s wall, {cpu:.2f} s CPU, peak RSS "
                    f"{kib / 1024:.0f} MiB ({kib * 1024 / 1e6:.0f} MB); load average {load:.2f}"
                )
    return rows


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--before", type=Path, help="a folder holding older code to compare")
    args = ap.parse_args()
    if not (RUNS.is_dir() and QRELS.is_file()):
        print(f"skipped: the robust03 runs and qrels are not in {DATA}")
        return
    if not LITAUDIT.exists():
        sys.exit(f"no litaudit command beside {sys.executable}: run `make venv`")
    for label, r in measure(args.repeat, args.before).items():
        _summary(label, r)


if __name__ == "__main__":
    main()
