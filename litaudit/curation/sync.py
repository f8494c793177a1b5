"""`litaudit sync DIR` and `check DIR`: a database brought to exactly a store folder
(:mod:`litaudit.curation.tree`), in one transaction, with the validation of an import.

Papers and results the folder has are added or updated; a result the database has and
the folder does not is retracted. The history a file gives is copied (entries the
database lacks, by content); a change the file's history does not explain (a file edited
by hand) is recorded as made by the syncing curator with the reason ``synced from
FILE``. A second sync of the same folder changes nothing. A stored result's update, the
retractions and the history written are in :mod:`litaudit.curation.sync_update`.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import re
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from litaudit.curation.apply import apply_plan
from litaudit.curation.bundle import read_papers
from litaudit.curation.fields import PAPER_KEYS
from litaudit.curation.plan import UPDATABLE, plan_import
from litaudit.curation.rows import Row
from litaudit.curation.sync_update import (
    Change,
    ResultUpdate,
    SyncHistory,
    explained,
    file_time,
    retract_absent,
    update_result,
)
from litaudit.curation.tree_file import TreeFile
from litaudit.curation.tree_read import TreeRead, read_tree
from litaudit.errors import LitauditError, Problem, ValidationFailed
from litaudit.store import history as history_store
from litaudit.store import papers as paper_store
from litaudit.store import results as result_store
from litaudit.store import results_write
from litaudit.store.collections import NewCollection, add_collection, collection_details
from litaudit.store.db import open_store
from litaudit.store.refdata import load_reference_data

if TYPE_CHECKING:
    import duckdb

    from litaudit.curation.tree_manifest import Manifest


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
    # results of the database the folder does not hold: kept (named), or retracted
    # with --prune
    not_in_folder: tuple[int, ...] = ()
    # results (and papers) changed in the database since they were last in the folder, kept as they
    # are (the folder's version not taken) unless --prune: "#id (file:line): fields"
    local_changes: tuple[str, ...] = ()
    changes: tuple[Change, ...] = ()
    collections_added: tuple[str, ...] = ()


def sync_tree(
    store,
    folder: Path,
    *,
    who: str,
    dry_run: bool = False,
    prune: bool = False,
    read: TreeRead | None = None,
    refdata: bool = True,
) -> SyncReport:
    """Bring the database to ``folder`` in one transaction (``dry_run``: check and list
    the changes, then roll back). Every problem of every file is raised together
    (ValidationFailed). Work of the database the folder does not have (a result not in
    it, a result changed since) is kept and named, unless ``prune``: then the folder
    wins (results it does not hold are retracted). ``read``: the folder as
    :func:`~litaudit.curation.tree_read.read_tree` read it already (else it is read);
    ``refdata``: the reference data loaded first (False: the store holds it already)."""
    files, problems, manifest = read if read is not None else read_tree(folder)
    if not files and not problems:  # a wrong folder would otherwise name every result
        raise LitauditError(
            f"{folder}: no store files here (papers/*.jsonl, official/**/*.jsonl); "
            "nothing to sync (write one with `litaudit export-tree`)"
        )
    if problems or manifest is None:
        raise ValidationFailed(problems)

    class _Rollback(Exception):
        pass

    done: list[SyncReport] = []
    try:
        with store.transaction():
            if refdata:  # a new database: the collections and measures rows name
                load_reference_data(store.con)
            done.append(_sync(store, Path(folder), files, manifest, who, prune))
            if dry_run:
                raise _Rollback
    except _Rollback:
        return dataclasses.replace(done[0], dry_run=True)
    return done[0]


def check_tree(folder: Path, read: TreeRead | None = None, reference=None) -> list[Problem]:
    """Every problem of a folder, checked as `sync` checks it, against a database holding
    only the reference data (collections, topic sets, measures) and the collections the
    folder carries. ``read``: the folder as :func:`read_tree` read it (else it is read);
    ``reference``: an open store holding only the reference data, left so (the check is
    a dry run), else one is made."""

    if read is None:
        read = read_tree(folder)
    if read[1]:
        return read[1]
    if reference is None:
        with open_store(":memory:") as store:
            load_reference_data(store.con)
            return check_tree(folder, read, store)
    try:
        sync_tree(reference, folder, who="check", dry_run=True, read=read, refdata=False)
    except ValidationFailed as exc:
        return exc.problems
    return []


def _sync(
    store, folder: Path, files: list[TreeFile], manifest: Manifest, who: str, prune: bool
) -> SyncReport:
    con = store.con
    colls = _add_collections(con, manifest, str(folder / "litaudit-store.jsonl"), who)
    now = dt.datetime.now(dt.UTC).replace(tzinfo=None)
    hist = SyncHistory(con)
    changes: list[Change] = []
    local: list[str] = []
    p_added, p_updated = _sync_papers(con, files, hist, who, now, changes, None if prune else local)
    rows, where = _all_rows(files)
    given = (*manifest.result_keys, "source", "paper", "track")
    try:
        plan = plan_import(con, rows, "", on_existing="update", columns=given)
    except ValidationFailed as exc:
        raise ValidationFailed([_locate(p, where) for p in exc.problems]) from None
    added, new_ids = _add_results(store, plan, where, hist, who, now)
    changes += [Change(_at(*where[r.line]), "(new result)", None, None) for r in plan.results]
    stored = _stored_values(con)
    updated = 0
    kept = set(new_ids)
    fields = tuple(c for c in UPDATABLE if ("value" if c == "value_text" else c) in given)
    for r in plan.updates:
        tf, line = where[r.line]
        rid = int(r.existing_id or 0)  # plan_import names the stored row of an update
        kept.add(rid)
        mine = hist.local(rid, tf.history.get(line, []))
        if mine and not prune:
            local.append(f"#{rid} ({_at(tf, line)}): {', '.join(mine)}")
            continue
        before = len(changes)
        up = ResultUpdate(rid, tf, line, who, now)
        updated += update_result(con, r, up, stored[rid], fields, hist, changes)
        changes[before:] = [
            Change(f"#{rid} ({_at(tf, line)})", c.field, c.old, c.new) for c in changes[before:]
        ]
    _take_uids(con, plan, where, new_ids, changes)
    absent = [rid for rid, _ in result_store.not_retracted(con) if rid not in kept]
    retracted = retract_absent(con, absent, folder, hist, who, now) if prune else 0
    if prune:
        changes += [Change(f"#{rid}", "status", None, "retracted") for rid in absent]
    hist.flush()
    return SyncReport(
        str(folder),
        len(files),
        added,
        updated,
        retracted,
        len(plan.updates) - updated - sum(not x.startswith("paper ") for x in local),
        p_added,
        p_updated,
        hist.copied,
        not_in_folder=() if prune else tuple(sorted(absent)),
        local_changes=tuple(local),
        changes=tuple(changes),
        collections_added=tuple(colls),
    )


def _take_uids(
    con: duckdb.DuckDBPyConnection, plan, where, new_ids: list[int], changes: list[Change]
) -> None:
    """The results take the uids their lines give (the identity every clone shares): a
    new result, and a stored one whose uid differs (made apart, or before uids)."""
    have = result_store.uids(con)
    taken: dict[int, str] = {}
    new = set(new_ids)
    pairs = [(r, rid) for r, rid in zip(plan.results, new_ids, strict=True)]
    pairs += [(r, int(r.existing_id or 0)) for r in plan.updates]
    for r, rid in pairs:
        tf, line = where[r.line]
        uid = tf.uids.get(line)
        if uid is not None and have.get(rid) != uid:
            taken[rid] = uid
            if rid not in new:
                changes.append(Change(f"#{rid} ({_at(tf, line)})", "uid", have.get(rid), uid))
    clash = set(taken.values()) & {u for i, u in have.items() if i not in taken}
    if clash:
        raise LitauditError(
            f"uid {sorted(clash)[0]} names another result of this database; the folder and "
            "the database disagree on which result it is"
        )
    results_write.set_uids(con, taken)


def _at(tf: TreeFile, line: int) -> str:
    return f"{tf.path}:{line}"


def _add_collections(
    con: duckdb.DuckDBPyConnection, manifest: Manifest, name: str, who: str
) -> list[str]:
    """The collections the folder carries (its manifest ``name``) that the database lacks,
    added (a collection of the same id with another query count is a problem): their ids."""
    added = []
    problems = []
    for c in manifest.collections:
        try:
            have = collection_details(con, c["id"])
        except LitauditError:
            have = None
        if have is not None:
            n = have.default_topics
            if n is not None and n != c["n_topics"]:
                problems.append(
                    Problem(
                        name,
                        None,
                        f"collection {c['id']!r}: {c['n_topics']} topics in the folder, "
                        f"{n} in the database",
                    )
                )
            continue
        try:
            add_collection(
                con,
                NewCollection(
                    id=c["id"],
                    n_topics=c["n_topics"],
                    title=c.get("title"),
                    name=c.get("name"),
                    documents=c.get("documents"),
                    aliases=tuple(c.get("aliases") or ()),
                    ir_datasets=bool(c.get("ir_datasets")),
                    provenance=c.get("provenance"),
                ),
                who=who,
            )
        except LitauditError as exc:
            problems.append(Problem(name, None, f"collection {c['id']!r}: {exc}"))
            continue
        added.append(c["id"])
    if problems:
        raise ValidationFailed(problems)
    return added


def _stored_values(con: duckdb.DuckDBPyConnection) -> dict[int, dict]:
    """id -> the updatable fields of every stored result (one query)."""
    return {
        rid: dict(zip(UPDATABLE, rest, strict=True))
        for rid, rest in result_store.values(con, UPDATABLE).items()
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


def _sync_papers(
    con: duckdb.DuckDBPyConnection,
    files: list[TreeFile],
    hist: SyncHistory,
    who: str,
    now,
    changes: list[Change],
    local: list[str] | None,
) -> tuple[int, int]:
    """Add or update the folder's papers (before the results that name them): (added,
    updated). A paper changed here since its export is named in ``local`` and kept
    (``local`` None: --prune, the folder's version is taken)."""

    problems: list[Problem] = []
    existing = paper_store.by_bibkey(con, PAPER_KEYS[1:-1])
    added = updated = 0
    new: list[tuple[dict, TreeFile]] = []  # inserted in one statement after the loop
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
            new.append((vals, tf))
            changes.append(Change(f"paper {vals['bibkey']}", "(new paper)", None, None))
            added += 1
            continue
        changed = {k: vals[k] for k in PAPER_KEYS[1:-1] if vals[k] != old[k]}
        mine = hist.local(old["id"], tf.paper_history, "paper")
        if changed and mine and local is not None:
            local.append(f"paper {vals['bibkey']} ({tf.path}:1): {', '.join(mine)}")
            continue
        hist.copy("paper", old["id"], tf.paper_history)
        paper_store.update(con, old["id"], changed)
        for k, v in changed.items():
            changes.append(
                Change(
                    f"paper {vals['bibkey']}", k, history_store.text(old[k]), history_store.text(v)
                )
            )
            if not explained(tf.paper_history, k, v):
                reason = f"synced from {tf.path}"
                hist.record("paper", old["id"], "edit", k, old[k], v, reason, who, now)
        updated += bool(changed)
    if problems:
        raise ValidationFailed(problems)
    ids = paper_store.insert_many(con, [vals for vals, _ in new], at=now)
    for pid, (_, tf) in zip(ids, new, strict=True):
        hist.copy("paper", pid, tf.paper_history)
    return added, updated


def _add_results(store, plan, where, hist: SyncHistory, who: str, now) -> tuple[int, list[int]]:
    """Insert the plan's new results with their times and the history their lines give
    (a result with none gets a "create" entry): (added, their ids)."""

    times = {}
    for r in plan.results:
        tf, line = where[r.line]
        c = file_time(tf, line, 0)
        u = file_time(tf, line, 1)
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
