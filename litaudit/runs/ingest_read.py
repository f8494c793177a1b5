"""Reading an import's run files, group by group, for :mod:`litaudit.runs.ingest`: a file
larger than a group read in pieces (:mod:`litaudit.runs.chunks`), each group's files read
on threads, and the checks that span files and groups (run tags, a file's pieces, topics
missing from qrels read beside them). The files' hashes, sizes and groups (the files given,
cut into groups of bounded text) are in :mod:`litaudit.runs.ingest_files`.
"""

from __future__ import annotations

import ctypes
import hashlib
import re
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from litaudit.errors import InputError, LitauditError, Problem, ValidationFailed
from litaudit.progress import Progress
from litaudit.runs import arrow_calls, trec_io
from litaudit.runs.chunks import Piece, read_piece
from litaudit.runs.coding import docno_words
from litaudit.runs.ingest_files import (
    Stored,
    item_path,
    starts_run,
)

# what a run tag may not hold: C0 and C1 controls, DEL, bidirectional controls
_TAG_UNSAFE = re.compile("[\x00-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")


class ReadWhole(Exception):
    """A file read in pieces that has to be read whole: a topic in two pieces (its lines
    not listed together), or a first piece without a valid line (lenient)."""

    def __init__(self, path: Path):
        super().__init__(str(path))
        self.path = path


@dataclass
class Tally:
    """What an import has found so far: problems, run tags, files written or skipped, and
    what the pieces read so far tell of their files (run tag, topics)."""

    problems: list[Problem] = field(default_factory=list)
    tags_seen: dict[str, Path] = field(default_factory=dict)
    imported: list[str] = field(default_factory=list)
    unchanged: dict[str, None] = field(default_factory=dict)
    lines: int = 0
    skipped: int = 0
    file_tags: dict[Path, str] = field(default_factory=dict)  # files read in pieces
    file_topics: dict[Path, set[str]] = field(default_factory=dict)

    def sort(
        self, group: list, read: list, existing: dict, existing_tags: dict, collection_id: str
    ) -> tuple[list, list]:
        """A group's items to write (item, sha256, RunTable) and their docno words;
        problems and files already stored noted."""
        self.problems += [p for r in read if isinstance(r, list) for p in r]
        todo, words = [], []
        for item, r in zip(group, read, strict=True):
            if isinstance(r, list):
                continue
            sha, rt, w = r
            if rt is None:
                self.unchanged[existing[sha][0]] = None
                continue
            if starts_run(item):
                self._check_tag(item_path(item), rt.tag, sha, existing_tags, collection_id)
            todo.append((item, sha, rt))
            words.append(w)
        return todo, words

    def _check_tag(self, p: Path, tag: str, sha, existing_tags: dict, collection_id: str) -> None:
        bad = _TAG_UNSAFE.search(tag)
        if bad:
            self.problems.append(
                Problem(
                    str(p),
                    None,
                    f"run tag {tag!r} holds the control character U+{ord(bad.group()):04X} "
                    "(a tag is shown on terminals and in reports)",
                )
            )
            return
        if tag in self.tags_seen:
            self.problems.append(
                Problem(str(p), None, f"run tag {tag!r} is also the tag of {self.tags_seen[tag]}")
            )
        elif tag in existing_tags and existing_tags[tag] != sha:
            self.problems.append(
                Problem(
                    str(p),
                    None,
                    f"run {tag!r} is already stored for {collection_id} "
                    f"from a different file; delete it first with "
                    f"`litaudit runs delete {tag}`",
                )
            )
        self.tags_seen[tag] = p

    def add(self, todo: list) -> None:
        """Count a written group's runs."""
        self.imported += [rt.tag for item, _, rt in todo if starts_run(item)]
        self.lines += sum(rt.lines for _, _, rt in todo)
        self.skipped += sum(rt.skipped for _, _, rt in todo)

    def pieces_read(self, group: list, read: list, qtopics, lenient: bool, sent: list) -> None:
        """Check a group's pieces against their files' earlier pieces (in order): one run
        tag (a piece read with another is read again line by line, naming the lines), and
        topics in one piece each (else :class:`ReadWhole`). ``sent``: the tag each piece
        was read with."""
        for i, item in enumerate(group):
            if not isinstance(item, Piece):
                continue
            r, want = read[i], self.file_tags.get(item.path)
            if isinstance(r, list):
                if want is not None and sent[i] != want:
                    read[i] = _read_piece(item, qtopics, lenient, want, fast=False)
                continue
            sha, rt, w = r
            if rt.tag is None:  # lenient: no valid line in the piece
                if want is None:
                    raise ReadWhole(item.path)
                read[i] = r = (sha, replace(rt, tag=want), w)
            elif want is None:
                self.file_tags[item.path] = rt.tag
            elif rt.tag != want:
                read[i] = r = _read_piece(item, qtopics, lenient, want, fast=False)
                if isinstance(r, list):
                    continue
            topics = set(r[1].table.column("topic").chunk(0).dictionary.to_pylist())
            seen = self.file_topics.setdefault(item.path, set())
            if seen & topics:
                raise ReadWhole(item.path)
            seen |= topics


