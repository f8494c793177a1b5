"""Where a parallel test run's wall time goes: each xdist worker's start-up, collection,
files and end, against the CPU it used.

`make test` on two cores takes more wall than half its CPU; this script shows where the
two cores were not both busy. It runs pytest (the Makefile's xdist options, or the
arguments given after `--`) with itself loaded as a plugin; each worker writes its
timeline (wall and CPU of its own and of the subprocesses it waited for) to a temporary
folder, and the script prints, from the run's start: when each worker was configured and
had collected (start-up), each worker's costliest files, the gap between the workers'
last tests (the end imbalance), and the run's wall against its CPU / 2.

    .venv/bin/python bench/suite_timeline.py                     # the whole suite
    .venv/bin/python bench/suite_timeline.py -- tests/stats -n 2 --dist loadfile

On a shared machine read the CPU and the timeline, not the absolute wall.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
XDIST = ["-n", "auto", "--dist", "loadfile", "--no-loadscope-reorder"]
OUT_ENV = "LITAUDIT_TIMELINE_DIR"

_state: dict = {"files": {}}


def _cpu() -> float:
    t = os.times()
    return t.user + t.system + t.children_user + t.children_system


def _mark(name: str) -> None:
    t = os.times()
    _state[name] = (time.time(), _cpu(), t.user + t.system)  # own CPU last


def pytest_configure(config) -> None:
    _mark("configured")


def pytest_collection_finish(session) -> None:
    _mark("collected")


def pytest_runtest_logstart(nodeid, location) -> None:
    name = nodeid.split("::", 1)[0]
    _state["files"].setdefault(name, [time.time(), _cpu(), 0.0, 0.0])


def pytest_runtest_logfinish(nodeid, location) -> None:
    entry = _state["files"][nodeid.split("::", 1)[0]]
    entry[2], entry[3] = time.time(), _cpu()


def pytest_unconfigure(config) -> None:
    folder = os.environ.get(OUT_ENV)
    if not folder:
        return
    _mark("ended")
    worker = os.environ.get("PYTEST_XDIST_WORKER", "controller")
    (Path(folder) / f"{worker}.json").write_text(json.dumps(_state))


def _report(folder: Path, start: float, wall: float, cpu: float) -> None:
    lasts = []
    paths = sorted(folder.glob("*.json"))
    for path in paths:
        s = json.loads(path.read_text())
        line = f"{path.stem:>10}: configured {s['configured'][0] - start:5.2f} s"
        if "collected" in s:
            coll = s["collected"]
            line += (
                f", collected {coll[0] - start:5.2f} s ({coll[1] - s['configured'][1]:.2f} s CPU)"
            )
        cpu_own = s["ended"][2]
        print(line + f", ended {s['ended'][0] - start:6.2f} s, own CPU {cpu_own:6.1f} s")
        files = s["files"]
        # under xdist the controller sees every worker's tests: its own files are without -n
        if files and (path.stem != "controller" or len(paths) == 1):
            lasts.append(max(f[2] for f in files.values()))
            costly = sorted(files.items(), key=lambda kv: kv[1][0] - kv[1][2])[:5]
            for name, (a, ca, b, cb) in costly:
                print(
                    f"{'':12}{a - start:6.1f} s +{b - a:5.1f} s wall {cb - ca:5.1f} s CPU  {name}"
                )
    if len(lasts) > 1:
        print(f"gap between the workers' last tests: {max(lasts) - min(lasts):.2f} s")
    controller = folder / "controller.json"
    if lasts and controller.exists() and len(paths) > 1:
        ended = json.loads(controller.read_text())["ended"][0]
        print(f"end: the controller ended {ended - max(lasts):.2f} s after the last test")
    print(f"run: {wall:.1f} s wall, {cpu:.1f} s CPU (CPU / 2 = {cpu / 2:.1f} s)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("pytest_args", nargs="*", help="after --: pytest's arguments")
    args = parser.parse_args()
    pytest_args = args.pytest_args or [*XDIST, "-p", "no:randomly", "-q"]
    with tempfile.TemporaryDirectory() as folder:
        env = dict(os.environ, PYTHONPATH=str(ROOT / "bench"), **{OUT_ENV: folder})
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        start = time.time()
        before = os.times()
        done = subprocess.run(
            [sys.executable, "-m", "pytest", "-p", "suite_timeline", *pytest_args],
            cwd=ROOT,
            env=env,
            stdout=subprocess.DEVNULL,
            check=False,
        )
        wall = time.time() - start
        after = os.times()
        cpu = (after.children_user - before.children_user) + (
            after.children_system - before.children_system
        )
        _report(Path(folder), start, wall, cpu)
        if done.returncode:
            print(f"pytest exited {done.returncode}")


if __name__ == "__main__":
    main()
