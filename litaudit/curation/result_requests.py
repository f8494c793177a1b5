"""`results add`, `import`, `template`, `edit`, `verify`, `retract` and `reinstate` asked
once (issue 37 item 1): each command's options as one frozen settings object, checked
before the store opens (the curator's name, the modes, the --set assignments, the
reason), and the one call that answers it with a typed result (printed by
:mod:`litaudit.render.results_write`)."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from litaudit.curation import fields
from litaudit.curation.apply import ImportReport
from litaudit.curation.consistency import Finding, check_values
from litaudit.curation.consistency_rows import values_of_rows
from litaudit.curation.export import write_export
from litaudit.curation.importer import check_modes, import_files
from litaudit.curation.plan import ImportPlan
from litaudit.curation.results import (
    add_result,
    check_edit,
    check_status_reason,
    edit_result,
    set_status,
)
from litaudit.curation.rows import Row
from litaudit.curation.template import template_rows
from litaudit.files import STDOUT, check_target
from litaudit.progress import Progress
from litaudit.store.results import resolve_id


@dataclass(frozen=True, kw_only=True)
class ResultAdd:
    """`results add`: one result, its fields as the command's options (a value exactly as
    printed); ``who`` the curator (None: $LITAUDIT_USER or the login)."""

    collection: str
    measure: str
    value: str
    system: str
    role: str
    paper: str | None = None
    track: str | None = None
    run_type: str | None = None
    n_topics: int | None = None
    topic_set: str | None = None
    year: int | None = None
    participant: str | None = None
    location: str | None = None
    nonstandard: bool = False
    notes: str | None = None
    date: str | None = None
    reporter: str | None = None
    url: str | None = None
    code_url: str | None = None
    who: str | None = None

    def checked(self) -> ResultAdd:
        """The request with its curator named (a bad --who: LitauditError)."""
        return dataclasses.replace(self, who=fields.current_user(self.who))

    def row(self) -> dict[str, str]:
        """The result as a row of the import format (a track without a paper: an
        official result)."""
        data = {
            "source": "official" if self.track and not self.paper else "paper",
            "paper": self.paper,
            "track": self.track,
            "collection": self.collection,
            "measure": self.measure,
            "value": self.value,
            "system": self.system,
            "role": self.role,
            "run_type": self.run_type,
            "n_topics": self.n_topics,
            "topic_set": self.topic_set,
            "year": self.year,
            "participant": self.participant,
            "location": self.location,
            "standard": "false" if self.nonstandard else "true",
            "notes": self.notes,
            "date": self.date,
            "reporter": self.reporter,
            "url": self.url,
            "code_url": self.code_url,
        }
        return {k: ("" if v is None else str(v)) for k, v in data.items()}


@dataclass(frozen=True, kw_only=True)
class AddedResult:
    """What `results add` did: the new result's id and the values the consistency check
    flags (README, "Value consistency")."""

    id: int
    flagged: tuple[Finding, ...] = ()


def answer_add(store, req: ResultAdd) -> AddedResult:
    """Add the result (:func:`~litaudit.curation.results.add_result`: validated as an
    import row) and check its value against its measure's arithmetic."""
    data = req.row()
    rid = add_result(store, data, who=fields.current_user(req.who))
    values = values_of_rows(store.con, [Row(1, data)], "")
    flagged = check_values([dataclasses.replace(v, where=f"result #{rid}") for v in values])
    return AddedResult(id=rid, flagged=tuple(flagged))


@dataclass(frozen=True, kw_only=True)
class ResultEdit:
    """`results edit`: a result (id or uid), its --set FIELD=VALUE assignments (parsed
    into ``changes`` by :meth:`checked`), the reason and the curator."""

    result_id: str
    assignments: tuple[str, ...] = ()
    reason: str | None = None
    who: str | None = None
    changes: tuple[tuple[str, str], ...] = ()

    def checked(self) -> ResultEdit:
        """The assignments parsed, the curator named, the reason checked."""
        changes = fields.parse_assignments(self.assignments)
        who = fields.current_user(self.who)
        check_edit(changes, self.reason)
        return dataclasses.replace(self, changes=changes, who=who)


@dataclass(frozen=True, kw_only=True)
class FieldChange:
    """One field an edit changed, its old and new values as the history records them."""

    field: str
    old: str | None
    new: str | None


