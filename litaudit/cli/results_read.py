"""`litaudit results list`, `show`, `history`, `export` and `consistency`: the commands
that read published results (never modify the database). The commands that write them
are in cli/results_write.py."""

from __future__ import annotations

from pathlib import Path

import typer

from litaudit.cli.common import open_read
from litaudit.cli.options import ID_HELP, Json, MeasureFilter, OptCollection


def _filter(role, status, source, years, paper, track, since=None, until=None, reporter=None):
    """The curation filter (retracted and non-standard results shown) from the options."""
    from litaudit.curation.filters import Filters

    return Filters.parse(
        roles=[role] if role else (),
        statuses=[status] if status else (),
        source=source,
        years=years,
        paper=paper,
        track=track,
        since=since,
        until=until,
        reporters=reporter or (),
        include_retracted=True,
        include_nonstandard=True,
    )


# the first page in a terminal (more than render.curation.PAGE_MAX are plain lines)
PAGE = 40


def list_(
    ctx: typer.Context,
    collection: OptCollection = None,
    measure: str = MeasureFilter,
    role: str = typer.Option(
        None, help="proposed | baseline | official | reproduction | leaderboard"
    ),
    status: str = typer.Option(None, help="draft | verified | retracted"),
    source: str = typer.Option(None, help="papers | official"),
    years: str = typer.Option(None, help="YEAR or FROM-TO"),
    paper: str = typer.Option(None, help="Paper bibkey."),
    track: str = typer.Option(
        None,
        help="Track, e.g. trec7/adhoc, or a prefix ending in '/' (msmarco-passage/leaderboard/).",
    ),
    since: str = typer.Option(
        None,
        "--since",
        help="Dated on or after (YYYY, YYYY-MM or YYYY-MM-DD); undated results by year.",
    ),
    until: str = typer.Option(
        None, "--until", help="Dated on or before (YYYY, YYYY-MM or YYYY-MM-DD)."
    ),
    reporter: list[str] = typer.Option(
        None,
        "--reporter",
        help="Who reported: authors, nist, leaderboard, mteb, unknown (repeatable).",
    ),
    limit: int = typer.Option(None, help="Show at most this many."),
    sort: str = typer.Option(
        "collection",
        "--sort",
        help="Order by collection | measure | value | year | date | system | source | role "
        "| status | id (ties by id).",
    ),
    desc: bool = typer.Option(False, "--desc", help="Largest first (--sort value --desc)."),
    all_: bool = typer.Option(
        False, "--all", help=f"In a terminal, every result (default: the first {PAGE})."
    ),
    json_out: Json = False,
):
    """List results (retracted ones included, marked; filter with --status).

    In a terminal, the first 40 as a table (--all, --limit: more); to a pipe or a
    file, every result as plain aligned columns; --json: every field."""
    import sys

    from litaudit.curation.results import list_json, list_table
    from litaudit.render.console import out, terminal_json

    filt = _filter(role, status, source, years, paper, track, since, until, reporter)
    with open_read(ctx) as store:
        if json_out:
            for piece in list_json(
                store.con,
                filt,
                collection=collection,
                measure=measure,
                sort=sort,
                desc=desc,
                limit=limit,
            ):
                sys.stdout.write(terminal_json(piece))
            return
        page = out.is_terminal and not all_ and limit is None
        rows, total = list_table(
            store.con,
            filt,
            collection=collection,
            measure=measure,
            sort=sort,
            desc=desc,
            limit=PAGE if page else limit,
        )
    given = tuple(h for h, v in (("collection", collection), ("measure", measure)) if v)
    from litaudit.render.curation import print_listing

    print_listing(rows, total, given)


def show(
    ctx: typer.Context,
    result_id: str = typer.Argument(..., help=ID_HELP),
    json_out: Json = False,
):
    """One result with its full provenance and history."""
    from litaudit.curation.results import get_result, history
    from litaudit.render.console import out, print_json, table
    from litaudit.store.results import resolve_id

    with open_read(ctx) as store:
        rid = resolve_id(store.con, result_id)
        r = get_result(store.con, rid)
        h = history(store.con, "result", rid)
    if json_out:
        print_json({**r.as_dict(), "history": [x.as_dict() for x in h]})
        return
    out.print(
        table(
            f"Result #{rid} ({r.uid})",
            ["field", "value"],
            [(k, v) for k, v in r.as_dict().items() if k != "value"],
            justify_numbers=False,
        )
    )
    from litaudit.render.curation import print_history

    print_history("History", h)


