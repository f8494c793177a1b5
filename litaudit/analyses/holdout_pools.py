"""Every run's AP on every topic for every choice of held-out sites, from a run archive:
the pooling simulation of Carterette, Kanoulas, Pavlu and Fang (SIGIR 2010, Section 4.3)
computed once for all hold-out assignments.

For a topic that holds out the k sites S, the reduced qrels keep the judged documents in
the top ``depth`` of some run of a site not in S (unjudged = non-relevant), and every run
is scored with them (trec_eval's AP, ``-c``: a run without documents for the topic scores
0). Only the relevant documents matter to AP, and whether one is kept depends only on the
sites that retrieve it in their top ``depth``, so the AP of every run under every k-subset
S (and under "none held out") is a few array operations per topic. A hold-out assignment
then picks one column per topic (:meth:`PoolScores.scores`), which makes hundreds of
simulated assignments cost no more than one. ``simulate_pooling`` in
:mod:`litaudit.analyses.agreement_input` does the same for one assignment through the
general evaluator; the test suite checks that both agree.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from litaudit.analyses.coded_archive import CodedArchive
from litaudit.errors import ParameterError


@dataclass(frozen=True)
class PoolScores:
    """AP per topic, held-out subset and run; subset 0 holds nothing out."""

    depth: int
    k: int
    n_sites: int
    subsets: tuple[tuple[int, ...], ...]  # index -> sorted site codes (index 0: ())
    ap: np.ndarray  # (topics, subsets, runs); NaN: no relevant left
    full: np.ndarray  # (runs, topics) AP with the full qrels

    def index(self, held: tuple[int, ...]) -> int:
        return self.subsets.index(tuple(sorted(held)))

    def scores(self, subset_of_topic: np.ndarray) -> np.ndarray:
        """runs x topics: topic t scored with the reduced qrels of its held-out subset."""
        t = np.arange(self.ap.shape[0])
        return self.ap[t, np.asarray(subset_of_topic)].T


def pool_scores(
    c, site_of_run, *, k: int, depth: int, progress: Callable[[int], None] | None = None
) -> PoolScores:
    """The table of :class:`PoolScores` for runs grouped into sites ``site_of_run``; ``c``
    a :class:`CodedArchive` or a :class:`~litaudit.analyses.archive_ranges.RangedArchive`
    (each topic's rows are all its table needs: read a range of topics at a time, the
    ranges' tables placed at their topics' positions; ``progress(1)`` after each range)."""
    from litaudit.analyses.archive_ranges import RangedArchive

    if isinstance(c, RangedArchive):
        return _pool_scores_ranged(c, site_of_run, k, depth, progress)
    site = np.asarray(site_of_run, dtype=np.int64)
    if site.size != len(c.tags):
        raise ParameterError("one site per run is needed")
    if depth < 1:
        raise ParameterError(f"pool depth must be at least 1, got {depth}")
    m = int(site.max()) + 1
    if not 1 <= k < m:
        raise ParameterError(f"held-out (k) must be between 1 and the sites - 1 ({m - 1})")
    subsets = ((),) + tuple(itertools.combinations(range(m), k))
    sub_mask = np.zeros((len(subsets), m), dtype=bool)
    for n, s in enumerate(subsets):
        sub_mask[n, list(s)] = True
    n_t, n_r = len(c.topic_names), len(c.tags)
    ap = np.full((n_t, len(subsets), n_r), np.nan)
    full = np.full((n_r, n_t), np.nan)
    order = np.argsort(c.topic, kind="stable")  # keeps (run, rank) order per topic
    bounds = np.searchsorted(c.topic[order], np.arange(n_t + 1))
    rel = c.q_rel >= 1
    q_order = np.argsort(c.q_topic, kind="stable")
    q_bounds = np.searchsorted(c.q_topic[q_order], np.arange(n_t + 1))
    for t in range(n_t):
        qrows = q_order[q_bounds[t] : q_bounds[t + 1]]
        rel_docs = np.unique(c.q_doc[qrows][rel[qrows]])
        if rel_docs.size == 0:
            continue
        rows = order[bounds[t] : bounds[t + 1]]
        pos = np.searchsorted(rel_docs, c.doc[rows])
        pos = np.minimum(pos, rel_docs.size - 1)
        hit = rel_docs[pos] == c.doc[rows]
        rr = rows[hit]
        didx = pos[hit]
        run, rank = c.run[rr], c.rank[rr]
        # sites retrieving each relevant document in their top `depth`
        who = np.zeros((rel_docs.size, m), dtype=bool)
        top = rank < depth
        who[didx[top], site[run[top]]] = True
        kept = np.zeros((len(subsets) + 1, rel_docs.size), dtype=bool)
        kept[:-1] = (who[None, :, :] & ~sub_mask[:, None, :]).any(axis=2)
        kept[-1] = True  # the full qrels
        n_rel = kept.sum(axis=1).astype(float)
        if rr.size:
            kk = kept[:, didx]  # (subsets + 1, positions)
            starts = np.flatnonzero(np.r_[True, run[1:] != run[:-1]])
            cum = np.cumsum(kk, axis=1)
            before = np.zeros_like(cum)
            seg_id = np.cumsum(np.r_[False, run[1:] != run[:-1]])
            base = np.where(starts > 0, cum[:, np.maximum(starts - 1, 0)], 0)
            before = base[:, seg_id]
            prec = (cum - before) / (rank + 1.0)
            sums = np.add.reduceat(np.where(kk, prec, 0.0), starts, axis=1)
            per_run = np.zeros((len(subsets) + 1, n_r))
            per_run[:, run[starts]] = sums
        else:
            per_run = np.zeros((len(subsets) + 1, n_r))
        with np.errstate(divide="ignore", invalid="ignore"):
            vals = np.where(n_rel[:, None] > 0, per_run / n_rel[:, None], np.nan)
        ap[t] = vals[:-1]
        full[:, t] = vals[-1]
    return PoolScores(depth, k, m, subsets, ap, full)


def _pool_scores_ranged(c, site_of_run, k: int, depth: int, progress) -> PoolScores:
    """:func:`pool_scores` of a ranged archive: each range's table at its topics."""
    out = None
    for pos, part in c.parts(progress):
        ps = pool_scores(part, site_of_run, k=k, depth=depth)
        if out is None:
            ap = np.full((len(c.topic_names), *ps.ap.shape[1:]), np.nan)
            full = np.full((len(c.tags), len(c.topic_names)), np.nan)
            out = PoolScores(depth, k, ps.n_sites, ps.subsets, ap, full)
        out.ap[pos] = ps.ap
        out.full[:, pos] = ps.full
    if out is None:
        return pool_scores(_empty(c), site_of_run, k=k, depth=depth)
    return out


def _empty(r) -> CodedArchive:
    """A coded archive of ``r``'s runs with no rows (every range without qrels topics)."""
    z = np.zeros(0, dtype=np.int64)
    return CodedArchive(
        r.collection_id,
        r.tags,
        r.participants,
        r.run_types,
        r.participant_names,
        r.participant_of_run,
        r.topic_names,
        np.zeros(0, dtype=object),
        z,
        z,
        z,
        z,
        np.zeros(0),
        z,
        z,
        np.zeros(0, dtype=np.int32),
        r.fingerprint,
    )
