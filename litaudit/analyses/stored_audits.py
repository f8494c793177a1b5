"""`audit list` asked once (issue 37 item 1): the stored audits of a kind, collection and
measure, named as the user names them (a collection alias, a trec_eval measure name)."""

from __future__ import annotations

import duckdb

from litaudit.analyses.audits import StoredAudit, list_audits
from litaudit.store.collections import resolve_collection
from litaudit.store.measures import resolve_measure


def stored_audits(
    con: duckdb.DuckDBPyConnection,
    *,
    kind: str | None = None,
    collection: str | None = None,
    measure: str | None = None,
) -> tuple[StoredAudit, ...]:
    """The stored audits matching every filter given, oldest first: their heads (each
    result None, none decoded: `audit list` prints none)."""
    cid = resolve_collection(con, collection).id if collection else None
    meas = resolve_measure(con, measure) if measure else None
    return tuple(list_audits(con, kind=kind, collection_id=cid, measure=meas, results=False))
