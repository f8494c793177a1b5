"""Results import: read CSV / JSON / Parquet, validate the whole file
(:mod:`litaudit.curation.plan`), then write all or nothing.

Every problem in a file is collected (with its line) before anything is written; a file
with any problem raises :class:`~litaudit.errors.ValidationFailed` and changes nothing.
Papers named by a new bibkey are created from the row's ``paper_*`` columns.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from pathlib import Path

from litaudit.curation import fields as F
from litaudit.curation.plan import (
    ON_EXISTING,
    UPDATABLE,
    ImportPlan,
    ImportProgress,
    PreparedResult,
    plan_import,
)
from litaudit.curation.row_fields import PAPER_FIELDS
from litaudit.errors import InputError, LitauditError, Problem, ValidationFailed


@dataclass(frozen=True)
class ImportReport:
    file: str
    added_results: int
    added_papers: int
    skipped: int
    dry_run: bool
    result_ids: tuple[int, ...] = ()
    updated: int = 0
    history: int = 0  # history entries copied (curation export)
    unchanged: int = 0  # rows already stored exactly so


# ---------------------------------------------------------------- writing

RESULT_DB_COLUMNS = (
    "id",
    "source",
    "paper_id",
    "track",
    "collection_id",
    "topic_set",
    "n_topics",
    "measure",
    "value",
    "value_text",
    "system",
    "participant",
    "role",
    "run_type",
    "year",
    "standard",
    "location",
    "transcribed_by",
    "transcribed_at",
    "status",
    "notes",
    "created_at",
    "updated_at",
    "date",
    "reporter",
    "url",
    "code_url",
)
# Arrow types of the bulk insert's columns (filled on first use; default: string)
_ARROW_TYPES: dict = {}


def _arrow_types(pa) -> None:
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
        for c in RESULT_DB_COLUMNS:
            _ARROW_TYPES.setdefault(c, pa.string())


def apply_plan(
    store,
    plan: ImportPlan,
    *,
    who: str,
    reason: str | None = None,
    action: str = "import",
    record: bool = True,
    times: dict[int, tuple] | None = None,
    progress: ImportProgress | None = None,
) -> ImportReport:
    """Write a validated plan in one transaction (papers, results, history).

    ``record=False`` writes no history rows of its own (a curation export brings its
    history); ``times`` maps a row's line to its (created_at, updated_at); ``progress``
    is told the results written."""
    import pyarrow as pa

    _arrow_types(pa)
    con = store.con
    now = dt.datetime.now(dt.UTC).replace(tzinfo=None)
    note = reason or f"imported from {Path(plan.file).name}"
    with store.transaction():
        from litaudit.store.refdata import ensure_measure

        for m in sorted(plan.new_measures):
            ensure_measure(con, m)
        paper_ids = _insert_papers(con, plan, who=who, note=note, record=record, now=now)
        n, ids = _insert_results(
            con,
            pa,
            plan,
            paper_ids,
            who=who,
            note=note,
            action=action,
            record=record,
            now=now,
            times=times,
        )
        if progress is not None and n:
            progress(added=n)
        updated = sum(
            _update_existing(
                con, r, who=who, reason=f"updated from {Path(plan.file).name}", now=now
            )
            for r in plan.updates
        )
    return ImportReport(
        plan.file,
        n,
        len(plan.papers),
        plan.skipped,
        False,
        tuple(ids),
        updated,
        unchanged=plan.unchanged,
    )


def _insert_papers(con, plan: ImportPlan, *, who: str, note: str, record: bool, now):
    """Insert the plan's new papers (and their history): paper id by bibkey, with the
    existing papers its results name."""
    paper_ids: dict[str, int] = {}
    for p in plan.papers:
        pid = con.execute(
            "INSERT INTO papers (bibkey, citation, title, authors, venue, year, doi, url, "
            "tags, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id",
            [p.bibkey, *(p.values[f] for f in PAPER_FIELDS), now],
        ).fetchone()[0]
        paper_ids[p.bibkey] = pid
        if record:
            con.execute(
                "INSERT INTO history (entity, entity_id, action, reason, who, "
                "changed_at) VALUES ('paper', ?, 'create', ?, ?, ?)",
                [pid, note, who, now],
            )
    need = [r.bibkey for r in plan.results if r.bibkey and r.bibkey not in paper_ids]
    if need:
        for k, i in con.execute(
            f"SELECT bibkey, id FROM papers WHERE bibkey IN ({','.join('?' * len(set(need)))})",
            list(set(need)),
        ).fetchall():
            paper_ids[k] = i
    return paper_ids


def _insert_results(
    con,
    pa,
    plan: ImportPlan,
    paper_ids: dict[str, int],
    *,
    who: str,
    note: str,
    action: str,
    record: bool,
    now,
    times: dict[int, tuple] | None,
) -> tuple[int, list[int]]:
    """Bulk-insert the plan's new results (and their history): (count, ids)."""
    n = len(plan.results)
    ids: list[int] = []
    if n:
        ids = [
            r[0]
            for r in con.execute("SELECT nextval('results_id_seq') FROM range(?)", [n]).fetchall()
        ]
        records = []
        for rid, r in zip(ids, plan.results, strict=True):
            v = dict(r.values)
            v["id"] = rid
            v["paper_id"] = paper_ids.get(r.bibkey) if r.bibkey else None
            v["created_at"], v["updated_at"] = (times or {}).get(r.line, (now, now))
            records.append({c: v.get(c) for c in RESULT_DB_COLUMNS})
        # bulk insert from an Arrow table (DuckDB's executemany is slow; pyarrow
        # imports in a fraction of pandas' time)
        table = pa.table(
            {
                c: pa.array([r[c] for r in records], type=_ARROW_TYPES.get(c))
                for c in RESULT_DB_COLUMNS
            }
        )
        con.register("_import_results", table)
        try:
            cols = ", ".join(RESULT_DB_COLUMNS)
            con.execute(f"INSERT INTO results ({cols}) SELECT {cols} FROM _import_results")
        finally:
            con.unregister("_import_results")
        if record:
            hist = pa.table(
                {
                    "entity_id": pa.array(ids, type=pa.int64()),
                    "new_value": pa.array(
                        [r.values["value_text"] for r in plan.results], type=pa.string()
                    ),
                }
            )
            con.register("_import_history", hist)
            try:
                con.execute(
                    "INSERT INTO history (entity, entity_id, action, new_value, "
                    "reason, who, changed_at) SELECT 'result', entity_id, ?, "
                    "new_value, ?, ?, ? FROM _import_history",
                    [action, note, who, now],
                )
            finally:
                con.unregister("_import_history")
    return n, ids


