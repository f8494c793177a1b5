"""Consistency of run rankings across sub-collections, with a randomization test.

Sanderson, Turpin, Zhang, Scholer, "Differences in Effectiveness Across Sub-collections",
CIKM 2012, Section 3: the documents are split into sub-collections (by source, domain or
type); per sub-collection the qrels and the runs (which keep their order) are restricted
to its documents and MAP is computed; the run rankings of every pair of sub-collections
are compared with Kendall's tau. Section 3.2: the documents are split at random into
sub-collections of the same sizes R times (1,000 in the paper), giving the distribution
of tau under "no sub-collection effect"; Tables 3-4 print, per pair, tau, the range of
the random taus and the p-value. Here p = (1 + #{tau_random <= tau}) / (1 + R), the
randomization p-value with the +1 correction (never 0; smallest 1/(1 + R)). A random
split that leaves one side without relevant documents has no tau; such splits are left
out of R (reported as ``random_valid``), which never happens on full TREC collections.

MAP of a sub-collection is computed from precomputed ranked lists by masking: for a run
and topic, the ranked documents keep their order, so a relevant document of
sub-collection c at rank i has precision (#relevant of c at ranks <= i) / (#documents of
c at ranks <= i), and AP_c = (sum of these) / R_c, R_c the relevant documents of c in the
qrels (trec_eval's AP with `-c` semantics: a run retrieving nothing of c scores 0; a topic
without relevant documents in c is not evaluated for c). Only the ranks up to the last
relevant retrieved document matter, so the lists are cut there, and each
list is split into blocks ending at its relevant documents: one bincount over the ranked
positions gives the documents of every sub-collection per block, and a cumulative sum
over the (far fewer) blocks gives the counts at every relevant rank, for all
sub-collections at once.
"""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import dataclass

import numpy as np

from litaudit import defaults
from litaudit.errors import ParameterError

DEFAULT_PERMUTATIONS = defaults.SUBCOLLECTION_PERMUTATIONS  # Sanderson et al. (2012), Sec. 3.2
_TIE = 1e-12  # taus equal up to rounding count as <= (ties favour p)
_BATCH_POSITIONS = 4_000_000  # ranked positions x splits evaluated per batch (memory bound)


def kendall_tau(x, y) -> np.ndarray:
    """Kendall's tau-b between the rankings given by scores x and y along the last axis.

    Broadcasts over leading axes (e.g. many random splits at once). NaN where one of the
    rankings is all ties or a score is NaN. Equal to scipy.stats.kendalltau (tau-b).
    """
    x = np.asarray(x, dtype=np.float64)
    y = np.asarray(y, dtype=np.float64)
    if x.shape[-1] != y.shape[-1]:
        raise ParameterError(f"rankings of different lengths: {x.shape[-1]} and {y.shape[-1]}")
    n = x.shape[-1]
    iu, ju = np.triu_indices(n, k=1)
    dx = np.sign(x[..., iu] - x[..., ju])
    dy = np.sign(y[..., iu] - y[..., ju])
    s = (dx * dy).sum(axis=-1)
    tx = (dx != 0).sum(axis=-1)
    ty = (dy != 0).sum(axis=-1)
    with np.errstate(divide="ignore", invalid="ignore"):
        tau = s / np.sqrt(tx.astype(np.float64) * ty)
    bad = (tx == 0) | (ty == 0) | np.isnan(x).any(axis=-1) | np.isnan(y).any(axis=-1)
    return np.where(bad, np.nan, tau)


@dataclass(frozen=True)
class RankedRelevance:
    """Ranked lists cut after their last relevant document, integer-coded and flat.

    Each list (run, topic) is split into blocks, each ending at a relevant document; the
    number of documents of sub-collection c at ranks <= i (i a relevant rank) is the sum of
    the per-block counts of c up to i's block. Built by :func:`ranked_relevance`.
    """

    n_runs: int
    n_topics: int
    n_docs: int
    seg_run: np.ndarray  # (M,) run of each (run, topic) list that retrieved a relevant doc
    seg_topic: np.ndarray  # (M,) its topic
    doc_index: np.ndarray  # (D,) original code of each document used; below, codes index it
    pos_doc: np.ndarray  # (N,) ranked documents of all cut lists, concatenated
    pos_key: np.ndarray  # (N,) block of each position = its next relevant position's index
    rel_doc: np.ndarray  # (Q,) relevant retrieved documents, in list and rank order
    rel_seg: np.ndarray  # (Q,) their list
    rel_first: np.ndarray  # (M,) index in rel_doc of each list's first relevant document
    qrel_topic: np.ndarray  # (J,) the relevant (topic, doc) pairs of the qrels
    qrel_doc: np.ndarray  # (J,)


