"""Sub-collection rankings and their randomization test (Sanderson et al., CIKM 2012).

The fast masked AP is checked against a direct computation here (small random archives)
and against the general evaluator on robust03 in tests/test_reuse_runs.py. The paper's
Tables 3-4 (TREC-8, GOV2) need archives we do not have; what they imply is tested: the
p-value is (1 + #{tau_random <= tau}) / (1 + R), never 0, 1 when the sub-collections rank
runs identically, and its smallest value 1/(1 + R) when every random tau is higher.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.stats import kendalltau

from litaudit.errors import ParameterError
from litaudit.stats import subcollections as sc
from tests.conftest import examples


def brute_map(lists, rel, labels, n_labels, n_runs, n_topics):
    """MAP per (label, run) by filtering each ranked list and each topic's relevant set."""
    out = np.full((n_labels, n_runs), np.nan)
    for c in range(n_labels):
        topics = [t for t in range(n_topics) if any(labels[d] == c for d in rel.get(t, ()))]
        if not topics:
            continue
        for r in range(n_runs):
            total = 0.0
            for t in topics:
                relc = {d for d in rel[t] if labels[d] == c}
                ranked = [d for d in lists.get((r, t), []) if labels[d] == c]
                hits, s = 0, 0.0
                for i, d in enumerate(ranked, start=1):
                    if d in relc:
                        hits += 1
                        s += hits / i
                total += s / len(relc)
            out[c, r] = total / len(topics)
    return out


def flatten(lists):
    run, topic, doc = [], [], []
    for (r, t), docs in lists.items():
        run += [r] * len(docs)
        topic += [t] * len(docs)
        doc += docs
    return np.array(run, int), np.array(topic, int), np.array(doc, int)


@st.composite
def small_archives(draw):
    n_runs = draw(st.integers(2, 4))
    n_topics = draw(st.integers(1, 3))
    n_docs = draw(st.integers(3, 15))
    lists = {}
    for r in range(n_runs):
        for t in range(n_topics):
            docs = draw(st.lists(st.integers(0, n_docs - 1), unique=True, max_size=n_docs))
            if docs:
                lists[(r, t)] = docs
    rel = {
        t: draw(st.lists(st.integers(0, n_docs - 1), unique=True, max_size=5))
        for t in range(n_topics)
    }
    n_labels = draw(st.integers(2, 3))
    labels = np.array(
        draw(st.lists(st.integers(-1, n_labels - 1), min_size=n_docs, max_size=n_docs))
    )
    return lists, rel, labels, n_labels, n_runs, n_topics, n_docs


@pytest.mark.slow
@settings(max_examples=examples(200), deadline=None)
@given(small_archives())
def test_masked_ap_equals_filter_and_evaluate(arch):
    lists, rel, labels, n_labels, n_runs, n_topics, n_docs = arch
    run, topic, doc = flatten(lists)
    qt = np.array([t for t, ds in rel.items() for _ in ds], int)
    qd = np.array([d for ds in rel.values() for d in ds], int)
    prep = sc.ranked_relevance(
        run, topic, doc, qt, qd, n_runs=n_runs, n_topics=n_topics, n_docs=n_docs
    )
    maps, n_top = sc.subcollection_map(prep, labels[None, :], n_labels)
    expect = brute_map(lists, rel, labels, n_labels, n_runs, n_topics)
    np.testing.assert_allclose(maps[0], expect, rtol=0, atol=1e-12)
    for c in range(n_labels):
        assert n_top[0, c] == sum(any(labels[d] == c for d in ds) for ds in rel.values())


@pytest.mark.slow
@settings(max_examples=examples(200), deadline=None)
@given(
    st.integers(2, 9).flatmap(
        lambda n: st.tuples(
            st.lists(st.integers(0, 4), min_size=n, max_size=n),
            st.lists(st.integers(0, 4), min_size=n, max_size=n),
        )
    )
)
def test_kendall_tau_b_matches_scipy(xy):
    x, y = map(np.array, xy)
    ours = sc.kendall_tau(x, y)
    ref = kendalltau(x, y).statistic  # tau-b
    if np.isnan(ref):
        assert np.isnan(ours)
    else:
        assert ours == pytest.approx(ref, abs=1e-12)
        assert -1 <= ours <= 1


