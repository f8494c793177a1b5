"""Reading run and qrels files: formats, and trec_eval-strict validation with file:line."""

from __future__ import annotations

import gzip

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from litaudit.errors import InputError, ValidationFailed
from litaudit.runs.pertopic import read_pertopic_csv, read_trec_eval_q
from litaudit.runs.trec_io import read_qrels, read_run, read_runs
from tests.conftest import examples
from tests.typed import some

GOOD = "1 Q0 d1 1 3.5 tagA\n1 Q0 d2 2 2.5 tagA\n2 Q0 d1 1 1e-3 tagA\n"


def write(tmp_path, name, text, gz=False):
    p = tmp_path / name
    if gz:
        p.write_bytes(gzip.compress(text.encode()))
    else:
        p.write_text(text)
    return p


@pytest.mark.parametrize(
    "text",
    [
        GOOD,
        GOOD.replace(" ", "\t"),
        "1\tQ0  d1 \t1 3.5\ttagA\r\n  1 Q0 d2 2 2.5 tagA\n\n2 Q0 d1 1 1e-3    tagA",  # mixed
    ],
)
def test_run_formats_give_the_same_run(tmp_path, text):
    for gz in (False, True):
        r = read_run(write(tmp_path, "r.gz" if gz else "r.txt", text, gz))
        assert r.tag == "tagA"
        assert list(r.topic) == ["1", "1", "2"]
        assert list(r.docno) == ["d1", "d2", "d1"]
        np.testing.assert_array_equal(r.score, [3.5, 2.5, 1e-3])


@pytest.mark.parametrize(
    "text,line,msg",
    [
        ("1 Q0 d1 1 3.5 t\n1 Q0 d2 2 t\n", 2, "expected 6 columns"),
        ("1 Q0 d1 x 3.5 t\n", 1, "rank 'x' is not an integer"),
        ("1 Q0 d1 1 3.5 t\n1 Q0 d2 2 high t\n", 2, "score 'high' is not a number"),
        ("1 Q0 d1 1 3.5 t\n1 Q0 d2 2 nan t\n", 2, "score 'nan' is not a number"),
        ("1 Q0 d1 1 3.5 t\n1 Q0 d1 2 2.5 t\n", 2, "document d1 appears twice in topic 1"),
        ("1 Q0 d1 1 3.5 t\n1 Q0 d2 2 2.5 u\n", 2, "run tag changes from 't' to 'u'"),
    ],
)
def test_run_problems_name_file_and_line(tmp_path, text, line, msg):
    for sep in (" ", "\t"):
        p = write(tmp_path, "bad.txt", text.replace(" ", sep))
        with pytest.raises(ValidationFailed) as exc:
            read_run(p)
        assert str(exc.value).startswith(f"{p}:{line}: {msg}")


def test_empty_run_file(tmp_path):
    p = write(tmp_path, "empty.txt", "\n  \n")
    with pytest.raises(InputError, match="empty run file"):
        read_run(p)


def test_topic_missing_from_qrels(tmp_path):
    q = read_qrels(write(tmp_path, "q.txt", "1 0 d1 1\n"))
    p = write(tmp_path, "r.txt", GOOD)
    with pytest.raises(ValidationFailed, match=r"r.txt:3: topic 2 is not in the qrels"):
        read_run(p, qrels=q)


def test_lenient_skips_and_counts(tmp_path):
    from litaudit.runs.trec_parse import parse_run_file

    p = write(tmp_path, "r.txt", GOOD + "3 Q0 d9 x 1 tagA\n1 Q0 d1 9 0.1 tagA\n")
    pr = parse_run_file(p, lenient=True)
    assert pr.skipped == 2 and len(pr.run) == 3


@pytest.mark.parametrize(
    "raw,msg",
    [
        (b"1 Q0 d\x001 2 0.5 tagA\n", "NUL byte in line"),
        (b"1 Q0 d\xff1 2 0.5 tagA\n", "not UTF-8 text"),
    ],
)
def test_lines_that_are_not_text(tmp_path, raw, msg):
    # named with their line when strict; skipped and counted (as lines read) when lenient
    p = tmp_path / "r.txt"
    p.write_bytes(GOOD.encode() + raw)
    with pytest.raises(ValidationFailed, match=f"r.txt:4: {msg}"):
        read_run(p)
    from litaudit.runs.trec_parse import parse_run_file

    pr = parse_run_file(p, lenient=True)
    assert (pr.lines, pr.skipped, len(pr.run)) == (4, 1, 3)
    q = tmp_path / "q.txt"
    q.write_bytes(b"1 0 d1 1\n" + raw.replace(b"Q0", b"0").replace(b" 2 0.5 tagA", b" 1"))
    with pytest.raises(ValidationFailed, match=f"q.txt:2: {msg}"):
        read_qrels(q)


def test_all_problems_of_all_files_collected(tmp_path):
    a = write(tmp_path, "a.txt", "1 Q0 d1 x 1 t\n1 Q0 d2 y 1 t\n")
    b = write(tmp_path, "b.txt", "1 Q0 d1 1 z t\n")
    with pytest.raises(ValidationFailed) as exc:
        read_runs([a, b])
    assert [(p.file, p.line) for p in exc.value.problems] == [(str(a), 1), (str(a), 2), (str(b), 1)]


