"""A stored run archive read by ranges of its topics, for the reusability analyses.

Every reusability analysis is a computation per topic followed by a reduction over topics
(RAO: a run's overlap on each topic, averaged; LOU: each topic's unique relevant documents,
and AP per topic, averaged; the hold-out pool table: AP per topic and hold-out). So the
archive need not be in memory at once: :class:`RangedArchive` holds what is the same for
every topic (runs, participants, the qrels' topics in trec_eval order) and hands out the
archive one range of topic ids at a time (:meth:`RangedArchive.parts`), each a
:class:`~litaudit.analyses.reuse.coded_archive.CodedArchive` of those topics, as ``runs eval``
reads large runs (its qrels cut to the same range). Each range is read from DuckDB once and
kept in a temporary folder as one file of its arrays (memory-mapped when read again), so
the analyses' later passes (LOU at several depths, the pool table at several depths) read
it back without DuckDB's sort work.

Peak memory follows the range's size (``range_lines``), not the archive's. The results are
the whole-archive path's to the digit (the per-topic values are the same numbers; the
reductions add them in the same order): tests compare both on robust03.
"""

from __future__ import annotations

import pickle
import tempfile
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field, fields, replace
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from litaudit.analyses.reuse.coded_archive import CodedArchive, code_stored
from litaudit.errors import NotFound
from litaudit.runs.archive import load_tables, require_qrels, run_rows, stored_fingerprint
from litaudit.runs.archive_lookups import docnos as stored_docnos
from litaudit.runs.archive_lookups import judged_topics, lines_per_topic
from litaudit.runs.model import sort_topics
from litaudit.store.collections import resolve_collection

if TYPE_CHECKING:
    import duckdb

RANGE_LINES = 800_000  # ours: a range holds about this many ranked documents (~80 MB of
# codes). 2M before: robust03's 1.5M lines were one range, whose reading set the peak of
# `report -c robust03` (599 -> 521 MiB with 800k); at 110 runs x 27.4M lines the report's
# first reading of the ranges took the same CPU (4.8 -> 4.2 s), its peak 999 -> 857 MiB


@dataclass(frozen=True)
class RangedArchive:
    """What a :class:`CodedArchive` holds for the whole archive, without its rows; the
    rows come range by range from :meth:`parts`."""

    collection_id: str
    tags: tuple[str, ...]
    participants: tuple[str, ...]
    run_types: tuple[str | None, ...]
    participant_names: tuple[str, ...]
    participant_of_run: np.ndarray
    topic_names: tuple[str, ...]  # the qrels' topics, trec_eval's order
    fingerprint: (
        str  # the stored archive's state (:func:`litaudit.runs.archive.stored_fingerprint`)
    )
    ranges: tuple[tuple[int, int], ...]  # stored topic id ranges [lo, hi)
    n_lines: int  # ranked documents of the archive (all topics)
    _con: duckdb.DuckDBPyConnection = field(repr=False, compare=False)
    _docnos: object = field(repr=False, compare=False)  # pyarrow strings, by doc id
    _cache: tempfile.TemporaryDirectory = field(repr=False, compare=False)

    def parts(
        self, progress: Callable[[int], None] | None = None
    ) -> Iterator[tuple[np.ndarray, CodedArchive]]:
        """(global positions of its topics in :attr:`topic_names`, coded archive of those
        topics) for each range holding qrels topics; ``progress(1)`` after each range."""
        pos_of = {t: i for i, t in enumerate(self.topic_names)}
        for n, (lo, hi) in enumerate(self.ranges):
            c = self._part(n, lo, hi)
            if c is not None:
                yield np.array([pos_of[t] for t in c.topic_names], dtype=np.int64), c
            del c
            if progress is not None:
                progress(1)

    def read(self, progress: Callable[[int], None] | None = None) -> None:
        """Read every range once (the first pass, from DuckDB: the costly one), so that a
        progress bar can show it apart; ``progress(1)`` after each range."""
        for _ in self.parts(progress):
            pass

    def _part(self, n: int, lo: int, hi: int) -> CodedArchive | None:
        """Range ``n``: read from DuckDB and coded the first time, then from its file
        of arrays (memory-mapped: a pass costs the pages it reads). Its ``docnos`` are not
        kept (empty): the analyses read by ranges use the codes only."""

        folder = Path(self._cache.name) / str(n)
        if folder.is_dir():
            meta = pickle.loads((folder / "meta.pickle").read_bytes())
            if meta is None:
                return None
            layout = meta.pop(_LAYOUT)
            return CodedArchive(**_mapped(folder / "arrays.bin", layout), **meta)

        folder.mkdir()
        t = load_tables(self._con, self.collection_id, docnos=False, topic_ids=(lo, hi))
        if not t.q_rel.size:
            (folder / "meta.pickle").write_bytes(pickle.dumps(None))
            return None
        c = code_stored(replace(t, docnos=self._docnos), self.collection_id, fingerprint=False)
        del t
        c = replace(c, docnos=np.zeros(0, dtype=object))
        _write_range(folder, c)
        return c


