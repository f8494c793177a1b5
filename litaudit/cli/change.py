"""`litaudit check-change`: the Markdown verdict on the results a change to a store folder
adds, for a pull request's check (issue 34, item 5)."""

from __future__ import annotations

from pathlib import Path

import typer

from litaudit.cli.common import open_read
from litaudit.cli.options import Json, output_option


def check_change(
    ctx: typer.Context,
    folder: Path = typer.Argument(..., help="The store folder (papers/, official/) in git."),
    base: str = typer.Option(..., "--base", help="The revision the change is against."),
    output: Path = output_option(None, "the Markdown (default: print it)"),
    json_out: Json = False,
):
    """The Markdown verdict on the results a change adds to a store folder, for CI.

    Each result the folder adds or changes relative to --base (read with git), audited in
    the database the folder was synced into (`litaudit sync FOLDER` first): against the
    record and chance, paired against the record holder where per-topic or per-dataset
    scores exist, and what the collection can resolve."""
    from litaudit.analyses.extreme.change import check_change as run
    from litaudit.render.change import emit_change

    with open_read(ctx) as store:
        cv = run(store.con, folder, base)
    emit_change(cv, json_out, output=output)
