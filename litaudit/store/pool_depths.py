"""The ``pool_depths`` and ``pool_depth_history`` tables: each collection's pool depth
with its source, and every recorded change of it (docs/DEVELOPING.md, "Who owns which
table")."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from typing import TYPE_CHECKING

from litaudit.errors import ParameterError
from litaudit.store.db import insert_columns

if TYPE_CHECKING:
    import duckdb

    pass


def insert_seeded(con: duckdb.DuckDBPyConnection, collections: list[dict]) -> None:
    """The pool depths of the file's collections (schema 005), present before or not."""
    depths = [
        [c["id"], c["pool_depth"]["depth"], c["pool_depth"]["source"]]
        for c in collections
        if "pool_depth" in c
    ]
    if depths:
        insert_columns(
            con,
            "INSERT INTO pool_depths (collection_id, depth, source)",
            depths,
            " ON CONFLICT DO NOTHING",
        )


def pool_depth(con: duckdb.DuckDBPyConnection, collection_id: str) -> tuple[int, str] | None:
    """The recorded pool depth of a collection and its source (None: not recorded)."""
    row = con.execute(
        "SELECT depth, source FROM pool_depths WHERE collection_id = ?", [collection_id]
    ).fetchone()
    return None if row is None else (int(row[0]), str(row[1]))


@dataclass(frozen=True, kw_only=True)
class DepthChange:
    """One recorded change of a collection's pool depth (schema 015), oldest first."""

    collection_id: str
    old_depth: int | None
    old_source: str | None
    depth: int
    source: str
    reason: str | None
    who: str
    changed_at: str


def set_pool_depth(
    con: duckdb.DuckDBPyConnection,
    collection_id: str,
    depth: int,
    source: str,
    *,
    who: str,
    reason: str | None = None,
) -> DepthChange:
    """Record ``collection_id``'s pool depth with its ``source`` (the value in force in
    pool_depths, the change in pool_depth_history). Run it inside a transaction."""
    if depth < 1:
        raise ParameterError(f"a pool depth is at least 1, got {depth}")
    if not source.strip():
        raise ParameterError("a pool depth needs its source (a track overview, a paper's table)")
    old = pool_depth(con, collection_id)
    at = dt.datetime.now(dt.UTC).replace(tzinfo=None)
    con.execute(
        "INSERT INTO pool_depths (collection_id, depth, source) VALUES (?, ?, ?) "
        "ON CONFLICT (collection_id) DO UPDATE SET depth = excluded.depth, "
        "source = excluded.source",
        [collection_id, depth, source],
    )
    con.execute(
        "INSERT INTO pool_depth_history (collection_id, old_depth, old_source, depth, "
        "source, reason, who, changed_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
        [collection_id, *(old or (None, None)), depth, source, reason, who, at],
    )
    return DepthChange(
        collection_id=collection_id,
        old_depth=None if old is None else old[0],
        old_source=None if old is None else old[1],
        depth=depth,
        source=source,
        reason=reason,
        who=who,
        changed_at=at.isoformat(sep=" ", timespec="seconds"),
    )


def pool_depth_history(con: duckdb.DuckDBPyConnection, collection_id: str) -> list[DepthChange]:
    """The recorded changes of ``collection_id``'s pool depth, oldest first."""
    rows = con.execute(
        "SELECT collection_id, old_depth, old_source, depth, source, reason, who, "
        "strftime(changed_at, '%Y-%m-%d %H:%M:%S') FROM pool_depth_history "
        "WHERE collection_id = ? ORDER BY id",
        [collection_id],
    ).fetchall()
    keys = ("collection_id", "old_depth", "old_source", "depth", "source", "reason", "who")
    return [DepthChange(**dict(zip(keys, r[:7], strict=True)), changed_at=r[7]) for r in rows]
