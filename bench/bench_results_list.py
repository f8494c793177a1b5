"""`litaudit results list` over the whole seeded store (31,435 results): target <= 1 s.

Each run is a fresh process (start-up included) writing to a pipe that this script
reads to the end, as `litaudit results list | less` would: plain aligned lines, then
`--json` (every field), then `--sort value --desc`. Prints the median wall time and the
child's CPU time (user + system) over the repeats; on a loaded machine the CPU time is
the steadier figure. Builds a seeded database in a temporary folder unless given one:

    .venv/bin/python bench/bench_results_list.py [DB]
"""

from __future__ import annotations

import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPEATS = 5
CASES = {
    "results list | (pipe)": ["results", "list"],
    "results list --json": ["results", "list", "--json"],
    "results list --sort value --desc": ["results", "list", "--sort", "value", "--desc"],
}


def run(db: Path, args: list[str]) -> tuple[float, float, int]:
    """(wall s, CPU s, bytes) of one `litaudit --db DB ARGS` read to the end."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t = time.perf_counter()
    proc = subprocess.run(
        [sys.executable, "-m", "litaudit", "--db", str(db), *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        check=True,
    )
    wall = time.perf_counter() - t
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu, len(proc.stdout)


def measure(db: Path, repeats: int = REPEATS) -> dict[str, tuple[float, float, int]]:
    """Per case: (median wall s, median CPU s, bytes written) over the repeats."""
    out = {}
    for label, args in CASES.items():
        run(db, args)  # warm the file cache
        got = [run(db, args) for _ in range(repeats)]
        wall = statistics.median(g[0] for g in got)
        cpu = statistics.median(g[1] for g in got)
        out[label] = (wall, cpu, got[0][2])
    return out


def seeded_db(folder: Path) -> Path:
    """A database built by `litaudit init` (every seed) in FOLDER."""
    db = folder / "seeded.duckdb"
    subprocess.run(
        [sys.executable, "-m", "litaudit", "--db", str(db), "init", "--json"],
        stdout=subprocess.DEVNULL,
        check=True,
    )
    return db


def main() -> int:
    with tempfile.TemporaryDirectory() as d:
        db = Path(sys.argv[1]) if len(sys.argv) > 1 else seeded_db(Path(d))
        print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs")
        got = measure(db)
        for label, (wall, cpu, size) in got.items():
            print(
                f"{label:<36} median {wall:6.2f} s wall, {cpu:6.2f} s CPU "
                f"({size / 1e6:.1f} MB) over {REPEATS} runs"
            )
        worst = max(wall for wall, _, _ in got.values())
    print(f"target <= 1 s: {'met' if worst <= 1.0 else 'not met'} (slowest {worst:.2f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