def test_kendall_tau_broadcasts():
    x = np.array([[1.0, 2, 3], [3, 2, 1]])
    assert sc.kendall_tau(x, np.array([1.0, 2, 3])).tolist() == [1.0, -1.0]


def opposed_archive(n_runs=4, docs_per_side=3):
    """Runs ranked one way on sub-collection 0 and the reverse way on sub-collection 1.

    Run r retrieves, per topic, relevant documents of side 0 at ranks depending on r and
    those of side 1 in the reverse order; each side has its own documents.
    """
    lists = {}
    n_docs = 2 * docs_per_side + 2 * n_runs
    for r in range(n_runs):
        # side 0 documents 0..k-1 relevant, side 1 documents k..2k-1 relevant
        filler0 = [2 * docs_per_side + i for i in range(r)]  # non-relevant
        filler1 = [2 * docs_per_side + n_runs + i for i in range(n_runs - 1 - r)]
        lists[(r, 0)] = (
            filler0
            + list(range(docs_per_side))
            + filler1
            + list(range(docs_per_side, 2 * docs_per_side))
        )
    labels = np.array([0] * docs_per_side + [1] * docs_per_side + [0] * n_runs + [1] * n_runs)
    rel_d = np.arange(2 * docs_per_side)
    run, topic, doc = flatten(lists)
    prep = sc.ranked_relevance(
        run, topic, doc, np.zeros(rel_d.size, int), rel_d, n_runs=n_runs, n_topics=1, n_docs=n_docs
    )
    return prep, labels


def test_p_value_of_reversed_and_of_identical_rankings():
    prep, labels = opposed_archive()
    test = sc.subcollection_test(
        prep, labels, ("A", "B"), permutations=199, rng=np.random.default_rng(7)
    )
    assert test.tau[0] == pytest.approx(-1.0)
    n_below = int((test.random_tau[0] <= -1.0 + 1e-12).sum())
    assert test.random_valid[0] == np.isfinite(test.random_tau[0]).sum()
    assert test.p_value[0] == pytest.approx((1 + n_below) / (1 + test.random_valid[0]), abs=1e-15)
    assert test.p_value[0] >= 1 / 200
    assert test.sizes.tolist() == [7, 7] and test.n_unassigned == 0
    # the same ranking on both sides: run r puts r non-relevant documents of the topic's
    # sub-collection before its one relevant document (AP = 1/(r + 1) on each side)
    lists = {(r, 0): [*range(1, r + 1), 0] for r in range(4)}
    lists.update({(r, 1): [*range(7, 7 + r), 6] for r in range(4)})
    run, topic, doc = flatten(lists)
    labels = np.array([0] * 6 + [1] * 6)
    prep = sc.ranked_relevance(
        run, topic, doc, np.array([0, 1]), np.array([0, 6]), n_runs=4, n_topics=2, n_docs=12
    )
    test = sc.subcollection_test(
        prep, labels, ("A", "B"), permutations=50, rng=np.random.default_rng(1)
    )
    np.testing.assert_allclose(test.maps, [[1, 1 / 2, 1 / 3, 1 / 4]] * 2, atol=1e-15)
    assert test.tau[0] == pytest.approx(1.0)
    # splits putting both relevant documents on one side have no tau and are left out
    valid = np.isfinite(test.random_tau[0])
    assert test.random_valid[0] == valid.sum() < 50
    assert test.p_value[0] == 1.0


