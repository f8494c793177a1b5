"""Stored run archives in DuckDB: load (as runs or as integer tables), list, delete
(evaluating them: :mod:`litaudit.runs.stored_eval`).

Tables (``schema/002_runs.sql``): ``run_topics`` and ``run_docs`` (a collection's topic
and docno dictionaries), ``run_qrels_files`` / ``run_qrels``, ``runs`` (metadata + file
sha256) and ``run_rankings`` (run id, topic id, doc id, score; each run stored in
trec_eval order by :mod:`litaudit.runs.ingest`, which writes them).
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from litaudit.errors import IncompleteRun, LitauditError, NotFound
from litaudit.progress import Progress
from litaudit.runs.archive_lookups import run_sizes
from litaudit.runs.columns import to_numpy
from litaudit.runs.evalcache import invalidate
from litaudit.runs.model import Archive, Qrels, Run, RunInfo
from litaudit.runs.order import trec_order
from litaudit.store.db import sql_string as _lit

if TYPE_CHECKING:
    import duckdb


@dataclass(frozen=True)
class StoredRun:
    """A row of ``runs``: what ``runs list`` and ``runs show`` print."""

    id: int
    collection_id: str
    tag: str
    participant: str | None
    run_type: str | None
    pooled: bool | None
    path: str
    sha256: str
    n_lines: int
    n_skipped: int
    n_topics: int

    @property
    def complete(self) -> bool:
        """Its import finished: the file's sha256 is written with the run's last rows
        (an import killed between the pieces of a large file leaves it empty)."""
        return self.sha256 != ""


def incomplete_message(collection_id: str, tag: str, path: str) -> str:
    """What a refused incomplete run says: the two commands that fix it."""
    return (
        f"run {tag!r} of {collection_id} is incomplete (its import did not finish); "
        f"import it again with `litaudit runs import --collection {collection_id} {path}` "
        f"or delete it with `litaudit runs delete --collection {collection_id} {tag}`"
    )


def run_rows(
    con: duckdb.DuckDBPyConnection,
    collection_id: str,
    tags: Sequence[str] | None,
    *,
    incomplete: bool = False,
) -> list[tuple]:
    """(id, tag, participant, run_type, pooled) of the collection's runs ``tags`` (default
    all) in tag order; a run whose import did not finish is refused (IncompleteRun)
    unless ``incomplete``."""
    rows = con.execute(
        "SELECT id, tag, participant, run_type, pooled, sha256, path FROM runs "
        "WHERE collection_id = ? ORDER BY tag",
        [collection_id],
    ).fetchall()
    if tags is not None:
        by_tag = {r[1]: r for r in rows}
        missing = [t for t in tags if t not in by_tag]
        if missing:
            raise NotFound(f"run {missing[0]!r} is not stored for {collection_id}")
        rows = [by_tag[t] for t in tags]
    if not incomplete:
        for r in rows:
            if r[5] == "":
                raise IncompleteRun(incomplete_message(collection_id, r[1], r[6]))
    return [r[:5] for r in rows]


def require_qrels(con: duckdb.DuckDBPyConnection, collection_id: str) -> None:
    if not con.execute(
        "SELECT 1 FROM run_qrels_files WHERE collection_id = ?", [collection_id]
    ).fetchall():
        raise NotFound(
            f"no run archive stored for {collection_id}; import one with `litaudit runs import`"
        )


def load_qrels(con: duckdb.DuckDBPyConnection, collection_id: str) -> Qrels:
    require_qrels(con, collection_id)
    cid = _lit(collection_id)
    tbl = con.sql(
        "SELECT t.topic, d.docno, q.rel FROM run_qrels q "
        f"JOIN run_docs d ON d.collection_id = {cid} AND d.doc_id = q.doc_id "
        f"JOIN run_topics t ON t.collection_id = {cid} AND t.topic_id = q.topic_id "
        f"WHERE q.collection_id = {cid} ORDER BY t.topic, d.docno"
    ).to_arrow_table()
    return Qrels(
        tbl.column(0).to_numpy(zero_copy_only=False),
        tbl.column(1).to_numpy(zero_copy_only=False),
        tbl.column(2).to_numpy().astype(np.int32),
    )


def load_archive(
    con: duckdb.DuckDBPyConnection, collection_id: str, tags: Sequence[str] | None = None
) -> Archive:
    """The stored archive of a collection: qrels, runs (in trec_eval order) and metadata.

    Each distinct topic and docno is one Python string, shared by every row that holds
    it. The rows are read as integer ids and put in order (run id, topic as text, float32
    score descending, docno descending: what DuckDB's ORDER BY over the joined text gave)
    by one sort of packed integer keys, the topics and docnos ranked in byte order once
    each; the qrels so too (topic, then docno, as text) when there are runs. robust03's
    1.5M rows and 128,796 qrels: 0.95 -> 0.46 s of CPU cold, 0.43 -> 0.27 s warm."""
    require_qrels(con, collection_id)
    rows = run_rows(con, collection_id, tags)
    if not rows:
        return Archive(collection_id, load_qrels(con, collection_id), (), ())
    runs: list[Run] = []
    infos: list[RunInfo] = []
    ids = ", ".join(str(r[0]) for r in rows)
    cid = _lit(collection_id)
    docs = (
        con.sql(f"SELECT docno FROM run_docs WHERE collection_id = {cid} ORDER BY doc_id")
        .to_arrow_table()
        .column(0)
    )
    docnames = docs.to_numpy(zero_copy_only=False)
    doc_rank = _byte_order_ranks(docs)
    del docs
    topics = con.execute(
        "SELECT topic_id, topic FROM run_topics WHERE collection_id = ?", [collection_id]
    ).fetchall()
    names = np.empty(max(t for t, _ in topics) + 1, dtype=object)
    topic_rank = np.zeros(len(names), dtype=np.int64)
    for rank, (t, name) in enumerate(sorted(topics, key=lambda tn: tn[1])):
        names[t] = name
        topic_rank[t] = rank
    q = _columns(con, f"SELECT topic_id, doc_id, rel FROM run_qrels WHERE collection_id = {cid}")
    q_order = np.lexsort((doc_rank[q["doc_id"]], topic_rank[q["topic_id"]]))
    qrels = Qrels(
        names[q["topic_id"][q_order]],
        docnames[q["doc_id"][q_order]],
        np.asarray(q["rel"])[q_order].astype(np.int32),
    )
    d = _columns(
        con,
        f"SELECT run_id, topic_id, doc_id, score FROM run_rankings WHERE run_id IN ({ids})",
    )
    first = min(r[0] for r in rows)
    key = (d["run_id"].astype(np.int64) - first) * len(topics)
    key += topic_rank[d["topic_id"]]
    order = trec_order(key, d["score"], doc_rank[d["doc_id"]])
    rid = d["run_id"][order]
    topic = names[d["topic_id"][order]]
    docno = docnames[d["doc_id"][order]]
    score = np.asarray(d["score"], dtype=np.float64)[order]
    for r in rows:
        lo, hi = np.searchsorted(rid, [r[0], r[0] + 1])
        runs.append(Run(r[1], topic[lo:hi], docno[lo:hi], score[lo:hi]))
        infos.append(RunInfo(r[1], r[2], r[3], r[4]))
    return Archive(collection_id, qrels, tuple(runs), tuple(infos))


def _byte_order_ranks(text: Any) -> np.ndarray:
    """Each value's rank among ``text`` (a pyarrow string array) in UTF-8 byte order
    (strcmp, DuckDB's default collation): ties share no rank (a docno is stored once)."""
    # start-up: pyarrow.compute (the callers have read the docnos through Arrow)
    import pyarrow.compute as pc

    order = to_numpy(pc.sort_indices(text))
    rank = np.empty(len(order), dtype=np.int64)
    rank[order] = np.arange(len(order))
    return rank


@dataclass(kw_only=True, frozen=True)
class StoredTables:
    """A stored archive as its tables hold it: integer ids, and the names they stand for."""

    runs: tuple[tuple, ...]  # (id, tag, participant, run_type, pooled), in tag order
    topics: np.ndarray  # topic name (str, object dtype) of each topic id
    docnos: Any  # pyarrow string array: the docno of each doc id (unread: empty numpy)
    run_id: np.ndarray  # rankings, each run's rows in trec_eval order
    topic_id: np.ndarray
    doc_id: np.ndarray
    score: np.ndarray  # float64, as stored
    q_topic_id: np.ndarray  # qrels
    q_doc_id: np.ndarray
    q_rel: np.ndarray


def load_tables(
    con: duckdb.DuckDBPyConnection,
    collection_id: str,
    tags: Sequence[str] | None = None,
    *,
    docnos: bool = True,
    topic_ids: tuple[int, int] | None = None,
) -> StoredTables:
    """The tables of a stored archive (its runs ``tags``, default all) as integer columns,
    with no string joins; ``docnos=False`` leaves the docnos unread (an empty array);
    ``topic_ids=(lo, hi)``: only the rankings and qrels of topic ids lo <= id < hi."""
    require_qrels(con, collection_id)
    rows = tuple(run_rows(con, collection_id, tags))
    cid = _lit(collection_id)
    topics = con.execute(
        f"SELECT topic_id, topic FROM run_topics WHERE collection_id = {cid}"
    ).fetchall()
    names = np.empty(max((t[0] for t in topics), default=-1) + 1, dtype=object)
    for topic_id, topic in topics:
        names[topic_id] = topic
    doc_names: Any = np.empty(0, dtype=object)  # unread: no pyarrow loaded (see _columns)
    if docnos:
        docs = con.sql(
            f"SELECT doc_id, docno FROM run_docs WHERE collection_id = {cid} ORDER BY doc_id"
        ).to_arrow_table()
        if len(docs) and int(to_numpy(docs.column("doc_id"))[-1]) != len(docs) - 1:
            raise LitauditError(f"{collection_id}: stored doc ids are not dense")  # never so
        doc_names = docs.column("docno").combine_chunks()
    within = (
        ""
        if topic_ids is None
        else f" AND topic_id >= {int(topic_ids[0])} AND topic_id < {int(topic_ids[1])}"
    )
    q = _columns(
        con,
        f"SELECT topic_id, doc_id, rel FROM run_qrels WHERE collection_id = {cid}{within}",
    )
    ids = ", ".join(str(r[0]) for r in rows) or "NULL"
    d = _columns(
        con,
        f"SELECT run_id, topic_id, doc_id, score FROM run_rankings WHERE run_id IN ({ids}){within}",
    )
    return StoredTables(
        runs=rows,
        topics=names,
        docnos=doc_names,
        run_id=d["run_id"],
        topic_id=d["topic_id"],
        doc_id=d["doc_id"],
        score=d["score"],
        q_topic_id=q["topic_id"],
        q_doc_id=q["doc_id"],
        q_rel=q["rel"],
    )


def _columns(con: duckdb.DuckDBPyConnection, sql: str) -> dict[str, np.ndarray]:
    """A query's numeric, non-null columns (the stored tables' are NOT NULL) as numpy
    arrays, straight from DuckDB: no masked arrays where no value is null, and neither
    pyarrow nor numpy.ma loaded (through Arrow, ``runs eval`` paid 25-45 ms more of
    start-up for pyarrow's import than the copy it saved)."""
    return dict(con.sql(sql).fetchnumpy())


def list_runs(con: duckdb.DuckDBPyConnection, collection_id: str | None = None) -> list[StoredRun]:
    where = "WHERE collection_id = ?" if collection_id else ""
    rows = con.execute(
        "SELECT id, collection_id, tag, participant, run_type, pooled, path, sha256, n_lines, "
        f"n_skipped, n_topics FROM runs {where} ORDER BY collection_id, tag",
        [collection_id] if collection_id else [],
    ).fetchall()
    return [StoredRun(*r) for r in rows]


def count_runs(con: duckdb.DuckDBPyConnection, collection_id: str) -> int:
    """How many runs the collection's archive holds."""
    return con.execute(
        "SELECT count(*) FROM runs WHERE collection_id = ?", [collection_id]
    ).fetchall()[0][0]


def get_run(
    con: duckdb.DuckDBPyConnection, tag: str, collection_id: str | None = None
) -> StoredRun:
    found = [r for r in list_runs(con, collection_id) if r.tag == tag]
    if not found:
        raise NotFound(
            f"no stored run {tag!r}" + (f" for {collection_id}" if collection_id else "")
        )
    if len(found) > 1:
        raise LitauditError(
            f"run {tag!r} is stored for several collections "
            f"({', '.join(r.collection_id for r in found)}); give --collection"
        )
    return found[0]


def delete_runs(
    store,
    collection_id: str,
    tags: Sequence[str] | None = None,
    *,
    progress: Progress | None = None,
) -> int:
    """Delete runs by tag, or (tags=None) the whole archive of a collection with its qrels
    (and the evaluations stored for it, see :mod:`litaudit.runs.evalcache`), in one
    transaction; ``progress(1, lines=lines)`` after each run's rankings are deleted (one
    statement a run: an MS MARCO run holds 7M rows)."""
    con = store.con
    rows = run_rows(con, collection_id, tags, incomplete=True)
    sizes = run_sizes(con, collection_id)
    ids = [r[0] for r in rows]
    with store.transaction():
        invalidate(con, collection_id)
        for rid in ids:
            con.execute("DELETE FROM run_rankings WHERE run_id = ?", [rid])
            if progress is not None:
                progress(1, lines=int(sizes.get(rid, 0)))
        if ids:
            con.execute(f"DELETE FROM runs WHERE id IN ({', '.join(map(str, ids))})")
        if tags is None:
            con.execute("DELETE FROM run_qrels WHERE collection_id = ?", [collection_id])
            con.execute("DELETE FROM run_qrels_files WHERE collection_id = ?", [collection_id])
            con.execute("DELETE FROM run_docs WHERE collection_id = ?", [collection_id])
            con.execute("DELETE FROM run_topics WHERE collection_id = ?", [collection_id])
    return len(ids)


def stored_fingerprint(con: duckdb.DuckDBPyConnection, collection_id: str) -> str:
    """The stored archive as the reusability audits see it: the sha256 of its qrels file
    and of each run file, with each run's tag, participant, type and lines kept and
    skipped. Read from the small tables only (no rankings), so the same files imported
    into any database give the same fingerprint."""

    q = con.execute(
        "SELECT sha256 FROM run_qrels_files WHERE collection_id = ?", [collection_id]
    ).fetchall()
    runs = con.execute(
        "SELECT tag, participant, run_type, sha256, n_lines, n_skipped FROM runs "
        "WHERE collection_id = ? ORDER BY tag",
        [collection_id],
    ).fetchall()
    return hashlib.sha256(repr((collection_id, q, runs)).encode("utf-8")).hexdigest()
