"""`litaudit site` asked once (issue 37 item 1): its options as one frozen settings object,
checked before the store opens (the folder: new, empty, or a site written before), and the
one call that answers it: the audits of every population run or found and stored
(:func:`litaudit.analyses.site_audits.prepare_site`; Carterette, SIGIR 2015). The pages
are made from them, written and said by :func:`litaudit.render.site.output.print_site`.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from litaudit.analyses.site_audits import SiteAudits, prepare_site
from litaudit.progress import Progress
from litaudit.site_folder import check_folder

if TYPE_CHECKING:
    import duckdb


@dataclass(frozen=True, kw_only=True)
class SiteRequest:
    """`site`: the site's folder, and the open database (never written over)."""

    directory: Path
    database: Path | None = None

    def checked(self) -> SiteRequest:
        """The folder refused before any audit is run or stored when it is a file, a
        folder neither empty nor a site, or in a directory that does not exist."""
        check_folder(self.directory)
        return self


@dataclass(frozen=True, kw_only=True)
class SiteAnswer:
    """The audits a :class:`SiteRequest` is answered with, for the pages to be made of."""

    request: SiteRequest
    audits: SiteAudits


def answer_site(
    con: duckdb.DuckDBPyConnection, req: SiteRequest, *, progress: Progress | None = None
) -> SiteAnswer:
    """Run (or find) and store the audits of every population (a write connection);
    ``progress``: as :func:`~litaudit.analyses.site_audits.prepare_site` tells it."""
    return SiteAnswer(request=req, audits=prepare_site(con, progress=progress))
