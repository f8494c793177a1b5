"""A run archive as the reusability analyses read it: integer codes for runs, topics and
docnos (in strcmp order), each run's lists in trec_eval order, and a fingerprint of the
content for the audits that use it. Built from an in-memory
:class:`~litaudit.runs.model.Archive` (:func:`code_archive`) or straight from the store's
integer tables (:func:`code_stored`, :func:`load_coded`); both give the same arrays.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

import numpy as np
import pyarrow as pa

from litaudit.errors import NotFound
from litaudit.runs.archive import load_tables, stored_fingerprint
from litaudit.runs.coded import CodedQrels, CodedRuns, Evaluation
from litaudit.runs.columns import from_numpy
from litaudit.runs.evaluate import evaluate_coded
from litaudit.runs.model import sort_topics
from litaudit.runs.order import codes_in_byte_order, trec_order
from litaudit.store.collections import resolve_collection

if TYPE_CHECKING:
    import duckdb


@dataclass(frozen=True)
class CodedArchive:
    """An archive as integer codes, each list in trec_eval order (float32 score, docno);
    rows sorted by run (each run's rows one block), then topic, then rank."""

    collection_id: str
    tags: tuple[str, ...]
    participants: tuple[str, ...]  # per run (its tag when the archive has none)
    run_types: tuple[str | None, ...]  # per run
    participant_names: tuple[str, ...]  # distinct participants, sorted
    participant_of_run: np.ndarray  # (n_runs,) index into participant_names
    topic_names: tuple[str, ...]  # topics of the qrels
    docnos: np.ndarray  # docno of every doc code (byte order)
    run: np.ndarray  # ranked entries restricted to qrels topics
    topic: np.ndarray
    doc: np.ndarray
    rank: np.ndarray  # 0-based rank within its (run, topic) list
    score: np.ndarray
    q_topic: np.ndarray  # qrels rows
    q_doc: np.ndarray
    q_rel: np.ndarray
    fingerprint: str  # sha256 of the archive's content


def code_archive(archive) -> CodedArchive:
    """Integer-code an :class:`~litaudit.runs.model.Archive` (runs in trec_eval order)."""

    runs = archive.runs
    if not runs:
        raise NotFound(f"the run archive of {archive.collection_id} has no runs")
    n = np.array([len(r) for r in runs])
    all_docs = np.concatenate([r.docno for r in runs] + [archive.qrels.docno])
    all_tops = np.concatenate([r.topic for r in runs] + [archive.qrels.topic])
    doc_codes, docnos = codes_in_byte_order(all_docs)  # code point = strcmp order
    top_codes, top_names = codes_in_byte_order(all_tops)
    total = int(n.sum())
    run = np.repeat(np.arange(len(runs)), n)
    topic, doc = top_codes[:total], doc_codes[:total]
    score = np.concatenate([r.score for r in runs]).astype(np.float64)
    with np.errstate(over="ignore"):  # beyond FLT_MAX: +-inf, as C's (float)
        score32 = score.astype(np.float32)
    if np.isnan(score32).any():  # NaN last, as lexsort places it
        order = np.lexsort((-doc, -score32, topic, run))
    else:  # the same order from one sort of packed keys: robust03 0.49 -> 0.04 s
        key = run * (int(topic.max(initial=0)) + 1) + topic
        order = trec_order(key, score, doc, stable=True)
    score = score[order]
    infos = [(i.tag, i.participant, i.run_type) for i in archive.info]
    coded = _assemble(
        archive.collection_id,
        infos,
        np.asarray(docnos, dtype=object),
        [str(t) for t in top_names],
        (run[order], topic[order], doc[order], score),
        (top_codes[total:], doc_codes[total:], np.asarray(archive.qrels.rel, dtype=np.int32)),
    )
    return _fingerprinted(coded, infos)


LOAD_STEPS = 4  # progress steps of load_coded: read, docnos coded, rows ordered, assembled


def code_stored(
    tables,
    collection_id: str,
    progress: Callable[[int], None] | None = None,
    *,
    fingerprint: bool = True,
) -> CodedArchive:
    """What :func:`code_archive` makes of ``load_archive``, built from the stored integer
    tables (:func:`litaudit.runs.archive.load_tables`) with no string joins or sorts of
    rows by text: the same arrays, in the same order, with the same fingerprint.
    ``progress(1)`` after each of its three steps (see :data:`LOAD_STEPS`).
    ``fingerprint=False``: no hash of the content (the fingerprint left empty) for a
    caller that fingerprints the stored archive by its state instead.

    Memory: the sort key is built from int32 codes where they fit and each column is
    gathered into order straight from the stored one (robust03's 1.5M rows: 107 MB of
    numpy at the peak, 76 MB kept, instead of 166 MB)."""

    t = tables
    if not t.runs:
        raise NotFound(f"the run archive of {collection_id} has no runs")
    run_pos = np.full(max(r[0] for r in t.runs) + 1, -1, dtype=np.int64)
    run_pos[[r[0] for r in t.runs]] = np.arange(len(t.runs))
    # docnos used by these runs and qrels, coded by their rank in byte (strcmp) order
    used = np.zeros(len(t.docnos), dtype=bool)
    used[t.doc_id] = True
    used[t.q_doc_id] = True
    used_ids = np.flatnonzero(used)
    names = t.docnos.take(from_numpy(used_ids)).to_pylist()
    # str order is code point order, which is UTF-8 byte order (strcmp)
    by_bytes = np.array(sorted(range(len(names)), key=names.__getitem__), dtype=np.int64)
    doc_code = np.full(len(t.docnos), -1, dtype=np.int64)
    doc_code[used_ids[by_bytes]] = np.arange(len(used_ids))
    docnos = np.empty(len(names), dtype=object)
    docnos[:] = names
    docnos = docnos[by_bytes]
    # topics used, coded by their rank as strings (code_archive's intermediate order)
    top_used = np.zeros(len(t.topics), dtype=bool)
    top_used[t.topic_id] = True
    top_used[t.q_topic_id] = True
    top_ids = np.flatnonzero(top_used)
    top_sorted = sorted(top_ids.tolist(), key=lambda i: t.topics[i])
    top_code = np.full(len(t.topics), -1, dtype=np.int64)
    top_code[top_sorted] = np.arange(len(top_sorted))
    tick = progress or (lambda n: None)
    tick(1)
    order = _stored_order(t, run_pos, top_code, doc_code, len(top_sorted))
    tick(1)
    # qrels in load_qrels' order: topic, then docno (as text)
    q_topic, q_doc = top_code[t.q_topic_id], doc_code[t.q_doc_id]
    q_order = np.lexsort((q_doc, q_topic))
    infos = [(r[1], r[2], r[3]) for r in t.runs]
    coded = _assemble(
        collection_id,
        infos,
        docnos,
        [t.topics[i] for i in top_sorted],
        (
            run_pos[t.run_id[order]],
            top_code[t.topic_id[order]],
            doc_code[t.doc_id[order]],
            np.asarray(t.score, dtype=np.float64)[order],
        ),
        (q_topic[q_order], q_doc[q_order], np.asarray(t.q_rel, dtype=np.int32)[q_order]),
    )
    if fingerprint:
        coded = _fingerprinted(coded, infos)
    tick(1)
    return coded


def _stored_order(t, run_pos, top_code, doc_code, n_topics: int) -> np.ndarray:
    """The rows' order: run, topic code, then trec_eval's ranking (float32 score
    descending, docno code descending); codes looked up as int32 where they fit."""

    small = max(len(run_pos) * max(n_topics, 1), len(doc_code)) < 2**31
    ct = np.int32 if small else np.int64
    key = run_pos.astype(ct)[t.run_id]
    key *= ct(n_topics)
    key += top_code.astype(ct)[t.topic_id]
    doc = doc_code.astype(ct)[t.doc_id]
    with np.errstate(over="ignore"):
        return trec_order(key, np.asarray(t.score).astype(np.float32), doc)


def _assemble(
    collection_id: str,
    infos: list[tuple],
    docnos: np.ndarray,
    top_names: list[str],
    rows: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray],
    qrels: tuple[np.ndarray, np.ndarray, np.ndarray],
) -> CodedArchive:
    """The coded archive from ``rows`` (run, topic, doc, score codes) already in order
    (run, topic as text, trec_eval's ranking) whose topics are coded by their rank as text
    (``top_names``), and ``qrels`` (topic, doc, relevance): topics recoded to the qrels'
    topics in trec_eval's order, rows of other topics dropped."""

    run, topic, doc, score = rows
    q_topic, q_doc, q_rel = qrels

    q_names = sort_topics({top_names[t] for t in np.unique(q_topic)})
    recode = np.full(len(top_names), -1)
    name_pos = {t: i for i, t in enumerate(q_names)}
    for code, name in enumerate(top_names):
        recode[code] = name_pos.get(name, -1)
    topic = recode[topic]
    keep = topic >= 0
    if not keep.all():  # no copies when every row is of a qrels topic
        run, topic, doc, score = run[keep], topic[keep], doc[keep], score[keep]
    del keep
    rank = _rank_in_list(run, topic)
    parts = tuple((p or tag) for tag, p, _ in infos)
    part_names = tuple(sorted(set(parts)))
    return CodedArchive(
        collection_id=collection_id,
        tags=tuple(tag for tag, _, _ in infos),
        participants=parts,
        run_types=tuple(rt for _, _, rt in infos),
        participant_names=part_names,
        participant_of_run=np.array([part_names.index(p) for p in parts]),
        topic_names=q_names,
        docnos=docnos,
        run=run,
        topic=topic,
        doc=doc,
        rank=rank,
        score=score,
        q_topic=recode[q_topic],
        q_doc=q_doc,
        q_rel=q_rel,
        fingerprint="",  # see _fingerprinted
    )


