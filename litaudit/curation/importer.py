"""Results import: read CSV / JSON / Parquet, validate the whole file
(:mod:`litaudit.curation.plan`), then write all or nothing (:mod:`litaudit.curation.apply`).

Every problem in a file is collected (with its line) before anything is written; a file
with any problem raises :class:`~litaudit.errors.ValidationFailed` and changes nothing.
Papers named by a new bibkey are created from the row's ``paper_*`` columns.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

from litaudit.curation import bundle, fields
from litaudit.curation.apply import ImportReport, apply_plan
from litaudit.curation.consistency_rows import CONSISTENCY_MODES, as_problems, row_findings
from litaudit.curation.import_context import Context
from litaudit.curation.plan import ON_EXISTING, ImportPlan, ImportProgress, plan_import
from litaudit.curation.rows import read_table
from litaudit.errors import InputError, LitauditError, Problem, ValidationFailed


def check_modes(on_existing: str, consistency: str) -> None:
    """--on-existing and --consistency, each one of its modes (LitauditError naming it)."""
    if consistency not in CONSISTENCY_MODES:
        raise LitauditError(
            f"--consistency: {consistency!r} is not one of {', '.join(CONSISTENCY_MODES)}"
        )
    if on_existing not in ON_EXISTING:
        raise LitauditError(
            f"--on-existing: {on_existing!r} is not one of {', '.join(ON_EXISTING)}"
        )


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
    consistency: str = "flag",
) -> list[tuple[ImportReport, ImportPlan]]:
    """Import several files in one transaction: every file is written or none is.

    Each file is validated after the ones before it were written (inside the
    transaction), so a later file may use the papers of an earlier one; the problems of
    every file are reported together, and any problem rolls everything back.
    ``progress``: each file's rows announced when it is read, then checked and written.
    ``consistency``: values the arithmetic of their measure does not allow
    (:mod:`litaudit.curation.consistency`) are ``flag``-ged in the plan's ``findings``,
    ``refuse``-d as problems (nothing is written), or not checked (``off``)."""

    check_modes(on_existing, consistency)
    who = who or fields.current_user()
    problems: list[Problem] = []
    out: list[tuple[ImportReport, ImportPlan]] = []

    class _Rollback(Exception):
        pass

    try:
        with store.transaction():
            for path in paths:
                try:
                    done = _import_one(
                        store, Path(path), not problems, who, on_existing, progress, consistency
                    )
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
        out = [(dataclasses.replace(r, dry_run=True, result_ids=()), p) for r, p in out]
    return out


def _import_one(  # noqa: PLR0913
    store,
    path: Path,
    write: bool,
    who: str,
    on_existing: str,
    progress: ImportProgress | None,
    consistency: str = "flag",
) -> tuple[ImportReport, ImportPlan] | None:
    """One file of :func:`import_files`: read, validated and (when ``write``: no earlier
    file had a problem) written, so that the next file sees it."""

    table = read_table(path)
    if progress is not None:
        progress(total=len(table.rows))
    if not table.rows and not table.problems and not (table.bundle and table.bundle.get("papers")):
        raise InputError(str(path), None, "no rows to import")
    if table.bundle is not None and write:
        return bundle.apply_bundle(
            store, table, str(path), who=who, on_existing=on_existing, progress=progress
        )
    ctx = Context(store.con, table.rows)  # the look-ups of the plan and the check, read once
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
        ctx=ctx,
    )
    if consistency != "off":
        plan.findings = row_findings(store.con, table.rows, str(path), ctx)
        if consistency == "refuse" and plan.findings:
            raise ValidationFailed(as_problems(plan.findings))
    return (apply_plan(store, plan, who=who, progress=progress), plan) if write else None
