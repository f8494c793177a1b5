"""What `litaudit site` prints: the site's pages made from the stored audits
(:func:`~litaudit.render.site.build.build_site`), written into its folder (only the
changed bytes: :func:`~litaudit.render.site.write.write_site`) and what was written said,
in text or JSON."""

from __future__ import annotations

from dataclasses import asdict
from typing import TYPE_CHECKING

from litaudit.analyses.site_request import SiteAnswer
from litaudit.render.console import out, print_json
from litaudit.render.progress import progress_bar
from litaudit.render.site.build import build_site
from litaudit.render.site.write import write_site

if TYPE_CHECKING:
    import duckdb


def print_site(
    con: duckdb.DuckDBPyConnection,
    done: SiteAnswer,
    *,
    json_out: bool = False,
) -> None:
    """Make every page of ``done`` (reading its stored audits on ``con``) and write the
    changed ones, under a bar of pages (quiet with ``json_out``), then say what was
    written: the folder, the pages, written, unchanged and removed, and the bytes (JSON:
    :class:`~litaudit.render.site.write.Written` and ``pages``)."""
    req = done.request
    with progress_bar("site: pages", unit="steps", quiet=json_out) as bar:
        files = build_site(con, done.audits, progress=bar)
        written = write_site(req.directory, files, [req.database])
    if json_out:
        print_json({**asdict(written), "pages": len(files)})
        return
    out.print(
        f"{req.directory}: {len(files)} pages ({len(written.written)} written, "
        f"{written.unchanged} unchanged, {len(written.removed)} removed; "
        f"{written.total_bytes} bytes); open {req.directory / 'index.html'}",
        markup=False,
    )
