"""The store folder's file operations, which never reach outside the folder.

A store folder comes from git: anyone may have put a symbolic link in it. Nothing here
follows one: every component below the folder is checked with ``lstat`` before a file is
read, written or removed, and a link is refused with its path. A file is written through
a temporary file created exclusively (``O_CREAT | O_EXCL``) in its own folder and renamed
over the file; only regular files are removed. The folder given by the user may itself be
a link (``/tmp`` is one on some systems): that is the user's choice, not the folder's
content.
"""

from __future__ import annotations

import errno
import os
import stat
import tempfile
from pathlib import Path

from litaudit.errors import LitauditError

LINK = "a symbolic link: litaudit follows no link in a store folder (replace it by a file)"
TMP_SUFFIX = ".tmp"  # a temporary file: ``.NAME.XXXXXXXX.tmp`` beside NAME


class DiskFull(LitauditError):
    """A write ran out of space (or quota)."""


def refuse_links(folder: Path, rel: str) -> None:
    """LitauditError when a component of ``folder/rel`` below ``folder`` is a link or not
    what its place needs (a folder above, a regular file at the end)."""
    p = Path(folder)
    parts = rel.split("/")
    for i, part in enumerate(parts):
        p = p / part
        try:
            st = os.lstat(p)
        except FileNotFoundError:
            return
        if stat.S_ISLNK(st.st_mode):
            raise LitauditError(f"{p}: {LINK}")
        last = i == len(parts) - 1
        if not last and not stat.S_ISDIR(st.st_mode):
            raise LitauditError(f"{p}: not a folder")
        if last and not stat.S_ISREG(st.st_mode) and not stat.S_ISDIR(st.st_mode):
            raise LitauditError(f"{p}: not a regular file")


def scan(folder: Path, tops: tuple[str, ...]) -> tuple[list[str], list[str], list[str]]:
    """The regular files under ``folder/top`` for each top (relative paths, sorted), the
    links met (never followed) and the other entries (devices, pipes)."""
    files: list[str] = []
    links: list[str] = []
    odd: list[str] = []
    for top in tops:
        try:
            st = os.lstat(Path(folder) / top)
        except FileNotFoundError:
            continue
        if stat.S_ISLNK(st.st_mode):
            links.append(top)
            continue
        if not stat.S_ISDIR(st.st_mode):
            odd.append(top)
            continue
        stack = [top]
        while stack:
            rel = stack.pop()
            with os.scandir(Path(folder) / rel) as it:
                for e in it:
                    sub = f"{rel}/{e.name}"
                    if e.is_symlink():
                        links.append(sub)
                    elif e.is_dir(follow_symlinks=False):
                        stack.append(sub)
                    elif e.is_file(follow_symlinks=False):
                        files.append(sub)
                    else:
                        odd.append(sub)
    return sorted(files), sorted(links), sorted(odd)


def read_bytes(folder: Path, rel: str) -> bytes:
    """A file of the folder, refused if it or a folder above it is a link."""
    refuse_links(folder, rel)
    fd = os.open(Path(folder) / rel, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
    with os.fdopen(fd, "rb") as f:
        return f.read()


def write_file(folder: Path, rel: str, data: bytes) -> None:
    """Write ``folder/rel`` (its folders created as needed) through a temporary file
    created exclusively beside it; DiskFull when the disk is full (the temporary file
    removed, the old file left as it was)."""
    refuse_links(folder, rel)
    parent = Path(folder)
    for part in rel.split("/")[:-1]:
        parent = parent / part
        try:
            os.mkdir(parent)
        except FileExistsError:
            refuse_links(parent.parent, part)
    name = rel.rsplit("/", 1)[-1]
    fd, tmp = tempfile.mkstemp(dir=parent, prefix=f".{name}.", suffix=TMP_SUFFIX)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            f.flush()
        os.replace(tmp, parent / name)
    except OSError as exc:
        _discard(tmp)
        if exc.errno in (errno.ENOSPC, errno.EDQUOT):
            raise DiskFull(f"{parent / name}: the disk is full ({exc.strerror})") from None
        raise
    except BaseException:
        _discard(tmp)
        raise


def remove_file(folder: Path, rel: str) -> None:
    """Remove the regular file ``folder/rel`` (a link, or a file under one, is refused)."""
    refuse_links(folder, rel)
    p = Path(folder) / rel
    if stat.S_ISREG(os.lstat(p).st_mode):
        os.unlink(p)


def is_temporary(rel: str) -> bool:
    """A temporary file :func:`write_file` makes (left behind by a killed write)."""
    name = rel.rsplit("/", 1)[-1]
    return name.startswith(".") and name.endswith(TMP_SUFFIX)


def _discard(tmp: str) -> None:
    try:
        os.unlink(tmp)
    except OSError:
        pass
