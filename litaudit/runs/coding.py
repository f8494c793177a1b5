"""An import's tables coded for storage: topic and doc ids (docnos in strcmp order, see
:mod:`litaudit.runs.strcodes`), the duplicate checks, and each run put in trec_eval
order on worker threads (:class:`Coded`), for :mod:`litaudit.runs.ingest` to write.
"""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from litaudit.errors import InputError
from litaudit.runs import arrow_calls, strcodes
from litaudit.runs.archive_lookups import n_docs, stored_doc_ids
from litaudit.runs.columns import from_numpy, from_strings, to_numpy
from litaudit.runs.model import sort_topics
from litaudit.runs.order import trec_order

if TYPE_CHECKING:
    import duckdb


def docno_words(path: Path, table) -> list:
    """The docno column of a parsed run or qrels table as dictionary-encoded 64-bit words
    (see :func:`litaudit.runs.strcodes.coded_words`)."""
    col = table.column("docno")
    words = strcodes.coded_words(col.chunk(0) if col.num_chunks == 1 else col.combine_chunks())
    if words is None:  # the readers refuse NUL bytes, so this is a bug if it happens
        raise InputError(str(path), None, "a docno holds a NUL byte")
    return words


@dataclass(kw_only=True)
class Coded:
    """What :func:`code_import` makes of an import: the rows to write, with integer ids."""

    new_topics: object  # pyarrow.Table (topic_id, topic) to add to run_topics
    new_docs: object  # pyarrow.Table (doc_id, docno) to add to run_docs
    qrels: object  # pyarrow.Table (topic_id, doc_id, rel) or None
    run_topics: list[int]  # topics per run
    dup_qrels: bool  # a document judged twice in a topic
    dup_runs: list[int]  # runs with a document twice in a topic
    rank: Callable | None = None  # i -> rows of run i put in topic_id, doc_id, score
    topic_id: np.ndarray | None = None  # the runs' rows, each run in trec_eval order
    doc_id: np.ndarray | None = None
    score: np.ndarray | None = None

    def start_ranking(self, n_runs: int, threads: int) -> None:
        """Rank the runs on ``threads`` worker threads from now on,
        while the caller writes the other tables (DuckDB releases the GIL)."""

        rank = self.rank
        if rank is None:
            raise ValueError("nothing to rank: the import has no runs")
        pool = ThreadPoolExecutor(max_workers=max(1, threads))
        self._pool: ThreadPoolExecutor | None = pool
        self._futures = [pool.submit(rank, i) for i in range(n_runs)]

    def stop_ranking(self) -> None:
        pool = getattr(self, "_pool", None)
        if pool is not None:
            for f in self._futures:
                f.cancel()
            pool.shutdown(wait=True)
            self._pool = None

    def rankings(self, run_ids: list[int]):
        """The runs' rows (run_id, topic_id, doc_id, score) as one Arrow table (one chunk:
        DuckDB takes it twice as fast as one batch per run), each run in trec_eval order,
        from the workers of :meth:`start_ranking`."""
        # start-up: pyarrow
        import pyarrow as pa

        sizes = [f.result() for f in self._futures]
        topic_id, doc_id, score = self.topic_id, self.doc_id, self.score
        if topic_id is None or doc_id is None or score is None:
            raise ValueError("rankings() before start_ranking()")
        return pa.table(
            {
                "run_id": from_numpy(np.repeat(np.array(run_ids, np.int32), sizes)),
                "topic_id": from_numpy(topic_id),
                "doc_id": from_numpy(doc_id),
                "score": from_numpy(score),
            }
        )


