"""Exact integer codes for strings in byte (``strcmp``) order, without hashing strings.

trec_eval breaks score ties by docno with ``strcmp``, and an archive's docnos are coded
once on import. Hashing millions of short strings and then sorting the distinct ones is
the slow part of that; here each string is read instead as a few big-endian 64-bit words
(its bytes, zero-padded to a multiple of 8). Without NUL bytes in the strings, two
strings are equal exactly when their words are, and compare as their words compare
lexicographically, so:

- each word column is coded by hashing integers (:func:`coded_words`: Arrow's
  ``dictionary_encode``, per file on the reader threads, where a word's few thousand
  values fit in cache), or by sorting them when most are distinct (numeric docnos);
- :func:`byte_order_codes` merges the parts' small dictionaries and sorts them, giving
  per-word ranks in byte order, and folds the ranks of words 1..j, word by word, into
  one dense code that keeps the byte order (a bitmap over the product space when it is
  small, else an integer hash and a sort of the distinct keys).

The result is exact: no hash collision can merge two strings. Pure numpy/pyarrow: no
files, no database. Callers reject NUL bytes before (see :func:`words_of`).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from litaudit.runs import arrow_calls
from litaudit.runs.columns import from_numpy, string_buffers, to_numpy
from litaudit.runs.order import distinct

DENSE_MAX = 1 << 25  # product spaces up to this size are folded through a bitmap

# MASKS[k]: the k leading bytes of a big-endian word
_MASKS = np.array(
    [0] + [((1 << (8 * k)) - 1) << (64 - 8 * k) for k in range(1, 9)], dtype=np.uint64
)


def max_length(array) -> int:
    """The longest string's length in bytes (0 for an empty array)."""
    if not len(array):
        return 0
    offsets, _ = string_buffers(array)
    return int(np.max(np.diff(offsets)))


def words_of(array, n_words: int | None = None) -> list[np.ndarray] | None:
    """The strings of an Arrow string array (one chunk, no nulls) as ``n_words`` uint64
    columns (default: enough for the longest), or None when a string holds a NUL byte."""
    n = len(array)
    offsets, data = string_buffers(array)
    lo, hi = int(offsets[0]), int(offsets[-1])
    if np.any(data[lo:hi] == 0):
        return None
    length = np.diff(offsets)
    if n_words is None:
        n_words = (int(length.max()) + 7) // 8 if n else 0
    # every string read as unaligned big-endian 8-byte windows of a zero-padded copy
    pad = np.zeros(hi - lo + 8 * n_words + 8, dtype=np.uint8)
    pad[: hi - lo] = data[lo:hi]
    windows = np.ndarray((hi - lo + 8 * n_words,), dtype=">u8", buffer=pad, strides=(1,))
    start = offsets[:-1] - lo
    out = []
    for j in range(n_words):
        w = windows[start + 8 * j].astype(np.uint64)
        w &= _MASKS[np.clip(length - 8 * j, 0, 8)]
        out.append(w)
    return out


