"""The ``results`` table: every read and write of published results.

Curation, the analyses and the runs ask this module; no other module outside the store
writes SQL on ``results``. Bulk paths stay set-based (one statement for the 34k seed rows
of ``init`` or an import); their rows were validated field by field before
(:mod:`litaudit.curation.plan`), so they are not validated again row by row through
``models.Result`` here (34,495 ``model_validate`` calls take 2.7 s of CPU, an ``init``
~3 s). Results are read as typed :class:`ResultRecord` rows; ``results list`` and the
audits' populations take tuples (the columns they show or compute on).

The listings take a :class:`~litaudit.curation.filters.Filters` (which results to keep);
:func:`where` turns it into SQL on ``results r LEFT JOIN papers p``.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterator
from typing import TYPE_CHECKING, NamedTuple

from litaudit.errors import LitauditError, NotFound
from litaudit.measures import did_you_mean

if TYPE_CHECKING:
    import duckdb

    from litaudit.curation.filters import Filters

LIST_SQL = """
SELECT r.id, r.source, p.bibkey, p.citation, r.track, c.name AS collection, r.collection_id,
       r.topic_set, r.n_topics, r.measure, r.value, r.value_text, r.system, r.participant,
       r.role, r.run_type, r.year, r.standard, r.location, r.transcribed_by,
       CAST(r.transcribed_at AS VARCHAR) AS transcribed_at, r.status, r.notes,
       p.title AS paper_title, p.authors AS paper_authors, p.venue AS paper_venue,
       p.year AS paper_year, p.doi AS paper_doi, p.url AS paper_url, p.tags AS paper_tags,
       CAST(r.date AS VARCHAR) AS date, r.reporter, r.url, r.code_url, r.uid
FROM results r JOIN collections c ON c.id = r.collection_id
LEFT JOIN papers p ON p.id = r.paper_id
"""


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
        + (f" WHERE {cond}" if cond else "")
        + " ORDER BY r.collection_id, r.measure, r.year, r.id"
        + _limit(limit)
    )
    return [ResultRecord._make(row) for row in con.execute(sql, args).fetchall()]


# a result's uid from its natural key (schema/017_result_uids.sql writes the same)
UID_SQL = (
    "'r-' || substr(sha256(concat_ws(chr(31), r.source, coalesce(p.bibkey, ''), "
    "coalesce(r.track, ''), r.collection_id, CAST(r.n_topics AS VARCHAR), r.measure, "
    "r.system, r.role) || {salt}), 1, 16)"
)


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


def fill_uids(con: duckdb.DuckDBPyConnection) -> None:
    """Give the results without a uid theirs (:data:`UID_SQL`); one that another result
    holds already (a result created with a key another one had when it was created)
    takes the next of the key's salted hashes."""
    for salt in range(8):
        con.execute(
            f"UPDATE results SET uid = k.uid FROM (SELECT r.id, {UID_SQL.format(salt=repr(_salt(salt)))} AS uid "
            "FROM results r LEFT JOIN papers p ON p.id = r.paper_id WHERE r.uid IS NULL) k "
            "WHERE results.id = k.id AND k.uid NOT IN "
            "(SELECT uid FROM results WHERE uid IS NOT NULL)"
        )
        if not con.execute("SELECT count(*) FROM results WHERE uid IS NULL").fetchall()[0][0]:
            return
    raise LitauditError("results: no free uid for a new result")  # 2^-64 per result


def _salt(i: int) -> str:
    return "" if i == 0 else f"{chr(31)}{i}"


def set_uids(con: duckdb.DuckDBPyConnection, uids: dict[int, str]) -> None:
    """Give results the uids a store folder names (id -> uid)."""
    if uids:
        con.execute(
            "UPDATE results SET uid = k.u FROM (SELECT unnest(?::INTEGER[]) AS i, "
            "unnest(?::VARCHAR[]) AS u) k WHERE results.id = k.i",
            [list(uids), list(uids.values())],
        )


