"""`litaudit collections ...`: test collections, aliases and topic sets."""

from __future__ import annotations

import typer

from litaudit.cli.common import JsonOpt, open_read, open_write

app = typer.Typer(
    help="Test collections (ir_datasets ids, aliases, topic sets).", no_args_is_help=True
)


@app.command("list")
def list_(ctx: typer.Context, json_out: bool = JsonOpt):
    """Collections with their default topic set and how many results they hold."""
    from litaudit.render.console import out, print_json, table

    with open_read(ctx) as store:
        cur = store.con.execute(
            "SELECT c.id, c.name, c.title, c.ir_datasets, t.n_topics, c.provenance, "
            " (SELECT count(*) FROM results r WHERE r.collection_id = c.id) AS results "
            "FROM collections c LEFT JOIN topic_sets t ON t.collection_id = c.id AND t.is_default "
            "ORDER BY c.name"
        )
        names = [d[0] for d in cur.description]
        rows = [dict(zip(names, r, strict=True)) for r in cur.fetchall()]
    if json_out:
        print_json(rows)
        return
    out.print(
        table(
            f"{len(rows)} collections",
            ["name", "id", "title", "queries", "results"],
            [(r["name"], r["id"], r["title"], r["n_topics"], r["results"]) for r in rows],
        )
    )


@app.command("show")
def show(
    ctx: typer.Context,
    name: str = typer.Argument(..., help="Id or any alias."),
    json_out: bool = JsonOpt,
):
    """One collection: aliases, topic sets, results per measure."""
    from litaudit.render.console import out, print_json, table
    from litaudit.store.refdata import resolve_collection

    with open_read(ctx) as store:
        con = store.con
        ref = resolve_collection(con, name)
        c = con.execute(
            "SELECT id, name, title, documents, ir_datasets, notes, provenance "
            "FROM collections WHERE id = ?",
            [ref.id],
        ).fetchone()
        aliases = [
            a
            for (a,) in con.execute(
                "SELECT alias FROM collection_aliases WHERE collection_id = ? ORDER BY alias",
                [ref.id],
            ).fetchall()
        ]
        topics = con.execute(
            "SELECT name, n_topics, is_default, description FROM topic_sets "
            "WHERE collection_id = ? ORDER BY name",
            [ref.id],
        ).fetchall()
        per = con.execute(
            "SELECT measure, source, count(*) FROM results WHERE collection_id = ? "
            "AND status <> 'retracted' GROUP BY ALL ORDER BY 1, 2",
            [ref.id],
        ).fetchall()
    data = {
        "id": c[0],
        "name": c[1],
        "title": c[2],
        "documents": c[3],
        "ir_datasets": c[4],
        "notes": c[5],
        "provenance": c[6],
        "aliases": aliases,
        "topic_sets": [
            {"name": t[0], "n_topics": t[1], "default": t[2], "description": t[3]} for t in topics
        ],
        "results": [{"measure": m, "source": s, "count": n} for m, s, n in per],
    }
    if json_out:
        print_json(data)
        return
    from litaudit.render.console import escape

    out.print(
        f"[bold]{escape(c[2])}[/] ({escape(c[1])})  id {escape(c[0])}"
        + ("  \\[ir_datasets]" if c[4] else ""),
        markup=True,
    )
    out.print(f"documents: {c[3]}")
    if c[6]:
        out.print(f"query count and title from: {c[6]}")
    if c[5]:
        out.print(f"notes: {c[5]}")
    out.print(f"aliases: {', '.join(aliases)}")
    out.print(
        table(
            "Topic sets",
            ["name", "topics", "default", "description"],
            [(t[0], t[1], t[2], t[3]) for t in topics],
        )
    )
    out.print(table("Results (not retracted)", ["measure", "source", "count"], per))


@app.command("add")
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
    json_out: bool = JsonOpt,
):
    """Add a collection (its id, query count and title) that the seeds do not have."""
    from litaudit.curation.fields import current_user
    from litaudit.render.console import out, print_json
    from litaudit.store.refdata import add_collection

    with open_write(ctx) as store, store.transaction() as con:
        ref = add_collection(
            con,
            collection_id,
            topics,
            title=title,
            name=name,
            documents=documents,
            aliases=alias or (),
            ir_datasets=ir_datasets,
            provenance=provenance,
            who=current_user(),
        )
    if json_out:
        print_json(ref)
    else:
        out.print(f"added collection {ref.id} ({ref.default_topics} queries)", markup=False)
