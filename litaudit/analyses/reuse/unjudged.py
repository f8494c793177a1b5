"""The hold-out shift with measures that tolerate unjudged documents, on the same archive
and pools as the verdict's AP (issue 31, the next step's figures).

For a topic that holds out the k sites S, the reduced qrels keep the judged documents in
the top ``depth`` of some run of a site not in S (:mod:`~.holdout_pools`, Carterette et
al. 2010, Section 4.3); the documents they drop are *unjudged* (not non-relevant) for:

- ``bpref`` (Buckley and Voorhees, SIGIR 2004; trec_eval's m_bpref.c): with R judged
  relevant and N judged non-relevant documents, (1/R) times the sum over the relevant
  retrieved of 1 - min(n, R) / min(R, N), n the judged non-relevant ranked above it (1
  when n = 0);
- ``AP(judged_only=True)``, AP on condensed lists (Sakai, SIGIR 2007): the unjudged
  documents removed from the ranking, then AP (trec_eval ``-J``);
- ``Judged@k`` (MacAvaney et al. ECIR 2022): the share of the top k that is judged.

Each gives a table of scores per topic, held-out subset and run, and its shift is
:func:`litaudit.stats.holdout_shift.shift_of_sums` of it, as for AP (bpref and condensed
AP NaN where no relevant document is left). A run retrieving nothing for a topic scores 0.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from litaudit import defaults
from litaudit.analyses.reuse.archive_ranges import RangedArchive
from litaudit.stats.holdout_intervals import Bootstrap, Interval
from litaudit.stats.holdout_shift import shift_of_sums
from litaudit.stats.holdout_sums import TopicSums, topic_sums
from litaudit.stats.reuse_sites import with_new_site

BPREF = "bpref"
CONDENSED = "AP(judged_only=True)"
JUDGED_K = 10
JUDGED = f"Judged@{JUDGED_K}"
MEASURES = (BPREF, CONDENSED, JUDGED)


@dataclass(frozen=True)
class MeasureShift:
    """The hold-out shift of one measure at the deciding depth: these sites' relative
    shift (% of the measure's mean) with its interval over topics and its outcome, and a
    new site's interval (sites and topics as samples) and outcome, computed as the
    verdict's own (:func:`litaudit.stats.reuse_sites.with_new_site`: with a bootstrap the
    wider of the pigeonhole bootstrap-t and Hall's t, "reusable" only from
    ``defaults.REUSE_NEW_SITE_SITES`` sites) and how (``new_site_method``; None: two-way t,
    stored before issue 31's leftovers)."""

    measure: str
    depth: int
    mean_score: float
    ci: Interval
    outcome: str
    new_site_ci: Interval | None
    new_site_outcome: str | None
    new_site_method: str | None = None


def _topic_scores(rows, q_doc, q_rel, site, sub_keep, depth: int, n_r: int):
    """(bpref, condensed AP, Judged@k), each subsets x runs, of one topic (``rows``: the
    topic's ranked entries as doc, run and rank arrays). bpref and condensed AP depend
    only on the judged documents' order in each run, so each run's list is cut to its
    judged entries first (the top k apart, for Judged@k)."""
    rows_doc, rows_run, rows_rank = rows
    m = sub_keep.shape[1]
    order = np.argsort(q_doc, kind="stable")
    qd, qr = q_doc[order], q_rel[order] >= 1
    if qd.size == 0:
        nan = np.full((sub_keep.shape[0], n_r), np.nan)
        return nan, nan.copy(), np.zeros((sub_keep.shape[0], n_r))
    pos = np.searchsorted(qd, rows_doc)
    pos_c = np.minimum(pos, qd.size - 1)
    hit = (pos < qd.size) & (qd[pos_c] == rows_doc)
    who = np.zeros((qd.size, m), dtype=bool)
    top = hit & (rows_rank < depth)
    who[pos[top], site[rows_run[top]]] = True
    kept = _kept(who, sub_keep)  # subsets x judged
    r_s = (kept & qr).sum(axis=1).astype(float)
    n_ns = (kept & ~qr).sum(axis=1).astype(float)
    # Judged@k from the top k of every run
    t_k = hit & (rows_rank < JUDGED_K)
    judged = np.zeros((kept.shape[0], n_r))
    if t_k.any():
        cnt = kept[:, pos[t_k]].astype(float)  # subsets x entries
        np.add.at(judged.T, rows_run[t_k], cnt.T)
    judged /= JUDGED_K
    # each run's judged entries in rank order, packed left
    j_run, j_rank, j_pos = rows_run[hit], rows_rank[hit], pos[hit]
    o = np.lexsort((j_rank, j_run))
    j_run, j_pos = j_run[o], j_pos[o]
    start = np.searchsorted(j_run, np.arange(n_r))
    col = np.arange(j_run.size) - start[j_run]
    # nothing below a run's last relevant entry adds to bpref or condensed AP
    last = np.full(n_r, -1)
    r_ent = qr[j_pos]
    np.maximum.at(last, j_run[r_ent], col[r_ent])
    cut = col <= last[j_run]
    j_run, j_pos, col = j_run[cut], j_pos[cut], col[cut]
    width = int(col.max()) + 1 if col.size else 1
    jidx = np.full((n_r, width), -1, dtype=np.int64)
    jidx[j_run, col] = j_pos
    valid = jidx >= 0
    safe = np.where(valid, jidx, 0)
    n_s = kept.shape[0]
    # subset 0 (nothing held out) per run; every other subset keeps a part of its entries
    k0 = kept[0][safe] & valid
    rel0 = k0 & qr[safe]
    kept0 = np.cumsum(k0, axis=1)  # condensed rank
    non0 = np.cumsum(k0 & ~rel0, axis=1)  # judged non-relevant at or above
    # the entries a subset drops from subset 0's: (subset, run, position) keys, sorted
    kr, ke = np.nonzero(k0)
    kd = safe[kr, ke]
    vul = ~kept[:, kd].all(axis=0)  # entries some subset drops
    kr, ke, kd = kr[vul], ke[vul], kd[vul]
    ls, li = np.nonzero(~kept[:, kd])
    lkey = (ls * n_r + kr[li]) * width + ke[li]
    # sorted as made: np.nonzero walks in C order, (subset, then run and position)
    lnon = lkey[~qr[kd[li]]]
    # every subset at subset 0's relevant entries, with the dropped entries above them
    er, ee = np.nonzero(rel0)
    ed = safe[er, ee]
    on = kept[:, ed]  # subsets x entries: the relevant document kept
    sq, eq = np.nonzero(on)
    run_q = er[eq]
    group = (sq * n_r + run_q) * width
    q = group + ee[eq]
    # (q is sorted, so its groups come in runs: each group's start looked up once)
    g_first = np.flatnonzero(np.r_[True, group[1:] != group[:-1]]) if group.size else group
    g_of = np.cumsum(np.r_[False, group[1:] != group[:-1]]) if group.size else group
    starts = group[g_first]
    drop_all = _at_or_below(lkey, q) - np.searchsorted(lkey, starts)[g_of]
    drop_non = _at_or_below(lnon, q) - np.searchsorted(lnon, starts)[g_of]
    crank = (kept0[er, ee][eq] - drop_all).astype(float)
    above = (non0[er, ee][eq] - drop_non).astype(float)
    crel = crank - above  # relevant at or above
    r_e, d_e = r_s[sq], np.minimum(r_s, n_ns)[sq]
    with np.errstate(divide="ignore", invalid="ignore"):
        b_term = np.where(above > 0, 1.0 - np.minimum(above, r_e) / np.where(d_e > 0, d_e, 1), 1.0)
        flat = sq * n_r + run_q
        size = n_s * n_r
        bpref = np.bincount(flat, weights=b_term, minlength=size).reshape(-1, n_r) / r_s[:, None]
        cap = np.bincount(flat, weights=crel / crank, minlength=size).reshape(-1, n_r)
        cap = cap / r_s[:, None]
    no_rel = r_s == 0
    bpref[no_rel], cap[no_rel] = np.nan, np.nan
    return bpref, cap, judged


def _at_or_below(keys: np.ndarray, q: np.ndarray) -> np.ndarray:
    """For each of the sorted ``q``, how many of the sorted ``keys`` are at or below it:
    ``np.searchsorted(keys, q, side="right")``, found the other way round (each key's
    place among the q, counted up), since the q are the more numerous (robust03 at depth
    100: 4.9M q, 1.6M keys; 0.31 -> 0.1 s)."""
    at = np.bincount(np.searchsorted(q, keys), minlength=q.size + 1)
    return np.cumsum(at[: q.size])


def _kept(who: np.ndarray, sub_keep: np.ndarray) -> np.ndarray:
    """subsets x documents: does a site whose pool the subset counts retrieve the document
    (``who``: documents x sites; ``sub_keep``: subsets x sites)? With at most 64 sites,
    each document's sites and each subset's kept sites as the bits of one integer (a
    bitwise and per pair, 7x faster than numpy's integer matrix product, which has no
    BLAS)."""
    m = who.shape[1]
    if m > 64:
        return ((who.astype(np.int32) @ sub_keep.T.astype(np.int32)) > 0).T
    bit = np.left_shift(np.uint64(1), np.arange(m, dtype=np.uint64))
    doc_bits = np.bitwise_or.reduce(np.where(who, bit, np.uint64(0)), axis=1)
    keep_bits = np.bitwise_or.reduce(np.where(sub_keep, bit, np.uint64(0)), axis=1)
    return (keep_bits[:, None] & doc_bits[None, :]) != 0


def unjudged_tables(c, site_of_run, *, k: int, depth: int, progress=None) -> dict[str, np.ndarray]:
    """Per measure of :data:`MEASURES`, its table (topics x subsets x runs; subset 0 holds
    nothing out, the others as :func:`~.holdout_pools.pool_tables`) at ``depth``; ``c`` a
    coded or ranged archive."""

    site = np.asarray(site_of_run, dtype=np.int64)
    m = int(site.max()) + 1
    subsets = ((),) + tuple(itertools.combinations(range(m), k))
    sub_keep = np.ones((len(subsets), m), dtype=bool)  # the sites whose pools count
    for n, s in enumerate(subsets):
        sub_keep[n, list(s)] = False
    n_t, n_r = len(c.topic_names), len(c.tags)
    out = {name: np.full((n_t, len(subsets), n_r), np.nan) for name in MEASURES}
    parts = c.parts(progress) if isinstance(c, RangedArchive) else iter([(np.arange(n_t), c)])
    for pos, part in parts:
        topic = np.asarray(part.topic, dtype=np.int64)
        q_topic = np.asarray(part.q_topic, dtype=np.int64)
        by_t = np.argsort(topic, kind="stable")
        bounds = np.searchsorted(topic[by_t], np.arange(len(part.topic_names) + 1))
        q_by = np.argsort(q_topic, kind="stable")
        q_bounds = np.searchsorted(q_topic[q_by], np.arange(len(part.topic_names) + 1))
        for t in range(len(part.topic_names)):
            rows = by_t[bounds[t] : bounds[t + 1]]
            q = q_by[q_bounds[t] : q_bounds[t + 1]]
            scores = _topic_scores(
                (
                    np.asarray(part.doc)[rows],
                    np.asarray(part.run, dtype=np.int64)[rows],
                    np.asarray(part.rank, dtype=np.int64)[rows],
                ),
                np.asarray(part.q_doc)[q],
                np.asarray(part.q_rel)[q],
                site,
                sub_keep,
                depth,
                n_r,
            )
            for name, s in zip(MEASURES, scores, strict=True):
                out[name][pos[t]] = s
    return out


def unjudged_shifts(
    c,
    depth: int,
    *,
    margin_pct: float,
    alpha: float,
    bootstrap: Bootstrap | None,
    topics: np.ndarray | None = None,
    progress: Callable[[int], None] | None = None,
) -> tuple[MeasureShift, ...]:
    """The shift of every measure of :data:`MEASURES` at ``depth`` (module doc), on the
    ``topics`` positions (None: all), with the verdict's interval over topics
    (``bootstrap``) and a new site's interval and outcome as the verdict's AP has them
    (:func:`~litaudit.stats.reuse_sites.with_new_site`, with a bootstrap)."""
    site = np.asarray(c.participant_of_run, dtype=np.int64)
    tables = unjudged_tables(c, site, k=defaults.AGREEMENT_K, depth=depth, progress=progress)
    out = []
    for name, table in tables.items():
        n_s = table.shape[1]
        m = int(site.max()) + 1
        subsets = ((),) + tuple(itertools.combinations(range(m), defaults.AGREEMENT_K))
        sums: TopicSums = topic_sums(table, site, subsets)
        if topics is not None:
            sums = sums.take(topics)
        r = shift_of_sums(sums, site, n_s, margin_pct=margin_pct, alpha=alpha, bootstrap=bootstrap)
        if bootstrap is not None:
            r = with_new_site(r, sums, site, n_s, bootstrap, defaults.REUSE_NEW_SITE_SITES)
        out.append(
            MeasureShift(
                measure=name,
                depth=depth,
                mean_score=r.mean_score,
                ci=r.ci,
                outcome=r.outcome,
                new_site_ci=r.new_site_ci,
                new_site_outcome=r.new_site_outcome,
                new_site_method=r.new_site_method,
            )
        )
    return tuple(out)
