"""Results import, first half: every row of a file checked and typed into an
:class:`ImportPlan` (results, papers to create, rows already stored), every problem
collected with its line before anything is written. :mod:`litaudit.curation.importer`
writes a plan (all or nothing) and reads files.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Protocol

from litaudit.curation import fields
from litaudit.curation.import_context import Context
from litaudit.curation.row_columns import row_values
from litaudit.curation.row_fields import (
    REQUIRED,
    PreparedPaper,
    natural_key,
    parse_row,
)
from litaudit.curation.rows import Row
from litaudit.errors import Problem, ValidationFailed
from litaudit.store import results as result_store

if TYPE_CHECKING:
    import duckdb


class ImportProgress(Protocol):
    """How far an import is, for a progress bar: ``rows`` more rows checked, ``total``
    more rows to check (announced as each file is read), ``added`` more results written."""

    def __call__(self, rows: int = 0, /, *, total: int = 0, added: int = 0) -> None: ...


PROGRESS_ROWS = 1000  # rows checked between two calls of an import's progress callback


@dataclass
class PreparedResult:
    line: int
    key: tuple
    values: dict  # column -> typed value for the results table (paper_id filled later)
    bibkey: str | None
    existing_id: int | None = None  # the row it updates (on_existing="update")


@dataclass
class ImportPlan:
    file: str
    results: list[PreparedResult] = field(default_factory=list)
    papers: list[PreparedPaper] = field(default_factory=list)
    skipped: int = 0  # rows already in the database (skip mode)
    new_measures: set = field(default_factory=set)
    updates: list[PreparedResult] = field(default_factory=list)  # update mode
    existing: list[tuple[int, int]] = field(default_factory=list)  # (line, id) skipped
    differs: list[PreparedResult] = field(default_factory=list)  # same mode: other value
    unchanged: int = 0  # rows already stored exactly so (fail mode): nothing to do
    columns: tuple[str, ...] | None = None  # the file's (None: every field is given)
    findings: list = field(default_factory=list)  # value consistency (consistency.Finding)


def given_fields(columns: tuple[str, ...] | None) -> tuple[str, ...]:
    """The UPDATABLE fields a file with ``columns`` gives (None: all of them)."""
    return tuple(
        c for c in UPDATABLE if columns is None or ("value" if c == "value_text" else c) in columns
    )


# the fields of a stored result that an import may change (on_existing="update"); a row
# whose natural key is stored is "unchanged" when its value and these fields (those the
# file has columns for) are the stored ones
UPDATABLE = (
    "topic_set",
    "value_text",
    "participant",
    "run_type",
    "year",
    "standard",
    "location",
    "transcribed_by",
    "transcribed_at",
    "status",
    "notes",
    "date",
    "reporter",
    "url",
    "code_url",
)


# ---------------------------------------------------------------- validation


ON_EXISTING = ("fail", "skip", "update")


def plan_import(  # noqa: PLR0913
    con: duckdb.DuckDBPyConnection,
    rows: list[Row],
    file: str,
    *,
    on_existing: str = "fail",
    columns: tuple[str, ...] | None = None,
    header_line: int | None = None,
    problems: list[Problem] | None = None,
    progress: ImportProgress | None = None,
    who: str | None = None,
    ctx: Context | None = None,
) -> ImportPlan:
    """Validate every row; return the plan or raise ValidationFailed listing every problem.

    ``on_existing`` says what a row whose natural key (source, paper or track, collection,
    topics, measure, system, role) is already in the database does: ``fail`` (a problem),
    ``skip`` (left as it is), ``update`` (its changed fields are written, each in the
    history) or ``same`` (skipped when the value is the same, else put in
    ``plan.differs`` for the caller to decide: seeds).
    ``columns``: the file's columns (a required column missing from the file is reported
    once, not on every row); ``problems``: those found reading the file (reported with
    these); ``progress(rows)`` is called every :data:`PROGRESS_ROWS` rows checked;
    ``who``: fills ``transcribed_by`` where a row leaves it blank (``transcribed_at``:
    today, UTC); ``ctx``: the look-ups of ``con`` for these rows (``Context(con, rows)``,
    made here when not given: a caller that checks the rows again passes its own).
    """
    if ctx is None:
        ctx = Context(con, rows)
    plan = ImportPlan(file=file, columns=columns)
    problems = list(problems or [])
    seen: dict[tuple, int] = {}
    new_papers: dict[str, PreparedPaper] = {}
    rows, absent = _filled(rows, who, columns, file, header_line, problems)
    stored: list[tuple[int, int, str, dict]] = []  # rows already in the database (fail)
    fast = row_values(ctx, plan.new_measures, rows)  # the common case, column by column
    described = _described(rows) if fast is None else set()
    for i, row in enumerate(rows):
        if progress is not None and i and not i % PROGRESS_ROWS:
            progress(PROGRESS_ROWS)
        n_before = len(problems)

        def bad(msg, fld=None, _line=row.line):
            problems.append(Problem(file, _line, msg, fld))

        missing: list[str] = []
        if fast is not None:
            v, bibkey = fast[i]
        else:
            v, bibkey, missing = parse_row(
                ctx, plan.new_measures, row, file, problems, bad, absent, described, new_papers
            )
        if len(problems) > n_before or missing:
            continue
        key = natural_key(v, bibkey if v["source"] == "paper" else None)
        if key in seen:
            bad(
                f"duplicate of line {seen[key]} (same source, collection, topics, measure, "
                "system and role)"
            )
            continue
        seen[key] = row.line
        prepared = PreparedResult(row.line, key, v, None if v["source"] == "official" else bibkey)
        found = ctx.stored(key)
        if found is not None:
            _place_stored(plan, stored, on_existing, found, prepared)
            continue
        plan.results.append(prepared)
    if progress is not None and rows:
        progress(len(rows) - (len(rows) - 1) // PROGRESS_ROWS * PROGRESS_ROWS)
    _sort_stored(con, plan, stored, columns, problems)
    if problems:
        raise ValidationFailed(collapse(problems))
    plan.papers = list(new_papers.values())
    return plan


def _place_stored(
    plan: ImportPlan, stored: list, on_existing: str, found: tuple, p: PreparedResult
) -> None:
    """Where a row whose natural key is stored (``found``: its id and value as printed)
    goes, as ``on_existing`` says: skipped, an update, a difference, or ``stored`` (a
    problem)."""
    rid, vt = found
    if on_existing == "skip" or (on_existing == "same" and vt == p.values["value_text"]):
        plan.skipped += 1
        plan.existing.append((p.line, rid))
    elif on_existing in ("update", "same"):
        into = plan.updates if on_existing == "update" else plan.differs
        into.append(dataclasses.replace(p, existing_id=rid))
    else:
        stored.append((p.line, rid, vt, p.values))


def _described(rows: list[Row]) -> set[str]:
    """New bibkeys whose paper some row describes (the others may name it alone)."""
    return {
        str(r.data.get("paper")).strip()
        for r in rows
        if any(
            fields.text_or_none(r.data.get(f"paper_{f}")) for f in ("citation", "title", "authors")
        )
    }


_FILLED = ("transcribed_by", "transcribed_at")


def _filled(
    rows: list[Row],
    who: str | None,
    columns: tuple[str, ...] | None,
    file: str,
    header_line: int | None,
    problems: list[Problem],
) -> tuple[list[Row], set[str]]:
    """The rows with a blank transcribed_by made ``who``, a blank transcribed_at today
    (when ``who`` is given), and the required columns the file lacks (each reported)."""

    if who is None:
        return rows, _absent_columns(columns, file, header_line, problems)
    absent = _absent_columns(
        None if columns is None else (*columns, *_FILLED), file, header_line, problems
    )

    today = dt.datetime.now(dt.UTC).date().isoformat()
    out = []
    for r in rows:
        by, at = r.data.get("transcribed_by"), r.data.get("transcribed_at")
        if fields.blank(by) or fields.blank(at):
            data = dict(r.data)
            data["transcribed_by"] = who if fields.blank(by) else by
            data["transcribed_at"] = today if fields.blank(at) else at
            r = dataclasses.replace(r, data=data)
        out.append(r)
    return out, absent


def _sort_stored(
    con: duckdb.DuckDBPyConnection,
    plan: ImportPlan,
    stored: list[tuple[int, int, str, dict]],
    columns: tuple[str, ...] | None,
    problems: list[Problem],
) -> None:
    """The rows already in the database (on_existing="fail"): unchanged (counted in the
    plan) or conflicts (one problem, not one per row)."""
    conflicts = []
    for line, rid, vt, same in _unchanged(con, stored, columns):
        if same:
            plan.unchanged += 1
            plan.existing.append((line, rid))
        else:
            conflicts.append((line, rid, vt))
    if conflicts:
        problems.append(_conflicts_problem(file=plan.file, conflicts=conflicts))


def _unchanged(
    con: duckdb.DuckDBPyConnection,
    stored: list[tuple[int, int, str, dict]],
    columns: tuple[str, ...] | None,
):
    """(line, id, stored value, the row is the stored result) for the rows of ``stored``
    (line, id, stored value, the row's values): a row is the stored result when its value
    and every field of :data:`UPDATABLE` the file has a column for are the stored ones."""
    if not stored:
        return []
    given = list(given_fields(columns))
    if "value_text" not in given:
        given.append("value_text")

    found = result_store.values(con, given, [rid for _, rid, _, _ in stored])
    return [
        (line, rid, vt, found.get(rid) == tuple(v.get(c) for c in given))
        for line, rid, vt, v in stored
    ]


def _absent_columns(
    columns: tuple[str, ...] | None, file: str, header_line: int | None, problems: list[Problem]
) -> set[str]:
    """The required columns missing from the file (each reported once in ``problems``)."""
    absent: set[str] = set()
    for c in REQUIRED:
        if columns is not None and c not in columns:
            problems.append(Problem(file, header_line, f"missing column {c!r}"))
            absent.add(c)
    return absent


def _conflicts_problem(file: str, conflicts: list[tuple[int, int, str]]) -> Problem:
    """One problem for the rows already in the database (on_existing="fail")."""
    line, rid, vt = conflicts[0]
    more = (
        f" (and {len(conflicts) - 1} more rows, lines "
        f"{', '.join(str(c[0]) for c in conflicts[1:6])}"
        f"{', ...' if len(conflicts) > 6 else ''})"
        if len(conflicts) > 1
        else ""
    )
    return Problem(
        file,
        line,
        f"already in the database as result #{rid} "
        f"(value {vt}){more}; use --on-existing skip or update",
    )


def collapse(problems: list[Problem], shown: int = 5) -> list[Problem]:
    """One problem once: the same message on the same field on several lines of a file
    becomes one problem at its first line that lists the others."""
    groups: dict[tuple, list[Problem]] = {}
    for p in problems:
        groups.setdefault((p.file, p.field, p.message), []).append(p)
    out = []
    for p in problems:
        same = groups.get((p.file, p.field, p.message))
        if not same:
            continue  # already listed with its first line
        del groups[(p.file, p.field, p.message)]
        others = [q.line for q in same[1:] if q.line is not None]
        if others:
            lines = ", ".join(str(n) for n in others[:shown])
            more = f" and {len(others) - shown} more" if len(others) > shown else ""
            p = Problem(
                p.file,
                p.line,
                f"{p.message} (also on line{'s' if len(others) > 1 else ''} {lines}{more})",
                p.field,
            )
        out.append(p)
    return out