@dataclass(frozen=True, kw_only=True)
class EditedResult:
    """What `results edit` did to result ``result_id`` (no changes: nothing differed)."""

    result_id: int
    changes: tuple[FieldChange, ...]


def answer_edit(store, req: ResultEdit) -> EditedResult:
    """Apply the edit (:func:`~litaudit.curation.results.edit_result`): one transaction,
    each change in the history with the reason."""
    rid = resolve_id(store.con, req.result_id)
    log = edit_result(
        store, rid, dict(req.changes), reason=req.reason or "", who=fields.current_user(req.who)
    )
    return EditedResult(
        result_id=rid, changes=tuple(FieldChange(field=f, old=o, new=n) for f, o, n in log)
    )


@dataclass(frozen=True, kw_only=True)
class ResultsStatus:
    """`results verify` (``status`` "verified"), `retract` ("retracted") and `reinstate`
    ("draft"): results by id or uid, the reason and the curator."""

    result_ids: tuple[str, ...]
    status: str
    reason: str | None = None
    who: str | None = None

    def checked(self) -> ResultsStatus:
        """The curator named and the reason checked (retracting and reinstating need one)."""
        who = fields.current_user(self.who)
        check_status_reason(self.status, self.reason)
        return dataclasses.replace(self, who=who)


@dataclass(frozen=True, kw_only=True)
class StatusChange:
    """One result's status set: ``changed`` False when it had that status already."""

    result_id: int
    status: str
    changed: bool


def answer_status(
    store,
    req: ResultsStatus,
    progress: Progress | None = None,
    done: Callable[[StatusChange], object] | None = None,
) -> tuple[StatusChange, ...]:
    """Set the status of each result (every id resolved first: an unknown one changes
    nothing), one transaction each (~20 ms), in the order given; ``done`` hears of each
    as it is made (so that a failure part-way still shows what was done before it)."""
    who = fields.current_user(req.who)
    ids = [resolve_id(store.con, x) for x in req.result_ids]
    changes = []
    for rid in ids:
        changed = set_status(store, rid, req.status, reason=req.reason, who=who)
        change = StatusChange(result_id=rid, status=req.status, changed=changed)
        changes.append(change)
        if done is not None:
            done(change)
        if progress is not None:
            progress(1)
    return tuple(changes)


@dataclass(frozen=True, kw_only=True)
class ResultsImport:
    """`results import`: the files (CSV, TSV, JSON, Parquet or a curation export), what to
    do with a row already stored (``on_existing``), the consistency mode and the curator."""

    files: tuple[Path, ...]
    dry_run: bool = False
    on_existing: str = "fail"
    consistency: str = "flag"
    who: str | None = None

    def checked(self) -> ResultsImport:
        """The modes read (any case, spaces around them) and checked, the curator named."""
        on_existing = self.on_existing.strip().lower()
        consistency = self.consistency.strip().lower()
        check_modes(on_existing, consistency)
        who = fields.current_user(self.who)
        return dataclasses.replace(self, on_existing=on_existing, consistency=consistency, who=who)


def answer_import(
    store, req: ResultsImport, progress: Progress | None = None
) -> tuple[tuple[ImportReport, ImportPlan], ...]:
    """Import the files in one transaction (:func:`~litaudit.curation.importer.import_files`):
    every file is validated whole, and any problem in any file writes nothing."""
    return tuple(
        import_files(
            store,
            list(req.files),
            who=fields.current_user(req.who),
            dry_run=req.dry_run,
            on_existing=req.on_existing,
            progress=progress,
            consistency=req.consistency,
        )
    )


@dataclass(frozen=True, kw_only=True)
class ResultsTemplate:
    """`results template`: where to write the example file (- : standard output)."""

    output: str = STDOUT

    def checked(self) -> ResultsTemplate:
        """The output refused when it cannot be written (not a regular file, no folder)."""
        if self.output != STDOUT:
            check_target(self.output, [])
        return self


@dataclass(frozen=True, kw_only=True)
class TemplateWritten:
    """The example file written: ``rows`` rows to ``output`` (- : standard output)."""

    output: str
    rows: int

    @property
    def to_stdout(self) -> bool:
        return self.output == STDOUT


def answer_template(req: ResultsTemplate) -> TemplateWritten:
    """Write the example rows (:func:`~litaudit.curation.template.template_rows`) as CSV."""
    rows = template_rows()
    write_export(rows, req.output, "csv")
    return TemplateWritten(output=req.output, rows=len(rows))
