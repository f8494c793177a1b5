"""The ``results`` table: every read of published results (its writes are in
:mod:`litaudit.store.results_write`, its counts and small look-ups in
:mod:`litaudit.store.results_counts`; no other module outside the store holds SQL on
``results``). Results are read as typed :class:`ResultRecord` rows; ``results list`` and
the audits' populations take tuples (the columns they show or compute on).

The listings take a :class:`~litaudit.curation.filters.Filters` (which results to keep);
:func:`where` turns it into SQL on ``results r LEFT JOIN papers p``.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import TYPE_CHECKING, NamedTuple

from litaudit.errors import LitauditError, NotFound
from litaudit.measures import did_you_mean

if TYPE_CHECKING:
    import duckdb

    from litaudit.curation.filters import Filters

# every field of a result as ``results show`` and ``results list --json`` give it, in
# ResultRecord's order: NAME (``r.NAME``) or NAME=SQL, on ``results r JOIN collections c
# LEFT JOIN papers p``
_FIELD_TEXT = (
    "id source bibkey=p.bibkey citation=p.citation track collection=c.name "
    "collection_id topic_set n_topics measure value value_text system participant "
    "role run_type year standard location transcribed_by "
    "transcribed_at=r.transcribed_at::VARCHAR status notes paper_title=p.title "
    "paper_authors=p.authors paper_venue=p.venue paper_year=p.year paper_doi=p.doi "
    "paper_url=p.url paper_tags=p.tags date=r.date::VARCHAR reporter url code_url uid"
)
_FIELDS = tuple(
    (n, sql or f"r.{n}") for n, _, sql in (t.partition("=") for t in _FIELD_TEXT.split())
)
_FROM = (
    " FROM results r JOIN collections c ON c.id = r.collection_id"
    " LEFT JOIN papers p ON p.id = r.paper_id"
)
LIST_SQL = "SELECT " + ", ".join(f"{sql} AS {name}" for name, sql in _FIELDS) + _FROM


class ResultRecord(NamedTuple):
    """One result with its paper and collection, as ``results show`` gives it (the
    columns of :data:`LIST_SQL`, in its order; dates as text). A NamedTuple, not a
    SQLModel class or a frozen dataclass: importing SQLModel would add 0.6 s to ``results
    show``, and 34k frozen dataclasses take 0.1 s more to build than these."""

    id: int
    source: str
    bibkey: str | None
    citation: str | None
    track: str | None
    collection: str
    collection_id: str
    topic_set: str | None
    n_topics: int
    measure: str
    value: float
    value_text: str
    system: str
    participant: str | None
    role: str
    run_type: str | None
    year: int
    standard: bool
    location: str | None
    transcribed_by: str
    transcribed_at: str
    status: str
    notes: str | None
    paper_title: str | None
    paper_authors: str | None
    paper_venue: str | None
    paper_year: int | None
    paper_doi: str | None
    paper_url: str | None
    paper_tags: str | None
    date: str | None
    reporter: str | None
    url: str | None
    code_url: str | None
    uid: str | None = None  # the identity every clone shares (schema 017)

    def as_dict(self) -> dict:
        return self._asdict()


# `results list --sort KEY`: the SQL each key sorts by (ties by id)
SORT_KEYS = {
    "collection": "c.name, r.measure, r.year, r.id",
    "measure": "r.measure, c.name, r.year, r.id",
    "value": "r.value, r.id",
    "year": "r.year, r.date, r.id",
    "date": "r.date, r.year, r.id",
    "system": "r.system, r.id",
    "source": "coalesce(p.bibkey, r.track), r.id",
    "role": "r.role, r.id",
    "status": "r.status, r.id",
    "id": "r.id",
}
# `results list`: the columns of its table, as (header, SQL)
LIST_COLUMNS = (
    ("id", "r.id"),
    ("source", "coalesce(p.bibkey, r.track)"),
    ("collection", "c.name"),
    ("n", "r.n_topics"),
    ("measure", "r.measure"),
    ("value", "r.value_text"),
    ("system", "r.system"),
    ("role", "r.role"),
    ("type", "r.run_type"),
    ("year", "r.year"),
    ("status", "r.status"),
)


def _limit(limit: int | None) -> str:
    if limit is None:
        return ""
    if limit < 1:
        raise LitauditError(f"--limit must be at least 1, got {limit}")
    return f" LIMIT {min(int(limit), 2**62)}"


# ---------------------------------------------------------------- reading


def where(f: Filters) -> tuple[str, list]:
    """SQL conditions (joined with AND, '' when none) and their parameters, on
    ``results r LEFT JOIN papers p``: what ``f`` keeps (the one writer of a WHERE clause
    on results; the listings below take the filters, not SQL)."""
    conds: list[str] = []
    args: list = []

    def eq(col: str, value) -> None:
        conds.append(f"{col} = ?")
        args.append(value)

    def any_of(col: str, values) -> None:
        if values:
            conds.append(f"{col} IN ({', '.join('?' * len(values))})")
            args.extend(values)

    if f.collection_id is not None:
        eq("r.collection_id", f.collection_id)
    if f.measure is not None:
        eq("r.measure", f.measure)
    if f.source:
        eq("r.source", f.source)
    any_of("r.role", f.roles)
    any_of("r.run_type", f.run_types)
    any_of("r.status", f.statuses)
    any_of("r.reporter", f.reporters)
    _window(f, conds, args)
    if f.paper:
        eq("p.bibkey", f.paper)
    if f.track:
        conds.append("starts_with(r.track, ?)" if f.track.endswith("/") else "r.track = ?")
        args.append(f.track)
    if not f.include_retracted:
        conds.append("r.status <> 'retracted'")
    if not f.include_nonstandard:
        conds.append("r.standard")
    if f.zero_shot:  # declared not trained on the collection (unknown: left out)
        conds.append(
            "EXISTS (SELECT 1 FROM zero_shot z WHERE z.system = r.system "
            "AND z.collection_id = r.collection_id AND z.zero_shot)"
        )
    return " AND ".join(conds), args


def _window(f: Filters, conds: list[str], args: list) -> None:
    """The years and the date window of ``f`` as conditions of :func:`where`."""
    if f.years:
        conds.append("r.year BETWEEN ? AND ?")
        args.extend(f.years)
    if f.since:
        conds.append("(r.date >= CAST(? AS DATE) OR (r.date IS NULL AND r.year >= ?))")
        args.extend([f.since, int(f.since[:4])])
    if f.until:
        conds.append("(r.date <= CAST(? AS DATE) OR (r.date IS NULL AND r.year <= ?))")
        args.extend([f.until, int(f.until[:4])])


def query(
    con: duckdb.DuckDBPyConnection, f: Filters, *, limit: int | None = None
) -> list[ResultRecord]:
    """Results ``f`` keeps, ordered by collection, measure, year, id."""
    cond, args = where(f)
    sql = (
        LIST_SQL
        + _kept(f, cond)
        + " ORDER BY r.collection_id, r.measure, r.year, r.id"
        + _limit(limit)
    )
    return [ResultRecord._make(row) for row in con.execute(sql, args).fetchall()]


def resolve_id(con: duckdb.DuckDBPyConnection, text: str | int) -> int:
    """A result's local id from its id (``34499`` or ``#34499``) or its uid
    (``r-0123456789abcdef``, the same in every clone); NotFound for an unknown uid."""
    s = str(text).strip().removeprefix("#")
    if s.isascii() and s.isdigit():
        return int(s)
    if s.lower().startswith("r-"):
        got = con.execute("SELECT id FROM results WHERE uid = ?", [s.lower()]).fetchone()
        if got is None:
            raise NotFound(f"no result {s}")
        return int(got[0])
    raise LitauditError(f"{text!r} is not a result id (a number, or a uid r-0123456789abcdef)")


def uids(con: duckdb.DuckDBPyConnection) -> dict[int, str]:
    """id -> uid of every result."""
    return dict(con.execute("SELECT id, uid FROM results").fetchall())


def get(con: duckdb.DuckDBPyConnection, result_id: int) -> ResultRecord:
    """One result by id (:class:`~litaudit.errors.NotFound` if there is none)."""
    row = con.execute(LIST_SQL + " WHERE r.id = ?", [result_id]).fetchone()
    if row is None:
        raise NotFound(f"no result with id {result_id}")
    return ResultRecord._make(row)


def _kept(f: Filters, cond: str) -> str:
    """`` WHERE cond`` (:func:`where` of ``f``) on ``results r LEFT JOIN papers p``, or ''.
    A collection without a measure as a semi-join on rowids: DuckDB 2.0.1 reads the rows
    such a filter keeps ~20 times slower than whole columns (robust04: `results list` 32
    -> 7 ms, natural keys 27 -> 4); with a measure it is fast, and slower as a semi-join."""
    if not cond:
        return ""
    if f.collection_id is None or f.measure is not None:
        return f" WHERE {cond}"
    return (
        " WHERE r.rowid IN (SELECT r.rowid FROM results r "
        f"LEFT JOIN papers p ON p.id = r.paper_id WHERE {cond})"
    )


def _listing_sql(kept: str, sort: str | None, desc: bool, limit: int | None):
    """(FROM ... WHERE, ORDER BY expression, LIMIT clause) of a listing keeping ``kept``
    (:func:`_kept`)."""

    key = (sort or "collection").strip().lower()
    if key not in SORT_KEYS:
        raise LitauditError(
            f"--sort: {sort!r} is not one of {', '.join(SORT_KEYS)}{did_you_mean(key, SORT_KEYS)}"
        )
    way = " DESC NULLS LAST" if desc else " NULLS LAST"
    terms = re.split(r", (?![^()]*\))", SORT_KEYS[key])  # not at a comma inside a call
    order = ", ".join(x + (way if x != "r.id" else "") for x in terms)
    body = _FROM + kept
    return body, order, _limit(limit)


def list_table(
    con: duckdb.DuckDBPyConnection, f: Filters, *, sort: str | None, desc: bool, limit: int | None
) -> tuple[list[tuple], int]:
    """The rows of ``results list`` (:data:`LIST_COLUMNS`, sorted by ``sort``: a key of
    :data:`SORT_KEYS`, default collection; ties by id) and how many ``f`` keeps in all."""
    cond, args = where(f)
    body, order, tail = _listing_sql(_kept(f, cond), sort, desc, limit)
    cols = ", ".join(x for _, x in LIST_COLUMNS)
    rows = con.execute(f"SELECT count(*) OVER (), {cols}{body} ORDER BY {order}{tail}", args)
    got = rows.fetchall()
    return [r[1:] for r in got], (got[0][0] if got else 0)


def list_json(
    con: duckdb.DuckDBPyConnection,
    f: Filters,
    *,
    sort: str | None,
    desc: bool,
    limit: int | None,
    chunk: int = 4096,
) -> Iterator[str]:
    """``results list --json`` in pieces to write one after the other: the rows of
    :func:`query` (every field, keys sorted) as a JSON array, one object a line, each
    object written by DuckDB (31k rows: a third of the time of Python's json)."""
    cond, args = where(f)
    body, order, tail = _listing_sql(_kept(f, cond), sort, desc, limit)
    # one query, one sort (robust04 AP 8.7 -> 5.8 ms, the whole store 0.26 -> 0.16 s)
    fields = ", ".join(f"{name} := {sql}" for name, sql in sorted(_FIELDS))
    cur = con.execute(f"SELECT to_json(struct_pack({fields})){body} ORDER BY {order}{tail}", args)
    sep = "[\n"
    while rows := cur.fetchmany(chunk):
        yield sep + ",\n".join([r[0] for r in rows])
        sep = ",\n"
    yield "[]\n" if sep == "[\n" else "\n]\n"


def values(
    con: duckdb.DuckDBPyConnection,
    columns: tuple[str, ...] | list[str],
    ids: list[int] | None = None,
) -> dict:
    """id -> the tuple of ``columns`` of every stored result (or of those of ``ids``,
    asked 10,000 at a time)."""
    sql = f"SELECT id, {', '.join(columns)} FROM results"
    if ids is None:
        return {r[0]: r[1:] for r in con.execute(sql).fetchall()}
    found = {}
    for i in range(0, len(ids), 10_000):
        part = ids[i : i + 10_000]
        got = con.execute(f"{sql} WHERE id IN ({', '.join('?' * len(part))})", part)
        for r in got.fetchall():
            found[r[0]] = r[1:]
    return found


def times(con: duckdb.DuckDBPyConnection) -> dict[int, tuple[str, str]]:
    """id -> (created_at, updated_at) as text, of every result."""
    return {
        i: (c, u)
        for i, c, u in con.execute(
            "SELECT id, CAST(created_at AS VARCHAR), CAST(updated_at AS VARCHAR) FROM results"
        ).fetchall()
    }


def natural_keys(
    con: duckdb.DuckDBPyConnection, collection_ids: list[str]
) -> dict[tuple, tuple[int, str]]:
    """(source, bibkey or '', track or '', collection id, topics, measure, system, role)
    -> (id, value as printed), of every result of ``collection_ids`` by id: what an import
    checks its rows against (in id order: a semi-join's rows come in the join's)."""
    rows = con.execute(
        "SELECT r.id, r.source, p.bibkey, r.track, r.collection_id, r.n_topics, "
        "r.measure, r.system, r.role, r.value_text FROM results r "
        "LEFT JOIN papers p ON p.id = r.paper_id WHERE r.rowid IN (SELECT rowid "
        "FROM results WHERE collection_id IN (SELECT unnest(?::VARCHAR[])))",
        [collection_ids],
    ).fetchall()
    rows.sort()  # ids are unique: by id alone
    return {
        (src, bib or "", track or "", cid, n, m, sysl, role): (rid, vt)
        for rid, src, bib, track, cid, n, m, sysl, role, vt in rows
    }


def not_retracted(con: duckdb.DuckDBPyConnection) -> list[tuple[int, str]]:
    """(id, status) of every result not retracted, by id."""
    return con.execute(
        "SELECT id, status FROM results WHERE status <> 'retracted' ORDER BY id"
    ).fetchall()


# provenance as analyses.extreme.population words it, computed in SQL so that rows come sorted
_PROVENANCE = """
    CASE WHEN r.source = 'paper' AND p.citation IS NOT NULL THEN p.citation
         WHEN r.track IS NOT NULL AND regexp_matches(r.track, '^trec[0-9-]')
              THEN 'TREC ' || r.track
         ELSE coalesce(r.track, r.source) END
    || CASE WHEN r.location IS NOT NULL THEN ', ' || r.location ELSE '' END"""
_POPULATION = f"""
SELECT r.id, r.source, r.system, r.participant, r.value, r.value_text, r.role, r.run_type,
       r.year, r.n_topics, r.topic_set, r.standard, r.status, r.location, r.track,
       p.bibkey, p.citation, p.title, p.venue, p.doi, p.url, {_PROVENANCE} AS provenance,
       CAST(r.date AS VARCHAR), r.reporter, r.url, r.code_url, r.collection_id, r.measure
FROM results r LEFT JOIN papers p ON p.id = r.paper_id
"""


def holds_any(con: duckdb.DuckDBPyConnection, f: Filters) -> bool:
    """Does any result pass the filters ``f`` (their collection and measure resolved)?"""
    cond, args = where(f)
    sql = "SELECT 1 FROM results r LEFT JOIN papers p ON p.id = r.paper_id"
    return bool(con.execute(sql + (f" WHERE {cond}" if cond else "") + " LIMIT 1", args).fetchall())


def population(con: duckdb.DuckDBPyConnection, f: Filters) -> list[tuple]:
    """The rows of an audit's population ``f`` keeps: (id, source, system,
    participant, value, value_text, role, run_type, year, n_topics, topic_set, standard,
    status, location, track, bibkey, citation, title, venue, doi, url, provenance, date,
    reporter, url, code_url, collection_id, measure), best first (ties by provenance,
    system, id: byte order, as Python compares str)."""
    cond, args = where(f)
    sql = _POPULATION + _kept(f, cond)
    if f.collection_id is None or f.measure is None:
        # the whole store's (the site's: 31k rows): DuckDB sorts them in half the time
        return con.execute(
            sql + " ORDER BY r.value DESC, provenance, r.system, r.id", args
        ).fetchall()
    # an audit's (a few hundred rows) sorted here: DuckDB's sort cost 0.8 ms of 5
    rows = con.execute(sql, args).fetchall()
    rows.sort(key=_best_first)
    return rows


def _best_first(row: tuple) -> tuple:
    """A population row's place as ``ORDER BY r.value DESC, provenance, r.system, r.id``
    sorts it (a NaN value first, as DuckDB sorts NaN above every number)."""
    value = row[4]
    return (value == value, -value if value == value else 0.0, row[21], row[2], row[0])
