"""`litaudit site DIR` over the whole seeded store: target <= 60 s and <= 100 MB on disk.

Three builds, each a fresh process: the first (every `best` and `history` audit run and
stored), the second on the unchanged store (every audit found, every page unchanged:
nothing written), and one after a single result's value is edited (only its pages
written). Prints each build's wall and CPU time (user + system of the child; on a loaded
machine the CPU time is the steadier figure), the files written and the site's size on
disk, then the cost of reading the audits one by one against in one query
(`analyses.audits.get_audits`). Builds a seeded database in a temporary folder unless
given one (which is copied, never changed):

    .venv/bin/python bench/bench_site.py [DB]
"""

from __future__ import annotations

import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

TARGET_S, TARGET_MB = 60.0, 100.0


def litaudit(db: Path, *args: str) -> tuple[float, float, str]:
    """(wall s, CPU s, stdout) of one `litaudit --db DB ARGS`."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t = time.perf_counter()
    proc = subprocess.run(
        [sys.executable, "-m", "litaudit", "--db", str(db), *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        check=True,
        text=True,
    )
    wall = time.perf_counter() - t
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu, proc.stdout


def disk_mb(folder: Path) -> float:
    """The site's size on disk (allocated blocks, as `du` counts them)."""
    return sum(p.stat().st_blocks * 512 for p in folder.rglob("*") if p.is_file()) / 1e6


def edit_one(db: Path) -> str:
    """Edit the value of one paper result (the first of the papers' AP results)."""
    import duckdb

    con = duckdb.connect(str(db), read_only=True)
    rid, text = con.execute(
        "SELECT id, value_text FROM results WHERE source = 'paper' AND measure = 'AP' "
        "AND status <> 'retracted' ORDER BY id LIMIT 1"
    ).fetchone()
    con.close()
    new = f"{float(text) + 0.0001:.4f}"
    litaudit(db, "results", "edit", str(rid), "--set", f"value={new}", "--reason", "bench")
    return f"result #{rid} {text} -> {new}"


def read_costs(db: Path) -> None:
    """Reading the site's audits by id one at a time against all at once."""
    from litaudit.analyses.audits import get_audit, get_audits
    from litaudit.store.db import open_store

    with open_store(db, read_only=True) as store:
        ids = [
            r[0]
            for r in store.con.execute(
                "SELECT max(id) FROM audits WHERE kind IN ('best', 'history') "
                "GROUP BY kind, collection_id, measure, params"
            ).fetchall()
        ]
        t = time.process_time()
        for i in ids:
            get_audit(store.con, i)
        one = time.process_time() - t
        t = time.process_time()
        get_audits(store.con, ids)
        many = time.process_time() - t
    print(f"reading {len(ids)} audits: one by one {one:.1f} s CPU, in one query {many:.1f} s")


def measure(source: Path | None = None) -> dict:
    """The three builds' (wall s, CPU s) by label, the site's size on disk (MB) and the
    load average before and after, on a copy of ``source`` (else a freshly seeded store)."""
    with tempfile.TemporaryDirectory() as d:
        db = Path(d) / "seeded.duckdb"
        if source is not None:
            shutil.copy(source, db)
        else:
            litaudit(db, "init", "--json")
        out = Path(d) / "site"
        load = os.getloadavg()[0]
        print(f"load average {load:.1f} on {os.cpu_count()} CPUs")
        builds: dict[str, tuple[float, float]] = {}
        for label in ("first build", "unchanged store", "one result edited"):
            if label == "one result edited":
                print(f"  ({edit_one(db)})")
            wall, cpu, text = litaudit(db, "site", str(out), "--json")
            done = json.loads(text)
            builds[label] = (wall, cpu)
            print(
                f"{label:<18} wall {wall:6.1f} s  CPU {cpu:6.1f} s  pages {done['pages']}  "
                f"written {len(done['written'])}  removed {len(done['removed'])}"
                + (f"  ({', '.join(done['written'])})" if len(done["written"]) < 6 else "")
            )
        mb = disk_mb(out)
        print(f"site on disk: {mb:.1f} MB ({done['total_bytes'] / 1e6:.1f} MB of pages)")
        read_costs(db)
        return {
            "builds": builds,
            "mb": mb,
            "pages": done["pages"],
            "load": (load, os.getloadavg()[0]),
        }


def main() -> int:
    got = measure(Path(sys.argv[1]) if len(sys.argv) > 1 else None)
    worst = max(cpu for _, cpu in got["builds"].values())
    ok = worst <= TARGET_S and got["mb"] <= TARGET_MB
    print(f"target <= {TARGET_S:.0f} s CPU and <= {TARGET_MB:.0f} MB: {'met' if ok else 'MISSED'}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
