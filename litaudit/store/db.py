"""Opening the DuckDB file: path resolution, locking errors, schema checks.

Read-only opens never create or modify a database. Write opens create the file and
apply pending migrations.
"""

from __future__ import annotations

import os
import re
import stat
import weakref
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

from litaudit.errors import SchemaOutdated, SchemaTooNew, StoreError, StoreLocked
from litaudit.store import instance, migrations
from litaudit.store.instance import Attachment

if TYPE_CHECKING:
    import duckdb

DEFAULT_DB = "litaudit.duckdb"


def default_db_path() -> Path:
    """``$LITAUDIT_DB`` if set, else ``./litaudit.duckdb``."""
    return Path(os.environ.get("LITAUDIT_DB") or DEFAULT_DB)


def _connect(path: str, read_only: bool) -> tuple[duckdb.DuckDBPyConnection, Attachment]:
    """A connection of the process's DuckDB instance to the file at ``path``, attached
    to it (:mod:`litaudit.store.instance`), with DuckDB's errors said in our words."""
    # start-up: duckdb
    import duckdb

    try:
        con, attachment = instance.attach(path, read_only)
    except duckdb.IOException as exc:
        msg = str(exc)
        if "lock" in msg.lower():
            pid = re.search(r"PID (\d+)", msg)
            who = f" (PID {pid.group(1)})" if pid else ""
            raise StoreLocked(f"{path}: database is in use by another process{who}") from None
        raise StoreError(_cannot_open(path, exc)) from None
    except duckdb.Error as exc:
        raise StoreError(_cannot_open(path, exc)) from None
    # (DuckDB's progress bar is off on every connection of the instance: instance._root)
    return con, attachment


def _cannot_open(path: str, exc: BaseException) -> str:
    said = describe_error(exc, path)
    if "database error: " in said:
        return f"{path}: cannot open database: {str(exc).splitlines()[0]}"
    return said


# DuckDB's words for a file it cannot read as a database (cut short, overwritten)
_DAMAGED = (
    "could not read enough bytes",
    "current transaction is aborted",
    "corrupt",
    "checksum",
    "not a valid duckdb database",
    "invalid block",
    "failed to read",
    "serialization error",
)
_FULL = ("no space left on device", "disk is full", "not enough space")


def describe_error(exc: BaseException, path: str | None) -> str:
    """A DuckDB error no layer named, as one line: a full disk and a damaged or truncated
    database file said as such, with what was and was not written (a command's change is
    one transaction: none of it is kept)."""
    first = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
    low = str(exc).lower()
    where = f"{path}: " if path else ""
    if any(k in low for k in _FULL):
        return (
            f"{where}the disk is full ({first}); nothing of this command was written "
            "(its changes are one transaction, rolled back): free some space and run it again"
        )
    if any(k in low for k in _DAMAGED):
        return (
            f"{where}the database file is damaged or truncated ({first}); nothing was "
            "written. Restore it from a copy, or build a new one (`litaudit --db NEW.duckdb "
            "init`, then `sync` a store folder)"
        )
    return f"{where}database error: {first}"


class Store:
    """An open litaudit database: ``con`` is the raw DuckDB connection, which the
    tables' owners (docs/DEVELOPING.md, "Who owns which table") read and write: a
    connection of the process's one DuckDB instance whose default database is this
    file (``alias``; a new connection of it: :func:`cursor`)."""

    def __init__(
        self, con: duckdb.DuckDBPyConnection, path: str, read_only: bool, attachment: Attachment
    ):
        self.con = con
        self.path = path
        self.read_only = read_only
        self.alias = attachment.alias
        self._depth = 0
        # a store dropped unclosed still detaches its file (as a dropped DuckDB
        # connection closed its database)
        self._close = weakref.finalize(self, instance.release, con, attachment)

    @contextmanager
    def transaction(self):
        """All-or-nothing block on the raw connection. A block inside another joins it:
        everything commits, or rolls back, with the outermost one."""
        if self._depth:
            self._depth += 1
            try:
                yield self.con
            finally:
                self._depth -= 1
            return
        self.con.execute("BEGIN TRANSACTION")
        self._depth = 1
        try:
            yield self.con
        except BaseException:
            self._depth = 0
            self.con.execute("ROLLBACK")
            raise
        else:
            self._depth = 0
            try:
                self.con.execute("COMMIT")
            except BaseException:
                # a failed commit (a full disk) leaves the transaction open: end it, so
                # that the connection can be used again (and the caller's undo can run)
                try:
                    self.con.execute("ROLLBACK")
                except Exception:
                    pass
                raise

    def schema_version(self) -> int:
        return migrations.db_version(self.con)

    def close(self) -> None:
        self._close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


