"""Every run's AP on every topic for every choice of held-out sites, from a run archive:
the pooling simulation of Carterette, Kanoulas, Pavlu and Fang (SIGIR 2010, Section 4.3)
computed once for all hold-out assignments.

For a topic that holds out the k sites S, the reduced qrels keep the judged documents in
the top ``depth`` of some run of a site not in S (unjudged = non-relevant), and every run
is scored with them (trec_eval's AP, ``-c``: a run without documents for the topic scores
0). Only the relevant documents matter to AP, and whether one is kept depends only on the
sites that retrieve it in their top ``depth``: S loses only the documents that sites of S
alone retrieve (with k = 2, those of one site of S or of both), so each run's AP under S is
its AP with nothing held out less the terms of the documents S loses (no mask of kept
documents per subset). A hold-out assignment then picks one column per topic
(:meth:`PoolScores.scores`), which makes hundreds of simulated assignments cost no more
than one. ``simulate_pooling`` in
:mod:`litaudit.analyses.agreement.input` does the same for one assignment through the
general evaluator; the test suite checks that both agree.
"""

from __future__ import annotations

import itertools
import weakref
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from litaudit.analyses.reuse.archive_ranges import RangedArchive
from litaudit.analyses.reuse.coded_archive import CodedArchive, find_sorted
from litaudit.errors import ParameterError


@dataclass(frozen=True)
class PoolScores:
    """AP per topic, held-out subset and run; subset 0 holds nothing out."""

    depth: int
    k: int
    n_sites: int
    subsets: tuple[tuple[int, ...], ...]  # index -> sorted site codes (index 0: ())
    ap: np.ndarray  # (topics, subsets, runs); NaN: no relevant left
    full: np.ndarray  # (runs, topics) AP with the full qrels

    def index(self, held: tuple[int, ...]) -> int:
        return self.subsets.index(tuple(sorted(held)))

    def scores(self, subset_of_topic: np.ndarray) -> np.ndarray:
        """runs x topics: topic t scored with the reduced qrels of its held-out subset."""
        t = np.arange(self.ap.shape[0])
        return self.ap[t, np.asarray(subset_of_topic)].T


def pool_scores(
    c, site_of_run, *, k: int, depth: int, progress: Callable[[int], None] | None = None
) -> PoolScores:
    """The table of :class:`PoolScores` for runs grouped into sites ``site_of_run``; ``c``
    a :class:`CodedArchive` or a :class:`~litaudit.analyses.reuse.archive_ranges.RangedArchive`
    (each topic's rows are all its table needs: read a range of topics at a time, the
    ranges' tables placed at their topics' positions; ``progress(1)`` after each range)."""
    out: list[PoolScores] = []

    def place(d: int, pos: np.ndarray, part: PoolScores) -> None:
        if not out:
            n_t = len(c.topic_names)
            ap = np.full((n_t, *part.ap.shape[1:]), np.nan)
            full = np.full((len(c.tags), n_t), np.nan)
            out.append(PoolScores(depth, k, part.n_sites, part.subsets, ap, full))
        out[0].ap[pos] = part.ap
        out[0].full[:, pos] = part.full

    pool_tables(c, site_of_run, k=k, depths=(depth,), each=place, progress=progress)
    return out[0]


def pool_tables(
    c,
    site_of_run,
    *,
    k: int,
    depths,
    each: Callable[[int, np.ndarray, PoolScores], None],
    progress: Callable[[int], None] | None = None,
) -> None:
    """The pool tables at every depth of ``depths`` in one pass over ``c`` (a coded or a
    ranged archive): ``each(depth, positions, table)`` with the table of a range's topics
    (their positions in ``c.topic_names``; the whole archive at once for a coded one).
    What does not depend on the depth (the relevant documents each run retrieves) is
    found once a range; ``progress(1)`` after each range."""

    site = np.asarray(site_of_run, dtype=np.int64)
    if site.size != len(c.tags):
        raise ParameterError("one site per run is needed")
    for depth in depths:
        if depth < 1:
            raise ParameterError(f"pool depth must be at least 1, got {depth}")
    m = int(site.max()) + 1
    if not 1 <= k < m:
        raise ParameterError(f"held-out (k) must be between 1 and the sites - 1 ({m - 1})")
    subsets = ((),) + tuple(itertools.combinations(range(m), k))
    sub_mask = np.zeros((len(subsets), m), dtype=bool)
    for n, s in enumerate(subsets):
        sub_mask[n, list(s)] = True
    supersets: dict[tuple[int, ...], np.ndarray] = {}
    if isinstance(c, RangedArchive):
        parts = c.parts(progress)
    else:
        parts = iter([(np.arange(len(c.topic_names)), c)])
    seen = np.zeros(len(c.topic_names), dtype=bool)
    for pos, part in parts:
        seen[pos] = True
        hits = _relevant_hits(part) if part is not c else _kept_hits(c)
        for depth in depths:
            ap, full = _range_table(part, hits, site, m, k, depth, sub_mask, supersets)
            each(depth, pos, PoolScores(depth, k, m, subsets, ap, full))
        del hits, part
    rest = np.flatnonzero(~seen)  # topics no range holds: no relevant document retrieved
    if rest.size or not seen.size:
        for depth in depths:
            ap = np.full((rest.size, len(subsets), len(c.tags)), np.nan)
            full = np.full((len(c.tags), rest.size), np.nan)
            each(depth, rest, PoolScores(depth, k, m, subsets, ap, full))


