"""`litaudit sync DIR` and `check DIR`: a database brought to exactly a store folder
(:mod:`litaudit.curation.tree`), in one transaction, with the validation of an import.

Papers and results the folder has are added or updated; a result the database has and
the folder does not is retracted. The history a file gives is copied (entries the
database lacks, by content); a change the file's history does not explain (a file edited
by hand) is recorded as made by the syncing curator with the reason ``synced from
FILE``. A second sync of the same folder changes nothing.
"""

from __future__ import annotations

import datetime as dt
import re
from dataclasses import dataclass
from pathlib import Path

from litaudit.curation import fields as F
from litaudit.curation.plan import UPDATABLE, PreparedResult, plan_import
from litaudit.curation.rows import Row
from litaudit.curation.tree import PAPER_KEYS, TreeFile, read_tree
from litaudit.errors import LitauditError, Problem, ValidationFailed
from litaudit.store import history as H
from litaudit.store import papers as P
from litaudit.store import results as R

_STATUS_ACTION = {"verified": "verify", "retracted": "retract", "draft": "reinstate"}


@dataclass(frozen=True)
class SyncReport:
    folder: str
    files: int
    added: int
    updated: int
    retracted: int
    unchanged: int
    papers_added: int
    papers_updated: int
    history: int  # history entries copied from the folder
    dry_run: bool = False


def sync_tree(store, folder: Path, *, who: str, dry_run: bool = False) -> SyncReport:
    """Bring the database to ``folder`` in one transaction (``dry_run``: check and count,
    then roll back). Every problem of every file is raised together (ValidationFailed)."""
    files, problems = read_tree(folder)
    if problems:
        raise ValidationFailed(problems)
    if not files:  # a wrong folder would otherwise retract every result
        raise LitauditError(
            f"{folder}: no store files here (papers/*.jsonl, official/**/*.jsonl); "
            "nothing to sync (write one with `litaudit export-tree`)"
        )

    class _Rollback(Exception):
        pass

    done: list[SyncReport] = []
    try:
        with store.transaction():
            done.append(_sync(store, Path(folder), files, who))
            if dry_run:
                raise _Rollback
    except _Rollback:
        import dataclasses

        return dataclasses.replace(done[0], dry_run=True)
    return done[0]


def check_tree(folder: Path) -> list[Problem]:
    """Every problem of a folder, checked as `sync` checks it, against a database holding
    only the reference data (collections, topic sets, measures)."""
    from litaudit.store.db import open_store
    from litaudit.store.refdata import load_reference_data

    files, problems = read_tree(folder)
    if problems:
        return problems
    with open_store(":memory:") as store:
        load_reference_data(store.con)
        try:
            sync_tree(store, folder, who="check", dry_run=True)
        except ValidationFailed as exc:
            return exc.problems
    return []


def _sync(store, folder: Path, files: list[TreeFile], who: str) -> SyncReport:
    from litaudit.store.refdata import load_reference_data

    con = store.con
    load_reference_data(con)  # a new database: the collections and measures rows name
    now = dt.datetime.now(dt.UTC).replace(tzinfo=None)
    hist = _History(con)
    p_added, p_updated = _sync_papers(con, files, hist, who, now)
    rows, where = _all_rows(files)
    try:
        plan = plan_import(con, rows, "", on_existing="update", columns=None)
    except ValidationFailed as exc:
        raise ValidationFailed([_locate(p, where) for p in exc.problems]) from None
    added, new_ids = _add_results(store, plan, where, hist, who, now)
    stored = _stored_values(con)
    updated = 0
    kept = set(new_ids)
    for r in plan.updates:
        tf, line = where[r.line]
        rid = int(r.existing_id or 0)  # plan_import names the stored row of an update
        kept.add(rid)
        updated += _update_result(con, r, rid, stored[rid], tf, line, hist, who, now)
    retracted = _retract_absent(con, kept, folder, hist, who, now)
    hist.flush()
    return SyncReport(
        str(folder),
        len(files),
        added,
        updated,
        retracted,
        len(plan.updates) - updated,
        p_added,
        p_updated,
        hist.copied,
    )


def _stored_values(con) -> dict[int, dict]:
    """id -> the updatable fields of every stored result (one query)."""
    return {
        rid: dict(zip(UPDATABLE, rest, strict=True))
        for rid, rest in R.values(con, UPDATABLE).items()
    }


def _all_rows(files: list[TreeFile]) -> tuple[list[Row], dict[int, tuple[TreeFile, int]]]:
    """Every result row of the folder, numbered across files (one plan checks them all,
    duplicates between files included): the rows and number -> (file, its line)."""
    rows, where = [], {}
    n = 0
    for tf in files:
        for r in tf.rows:
            n += 1
            rows.append(Row(n, r.data))
            where[n] = (tf, r.line)
    return rows, where


_LINE_REF = re.compile(r"\b(lines?) ([\d, ]+\d)")


def _locate(p: Problem, where: dict[int, tuple[TreeFile, int]]) -> Problem:
    """A problem of the combined plan named by its file and line (and the lines it
    mentions by theirs)."""

    def name(n: int) -> str:
        tf, line = where[n]
        return f"{tf.path}:{line}"

    msg = _LINE_REF.sub(
        lambda m: (
            f"{m.group(1)} "
            + ", ".join(name(int(x)) if int(x) in where else x for x in m.group(2).split(", "))
        ),
        p.message,
    )
    if p.line is None or p.line not in where:
        return Problem(p.file, p.line, msg, p.field)
    tf, line = where[p.line]
    return Problem(tf.path, line, msg, p.field)


