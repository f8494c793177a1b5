"""The ``audits`` table: every stored audit (docs/DEVELOPING.md, "Who owns which table").

Rows are read and written here as they are stored (parameters and result as canonical
JSON text); :mod:`litaudit.analyses.audits` makes the keys and decodes the results into
their types (the store never imports the analyses).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, NamedTuple

if TYPE_CHECKING:
    import duckdb

# what identifies an audit, in AuditKey.values() order (litaudit.analyses.audits)
KEY_COLUMNS = (
    "kind",
    "collection_id",
    "measure",
    "params",
    "method",
    "seed",
    "trials",
    "input_fingerprint",
)


class AuditRow(NamedTuple):
    """One stored audit as its columns hold it: ``params`` and ``result`` are JSON text,
    ``created_at`` text."""

    id: int
    kind: str
    collection_id: str
    measure: str | None
    params: str
    method: str
    seed: int | None
    trials: int | None
    input_fingerprint: str
    software_version: str
    result: str
    created_at: str


_COLS = (
    "id, kind, collection_id, measure, params, method, seed, trials, input_fingerprint, "
    "software_version, result, CAST(created_at AS VARCHAR)"
)


def insert(
    con: duckdb.DuckDBPyConnection, key: tuple, result: str, *, version: str, code_digest: str
) -> int:
    """Insert one audit (``key``: the values of :data:`KEY_COLUMNS`; ``result``: its
    JSON) made by litaudit ``version`` of source ``code_digest``; its id."""
    row = con.execute(
        f"INSERT INTO audits ({', '.join(KEY_COLUMNS)}, software_version, code_digest, result) "
        "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id",
        [*key, version, code_digest, result],
    ).fetchall()
    return int(row[0][0])


def insert_many(
    con: duckdb.DuckDBPyConnection,
    rows: list[tuple],
    *,
    version: str,
    code_digest: str,
) -> list[int]:
    """Insert many audits (each the values of :data:`KEY_COLUMNS` and its result JSON) in
    one statement; their ids, in order. DuckDB runs single-row inserts slowly (`audit
    summary` stores one audit per population)."""
    if not rows:
        return []
    cols = (*KEY_COLUMNS, "result")
    data = [list(col) for col in zip(*rows, strict=True)]
    types = {"seed": "BIGINT[]", "trials": "INTEGER[]"}
    sel = ", ".join(f"unnest(?::{types.get(c, 'VARCHAR[]')})" for c in cols)
    found = con.execute(
        f"INSERT INTO audits ({', '.join(cols)}, software_version, code_digest) "
        f"SELECT {sel}, ?, ? RETURNING id",
        [*data, version, code_digest],
    ).fetchall()
    return sorted(int(r[0]) for r in found)  # ids come from the sequence in row order


def get(con: duckdb.DuckDBPyConnection, audit_id: int) -> AuditRow | None:
    """The audit ``audit_id``, or None."""
    r = con.execute(f"SELECT {_COLS} FROM audits WHERE id = ?", [audit_id]).fetchone()
    return None if r is None else AuditRow._make(r)


def get_many(con: duckdb.DuckDBPyConnection, audit_ids: list[int]) -> list[AuditRow]:
    """The audits of ``audit_ids`` that exist, in one query (a look-up of one id reads its
    block of the result column: ~25 ms an audit on a seeded store, against 0.1 s for 554
    at once: bench/bench_site.py)."""
    rows = con.execute(
        f"SELECT {_COLS} FROM audits WHERE id IN (SELECT unnest(?::INTEGER[]))", [audit_ids]
    ).fetchall()
    return [AuditRow._make(r) for r in rows]


def newest(
    con: duckdb.DuckDBPyConnection,
    *,
    kind: str,
    collection_id: str,
    measure: str | None,
    params: str,
    input_fingerprint: str,
    code_digest: str,
) -> AuditRow | None:
    """The newest audit with exactly these inputs (``params``: canonical JSON) made by
    source ``code_digest``, or None."""
    r = con.execute(
        f"SELECT {_COLS} FROM audits WHERE kind = ? AND collection_id = ? "
        "AND measure IS NOT DISTINCT FROM ? AND params = ? AND input_fingerprint = ? "
        "AND code_digest = ? ORDER BY id DESC LIMIT 1",
        [kind, collection_id, measure, params, input_fingerprint, code_digest],
    ).fetchone()
    return None if r is None else AuditRow._make(r)


def listing(
    con: duckdb.DuckDBPyConnection,
    *,
    kind: str | None = None,
    collection_id: str | None = None,
    measure: str | None = None,
    input_fingerprint: str | None = None,
    code_digest: str | None = None,
) -> list[AuditRow]:
    """The audits that match every filter given (None: any), by id."""
    where, args = [], []
    for col, val in (
        ("kind", kind),
        ("collection_id", collection_id),
        ("measure", measure),
        ("input_fingerprint", input_fingerprint),
        ("code_digest", code_digest),
    ):
        if val is not None:
            where.append(f"{col} = ?")
            args.append(val)
    sql = f"SELECT {_COLS} FROM audits" + (f" WHERE {' AND '.join(where)}" if where else "")
    return [AuditRow._make(r) for r in con.execute(sql + " ORDER BY id", args).fetchall()]


def identical_id(con: duckdb.DuckDBPyConnection, key: tuple, code_digest: str) -> int | None:
    """The id of the newest audit of ``key`` (the values of :data:`KEY_COLUMNS`) made by
    source ``code_digest``, or None: what every run of an audit asks first. Its ids only
    (the result column of a large store is read by block), the newest picked here (there
    is one or none: a second would have been a reuse), not by DuckDB's ORDER BY ... LIMIT 1
    of the whole row (0.8 -> 0.4 ms a call)."""
    rows = con.execute(
        "SELECT id FROM audits WHERE kind = ? AND collection_id = ? "
        "AND measure IS NOT DISTINCT FROM ? AND params = ? AND method = ? "
        "AND seed IS NOT DISTINCT FROM ? AND trials IS NOT DISTINCT FROM ? "
        "AND input_fingerprint = ? AND code_digest = ?",
        [*key, code_digest],
    ).fetchall()
    return max(int(r[0]) for r in rows) if rows else None


def newest_ids_by_key(
    con: duckdb.DuckDBPyConnection, kind: str, code_digest: str
) -> dict[tuple, int]:
    """The newest audit id of each key of ``kind`` made by source ``code_digest``, by its
    key (the values of :data:`KEY_COLUMNS`)."""
    rows = con.execute(
        f"SELECT max(id), {', '.join(KEY_COLUMNS[1:])} FROM audits "
        "WHERE kind = ? AND code_digest = ? GROUP BY ALL",
        [kind, code_digest],
    ).fetchall()
    return {(kind, *r[1:]): int(r[0]) for r in rows}


def ids_of(
    con: duckdb.DuckDBPyConnection,
    *,
    kind: str,
    collection_id: str,
    input_fingerprint: str,
    code_digest: str,
) -> list[int]:
    """The ids of the audits of ``kind`` on these inputs made by source ``code_digest``,
    newest first."""
    rows = con.execute(
        "SELECT id FROM audits WHERE kind = ? AND collection_id = ? "
        "AND input_fingerprint = ? AND code_digest = ? ORDER BY id DESC",
        [kind, collection_id, input_fingerprint, code_digest],
    ).fetchall()
    return [int(r[0]) for r in rows]


def last_id(con: duckdb.DuckDBPyConnection) -> int:
    """The largest audit id (0: none stored)."""
    return int(con.execute("SELECT coalesce(max(id), 0) FROM audits").fetchall()[0][0])