def _code_topics(qtable, tables: list, stored_topics: dict[str, int]):
    """Each run's topic dictionary, the qrels' dictionary-encoded topics, the topic ids
    (new topics numbered after the stored ones) and the table of new topics."""
    # start-up: pyarrow
    import pyarrow as pa

    # topics: few; a first import numbers them in trec_eval's natural order
    run_topic_dicts = [rt.table.column("topic").chunk(0).dictionary.to_pylist() for rt in tables]
    q_topic_enc = (
        arrow_calls.dictionary_encode(qtable.column("topic")).combine_chunks()
        if qtable is not None
        else None
    )
    seen = set(q_topic_enc.dictionary.to_pylist()) if q_topic_enc is not None else set()
    for d in run_topic_dicts:
        seen.update(d)
    new = [t for t in sort_topics(seen) if t not in stored_topics]
    base = max(stored_topics.values(), default=-1) + 1
    topic_ids = dict(stored_topics)
    topic_ids.update((t, base + i) for i, t in enumerate(new))
    new_topics = pa.table(
        {
            "topic_id": from_numpy(np.arange(base, base + len(new), dtype=np.int32)),
            "topic": from_strings(new),
        }
    )
    return run_topic_dicts, q_topic_enc, topic_ids, new_topics


def _code_qrels(
    qtable, q_topic_enc, topic_ids: dict[str, int], q_doc, doc_of: np.ndarray, n_uniq: int
):
    """The coded qrels table (or None) and whether a document is judged twice in a topic;
    ``q_doc``: the qrels' docno codes."""
    # start-up: pyarrow
    import pyarrow as pa

    qrels = None
    dup_qrels = False
    if qtable is not None and q_topic_enc is not None:
        q_map = np.array([topic_ids[t] for t in q_topic_enc.dictionary.to_pylist()], dtype=np.int32)
        q_tid = q_map[to_numpy(q_topic_enc.indices)]
        dup_qrels = strcodes.has_duplicate_pairs(q_tid, q_doc, n_uniq)
        qrels = pa.table(
            {
                "topic_id": from_numpy(q_tid),
                "doc_id": from_numpy(doc_of[q_doc]),
                "rel": qtable.column("rel"),
            }
        )
    return qrels, dup_qrels


def _code_docs(
    con: duckdb.DuckDBPyConnection,
    collection_id: str,
    qtable,
    qwords,
    tables: list,
    words: list,
    run_topic_dicts: list,
    topic_ids: dict[str, int],
    threads: int,
):
    """Doc ids of the import (stored ones looked up, new ones numbered after them), the
    runs' topic ids, and which runs hold a document twice in a topic (checked in threads
    while the docnos are coded)."""
    # start-up: pyarrow
    import pyarrow as pa

    # docnos: every docno of the import coded at once, in byte order (strcmp), from the
    # 64-bit words the readers cut them into: integer hashing only, no string sort
    parts = ([qwords] if qtable is not None else []) + list(words)
    sizes = ([qtable.num_rows] if qtable is not None else []) + [rt.table.num_rows for rt in tables]
    pool = None
    if threads > 1 and len(parts) > 1:
        pool = ThreadPoolExecutor(max_workers=threads)
    try:
        codes, n_uniq = strcodes.byte_order_codes(
            parts, sizes, pool.map if pool is not None else None
        )
        run_codes = codes[1:] if qtable is not None else codes
        docnos = pa.chunked_array(
            ([c for c in qtable.column("docno").chunks] if qtable is not None else [])
            + [c for rt in tables for c in rt.table.column("docno").chunks],
            pa.string(),
        )
        tids: list = [None] * len(tables)

        def check(i: int) -> bool:
            """Topic ids of run i; is a document there twice in a topic? (in a thread)"""
            t_map = np.array([topic_ids[t] for t in run_topic_dicts[i]], dtype=np.int32)
            tids[i] = t_map[to_numpy(tables[i].table.column("topic").chunk(0).indices)]
            return strcodes.has_duplicate_pairs(tids[i], run_codes[i], n_uniq)

        dup_futures = (
            [pool.submit(check, i) for i in range(len(tables))] if pool is not None else None
        )
        uniq = arrow_calls.take(docnos, from_numpy(strcodes.row_per_code(codes, n_uniq)))
        n_stored = n_docs(con, collection_id)
        if n_stored == 0:  # a first import: doc ids are the byte-order codes
            doc_of = np.arange(n_uniq, dtype=np.int32)
            new_docs = pa.table({"doc_id": from_numpy(doc_of), "docno": uniq})
        else:
            doc_of, new_docs = _map_stored_docs(con, collection_id, uniq, n_stored)
        dups = (
            [f.result() for f in dup_futures]
            if dup_futures is not None
            else [check(i) for i in range(len(tables))]
        )
    finally:
        if pool is not None:
            pool.shutdown(wait=True)
    return codes, n_uniq, run_codes, tids, doc_of, new_docs, dups


