"""A corpus of bad inputs (issue 12): results CSV / JSON / Parquet, run files, qrels, BibTeX,
command-line values and output paths. Each case runs the CLI and checks the exit code
(1, or 2 for usage), a message naming the problem, no traceback, and that the database
is unchanged (and that nothing was written beside an output target).

The inputs are generated here, in the test (no fixture files to drift from the code).
"""

from __future__ import annotations

import csv
import hashlib
import io
import json
import os
import shutil
from pathlib import Path

import pytest

from tests.conftest import copy_db

OK_DATE = "2024-05-01"
BASE = {
    "source": "official",
    "paper": "",
    "track": "trec7/adhoc",
    "collection": "trec7",
    "measure": "AP",
    "value": "0.3033",
    "system": "newrun",
    "role": "official",
    "transcribed_by": "bob",
    "transcribed_at": OK_DATE,
}
QRELS = "1 0 d1 1\n1 0 d2 0\n2 0 d1 0\n2 0 d4 1\n"
RUN = "1 Q0 d1 1 3.5 A\n1 Q0 d2 2 2 A\n2 Q0 d4 1 1 A\n"
BIB = (
    "@inproceedings{doe2020x,\n  title = {A Title},\n  author = {Doe, Jane},\n"
    "  booktitle = {SIGIR},\n  year = {2020}\n}\n"
)


# ------------------------------------------------------------------ the base database


@pytest.fixture(scope="module")
def base_db(tmp_path_factory, reference_db_file) -> Path:
    """Reference data plus one official result, one paper result and one paper."""
    from litaudit.curation.importer import import_file
    from litaudit.store.db import open_store

    d = tmp_path_factory.mktemp("bad_inputs_base")
    path = d / "base.duckdb"
    copy_db(reference_db_file, path)
    rows = [
        dict(BASE, system="existing"),
        dict(
            BASE,
            source="paper",
            paper="doe2019y",
            paper_citation="Doe (SIGIR 2019)",
            paper_year="2019",
            track="",
            collection="robust04",
            value="0.2500",
            system="bm25",
            role="baseline",
        ),
    ]
    _write_csv(d / "seed.csv", rows)
    with open_store(path) as store:
        import_file(store, d / "seed.csv", who="fixture")
    return path


def fingerprint(db: Path) -> str:
    """SHA-256 over every row of every table (the content, not the file's bytes)."""
    import duckdb

    assert not Path(f"{db}.wal").exists(), "a write-ahead log was left behind"
    h = hashlib.sha256()
    con = duckdb.connect(str(db), read_only=True)
    try:
        for (t,) in con.execute(
            "SELECT table_name FROM information_schema.tables "
            "WHERE table_schema = 'main' ORDER BY 1"
        ).fetchall():
            h.update(t.encode())
            for row in con.execute(f'SELECT * FROM "{t}" ORDER BY ALL').fetchall():
                h.update(repr(row).encode())
    finally:
        con.close()
    return h.hexdigest()


@pytest.fixture(scope="module")
def base_print(base_db) -> str:
    return fingerprint(base_db)


def _file_sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.fixture(scope="module")
def base_sha(base_db) -> str:
    return _file_sha(base_db)


def unchanged(db: Path, base_sha: str, base_print: str, base: Path | None = None) -> bool:
    """The database holds what the base holds: not written since it was copied from
    ``base`` with its modification time (``shutil.copy2``: any write moves it; a stat, where
    hashing the 5.5 MB file took 5 ms), else the same bytes, else the same rows."""
    if Path(f"{db}.wal").exists():
        return fingerprint(db) == base_print  # (fingerprint() fails on a log left behind)
    if base is not None:
        now, then = db.stat(), base.stat()
        if (now.st_size, now.st_mtime_ns) == (then.st_size, then.st_mtime_ns):
            return True
    return _file_sha(db) == base_sha or fingerprint(db) == base_print


# ------------------------------------------------------------------ input builders


def _write_csv(path: Path, rows: list[dict], header: list[str] | None = None) -> Path:
    header = header or list(dict.fromkeys(k for r in rows for k in r))
    with path.open("w", newline="", encoding="utf-8") as fh:
        w = csv.writer(fh)
        w.writerow(header)
        for r in rows:
            w.writerow([r.get(c, "") for c in header])
    return path


def rcsv(**changes):
    """A results CSV with one row: BASE with ``changes``."""
    return lambda d: ["results", "import", _write_csv(d / "r.csv", [dict(BASE, **changes)])]


def rtext(text: str | bytes, name: str = "r.csv"):
    def build(d):
        p = d / name
        p.write_bytes(text if isinstance(text, bytes) else text.encode("utf-8"))
        return ["results", "import", p]

    return build


def header_line(cols=None):
    return ",".join(cols or BASE) + "\n"


def row_line(**changes):
    r = dict(BASE, **changes)
    buf = io.StringIO()
    csv.writer(buf, lineterminator="\n").writerow(list(r.values()))
    return buf.getvalue()


def rjson(obj, raw: str | None = None):
    return rtext(raw if raw is not None else json.dumps(obj), "r.json")


def rparquet(table_fn):
    def build(d):
        import pyarrow.parquet as pq

        p = d / "r.parquet"
        pq.write_table(table_fn(), p)
        return ["results", "import", p]

    return build


def _string_table(**changes):
    import pyarrow as pa

    r = dict(BASE, **changes)
    return pa.table({k: pa.array([v], pa.string()) for k, v in r.items()})