def ranked_relevance(
    run, topic, doc, qrel_topic, qrel_doc, *, n_runs: int, n_topics: int, n_docs: int
) -> RankedRelevance:
    """Precompute the ranked relevance of every (run, topic) list.

    ``run``, ``topic``, ``doc``: one entry per retrieved document, each list's entries in
    rank order (trec_eval order: score descending, docno descending); lists may be
    interleaved. ``qrel_topic``, ``qrel_doc``: the relevant pairs (binary relevance).
    Codes are 0..n-1.
    """
    run = np.asarray(run, dtype=np.int64)
    topic = np.asarray(topic, dtype=np.int64)
    doc = np.asarray(doc, dtype=np.int64)
    qt = np.asarray(qrel_topic, dtype=np.int64)
    qd = np.asarray(qrel_doc, dtype=np.int64)
    if not (run.shape == topic.shape == doc.shape) or run.ndim != 1:
        raise ParameterError("run, topic and doc must be 1-d arrays of one length")
    if qt.shape != qd.shape or qt.ndim != 1:
        raise ParameterError("qrel_topic and qrel_doc must be 1-d arrays of one length")
    for name, a, n in (
        ("run", run, n_runs),
        ("topic", topic, n_topics),
        ("doc", doc, n_docs),
        ("qrel_topic", qt, n_topics),
        ("qrel_doc", qd, n_docs),
    ):
        if a.size and (a.min() < 0 or a.max() >= n):
            raise ParameterError(f"{name} codes must be in [0, {n})")
    order = np.argsort(run * n_topics + topic, kind="stable")
    run, topic, doc = run[order], topic[order], doc[order]
    rel_keys = np.unique(qt * n_docs + qd)
    key = topic * n_docs + doc
    if rel_keys.size:
        pos = np.minimum(np.searchsorted(rel_keys, key), rel_keys.size - 1)
        is_rel = rel_keys[pos] == key
    else:
        is_rel = np.zeros(key.size, dtype=bool)
    # a position belongs to the block of the first relevant position at or after it in its
    # list; positions after a list's last relevant document belong to none and are dropped
    seg_key = run * n_topics + topic
    rel_idx = np.flatnonzero(is_rel)
    nxt = np.full(key.size + 1, -1, dtype=np.int64)
    nxt[rel_idx] = np.arange(rel_idx.size)
    nxt = np.minimum.accumulate(np.where(nxt[::-1] < 0, np.iinfo(np.int64).max, nxt[::-1]))[::-1][
        :-1
    ]
    has_next = nxt < rel_idx.size
    nxt_c = np.minimum(nxt, max(rel_idx.size - 1, 0))
    keep = has_next & (rel_idx.size > 0)
    if rel_idx.size:
        keep &= seg_key[rel_idx[nxt_c]] == seg_key
    rel_seg_key = seg_key[rel_idx]
    seg_keys, rel_seg = np.unique(rel_seg_key, return_inverse=True)
    rel_first = np.searchsorted(rel_seg, np.arange(seg_keys.size))
    # Only block membership matters, not the order of positions: order them by topic and
    # number the documents in that order, so that a split's labels are read from a small,
    # cache-resident window per topic (the labels are re-indexed once per split).
    p_doc, p_key, p_topic = doc[keep], nxt[keep], topic[keep]
    by_topic = np.argsort(p_topic, kind="stable")
    p_doc, p_key = p_doc[by_topic], p_key[by_topic]
    used = np.concatenate([p_doc, doc[rel_idx], qd])
    _, first = np.unique(used, return_index=True)
    doc_index = used[np.sort(first)]  # original code of each new doc code
    new_code = np.full(n_docs, -1, dtype=np.int64)
    new_code[doc_index] = np.arange(doc_index.size)
    return RankedRelevance(
        n_runs=n_runs,
        n_topics=n_topics,
        n_docs=n_docs,
        seg_run=seg_keys // n_topics,
        seg_topic=seg_keys % n_topics,
        doc_index=doc_index,
        pos_doc=new_code[p_doc].astype(np.int32),
        pos_key=p_key,
        rel_doc=new_code[doc[rel_idx]],
        rel_seg=rel_seg.astype(np.int64),
        rel_first=rel_first,
        qrel_topic=qt,
        qrel_doc=new_code[qd],
    )


def _at_own_label(per_block: np.ndarray, rl: np.ndarray, prep: RankedRelevance) -> np.ndarray:
    """For each relevant position q: the sum of ``per_block[:, rl[:, q], j]`` over the blocks
    j <= q of q's list (a cumulative sum restarted at each list, read at q's own label)."""
    b, c1, q_n = per_block.shape
    flat = np.cumsum(per_block, axis=2, dtype=np.int32).reshape(b, c1 * q_n)
    row = rl * q_n
    at = np.take_along_axis(flat, row + np.arange(q_n), axis=1)
    before = prep.rel_first[prep.rel_seg] - 1  # -1: list starts at 0
    base = np.take_along_axis(flat, row + np.maximum(before, 0), axis=1)
    return at - np.where(before >= 0, base, 0)


