"""Score shift of held-out runs, in expectation over the random hold-out assignments of a
design, with a topic-level test (after Carterette, Kanoulas, Pavlu and Fang, SIGIR 2010,
Sections 3.1, 3.2.3 and 4.3).

Input: ``ap[t, S, r]``, the score of run r on topic t when the k-subset S of sites is held
out of t (S = 0: none), from a pooling simulation (NaN: no relevant document left), and
``count[S]``, how many topics of the round-robin design hold out S (a random topic order
makes every topic hold out S with probability count[S] / N). Scores are centred per topic
and subset (each run's score minus the mean over runs), so topic difficulty drops out.

For run r of site s, the expected mean of its centred score over the topics its site is
held out of, minus the expected mean over the other topics, is exactly
    shift_r = sum_t g_tr / n_r - sum_t h_tr / (N - n_r),
    g_tr = sum_{S contains s} count[S] / N * y[t, S, r],  h_tr likewise over S without s,
n_r = sum_{S contains s} count[S]. Writing the mean over runs as a mean over topics,
z_t = mean_r (N g_tr / n_r - N h_tr / (N - n_r)), gives mean_t z_t = mean_r shift_r, and
the topics, the sampling unit of a test collection, give its standard error: a two-sided
t-test of mean z = 0 with N - 1 degrees of freedom. No Monte Carlo: the answer does not
depend on a seed. When the scores do not depend on the hold-outs (every run scored with
the full judgments), every z_t is exactly 0 and p = 1.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy import stats

from litaudit.errors import ParameterError


@dataclass(frozen=True)
class HoldoutShift:
    """Expected shift of held-out runs (centred scores) and its topic-level test."""

    topics: int
    runs: int
    mean_score: float  # mean score with subset 0 (nothing held out)
    shift: float  # mean over runs of shift_r (score points)
    shift_pct: float  # 100 * shift / mean_score
    se: float  # standard error over topics
    t: float | None
    p_value: float  # two-sided
    per_run: tuple[float, ...]  # shift_r


def holdout_shift(ap, count, site_of_run, subsets) -> HoldoutShift:
    """The shift of :mod:`this module <litaudit.stats.holdout_shift>` from the score table."""
    y = np.asarray(ap, dtype=float)
    c = np.asarray(count, dtype=float)
    site = np.asarray(site_of_run, dtype=np.int64)
    n_t, n_s, n_r = y.shape
    if c.size != n_s or len(subsets) != n_s or site.size != n_r:
        raise ParameterError("ap, count, subsets and site_of_run do not fit together")
    if n_t < 2:
        raise ParameterError("the shift needs at least 2 topics")
    total = c.sum()
    if total != n_t:
        raise ParameterError(f"the design's counts sum to {total}, not the {n_t} topics")
    ok = np.isfinite(y)
    n_ok = ok.sum(axis=2, keepdims=True)
    centre = np.where(ok, y, 0.0).sum(axis=2, keepdims=True) / np.maximum(n_ok, 1)
    yc = np.where(ok, y - centre, 0.0)
    m = int(site.max()) + 1
    contains = np.zeros((n_s, m), dtype=bool)
    for n, s in enumerate(subsets):
        contains[n, list(s)] = True
    held = contains[:, site]  # (subsets, runs)
    w = c / n_t  # P(topic holds out S)
    wh = w[:, None] * held  # (subsets, runs)
    wn = w[:, None] * ~held
    g = np.einsum("tsr,sr->tr", yc, wh)
    h = np.einsum("tsr,sr->tr", yc, wn)
    # expected number of scored topics held out / not held out, per run
    nh = np.einsum("tsr,sr->r", ok.astype(float), wh)
    nn = np.einsum("tsr,sr->r", ok.astype(float), wn)
    use = (nh > 0) & (nn > 0)
    if use.sum() < 1:
        raise ParameterError("no run has both held-out and other topics")
    z = (g[:, use] / nh[use] - h[:, use] / nn[use]).mean(axis=1) * n_t
    per_run = np.full(n_r, np.nan)
    per_run[use] = g[:, use].sum(0) / nh[use] - h[:, use].sum(0) / nn[use]
    shift = float(z.mean())
    sd = float(z.std(ddof=1))
    se = sd / np.sqrt(n_t)
    base = y[:, 0, :]
    mean_score = float(np.nanmean(base)) if np.isfinite(base).any() else float("nan")
    if se <= 1e-12 * max(1.0, abs(shift)):
        t, p = None, (1.0 if abs(shift) <= 1e-12 else 0.0)
    else:
        t = shift / se
        p = float(2.0 * stats.t.sf(abs(t), n_t - 1))
    return HoldoutShift(
        n_t,
        int(use.sum()),
        mean_score,
        shift,
        100.0 * shift / mean_score if mean_score else float("nan"),
        se,
        t,
        p,
        tuple(float(v) for v in per_run),
    )


def round_robin_counts(subsets, n_topics: int, baseline: int, order) -> np.ndarray:
    """How many topics hold out each subset: ``baseline`` hold out none (index 0), the
    others cycle through ``order`` (subset indices in round-robin order)."""
    if baseline > n_topics:
        raise ParameterError("more baseline topics than topics")
    count = np.zeros(len(subsets))
    count[0] = baseline
    order = list(order)
    for i in range(n_topics - baseline):
        count[order[i % len(order)]] += 1
    return count
