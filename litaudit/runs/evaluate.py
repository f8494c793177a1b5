"""Evaluating runs exactly as trec_eval 9 does, vectorised over every run and topic at once.

trec_eval semantics reproduced (see usnistgov/trec_eval ``form_res_rels.c`` and ``m_*.c``):
- each topic's documents are ranked by score descending, ties by docno descending
  (``strcmp``); scores are compared as C ``float`` (32 bits) as trec_eval stores them, so
  scores that differ only beyond float precision tie; the rank column is ignored;
- a document is relevant when its qrels grade is >= ``rel_level`` (``-l``, default 1);
  judged non-relevant when 0 <= grade < ``rel_level``; negative grades are in the pool but
  unjudged; documents absent from the qrels are unjudged (they count as non-relevant for
  every measure here except bpref, which skips them);
- a topic in a run but not in the qrels is not evaluated; a topic in the qrels but not in a
  run is not evaluated for that run (NaN here) unless ``complete`` (``-c``), when it scores 0;
- a topic with no relevant document scores 0 on every measure (nothing divides by zero);
- nDCG gains are the qrels grades themselves (> 0), the ideal ranking sorts them, and
  ``rel_level`` does not change them (as in trec_eval);
- P@k divides by k even when fewer than k documents were retrieved; R@k and AP divide by
  the number of relevant documents R; Rprec counts the relevant documents in the top R.

Measure names follow ``litaudit.measures`` (ir_measures syntax; trec_eval names accepted).
"""

from __future__ import annotations

from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor

import numpy as np

from litaudit.errors import ParameterError
from litaudit.measures import MeasureName, parse_measure
from litaudit.runs.coded import (
    CodedQrels,
    CodedRuns,
    Evaluation,
    encode,
    join_measures,
    join_runs,
    split_runs,
)
from litaudit.runs.judged import judged_lookup
from litaudit.runs.model import Qrels, Run, sort_topics
from litaudit.runs.order import distinct, in_trec_order, position_in_group, trec_order
from litaudit.runs.trec_measures import PROVIDERS, Judged, QrelsCounts


def evaluate(
    runs: Sequence[Run],
    qrels: Qrels,
    measures: Sequence[str],
    *,
    rel_level: int = 1,
    complete: bool = False,
) -> Evaluation:
    """Evaluate ``runs`` against ``qrels`` on ``measures`` exactly as trec_eval does.

    Raises ParameterError for a run with a document twice in one topic (trec_eval refuses
    such a run too) or two runs with the same tag.
    """
    tags = [r.tag for r in runs]
    if len(set(tags)) != len(tags):
        dup = sorted({t for t in tags if tags.count(t) > 1})
        raise ParameterError(f"two runs share the tag {dup[0]!r}")
    coded, cq = encode(runs, qrels)
    return evaluate_coded(
        coded, cq, measures, rel_level=rel_level, complete=complete, check_duplicates=True
    )


def _parse_all(measures: Sequence[str]) -> list[MeasureName]:
    if not measures:
        raise ParameterError("no measure asked for")
    out: list[MeasureName] = []
    for text in measures:
        m = parse_measure(text)
        if m not in out:
            out.append(m)
    return out


class NotRanked(Exception):
    """Rows given as ranked (``evaluate_coded(ranked=True)``) are not in trec_eval order."""


PARALLEL_MIN_ROWS = 1 << 18  # below this, splitting the runs over threads costs more


