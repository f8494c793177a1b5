"""Run files read in pieces (issue 15: an import's memory must not grow with one file):
pieces end with a topic, problems name the file's own lines, a file whose topics are not
together is read whole, and what is stored is what a whole-file import stores."""

from __future__ import annotations

import gzip
import hashlib
from typing import Any

import numpy as np
import pyarrow as pa
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from litaudit.errors import ValidationFailed
from litaudit.runs import strcodes
from litaudit.runs.archive import load_archive
from litaudit.runs.chunks import PieceReader
from litaudit.runs.ingest import Grouping, import_archive
from litaudit.runs.stored_eval import evaluate_stored
from tests.conftest import examples
from tests.typed import some

CID = "trec-robust-2003"
MEASURES = ["AP", "P@10", "Rprec", "nDCG@10", "Bpref"]
# small groups so that the test files come in pieces: a file over GROUP bytes is read in
# pieces of at least CHUNK bytes (about 8 lines), GROUP // CHUNK of them to a group
GROUP, CHUNK = 600, 300


def _run_lines(topics, depth=12, seed=0, tag="tagA"):
    """A run's lines (score ties included) for ``topics`` in this order, each ``depth`` deep."""
    rng = np.random.default_rng(seed)
    out = []
    for t in topics:
        docs = rng.choice(60, size=depth, replace=False)
        for i, d in enumerate(docs):
            out.append(f"{t} Q0 D{d:03d} {i + 1} {round(float(rng.random()), 1)} {tag}\n")
    return out


def _qrels(path, topics=range(1, 9)):
    rng = np.random.default_rng(1)
    path.write_text(
        "".join(
            f"{t} 0 D{d:03d} {int(rng.integers(0, 3))}\n"
            for t in topics
            for d in rng.choice(60, size=20, replace=False)
        )
    )
    return path


def _whole_and_pieces(tmp_path, paths, q, **kw):
    """The same files imported whole (one group) and in pieces, into two databases."""
    from litaudit.store.db import open_store
    from litaudit.store.refdata import load_reference_data

    stores = []
    whole_then_pieces: tuple[dict[str, Any], ...] = (
        {},
        {"grouping": Grouping(group_bytes=GROUP, chunk_bytes=CHUNK)},
    )
    for opts in whole_then_pieces:
        s = open_store(":memory:")
        load_reference_data(s.con)
        import_archive(s, CID, paths, qrels_path=q, **opts, **kw)
        stores.append(s)
    return stores


def _same_archive(a, b):
    for complete in (False, True):
        x = evaluate_stored(a.con, CID, MEASURES, complete=complete)
        y = evaluate_stored(b.con, CID, MEASURES, complete=complete)
        assert x.runs == y.runs and x.topics == y.topics
        np.testing.assert_array_equal(
            np.nan_to_num(x.scores, nan=-1), np.nan_to_num(y.scores, nan=-1)
        )
    for ra, rb in zip(load_archive(a.con, CID).runs, load_archive(b.con, CID).runs, strict=True):
        assert (ra.tag, list(ra.topic), list(ra.docno)) == (rb.tag, list(rb.topic), list(rb.docno))
        np.testing.assert_array_equal(ra.score, rb.score)
    runs = "SELECT tag, path, sha256, n_lines, n_skipped, n_topics FROM runs ORDER BY tag"
    assert a.con.execute(runs).fetchall() == b.con.execute(runs).fetchall()


def test_pieces_end_with_a_topic_and_hold_the_whole_file(tmp_path):
    # topic 3 is longer than a piece: its piece grows to hold all of it
    lines = _run_lines([5, 1, 3], depth=10) + _run_lines([3], depth=40, seed=2)[:30]
    lines += ["\n"] + _run_lines([2, 4], depth=10)
    text = "".join(lines).encode()
    for p in (tmp_path / "r.txt", tmp_path / "r.gz"):
        p.write_bytes(gzip.compress(text) if p.suffix == ".gz" else text)
        pieces = list(PieceReader(p, CHUNK))
        assert b"".join(x.data for x in pieces) == text and len(pieces) > 2
        assert [x.last for x in pieces] == [False] * (len(pieces) - 1) + [True]
        assert pieces[-1].sha == hashlib.sha256(p.read_bytes()).hexdigest()
        line = 1
        topics_seen: set[bytes] = set()
        for x in pieces:
            assert x.first_line == line
            line += x.data.count(b"\n")
            assert len(x.data) >= CHUNK or x.last
            topics = {ln.split()[0] for ln in x.data.splitlines() if ln.strip()}
            assert not topics & topics_seen  # every topic in one piece
            topics_seen |= topics


