"""The measures of :mod:`litaudit.runs.evaluate`, one provider per measure family of
:mod:`litaudit.measures`: each reads the run-topic groups and their judged rows
(:class:`Judged`) and returns the per-group value, trec_eval's computation of it (see
evaluate's module docstring for the trec_eval semantics reproduced).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from litaudit.runs.order import group_cumsum


@dataclass(frozen=True)
class QrelsCounts:
    """Per topic: judged at all, R (relevant), N (judged non-relevant); the codes."""

    topic: np.ndarray  # int64 topic code per qrels line
    doc: np.ndarray  # docno code per qrels line
    rel: np.ndarray  # int64 grade per qrels line
    in_qrels: np.ndarray  # bool per topic
    R: np.ndarray
    N: np.ndarray
    n_docs: int


@dataclass(kw_only=True, frozen=True)
class Judged:
    """What every measure provider reads: the run-topic groups and their judged rows.

    A group is one run's ranking for one topic (``g_run``, ``g_topic``); ``group``,
    ``rank`` (1-based) and ``rel`` (grade) describe the retrieved rows found in the qrels;
    ``r_group``/``r_rank``/``cumrel`` the relevant ones (``cumrel``: 1-based position among
    their group's relevant rows). ``R``/``N`` are per topic.
    """

    n_groups: int
    g_run: np.ndarray
    g_topic: np.ndarray
    group: np.ndarray
    rank: np.ndarray
    rel: np.ndarray
    isrel: np.ndarray
    r_group: np.ndarray
    r_rank: np.ndarray
    cumrel: np.ndarray
    R: np.ndarray
    N: np.ndarray
    rel_level: int
    q: QrelsCounts
    ideal_cache: dict
    sizes: np.ndarray | None = None  # rows retrieved per group (Judged@k's denominator)

    def per_group(self, g: np.ndarray, weights=None) -> np.ndarray:
        return np.bincount(g, weights=weights, minlength=self.n_groups)

    def over_R(self, total: np.ndarray) -> np.ndarray:
        Rg = self.R[self.g_topic]
        return np.where(Rg > 0, total / np.maximum(Rg, 1), 0.0)

    def within(self, k: int | None) -> np.ndarray | slice:
        """The relevant rows ranked within the top k (all of them without a cutoff)."""
        return self.r_rank <= k if k is not None else slice(None)

    def ideal(self, k: int | None) -> np.ndarray:
        if k not in self.ideal_cache:
            n_top = len(self.R)
            self.ideal_cache[k] = _ideal_dcg(self.q.topic, self.q.rel, n_top, k)[self.g_topic]
        return self.ideal_cache[k]


# --------------------------------------------------------------------- measure providers
# One function per measure family of litaudit.measures (declared there: name, cutoff,
# aliases, citation); each returns the per-group value, trec_eval's computation of it.


def _ap(j: Judged, k: int | None) -> np.ndarray:
    w = j.within(k)
    return j.over_R(j.per_group(j.r_group[w], j.cumrel[w] / j.r_rank[w]))


def _precision(j: Judged, k: int | None) -> np.ndarray:
    assert k is not None  # the registry requires a cutoff for P
    return j.per_group(j.r_group[j.within(k)]) / k


def _recall(j: Judged, k: int | None) -> np.ndarray:
    return j.over_R(j.per_group(j.r_group[j.within(k)]))


def _rprec(j: Judged, k: int | None) -> np.ndarray:
    return j.over_R(j.per_group(j.r_group[j.r_rank <= j.R[j.g_topic[j.r_group]]]))


def _rr(j: Judged, k: int | None) -> np.ndarray:
    """1 / rank of the first relevant row (within the top k: ir_measures' RR@k), else 0."""
    first = np.zeros(j.n_groups)
    w = j.within(k)
    g_hit = j.r_group[w]
    if len(g_hit):
        g_first, idx = np.unique(g_hit, return_index=True)
        first[g_first] = 1.0 / j.r_rank[w][idx]
    return first


def _ndcg(j: Judged, k: int | None) -> np.ndarray:
    gain = (j.rel > 0) & ((j.rank <= k) if k is not None else True)
    dcg = j.per_group(j.group[gain], j.rel[gain].astype(np.float64) / np.log2(j.rank[gain] + 1.0))
    idcg = j.ideal(k)
    return np.where(idcg > 0, dcg / np.where(idcg > 0, idcg, 1.0), dcg)


def _bpref(j: Judged, k: int | None) -> np.ndarray:
    # judged non-relevant documents ranked above each relevant one
    nonrel = (j.rel >= 0) & (j.rel < j.rel_level)
    before = group_cumsum(nonrel.astype(np.int64), j.group)[j.isrel]
    Rr = j.R[j.g_topic[j.r_group]]
    denom = np.minimum(j.N[j.g_topic[j.r_group]], Rr)
    frac = np.where(before > 0, 1.0 - np.minimum(before, Rr) / np.maximum(denom, 1), 1.0)
    return j.over_R(j.per_group(j.r_group, frac))


def _judged(j: Judged, k: int | None) -> np.ndarray:
    """The judged rows (any grade) within the top k, over k or the group's number of
    rows when fewer (ir_measures' Judged@k, after OpenNIR)."""
    assert k is not None and j.sizes is not None  # the registry requires a cutoff
    return j.per_group(j.group[j.rank <= k]) / np.minimum(k, j.sizes)


PROVIDERS: dict[str, Callable[[Judged, int | None], np.ndarray]] = {
    "AP": _ap,
    "P": _precision,
    "R": _recall,
    "Rprec": _rprec,
    "RR": _rr,
    "nDCG": _ndcg,
    "Bpref": _bpref,
    "Judged": _judged,
}


def _ideal_dcg(q_topic: np.ndarray, q_rel: np.ndarray, n_top: int, k: int | None) -> np.ndarray:
    """Per topic: the DCG of the ideal ranking of its positive grades (cut at k)."""
    pos = q_rel > 0
    t = q_topic[pos]
    g = q_rel[pos].astype(np.float64)
    if not len(t):
        return np.zeros(n_top)
    o = np.lexsort((-g, t))
    t, g = t[o], g[o]
    starts = np.flatnonzero(np.r_[True, t[1:] != t[:-1]])
    grp = np.repeat(np.arange(len(starts)), np.diff(np.r_[starts, len(t)]))
    rank = np.arange(len(t)) - starts[grp] + 1
    w = g / np.log2(rank + 1.0)
    if k is not None:
        w = np.where(rank <= k, w, 0.0)
    return np.bincount(t, weights=w, minlength=n_top)
