"""`litaudit site`: a static site of the store's audited leaderboards (issue 36)."""

from __future__ import annotations

from pathlib import Path

import typer

from litaudit.cli.common import db_path, open_write
from litaudit.cli.options import Json

DirArg = typer.Argument(..., help="The site's folder (new, empty, or a site written before).")


def site(ctx: typer.Context, directory: Path = DirArg, json_out: Json = False):
    """Write a static site of the audited leaderboards, built only from stored audits.

    An index of collections and measures (the record, the results that cannot be told
    apart from it, the noise used), one page per population (the leaderboard with rank
    intervals and the group tied with the top, the record band, the record over time) and
    one per paper; sorting, filters and search run in the page, with no server and no
    request outside the site (it opens from file:// or any static host). Missing audits
    are run and stored first. Only the pages whose bytes changed are written: a second
    run on an unchanged store writes nothing."""
    from litaudit.analyses.site_request import SiteRequest, answer_site
    from litaudit.render.progress import progress_bar
    from litaudit.render.site.output import print_site

    req = SiteRequest(directory=directory, database=db_path(ctx)).checked()
    with open_write(ctx) as store:
        with progress_bar("site: audits", unit="steps", quiet=json_out) as bar:
            done = answer_site(store.con, req, progress=bar)
        print_site(store.con, done, json_out=json_out)