def _fingerprinted(c: CodedArchive, infos: list[tuple]) -> CodedArchive:
    """``c`` with the sha256 of its content (docnos, topics, runs' (tag, participant,
    type) ``infos``, rows, qrels) as its fingerprint."""
    h = hashlib.sha256()
    for part in ("\n".join(map(str, c.docnos)), "\n".join(c.topic_names), repr(list(infos))):
        h.update(part.encode("utf-8"))
    for arr in (c.run, c.topic, c.doc, c.score, c.q_topic, c.q_doc, c.q_rel):
        h.update(np.ascontiguousarray(arr).data.cast("B"))  # its bytes, no copy
    return replace(c, fingerprint=h.hexdigest())


def _rank_in_list(run: np.ndarray, topic: np.ndarray) -> np.ndarray:
    """0-based position of each row in its (run, topic) list (rows grouped by list)."""
    n = run.size
    if not n:
        return np.zeros(0, dtype=np.int64)
    start = np.empty(n, dtype=bool)
    start[0] = True
    np.not_equal(run[1:], run[:-1], out=start[1:])
    start[1:] |= topic[1:] != topic[:-1]
    rank = np.arange(n)
    first = np.where(start, rank, 0)
    np.maximum.accumulate(first, out=first)
    rank -= first
    return rank


