"""Exact integer codes for strings in byte (``strcmp``) order, without hashing strings.

trec_eval breaks score ties by docno with ``strcmp``, and an archive's docnos are coded
once on import. Hashing millions of short strings and then sorting the distinct ones is
the slow part of that; here each string is read instead as a few big-endian 64-bit words
(its bytes, zero-padded to a multiple of 8). Without NUL bytes in the strings, two
strings are equal exactly when their words are, and compare as their words compare
lexicographically, so:

- each word column is coded by hashing integers (Arrow's ``dictionary_encode``, ~10 ns a
  row), and its few distinct values sorted, giving per-word ranks in byte order;
- the ranks of word 1..j are folded, word by word, into one dense code that keeps the
  byte order (a bitmap over the product space when it is small, else an integer hash
  and a sort of the distinct keys).

The result is exact: no hash collision can merge two strings. Pure numpy/pyarrow: no
files, no database. Callers reject NUL bytes before (see :func:`words_of`).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

DENSE_MAX = 1 << 25          # product spaces up to this size are folded through a bitmap

# MASKS[k]: the k leading bytes of a big-endian word
_MASKS = np.array([0] + [((1 << (8 * k)) - 1) << (64 - 8 * k) for k in range(1, 9)],
                  dtype=np.uint64)


def _buffers(array) -> tuple[np.ndarray, np.ndarray]:
    """(offsets as int64 of length n + 1, data as uint8) of an Arrow string array."""
    n = len(array)
    offsets = np.frombuffer(array.buffers()[1], dtype=np.int32, count=n + 1,
                            offset=array.offset * 4)
    data_buf = array.buffers()[2]
    data = np.frombuffer(data_buf, dtype=np.uint8) if data_buf is not None else \
        np.zeros(0, np.uint8)
    return offsets.astype(np.int64), data


def max_length(array) -> int:
    """The longest string's length in bytes (0 for an empty array)."""
    if not len(array):
        return 0
    offsets, _ = _buffers(array)
    return int(np.max(np.diff(offsets)))


def words_of(array, n_words: int | None = None) -> list[np.ndarray] | None:
    """The strings of an Arrow string array (one chunk, no nulls) as ``n_words`` uint64
    columns (default: enough for the longest), or None when a string holds a NUL byte."""
    n = len(array)
    offsets, data = _buffers(array)
    lo, hi = int(offsets[0]), int(offsets[-1])
    if np.any(data[lo:hi] == 0):
        return None
    length = np.diff(offsets)
    if n_words is None:
        n_words = (int(length.max()) + 7) // 8 if n else 0
    # every string read as unaligned big-endian 8-byte windows of a zero-padded copy
    pad = np.zeros(hi - lo + 8 * n_words + 8, dtype=np.uint8)
    pad[:hi - lo] = data[lo:hi]
    windows = np.ndarray((hi - lo + 8 * n_words,), dtype=">u8", buffer=pad, strides=(1,))
    start = offsets[:-1] - lo
    out = []
    for j in range(n_words):
        w = windows[start + 8 * j].astype(np.uint64)
        w &= _MASKS[np.clip(length - 8 * j, 0, 8)]
        out.append(w)
    return out


def _rank_codes(values: np.ndarray) -> tuple[np.ndarray, int]:
    """(codes, n): dense codes of uint64 ``values`` that keep their order."""
    import pyarrow as pa
    import pyarrow.compute as pc

    enc = pc.dictionary_encode(pa.Array.from_buffers(
        pa.int64(), len(values), [None, pa.py_buffer(np.ascontiguousarray(values))]))
    idx = np.frombuffer(enc.indices.buffers()[1], dtype=np.int32, count=len(values),
                        offset=enc.indices.offset * 4)
    d = enc.dictionary
    uniq = np.frombuffer(d.buffers()[1], dtype=np.uint64, count=len(d), offset=d.offset * 8)
    rank = np.empty(len(uniq), dtype=np.int64)
    rank[np.argsort(uniq)] = np.arange(len(uniq))
    return rank[idx], len(uniq)


def _fold(key: np.ndarray, n_key: int, code: np.ndarray, n_code: int) -> tuple[np.ndarray, int]:
    """Dense codes of the pairs (key, code), in the pairs' lexicographic order."""
    combined = key * n_code
    combined += code
    space = n_key * n_code
    if space <= DENSE_MAX:
        seen = np.zeros(space, dtype=bool)
        seen[combined] = True
        dense = np.cumsum(seen, dtype=np.int32)
        return (dense[combined] - 1).astype(np.int64), int(dense[-1])
    return _rank_codes(combined.view(np.uint64))


def byte_order_codes(words: Sequence[np.ndarray]) -> tuple[np.ndarray, int]:
    """(codes, n_distinct): int32 codes of the strings whose words are ``words`` (as from
    :func:`words_of`, all of one length), numbered 0.. in byte order of the strings."""
    if not words or not len(words[0]):
        return np.zeros(len(words[0]) if words else 0, dtype=np.int32), 0
    key, n_key = _rank_codes(words[0])
    for w in words[1:]:
        code, n_code = _rank_codes(w)
        key, n_key = _fold(key, n_key, code, n_code)
    return key.astype(np.int32), n_key


def row_per_code(codes: np.ndarray, n_codes: int) -> np.ndarray:
    """Per code, a row that has it (every code in 0..n_codes-1 must occur; rows with one
    code hold one string, so any of them will do)."""
    rows = np.empty(n_codes, dtype=np.int64)
    rows[codes] = np.arange(len(codes), dtype=np.int64)
    return rows


def has_duplicate_pairs(a: np.ndarray, b: np.ndarray, n_b: int) -> bool:
    """Is a pair (a[i], b[i]) there twice? (non-negative int codes, b < n_b; one integer
    hash pass, several times faster than sorting the packed keys)."""
    import pyarrow as pa
    import pyarrow.compute as pc

    if len(a) < 2:
        return False
    key = a.astype(np.int64) * max(n_b, 1)
    key += b
    distinct = pc.count_distinct(pa.Array.from_buffers(pa.int64(), len(key),
                                                       [None, pa.py_buffer(key)]))
    return distinct.as_py() != len(key)
