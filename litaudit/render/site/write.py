"""Writing the site into its folder: only the pages whose bytes changed, each through a
temporary renamed into place (:func:`litaudit.files.atomic_write`), and the pages of the
last build that the store no longer has removed.

The folder's ``.litaudit-site`` lists the files the last build wrote, one a line; it
marks the folder as a site, so that a build never writes into (or removes anything
from) a folder that is not empty and is not one (:mod:`litaudit.site_folder`).
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path

from litaudit.files import atomic_write
from litaudit.site_folder import MANIFEST, check_folder, manifest


@dataclass(frozen=True, kw_only=True)
class Written:
    """What a build did to the folder: the files written (new or changed), the number left
    as they were, and the files removed (pages of the last build no longer made)."""

    directory: str
    written: tuple[str, ...]
    unchanged: int
    removed: tuple[str, ...]
    total_bytes: int


def _same(path: Path, data: bytes) -> bool:
    try:
        return path.stat().st_size == len(data) and path.read_bytes() == data
    except (FileNotFoundError, NotADirectoryError):
        return False


def write_site(
    directory: str | os.PathLike, files: Mapping[str, str], protect: Iterable = ()
) -> Written:
    """Write ``files`` ({path relative to the folder: text}) into ``directory``: only those
    whose bytes differ from what is there; then remove the last build's files that are
    not in ``files``, and update the list."""
    folder = check_folder(directory)
    old = manifest(folder) or []
    protect = list(protect)
    written, unchanged, total = [], 0, 0
    for rel in sorted(files):
        data = files[rel].encode("utf-8")
        total += len(data)
        target = folder / rel
        if _same(target, data):
            unchanged += 1
            continue
        target.parent.mkdir(parents=True, exist_ok=True)
        with atomic_write(target, "wb", protect) as fh:
            fh.write(data)
        written.append(rel)
    removed = []
    for rel in sorted(set(old) - set(files)):
        p = folder / rel
        inside = ".." not in Path(rel).parts and not Path(rel).is_absolute()
        if inside and p.is_file():  # only a file this tool wrote, listed in the manifest
            p.unlink()
            removed.append(rel)
    listing = "".join(f"{rel}\n" for rel in sorted(files))
    text = "# written by `litaudit site`: the files of the last build\n" + listing
    if not _same(folder / MANIFEST, text.encode("utf-8")):
        folder.mkdir(exist_ok=True)
        with atomic_write(folder / MANIFEST, "wb", protect) as fh:
            fh.write(text.encode("utf-8"))
    return Written(
        directory=str(folder),
        written=tuple(written),
        unchanged=unchanged,
        removed=tuple(removed),
        total_bytes=total,
    )
