"""The decision of the reusability verdict (:mod:`litaudit.analyses.verdict`).

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
matrix; their words are in :mod:`litaudit.analyses.verdict_wording`.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from litaudit import defaults
from litaudit.analyses.agreement_randomization import holdout_design
from litaudit.stats.holdout_shift import INCONCLUSIVE, LOSE, REUSABLE, HoldoutShift, holdout_shift

NO_DEPTH = "pool depth unknown"
NOT_ENOUGH = "not enough data"
OUTCOMES = (REUSABLE, LOSE, INCONCLUSIVE, NO_DEPTH, NOT_ENOUGH)


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
):
    """The hold-out design, the shift at every depth (none under 3 participants, with a
    note) and the pool table at depth ``keep`` (None when not made)."""
    from litaudit.analyses.holdout_pools import pool_scores

    site = coded.participant_of_run
    names = coded.participant_names
    m = len(names)
    design = None
    kept = None
    rows = []
    if m < 3:
        notes.append(
            f"{m} participant(s): the hold-out design needs at least 3 sites "
            f"(k = {defaults.AGREEMENT_K} held out of each topic)"
        )
        for _ in depths:
            tick(1)
    else:
        design = holdout_design(m, len(coded.topic_names), defaults.AGREEMENT_K)
        for d in depths:
            ps = pool_scores(coded, site, k=defaults.AGREEMENT_K, depth=d)
            r = holdout_shift(
                ps.ap, site, ps.subsets, names=names, margin_pct=margin_pct, alpha=alpha
            )
            rows.append(DepthShift(d, r))
            kept = ps if d == keep else kept
            tick(1)
    return design, tuple(rows), kept


def matrix_shift(x, site, names, *, margin_pct: float, alpha: float) -> DepthShift:
    """The shift on a runs x topics matrix of full-judgment scores (``site``: each run's
    site index): every subset of sites held out sees the same scores."""
    from itertools import combinations

    m = int(site.max()) + 1
    n_r, n_t = x.shape
    subsets = ((),) + tuple(combinations(range(m), defaults.AGREEMENT_K))
    table = np.broadcast_to(x.T[:, None, :], (n_t, len(subsets), n_r))
    r = holdout_shift(table, site, subsets, names=names, margin_pct=margin_pct, alpha=alpha)
    return DepthShift(None, r)
