"""Evaluating a stored run archive (fast path: integer codes straight from DuckDB, in
groups of runs, a large run by ranges of its topics) for ``runs eval`` and
:mod:`litaudit.runs.evalcache`; loading and listing are in :mod:`litaudit.runs.archive`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np

from litaudit.defaults import DUCKDB_MEMORY_LIMIT, EVAL_GROUP_LINES
from litaudit.progress import Progress
from litaudit.runs.archive import load_tables, run_rows
from litaudit.runs.archive_lookups import n_topic_ids, run_sizes
from litaudit.runs.coded import CodedQrels, CodedRuns, Evaluation, join_runs
from litaudit.runs.columns import to_numpy
from litaudit.runs.evaluate import NotRanked, evaluate_coded
from litaudit.store.db import sql_string as _lit

if TYPE_CHECKING:
    import duckdb


def load_coded(
    con: duckdb.DuckDBPyConnection,
    collection_id: str,
    tags: Sequence[str] | None = None,
    *,
    byte_order: bool = True,
    topic_ids: tuple[int, int] | None = None,
) -> tuple[CodedRuns, CodedQrels]:
    """The stored archive as integer codes for :func:`evaluate_coded` (no string work):
    topic codes are the stored topic ids, doc codes the docnos' byte (strcmp) order
    (``byte_order=False``: the stored doc ids, which need no docno read), run codes the
    runs' positions in tag order. Rows come in stored (trec_eval) order."""
    t = load_tables(con, collection_id, tags, docnos=byte_order, topic_ids=topic_ids)
    # doc ids -> position in docno byte order (trec_eval breaks ties with strcmp); a first
    # import numbers them so already (then nothing to map), later imports append
    doc_rank = None
    if len(t.docnos) > 1:
        # start-up: pyarrow
        import pyarrow.compute as pc  # here: its import is only for the docnos

        if pc.any(pc.less_equal(t.docnos[1:], t.docnos[:-1])).as_py():
            doc_rank = np.empty(len(t.docnos), dtype=np.int64)
            doc_rank[to_numpy(pc.sort_indices(t.docnos))] = np.arange(len(t.docnos))
    run_pos = np.full(max((r[0] for r in t.runs), default=0) + 1, -1, dtype=np.int32)
    run_pos[[r[0] for r in t.runs]] = np.arange(len(t.runs), dtype=np.int32)
    coded = CodedRuns(
        tuple(r[1] for r in t.runs),
        tuple(t.topics),
        run_pos[t.run_id],
        t.topic_id,
        t.doc_id if doc_rank is None else doc_rank[t.doc_id],
        t.score,
    )
    cq = CodedQrels(t.q_topic_id, t.q_doc_id if doc_rank is None else doc_rank[t.q_doc_id], t.q_rel)
    return coded, cq


def evaluate_stored(
    con: duckdb.DuckDBPyConnection,
    collection_id: str,
    measures: Sequence[str],
    *,
    tags: Sequence[str] | None = None,
    rel_level: int = 1,
    complete: bool = False,
    group_lines: int = EVAL_GROUP_LINES,
    progress: Progress | None = None,
) -> Evaluation:
    """Evaluate a stored archive (fast path: integer codes straight from DuckDB).

    The importer stored each run in trec_eval order, so the evaluator takes the rows as
    ranked after checking what it can without docnos (each run and topic one block,
    scores descending); only if that fails are the docnos read to sort the rows again.
    Runs are read and evaluated in groups of about ``group_lines`` lines (runs are
    independent in trec_eval), so that memory does not grow with the archive;
    ``progress(runs, lines=lines)`` is called after each group."""
    rows = run_rows(con, collection_id, tags)
    sizes = run_sizes(con, collection_id)
    jobs = _eval_jobs(con, collection_id, rows, sizes, group_lines)
    if len(jobs) <= 1:
        ev = _evaluate_group(con, collection_id, measures, tags, rel_level, complete)
        if progress is not None:
            progress(len(rows), lines=sum(int(sizes.get(r[0], 0)) for r in rows))
        return ev
    parts = []
    # DuckDB's cache of the blocks read would otherwise grow with the archive
    before = con.execute("SELECT current_setting('memory_limit')").fetchall()[0][0]
    con.execute(f"SET memory_limit = {_lit(DUCKDB_MEMORY_LIMIT)}")
    try:
        for g, topic_ids, runs_done, lines in jobs:
            parts.append(
                _evaluate_group(
                    con,
                    collection_id,
                    measures,
                    [rows[i][1] for i in g],
                    rel_level,
                    complete,
                    topic_ids,
                )
            )
            if progress is not None:
                progress(runs_done, lines=lines)
    finally:
        con.execute(f"SET memory_limit = {_lit(before)}")
    return join_runs(tuple(r[1] for r in rows), [np.array(j[0]) for j in jobs], parts)


def _eval_jobs(
    con: duckdb.DuckDBPyConnection, collection_id: str, rows: list, sizes: dict, group_lines: int
) -> list[tuple[list[int], tuple[int, int] | None, int, int]]:
    """The evaluation's steps: (runs' positions, topic id range or None, runs finished,
    lines). Runs go together up to ``group_lines`` lines; a run larger than that is
    evaluated alone, its topics split into ranges of ids (trec_eval evaluates each topic
    on its own; the qrels are cut to the same range), so memory follows ``group_lines``,
    not the largest run."""
    n_ids = None
    jobs: list[tuple[list[int], tuple[int, int] | None, int, int]] = []
    size = 0
    for i, r in enumerate(rows):
        n = int(sizes.get(r[0], 0))
        if n > group_lines:
            if n_ids is None:
                n_ids = n_topic_ids(con, collection_id)
            k = min(-(-n // group_lines), max(n_ids, 1))
            cuts = [n_ids * j // k for j in range(k + 1)]
            jobs += [
                ([i], (cuts[j], cuts[j + 1]), int(j == k - 1), n * (j + 1) // k - n * j // k)
                for j in range(k)
            ]
            continue  # (the next run starts a group of its own)
        if not jobs or jobs[-1][1] is not None or size + n > group_lines:
            jobs.append(([], None, 0, 0))
            size = 0
        g, _, done, lines = jobs[-1]
        jobs[-1] = ([*g, i], None, done + 1, lines + n)
        size += n
    return jobs


def _evaluate_group(
    con: duckdb.DuckDBPyConnection,
    collection_id: str,
    measures: Sequence[str],
    tags: Sequence[str] | None,
    rel_level: int,
    complete: bool,
    topic_ids: tuple[int, int] | None = None,
) -> Evaluation:
    coded, cq = load_coded(con, collection_id, tags, byte_order=False, topic_ids=topic_ids)
    try:
        return evaluate_coded(
            coded,
            cq,
            measures,
            rel_level=rel_level,
            complete=complete,
            check_duplicates=False,
            ranked=True,
            threads=2,
        )
    except NotRanked:
        del coded, cq
        coded, cq = load_coded(con, collection_id, tags, topic_ids=topic_ids)
        return evaluate_coded(
            coded, cq, measures, rel_level=rel_level, complete=complete, check_duplicates=False
        )
