"""`litaudit runs ...`: TREC run archives (import, list, show, delete, eval)."""

from __future__ import annotations

from pathlib import Path

import typer

from litaudit.cli.common import db_path, open_read, open_write
from litaudit.cli.options import (
    CollectionOpt,
    Json,
    OldRunTag,
    OldWholeArchive,
    OptCollection,
    measure_option,
    qrels_option,
)


def import_(
    ctx: typer.Context,
    files: list[Path] = typer.Argument(..., help="Run files (plain or .gz) or directories."),
    collection: str = CollectionOpt,
    qrels: Path = qrels_option("the collection's judgments"),
    metadata: Path = typer.Option(
        None,
        "--metadata",
        help="CSV with tag, participant, run_type, pooled (default: the official results seeded).",
    ),
    lenient: bool = typer.Option(
        False, "--lenient", help="Skip bad lines (counted) instead of refusing the file."
    ),
    json_out: Json = False,
):
    """Validate and store run files (and the collection's qrels); all or nothing."""
    from litaudit.render.progress import progress_bar
    from litaudit.render.runs import print_runs_import
    from litaudit.runs.requests import RunsImport, answer_import

    req = RunsImport(
        collection=collection, files=tuple(files), qrels=qrels, metadata=metadata, lenient=lenient
    ).checked()
    with (
        open_write(ctx) as store,
        progress_bar("importing runs", unit="files", counts=("lines",), quiet=json_out) as bar,
    ):
        rep = answer_import(store, req, progress=bar)
    print_runs_import(rep, json_out)


def list_(
    ctx: typer.Context,
    collection: OptCollection = None,
    json_out: Json = False,
):
    """List the stored runs."""
    from litaudit.render.runs import print_runs
    from litaudit.runs.requests import stored_runs

    with open_read(ctx) as store:
        rows = stored_runs(store.con, collection)
    print_runs(rows, json_out)


def show(
    ctx: typer.Context,
    tag: str = typer.Argument(..., help="Run tag."),
    collection: OptCollection = None,
    json_out: Json = False,
):
    """Show one stored run's metadata."""
    from litaudit.render.runs import print_run
    from litaudit.runs.requests import stored_run

    with open_read(ctx) as store:
        r = stored_run(store.con, tag, collection)
    print_run(r, json_out)


def delete(
    ctx: typer.Context,
    tags: list[str] = typer.Argument(None, help="Run tags to delete."),
    collection: str = CollectionOpt,
    all_: bool = typer.Option(
        False, "--whole-archive", help="Delete the collection's whole archive and qrels."
    ),
    _old_all: OldWholeArchive = None,
):
    """Delete stored runs (or, with --whole-archive, a collection's whole archive)."""
    from litaudit.render.progress import progress_bar
    from litaudit.render.runs import print_deleted
    from litaudit.runs.requests import RunsDelete, answer_delete

    req = RunsDelete(collection=collection, tags=tuple(tags or ()), everything=all_).checked()
    with (
        open_write(ctx) as store,
        progress_bar("deleting runs", unit="runs", counts=("lines",)) as bar,
    ):
        done = answer_delete(store, req, progress=bar)
    print_deleted(done)


def eval_(
    ctx: typer.Context,
    collection: str = CollectionOpt,
    measure: list[str] = measure_option(["AP"], "repeat for several"),
    run: list[str] = typer.Option(
        None, "--run-tag", help="Only these stored runs, by tag; repeat."
    ),
    _old_run: OldRunTag = None,
    per_topic: bool = typer.Option(False, "--per-topic", help="One row per run and topic."),
    rel_level: int = typer.Option(1, "--rel-level", help="Lowest relevant grade (-l)."),
    complete: bool = typer.Option(
        False, "--complete", help="Score topics missing from a run as 0 (trec_eval -c)."
    ),
    cache: bool = typer.Option(
        True,
        "--cache/--no-cache",
        help="Read and keep the values in the database's store of "
        "evaluations (kept per archive state).",
    ),
    json_out: Json = False,
):
    """Evaluate stored runs as trec_eval does (mean over topics, or --per-topic).

    Values computed are kept in the database with the archive's fingerprint (when the
    database can be written: it is then opened for writing, and other processes cannot
    open it until the command ends), so asking again reads them; importing or deleting runs
    drops them. --no-cache opens it read-only."""
    from litaudit.render.progress import progress_bar
    from litaudit.render.runs import print_evaluation
    from litaudit.runs.archive_eval import evaluate_archive

    with progress_bar("evaluating runs", unit="runs", counts=("lines",), quiet=json_out) as bar:
        res = evaluate_archive(
            db_path(ctx),
            collection,
            measure,
            tags=run or None,
            rel_level=rel_level,
            complete=complete,
            cache=cache,
            progress=bar,
        )
    print_evaluation(res, per_topic=per_topic, json_out=json_out)
