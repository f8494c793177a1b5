"""Schema migrations: numbered SQL files in ``schema/`` applied in order, each in a transaction.

The files are the one source of truth for the schema; ``_migrations`` records which were
applied. A database whose recorded version is above the newest file is refused
(:class:`~litaudit.errors.SchemaTooNew`): never a silent downgrade.
"""

from __future__ import annotations

import hashlib
import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from litaudit.errors import SchemaTooNew, StoreError
from litaudit.resources import data_dir

if TYPE_CHECKING:
    import duckdb

SCHEMA_DIR = data_dir("schema")
_NAME = re.compile(r"^(\d{3})_([a-z0-9_]+)\.sql$")


@dataclass(frozen=True)
class Migration:
    version: int
    name: str
    path: Path

    @property
    def sql(self) -> str:
        return self.path.read_text(encoding="utf-8")


def available(schema_dir: Path | None = None) -> list[Migration]:
    """The migrations shipped with this code, in order of their numbers.

    Numbers are unique and increasing but may leave gaps (branches developed side by side
    each take their own number): a migration is pending while its number is not recorded,
    so one merged later with a lower number than some applied one is still applied."""
    schema_dir = schema_dir or SCHEMA_DIR
    try:
        names = frozenset(os.listdir(schema_dir))
    except OSError:
        raise StoreError(f"schema folder not found: {schema_dir}") from None
    # every open of a store asks: the files are parsed again only when their names change
    seen = _AVAILABLE.get(schema_dir)
    if seen is not None and seen[0] == names:
        return list(seen[1])
    found = _read_folder(schema_dir)
    _AVAILABLE[schema_dir] = (names, tuple(found))
    return found


_AVAILABLE: dict[Path, tuple[frozenset[str], tuple[Migration, ...]]] = {}


def _read_folder(schema_dir: Path) -> list[Migration]:
    found = []
    for p in sorted(schema_dir.glob("*.sql")):
        m = _NAME.match(p.name)
        if not m:
            raise StoreError(f"{p}: schema files are named NNN_name.sql")
        found.append(Migration(int(m.group(1)), m.group(2), p))
    versions = [m.version for m in found]
    if len(set(versions)) != len(versions) or 0 in versions:
        raise StoreError(
            f"{schema_dir}: schema versions must be distinct and from 1 on, got {versions}"
        )
    return found


def code_version() -> int:
    """The highest migration number this code ships."""
    return max((m.version for m in available()), default=0)


def ensure_table(con: duckdb.DuckDBPyConnection) -> None:
    con.execute(
        "CREATE TABLE IF NOT EXISTS _migrations ("
        " version INTEGER PRIMARY KEY, name VARCHAR NOT NULL,"
        " applied_at TIMESTAMP NOT NULL DEFAULT current_timestamp)"
    )


def applied(con: duckdb.DuckDBPyConnection) -> list[tuple[int, str, object]]:
    """(version, name, applied_at) of the migrations recorded in the database (one query;
    none when the database has no ``_migrations`` table yet)."""
    # start-up: duckdb
    import duckdb

    try:
        return con.execute(
            "SELECT version, name, applied_at FROM _migrations ORDER BY version"
        ).fetchall()
    except duckdb.CatalogException:
        return []


def recorded(con: duckdb.DuckDBPyConnection) -> set[int]:
    """The versions of the migrations recorded in the database (none when it has no
    ``_migrations`` table yet): what an open checks, read in one query."""
    # start-up: duckdb
    import duckdb

    try:
        return {v for (v,) in con.execute("SELECT version FROM _migrations").fetchall()}
    except duckdb.CatalogException:
        return set()


def db_version(con: duckdb.DuckDBPyConnection) -> int:
    rows = applied(con)
    return rows[-1][0] if rows else 0


def check_not_newer(con: duckdb.DuckDBPyConnection, path: str) -> int:
    version = db_version(con)
    known = code_version()
    if version > known:
        raise SchemaTooNew(
            f"{path}: database schema version {version} is newer than this litaudit "
            f"knows ({known}); upgrade litaudit"
        )
    return version


def pending(con: duckdb.DuckDBPyConnection, done: set[int] | None = None) -> list[Migration]:
    """The shipped migrations not recorded in the database (or not in ``done``, the
    versions recorded, when the caller has read them), in order."""
    if done is None:
        done = {v for v, _, _ in applied(con)}
    return [m for m in available() if m.version not in done]


# the schema snapshot (:mod:`litaudit.store.schema_snapshot`), under SCHEMA_DIR
SNAPSHOT = Path("current", "schema.sql")


def digest(ms: list[Migration]) -> str:
    """The SHA-256 of the migrations ``ms`` (their numbers, names and text)."""
    h = hashlib.sha256()
    for m in ms:
        h.update(f"{m.version}\0{m.name}\0{m.sql}\0".encode())
    return h.hexdigest()


def snapshot(ms: list[Migration]) -> str | None:
    """The schema snapshot's DDL when it was generated from exactly ``ms``, else None."""
    try:
        text = (SCHEMA_DIR / SNAPSHOT).read_text(encoding="utf-8")
    except OSError:
        return None
    return text if f"-- digest: {digest(ms)}" in text.splitlines() else None


def migrate(con: duckdb.DuckDBPyConnection, path: str) -> list[Migration]:
    """Apply every pending migration, each in its own transaction (on a new database, all
    in one: it gets the whole schema or none of it, from the schema snapshot when it is
    current). Returns those applied."""
    check_not_newer(con, path)
    ensure_table(con)
    todo = pending(con)
    if len(todo) == len(available()) and todo:
        ddl = snapshot(todo)
        if ddl is not None:
            _apply_snapshot(con, todo, ddl)
            return todo
    apply_files(con, todo)
    return todo


def _apply_snapshot(con: duckdb.DuckDBPyConnection, todo: list[Migration], ddl: str) -> None:
    """A new database's whole schema from the snapshot, recorded as the migrations
    ``todo``, in one transaction."""
    con.execute("BEGIN TRANSACTION")
    try:
        con.execute(ddl)
        con.execute(
            "INSERT INTO _migrations (version, name) SELECT unnest(?::INTEGER[]), "
            "unnest(?::VARCHAR[])",
            [[m.version for m in todo], [m.name for m in todo]],
        )
        con.execute("COMMIT")
    except Exception as exc:
        con.execute("ROLLBACK")
        raise StoreError(f"{SNAPSHOT}: migration failed: {str(exc).splitlines()[0]}") from exc


def apply_files(con: duckdb.DuckDBPyConnection, todo: list[Migration]) -> None:
    """Apply the migrations ``todo`` from their files, each in its own transaction (all
    of a new database's in one)."""
    steps = [todo] if len(todo) == len(available()) else [[m] for m in todo]
    for step in steps:
        con.execute("BEGIN TRANSACTION")
        m = step[0]
        try:
            for m in step:
                con.execute(m.sql)
                con.execute(
                    "INSERT INTO _migrations (version, name) VALUES (?, ?)", [m.version, m.name]
                )
            con.execute("COMMIT")
        except Exception as exc:
            con.execute("ROLLBACK")
            raise StoreError(
                f"{m.path.name}: migration failed: {str(exc).splitlines()[0]}"
            ) from exc