_LAYOUT = "_layout"  # meta.pickle's key of the arrays' (dtype, shape, offset) in arrays.bin
_ALIGN = 64


def _write_range(folder: Path, c: CodedArchive) -> None:
    """``c``'s numeric arrays one after the other in ``folder``/arrays.bin (each aligned),
    the rest and where each array lies in ``folder``/meta.pickle."""
    meta: dict = {}
    layout: dict[str, tuple[str, tuple[int, ...], int]] = {}
    end = 0
    with open(folder / "arrays.bin", "wb") as out:
        for f in fields(CodedArchive):
            x = getattr(c, f.name)
            if isinstance(x, np.ndarray) and x.dtype != object:
                x = np.ascontiguousarray(x)
                out.write(b"\0" * (-end % _ALIGN))  # each array starts aligned
                end += -end % _ALIGN
                layout[f.name] = (x.dtype.str, x.shape, end)
                x.tofile(out)
                end += x.nbytes
            else:
                meta[f.name] = x
    meta[_LAYOUT] = layout
    (folder / "meta.pickle").write_bytes(pickle.dumps(meta))


def _mapped(path: Path, layout: dict[str, tuple[str, tuple[int, ...], int]]) -> dict:
    """The arrays of a range's one file, memory-mapped once (one map per range and pass,
    not one per array: a pass over robust03's 100 one-topic ranges 0.12 -> 0.0x s)."""
    size = path.stat().st_size
    whole = np.memmap(path, dtype=np.uint8, mode="r") if size else np.zeros(0, np.uint8)
    out = {}
    for name, (dtype, shape, offset) in layout.items():
        dt = np.dtype(dtype)
        count = int(np.prod(shape, dtype=np.int64))
        out[name] = whole[offset : offset + count * dt.itemsize].view(dt).reshape(shape)
    return out


def load_ranged(
    con: duckdb.DuckDBPyConnection,
    collection: str,
    *,
    range_lines: int = RANGE_LINES,
    progress: Callable[[int], None] | None = None,
) -> tuple[str, RangedArchive]:
    """(collection id, ranged archive) of a stored collection (any alias): its runs, the
    qrels' topics, and ranges of stored topic ids of about ``range_lines`` ranked documents
    each (a topic is never split). Reads no rankings (one count per topic); ``progress(1)``
    once done."""

    cid = resolve_collection(con, collection).id
    require_qrels(con, cid)
    rows = run_rows(con, cid, None)
    if not rows:
        raise NotFound(f"the run archive of {cid} has no runs")
    per_topic = lines_per_topic(con, cid, [r[0] for r in rows])
    q_topics = judged_topics(con, cid)
    docnos = stored_docnos(con, cid)
    ranges: list[tuple[int, int]] = []
    size = 0
    for topic_id, n in per_topic:
        if not ranges or size + int(n) > range_lines:
            ranges.append((int(topic_id), int(topic_id) + 1))
            size = 0
        ranges[-1] = (ranges[-1][0], int(topic_id) + 1)
        size += int(n)
    parts = tuple((r[2] or r[1]) for r in rows)
    part_names = tuple(sorted(set(parts)))
    ranged = RangedArchive(
        collection_id=cid,
        tags=tuple(r[1] for r in rows),
        participants=parts,
        run_types=tuple(r[3] for r in rows),
        participant_names=part_names,
        participant_of_run=np.array([part_names.index(p) for p in parts]),
        topic_names=sort_topics(q_topics),
        fingerprint=stored_fingerprint(con, cid),
        ranges=tuple(ranges),
        n_lines=sum(int(n) for _, n in per_topic),
        _con=con,
        _docnos=docnos,
        _cache=tempfile.TemporaryDirectory(prefix="litaudit-ranges-"),
    )
    if progress is not None:
        progress(1)
    return cid, ranged
