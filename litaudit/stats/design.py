"""The held-out-site experimental design of Carterette, Kanoulas, Pavlu and Fang,
"Reusable Test Collections Through Experimental Design", SIGIR 2010, Section 3.1.

N topics are split into an all-site baseline T0 of n topics, to which every site
contributes judgments, and b subsets T1..Tb of C(m, k) topics each; within a subset every
topic holds out a different k of the m sites, so every k-subset of sites is held out of
exactly b topics (the paper's Table 1 shows m = 6, k = 2). The parameters and the set
sizes are those of the paper's Table 2:

    b = floor((N - n0) / C(m, k))          number of topic subsets
    n = N - b C(m, k)                      all-site baseline (>= n0)
    within-site baseline   n + b C(m-1, k)     within-site reuse   b C(m-1, k-1)
    between-site baseline  n + b C(m-2, k)     between-site reuse  b C(m-2, k-2)
    participant comparison b C(m-2, k-1)

The Million Query 2008 set-up of the paper's Section 4.2 (m = 9, N = 564, n0 = 200, k = 2)
gives b = 10.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass
from math import comb
from typing import TypeVar

import numpy as np

from litaudit.errors import ParameterError

_S = TypeVar("_S", str, int)


@dataclass(frozen=True)
class Design:
    """Parameters and topic-set sizes of one design (Carterette et al. 2010, Table 2)."""

    sites: int  # m
    topics: int  # N
    baseline_min: int  # n0
    held_out: int  # k
    blocks: int  # C(m, k): topics per subset, one per held-out k-set
    subsets: int  # b
    baseline: int  # n, the all-site baseline
    within_site_baseline: int  # n + b C(m-1, k)
    within_site_reuse: int  # b C(m-1, k-1)
    between_site_baseline: int  # n + b C(m-2, k)
    between_site_reuse: int  # b C(m-2, k-2)
    participant_comparison: int  # b C(m-2, k-1)


def _c(n: int, k: int) -> int:
    """Binomial coefficient, 0 outside 0 <= k <= n (no pair of sites when k = 1, ...)."""
    return comb(n, k) if 0 <= k <= n else 0


def _check_int(name: str, value, low: int) -> int:
    if isinstance(value, bool) or int(value) != value:
        raise ParameterError(f"{name} must be an integer, got {value!r}")
    if value < low:
        raise ParameterError(f"{name} must be at least {low}, got {value}")
    return int(value)


def design(sites: int, topics: int, baseline_min: int, held_out: int) -> Design:
    """b, n and the six set sizes of Table 2 for m sites, N topics, n0 baseline, k held out."""
    m = _check_int("sites (m)", sites, 2)
    n_topics = _check_int("topics (N)", topics, 1)
    n0 = _check_int("baseline-min (n0)", baseline_min, 0)
    k = _check_int("held-out (k)", held_out, 1)
    if k >= m:
        raise ParameterError(f"held-out (k) must be below the number of sites m={m}, got {k}")
    if n0 > n_topics:
        raise ParameterError(f"baseline-min (n0)={n0} exceeds the number of topics N={n_topics}")
    blocks = comb(m, k)
    b = (n_topics - n0) // blocks
    if b < 1:
        raise ParameterError(
            f"k={k} needs at least n0 + C({m},{k}) = {n0 + blocks} topics, got N={n_topics}"
        )
    n = n_topics - b * blocks
    return Design(
        sites=m,
        topics=n_topics,
        baseline_min=n0,
        held_out=k,
        blocks=blocks,
        subsets=b,
        baseline=n,
        within_site_baseline=n + b * _c(m - 1, k),
        within_site_reuse=b * _c(m - 1, k - 1),
        between_site_baseline=n + b * _c(m - 2, k),
        between_site_reuse=b * _c(m - 2, k - 2),
        participant_comparison=b * _c(m - 2, k - 1),
    )


def design_table(sites: int, topics: int, baseline_min: int) -> tuple[Design, ...]:
    """Every feasible design over k = 1..m-1 (the table the paper suggests for choosing k)."""
    out = []
    for k in range(1, _check_int("sites (m)", sites, 2)):
        try:
            out.append(design(sites, topics, baseline_min, k))
        except ParameterError:
            continue
    return tuple(out)


@dataclass(frozen=True)
class HoldoutAssignment:
    """Which sites are held out of which topic (Carterette et al. 2010, Table 1).

    ``held_out[i]`` is the tuple of sites held out of ``topics[i]``; it is empty for the
    first ``baseline`` topics (the all-site baseline T0).
    """

    topics: tuple[str, ...]
    sites: tuple[str, ...]
    k: int
    baseline: int
    held_out: tuple[tuple[str, ...], ...]


def round_robin(sites: Sequence[_S], k: int) -> tuple[tuple[_S, ...], ...]:
    """The order in which Table 1 holds out k-subsets of sites.

    Table 1 (m = 6, k = 2) holds out {S5,S6}, {S4,S6}, {S3,S6}, {S2,S6}, {S1,S6}, {S4,S5},
    ..., {S1,S2}: the k-subsets in lexicographic order of the reversed site list. Each
    subset is returned in the given site order.
    """
    sites = tuple(sites)
    rank = {s: i for i, s in enumerate(sites)}
    return tuple(
        tuple(sorted(c, key=rank.__getitem__)) for c in itertools.combinations(sites[::-1], k)
    )


def assign_holdouts(
    topics: Sequence[str],
    sites: Sequence[str],
    k: int,
    baseline: int,
    rng: np.random.Generator | None = None,
) -> HoldoutAssignment:
    """Hold k sites out of each topic after the first ``baseline``, by round robin.

    Topic i >= baseline holds out the ((i - baseline) mod C(m, k))-th subset of
    :func:`round_robin`. When the number of held-out topics is not a multiple of C(m, k)
    the last cycle is partial (as in the paper's Robust 2004 simulation, Section 4.3,
    where all 249 topics hold out 2 of 14 sites). With ``rng`` the topic order is first
    permuted (a randomized block design); without it the given order is kept.
    """
    topics = tuple(str(t) for t in topics)
    sites = tuple(str(s) for s in sites)
    if len(set(topics)) != len(topics):
        raise ParameterError("topic identifiers must be distinct")
    if len(set(sites)) != len(sites):
        raise ParameterError("site names must be distinct")
    m = _check_int("number of sites", len(sites), 2)
    k = _check_int("held-out (k)", k, 1)
    if k >= m:
        raise ParameterError(f"held-out (k) must be below the number of sites m={m}, got {k}")
    baseline = _check_int("baseline topics", baseline, 0)
    if baseline > len(topics):
        raise ParameterError(f"baseline topics ({baseline}) exceed the topics ({len(topics)})")
    if rng is not None:
        topics = tuple(topics[i] for i in rng.permutation(len(topics)))
    order = round_robin(sites, k)
    held = tuple(
        () if i < baseline else order[(i - baseline) % len(order)] for i in range(len(topics))
    )
    return HoldoutAssignment(topics=topics, sites=sites, k=k, baseline=baseline, held_out=held)


@dataclass(kw_only=True, frozen=True)
class PartialDesign:
    """A design whose last round-robin cycle may be partial (Carterette et al. 2010,
    Section 4.3: Robust 2004's 249 topics all hold out 2 of 14 sites, no all-site
    baseline). Every held-out topic after the ``baseline`` ones takes the next k-subset of
    :func:`round_robin`, so the first ``partial`` subsets are held out of one topic more
    than the others and the set sizes vary by site: each is given as (min, max) over
    sites (within-site) or ordered site pairs (between-site, participant comparison).
    With ``partial == 0`` every range is one number, Table 2's."""

    sites: int  # m
    topics: int  # N
    baseline: int  # n: all-site baseline topics
    held_out: int  # k
    blocks: int  # C(m, k)
    full_cycles: int  # b
    partial: int  # topics of the last, partial cycle
    within_site_baseline: tuple[int, int]
    within_site_reuse: tuple[int, int]
    between_site_baseline: tuple[int, int]
    between_site_reuse: tuple[int, int]
    participant_comparison: tuple[int, int]


