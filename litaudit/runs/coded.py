"""The evaluator's input and output (:mod:`litaudit.runs.evaluate`): runs and qrels as
integer codes over one docno and topic dictionary (:func:`encode`), the grid of per-topic
scores it returns (:class:`Evaluation`: ``scores[measure, run, topic]``), and how the
grids of parts join: runs cut in two halves for two threads (:func:`split_runs`, joined by
:func:`join_runs`) and measures evaluated per relevance level (:func:`join_measures`),
topics joined by name in trec_eval's order.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from litaudit.errors import NotFound
from litaudit.measures import parse_measure
from litaudit.runs.model import Qrels, Run, sort_topics
from litaudit.runs.order import codes_in_byte_order, in_trec_order, trec_order


@dataclass(frozen=True)
class Evaluation:
    """Per-topic scores of runs: ``scores[measure, run, topic]``."""

    measures: tuple[str, ...]  # canonical ir_measures names, e.g. ("AP", "P@10")
    runs: tuple[str, ...]  # run tags
    topics: tuple[str, ...]  # topics evaluated, decided as trec_eval decides
    scores: np.ndarray  # (len(measures), len(runs), len(topics)), NaN = not evaluated

    def _index(self, measure: str) -> int:
        name = str(parse_measure(measure))
        try:
            return self.measures.index(name)
        except ValueError:
            raise NotFound(
                f"measure {name!r} was not evaluated (have {', '.join(self.measures)})"
            ) from None

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
    run: np.ndarray  # int32 run index
    topic: np.ndarray  # int32 topic code
    doc: np.ndarray  # int32 or int64 docno code (byte order)
    score: np.ndarray  # float64


@dataclass(frozen=True)
class CodedQrels:
    topic: np.ndarray  # int32 topic code (same codes as CodedRuns.topic)
    doc: np.ndarray  # int32 or int64 docno code
    rel: np.ndarray  # int32 grade


def encode(runs: Sequence[Run], qrels: Qrels) -> tuple[CodedRuns, CodedQrels]:
    """Integer-code runs and qrels over a shared docno and topic dictionary."""
    n = [len(r) for r in runs]
    docs = np.concatenate([r.docno for r in runs] + [qrels.docno]) if runs else qrels.docno
    tops = np.concatenate([r.topic for r in runs] + [qrels.topic]) if runs else qrels.topic
    doc_codes, _ = codes_in_byte_order(docs)
    top_codes, top_names = codes_in_byte_order(tops)
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


def ranked(coded: CodedRuns) -> CodedRuns:
    """``coded`` with its rows in trec_eval order, runs in code order (each run's rows one
    block, each of its topics one block, ranked as trec_eval ranks them): the rows as
    given when they are so (a stored archive's), else sorted once, for a caller that
    evaluates and pools the same rows more than once."""
    run = coded.run
    key = run.astype(np.int64) * max(len(coded.topic_names), 1) + coded.topic
    with np.errstate(over="ignore"):  # beyond FLT_MAX: +-inf, as C's (float)
        score = coded.score.astype(np.float32)
    if not np.any(run[1:] < run[:-1]) and in_trec_order(key, score, coded.doc):
        return coded
    o = trec_order(key, coded.score, coded.doc)
    return replace(coded, run=run[o], topic=coded.topic[o], doc=coded.doc[o], score=coded.score[o])


@dataclass(frozen=True)
class Known:
    """Distinct text values in byte order (numpy str, to search) and a hash index of them
    (pandas, to find a value's position)."""

    text: np.ndarray
    index: Any  # pandas.Index

    @classmethod
    def of(cls, uniques: np.ndarray) -> Known | None:
        """``uniques`` (distinct, in byte order), or None when one is not text (then
        :func:`codes_in_byte_order` orders them as pandas does, which no merge follows)."""
        # start-up: pandas (as codes_in_byte_order)
        import pandas as pd

        text = _text(uniques)
        return None if text is None else cls(text, pd.Index(uniques, dtype=object))


@dataclass(frozen=True)
class EncodedQrels:
    """Qrels coded once for :func:`encode_against` (the claims of one collection, each with
    its run, share them): their distinct docnos and topics (None when not all text) and
    each judgment's codes into them."""

    qrels: Qrels
    docs: Known | None
    topics: Known | None
    doc: np.ndarray  # int64: each judgment's docno's position in ``docs``
    topic: np.ndarray  # int64: each judgment's topic's position in ``topics``
    n_topics: int  # distinct topics judged


def _text(values: np.ndarray) -> np.ndarray | None:
    """``values`` as numpy str, or None when one is not text."""
    return values.astype(str) if all(type(v) is str for v in values) else None


def encode_qrels(qrels: Qrels) -> EncodedQrels:
    """``qrels`` coded for :func:`encode_against`."""
    doc, docs = codes_in_byte_order(qrels.docno)
    topic, topics = codes_in_byte_order(qrels.topic)
    return EncodedQrels(qrels, Known.of(docs), Known.of(topics), doc, topic, len(topics))


def _merged(known: Known, values: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
    """``values`` coded over the union of their distinct values and ``known``: positions
    in byte order, the codes :func:`codes_in_byte_order` gives both at once. (codes of
    ``values``, codes of ``known``, the union in byte order); None when a value is not
    text. Only the values not known are sorted."""
    # start-up: pandas (as codes_in_byte_order)
    import pandas as pd

    codes, found = pd.factorize(values, sort=False)
    uniques = np.asarray(found, dtype=object)
    at = known.index.get_indexer(uniques)  # position in known, -1 when not there
    miss = np.flatnonzero(at < 0)
    new = _text(uniques[miss])
    if new is None:
        return None
    order = np.argsort(new, kind="stable")
    miss, new = miss[order], new[order]
    n_known = len(known.text)
    # a missing value's code (-1) stays -1: each array of codes ends with it
    known_code = np.append(np.arange(n_known) + np.searchsorted(new, known.text), -1)
    u_code = np.empty(len(uniques) + 1, dtype=np.int64)
    hit = at >= 0
    u_code[:-1][hit] = known_code[at[hit]]
    u_code[miss] = np.arange(len(new)) + np.searchsorted(known.text, new)
    u_code[-1] = -1
    union = np.empty(n_known + len(new), dtype=object)
    union[known_code[:-1]] = known.text
    union[u_code[miss]] = new
    return u_code[codes], known_code, union


def encode_against(runs: Sequence[Run], eq: EncodedQrels) -> tuple[CodedRuns, CodedQrels]:
    """:func:`encode` of ``runs`` and ``eq.qrels``, the same codes, with the qrels' docnos
    and topics sorted once in ``eq``: only the runs' own are sorted here, then merged."""
    docs = topics = None
    if runs and eq.docs is not None and eq.topics is not None:
        docs = _merged(eq.docs, np.concatenate([r.docno for r in runs]))
        topics = _merged(eq.topics, np.concatenate([r.topic for r in runs]))
    if docs is None or topics is None:
        return encode(runs, eq.qrels)
    (doc, q_doc, _), (top, q_top, names) = docs, topics
    coded = CodedRuns(
        tags=tuple(r.tag for r in runs),
        topic_names=tuple(str(t) for t in names),
        run=np.repeat(np.arange(len(runs), dtype=np.int32), [len(r) for r in runs]),
        topic=top.astype(np.int32),
        doc=doc,
        score=np.concatenate([r.score for r in runs]),
    )
    cq = CodedQrels(q_top[eq.topic].astype(np.int32), q_doc[eq.doc], eq.qrels.rel)
    return coded, cq


def split_runs(coded: CodedRuns) -> list[tuple[CodedRuns, np.ndarray]]:
    """Two halves of the runs, each (its rows as CodedRuns, its runs' codes in
    ``coded``), rows in their order. Rows stored run after run are cut at the run boundary
    nearest the middle, without a copy; otherwise each half is picked by a mask."""
    n_runs = len(coded.tags)
    run = coded.run
    n = len(run)
    b = n // 2
    ahead = np.flatnonzero(run[b:] != run[b - 1]) if n else np.zeros(0, np.int64)
    cut = b + int(ahead[0]) if len(ahead) else n
    first = np.bincount(run[:cut], minlength=n_runs) > 0
    if 0 < cut < n and not np.any(first & (np.bincount(run[cut:], minlength=n_runs) > 0)):
        pieces = [(slice(0, cut), np.flatnonzero(first)), (slice(cut, n), np.flatnonzero(~first))]
    else:  # runs interleaved: half of the run codes each, rows by mask
        codes = np.arange(n_runs)
        in_first = codes < n_runs // 2
        mask = in_first[run]
        pieces = [(mask, codes[in_first]), (~mask, codes[~in_first])]
    out = []
    for rows, codes in pieces:
        remap = np.full(n_runs, -1, dtype=np.int32)
        remap[codes] = np.arange(len(codes), dtype=np.int32)
        out.append(
            (
                CodedRuns(
                    tuple(coded.tags[c] for c in codes),
                    coded.topic_names,
                    remap[run[rows]],
                    coded.topic[rows],
                    coded.doc[rows],
                    coded.score[rows],
                ),
                codes,
            )
        )
    return out


def join_measures(names: list[str], parts: list[Evaluation]) -> Evaluation:
    """One Evaluation of ``names`` (in that order) from Evaluations of groups of them
    (one per relevance level); topics joined by name, in trec_eval's order."""
    topics = sort_topics(set().union(*[p.topics for p in parts]))
    col = {t: i for i, t in enumerate(topics)}
    scores = np.full((len(names), len(parts[0].runs), len(topics)), np.nan)
    for p in parts:
        rows = np.array([names.index(m) for m in p.measures], dtype=np.int64)
        cols = np.array([col[t] for t in p.topics], dtype=np.int64)
        scores[np.ix_(rows, np.arange(len(p.runs)), cols)] = p.scores
    return Evaluation(tuple(names), parts[0].runs, topics, scores)


def join_runs(
    tags: tuple[str, ...], codes: list[np.ndarray], parts: list[Evaluation]
) -> Evaluation:
    """One Evaluation of all ``tags`` from the Evaluations of groups of them (``codes``:
    each group's positions in ``tags``); topics joined by name, in trec_eval's order."""
    topics = sort_topics(set().union(*[p.topics for p in parts]))
    col = {t: i for i, t in enumerate(topics)}
    # a cell no group covers is a topic that group evaluated for none of its runs: NaN, as
    # in one pass (with ``complete`` every group has every qrels topic)
    scores = np.full((len(parts[0].measures), len(tags), len(topics)), np.nan)
    for p, c in zip(parts, codes, strict=True):
        cols = np.array([col[t] for t in p.topics], dtype=np.int64)
        scores[np.ix_(np.arange(len(p.measures)), c, cols)] = p.scores
    return Evaluation(parts[0].measures, tuple(tags), topics, scores)