def _update_existing(con, r: PreparedResult, *, who: str, reason: str, now) -> int:
    """Write the fields of an existing result that the row changes, each in the history.
    Returns 1 when something changed."""
    cols = ", ".join(UPDATABLE)
    old = dict(
        zip(
            UPDATABLE,
            con.execute(f"SELECT {cols} FROM results WHERE id = ?", [r.existing_id]).fetchone(),
            strict=True,
        )
    )
    changes = {c: r.values[c] for c in UPDATABLE if old[c] != r.values[c]}
    if not changes:
        return 0
    if "value_text" in changes:
        changes["value"] = r.values["value"]
    sets = ", ".join(f"{c} = ?" for c in changes)
    con.execute(
        f"UPDATE results SET {sets}, updated_at = ? WHERE id = ?",
        [*changes.values(), now, r.existing_id],
    )
    for c in UPDATABLE:
        if c in changes:
            fld = "value" if c == "value_text" else c
            con.execute(
                "INSERT INTO history (entity, entity_id, action, field, old_value, "
                "new_value, reason, who, changed_at) VALUES "
                "('result', ?, 'edit', ?, ?, ?, ?, ?, ?)",
                [r.existing_id, fld, _text(old[c]), _text(changes[c]), reason, who, now],
            )
    return 1


def _text(v) -> str | None:
    if v is None:
        return None
    if isinstance(v, bool):
        return "true" if v else "false"
    return str(v)


def import_file(
    store, path, *, who: str | None = None, dry_run: bool = False, on_existing: str = "fail"
) -> tuple[ImportReport, ImportPlan]:
    """Validate and (unless dry_run) import one results file (or a curation export with
    papers and history, see :mod:`litaudit.curation.bundle`). All or nothing."""
    reports = import_files(store, [path], who=who, dry_run=dry_run, on_existing=on_existing)
    return reports[0]


def import_files(
    store,
    paths,
    *,
    who: str | None = None,
    dry_run: bool = False,
    on_existing: str = "fail",
    progress: ImportProgress | None = None,
) -> list[tuple[ImportReport, ImportPlan]]:
    """Import several files in one transaction: every file is written or none is.

    Each file is validated after the ones before it were written (inside the
    transaction), so a later file may use the papers of an earlier one; the problems of
    every file are reported together, and any problem rolls everything back.
    ``progress``: each file's rows announced when it is read, then checked and written."""
    if on_existing not in ON_EXISTING:
        raise LitauditError(
            f"--on-existing: {on_existing!r} is not one of {', '.join(ON_EXISTING)}"
        )
    who = who or F.current_user()
    problems: list[Problem] = []
    out: list[tuple[ImportReport, ImportPlan]] = []

    class _Rollback(Exception):
        pass

    try:
        with store.transaction():
            for path in paths:
                try:
                    done = _import_one(store, Path(path), not problems, who, on_existing, progress)
                except ValidationFailed as exc:
                    problems += exc.problems
                    continue
                except InputError as exc:
                    problems.append(exc.problem)
                    continue
                if done is not None:
                    out.append(done)
            if problems:
                raise ValidationFailed(problems)
            if dry_run:  # everything was checked against the writes; undo them
                raise _Rollback
    except _Rollback:
        import dataclasses

        out = [(dataclasses.replace(r, dry_run=True, result_ids=()), p) for r, p in out]
    return out


def _import_one(
    store, path: Path, write: bool, who: str, on_existing: str, progress: ImportProgress | None
) -> tuple[ImportReport, ImportPlan] | None:
    """One file of :func:`import_files`: read, validated and (when ``write``: no earlier
    file had a problem) written, so that the next file sees it."""
    from litaudit.curation import bundle
    from litaudit.curation.rows import read_table

    table = read_table(path)
    if progress is not None:
        progress(total=len(table.rows))
    if not table.rows and not table.problems and not (table.bundle and table.bundle.get("papers")):
        raise InputError(str(path), None, "no rows to import")
    if table.bundle is not None and write:
        return bundle.apply_bundle(
            store, table, str(path), who=who, on_existing=on_existing, progress=progress
        )
    plan = plan_import(
        store.con,
        table.rows,
        str(path),
        on_existing=on_existing,
        columns=table.columns,
        header_line=table.header_line,
        problems=table.problems,
        progress=progress,
        who=who,
    )
    return (apply_plan(store, plan, who=who, progress=progress), plan) if write else None
