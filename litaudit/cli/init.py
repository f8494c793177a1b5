"""`litaudit init`: create the database and load seeds/, or bring one up to them."""

from __future__ import annotations

import typer

from litaudit.cli.common import db_path
from litaudit.cli.options import Json


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
    from litaudit.curation.init_request import InitRequest, answer_init
    from litaudit.render.db import print_init
    from litaudit.render.progress import progress_bar

    req = InitRequest(path=db_path(ctx), seeds=not no_seeds)
    with progress_bar("loading seeds", unit="rows", counts=("added",), quiet=json_out) as bar:
        rep = answer_init(req, progress=bar)
    print_init(rep, json_out)