def load_coded(
    con: duckdb.DuckDBPyConnection, collection: str, progress: Callable[[int], None] | None = None
) -> tuple[str, CodedArchive]:
    """(collection id, coded archive) of a stored collection (any alias), built from the
    stored integer tables (:func:`code_stored`); ``progress(1)`` after each of its
    :data:`LOAD_STEPS` steps (a whole archive at a time: MS MARCO's runs take seconds).

    Memory: Arrow's allocator keeps what it frees for its own reuse, which the analyses'
    numpy arrays cannot have; it is asked to hand the tables' memory back once they are
    coded (on robust03's 1.5M rows, `report`'s peak drops by about 50 MB). Its
    fingerprint is the stored archive's state
    (:func:`~litaudit.runs.archive.stored_fingerprint`), as a ranged archive's,
    so that audits stored by either path are found by the other."""

    cid = resolve_collection(con, collection).id
    tables = load_tables(con, cid)
    if progress is not None:
        progress(1)
    coded = code_stored(tables, cid, progress, fingerprint=False)
    del tables
    pa.default_memory_pool().release_unused()
    # the audits' fingerprint of a stored archive is its state (as the ranged path's)
    return cid, replace(coded, fingerprint=stored_fingerprint(con, cid))


def as_coded(archive, coded: CodedArchive | None) -> CodedArchive:
    """The coded form of what an ``*_of_archive`` function was given (an Archive, or a
    CodedArchive already)."""
    if coded is not None:
        return coded
    return archive if isinstance(archive, CodedArchive) else code_archive(archive)


def _rows_of_runs(run: np.ndarray, wanted: np.ndarray) -> np.ndarray:
    """Indices of the rows of the runs ``wanted`` (ascending), in row order: each run's
    rows are one block (rows are sorted by run), found by binary search, so a few runs
    of a large archive cost their own rows, not a pass over all of them."""
    start = np.searchsorted(run, wanted, side="left")
    stop = np.searchsorted(run, wanted, side="right")
    return np.concatenate(
        [np.arange(0, dtype=np.int64)]
        + [np.arange(a, b) for a, b in zip(start.tolist(), stop.tolist(), strict=True)]
    )


