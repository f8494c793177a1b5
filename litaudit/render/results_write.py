"""What the commands that write results print (`results add`, `edit`, `verify`, `retract`,
`reinstate`, `template`); `results import`'s report is :func:`litaudit.render.curation.
print_import`."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from litaudit.render.console import out, print_json
from litaudit.render.findings import finding_json

if TYPE_CHECKING:
    from litaudit.curation.result_requests import (
        AddedResult,
        EditedResult,
        StatusChange,
        TemplateWritten,
    )

# the progress bar's label while setting each status, and what a line says was done
DOING = {"verified": "verifying", "retracted": "retracting", "draft": "reinstating"}
DONE = {"verified": "verified", "retracted": "retracted", "draft": "reinstated (a draft)"}


def print_added(added: AddedResult, json_out: bool) -> None:
    """`results add`: the new id, and each value the consistency check flags."""
    if json_out:
        print_json({"id": added.id, "flagged": [finding_json(f) for f in added.flagged]})
        return
    out.print(f"added result #{added.id}")
    for f in added.flagged:  # the value consistency check (README, "Value consistency")
        out.print(f"flagged: {f.line()}")


def print_edited(edited: EditedResult, json_out: bool) -> None:
    """`results edit`: a line a changed field (or that nothing changed)."""
    if json_out:
        print_json([{"field": c.field, "old": c.old, "new": c.new} for c in edited.changes])
    elif edited.changes:
        for c in edited.changes:
            out.print(f"#{edited.result_id} {c.field}: {c.old} -> {c.new}")
    else:
        out.print(f"#{edited.result_id}: nothing changed")


def print_statuses(changes: Sequence[StatusChange]) -> None:
    """`results verify`, `retract`, `reinstate`: a line a result (printed after the
    progress bar, and up to a failure before its error)."""
    for c in changes:
        out.print(
            f"#{c.result_id} {DONE[c.status]}"
            if c.changed
            else f"#{c.result_id} was already {c.status}"
        )


def print_template(written: TemplateWritten) -> None:
    """`results template`: where the example went (nothing when it went to standard
    output: it is the output)."""
    if not written.to_stdout:
        out.print(
            f"wrote {written.rows} example rows to {written.output}; see "
            "`litaudit results import --help`"
        )
