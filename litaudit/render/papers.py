"""What the `papers` commands print (add, list, show, edit, import), text or --json."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from litaudit.render.console import out, print_json, table

if TYPE_CHECKING:
    from litaudit.curation.paper_requests import (
        AddedPaper,
        EditedPaper,
        ImportedPapers,
        PaperDetails,
    )
    from litaudit.store.papers import PaperListed


def print_added(added: AddedPaper, json_out: bool) -> None:
    """`papers add`: the new paper's id and bibkey."""
    if json_out:
        print_json({"id": added.id, "bibkey": added.bibkey})
    else:
        out.print(f"added paper #{added.id} {added.bibkey}")


def print_papers(rows: Sequence[PaperListed], json_out: bool) -> None:
    """`papers list`: a table of the papers with their number of results and a link."""
    if json_out:
        print_json([r.as_dict() for r in rows])
        return
    out.print(
        table(
            f"{len(rows)} papers",
            ["id", "bibkey", "citation", "year", "results", "link"],
            [
                (r.id, r.bibkey, r.citation, r.year, r.results, r.doi and f"doi:{r.doi}" or r.url)
                for r in rows
            ],
        )
    )


def print_paper(details: PaperDetails, json_out: bool) -> None:
    """`papers show`: the paper's fields and its results (--json: its history too)."""
    p = details.paper
    if json_out:
        print_json(
            {
                **p.as_dict(),
                "results": [r.as_dict() for r in details.results],
                "history": [x.as_dict() for x in details.history],
            }
        )
        return
    out.print(
        table(
            f"Paper {p.bibkey}",
            ["field", "value"],
            list(p.as_dict().items()),
            justify_numbers=False,
        )
    )
    out.print(
        table(
            "Results",
            ["id", "collection", "measure", "value", "system", "role", "status"],
            [
                (r.id, r.collection, r.measure, r.value_text, r.system, r.role, r.status)
                for r in details.results
            ],
        )
    )


def print_edited(edited: EditedPaper) -> None:
    """`papers edit`: a line a changed field (or that nothing changed)."""
    for c in edited.changes:
        out.print(f"{edited.key} {c.field}: {c.old} -> {c.new}")
    if not edited.changes:
        out.print(f"{edited.key}: nothing changed")


def print_imported(rep: ImportedPapers, json_out: bool) -> None:
    """`papers import`: how many papers were (or would be) added, and skipped."""
    if json_out:
        print_json(
            {
                "file": rep.file,
                "added": rep.added,
                "would_add": rep.would_add,
                "skipped": rep.skipped,
                "dry_run": rep.dry_run,
                "papers": list(rep.papers),
            }
        )
        return
    verb = "would add" if rep.dry_run else "added"
    out.print(
        f"{rep.file}: {verb} {rep.would_add} papers"
        + (f", skipped {rep.skipped} already present" if rep.skipped else "")
    )
