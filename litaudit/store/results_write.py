"""Writes of the ``results`` table (its owner with :mod:`litaudit.store.results`, which
reads it): the bulk insert of new results, one result's update, the set-based updates of
many, and the results' uids (the same in every clone).

Bulk paths stay set-based (one statement for the 34k seed rows of ``init`` or an import);
their rows were validated field by field before (:mod:`litaudit.curation.plan`), so they
are not validated again row by row through ``models.Result`` here.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import operator
from typing import TYPE_CHECKING

import numpy as np

from litaudit.errors import LitauditError

if TYPE_CHECKING:
    import duckdb


# a result's uid from its natural key (schema/017_result_uids.sql writes the same)
UID_SQL = (
    "'r-' || substr(sha256(concat_ws(chr(31), r.source, coalesce(p.bibkey, ''), "
    "coalesce(r.track, ''), r.collection_id, CAST(r.n_topics AS VARCHAR), r.measure, "
    "r.system, r.role) || {salt}), 1, 16)"
)


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


# the columns of a stored result, in the DDL's order (schemas 001, 003, 007)
COLUMNS = tuple(
    "id source paper_id track collection_id topic_set n_topics measure value value_text "
    "system participant role run_type year standard location transcribed_by "
    "transcribed_at status notes created_at updated_at date reporter url code_url".split()
)


# SQL types of the bulk insert's columns (default: VARCHAR)
_SQL_TYPES = {
    "id": "INTEGER",
    "paper_id": "INTEGER",
    "n_topics": "INTEGER",
    "value": "DOUBLE",
    "year": "INTEGER",
    "standard": "BOOLEAN",
    "transcribed_at": "DATE",
    "date": "DATE",
    "created_at": "TIMESTAMP",
    "updated_at": "TIMESTAMP",
}


# the columns of a result's natural key, as :func:`uid` takes them (paper_id: its bibkey)
UID_KEY = ("source", "paper_id", "track", "collection_id", "n_topics", "measure", "system", "role")


def uid(key: tuple) -> str:
    """A new result's uid (:data:`UID_SQL` with no salt) from its natural key (source,
    bibkey or None, track or None, collection id, number of topics, measure, system,
    role)."""
    source, bibkey, track, collection_id, n_topics, measure, system, role = key
    text = chr(31).join(
        (source, bibkey or "", track or "", collection_id, str(n_topics), measure, system, role)
    )
    return "r-" + hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


def new_ids(con: duckdb.DuckDBPyConnection, n: int) -> list[int]:
    """``n`` ids for new results, from the table's sequence."""
    got = con.execute("SELECT nextval('results_id_seq') FROM range(?)", [n]).fetchall()
    return [r[0] for r in got]


def insert(
    con: duckdb.DuckDBPyConnection, records: list[dict], bibkeys: dict[int, str] | None = None
) -> None:
    """Insert results (dicts of :data:`COLUMNS`, ids from :func:`new_ids`) in one
    statement: a few as the parameters of one ``VALUES`` list (1.0 ms a row, not the
    2.4 ms of a scan's set-up), more from a dict of NumPy arrays DuckDB scans (DuckDB's
    executemany is slow; Arrow from Python lists imports pandas, 0.2 s). Their uids are
    computed here (:func:`uid`; ``bibkeys``: paper id -> bibkey of every paper the records
    name, when the caller holds them; else read); one that a stored result holds already
    is left to :func:`fill_uids`, which gives the next of the key's salted hashes."""
    if not records:
        return
    n = len(records)
    try:  # each record holds every column (an import's): one C-level transpose
        rows = list(map(operator.itemgetter(*COLUMNS), records))
    except KeyError:
        rows = [tuple(r.get(c) for c in COLUMNS) for r in records]
    values = list(zip(*rows, strict=True))
    if bibkeys is None:
        bibkeys = dict(con.execute("SELECT id, bibkey FROM papers").fetchall())
    at = {c: values[COLUMNS.index(c)] for c in UID_KEY}
    paper = [bibkeys.get(i) for i in at["paper_id"]]
    keys = zip(at["source"], paper, *(at[c] for c in UID_KEY[2:]), strict=True)
    uids = list(map(uid, keys))
    taken = {
        u
        for (u,) in con.execute(
            "SELECT uid FROM results WHERE uid IN (SELECT unnest(?::VARCHAR[]))", [uids]
        ).fetchall()
    }
    free = [None if u in taken else u for u in uids]
    if n <= _FEW:
        _insert_values(con, rows, free)
    else:
        _insert_scan(con, values, free)
    if taken:
        fill_uids(con)


# up to this many rows go as one VALUES list's parameters (5 rows: 1.7 ms, a scan 2.5)
_FEW = 8


