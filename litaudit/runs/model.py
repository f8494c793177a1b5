"""TREC run archives in memory: qrels, runs and their metadata as numpy-backed dataclasses.

Strings are numpy object arrays (one Python ``str`` per row), scores float64 and
relevance grades int32. Nothing here reads files or the database.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from litaudit.runs.order import codes_in_byte_order, trec_order


def _str_array(values) -> np.ndarray:
    arr = np.asarray(values, dtype=object)
    if arr.ndim != 1:
        raise ValueError("expected a one-dimensional array")
    return arr


@dataclass(frozen=True)
class Qrels:
    """Relevance judgments, one row per line of a qrels file (``topic iter docno rel``)."""

    topic: np.ndarray  # str (object dtype)
    docno: np.ndarray  # str (object dtype)
    rel: np.ndarray  # int32 relevance grade (negative = in the pool but unjudged)

    def __post_init__(self):
        object.__setattr__(self, "topic", _str_array(self.topic))
        object.__setattr__(self, "docno", _str_array(self.docno))
        object.__setattr__(self, "rel", np.asarray(self.rel, dtype=np.int32))
        if not (len(self.topic) == len(self.docno) == len(self.rel)):
            raise ValueError("Qrels columns must have the same length")

    def __len__(self) -> int:
        return len(self.topic)

    def filter(self, mask: np.ndarray) -> Qrels:
        """The judgments where ``mask`` (boolean, one per row) is true."""
        mask = np.asarray(mask, dtype=bool)
        return Qrels(self.topic[mask], self.docno[mask], self.rel[mask])

    def topics(self) -> tuple[str, ...]:
        """Distinct topics in trec_eval's natural order (numeric when all are numbers)."""
        return sort_topics(set(self.topic.tolist()))


@dataclass(frozen=True)
class Run:
    """One run: ``tag`` and its rankings (file order unless :meth:`ranked` was called)."""

    tag: str
    topic: np.ndarray  # str
    docno: np.ndarray  # str
    score: np.ndarray  # float64

    def __post_init__(self):
        object.__setattr__(self, "topic", _str_array(self.topic))
        object.__setattr__(self, "docno", _str_array(self.docno))
        object.__setattr__(self, "score", np.asarray(self.score, dtype=np.float64))
        if not (len(self.topic) == len(self.docno) == len(self.score)):
            raise ValueError("Run columns must have the same length")

    def __len__(self) -> int:
        return len(self.topic)

    def order(self) -> np.ndarray:
        """Row order that trec_eval ranks by: topic (as text), score descending as a C
        float (float32: scores equal there are ties, as trec_eval and the stored archive
        see them), docno descending (strcmp)."""

        if len(self) == 0:
            return np.zeros(0, dtype=np.int64)
        # str order is code point order, which is UTF-8 byte order (strcmp)
        doc_code, _ = codes_in_byte_order(self.docno)
        topic_code, _ = codes_in_byte_order(self.topic)
        return trec_order(topic_code, self.score, doc_code)

    def ranked(self) -> Run:
        """This run sorted by topic, score descending, docno descending (trec_eval order)."""
        o = self.order()
        return Run(self.tag, self.topic[o], self.docno[o], self.score[o])

    def top(self, k: int) -> Run:
        """The first ``k`` documents of each topic, in trec_eval order."""
        if k < 1:
            raise ValueError("k must be at least 1")
        r = self.ranked()
        if len(r) == 0:
            return r
        start = np.r_[True, r.topic[1:] != r.topic[:-1]]
        group_start = np.maximum.accumulate(np.where(start, np.arange(len(r)), 0))
        keep = (np.arange(len(r)) - group_start) < k
        return Run(r.tag, r.topic[keep], r.docno[keep], r.score[keep])

    def topics(self) -> tuple[str, ...]:
        return sort_topics(set(self.topic.tolist()))


@dataclass(frozen=True)
class RunInfo:
    """Metadata of a run: the site that submitted it, its type, whether it was pooled."""

    tag: str
    participant: str | None
    run_type: str | None  # automatic | manual | None when unknown
    pooled: bool | None


@dataclass(frozen=True)
class Archive:
    """A collection's run archive: its qrels, runs and run metadata (aligned with runs)."""

    collection_id: str
    qrels: Qrels
    runs: tuple[Run, ...]
    info: tuple[RunInfo, ...]

    def __post_init__(self):
        if len(self.runs) != len(self.info):
            raise ValueError("Archive.info must be aligned with Archive.runs")

    @property
    def tags(self) -> tuple[str, ...]:
        return tuple(r.tag for r in self.runs)

    def run(self, tag: str) -> Run:
        for r in self.runs:
            if r.tag == tag:
                return r
        raise KeyError(tag)


def topic_key(topic: str):
    """Sort key: numeric topics by value, then the rest as strings."""
    try:
        return (0, int(topic), topic)
    except ValueError:
        return (1, 0, topic)


def sort_topics(topics) -> tuple[str, ...]:
    return tuple(sorted(topics, key=topic_key))