def get(con: duckdb.DuckDBPyConnection, result_id: int) -> ResultRecord:
    """One result by id (:class:`~litaudit.errors.NotFound` if there is none)."""
    row = con.execute(LIST_SQL + " WHERE r.id = ?", [result_id]).fetchone()
    if row is None:
        raise NotFound(f"no result with id {result_id}")
    return ResultRecord._make(row)


def _listing_sql(cond: str, sort: str | None, desc: bool, limit: int | None):
    """(FROM ... WHERE, ORDER BY expression, LIMIT clause) of a listing."""

    key = (sort or "collection").strip().lower()
    if key not in SORT_KEYS:
        raise LitauditError(
            f"--sort: {sort!r} is not one of {', '.join(SORT_KEYS)}{did_you_mean(key, SORT_KEYS)}"
        )
    way = " DESC NULLS LAST" if desc else " NULLS LAST"
    order = ", ".join(x + (way if x != "r.id" else "") for x in SORT_KEYS[key].split(", "))
    body = (
        " FROM results r JOIN collections c ON c.id = r.collection_id "
        "LEFT JOIN papers p ON p.id = r.paper_id" + (f" WHERE {cond}" if cond else "")
    )
    return body, order, _limit(limit)


def list_table(
    con: duckdb.DuckDBPyConnection, f: Filters, *, sort: str | None, desc: bool, limit: int | None
) -> tuple[list[tuple], int]:
    """The rows of ``results list`` (:data:`LIST_COLUMNS`, sorted by ``sort``: a key of
    :data:`SORT_KEYS`, default collection; ties by id) and how many ``f`` keeps in all."""
    cond, args = where(f)
    body, order, tail = _listing_sql(cond, sort, desc, limit)
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
    body, order, tail = _listing_sql(cond, sort, desc, limit)
    names = [d[0] for d in con.execute(LIST_SQL + " LIMIT 0").description]
    inner = LIST_SQL.split("FROM results r")[0].strip().removeprefix("SELECT")
    fields = ", ".join(f"{n} := q.{n}" for n in sorted(names))
    q = f"SELECT row_number() OVER (ORDER BY {order}) AS _k, {inner}{body} ORDER BY {order}{tail}"
    cur = con.execute(f"SELECT to_json(struct_pack({fields})) FROM ({q}) q ORDER BY q._k", args)
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
    -> (id, value as printed), of every result of ``collection_ids``: what an import checks
    its rows against."""
    return {
        (src, bib or "", track or "", cid, n, m, sysl, role): (rid, vt)
        for rid, src, bib, track, cid, n, m, sysl, role, vt in con.execute(
            "SELECT r.id, r.source, p.bibkey, r.track, r.collection_id, r.n_topics, "
            "r.measure, r.system, r.role, r.value_text FROM results r "
            "LEFT JOIN papers p ON p.id = r.paper_id "
            "WHERE r.collection_id IN (SELECT unnest(?::VARCHAR[]))",
            [collection_ids],
        ).fetchall()
    }


def not_retracted(con: duckdb.DuckDBPyConnection) -> list[tuple[int, str]]:
    """(id, status) of every result not retracted, by id."""
    return con.execute(
        "SELECT id, status FROM results WHERE status <> 'retracted' ORDER BY id"
    ).fetchall()


def counts(con: duckdb.DuckDBPyConnection) -> list[tuple[str, str, int, int]]:
    """(collection name, measure, paper results, official results) of the results not
    retracted, by collection and measure."""
    return con.execute(
        "SELECT c.name, r.measure, count(*) FILTER (WHERE r.source = 'paper'), "
        "count(*) FILTER (WHERE r.source = 'official') FROM results r "
        "JOIN collections c ON c.id = r.collection_id WHERE r.status <> 'retracted' "
        "GROUP BY ALL ORDER BY 1, 2"
    ).fetchall()


def measures_with(
    con: duckdb.DuckDBPyConnection, collection_id: str, at_least: int
) -> tuple[str, ...]:
    """Measures of a collection with at least ``at_least`` results not retracted, most
    results first."""
    rows = con.execute(
        "SELECT measure, count(*) AS n FROM results WHERE collection_id = ? "
        "AND status <> 'retracted' GROUP BY measure HAVING count(*) >= ? "
        "ORDER BY n DESC, measure",
        [collection_id, at_least],
    ).fetchall()
    return tuple(r[0] for r in rows)


def has_role(con: duckdb.DuckDBPyConnection, collection_id: str, role: str) -> bool:
    """Does the collection hold a result of ``role`` (retracted ones counted)?"""
    return bool(
        con.execute(
            "SELECT 1 FROM results WHERE collection_id = ? AND role = ? LIMIT 1",
            [collection_id, role],
        ).fetchall()
    )


def official_runs(
    con: duckdb.DuckDBPyConnection, collection_id: str
) -> list[tuple[str, str | None, str | None]]:
    """(system, participant, run type) of a collection's official results, one a system."""
    return con.execute(
        "SELECT system, any_value(participant), any_value(run_type) FROM results "
        "WHERE source = 'official' AND collection_id = ? GROUP BY system",
        [collection_id],
    ).fetchall()


