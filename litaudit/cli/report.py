"""`litaudit report`: audit reports for reviewers (Markdown, HTML, JSON)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import typer

from litaudit.cli.common import db_path, open_write
from litaudit.cli.filter_options import POPULATION, WINDOW, with_filters
from litaudit.cli.options import (
    BaselineOpt,
    BaselineSystemOpt,
    against_option,
    claim_option,
    collection_option,
    depth_option,
    format_option,
    measure_option,
    output_option,
    reproductions_option,
    run_option,
    subcollections_option,
)
from litaudit.defaults import MIN_N

if TYPE_CHECKING:
    from litaudit.curation.filters import Filters


@with_filters
def report(
    ctx: typer.Context,
    collection: str = collection_option(None, "the report's (or the claims of --claims)"),
    measure: str = measure_option(
        None, f"one measure (default: every measure with at least {MIN_N} results)"
    ),
    claim: str = claim_option(
        "to check against the published results (needs --measure when there are several)"
    ),
    filters: Filters = POPULATION,
    fmt: str = format_option(
        None,
        "md, html, json or text (a review form: no markup, lines <= 100 characters) "
        "(default: from the -o suffix, else md)",
        "-f",
    ),
    output: str = output_option(
        None, "the report (Markdown plots go beside it as <stem>.fig-*.svg); - or none: stdout"
    ),
    run: str = run_option("the claim's run (its value when --claim is not given)"),
    against: list[str] = against_option(""),
    baseline: str = BaselineOpt,
    baseline_system: str = BaselineSystemOpt,
    subcollections: bool = subcollections_option("added to the reusability section"),
    depth: int = depth_option(
        None,
        "the reusability verdict decides at it (default: the collection's recorded one; "
        "record it with `collections depth`)",
    ),
    timestamp: bool = typer.Option(
        False,
        "--timestamp",
        help="Stamp the report and its audits with times (the "
        "report is otherwise byte-identical for the same "
        "database).",
    ),
    _window: None = WINDOW,
    with_reproductions: bool = reproductions_option("in the history plot"),
    claims: Path = typer.Option(
        None,
        "--claims",
        help="A paper's claims, one a line (CSV or JSON: collection, measure, value as "
        "printed, baseline, baseline_system, run, against): one document, a verdict per claim.",
    ),
):
    """Write an audit report of a collection, built only from stored audits.

    It opens with its conclusions (the claim against the record and against
    chance, the reusability decision); then the claim's same-topic comparison
    (--run, --against) and baseline (--baseline), the claim check, the tables of
    Carterette (2015), the candidate best set with citations, reusability
    where runs are stored, the data, and appendices (audits, provenance).
    The filters choose the published results as for `audit claim` (--until
    2021-12: the record when a paper was submitted). Missing audits are run
    and stored first.
    """
    from litaudit.analyses.report_request import ReportRequest, answer_report
    from litaudit.render.progress import noting, progress_bar
    from litaudit.render.report.output import print_report

    req = ReportRequest(
        collection=collection,
        measure=measure,
        claim=claim,
        filters=filters,
        fmt=fmt,
        output=output,
        run=run,
        against=tuple(against or ()),
        baseline=baseline,
        baseline_system=baseline_system,
        subcollections=subcollections,
        depth=depth,
        timestamp=timestamp,
        with_reproductions=with_reproductions,
        claims=claims,
        database=db_path(ctx),
    ).checked()  # every problem of the options and the claims file before the store opens
    # the audits a report runs are not known ahead: the bar counts them as they are run,
    # and the reusability verdict's steps when it is run (announced by it); the report
    # is built under a bar of its own and printed when the bars are gone
    with open_write(ctx) as store:
        with progress_bar("report: audits", unit="steps", quiet=req.fmt == "json") as bar:
            done = answer_report(store.con, req, note=noting(bar), progress=bar)
        print_report(store.con, done)
