"""Byte-order string codes through 64-bit words (litaudit.runs.strcodes): exact against
Python's own ordering of the UTF-8 bytes (strcmp order, how trec_eval breaks ties)."""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from litaudit.runs import strcodes
from tests.conftest import examples
from tests.typed import some

# docnos: any text without NUL, with shared prefixes and lengths around the 8-byte words
_docno = st.one_of(
    st.text(
        st.characters(exclude_characters="\x00", exclude_categories=["Cs"]),
        min_size=1,
        max_size=30,
    ),
    st.builds(
        lambda p, k: p + str(k),
        st.sampled_from(["LA0710", "FBIS3-", "FT921-7", "clueweb09-en0000-00-"]),
        st.integers(0, 99999),
    ),
)


def reference(values: list[str]) -> tuple[np.ndarray, int]:
    uniq = sorted({v.encode() for v in values})
    index = {u: i for i, u in enumerate(uniq)}
    return np.array([index[v.encode()] for v in values], dtype=np.int32), len(uniq)


@pytest.mark.slow
@settings(max_examples=examples(200), deadline=None)
@given(st.lists(_docno, max_size=60), st.booleans(), st.booleans())
def test_codes_are_byte_order_ranks(values, hashed_fold, threaded):
    # coded in up to three parts, as the importer codes the qrels and run files
    cut = sorted({0, len(values) // 3, len(values) // 2, len(values)})
    chunks = [values[a:b] for a, b in zip(cut[:-1], cut[1:], strict=True)]
    parts = [some(strcodes.coded_words(pa.array(c, pa.string()))) for c in chunks]
    old = strcodes.DENSE_MAX
    strcodes.DENSE_MAX = 0 if hashed_fold else old  # both ways of folding words
    try:
        if threaded:  # as the importer runs it: per-part steps on a thread pool
            from concurrent.futures import ThreadPoolExecutor

            with ThreadPoolExecutor(max_workers=2) as pool:
                per_part, n = strcodes.byte_order_codes(parts, [len(c) for c in chunks], pool.map)
        else:
            per_part, n = strcodes.byte_order_codes(parts, [len(c) for c in chunks])
        codes = np.concatenate(per_part) if per_part else np.zeros(0, np.int32)
    finally:
        strcodes.DENSE_MAX = old
    ref, n_ref = reference(values)
    assert n == n_ref
    np.testing.assert_array_equal(codes, ref)
    if n:
        rows = strcodes.row_per_code([codes], n)
        assert [values[r].encode() for r in rows] == sorted({v.encode() for v in values})


def test_words_of_slices_and_nul():
    arr = pa.array(["zz", "abcdefgh", "abcdefghi", "a"]).slice(1, 2)  # offset into buffers
    w = some(strcodes.words_of(arr))
    assert len(w) == 2
    assert [int(x) for x in w[0]] == [int.from_bytes(b"abcdefgh", "big")] * 2
    assert [int(x) for x in w[1]] == [0, int.from_bytes(b"i" + b"\0" * 7, "big")]
    assert strcodes.words_of(pa.array(["ok", "a\x00b"])) is None
    assert strcodes.max_length(arr) == 9


@pytest.mark.parametrize(
    "a,b,dup",
    [
        ([1, 1, 2], [5, 6, 5], False),
        ([1, 2, 1], [5, 6, 5], True),
        ([], [], False),
        ([0], [0], False),
    ],
)
def test_duplicate_pairs(a, b, dup):
    assert strcodes.has_duplicate_pairs(np.array(a, np.int32), np.array(b, np.int32), 10) is dup


@settings(max_examples=examples(100), deadline=None)
@given(st.lists(st.text(max_size=6) | _docno, max_size=40), st.booleans())
@example(["\ud800", "a", "\ud800"], False)  # not UTF-8: pandas' path, the same order
@example([], False)
def test_codes_in_byte_order_are_pythons_order(values, with_none):
    # litaudit.runs.order.codes_in_byte_order: text hashed and sorted by Arrow, anything
    # else by pandas (here a None: code -1, as pandas gives a missing value)
    from litaudit.runs.order import codes_in_byte_order

    given_values = values + [None] if with_none else values
    codes, uniques = codes_in_byte_order(np.array(given_values, dtype=object))
    uniq = sorted(set(values))
    assert uniques.dtype == object and uniques.tolist() == uniq
    index = {u: i for i, u in enumerate(uniq)}
    assert codes.dtype == np.int64
    assert codes.tolist() == [index[v] for v in values] + ([-1] if with_none else [])