def official_count(con: duckdb.DuckDBPyConnection, collection_id: str) -> tuple[int, int]:
    """Distinct official runs and participants listed for a collection (not retracted)."""
    r = con.execute(
        "SELECT count(DISTINCT system), count(DISTINCT participant) FROM results "
        "WHERE collection_id = ? AND source = 'official' AND status <> 'retracted'",
        [collection_id],
    ).fetchone()
    return (int(r[0]), int(r[1])) if r else (0, 0)


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


def population(con: duckdb.DuckDBPyConnection, f: Filters) -> list[tuple]:
    """The rows of an audit's population ``f`` keeps: (id, source, system,
    participant, value, value_text, role, run_type, year, n_topics, topic_set, standard,
    status, location, track, bibkey, citation, title, venue, doi, url, provenance, date,
    reporter, url, code_url, collection_id, measure), best first (ties by provenance,
    system, id: byte order, as Python compares str)."""
    cond, args = where(f)
    sql = (
        _POPULATION
        + (f" WHERE {cond}" if cond else "")
        + " ORDER BY r.value DESC, provenance, r.system, r.id"
    )
    return con.execute(sql, args).fetchall()


# ---------------------------------------------------------------- writing

# the columns of a stored result, in the DDL's order (schemas 001, 003, 007)
COLUMNS = tuple(
    "id source paper_id track collection_id topic_set n_topics measure value value_text "
    "system participant role run_type year standard location transcribed_by "
    "transcribed_at status notes created_at updated_at date reporter url code_url".split()
)
# Arrow types of the bulk insert's columns (filled on first use; default: string)
_ARROW_TYPES: dict = {}


def _arrow_types(pa) -> dict:
    if not _ARROW_TYPES:
        _ARROW_TYPES.update(
            {
                "id": pa.int64(),
                "paper_id": pa.int64(),
                "n_topics": pa.int64(),
                "value": pa.float64(),
                "year": pa.int64(),
                "standard": pa.bool_(),
                "transcribed_at": pa.date32(),
                "date": pa.date32(),
                "created_at": pa.timestamp("us"),
                "updated_at": pa.timestamp("us"),
            }
        )
        for c in COLUMNS:
            _ARROW_TYPES.setdefault(c, pa.string())
    return _ARROW_TYPES


def new_ids(con: duckdb.DuckDBPyConnection, n: int) -> list[int]:
    """``n`` ids for new results, from the table's sequence."""
    got = con.execute("SELECT nextval('results_id_seq') FROM range(?)", [n]).fetchall()
    return [r[0] for r in got]


def insert(con: duckdb.DuckDBPyConnection, records: list[dict]) -> None:
    """Insert results (dicts of :data:`COLUMNS`, ids from :func:`new_ids`) in one
    statement, from an Arrow table (DuckDB's executemany is slow; pyarrow imports in a
    fraction of pandas' time)."""
    if not records:
        return
    # start-up: pyarrow
    import pyarrow as pa

    types = _arrow_types(pa)
    table = pa.table({c: pa.array([r.get(c) for r in records], type=types[c]) for c in COLUMNS})
    con.register("_insert_results", table)
    try:
        cols = ", ".join(COLUMNS)
        con.execute(f"INSERT INTO results ({cols}) SELECT {cols} FROM _insert_results")
    finally:
        con.unregister("_insert_results")
    fill_uids(con)


