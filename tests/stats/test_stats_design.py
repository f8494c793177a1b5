"""The held-out-site design of Carterette et al., SIGIR 2010 (litaudit.stats.design)."""

from __future__ import annotations

from collections import Counter
from math import comb

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from litaudit.errors import ParameterError
from litaudit.stats.design import assign_holdouts, design, design_table, round_robin
from tests.conftest import examples


def test_million_query_2008_design():
    # Carterette et al. 2010, Section 4.2: MQ 2008, m = 9 sites, N = 564 topics, n0 = 200,
    # k = 2 held out: "Plugging into the formula above results in b = 10 topic sets."
    # The other sizes follow from Table 2 (exact integers, no tolerance):
    # C(9,2) = 36, n = 564 - 360 = 204; within-site baseline 204 + 10 C(8,2) = 484,
    # within-site reuse 10 C(8,1) = 80, between-site baseline 204 + 10 C(7,2) = 414,
    # between-site reuse 10 C(7,0) = 10, participant comparison 10 C(7,1) = 70.
    d = design(9, 564, 200, 2)
    assert (d.blocks, d.subsets, d.baseline) == (36, 10, 204)
    assert d.within_site_baseline == 484
    assert d.within_site_reuse == 80
    assert d.between_site_baseline == 414
    assert d.between_site_reuse == 10
    assert d.participant_comparison == 70


def test_table1_sizes():
    # Table 1 / Section 3.1 (m = 6, k = 2): within each subset each site contributes to
    # C(5,2) = 10 topics and is held out of C(5,1) = 5; each pair of sites is held out of
    # C(4,0) = 1 topic together and one of them only is held out of C(4,1) = 4 topics.
    d = design(6, 15, 0, 2)
    assert (d.subsets, d.baseline) == (1, 0)
    assert (d.within_site_baseline, d.within_site_reuse) == (10, 5)
    assert (d.between_site_baseline, d.between_site_reuse) == (6, 1)
    assert d.participant_comparison == 4


def test_round_robin_is_table1():
    # Table 1 of the paper, subset T1 (topics n+1..n+15), the two sites marked as held out:
    table1 = [
        ("S5", "S6"),
        ("S4", "S6"),
        ("S3", "S6"),
        ("S2", "S6"),
        ("S1", "S6"),
        ("S4", "S5"),
        ("S3", "S5"),
        ("S2", "S5"),
        ("S1", "S5"),
        ("S3", "S4"),
        ("S2", "S4"),
        ("S1", "S4"),
        ("S2", "S3"),
        ("S1", "S3"),
        ("S1", "S2"),
    ]
    sites = [f"S{i}" for i in range(1, 7)]
    assert list(round_robin(sites, 2)) == table1
    a = assign_holdouts([f"t{i}" for i in range(1, 34)], sites, 2, baseline=3)
    assert a.held_out[:3] == ((), (), ())
    assert list(a.held_out[3:18]) == table1  # T1
    assert list(a.held_out[18:33]) == table1  # T2 has T1's pattern
    # "the within-site reusability set for site S6 includes the first five topics in each
    # subset"
    assert [i for i in range(3, 18) if "S6" in a.held_out[i]] == [3, 4, 5, 6, 7]


def test_design_errors():
    with pytest.raises(ParameterError, match="needs at least n0 \\+ C\\(9,2\\) = 236 topics"):
        design(9, 235, 200, 2)
    with pytest.raises(ParameterError, match="below the number of sites"):
        design(4, 100, 0, 4)
    with pytest.raises(ParameterError, match="exceeds"):
        design(4, 100, 101, 1)
    with pytest.raises(ParameterError, match="integer"):
        design(4.5, 100, 0, 1)  # type: ignore[arg-type]  # the wrong type on purpose
    with pytest.raises(ParameterError, match="distinct"):
        assign_holdouts(["1", "1"], ["a", "b"], 1, 0)


def test_design_table_skips_infeasible_k():
    rows = design_table(9, 564, 200)
    # C(9,k) for k = 1..8: 9, 36, 84, 126, 126, 84, 36, 9: all fit in N - n0 = 364 topics
    assert [d.held_out for d in rows] == list(range(1, 9))
    assert [d.subsets for d in rows] == [364 // comb(9, k) for k in range(1, 9)]
    # with N - n0 = 100 the two k with C(9,k) = 126 > 100 are infeasible
    assert [d.held_out for d in design_table(9, 300, 200)] == [1, 2, 3, 6, 7, 8]


@settings(max_examples=examples(200), deadline=None)
@given(
    m=st.integers(2, 12), k=st.integers(1, 11), n0=st.integers(0, 300), extra=st.integers(0, 2000)
)
def test_design_invariants(m, k, n0, extra):
    if k >= m:
        return
    total = n0 + comb(m, k) + extra
    d = design(m, total, n0, k)
    assert d.baseline >= n0
    assert d.baseline + d.subsets * d.blocks == total
    assert d.baseline - n0 < d.blocks  # b is the largest feasible
    # each site: contributes to + held out of = all topics
    assert d.within_site_baseline + d.within_site_reuse == total
    # a pair of sites: both contribute + both held out + one held out (either way) = N
    assert (d.between_site_baseline + d.between_site_reuse + 2 * d.participant_comparison) == total


@settings(max_examples=examples(100), deadline=None)
@given(
    m=st.integers(2, 8),
    k=st.integers(1, 7),
    b=st.integers(1, 4),
    n=st.integers(0, 20),
    seed=st.integers(0, 2**32 - 1),
)
def test_assignment_matches_design(m, k, b, n, seed):
    if k >= m:
        return
    sites = [f"s{i}" for i in range(m)]
    total = n + b * comb(m, k)
    d = design(m, total, n, k)
    a = assign_holdouts(
        [str(t) for t in range(total)], sites, k, d.baseline, rng=np.random.default_rng(seed)
    )
    assert sorted(a.topics, key=int) == [str(t) for t in range(total)]
    # every k-subset held out of exactly b topics
    assert set(Counter(a.held_out[d.baseline :]).values()) == {d.subsets}
    for s in sites:
        held = sum(s in h for h in a.held_out)
        assert held == d.within_site_reuse
    s, t = sites[0], sites[1]
    assert sum(s in h and t in h for h in a.held_out) == d.between_site_reuse
    assert sum(s in h and t not in h for h in a.held_out) == d.participant_comparison


def test_partial_cycle_and_seed():
    # Section 4.3: Robust 2004 holds 2 of 14 sites out of every one of 249 topics.
    sites = [f"s{i}" for i in range(14)]
    a = assign_holdouts([str(t) for t in range(249)], sites, 2, baseline=0)
    held = Counter(s for h in a.held_out for s in h)
    assert sum(held.values()) == 2 * 249
    assert all(len(h) == 2 for h in a.held_out)
    topics = [str(t) for t in range(20)]
    r1 = assign_holdouts(topics, sites[:4], 2, 2, rng=np.random.default_rng(7))
    r2 = assign_holdouts(topics, sites[:4], 2, 2, rng=np.random.default_rng(7))
    assert r1 == r2
    assert r1.topics != tuple(str(t) for t in range(20))
