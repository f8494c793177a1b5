"""The hold-out design of the reusability verdict (Carterette, Kanoulas, Pavlu and Fang,
SIGIR 2010, Sections 3.1 and 4.3): m sites, k of them held out of each topic by the
paper's round robin of k-subsets, and what that design gives (:class:`HoldoutDesign`);
used by :mod:`litaudit.analyses.reuse.holdout_agreement` and the verdict's decision.
"""

from __future__ import annotations

from dataclasses import dataclass
from math import comb

import numpy as np

from litaudit.errors import ParameterError
from litaudit.stats.design import assign_holdouts


@dataclass(kw_only=True, frozen=True)
class HoldoutDesign:
    """The hold-out design the assignments follow (Section 3.1), and its balance."""

    sites: int  # m
    topics: int  # N
    k: int
    baseline: int  # all-site baseline topics
    subsets: int  # C(m, k)
    full_cycles: int  # b: complete round-robin cycles
    partial: int  # topics of the last, partial cycle
    held_per_site_min: int  # topics each site is held out of (min and max)
    held_per_site_max: int
    balanced: bool
    note: str  # why it is not balanced, or ""


def holdout_design(m: int, n_topics: int, k: int, baseline: int = 0) -> HoldoutDesign:
    """Describe the round-robin design of ``n_topics`` topics over m sites, k held out."""

    if not 1 <= k < m:
        raise ParameterError(f"held-out (k) must be between 1 and m - 1 = {m - 1}, got {k}")
    c = comb(m, k)
    rest = n_topics - baseline
    b, r = divmod(rest, c)
    a = assign_holdouts([str(t) for t in range(n_topics)], [str(s) for s in range(m)], k, baseline)
    per_site = np.zeros(m, dtype=int)
    for h in a.held_out:
        for s in h:
            per_site[int(s)] += 1
    note = ""
    if r:
        note = (
            f"unbalanced: {rest} held-out topics are {b} full cycle(s) of C({m},{k}) = "
            f"{c} site subsets and a partial cycle of {r}; "
        )
        if b == 0:
            note += (
                f"fewer topics than subsets, so {c - r} of the {c} subsets are never "
                f"held out together; "
            )
        note += (
            f"each site is held out of {per_site.min()} to {per_site.max()} topics "
            "(the topic order is random, so which subsets miss out is random too)"
        )
    return HoldoutDesign(
        sites=m,
        topics=n_topics,
        k=k,
        baseline=baseline,
        subsets=c,
        full_cycles=b,
        partial=r,
        held_per_site_min=int(per_site.min()),
        held_per_site_max=int(per_site.max()),
        balanced=r == 0,
        note=note,
    )