def _dictionary(values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(int32 indices, distinct uint64 values): through a sort when most values are
    distinct (see :func:`_mostly_distinct`), else Arrow's hash."""
    if _mostly_distinct(values):
        uniq, idx = np.unique(values, return_inverse=True)
        return idx.astype(np.int32), uniq
    enc = arrow_calls.dictionary_encode(from_numpy(values.view(np.int64)))
    return to_numpy(enc.indices), to_numpy(enc.dictionary).view(np.uint64)


SAMPLE = 4096  # values sampled to tell a mostly distinct column (see _mostly_distinct)


def _mostly_distinct(values: np.ndarray) -> bool:
    """Are most of a large column's values distinct (judged from an even sample)?

    Arrow's hash table then takes much more memory than numpy's sort and is slower; with
    few distinct values (a few thousand) the hash is faster and small (figures:
    docs/DEVELOPING.md, "Measurements behind the defaults")."""
    n = len(values)
    if n < 8 * SAMPLE:
        return False
    sample = values[:: n // SAMPLE]
    return len(distinct(sample)) * 2 > len(sample)


def _rank_codes(values: np.ndarray) -> tuple[np.ndarray, int]:
    """(int32 codes, n): dense codes of uint64 ``values`` that keep their order."""
    if _mostly_distinct(values):
        uniq, inverse = np.unique(values, return_inverse=True)
        return inverse.astype(np.int32), len(uniq)
    idx, uniq = _dictionary(values)
    rank = np.empty(len(uniq), dtype=np.int32)
    rank[np.argsort(uniq)] = np.arange(len(uniq), dtype=np.int32)
    return rank[idx], len(uniq)


def coded_words(array) -> list[tuple[np.ndarray, np.ndarray]] | None:
    """The strings of an Arrow string array as words (:func:`words_of`), each word column
    dictionary-encoded: a list of (indices, distinct values); None on a NUL byte."""
    words = words_of(array)
    return None if words is None else [_dictionary(w) for w in words]


_ZERO = np.zeros(1, dtype=np.uint64)


def byte_order_codes(
    parts: Sequence[list[tuple[np.ndarray, np.ndarray]]], sizes: Sequence[int], map_parts=None
) -> tuple[list[np.ndarray], int]:
    """(codes per part, n_distinct): int32 codes of the strings of all ``parts`` (each
    from :func:`coded_words`, with ``sizes`` strings), numbered 0.. in byte order.

    ``map_parts(f, range)`` runs the per-part steps (e.g. ``ThreadPoolExecutor.map``:
    numpy releases the GIL in them); only the merges of small dictionaries and of the
    bitmap of present pairs are global."""
    run = map_parts or map
    n = int(sum(sizes))
    n_words = max((len(p) for p in parts), default=0)
    idx = range(len(parts))
    if n == 0 or n_words == 0:
        return [np.zeros(k, dtype=np.int32) for k in sizes], int(n > 0)
    # per word: the parts' distinct values ranked together (a part whose strings are all
    # shorter has the word 0 on every row)
    ranks = []
    for j in range(n_words):
        values = [p[j][1] if j < len(p) else _ZERO for p in parts]
        starts = np.cumsum([0] + [len(v) for v in values])
        rank, n_rank = _rank_codes(np.concatenate(values))
        ranks.append(([rank[a:b] for a, b in zip(starts[:-1], starts[1:], strict=True)], n_rank))

    def word_rank(i: int, j: int) -> np.ndarray:
        r = ranks[j][0][i]
        return r[parts[i][j][0]] if j < len(parts[i]) else np.full(sizes[i], r[0])

    keys = list(run(lambda i: word_rank(i, 0), idx))
    n_key = ranks[0][1]
    for j in range(1, n_words):
        n_code = ranks[j][1]
        space = n_key * n_code

        # int32 keys while the product space fits the bitmap, int64 beyond it
        wide = np.int64 if space > DENSE_MAX else np.int32

        def combine(i: int, j=j, n_code=n_code, keys=keys, wide=wide) -> np.ndarray:
            k = keys[i].astype(wide)
            k *= n_code
            k += word_rank(i, j)
            return k

        combined = list(run(combine, idx))
        if space > DENSE_MAX:  # a big product space: hash the keys, sort the distinct
            flat, n_key = _rank_codes(np.concatenate(combined).astype(np.int64).view(np.uint64))
            bounds = np.cumsum([0] + list(sizes))
            keys = [flat[a:b] for a, b in zip(bounds[:-1], bounds[1:], strict=True)]
            continue
        # the pairs present, found in order through a bitmap (written by every part: all
        # write True), each numbered in a table written only where a pair is present
        seen = np.zeros(space, dtype=bool)

        def mark(i: int, seen=seen, combined=combined) -> None:
            seen[combined[i]] = True

        list(run(mark, idx))
        present = np.flatnonzero(seen)
        del seen
        table = np.empty(space, dtype=np.int32)
        table[present] = np.arange(len(present), dtype=np.int32)

        def look_up(i: int, table=table, combined=combined) -> np.ndarray:
            return table[combined[i]]

        keys = list(run(look_up, idx))
        n_key = len(present)
    return [k.astype(np.int32, copy=False) for k in keys], n_key


def row_per_code(codes: Sequence[np.ndarray], n_codes: int) -> np.ndarray:
    """Per code, a row that has it, numbering the rows of the ``codes`` parts one after
    the other (every code in 0..n_codes-1 must occur; rows with one code hold one
    string, so any of them will do)."""
    rows = np.empty(n_codes, dtype=np.int64)
    at = 0
    for c in codes:
        rows[c] = np.arange(at, at + len(c), dtype=np.int64)
        at += len(c)
    return rows


def has_duplicate_pairs(a: np.ndarray, b: np.ndarray, n_b: int) -> bool:
    """Is a pair (a[i], b[i]) there twice? (non-negative int codes, b < n_b; numpy's
    vectorised sort of the packed keys: faster here than hashing pairs that are nearly
    all distinct, whose table does not fit in cache)."""
    if len(a) < 2:
        return False
    key = a.astype(np.int64) * max(n_b, 1)
    key += b
    key.sort()
    return bool(np.any(key[1:] == key[:-1]))