def evaluate_means(
    c: CodedArchive,
    measure: str,
    *,
    runs: np.ndarray | None = None,
    qrels_keep: np.ndarray | None = None,
) -> np.ndarray:
    """Per run the mean of ``measure`` as trec_eval computes it (litaudit.runs.evaluate),
    for the runs ``runs`` (indices; default all) and the qrels rows ``qrels_keep``."""
    measure = str(measure)
    return evaluate_topics(c, measure, runs=runs, qrels_keep=qrels_keep).mean(measure)


def evaluate_topics(
    c: CodedArchive,
    measure: str,
    *,
    runs: np.ndarray | None = None,
    qrels_keep: np.ndarray | None = None,
):
    """The :class:`~litaudit.runs.coded.Evaluation` behind :func:`evaluate_means`."""

    if runs is None:  # every run: the archive's own columns, no row selection
        coded = CodedRuns(
            c.tags,
            c.topic_names,
            c.run.astype(np.int32),
            c.topic.astype(np.int32),
            c.doc,
            c.score,
        )
    else:
        recode = np.full(len(c.tags), -1)
        recode[runs] = np.arange(len(runs))
        sel = _rows_of_runs(c.run, np.flatnonzero(recode >= 0))
        coded = CodedRuns(
            tuple(c.tags[i] for i in runs),
            c.topic_names,
            recode[c.run[sel]].astype(np.int32),
            c.topic[sel].astype(np.int32),
            c.doc[sel],
            c.score[sel],
        )
    keep = slice(None) if qrels_keep is None else qrels_keep
    cq = CodedQrels(c.q_topic[keep].astype(np.int32), c.q_doc[keep], c.q_rel[keep])
    return evaluate_coded(coded, cq, [measure], check_duplicates=False)


class TopicColumns:
    """Per-topic values of some runs gathered range by range (:class:`Evaluation` of each
    range), placed at the topics' positions in the whole archive's order; :meth:`mean` is
    then :meth:`Evaluation.mean` of the whole archive's evaluation, to the digit (the same
    columns in the same order)."""

    def __init__(self, n_runs: int, topic_names: tuple[str, ...]):
        self.values = np.full((n_runs, len(topic_names)), np.nan)
        self.evaluated = np.zeros(len(topic_names), dtype=bool)
        self._pos = {t: i for i, t in enumerate(topic_names)}

    def add(self, ev, measure: str) -> None:
        pos = np.array([self._pos[t] for t in ev.topics], dtype=np.int64)
        self.values[:, pos] = ev.matrix(measure)
        self.evaluated[pos] = True

    def put(self, pos: np.ndarray, values: np.ndarray) -> None:
        """Per-topic values (runs x topics) computed without an :class:`Evaluation`, at the
        topics' positions ``pos``; NaN where a run was not evaluated."""
        self.values[:, pos] = values
        self.evaluated[pos] = True

    def mean(self, measure: str) -> np.ndarray:

        cols = np.flatnonzero(self.evaluated)
        m = np.ascontiguousarray(self.values[:, cols])
        runs = tuple(str(i) for i in range(m.shape[0]))
        return Evaluation((measure,), runs, tuple(map(str, cols)), m[None]).mean(measure)


def find_sorted(keys: np.ndarray, wanted: np.ndarray, span: int) -> tuple[np.ndarray, np.ndarray]:
    """(indices into ``wanted`` of the values found in ``keys``, their positions in
    ``keys``): ``keys`` sorted, distinct, all values in [0, ``span``). A dense table of the
    span when it is no larger than a few times ``wanted`` (one gather), else a binary
    search; the same answer either way."""
    if not keys.size or not wanted.size:
        return np.zeros(0, np.int64), np.zeros(0, np.int64)
    if span <= 4 * wanted.size + 1024:
        table = np.full(span, -1, dtype=np.int32 if keys.size < 2**31 else np.int64)
        table[keys] = np.arange(keys.size)
        at = table[wanted]
        del table
        hit = np.flatnonzero(at >= 0)
        return hit, at[hit].astype(np.int64)
    at = np.minimum(np.searchsorted(keys, wanted), keys.size - 1)
    hit = np.flatnonzero(keys[at] == wanted)
    return hit, at[hit]
