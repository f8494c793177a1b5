"""Evaluating runs exactly as trec_eval 9 does, vectorised over every run and topic at once.

trec_eval semantics reproduced (see usnistgov/trec_eval ``form_res_rels.c`` and ``m_*.c``):
- each topic's documents are ranked by score descending, ties by docno descending
  (``strcmp``); scores are compared as C ``float`` (32 bits) as trec_eval stores them, so
  scores that differ only beyond float precision tie; the rank column is ignored;
- a document is relevant when its qrels grade is >= ``rel_level`` (``-l``, default 1);
  judged non-relevant when 0 <= grade < ``rel_level``; negative grades are in the pool but
  unjudged; documents absent from the qrels are unjudged (they count as non-relevant for
  every measure here except bpref, which skips them);
- a topic in a run but not in the qrels is not evaluated; a topic in the qrels but not in a
  run is not evaluated for that run (NaN here) unless ``complete`` (``-c``), when it scores 0;
- a topic with no relevant document scores 0 on every measure (nothing divides by zero);
- nDCG gains are the qrels grades themselves (> 0), the ideal ranking sorts them, and
  ``rel_level`` does not change them (as in trec_eval);
- P@k divides by k even when fewer than k documents were retrieved; R@k and AP divide by
  the number of relevant documents R; Rprec counts the relevant documents in the top R.

Measure names follow ``litaudit.measures`` (ir_measures syntax; trec_eval names accepted).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from litaudit.errors import NotFound, ParameterError
from litaudit.measures import MeasureName, parse_measure
from litaudit.runs.model import Qrels, Run, sort_topics

NONPOOL = -1     # a retrieved document that has no line in the qrels


@dataclass(frozen=True)
class Evaluation:
    """Per-topic scores of runs: ``scores[measure, run, topic]``."""

    measures: tuple[str, ...]        # canonical ir_measures names, e.g. ("AP", "P@10")
    runs: tuple[str, ...]            # run tags
    topics: tuple[str, ...]          # topics evaluated, decided as trec_eval decides
    scores: np.ndarray               # (len(measures), len(runs), len(topics)), NaN = not evaluated

    def _index(self, measure: str) -> int:
        name = str(parse_measure(measure))
        try:
            return self.measures.index(name)
        except ValueError:
            raise NotFound(f"measure {name!r} was not evaluated "
                           f"(have {', '.join(self.measures)})") from None

    def matrix(self, measure: str) -> np.ndarray:
        """(runs, topics) scores of one measure."""
        return self.scores[self._index(measure)]

    def mean(self, measure: str) -> np.ndarray:
        """Per run: the mean over the topics evaluated for that run (trec_eval's 'all')."""
        m = self.matrix(measure)
        n = np.sum(~np.isnan(m), axis=1)
        total = np.nansum(m, axis=1)
        with np.errstate(invalid="ignore", divide="ignore"):
            return np.where(n > 0, total / np.maximum(n, 1), np.nan)

    def topic_counts(self, measure: str | None = None) -> np.ndarray:
        """Per run: how many topics were evaluated (trec_eval's num_q)."""
        m = self.scores[0] if measure is None else self.matrix(measure)
        return np.sum(~np.isnan(m), axis=1)


@dataclass(frozen=True)
class CodedRuns:
    """Runs as integer codes: the evaluator's input (one row per retrieved document).

    ``doc`` codes must be ordered as the docnos are by ``strcmp`` (byte order), so that
    ties break on the code; ``topic`` codes index ``topic_names``.
    """

    tags: tuple[str, ...]
    topic_names: tuple[str, ...]
    run: np.ndarray      # int32 run index
    topic: np.ndarray    # int32 topic code
    doc: np.ndarray      # int64 docno code (byte order)
    score: np.ndarray    # float64


@dataclass(frozen=True)
class CodedQrels:
    topic: np.ndarray    # int32 topic code (same codes as CodedRuns.topic)
    doc: np.ndarray      # int64 docno code
    rel: np.ndarray      # int32 grade


def _factorize_sorted(values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(codes, uniques) with uniques in code-point order (= UTF-8 byte order = strcmp)."""
    import pandas as pd

    codes, uniques = pd.factorize(values, sort=True)
    return codes.astype(np.int64), np.asarray(uniques, dtype=object)


def encode(runs: Sequence[Run], qrels: Qrels) -> tuple[CodedRuns, CodedQrels]:
    """Integer-code runs and qrels over a shared docno and topic dictionary."""
    n = [len(r) for r in runs]
    docs = np.concatenate([r.docno for r in runs] + [qrels.docno]) if runs else qrels.docno
    tops = np.concatenate([r.topic for r in runs] + [qrels.topic]) if runs else qrels.topic
    doc_codes, _ = _factorize_sorted(docs)
    top_codes, top_names = _factorize_sorted(tops)
    total = sum(n)
    coded = CodedRuns(
        tags=tuple(r.tag for r in runs),
        topic_names=tuple(str(t) for t in top_names),
        run=np.repeat(np.arange(len(runs), dtype=np.int32), n),
        topic=top_codes[:total].astype(np.int32),
        doc=doc_codes[:total],
        score=np.concatenate([r.score for r in runs]) if runs else np.zeros(0),
    )
    cq = CodedQrels(top_codes[total:].astype(np.int32), doc_codes[total:], qrels.rel)
    return coded, cq


def evaluate(runs: Sequence[Run], qrels: Qrels, measures: Sequence[str], *, rel_level: int = 1,
             complete: bool = False) -> Evaluation:
    """Evaluate ``runs`` against ``qrels`` on ``measures`` exactly as trec_eval does.

    Raises ParameterError for a run with a document twice in one topic (trec_eval refuses
    such a run too) or two runs with the same tag.
    """
    tags = [r.tag for r in runs]
    if len(set(tags)) != len(tags):
        dup = sorted({t for t in tags if tags.count(t) > 1})
        raise ParameterError(f"two runs share the tag {dup[0]!r}")
    coded, cq = encode(runs, qrels)
    return evaluate_coded(coded, cq, measures, rel_level=rel_level, complete=complete,
                          check_duplicates=True)


def _parse_all(measures: Sequence[str]) -> list[MeasureName]:
    if not measures:
        raise ParameterError("no measure asked for")
    out: list[MeasureName] = []
    for text in measures:
        m = parse_measure(text)
        if m not in out:
            out.append(m)
    return out


def _group_cumsum(x: np.ndarray, starts: np.ndarray, group: np.ndarray) -> np.ndarray:
    """Inclusive cumulative sum of ``x`` restarting at each group start."""
    c = np.cumsum(x)
    before = np.concatenate(([0], c))[starts]
    return c - before[group]


def evaluate_coded(coded: CodedRuns, cq: CodedQrels, measures: Sequence[str], *,
                   rel_level: int = 1, complete: bool = False,
                   check_duplicates: bool = True) -> Evaluation:
    """The evaluator on integer-coded input (see :class:`CodedRuns`)."""
    if rel_level < 1:
        raise ParameterError(f"rel_level must be at least 1, got {rel_level}")
    names = _parse_all(measures)
    n_runs = len(coded.tags)
    n_top = len(coded.topic_names)

    # qrels per topic: R (relevant), N (judged non-relevant); sorted keys for look-ups
    q_topic = cq.topic.astype(np.int64)
    q_rel = cq.rel.astype(np.int64)
    in_qrels = np.bincount(q_topic, minlength=n_top) > 0
    R = np.bincount(q_topic, weights=q_rel >= rel_level, minlength=n_top)
    N = np.bincount(q_topic, weights=(q_rel >= 0) & (q_rel < rel_level), minlength=n_top)
    n_docs = int(max(coded.doc.max(initial=-1), cq.doc.max(initial=-1))) + 1
    q_key = q_topic * n_docs + cq.doc
    q_order = np.argsort(q_key, kind="stable")
    q_key = q_key[q_order]
    q_rel_sorted = q_rel[q_order]
    if len(q_key) > 1 and np.any(q_key[1:] == q_key[:-1]):
        i = int(np.flatnonzero(q_key[1:] == q_key[:-1])[0])
        raise ParameterError(f"the qrels judge a document twice in topic "
                             f"{coded.topic_names[int(q_key[i] // n_docs)]}")

    # retrieved rows of evaluated topics, in trec_eval order
    keep = in_qrels[coded.topic]
    run = coded.run[keep].astype(np.int64)
    topic = coded.topic[keep].astype(np.int64)
    doc = coded.doc[keep]
    # trec_eval keeps scores as C float (TEXT_RESULTS.sim): ties are decided at float32
    score = coded.score[keep].astype(np.float32)
    key = run * n_top + topic
    if not _in_trec_order(key, score, doc):
        o = np.lexsort((-doc, -score, key))
        key, run, topic, doc, score = key[o], run[o], topic[o], doc[o], score[o]
    n = len(key)
    if n:
        starts = np.flatnonzero(np.r_[True, key[1:] != key[:-1]])
    else:
        starts = np.zeros(0, dtype=np.int64)
    n_groups = len(starts)
    group = np.repeat(np.arange(n_groups), np.diff(np.r_[starts, n]))
    rank = np.arange(n) - starts[group] + 1
    g_run = run[starts]
    g_topic = topic[starts]

    if check_duplicates and n:
        dk = key * n_docs + doc
        dk.sort()
        if np.any(dk[1:] == dk[:-1]):
            i = int(np.flatnonzero(dk[1:] == dk[:-1])[0])
            r, t = divmod(int(dk[i] // n_docs), n_top)
            raise ParameterError(f"run {coded.tags[r]!r} retrieves a document twice "
                                 f"in topic {coded.topic_names[t]}")

    # relevance of each retrieved document
    r_key = topic * n_docs + doc
    pos = np.searchsorted(q_key, r_key)
    pos_c = np.minimum(pos, max(len(q_key) - 1, 0))
    found = (pos < len(q_key)) & (q_key[pos_c] == r_key) if len(q_key) else np.zeros(n, bool)
    rel = np.where(found, q_rel_sorted[pos_c] if len(q_key) else 0, NONPOOL)
    isrel = rel >= rel_level

    Rg = R[g_topic]
    safe_R = np.maximum(Rg, 1)
    cumrel = _group_cumsum(isrel.astype(np.int64), starts, group)

    def per_group(weights) -> np.ndarray:
        return np.bincount(group, weights=weights, minlength=n_groups)

    def over_R(total) -> np.ndarray:
        return np.where(Rg > 0, total / safe_R, 0.0)

    ideal_cache: dict[int | None, np.ndarray] = {}

    def ideal(k: int | None) -> np.ndarray:
        if k not in ideal_cache:
            ideal_cache[k] = _ideal_dcg(q_topic, q_rel, n_top, k)[g_topic]
        return ideal_cache[k]

    values = np.empty((len(names), n_groups))
    for mi, m in enumerate(names):
        k = m.cutoff
        within = rank <= k if k is not None else np.ones(n, bool)
        if m.family == "AP":
            values[mi] = over_R(per_group(np.where(isrel & within, cumrel / rank, 0.0)))
        elif m.family == "P":
            values[mi] = per_group(isrel & within) / k
        elif m.family == "R":
            values[mi] = over_R(per_group(isrel & within))
        elif m.family == "Rprec":
            values[mi] = over_R(per_group(isrel & (rank <= R[topic])))
        elif m.family == "RR":
            hit = np.flatnonzero(isrel & within)
            first = np.full(n_groups, 0.0)
            if len(hit):
                g_hit, idx = np.unique(group[hit], return_index=True)
                first[g_hit] = 1.0 / rank[hit[idx]]
            values[mi] = first
        elif m.family == "nDCG":
            gain = np.where((rel > 0) & within, rel, 0).astype(np.float64)
            dcg = per_group(gain / np.log2(rank + 1.0))
            idcg = ideal(k)
            values[mi] = np.where(idcg > 0, dcg / np.where(idcg > 0, idcg, 1.0), dcg)
        elif m.family == "Bpref":
            nonrel = (rel >= 0) & (rel < rel_level)
            before = _group_cumsum(nonrel.astype(np.int64), starts, group)
            Rr = R[topic]
            denom = np.minimum(N[topic], Rr)
            frac = np.where(before > 0,
                            1.0 - np.minimum(before, Rr) / np.maximum(denom, 1), 1.0)
            values[mi] = over_R(per_group(np.where(isrel, frac, 0.0)))
        else:  # pragma: no cover - the registry and this list move together
            raise NotFound(f"measure {m} is not implemented by the evaluator")

    # the (runs x topics) grid
    if complete:
        topic_codes = np.flatnonzero(in_qrels)
    else:
        topic_codes = np.unique(g_topic)
    names_t = [coded.topic_names[t] for t in topic_codes]
    ordered = sort_topics(names_t)
    col_of = np.full(n_top, -1, dtype=np.int64)
    index = {t: i for i, t in enumerate(ordered)}
    for code, name in zip(topic_codes, names_t, strict=True):
        col_of[code] = index[name]
    scores = np.full((len(names), n_runs, len(ordered)), 0.0 if complete else np.nan)
    if n_groups:
        scores[:, g_run, col_of[g_topic]] = values
    return Evaluation(tuple(str(m) for m in names), tuple(coded.tags), tuple(ordered), scores)


def _in_trec_order(key: np.ndarray, score: np.ndarray, doc: np.ndarray) -> bool:
    """Are the rows already sorted by key, score descending, doc descending?"""
    if len(key) < 2:
        return True
    dk = np.diff(key)
    if np.any(dk < 0):
        return False
    same = dk == 0
    ds = np.diff(score)
    if np.any(same & (ds > 0)):
        return False
    tie = same & (ds == 0)
    return not np.any(tie & (np.diff(doc) >= 0))


def _ideal_dcg(q_topic: np.ndarray, q_rel: np.ndarray, n_top: int, k: int | None) -> np.ndarray:
    """Per topic: the DCG of the ideal ranking of its positive grades (cut at k)."""
    pos = q_rel > 0
    t = q_topic[pos]
    g = q_rel[pos].astype(np.float64)
    if not len(t):
        return np.zeros(n_top)
    o = np.lexsort((-g, t))
    t, g = t[o], g[o]
    starts = np.flatnonzero(np.r_[True, t[1:] != t[:-1]])
    grp = np.repeat(np.arange(len(starts)), np.diff(np.r_[starts, len(t)]))
    rank = np.arange(len(t)) - starts[grp] + 1
    w = g / np.log2(rank + 1.0)
    if k is not None:
        w = np.where(rank <= k, w, 0.0)
    return np.bincount(t, weights=w, minlength=n_top)