def subcollection_map(
    prep: RankedRelevance, labels, n_labels: int
) -> tuple[np.ndarray, np.ndarray]:
    """MAP of every run on every sub-collection, for a batch of labellings of the documents.

    ``labels``: (B, n_docs) ints, the sub-collection 0..n_labels-1 of each document, or -1
    for a document in none. Returns (MAP of shape (B, n_labels, n_runs), topics evaluated
    of shape (B, n_labels)); MAP is NaN for a sub-collection without a relevant document.
    """
    labels = np.asarray(labels)
    if labels.ndim == 1:
        labels = labels[None, :]
    if labels.shape[1] != prep.n_docs:
        raise ParameterError(f"labels must have {prep.n_docs} columns, got {labels.shape[1]}")
    if labels.size and (labels.min() < -1 or labels.max() >= n_labels):
        raise ParameterError(f"labels must be in [-1, {n_labels})")
    labels = labels[:, prep.doc_index]  # the documents used, in their order
    b = labels.shape[0]
    m, t_n, q_n = prep.seg_run.size, prep.n_topics, prep.rel_doc.size
    c1 = n_labels + 1  # label + 1; 0 = no sub-collection
    lab1 = (labels + 1).astype(np.int8 if n_labels < 127 else np.int32)
    # documents of each label per block: one bincount over the ranked positions per split
    counts = np.empty((b, c1, q_n), dtype=np.int32)
    for i in range(b):
        offset = lab1[i].astype(np.intp) * q_n  # (label + 1) * Q for every document
        counts[i] = np.bincount(prep.pos_key + offset[prep.pos_doc], minlength=c1 * q_n).reshape(
            c1, q_n
        )
    rl = lab1[:, prep.rel_doc].astype(np.intp)  # (B, Q)
    den = _at_own_label(counts, rl, prep)  # documents of q's label at ranks <= q's rank
    onehot = np.zeros((b, c1, q_n), dtype=np.int32)
    np.put_along_axis(onehot, rl[:, None, :], 1, axis=1)
    num = _at_own_label(onehot, rl, prep)  # relevant documents of q's label up to q
    valid = rl > 0
    prec = np.where(valid, num / np.maximum(den, 1), 0.0)
    # sum of precisions per (split, list, label)
    idx = (np.arange(b)[:, None] * m + prep.rel_seg[None, :]) * n_labels + np.maximum(rl - 1, 0)
    sums = np.bincount(idx[valid], weights=prec[valid], minlength=b * m * n_labels).reshape(
        b, m, n_labels
    )
    # relevant documents per (split, topic, label)
    q_lab = labels[:, prep.qrel_doc].astype(np.int64)
    q_ok = q_lab >= 0
    q_idx = (np.arange(b)[:, None] * t_n + prep.qrel_topic[None, :]) * n_labels + q_lab
    n_rel = np.bincount(q_idx[q_ok], minlength=b * t_n * n_labels).reshape(b, t_n, n_labels)
    n_top = (n_rel > 0).sum(axis=1)  # (B, C)
    r_seg = n_rel[:, prep.seg_topic, :]  # (B, M, C)
    ap = np.where(r_seg > 0, sums / np.maximum(r_seg, 1), 0.0)
    per_run = np.zeros((m, prep.n_runs))
    per_run[np.arange(m), prep.seg_run] = 1.0
    total = np.einsum("bmc,mr->bcr", ap, per_run)
    with np.errstate(divide="ignore", invalid="ignore"):
        maps = np.where(n_top[:, :, None] > 0, total / n_top[:, :, None], np.nan)
    return maps, n_top


def split_seeds(rng: np.random.Generator, permutations: int) -> np.ndarray:
    """The seed of each random split, drawn from ``rng`` (split i uses seeds[i])."""
    return rng.integers(0, np.iinfo(np.int64).max, size=permutations)


def random_labels(labels: np.ndarray, seed) -> np.ndarray:
    """One random split: ``labels`` permuted over the documents (sizes kept)."""
    return np.random.default_rng(int(seed)).permutation(labels)


