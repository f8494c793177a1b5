"""`litaudit results list`, `show`, `history`, `export` and `consistency`: the commands
that read published results (never modify the database). The commands that write them
are in cli/results_write.py."""

from __future__ import annotations

import typer

from litaudit.cli.common import open_read
from litaudit.cli.filter_options import (
    ReporterOpt,
    SinceOpt,
    SourceOpt,
    TrackOpt,
    UntilOpt,
    YearsOpt,
)
from litaudit.cli.options import (
    ID_HELP,
    Json,
    MeasureFilter,
    OptCollection,
    all_option,
    collection_option,
    format_option,
    since_option,
    until_option,
)
from litaudit.cli.result_options import paper_option, role_option
from litaudit.defaults import RESULTS_PAGE

StatusOpt = typer.Option(None, "--status", help="draft | verified | retracted.")


def list_(
    ctx: typer.Context,
    collection: OptCollection = None,
    measure: str = MeasureFilter,
    role: str = role_option(None, "default: all"),
    status: str = StatusOpt,
    source: str = SourceOpt,
    years: str = YearsOpt,
    paper: str = paper_option(None, "default: all"),
    track: str = TrackOpt,
    since: str = SinceOpt,
    until: str = UntilOpt,
    reporter: list[str] = ReporterOpt,
    limit: int = typer.Option(None, help="Show at most this many."),
    sort: str = typer.Option(
        "collection",
        "--sort",
        help="Order by collection | measure | value | year | date | system | source | role "
        "| status | id (ties by id).",
    ),
    desc: bool = typer.Option(False, "--desc", help="Largest first (--sort value --desc)."),
    all_: bool = all_option(f"in a terminal, every result (default: the first {RESULTS_PAGE})"),
    json_out: Json = False,
):
    """List results (retracted ones included, marked; filter with --status).

    In a terminal, the first 40 as a table (--all, --limit: more); to a pipe or a
    file, every result as plain aligned columns; --json: every field."""
    from litaudit.curation.results_requests import ResultFilter, ResultsList, answer_list
    from litaudit.render.console import out
    from litaudit.render.results_read import print_results

    req = ResultsList(
        given=ResultFilter(
            role=role,
            status=status,
            source=source,
            years=years,
            paper=paper,
            track=track,
            since=since,
            until=until,
            reporters=tuple(reporter or ()),
        ),
        collection=collection,
        measure=measure,
        sort=sort,
        desc=desc,
        limit=limit,
        all_=all_,
        terminal=out.is_terminal,
        json=json_out,
    ).checked()
    with open_read(ctx) as store:  # --json: its rows are read as they are written
        print_results(answer_list(store.con, req))


def show(
    ctx: typer.Context,
    result_id: str = typer.Argument(..., help=ID_HELP),
    json_out: Json = False,
):
    """One result with its full provenance and history."""
    from litaudit.curation.results_requests import shown_result
    from litaudit.render.results_read import print_result

    with open_read(ctx) as store:
        shown = shown_result(store.con, result_id)
    print_result(shown, json_out)


def history_(
    ctx: typer.Context,
    result_id: str = typer.Argument(None, help="Result id or uid (or --collection / a window)."),
    collection: str = collection_option(None, "changes to its results"),
    since: str = since_option("changes made then or later (UTC)"),
    until: str = until_option("changes made then or earlier (UTC)"),
    json_out: Json = False,
):
    """Every change to a result, or to a collection's results in a date window
    (`results history -c robust04 --since 2026-11-18`)."""
    from litaudit.curation.results_requests import HistoryRequest, answer_history
    from litaudit.render.results_read import print_result_history

    req = HistoryRequest(
        result_id=result_id, collection=collection, since=since, until=until
    ).checked()
    with open_read(ctx) as store:
        answer = answer_history(store.con, req)
    print_result_history(answer, json_out)


def export(
    ctx: typer.Context,
    output: str = typer.Argument(..., help="Output file, or - for standard output."),
    fmt: str = format_option(None, "csv | json | parquet (default: from the suffix)"),
    collection: OptCollection = None,
    measure: str = MeasureFilter,
    role: str = role_option(None, "default: all"),
    status: str = StatusOpt,
    source: str = SourceOpt,
    years: str = YearsOpt,
    paper: str = paper_option(None, "default: all"),
    track: str = TrackOpt,
):
    """Export results in the import format (export then import reproduces every row).

    JSON is the curation export: the results with every paper (notes included, with or
    without results; with a filter, the papers of the results exported) and the whole
    history (edits, reasons, verifications, retractions)."""
    from litaudit.cli.common import db_path
    from litaudit.curation.results_requests import ResultFilter, ResultsExport, answer_export
    from litaudit.render.progress import progress_bar
    from litaudit.render.results_read import print_export

    req = ResultsExport(
        output=output,
        fmt=fmt,
        given=ResultFilter(
            role=role, status=status, source=source, years=years, paper=paper, track=track
        ),
        collection=collection,
        measure=measure,
        protect=(db_path(ctx),),
    ).checked()
    with (
        progress_bar(f"export {req.fmt}: reading", unit="rows") as bar,
        open_read(ctx) as store,
    ):
        done = answer_export(store, req, progress=bar)
    print_export(done)


def consistency_(
    ctx: typer.Context,
    open_only: bool = typer.Option(False, "--open", help="Only findings nobody curated."),
    strict: bool = typer.Option(False, "--strict", help="Exit 1 if any finding is open."),
    json_out: Json = False,
):
    """Values their measure's arithmetic does not allow, over the whole store.

    P@k over n topics is a multiple of 1/(k n), RR@1 of 1/n: a printed value no count
    produces at its digits; a value out of its measure's range; two measures of one system
    that contradict each other (R@100 above R@1000, 5 x P@5 above 10 x P@10). Each with
    the possible explanations (transcription slip, another topic count, truncation,
    mislabelled measure). Curated findings (the seeds' in seeds/consistency.csv, or a
    result whose notes hold 'consistency: ...') are listed as such."""
    from litaudit.curation.results_requests import answer_consistency
    from litaudit.render.results_read import print_consistency

    with open_read(ctx) as store:
        rep = answer_consistency(store.con, open_only=open_only, strict=strict)
    print_consistency(rep, json_out)
    if rep.failed:
        raise typer.Exit(1)
