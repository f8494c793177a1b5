"""Helpers shared by the CLI sub-apps: the database path, opening the store.

The options several commands share are in :mod:`litaudit.cli.options`."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

import typer

if TYPE_CHECKING:
    import duckdb

    from litaudit.store.db import Store


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


def open_read(ctx: typer.Context) -> Store:
    """Open the existing database read-only (never creates or modifies it)."""
    from litaudit.runtime import tune_allocator
    from litaudit.store.db import open_store

    path = existing_db(ctx)
    tune_allocator()  # the command's process only (see litaudit.runtime)
    return open_store(path, read_only=True)


def open_write(ctx: typer.Context, *, migrate: bool = True) -> Store:
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


@contextmanager
def open_for_audit(ctx: typer.Context, save: bool) -> Iterator[duckdb.DuckDBPyConnection]:
    """The connection an audit command runs on: read-only when it stores nothing
    (``--no-save``), else inside one write transaction. A run archive the audit must
    evaluate (its measured noise, issue 30) shows a bar, as `runs eval` does."""
    from litaudit.render.progress import progress_bar
    from litaudit.runs.archive_eval import evaluation_progress

    quiet = bool(ctx.params.get("json_out"))

    def bar(n_runs: int):
        return progress_bar(
            "evaluating the run archive", n_runs, unit="runs", counts=("lines",), quiet=quiet
        )

    with evaluation_progress(bar):
        if not save:
            with open_read(ctx) as store:
                yield store.con
            return
        with open_write(ctx) as store, store.transaction() as con:
            yield con