def update(
    con: duckdb.DuckDBPyConnection, result_id: int, changes: dict, *, at: dt.datetime
) -> None:
    """Write ``changes`` (column -> value) to one result, and its ``updated_at``. A change
    that makes it another stored result is refused."""
    # start-up: duckdb
    import duckdb

    sets = ", ".join(f"{c} = ?" for c in changes)
    try:
        con.execute(
            f"UPDATE results SET {sets}, updated_at = ? WHERE id = ?",
            [*changes.values(), at, result_id],
        )
    except duckdb.ConstraintException as exc:
        raise LitauditError(
            f"result #{result_id}: the change would duplicate another result "
            f"({str(exc).splitlines()[0]})"
        ) from None


_SET_MANY = ("status", "notes", "role")  # VARCHAR columns


def set_dated(
    con: duckdb.DuckDBPyConnection, rows: list[tuple[int, tuple]], *, at: dt.datetime
) -> None:
    """The date (ISO text), year, location and url of many results, (id, (date, year,
    location, url)) each, in one statement."""
    if not rows:
        return
    ids = [i for i, _ in rows]
    cols = [list(c) for c in zip(*(v for _, v in rows), strict=True)]
    con.execute(
        "UPDATE results SET date = CAST(s.date AS DATE), year = s.year, location = s.location, "
        "url = s.url, updated_at = ? FROM (SELECT unnest(?::BIGINT[]) AS id, "
        "unnest(?::VARCHAR[]) AS date, unnest(?::INTEGER[]) AS year, "
        "unnest(?::VARCHAR[]) AS location, unnest(?::VARCHAR[]) AS url) s "
        "WHERE results.id = s.id",
        [at, ids, *cols],
    )


def set_many(
    con: duckdb.DuckDBPyConnection, column: str, ids: list[int], new, *, at: dt.datetime
) -> None:
    """One column of many results in one statement: ``new`` one value for all, or a list
    of one per id (``column``: status, notes or role)."""
    if column not in _SET_MANY:
        raise LitauditError(f"set_many: {column!r} is not one of {', '.join(_SET_MANY)}")
    if not ids:
        return
    value = "unnest(?::VARCHAR[])" if isinstance(new, list) else "CAST(? AS VARCHAR)"
    con.execute(
        f"UPDATE results SET {column} = s.new, updated_at = ? FROM "
        f"(SELECT unnest(?::BIGINT[]) AS id, {value} AS new) s WHERE results.id = s.id",
        [at, ids, new],
    )


def measures_held(con: duckdb.DuckDBPyConnection, collection_id: str) -> dict[str, int]:
    """The measures a collection holds results in (not retracted), most results first."""
    rows = con.execute(
        "SELECT measure, count(*) FROM results WHERE collection_id = ? AND status <> "
        "'retracted' GROUP BY measure ORDER BY 2 DESC, 1",
        [collection_id],
    ).fetchall()
    return dict(rows)


def collections_holding(con: duckdb.DuckDBPyConnection, measure: str) -> list[tuple[str, str, int]]:
    """(short name, id, results) of the collections that hold ``measure`` (results not
    retracted), most results first."""
    return con.execute(
        "SELECT c.name, c.id, count(*) FROM results r JOIN collections c "
        "ON c.id = r.collection_id WHERE r.measure = ? AND r.status <> 'retracted' "
        "GROUP BY ALL ORDER BY 3 DESC, 1",
        [measure],
    ).fetchall()


def counts_by_measure_and_source(
    con: duckdb.DuckDBPyConnection, collection_id: str
) -> list[tuple[str, str, int]]:
    """(measure, source, results) of a collection's results (not retracted), by measure
    and source."""
    return con.execute(
        "SELECT measure, source, count(*) FROM results WHERE collection_id = ? "
        "AND status <> 'retracted' GROUP BY ALL ORDER BY 1, 2",
        [collection_id],
    ).fetchall()
