"""The ``history`` table: every change to a result or a paper, with who, when and why.

This module is its only writer. :func:`record` writes one entry; :func:`record_many`
writes many in one statement (an import or a sync writes tens of thousands: DuckDB runs
single-row inserts slowly), any of its values given once for every entry or as a list
with one value per entry. Both refuse an unknown entity or action, a missing ``who``
or ``at`` before writing anything (:class:`~litaudit.errors.LitauditError`, one line).
Reads give typed entries (:class:`Entry`: NamedTuples, not SQLModel classes, so that
``results show`` does not import SQLModel: 0.6 s).
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from typing import TYPE_CHECKING, NamedTuple

from litaudit.errors import LitauditError

if TYPE_CHECKING:
    import duckdb

ENTITIES = ("result", "paper")
# the CHECK of schema 006
ACTIONS = ("create", "edit", "verify", "retract", "reinstate", "import")

# a history entry's columns, in the order record_many takes them as rows
COLUMNS = (
    "entity",
    "entity_id",
    "action",
    "field",
    "old_value",
    "new_value",
    "reason",
    "who",
    "changed_at",
)
_LIST_TYPE = {"entity_id": "BIGINT", "changed_at": "TIMESTAMP"}


class Entry(NamedTuple):
    """One change as ``results history`` / ``papers show`` show it (``changed_at`` as
    DuckDB prints a TIMESTAMP: ``2026-11-25 22:41:31.123456``)."""

    id: int
    action: str
    field: str | None
    old_value: str | None
    new_value: str | None
    reason: str | None
    who: str
    changed_at: str

    def as_dict(self) -> dict:
        return self._asdict()


class WindowEntry(NamedTuple):
    """One change of ``results history --collection/--since/--until``: an
    :class:`Entry` with its result's id, collection, measure and system."""

    id: int
    result_id: int
    collection_id: str
    measure: str
    system: str
    action: str
    field: str | None
    old_value: str | None
    new_value: str | None
    reason: str | None
    who: str
    changed_at: str

    def as_dict(self) -> dict:
        return self._asdict()


def text(v) -> str | None:
    """A value as the history stores it: None, ``true``/``false``, else ``str(v)``."""
    if v is None:
        return None
    if isinstance(v, bool):
        return "true" if v else "false"
    return str(v)


def now() -> dt.datetime:
    """The time a change is recorded at: UTC, without a zone (a TIMESTAMP column)."""
    return dt.datetime.now(dt.UTC).replace(tzinfo=None)


def record(
    con: duckdb.DuckDBPyConnection,
    of: tuple[str, int],
    action: str,
    *,
    field: str | None = None,
    old=None,
    new=None,
    reason: str | None = None,
    who: str,
    at: dt.datetime,
) -> None:
    """Write one history entry of ``of`` (entity, id): ``record(con, ("result", 7),
    "edit", field="notes", old=..., new=..., reason=..., who=..., at=...)``. ``old`` and
    ``new`` are stored as :func:`text`."""
    entity, entity_id = of
    record_many(
        con,
        (entity, [entity_id]),
        action,
        field=field,
        old=text(old),
        new=text(new),
        reason=reason,
        who=who,
        at=at,
    )


def record_many(
    con: duckdb.DuckDBPyConnection,
    of: tuple,
    action,
    *,
    field=None,
    old=None,
    new=None,
    reason=None,
    who,
    at,
) -> int:
    """Write many history entries in one statement, in order. ``of`` is (entity, ids):
    the ids a list, the entity one for all or a list of one per entry; so may every other
    argument be (lists all of the same length). ``old``/``new`` are written as given
    (text or None). Returns the number of entries written."""
    entity, entity_id = of
    given = {
        "entity": entity,
        "entity_id": entity_id,
        "action": action,
        "field": field,
        "old_value": old,
        "new_value": new,
        "reason": reason,
        "who": who,
        "changed_at": at,
    }
    lists = {k: list(v) for k, v in given.items() if isinstance(v, list | tuple)}
    if "entity_id" not in lists:
        raise LitauditError("history: the ids of the entries must be a list")
    n = len(lists["entity_id"])
    bad = [k for k, v in lists.items() if len(v) != n]
    if bad:
        raise LitauditError(f"history: {', '.join(bad)} must have one value per entry ({n})")
    _check(given, lists)
    if not n:
        return 0
    select, args = [], []
    for c in COLUMNS:
        if c in lists:
            select.append(f"unnest(?::{_LIST_TYPE.get(c, 'VARCHAR')}[]) AS {c}")
        else:
            select.append(f"CAST(? AS {_LIST_TYPE.get(c, 'VARCHAR')}) AS {c}")
        args.append(lists.get(c, given[c]))
    # the lists unnested side by side, in their order (the one row they unnest from is
    # one pipeline, and DuckDB keeps an insert's order): ids follow the entries. (A row
    # number and an ORDER BY on it cost 0.25 ms of 1.45 a call.)
    con.execute(f"INSERT INTO history ({', '.join(COLUMNS)}) SELECT {', '.join(select)}", args)
    return n


