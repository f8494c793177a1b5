"""`litaudit results add`, `import`, `template`, `edit`, `verify`, `retract` and
`reinstate`: the commands that write published results (each in one transaction). The
commands that read them are in cli/results_read.py. Each parses its options into one
request of :mod:`litaudit.curation.result_requests` and prints its answer through
:mod:`litaudit.render.results_write`."""

from __future__ import annotations

from pathlib import Path

import typer

from litaudit.cli.common import open_write
from litaudit.cli.options import (
    ID_HELP,
    IDS_HELP,
    CollectionOpt,
    ConsistencyOpt,
    DryRunOpt,
    Json,
    MeasureOpt,
    SetOpt,
    WhoOpt,
    reporter_option,
)
from litaudit.cli.result_options import (
    paper_option,
    reason_option,
    role_option,
    run_type_option,
    system_option,
    track_option,
    url_option,
    value_option,
    year_option,
)
from litaudit.curation.columns import import_help


def add(
    ctx: typer.Context,
    collection: str = CollectionOpt,
    measure: str = MeasureOpt,
    value: str = value_option(..., ""),
    system: str = system_option(..., ""),
    role: str = role_option(..., ""),
    paper: str = paper_option(None, "source paper"),
    track: str = track_option(None, "source official"),
    run_type: str = run_type_option(None, ""),
    n_topics: int = typer.Option(None, help="Number of topics (default: the collection's)."),
    topic_set: str = typer.Option(None, help="Topic set name."),
    year: int = year_option(None, "default: the paper's"),
    participant: str = typer.Option(None, help="TREC group / site."),
    location: str = typer.Option(None, help="Where in the source: table, figure, page."),
    nonstandard: bool = typer.Option(False, help="Flag a non-standard experimental setting."),
    notes: str = typer.Option(None, help="Free-text notes."),
    date: str = typer.Option(
        None,
        "--date",
        help="Publication or submission date (YYYY-MM-DD); the year defaults to its year.",
    ),
    reporter: str = reporter_option(""),
    url: str = url_option(None, "the result's own source"),
    code_url: str = typer.Option(None, "--code-url", help="Its code (http(s))."),
    who: str = WhoOpt,
    json_out: Json = False,
):
    """Add one result (validated like an import)."""
    from litaudit.curation.result_requests import ResultAdd, answer_add
    from litaudit.render.results_write import print_added

    req = ResultAdd(
        collection=collection,
        measure=measure,
        value=value,
        system=system,
        role=role,
        paper=paper,
        track=track,
        run_type=run_type,
        n_topics=n_topics,
        topic_set=topic_set,
        year=year,
        participant=participant,
        location=location,
        nonstandard=nonstandard,
        notes=notes,
        date=date,
        reporter=reporter,
        url=url,
        code_url=code_url,
        who=who,
    ).checked()
    with open_write(ctx) as store:
        added = answer_add(store, req)
    print_added(added, json_out)


def import_(
    ctx: typer.Context,
    files: list[Path] = typer.Argument(
        ..., help="CSV, JSON or Parquet files (a JSON curation export brings papers and history)."
    ),
    dry_run: bool = DryRunOpt,
    on_existing: str = typer.Option(
        "fail",
        "--on-existing",
        help="A row already in the database (same "
        "source, paper or track, collection, topics, "
        "measure, system, role): fail | skip | update.",
    ),
    who: str = WhoOpt,
    consistency: str = ConsistencyOpt,
    json_out: Json = False,
):
    from litaudit.curation.result_requests import ResultsImport, answer_import
    from litaudit.render.curation import print_import
    from litaudit.render.progress import progress_bar

    req = ResultsImport(
        files=tuple(files),
        dry_run=dry_run,
        on_existing=on_existing,
        consistency=consistency,
        who=who,
    ).checked()
    with (
        open_write(ctx, migrate=not req.dry_run) as store,
        progress_bar("importing results", unit="rows", counts=("added",), quiet=json_out) as bar,
    ):
        reports = answer_import(store, req, progress=bar)
    print_import(reports, json_out)


def template(
    ctx: typer.Context,
    output: str = typer.Argument("-", help="Output CSV file, or - for standard output."),
):
    """Write an example results file (CSV) to fill in: every column, two real rows."""
    from litaudit.curation.result_requests import ResultsTemplate, answer_template
    from litaudit.render.results_write import print_template

    req = ResultsTemplate(output=output).checked()
    print_template(answer_template(req))


def edit(
    ctx: typer.Context,
    result_id: str = typer.Argument(..., help=ID_HELP),
    set_: list[str] = SetOpt,
    reason: str = reason_option(..., ""),
    who: str = WhoOpt,
    json_out: Json = False,
):
    """Change fields of a result; every change goes to history with the reason."""
    from litaudit.curation.result_requests import ResultEdit, answer_edit
    from litaudit.render.results_write import print_edited

    req = ResultEdit(result_id=result_id, assignments=tuple(set_), reason=reason, who=who).checked()
    with open_write(ctx) as store:
        edited = answer_edit(store, req)
    print_edited(edited, json_out)


def verify(
    ctx: typer.Context,
    result_ids: list[str] = typer.Argument(..., help=IDS_HELP),
    reason: str = reason_option(None, ""),
    who: str = WhoOpt,
):
    """Mark results as verified against their source."""
    from litaudit.curation.result_requests import ResultsStatus, answer_status
    from litaudit.render.progress import progress_bar
    from litaudit.render.results_write import DOING, print_statuses

    req = ResultsStatus(
        result_ids=tuple(result_ids), status="verified", reason=reason, who=who
    ).checked()
    done: list = []
    try:
        with (
            open_write(ctx) as store,
            progress_bar(DOING[req.status], len(req.result_ids), unit="results") as bar,
        ):
            answer_status(store, req, progress=bar, done=done.append)
    finally:
        print_statuses(done)


def retract(
    ctx: typer.Context,
    result_ids: list[str] = typer.Argument(..., help=IDS_HELP),
    reason: str = reason_option(..., ""),
    who: str = WhoOpt,
):
    """Retract results: they stay queryable but audits leave them out."""
    from litaudit.curation.result_requests import ResultsStatus, answer_status
    from litaudit.render.progress import progress_bar
    from litaudit.render.results_write import DOING, print_statuses

    req = ResultsStatus(
        result_ids=tuple(result_ids), status="retracted", reason=reason, who=who
    ).checked()
    done: list = []
    try:
        with (
            open_write(ctx) as store,
            progress_bar(DOING[req.status], len(req.result_ids), unit="results") as bar,
        ):
            answer_status(store, req, progress=bar, done=done.append)
    finally:
        print_statuses(done)


def reinstate(
    ctx: typer.Context,
    result_ids: list[str] = typer.Argument(..., help=IDS_HELP),
    reason: str = reason_option(..., ""),
    who: str = WhoOpt,
):
    """Make retracted results drafts again (to verify them anew); history records it."""
    from litaudit.curation.result_requests import ResultsStatus, answer_status
    from litaudit.render.progress import progress_bar
    from litaudit.render.results_write import DOING, print_statuses

    req = ResultsStatus(
        result_ids=tuple(result_ids), status="draft", reason=reason, who=who
    ).checked()
    done: list = []
    try:
        with (
            open_write(ctx) as store,
            progress_bar(DOING[req.status], len(req.result_ids), unit="results") as bar,
        ):
            answer_status(store, req, progress=bar, done=done.append)
    finally:
        print_statuses(done)


import_.__doc__ = import_help()  # the import format, in --help (the columns from their registry)