_HITS: dict[int, list[tuple[np.ndarray, np.ndarray, int]]] = {}


def _kept_hits(c: CodedArchive) -> list[tuple[np.ndarray, np.ndarray, int]]:
    """:func:`_relevant_hits` of an archive in memory, found once while it lives: they do
    not depend on the sites, the depth or k, and a calibration draws many groupings of
    the runs into sites of one archive (robust03: 0.05 s of CPU each time). Kept by the
    archive's identity, dropped when it is freed; its arrays are not written to."""
    key = id(c)
    hits = _HITS.get(key)
    if hits is None:
        hits = _HITS[key] = _relevant_hits(c)
        weakref.finalize(c, _HITS.pop, key, None)
    return hits


def _relevant_hits(c: CodedArchive) -> list[tuple[np.ndarray, np.ndarray, int]]:
    """Per topic: (rows retrieving a relevant document, in (run, rank) order; each one's
    index among the topic's relevant documents in code order; how many those are). One
    look-up of every row in the range's relevant (topic, doc) pairs."""
    n_t = len(c.topic_names)
    rel = (c.q_rel >= 1) & (c.q_topic >= 0)
    topic = np.asarray(c.topic, dtype=np.int64)
    doc = np.asarray(c.doc, dtype=np.int64)
    n_d = int(max(doc.max(initial=-1), np.max(c.q_doc, initial=-1))) + 1
    rel_keys = np.unique(np.asarray(c.q_topic[rel], dtype=np.int64) * n_d + c.q_doc[rel])
    key_bounds = np.searchsorted(rel_keys, np.arange(n_t + 1) * n_d)
    out = []
    if rel_keys.size:
        hit, pos = find_sorted(rel_keys, topic * n_d + doc, n_t * n_d)
        by_topic = np.argsort(topic[hit], kind="stable")  # keeps (run, rank) order
        hit, pos = hit[by_topic], pos[by_topic]
        bounds = np.searchsorted(topic[hit], np.arange(n_t + 1))
    for t in range(n_t):
        n_rel = int(key_bounds[t + 1] - key_bounds[t])
        if n_rel == 0:
            out.append((np.zeros(0, np.int64), np.zeros(0, np.int64), 0))
            continue
        sl = slice(bounds[t], bounds[t + 1])
        out.append((hit[sl], pos[sl] - key_bounds[t], n_rel))
    return out


def _range_table(c, hits, site, m: int, k: int, depth: int, sub_mask, supersets):
    """(ap, full) of a range's topics at one depth (see :class:`PoolScores`)."""
    n_s, n_t, n_r = sub_mask.shape[0], len(c.topic_names), len(c.tags)
    ap = np.full((n_t, n_s, n_r), np.nan)
    full = np.full((n_r, n_t), np.nan)
    for t, (rr, didx, n_rel_docs) in enumerate(hits):
        if n_rel_docs == 0:
            continue
        run, rank = c.run[rr], c.rank[rr]
        # sites retrieving each relevant document in their top `depth`
        who = np.zeros((n_rel_docs, m), dtype=bool)
        top = rank < depth
        who[didx[top], site[run[top]]] = True
        n_who = who.sum(axis=1)
        # none held out keeps what some site retrieves; the full qrels keep everything
        kept = np.stack([n_who > 0, np.ones(n_rel_docs, dtype=bool)])
        n_rel = kept.sum(axis=1).astype(float)
        sums = np.zeros((2, n_r))
        if rr.size:
            kk = kept[:, didx]  # (2, positions)
            new_run = np.r_[True, run[1:] != run[:-1]]
            starts = np.flatnonzero(new_run)
            seg_id = np.cumsum(new_run) - 1
            cum = np.cumsum(kk, axis=1)
            base = np.where(starts > 0, cum[:, np.maximum(starts - 1, 0)], 0)
            before = base[:, seg_id]
            prec = (cum - before) / (rank + 1.0)
            sums[:, run[starts]] = np.add.reduceat(np.where(kk, prec, 0.0), starts, axis=1)
        with np.errstate(divide="ignore", invalid="ignore"):
            vals = np.where(n_rel[:, None] > 0, sums / n_rel[:, None], np.nan)
        full[:, t] = vals[1]
        # held-out subset S loses the documents all of whose retrieving sites are in S
        lost_s, lost_d = _lost_pairs(who, n_who, k, sub_mask, supersets)
        n_rel_s = n_rel[0] - np.bincount(lost_s, minlength=n_s)
        kk0 = kk[0] if rr.size else None
        sums_s = _held_out_sums(lost_s, lost_d, didx, run, rank, kk0, sums[0], n_s)
        with np.errstate(divide="ignore", invalid="ignore"):
            ap[t] = np.where(n_rel_s[:, None] > 0, sums_s / n_rel_s[:, None], np.nan)
    return ap, full