@dataclass(frozen=True)
class SubcollectionTest:
    """Sub-collection ranking consistency with its randomization test (Sanderson 2012)."""

    names: tuple[str, ...]  # sub-collections
    sizes: np.ndarray  # (C,) documents of each in the document universe
    n_unassigned: int  # documents in no sub-collection
    maps: np.ndarray  # (C, n_runs) MAP of each run on each sub-collection
    n_topics: np.ndarray  # (C,) topics with >= 1 relevant document in each
    pairs: tuple[tuple[int, int], ...]
    tau: np.ndarray  # (n_pairs,) Kendall's tau-b of the two rankings
    random_tau: np.ndarray  # (n_pairs, R) tau of the random splits of equal sizes
    random_valid: np.ndarray  # (n_pairs,) random splits whose tau is defined
    p_value: np.ndarray  # (n_pairs,) (1 + #{random <= tau}) / (1 + valid)
    permutations: int


def _check_test_inputs(
    prep: RankedRelevance, labels: np.ndarray, c_n: int, permutations: int, workers: int
) -> None:
    """The parameter checks of :func:`subcollection_test` (``c_n``: sub-collections)."""
    if c_n < 2:
        raise ParameterError(f"need at least 2 sub-collections, got {c_n}")
    if prep.n_runs < 2:
        raise ParameterError(f"need at least 2 runs to rank, got {prep.n_runs}")
    if permutations < 1:
        raise ParameterError(f"permutations must be >= 1, got {permutations}")
    if workers < 1:
        raise ParameterError(f"workers must be >= 1, got {workers}")
    if labels.shape != (prep.n_docs,):
        raise ParameterError(f"labels must have shape ({prep.n_docs},), got {labels.shape}")
    if labels.min() < -1 or labels.max() >= c_n:
        raise ParameterError(f"labels must be in [-1, {c_n})")


def subcollection_test(
    prep: RankedRelevance,
    labels,
    names,
    *,
    permutations: int = DEFAULT_PERMUTATIONS,
    rng: np.random.Generator,
    workers: int = 1,
    progress: Callable[[int], None] | None = None,
) -> SubcollectionTest:
    """Kendall's tau per pair of sub-collections and its randomization test.

    ``labels``: (n_docs,) sub-collection of every document of the universe (-1: none).
    Each random split permutes these labels over the universe, so every sub-collection
    keeps its size (Sanderson et al. 2012, Section 3.2); one split serves all pairs.
    Split i is drawn from its own generator seeded by the i-th integer drawn from ``rng``,
    so the result depends on ``rng`` only, not on batching or ``workers`` (threads).
    ``progress(k)`` is called (in the calling thread) each time k more splits are done.
    """
    labels = np.asarray(labels, dtype=np.int64)
    names = tuple(names)
    c_n = len(names)
    _check_test_inputs(prep, labels, c_n, permutations, workers)
    pairs = tuple((a, b) for a in range(c_n) for b in range(a + 1, c_n))
    pa = np.array([p[0] for p in pairs])
    pb = np.array([p[1] for p in pairs])
    maps, n_top = subcollection_map(prep, labels[None, :], c_n)
    tau = kendall_tau(maps[0, pa], maps[0, pb])
    seeds = split_seeds(rng, permutations)
    small = labels.astype(np.int8 if c_n < 127 else np.int32)
    rand = np.empty((len(pairs), permutations))

    def batch(lo: int, hi: int) -> tuple[int, int, np.ndarray]:
        split = np.stack([random_labels(small, s) for s in seeds[lo:hi]])
        rmaps, _ = subcollection_map(prep, split, c_n)
        return lo, hi, kendall_tau(rmaps[:, pa], rmaps[:, pb]).T

    size = max(1, min(permutations, _BATCH_POSITIONS // max(prep.pos_doc.size, 1)))
    bounds = [(lo, min(lo + size, permutations)) for lo in range(0, permutations, size)]
    if workers == 1:
        for lo, hi in bounds:
            _, _, r = batch(lo, hi)
            rand[:, lo:hi] = r
            if progress is not None:
                progress(hi - lo)
    else:
        with ThreadPoolExecutor(max_workers=workers) as pool:
            for fut in as_completed([pool.submit(batch, lo, hi) for lo, hi in bounds]):
                lo, hi, r = fut.result()
                rand[:, lo:hi] = r
                if progress is not None:
                    progress(hi - lo)
    valid = np.isfinite(rand).sum(axis=1)
    with np.errstate(invalid="ignore"):
        below = (rand <= tau[:, None] + _TIE).sum(axis=1)
    p = np.where(np.isnan(tau), np.nan, (1 + below) / (1 + valid))
    return SubcollectionTest(
        names=names,
        sizes=np.bincount(labels[labels >= 0], minlength=c_n),
        n_unassigned=int((labels < 0).sum()),
        maps=maps[0],
        n_topics=n_top[0],
        pairs=pairs,
        tau=tau,
        random_tau=rand,
        random_valid=valid,
        p_value=p,
        permutations=permutations,
    )
