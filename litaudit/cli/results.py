"""`litaudit results ...`: published results with provenance and history."""

from __future__ import annotations

from pathlib import Path

import typer

from litaudit.cli.common import open_read, open_write, parse_assignments
from litaudit.cli.options import CollectionOpt, Json, OptCollection

app = typer.Typer(
    help="Add, import, edit, verify, retract and export published results.", no_args_is_help=True
)

MeasureOpt = typer.Option(None, "--measure", "-m", help="Measure (AP, MAP, P@10, P_10, ...).")
WhoOpt = typer.Option(
    None, "--who", help="Curator name (default: $LITAUDIT_USER or login).", show_default=False
)


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


def _who(who):
    from litaudit.curation.fields import current_user

    return current_user(who)


# the first page in a terminal; more rows than PAGE_MAX are printed as plain lines
PAGE = 40
PAGE_MAX = 500
# the columns of the terminal's table: what a curator needs at 80 columns
TERMINAL_COLUMNS = ["id", "collection", "measure", "value", "system", "source", "year", "status"]


@app.command("list")
def list_(
    ctx: typer.Context,
    collection: OptCollection = None,
    measure: str = MeasureOpt,
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
    _print_listing(rows, total, given)


def _print_listing(rows: list[tuple], total: int, given: tuple[str, ...] = ()) -> None:
    """`results list`'s rows: a table that fits the terminal, or plain lines."""
    import sys

    from litaudit.curation.results import LIST_COLUMNS
    from litaudit.render.console import out, plain_rows, table

    headers = [h for h, _ in LIST_COLUMNS]
    if not out.is_terminal or len(rows) > PAGE_MAX:  # rich lays out ~1,000 rows a second
        lines = list(plain_rows(headers, rows))
        for i in range(0, len(lines), 4096):  # as --json: pieces, a closed pipe stops it
            sys.stdout.write("".join(line + "\n" for line in lines[i : i + 4096]))
        return
    # the collection or measure asked for goes in the title (every row has it), so that
    # 80 columns leave room for whole words
    same = [h for h in given if rows and len({r[headers.index(h)] for r in rows}) == 1]
    cols = [h for h in TERMINAL_COLUMNS if h not in same]
    shown = [headers.index(h) for h in cols]
    of = " ".join(str(rows[0][headers.index(h)]) for h in same)
    title = f"{total} results" + (f" ({of})" if of else "")
    title += f", the first {len(rows)}" if len(rows) < total else ""
    out.print(
        table(
            title,
            cols,
            [[r[i] for i in shown] for r in rows],
            keep=tuple(h for h in ("id", "measure", "year", "status") if h in cols),
        )
    )
    if len(rows) < total:
        out.print(f"{total - len(rows)} more: --all (or --limit N, --sort, a filter)")


_ID_HELP = "Result id: the local number, or the uid every clone shares (r-...)."
_IDS_HELP = "Result ids: local numbers, or uids every clone shares (r-...)."


@app.command("show")
def show(
    ctx: typer.Context,
    result_id: str = typer.Argument(..., help=_ID_HELP),
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
    out.print(
        table(
            "History",
            ["when", "who", "action", "field", "old", "new", "reason"],
            [
                (
                    x.changed_at,
                    x.who,
                    x.action,
                    x.field,
                    x.old_value,
                    x.new_value,
                    x.reason,
                )
                for x in h
            ],
        )
    )


@app.command("add")
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
        print_json({"id": rid, "flagged": [_finding_json(f) for f in flagged]})
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


@app.command("import", help=_import_help())
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
    _print_import(reports, json_out)


@app.command("template")
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


def _print_import(reports, json_out: bool) -> None:
    """What `results import` did (or would do), file by file."""
    from litaudit.render.console import out, print_json, table

    if json_out:
        print_json(
            [
                {
                    "file": r.file,
                    "results": r.added_results,
                    "papers": r.added_papers,
                    "skipped": r.skipped,
                    "updated": r.updated,
                    "unchanged": r.unchanged,
                    "history": r.history,
                    "dry_run": r.dry_run,
                    "flagged": [_finding_json(f) for f in p.findings],
                }
                for r, p in reports
            ]
        )
        return
    for rep, plan in reports:
        verb = "would add" if rep.dry_run else "added"
        extra = "".join(
            f", {'would ' if rep.dry_run else ''}{w} {n} {what}"
            for w, n, what in (
                ("skipped", rep.skipped, "already present"),
                ("updated", rep.updated, "existing"),
                ("left", rep.unchanged, "unchanged"),
                ("copied", rep.history, "history entries"),
            )
            if n
        )
        out.print(
            f"{rep.file}: {verb} {rep.added_results} results and {rep.added_papers} papers{extra}"
        )
        if rep.dry_run and plan.results:
            out.print(
                table(
                    None,
                    ["line", "collection", "measure", "value", "system", "role"],
                    [
                        (
                            p.line,
                            p.values["collection_id"],
                            p.values["measure"],
                            p.values["value_text"],
                            p.values["system"],
                            p.values["role"],
                        )
                        for p in plan.results[:50]
                    ],
                )
            )
            if len(plan.results) > 50:
                out.print(f"... and {len(plan.results) - 50} more")
        for f in plan.findings:
            out.print(f"flagged: {f.line()}" + (f" [other value: {f.other}]" if f.other else ""))


def _finding_json(f) -> dict:
    """A consistency finding as JSON (litaudit.curation.consistency.Finding)."""
    from dataclasses import asdict

    d = asdict(f)
    d["explanations"] = list(f.explanations)
    return d


@app.command("edit")
def edit(
    ctx: typer.Context,
    result_id: str = typer.Argument(..., help=_ID_HELP),
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


@app.command("verify")
def verify(
    ctx: typer.Context,
    result_ids: list[str] = typer.Argument(..., help=_IDS_HELP),
    reason: str = typer.Option(None, help="Note for the history."),
    who: str = WhoOpt,
):
    """Mark results as verified against their source."""
    _set_statuses(ctx, result_ids, "verified", reason=reason, who=_who(who))


@app.command("retract")
def retract(
    ctx: typer.Context,
    result_ids: list[str] = typer.Argument(..., help=_IDS_HELP),
    reason: str = typer.Option(..., help="Why (goes to history)."),
    who: str = WhoOpt,
):
    """Retract results: they stay queryable but audits leave them out."""
    _set_statuses(ctx, result_ids, "retracted", reason=reason, who=_who(who))


@app.command("reinstate")
def reinstate(
    ctx: typer.Context,
    result_ids: list[str] = typer.Argument(..., help=_IDS_HELP),
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


@app.command("history")
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
    from litaudit.render.console import out, print_json, table

    if result_id is None:
        if not (collection or since or until):
            raise LitauditError("give a result id, or --collection and/or --since/--until")
        with open_read(ctx) as store:
            rows = history_window(store.con, collection=collection, since=since, until=until)
        if json_out:
            print_json([x.as_dict() for x in rows])
            return
        _print_window(rows)
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
    out.print(
        table(
            f"History of result #{result_id}",
            ["when", "who", "action", "field", "old", "new", "reason"],
            [
                (
                    x.changed_at,
                    x.who,
                    x.action,
                    x.field,
                    x.old_value,
                    x.new_value,
                    x.reason,
                )
                for x in h
            ],
        )
    )


def _print_window(rows: list) -> None:
    from litaudit.render.console import out, table

    out.print(
        table(
            f"{len(rows)} changes",
            ["when", "who", "result", "collection", "measure", "system", "action", "field"]
            + ["old", "new", "reason"],
            [
                (
                    x.changed_at,
                    x.who,
                    x.result_id,
                    x.collection_id,
                    x.measure,
                    x.system,
                    x.action,
                    x.field,
                    x.old_value,
                    x.new_value,
                    x.reason,
                )
                for x in rows
            ],
        )
    )


@app.command("export")
def export(
    ctx: typer.Context,
    output: str = typer.Argument(..., help="Output file, or - for standard output."),
    fmt: str = typer.Option(
        None, "--format", help="csv | json | parquet (default: from the suffix)."
    ),
    collection: OptCollection = None,
    measure: str = MeasureOpt,
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


@app.command("consistency")
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
                    **_finding_json(f.finding),
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