def partial_design(sites: int, topics: int, baseline: int, held_out: int) -> PartialDesign:
    """Set sizes of the round-robin design with exactly ``baseline`` all-site topics and
    every other topic holding out ``held_out`` sites (the last cycle possibly partial);
    the same counts :func:`assign_holdouts` produces (in any topic order)."""
    m = _check_int("sites (m)", sites, 2)
    n_topics = _check_int("topics (N)", topics, 1)
    n = _check_int("baseline (n)", baseline, 0)
    k = _check_int("held-out (k)", held_out, 1)
    if k >= m:
        raise ParameterError(f"held-out (k) must be below the number of sites m={m}, got {k}")
    if n > n_topics:
        raise ParameterError(f"baseline (n)={n} exceeds the number of topics N={n_topics}")
    order = round_robin(tuple(range(m)), k)
    b, r = divmod(n_topics - n, len(order))
    count = {s: b + (1 if i < r else 0) for i, s in enumerate(order)}
    within = [sum(c for s, c in count.items() if x in s) for x in range(m)]
    pairs = list(itertools.permutations(range(m), 2))
    between = [sum(c for s, c in count.items() if x in s and y in s) for x, y in pairs]
    between_base = [
        n + sum(c for s, c in count.items() if x not in s and y not in s) for x, y in pairs
    ]
    partic = [sum(c for s, c in count.items() if x in s and y not in s) for x, y in pairs]

    def rng(v):
        return (min(v), max(v))

    return PartialDesign(
        sites=m,
        topics=n_topics,
        baseline=n,
        held_out=k,
        blocks=len(order),
        full_cycles=b,
        partial=r,
        within_site_baseline=rng([n_topics - w for w in within]),
        within_site_reuse=rng(within),
        between_site_baseline=rng(between_base),
        between_site_reuse=rng(between),
        participant_comparison=rng(partic),
    )
