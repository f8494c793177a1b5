"""What `results list`, `show`, `history`, `export` and `consistency` print: a table or
lines of text, or ``--json`` (the answers of :mod:`litaudit.curation.results_requests`)."""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING

from litaudit.curation.results_requests import HistoryWindow
from litaudit.files import STDOUT
from litaudit.render.console import err, out, print_json, table, terminal_json
from litaudit.render.curation import print_history, print_listing, print_window
from litaudit.render.findings import finding_json

if TYPE_CHECKING:
    from litaudit.curation.results_requests import (
        ConsistencyReport,
        ExportWritten,
        ResultHistory,
        ResultsListing,
        ShownResult,
    )


def print_results(listing: ResultsListing) -> None:
    """`results list`: the JSON text in pieces, or the rows (a table in a terminal)."""
    if listing.json_pieces is not None:
        for piece in listing.json_pieces:
            sys.stdout.write(terminal_json(piece))
        return
    print_listing(list(listing.rows), listing.total, listing.given)


def print_result(shown: ShownResult, json_out: bool) -> None:
    """`results show`: the result's fields (a table) and its history."""
    r = shown.result
    if json_out:
        print_json({**r.as_dict(), "history": [x.as_dict() for x in shown.history]})
        return
    out.print(
        table(
            f"Result #{r.id} ({r.uid})",
            ["field", "value"],
            [(k, v) for k, v in r.as_dict().items() if k != "value"],
            justify_numbers=False,
        )
    )
    print_history("History", shown.history)


def print_result_history(answer: ResultHistory | HistoryWindow, json_out: bool) -> None:
    """`results history`: a result's changes, or a window's (with their results)."""
    if json_out:
        print_json([x.as_dict() for x in answer.entries])
    elif isinstance(answer, HistoryWindow):
        print_window(list(answer.entries))
    else:
        print_history(f"History of result #{answer.result_id}", answer.entries)


def print_export(done: ExportWritten) -> None:
    """`results export`: what it wrote where (on stderr when the export went to stdout)."""
    extra = (
        f", {done.papers} papers and {done.history} history entries"
        if done.papers is not None
        else ""
    )
    msg = f"wrote {done.results} results{extra} to {done.output} ({done.fmt})"
    (err if done.output == STDOUT else out).print(msg)


def print_consistency(rep: ConsistencyReport, json_out: bool) -> None:
    """`results consistency`: the findings, a table (with a count line) or JSON."""
    found = rep.findings
    if json_out:
        print_json(
            [
                {
                    "id": f.result_id,
                    "location": f.location,
                    "collection": f.collection,
                    "system": f.system,
                    **finding_json(f.finding),
                    "curated": f.curated,
                }
                for f in found
            ]
        )
        return
    out.print(f"{len(found)} finding(s), {rep.n_open} open, {len(found) - rep.n_open} curated")
    if found:
        out.print(
            table(
                None,
                ["id", "collection", "measure", "value", "system", "finding", "curated"],
                [
                    (
                        f.result_id,
                        f.collection,
                        f.finding.measure,
                        f.finding.value,
                        f.system,
                        f.finding.line().split(": ", 1)[1],
                        f.curated.removeprefix("consistency: ") or "open",
                    )
                    for f in found
                ],
            )
        )
