"""The folder of a static site (`litaudit site`): new, empty, or one a build wrote.

The folder's ``.litaudit-site`` lists the files the last build wrote, one a line; it
marks the folder as a site, so that a build never writes into (or removes anything
from) a folder that is not empty and is not one. Checked by the request
(:class:`litaudit.analyses.site_request.SiteRequest`) before the store opens, and again by
the writer (:func:`litaudit.render.site.write.write_site`). Layer-neutral: the stdlib and
:mod:`litaudit.errors` only.
"""

from __future__ import annotations

import os
from pathlib import Path

from litaudit.errors import LitauditError

MANIFEST = ".litaudit-site"


def manifest(folder: Path) -> list[str] | None:
    """The files of the last build, or None when ``folder`` holds no site."""
    try:
        text = (folder / MANIFEST).read_text(encoding="utf-8")
    except FileNotFoundError:
        return None
    return [line for line in text.splitlines() if line and not line.startswith("#")]


def check_folder(directory: str | os.PathLike) -> Path:
    """The site's folder: new, empty, or one a build wrote (it holds ``.litaudit-site``)."""
    folder = Path(directory)
    if folder.exists() and not folder.is_dir():
        raise LitauditError(f"{folder}: is not a directory; give a folder for the site")
    if folder.is_dir() and manifest(folder) is None and any(folder.iterdir()):
        raise LitauditError(
            f"{folder}: not empty and not a site written by litaudit (no {MANIFEST}); "
            "give a new or empty folder"
        )
    if not folder.exists() and not folder.parent.is_dir():
        raise LitauditError(f"{folder}: directory {folder.parent} does not exist")
    return folder
