"""Helpers shared by the CLI sub-apps: the database option, opening the store, errors."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from litaudit import defaults
from litaudit.errors import LitauditError

# The options several commands share, said once (Typer's Annotated form): a command takes
# ``json_out: Json = False``, ``collection: OptCollection = None``; a required collection is
# ``collection: str = CollectionOpt`` (an Annotated alias would need the default ``...``,
# which mypy refuses for a ``str``). An option that means something else in one command
# (a filter, a target to store under) keeps its own help there.
Json = Annotated[bool, typer.Option("--json", help="Print JSON instead of a table.")]
_COLLECTION_HELP = "Collection id or alias."
CollectionOpt = typer.Option(..., "--collection", "-c", help=_COLLECTION_HELP)
OptCollection = Annotated[str | None, typer.Option("--collection", "-c", help=_COLLECTION_HELP)]
# the extreme-value audits' parameters (audit best/claim/history/summary/matrix)
Alpha = Annotated[
    float,
    typer.Option("--alpha", help="Level of the thresholds of the max and min (0 < alpha < 1)."),
]
PInterval = Annotated[
    float,
    typer.Option(
        "--p",
        help="Probability defining mu0 and the lower bound (0 < p < 0.5; interval coverage 1-2p).",
    ),
]
Trials = Annotated[
    int | None,
    typer.Option(
        "--trials",
        help=f"Monte Carlo trials (default: {defaults.MONTECARLO_TRIALS}).",
        show_default=False,
    ),
]
Seed = Annotated[
    int | None,
    typer.Option(
        "--seed",
        help=f"Monte Carlo seed (default: {defaults.MONTECARLO_SEED}).",
        show_default=False,
    ),
]


def db_path(ctx: typer.Context) -> Path:
    """The --db path given to the root command (or $LITAUDIT_DB, or ./litaudit.duckdb)."""
    root = ctx.find_root()
    obj = root.obj or {}
    if obj.get("db"):
        return Path(obj["db"])
    from litaudit.store.db import default_db_path

    return default_db_path()


def existing_db(ctx: typer.Context) -> Path:
    """The database path, which must exist: only `litaudit init` creates a database, so
    a command run outside a project says where it looked and leaves nothing behind."""
    path = db_path(ctx)
    if str(path) == ":memory:" or path.exists():
        return path
    from litaudit.errors import StoreError

    root = ctx.find_root()
    source = getattr(root.get_parameter_source("db"), "name", None)
    how = {
        "COMMANDLINE": "given with --db",
        "ENVIRONMENT": "from $LITAUDIT_DB",
    }.get(
        source or "",
        "the default: litaudit.duckdb in the current directory; --db or $LITAUDIT_DB name another",
    )
    create = f"litaudit --db {path} init" if source == "COMMANDLINE" else "litaudit init"
    raise StoreError(f"no database at {path.absolute()} ({how}); create one with `{create}`")


def open_read(ctx: typer.Context):
    """Open the existing database read-only (never creates or modifies it)."""
    from litaudit.runtime import tune_allocator
    from litaudit.store.db import open_store

    path = existing_db(ctx)
    tune_allocator()  # the command's process only (see litaudit.runtime)
    return open_store(path, read_only=True)


def open_write(ctx: typer.Context, *, migrate: bool = True):
    """Open the existing database for writing, migrating it as needed (never creates
    one: that is `litaudit init`'s, which opens the store itself). ``migrate=False`` (a
    dry run, which writes nothing): an outdated database is refused, not migrated."""
    from litaudit.errors import SchemaOutdated
    from litaudit.runtime import tune_allocator
    from litaudit.store import migrations
    from litaudit.store.db import open_store

    path = existing_db(ctx)
    tune_allocator()
    store = open_store(path, read_only=False, migrate=migrate)
    if not migrate and migrations.pending(store.con):
        why = (
            f"{path}: database schema version {migrations.db_version(store.con)} is older "
            f"than this litaudit's ({migrations.code_version()}); a dry run writes nothing, "
            "a migration included: run `litaudit db migrate` first"
        )
        store.close()
        raise SchemaOutdated(why)
    return store


def parse_assignments(items: list[str], option: str = "--set") -> dict[str, str]:
    """['value=0.31', 'location=Table 4'] -> {'value': '0.31', 'location': 'Table 4'}."""
    changes: dict[str, str] = {}
    for item in items:
        if "=" not in item:
            raise LitauditError(f"{option} {item!r}: expected FIELD=VALUE")
        k, v = item.split("=", 1)
        changes[k.strip()] = v
    return changes
