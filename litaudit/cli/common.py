"""Helpers shared by the CLI sub-apps: the database option, opening the store, errors."""

from __future__ import annotations

from pathlib import Path

import typer

from litaudit.errors import LitauditError

JsonOpt = typer.Option(False, "--json", help="Print JSON instead of a table.")


def db_path(ctx: typer.Context) -> Path:
    """The --db path given to the root command (or $LITAUDIT_DB, or ./litaudit.duckdb)."""
    root = ctx.find_root()
    obj = root.obj or {}
    if obj.get("db"):
        return Path(obj["db"])
    from litaudit.store.db import default_db_path

    return default_db_path()


def open_read(ctx: typer.Context):
    """Open the database read-only (never creates or modifies it)."""
    from litaudit.runtime import tune_allocator
    from litaudit.store.db import open_store

    tune_allocator()  # the command's process only (see litaudit.runtime)
    return open_store(db_path(ctx), read_only=True)


def open_write(ctx: typer.Context):
    """Open the database for writing, creating and migrating it as needed."""
    from litaudit.runtime import tune_allocator
    from litaudit.store.db import open_store

    tune_allocator()
    return open_store(db_path(ctx), read_only=False)


def parse_assignments(items: list[str], option: str = "--set") -> dict[str, str]:
    """['value=0.31', 'location=Table 4'] -> {'value': '0.31', 'location': 'Table 4'}."""
    changes: dict[str, str] = {}
    for item in items:
        if "=" not in item:
            raise LitauditError(f"{option} {item!r}: expected FIELD=VALUE")
        k, v = item.split("=", 1)
        changes[k.strip()] = v
    return changes