def runs(run: str | bytes = RUN, qrels: str | bytes = QRELS, extra=(), run_name="a.run"):
    def build(d):
        rp, qp = d / run_name, d / "qrels.txt"
        rp.write_bytes(run if isinstance(run, bytes) else run.encode())
        qp.write_bytes(qrels if isinstance(qrels, bytes) else qrels.encode())
        return [
            "runs",
            "import",
            "-c",
            "robust03",
            "--qrels",
            qp,
            rp,
            *[(x(d) if callable(x) else x) for x in extra],
        ]

    return build


def bib(text: str | bytes, name="p.bib"):
    def build(d):
        p = d / name
        p.write_bytes(text if isinstance(text, bytes) else text.encode("utf-8"))
        return ["papers", "import", p]

    return build


def args(*a):
    return lambda d: [x(d) if callable(x) else x for x in a]


def bundle(**changes):
    b = {
        "format": "litaudit-curation",
        "version": 1,
        "papers": [],
        "results": [dict(BASE, system="bundled")],
        "history": [],
    }
    b.update(changes)
    return rjson(b)


def _metadata(text: bytes):
    def f(d):
        p = d / "meta.csv"
        p.write_bytes(text)
        return p

    return f


def _fifo(d):
    p = d / "fifo"
    os.mkfifo(p)
    return p


def _dir(d):
    (d / "sub").mkdir(exist_ok=True)
    return d / "sub"


def _matrix(d):
    p = d / "m.csv"
    p.write_text("topic,r1,r2\n1,0.2,1.5\n2,0.3,0.4\n")
    return p


DB = object()  # stands for the database path in an argument list
WAL = object()  # ... and for its write-ahead log


def _deep_json(n: int) -> str:
    return "[" * n + "]" * n