def record_rows(con: duckdb.DuckDBPyConnection, rows: Sequence[tuple]) -> int:
    """Write history entries given as rows of :data:`COLUMNS` (entity, entity_id, action,
    field, old_value, new_value, reason, who, changed_at), in order, in one statement."""
    if not rows:
        return 0
    entity, ids, action, fld, old, new, reason, who, at = (list(c) for c in zip(*rows, strict=True))
    return record_many(
        con, (entity, ids), action, field=fld, old=old, new=new, reason=reason, who=who, at=at
    )


def _check(given: dict, lists: dict) -> None:
    """Refuse what the table's CHECKs would, and a missing who or time, in one line."""

    def values(k):
        return set(lists[k]) if k in lists else {given[k]}

    for k, allowed in (("entity", ENTITIES), ("action", ACTIONS)):
        wrong = sorted(str(v) for v in values(k) - set(allowed))
        if wrong:
            raise LitauditError(f"history: {k} {wrong[0]!r} is not one of {', '.join(allowed)}")
    if any(v is None or (isinstance(v, str) and not v.strip()) for v in values("who")):
        raise LitauditError("history: every entry needs who made the change")
    if any(not isinstance(v, dt.datetime) for v in values("changed_at")):
        raise LitauditError("history: every entry needs when the change was made (a datetime)")
    if any(v is None for v in values("entity_id")):
        raise LitauditError("history: every entry needs the id of what it changed")


# ---------------------------------------------------------------- reading


def entries(con: duckdb.DuckDBPyConnection, entity: str, entity_id: int) -> list[Entry]:
    """The history of one result or paper, oldest first."""
    cur = con.execute(
        "SELECT id, action, field, old_value, new_value, reason, who, "
        "CAST(changed_at AS VARCHAR) AS changed_at FROM history "
        "WHERE entity = ? AND entity_id = ? ORDER BY id",
        [entity, entity_id],
    )
    return [Entry._make(r) for r in cur.fetchall()]


def window(
    con: duckdb.DuckDBPyConnection,
    *,
    collection_id: str | None = None,
    since: str | None = None,
    until: str | None = None,
) -> list[WindowEntry]:
    """Changes to the results of ``collection_id`` (None: every collection) made from
    ``since`` to ``until`` (ISO days, inclusive; None: open), oldest first."""
    cond, args = [], []
    if collection_id is not None:
        cond.append("r.collection_id = ?")
        args.append(collection_id)
    if since:
        cond.append("CAST(h.changed_at AS DATE) >= CAST(? AS DATE)")
        args.append(since)
    if until:
        cond.append("CAST(h.changed_at AS DATE) <= CAST(? AS DATE)")
        args.append(until)
    cur = con.execute(
        "SELECT h.id, h.entity_id AS result_id, r.collection_id, r.measure, r.system, "
        "h.action, h.field, h.old_value, h.new_value, h.reason, h.who, "
        "CAST(h.changed_at AS VARCHAR) AS changed_at FROM history h "
        "JOIN results r ON r.id = h.entity_id WHERE "
        + " AND ".join(["h.entity = 'result'", *cond])
        + " ORDER BY h.id",
        args,
    )
    return [WindowEntry._make(r) for r in cur.fetchall()]


def every(con: duckdb.DuckDBPyConnection, *, order: str = "id") -> list[tuple]:
    """Every entry as (id, entity, entity_id, action, field, old_value, new_value,
    reason, who, changed_at as text), ordered by ``id`` or by ``time`` (changed_at,
    then id): the curation export and the store folder copy them all."""
    by = {"id": "id", "time": "changed_at, id"}[order]
    return con.execute(
        "SELECT id, entity, entity_id, action, field, old_value, new_value, reason, who, "
        f"CAST(changed_at AS VARCHAR) FROM history ORDER BY {by}"
    ).fetchall()


def ids_changed_by_others(con: duckdb.DuckDBPyConnection, who: str) -> set[int]:
    """Results with a history entry by someone other than ``who``."""
    return {
        i
        for (i,) in con.execute(
            "SELECT DISTINCT entity_id FROM history WHERE entity = 'result' AND who <> ?",
            [who],
        ).fetchall()
    }