def evaluate_coded(
    coded: CodedRuns,
    cq: CodedQrels,
    measures: Sequence[str],
    *,
    rel_level: int = 1,
    complete: bool = False,
    check_duplicates: bool = True,
    ranked: bool = False,
    threads: int = 1,
) -> Evaluation:
    """The evaluator on integer-coded input (see :class:`CodedRuns`).

    ``threads=2``: two halves of the runs are evaluated on two threads (runs are
    independent in trec_eval; numpy releases the GIL in the passes over the rows), and
    their grids joined by topic name.

    Rows already in trec_eval order (each run-topic block contiguous, scores descending,
    ties by docno code descending: how :func:`litaudit.runs.ingest.import_archive` stores
    them) are not sorted again; otherwise one sort on a packed 64-bit key orders them.
    ``ranked=True``: the caller knows the order of tied scores to be trec_eval's (doc codes
    then need not follow the docnos' byte order); the rest of the order is checked, and
    :class:`NotRanked` raised when it does not hold.
    Only the retrieved rows found in the qrels are looked at after that: every measure
    here is a sum over judged documents and their ranks.
    """
    if rel_level < 1:
        raise ParameterError(f"rel_level must be at least 1, got {rel_level}")
    names = _parse_all(measures)
    levels = {m.rel or rel_level for m in names}
    if len(levels) > 1 or levels != {rel_level}:  # AP(rel=2): its own relevance level
        kw = dict(complete=complete, check_duplicates=check_duplicates, ranked=ranked)
        parts = [
            evaluate_coded(
                coded,
                cq,
                [str(m) for m in names if (m.rel or rel_level) == level],
                rel_level=level,
                threads=threads,
                **kw,
            )
            for level in sorted(levels)
        ]
        return join_measures([str(m) for m in names], parts)
    if threads < 2 or len(coded.tags) < 2 or len(coded.run) < PARALLEL_MIN_ROWS:
        return _evaluate(coded, cq, names, rel_level, complete, check_duplicates, ranked, None)

    halves = split_runs(coded)
    # one qrels look-up for both halves, over the doc codes of all the runs
    n_docs = int(max(coded.doc.max(initial=-1), cq.doc.max(initial=-1))) + 1
    lookup = (
        n_docs,
        judged_lookup(
            cq.topic.astype(np.int64),
            cq.doc,
            cq.rel.astype(np.int64),
            len(coded.topic_names),
            n_docs,
        ),
    )
    with ThreadPoolExecutor(max_workers=2) as pool:
        parts = list(
            pool.map(
                lambda h: _evaluate(
                    h[0], cq, names, rel_level, complete, check_duplicates, ranked, lookup
                ),
                halves,
            )
        )
    return join_runs(coded.tags, [h[1] for h in halves], parts)


def _evaluate(
    coded: CodedRuns,
    cq: CodedQrels,
    names: list[MeasureName],
    rel_level: int,
    complete: bool,
    check_duplicates: bool,
    ranked: bool,
    lookup: tuple | None,
) -> Evaluation:
    """:func:`evaluate_coded` in one pass (``lookup``: (n_docs, qrels look-up) shared by
    the threads of a split evaluation, or None)."""
    n_top = len(coded.topic_names)
    q = _qrels_counts(coded, cq, n_top, rel_level, lookup)
    key, topic, doc = _ranked_rows(coded, q, n_top, check_duplicates, ranked)
    j = _judged_rows(key, topic, doc, q, n_top, rel_level, lookup)
    values = np.empty((len(names), j.n_groups))
    for mi, m in enumerate(names):
        values[mi] = PROVIDERS[m.family](j, m.cutoff)
    return _grid(coded, names, q.in_qrels, j, values, complete)


def _qrels_counts(
    coded: CodedRuns, cq: CodedQrels, n_top: int, rel_level: int, lookup: tuple | None
) -> QrelsCounts:
    q_topic = cq.topic.astype(np.int64)
    q_rel = cq.rel.astype(np.int64)
    in_qrels = np.bincount(q_topic, minlength=n_top) > 0
    R = np.bincount(q_topic, weights=q_rel >= rel_level, minlength=n_top)
    N = np.bincount(q_topic, weights=(q_rel >= 0) & (q_rel < rel_level), minlength=n_top)
    n_docs = (
        lookup[0]
        if lookup is not None
        else int(max(coded.doc.max(initial=-1), cq.doc.max(initial=-1))) + 1
    )
    q_key = q_topic * n_docs + cq.doc
    q_key.sort()
    if len(q_key) > 1 and np.any(q_key[1:] == q_key[:-1]):
        i = int(np.flatnonzero(q_key[1:] == q_key[:-1])[0])
        raise ParameterError(
            f"the qrels judge a document twice in topic "
            f"{coded.topic_names[int(q_key[i] // n_docs)]}"
        )
    return QrelsCounts(q_topic, cq.doc, q_rel, in_qrels, R, N, n_docs)