# (id, build(tmp_dir) -> CLI arguments, exit code, text the error names)
CASES = [
    # ---------------------------------------------------------------- results CSV
    ("csv-unknown-column", rcsv(valeu="1"), 1, "unknown column 'valeu'; did you mean 'value'"),
    (
        "csv-duplicate-column",
        rtext(header_line(list(BASE) + ["value"]) + row_line().strip() + ",0.1\n"),
        1,
        "'value' appears twice",
    ),
    (
        "csv-missing-column",
        rtext(
            header_line([c for c in BASE if c != "system"])
            + ",".join(v for k, v in BASE.items() if k != "system")
            + "\n"
        ),
        1,
        "missing column 'system'",
    ),
    ("csv-utf16", rtext((header_line() + row_line()).encode("utf-16")), 1, "not UTF-8"),
    (
        "csv-latin1",
        rtext((header_line() + row_line(system="café")).encode("latin-1")),
        1,
        "r.csv:2: not UTF-8",
    ),
    (
        "csv-unterminated-quote",
        rtext(header_line() + row_line().replace("newrun", '"newrun')),
        1,
        "unterminated quote",
    ),
    (
        "csv-more-cells",
        rtext(header_line() + row_line().strip() + ",extra\n"),
        1,
        "cells but the header has",
    ),
    ("csv-fewer-cells", rtext(header_line() + "official,\n"), 1, "cells but the header has"),
    ("csv-value-text", rcsv(value="abc"), 1, "value: not a number: 'abc'"),
    ("csv-value-arabic-digits", rcsv(value="٠.٣"), 1, "not a number"),
    ("csv-value-fullwidth-digits", rcsv(value="０.３"), 1, "not a number"),
    ("csv-value-out-of-range", rcsv(value="1.5"), 1, "outside the range of AP"),
    ("csv-value-percent", rcsv(value="35.2"), 1, "a percentage?"),
    ("csv-value-1e400", rcsv(value="1e400"), 1, "outside the range"),
    ("csv-value-nan", rcsv(value="nan"), 1, "not a number: 'nan'"),
    ("csv-value-inf", rcsv(value="inf"), 1, "not a number: 'inf'"),
    ("csv-value-comma", rcsv(value="0,30"), 1, "not a number: '0,30'"),
    ("csv-date-garbage", rcsv(transcribed_at="2024-05-01garbage"), 1, "expected a date"),
    ("csv-date-future", rcsv(transcribed_at="2999-01-01"), 1, "in the future"),
    ("csv-date-impossible", rcsv(transcribed_at="2024-02-30"), 1, "not a calendar date"),
    ("csv-date-slashes", rcsv(transcribed_at="01/05/2024"), 1, "expected a date"),
    ("csv-nul-in-system", rcsv(system="a\x00b"), 1, "system: contains a NUL byte"),
    ("csv-escape-in-notes", rcsv(notes="\x1b[31mred"), 1, "notes: contains control character"),
    ("csv-n-topics-overflow", rcsv(n_topics="100000000000000000000"), 1, "too large"),
    ("csv-n-topics-zero", rcsv(n_topics="0"), 1, "at least 1"),
    ("csv-n-topics-text", rcsv(n_topics="fifty"), 1, "whole number"),
    ("csv-year-old", rcsv(year="1800"), 1, "out of range 1950-2100"),
    ("csv-year-overflow", rcsv(year="99999999999999"), 1, "too large"),
    ("csv-unknown-collection", rcsv(collection="robust4"), 1, "did you mean 'robust04'"),
    ("csv-unknown-measure", rcsv(measure="MAPP"), 1, "unknown measure"),
    ("csv-unknown-topic-set", rcsv(topic_set="bogus"), 1, "unknown topic set 'bogus'"),
    (
        "csv-topic-set-mismatch",
        rcsv(topic_set="351-400", n_topics="49"),
        1,
        "has 50 topics, not 49",
    ),
    ("csv-bad-role", rcsv(role="winner"), 1, "role must be one of"),
    ("csv-bad-status", rcsv(status="done"), 1, "status must be one of"),
    ("csv-bad-run-type", rcsv(run_type="semi"), 1, "run type must be automatic or manual"),
    ("csv-bad-standard", rcsv(standard="maybe"), 1, "expected true or false"),
    ("csv-bad-source", rcsv(source="blog"), 1, "source must be one of"),
    ("csv-paper-without-bibkey", rcsv(source="paper", track=""), 1, "needs the paper's bibkey"),
    (
        "csv-unknown-paper",
        rcsv(source="paper", paper="nobody2020", track=""),
        1,
        "unknown paper 'nobody2020'",
    ),
    ("csv-official-without-track", rcsv(track=""), 1, "needs its track"),
    (
        "csv-bad-paper-year",
        rcsv(source="paper", paper="new2020", paper_citation="New", paper_year="20x0", track=""),
        1,
        "paper_year",
    ),
    (
        "csv-duplicate-rows",
        rtext(header_line() + row_line() + row_line()),
        1,
        "duplicate of line 2",
    ),
    (  # stored with another value (the identical row is "unchanged", no problem)
        "csv-existing-row",
        rcsv(system="existing", value="0.3034"),
        1,
        "already in the database as result #",
    ),
    ("csv-empty-file", rtext(""), 1, "empty file"),
    ("csv-header-only", rtext(header_line()), 1, "no rows to import"),
    ("csv-huge-field", rcsv(notes="x" * (1 << 21)), 1, "longer than 1048576 characters"),
    ("csv-missing-value", rcsv(value=""), 1, "value: missing value"),
    ("csv-bad-provenance-date", rcsv(transcribed_at="2026-02-30"), 1, "not a calendar date"),
    ("results-unknown-suffix", rtext("x", "r.xlsx"), 1, "unknown format '.xlsx'"),
    ("results-directory", args("results", "import", _dir), 1, "is a directory"),
    ("results-no-such-file", args("results", "import", "nope.csv"), 1, "no such file"),
    (
        "results-second-file-bad",
        lambda d: [
            "results",
            "import",
            _write_csv(d / "a.csv", [dict(BASE, system="a1")]),
            _write_csv(d / "b.csv", [dict(BASE, value="x")]),
        ],
        1,
        "b.csv:2: value: not a number",
    ),
    # ---------------------------------------------------------------- results JSON
    ("json-syntax", rjson(None, raw='[{"source": "official",}]'), 1, "invalid JSON"),
    (
        "json-duplicate-key",
        rjson(None, raw='[{"value": "0.1", "value": "0.2"}]'),
        1,
        "'value' appears twice",
    ),
    (
        "json-object-value",
        rjson([dict(BASE, system={"a": 1})]),
        1,
        "system: a JSON object is not a value",
    ),
    ("json-list-value", rjson([dict(BASE, notes=[1, 2])]), 1, "a JSON list is not a value"),
    ("json-deep", rjson(None, raw=_deep_json(100_000)), 1, "JSON nested too deeply"),
    ("json-scalar", rjson(3), 1, "expected a JSON list of objects"),
    ("json-list-of-numbers", rjson([1, 2]), 1, "expected a JSON list of objects"),
    ("json-unknown-key", rjson([dict(BASE, valeu="1")]), 1, "unknown column 'valeu'"),
    (
        "json-nan-constant",
        rjson(None, raw=json.dumps([BASE])[:-2] + ', "n_topics": NaN}]'),
        1,
        "whole number",
    ),
    ("json-utf16", rtext(json.dumps([BASE]).encode("utf-16"), "r.json"), 1, "UTF-16"),
    (
        "json-value-out-of-range",
        rjson(None, raw=json.dumps([dict(BASE, value="X")]).replace('"X"', "1.50")),
        1,
        "1.50 is outside",
    ),
    (
        "json-huge-integer",
        rjson(None, raw=json.dumps([dict(BASE, n_topics="X")]).replace('"X"', "1" + "0" * 30)),
        1,
        "too large",
    ),
    ("json-empty-list", rjson([]), 1, "no rows to import"),
    ("json-bool-value", rjson([dict(BASE, value=True)]), 1, "not a number: 'true'"),
    (
        "bundle-bad-action",
        bundle(
            history=[
                {
                    "entity": "result",
                    "result": 1,
                    "action": "nuke",
                    "who": "x",
                    "changed_at": "2024-01-01 00:00:00",
                }
            ]
        ),
        1,
        "action must be one of",
    ),
    (
        "bundle-bad-position",
        bundle(
            history=[
                {
                    "entity": "result",
                    "result": 9,
                    "action": "edit",
                    "who": "x",
                    "changed_at": "2024-01-01 00:00:00",
                }
            ]
        ),
        1,
        "must be a position in results",
    ),
    (
        "bundle-bad-timestamp",
        bundle(
            history=[
                {
                    "entity": "result",
                    "result": 1,
                    "action": "edit",
                    "who": "x",
                    "changed_at": "yesterday",
                }
            ]
        ),
        1,
        "expected a timestamp",
    ),
    (
        "bundle-paper-without-citation",
        bundle(papers=[{"bibkey": "p2020"}]),
        1,
        "needs a bibkey and a citation",
    ),
    ("bundle-unknown-key", bundle(extras=[]), 1, "unknown key 'extras'"),
    ("bundle-wrong-version", bundle(version=7), 1, "not a litaudit-curation export"),
    ("bundle-papers-not-a-list", bundle(papers={"a": 1}), 1, "must be a list of objects"),
    # ---------------------------------------------------------------- results Parquet
    (
        "parquet-garbage",
        rtext(b"PAR1 this is not parquet PAR1", "r.parquet"),
        1,
        "not a readable Parquet file",
    ),
    ("parquet-empty", rtext(b"", "r.parquet"), 1, "not a readable Parquet file"),
    ("parquet-truncated", lambda d: _truncated_parquet(d), 1, "not a readable Parquet file"),
    (
        "parquet-struct-column",
        rparquet(lambda: _with_column("system", __import__("pyarrow").array([{"a": 1}]))),
        1,
        "cannot hold this field",
    ),
    (
        "parquet-duplicate-column",
        rparquet(
            lambda: _string_table().append_column("value", __import__("pyarrow").array(["0.2"]))
        ),
        1,
        "'value' appears twice",
    ),
    (
        "parquet-unknown-column",
        rparquet(lambda: _string_table(valeu="1")),
        1,
        "unknown column 'valeu'",
    ),
    (
        "parquet-float-out-of-range",
        rparquet(
            lambda: _with_column(
                "value", __import__("pyarrow").array([1.5], __import__("pyarrow").float32())
            )
        ),
        1,
        "1.5 is outside",
    ),
    (
        "parquet-bad-date",
        rparquet(lambda: _string_table(transcribed_at="2024-13-01")),
        1,
        "not a calendar date",
    ),
    # ---------------------------------------------------------------- run files
    ("run-columns", runs("1 Q0 d1 1 3\n"), 1, "a.run:1: expected 6 columns"),
    ("run-rank-text", runs("1 Q0 d1 one 3 A\n"), 1, "rank 'one' is not an integer"),
    ("run-score-text", runs("1 Q0 d1 1 high A\n"), 1, "score 'high' is not a number"),
    ("run-score-inf", runs("1 Q0 d1 1 inf A\n"), 1, "score 'inf' is not a number"),
    ("run-score-1e400", runs("1 Q0 d1 1 1e400 A\n"), 1, "not a finite number"),
    ("run-score-nan", runs("1 Q0 d1 1 nan A\n"), 1, "score 'nan' is not a number"),
    ("run-duplicate-doc", runs("1 Q0 d1 1 3 A\n1 Q0 d1 2 2 A\n"), 1, "appears twice"),
    ("run-tag-changes", runs("1 Q0 d1 1 3 A\n1 Q0 d2 2 2 B\n"), 1, "run tag changes"),
    ("run-utf16", runs(RUN.encode("utf-16")), 1, "UTF-16"),
    ("run-latin1", runs("1 Q0 caf\xe9 1 3 A\n".encode("latin-1")), 1, "not UTF-8"),
    ("run-nul", runs(b"1 Q0 d\x001 1 3 A\n"), 1, "NUL byte"),
    ("run-empty", runs(""), 1, "empty run file"),
    ("run-topic-not-in-qrels", runs("9 Q0 d1 1 3 A\n"), 1, "topic 9 is not in the qrels"),
    (
        "run-bad-gzip",
        runs(b"\x1f\x8b\x08\x00garbage", run_name="a.run.gz"),
        1,
        "not a readable gzip file",
    ),
    (
        "run-no-such-file",
        args("runs", "import", "-c", "robust03", "missing.run"),
        1,
        "no such file",
    ),
    (
        "run-metadata-misspelt",
        runs(extra=["--metadata", _metadata(b"tag,partcipant\nA,x\n")]),
        1,
        "unknown column 'partcipant'; did you mean 'participant'",
    ),
    (
        "run-metadata-latin1",
        runs(extra=["--metadata", _metadata("tag,participant\nA,\xe9\n".encode("latin-1"))]),
        1,
        "not UTF-8",
    ),
    (
        "run-unknown-collection",
        lambda d: [x if x != "robust03" else "robust4" for x in runs()(d)],
        1,
        "unknown collection",
    ),
    (
        "run-missing-file",
        args("runs", "import", "-c", "robust03", "x.run"),
        1,
        "x.run: no such file",
    ),
    # ---------------------------------------------------------------- qrels
    (
        "qrels-huge-relevance",
        runs(qrels="1 0 d1 100000000000000000000\n"),
        1,
        "relevance 100000000000000000000 is out of range",
    ),
    ("qrels-relevance-text", runs(qrels="1 0 d1 high\n"), 1, "relevance 'high' is not an integer"),
    ("qrels-columns", runs(qrels="1 0 d1\n"), 1, "expected 4 columns"),
    ("qrels-judged-twice", runs(qrels="1 0 d1 1\n1 0 d1 0\n2 0 d4 1\n"), 1, "judged twice"),
    ("qrels-utf16", runs(qrels=QRELS.encode("utf-16")), 1, "UTF-16"),
    ("qrels-empty", runs(qrels=""), 1, "empty qrels file"),
    (
        "qrels-directory",
        lambda d: ["runs", "import", "-c", "robust03", "--qrels", _dir(d), runs()(d)[-1]],
        1,
        "is a directory, not a qrels file",
    ),
    (
        "qrels-no-such-file",
        lambda d: ["runs", "import", "-c", "robust03", "--qrels", d / "none.txt", runs()(d)[-1]],
        1,
        "no such file",
    ),
    # ---------------------------------------------------------------- BibTeX and papers CSV
    (
        "bib-no-key",
        bib("@article{title = {T}, author = {A}, year = {2020}}\n"),
        1,
        "entry without a key",
    ),
    ("bib-unterminated", bib("@article{k1,\n  title = {Broken\n"), 1, "unterminated entry"),
    (
        "bib-missing-year",
        bib("@article{k1, title = {T}, author = {A, B}}\n"),
        1,
        "entry 'k1': missing year",
    ),
    (
        "bib-missing-title",
        bib("@article{k1, author = {A, B}, year = {2020}}\n"),
        1,
        "entry 'k1': missing title",
    ),
    (
        "bib-bad-year",
        bib("@article{k1, title = {T}, author = {A, B}, year = {MMXX}}\n"),
        1,
        "whole number",
    ),
    ("bib-duplicate-key", bib(BIB + BIB), 1, "'doe2020x' appears twice"),
    ("bib-utf16", bib(BIB.encode("utf-16")), 1, "UTF-16"),
    (
        "bib-latin1",
        bib(BIB.replace("Jane", "J\xe9r\xf4me").encode("latin-1")),
        1,
        "p.bib:3: not UTF-8",
    ),
    ("bib-nul", bib(BIB.replace("A Title", "A\x00Title")), 1, "NUL byte"),
    ("bib-existing", bib(BIB.replace("doe2020x", "doe2019y")), 1, "already exists"),
    (
        "papers-csv-unknown-column",
        bib("bibkey,citaton\nk,C\n", "p.csv"),
        1,
        "unknown column 'citaton'",
    ),
    (
        "papers-csv-duplicate-column",
        bib("bibkey,citation,citation\nk,C,D\n", "p.csv"),
        1,
        "'citation' appears twice",
    ),
    ("papers-csv-unterminated", bib('bibkey,citation\nk,"C\n', "p.csv"), 1, "unterminated quote"),
    # ---------------------------------------------------------------- command-line values
    ("cli-years-backwards", args("results", "list", "--years", "2020-2010"), 1, "runs backwards"),
    ("cli-years-text", args("results", "list", "--years", "abc"), 1, "expected YEAR or FROM-TO"),
    ("cli-years-arabic", args("results", "list", "--years", "٢٠٢٠"), 1, "expected YEAR"),
    (
        "cli-add-arabic-value",
        args(
            "results",
            "add",
            "-c",
            "trec7",
            "-m",
            "AP",
            "--value",
            "٠.٣",
            "--system",
            "s",
            "--role",
            "official",
            "--track",
            "trec7/adhoc",
        ),
        1,
        "--value: not a number",
    ),
    (
        "cli-add-huge-topics",
        args(
            "results",
            "add",
            "-c",
            "trec7",
            "-m",
            "AP",
            "--value",
            "0.3",
            "--system",
            "s",
            "--role",
            "official",
            "--track",
            "trec7/adhoc",
            "--n-topics",
            "1" + "0" * 20,
        ),
        1,
        "too large",
    ),
    (
        "cli-add-unknown-topic-set",
        args(
            "results",
            "add",
            "-c",
            "trec7",
            "-m",
            "AP",
            "--value",
            "0.3",
            "--system",
            "s",
            "--role",
            "official",
            "--track",
            "trec7/adhoc",
            "--topic-set",
            "bogus",
        ),
        1,
        "unknown topic set 'bogus'",
    ),
    (
        "cli-add-nul-system",
        args(
            "results",
            "add",
            "-c",
            "trec7",
            "-m",
            "AP",
            "--value",
            "0.3",
            "--system",
            "a\x01b",
            "--role",
            "official",
            "--track",
            "trec7/adhoc",
        ),
        1,
        "contains control character",
    ),
    (
        "cli-add-topics-not-int",
        args(
            "results",
            "add",
            "-c",
            "trec7",
            "-m",
            "AP",
            "--value",
            "0.3",
            "--system",
            "s",
            "--role",
            "official",
            "--n-topics",
            "x",
        ),
        2,
        "n-topics",
    ),
    (
        "cli-edit-unknown-field",
        args("results", "edit", "1", "--set", "valeu=0.2", "--reason", "r"),
        1,
        "did you mean 'value'",
    ),
    (
        "cli-edit-out-of-range",
        args("results", "edit", "1", "--set", "value=2", "--reason", "r"),
        1,
        "outside the range",
    ),
    (
        "cli-edit-no-equals",
        args("results", "edit", "1", "--set", "value", "--reason", "r"),
        1,
        "expected FIELD=VALUE",
    ),
    (
        "cli-edit-missing-id",
        args("results", "edit", "99999999999", "--set", "value=0.2", "--reason", "r"),
        1,
        "no result with id",
    ),
    ("cli-paper-year", args("papers", "add", "k2030", "--year", "3000"), 1, "out of range"),
    (
        "cli-paper-control",
        args("papers", "add", "k2031", "--title", "a\x1b[2Jb"),
        1,
        "control character",
    ),
    (
        "cli-export-format",
        args("results", "export", "x.out", "--format", "xml"),
        1,
        "--format: 'xml' is not one of",
    ),
    (
        "cli-on-existing",
        lambda d: ["results", "import", "--on-existing", "maybe", rcsv()(d)[-1]],
        1,
        "--on-existing: 'maybe'",
    ),
    ("cli-role-filter", args("results", "list", "--role", "winner"), 1, "is not one of"),
    ("cli-report-format", args("report", "-c", "trec7", "--format", "pdf"), 1, "--format: 'pdf'"),
    (
        "cli-matrix-out-of-range",
        args("audit", "matrix", _matrix, "-m", "AP", "--no-save"),
        1,
        "AP 1.5 is outside its range",
    ),
    ("cli-unknown-option", args("results", "list", "--colection", "x"), 2, "No such option"),
    # ---------------------------------------------------------------- output paths
    (
        "out-export-over-db",
        args("results", "export", DB, "--format", "csv"),
        1,
        "refusing to overwrite the open database",
    ),
    (
        "out-export-over-wal",
        args("results", "export", WAL, "--format", "csv"),
        1,
        "refusing to overwrite the open database",
    ),
    (
        "out-export-directory",
        args("results", "export", _dir, "--format", "csv"),
        1,
        "is a directory",
    ),
    (
        "out-export-fifo",
        args("results", "export", _fifo, "--format", "csv"),
        1,
        "not a regular file",
    ),
    (
        "out-export-device",
        args("results", "export", "/dev/null", "--format", "csv"),
        1,
        "not a regular file",
    ),
    (
        "out-export-empty",
        args("results", "export", "", "--format", "csv"),
        1,
        "output path is empty",
    ),
    (
        "out-export-missing-dir",
        args("results", "export", lambda d: d / "no" / "x.csv"),
        1,
        "does not exist",
    ),
    (
        "out-report-over-db",
        args("report", "-c", "trec7", "-m", "AP", "-o", DB),
        1,
        "refusing to overwrite the open database",
    ),
    (
        "out-report-directory",
        args("report", "-c", "trec7", "-m", "AP", "-o", _dir),
        1,
        "is a directory",
    ),
    (
        "out-report-fifo",
        args("report", "-c", "trec7", "-m", "AP", "-o", _fifo),
        1,
        "not a regular file",
    ),
    (
        "out-report-empty",
        args("report", "-c", "trec7", "-m", "AP", "-o", ""),
        1,
        "output path is empty",
    ),
    (
        "out-holdout-over-db",
        args("reuse", "holdout", "-o", DB, "--sites", "3", "--topics", "6"),
        1,
        "refusing to overwrite the open database",
    ),
    # issue 33: what a store folder could not carry, refused at entry
    ("track-trailing-slash", rcsv(track="trec7/adhoc/"), 1, "has an empty part"),
    ("track-empty-part", rcsv(track="trec7//adhoc"), 1, "has an empty part"),
    ("run-tag-escape", runs("1 Q0 d1 1 3 A\x1b[31m\n"), 1, "U+001B"),
    ("run-tag-bidi", runs("1 Q0 d1 1 3 A\u202eB\n"), 1, "U+202E"),
    (
        "paper-url-javascript",
        rcsv(
            source="paper",
            track="",
            role="proposed",
            paper="new2020",
            paper_citation="N (2020)",
            paper_url="javascript:alert(1)",
        ),
        1,
        "expected an http(s) URL",
    ),
    (
        "paper-bibkey-long",
        rcsv(source="paper", track="", role="proposed", paper="k" * 300, paper_citation="K"),
        1,
        "at most 100",
    ),
    (
        "papers-add-url-file",
        args("papers", "add", "p2020", "--citation", "P", "--url", "file:///etc/passwd"),
        1,
        "expected an http(s) URL",
    ),
]