def history_(
    ctx: typer.Context,
    result_id: str = typer.Argument(None, help="Result id or uid (or --collection / a window)."),
    collection: str = typer.Option(
        None, "--collection", "-c", help="Changes to this collection's results."
    ),
    since: str = typer.Option(
        None, "--since", help="Changes made on or after (YYYY, YYYY-MM or YYYY-MM-DD, UTC)."
    ),
    until: str = typer.Option(None, "--until", help="Changes made on or before (same forms)."),
    json_out: Json = False,
):
    """Every change to a result, or to a collection's results in a date window
    (`results history -c robust04 --since 2026-11-18`)."""
    from litaudit.curation.results import get_result, history, history_window
    from litaudit.errors import LitauditError
    from litaudit.render.console import print_json

    if result_id is None:
        if not (collection or since or until):
            raise LitauditError("give a result id, or --collection and/or --since/--until")
        with open_read(ctx) as store:
            rows = history_window(store.con, collection=collection, since=since, until=until)
        if json_out:
            print_json([x.as_dict() for x in rows])
            return
        from litaudit.render.curation import print_window

        print_window(rows)
        return
    if collection or since or until:
        raise LitauditError("give a result id or --collection/--since/--until, not both")
    from litaudit.store.results import resolve_id

    with open_read(ctx) as store:
        result_id = str(rid := resolve_id(store.con, result_id))
        get_result(store.con, rid)
        h = history(store.con, "result", rid)
    if json_out:
        print_json([x.as_dict() for x in h])
        return
    from litaudit.render.curation import print_history

    print_history(f"History of result #{result_id}", h)


def export(
    ctx: typer.Context,
    output: str = typer.Argument(..., help="Output file, or - for standard output."),
    fmt: str = typer.Option(
        None, "--format", help="csv | json | parquet (default: from the suffix)."
    ),
    collection: OptCollection = None,
    measure: str = MeasureFilter,
    role: str = typer.Option(None),
    status: str = typer.Option(None),
    source: str = typer.Option(None),
    years: str = typer.Option(None),
    paper: str = typer.Option(None),
    track: str = typer.Option(None),
):
    """Export results in the import format (export then import reproduces every row).

    JSON is the curation export: the results with every paper (notes included, with or
    without results; with a filter, the papers of the results exported) and the whole
    history (edits, reasons, verifications, retractions)."""
    from litaudit.cli.common import db_path
    from litaudit.curation.export import export_rows, export_steps, format_for, write_export
    from litaudit.files import STDOUT, check_target
    from litaudit.render.console import err, out
    from litaudit.render.progress import progress_bar

    f = format_for(Path(output), fmt)
    if output != STDOUT:
        check_target(output, [db_path(ctx)])  # before any work
    filt = _filter(role, status, source, years, paper, track)
    with progress_bar(f"export {f}: reading", unit="rows") as bar:
        with open_read(ctx) as store:
            filt = filt.resolved(store.con, collection, measure)
            bundle = None
            if f == "json":  # the curation export: its results are the rows
                from litaudit.curation.bundle import export_bundle

                bundle = export_bundle(store.con, filt)
                rows = bundle["results"]
            else:
                rows = export_rows(store.con, filt)
        bar.update(description=f"export {f}: writing", total=export_steps(rows, f, bundle))
        write_export(rows, output, f, protect=[db_path(ctx)], bundle=bundle, progress=bar)
    extra = (
        f", {len(bundle['papers'])} papers and {len(bundle['history'])} history entries"
        if bundle
        else ""
    )
    msg = f"wrote {len(rows)} results{extra} to {output} ({f})"
    (err if output == STDOUT else out).print(msg)


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
    from litaudit.curation.consistency_rows import seed_annotations, store_findings
    from litaudit.render.console import out, print_json, table
    from litaudit.render.findings import finding_json

    with open_read(ctx) as store:
        found = store_findings(
            store.con, include_curated=not open_only, annotations=seed_annotations()
        )
    n_open = sum(1 for f in found if not f.curated)
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
    else:
        out.print(f"{len(found)} finding(s), {n_open} open, {len(found) - n_open} curated")
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
    if strict and n_open:
        raise typer.Exit(1)
