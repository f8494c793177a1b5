"""The pool table (:func:`litaudit.analyses.reuse.holdout_pools.pool_scores`) from the sites
retrieving each relevant document: the same AP, to 1e-12, as building the kept-document
mask of every held-out subset (the computation it replaced, kept here as the reference),
on small random archives of 3 to 8 sites (issue 24)."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from litaudit.analyses.reuse.coded_archive import CodedArchive
from litaudit.analyses.reuse.holdout_pools import pool_scores
from tests.conftest import examples


def reference_pool_scores(c, site_of_run, *, k: int, depth: int):
    """(subsets, ap, full) with a kept-document mask per held-out subset."""
    site = np.asarray(site_of_run, dtype=np.int64)
    m = int(site.max()) + 1
    subsets = ((),) + tuple(itertools.combinations(range(m), k))
    sub_mask = np.zeros((len(subsets), m), dtype=bool)
    for n, s in enumerate(subsets):
        sub_mask[n, list(s)] = True
    n_t, n_r = len(c.topic_names), len(c.tags)
    ap = np.full((n_t, len(subsets), n_r), np.nan)
    full = np.full((n_r, n_t), np.nan)
    order = np.argsort(c.topic, kind="stable")
    bounds = np.searchsorted(c.topic[order], np.arange(n_t + 1))
    rel = c.q_rel >= 1
    q_order = np.argsort(c.q_topic, kind="stable")
    q_bounds = np.searchsorted(c.q_topic[q_order], np.arange(n_t + 1))
    for t in range(n_t):
        qrows = q_order[q_bounds[t] : q_bounds[t + 1]]
        rel_docs = np.unique(c.q_doc[qrows][rel[qrows]])
        if rel_docs.size == 0:
            continue
        rows = order[bounds[t] : bounds[t + 1]]
        pos = np.searchsorted(rel_docs, c.doc[rows])
        pos = np.minimum(pos, rel_docs.size - 1)
        hit = rel_docs[pos] == c.doc[rows]
        rr = rows[hit]
        didx = pos[hit]
        run, rank = c.run[rr], c.rank[rr]
        who = np.zeros((rel_docs.size, m), dtype=bool)
        top = rank < depth
        who[didx[top], site[run[top]]] = True
        kept = np.zeros((len(subsets) + 1, rel_docs.size), dtype=bool)
        kept[:-1] = (who[None, :, :] & ~sub_mask[:, None, :]).any(axis=2)
        kept[-1] = True
        n_rel = kept.sum(axis=1).astype(float)
        per_run = np.zeros((len(subsets) + 1, n_r))
        if rr.size:
            kk = kept[:, didx]
            starts = np.flatnonzero(np.r_[True, run[1:] != run[:-1]])
            cum = np.cumsum(kk, axis=1)
            seg_id = np.cumsum(np.r_[False, run[1:] != run[:-1]])
            base = np.where(starts > 0, cum[:, np.maximum(starts - 1, 0)], 0)
            prec = (cum - base[:, seg_id]) / (rank + 1.0)
            per_run[:, run[starts]] = np.add.reduceat(np.where(kk, prec, 0.0), starts, axis=1)
        with np.errstate(divide="ignore", invalid="ignore"):
            vals = np.where(n_rel[:, None] > 0, per_run / n_rel[:, None], np.nan)
        ap[t] = vals[:-1]
        full[:, t] = vals[-1]
    return subsets, ap, full


def random_archive(seed: int) -> tuple[CodedArchive, np.ndarray]:
    """3-8 sites of 1-3 runs, 1-4 topics, 40 documents; runs retrieve 0-20 of them (some
    runs nothing for a topic), qrels judge some as 0, 1 or 2 (some topics none relevant)."""
    rng = np.random.default_rng(seed)
    m = int(rng.integers(3, 9))
    site = np.concatenate([np.full(int(rng.integers(1, 4)), s) for s in range(m)])
    n_r, n_t, n_d = site.size, int(rng.integers(1, 5)), 40
    cols: dict[str, list] = {"run": [], "topic": [], "doc": [], "rank": []}
    for r in range(n_r):
        for t in range(n_t):
            n = int(rng.integers(0, 21))
            cols["run"] += [r] * n
            cols["topic"] += [t] * n
            cols["doc"] += rng.permutation(n_d)[:n].tolist()
            cols["rank"] += list(range(n))
    q_topic, q_doc, q_rel = [], [], []
    for t in range(n_t):
        judged = rng.permutation(n_d)[: int(rng.integers(0, n_d))]
        p = rng.random()
        q_topic += [t] * judged.size
        q_doc += judged.tolist()
        q_rel += [int(x) for x in (rng.random(judged.size) < p) * rng.integers(1, 3, judged.size)]
    i64 = lambda v: np.asarray(v, dtype=np.int64)  # noqa: E731
    c = CodedArchive(
        "random",
        tuple(f"r{r}" for r in range(n_r)),
        tuple(f"s{s}" for s in site),
        ("automatic",) * n_r,
        tuple(f"s{s}" for s in range(m)),
        site,
        tuple(f"t{t}" for t in range(n_t)),
        np.array([f"d{d:02d}" for d in range(n_d)], dtype=object),
        i64(cols["run"]),
        i64(cols["topic"]),
        i64(cols["doc"]),
        i64(cols["rank"]),
        np.zeros(len(cols["run"])),
        i64(q_topic),
        i64(q_doc),
        np.asarray(q_rel, dtype=np.int32),
        f"random-{seed}",
    )
    return c, site


@pytest.mark.slow
@settings(max_examples=examples(300), deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(1, 8), st.sampled_from([2, 2, 1, 3]))
def test_pool_scores_equal_the_masks_of_every_subset(seed, depth, k):
    c, site = random_archive(seed)
    k = min(k, int(site.max()))
    subsets, ap, full = reference_pool_scores(c, site, k=k, depth=depth)
    ps = pool_scores(c, site, k=k, depth=depth)
    assert ps.subsets == subsets
    assert ps.ap.shape == ap.shape
    np.testing.assert_array_equal(np.isnan(ps.ap), np.isnan(ap))
    np.testing.assert_allclose(ps.ap, ap, rtol=0, atol=1e-12)
    np.testing.assert_array_equal(ps.full, full)
    # none held out and the full qrels: the same operations, so the same digits
    np.testing.assert_array_equal(ps.ap[:, 0], ap[:, 0])
    # a run left with no judged relevant document scores 0 exactly
    assert np.all(ps.ap[ap == 0] == 0)