def _truncated_parquet(d: Path):
    import pyarrow.parquet as pq

    p = d / "r.parquet"
    pq.write_table(_string_table(), p)
    data = p.read_bytes()
    p.write_bytes(data[: len(data) // 2])
    return ["results", "import", p]


def _with_column(name, array):
    t = _string_table()
    i = t.column_names.index(name)
    return t.set_column(i, name, array)


def test_the_corpus_is_large_enough():
    assert len(CASES) >= 100
    assert len({c[0] for c in CASES}) == len(CASES)


# The cases refused before the store opens (the command's request fails its `.checked()`, or
# an input file is refused as it is read): they run with a --db path that is never created,
# and a case that does open the store fails at "no database at ...".
NO_STORE = frozenset(
    {
        "run-no-such-file",
        "run-missing-file",
        "bib-utf16",
        "bib-latin1",
        "bib-nul",
        "cli-years-backwards",
        "cli-years-text",
        "cli-years-arabic",
        "cli-add-topics-not-int",
        "cli-edit-no-equals",
        "cli-paper-control",
        "cli-export-format",
        "cli-on-existing",
        "cli-role-filter",
        "cli-report-format",
        "cli-unknown-option",
        "out-export-directory",
        "out-export-fifo",
        "out-export-device",
        "out-export-empty",
        "out-export-missing-dir",
        "out-report-directory",
        "out-report-fifo",
        "out-report-empty",
    }
)


# The cases whose command opens the store read-only: DuckDB refuses a read-only connect to
# a file this process holds open for writing, so these run on a copy of their own.
READ_ONLY = frozenset({"cli-matrix-out-of-range"})


def test_the_cases_refused_before_the_store_are_cases():
    assert NO_STORE | READ_ONLY <= {c[0] for c in CASES}
    assert not NO_STORE & READ_ONLY


@pytest.fixture(scope="module")
def shared_db(base_db, base_print, tmp_path_factory):
    """One copy of the base database for the cases that open the store, with a write
    store held open for the module: the CLI's own open then finds it attached to the
    process's DuckDB instance (no ATTACH, no copy). Each case leaves it as it was
    (:func:`held_unchanged`), and at the end its rows are the base's."""
    from litaudit.store.db import open_store

    d = tmp_path_factory.mktemp("bad_inputs_shared")
    path = d / "db.duckdb"
    shutil.copy2(base_db, path)
    store = open_store(path)
    yield path, store.con
    try:
        assert held_fingerprint(store.con) == base_print, "a case changed the shared database"
    finally:
        store.close()


def held_fingerprint(con) -> str:
    """:func:`fingerprint` through an open connection."""
    h = hashlib.sha256()
    for (t,) in con.execute(
        "SELECT table_name FROM information_schema.tables WHERE table_schema = 'main' "
        "AND table_catalog = current_database() ORDER BY 1"
    ).fetchall():
        h.update(t.encode())
        for row in con.execute(f'SELECT * FROM "{t}" ORDER BY ALL').fetchall():
            h.update(repr(row).encode())
    return h.hexdigest()


def held_unchanged(db: Path, base: Path) -> bool:
    """Nothing was written to the shared database: a commit while a connection is held
    writes the write-ahead log (``db.wal``), a checkpoint the file itself; so no log and
    the base's size and modification time (``shutil.copy2``). The rows are compared
    once, at the module's end (a fingerprint costs ~17 ms, a case ~5 ms)."""
    now, then = db.stat(), base.stat()
    return not Path(f"{db}.wal").exists() and (now.st_size, now.st_mtime_ns) == (
        then.st_size,
        then.st_mtime_ns,
    )


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_bad_input_is_one_clear_error_and_changes_nothing(
    cli, shared_db, base_db, base_print, base_sha, tmp_path, case
):
    name, build, code, expected = case
    if name in NO_STORE:
        db, con = tmp_path / "absent" / "db.duckdb", None
    elif name in READ_ONLY:
        db, con = tmp_path / "db.duckdb", None
        shutil.copy2(base_db, db)  # with its modification time: see unchanged()
    else:
        db, con = shared_db
    beside = sorted(p.name for p in db.parent.iterdir()) if con is not None else []
    argv = [db if a is DB else Path(f"{db}.wal") if a is WAL else a for a in build(tmp_path)]
    before = {p.name: (p.stat().st_mode, p.stat().st_size) for p in tmp_path.iterdir()}
    cwd = os.getcwd()
    os.chdir(tmp_path)
    try:
        res = cli(*argv, db=db)
    finally:
        os.chdir(cwd)
    err = res.stderr
    assert res.exit_code == code, (res.exit_code, res.stdout, err, res.exception)
    assert "Traceback" not in err + res.stdout and not (
        res.exception and not isinstance(res.exception, SystemExit)
    ), res.exception
    assert expected in err, err
    lines = [x for x in err.splitlines() if x.strip() and not x.endswith(" ...")]  # progress
    # one line per problem: the problem lines are indented, then one "Error:" line
    assert lines and all(
        x.startswith("  ") or x.startswith("Error:") or code == 2 for x in lines
    ), err
    if name in NO_STORE:
        assert not db.parent.exists(), "a case refused before the store created its folder"
    elif con is None:
        assert unchanged(db, base_sha, base_print, base_db)
    else:
        assert held_unchanged(db, base_db), "the case wrote to the database"
        assert sorted(p.name for p in db.parent.iterdir()) == beside, "written beside the db"
    after = {p.name: (p.stat().st_mode, p.stat().st_size) for p in tmp_path.iterdir()}
    assert after == before, "a file was written or left behind"


def test_json_errors_are_a_list_on_stderr(cli, base_db, tmp_path):
    db = tmp_path / "db.duckdb"
    copy_db(base_db, db)
    path = _write_csv(tmp_path / "r.csv", [dict(BASE, value="x", measure="MAPP")])
    res = cli("results", "import", path, "--json", db=db)
    assert res.exit_code == 1 and res.stdout == ""
    got = json.loads(res.stderr)
    assert {(p["file"], p["line"], p["field"]) for p in got} == {
        (str(path), 2, "value"),
        (str(path), 2, "measure"),
    }
    assert all(set(p) == {"file", "line", "field", "message"} for p in got)
    res = cli("results", "show", "99999", "--json", db=db)
    assert json.loads(res.stderr) == [
        {"file": None, "line": None, "field": None, "message": "no result with id 99999"}
    ]
    res = cli("results", "list", "--bogus", "--json", db=db)
    assert res.exit_code == 2 and json.loads(res.stderr)[0]["message"].startswith("No such")


def test_json_problems_name_the_line_the_object_starts_on(cli, base_db, tmp_path):
    # an indented list (as `results export` writes it) and a curation export's "results":
    # each problem names the text line where its object begins, not its position
    db = tmp_path / "db.duckdb"
    copy_db(base_db, db)
    rows = [dict(BASE, system="a"), dict(BASE, system="b", value="y")]
    for doc in (rows, {"results": rows}):
        path = tmp_path / "r.json"
        path.write_text(json.dumps(doc, indent=1))
        text = path.read_text().splitlines()
        start = next(i for i, t in enumerate(text, 1) if '"system": "b"' in t)
        line = max(i for i, t in enumerate(text[:start], 1) if t.strip() == "{")
        assert line > 2
        res = cli("results", "import", path, db=db)
        assert res.exit_code == 1 and f"{path}:{line}: value: not a number" in res.stderr
    path.write_text('[\n {"a": 1},\n {"a": 2}\n}')
    res = cli("results", "import", path, db=db)
    assert res.exit_code == 1 and f"{path}:4: invalid JSON: Expecting ',' or ']'" in res.stderr


def test_a_problem_on_line_100_is_not_an_emoji(cli, base_db, tmp_path):
    db = tmp_path / "db.duckdb"
    copy_db(base_db, db)
    rows = [dict(BASE, system=f"s{i}") for i in range(98)] + [dict(BASE, system="x", value="y")]
    path = _write_csv(tmp_path / "r.csv", rows)
    res = cli("results", "import", path, db=db)
    assert res.exit_code == 1 and f"{path}:100: value: not a number" in res.stderr


def test_a_missing_column_reports_once_and_header_problems_hide_nothing(cli, base_db, tmp_path):
    db = tmp_path / "db.duckdb"
    copy_db(base_db, db)
    cols = [c for c in BASE if c != "role"] + ["colour"]
    rows = [dict(BASE, system=f"s{i}", colour="red") for i in range(20)]
    rows[5]["value"] = "bad"
    path = _write_csv(tmp_path / "r.csv", rows, cols)
    res = cli("results", "import", path, "--json", db=db)
    got = [p["message"] for p in json.loads(res.stderr)]
    assert got.count("missing column 'role'") == 1
    assert any(m.startswith("unknown column 'colour'") for m in got)
    assert any("not a number: 'bad'" in m for m in got)
    assert len(got) == 3


def test_a_full_disk_is_named_and_leaves_nothing(cli, base_db, tmp_path, monkeypatch):
    import errno

    import litaudit.files as files

    db = tmp_path / "db.duckdb"
    copy_db(base_db, db)
    real = files.os.replace

    def full(src, dst):
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), str(dst))

    monkeypatch.setattr(files.os, "replace", full)
    before = sorted(p.name for p in tmp_path.iterdir())
    res = cli("results", "export", tmp_path / "out.csv", db=db)
    assert res.exit_code == 1 and "No space left on device" in res.stderr
    res = cli("report", "-c", "trec7", "-m", "AP", "-o", tmp_path / "r.md", db=db)
    assert res.exit_code == 1 and "No space left on device" in res.stderr
    monkeypatch.setattr(files.os, "replace", real)
    assert sorted(p.name for p in tmp_path.iterdir()) == before


