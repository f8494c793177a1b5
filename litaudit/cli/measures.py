"""`litaudit measures ...`: the measure registry."""

from __future__ import annotations

import typer

from litaudit.cli.common import open_read
from litaudit.cli.options import Json


def list_(ctx: typer.Context, json_out: Json = False):
    """Registered measures, their aliases and value ranges."""
    from litaudit.curation.refdata_requests import listed_measures
    from litaudit.render.refdata import print_measures

    with open_read(ctx) as store:
        data = listed_measures(store.con)
    print_measures(data, json_out)
