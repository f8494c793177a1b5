"""Leave-out-uniques of a ranged archive at several pool depths in one pass over its topic
ranges (Voorhees, Lin, Efron, SIGIR 2014, Section 4; :mod:`litaudit.analyses.reuse.overlap`).

Per range and depth: the unique relevant documents (``overlap.unique_relevant`` of the
rows retrieving a relevant document: no other row bears on them), then
every run's per-topic AP without its participant's unique relevant documents. For AP that
second step needs no evaluator call per participant: a run's relevant rows are found once
a range (they do not depend on the depth), and at each depth the rows of documents its
own participant uniquely retrieved are dropped and the rest summed as trec_eval sums them
(:func:`litaudit.runs.trec_measures._ap`: the k-th relevant row at rank r adds k / r, in
rank order, over R, the relevant documents left), so the values are the evaluator's to
the digit (``tests/analyses/test_archive_ranges.py`` compares both on robust03). Other
measures go through the evaluator, one call per participant.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from litaudit.analyses.reuse.coded_archive import (
    CodedArchive,
    TopicColumns,
    evaluate_topics,
    find_sorted,
)
from litaudit.runs.order import position_in_group
from litaudit.stats import overlap

DIRECT = "AP"  # the measure computed without the evaluator


def top_rows(c: CodedArchive, depth: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(run, topic, doc) of the rows in the top ``depth`` of their list: the archive's own
    arrays (no copy) when every list is that short."""
    top = c.rank < depth
    if top.all():
        return c.run, c.topic, c.doc
    return c.run[top], c.topic[top], c.doc[top]


def lou_by_ranges(r, depths, measure: str, before, progress: Callable[[int], None] | None):
    """{depth: (unique relevant documents, before, after)} of a ranged archive ``r``:
    unique relevant documents, and every run's mean ``measure`` with the full qrels (unless
    ``before`` is given) and without its participant's unique relevant documents, counted
    and evaluated per range, reduced over topics; ``progress(1)`` after each range."""
    n_p = len(r.participant_names)
    runs_of = [np.flatnonzero(r.participant_of_run == p) for p in range(n_p)]
    full = None if before is not None else TopicColumns(len(r.tags), r.topic_names)
    acc = {d: _Depth(r, runs_of) for d in depths}
    for pos, c in r.parts(progress):
        rel_rows = np.flatnonzero((c.q_rel >= 1) & (c.q_topic >= 0))
        if full is not None:
            full.add(evaluate_topics(c, measure), measure)
        hits = _RelevantRows(c, rel_rows) if measure == DIRECT else None
        for d, a in acc.items():
            # only the rows of relevant documents bear on their owners: the same result
            rows = hits.top(d) if hits is not None else top_rows(c, d)
            uni = overlap.unique_relevant(
                *rows, c.participant_of_run, c.q_topic[rel_rows], c.q_doc[rel_rows]
            )
            a.count(uni)
            if hits is not None:
                hits.put_after(uni.owner, pos, a.without, runs_of)
            else:
                _evaluate_after(c, measure, rel_rows, uni.owner, a.without, runs_of)
    if full is not None:
        before = full.mean(measure)
    return {d: a.result(before, measure, runs_of) for d, a in acc.items()}


class _Depth:
    """What one depth gathers over the ranges."""

    def __init__(self, r, runs_of):
        self.owners: list[np.ndarray] = []
        self.n_unique = np.zeros(len(runs_of), dtype=np.int64)
        self.n_retrieved = 0
        self.without = [TopicColumns(len(x), r.topic_names) for x in runs_of]
        self.n_runs = len(r.tags)

    def count(self, uni) -> None:
        self.owners.append(uni.owner)
        self.n_unique += uni.n_unique
        self.n_retrieved += uni.n_retrieved_relevant

    def result(self, before, measure: str, runs_of):
        uni = overlap.summarize_uniques(
            self.n_unique, self.n_retrieved, np.concatenate([np.zeros(0, np.int64), *self.owners])
        )
        after = np.full(self.n_runs, np.nan)
        for p, runs_p in enumerate(runs_of):
            if runs_p.size:
                after[runs_p] = self.without[p].mean(measure)
        return uni, before, after


