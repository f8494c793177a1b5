"""A run archive as the reusability analyses read it: integer codes for runs, topics and
docnos (in strcmp order), each run's lists in trec_eval order, and a fingerprint of the
content for the audits that use it. Built from an in-memory
:class:`~litaudit.runs.model.Archive` (:func:`code_archive`) or straight from the store's
integer tables (:func:`code_stored`, :func:`load_coded`); both give the same arrays.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from litaudit.errors import NotFound


@dataclass(frozen=True)
class CodedArchive:
    """An archive as integer codes, each list in trec_eval order (float32 score, docno)."""

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
    import pandas as pd

    runs = archive.runs
    if not runs:
        raise NotFound(f"the run archive of {archive.collection_id} has no runs")
    n = np.array([len(r) for r in runs])
    all_docs = np.concatenate([r.docno for r in runs] + [archive.qrels.docno])
    all_tops = np.concatenate([r.topic for r in runs] + [archive.qrels.topic])
    doc_codes, docnos = pd.factorize(all_docs, sort=True)  # code point = strcmp order
    top_codes, top_names = pd.factorize(all_tops, sort=True)
    total = int(n.sum())
    run = np.repeat(np.arange(len(runs)), n)
    topic, doc = top_codes[:total], doc_codes[:total]
    score32 = np.concatenate([r.score for r in runs]).astype(np.float32)
    order = np.lexsort((-doc, -score32, topic, run))
    score = np.concatenate([r.score for r in runs]).astype(np.float64)[order]
    return _assemble(
        archive.collection_id,
        [(i.tag, i.participant, i.run_type) for i in archive.info],
        np.asarray(docnos, dtype=object),
        [str(t) for t in top_names],
        run[order],
        topic[order],
        doc[order],
        score,
        top_codes[total:],
        doc_codes[total:],
        np.asarray(archive.qrels.rel, dtype=np.int32),
    )


LOAD_STEPS = 4  # progress steps of load_coded: read, docnos coded, rows ordered, assembled


def code_stored(
    tables, collection_id: str, progress: Callable[[int], None] | None = None
) -> CodedArchive:
    """What :func:`code_archive` makes of ``load_archive``, built from the stored integer
    tables (:func:`litaudit.runs.archive.load_tables`) with no string joins or sorts of
    rows by text: the same arrays, in the same order, with the same fingerprint.
    ``progress(1)`` after each of its three steps (see :data:`LOAD_STEPS`)."""
    import pyarrow as pa
    import pyarrow.compute as pc

    from litaudit.runs.order import trec_order

    t = tables
    if not t.runs:
        raise NotFound(f"the run archive of {collection_id} has no runs")
    run_pos = np.full(max(r[0] for r in t.runs) + 1, -1, dtype=np.int64)
    run_pos[[r[0] for r in t.runs]] = np.arange(len(t.runs))
    run = run_pos[t.run_id]
    # docnos used by these runs and qrels, coded by their rank in byte (strcmp) order
    used = np.zeros(len(t.docnos), dtype=bool)
    used[t.doc_id] = True
    used[t.q_doc_id] = True
    used_ids = np.flatnonzero(used)
    names = t.docnos.take(pa.array(used_ids))
    by_bytes = np.asarray(pc.sort_indices(names))
    doc_code = np.full(len(t.docnos), -1, dtype=np.int64)
    doc_code[used_ids[by_bytes]] = np.arange(len(used_ids))
    docnos = np.asarray(names.take(pa.array(by_bytes)).to_pylist(), dtype=object)
    # topics used, coded by their rank as strings (code_archive's intermediate order)
    top_used = np.zeros(len(t.topics), dtype=bool)
    top_used[t.topic_id] = True
    top_used[t.q_topic_id] = True
    top_ids = np.flatnonzero(top_used)
    top_sorted = sorted(top_ids.tolist(), key=lambda i: t.topics[i])
    top_code = np.full(len(t.topics), -1, dtype=np.int64)
    top_code[top_sorted] = np.arange(len(top_sorted))
    topic, doc = top_code[t.topic_id], doc_code[t.doc_id]
    tick = progress or (lambda n: None)
    tick(1)
    with np.errstate(over="ignore"):
        order = trec_order(run * len(top_sorted) + topic, t.score.astype(np.float32), doc)
    tick(1)
    # qrels in load_qrels' order: topic, then docno (as text)
    q_topic, q_doc = top_code[t.q_topic_id], doc_code[t.q_doc_id]
    q_order = np.lexsort((q_doc, q_topic))
    coded = _assemble(
        collection_id,
        [(r[1], r[2], r[3]) for r in t.runs],
        docnos,
        [t.topics[i] for i in top_sorted],
        run[order],
        topic[order],
        doc[order],
        t.score.astype(np.float64)[order],
        q_topic[q_order],
        q_doc[q_order],
        np.asarray(t.q_rel, dtype=np.int32)[q_order],
    )
    tick(1)
    return coded


def _assemble(
    collection_id: str,
    infos: list[tuple],
    docnos: np.ndarray,
    top_names: list[str],
    run,
    topic,
    doc,
    score,
    q_topic,
    q_doc,
    q_rel,
) -> CodedArchive:
    """The coded archive from rows already in order (run, topic as text, trec_eval's
    ranking) whose topics are coded by their rank as text (``top_names``): topics recoded
    to the qrels' topics in trec_eval's order, rows of other topics dropped."""
    from litaudit.runs.model import sort_topics

    q_names = sort_topics({top_names[t] for t in np.unique(q_topic)})
    recode = np.full(len(top_names), -1)
    name_pos = {t: i for i, t in enumerate(q_names)}
    for code, name in enumerate(top_names):
        recode[code] = name_pos.get(name, -1)
    topic = recode[topic]
    keep = topic >= 0
    run, topic, doc, score = run[keep], topic[keep], doc[keep], score[keep]
    grp = run * len(q_names) + topic
    start = np.r_[True, grp[1:] != grp[:-1]] if grp.size else np.zeros(0, bool)
    rank = np.arange(grp.size) - np.maximum.accumulate(np.where(start, np.arange(grp.size), 0))
    parts = tuple((p or tag) for tag, p, _ in infos)
    part_names = tuple(sorted(set(parts)))
    h = hashlib.sha256()
    for part in ("\n".join(map(str, docnos)), "\n".join(q_names), repr(list(infos))):
        h.update(part.encode("utf-8"))
    for arr in (run, topic, doc, score, recode[q_topic], q_doc, q_rel):
        h.update(np.ascontiguousarray(arr).tobytes())
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
        fingerprint=h.hexdigest(),
    )


def load_coded(
    con, collection: str, progress: Callable[[int], None] | None = None
) -> tuple[str, CodedArchive]:
    """(collection id, coded archive) of a stored collection (any alias), built from the
    stored integer tables (:func:`code_stored`); ``progress(1)`` after each of its
    :data:`LOAD_STEPS` steps (a whole archive at a time: MS MARCO's runs take seconds)."""
    from litaudit.runs.archive import load_tables
    from litaudit.store.refdata import resolve_collection

    cid = resolve_collection(con, collection).id
    tables = load_tables(con, cid)
    if progress is not None:
        progress(1)
    return cid, code_stored(tables, cid, progress)


def as_coded(archive, coded: CodedArchive | None) -> CodedArchive:
    """The coded form of what an ``*_of_archive`` function was given (an Archive, or a
    CodedArchive already)."""
    if coded is not None:
        return coded
    return archive if isinstance(archive, CodedArchive) else code_archive(archive)


def evaluate_means(
    c: CodedArchive,
    measure: str,
    *,
    runs: np.ndarray | None = None,
    qrels_keep: np.ndarray | None = None,
) -> np.ndarray:
    """Per run the mean of ``measure`` as trec_eval computes it (litaudit.runs.evaluate),
    for the runs ``runs`` (indices; default all) and the qrels rows ``qrels_keep``."""
    from litaudit.runs.evaluate import CodedQrels, CodedRuns, evaluate_coded

    if runs is None:
        runs = np.arange(len(c.tags))
    recode = np.full(len(c.tags), -1)
    recode[runs] = np.arange(len(runs))
    sel = recode[c.run] >= 0
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
    return evaluate_coded(coded, cq, [measure], check_duplicates=False).mean(measure)
