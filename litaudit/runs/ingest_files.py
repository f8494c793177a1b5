"""The files of a run import, before any is read (for :mod:`litaudit.runs.ingest` and
:mod:`litaudit.runs.ingest_read`): their SHA-256, their size as text (a gzipped file's
uncompressed size), and their cut into groups of bounded text.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from pathlib import Path


def sha256_file(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def file_groups(paths: Sequence[Path], group_bytes: int) -> list[list[Path]]:
    """The files in order, cut into groups of at most ``group_bytes`` bytes of text each
    (a larger file is a group of its own): gzip files count their uncompressed size, read
    from their last four bytes (ISIZE, RFC 1952; modulo 4 GiB, so never less than the
    compressed size)."""
    groups: list[list[Path]] = []
    size = 0
    for p in paths:
        n = text_size(p)
        if not groups or size + n > group_bytes:
            groups.append([])
            size = 0
        groups[-1].append(p)
        size += n
    return groups


def text_size(path: Path) -> int:
    try:
        n = path.stat().st_size
        with open(path, "rb") as fh:
            if fh.read(2) != b"\x1f\x8b" or n < 18:
                return n
            fh.seek(-4, 2)
            isize = int.from_bytes(fh.read(4), "little")
    except OSError:
        return 0  # reported by the reader
    while isize < n:
        isize += 1 << 32
    return isize