def _insert_values(con: duckdb.DuckDBPyConnection, rows: list[tuple], uids: list) -> None:
    """A few results (rows of :data:`COLUMNS`, their uids) as one ``VALUES`` list, each
    value cast to its column's type by the insert."""
    one = "(" + ", ".join(["?"] * (len(COLUMNS) + 1)) + ")"
    con.execute(
        f"INSERT INTO results ({', '.join((*COLUMNS, 'uid'))}) VALUES "
        + ", ".join([one] * len(rows)),
        [v for row, u in zip(rows, uids, strict=True) for v in (*row, u)],
    )


def _insert_scan(con: duckdb.DuckDBPyConnection, values: list[tuple], uids: list) -> None:
    """Many results (the columns of :data:`COLUMNS`, their uids) from a dict of NumPy
    arrays DuckDB scans, each cast to its column's type."""
    n = len(uids)
    columns = {c: _objects(list(v), n) for c, v in zip(COLUMNS, values, strict=True)}
    columns["uid"] = _objects(uids, n)
    con.register("_insert_results", columns)
    try:
        cols = ", ".join((*COLUMNS, "uid"))
        typed = ", ".join(
            f"CAST({c} AS {_SQL_TYPES.get(c, 'VARCHAR')}) AS {c}" for c in (*COLUMNS, "uid")
        )
        con.execute(f"INSERT INTO results ({cols}) SELECT {typed} FROM _insert_results")
    finally:
        con.unregister("_insert_results")


def _objects(values: list, n: int) -> np.ndarray:
    """``values`` as a NumPy array of Python objects (one a row, never a nested array)."""
    out = np.empty(n, dtype=object)
    out[:] = values
    return out


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
    location, url)) each, at once (inside the caller's transaction: :func:`_update_many`)."""
    if not rows:
        return
    ids = [i for i, _ in rows]
    cols = [list(c) for c in zip(*(v for _, v in rows), strict=True)]
    _update_many(
        con,
        "date = CAST(s.date AS DATE), year = s.year, location = s.location, url = s.url, "
        "updated_at = ?",
        [at],
        "SELECT unnest(?::BIGINT[]) AS id, unnest(?::VARCHAR[]) AS date, "
        "unnest(?::INTEGER[]) AS year, unnest(?::VARCHAR[]) AS location, "
        "unnest(?::VARCHAR[]) AS url",
        [ids, *cols],
    )


def set_many(
    con: duckdb.DuckDBPyConnection, column: str, ids: list[int], new, *, at: dt.datetime
) -> None:
    """One column of many results at once (inside the caller's transaction:
    :func:`_update_many`): ``new`` one value for all, or a list of one per id (``column``:
    status, notes or role)."""
    if column not in _SET_MANY:
        raise LitauditError(f"set_many: {column!r} is not one of {', '.join(_SET_MANY)}")
    if not ids:
        return
    value = "unnest(?::VARCHAR[])" if isinstance(new, list) else "CAST(? AS VARCHAR)"
    _update_many(
        con,
        f"{column} = s.new, updated_at = ?",
        [at],
        f"SELECT unnest(?::BIGINT[]) AS id, {value} AS new",
        [ids, new],
    )


def _update_many(
    con: duckdb.DuckDBPyConnection, sets: str, set_args: list, new: str, new_args: list
) -> None:
    """``UPDATE results SET {sets} FROM ({new}) s WHERE results.id = s.id`` (``new``: the
    rows' ids and new values), carried out as DuckDB carries out any update of this table
    (its multi-column CHECK and its indexes make each updated row a deletion and an
    insertion at the end) but in bulk: the rows copied out, updated there, deleted and
    inserted again. The same rows in the same order; 0.9 s of CPU for 26,728 rows with the
    commit, not 2.6 s (DuckDB 2.0). Only inside the caller's transaction
    (``store.transaction()``, as every caller's): there the deletion and the insertion are
    one change, all or nothing."""
    con.execute(f"CREATE OR REPLACE TEMP TABLE _update_new AS {new}", new_args)
    con.execute(
        "CREATE OR REPLACE TEMP TABLE _update_rows AS SELECT * FROM results "
        "WHERE id IN (SELECT id FROM _update_new)"
    )
    con.execute(
        f"UPDATE _update_rows SET {sets} FROM _update_new s WHERE _update_rows.id = s.id",
        set_args,
    )
    con.execute("DELETE FROM results WHERE id IN (SELECT id FROM _update_rows)")
    con.execute("INSERT INTO results SELECT * FROM _update_rows")
    con.execute("DROP TABLE _update_rows")
    con.execute("DROP TABLE _update_new")
