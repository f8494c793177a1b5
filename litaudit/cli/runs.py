"""`litaudit runs ...`: TREC run archives (import, list, show, delete, eval)."""

from __future__ import annotations

from pathlib import Path

import typer

from litaudit.cli.common import JsonOpt, db_path, open_read, open_write

app = typer.Typer(
    help="Import TREC run archives and evaluate them as trec_eval does.", no_args_is_help=True
)

CollectionOpt = typer.Option(..., "--collection", "-c", help="Collection (any alias).")


@app.command("import")
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
    json_: bool = JsonOpt,
):
    """Validate and store run files (and the collection's qrels); all or nothing."""
    from litaudit.render.console import out, print_json
    from litaudit.render.progress import progress_bar
    from litaudit.runs.ingest import expand_paths, import_archive
    from litaudit.store.refdata import resolve_collection

    paths = expand_paths(files)
    with (
        open_write(ctx) as store,
        progress_bar(
            "importing runs", len(paths), unit="files", counts=("lines",), quiet=json_
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
            progress=lambda n, lines: bar.advance(n, lines=lines),
        )
    if json_:
        print_json(rep)
        return
    out.print(
        f"{coll.id}: qrels {rep.qrels} ({rep.n_judgments} judgments); "
        f"{len(rep.imported)} run(s) imported ({rep.lines} lines"
        f"{f', {rep.skipped} bad lines skipped' if rep.skipped else ''}), "
        f"{len(rep.unchanged)} unchanged"
    )


@app.command("list")
def list_(
    ctx: typer.Context,
    collection: str = typer.Option(None, "--collection", "-c", help="Only this one."),
    json_: bool = JsonOpt,
):
    """List the stored runs."""
    from litaudit.render.console import out, print_json, table
    from litaudit.runs.archive import list_runs
    from litaudit.store.refdata import resolve_collection

    with open_read(ctx) as store:
        cid = resolve_collection(store.con, collection).id if collection else None
        rows = list_runs(store.con, cid)
    if json_:
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


@app.command("show")
def show(
    ctx: typer.Context,
    tag: str = typer.Argument(..., help="Run tag."),
    collection: str = typer.Option(None, "--collection", "-c"),
    json_: bool = JsonOpt,
):
    """Show one stored run's metadata."""
    from litaudit.render.console import out, print_json
    from litaudit.runs.archive import get_run
    from litaudit.store.refdata import resolve_collection

    with open_read(ctx) as store:
        cid = resolve_collection(store.con, collection).id if collection else None
        r = get_run(store.con, tag, cid)
    if json_:
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


@app.command("delete")
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
    from litaudit.store.refdata import resolve_collection

    if bool(tags) == all_:
        raise ParameterError("give run tags or --all (not both)")
    with open_write(ctx) as store:
        cid = resolve_collection(store.con, collection).id
        total = len(tags) if tags else len(list_runs(store.con, cid))
        with progress_bar("deleting runs", total, unit="runs", counts=("lines",)) as bar:
            n = delete_runs(
                store,
                cid,
                None if all_ else tags,
                progress=lambda k, lines: bar.advance(k, lines=lines),
            )
    out.print(f"{cid}: deleted {n} run(s)" + (" and the qrels" if all_ else ""))


@app.command("eval")
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
    json_: bool = JsonOpt,
):
    """Evaluate stored runs as trec_eval does (mean over topics, or --per-topic).

    Values computed are kept in the database with the archive's fingerprint (when the
    database can be written: it is then opened for writing, and other processes cannot
    open it until the command ends), so asking again reads them; importing or deleting runs
    drops them. --no-cache opens it read-only."""
    import duckdb

    from litaudit.render.progress import progress_bar
    from litaudit.runs.evalcache import evaluate_cached, save
    from litaudit.store.refdata import resolve_collection

    with _open_for_eval(ctx, cache) as store:
        cid = resolve_collection(store.con, collection).id
        n_runs = (
            len(run)
            if run
            else store.con.execute(
                "SELECT count(*) FROM runs WHERE collection_id = ?", [cid]
            ).fetchall()[0][0]
        )
        with progress_bar(
            "evaluating runs", n_runs, unit="runs", counts=("lines",), quiet=json_
        ) as bar:
            ev, pending = evaluate_cached(
                store.con,
                cid,
                measure,
                tags=run or None,
                rel_level=rel_level,
                complete=complete,
                use_cache=cache,
                progress=lambda n, lines: bar.advance(n, lines=lines),
            )
        if pending is not None and cache and not store.read_only:
            try:
                save(store.con, pending)
            except duckdb.Error:  # the values are printed all the same
                pass
    if per_topic:
        _print_per_topic(ev, cid, json_)
        return
    _print_means(ev, cid, json_)


def _print_per_topic(ev, cid: str, json_: bool) -> None:
    """`runs eval --per-topic`: one row per run and evaluated topic."""
    from litaudit.render.console import out, print_json, table

    rows = []
    for ri, tag in enumerate(ev.runs):
        for ti, topic in enumerate(ev.topics):
            vals = ev.scores[:, ri, ti]
            if not all(v != v for v in vals):  # skip topics not evaluated for the run
                rows.append([tag, topic, *[float(v) for v in vals]])
    if json_:
        print_json([dict(zip(["run", "topic", *ev.measures], r, strict=True)) for r in rows])
        return
    out.print(table(f"{cid}: per topic", ["run", "topic", *ev.measures], rows))


def _print_means(ev, cid: str, json_: bool) -> None:
    """`runs eval`: one row per run, the mean over its topics."""
    from litaudit.render.console import out, print_json, table

    means = {m: ev.mean(m) for m in ev.measures}
    counts = ev.topic_counts()
    if json_:
        print_json(
            {
                "collection": cid,
                "measures": list(ev.measures),
                "runs": [
                    {
                        "run": tag,
                        "topics": int(counts[i]),
                        **{m: float(means[m][i]) for m in ev.measures},
                    }
                    for i, tag in enumerate(ev.runs)
                ],
            }
        )
        return
    out.print(
        table(
            f"{cid}: mean over topics",
            ["run", "topics", *ev.measures],
            [
                [tag, int(counts[i]), *[float(means[m][i]) for m in ev.measures]]
                for i, tag in enumerate(ev.runs)
            ],
        )
    )


def _open_for_eval(ctx: typer.Context, cache: bool):
    """The database for ``runs eval``: with the store of evaluations on (``--cache``),
    opened once for writing, so that the values computed are kept on the same connection
    (a second open for writing cost ~0.05 s of a 0.6 s command), but never created, never
    migrated: a database that does not exist, is of another schema version, is in use or
    cannot be written is opened read-only as before (and nothing is kept). With
    ``--no-cache``, read-only: nothing is read from or written to the store.

    The price: while it evaluates, the command holds the database as a writer does, so
    another process cannot open it (before, two ``runs eval`` could read side by side and
    one of them skipped keeping its values)."""
    from litaudit.errors import StoreError
    from litaudit.runtime import tune_allocator
    from litaudit.store.db import open_store
    from litaudit.store.migrations import pending as pending_migrations

    path = db_path(ctx)
    if cache and path.is_file():
        tune_allocator()
        try:
            store = open_store(path, migrate=False)
        except (StoreError, OSError):
            pass
        else:
            if not pending_migrations(store.con):
                return store
            store.close()
    return open_read(ctx)
