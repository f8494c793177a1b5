"""One DuckDB instance per process, into which each open store ATTACHes its file.

Starting a DuckDB database instance costs ~18 ms of CPU (DuckDB registers its whole
catalog anew), and a store is opened several times by one command and ~1,400 times by
the test suite; an ATTACH to a live instance, its DETACH and a connection of the instance
cost ~2.6 ms (``bench/bench_open.py``). So the process keeps one in-memory instance, made
on the first open; :func:`attach` attaches a file to it (``READ_ONLY`` for a read-only
open) under an alias of its own and returns a new connection of the instance (``cursor()``)
whose ``USE`` makes every unqualified name resolve to that file. :func:`release` closes
the connection and DETACHes the file when its last store closes, which checkpoints it and
releases its lock (another process can open it at once).

A file opened twice at once by this process is attached once and counted; opened
read-only and for writing at once, the second open is refused (DuckDB, too, refuses two
configurations of one file in a process).
"""

from __future__ import annotations

import os
import threading
from dataclasses import dataclass
from typing import TYPE_CHECKING

from litaudit.errors import StoreError

if TYPE_CHECKING:
    import duckdb

MEMORY = ":memory:"


@dataclass
class _Attached:
    alias: str
    read_only: bool
    stores: int


@dataclass(frozen=True, kw_only=True)
class Attachment:
    """What :func:`release` needs to undo one :func:`attach`."""

    key: str | None  # the file's real path; None for an in-memory database
    alias: str
    generation: int


class _Process:
    """The instance and the attached files; replaced in a forked child (the parent's
    instance and its threads are not the child's to use)."""

    def __init__(self, generation: int) -> None:
        self.generation = generation
        self.root: duckdb.DuckDBPyConnection | None = None
        self.files: dict[str, _Attached] = {}
        self.aliases = 0
        self.temp_directory: str | None = None  # as last set on the instance


_LOCK = threading.RLock()  # re-entrant: a store's finalizer may run in a GC on this thread
_STATE = _Process(0)


def _forget_after_fork() -> None:
    global _STATE
    _STATE = _Process(_STATE.generation + 1)


os.register_at_fork(after_in_child=_forget_after_fork)


def _root() -> duckdb.DuckDBPyConnection:
    if _STATE.root is None:
        # start-up: duckdb
        import duckdb

        root = duckdb.connect(MEMORY)
        # DuckDB draws its own progress bar on stdout for a query over 2 s where it thinks
        # it is interactive (under `python -c`): it would land in --json and CSV output.
        # The setting is a connection's: off here, once, and a new connection of the
        # instance (a store's) starts with it off (DuckDB 2.0.1; tests/store/test_store.py
        # asks a store's connections)
        root.execute("SET enable_progress_bar = false")
        _STATE.root = root
    return _STATE.root


def attach(path: str, read_only: bool) -> tuple[duckdb.DuckDBPyConnection, Attachment]:
    """A connection whose default database is the file at ``path`` (a new in-memory
    database for ``:memory:``), attached read-only or not. DuckDB's errors (a lock held
    by another process, a damaged file) pass through unchanged for the caller to word."""
    with _LOCK:
        root = _root()
        key = None if path == MEMORY else os.path.realpath(path)
        held = _STATE.files.get(key) if key is not None else None
        if held is not None and held.read_only != read_only:
            now, was = ("read-only", "for writing") if read_only else ("for writing", "read-only")
            raise StoreError(
                f"{path}: cannot open the database {now}: this process has it open {was}; "
                "close that first"
            )
        if held is None:
            _STATE.aliases += 1
            alias = f"litaudit_{_STATE.aliases}"
            mode = " (READ_ONLY)" if read_only else ""
            with root.cursor() as cur:
                cur.execute(f"ATTACH {_literal(path)} AS {alias}{mode}")
                if key is not None:
                    _spill_beside(cur, path)
            held = _Attached(alias, read_only, 0)
            if key is not None:
                _STATE.files[key] = held
        held.stores += 1
        try:
            con = root.cursor()
            con.execute(f"USE {held.alias}")
        except BaseException:
            _drop(key, held)
            raise
        return con, Attachment(key=key, alias=held.alias, generation=_STATE.generation)


def release(con: duckdb.DuckDBPyConnection, what: Attachment) -> None:
    """Close ``con`` and, with the last store of its file, DETACH the file."""
    with _LOCK:
        if what.generation != _STATE.generation:
            return  # a forked child's copy of the parent's store: not ours to close
        con.close()
        held = _STATE.files.get(what.key) if what.key is not None else None
        if held is None:
            held = _Attached(what.alias, False, 1)
        _drop(what.key, held)


def _drop(key: str | None, held: _Attached) -> None:
    held.stores -= 1
    if held.stores > 0:
        return
    if key is not None:
        _STATE.files.pop(key, None)
    with _root().cursor() as cur:
        cur.execute(f"DETACH DATABASE IF EXISTS {held.alias}")


def _spill_beside(cur: duckdb.DuckDBPyConnection, path: str) -> None:
    """Spill to ``PATH.tmp`` beside the file last attached, where DuckDB spills for an
    instance of that file alone (an in-memory instance's default is ``.tmp`` in the
    working folder). The setting is the instance's: set when it changes (a command, and a
    test, open one file again and again: 0.1 ms an open)."""
    # start-up: duckdb
    import duckdb

    folder = path + ".tmp"
    if folder == _STATE.temp_directory:
        return
    try:
        cur.execute(f"SET temp_directory = {_literal(folder)}")
    except duckdb.Error:  # DuckDB keeps the folder while a query spills to it
        return
    _STATE.temp_directory = folder


def _literal(text: str) -> str:
    return "'" + text.replace("'", "''") + "'"