def _ranked_rows(
    coded: CodedRuns, q: QrelsCounts, n_top: int, check_duplicates: bool, ranked: bool
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(run-topic key, topic, doc) of the retrieved rows of evaluated topics, in trec_eval
    order."""
    keep = q.in_qrels[coded.topic]
    if keep.all():
        run, topic, doc, score64 = coded.run, coded.topic, coded.doc, coded.score
    else:
        run, topic = coded.run[keep], coded.topic[keep]
        doc, score64 = coded.doc[keep], coded.score[keep]
    key = run.astype(np.int64)  # in place from here: fresh pages cost more than the math
    key *= n_top
    key += topic
    # trec_eval keeps scores as C float (TEXT_RESULTS.sim): ties are decided at float32
    with np.errstate(over="ignore"):  # beyond FLT_MAX: +-inf, as C's (float)
        score = score64.astype(np.float32, copy=False)
    if check_duplicates and len(key):
        dk = key * q.n_docs + doc
        dk.sort()
        if np.any(dk[1:] == dk[:-1]):
            i = int(np.flatnonzero(dk[1:] == dk[:-1])[0])
            r, t = divmod(int(dk[i] // q.n_docs), n_top)
            raise ParameterError(
                f"run {coded.tags[r]!r} retrieves a document twice in topic {coded.topic_names[t]}"
            )
    if ranked:
        if not in_trec_order(key, score, None):
            raise NotRanked
    elif not in_trec_order(key, score, doc):
        o = trec_order(key, score, doc)
        key, topic, doc = key[o], topic[o], doc[o]
    return key, topic, doc


def _judged_rows(
    key: np.ndarray,
    topic: np.ndarray,
    doc: np.ndarray,
    q: QrelsCounts,
    n_top: int,
    rel_level: int,
    lookup: tuple | None,
) -> Judged:
    n = len(key)
    if n:
        new_block = np.empty(n, dtype=bool)
        new_block[0] = True
        np.not_equal(key[1:], key[:-1], out=new_block[1:])
        starts = np.flatnonzero(new_block)
    else:
        starts = np.zeros(0, dtype=np.int64)
    g_run = key[starts] // max(n_top, 1)
    g_topic = key[starts] % max(n_top, 1)
    # the retrieved rows judged in the qrels, and their grades
    if lookup is None:
        lookup = (q.n_docs, judged_lookup(q.topic, q.doc, q.rel, n_top, q.n_docs))
    rows, rel = lookup[1](topic, doc)
    if n:
        group = np.cumsum(new_block, dtype=np.int64)[rows]
        group -= 1
    else:
        group = np.zeros(0, dtype=np.int64)
    rank = rows - starts[group] + 1
    isrel = rel >= rel_level
    r_group, r_rank = group[isrel], rank[isrel]
    return Judged(
        n_groups=len(starts),
        g_run=g_run,
        g_topic=g_topic,
        group=group,
        rank=rank,
        rel=rel,
        isrel=isrel,
        r_group=r_group,
        r_rank=r_rank,
        cumrel=position_in_group(r_group),
        R=q.R,
        N=q.N,
        rel_level=rel_level,
        q=q,
        ideal_cache={},
        sizes=np.diff(np.append(starts, n)),
    )


def _grid(
    coded: CodedRuns,
    names: list[MeasureName],
    in_qrels: np.ndarray,
    j: Judged,
    values: np.ndarray,
    complete: bool,
) -> Evaluation:
    """The (measures x runs x topics) grid of the per-group values."""
    n_top = len(coded.topic_names)
    if complete:
        topic_codes = np.flatnonzero(in_qrels)
    else:
        topic_codes = distinct(j.g_topic)
    names_t = [coded.topic_names[t] for t in topic_codes]
    ordered = sort_topics(names_t)
    col_of = np.full(n_top, -1, dtype=np.int64)
    index = {t: i for i, t in enumerate(ordered)}
    for code, name in zip(topic_codes, names_t, strict=True):
        col_of[code] = index[name]
    scores = np.full((len(names), len(coded.tags), len(ordered)), 0.0 if complete else np.nan)
    if j.n_groups:
        scores[:, j.g_run, col_of[j.g_topic]] = values
    return Evaluation(tuple(str(m) for m in names), tuple(coded.tags), tuple(ordered), scores)
