"""The cost of opening a store: a DuckDB instance per open against an ATTACH to one.

Prints the CPU time (this process's, per open, ms) of opening and closing a seeded
database file, read-only and for writing, four ways: a DuckDB instance of its own
(`duckdb.connect`, what `open_store` did before ``litaudit.store.instance``), a cursor of
a live in-memory instance with ``ATTACH``/``USE``/``DETACH``, `open_store` itself (which
attaches, checks the schema version and detaches on close), and `open_store` of a file
another store of this process holds open (attached once, counted). Then the same for an
open that writes one row (its close checkpoints). Builds a seeded database in a temporary
folder unless given one (which is copied, never changed):

    .venv/bin/python bench/bench_open.py [DB] [--n N]
"""

from __future__ import annotations

import argparse
import shutil
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import duckdb

from litaudit.curation.seed import load_seeds
from litaudit.store.db import open_store


def per_call_ms(fn: Callable[[], object], n: int) -> float:
    fn()  # warm: imports, the instance, the OS's cache of the file
    t = time.process_time()
    for _ in range(n):
        fn()
    return (time.process_time() - t) / n * 1000


def _open_work(con: duckdb.DuckDBPyConnection, write: bool) -> None:
    """What open_store does on an open file (the migrations read), a write if asked,
    then the close."""
    con.execute("SET enable_progress_bar = false")
    con.execute("SELECT version, name, applied_at FROM _migrations ORDER BY version")
    con.fetchall()
    if write:
        con.execute("UPDATE _migrations SET name = name WHERE version = 1")
    con.close()


def by_connect(path: str, read_only: bool, write: bool) -> Callable[[], None]:
    def run() -> None:
        con = duckdb.connect(path, read_only=read_only)
        _open_work(con, write)

    return run


def by_attach(root: duckdb.DuckDBPyConnection, path: str, read_only: bool, write: bool):
    mode = " (READ_ONLY)" if read_only else ""

    def run() -> None:
        with root.cursor() as cur:
            cur.execute(f"ATTACH '{path}' AS bench{mode}")
        con = root.cursor()
        con.execute("USE bench")
        _open_work(con, write)
        with root.cursor() as cur:
            cur.execute("DETACH bench")

    return run


def by_open_store(path: str, read_only: bool, write: bool) -> Callable[[], None]:
    def run() -> None:
        with open_store(path, read_only=read_only) as store:
            if write:
                store.con.execute("UPDATE _migrations SET name = name WHERE version = 1")

    return run


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("db", nargs="?", type=Path, help="a seeded database (copied)")
    ap.add_argument("--n", type=int, default=100, help="opens timed per figure")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "seeded.duckdb"
        if args.db:
            shutil.copy(args.db, path)
        else:
            t = time.process_time()
            with open_store(path) as store:
                load_seeds(store)
            print(f"seeded store built: {time.process_time() - t:.1f} s CPU")
        print(f"file: {path.stat().st_size / 1e6:.1f} MB; {args.n} opens per figure")
        root = duckdb.connect(":memory:")
        p = str(path)
        print(
            f"{'open + close, ms CPU':<24}{'connect':>9}{'attach':>9}{'open_store':>12}{'held':>8}"
        )
        for label, ro, write in (
            ("read-only", True, False),
            ("for writing", False, False),
            ("writing one row", False, True),
        ):
            figures = [
                per_call_ms(by_connect(p, ro, write), args.n),
                per_call_ms(by_attach(root, p, ro, write), args.n),
                per_call_ms(by_open_store(p, ro, write), args.n),
            ]
            with open_store(p, read_only=ro):  # held: the opens below attach nothing
                figures.append(per_call_ms(by_open_store(p, ro, write), args.n))
            print(
                f"{label:<24}"
                + "".join(f"{f:>{w}.2f}" for f, w in zip(figures, (9, 9, 12, 8), strict=True))
            )
        root.close()


if __name__ == "__main__":
    main()
