"""A large run file read in pieces of bounded size, so that importing it needs the memory
of one piece, not of the file.

A piece holds at least ``chunk_bytes`` bytes of text (all of it at the file's end) and
ends where a topic's lines end: it is cut before the first line, at or after that size,
whose topic (first field) differs from the line before. In a file that lists each topic's
lines together (as trec_eval's input usually does), every topic is then in one piece, so a
piece is checked (a document twice in a topic), coded and put in trec_eval order alone;
the importer finds a file that does not (a topic in two pieces) and reads it whole
instead (see :mod:`litaudit.runs.ingest`). Plain or gzip (read as a stream), hashed
(sha256 of the file's bytes as stored) while it is read. Each piece knows the number of
its first line in the file, so that its problems name the file's lines.
"""

from __future__ import annotations

import gzip
import hashlib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from litaudit.errors import InputError
from litaudit.runs import trec_io
from litaudit.runs.fastread import RunTable, fast_run
from litaudit.runs.trec_parse import parse_run_text

try:  # python-isal (a dependency) decompresses gzip ~2x faster; plain gzip where it is missing
    from isal import igzip
except ImportError:  # pragma: no cover
    igzip = None  # type: ignore[assignment]

READ_BLOCK = 1 << 20  # bytes read at a time past a piece's size, looking for its end


@dataclass
class Piece:
    """A part of a run file: whole lines, whole topics (see the module's docstring)."""

    path: Path
    index: int  # 0, 1, ... in the file
    first_line: int  # the number of its first line in the file
    data: bytes  # its text (decompressed)
    last: bool  # the file's last piece
    sha: str | None  # on the last piece: the file's sha256 (when the reader hashed it)
    share: float = 0.0  # of the file's text (for progress; the last piece: the rest)

    @property
    def size(self) -> int:
        return len(self.data)


class _Hashing:
    """A binary file that hashes what is read from it."""

    def __init__(self, fh, hashed: bool):
        self.fh = fh
        self.h = hashlib.sha256() if hashed else None

    def read(self, n: int = -1) -> bytes:
        b = self.fh.read(n)
        if self.h is not None:
            self.h.update(b)
        return b

    def readinto(self, b) -> int:
        n = self.fh.readinto(b)
        if self.h is not None and n:
            self.h.update(memoryview(b)[:n])
        return n

    def readable(self) -> bool:
        return True

    def rest(self) -> None:
        """Read (and hash) what is left of the file."""
        while self.read(READ_BLOCK):
            pass


class PieceReader:
    """The pieces of one run file, in order (an iterator; close() when stopped early).

    ``hashed``: compute the file's sha256 on the way (given on the last piece)."""

    def __init__(self, path: Path, chunk_bytes: int, *, hashed: bool = True):
        self.path = Path(path)
        self.chunk = max(1, chunk_bytes)
        try:
            self._raw = _Hashing(open(self.path, "rb"), hashed)
            gz = self._raw.fh.read(2) == b"\x1f\x8b"
            self._raw.fh.seek(0)
        except OSError as exc:
            raise InputError(str(path), None, f"cannot read file: {exc.strerror or exc}") from None
        self._text = _gzip_reader(self._raw) if gz else self._raw
        self._rest = b""
        self._eof = False
        self._index = 0
        self._line = 1

    def close(self) -> None:
        self._raw.fh.close()

    def __iter__(self):
        return self

    def __next__(self) -> Piece:
        try:
            data = self._cut()
        except BaseException:
            self.close()
            raise
        if data is None:
            self.close()
            raise StopIteration
        last = self._eof and not self._rest
        sha = None
        if last:
            self._raw.rest()
            self.close()
            sha = self._raw.h.hexdigest() if self._raw.h is not None else None
        piece = Piece(self.path, self._index, self._line, data, last, sha)
        self._index += 1
        self._line += data.count(b"\n")
        return piece

    def _read(self, n: int) -> bytes:
        try:
            b = self._text.read(n)
        except OSError as exc:
            if self._text is self._raw:
                msg = f"cannot read file: {exc.strerror or exc}"
            else:
                msg = f"not a readable gzip file ({exc})"
            raise InputError(str(self.path), None, msg) from None
        except (EOFError, ValueError) as exc:  # gzip's truncated or corrupt streams
            raise InputError(str(self.path), None, f"not a readable gzip file ({exc})") from None
        if not b:
            self._eof = True
        return b

    def _cut(self) -> bytes | None:
        """The next piece's text (None at the end): at least ``chunk`` bytes, cut before
        the first line past them whose topic differs from the line before."""
        parts = [self._rest]
        size = len(self._rest)
        while size < self.chunk and not self._eof:
            b = self._read(max(self.chunk - size, READ_BLOCK))
            parts.append(b)
            size += len(b)
        buf = b"".join(parts)
        del parts
        if not buf:
            return None
        # from the start of the line that holds the piece's last byte at the least
        p = buf.rfind(b"\n", 0, min(self.chunk, len(buf)) - 1) + 1
        topic = None
        while True:
            e = buf.find(b"\n", p)
            if e < 0:
                if self._eof:
                    self._rest = b""
                    return buf
                buf += self._read(READ_BLOCK)
                continue
            fields = buf[p:e].split(None, 1)
            if fields:
                if topic is None:
                    topic = fields[0]
                elif fields[0] != topic:
                    self._rest = buf[p:]
                    return buf[:p]
            p = e + 1


def _gzip_reader(raw: Any):
    if igzip is None:
        return gzip.GzipFile(fileobj=raw, mode="rb")
    return igzip.IGzipFile(fileobj=raw, mode="rb")


def read_piece(
    piece: Piece,
    qrels_topics: set[str] | None,
    lenient: bool,
    tag: str | None = None,
    *,
    fast: bool = True,
) -> RunTable:
    """A piece as Arrow columns, validated: by the fast reader (``fast``), else line by
    line (the problems raised naming the file's lines, at most ``MAX_PROBLEMS`` of the
    piece; lenient: dropped). ``tag``: the file's run tag, when known. A document twice
    in a topic is left to the caller on the fast path (as
    ``read_run_table(check_duplicates=False)``)."""
    if fast:
        rt = fast_run(piece.data, qrels_topics, check_duplicates=False)
        if rt is not None and (tag is None or rt.tag == tag):
            return rt
    name = str(piece.path)
    pr, col = parse_run_text(
        name, piece.data, first_line=piece.first_line, tag=tag, qrels_topics=qrels_topics
    )
    if not lenient:
        col.raise_if_any()
    if pr.lines == 0:  # blank lines only: the whole file (a piece ends with a topic)
        raise InputError(name, None, "empty run file (no ranking lines)")
    return trec_io.run_table(pr)
