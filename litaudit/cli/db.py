"""`litaudit db ...`: migrate and inspect the database (`litaudit init`: cli/init.py)."""

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
    from litaudit.render.db import print_migrations
    from litaudit.store.migration_requests import MigrateRequest, answer_migrate

    req = MigrateRequest(path=db_path(ctx) if list_ else existing_db(ctx), list_only=list_)
    print_migrations(answer_migrate(req), json_out)


def info(ctx: typer.Context, json_out: Json = False):
    """Schema version and row counts per table."""
    from litaudit.render.curation import print_db_info
    from litaudit.store.info import db_info

    print_db_info(db_info(existing_db(ctx)), json_out)
