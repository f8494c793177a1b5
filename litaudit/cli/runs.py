"""`litaudit runs ...`: TREC run archives (import, list, show, delete, eval)."""

from __future__ import annotations

from pathlib import Path

import typer

from litaudit.cli.common import db_path, open_read, open_write
from litaudit.cli.options import CollectionOpt, Json, OptCollection


def import_(
    ctx: typer.Context,
    files: list[Path] = typer.Argument(..., help="Run files (plain or .gz) or directories."),
    collection: str = CollectionOpt,
    qrels: Path = typer.Option(None, "--qrels", help="Qrels file (topic iter docno rel)."),
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
    from litaudit.render.console import out, print_json
    from litaudit.render.progress import progress_bar
    from litaudit.runs.ingest import expand_paths, import_archive
    from litaudit.store.collections import resolve_collection

    paths = expand_paths(files)
    with (
        open_write(ctx) as store,
        progress_bar(
            "importing runs", len(paths), unit="files", counts=("lines",), quiet=json_out
        ) as bar,
    ):
        coll = resolve_collection(store.con, collection)
        rep = import_archive(
            store,
            coll.id,
            paths,
            qrels_path=qrels,
            metadata=metadata,
            lenient=lenient,
            progress=bar,
        )
    from litaudit.render.console import err

    for w in rep.warnings:  # on stderr, with --json too
        err.print(f"warning: {w}", markup=False)
    if json_out:
        print_json(rep)
        return
    out.print(
        f"{coll.id}: qrels {rep.qrels} ({rep.n_judgments} judgments); "
        f"{len(rep.imported)} run(s) imported ({rep.lines} lines"
        f"{f', {rep.skipped} bad lines skipped' if rep.skipped else ''}), "
        f"{len(rep.unchanged)} unchanged"
    )


def list_(
    ctx: typer.Context,
    collection: OptCollection = None,
    json_out: Json = False,
):
    """List the stored runs."""
    from litaudit.render.console import out, print_json, table
    from litaudit.runs.archive import list_runs
    from litaudit.store.collections import resolve_collection

    with open_read(ctx) as store:
        cid = resolve_collection(store.con, collection).id if collection else None
        rows = list_runs(store.con, cid)
    if json_out:
        from dataclasses import asdict

        print_json([{**asdict(r), "complete": r.complete} for r in rows])
        return
    if not rows:
        out.print("no runs stored")
        return
    out.print(
        table(
            None,
            ["collection", "tag", "participant", "type", "pooled", "topics", "lines", "status"],
            [
                [
                    r.collection_id,
                    r.tag,
                    r.participant,
                    r.run_type,
                    r.pooled,
                    r.n_topics,
                    r.n_lines,
                    "complete" if r.complete else "INCOMPLETE",
                ]
                for r in rows
            ],
        )
    )
    bad = [r for r in rows if not r.complete]
    if bad:
        from litaudit.runs.archive import incomplete_message

        out.print(incomplete_message(bad[0].collection_id, bad[0].tag, bad[0].path), markup=False)


def show(
    ctx: typer.Context,
    tag: str = typer.Argument(..., help="Run tag."),
    collection: OptCollection = None,
    json_out: Json = False,
):
    """Show one stored run's metadata."""
    from litaudit.render.console import out, print_json
    from litaudit.runs.archive import get_run
    from litaudit.store.collections import resolve_collection

    with open_read(ctx) as store:
        cid = resolve_collection(store.con, collection).id if collection else None
        r = get_run(store.con, tag, cid)
    if json_out:
        from dataclasses import asdict

        print_json({**asdict(r), "complete": r.complete})
        return
    for k, v in [
        ("tag", r.tag),
        ("collection", r.collection_id),
        ("participant", r.participant),
        ("run type", r.run_type),
        ("pooled", r.pooled),
        ("topics", r.n_topics),
        ("lines", r.n_lines),
        ("bad lines skipped", r.n_skipped),
        ("file", r.path),
        ("sha256", r.sha256),
        ("status", "complete" if r.complete else "INCOMPLETE"),
    ]:
        out.print(f"{k:>18}: {'' if v is None else v}", markup=False)
    if not r.complete:
        from litaudit.runs.archive import incomplete_message

        out.print(incomplete_message(r.collection_id, r.tag, r.path), markup=False)


def delete(
    ctx: typer.Context,
    tags: list[str] = typer.Argument(None, help="Run tags to delete."),
    collection: str = CollectionOpt,
    all_: bool = typer.Option(
        False, "--all", help="Delete the collection's whole archive and qrels."
    ),
):
    """Delete stored runs (or, with --all, a collection's whole archive)."""
    from litaudit.errors import ParameterError
    from litaudit.render.console import out
    from litaudit.render.progress import progress_bar
    from litaudit.runs.archive import delete_runs, list_runs
    from litaudit.store.collections import resolve_collection

    if bool(tags) == all_:
        raise ParameterError("give run tags or --all (not both)")
    with open_write(ctx) as store:
        cid = resolve_collection(store.con, collection).id
        total = len(tags) if tags else len(list_runs(store.con, cid))
        with progress_bar("deleting runs", total, unit="runs", counts=("lines",)) as bar:
            n = delete_runs(store, cid, None if all_ else tags, progress=bar)
    out.print(f"{cid}: deleted {n} run(s)" + (" and the qrels" if all_ else ""))


def eval_(
    ctx: typer.Context,
    collection: str = CollectionOpt,
    measure: list[str] = typer.Option(
        ["AP"], "--measure", "-m", help="Measure (ir_measures or trec_eval name); repeat."
    ),
    run: list[str] = typer.Option(None, "--run", help="Only these run tags; repeat."),
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
