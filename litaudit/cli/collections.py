"""`litaudit collections ...`: test collections, aliases and topic sets."""

from __future__ import annotations

import typer

from litaudit.cli.common import open_read, open_write
from litaudit.cli.options import Json, OldCitation, topics_option
from litaudit.cli.result_options import citation_option, reason_option, title_option


def list_(ctx: typer.Context, json_out: Json = False):
    """Collections with their default topic set and how many results they hold."""
    from litaudit.curation.refdata_requests import listed_collections
    from litaudit.render.refdata import print_collections

    with open_read(ctx) as store:
        rows = listed_collections(store.con)
    print_collections(rows, json_out)


def show(
    ctx: typer.Context,
    name: str = typer.Argument(..., help="Id or any alias."),
    json_out: Json = False,
):
    """One collection: aliases, topic sets, results per measure."""
    from litaudit.curation.refdata_requests import shown_collection
    from litaudit.render.refdata import print_collection

    with open_read(ctx) as store:
        data = shown_collection(store.con, name)
    print_collection(data, json_out)


def add(
    ctx: typer.Context,
    collection_id: str = typer.Argument(
        ..., help="Its id: the ir_datasets id where one exists, e.g. beir/nfcorpus/dev."
    ),
    topics: int = topics_option(..., "the judged topics its results are means over"),
    title: str = title_option(None, "default: the id"),
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
    from litaudit.curation.refdata_requests import CollectionAdd, answer_add
    from litaudit.render.refdata import print_added_collection
    from litaudit.store.collections import NewCollection

    req = CollectionAdd(
        new=NewCollection(
            id=collection_id,
            n_topics=topics,
            title=title,
            name=name,
            documents=documents,
            aliases=tuple(alias or ()),
            ir_datasets=ir_datasets,
            provenance=provenance,
        )
    ).checked()
    with open_write(ctx) as store:
        ref = answer_add(store, req)
    print_added_collection(ref, json_out)


def depth_cmd(
    ctx: typer.Context,
    collection: str = typer.Argument(..., help="The collection (id, name or alias)."),
    depth: int = typer.Argument(
        None, min=1, help="Its pool depth (omit: show it and its history)."
    ),
    source: str = citation_option(
        None, "where the depth is stated: a track overview, a paper's table"
    ),
    _old_source: OldCitation = None,
    reason: str = reason_option(None, "why the depth is recorded or changed"),
    json_out: Json = False,
):
    """Record a collection's pool depth with its source (`reuse verdict` decides at it;
    the history of every change is kept), or show it and its history."""
    from litaudit.curation.refdata_requests import PoolDepthRequest, answer_depth
    from litaudit.render.refdata import print_pool_depth

    req = PoolDepthRequest(
        collection=collection, depth=depth, source=source, reason=reason
    ).checked()
    with open_write(ctx) if req.records else open_read(ctx) as store:
        answer = answer_depth(store, req)
    print_pool_depth(answer, json_out)
