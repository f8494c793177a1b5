"""The files of a run import, before any is read (for :mod:`litaudit.runs.ingest` and
:mod:`litaudit.runs.ingest_read`): their SHA-256, their size as text (a gzipped file's
uncompressed size), and their cut into groups of bounded text (:func:`import_groups`: a
file larger than a group comes as groups of its pieces, :mod:`litaudit.runs.chunks`, and a
file whose SHA-256 is stored already as :class:`Stored`); the files given, a directory's
expanded (:func:`expand_paths`).
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

from litaudit.errors import InputError
from litaudit.runs.chunks import Piece, PieceReader


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


def expand_paths(items: Sequence[str | Path]) -> list[Path]:
    """Run files given as files or directories (every regular, non-hidden file inside)."""
    out: list[Path] = []
    for item in items:
        p = Path(item)
        if p.is_dir():
            found = sorted(f for f in p.iterdir() if f.is_file() and not f.name.startswith("."))
            if not found:
                raise InputError(str(p), None, "directory has no run files")
            out.extend(found)
        elif p.is_file():
            out.append(p)
        else:
            raise InputError(str(p), None, "no such file or directory")
    seen: set[Path] = set()
    uniq = []
    for p in out:
        r = p.resolve()
        if r not in seen:
            seen.add(r)
            uniq.append(p)
    return uniq


@dataclass(frozen=True)
class Stored:
    """A file too large to read whole that is stored already (same sha256)."""

    path: Path
    sha: str


def item_path(item) -> Path:
    """The file of an item of a group: a file (Path), a piece of one, or a stored one."""
    return item.path if isinstance(item, (Piece, Stored)) else item


def starts_run(item) -> bool:
    """Does this item of a group start a run (a file, or its first piece)?"""
    return not isinstance(item, Piece) or item.index == 0


def import_groups(
    paths: Sequence[Path],
    group_bytes: int,
    chunk_bytes: int,
    *,
    whole: set[Path],
    existing: dict,
) -> Iterator[list]:
    """The groups of an import, one after the other: the files (Path) as
    :func:`file_groups` makes them, except that a file of more than ``group_bytes`` bytes
    of text (and not in ``whole``) comes as groups of its pieces (at least
    ``chunk_bytes`` each, ``group_bytes // chunk_bytes`` to a group; see
    :mod:`litaudit.runs.chunks`), each read when its group is due; :class:`Stored` when
    its sha256 is in ``existing``, and a list of its problems when it cannot be read."""
    for group in file_groups(paths, group_bytes):
        p = group[0]
        if len(group) > 1 or p in whole or text_size(p) <= group_bytes:
            yield group
        else:
            yield from _piece_groups(p, group_bytes, min(chunk_bytes, group_bytes), existing)


def _piece_groups(path: Path, group_bytes: int, chunk_bytes: int, existing: dict):
    try:
        sha = None
        if existing:  # (else the pieces' reader hashes the file on the way)
            try:
                sha = sha256_file(path)
            except OSError as exc:
                raise InputError(str(path), None, f"cannot read file: {exc.strerror}") from None
            if sha in existing:
                yield [Stored(path, sha)]
                return
        per = max(1, group_bytes // max(1, chunk_bytes))
        batch: list = []
        total, done = max(1, text_size(path)), 0.0
        for piece in PieceReader(path, chunk_bytes, hashed=sha is None):
            piece.sha = piece.sha or sha
            piece.share = 1 - done if piece.last else min(piece.size / total, 1 - done)
            done += piece.share
            batch.append(piece)
            if len(batch) == per:
                yield batch
                batch = []
        if batch:
            yield batch
    except InputError as exc:
        yield [[exc.problem]]
