"""Published results: query, add, edit, verify, retract, history.

Every change goes to ``history`` with who, when, field, old and new value and a reason.
Retracted results stay queryable; audits leave them out by default.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterator
from typing import TYPE_CHECKING

from litaudit.curation import fields
from litaudit.curation.apply import apply_plan
from litaudit.curation.filters import CURATION, Filters, parse_date
from litaudit.curation.plan import plan_import
from litaudit.curation.rows import Row
from litaudit.errors import LitauditError, Problem, ValidationFailed
from litaudit.measures import did_you_mean
from litaudit.store import history as history_store
from litaudit.store import results as result_store
from litaudit.store import results_write
from litaudit.store.collections import resolve_collection
from litaudit.store.measures import resolve_measure, value_range
from litaudit.store.results import ResultRecord

if TYPE_CHECKING:
    import duckdb

# the columns and sort keys of `results list` (the SQL lives with the table's owner)
LIST_COLUMNS = result_store.LIST_COLUMNS
SORT_KEYS = result_store.SORT_KEYS


def query_results(
    con: duckdb.DuckDBPyConnection,
    f: Filters = CURATION,
    *,
    collection: str | None = None,
    measure: str | None = None,
    limit: int | None = None,
) -> list[ResultRecord]:
    """Results passing ``f`` (a collection and a measure given by any name are resolved
    first), ordered by collection, measure, year, id."""
    if collection or measure or f.paper:
        f = f.resolved(con, collection, measure)
    return result_store.query(con, f, limit=limit)


def list_table(
    con: duckdb.DuckDBPyConnection,
    f: Filters = CURATION,
    *,
    collection: str | None = None,
    measure: str | None = None,
    sort: str | None = None,
    desc: bool = False,
    limit: int | None = None,
) -> tuple[list[tuple], int]:
    """The rows of ``results list`` (:data:`LIST_COLUMNS`, sorted by ``sort``: a key of
    :data:`SORT_KEYS`, default collection; ties by id) and how many pass ``f`` in all."""
    if collection or measure or f.paper:
        f = f.resolved(con, collection, measure)
    return result_store.list_table(con, f, sort=sort, desc=desc, limit=limit)


def list_json(
    con: duckdb.DuckDBPyConnection,
    f: Filters = CURATION,
    *,
    collection: str | None = None,
    measure: str | None = None,
    sort: str | None = None,
    desc: bool = False,
    limit: int | None = None,
    chunk: int = 4096,
) -> Iterator[str]:
    """``results list --json`` in pieces to write one after the other: the rows of
    :func:`query_results` (every field, keys sorted) as a JSON array, one object a line,
    each object written by DuckDB (31k rows: a third of the time of Python's json)."""
    if collection or measure or f.paper:
        f = f.resolved(con, collection, measure)
    return result_store.list_json(con, f, sort=sort, desc=desc, limit=limit, chunk=chunk)


def get_result(con: duckdb.DuckDBPyConnection, result_id: int) -> ResultRecord:
    """One result with its paper and collection (typed)."""
    return result_store.get(con, result_id)


def add_result(store, data: dict, *, who: str) -> int:
    """Add one result (fields as in the import format); the same validation as import."""

    data = {"transcribed_by": who, "transcribed_at": dt.date.today().isoformat(), **data}
    try:
        plan = plan_import(store.con, [Row(1, data)], "")
    except ValidationFailed as exc:  # command-line values: named by their option
        raise ValidationFailed(
            [
                Problem("", None, p.message, p.field and "--" + p.field.replace("_", "-"))
                for p in exc.problems
            ]
        ) from None
    if plan.existing and not plan.results:  # stored exactly so already: nothing to add
        raise LitauditError(
            f"result #{plan.existing[0][1]} is already stored with these values; nothing was added"
        )
    report = apply_plan(store, plan, who=who, reason="added with `results add`", action="create")
    return report.result_ids[0]


# fields that `results edit` may change, with their parsers
def _parse_for_edit(con: duckdb.DuckDBPyConnection, fld: str, text: str):

    why = fields.check_text(text)
    if why:
        raise fields.FieldError(why)
    if fld == "value":
        return fields.parse_value(text)
    parsers = {
        **fields.FIELD_PARSERS,  # the same rules as an import's
        "collection": lambda s: resolve_collection(con, s).id,
        "measure": lambda s: resolve_measure(con, s),
        "standard": fields.parse_bool,
        "system": lambda s: _nonblank(s, "system"),
        "transcribed_by": lambda s: _nonblank(s, "transcribed_by"),
        "date": lambda s: None if fields.blank(s) else fields.parse_date(s).isoformat(),
    }
    if fld not in parsers:
        raise LitauditError(
            f"field {fld!r} cannot be edited{did_you_mean(fld, list(parsers) + ['value'])}"
            " (status changes go through verify/retract)"
        )
    return parsers[fld](text)


def _nonblank(s: str, what: str) -> str:
    if fields.blank(s):
        raise fields.FieldError(f"{what} cannot be empty")
    return s.strip()


_COLUMN = {"collection": "collection_id"}
# the statuses a curator sets (a retracted result made a draft again: reinstated), and
# the action each is recorded as in the history
STATUS_ACTIONS = {"verified": "verify", "retracted": "retract", "draft": "reinstate"}
# what a result is a value of: changing one makes it another result (retract and add)
IDENTITY = ("collection", "measure", "system", "topic_set", "n_topics")


def _identity_refused(result_id: int, fld: str) -> LitauditError:
    return LitauditError(
        f"--set {fld}: {fld} is part of what result #{result_id} is a value of, so an edit "
        f"would make it another result; retract it with `litaudit results retract "
        f"{result_id} --reason TEXT` and add the right one with `litaudit results add` "
        "(or a results file with `litaudit results import`)"
    )


def edit_result(
    store, result_id: int, changes: dict[str, str], *, reason: str, who: str
) -> list[tuple]:
    """Apply field changes to one result; each goes to history. Returns (field, old, new)."""
    check_edit(changes, reason)
    con = store.con
    current = get_result(con, result_id)
    updates, log = _edits(con, result_id, current, changes)
    if not updates:
        return []
    if current.status == "verified":
        # the verification was of the old values: an edited result is a draft again
        updates["status"] = "draft"
        log.append(("status", "verified", "draft"))
    now = history_store.now()
    with store.transaction():
        results_write.update(con, result_id, updates, at=now)
        for fld, old, new in log:
            history_store.record(
                con,
                ("result", result_id),
                "edit",
                field=fld,
                old=old,
                new=new,
                reason=reason,
                who=who,
                at=now,
            )
    return log


def check_edit(changes, reason: str | None) -> None:
    """What an edit needs before any result is read: a reason (no control character)
    and a change."""
    if fields.blank(reason):
        raise LitauditError("an edit needs a reason (--reason)")
    if not changes:
        raise LitauditError("nothing to change: give --set FIELD=VALUE")
    why = fields.check_text(reason)
    if why:
        raise LitauditError(f"--reason: {why}")


def _edits(
    con: duckdb.DuckDBPyConnection, result_id: int, current, changes: dict[str, str]
) -> tuple[dict, list[tuple]]:
    """(the columns to write, the (field, old, new) to record) of ``changes`` to the
    result ``current``; a field that cannot change, or a bad value, is an error."""
    updates: dict[str, object] = {}
    log: list[tuple] = []
    for fld in changes:
        if fld in IDENTITY:
            raise _identity_refused(result_id, fld)
    for fld, text in changes.items():
        try:
            new = _parse_for_edit(con, fld, text)
        except fields.FieldError as e:
            raise LitauditError(f"--set {fld}: {e}") from None
        if fld == "value":
            value, value_text = new
            lo, hi = value_range(con, current.measure) or (0.0, 1.0)
            if not lo <= value <= hi:
                raise LitauditError(
                    f"--set value: {value_text} is outside the range of "
                    f"{current.measure} [{lo:g}, {hi:g}]"
                )
            if value_text != current.value_text:
                updates["value"], updates["value_text"] = value, value_text
                log.append(("value", current.value_text, value_text))
            continue
        col = _COLUMN.get(fld, fld)
        old = getattr(current, col)
        if old != new:
            updates[col] = new
            log.append((fld, history_store.text(old), history_store.text(new)))
    return updates, log


def set_status(store, result_id: int, status: str, *, reason: str | None, who: str) -> bool:
    """verify / retract / reinstate (``status`` "draft": a retracted result made a draft
    again, with a reason). Returns False when the result already had that status.

    A retracted result is not verified: it is reinstated first, explicitly."""
    check_status_reason(status, reason)
    con = store.con
    current = get_result(con, result_id)
    if status == "draft" and current.status != "retracted":
        raise LitauditError(
            f"result #{result_id} is {current.status}, not retracted: nothing to reinstate"
        )
    if status == "verified" and current.status == "retracted":
        raise LitauditError(
            f"result #{result_id} is retracted; reinstate it first with "
            f"`litaudit results reinstate {result_id} --reason TEXT`, then verify it"
        )
    if current.status == status:
        return False
    now = history_store.now()
    action = STATUS_ACTIONS[status]
    with store.transaction():
        results_write.update(con, result_id, {"status": status}, at=now)
        history_store.record(
            con,
            ("result", result_id),
            action,
            field="status",
            old=current.status,
            new=status,
            reason=reason,
            who=who,
            at=now,
        )
    return True


def check_status_reason(status: str, reason: str | None) -> None:
    """The reason a change to ``status`` needs (retracting and reinstating: one; none
    with a control character)."""
    if status not in STATUS_ACTIONS:
        raise LitauditError(f"{status!r} is not one of {', '.join(STATUS_ACTIONS)}")
    if status in ("retracted", "draft") and fields.blank(reason):
        verb = "retracting" if status == "retracted" else "reinstating"
        raise LitauditError(f"{verb} needs a reason (--reason)")
    why = fields.check_text(reason)
    if why:
        raise LitauditError(f"--reason: {why}")


def history(
    con: duckdb.DuckDBPyConnection, entity: str, entity_id: int
) -> list[history_store.Entry]:
    """The history of one result or paper, oldest first (typed entries)."""
    return history_store.entries(con, entity, entity_id)


def history_window(
    con: duckdb.DuckDBPyConnection,
    *,
    collection: str | None = None,
    since: str | None = None,
    until: str | None = None,
) -> list[history_store.WindowEntry]:
    """Every change to the results of ``collection`` (any name; default every collection)
    made from ``since`` to ``until`` (YYYY, YYYY-MM or YYYY-MM-DD, inclusive; the day a
    change was made, UTC), oldest first, each with its result's id, collection, measure
    and system."""

    lo = parse_date(since, "--since", end=False)
    hi = parse_date(until, "--until", end=True)
    if lo and hi and lo > hi:
        raise LitauditError(f"--since {since} is after --until {until}")
    cid = resolve_collection(con, collection).id if collection else None
    return history_store.window(con, collection_id=cid, since=lo, until=hi)
