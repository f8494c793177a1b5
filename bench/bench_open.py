"""The cost of opening a store: a DuckDB instance per open against an ATTACH to one.

Prints the CPU time (this process's, per open, ms) of opening and closing a seeded
database file, read-only and for writing, four ways: a DuckDB instance of its own
(`duckdb.connect`, what `open_store` did before ``litaudit.store.instance``), a cursor of
a live in-memory instance with ``ATTACH``/``USE``/``DETACH``, `open_store` itself (which
attaches, checks the schema version and detaches on close), and `open_store` of a file
another store of this process holds open (attached once, counted). Then the same for an
open that writes one row (its close checkpoints). Then, if asked, each statement's share
of an open and a close (``--statements``), the look-ups most commands make
(``--lookups``) and a few commands run in this process (``--commands``: the open, the
look-ups and the rendering). Builds a seeded database in a temporary folder unless given
one (which is copied, never changed):

    .venv/bin/python bench/bench_open.py [DB] [--n N] [--statements] [--lookups] [--commands]
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


def statements(root: duckdb.DuckDBPyConnection, path: str, n: int) -> None:
    """The CPU of each statement of an open and a close, ms a call: ``ATTACH`` and
    ``DETACH`` (read-only; for writing, after one row written: a checkpoint), and the
    statements made on the attached file."""
    figures: dict[str, float] = {}
    for label, mode, write in (("read-only", " (READ_ONLY)", False), ("written", "", True)):
        attach = detach = 0.0
        for _ in range(n):
            t = time.process_time()
            root.execute(f"ATTACH '{path}' AS bench{mode}")
            attach += time.process_time() - t
            if write:
                root.execute("INSERT INTO bench.history_notes_bench VALUES (1)")
            t = time.process_time()
            root.execute("DETACH bench")
            detach += time.process_time() - t
        figures[f"ATTACH ({label})"] = attach / n * 1000
        figures[f"DETACH ({label})"] = detach / n * 1000
        if not write:  # the written pass needs a table to write to
            root.execute(f"ATTACH '{path}' AS bench")
            root.execute("CREATE TABLE bench.history_notes_bench (x INTEGER)")
            root.execute("DETACH bench")
    root.execute(f"ATTACH '{path}' AS bench (READ_ONLY)")
    con = root.cursor()
    con.execute("USE bench")

    def cursor_use() -> None:
        with root.cursor() as cur:
            cur.execute("USE bench")

    figures["cursor + USE"] = per_call_ms(cursor_use, n)
    figures["SET enable_progress_bar"] = per_call_ms(
        lambda: con.execute("SET enable_progress_bar = false"), n
    )
    figures["SET temp_directory"] = per_call_ms(
        lambda: con.execute(f"SET temp_directory = '{path}.tmp'"), n
    )
    figures["SELECT version FROM _migrations"] = per_call_ms(
        lambda: con.execute("SELECT version FROM _migrations").fetchall(), n
    )
    figures["SELECT 1 (a statement's floor)"] = per_call_ms(
        lambda: con.execute("SELECT 1").fetchall(), n
    )
    con.close()
    root.execute("DETACH bench")
    print("\nstatement, ms CPU a call")
    for label, ms in figures.items():
        print(f"{label:<34}{ms:>8.2f}")


COMMANDS = (
    ("results", "list", "-c", "robust04"),
    ("collections", "list"),
    ("results", "show", "1"),
    ("audit", "best", "-c", "robust04", "-m", "AP"),
)


def commands(path: Path, n: int) -> None:
    """The CPU of each of :data:`COMMANDS`, run in this process on a copy of the store
    (``audit best`` after a first run stored the audit: a reuse)."""
    # start-up: typer (this bench's option only)
    from typer.testing import CliRunner

    from litaudit.cli.main import app

    runner = CliRunner()

    def run(argv: tuple[str, ...]) -> None:
        got = runner.invoke(app, ["--db", str(path), *argv])
        if got.exit_code:
            raise SystemExit(f"{' '.join(argv)}: exit {got.exit_code}: {got.output[-300:]}")

    print(f"\ncommand (in process, {n} runs), ms CPU a run")
    for argv in COMMANDS:
        print(f"{' '.join(argv):<36}{per_call_ms(lambda a=argv: run(a), n):>8.1f}")


def lookups(path: str, n: int) -> None:
    """The CPU of the store's look-ups most commands make, ms a call, on the seeded store
    (robust04: its id, its AP population, its results listed and their natural keys)."""
    from litaudit.curation.filters import Filters
    from litaudit.store import results
    from litaudit.store.collection_names import CollectionNames
    from litaudit.store.collections import resolve_collection, topic_sets

    with open_store(path, read_only=True) as store:
        con = store.con
        cid = resolve_collection(con, "robust04").id
        pop, coll = Filters(collection_id=cid, measure="AP"), Filters(collection_id=cid)
        calls: dict[str, Callable[[], object]] = {
            "resolve_collection(robust04)": lambda: resolve_collection(con, "robust04"),
            "CollectionNames.load": lambda: CollectionNames.load(con),
            "topic_sets()": lambda: topic_sets(con),
            "population(robust04, AP)": lambda: results.population(con, pop),
            "list_table(robust04)": lambda: results.list_table(
                con, coll, sort=None, desc=False, limit=None
            ),
            "list_json(robust04, AP)": lambda: list(
                results.list_json(con, pop, sort=None, desc=False, limit=None)
            ),
            "query(robust04)": lambda: results.query(con, coll),
            "natural_keys(robust04)": lambda: results.natural_keys(con, [cid]),
        }
        print("\nlook-up, ms CPU a call")
        for label, fn in calls.items():
            print(f"{label:<34}{per_call_ms(fn, n):>8.2f}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("db", nargs="?", type=Path, help="a seeded database (copied)")
    ap.add_argument("--n", type=int, default=100, help="opens timed per figure")
    ap.add_argument("--statements", action="store_true", help="each statement's share")
    ap.add_argument("--commands", action="store_true", help="a few commands' CPU")
    ap.add_argument("--lookups", action="store_true", help="the common look-ups' CPU")
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
        if args.lookups:
            lookups(p, max(args.n // 5, 5))
        if args.commands:
            commands(path, max(args.n // 10, 3))
        if args.statements:
            statements(root, p, args.n)
        root.close()


if __name__ == "__main__":
    main()
