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
    from dataclasses import asdict

    from litaudit.analyses.site_audits import prepare_site
    from litaudit.render.console import out, print_json
    from litaudit.render.progress import progress_bar
    from litaudit.render.site.build import build_site
    from litaudit.render.site.write import check_folder, write_site

    check_folder(directory)  # refused before any audit is run or stored
    with progress_bar("site: audits", unit="steps", quiet=json_out) as bar:
        with open_write(ctx) as store:
            audits = prepare_site(store.con, progress=bar)
            bar.update(description="site: pages")
            files = build_site(store.con, audits, progress=bar)
        done = write_site(directory, files, [db_path(ctx)])
    if json_out:
        print_json({**asdict(done), "pages": len(files)})
        return
    out.print(
        f"{directory}: {len(files)} pages ({len(done.written)} written, {done.unchanged} "
        f"unchanged, {len(done.removed)} removed; {done.total_bytes} bytes); open "
        f"{directory / 'index.html'}",
        markup=False,
    )
