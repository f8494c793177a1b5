"""Runs coded against qrels coded once (:func:`litaudit.runs.coded.encode_against`): the
codes :func:`~litaudit.runs.coded.encode` gives runs and qrels coded together, whatever
the run holds that the qrels do not (and the reverse), and the evaluation they give."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from litaudit.runs.coded import CodedQrels, CodedRuns, encode, encode_against, encode_qrels
from litaudit.runs.evaluate import evaluate, evaluate_coded
from tests.typed import make_qrels, make_run

# byte order differs from case-folded and numeric order: "B" < "a", "10" < "9", "é" last
DOCS = ["a", "B", "ab", "b", "10", "9", "é", "d-1", "d-10", "d-2"]
TOPICS = ["1", "2", "10", "301", "x"]


def _same(a: CodedRuns | CodedQrels, b: CodedRuns | CodedQrels) -> None:
    assert type(a) is type(b)
    for name in a.__dataclass_fields__:
        x, y = getattr(a, name), getattr(b, name)
        if isinstance(x, np.ndarray):
            assert x.dtype == y.dtype and np.array_equal(x, y), name
        else:
            assert x == y, name


def test_the_evaluation_is_the_same_and_a_missing_docno_stays_missing():
    q = make_qrels(["1", "1", "2", "2"], ["b", "a", "c", "zz"], [1, 0, 2, 1])
    run = make_run("r", ["1", "1", "1", "2", "2"], ["a", "x", "b", None, "c"], [3, 2, 2, 1, 0.5])
    coded, cq = encode_against([run], encode_qrels(q))
    assert coded.doc[3] == -1  # None: pandas' missing value, as encode codes it
    _same(encode([run], q)[0], coded)
    want = evaluate([run], q, ["AP", "nDCG@10"])
    got = evaluate_coded(coded, cq, ["AP", "nDCG@10"])
    assert got.topics == want.topics and np.array_equal(got.scores, want.scores, equal_nan=True)


def test_values_that_are_not_text_are_coded_as_encode_codes_them():
    # integer topics: codes_in_byte_order's pandas order, which no merge follows
    q = make_qrels([2, 10, 10], ["a", "b", "c"], [1, 1, 0])
    run = make_run("r", [10, 2, 10], ["c", "a", "x"], [1.0, 0.5, 0.2])
    eq = encode_qrels(q)
    assert eq.topics is None and eq.docs is not None
    _same(encode([run], q)[0], encode_against([run], eq)[0])
    text_q = make_qrels(["2"], ["a"], [1])
    _same(encode([run], text_q)[0], encode_against([run], encode_qrels(text_q))[0])


@pytest.mark.parametrize("n_runs", [0, 2])
def test_no_run_or_several(n_runs):
    q = make_qrels(["1", "2"], ["a", "b"], [1, 1])
    rs = [make_run(f"r{i}", ["2", "1"], ["b", "z"], [1.0, 0.5]) for i in range(n_runs)]
    want, got = encode(rs, q), encode_against(rs, encode_qrels(q))
    _same(want[0], got[0])
    _same(want[1], got[1])


rows = st.tuples(st.sampled_from(TOPICS), st.sampled_from(DOCS))


@settings(max_examples=20, deadline=None)
@given(
    qrels=st.lists(
        st.tuples(rows, st.integers(-1, 2)), min_size=1, max_size=25, unique_by=lambda x: x[0]
    ),
    runs=st.lists(st.lists(rows, max_size=20, unique=True), min_size=1, max_size=3),
)
def test_codes_are_those_of_one_encoding(qrels, runs):
    q = make_qrels([t for (t, _), _ in qrels], [d for (_, d), _ in qrels], [r for _, r in qrels])
    rs = [
        make_run(f"r{i}", [t for t, _ in run], [d for _, d in run], np.linspace(1, 0, len(run)))
        for i, run in enumerate(runs)
    ]
    want, got = encode(rs, q), encode_against(rs, encode_qrels(q))
    _same(want[0], got[0])
    _same(want[1], got[1])
