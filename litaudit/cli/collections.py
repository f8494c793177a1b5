"""`litaudit collections ...`: test collections, aliases and topic sets."""

from __future__ import annotations

import typer

from litaudit.cli.common import open_read, open_write
from litaudit.cli.options import Json


def list_(ctx: typer.Context, json_out: Json = False):
    """Collections with their default topic set and how many results they hold."""
    from litaudit.render.console import out, print_json, table
    from litaudit.store.collections import list_collections

    with open_read(ctx) as store:
        rows = list_collections(store.con)
    if json_out:
        print_json(rows)
        return
    out.print(
        table(
            f"{len(rows)} collections",
            ["name / id", "title", "queries", "results"],
            [
                (
                    r.name if r.name == r.id else f"{r.name}\n{r.id}",
                    r.title,
                    r.n_topics,
                    r.results,
                )
                for r in rows
            ],
            keep=("name / id",),
        )
    )


def show(
    ctx: typer.Context,
    name: str = typer.Argument(..., help="Id or any alias."),
    json_out: Json = False,
):
    """One collection: aliases, topic sets, results per measure."""
    from litaudit.render.console import escape, out, print_json, table
    from litaudit.store.collections import collection_details, resolve_collection

    with open_read(ctx) as store:
        data = collection_details(store.con, resolve_collection(store.con, name).id)
    if json_out:
        print_json(data)
        return
    out.print(
        f"[bold]{escape(data.title)}[/] ({escape(data.name)})  id {escape(data.id)}"
        + ("  \\[ir_datasets]" if data.ir_datasets else ""),
        markup=True,
    )
    out.print(f"documents: {data.documents}")
    if data.provenance:
        out.print(f"query count and title from: {data.provenance}")
    if data.notes:
        out.print(f"notes: {data.notes}")
    out.print(f"aliases: {', '.join(data.aliases)}")
    out.print(
        table(
            "Topic sets",
            ["name", "topics", "default", "description"],
            [(t.name, t.n_topics, t.default, t.description) for t in data.topic_sets],
        )
    )
    per = [(r.measure, r.source, r.count) for r in data.results]
    out.print(table("Results (not retracted)", ["measure", "source", "count"], per))


def add(
    ctx: typer.Context,
    collection_id: str = typer.Argument(
        ..., help="Its id: the ir_datasets id where one exists, e.g. beir/nfcorpus/dev."
    ),
    topics: int = typer.Option(
        ..., "--topics", help="Number of queries (judged topics) its results are means over."
    ),
    title: str = typer.Option(None, "--title", help="Title (default: the id).", show_default=False),
    name: str = typer.Option(
        None, "--name", help="Short name (default: the id).", show_default=False
    ),
    documents: str = typer.Option(None, "--documents", help="The document collection."),
    alias: list[str] = typer.Option(None, "--alias", help="Another name (repeatable)."),
    ir_datasets: bool = typer.Option(False, "--ir-datasets", help="The id is an ir_datasets id."),
    provenance: str = typer.Option(
        None,
        "--provenance",
        help="Where the query count was read (default: who added it, when).",
        show_default=False,
    ),
    json_out: Json = False,
):
    """Add a collection (its id, query count and title) that the seeds do not have."""
    from litaudit.curation.fields import current_user
    from litaudit.render.console import out, print_json
    from litaudit.store.collections import NewCollection, add_collection

    new = NewCollection(
        id=collection_id,
        n_topics=topics,
        title=title,
        name=name,
        documents=documents,
        aliases=tuple(alias or ()),
        ir_datasets=ir_datasets,
        provenance=provenance,
    )
    with open_write(ctx) as store, store.transaction() as con:
        ref = add_collection(con, new, who=current_user())
    if json_out:
        print_json(ref)
    else:
        out.print(f"added collection {ref.id} ({ref.default_topics} queries)", markup=False)


def depth_cmd(
    ctx: typer.Context,
    collection: str = typer.Argument(..., help="The collection (id, name or alias)."),
    depth: int = typer.Argument(
        None, min=1, help="Its pool depth (omit: show it and its history)."
    ),
    source: str = typer.Option(
        None, "--source", help="Where the depth is stated (a track overview, a paper's table)."
    ),
    reason: str = typer.Option(None, "--reason", help="Why it is recorded or changed."),
    json_out: Json = False,
):
    """Record a collection's pool depth with its source (`reuse verdict` decides at it;
    the history of every change is kept), or show it and its history."""
    from litaudit.curation.fields import current_user
    from litaudit.errors import ParameterError
    from litaudit.render.console import out, print_json
    from litaudit.store.collections import resolve_collection
    from litaudit.store.pool_depths import pool_depth, pool_depth_history, set_pool_depth

    if depth is None:
        if source is not None or reason is not None:
            raise ParameterError("--source and --reason go with a DEPTH to record")
        with open_read(ctx) as store:
            cid = resolve_collection(store.con, collection).id
            now, past = pool_depth(store.con, cid), pool_depth_history(store.con, cid)
        if json_out:
            print_json({"collection_id": cid, "depth": now, "history": past})
            return
        out.print(
            f"{cid}: pool depth " + ("not recorded" if now is None else f"{now[0]} ({now[1]})"),
            markup=False,
        )
        for c in past:
            was = "none" if c.old_depth is None else str(c.old_depth)
            why = f": {c.reason}" if c.reason else ""
            out.print(
                f"  {c.changed_at} {c.who}: {was} -> {c.depth} ({c.source}){why}", markup=False
            )
        return
    if source is None:
        raise ParameterError("give --source: where the pool depth is stated")
    with open_write(ctx) as store, store.transaction() as con:
        cid = resolve_collection(con, collection).id
        change = set_pool_depth(con, cid, depth, source, who=current_user(), reason=reason)
    if json_out:
        print_json(change)
    else:
        was = "none" if change.old_depth is None else str(change.old_depth)
        out.print(f"{cid}: pool depth {was} -> {depth} ({source})", markup=False)