def test_output_to_stdout_and_through_a_symlink(cli, base_db, tmp_path):
    db = tmp_path / "db.duckdb"
    copy_db(base_db, db)
    res = cli("results", "export", "-", "--format", "csv", db=db)
    assert res.exit_code == 0 and res.stdout.splitlines()[0].startswith("source,paper,")
    assert len(res.stdout.splitlines()) == 3
    link = tmp_path / "link.duckdb"
    link.symlink_to(db)
    res = cli("results", "export", link, "--format", "csv", db=db)
    assert res.exit_code == 1 and "refusing to overwrite the open database" in res.stderr
    target = tmp_path / "t.csv"
    target.write_text("old")
    (tmp_path / "l.csv").symlink_to(target)
    assert cli("results", "export", tmp_path / "l.csv", db=db).exit_code == 0
    assert (tmp_path / "l.csv").is_symlink() and target.read_text().startswith("source,")
    res = cli("report", "-c", "trec7", "-m", "AP", "-o", "-", db=db)
    assert res.exit_code == 0 and res.stdout.startswith("# ")


def test_several_files_are_one_transaction(cli, base_db, base_print, tmp_path):
    db = tmp_path / "db.duckdb"
    copy_db(base_db, db)
    a = _write_csv(tmp_path / "a.csv", [dict(BASE, system="a1")])
    b = _write_csv(tmp_path / "b.csv", [dict(BASE, system="b1", value="0.5x")])
    res = cli("results", "import", a, b, db=db)
    assert res.exit_code == 1 and "nothing was written" in res.stderr
    assert fingerprint(db) == base_print
    # a later file may use what an earlier one adds (the same transaction)
    c = _write_csv(
        tmp_path / "c.csv",
        [
            dict(
                BASE,
                source="paper",
                paper="new2021",
                paper_title="New",
                paper_authors="Roe, R",
                track="",
                system="m",
                role="proposed",
                paper_year="2021",
            )
        ],
    )
    e = _write_csv(
        tmp_path / "e.csv",
        [dict(BASE, source="paper", paper="new2021", track="", system="m2", role="proposed")],
    )
    res = cli("results", "import", c, e, db=db)
    assert res.exit_code == 0, res.stderr
    rows = json.loads(cli("results", "list", "--paper", "new2021", "--json", db=db).stdout)
    assert sorted(r["system"] for r in rows) == ["m", "m2"]
    assert rows[0]["citation"] == "Roe (2021)"