def _lost_pairs(who, n_who, k: int, sub_mask, supersets) -> tuple[np.ndarray, np.ndarray]:
    """(subset, relevant document) pairs: the subset holds out every site retrieving the
    document in the top depth (documents retrieved by 1 to k sites; ``supersets`` caches
    each site set's subsets)."""
    vul = np.flatnonzero((n_who >= 1) & (n_who <= k))
    if vul.size == 0:
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
    sigs, inv = np.unique(who[vul], axis=0, return_inverse=True)
    inv = np.asarray(inv).reshape(-1)
    lost_s, lost_d = [], []
    for u in range(sigs.shape[0]):
        key = tuple(np.flatnonzero(sigs[u]).tolist())
        idx = supersets.get(key)
        if idx is None:
            idx = supersets[key] = np.flatnonzero(sub_mask[:, list(key)].all(axis=1))
        docs = vul[inv == u]
        lost_s.append(np.tile(idx, docs.size))
        lost_d.append(np.repeat(docs, idx.size))
    return np.concatenate(lost_s), np.concatenate(lost_d)


def _held_out_sums(lost_s, lost_d, didx, run, rank, kk0, sums0, n_s: int) -> np.ndarray:
    """subsets x runs: the sum of precisions at the relevant documents each subset keeps.

    In a run, with L the positions of the documents subset S loses, w = 1 / (1-based rank),
    and (none held out) c(i) the kept relevant positions at or above i and T(j) the sum of w
    over the kept positions at or below j, the sum drops by the sum over j in L of c(j) w(j)
    + T(j) - w(j) q(j), q(j) counting L's positions at or above j: a lost document takes
    away its own term and 1 / rank from every kept position below it, and T counts the
    positions of L, already taken away, once for each lost document at or above them. Runs
    without a lost document keep ``sums0`` as it is."""
    n_r = sums0.size
    out = np.broadcast_to(sums0, (n_s, n_r)).copy()
    if lost_s.size == 0 or kk0 is None:
        return out
    n_docs = int(max(didx.max(), lost_d.max())) + 1
    by_doc = np.argsort(didx, kind="stable")
    doc_bounds = np.searchsorted(didx[by_doc], np.arange(n_docs + 1))
    n_pos = np.diff(doc_bounds)[lost_d]
    s_e = np.repeat(lost_s, n_pos)
    first = np.repeat(doc_bounds[lost_d] - (np.cumsum(n_pos) - n_pos), n_pos)
    p_e = by_doc[first + np.arange(s_e.size)]
    if p_e.size == 0:
        return out
    # per run: c (kept relevant at or above) and T (sum of w kept at or below), exactly
    new_run = np.r_[True, run[1:] != run[:-1]]
    starts = np.flatnonzero(new_run)
    seg = np.cumsum(new_run) - 1
    j = np.arange(run.size) - starts[seg]
    w = 1.0 / (rank + 1.0)
    width = int(j.max()) + 1
    grid = np.zeros((starts.size, width))
    grid[seg, j] = np.where(kk0, w, 0.0)
    t_below = np.cumsum(grid[:, ::-1], axis=1)[:, ::-1][seg, j]
    cgrid = np.zeros((starts.size, width), dtype=np.int64)
    cgrid[seg, j] = kk0
    c_above = np.cumsum(cgrid, axis=1)[seg, j]
    e = c_above * w + t_below
    o = np.lexsort((p_e, s_e))
    s_o, p_o = s_e[o], p_e[o]
    r_o = run[p_o]
    new_grp = np.r_[True, (s_o[1:] != s_o[:-1]) | (r_o[1:] != r_o[:-1])]
    g_start = np.flatnonzero(new_grp)
    q = np.arange(s_o.size) - g_start[np.cumsum(new_grp) - 1] + 1
    flat = s_o * n_r + r_o
    delta = np.bincount(flat, weights=e[p_o] - w[p_o] * q, minlength=n_s * n_r)
    n_lost = np.bincount(flat, minlength=n_s * n_r).reshape(n_s, n_r)
    out -= delta.reshape(n_s, n_r)
    # a run left with no kept relevant document scores exactly 0
    n_kept = np.bincount(run, weights=kk0, minlength=n_r)
    out[(n_lost > 0) & (n_lost >= n_kept[None, :])] = 0.0
    return out
