"""`litaudit db ...` and `litaudit init`."""

from __future__ import annotations

import typer

from litaudit.cli.common import db_path, existing_db
from litaudit.cli.options import Json


def migrate(
    ctx: typer.Context,
    list_: bool = typer.Option(False, "--list", help="List migrations and exit."),
    json_out: Json = False,
):
    """Apply pending schema migrations (numbered SQL files in schema/)."""
    from litaudit.render.console import out, print_json, table
    from litaudit.store import migrations
    from litaudit.store.db import open_store

    path = db_path(ctx)
    if list_:
        store = (
            open_store(path, read_only=True, migrate=False, allow_outdated=True)
            if path.exists()
            else None
        )
        done = {v: str(at) for v, _, at in migrations.applied(store.con)} if store else {}
        rows = [(m.version, m.name, done.get(m.version, "pending")) for m in migrations.available()]
        if store:
            store.close()
        if json_out:
            print_json([{"version": v, "name": n, "applied_at": a} for v, n, a in rows])
        else:
            out.print(table(f"Migrations ({path})", ["version", "name", "applied"], rows))
        return
    with open_store(existing_db(ctx), read_only=False, migrate=False) as store:
        before = store.schema_version()
        applied = migrations.migrate(store.con, str(path))
        after = store.schema_version()
    if json_out:
        print_json(
            {
                "path": str(path),
                "from": before,
                "to": after,
                "applied": [m.path.name for m in applied],
            }
        )
    elif applied:
        out.print(f"{path}: schema {before} -> {after} ({', '.join(m.path.name for m in applied)})")
    else:
        out.print(f"{path}: schema {after} is up to date")


def info(ctx: typer.Context, json_out: Json = False):
    """Schema version and row counts per table."""
    from litaudit.render.curation import print_db_info
    from litaudit.store.info import db_info

    print_db_info(db_info(existing_db(ctx)), json_out)


def init(
    ctx: typer.Context,
    no_seeds: bool = typer.Option(
        False,
        "--no-seeds",
        help="Reference data only (collections, measures): "
        "a database to import a curation export into.",
    ),
    json_out: Json = False,
):
    """Create the database (if needed) and load seeds/, or bring an existing one up to them.

    Rows an earlier init seeded follow the seeds; rows a user changed are left (seeds/README.md)."""
    from litaudit.curation.seed import load_seeds
    from litaudit.render.console import out, print_json, table
    from litaudit.render.progress import progress_bar
    from litaudit.render.seeds import seed_sync_lines
    from litaudit.store.db import open_store

    with (
        open_store(db_path(ctx)) as store,
        progress_bar("loading seeds", unit="rows", counts=("added",), quiet=json_out) as bar,
    ):
        summary = load_seeds(store, seeds=not no_seeds, progress=bar)
    if json_out:
        print_json(summary)
        return
    out.print(
        f"{summary['path']}: added {summary['added']['results']} results, "
        f"{summary['added']['papers']} papers, {summary['added']['collections']} "
        f"collections ({summary['added']['measures']} measures)"
    )
    if no_seeds:
        return
    for line in seed_sync_lines(summary["seeds"]):
        out.print(line)
    out.print(
        table(
            "Results per collection and measure (excluding retracted)",
            ["collection", "measure", "papers", "official"],
            [(r["collection"], r["measure"], r["paper"], r["official"]) for r in summary["counts"]],
        )
    )
