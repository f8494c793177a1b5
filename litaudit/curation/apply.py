"""Results import, second half: a validated plan (:mod:`litaudit.curation.plan`) written
in one transaction: its new papers, its new results, the stored results it updates, and
the history of each (through :mod:`litaudit.store.results`, :mod:`litaudit.store.papers`
and :mod:`litaudit.store.history`, the tables' owners).

``results add``, ``results import``, a curation export, ``init`` and ``sync`` all write
through :func:`apply_plan`.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from litaudit.curation.plan import ImportPlan, ImportProgress, PreparedResult, given_fields
from litaudit.curation.row_fields import PAPER_FIELDS
from litaudit.errors import Problem, ValidationFailed
from litaudit.store import history as history_store
from litaudit.store import papers as paper_store
from litaudit.store import results as result_store
from litaudit.store import results_write
from litaudit.store.measures import ensure_measures

if TYPE_CHECKING:
    import duckdb


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


@dataclass(frozen=True)
class Recording:
    """How a plan's writes go to the history: by ``who``, with ``reason`` (default
    "imported from FILE") and ``action`` for each new result; ``record=False`` writes no
    entries (a curation export and a folder bring their own)."""

    who: str
    reason: str | None = None
    action: str = "import"
    record: bool = True


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
    con = store.con
    now = history_store.now()
    how = Recording(who, reason or f"imported from {Path(plan.file).name}", action, record)
    with store.transaction():
        ensure_measures(con, sorted(plan.new_measures))
        paper_ids = _insert_papers(con, plan, how, now)
        ids = _insert_results(con, plan, paper_ids, how, now, times)
        if progress is not None and ids:
            progress(added=len(ids))
        updated = _update_all(con, plan, who=who, now=now)
    return ImportReport(
        plan.file,
        len(ids),
        len(plan.papers),
        plan.skipped,
        False,
        tuple(ids),
        updated,
        unchanged=plan.unchanged,
    )


def _insert_papers(
    con: duckdb.DuckDBPyConnection, plan: ImportPlan, how: Recording, now
) -> dict[str, int]:
    """Insert the plan's new papers (and their history): paper id by bibkey, with the
    existing papers its results name."""
    paper_ids: dict[str, int] = {}
    if plan.papers:
        records = [
            {"bibkey": p.bibkey, **{f: p.values[f] for f in PAPER_FIELDS}} for p in plan.papers
        ]
        ids = paper_store.insert_many(con, records, at=now)
        paper_ids.update(zip((p.bibkey for p in plan.papers), ids, strict=True))
        if how.record:
            history_store.record_many(
                con, ("paper", ids), "create", reason=how.reason, who=how.who, at=now
            )
    if any(r.bibkey and r.bibkey not in paper_ids for r in plan.results):
        for k, (i, _) in paper_store.ids_and_years(con).items():
            paper_ids.setdefault(k, i)
    return paper_ids


def _insert_results(
    con: duckdb.DuckDBPyConnection,
    plan: ImportPlan,
    paper_ids: dict[str, int],
    how: Recording,
    now,
    times: dict[int, tuple] | None,
) -> list[int]:
    """Insert the plan's new results in one statement (and their history): their ids."""
    if not plan.results:
        return []
    ids = results_write.new_ids(con, len(plan.results))
    records = []
    for rid, r in zip(ids, plan.results, strict=True):
        v = dict(r.values)
        v["id"] = rid
        v["paper_id"] = paper_ids.get(r.bibkey) if r.bibkey else None
        v["created_at"], v["updated_at"] = (times or {}).get(r.line, (now, now))
        records.append(v)
    bibkeys = {paper_ids[r.bibkey]: r.bibkey for r in plan.results if r.bibkey}
    results_write.insert(con, records, bibkeys=bibkeys)
    if how.record:
        history_store.record_many(
            con,
            ("result", ids),
            how.action,
            new=[r.values["value_text"] for r in plan.results],
            reason=how.reason,
            who=how.who,
            at=now,
        )
    return ids


def _update_all(con: duckdb.DuckDBPyConnection, plan: ImportPlan, *, who: str, now) -> int:
    """Update the stored results the plan's rows name (``--on-existing update``): only the
    fields the file has columns for. A retracted result is not brought back by an import
    (that is `results reinstate`'s, with a reason): such a row is a problem, and nothing
    of the import is written."""
    given = given_fields(plan.columns)
    reason = f"updated from {Path(plan.file).name}"
    # the stored fields of every row updated, read in one query (each update writes its
    # own result only, so what a row reads here is what it would read before its write)
    ids = [r.existing_id for r in plan.updates if r.existing_id is not None]
    stored = result_store.values(con, (*given, "status"), ids)  # status last
    back = []
    for r in plan.updates:
        assert r.existing_id is not None  # plan_import names the stored row of an update
        if "status" in given and r.values["status"] != "retracted":
            if stored[r.existing_id][-1] == "retracted":
                back.append(r)
    if back:
        raise ValidationFailed(
            [
                Problem(
                    plan.file,
                    r.line,
                    f"result #{r.existing_id} is retracted; an import does not bring it back "
                    f"(`litaudit results reinstate {r.existing_id} --reason ...` does)",
                    "status",
                )
                for r in back
            ]
        )
    return sum(
        _update_existing(con, r, given, stored[r.existing_id], who=who, reason=reason, now=now)
        for r in plan.updates
        if r.existing_id is not None
    )


def _update_existing(  # noqa: PLR0913
    con: duckdb.DuckDBPyConnection,
    r: PreparedResult,
    given,
    stored: tuple,
    *,
    who: str,
    reason: str,
    now,
) -> int:
    """Write the fields of ``given`` that the row changes in its stored result (whose
    fields ``stored`` holds, ``given`` first), each in the history. Returns 1 when
    something changed."""
    assert r.existing_id is not None  # plan_import names the stored row of an update
    old = dict(zip(given, stored[: len(given)], strict=True))
    changes = {c: r.values[c] for c in given if old[c] != r.values[c]}
    if not changes:
        return 0
    if "value_text" in changes:
        changes["value"] = r.values["value"]
    results_write.update(con, r.existing_id, changes, at=now)
    fields = [c for c in given if c in changes]
    history_store.record_many(
        con,
        ("result", [r.existing_id] * len(fields)),
        "edit",
        field=["value" if c == "value_text" else c for c in fields],
        old=[history_store.text(old[c]) for c in fields],
        new=[history_store.text(changes[c]) for c in fields],
        reason=reason,
        who=who,
        at=now,
    )
    return 1
