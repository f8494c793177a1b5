"""The hold-out shift from its per-topic sums taken a range of topics at a time
(:class:`litaudit.stats.holdout_sums.TopicSums`): the whole table's result to the digit,
whatever the cut (issue 24: the verdict reduces each depth's pool table range by range)."""

from __future__ import annotations

from itertools import combinations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from litaudit.stats.holdout_shift import holdout_shift, shift_of_sums
from litaudit.stats.holdout_sums import TopicSums, topic_sums
from tests.conftest import examples


@settings(max_examples=examples(60), deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(3, 6), st.integers(1, 4))
def test_sums_by_ranges_give_the_whole_tables_shift(seed, m, n_cuts):
    rng = np.random.default_rng(seed)
    n_t, n_r = 12, 2 * m
    site = np.arange(n_r) % m
    subsets = ((),) + tuple(combinations(range(m), 2))
    ap = rng.uniform(0.05, 0.7, size=(n_t, len(subsets), n_r))
    ap[rng.random(ap.shape) < 0.05] = np.nan  # no relevant document left
    ap[3] = np.nan  # a topic with no relevant document at all
    whole = holdout_shift(ap, site, subsets, margin_pct=1.0, alpha=0.05)
    cuts = np.sort(rng.choice(np.arange(1, n_t), size=min(n_cuts, n_t - 1), replace=False))
    sums = TopicSums.empty(n_t, n_r)
    perm = rng.permutation(n_t)  # ranges in any order, topics at their positions
    for pos in np.split(perm, cuts):
        sums.put(pos, topic_sums(ap[pos], site, subsets))
    assert shift_of_sums(sums, site, len(subsets), margin_pct=1.0, alpha=0.05) == whole


def test_a_topic_never_put_counts_as_an_empty_one():
    rng = np.random.default_rng(7)
    subsets = ((),) + tuple(combinations(range(3), 2))
    site = np.arange(6) % 3
    ap = rng.uniform(0.1, 0.6, size=(8, len(subsets), 6))
    ap[5] = np.nan
    sums = TopicSums.empty(8, 6)
    keep = np.array([0, 1, 2, 3, 4, 6, 7])
    sums.put(keep, topic_sums(ap[keep], site, subsets))
    assert shift_of_sums(sums, site, len(subsets)) == holdout_shift(ap, site, subsets)
