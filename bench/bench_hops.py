"""How far a command travels before its first query (issue 37: `audit claim` in <= 5 hops).

Runs `litaudit audit claim -c robust04 -m AP --value 0.372 --no-save` in this process on a
fresh seeded database and watches every call (sys.setprofile). At the first DuckDB query
that is not the store's own opening (litaudit/store/db.py, store/migrations.py), it prints

* hops: the litaudit frames on the stack between the command's function (cli/audit.py
  `claim`) and the frame that runs the query, the command's own frame excluded;
* modules: the litaudit modules whose code ran from the command's start to that query
  (the command's own module and the store's opening included), and the stack itself;
* the same stack at the first query of the published results (the audit's input).

Run: .venv/bin/python bench/bench_hops.py [litaudit args ...] (default: the claim above).
"""

from __future__ import annotations

import os
import re
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PKG = str(ROOT / "litaudit") + os.sep
OPENING = (PKG + os.path.join("store", "db.py"), PKG + os.path.join("store", "migrations.py"))
DEFAULT = ["audit", "claim", "-c", "robust04", "-m", "AP", "--value", "0.372", "--no-save"]


def _module(filename: str) -> str:
    rel = Path(filename).resolve().relative_to(ROOT).with_suffix("")
    return ".".join(rel.parts)


def _stack(frame, command: str) -> list[str]:
    """The litaudit frames from the command's function to ``frame``, outermost first."""
    stack = []
    f = frame
    while f is not None:
        fn = f.f_code.co_filename
        if fn.startswith(PKG):
            stack.append(f"{_module(fn)}:{f.f_code.co_name}")
            if f.f_code.co_name == command and fn.startswith(PKG + "cli"):
                break
        f = f.f_back
    return stack[::-1]


def measure(db: Path, args: list[str]) -> tuple[list[str], list[str], set[str]]:
    """The stacks (outermost first) at the first query after the command starts and at the
    first query of the results table, and the modules that ran until the first."""
    import duckdb
    from typer.testing import CliRunner

    from litaudit.cli.main import app

    started = False
    ran: set[str] = set()
    found: list[str] = []
    results: list[str] = []  # the stack at the first query of the published results
    command = args[1] if len(args) > 1 else args[0]
    execute = duckdb.DuckDBPyConnection.execute

    def profile(frame, event, arg):  # the modules that run, from the command's start
        nonlocal started
        name = frame.f_code.co_filename
        if found or event != "call" or not name.startswith(PKG):
            return
        if not started and frame.f_code.co_name == command and name.startswith(PKG + "cli"):
            started = True
        if started:
            ran.add(_module(name))

    def watched(con, *a, **kw):
        caller = sys._getframe(1)
        if started and not found and caller.f_code.co_filename not in OPENING:
            found.extend(_stack(caller, command))
        sql = str(a[0]) if a else ""
        if started and not results and re.search(r"\bFROM\s+results\b", sql, re.I):
            results.extend(_stack(caller, command))
        return execute(con, *a, **kw)

    duckdb.DuckDBPyConnection.execute = watched
    sys.setprofile(profile)
    try:
        res = CliRunner().invoke(app, ["--db", str(db), *args])
    finally:
        sys.setprofile(None)
        duckdb.DuckDBPyConnection.execute = execute
    if res.exit_code != 0:
        raise SystemExit(f"the command failed: {res.output}")
    return found, results, ran


def main() -> None:
    args = sys.argv[1:] or DEFAULT
    with tempfile.TemporaryDirectory() as d:
        db = Path(d) / "hops.duckdb"
        from typer.testing import CliRunner

        from litaudit.cli.main import app

        t0 = time.perf_counter()
        CliRunner().invoke(app, ["--db", str(db), "init"])
        init_s = time.perf_counter() - t0
        stack, results, ran = measure(db, args)
    print(f"litaudit {' '.join(args)} (seeded database built in {init_s:.1f} s)")
    print(f"hops to the first query: {len(stack) - 1}; modules run until then: {len(ran)}")
    for depth, where in enumerate(stack):
        print(f"  {depth:2d} {where}")
    print(f"hops to the first query of the results: {len(results) - 1}")
    for depth, where in enumerate(results):
        print(f"  {depth:2d} {where}")


if __name__ == "__main__":
    main()
