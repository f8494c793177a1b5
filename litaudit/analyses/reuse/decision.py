"""The decision of the reusability verdict (:mod:`litaudit.analyses.reuse.verdict`).

The question: would a new system's score be off by more than evaluation noise? The shift
of held-out runs in a pooling simulation (Carterette, Kanoulas, Pavlu, Fang, SIGIR 2010,
Sections 3.1, 3.2.3, 4.3): how much lower a site's runs score, relative to the other runs,
on topics the site did not contribute judgments to, in expectation over every k-subset of
sites held out with equal weight (:mod:`litaudit.stats.holdout_shift`; exact, no seed),
with its 90% interval over topics, set against a margin of 1% of the mean score: "No
TREC-8 automatic run has a percentage difference greater than 1%, and since differences
that small are within the level of evaluation noise [9], the collection is regarded as
highly reusable" (Voorhees, Lin, Efron, SIGIR 2014, Section 4). The decision is made at
the collection's pool depth (recorded with its source, or given); when it is unknown,
there is one row per depth and no decision.

Here: the outcomes, and the shift at each depth of an archive's pools and on a score
matrix; their words are in :mod:`litaudit.analyses.reuse.wording`.
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import combinations

import numpy as np

from litaudit import defaults
from litaudit.analyses.reuse.holdout_design import holdout_design
from litaudit.analyses.reuse.holdout_pools import PoolScores, pool_tables
from litaudit.errors import ParameterError
from litaudit.stats.holdout_intervals import INCONCLUSIVE, LOSE, REUSABLE, Bootstrap
from litaudit.stats.holdout_shift import HoldoutShift, holdout_shift, shift_of_sums
from litaudit.stats.holdout_sums import TopicSums, topic_sums
from litaudit.stats.reuse_sites import with_new_site

NO_DEPTH = "pool depth unknown"
NOT_ENOUGH = "not enough data"
NO_POOLS = "no decision from scores"  # one score per run and topic: the shift is 0 by construction
OUTCOMES = (REUSABLE, LOSE, INCONCLUSIVE, NO_DEPTH, NOT_ENOUGH, NO_POOLS)


@dataclass(frozen=True)
class DepthShift:
    """The shift of held-out runs at one pool depth (None: scores given, no pooling)."""

    depth: int | None
    result: HoldoutShift


def pool_shifts(
    coded,
    depths,
    notes: list[str],
    tick,
    *,
    margin_pct: float,
    alpha: float,
    keep: int | None = None,
    bootstrap: Bootstrap | None = None,
    topics: np.ndarray | None = None,
):
    """The hold-out design, the shift at every depth (none under 3 participants, with a
    note) and the pool table at depth ``keep`` (None when not made). One pass over the
    archive for every depth (``tick(1)`` after each range of a ranged archive): each
    depth's table is reduced to its per-topic sums range by range
    (:class:`~litaudit.stats.holdout_sums.TopicSums`), only ``keep``'s is kept whole.
    ``topics``: the positions of the topics the shift is computed on (None: all);
    ``bootstrap``: the interval's (None: the delta method's)."""

    site = coded.participant_of_run
    names = coded.participant_names
    m = len(names)
    if m < 3:
        notes.append(
            f"{m} participant(s): the hold-out design needs at least 3 sites "
            f"(k = {defaults.AGREEMENT_K} held out of each topic)"
        )
        return None, (), None
    n_t, n_r = len(coded.topic_names), len(coded.tags)
    design = holdout_design(m, n_t, defaults.AGREEMENT_K)
    sums = {d: TopicSums.empty(n_t, n_r) for d in depths}
    kept: list[PoolScores] = []
    n_s = [0]

    def each(d: int, pos: np.ndarray, part: PoolScores) -> None:
        n_s[0] = len(part.subsets)
        if pos.size:
            sums[d].put(pos, topic_sums(part.ap, site, part.subsets))
        if d != keep:
            return
        if not kept:
            ap = np.full((n_t, *part.ap.shape[1:]), np.nan)
            kept.append(PoolScores(d, part.k, m, part.subsets, ap, np.full((n_r, n_t), np.nan)))
        kept[0].ap[pos] = part.ap
        kept[0].full[:, pos] = part.full

    pool_tables(coded, site, k=defaults.AGREEMENT_K, depths=depths, each=each, progress=tick)

    def shift(d: int) -> HoldoutShift:
        chosen = sums[d] if topics is None else sums[d].take(topics)
        r = shift_of_sums(
            chosen,
            site,
            n_s[0],
            names=names,
            margin_pct=margin_pct,
            alpha=alpha,
            bootstrap=bootstrap,
        )
        if bootstrap is None:
            return r
        return with_new_site(r, chosen, site, n_s[0], bootstrap, defaults.REUSE_NEW_SITE_SITES)

    rows = tuple(DepthShift(d, shift(d)) for d in depths)
    return design, rows, (kept[0] if kept else None)


def matrix_shift(x, site, names, *, margin_pct: float, alpha: float) -> DepthShift:
    """The shift on a runs x topics matrix of full-judgment scores (``site``: each run's
    site index): every subset of sites held out sees the same scores."""

    m = int(site.max()) + 1
    n_r, n_t = x.shape
    subsets = ((),) + tuple(combinations(range(m), defaults.AGREEMENT_K))
    table = np.broadcast_to(x.T[:, None, :], (n_t, len(subsets), n_r))
    r = holdout_shift(table, site, subsets, names=names, margin_pct=margin_pct, alpha=alpha)
    return DepthShift(None, r)


def topic_positions(names, spec: str) -> np.ndarray:
    """The positions in ``names`` (an archive's topic ids) of the topics ``spec`` selects:
    comma-separated ids and inclusive numeric ranges ("601-650", "303,310-320"). A
    ParameterError names the part that selects nothing or does not parse."""

    chosen: set[int] = set()
    numeric = {n: int(n) for n in names if n.strip().isdigit()}
    for part in (p.strip() for p in spec.split(",")):
        lo, sep, hi = part.partition("-")
        if sep and lo.strip().isdigit() and hi.strip().isdigit():
            a, b = int(lo), int(hi)
            if a > b:
                raise ParameterError(f"--topic-ids {spec!r}: the range {part!r} runs backwards")
            hit = {i for i, n in enumerate(names) if n in numeric and a <= numeric[n] <= b}
        elif part:
            hit = {i for i, n in enumerate(names) if n == part}
        else:
            raise ParameterError(f"--topic-ids {spec!r}: an empty part")
        if not hit:
            raise ParameterError(f"--topic-ids {spec!r}: {part!r} selects no topic of the archive")
        chosen |= hit
    if len(chosen) < 2:
        raise ParameterError(f"--topic-ids {spec!r}: the shift needs at least 2 topics")
    return np.array(sorted(chosen), dtype=np.int64)
