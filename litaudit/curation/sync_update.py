"""What `litaudit sync` (:mod:`litaudit.curation.sync`) does to a stored result and writes
of it: a result updated to its file (each change recorded, explained by the file's
history or as made by the syncing curator), the results the folder does not hold
retracted, and :class:`SyncHistory`, the history a sync writes in one statement.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from litaudit.curation import fields as field_parsers
from litaudit.curation.plan import PreparedResult
from litaudit.curation.tree_file import TreeFile
from litaudit.curation.tree_history import is_tool_name
from litaudit.errors import Problem, ValidationFailed
from litaudit.store import history as history_store
from litaudit.store import results as result_store
from litaudit.store import results_write

if TYPE_CHECKING:
    import duckdb


@dataclass(frozen=True)
class Change:
    """One change a sync makes (listed by ``--dry-run``): a result (its file and line,
    and its local number when stored) or a paper, the field, old and new text."""

    what: str
    field: str
    old: str | None
    new: str | None


STATUS_ACTION = {"verified": "verify", "retracted": "retract", "draft": "reinstate"}


@dataclass(frozen=True)
class ResultUpdate:
    """A stored result and the line of the folder that updates it, by whom, when."""

    rid: int
    tf: TreeFile
    line: int
    who: str
    now: dt.datetime


def update_result(
    con: duckdb.DuckDBPyConnection,
    r: PreparedResult,
    up: ResultUpdate,
    old: dict,
    fields: tuple[str, ...],
    hist: SyncHistory,
    listed: list[Change],
) -> bool:
    """Write the ``fields`` of a stored result that its line changes (a field the
    folder's format does not give is kept), copy the history the line gives that the
    database lacks, and record a change the history does not explain: whether a field
    changed."""
    tf, line, rid = up.tf, up.line, up.rid
    entries = tf.history.get(line, [])
    hist.copy("result", rid, entries)
    changes = {c: r.values[c] for c in fields if old[c] != r.values[c]}
    if not changes:
        return False
    for c, v in changes.items():
        listed.append(
            Change(
                "",
                "value" if c == "value_text" else c,
                history_store.text(old[c]),
                history_store.text(v),
            )
        )
    if "value_text" in changes:
        changes["value"] = r.values["value"]
    results_write.update(con, rid, changes, at=file_time(tf, line, 1) or up.now)
    for c in fields:
        if c not in changes:
            continue
        fld = "value" if c == "value_text" else c
        new = history_store.text(changes[c])
        if explained(entries, fld, new):
            continue
        action = STATUS_ACTION.get(changes[c], "edit") if c == "status" else "edit"
        reason = f"synced from {tf.path}"
        hist.record("result", rid, action, fld, old[c], new, reason, up.who, up.now)
    return True


def file_time(tf: TreeFile, line: int, i: int):
    """A result line's created_at (``i`` 0) or updated_at (1), if it gives one."""
    t = tf.times.get(line)
    if t is None or t[i] is None:
        return None
    try:
        return field_parsers.parse_timestamp(t[i], "created_at" if i == 0 else "updated_at")
    except field_parsers.FieldError as e:
        raise ValidationFailed([Problem(tf.path, line, str(e))]) from None


def retract_absent(
    con: duckdb.DuckDBPyConnection,
    absent: list[int],
    folder: Path,
    hist: SyncHistory,
    who: str,
    now,
) -> int:
    """Retract the results the folder does not hold (retracted ones stay so)."""
    ids = set(absent)
    gone = [(rid, status) for rid, status in result_store.not_retracted(con) if rid in ids]
    results_write.set_many(con, "status", [rid for rid, _ in gone], "retracted", at=now)
    reason = f"not in {folder} (synced)"
    for rid, status in gone:
        hist.record("result", rid, "retract", "status", status, "retracted", reason, who, now)
    return len(gone)


HISTORY_KEY = ("action", "field", "old_value", "new_value", "reason", "who", "changed_at")


class SyncHistory:
    """The history a sync writes: entries the database has (read once, by content),
    and those to insert, in order, with one statement at the end."""

    def __init__(self, con: duckdb.DuckDBPyConnection):
        self.con = con
        self.have: dict[tuple[str, int], set[tuple]] = {}
        for _, entity, eid, *key in history_store.every(con):
            self.have.setdefault((entity, eid), set()).add(tuple(key))
        self.pending: list[tuple] = []
        self.copied = 0

    def copy(self, entity: str, eid: int, entries: list[dict]) -> None:
        """The file's entries for this entity that the database lacks, in their order."""
        have = self.have.setdefault((entity, eid), set())
        for h in entries:
            key = tuple(h.get(k) for k in HISTORY_KEY)
            if key in have:
                continue
            have.add(key)
            at = field_parsers.parse_timestamp(key[-1], "changed_at")
            self.pending.append((entity, eid, *key[:-1], at))
            self.copied += 1

    def local(self, eid: int, entries: list[dict], entity: str = "result") -> list[str]:
        """The fields changed by entries of the database for result (or paper) ``eid``
        that the folder lacks (work not exported yet), a sync's own entries left out."""
        theirs = {tuple(h.get(k) for k in HISTORY_KEY) for h in entries}
        return sorted(
            {
                str(key[1] or key[0])
                for key in self.have.get((entity, eid), ())
                if key not in theirs
                and key[0] not in ("import", "create")
                and not str(key[4] or "").startswith(("synced from ", "not in "))
            }
        )

    def record(self, entity, eid, action, fld, old, new, reason, who, at) -> None:
        self.pending.append(
            (
                entity,
                eid,
                action,
                fld,
                history_store.text(old),
                history_store.text(new),
                reason,
                who,
                at,
            )
        )

    def flush(self) -> None:
        history_store.record_rows(self.con, self.pending)
        self.pending = []


def explained(entries: list[dict], fld: str, new) -> bool:
    """The file's history has an entry by a curator that set ``fld`` to ``new`` (an
    entry under litaudit's own name explains nothing: the change is recorded as the
    syncing curator's, so that `init` never takes it for its own)."""
    return any(
        h.get("field") == fld
        and h.get("new_value") == history_store.text(new)
        and not is_tool_name(h["who"])
        for h in entries
    )