def _read_piece(piece: Piece, qtopics, lenient: bool, tag: str | None, *, fast: bool = True):
    """(sha256, RunTable, docno words) of a piece, or its problems."""
    try:
        rt = read_piece(piece, qtopics, lenient, tag, fast=fast)
        return piece.sha, rt, docno_words(piece.path, rt.table)
    except ValidationFailed as exc:
        return exc.problems
    except InputError as exc:
        return [exc.problem]


def read_group(
    group: list,
    existing: dict,
    qtopics: set[str] | None,
    lenient: bool,
    threads: int,
    first: Callable | None = None,
    progress: Progress | None = None,
    release: bool = False,
    tally: Tally | None = None,
) -> tuple[list, object]:
    """Per item of a group (see :func:`import_groups`): (sha256, RunTable, docno words),
    (sha256, None, None) when already stored, or its problems; and what ``first``
    returned (or its problems), a job run on the same threads ahead of the files. Each
    file is read once: hashed, decompressed, parsed and its docnos cut into words (see
    :mod:`litaudit.runs.strcodes`) from the same bytes. ``qtopics=None``: run topics are
    not checked here (see :func:`with_qrels`). Pieces are checked with ``tally``'s record
    of their files (see :meth:`Tally.pieces_read`)."""
    tally = tally if tally is not None else Tally()
    sent = [tally.file_tags.get(item_path(it)) if isinstance(it, Piece) else None for it in group]

    def one(i: int):
        item = group[i]
        if isinstance(item, list):
            return item
        if isinstance(item, Stored):
            if progress is not None:
                progress(1)
            return item.sha, None, None
        if isinstance(item, Piece):
            got = _read_piece(item, qtopics, lenient, sent[i])
            if progress is not None and not isinstance(got, list):
                progress(item.share, lines=got[1].lines)
        else:
            got = _read_file(item, existing, qtopics, lenient, progress)
        if release:
            release_memory()
        return got

    def run_first():
        return _run_job(first)

    if threads > 1 and (len(group) > 1 or (first is not None and group)):
        # largest files first, so that the two threads finish together
        order = sorted(range(len(group)), key=lambda i: -_item_size(group[i]))
        with ThreadPoolExecutor(max_workers=threads) as pool:
            head = pool.submit(run_first) if first is not None else None
            got = dict(zip(order, pool.map(one, order), strict=True))
            done = head.result() if head is not None else None
        read = [got[i] for i in range(len(group))]
    else:
        done = run_first() if first is not None else None
        read = [one(i) for i in range(len(group))]
    tally.pieces_read(group, read, qtopics, lenient, sent)
    return read, done


def _run_job(job: Callable | None):
    """What ``job()`` returns, or its problems (the ``first`` job of :func:`read_group`)."""
    if job is None:
        raise LitauditError("internal error: no first job to run")
    try:
        return job()
    except ValidationFailed as exc:
        return exc.problems
    except InputError as exc:
        return [exc.problem]