def _sync_papers(con, files: list[TreeFile], hist: _History, who: str, now) -> tuple[int, int]:
    """Add or update the folder's papers (before the results that name them): (added,
    updated)."""
    from litaudit.curation.bundle import read_papers

    problems: list[Problem] = []
    existing = P.by_bibkey(con, PAPER_KEYS[1:-1])
    added = updated = 0
    for tf in files:
        if tf.paper is None:
            continue
        n0 = len(problems)
        got = read_papers({"papers": [tf.paper]}, tf.path, problems)
        if len(problems) > n0 or not got:
            problems[n0:] = [Problem(tf.path, 1, p.message, p.field) for p in problems[n0:]]
            continue
        vals = got[0]
        old = existing.get(vals["bibkey"])
        if old is None:
            (pid,) = P.insert_many(con, [vals], at=now)
            added += 1
            hist.copy("paper", pid, tf.paper_history)
            continue
        changed = {k: vals[k] for k in PAPER_KEYS[1:-1] if vals[k] != old[k]}
        hist.copy("paper", old["id"], tf.paper_history)
        P.update(con, old["id"], changed)
        for k, v in changed.items():
            if not _explained(tf.paper_history, k, v):
                reason = f"synced from {tf.path}"
                hist.record("paper", old["id"], "edit", k, old[k], v, reason, who, now)
        updated += bool(changed)
    if problems:
        raise ValidationFailed(problems)
    return added, updated


def _add_results(store, plan, where, hist: _History, who: str, now) -> tuple[int, list[int]]:
    """Insert the plan's new results with their times and the history their lines give
    (a result with none gets a "create" entry): (added, their ids)."""
    from litaudit.curation.apply import apply_plan

    times = {}
    for r in plan.results:
        tf, line = where[r.line]
        c = _file_time(tf, line, 0)
        u = _file_time(tf, line, 1)
        if c is not None or u is not None:
            times[r.line] = (c or now, u or c or now)
    updates, plan.updates = plan.updates, []
    report = apply_plan(store, plan, who=who, record=False, times=times)
    plan.updates = updates
    for r, rid in zip(plan.results, report.result_ids, strict=True):
        tf, line = where[r.line]
        entries = tf.history.get(line, [])
        if entries:
            hist.copy("result", rid, entries)
        else:
            hist.record(
                "result", rid, "create", None, None, None, f"synced from {tf.path}", who, now
            )
    return report.added_results, list(report.result_ids)


def _update_result(
    con,
    r: PreparedResult,
    rid: int,
    old: dict,
    tf: TreeFile,
    line: int,
    hist: _History,
    who: str,
    now,
) -> bool:
    """Write the fields of a stored result that its line changes, copy the history the
    line gives that the database lacks, and record a change the history does not
    explain: whether a field changed."""
    entries = tf.history.get(line, [])
    hist.copy("result", rid, entries)
    changes = {c: r.values[c] for c in UPDATABLE if old[c] != r.values[c]}
    if not changes:
        return False
    if "value_text" in changes:
        changes["value"] = r.values["value"]
    R.update(con, rid, changes, at=_file_time(tf, line, 1) or now)
    for c in UPDATABLE:
        if c not in changes:
            continue
        fld = "value" if c == "value_text" else c
        new = H.text(changes[c])
        if _explained(entries, fld, new):
            continue
        action = _STATUS_ACTION.get(changes[c], "edit") if c == "status" else "edit"
        reason = f"synced from {tf.path}"
        hist.record("result", rid, action, fld, old[c], new, reason, who, now)
    return True


def _file_time(tf: TreeFile, line: int, i: int):
    """A result line's created_at (``i`` 0) or updated_at (1), if it gives one."""
    t = tf.times.get(line)
    if t is None or t[i] is None:
        return None
    try:
        return F.parse_timestamp(t[i], "created_at" if i == 0 else "updated_at")
    except F.FieldError as e:
        raise ValidationFailed([Problem(tf.path, line, str(e))]) from None


def _retract_absent(con, kept: set[int], folder: Path, hist: _History, who: str, now) -> int:
    """Retract the results the folder does not hold (retracted ones stay so)."""
    gone = [(rid, status) for rid, status in R.not_retracted(con) if rid not in kept]
    R.set_many(con, "status", [rid for rid, _ in gone], "retracted", at=now)
    reason = f"not in {folder} (synced)"
    for rid, status in gone:
        hist.record("result", rid, "retract", "status", status, "retracted", reason, who, now)
    return len(gone)


_KEY = ("action", "field", "old_value", "new_value", "reason", "who", "changed_at")


class _History:
    """The history a sync writes: entries the database has (read once, by content),
    and those to insert, in order, with one statement at the end."""

    def __init__(self, con):
        self.con = con
        self.have: dict[tuple[str, int], set[tuple]] = {}
        for _, entity, eid, *key in H.every(con):
            self.have.setdefault((entity, eid), set()).add(tuple(key))
        self.pending: list[tuple] = []
        self.copied = 0

    def copy(self, entity: str, eid: int, entries: list[dict]) -> None:
        """The file's entries for this entity that the database lacks, in their order."""
        have = self.have.setdefault((entity, eid), set())
        for h in entries:
            key = tuple(h.get(k) for k in _KEY)
            if key in have:
                continue
            have.add(key)
            at = F.parse_timestamp(key[-1], "changed_at")
            self.pending.append((entity, eid, *key[:-1], at))
            self.copied += 1

    def record(self, entity, eid, action, fld, old, new, reason, who, at) -> None:
        self.pending.append((entity, eid, action, fld, H.text(old), H.text(new), reason, who, at))

    def flush(self) -> None:
        H.record_rows(self.con, self.pending)
        self.pending = []


def _explained(entries: list[dict], fld: str, new) -> bool:
    """The file's history has an entry that set ``fld`` to ``new``."""
    return any(h.get("field") == fld and h.get("new_value") == H.text(new) for h in entries)
