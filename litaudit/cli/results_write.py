"""`litaudit results add`, `import`, `template`, `edit`, `verify`, `retract` and
`reinstate`: the commands that write published results (each in one transaction). The
commands that read them are in cli/results_read.py."""

from __future__ import annotations

from pathlib import Path

import typer

from litaudit.cli.common import open_write, parse_assignments
from litaudit.cli.options import ID_HELP, IDS_HELP, CollectionOpt, Json

WhoOpt = typer.Option(
    None, "--who", help="Curator name (default: $LITAUDIT_USER or login).", show_default=False
)


def _who(who):
    from litaudit.curation.fields import current_user

    return current_user(who)


def add(
    ctx: typer.Context,
    collection: str = CollectionOpt,
    measure: str = typer.Option(..., "--measure", "-m", help="Measure, e.g. AP or P@10."),
    value: str = typer.Option(..., help="The value exactly as printed, e.g. 0.2531."),
    system: str = typer.Option(..., help="System label or run id."),
    role: str = typer.Option(
        ..., help="proposed | baseline | official | reproduction | leaderboard"
    ),
    paper: str = typer.Option(None, help="Paper bibkey (source paper)."),
    track: str = typer.Option(None, help="TREC track (source official), e.g. trec7/adhoc."),
    run_type: str = typer.Option(None, help="automatic | manual"),
    n_topics: int = typer.Option(None, help="Number of topics (default: the collection's)."),
    topic_set: str = typer.Option(None, help="Topic set name."),
    year: int = typer.Option(None, help="Year (default: the paper's)."),
    participant: str = typer.Option(None, help="TREC group / site."),
    location: str = typer.Option(None, help="Where in the source: table, figure, page."),
    nonstandard: bool = typer.Option(False, help="Flag a non-standard experimental setting."),
    notes: str = typer.Option(None, help="Free-text notes."),
    date: str = typer.Option(
        None,
        "--date",
        help="Publication or submission date (YYYY-MM-DD); the year defaults to its year.",
    ),
    reporter: str = typer.Option(
        None,
        "--reporter",
        help="Who reported the value: authors, nist, leaderboard, mteb, unknown.",
    ),
    url: str = typer.Option(None, "--url", help="The result's own source (http(s))."),
    code_url: str = typer.Option(None, "--code-url", help="Its code (http(s))."),
    who: str = WhoOpt,
    json_out: Json = False,
):
    """Add one result (validated like an import)."""
    from litaudit.curation.results import add_result
    from litaudit.render.console import out, print_json
    from litaudit.render.findings import finding_json

    data = {
        "source": "official" if track and not paper else "paper",
        "paper": paper,
        "track": track,
        "collection": collection,
        "measure": measure,
        "value": value,
        "system": system,
        "role": role,
        "run_type": run_type,
        "n_topics": n_topics,
        "topic_set": topic_set,
        "year": year,
        "participant": participant,
        "location": location,
        "standard": "false" if nonstandard else "true",
        "notes": notes,
        "date": date,
        "reporter": reporter,
        "url": url,
        "code_url": code_url,
    }
    data = {k: ("" if v is None else str(v)) for k, v in data.items()}
    with open_write(ctx) as store:
        rid = add_result(store, data, who=_who(who))
        from dataclasses import replace

        from litaudit.curation.consistency import check_values
        from litaudit.curation.consistency_rows import values_of_rows
        from litaudit.curation.rows import Row

        vals = values_of_rows(store.con, [Row(1, data)], "")
        flagged = check_values([replace(v, where=f"result #{rid}") for v in vals])
    if json_out:
        print_json({"id": rid, "flagged": [finding_json(f) for f in flagged]})
    else:
        out.print(f"added result #{rid}")
        for f in flagged:  # the value consistency check (README, "Value consistency")
            out.print(f"flagged: {f.line()}")


def _import_help() -> str:
    from litaudit.curation.columns import column_help

    return (
        "Import results: every file is validated whole, and all files are written in one "
        "transaction: any problem in any file writes nothing.\n\n"
        "A CSV (or .tsv), JSON list or Parquet file of rows with these columns (a JSON "
        "curation export also brings papers and history); `litaudit results template "
        "FILE` writes an example. A row already stored exactly so is left unchanged. In a "
        "CSV, a text cell written with an apostrophe before =, +, -, @, tab or CR (as "
        "`results export` writes them) is read without it.\n\n\b\n" + column_help()
    )