def _item_size(item) -> int:
    if isinstance(item, Piece):
        return item.size
    if isinstance(item, Path):
        try:
            return item.stat().st_size
        except OSError:
            return 0
    return 0


def _read_file(p: Path, existing: dict, qtopics, lenient: bool, progress):
    """(sha256, RunTable, docno words) of a whole file, (sha256, None, None) when it is
    stored already, or its problems."""
    try:
        try:
            raw = p.read_bytes()
        except OSError as exc:
            raise InputError(str(p), None, f"cannot read file: {exc.strerror or exc}") from None
        sha = hashlib.sha256(raw).hexdigest()
        if sha in existing:
            if progress is not None:
                progress(1)
            return sha, None, None
        rt = trec_io.read_run_table(
            p, qrels_topics=qtopics, lenient=lenient, check_duplicates=False, raw=raw
        )
        del raw  # before the docno words: one file's bytes less in memory
        if progress is not None:
            progress(1, lines=rt.lines)
        return sha, rt, docno_words(p, rt.table)
    except ValidationFailed as exc:
        return exc.problems
    except InputError as exc:
        return [exc.problem]


def reread_slowly(item, qtopics, lenient: bool, tally: Tally):
    """An item of a group read again line by line (every problem named with its line):
    its RunTable, or its problems raised."""
    if isinstance(item, Piece):
        return read_piece(item, qtopics, lenient, tally.file_tags.get(item.path), fast=False)
    return trec_io.read_slow_run_table(item, qrels_topics=qtopics, lenient=lenient)


def _check_topics(item, result, qtopics: set[str], lenient: bool, tally: Tally):
    """A result of :func:`read_group` read before the qrels were known, checked against
    their topics: a run with a topic they lack, or one rejected already (whose problems
    should name the missing topics too), is read again line by line."""
    if not isinstance(result, list):
        sha, rt, _ = result
        if rt is None or set(rt.table.column("topic").chunk(0).dictionary.to_pylist()) <= qtopics:
            return result
    elif any(p.line is None for p in result):  # unreadable, empty: nothing to add
        return result
    try:
        rt = reread_slowly(item, qtopics, lenient, tally)
    except ValidationFailed as exc:
        return exc.problems
    except InputError as exc:
        return [exc.problem]
    if isinstance(result, list):  # rejected before, so it cannot pass now
        return result
    return result[0], rt, docno_words(item_path(item), rt.table)


def with_qrels(
    qread, read: list, group: list, lenient: bool, tally: Tally
) -> tuple[Any, Any, set[str], list]:
    """The qrels read beside the first group (table, docno words, topics) and the group's
    results checked against their topics; the qrels' problems (and the group's) raised."""
    if isinstance(qread, list):
        raise ValidationFailed(qread + [p for r in read if isinstance(r, list) for p in r])
    qtable, qwords = qread
    qtopics = set(arrow_calls.unique(qtable.column("topic")).to_pylist())
    return (
        qtable,
        qwords,
        qtopics,
        [_check_topics(it, r, qtopics, lenient, tally) for it, r in zip(group, read, strict=True)],
    )


def release_memory() -> None:
    """Hand the memory freed by a step back to the system: Arrow's pool (jemalloc keeps
    freed pages for reuse by Arrow alone) and the C library's heap (glibc's malloc_trim).
    Without it, the memory an import holds grows by a few hundred MB with each group."""
    # start-up: pyarrow
    import pyarrow as pa

    pa.default_memory_pool().release_unused()
    _malloc_trim()


def _malloc_trim() -> None:
    global _trim
    if _trim is None:
        _trim = False
        try:
            libc = ctypes.CDLL(None)
            if hasattr(libc, "gnu_get_libc_version"):
                _trim = libc.malloc_trim
        except (OSError, AttributeError):
            pass
    if _trim:
        _trim(0)


_trim: Any = None  # glibc's malloc_trim, False where there is none, None: not looked up
