"""The digest of a run archive's content, the input by which an oracle's answer on it is
kept across runs (tests/kept_oracle.py): what an oracle such as trec_eval is given of the
archive (each run's tag, topics, docnos and scores in their order, and the qrels), so a
kept answer is read back only for the same input, whatever our code made it from."""

from __future__ import annotations

import hashlib

import numpy as np


def archive_digest(runs, qrels) -> str:
    """sha256 of ``runs`` (tag, topic, docno, score of every row, in order) and ``qrels``
    (topic, docno, relevance): robust03's 1.5M rows in ~0.1 s."""
    h = hashlib.sha256()

    def text(values: np.ndarray) -> None:
        h.update(f"{len(values)}\0".encode())
        h.update("\0".join(values.tolist()).encode())

    for run in runs:
        h.update(f"run {run.tag}\0".encode())
        text(run.topic)
        text(run.docno)
        h.update(np.ascontiguousarray(run.score, dtype=np.float64).tobytes())
    h.update(b"qrels\0")
    text(qrels.topic)
    text(qrels.docno)
    h.update(np.ascontiguousarray(qrels.rel, dtype=np.int64).tobytes())
    return h.hexdigest()