@pytest.mark.slow
def test_a_file_in_pieces_stores_what_a_whole_file_does(tmp_path):
    q = _qrels(tmp_path / "q.txt")
    a = tmp_path / "a.txt"
    a.write_text("".join(_run_lines([3, 1, 2, 8, 5, 4, 7, 6], seed=3)))
    b = tmp_path / "b.gz"
    b.write_bytes(gzip.compress("".join(_run_lines(range(1, 9), seed=4, tag="tagB")).encode()))
    small = tmp_path / "c.txt"  # a file within a group: read whole beside the pieces
    small.write_text("".join(_run_lines([1, 2], depth=3, seed=5, tag="tagC")))
    whole, pieces = _whole_and_pieces(tmp_path, [a, b, small], q)
    _same_archive(whole, pieces)
    # imported again: nothing changes (the pieces' files are recognised by their sha256)
    rep = import_archive(
        pieces, CID, [a, b, small], grouping=Grouping(group_bytes=GROUP, chunk_bytes=CHUNK)
    )
    assert rep.imported == () and sorted(rep.unchanged) == ["tagA", "tagB", "tagC"]


@pytest.mark.slow
def test_a_file_whose_topics_are_apart_is_read_whole(tmp_path, mem_store):
    q = _qrels(tmp_path / "q.txt")
    lines = _run_lines([1, 2, 3, 4, 5], seed=6)
    p = tmp_path / "apart.txt"
    # topic 1 comes back at the end (pieces later) with a document of its own: valid
    p.write_text("".join(lines) + "1 Q0 NEW 99 0.05 tagA\n")
    whole, pieces = _whole_and_pieces(tmp_path, [p], q)
    _same_archive(whole, pieces)
    # ... and a document twice in topic 1, the second time pieces later, is found there
    p.write_text("".join(lines) + lines[3])
    with pytest.raises(ValidationFailed) as exc:
        import_archive(
            mem_store,
            CID,
            [p],
            qrels_path=q,
            grouping=Grouping(group_bytes=GROUP, chunk_bytes=CHUNK),
        )
    doc = lines[3].split()[2]
    assert [str(x) for x in exc.value.problems] == [
        f"{p}:{len(lines) + 1}: document {doc} appears twice in topic 1"
    ]


def _bad_file(tmp_path, at: int, line: str, n_topics=8):
    lines = _run_lines(range(1, n_topics + 1), seed=8)
    lines[at - 1] = line
    p = tmp_path / "bad.txt"
    p.write_text("".join(lines))
    return p, lines


@pytest.mark.parametrize(
    "make, message",
    [
        (lambda ln: ln.replace(" tagA", " tagZ"), "run tag changes from 'tagA' to 'tagZ'"),
        (lambda ln: ln.rsplit(" ", 2)[0] + " x tagA\n", "score 'x' is not a number"),
        (lambda ln: ln.replace(" Q0 ", " "), "expected 6 columns"),
    ],
)
@pytest.mark.parametrize("at", [2, 50, 95])
def test_problems_in_later_pieces_name_the_files_lines(tmp_path, mem_store, at, make, message):
    lines = _run_lines(range(1, 9), seed=8)
    p, _ = _bad_file(tmp_path, at, make(lines[at - 1]))
    q = _qrels(tmp_path / "q.txt")
    with pytest.raises(ValidationFailed) as exc:
        import_archive(
            mem_store,
            CID,
            [p],
            qrels_path=q,
            grouping=Grouping(group_bytes=GROUP, chunk_bytes=CHUNK),
        )
    assert [(x.file, x.line) for x in exc.value.problems] == [(str(p), at)]
    assert message in exc.value.problems[0].message
    for t in ("runs", "run_rankings", "run_qrels", "run_docs", "run_topics"):
        assert mem_store.con.execute(f"SELECT count(*) FROM {t}").fetchall() == [(0,)]


def test_a_duplicate_in_a_later_piece_names_its_line_and_writes_nothing(tmp_path, mem_store):
    lines = _run_lines(range(1, 9), seed=8)  # as _bad_file writes them
    at = 90  # topic 8 (lines 85-96): its 6th line repeats its 1st document
    doc = lines[84].split()[2]
    p, _ = _bad_file(tmp_path, at, f"8 Q0 {doc} 6 0.4 tagA\n")
    q = _qrels(tmp_path / "q.txt")
    with pytest.raises(ValidationFailed) as exc:
        import_archive(
            mem_store,
            CID,
            [p],
            qrels_path=q,
            grouping=Grouping(group_bytes=GROUP, chunk_bytes=CHUNK),
        )
    assert [str(x) for x in exc.value.problems] == [
        f"{p}:{at}: document {doc} appears twice in topic 8"
    ]
    assert mem_store.con.execute("SELECT count(*) FROM run_rankings").fetchall() == [(0,)]


@pytest.mark.slow
def test_lenient_pieces_skip_and_count_their_bad_lines(tmp_path):
    p, _ = _bad_file(tmp_path, 70, "6 Q0 D001 1 nan-ish tagA\n")
    q = _qrels(tmp_path / "q.txt")
    whole, pieces = _whole_and_pieces(tmp_path, [p], q, lenient=True)
    _same_archive(whole, pieces)
    assert pieces.con.execute("SELECT n_lines, n_skipped FROM runs").fetchall() == [
        (95, 1)
    ]  # lines stored, skipped


