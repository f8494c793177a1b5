"""Stored audits: every analysis result is saved with what is needed to cite it.

An audit row holds its kind, collection, measure, canonical JSON parameters, method,
seed and trials, a SHA-256 fingerprint of its input rows, the software version and the
canonical JSON result. Reports are built only from stored audits.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from typing import Any

from litaudit import __version__
from litaudit.errors import NotFound
from litaudit.render.console import dumps, to_jsonable


def fingerprint(rows) -> str:
    """SHA-256 over the canonical JSON of the input rows (order-sensitive: sort first)."""
    payload = json.dumps(to_jsonable(rows), sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(payload.encode("utf-8")).hexdigest()


@dataclass(frozen=True)
class StoredAudit:
    id: int
    kind: str
    collection_id: str
    measure: str | None
    params: dict
    method: str
    seed: int | None
    trials: int | None
    input_fingerprint: str
    software_version: str
    result: Any
    created_at: str


def save_audit(con, *, kind: str, collection_id: str, measure: str | None, params: dict,
               method: str, input_fingerprint: str, result: Any, seed: int | None = None,
               trials: int | None = None) -> int:
    """Insert an audit row and return its id."""
    row = con.execute(
        "INSERT INTO audits (kind, collection_id, measure, params, method, seed, trials, "
        "input_fingerprint, software_version, result) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?) "
        "RETURNING id",
        [kind, collection_id, measure, dumps(params), method, seed, trials, input_fingerprint,
         __version__, dumps(result)],
    ).fetchone()
    return int(row[0])


def save_audits(con, audits: list[dict]) -> list[int]:
    """Insert many audits (each a dict of save_audit's keyword arguments) in one statement;
    their ids, in order. DuckDB runs single-row inserts slowly (`audit summary` stores
    one audit per population)."""
    if not audits:
        return []
    cols = ("kind", "collection_id", "measure", "params", "method", "seed", "trials",
            "input_fingerprint", "result")
    data = {c: [a.get(c) for a in audits] for c in cols}
    data["params"] = [dumps(x) for x in data["params"]]
    data["result"] = [dumps(x) for x in data["result"]]
    types = {"seed": "BIGINT[]", "trials": "INTEGER[]"}
    sel = ", ".join(f"unnest(?::{types.get(c, 'VARCHAR[]')})" for c in cols)
    rows = con.execute(
        f"INSERT INTO audits ({', '.join(cols)}, software_version) SELECT {sel}, ? "
        "RETURNING id", [data[c] for c in cols] + [__version__]).fetchall()
    return sorted(int(r[0]) for r in rows)  # ids come from the sequence in row order


_COLS = ("id, kind, collection_id, measure, params, method, seed, trials, input_fingerprint, "
         "software_version, result, CAST(created_at AS VARCHAR)")


def _row(r) -> StoredAudit:
    return StoredAudit(r[0], r[1], r[2], r[3], json.loads(r[4]), r[5], r[6], r[7], r[8], r[9],
                       json.loads(r[10]), r[11])


def get_audit(con, audit_id: int) -> StoredAudit:
    r = con.execute(f"SELECT {_COLS} FROM audits WHERE id = ?", [audit_id]).fetchone()
    if r is None:
        raise NotFound(f"no audit with id {audit_id}")
    return _row(r)


def find_audit(con, *, kind: str, collection_id: str, measure: str | None, params: dict,
               input_fingerprint: str) -> StoredAudit | None:
    """The newest stored audit with exactly these inputs (for reuse by reports), or None."""
    r = con.execute(
        f"SELECT {_COLS} FROM audits WHERE kind = ? AND collection_id = ? "
        "AND measure IS NOT DISTINCT FROM ? AND params = ? AND input_fingerprint = ? "
        "ORDER BY id DESC LIMIT 1",
        [kind, collection_id, measure, dumps(params), input_fingerprint]).fetchone()
    return _row(r) if r else None


def list_audits(con, *, kind: str | None = None, collection_id: str | None = None,
                measure: str | None = None) -> list[StoredAudit]:
    where, args = [], []
    for col, val in (("kind", kind), ("collection_id", collection_id), ("measure", measure)):
        if val is not None:
            where.append(f"{col} = ?")
            args.append(val)
    sql = f"SELECT {_COLS} FROM audits" + (f" WHERE {' AND '.join(where)}" if where else "")
    return [_row(r) for r in con.execute(sql + " ORDER BY id", args).fetchall()]
