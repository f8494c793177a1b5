"""`litaudit measures ...`: the measure registry."""

from __future__ import annotations

import typer

from litaudit.cli.common import open_read
from litaudit.cli.options import Json


def list_(ctx: typer.Context, json_out: Json = False):
    """Registered measures, their aliases and value ranges."""
    from litaudit.render.console import out, print_json, table
    from litaudit.store.measures import list_measures

    with open_read(ctx) as store:
        data = list_measures(store.con)
    if json_out:
        print_json(data)
        return
    out.print(
        table(
            f"{len(data)} measures",
            ["name", "aliases", "range", "description"],
            [
                (d.name, ", ".join(d.aliases), f"[{d.min:g}, {d.max:g}]", d.description)
                for d in data
            ],
        )
    )