def test_seeded_and_independent_of_batching_and_threads(monkeypatch):
    prep, labels = opposed_archive(n_runs=5)
    a = sc.subcollection_test(
        prep, labels, ("A", "B"), permutations=40, rng=np.random.default_rng(3)
    )
    b = sc.subcollection_test(
        prep, labels, ("A", "B"), permutations=40, rng=np.random.default_rng(3), workers=2
    )
    monkeypatch.setattr(sc, "_BATCH_POSITIONS", 1)  # one split per batch
    seen: list[int] = []
    c = sc.subcollection_test(
        prep,
        labels,
        ("A", "B"),
        permutations=40,
        rng=np.random.default_rng(3),
        progress=seen.append,
    )
    assert seen == [1] * 40
    np.testing.assert_array_equal(a.random_tau, b.random_tau)
    np.testing.assert_array_equal(a.random_tau, c.random_tau)
    d = sc.subcollection_test(
        prep, labels, ("A", "B"), permutations=40, rng=np.random.default_rng(4)
    )
    assert not np.array_equal(a.random_tau, d.random_tau)


def test_random_splits_keep_sizes():
    labels = np.array([0, 0, 0, 1, 1, -1, 2])
    for s in sc.split_seeds(np.random.default_rng(0), 20):
        r = sc.random_labels(labels, s)
        assert sorted(r.tolist()) == sorted(labels.tolist())


@settings(max_examples=examples(40), deadline=None)
@given(small_archives(), st.randoms(use_true_random=False))
def test_test_properties_and_run_order_invariance(arch, rnd):
    lists, rel, labels, n_labels, n_runs, n_topics, n_docs = arch
    run, topic, doc = flatten(lists)
    qt = np.array([t for t, ds in rel.items() for _ in ds], int)
    qd = np.array([d for ds in rel.values() for d in ds], int)
    names = tuple("abc"[:n_labels])
    prep = sc.ranked_relevance(
        run, topic, doc, qt, qd, n_runs=n_runs, n_topics=n_topics, n_docs=n_docs
    )
    t1 = sc.subcollection_test(prep, labels, names, permutations=30, rng=np.random.default_rng(11))
    ok = ~np.isnan(t1.tau)
    assert np.all((t1.tau[ok] >= -1 - 1e-12) & (t1.tau[ok] <= 1 + 1e-12))
    rt = t1.random_tau[~np.isnan(t1.random_tau)]
    assert np.all((rt >= -1 - 1e-12) & (rt <= 1 + 1e-12))
    p = t1.p_value[ok]
    assert np.all((p > 0) & (p <= 1)) and np.all(p >= 1 / 31)
    below = (t1.random_tau <= t1.tau[:, None] + 1e-12).sum(axis=1)
    np.testing.assert_allclose(p, ((1 + below) / (1 + t1.random_valid))[ok], rtol=0, atol=1e-15)
    # renumber the runs: the same taus and p-values
    perm = list(range(n_runs))
    rnd.shuffle(perm)
    prep2 = sc.ranked_relevance(
        np.array(perm)[run] if run.size else run,
        topic,
        doc,
        qt,
        qd,
        n_runs=n_runs,
        n_topics=n_topics,
        n_docs=n_docs,
    )
    t2 = sc.subcollection_test(prep2, labels, names, permutations=30, rng=np.random.default_rng(11))
    np.testing.assert_allclose(t2.tau, t1.tau, atol=1e-12)
    np.testing.assert_allclose(t2.random_tau, t1.random_tau, atol=1e-12)
    np.testing.assert_array_equal(t2.p_value, t1.p_value)


@pytest.mark.parametrize(
    "kwargs, labels, names",
    [
        ({"permutations": 0}, [0, 1], ("A", "B")),
        ({"workers": 0}, [0, 1], ("A", "B")),
        ({}, [0, 1], ("A",)),
        ({}, [0, 2], ("A", "B")),
        ({}, [0, 1, 1], ("A", "B")),
    ],
)
def test_bad_parameters(kwargs, labels, names):
    prep = sc.ranked_relevance([0, 1], [0, 0], [0, 1], [0], [0], n_runs=2, n_topics=1, n_docs=2)
    with pytest.raises(ParameterError):
        sc.subcollection_test(prep, np.array(labels), names, rng=np.random.default_rng(0), **kwargs)


def test_bad_codes():
    with pytest.raises(ParameterError, match="doc codes"):
        sc.ranked_relevance([0], [0], [5], [0], [0], n_runs=1, n_topics=1, n_docs=2)