def test_a_topic_missing_from_the_qrels_in_a_later_piece(tmp_path, mem_store):
    q = _qrels(tmp_path / "q.txt", topics=range(1, 8))  # no topic 8
    p = tmp_path / "r.txt"
    p.write_text("".join(_run_lines(range(1, 9), seed=11)))
    with pytest.raises(ValidationFailed) as exc:
        import_archive(
            mem_store,
            CID,
            [p],
            qrels_path=q,
            grouping=Grouping(group_bytes=GROUP, chunk_bytes=CHUNK),
        )
    assert [str(x) for x in exc.value.problems] == [f"{p}:85: topic 8 is not in the qrels"]


@settings(max_examples=examples(20), deadline=None)
@pytest.mark.slow
@given(
    st.lists(st.text("0123456789ab", min_size=1, max_size=12), min_size=1, max_size=40),
    st.integers(0, 3),
)
def test_byte_order_codes_of_mostly_distinct_words(strings, seed):
    # many distinct values take the sorting path of the word coding (over 8 samples'
    # worth: strcodes.SAMPLE made 512 here, so 5,000 values do what 40,000 do at its
    # 4,096); the codes must still be the strings' byte order
    from unittest import mock

    rng = np.random.default_rng(seed)
    tails = (strings * 5_000)[:5_000]
    extra = [f"{x:09d}{s}" for x, s in zip(rng.integers(0, 10**9, 5_000), tails, strict=True)]
    values = strings + extra
    words = some(strcodes.coded_words(pa.array(values, pa.string())))
    judged: list[bool] = []
    real = strcodes._mostly_distinct

    def recorded(v: np.ndarray) -> bool:
        judged.append(real(v))
        return judged[-1]

    with (
        mock.patch.object(strcodes, "SAMPLE", 512),
        mock.patch.object(strcodes, "_mostly_distinct", recorded),
    ):
        (codes,), n = strcodes.byte_order_codes([words], [len(values)])
    assert True in judged  # the sorting path taken
    uniq = sorted(set(v.encode() for v in values))
    assert n == len(uniq)
    rank = {v: i for i, v in enumerate(uniq)}
    assert codes.tolist() == [rank[v.encode()] for v in values]


@pytest.mark.slow
@pytest.mark.parametrize(
    "bad_lines, stored", [(range(24, 72), (48, 48, 4)), (range(40), (56, 40, 5))]
)
def test_lenient_pieces_without_a_valid_line(tmp_path, bad_lines, stored):
    # pieces here hold two topics (24 lines): topics 3-6 leave two pieces with no valid
    # line; the first 40 lines bad leave the first piece without one (the run's tag is
    # not known from it: the file is read whole)
    lines = _run_lines(range(1, 9), seed=12)
    for i in bad_lines:
        lines[i] = lines[i].replace(" Q0 ", " ")
    p = tmp_path / "r.txt"
    p.write_text("".join(lines))
    assert [x.first_line for x in PieceReader(p, CHUNK)] == [1, 25, 49, 73]
    whole, pieces = _whole_and_pieces(tmp_path, [p], _qrels(tmp_path / "q.txt"), lenient=True)
    _same_archive(whole, pieces)
    assert pieces.con.execute("SELECT n_lines, n_skipped, n_topics FROM runs").fetchall() == [
        stored
    ]


def test_problems_of_a_file_in_pieces_are_listed_as_for_a_whole_file(tmp_path, mem_store):
    from litaudit.runs.trec_parse import MAX_PROBLEMS

    lines = _run_lines(range(1, 9), seed=13)
    bad = list(range(3, 96, 3))  # 32 bad lines, in every piece
    for i in bad:
        lines[i - 1] = lines[i - 1].replace(" Q0 ", " ")
    p = tmp_path / "r.txt"
    p.write_text("".join(lines))
    q = _qrels(tmp_path / "q.txt")
    listed = []
    whole_then_pieces: tuple[dict[str, Any], ...] = (
        {},
        {"grouping": Grouping(group_bytes=GROUP, chunk_bytes=CHUNK)},
    )
    for opts in whole_then_pieces:
        with pytest.raises(ValidationFailed) as exc:
            import_archive(mem_store, CID, [p], qrels_path=q, **opts)
        listed.append([str(x) for x in exc.value.problems])
    assert listed[0] == listed[1]
    assert [x.split(":")[1] for x in listed[1][:MAX_PROBLEMS]] == [str(i) for i in bad[:20]]
    assert listed[1][MAX_PROBLEMS:] == [f"{p}: ... and {len(bad) - MAX_PROBLEMS} more problems"]
