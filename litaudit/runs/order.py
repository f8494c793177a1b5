"""trec_eval's ranking order: inside a run and topic, scores descending as C floats, ties
by docno descending (strcmp), the rank column ignored (usnistgov/trec_eval
``form_res_rels.c``). Used by the importer, which stores each run so ordered, and by the
evaluator, which checks that order or sorts into it and counts positions inside each
run-and-topic block.
"""

from __future__ import annotations

import numpy as np


def codes_in_byte_order(values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(codes, uniques) with uniques in code-point order (= UTF-8 byte order = strcmp)."""
    codes = _arrow_codes(values)
    if codes is not None:
        return codes
    # start-up: pandas
    import pandas as pd

    # hashed unsorted, then only the distinct values sorted, as fixed-width code points
    # (compared in C; pandas' sort=True compares them as Python objects): 0.68 -> 0.47 s
    # for robust03's 1.5M docnos (219,498 distinct), the same codes
    codes, uniques = pd.factorize(values, sort=False)
    uniques = np.asarray(uniques, dtype=object)
    if not all(type(u) is str for u in uniques):  # not text: pandas' own order
        codes, uniques = pd.factorize(values, sort=True)
        return codes.astype(np.int64), np.asarray(uniques, dtype=object)
    order = np.argsort(uniques.astype(str), kind="stable")
    rank = np.empty(len(order) + 1, dtype=np.int64)
    rank[order] = np.arange(len(order))
    rank[-1] = -1  # pandas' code of a missing value stays -1
    return rank[codes], uniques[order]


def _arrow_codes(values: np.ndarray) -> tuple[np.ndarray, np.ndarray] | None:
    """:func:`codes_in_byte_order` of text without a missing value, hashed and sorted by
    Arrow (UTF-8 bytes, no Python hash of each value): robust03's 1.6M docnos 0.72 ->
    0.30 s, the same codes; None for anything else (numbers, bytes, None, unencodable
    text, more than one Arrow chunk)."""
    # start-up: pyarrow (the modules that rank runs load it; `litaudit --help` does not)
    import pyarrow as pa

    # start-up: pyarrow.compute (26-38 ms to import)
    import pyarrow.compute as pc

    try:
        text = pa.array(values)  # str values only: Arrow's string type, no missing value
    except (pa.ArrowException, UnicodeError, TypeError, ValueError):
        return None
    if not isinstance(text, pa.Array) or text.null_count or text.type != pa.string():
        return None
    enc = text.dictionary_encode()
    order = pc.sort_indices(enc.dictionary).to_numpy()
    rank = np.empty(len(order), dtype=np.int64)
    rank[order] = np.arange(len(order))
    uniques = enc.dictionary.take(pa.array(order)).to_numpy(zero_copy_only=False)
    return rank[enc.indices.to_numpy()], np.asarray(uniques, dtype=object)


def in_trec_order(key: np.ndarray, score: np.ndarray, doc: np.ndarray | None) -> bool:
    """Are the rows in trec_eval order: every key one contiguous block (blocks in any
    order), inside it scores descending, then docno codes descending (not checked when
    ``doc`` is None)?"""
    if len(key) < 2:
        return True
    same = key[1:] == key[:-1]
    if np.any(same & (score[1:] > score[:-1])):
        return False
    if doc is not None and np.any(same & (score[1:] == score[:-1]) & (doc[1:] >= doc[:-1])):
        return False
    block_keys = np.sort(key[np.r_[True, ~same]])
    return not np.any(block_keys[1:] == block_keys[:-1])


def distinct(values: np.ndarray) -> np.ndarray:
    """The distinct values, sorted: ``np.unique(values)`` for a 1-d array without NaN,
    which loads ``numpy.ma`` (8 ms of each command's start-up) to ask whether it was given
    a masked array."""
    s = np.sort(values, kind="stable")
    return s[np.r_[True, s[1:] != s[:-1]]] if len(s) else s


def descending_score_bits(score: np.ndarray) -> np.ndarray:
    """uint64 whose ascending order is ``score`` (float32) descending; -0.0 ties 0.0."""
    with np.errstate(over="ignore"):
        s = (np.asarray(score, dtype=np.float32) + np.float32(0.0)).view(np.uint32)
    asc = np.where(s & np.uint32(0x80000000), ~s, s | np.uint32(0x80000000))
    return (np.uint32(0xFFFFFFFF) - asc).astype(np.uint64)


def trec_order(
    key: np.ndarray, score: np.ndarray, doc: np.ndarray, *, stable: bool = False
) -> np.ndarray:
    """Row order by ``key`` ascending, float32 ``score`` descending, ``doc`` descending
    (trec_eval's ranking inside a run and topic): one sort of a packed 64-bit key when
    the three fit in 64 bits, else a lexsort. ``stable``: rows equal in all three keep
    their order (always a merge sort)."""
    if not len(key):
        return np.zeros(0, dtype=np.int64)
    key_bits = int(key.max()).bit_length()
    doc_max = int(doc.max())
    doc_bits = max(doc_max, 1).bit_length()
    if key.min() >= 0 and doc.min() >= 0 and key_bits + 32 + doc_bits <= 64:
        packed = key.astype(np.uint64) << np.uint64(32 + doc_bits)
        packed |= descending_score_bits(score) << np.uint64(doc_bits)
        packed |= (doc_max - doc).astype(np.uint64)
        # run files usually come ranked already but for ties: a merge sort then costs
        # little more than a pass, where quicksort would do the full n log n
        descents = np.count_nonzero(packed[1:] < packed[:-1])
        merge = stable or descents * 16 < len(packed)
        return np.argsort(packed, kind="stable" if merge else None)
    with np.errstate(over="ignore"):
        return np.lexsort((-doc, -score.astype(np.float32), key))


def position_in_group(group: np.ndarray) -> np.ndarray:
    """1-based position of each element among the equal, contiguous ``group`` values."""
    m = len(group)
    idx = np.arange(m)
    first = (
        np.maximum.accumulate(np.where(np.r_[True, group[1:] != group[:-1]], idx, 0)) if m else idx
    )
    return idx - first + 1


def group_cumsum(x: np.ndarray, group: np.ndarray) -> np.ndarray:
    """Inclusive cumulative sum of ``x`` restarting where the contiguous ``group`` changes."""
    if not len(x):
        return x
    c = np.cumsum(x)
    start = np.r_[True, group[1:] != group[:-1]]
    base = np.maximum.accumulate(np.where(start, np.arange(len(x)), 0))
    return c - (c[base] - x[base])