def test_qrels_validation(tmp_path):
    q = read_qrels(write(tmp_path, "q.txt", "1 0 d1 1\n1\t0\td2 0\n2 0 d1 -1\n"))
    assert list(q.rel) == [1, 0, -1]
    with pytest.raises(ValidationFailed, match=r"q2.txt:2: document d1 is judged twice"):
        read_qrels(write(tmp_path, "q2.txt", "1 0 d1 1\n1 0 d1 0\n"))
    with pytest.raises(ValidationFailed, match=r"q3.txt:1: relevance 'r' is not an integer"):
        read_qrels(write(tmp_path, "q3.txt", "1 0 d1 r\n"))
    with pytest.raises(ValidationFailed, match=r"q4.txt:1: expected 4 columns"):
        read_qrels(write(tmp_path, "q4.txt", "1 0 d1\n"))


def test_pertopic_csv_and_trec_eval_q(tmp_path):
    m = read_pertopic_csv(write(tmp_path, "m.csv", "topic,s1,s2\n301,0.5,0.25\n302,0,1\n"))
    assert m.topics == ("301", "302") and m.runs == ("s1", "s2")
    np.testing.assert_array_equal(m.scores, [[0.5, 0.0], [0.25, 1.0]])
    m = read_pertopic_csv(write(tmp_path, "n.csv", "a,b\n0.1,0.2\n"))
    assert m.topics == ("1",)
    with pytest.raises(ValidationFailed, match=r"bad.csv:3: s2: 'x' is not a number"):
        read_pertopic_csv(write(tmp_path, "bad.csv", "topic,s1,s2\n1,0,0\n2,0,x\n"))
    q = write(tmp_path, "q.out", "runid all R1\nmap 1 0.5\nP_10 1 0.3\nmap 2 0.25\nmap all 0.375\n")
    m = read_trec_eval_q([q], "AP")
    assert m.runs == ("R1",) and m.topics == ("1", "2") and m.measure == "AP"
    np.testing.assert_array_equal(m.scores, [[0.5, 0.25]])


def test_pertopic_shared_adhoc7(shared_data):
    # shared/data/README.md: adhoc7_ap.csv reproduces the official TREC-7 MAPs,
    # mean 0.1992, sd 0.0806 over 103 runs (tolerance: 4 printed digits).
    m = read_pertopic_csv(shared_data / "pertopic" / "adhoc7_ap.csv")
    assert m.scores.shape == (103, 50)
    assert m.mean().mean() == pytest.approx(0.1992, abs=5e-5)
    assert m.mean().std(ddof=1) == pytest.approx(0.0806, abs=5e-5)


_tags = st.sampled_from(["t", "tagA", "xt", "t2", "é"])


@pytest.mark.slow
@settings(max_examples=examples(150), deadline=None)
@given(
    st.lists(
        st.tuples(
            st.sampled_from(["1", "2", "10"]),
            st.sampled_from(["d1", "d2", "LA1"]),
            st.sampled_from(["1", "2", "9999999999", "x"]),
            st.sampled_from(["3.5", "1e-3", "-2", "nan"]),
            _tags,
        ),
        min_size=1,
        max_size=8,
    ),
    st.lists(st.sampled_from([" ", "\t", "  ", " \t", "\t\t\t"]), min_size=5, max_size=5),
    st.sampled_from(["", " ", "\t "]),
    st.sampled_from(["\n", "\r\n", " \n"]),
    st.booleans(),
    st.booleans(),
)
def test_fast_reader_agrees_with_line_reader(rows, seps, edge, eol, final_newline, leading_blank):
    # the fast path (Arrow CSV, after making whitespace runs single tabs when needed; tag
    # checked by counting line endings) either declines a file or reads exactly what the
    # line-by-line reader reads
    from litaudit.runs.fastread import fast_run as _fast_run
    from litaudit.runs.trec_parse import parse_run_file

    def line(fields):
        out = fields[0]
        for sep, f in zip(seps, fields[1:], strict=True):
            out += sep + f
        return edge + out

    text = eol.join(line([t, "Q0", d, r, s, g]) for t, d, r, s, g in rows)
    text = ("\n \n" if leading_blank else "") + text + (eol if final_newline else "")
    data = text.encode()
    fast = _fast_run(data, None, check_duplicates=True)
    import tempfile
    from pathlib import Path

    with tempfile.TemporaryDirectory() as tmp:
        p = Path(tmp) / "r.txt"
        p.write_bytes(data)
        try:
            slow = parse_run_file(p)
        except (ValidationFailed, InputError):
            slow = None
    if fast is None:
        # declined: only files that the line reader refuses, or whose numbers it reads
        # more widely (a rank beyond 32 bits)
        assert slow is None or any(r == "9999999999" for _, _, r, _, _ in rows), text
        return
    assert slow is not None, text
    run = fast.to_run()
    assert fast.tag == slow.run.tag and fast.lines == slow.lines
    assert run.topic.tolist() == slow.run.topic.tolist()
    assert run.docno.tolist() == slow.run.docno.tolist()
    np.testing.assert_array_equal(run.score, slow.run.score)


def test_fast_reader_declines_what_it_cannot_check():
    from litaudit.runs.fastread import fast_run as _fast_run

    ok = b"1\tQ0\td1\t1\t3\tT\n1\tQ0\td2\t2\t2\tT"
    assert some(_fast_run(ok, None)).tag == "T"  # no final newline
    assert _fast_run(b"1\tQ0\td1\t1\t3\tT\n1\tQ0\td2\t2\t2\txT\n", None) is None  # tag suffix
    assert _fast_run(b"1\tQ0\td1\t1\t3\t\n", None) is None  # empty tag
    assert _fast_run(b"1\tQ0\td1\t9999999999\t3\tT\n", None) is None  # rank > int32
    assert read_run(write_bytes_file(b"1 Q0 d1 9999999999 3 T\n")).tag == "T"


def write_bytes_file(data: bytes):
    import tempfile
    from pathlib import Path

    p = Path(tempfile.mkdtemp()) / "r.txt"
    p.write_bytes(data)
    return p