def _evaluate_after(c, measure, rel_rows, owner, without, runs_of) -> None:
    """Each participant's runs evaluated without its unique relevant documents."""
    for p, runs_p in enumerate(runs_of):
        if runs_p.size:
            drop = np.zeros(len(c.q_rel), dtype=bool)
            drop[rel_rows[owner == p]] = True
            ev = evaluate_topics(c, measure, runs=runs_p, qrels_keep=~drop)
            without[p].add(ev, measure)


class _RelevantRows:
    """A range's retrieved rows of relevant documents, and its (run, topic) lists: what
    AP without some relevant documents needs, whatever the depth."""

    def __init__(self, c: CodedArchive, rel_rows: np.ndarray):
        n_t = len(c.topic_names)
        q_topic = np.asarray(c.q_topic[rel_rows], dtype=np.int64)
        topic = np.asarray(c.topic, dtype=np.int64)
        n_d = int(max(np.max(c.doc, initial=-1), np.max(c.q_doc, initial=-1))) + 1
        keys = q_topic * n_d + c.q_doc[rel_rows]
        order = np.argsort(keys, kind="stable")
        keys = keys[order]
        hit, at = find_sorted(keys, topic * n_d + c.doc, n_t * n_d)
        self.rel_of_hit = order[at]  # index into rel_rows
        self.hit_rows = (c.run[hit], topic[hit], c.doc[hit])
        # the (run, topic) lists: contiguous blocks (rows sorted by run, topic, rank)
        n = topic.size
        new = np.ones(n, dtype=bool)
        if n:
            np.not_equal(c.run[1:], c.run[:-1], out=new[1:])
            new[1:] |= topic[1:] != topic[:-1]
        starts = np.flatnonzero(new)
        self.g_run = np.asarray(c.run[starts], dtype=np.int64)
        self.g_topic = topic[starts]
        self.group_of_hit = (np.cumsum(new) - 1)[hit]
        self.rank_of_hit = np.asarray(c.rank[hit], dtype=np.int64) + 1  # 1-based
        self.part_of_hit = np.asarray(c.participant_of_run)[c.run[hit]]
        self.q_topic = q_topic
        self.n_t = n_t
        self.R = np.bincount(q_topic, minlength=n_t)  # relevant documents per topic
        self.lines = np.bincount(np.asarray(c.q_topic, dtype=np.int64), minlength=n_t)
        self.n_runs = len(c.tags)
        self.part_of_run = np.asarray(c.participant_of_run)

    def top(self, depth: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(run, topic, doc) of the relevant rows in the top ``depth`` of their list."""
        top = self.rank_of_hit <= depth
        return tuple(x[top] for x in self.hit_rows)

    def put_after(self, owner, pos, without, runs_of) -> None:
        """Every run's AP per topic without its participant's unique relevant documents
        (``owner`` of each relevant document), into ``without`` at the topics ``pos``."""
        n_t, n_p = self.n_t, len(runs_of)
        keep = owner[self.rel_of_hit] != self.part_of_hit
        g = self.group_of_hit[keep]
        cumrel = position_in_group(g)  # 1-based among the list's relevant rows kept
        total = np.bincount(g, weights=cumrel / self.rank_of_hit[keep], minlength=self.g_run.size)
        uq = owner >= 0
        lost = np.bincount(owner[uq] * n_t + self.q_topic[uq], minlength=n_p * n_t).reshape(
            n_p, n_t
        )
        g_part = self.part_of_run[self.g_run]
        Rg = (self.R[self.g_topic] - lost[g_part, self.g_topic]).astype(np.float64)
        value = np.where(Rg > 0, total / np.maximum(Rg, 1), 0.0)
        # a list counts where its participant's qrels still judge the topic
        judged = (self.lines[None, :] - lost) > 0
        ok = judged[g_part, self.g_topic]
        grid = np.full((self.n_runs, n_t), np.nan)
        grid[self.g_run[ok], self.g_topic[ok]] = value[ok]
        for p, runs_p in enumerate(runs_of):
            if runs_p.size:
                m = grid[runs_p]
                cols = np.flatnonzero(~np.isnan(m).all(axis=0))
                without[p].put(pos[cols], m[:, cols])