def code_import(
    con: duckdb.DuckDBPyConnection,
    collection_id: str,
    qtable,
    qwords,
    tables: list,
    words: list,
    stored_topics: dict[str, int],
    threads: int,
) -> Coded:
    """Topic and doc ids for the qrels and runs being imported (new ones numbered after
    the collection's stored ones), duplicate checks, and (``Coded.rank``) each run in
    trec_eval order."""

    run_topic_dicts, q_topic_enc, topic_ids, new_topics = _code_topics(
        qtable, tables, stored_topics
    )

    codes, n_uniq, run_codes, tids, doc_of, new_docs, dups = _code_docs(
        con, collection_id, qtable, qwords, tables, words, run_topic_dicts, topic_ids, threads
    )

    qrels, dup_qrels = _code_qrels(
        qtable, q_topic_enc, topic_ids, codes[0] if qtable is not None else None, doc_of, n_uniq
    )

    bounds = np.cumsum([0] + [rt.table.num_rows for rt in tables])
    n_rows = int(bounds[-1])
    out_topic = np.empty(n_rows, dtype=np.int32)
    out_doc = np.empty(n_rows, dtype=np.int32)
    out_score = np.empty(n_rows, dtype=np.float64)

    def rank(i: int) -> int:
        """Put run i's rows in trec_eval order into its slice of the output columns."""
        tid = tids[i]
        doc = run_codes[i]
        score = to_numpy(tables[i].table.column("score"))
        with np.errstate(over="ignore"):  # beyond FLT_MAX: +-inf, as C's (float)
            o = trec_order(tid, score.astype(np.float32), doc)
        at = slice(int(bounds[i]), int(bounds[i + 1]))
        np.take(tid, o, out=out_topic[at])
        np.take(doc_of, doc[o], out=out_doc[at])
        np.take(score, o, out=out_score[at])
        return len(o)

    return Coded(
        new_topics=new_topics,
        new_docs=new_docs,
        qrels=qrels,
        run_topics=[len(d) for d in run_topic_dicts],
        dup_qrels=dup_qrels,
        dup_runs=[i for i, d in enumerate(dups) if d],
        rank=rank,
        topic_id=out_topic,
        doc_id=out_doc,
        score=out_score,
    )


def _map_stored_docs(con: duckdb.DuckDBPyConnection, collection_id: str, uniq, n_stored: int):
    """Doc ids of ``uniq`` (docnos) in a collection that has some stored: stored ones
    looked up (a join in DuckDB, within its memory limit: the stored docnos of a large
    archive are not read into this process), new ones numbered from ``n_stored`` on."""
    # start-up: pyarrow
    import pyarrow as pa

    new = pa.table({"i": from_numpy(np.arange(len(uniq), dtype=np.int32)), "docno": uniq})
    found = stored_doc_ids(con, collection_id, new)
    doc_of = np.full(len(uniq), -1, dtype=np.int32)
    if found.num_rows:
        doc_of[to_numpy(found.column("i"))] = to_numpy(found.column("doc_id"))
    del found
    fresh = np.flatnonzero(doc_of < 0)
    doc_of[fresh] = n_stored + np.arange(len(fresh), dtype=np.int32)
    new_docs = pa.table(
        {"doc_id": from_numpy(doc_of[fresh]), "docno": arrow_calls.take(uniq, from_numpy(fresh))}
    )
    return doc_of, new_docs
