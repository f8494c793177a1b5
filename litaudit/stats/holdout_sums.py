"""The per-topic sums of the hold-out shift (after Carterette, Kanoulas, Pavlu and Fang,
SIGIR 2010, Sections 3.1 and 3.2.3).

From the score table ``ap[t, S, r]`` (:mod:`litaudit.stats.holdout_shift`), for every topic
t and run r: g_tr and h_tr (its centred scores summed over the subsets that hold its site
out, and over the others, each subset weighing 1 / C(m, k)), the counts of scored cells of
each kind, and from them z[t, r] (:func:`topic_run_shifts`) and each site's shift per
topic (:func:`site_topic_shifts`). Every value of a topic depends on that topic alone, and
sums are taken in sorted order (:func:`sorted_sum`), so a table summed a range of topics at
a time, or with its sites renamed, gives the same digits.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from litaudit.errors import ParameterError
from litaudit.stats.holdout_intervals import (
    topic_means,
)


def sorted_sum(a: np.ndarray, axis: int) -> np.ndarray:
    """Sum along ``axis`` in sorted order: the same digits whatever the order."""
    return np.sort(a, axis=axis).sum(axis=axis)


def _sorted_row_sums(a: np.ndarray) -> np.ndarray:
    """Each row's sum in sorted order, added one value after the other (a cumulative sum):
    the same digits whatever the number of rows (numpy's ``sum`` adds a single row
    pairwise, several rows of this layout one column after the other)."""
    s = np.sort(a, axis=1)
    return np.cumsum(s, axis=1)[:, -1] if s.shape[1] else np.zeros(s.shape[0])


@dataclass(frozen=True)
class TopicSums:
    """The per-topic part of :func:`holdout_shift` (stats.holdout_shift): g and h of every topic
    and run, the scores with nothing held out, and per topic and run the counts of scored
    subset cells of each kind. Topics can be taken a range at a time (:func:`topic_sums`
    of each range, placed by :meth:`put`): every value of a topic depends on that topic
    alone and the counts are integers, so the result is the whole table's to the digit.
    :meth:`take` keeps some of the topics (a subset, or a resample with repeats)."""

    g: np.ndarray  # (topics, runs): sum over subsets holding the run's site out / C
    h: np.ndarray  # (topics, runs): likewise over the other subsets
    base: np.ndarray  # (topics, runs): scores with nothing held out
    n_held: np.ndarray  # (topics, runs) scored subset cells holding the run's site out
    n_other: np.ndarray  # (topics, runs) ... not holding it out

    @classmethod
    def empty(cls, n_t: int, n_r: int) -> TopicSums:
        """The sums of an all-NaN table (what a topic never :meth:`put` stays)."""
        z = np.zeros((n_t, n_r))
        g, h, base = np.zeros((n_t, n_r)), np.zeros((n_t, n_r)), np.full((n_t, n_r), np.nan)
        return cls(g, h, base, z, z.copy())

    def put(self, pos: np.ndarray, part: TopicSums) -> None:
        """``part``'s topics at the positions ``pos`` of this (whole) table."""
        self.g[pos], self.h[pos], self.base[pos] = part.g, part.h, part.base
        self.n_held[pos], self.n_other[pos] = part.n_held, part.n_other

    def take(self, topics) -> TopicSums:
        """The sums of the topics at the positions ``topics`` (in that order, repeats
        allowed): what :func:`topic_sums` gives on the table of those topics."""
        i = np.asarray(topics, dtype=np.int64)
        return TopicSums(self.g[i], self.h[i], self.base[i], self.n_held[i], self.n_other[i])


def topic_sums(y: np.ndarray, site: np.ndarray, subsets) -> TopicSums:
    """:class:`TopicSums` of the table ``y`` (topics x subsets x runs, any topics)."""
    n_t, n_s, n_r = y.shape
    m = int(site.max()) + 1
    ok = np.isfinite(y)
    n_ok = ok.sum(axis=2, keepdims=True)
    centre = sorted_sum(np.where(ok, y, 0.0), 2)[:, :, None] / np.maximum(n_ok, 1)
    yc = np.where(ok, y - centre, 0.0)[:, 1:, :]
    okf = ok[:, 1:, :].astype(float)
    contains = np.zeros((n_s - 1, m), dtype=bool)
    for n, s in enumerate(subsets[1:]):
        contains[n, list(s)] = True
    held = contains[:, site]  # (subsets, runs)
    c = float(n_s - 1)  # each subset weighs 1 / C(m, k)
    g = np.empty((n_t, n_r))
    h = np.empty((n_t, n_r))
    for r in range(n_r):
        g[:, r] = _sorted_row_sums(yc[:, held[:, r], r]) / c
        h[:, r] = _sorted_row_sums(yc[:, ~held[:, r], r]) / c
    n_held = np.einsum("tsr,sr->tr", okf, held)  # counts: exact in any order
    n_other = np.einsum("tsr,sr->tr", okf, ~held)
    return TopicSums(g, h, y[:, 0, :].copy(), n_held, n_other)


def topic_run_shifts(sums: TopicSums, n_s: int):
    """z[t, r] = N g_tr / n_r - N h_tr / n'_r (stats.holdout_shift) for the runs with both kinds of
    topics (``use``); NaN for the others."""
    n_t, n_r = sums.g.shape
    c = float(n_s - 1)
    nh = sums.n_held.sum(axis=0) / c
    nn = sums.n_other.sum(axis=0) / c
    use = (nh > 0) & (nn > 0)
    if use.sum() < 1:
        raise ParameterError("no run has both held-out and other topics")
    zr = np.full((n_t, n_r), np.nan)
    zr[:, use] = sums.g[:, use] / nh[use] * n_t - sums.h[:, use] / nn[use] * n_t
    return zr, use


def site_topic_shifts(sums: TopicSums, site_of_run, n_subsets: int):
    """(zs, b): each site's mean shift on each topic (topics x sites with a scored run,
    score points) and the topics' :func:`topic_means`, the input of
    :func:`site_sample_interval`."""
    site = np.asarray(site_of_run, dtype=np.int64)
    zr, use = topic_run_shifts(sums, n_subsets)
    cols = [np.flatnonzero(use & (site == k)) for k in range(int(site.max()) + 1)]
    zs = np.stack([sorted_sum(zr[:, c], 1) / c.size for c in cols if c.size], axis=1)
    return zs, topic_means(sums.base)
