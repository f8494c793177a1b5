"""The ``papers`` table: every read and write of the papers results cite.

One paper is written validated by :func:`check_paper` (the rules of
:class:`~litaudit.store.models.Paper`, from :mod:`litaudit.store.paper_rules`, without
importing SQLModel: bibkey and citation not blank, year 1950-2100; a bad one is refused
with a one-line error naming the field); a bulk import (``papers import``, ``init``'s
seed papers) is written in one statement from records its reader checked field by field.
One paper is read as a :class:`PaperRecord` (a NamedTuple: SQLModel, 0.6 s to import,
stays off ``papers show``).
"""

from __future__ import annotations

import datetime as dt
from typing import TYPE_CHECKING, NamedTuple

from litaudit.errors import LitauditError, NotFound
from litaudit.measures import did_you_mean
from litaudit.store import paper_rules

if TYPE_CHECKING:
    import duckdb

    from litaudit.store.models import Paper

# the columns of a paper (the DDL's order; its id comes from the table's sequence)
KEYS = (
    "id",
    "bibkey",
    "citation",
    "title",
    "authors",
    "venue",
    "year",
    "doi",
    "url",
    "tags",
    "notes",
    "created_at",
)
COLUMNS = KEYS[1:]
_TEXTS = ("bibkey", "citation", "title", "authors", "venue", "doi", "url", "tags", "notes")


class PaperRecord(NamedTuple):
    """One stored paper, as ``papers show`` gives it."""

    id: int
    bibkey: str
    citation: str
    title: str | None
    authors: str | None
    venue: str | None
    year: int | None
    doi: str | None
    url: str | None
    tags: str | None
    notes: str | None
    created_at: dt.datetime

    def as_dict(self) -> dict:
        return self._asdict()


def insert(con: duckdb.DuckDBPyConnection, paper: Paper | dict) -> int:
    """Insert one paper (a :class:`~litaudit.store.models.Paper` or a dict of
    :data:`COLUMNS`), validated again (a model built without validation, as SQLModel's
    table classes are by their constructor, is checked here, by
    :func:`check_paper`); its new id."""
    values = paper if isinstance(paper, dict) else paper.model_dump()
    check_paper(values, f"paper {values.get('bibkey')!r}")
    return con.execute(
        f"INSERT INTO papers ({', '.join(COLUMNS)}) VALUES "
        f"({', '.join('?' * len(COLUMNS))}) RETURNING id",
        [values.get(c) for c in COLUMNS],
    ).fetchall()[0][0]


def _plain(values: dict) -> bool:
    """Whether every field already has its column's Python type (no coercion to do)."""
    year, at = values.get("year"), values.get("created_at")
    return (
        all(isinstance(values.get(k), str | None) for k in _TEXTS)
        and (year is None or type(year) is int)
        and (at is None or isinstance(at, dt.datetime))
        and isinstance(values.get("bibkey"), str)
        and isinstance(values.get("citation"), str)
    )


def check_paper(values: dict, what: str) -> None:
    """Raise :class:`~litaudit.errors.LitauditError` naming ``what`` and the first field
    refused, with the words :func:`litaudit.store.models.validated` gives for
    :class:`~litaudit.store.models.Paper` (fields in its order). Values of another type
    than their column's (to coerce or refuse) go through that model itself."""
    if not _plain(values):
        # start-up: pydantic, sqlalchemy, sqlmodel (through litaudit.store.models)
        from litaudit.store.models import Paper, validated

        validated(Paper, values, what)
        return
    checks = (
        ("bibkey", lambda v: paper_rules.not_blank(v, "bibkey"), True),
        ("citation", lambda v: paper_rules.not_blank(v, "citation"), True),
        ("year", paper_rules.in_years, True),
        ("url", paper_rules.web_url, False),
    )
    for field, check, named in checks:
        try:
            check(values.get(field))
        except ValueError as exc:
            raise LitauditError(f"{what}: {exc}" if named else f"{what}: {field}: {exc}") from None