def open_store(
    path: str | os.PathLike | None = None,
    *,
    read_only: bool = False,
    migrate: bool = True,
    allow_outdated: bool = False,
) -> Store:
    """Open (and for writing, create and migrate) the database at ``path``.

    ``path=":memory:"`` gives an in-memory database (tests).
    """
    p = str(path) if path is not None else str(default_db_path())
    if p != ":memory:":
        _check_regular(p)
    if read_only and p != ":memory:" and not Path(p).exists():
        raise StoreError(f"{p}: no database here; create it with `litaudit init`")
    con, attachment = _connect(p, read_only=read_only and p != ":memory:")
    try:
        # the recorded versions are read once (one query); a database whose schema is
        # current is not touched further
        done = migrations.recorded(con)
        version = max(done, default=0)
        known = migrations.code_version()
        if version > known:
            raise SchemaTooNew(
                f"{p}: database schema version {version} is newer than this litaudit "
                f"knows ({known}); upgrade litaudit"
            )
        todo = migrations.pending(con, done)
        if read_only and not allow_outdated:
            if todo:
                raise SchemaOutdated(
                    f"{p}: database schema version {version} is older than this litaudit's "
                    f"({known}); run `litaudit db migrate`"
                )
        elif migrate and todo:
            migrations.migrate(con, p)
    except BaseException:
        instance.release(con, attachment)
        raise
    return Store(con, p, read_only, attachment)


def _check_regular(p: str) -> None:
    """Refuse at once a path that is not a regular file (DuckDB would wait forever on a
    FIFO, or read a device)."""

    try:
        mode = os.stat(p).st_mode
    except FileNotFoundError:
        return
    except OSError as exc:
        raise StoreError(f"{p}: cannot open database: {exc.strerror or exc}") from None
    if stat.S_ISREG(mode):
        return
    what = (
        "a directory"
        if stat.S_ISDIR(mode)
        else "a FIFO (named pipe)"
        if stat.S_ISFIFO(mode)
        else "a device"
        if stat.S_ISCHR(mode) or stat.S_ISBLK(mode)
        else "a socket"
        if stat.S_ISSOCK(mode)
        else "not a regular file"
    )
    raise StoreError(f"{p}: is {what}, not a database file; give --db a file path")


def cursor(con: duckdb.DuckDBPyConnection) -> duckdb.DuckDBPyConnection:
    """A new connection to the database ``con`` uses, for work kept in a transaction of
    its own (``con.cursor()`` alone would use the process instance's empty default
    database: :mod:`litaudit.store.instance`). Close it after use."""
    name = con.execute("SELECT current_database()").fetchall()[0][0]
    cur = con.cursor()
    cur.execute(f"USE {_identifier(name)}")
    return cur


def _identifier(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def sql_string(text: str) -> str:
    """``text`` as a SQL string literal (quotes doubled), for values inlined in SQL."""
    return "'" + text.replace("'", "''") + "'"


def insert_columns(
    con: duckdb.DuckDBPyConnection, insert: str, rows: list[list], conflict: str
) -> None:
    """Run ``insert`` (``INSERT INTO table (columns)``, written out by the table's owner)
    on ``rows`` in one statement, their columns passed as lists and unnested (DuckDB runs
    single-row statements and executemany slowly); ``conflict``: an ``ON CONFLICT``
    clause, or ''."""
    cols = list(zip(*rows, strict=True))
    sel = ", ".join(f"unnest(?::{t})" for t in _column_types(cols))
    con.execute(f"{insert} SELECT {sel}{conflict}", [list(c) for c in cols])


def _column_types(cols) -> list[str]:
    out = []
    for col in cols:
        kinds = {type(v) for v in col if v is not None}
        out.append(
            "BOOLEAN[]"
            if kinds == {bool}
            else "BIGINT[]"
            if kinds == {int}
            else "VARCHAR[][]"
            if kinds == {list}
            else "VARCHAR[]"
        )
    return out