def import_(
    ctx: typer.Context,
    files: list[Path] = typer.Argument(
        ..., help="CSV, JSON or Parquet files (a JSON curation export brings papers and history)."
    ),
    dry_run: bool = typer.Option(False, "--dry-run", help="Validate and show; write nothing."),
    on_existing: str = typer.Option(
        "fail",
        "--on-existing",
        help="A row already in the database (same "
        "source, paper or track, collection, topics, "
        "measure, system, role): fail | skip | update.",
    ),
    who: str = WhoOpt,
    consistency: str = typer.Option(
        "flag",
        "--consistency",
        help="A value its measure's arithmetic does not allow (P@k over n topics not a "
        "multiple of 1/(k n) at its digits, out of range, R@100 above R@1000): flag | "
        "refuse | off.",
    ),
    json_out: Json = False,
):
    from litaudit.curation.importer import import_files
    from litaudit.render.progress import progress_bar

    with (
        open_write(ctx, migrate=not dry_run) as store,
        progress_bar("importing results", unit="rows", counts=("added",), quiet=json_out) as bar,
    ):
        reports = import_files(
            store,
            files,
            who=_who(who),
            dry_run=dry_run,
            on_existing=on_existing.strip().lower(),
            progress=bar,
            consistency=consistency.strip().lower(),
        )
    from litaudit.render.curation import print_import

    print_import(reports, json_out)


def template(
    ctx: typer.Context,
    output: str = typer.Argument("-", help="Output CSV file, or - for standard output."),
):
    """Write an example results file (CSV) to fill in: every column, two real rows."""
    from litaudit.curation.export import write_export
    from litaudit.curation.template import template_rows
    from litaudit.files import STDOUT, check_target
    from litaudit.render.console import out

    if output != STDOUT:
        check_target(output, [])
    rows = template_rows()
    write_export(rows, output, "csv")
    if output != STDOUT:
        out.print(
            f"wrote {len(rows)} example rows to {output}; see `litaudit results import --help`"
        )


def edit(
    ctx: typer.Context,
    result_id: str = typer.Argument(..., help=ID_HELP),
    set_: list[str] = typer.Option(..., "--set", help="FIELD=VALUE (repeatable)."),
    reason: str = typer.Option(..., help="Why (goes to history)."),
    who: str = WhoOpt,
    json_out: Json = False,
):
    """Change fields of a result; every change goes to history with the reason."""
    from litaudit.curation.results import edit_result
    from litaudit.render.console import out, print_json
    from litaudit.store.results import resolve_id

    changes = parse_assignments(set_)
    with open_write(ctx) as store:
        result_id = str(rid := resolve_id(store.con, result_id))
        log = edit_result(store, rid, changes, reason=reason, who=_who(who))
    if json_out:
        print_json([{"field": f, "old": o, "new": n} for f, o, n in log])
    elif log:
        for f, o, n in log:
            out.print(f"#{result_id} {f}: {o} -> {n}")
    else:
        out.print(f"#{result_id}: nothing changed")


def verify(
    ctx: typer.Context,
    result_ids: list[str] = typer.Argument(..., help=IDS_HELP),
    reason: str = typer.Option(None, help="Note for the history."),
    who: str = WhoOpt,
):
    """Mark results as verified against their source."""
    _set_statuses(ctx, result_ids, "verified", reason=reason, who=_who(who))


def retract(
    ctx: typer.Context,
    result_ids: list[str] = typer.Argument(..., help=IDS_HELP),
    reason: str = typer.Option(..., help="Why (goes to history)."),
    who: str = WhoOpt,
):
    """Retract results: they stay queryable but audits leave them out."""
    _set_statuses(ctx, result_ids, "retracted", reason=reason, who=_who(who))


def reinstate(
    ctx: typer.Context,
    result_ids: list[str] = typer.Argument(..., help=IDS_HELP),
    reason: str = typer.Option(..., help="Why (goes to history)."),
    who: str = WhoOpt,
):
    """Make retracted results drafts again (to verify them anew); history records it."""
    _set_statuses(ctx, result_ids, "draft", reason=reason, who=_who(who))


_DOING = {"verified": "verifying", "retracted": "retracting", "draft": "reinstating"}
_DONE = {"verified": "verified", "retracted": "retracted", "draft": "reinstated (a draft)"}


def _set_statuses(ctx: typer.Context, result_ids, status: str, *, reason, who: str) -> None:
    """verify / retract each result (one transaction each, ~20 ms: a bar for many); a
    line per result, printed after the bar (and up to a failure, before its error)."""
    from litaudit.curation.results import set_status
    from litaudit.render.console import out
    from litaudit.render.progress import progress_bar
    from litaudit.store.results import resolve_id

    lines = []
    try:
        with (
            open_write(ctx) as store,
            progress_bar(_DOING[status], len(result_ids), unit="results") as bar,
        ):
            for rid in [resolve_id(store.con, x) for x in result_ids]:
                changed = set_status(store, rid, status, reason=reason, who=who)
                lines.append(
                    f"#{rid} {_DONE[status]}" if changed else f"#{rid} was already {status}"
                )
                bar(1)
    finally:
        for line in lines:
            out.print(line)


import_.__doc__ = (
    _import_help()
)  # the import format, in --help (the columns read from their registry)