def insert_many(
    con: duckdb.DuckDBPyConnection, records: list[dict], *, at: dt.datetime
) -> list[int]:
    """Insert papers (dicts of :data:`COLUMNS`; a record without ``created_at`` is
    created ``at``) in one statement; their new ids, in order."""
    if not records:
        return []
    cols = [c for c in COLUMNS if c != "created_at"]
    types = {"year": "INTEGER"}
    return [
        i
        for (i,) in con.execute(
            f"INSERT INTO papers ({', '.join(cols)}, created_at) SELECT "
            + ", ".join(f"unnest(?::{types.get(c, 'VARCHAR')}[])" for c in cols)
            + ", unnest(?::TIMESTAMP[]) RETURNING id",
            [[r.get(c) for r in records] for c in cols]
            + [[r.get("created_at") or at for r in records]],
        ).fetchall()
    ]


def update(con: duckdb.DuckDBPyConnection, paper_id: int, changes: dict) -> None:
    """Write ``changes`` (column -> value) to one paper."""
    if changes:
        con.execute(
            f"UPDATE papers SET {', '.join(f'{c} = ?' for c in changes)} WHERE id = ?",
            [*changes.values(), paper_id],
        )


def get(con: duckdb.DuckDBPyConnection, key: str) -> PaperRecord:
    """A paper by bibkey or numeric id (:class:`~litaudit.errors.NotFound`, with the
    nearest bibkey, if there is none)."""
    cols = ", ".join(KEYS)
    if key.isdigit():
        cur = con.execute(f"SELECT {cols} FROM papers WHERE id = ?", [int(key)])
    else:
        cur = con.execute(f"SELECT {cols} FROM papers WHERE bibkey = ?", [key])
    r = cur.fetchone()
    if r is None:
        keys = [k for (k,) in con.execute("SELECT bibkey FROM papers").fetchall()]
        raise NotFound(f"no paper {key!r}{did_you_mean(key, keys)}")
    return PaperRecord._make(r)


def bibkeys(con: duckdb.DuckDBPyConnection) -> set[str]:
    return {k for (k,) in con.execute("SELECT bibkey FROM papers").fetchall()}


def ids_and_years(con: duckdb.DuckDBPyConnection) -> dict[str, tuple[int, int | None]]:
    """bibkey -> (id, year) of every paper."""
    return {k: (i, y) for i, k, y in con.execute("SELECT id, bibkey, year FROM papers").fetchall()}


def by_bibkey(con: duckdb.DuckDBPyConnection, keys: tuple[str, ...]) -> dict[str, dict]:
    """bibkey -> {id and ``keys``} of every paper."""
    return {
        k: dict(zip(keys, rest, strict=True)) | {"id": i}
        for i, k, *rest in con.execute(
            f"SELECT id, bibkey, {', '.join(keys)} FROM papers"
        ).fetchall()
    }


def every(con: duckdb.DuckDBPyConnection, keys: tuple[str, ...], *, order: str) -> list[tuple]:
    """(id, ``keys``..., created_at as text) of every paper, ordered by ``id`` or
    ``bibkey``."""
    by = {"id": "id", "bibkey": "bibkey"}[order]
    return con.execute(
        f"SELECT id, {', '.join(keys)}, CAST(created_at AS VARCHAR) FROM papers ORDER BY {by}"
    ).fetchall()


class PaperListed(NamedTuple):
    """A paper as ``papers list`` gives it, with its number of results."""

    id: int
    bibkey: str
    citation: str
    venue: str | None
    year: int | None
    doi: str | None
    url: str | None
    tags: str | None
    results: int

    def as_dict(self) -> dict:
        return self._asdict()


def listing(
    con: duckdb.DuckDBPyConnection, cond: list[str], args: list, *, collection_id: str | None = None
) -> list[PaperListed]:
    """``papers list``: the papers passing ``cond`` (SQL on ``papers p``) with results on
    ``collection_id`` if given, by year and bibkey, each with its number of results."""
    if collection_id is not None:
        cond = [
            *cond,
            "EXISTS (SELECT 1 FROM results r WHERE r.paper_id = p.id AND r.collection_id = ?)",
        ]
        args = [*args, collection_id]
    sql = (
        "SELECT p.id, p.bibkey, p.citation, p.venue, p.year, p.doi, p.url, p.tags, "
        "(SELECT count(*) FROM results r WHERE r.paper_id = p.id) AS results FROM papers p"
    )
    if cond:
        sql += " WHERE " + " AND ".join(cond)
    cur = con.execute(sql + " ORDER BY p.year, p.bibkey", args)
    return [PaperListed._make(r) for r in cur.fetchall()]
